# The joiner accepts the host's rules knowingly (cli/join_cmd.py join_match, cmd_join): it is
# shown them (deal, clock, action order, the rest of the ruleset, its seat) and must accept.
#
#   * headless (a bot, no terminal) without --accept-rules: the join declines with a one-line
#     reason the host logs, and exits 1 with a one-line error naming --accept-rules; with the
#     option it plays the match (two real `versus` processes over TCP on 127.0.0.1).
#   * a person at a terminal: the offer is read on a connection of its own and declined while
#     the person reads it (the host logs that), y/N is asked, and the join then accepts that
#     offer only (in-process, with the host's real listener; the terminal is a fake tty).
from __future__ import annotations

import argparse
import io
import time

import pytest
import trio

from tests.cli.test_commands import _read_invite, _versus
from versus.cli.boundary import CommandError
from versus.cli.host_cmd import host_match
from versus.cli.join_cmd import AcceptedOffer, ask_to_accept, cmd_join, join_match, read_host_offer
from versus.cli.main import build_parser
from versus.cli.match_text import describe_offer
from versus.p2p.link import READING_RULES, DeclinedError
from versus.p2p.session import open_nursery
from versus.protocol.match.rules import DealMode, MatchRules

CLOCKED = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=300_000,
                     clock_increment_ms=2_000)


class FakeTerminal(io.StringIO):
    """Keyboard input from a terminal (isatty), for the prompt."""

    def isatty(self) -> bool:
        return True


def test_the_offer_is_shown_and_only_yes_accepts() -> None:
    offer = AcceptedOffer("127.0.0.1", 4242, "X" * 8, CLOCKED, 1)
    for answer, accepted in (("y\n", True), ("YES\n", True), ("n\n", False), ("\n", False),
                             ("", False), ("maybe\n", False)):
        out = io.StringIO()
        assert ask_to_accept(offer, out, io.StringIO(answer)) is accepted
        text = " ".join(out.getvalue().split()) + " "  # the offer wraps at 80 columns
        assert text.startswith("127.0.0.1:4242 offers: versus42, decklist, deck 12, hand 3, "
                               "ordered actions, 5x4 field, 60 turns max, clock 300 s + 2 s; ")
        assert "you are player 2" in text and text.endswith("[y/N] ")
    pool = describe_offer(MatchRules(), 1)
    assert pool.startswith("versus42, shared-pool, ") and "no clock" in pool
    assert "the whole catalogue as the pool" in pool


def test_headless_join_needs_accept_rules(tmp_path) -> None:
    deadline = time.monotonic() + 60
    # --no-map: the test stays off the real LAN (no PCP to its router, no SSDP search)
    host = _versus(tmp_path, "host", "host", "--port", "0", "--bot", "random",
                   "--deal", "decklist", "--clock", "5+2", "--no-map")
    try:
        invite, host_lines = _read_invite(host, deadline)
        refused = _versus(tmp_path, "join", "join", invite, "--bot", "greedy")
        refused_out, refused_err = refused.communicate(timeout=30)
        joined = _versus(tmp_path, "join", "join", invite, "--bot", "greedy", "--accept-rules")
        join_out, join_err = joined.communicate(timeout=max(1, deadline - time.monotonic()))
        host_out, host_err = host.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        host.kill()
    # declined: the rules were shown (wrapped at 80 columns), one line on stderr names the
    # option, exit 1
    refused_out = " ".join(refused_out.split())
    assert refused.returncode == 1, refused_err
    assert "the host offers: versus42, decklist, deck 12, hand 3, ordered actions" in refused_out
    assert "clock 300 s + 2 s" in refused_out and "you are player 2" in refused_out
    assert len(refused_err.strip().splitlines()) == 1 and "Traceback" not in refused_err
    assert "has not accepted the rules" in refused_err and "--accept-rules" in refused_err
    assert "joined" not in refused_out
    # the host logged the decline in one line and kept waiting; the next join plays
    host_out = "".join(host_lines) + host_out
    [declined] = [line for line in host_out.splitlines() if "declined the match" in line]
    assert "the joining player has not accepted the rules" in declined
    assert joined.returncode == 0, join_err
    assert host.returncode == 0, host_err
    assert "transcript: " in join_out


