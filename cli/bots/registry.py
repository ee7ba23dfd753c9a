# Bots by name, for the command line and tournaments: "random", "greedy", "ismcts" (the paired
# search), "ismcts-tree" (the deep tree, SPEC Part 7), "cmd:<command line>" for an external
# program (async only: wrap any of them with as_async), and "py:MODULE:CALLABLE" for a policy
# over the game's observation and action mask (policy.py, the research environments' encoding).
#
# Only `random` plays every game (it knows a game through its legal inputs alone); every other
# built-in bot is a game's own, registered by the game (its `bots` member, engine/shell.py:
# name -> the factory that makes it), so this module never names a game: `make_bot(name,
# game=...)` asks the game, and says in one line when the game has no bot of that name. An
# external bot (`cmd:`) plays every two-player game whose view has player, rules, catalogue
# and to_dict() (the protocol sends the game's own view, SPEC Part 7;
# external.hosting_problem): every one of the platform's; not a solo game (`versus solo --bot`
# takes its own bots).
#
# Bot options: a name may carry options, `NAME:key=value,key=value`, e.g.
# `ismcts:time=0.05`, `random:seed=7`, `cmd:./bot --x:name=Mine,time=0.2`. For `cmd:` the
# options are the text after the command's last colon when that text is a key=value list (end
# the command with a lone `:` to keep a colon-bearing command whole). Keys (`parse_bot`):
#   name=TEXT       the participant's name in a tournament (1-40 characters, no `,` `:` `#`)
#   seed=N          a fixed seed (0..2^64-1) for random, greedy, ismcts, ismcts-tree
#   time=SECONDS    per-decision budget of ismcts/ismcts-tree, per-decision limit of cmd:
#   iterations=N    per-decision iteration limit of ismcts/ismcts-tree
# Every mistake is one line (BotOptionError): an unknown key names the known ones.
import re
import time
from dataclasses import dataclass, field
from typing import Any

from versus.engine.registry import DEFAULT_GAME, UnknownGameError, get_game
from versus.engine.shell import BotRequest, bot_factory, game_bots

from .base import Bot, BotError, Budget, UnknownBotError
from .external import ExternalBot, time_ms_of
from .simple import RandomBot, bot_rng

KNOWN_BOTS = ("random", "greedy", "ismcts", "ismcts-tree", "cmd:<command line>",
              "py:MODULE:CALLABLE")
#: the bots that play any registered game
GENERIC_BOTS = ("random",)


class UnsupportedGameError(BotError, ValueError):
    """The bot does not play that game (a game's own bots play that game, external bots the
    two-player games)."""


class BotOptionError(BotError, ValueError):
    """A bot name's options do not parse or do not apply to that bot (one line)."""


#: the kinds of bot named by a prefix and what follows it (`cmd:<command line>`): a new kind
#: adds its prefix here, its options to BOT_OPTIONS, and its branch to game_problem and make_bot
PREFIXED = ("cmd", "py")
#: the option keys each bot takes (`cmd` stands for every cmd:<command line>)
BOT_OPTIONS = {"random": ("name", "seed"), "greedy": ("name", "seed"),
               "ismcts": ("name", "seed", "time", "iterations"),
               "ismcts-tree": ("name", "seed", "time", "iterations"), "cmd": ("name", "time"),
               "py": ("name",)}
_OPTIONS = re.compile(r"[a-z]+=[^,:]*(,[a-z]+=[^,:]*)*")
_NAME = re.compile(r"[^,:#\s][^,:#]{0,38}[^,:#\s]|[^,:#\s]")


@dataclass(frozen=True)
class BotSpec:
    """A parsed bot name: `bot` (random, greedy, ismcts, ismcts-tree, or cmd:<command>),
    and its options."""

    bot: str
    name: str | None = None
    seed: int | None = None
    time: float | None = None
    iterations: int | None = None
    options: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def kind(self) -> str:
        """The bot's kind: its prefix for a prefixed bot (`cmd`), else its name."""
        return prefix_of(self.bot) or self.bot

    @property
    def command(self) -> str | None:
        return self.bot[4:].strip() if self.kind == "cmd" else None


def prefix_of(text: str) -> str | None:
    """The kind of a prefixed bot name (`cmd` for `cmd:...`), None for another name."""
    head, colon, _ = text.partition(":")
    return head if colon and head in PREFIXED else None


