# The external bot protocol with real child processes: the example bot plays a whole game;
# broken bots (crash, garbage, timeout, illegal action, overlong line, bad hello) forfeit with
# a reason naming what they did, and their process is gone afterwards. External bots
# play whole matches of grid and vanquishers through the tournament's own path, and the hello of
# versus42 keeps its fields. A bot's child that holds its stderr open neither hangs the driver
# nor outlives the bot.
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
import trio

from versus.cli.bots import BotForfeit, ExternalBot, RandomBot, as_async, play_match
from versus.engine import HashRng
from versus.engine.referee_loop import LocalPlay
from versus.engine.versus42 import Referee, Ruleset, default_catalogue, random_deal

from .bot_children import all_gone, children, holder_bot, kill_children

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "random_bot.py"
CAT = default_catalogue()

# A bot that behaves until decision `BREAK_AT`, then does `misbehave()`.
BROKEN = """
import json, sys, time
BREAK_AT = {break_at}
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
def misbehave():
{misbehave}
n = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        send({{"type": "ready", "name": "broken"}})
    elif m["type"] == "decide":
        n += 1
        if n == BREAK_AT:
            misbehave()
        else:
            send({{"type": "action", "action": m["legal"][0]}})
"""


def new_referee(seed: int) -> LocalPlay:
    """A Versus game in the one full-information loop (its referee's deal)."""
    ruleset = Ruleset()
    seed_bytes = seed.to_bytes(4, "big")
    ids, orders = random_deal(CAT, ruleset, HashRng(seed_bytes, "test-deal"))
    return Referee(ruleset, CAT, seed_bytes, ids, orders, (None, None)).local  # type: ignore[arg-type]


def broken_bot(tmp_path: Path, misbehave: str, break_at: int = 1) -> list[str]:
    script = tmp_path / "broken_bot.py"
    script.write_text(BROKEN.format(break_at=break_at,
                                    misbehave=textwrap.indent(misbehave.strip(), "    ")))
    return [sys.executable, str(script)]


async def test_example_bot_plays_a_whole_game():
    async with ExternalBot([sys.executable, str(EXAMPLE)], name="example") as bot:
        result = await play_match(new_referee(1), (bot, as_async(RandomBot(1))))
        assert bot.declared_name == "example-random"
        assert bot.decisions > 5
        await bot.finish(result, 0)
        assert bot.returncode == 0  # it quit by itself when asked


async def test_two_external_bots_play_each_other():
    async with ExternalBot([sys.executable, str(EXAMPLE)]) as a, \
            ExternalBot([sys.executable, str(EXAMPLE)]) as b:
        result = await play_match(new_referee(2), (a, b))
        assert result.outcome is not None
    assert a.returncode is not None and b.returncode is not None


async def expect_forfeit(argv: list[str], match: str, time_ms: int = 2000) -> ExternalBot:
    bot = ExternalBot(argv, name="x", time_ms=time_ms, hello_timeout=10)
    async with bot:
        with pytest.raises(BotForfeit, match=match) as e:
            await play_match(new_referee(3), (bot, as_async(RandomBot(2))))
        assert bot.returncode is not None, "the forfeiting bot's process must be gone"
    assert e.value.reason.startswith("bot 'x' ")
    return bot


async def test_crash_names_exit_code_and_last_stderr_line(tmp_path):
    argv = broken_bot(tmp_path, """
print("thinking hard", file=sys.stderr)
raise SystemExit("out of ideas")
""", break_at=2)
    await expect_forfeit(argv, r"bot 'x' exited with code 1 on decision 2: out of ideas$")


async def test_garbage_answer(tmp_path):
    argv = broken_bot(tmp_path, 'sys.stdout.write("e2e4\\n"); sys.stdout.flush(); time.sleep(5)')
    await expect_forfeit(argv, r"answered a line that is not JSON on decision 1: 'e2e4'")


async def test_wrong_message_type(tmp_path):
    argv = broken_bot(tmp_path, 'send({"type": "resign"}); time.sleep(5)')
    await expect_forfeit(argv, r'answered \{"type": "resign"\} on decision 1')


async def test_timeout(tmp_path):
    argv = broken_bot(tmp_path, "time.sleep(30)", break_at=3)
    with trio.fail_after(10):
        await expect_forfeit(argv, r"^bot 'x' exceeded 300 ms on decision 3$", time_ms=300)


async def test_illegal_action(tmp_path):
    argv = broken_bot(tmp_path, 'send({"type": "action", "action": "move a1 a9"}); time.sleep(5)')
    await expect_forfeit(argv, r"^bot 'x' answered an illegal action 'move a1 a9' on decision 1$")


async def test_overlong_line(tmp_path):
    argv = broken_bot(tmp_path, 'sys.stdout.write("x" * 200000); sys.stdout.flush(); '
                                "time.sleep(5)")
    await expect_forfeit(argv, r"answered a line longer than 65536 bytes on decision 1")


async def test_bad_hello(tmp_path):
    script = tmp_path / "mute.py"
    script.write_text("import sys\nfor line in sys.stdin:\n    print('{\"type\":\"nope\"}', "
                      "flush=True)\n")
    await expect_forfeit([sys.executable, str(script)], r"answered the hello with .*nope")


async def test_bot_that_never_starts(tmp_path):
    with pytest.raises(BotForfeit, match="could not be started"):
        async with ExternalBot([str(tmp_path / "no-such-bot")]):
            pass


async def test_silent_crash_at_start(tmp_path):
    argv = [sys.executable, "-c", "import sys; sys.exit(3)"]
    await expect_forfeit(argv, r"exited with code 3 on the hello$")


# --- every two-player game ----------------------------------------------------------

