# `versus bot-check BOT`: a compliance check of a bot against the external bot protocol
# (SPEC Part 7, §8.3 "bot-check"), for bot authors before a tournament.
#
# How it works. Each scenario starts the bot afresh (so one failure does not hide the next)
# and drives it through the real driver, `ExternalBot` (cli/bots/external.py), which already
# enforces the protocol: size-limited JSON lines, the ready, the legal action strings, the
# per-decision deadline. The decisions come from the engine alone, no network, through the Game
# interface of the game checked (`--game ID`, any two-player game of the registry; default the
# registry's default game): the hello carries the game's default rules and card data; `turn
# seat 0/1` are whole games against `random` on scripted decklist-mode deals (each hidden deck a
# seeded sample of the game's card ids, as a match deals a deck nobody brought), played in the
# one full-information loop (engine/referee_loop.py), which answers deals, reveals and chance:
# the external protocol does not expose them to a bot, so there is nothing of its to check.
# The choice scenarios are one position per kind of decision: the game's own built positions
# when it has them (its `check_positions`, engine/shell.py: Versus builds its two discard
# choices, which random games reach rarely), else the first position of each kind (the
# decision's label) that seeded `random`-against-`random` games reach (POSITION_SEEDS), each
# presented to the bot from the deciding seat's view. One scenario (`unknown fields`) repeats
# the first of them (or the first turn when there is none) with unknown fields added to every
# message (the protocol says both sides ignore them); right after the hello, a result and
# `quit` check that the bot exits by itself with status 0 within 1 s. A bot that cannot start, or
# exits (or closes its output) before answering the hello, stops the check there: one line with
# the command, its exit code and the last line of its stderr (BotDidNotStart), since no other
# check could run.
# Then four property lines sum up every answer of every scenario: no crash, well-formed
# answers (garbage fails here), legal answers (an illegal action fails here), in time (the
# slowest answer against the limit). One line per check, `PASS name: detail` or `FAIL name:
# reason`; exit 0 when all pass, 1 otherwise (a bot that did not start included), 2 for a bad
# command line.
#
# Why scripted: the same bot gets the same decisions on every run (seeded deals, fixed
# positions), so a failure reproduces. Built-in bots can be checked too (their protocol lines
# then say "not an external bot").
from __future__ import annotations

import argparse
import copy
import re
import shlex
import shutil
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import trio

from versus.engine.api import DecisionKind, Finished, Game, Setup
from versus.engine.referee_loop import HashBelow, LocalPlay
from versus.engine.registry import DEFAULT_GAME, get_game

from .bots.base import AsyncPlayer, BotError, BotForfeit, as_async
from .bots.external import DEFAULT_TIME_MS, QUIT_GRACE_S, ExternalBot
from .bots.registry import make_bot, parse_bot

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
#: the scripted deals of the whole-game scenarios (one per seat)
GAME_SEEDS = (b"versus/bot-check/game-0", b"versus/bot-check/game-1")
#: another game's position games (random against random), searched for its choice kinds
POSITION_SEEDS = tuple(b"versus/bot-check/positions-%d" % i for i in range(32))
MAX_INPUTS = 100_000  # a game of another game that has not ended by then is a bug of that game
UNKNOWN = {"x-bot-check": {"ignore": ["this", 1, None]}}  # an unknown field, nested


class BotCheckError(Exception):
    """A one-line usage problem (exit 2)."""


class BotDidNotStart(Exception):
    """The bot could not start, or was gone before it answered the hello (exit 1): one line,
    with the command, its exit code and the last line of its stderr."""


@dataclass(frozen=True)
class Line:
    name: str
    ok: bool
    detail: str

    def __str__(self) -> str:
        return f"{'PASS' if self.ok else 'FAIL'} {self.name}: {self.detail}"


@dataclass
class Tally:
    """Every answer of every scenario: the forfeits by kind and the slowest answer."""

    time_ms: int
    answers: int = 0
    slowest_s: float = 0.0
    slowest_where: str = ""
    failures: dict[str, str] = field(default_factory=dict)  # kind -> first reason

    def note(self, reason: str) -> None:
        self.failures.setdefault(kind_of(reason), reason)


def kind_of(reason: str) -> str:
    """Which property a forfeit breaks (its reason is the driver's one line)."""
    if re.search(r"exceeded \d+ ms|did not answer the hello within|still thinking", reason):
        return "in-time"
    if "illegal action" in reason:
        return "legal"
    if re.search(r"exited with code|closed its output|could not be started|crashed", reason):
        return "no-crash"
    return "well-formed"


