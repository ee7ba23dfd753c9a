# The game a command plays, from its command line: `--game ID` (a registry id,
# default versus42), `--rule NAME=VALUE` (the game's rules options, repeatable), and the options
# that only Versus has.
#
# cli/parsers.py runs `check_game_args` once a subcommand's arguments are parsed, so every
# mistake here is a one-line usage error (exit 2) naming the option, before anything starts;
# it leaves the resolved values on the namespace for the commands: `game` (the id), `game_given`
# (whether --game was on the command line: a replay or a resumed match compares it with the
# game it finds), `game_rules` (the game's rules value), and the defaults that depend on the
# game (`play --bot`: greedy where the game has one, else random; `--deal`: `default_deal`).
#
# This module imports the engine only once a command's arguments are checked (or a --game is
# given): `versus --help` and a usage error stay as fast as before. It asks the game (through
# the registry and engine/api.py) what depends on it, never its id.
from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

#: options of the default game (engine/registry.py DEFAULT_GAME, Versus) alone: (attribute,
#: flag, why); given with another game they are an error (`--deck` and `--theme` serve every
#: game: a decklist of its card ids, the one full-screen UI)
VERSUS_ONLY = (
    ("order", "--order", "the action order is a Versus rule"),
)
#: the options naming a bot: (attribute, flag)
BOT_OPTIONS = (("bot", "--bot"), ("bot_a", "--bot-a"), ("bot_b", "--bot-b"))


class GameOptionError(ValueError):
    """A command line's game option that cannot be used: one line naming the option."""


def game_id(text: str) -> str:
    """`--game ID`: a registered game (argparse type); the registry loads its plugins
    (VERSUS_GAMES) on first use."""
    from versus.engine.errors import UnknownGameError
    from versus.engine.registry import get_game

    try:
        get_game(text)
    except UnknownGameError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def rule_pair(text: str) -> tuple[str, str]:
    """`--rule NAME=VALUE` (argparse type): the pair, checked against the game later."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE (`versus games` lists "
                                         "each game's options as NAME=DEFAULT)")
    return name.strip(), value.strip()


def bots_help() -> str:
    """Which bots play which two-player game, for --bot's help: the bots that play every game,
    then each game's own (engine/shell.py game_bots), as the registry has them."""
    from versus.engine.registry import games, get_game
    from versus.engine.shell import game_bots, is_solo

    from .bots.registry import GENERIC_BOTS

    own = []
    for info in games():
        game = get_game(info.id)
        if not is_solo(game) and game_bots(game):
            own.append(f"{info.id}: {', '.join(game_bots(game))}")
    return (f"{', '.join(GENERIC_BOTS)}, cmd:<command line> (an external program) and "
            "py:MODULE:CALLABLE (a policy over the game's observation and action mask) play "
            "every game; a game's own bots: " + "; ".join(own))


def game_of(game: str) -> Any:
    """The game object of a registry id (the registry imports a built-in game on first use)."""
    from versus.engine.registry import get_game

    return get_game(game)


def option_value(game: Any, name: str, text: str) -> Any:
    """The value of rules option `name` of `game` from its command-line text: a string for an
    option with choices, an integer otherwise (the game checks the range)."""
    option = next((o for o in game.rules_options if o.name == name), None)
    if option is None:
        names = ", ".join(o.name for o in game.rules_options) or "none"
        raise GameOptionError(f"--rule {name}={text}: {game.id} has no rules option {name!r} "
                              f"(its options: {names})")
    if option.choices:
        if text not in option.choices:
            raise GameOptionError(f"--rule {name}={text}: {name} is one of "
                                  f"{'|'.join(option.choices)}")
        return text
    try:
        return int(text)
    except ValueError:
        raise GameOptionError(f"--rule {name}={text}: {name} is a whole number "
                              f"({option.minimum}..{option.maximum})") from None


def rules_options(game: Any, rules: Sequence[tuple[str, str]] | None,
                  order: str | None = None) -> dict[str, Any]:
    """The plain rules options of `--rule` pairs (and Versus's `--order`)."""
    options: dict[str, Any] = {}
    for name, text in rules or ():
        if name in options:
            raise GameOptionError(f"--rule {name} is given twice")
        options[name] = option_value(game, name, text)
    if order is not None:
        if "action_order" in options:
            raise GameOptionError("--order and --rule action_order=... say the same thing; "
                                  "give one")
        options["action_order"] = order
    return options


def game_rules(game: Any, options: dict[str, Any]) -> Any:
    """The game's rules value from plain options (its default rules when there are none)."""
    from versus.engine.errors import RulesetError

    if not options:
        return game.default_rules()
    try:
        return game.rules_from_options(dict(options))
    except RulesetError as error:
        given = " ".join(f"{k}={v}" for k, v in options.items())
        raise GameOptionError(f"--rule {given}: {' '.join(str(error).split())}") from None