# The example bot's play, with every message it receives appended to the file argv[1].
RECORDER = """
import json, random, sys
log = open(sys.argv[1], "a")
rng = random.Random(7)
for line in sys.stdin:
    log.write(line)
    log.flush()
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "recorder"}), flush=True)
    elif m["type"] == "decide":
        print(json.dumps({"type": "action", "action": rng.choice(m["legal"])}), flush=True)
    elif m["type"] == "quit":
        break
"""


@pytest.mark.parametrize("game_id", ["grid", "vanquishers"])
async def test_external_bots_play_a_whole_match_of_another_game(tmp_path, game_id):
    """The tournament's own path (tournament_worker.play_job: a real match over TCP on
    127.0.0.1, each bot in its guard): the example bot against a recording one; the match
    verifies and the recorder saw the game's hello, views and legal inputs."""
    from versus.cli.tournament_worker import play_job
    from versus.engine.registry import get_game

    recorder = tmp_path / "recorder.py"
    recorder.write_text(RECORDER)
    log = tmp_path / "messages.jsonl"
    example = f"cmd:{sys.executable} {EXAMPLE}"
    job = {"players": [example, f"cmd:{sys.executable} {recorder} {log}"], "game_id": game_id,
           "rules": {}, "deal": "decklist", "seed": "0a0b0c", "time_ms": 5000,
           "game_timeout": 60, "transcript": str(tmp_path / "game.vtr")}
    record = await play_job(job)
    assert record["verified"] and record["ending"] == "game", record
    assert record["forfeit_seat"] is None and record["actions"] > 10

    game = get_game(game_id)
    rules, catalogue = game.default_rules(), game.default_catalogue()
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    hello, *decides, result, quit_ = messages
    assert hello["type"] == "hello" and hello["protocol"] == 1 and hello["seat"] == 1
    assert hello["game"] == game_id and hello["rules"] == game.rules_to_options(rules)
    assert hello["ruleset"] == json.loads(game.encode_rules(rules))
    assert hello["catalogue"] == [{**card.to_json(), "text": card.text}
                                  for card in catalogue.cards]
    assert len(decides) > 5 and all(d["type"] == "decide" for d in decides)
    for k, decide in enumerate(decides, 1):
        assert decide["decision"] == k and decide["view"]["player"] == 1
        assert all(game.format_input(game.parse_input(text)) == text for text in decide["legal"])
    assert result["type"] == "result" and result["seat"] == 1 and quit_ == {"type": "quit"}


def test_the_versus_hello_keeps_its_fields_and_adds_game_and_rules():
    from versus.cli.bots.external import hello_message
    from versus.engine.registry import get_game

    game = get_game("versus42")
    hello = hello_message(game, 1, Ruleset(), CAT, 1000)
    assert list(hello) == ["type", "protocol", "seat", "ruleset", "catalogue", "time_ms", "game",
                           "rules"]
    assert hello["ruleset"] == json.loads(Ruleset().encode())
    assert hello["catalogue"] == [{**card.to_json(), "text": card.text} for card in CAT.cards]
    assert hello["game"] == "versus42" and hello["rules"] == Ruleset().to_options()


def test_the_vanquishers_cards_of_the_hello_read_back():
    from versus.engine.vanquishers.cards import CATALOGUE_FORMAT, default_catalogue, load_catalogue

    catalogue = default_catalogue()
    document = {"format": CATALOGUE_FORMAT, "cards": [card.to_json() for card in catalogue.cards]}
    assert load_catalogue(json.dumps(document)).cards == catalogue.cards


def test_cmd_bots_play_the_two_player_games_only():
    from versus.cli.bots import make_bot
    from versus.cli.bots.registry import UnsupportedGameError

    for game_id in ("versus42", "grid", "vanquishers"):
        bot = make_bot(f"cmd:{sys.executable} {EXAMPLE}", game=game_id)
        assert isinstance(bot, ExternalBot) and bot.game.id == game_id
    with pytest.raises(UnsupportedGameError, match="plays the two-player games; multiverse is "
                                                   "a 1-player game"):
        make_bot(f"cmd:{sys.executable} {EXAMPLE}", game="multiverse")


# --- process lifetime: the bot's whole process group ends with it -------------------------------


@pytest.mark.parametrize("how", ["illegal", "exit"])
async def test_a_child_holding_the_bots_stderr_neither_hangs_the_driver_nor_outlives_it(
        tmp_path, how):
    # before: the bot forfeits, but `async with` waits for the end of its stderr, which the
    # child (`sleep 600`) holds open: the driver hung, and the child lived on
    argv, pids = holder_bot(tmp_path, how)
    try:
        with trio.fail_after(8):
            await expect_forfeit(argv, "illegal action" if how == "illegal" else
                                 "exited with code 5 on decision 1")
        assert children(pids) and all_gone(pids), "the bot's child outlived the bot"
    finally:
        kill_children(pids)


async def test_ending_a_bot_ends_a_child_that_ignores_sigterm(tmp_path):
    script = tmp_path / "stubborn.py"
    script.write_text(f"""
import json, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import signal, time; "
                          "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"])
open({str(tmp_path / "holder.pids")!r}, "w").write(f"{{child.pid}}\\n")
for line in sys.stdin:
    print(json.dumps({{"type": "ready", "name": "stubborn"}}), flush=True)
""")
    pids = tmp_path / "holder.pids"
    try:
        with trio.fail_after(8):
            async with ExternalBot([sys.executable, str(script)]) as bot:
                await bot.start(0, Ruleset(), CAT)
                await bot.finish(None)
        assert children(pids) and all_gone(pids)
    finally:
        kill_children(pids)
