# Bots by name, for the command line and tournaments: "random", "greedy", "ismcts" (the paired
# search), "ismcts-tree" (the deep tree, SPEC Part 7), and "cmd:<command line>" for an external
# program (async only: wrap any of them with as_async).
#
# Only `random` plays every game (it knows a game through its legal inputs alone); the others
# read Versus's views and search with its engine, so they play versus42 only, except the games'
# own bots of GAME_BOTS (grid: greedy and ismcts, cli/bots/grid.py and grid_ismcts.py;
# vanquishers: greedy): `make_bot(name, game=...)` says so in one line. An external bot
# (`cmd:`) plays every two-player game whose view has player, rules, catalogue and to_dict()
# (the protocol sends the game's own view, SPEC Part 7; external.hosting_problem): every one
# of the platform's; not a solo game (multiverse: `versus solo --bot` takes its own bots).
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
from dataclasses import dataclass, field

from .base import Bot, BotError, Budget, UnknownBotError
from .external import ExternalBot, time_ms_of
from .ismcts import IsmctsBot, SearchMode
from .simple import GreedyBot, RandomBot

KNOWN_BOTS = ("random", "greedy", "ismcts", "ismcts-tree", "cmd:<command line>")
#: the bots that play any registered game
GENERIC_BOTS = ("random",)
#: the bots of one other game (cli/bots/grid.py, cli/bots/vanquishers.py)
GAME_BOTS = {"grid": ("greedy", "ismcts"), "vanquishers": ("greedy",)}
VERSUS = "versus42"


class UnsupportedGameError(BotError, ValueError):
    """The bot does not play that game (greedy and ismcts play versus42 and their own games,
    external bots the two-player games)."""


class BotOptionError(BotError, ValueError):
    """A bot name's options do not parse or do not apply to that bot (one line)."""


#: the option keys each bot takes (`cmd` stands for every cmd:<command line>)
BOT_OPTIONS = {"random": ("name", "seed"), "greedy": ("name", "seed"),
               "ismcts": ("name", "seed", "time", "iterations"),
               "ismcts-tree": ("name", "seed", "time", "iterations"), "cmd": ("name", "time")}
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
    def command(self) -> str | None:
        return self.bot[4:].strip() if self.bot.startswith("cmd:") else None


def parse_bot(text: str) -> BotSpec:
    """`NAME[:key=value,...]` as a BotSpec; BotOptionError (one line) when the options are
    wrong. The bot itself is not checked here (make_bot does)."""
    if text.startswith("cmd:"):
        head, colon, tail = text.rpartition(":")
        if head != "cmd" and colon and (tail == "" or _OPTIONS.fullmatch(tail)):
            bot, given = head, tail
        else:
            bot, given = text, ""
        kind = "cmd"
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
            who = "cmd:" if kind == "cmd" else bot
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


def game_problem(name: str, game: str) -> str | None:
    """Why the bot `name` cannot play `game` (a registry id), or None."""
    if game == VERSUS or name in GENERIC_BOTS or name in GAME_BOTS.get(game, ()):
        return None
    if name.startswith("cmd:"):
        return _external_problem(game)
    if name in KNOWN_BOTS:
        return (f"bot {name!r} plays versus42 only; bots for {game}: "
                f"{', '.join(GENERIC_BOTS + GAME_BOTS.get(game, ()))}")
    return None  # an unknown name: make_bot says so


def _external_problem(game: str) -> str | None:
    from versus.engine.registry import UnknownGameError, get_game

    from .external import hosting_problem

    try:
        return hosting_problem(get_game(game))
    except UnknownGameError:
        return None  # the caller's own check names it


def make_bot(name: str, *, seed: int | None = None, budget: Budget | None = None,
             game: str = VERSUS) -> Bot | ExternalBot:
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
    if name == "greedy":
        if game in GAME_BOTS:
            return _game_greedy(game, seed)
        return GreedyBot(seed)
    if name == "ismcts" and game == "grid":
        return _grid_ismcts(seed, budget, spec)
    if name == "ismcts":
        return IsmctsBot(seed, budget)
    if name == "ismcts-tree":
        return IsmctsBot(seed, budget, name=name, mode=SearchMode.TREE)
    if name.startswith("cmd:"):
        command = name[4:].strip()
        if not command:
            raise UnknownBotError("bot 'cmd:' needs a command line after the colon")
        return ExternalBot(command, time_ms=time_ms_of(None if budget is None
                                                       else budget.seconds), game=game)
    raise UnknownBotError(f"unknown bot {name!r}; known bots: {', '.join(KNOWN_BOTS)}")


def _grid_ismcts(seed: int | None, budget: Budget | None, spec: BotSpec) -> Bot:
    """The grid's ismcts (cli/bots/grid_ismcts.py): `iterations=` and/or `time=` are its
    whole budget (no implicit 0.5 s beside an iteration count, so a measurement reproduces);
    without them the caller's budget, else its default of 8 worlds per decision."""
    from .grid_ismcts import DEFAULT_BUDGET, GridIsmctsBot

    if spec.time is not None or spec.iterations is not None:
        budget = Budget(iterations=spec.iterations, seconds=spec.time)
    return GridIsmctsBot(seed, budget or DEFAULT_BUDGET)


def _game_greedy(game: str, seed: int | None) -> Bot:
    """The greedy bot of another game (imported when asked: it loads that game's engine)."""
    if game == "grid":
        from .grid import GridGreedyBot

        return GridGreedyBot(seed)
    from .vanquishers import VanquishersGreedyBot

    return VanquishersGreedyBot(seed)