class _Probe(ExternalBot):
    """The driver, with unknown fields added to every message when `extra` is set."""

    extra = False

    async def _write(self, obj: dict[str, Any]) -> None:
        await super()._write({**obj, **UNKNOWN} if self.extra else obj)


class _Timed:
    """An AsyncPlayer that times each answer of the bot it wraps into the tally."""

    def __init__(self, player: AsyncPlayer, tally: Tally, scenario: str) -> None:
        self.player, self.tally, self.scenario = player, tally, scenario
        self.name = player.name
        self.decisions = 0

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        self.decisions += 1
        # the hello goes with an external bot's first decision: it has its own limit
        hello = isinstance(self.player, ExternalBot) and not self.player.started
        started = time.perf_counter()
        action = await self.player.choose(view, legal)
        spent = time.perf_counter() - started
        self.tally.answers += 1
        if spent > self.tally.slowest_s and not hello:
            self.tally.slowest_s = spent
            self.tally.slowest_where = f"{self.scenario}, decision {self.decisions}"
        return action


# --- scenarios --------------------------------------------------------------------------------

Scenario = Callable[[AsyncPlayer], Awaitable[str]]


# --- whole games and positions: the Game interface only ------------------------------------------


def scripted_deal(game: Game, rules: Any, catalogue: Any,
                  seed: bytes) -> tuple[dict[int, str], list[list[int]]]:
    """A decklist-mode deal nobody brought a deck to, as a match makes one (MatchPeer.start):
    each hidden deck a seeded sample of the game's card ids, dealt in handle order."""
    ids = list(game.card_ids(catalogue))
    rng = HashBelow(seed + b"/deal")
    identity: dict[int, str] = {}
    for deck in game.decks(rules):
        identity.update(zip(deck.handles, rng.shuffle(ids)[: deck.size], strict=False))
    return identity, [list(deck.handles) for deck in game.decks(rules)]


#: a decision a player answers: (state, seat, that seat's knowledge then)
Position = tuple[Any, int, Any]
Answer = Callable[[Position, list[Any]], Awaitable[Any]]


async def play_scripted(game: Game, rules: Any, catalogue: Any, seed: bytes,
                        answer: Answer) -> Finished:
    """One game of `game` from the scripted deal and chance stream of `seed` in the one
    full-information loop (engine/referee_loop.py): deals, reveals and chance are answered
    there, turns and choices by `answer(position, legal)`."""
    identity, orders = scripted_deal(game, rules, catalogue, seed)
    play = LocalPlay.start(game, Setup(rules, catalogue, seed[:64]), identity, orders,
                           HashBelow(seed + b"/chance").below)

    async def choose(view: Any, legal: list[Any], seat: int) -> Any:
        return await answer((play.state, seat, play.knowledge[seat]), legal)

    return await play.play_async(choose, MAX_INPUTS)


async def ask(game: Game, player: AsyncPlayer, position: Position, legal: list[Any],
              decision: int) -> Any:
    """The player's answer at `position`, from its seat's view; an illegal one forfeits."""
    state, seat, knowledge = position
    action = await player.choose(game.view(state, seat, knowledge), legal)
    if action not in legal:
        raise BotForfeit(f"bot {player.name!r} answered an illegal action "
                         f"{str(action)!r:.80} on decision {decision}")
    return action


def game_scenario_of(game: Game, seat: int) -> Scenario:
    async def run(player: AsyncPlayer) -> str:
        seed = GAME_SEEDS[seat]
        opponent = as_async(make_bot("random", seed=int.from_bytes(seed[-4:], "big"),
                                     game=game.id))
        asked = [0]

        async def answer(position: Position, legal: list[Any]) -> Any:
            if position[1] != seat:
                return await opponent.choose(game.view(*position), legal)
            asked[0] += 1
            return await ask(game, player, position, legal, asked[0])

        rules, catalogue = game.default_rules(), game.default_catalogue()
        result = await play_scripted(game, rules, catalogue, seed, answer)
        return (f"a whole game from seat {seat}: {asked[0]} decisions answered "
                f"({result.outcome}, winner {result.winner})")
    return run


