# LocalMatchClient: the in-process MatchClient of any game (the UI tests and `python -m
# versus.cli.ui` use it): scenes and input lines, narration, resign, leave, clocks.
from __future__ import annotations

import pytest
import trio

from tests.cli.screen import GAMES
from tests.engine.toy_game import TOY
from versus.cli.client import (
    ClockState,
    Connection,
    ConnectionStatus,
    EndReason,
    LocalMatchClient,
    MatchClient,
)
from versus.engine import EngineError, IllegalActionError
from versus.engine.referee_loop import HashBelow
from versus.engine.scene import Scene


async def _play_randomly(client: LocalMatchClient, seed: bytes) -> None:
    pick = HashBelow(seed, 8)
    while client.result is None:
        legal = client.inputs()
        if legal:
            assert list(client.scene().inputs) == legal  # the scene offers what is legal
            await client.submit(legal[pick.below(len(legal))])
        else:
            await client.wait_changed()


@pytest.mark.parametrize("game", [g for g in GAMES if g != "multiverse"])
async def test_local_client_plays_a_whole_game_of_every_game(game: str) -> None:
    client = LocalMatchClient(game, seed=b"whole", seat=1)
    assert isinstance(client, MatchClient)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            await _play_randomly(client, b"whole")
    assert client.result is not None and client.result.reason is EndReason.GAME
    assert isinstance(client.scene(), Scene) and client.scene().result
    assert len(client.log_lines()) > 3  # the game's narration of its steps
    assert client.inputs() == []


async def test_a_test_game_plays_locally() -> None:
    client = LocalMatchClient(TOY, seed=b"toy")
    assert client.players == 2 and client.opponent_fingerprint == "local:random-bot"
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            await _play_randomly(client, b"toy")
    assert client.log_lines()[1] == "player 0 bets or passes first"  # narrate_start


async def test_illegal_submit_raises_and_changes_nothing() -> None:
    client = LocalMatchClient(TOY, seed=b"illegal")
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            while not client.inputs():
                await client.wait_changed()
            before = client.decision_key()
            with pytest.raises(IllegalActionError, match=r"^call: (illegal|not a legal)"):
                await client.submit("call")
            with pytest.raises(EngineError, match="malformed toy-duel input"):
                await client.submit("dance")
            assert client.decision_key() == before
            await client.resign()
            assert client.result is not None and client.result.reason is EndReason.RESIGNATION
            assert client.result.winner == 1 - client.seat
            assert client.result.describe(client.seat).startswith("the opponent wins")
            assert not client.can_resign


async def test_not_your_decision_is_refused() -> None:
    client = LocalMatchClient(TOY, seed=b"x", opponent_delay=10)
    # before run() starts, the pending decision is a deal: nobody may act
    with pytest.raises(IllegalActionError, match="not your decision"):
        await client.submit("bet")


async def test_leave_closes_the_connection_and_stops_run() -> None:
    client = LocalMatchClient(TOY, seed=b"leave")
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            await trio.sleep(0.01)
            await client.leave()
    status = client.connection()
    assert status.state is Connection.CLOSED and "left" in status.reason
    assert client.result is None


async def test_clock_runs_out(autojump_clock: trio.abc.Clock) -> None:
    client = LocalMatchClient(TOY, seed=b"clock", clock_ms=60_000)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        while not client.inputs():
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


def test_the_end_screen_says_no_seat_number() -> None:
    # a newcomer saw "Game over: The opponent wins (player 0 resigned)" having resigned as
    # "you: player 1": the detail's seat numbers are told as "you" / "the opponent"
    from versus.cli.client import EndReason, MatchResult

    result = MatchResult(1, EndReason.RESIGNATION, "seat 0 resigned")
    assert result.describe(0) == "the opponent wins (you resigned)"
    assert result.describe(1) == "you win (the opponent resigned)"


def test_the_end_screen_says_an_outcome_in_words() -> None:
    # the end screens said "(home-base)" and "Defeat (defenses-eliminated, score 20)": an
    # outcome's id is said with spaces; a fault's code or a sentence is left as it is
    from versus.cli.client import EndReason, MatchResult

    assert MatchResult(1, EndReason.GAME, "home-base").describe(0) == \
        "the opponent wins (home base)"
    solo = MatchResult(None, EndReason.GAME, "defenses-eliminated, score 20", players=1)
    assert solo.describe(0) == "defeat (defenses eliminated, score 20)"
    assert MatchResult(0, EndReason.GAME, "elimination").describe(0) == "you win (elimination)"
    assert MatchResult(0, EndReason.TIME, "seat 1 ran out of time").describe(0) == \
        "you win (the opponent ran out of time)"
