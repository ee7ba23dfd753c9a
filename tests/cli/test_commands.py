# The networked commands end to end: `versus demo` over loopback TCP with its verdict, two
# separate `versus host` / `versus join` processes playing a whole match on 127.0.0.1, and the
# one-line errors and exit codes. Every process is started with temporary identity files and
# XDG directories, and killed by a timeout if it hangs. demo and play with a bot whose child
# holds its stderr open end (the bot's process group is ended with it).
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from versus.cli.main import main
from versus.cli.match_setup import load_deck
from versus.cli.parsers import parse_clock
from versus.p2p.keystore import load_or_create_identity
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.transcript import load_transcript

from .bot_children import all_gone, children, holder_bot, kill_children

ROOT = Path(__file__).resolve().parents[2]


def test_demo_plays_over_loopback_and_verifies(tmp_path, capsys) -> None:
    # A fixed seed: an unseeded random game may end in a draw, whose result line names no seat.
    assert main(["demo", "--deal", "decklist", "--seed", "0d", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "over TCP on 127.0.0.1" in out and "as player 1 sees it:" in out
    assert "result: player" in out and "verify: OK:" in out
    path = Path(next(line for line in out.splitlines()
                     if line.startswith("transcript: "))[len("transcript: "):])
    assert path.is_file() and path.parent.parent == tmp_path
    assert verify_transcript(path.read_bytes()).ok


def test_demo_with_a_seed_is_reproducible_to_the_byte(tmp_path, capsys) -> None:
    for name in ("a", "b"):
        assert main(["demo", "--deal", "decklist", "--seed", "5eed", "--quiet",
                     "--out", str(tmp_path / name)]) == 0
    capsys.readouterr()
    files = [next((tmp_path / name).glob("*/transcript.vtr")) for name in ("a", "b")]
    assert files[0].read_bytes() == files[1].read_bytes()
    assert files[0].parent.name == files[1].parent.name  # the same match id


def test_demo_shared_pool_default(tmp_path, capsys) -> None:
    assert main(["demo", "--quiet", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "shared-pool deal" in out and "verify: OK:" in out


def _env(tmp_path: Path, name: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(XDG_CONFIG_HOME=str(tmp_path / name / "config"),
               XDG_DATA_HOME=str(tmp_path / name / "data"), PYTHONPATH=str(ROOT))
    return env


def _key(path: Path) -> Path:
    """An identity key made beforehand: a new --identity key is announced on stderr, which
    would be a second line beside the one-line errors these tests count."""
    load_or_create_identity(path)
    return path


def _versus(tmp_path: Path, name: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "versus.cli.main", *args,
         "--identity", str(_key(tmp_path / f"{name}.key"))],
        cwd=ROOT, env=_env(tmp_path, name), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)


def _read_invite(process: subprocess.Popen[str], deadline: float) -> tuple[str, list[str]]:
    lines: list[str] = []
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("invite: versus://127.0.0.1:"):
            return line.split()[1], lines
    process.kill()
    raise AssertionError(f"the host printed no local invite: {lines!r}")


@pytest.mark.slow
def test_two_processes_play_a_whole_match_over_tcp(tmp_path) -> None:
    deadline = time.monotonic() + 60
    # --no-map: the test stays off the real LAN (no PCP to its router, no SSDP search)
    host = _versus(tmp_path, "host", "host", "--port", "0", "--bot", "random",
                   "--deal", "decklist", "--clock", "5+2", "--no-map")
    try:
        invite, host_lines = _read_invite(host, deadline)
        join = _versus(tmp_path, "join", "join", invite, "--bot", "greedy", "--accept-rules")
        join_out, join_err = join.communicate(timeout=max(1, deadline - time.monotonic()))
        host_out, host_err = host.communicate(timeout=max(1, deadline - time.monotonic()))
    finally:
        host.kill()
    assert join.returncode == 0, join_err
    assert host.returncode == 0, host_err
    paths = []
    for out in ("".join(host_lines) + host_out, join_out):
        line = next(line for line in out.splitlines() if line.startswith("transcript: "))
        paths.append(Path(line.split(": ", 1)[1]))
    assert paths[0] != paths[1] and paths[0].read_bytes() == paths[1].read_bytes()
    report = verify_transcript(paths[0].read_bytes())
    assert report.ok, report.describe()
    assert len(load_transcript(paths[0].read_bytes()).envelopes) > 10
    assert ("you won" in host_out) != ("you won" in join_out) or "draw" in host_out


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "versus.cli.main", *args], cwd=ROOT,
                          env=_env(tmp_path, "x"), capture_output=True, text=True, timeout=30)


# A bot whose child holds its stderr open, forfeiting on its first decision (bot_children.py):
# demo and play used to wait forever for the end of its stderr; now they end at once, the
# forfeit is the result, and the child is gone.
BOUND_S = 40  # the command's own few seconds, on a loaded machine


def test_demo_with_a_bot_whose_child_holds_its_stderr_ends(tmp_path) -> None:
    argv, pids = holder_bot(tmp_path)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "versus.cli.main", "demo", "--bot-b", "cmd:" + " ".join(argv),
             "--quiet", "--out", str(tmp_path / "out")], cwd=ROOT, env=_env(tmp_path, "x"),
            capture_output=True, text=True, timeout=BOUND_S)
        assert result.returncode == 1, result.stderr
        assert "result: player 1 wins (forfeit: bot " in result.stdout
        assert "answered an illegal action 'not a move' on decision 1" in result.stdout
        assert "verify: OK" in result.stdout
        assert children(pids) and all_gone(pids)
    finally:
        kill_children(pids)