async def decision_positions(game: Game) -> dict[str, Position]:
    """The first position of each kind of decision a player answers (`choice LABEL`, and
    `turn LABEL` for a labelled turn) that the position games reach, in order."""
    rules, catalogue = game.default_rules(), game.default_catalogue()
    found: dict[str, Position] = {}
    bots: list[Any] = []  # this game's two seeded random bots

    async def answer(position: Position, legal: list[Any]) -> Any:
        state, seat, knowledge = position
        d = game.decision(state)
        assert not isinstance(d, Finished)
        if d.kind is DecisionKind.CHOICE or d.label:
            name = f"{d.kind.value} {d.label}".strip()
            if name not in found:
                found[name] = (state, seat, copy.deepcopy(knowledge))
        return bots[seat].choose(None, legal)

    for i, seed in enumerate(POSITION_SEEDS):
        bots[:] = [make_bot("random", seed=2 * i + p, game=game.id) for p in range(2)]
        await play_scripted(game, rules, catalogue, seed, answer)
    return found


def position_scenario(game: Game, position: Position) -> Scenario:
    async def run(player: AsyncPlayer) -> str:
        legal = list(game.legal_actions(position[0]))
        action = await ask(game, player, position, legal, 1)
        return (f"answered {game.format_input(action)} among {len(legal)} options "
                f"(seat {position[1]})")
    return run


async def first_turn(game: Game) -> Position:
    """The first turn of the first position game (the unknown-fields scenario of a game
    without choices)."""
    rules, catalogue = game.default_rules(), game.default_catalogue()
    first: list[Position] = []

    async def answer(position: Position, legal: list[Any]) -> Any:
        if not first:
            first.append((position[0], position[1], copy.deepcopy(position[2])))
        return legal[0]

    await play_scripted(game, rules, catalogue, POSITION_SEEDS[0], answer)
    return first[0]


# --- running ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Checker:
    spec: str
    time_ms: int
    tally: Tally
    game: str = DEFAULT_GAME

    def bot(self, extra: bool = False) -> AsyncPlayer:
        bot = make_bot(self.spec, game=self.game)
        if isinstance(bot, ExternalBot):
            probe = _Probe(bot.argv, name=bot.name, time_ms=self.time_ms, game=self.game)
            probe.extra = extra
            return probe
        return as_async(bot)

    async def scenario(self, name: str, run: Scenario, extra: bool = False,
                       quit_check: bool = False) -> list[Line]:
        bot = self.bot(extra)
        timed = _Timed(bot, self.tally, name)
        lines = []
        try:
            if isinstance(bot, ExternalBot):
                async with bot:
                    if name == "hello":
                        game = get_game(self.game)
                        await bot.start(0, game.default_rules(), game.default_catalogue())
                        detail = f"ready as {bot.declared_name!r}"
                    else:
                        detail = await run(timed)
                    if quit_check:
                        lines.append(Line(name, True, detail))
                        lines.append(await self.quit(bot))
                        return lines
            else:
                detail = await run(timed)
        except (Exception, BaseExceptionGroup) as caught:
            reason = _failure(caught)
            self.tally.note(reason)
            return [Line(name, False, reason)]
        return [Line(name, True, detail)]

    async def quit(self, bot: ExternalBot) -> Line:
        started = time.perf_counter()
        await bot.finish(Finished("turn-limit", None), 0)
        spent = time.perf_counter() - started
        code = bot.returncode
        if code == 0:
            return Line("quit", True, f"exited with status 0 {spent * 1000:.0f} ms after "
                                      "the result and quit")
        if code is not None and code < 0 and spent >= QUIT_GRACE_S * 0.9:
            return Line("quit", False, f"did not exit within {QUIT_GRACE_S:g} s of quit "
                                       "(killed)")
        return Line("quit", False, f"exited with status {code} after quit")


def _failure(caught: BaseException) -> str:
    """The one-line reason of what a scenario raised: the driver's BotForfeit (its nursery
    may wrap it in a group), or a built-in bot's own exception; an interruption goes on up."""
    if isinstance(caught, BotForfeit):
        return caught.reason
    if isinstance(caught, BaseExceptionGroup):
        inner = caught.subgroup(Exception)
        if inner is not None and len(inner.exceptions) == len(caught.exceptions):
            return _failure(inner.exceptions[0])
        raise caught
    return f"crashed: {type(caught).__name__}: {caught}"[:300]