@pytest.fixture(autouse=True)
def _own_config(tmp_path, monkeypatch) -> None:
    """known_peers (trust on first use of HOST:PORT) lives in this test's directory."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _args(tmp_path, *argv: str) -> argparse.Namespace:
    name = argv[0]
    return build_parser().parse_args([*argv, "--identity", str(tmp_path / f"{name}.key"),
                                      "--data-dir", str(tmp_path / name)])


async def _host(tmp_path, nursery: trio.Nursery, lines: list[str], outcomes: list) -> str:
    """`versus host --bot random --deal decklist --clock 5+2` in this process; its address."""
    args = _args(tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random",
                 "--deal", "decklist", "--clock", "5+2")

    async def run() -> None:
        outcomes.append(await host_match(args, io.StringIO(), note=lines.append))

    nursery.start_soon(run)
    while not any(line.startswith("listening on port") for line in lines):
        await trio.sleep(0.01)
    port = next(line for line in lines if line.startswith("listening on port")).split()[3]
    return f"127.0.0.1:{port.rstrip(';')}"


async def test_a_person_reads_the_rules_then_joins_with_exactly_that_offer(tmp_path) -> None:
    lines: list[str] = []
    outcomes: list = []
    out = io.StringIO()
    with trio.fail_after(30):
        async with open_nursery() as nursery:
            target = await _host(tmp_path, nursery, lines, outcomes)
            args = _args(tmp_path, "join", target)
            offer = await read_host_offer(args, out)
            assert (offer.rules, offer.seat) == (CLOCKED, 1)
            assert (tmp_path / "config" / "versus" / "known_peers").is_file()
            while not any("declined the match" in line for line in lines):
                await trio.sleep(0.01)
            assert READING_RULES in next(line for line in lines if "declined" in line)
            # a changed offer is refused: the join accepts only what the person accepted
            args.accepted_offer = AcceptedOffer(offer.host, offer.port, offer.fingerprint,
                                                MatchRules(deal_mode=DealMode.DECKLIST), 1)
            args.bot = "random"
            with pytest.raises(DeclinedError, match="other rules than the player accepted"):
                await join_match(args, out)
            args.accepted_offer = offer
            joined = await join_match(args, out)
    assert joined.result is not None and outcomes[0].result is not None
    assert "the host offers" not in out.getvalue()  # shown once, before the prompt


def test_a_person_who_answers_no_joins_nothing(tmp_path) -> None:
    lines: list[str] = []
    out = io.StringIO()

    async def main() -> None:
        async with open_nursery() as nursery:
            target = await _host(tmp_path, nursery, lines, [])
            args = _args(tmp_path, "join", target)
            with pytest.raises(CommandError, match="did not accept the host's rules"):
                await trio.to_thread.run_sync(cmd_join, args, out, FakeTerminal("n\n"))
            nursery.cancel_scope.cancel()

    trio.run(main)
    assert "offers: versus42, decklist" in out.getvalue() and "[y/N]" in out.getvalue()
    assert [READING_RULES in line for line in lines if "declined" in line] == [True]
    assert not any("joined" in line for line in lines)


def test_a_headless_join_takes_a_start_only_with_the_same_start_file(tmp_path) -> None:
    """Review: a host picks both the position and the seat it offers, so `--accept-rules`
    alone would hand a bot a lost position. A start is accepted headless only with `--start
    FILE` holding that position; another position (or none) is declined; the same plays."""
    from tests.engine.versus42.test_start_positions import with_verso_field_cards

    mine, other = tmp_path / "mine.json", tmp_path / "other.json"
    mine.write_text(with_verso_field_cards(b"start-1"))
    other.write_text(with_verso_field_cards(b"start-2"))
    deadline = time.monotonic() + 90
    host = _versus(tmp_path, "host", "host", "--port", "0", "--bot", "random", "--start",
                   str(mine), "--no-map")
    try:
        invite, host_lines = _read_invite(host, deadline)
        bare = _versus(tmp_path, "join", "join", invite, "--bot", "greedy", "--accept-rules")
        bare_out, bare_err = bare.communicate(timeout=30)
        wrong = _versus(tmp_path, "join", "join", invite, "--bot", "greedy", "--accept-rules",
                        "--start", str(other))
        wrong_out, wrong_err = wrong.communicate(timeout=30)
        same = _versus(tmp_path, "join", "join", invite, "--bot", "greedy", "--accept-rules",
                       "--start", str(mine))
        same_out, same_err = same.communicate(timeout=max(1, deadline - time.monotonic()))
        host_out, _ = host.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        host.kill()
    declined = [line for line in "".join(host_lines).splitlines() + host_out.splitlines()
                if "declined the match" in line]
    assert len(declined) == 2  # the host logged both declines and kept waiting
    bare_out, wrong_out = " ".join(bare_out.split()), " ".join(wrong_out.split())
    assert bare.returncode == 1 and "from start position " in bare_out
    assert len(bare_err.strip().splitlines()) == 1
    assert "--accept-rules alone does not accept: join with --start FILE" in bare_err
    assert wrong.returncode == 1 and "the host offers another start than --start" in wrong_err
    assert "the host offers: " in wrong_out and "from start position " in wrong_out
    assert same.returncode == 0, same_err
    assert "transcript: " in same_out and host.returncode == 0