def test_play_with_a_bot_whose_child_holds_its_stderr_ends(tmp_path) -> None:
    argv, pids = holder_bot(tmp_path)
    # the person (seat 1 of grid, cards 20-24, home row 4) has a move ready when it plays first
    moves = "".join(f"place {card} a4 down\n" for card in range(20, 25))
    try:
        result = subprocess.run(
            [sys.executable, "-m", "versus.cli.main", "play", "--game", "grid", "--seat", "1",
             "--bot", "cmd:" + " ".join(argv)], cwd=ROOT, env=_env(tmp_path, "x"),
            input=moves, capture_output=True, text=True, timeout=BOUND_S)
        assert result.returncode == 1, result.stderr
        assert "player 2 wins (forfeit: bot " in result.stdout.splitlines()[-1]
        assert "player 1's bot forfeited" in result.stderr
        assert len(children(pids)) >= 1 and all_gone(pids)
    finally:
        kill_children(pids)


@pytest.mark.parametrize(("args", "code", "message"), [
    (["join", "127.0.0.1:1", "--bot", "random"], 1, "could not connect to 127.0.0.1:1"),
    (["join", "versus://127.0.0.1:1#nonsense", "--bot", "random"], 1, "invite"),
    (["join", "--bot", "random"], 2, "give the host's invite"),
    (["join", "--resume", "abcdef", "--bot", "random"], 1, "no saved match abcdef"),
    (["host", "--clock", "five", "--bot", "random"], 2, "is not MIN+INC"),
    (["host", "--deal", "decklist", "--deck", "/nonexistent/deck", "--bot", "random",
      "--port", "0"], 1, "cannot read deck file"),
    (["host", "--bot", "nobot", "--port", "0"], 1, "unknown bot 'nobot'"),
])
def test_errors_are_one_line_with_an_exit_code(tmp_path, args, code, message) -> None:
    result = _run(tmp_path, *args, *(["--identity", str(_key(tmp_path / "id.key"))]
                                     if args[0] in ("host", "join") else []))
    assert result.returncode == code, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    if code == 1:
        assert len(result.stderr.strip().splitlines()) == 1


def test_host_refuses_a_wrong_deck_before_listening(tmp_path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("dawn-moth\n2 dusk-bat\n")
    result = _run(tmp_path, "host", "--deal", "decklist", "--deck", str(deck), "--bot",
                  "random", "--port", "0", "--identity", str(tmp_path / "id.key"))
    assert result.returncode == 1
    assert f"deck file {deck}: seat 0's deck is 12 catalogue card ids" in result.stderr
    assert "invite:" not in result.stdout and "listening" not in result.stdout


def test_parse_clock_and_deck(tmp_path) -> None:
    assert parse_clock("5+3") == (300_000, 3_000)
    assert parse_clock("0.5") == (30_000, 0)
    (tmp_path / "deck.txt").write_text("# my deck\n2 a\nb\n")
    assert load_deck(str(tmp_path / "deck.txt")) == ["a", "a", "b"]
    (tmp_path / "deck.json").write_text('{"b": 1, "a": 2}')
    assert load_deck(str(tmp_path / "deck.json")) == ["a", "a", "b"]


async def test_net_client_plays_a_loopback_match_as_the_ui_would(tmp_path) -> None:
    import trio

    from versus.cli.bots import RandomBot, as_async
    from versus.cli.client import Connection, EndReason, MatchClient
    from versus.cli.driving import drive_player, narrated_config
    from versus.cli.net_client import NetMatchClient
    from versus.engine import IllegalActionError
    from versus.p2p.loopback import play_loopback_match
    from versus.protocol.match.rules import DealMode, MatchRules

    rules = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=600_000,
                       clock_increment_ms=1_000)

    async def connector(client: NetMatchClient):  # type: ignore[no-untyped-def]
        result = await play_loopback_match(
            [None, as_async(RandomBot(7))], rules, transcript_dir=tmp_path,
            config=narrated_config(), on_start=lambda h, g: client.attach(h),
            drive=drive_player)
        return result.outcomes[0]

    client = NetMatchClient(connector, seat=0, waiting="starting")
    assert isinstance(client, MatchClient)
    assert not client.match_started and client.inputs() == []  # a placeholder scene
    assert "waiting for the match" in client.scene().status[0]
    seen_clock = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            while client.result is None and client.outcome is None:
                legal = client.inputs()
                if legal:
                    clocks = client.clocks()
                    assert clocks is not None and clocks.running == 0
                    seen_clock.append(clocks.now_ms(0))
                    if len(seen_clock) == 1:  # the engine's reason, not "not legal now"
                        with pytest.raises(IllegalActionError,
                                           match="z9 is not an area of the field"):
                            await client.submit("flip z9")
                    await client.submit(legal[0])
                else:
                    await client.wait_changed()
    assert client.result is not None and client.result.reason is EndReason.GAME
    assert seen_clock and all(0 < ms <= 600_000 + 200_000 for ms in seen_clock)
    assert client.connection().state is Connection.CLOSED
    assert any("started" in line for line in client.log_lines())
    assert client.opponent_fingerprint != "?"