#: the largest position file `--start` reads (the position format's own limit)
MAX_START_FILE = 64 * 1024


def start_rules(game: Any, path: str, options: dict[str, Any]) -> Any:
    """`--start FILE`: the game's rules with that position as their start (SPEC §3.3 "Start
    positions"); GameOptionError, one line, for an unreadable file, rules options given beside
    it (the position carries its rules), or a position that cannot start a match."""
    from versus.engine.api import rules_for_position
    from versus.engine.errors import EngineError

    from .files import UnreadableFile, read_limited

    if options:
        given = " ".join(f"{k}={v}" for k, v in options.items())
        raise GameOptionError(f"--start {path}: the position carries its own rules; drop "
                              f"--rule/--order ({given})")
    try:
        data = read_limited(path, MAX_START_FILE)
    except UnreadableFile as error:
        raise GameOptionError(f"--start {path}: {error}") from None
    if data is None:
        raise GameOptionError(f"--start {path}: larger than {MAX_START_FILE} bytes")
    try:
        return rules_for_position(game, data)
    except EngineError as error:
        raise GameOptionError(f"--start {path}: {' '.join(str(error).split())}"[:400]) from None


def check_game_args(args: argparse.Namespace, command: str) -> str | None:
    """Resolve and check the game options of a parsed command line of `command` (see the
    module comment); the problem in one line, or None."""
    problem = _check(args, command)
    args.game_checked = problem is None
    return problem


def _check(args: argparse.Namespace, command: str) -> str | None:
    from versus.engine.registry import DEFAULT_GAME

    given = getattr(args, "game", None)
    args.game = given or DEFAULT_GAME
    args.game_given = given is not None
    game = args.game
    if game != DEFAULT_GAME:
        for attribute, flag, why in VERSUS_ONLY:
            value = getattr(args, attribute, None)
            if value is not None and value is not False:
                return f"{flag} is an option of versus42 only ({why}); not for {game}"
    from .bots.registry import game_problem

    if command == "play" and args.bot is None:  # the strongest simple bot the game has
        args.bot = "greedy" if game_problem("greedy", game) is None else "random"

    for attribute, flag in BOT_OPTIONS:
        name = getattr(args, attribute, None)
        if name is not None and (problem := game_problem(name, game)) is not None:
            return f"{flag} {name}: {problem}"
    if command in ("replay", "join"):  # the game's rules come from the transcript / host
        return None
    try:
        impl = game_of(game)
        options = rules_options(impl, getattr(args, "rule", None), getattr(args, "order", None))
        args.game_rules = game_rules(impl, options)
        args.rules_options = options
        if getattr(args, "start", None) is not None:
            args.game_rules = start_rules(impl, args.start, options)
            args.rules_options = impl.rules_to_options(args.game_rules)
    except GameOptionError as error:
        return str(error)
    from versus.engine.api import tournament_deal
    from versus.protocol.match.rules import unplayable_reason

    reason = unplayable_reason(impl)
    if reason is not None:
        return f"--game {game}: {reason}"
    if hasattr(args, "deal"):
        if args.deal is None:  # (Versus: a casual match from the pool, a tournament from decklists)
            args.deal = ((tournament_deal(impl) if command == "tournament" else None)
                         or default_deal(impl, args.game_rules))
        problem = deal_problem(args)
        if problem is not None:
            return problem
    return None


def default_deal(game: Any, rules: Any) -> str:
    """Another game's deal when none is asked (Decided, SPEC §8.0): the shared pool of its
    default card data when that pool can deal its hidden decks, else decklists (a constructed-
    deck game whose card data is smaller than two decks, e.g. Vanquishers)."""
    from versus.protocol.errors import LocalProtocolError
    from versus.protocol.match.rules import DealMode, MatchRules

    try:
        MatchRules(rules, DealMode.SHARED_POOL, game=game.id).pool_ids(game.default_catalogue())
    except LocalProtocolError:
        return "decklist"
    return "shared-pool"


def deal_problem(args: argparse.Namespace) -> str | None:
    """Whether the game can be dealt the way `--deal` asks (decklist needs a deck per seat)."""
    from versus.protocol.errors import LocalProtocolError
    from versus.protocol.match.rules import DealMode, MatchRules

    try:
        MatchRules(args.game_rules, DealMode(args.deal), game=args.game)
    except LocalProtocolError as error:
        text = " ".join(str(error).split()).removeprefix("invalid match rules: ")
        return f"--deal {args.deal}: {text}"
    return None


def ensure_game_args(args: argparse.Namespace, command: str) -> None:
    """For callers that built `args` without cli/parsers.py: resolve the game options now
    (GameOptionError with the one-line problem)."""
    if getattr(args, "game_checked", False):
        return
    problem = check_game_args(args, command)
    if problem is not None:
        raise GameOptionError(problem)