async def check(spec: str, time_ms: int, game_id: str = DEFAULT_GAME) -> list[Line]:
    tally = Tally(time_ms)
    external = parse_bot(spec).command is not None
    checker = Checker(spec, time_ms, tally, game_id)

    async def none(player: AsyncPlayer) -> str:
        return ""

    lines: list[Line] = []
    if external:
        lines += await checker.scenario("hello", none, quit_check=True)
        if not lines[0].ok and kind_of(lines[0].detail) == "no-crash":
            raise BotDidNotStart(start_failure(checker.bot(), lines[0].detail))
        if not lines[0].ok:
            lines.append(Line("quit", False, "not run: the bot failed the hello"))
    else:
        lines.append(Line("hello", True, "not an external bot (nothing to exchange)"))
        lines.append(Line("quit", True, "not an external bot"))
    game = get_game(game_id)
    built = getattr(game, "check_positions", None)  # (engine/shell.py)
    positions = built() if built is not None else await decision_positions(game)
    scenarios = [(f"turn seat {seat}", game_scenario_of(game, seat), False) for seat in (0, 1)]
    scenarios += [(name, position_scenario(game, position), False)
                  for name, position in positions.items()]
    if external:
        first = next(iter(positions.values()), None) or await first_turn(game)
        scenarios.append(("unknown fields", position_scenario(game, first), True))
    for name, run, extra in scenarios:
        if not lines[0].ok:  # no ready, no decision (and each would wait out the hello again)
            lines.append(Line(name, False, "not run: the bot failed the hello"))
        else:
            lines += await checker.scenario(name, run, extra)
    if not external:
        lines.append(Line("unknown fields", True, "not an external bot"))
    for kind, what in (("no-crash", "the bot never exited or crashed while playing"),
                       ("well-formed", "every answer was one JSON object of the right type"),
                       ("legal", "every action was one of the legal ones")):
        reason = tally.failures.get(kind)
        lines.append(Line(kind, reason is None, what if reason is None else reason))
    reason = tally.failures.get("in-time")
    slowest = (f"slowest answer {tally.slowest_s * 1000:.0f} ms of {time_ms} ms "
               f"({tally.slowest_where or 'none'}; {tally.answers} answers)")
    lines.append(Line("in-time", reason is None, slowest if reason is None else reason))
    return lines


def start_failure(bot: AsyncPlayer, reason: str) -> str:
    """The one line of a bot that did not get as far as a ready: the driver's `reason` (it
    names the bot by its name, which may be a `name=` or the command cut to 40 characters)
    said of the whole command line."""
    assert isinstance(bot, ExternalBot)
    what = reason.removeprefix(f"bot {bot.name!r} ")
    what = what.replace(" on the hello", " before answering the hello", 1)
    return f"bot {shlex.join(bot.argv)!r} {what}; no check could run"


def missing_file(argv: list[str]) -> str | None:
    """Why the command line `argv` cannot start: its program, or the script it runs (its first
    argument that is not an option and names a file: a path or NAME.EXT), does not exist.
    Checked before the checks run, which would otherwise all fail on the hello."""
    program = argv[0] if argv else ""
    if shutil.which(program) is None and not Path(program).is_file():
        return f"program {program!r} not found"
    script = next((arg for arg in argv[1:] if not arg.startswith("-")), None)
    if script is not None and ("/" in script or SCRIPT_NAME.fullmatch(script)) and not (
            Path(script).exists()):
        return f"no such file {script!r}"
    return None


#: a file name a program runs (bot.py, main.js, bot.jar), not a word or a number
SCRIPT_NAME = re.compile(r"[^/]+\.[A-Za-z][A-Za-z0-9]{0,5}")


def cmd_bot_check(args: argparse.Namespace, out: IO[str]) -> int:
    def fail(message: str, status: int = EXIT_USAGE) -> int:
        print(f"versus bot-check: {message}", file=sys.stderr)
        return status

    game = getattr(args, "game", None) or DEFAULT_GAME
    try:
        spec = parse_bot(args.bot)
        make_bot(args.bot, game=game)
    except (BotError, ValueError) as error:
        return fail(str(error))
    if spec.command is not None:
        problem = missing_file(shlex.split(spec.command))
        if problem is not None:
            return fail(f"bot {args.bot!r}: {problem}")
    players = get_game(game).players
    if players != 2:
        return fail(f"--game {game}: bot-check presents the decisions of two-player games; "
                    f"{game} is a {players}-player game")
    time_ms = args.time_per_decision or (
        DEFAULT_TIME_MS if spec.time is None else max(1, round(spec.time * 1000)))
    try:
        lines = trio.run(check, args.bot, time_ms, game)
    except KeyboardInterrupt:
        return fail("interrupted", EXIT_FAIL)
    except BotDidNotStart as error:
        return fail(str(error), EXIT_FAIL)
    for line in lines:
        print(line, file=out, flush=True)
    failed = sum(not line.ok for line in lines)
    print(f"{len(lines) - failed} of {len(lines)} checks passed", file=out)
    return EXIT_PASS if failed == 0 else EXIT_FAIL