def test_outcome_lines_for_a_fault_and_a_left_match(tmp_path) -> None:
    from versus.cli.exit_codes import EXIT_FAULT, EXIT_UNFINISHED
    from versus.cli.match_text import describe_outcome
    from versus.p2p.session import SessionOutcome
    from versus.protocol.match import Ending, MatchResult

    path = tmp_path / "transcript.vtr"
    fault = SessionOutcome(MatchResult(Ending.FAULT, None, detail="seat 0 reports x: y"),
                           bytes(32), path, detail="illegal-action: move a1 e4 is not legal",
                           fault_seat=1)
    line, code = describe_outcome(fault, 0, "host")
    assert code == EXIT_FAULT
    assert line.endswith(f"the opponent broke the protocol: illegal-action: move a1 e4 is not "
                         f"legal; you win; evidence saved in {path}")
    left = SessionOutcome(None, bytes.fromhex("ab" * 32), path, left=True, detail="you left")
    line, code = describe_outcome(left, 1, "join")
    assert code == EXIT_UNFINISHED and line.endswith("continue it with: versus join --resume "
                                                     "abababababababab")
    assert "cannot be resumed" in describe_outcome(left, 0)[0]  # versus play


def test_a_summary_counts_players_from_1_as_every_screen_does() -> None:
    # before: "seat 1 wins (resignation: seat 0 resigned)" while the screens and the replay
    # said "player 2"; the forfeit line said "player 0's bot" for the first player's
    from versus.cli.match_text import bot_failures, describe_outcome, result_text
    from versus.p2p.session import SessionOutcome
    from versus.protocol.match import Ending, MatchResult

    resigned = MatchResult(Ending.RESIGNATION, 1, None, "seat 0 resigned")
    assert result_text(resigned, {}) == "player 2 wins (resignation: player 1 resigned)"
    line, _ = describe_outcome(SessionOutcome(resigned, bytes(32), None), 0, "host")
    assert line == ("match 0000000000000000: player 2 wins (resignation: player 1 resigned) "
                    "— you lost")
    claim = MatchResult(Ending.TIMEOUT, 0, None, "seat 0 claims seat 1 ran out of time (waited "
                                                 "9 ms with 5 ms left, by seat 0's clock)")
    assert result_text(claim, {}) == ("player 1 wins (timeout: player 1 claims player 2 ran out "
                                      "of time (waited 9 ms with 5 ms left, by player 1's "
                                      "clock))")
    assert result_text(MatchResult(Ending.GAME, 0, "elimination"), {}) == \
        "player 1 wins (elimination)"
    assert result_text(MatchResult(Ending.GAME, None, "draw"), {}) == "no winner (draw)"
    # an outcome id is said in words, as on the end screens: "home base", not "home-base"
    assert result_text(MatchResult(Ending.GAME, 1, "home-base"), {}) == \
        "player 2 wins (home base)"
    assert result_text(resigned, {0: "bot 'x' crashed"}) == \
        "player 2 wins (forfeit: bot 'x' crashed)"
    assert bot_failures({0: "bot 'x' crashed"}) == "player 1's bot forfeited: bot 'x' crashed"
    from versus.cli.match_text import describe_offer
    from versus.protocol.match.rules import DealMode, MatchRules

    offered = MatchRules(deal_mode=DealMode.DECKLIST, registered_decklists=(None, b"d" * 32))
    assert describe_offer(offered, 1).endswith("; registered decklists for player 2; you are "
                                               "player 2")


def test_net_client_says_what_happens_before_the_match_and_why_input_is_illegal() -> None:
    import trio

    from versus.cli.client import Connection
    from versus.cli.net_client import NetMatchClient
    from versus.cli.ui.render import connection_fragments
    from versus.engine import IllegalActionError

    started = trio.Event()

    async def connector(client: NetMatchClient):  # type: ignore[no-untyped-def]
        client.note("invite: versus://127.0.0.1:1#abc")
        client.note("listening on port 1; waiting for a player to join (share an invite above)")
        started.set()
        await trio.sleep_forever()

    async def main() -> None:
        client = NetMatchClient(connector, seat=0, waiting="starting the host")
        assert client.connection().state is Connection.CONNECTING
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            await started.wait()
            status = client.connection()
            assert status.state is Connection.CONNECTING
            assert "waiting for a player to join" in "".join(t for _, t in
                                                              connection_fragments(status))
            assert "invite: versus://" in "\n".join(client.log_lines())
            with pytest.raises(IllegalActionError, match="has not started"):
                await client.submit("end")
            nursery.cancel_scope.cancel()

    trio.run(main)