def parse_bot(text: str) -> BotSpec:
    """`NAME[:key=value,...]` as a BotSpec; BotOptionError (one line) when the options are
    wrong. The bot itself is not checked here (make_bot does)."""
    prefix = prefix_of(text)
    if prefix is not None:  # its options follow the last colon, when they parse as options
        head, colon, tail = text.rpartition(":")
        if head != prefix and colon and (tail == "" or _OPTIONS.fullmatch(tail)) \
                and (prefix == "cmd" or head.count(":") >= 2):  # py:MODULE:CALLABLE first
            bot, given = head, tail
        else:
            bot, given = text, ""
        kind = prefix
    else:
        bot, _, given = text.partition(":")
        kind = bot
    if not given:
        return BotSpec(bot)
    known = BOT_OPTIONS.get(kind)
    if known is None:
        return BotSpec(bot)  # an unknown bot: make_bot says so
    if not _OPTIONS.fullmatch(given):
        raise BotOptionError(f"bot {text!r}: options must be key=value,key=value (keys: "
                             f"{', '.join(known)})")
    values: dict[str, str] = {}
    for item in given.split(","):
        key, _, value = item.partition("=")
        if key not in known:
            who = f"{kind}:" if kind in PREFIXED else bot
            raise BotOptionError(f"bot {text!r}: unknown option {key!r}; {who} takes "
                                 f"{', '.join(known)}")
        if key in values:
            raise BotOptionError(f"bot {text!r}: option {key!r} given twice")
        values[key] = value
    spec: dict[str, object] = {}
    for key, value in values.items():
        spec[key] = _option_value(text, key, value)
    return BotSpec(bot, options=values, **spec)  # type: ignore[arg-type]


def _option_value(text: str, key: str, value: str) -> object:
    def bad(why: str) -> BotOptionError:
        return BotOptionError(f"bot {text!r}: {key}={value!r}: {why}")

    if key == "name":
        if not _NAME.fullmatch(value):
            raise bad("a name is 1-40 characters without , : # or surrounding spaces")
        return value
    if key in ("seed", "iterations"):
        if not value.isdigit():
            raise bad("not a whole number")
        number = int(value)
        if key == "seed" and number >= 1 << 64:
            raise bad("a seed is 0..2^64-1")
        if key == "iterations" and not 1 <= number <= 10**9:
            raise bad("iterations are 1..10^9")
        return number
    try:
        seconds = float(value)
    except ValueError:
        raise bad("not a number of seconds") from None
    if not 0 < seconds <= 3600:
        raise bad("seconds must be in (0, 3600]")
    return seconds


def _game(game_id: str) -> Any:
    """The registered game, None for an unknown id (the caller's own check names it)."""
    try:
        return get_game(game_id)
    except UnknownGameError:
        return None


def game_problem(name: str, game: str) -> str | None:
    """Why the bot `name` cannot play `game` (a registry id), or None."""
    found = _game(game)
    own = game_bots(found) if found is not None else ()
    if name in GENERIC_BOTS or name in own:
        return None
    if name.startswith("cmd:"):
        from .external import hosting_problem

        return None if found is None else hosting_problem(found)
    if name.startswith("py:"):
        from .policy import policy_problem

        return None if found is None else policy_problem(found)
    if name in KNOWN_BOTS:
        return (f"bot {name!r} does not play {game}; bots for {game}: "
                f"{', '.join(GENERIC_BOTS + own)}")
    return None  # an unknown name: make_bot says so


def bot_request(name: str, seed: int | None, budget: Budget | None,
                given: Budget | None = None) -> BotRequest:
    """What a game's bot factory is given (engine/shell.py): the shell's seeded generators
    (`bot_rng`) and clock."""
    return BotRequest(bot_rng(seed), budget, given, time.perf_counter, name, seed, bot_rng)


def make_bot(name: str, *, seed: int | None = None, budget: Budget | None = None,
             game: str = DEFAULT_GAME) -> Bot | ExternalBot:
    """A new bot for `game` (a registry id). `seed` pins its randomness (None: from
    `secrets`); `budget` bounds the thinking of ismcts and the per-decision time of an external
    bot (its `seconds`). UnsupportedGameError when the bot does not play that game."""
    spec = parse_bot(name)
    name = spec.bot
    problem = game_problem(name, game)
    if problem is not None:
        raise UnsupportedGameError(problem)
    if spec.seed is not None:
        seed = spec.seed
    if spec.time is not None or spec.iterations is not None:
        base = budget or Budget()
        budget = Budget(iterations=spec.iterations if spec.iterations is not None
                        else base.iterations,
                        seconds=spec.time if spec.time is not None else base.seconds)
    if name == "random":
        return RandomBot(seed)
    found = _game(game)
    if found is not None and name in game_bots(found):
        given = None if spec.time is None and spec.iterations is None else \
            Budget(iterations=spec.iterations, seconds=spec.time)
        return bot_factory(found, name)(bot_request(name, seed, budget, given))
    if name.startswith("cmd:"):
        command = name[4:].strip()
        if not command:
            raise UnknownBotError("bot 'cmd:' needs a command line after the colon")
        return ExternalBot(command, time_ms=time_ms_of(None if budget is None
                                                       else budget.seconds), game=game)
    if name.startswith("py:"):
        from .policy import PolicyBot

        return PolicyBot(name, game, spec.name)  # type: ignore[return-value]
    raise UnknownBotError(f"unknown bot {name!r}; known bots: {', '.join(KNOWN_BOTS)}")
