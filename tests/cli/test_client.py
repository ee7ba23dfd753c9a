# LocalMatchClient: the in-process MatchClient the UI tests and `python -m versus.cli.ui` use.
from __future__ import annotations

import random

import pytest
import trio

from versus.cli.client import (
    ClockState,
    Connection,
    ConnectionStatus,
    EndReason,
    LocalMatchClient,
    MatchClient,
)
from versus.engine import IllegalActionError
from versus.engine.versus42 import Action, parse_action


async def _play_randomly(client: LocalMatchClient, seed: int) -> None:
    rng = random.Random(seed)
    while client.result is None:
        legal = client.legal_actions()
        if legal:
            await client.submit(rng.choice(legal))
        else:
            await client.wait_changed()


async def test_local_client_plays_a_whole_game() -> None:
    client = LocalMatchClient(seed=b"whole", seat=1)
    assert isinstance(client, MatchClient)
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            await _play_randomly(client, 1)
    assert client.result is not None and client.result.reason is EndReason.GAME
    log = "\n".join(client.log_lines())
    assert "You drew " in log and "Opponent drew a card" in log and "Game over" in log
    assert client.legal_actions() == []


async def test_illegal_submit_raises_and_changes_nothing() -> None:
    client = LocalMatchClient(seed=b"illegal")
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            while not client.legal_actions() and client.result is None:
                await client.wait_changed()
            before = client.view().to_dict()
            with pytest.raises(IllegalActionError, match="'move a1 a4'"):
                await client.submit(parse_action("move a1 a4"))
            with pytest.raises(IllegalActionError, match="does not answer"):
                await client.submit(Action.pick(3))
            assert client.view().to_dict() == before
            await client.resign()
            assert client.result is not None and client.result.reason is EndReason.RESIGNATION
            assert client.result.winner == 1 - client.seat
            assert client.result.describe(client.seat).startswith("the opponent wins")


async def test_not_your_decision_is_refused() -> None:
    client = LocalMatchClient(seed=b"x", opponent_delay=10)
    # before run() starts, the pending decision is a deal: nobody may act
    with pytest.raises(IllegalActionError, match="not your decision"):
        await client.submit(Action.end())


async def test_leave_closes_the_connection_and_stops_run() -> None:
    client = LocalMatchClient(seed=b"leave")
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            await trio.sleep(0.01)
            await client.leave()
    status = client.connection()
    assert status.state is Connection.CLOSED and "left" in status.reason
    assert client.result is None


async def test_clock_runs_out(autojump_clock: trio.abc.Clock) -> None:
    client = LocalMatchClient(seed=b"clock", clock_ms=60_000)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        while not client.legal_actions():
            await client.wait_changed()
        start = trio.current_time()
        clocks = client.clocks()
        assert clocks is not None and clocks.running == client.seat
        while client.result is None:  # we never answer: our clock runs out
            await client.wait_changed()
    assert client.result.reason is EndReason.TIME and client.result.winner == 1 - client.seat
    assert 59.9 < trio.current_time() - start < 60.5
    assert client.clocks().remaining_ms[client.seat] == 0


def test_clock_state_counts_down_the_running_clock() -> None:
    clocks = ClockState((10_000, 5_000), running=0, as_of=100.0)
    assert clocks.now_ms(0, now=102.5) == 7_500
    assert clocks.now_ms(1, now=102.5) == 5_000
    assert clocks.now_ms(0, now=200.0) == 0


def test_connection_status_is_validated() -> None:
    with pytest.raises(ValueError, match="one line"):
        ConnectionStatus(Connection.CLOSED, "a\nb")
    with pytest.raises(ValueError, match="deadline"):
        ConnectionStatus(Connection.RECONNECTING, "lost")
    assert ConnectionStatus(Connection.RECONNECTING, "lost", deadline=1.0).deadline == 1.0
