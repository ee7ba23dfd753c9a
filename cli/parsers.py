# Every `versus` subcommand's command line, and nothing else: this module imports only argparse
# and the argument types, so `versus --help`, a usage error and `versus verify` start without
# importing trio, the network or the terminal UI (~330 ms saved on every `verify`).
# Each subcommand names its implementation as "module:function"; `Lazy` imports that module
# only when the subcommand runs. A test checks that every name resolves.
from __future__ import annotations

import argparse
import importlib
import os
import sys
import typing
from collections.abc import Callable
from typing import Any, TextIO

from .argtypes import count, seconds_up_to
from .exit_codes import EXIT_USAGE
from .game_options import check_game_args, game_id, rule_pair

DEFAULT_GAME_PORT = 47820
EXIT_CODES = ("exit codes: 0 match finished, 1 error, 2 bad command line, 3 match unfinished "
              "(resumable with --resume), 4 protocol fault / transcript invalid")
#: play and demo: the same, but a match against a local bot cannot be resumed
LOCAL_EXIT_CODES = EXIT_CODES.replace("(resumable with --resume)", "(not resumable)")
#: the values of protocol.rules.DealMode and engine.ActionOrder (tests/cli check they agree)
DEAL_MODES = ("shared-pool", "decklist")
ACTION_ORDERS = ("ordered", "any")
FORMATS = ("round-robin", "gauntlet")
DEFAULT_GAME_TIMEOUT = 300.0
#: the default games, as --game's help names them, and a real rules option of each, --rule's
#: example (tests/cli/test_cli_defects.py holds them to engine/registry.py: the registry is not
#: imported to read a command line)
DEFAULT_GAME_HELP, RULE_EXAMPLE = "default versus42", "max_turns=30"
DEFAULT_SOLO_GAME_HELP, SOLO_RULE_EXAMPLE = "default multiverse", "difficulty=hard"
#: in a help text: which bots play which game, read from the registry only when help is printed
#: (RegistryHelpFormatter)
GAME_BOTS = "<the bots of each game>"

Command = Callable[[argparse.Namespace, TextIO], int]


class RegistryHelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with GAME_BOTS in a help text or description replaced by what the
    registry says (cli/game_options.py bots_help): a command line that is not asking for help
    imports no game."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        return text if text is None else _with_game_bots(text)

    def _format_text(self, text: str) -> str:
        return super()._format_text(_with_game_bots(text))


def _with_game_bots(text: str) -> str:
    if GAME_BOTS not in text:
        return text
    from .game_options import bots_help

    return text.replace(GAME_BOTS, bots_help())


class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line, `versus SUBCOMMAND: message (see --help)`, and exit 2, not
    argparse's usage block: the same for every subcommand (`join`'s target, `host --port`).
    `checks`: functions run on the parsed arguments (one that returns a message is a usage
    error): the game options (cli/game_options.py), which depend on each other."""

    checks: tuple[Callable[[argparse.Namespace], str | None], ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", RegistryHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> typing.NoReturn:
        print(f"{self.prog}: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's formatter imports shutil to read the terminal width, ~3 ms of every
        # start (add_argument makes one): read the width here as shutil would
        return self.formatter_class(prog=self.prog, width=terminal_width() - 2)  # type: ignore[call-arg]

    def parse_known_args(self, args: Any = None, namespace: Any = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        for check in self.checks:
            problem = check(parsed)
            if problem is not None:
                self.error(problem)
        return parsed, extras


def terminal_width() -> int:
    """$COLUMNS, else the terminal's width, else 80 (`shutil.get_terminal_size` without
    importing shutil)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def check_game(parser: argparse.ArgumentParser, command: str) -> None:
    """Check `command`'s game options once its arguments are parsed (cli/game_options.py)."""
    parser.checks = (lambda args: check_game_args(args, command),)  # type: ignore[attr-defined]


#: `versus join` with nothing to join: a usage error, before any key or file is touched
NO_JOIN_TARGET = "give the host's invite or HOST:PORT, or --lan (or --resume MATCH_ID)"


def join_target_problem(args: argparse.Namespace) -> str | None:
    if args.target is None and not args.lan and args.resume is None:
        return NO_JOIN_TARGET
    return None


class Lazy:
    """A subcommand's function, imported when it runs: `Lazy("versus.cli.host_cmd:cmd_host")`.
    `guarded`: run it inside the CLI's error boundary (`boundary.guarded`: one line, an exit
    code, never a traceback)."""

    def __init__(self, target: str, *, guarded: bool = True) -> None:
        self.target, self.guarded = target, guarded

    def resolve(self) -> Command:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]

    def __call__(self, args: argparse.Namespace, out: TextIO) -> int:
        func = self.resolve()
        if not self.guarded:
            return func(args, out)
        from .boundary import guarded

        return guarded(func, args, out)


# --- argument types -----------------------------------------------------------------------------


def port(text: str) -> int:
    """A TCP port to listen on: 0 (any free port) to 65535. Checked here, like `join` checks
    its target's port: otherwise 99999 wraps modulo 65536 and -1 reaches the resolver."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"port {text!r} is not a number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port {text!r} must be 0..65535 (0: any free port)")
    return value


def non_negative_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0..86400 seconds")
    return value


def parse_clock(text: str) -> tuple[int, int]:
    """`MIN+INC`: minutes per player plus seconds added after each move (chess notation)."""
    base, plus, inc = text.partition("+")
    try:
        minutes, increment = float(base), float(inc) if plus else 0.0
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"clock {text!r} is not MIN+INC (e.g. 5+3: 5 minutes, 3 s per move)") from None
    if not 0 < minutes <= 24 * 60 or not 0 <= increment <= 3600:
        raise argparse.ArgumentTypeError(f"clock {text!r}: minutes in (0, 1440], increment "
                                         "in [0, 3600] s")
    return int(minutes * 60_000), int(increment * 1000)


def hex_seed(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed {text!r} is not hexadecimal") from None
    if not 1 <= len(seed) <= 32:
        raise argparse.ArgumentTypeError("seed must be 1..32 bytes (2..64 hex digits)")
    return seed


def decision_ms(text: str) -> int:
    value = count(text)
    if value > 3_600_000:
        raise argparse.ArgumentTypeError(f"{text!r} is over 3600000 ms")
    return value


# --- shared option groups -----------------------------------------------------------------------


def add_game_option(parser: argparse.ArgumentParser, what: str = "the game to play", *,
                    solo: bool = False) -> None:
    """--game; `solo`: of `versus solo` and `versus challenge` (another default game)."""
    default = DEFAULT_SOLO_GAME_HELP if solo else DEFAULT_GAME_HELP
    parser.add_argument("--game", type=game_id, default=None, metavar="ID",
                        help=f"{what}: a registry id ({default}; `versus games` lists them, "
                             "VERSUS_GAMES=module,... loads game plugins)")


def add_rule_option(parser: argparse.ArgumentParser, *, solo: bool = False) -> None:
    example = SOLO_RULE_EXAMPLE if solo else RULE_EXAMPLE
    parser.add_argument("--rule", type=rule_pair, action="append", default=None,
                        metavar="NAME=VALUE",
                        help="a rules option of the game (repeatable; `versus games` lists "
                             f"them), e.g. --rule {example}")


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    add_game_option(parser)
    add_rule_option(parser)
    parser.add_argument("--deal", choices=DEAL_MODES, default=None,
                        help="deal mode: shared-pool (mental poker; Versus's default) or "
                             "decklist (another game: the pool if it can deal the decks)")
    parser.add_argument("--clock", type=parse_clock, default=None, metavar="MIN+INC",
                        help="chess clock per player, e.g. 5+3 (default: no clock)")
    parser.add_argument("--order", choices=ACTION_ORDERS, default=None,
                        help="shorthand for --rule action_order=VALUE, a rules option of the "
                             "games that have it (`versus games` lists them)")
    parser.add_argument("--start", metavar="FILE", default=None,
                        help="start from this position (the position format, e.g. a "
                             "bug report's; it carries its rules) instead of the new game; "
                             "each player's hidden cards are dealt as usual (SPEC §3.3)")


def add_session_options(parser: argparse.ArgumentParser, *, bot: bool = True) -> None:
    if bot:
        parser.add_argument("--bot", metavar="NAME", default=None,
                            help=f"play headless with this bot ({GAME_BOTS})")
    parser.add_argument("--deck", metavar="FILE", default=None,
                        help="decklist mode: the deck to bring, card ids as JSON or one per "
                             "line (default: a random one)")
    parser.add_argument("--identity", metavar="PATH", default=None,
                        help="identity key file (default: the keystore's; created, and said "
                             "so, if it does not exist)")
    parser.add_argument("--data-dir", metavar="DIR", default=None,
                        help="where match directories live (default: "
                             "$XDG_DATA_HOME/versus/matches)")
    parser.add_argument("--resume-window", type=non_negative_seconds, default=300.0,
                        metavar="SECONDS",
                        help="how long to wait for the opponent after a drop (default 300)")
    parser.add_argument("--resume", metavar="MATCH_ID", default=None,
                        help="resume a saved match (id or unique prefix) after a restart "
                             "(a finished match is not: its result is shown, exit 1)")


def add_ui_options(parser: argparse.ArgumentParser) -> None:
    """Options of the full-screen terminal UI (play, host, join, replay). The themes are
    cli/ui/theme.py's THEMES (tests/cli/test_ui_theme.py checks they agree)."""
    parser.add_argument("--theme", choices=("dark", "light", "contrast"), default=None,
                        help="colours of the full-screen terminal UI: dark (default), light (for "
                             "a light terminal background) or contrast (high contrast); "
                             "NO_COLOR=1 turns colours off")


def add_test_seed_option(parser: argparse.ArgumentParser) -> None:
    # For tests (tests/netfaults): the same match, byte for byte, with and without network
    # faults. A seeded master secret is predictable, so the option is hidden from --help.
    parser.add_argument("--insecure-test-seed", type=hex_seed, default=None,
                        help=argparse.SUPPRESS)
    # tests/netfaults cuts a link for longer than the idle timeout: a short one keeps it short
    parser.add_argument("--insecure-test-idle-timeout", type=float, default=None,
                        help=argparse.SUPPRESS)


# --- the subcommands ----------------------------------------------------------------------------


def add_network_parsers(sub: Any) -> None:
    """host, join, play and demo."""
    host = sub.add_parser("host", help="host a match and print the invite to share",
                          epilog=EXIT_CODES)
    host.add_argument("--port", type=port, default=None,
                      help=f"TCP port (default {DEFAULT_GAME_PORT}; 0 = any free port)")
    host.add_argument("--bind", default=None, metavar="ADDR",
                      help="listen only on this address (default: every IPv4 and IPv6 one)")
    host.add_argument("--lan", action="store_true", help="announce the game on the LAN")
    host.add_argument("--name", default=None, help="the game's name in LAN announcements")
    host.add_argument("--no-map", action="store_true",
                      help="do not ask the router to open the port (PCP, NAT-PMP, UPnP)")
    host.add_argument("--gateway", default=None, metavar="ADDR",
                      help="the router to ask for a port mapping (default: the default "
                           "route's gateway)")
    host.add_argument("--relay", default=None, metavar="tcp:HOST:PORT",
                      help="also wait at this magic-wormhole transit relay and write it into "
                           "the invite, for joiners that cannot reach the host directly")
    add_rules_options(host)
    add_session_options(host)
    add_ui_options(host)
    add_test_seed_option(host)
    check_game(host, "host")
    host.set_defaults(func=Lazy("versus.cli.host_cmd:cmd_host"))

    join = sub.add_parser("join", help="join a match by invite, HOST:PORT or --lan",
                          epilog=EXIT_CODES)
    join.add_argument("target", nargs="?", default=None,
                      help="versus://HOST:PORT#FINGERPRINT or HOST:PORT")
    join.add_argument("--lan", action="store_true", help="find games on the LAN")
    join.add_argument("--pick", type=int, default=None, metavar="N",
                      help="with --lan: join the N-th game found")
    join.add_argument("--accept-rules", action="store_true",
                      help="accept the rules the host offers without being asked (they are "
                           "printed); needed to join without a terminal or with --bot")
    join.add_argument("--start", metavar="FILE", default=None,
                      help="join only a match from this position (SPEC §3.3); without it, "
                           "--accept-rules declines an offer that starts from a position")
    add_game_option(join, "the game to join (the host's offer must be of this game)")
    add_session_options(join)
    add_ui_options(join)
    add_test_seed_option(join)
    check_game(join, "join")
    join.checks = (join_target_problem, *join.checks)  # type: ignore[attr-defined]
    join.set_defaults(func=Lazy("versus.cli.join_cmd:cmd_join"))

    play = sub.add_parser("play", help="play against a bot on this machine (terminal UI)",
                          epilog=LOCAL_EXIT_CODES)
    play.add_argument("--bot", default=None, metavar="NAME",
                      help=f"the opponent ({GAME_BOTS}; default greedy where the game has "
                           "it, else random)")
    play.add_argument("--seat", type=int, choices=(0, 1), default=0,
                      help="your seat: 0 (player 1) or 1 (player 2)")
    add_rules_options(play)
    add_session_options(play, bot=False)
    add_ui_options(play)
    check_game(play, "play")
    play.set_defaults(func=Lazy("versus.cli.play_cmd:cmd_play"))

    demo = sub.add_parser("demo", help="two bots play a whole match over loopback TCP",
                          epilog=LOCAL_EXIT_CODES)
    demo.add_argument("--seed", type=hex_seed, default=None,
                      help="hex seed: identities, secrets and bots (reproducible transcript)")
    demo.add_argument("--bot-a", default="random", metavar="NAME",
                      help=f"player 1's bot (seat 0; default random; {GAME_BOTS})")
    demo.add_argument("--bot-b", default="random", metavar="NAME",
                      help="player 2's bot (seat 1; default random)")
    demo.add_argument("--quiet", action="store_true", help="print only the summary")
    demo.add_argument("--out", default=None, metavar="DIR",
                      help="where to write the match directory (default: a temp dir)")
    demo.add_argument("--offline", action="store_true",
                      help="Versus engine only: no protocol, no network (the first demo)")
    add_rules_options(demo)
    check_game(demo, "demo")
    demo.set_defaults(func=Lazy("versus.cli.demo_cmd:cmd_demo_any"))


def add_verify_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "verify", help="verify match transcripts offline",
        description="Verify match transcripts offline: signatures, hash chain, setup, every "
                    "commitment and proof, a full engine replay and the result. Exit status: 0 "
                    "every file valid, 1 some file invalid, 2 usage error or unreadable file.")
    parser.add_argument("files", nargs="+", metavar="FILE", help="transcript files (- = stdin)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document: a list of per-file reports")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the verdict line of each file")
    parser.add_argument("--catalogue", metavar="FILE", default=None,
                        help="card catalogue the matches used (default: the packaged one)")
    parser.add_argument("--challenge", metavar="FILE", default=None,
                        help="solo runs: the challenge each run must be played on")
    parser.add_argument("--cluster", metavar="ADDR", default=None,
                        help="verify on a Dask cluster (tcp://SCHEDULER:8786 or local:N); "
                             "the same output")
    parser.set_defaults(func=Lazy("versus.cli.verify_cmd:cmd_verify", guarded=False))


def add_replay_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "replay", help="step through a match transcript or a solo run of any game",
        description="Verify a match transcript or a solo run, then step through its game (a "
                    "file that stops being valid: up to its last valid record, the failure "
                    "named there): →/n ←/p step, PgDn/PgUp turn, Home/End, h switches the view "
                    "(public / as player 1 / as player 2) when the end-of-match reveals are "
                    "present, q quits.")
    parser.add_argument("file", metavar="FILE", help="transcript or solo run file (- = stdin)")
    parser.add_argument("--print", action="store_true",
                        help="print every step (the game's scene and narration) instead of "
                             "the app")
    parser.add_argument("--step", type=int, default=None, metavar="K",
                        help="print step K only (0 = the start)")
    parser.add_argument("--position", action="store_true",
                        help="print the position of step K (default: the last) in the "
                             "position format: public facts only, for --start and --deals")
    parser.add_argument("--html", metavar="OUT.html", default=None,
                        help="write the whole replay as one self-contained web page (every "
                             "step's public scene, narration, signer and proof) instead")
    parser.add_argument("--view", choices=("all", "0", "1", "public"), default=None,
                        help="what to show: public information (the default; 'all' too), or "
                             "what seat 0 (player 1) or seat 1 (player 2) knew (when the "
                             "reveals are present)")
    add_game_option(parser, "the game the transcript must be of (it names its game)")
    add_ui_options(parser)
    check_game(parser, "replay")
    parser.set_defaults(func=Lazy("versus.cli.replay:cmd_replay", guarded=False))


def seed_number(text: str) -> int:
    """`--srand N`: 0..2^32-1."""
    if not text.isdigit() or int(text) >= 1 << 32:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number 0..4294967295")
    return int(text)


def add_tournament_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "tournament", help="play bots against each other in real peer-to-peer matches",
        description=f"Play a round robin or a gauntlet between bots ({GAME_BOTS}). "
                    "Every game is a real match over TCP on 127.0.0.1 "
                    "with its transcript saved and verified in OUT/games. "
                    "Exit status: 0 finished, 1 error, 2 bad command line, 3 unfinished "
                    "(interrupted or games abandoned: finish with --resume), 4 a saved "
                    "transcript failed verification.")
    parser.add_argument("participants", nargs="*", metavar="BOT",
                        help="participants, NAME[:key=value,...] (keys name, seed, time, "
                             "iterations; optional with --resume: the saved ones)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output folder: tournament.json, games/, results.json/.csv")
    parser.add_argument("--games", type=count, default=2, metavar="N",
                        help="games per pairing, seats swapped every other game (default 2)")
    parser.add_argument("--format", choices=FORMATS, default="round-robin",
                        help="round-robin (everyone meets everyone, default) or gauntlet")
    parser.add_argument("--gauntlet-champion", metavar="NAME", default=None,
                        help="gauntlet: who plays everyone (default: the first participant)")
    parser.add_argument("--concurrency", type=count, default=None,
                        metavar="N", help="games at once, one worker process each "
                                          "(default: the number of cores)")
    add_game_option(parser, "the game the bots play")
    add_rule_option(parser)
    parser.add_argument("--deal", choices=DEAL_MODES, default=None,
                        help="deal mode: decklist (random decks; the default for Versus) or "
                             "shared-pool (the default for another game)")
    parser.add_argument("--seed", metavar="HEX", default=None,
                        help="derive every game's secrets and bot seeds from this seed "
                             "(reproducible games; default: fresh secrets)")
    parser.add_argument("--time-per-decision", type=decision_ms, default=None, metavar="MS",
                        help="external bots' per-decision limit and ismcts's budget (default: "
                             "1000 ms for external bots, ismcts's own budget)")
    parser.add_argument("--game-timeout", type=seconds_up_to(86400), default=DEFAULT_GAME_TIMEOUT,
                        metavar="SECONDS", help="wall-clock limit per game (default 300)")
    parser.add_argument("--resume", action="store_true",
                        help="finish the tournament in --out: play only the missing games")
    parser.add_argument("--max-games", type=count, default=None, metavar="K",
                        help="stop after starting K games (testing interruptions)")
    parser.add_argument("--unpaired", action="store_true",
                        help="play each deal once (default: twice, seats swapped)")
    parser.add_argument("--sandbox", action="store_true",
                        help="run external bots under bubblewrap (bwrap): no network, nothing "
                             "writable but their per-game directory, nothing kept between "
                             "games (SPEC 8.3)")
    parser.add_argument("--deals", metavar="FILE", default=None,
                        help="play this deal suite (text: LABEL [NAME=VALUE...] per line, or a "
                             "JSON list), cycled; two runs then compare the same deals")
    parser.add_argument("--srand", type=seed_number, default=None, metavar="N",
                        help="the random deal suite N (reproducible; default: a random N)")
    parser.add_argument("--sprt", metavar="SPEC", default=None,
                        help="stop when the SPRT decides, two participants: elo0=E0,elo1=E1,"
                             "alpha=A,beta=B[,model=logistic|normalized]")
    parser.add_argument("--rating-interval", type=count, default=None, metavar="N",
                        help="print the standings every N games")
    parser.add_argument("--report", metavar="OUT.html", default=None,
                        help="also write the standings, pairings, SPRT and every game's "
                             "replay as a self-contained HTML page (replays beside it in "
                             "OUT-replays/); with --resume on a finished tournament, only the "
                             "report is written")
    parser.add_argument("--records", action="store_true",
                        help="write a text game record OUT/games/<game>.txt beside each "
                             "transcript")
    parser.add_argument("--cluster", metavar="ADDR", default=None,
                        help="play the games on a Dask cluster: tcp://SCHEDULER:8786, or "
                             "local:N for a LocalCluster of N worker processes here (needs "
                             "pip install 'versus-p2p[cluster]')")
    parser.add_argument("--task-timeout", type=seconds_up_to(86400), default=None,
                        metavar="SECONDS",
                        help="give up one game's worker process or cluster task after this "
                             "long, recording the game abandoned (default: --game-timeout "
                             "+ 20)")

    def error(message: str) -> None:  # one line, not the usage block
        print(f"versus tournament: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)

    parser.error = error  # type: ignore[method-assign]
    check_game(parser, "tournament")
    parser.set_defaults(func=Lazy("versus.cli.tournament:cmd_tournament", guarded=False))


def add_bot_check_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "bot-check", help="check a bot against the external bot protocol",
        description="Check a bot (cmd:<command line>, or any bot name) against the external "
                    "bot protocol (SPEC Part 7): hello and ready, turn decisions of a whole "
                    "game from each seat, each choice kind, unknown fields, result and quit, "
                    "and over all of them: no crash, well-formed answers, legal actions, "
                    "answers in time. One line per check; one line only when the bot "
                    "cannot start or exits before answering its hello (the command, its "
                    "exit code, the last line of its stderr). Exit status: 0 all pass, 1 "
                    "some check failed or the bot did not start, 2 bad command line.")
    parser.add_argument("bot", metavar="BOT", help="the bot, e.g. \"cmd:python3 mybot.py\"")
    parser.add_argument("--time-per-decision", type=decision_ms, default=None, metavar="MS",
                        help="the per-decision limit (default: the bot's time= option, else "
                             "1000 ms)")
    add_game_option(parser, "the two-player game whose decisions are presented")
    parser.set_defaults(func=Lazy("versus.cli.bot_check:cmd_bot_check", guarded=False))


def add_games_parser(sub: Any) -> None:
    parser = sub.add_parser("games", help="list the games and their rules options",
                            description="List the registered games, each with its rules "
                                        "options (name=default (range): meaning).")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(func=Lazy("versus.cli.games_cmd:cmd_games"))


def add_solo_parsers(sub: Any) -> None:
    """`solo` and `challenge` (SPEC Part 11): verifiable solo runs."""
    solo = sub.add_parser("solo", help="play a verifiable solo run (Against the Multiverse)")
    add_game_option(solo, "the solo game", solo=True)
    add_rule_option(solo, solo=True)
    solo.add_argument("--challenge", metavar="FILE", default=None,
                      help="the challenge file (default: a self-issued practice challenge)")
    solo.add_argument("--secret", metavar="FILE", default=None,
                      help="the organiser's secret file: runs the reveal service here")
    solo.add_argument("--publish-secret", action="store_true",
                      help="put the organiser's secret in the run file (challenge closed)")
    solo.add_argument("--service", metavar="HOST:PORT", default=None,
                      help="the organiser's reveal service (`versus challenge serve`)")
    solo.add_argument("--batch", metavar="DIR", default=None,
                      help="run the bots over every DIR/*.challenge (with its .secret) and "
                           "report score distributions")
    solo.add_argument("--bot", metavar="NAME", default=None,
                      help="play headless with this bot (random, greedy; --batch: a "
                           "comma-separated list, default greedy,random)")
    solo.add_argument("--seed", type=int, default=0, help="the bot's seed")
    solo.add_argument("--identity", metavar="PATH", default=None, help="identity key file")
    solo.add_argument("--out", metavar="FILE", default=None,
                      help="where to write the run (--batch: a folder, default DIR)")
    solo.set_defaults(func=Lazy("versus.cli.solo:cmd_solo"))
    ch = sub.add_parser("challenge", help="make, serve and publish solo challenges (organiser)")
    ch.add_argument("action", choices=("new", "daily", "serve", "publish", "complete"))
    ch.add_argument("--run", dest="runs", action="append", default=[], metavar="FILE",
                    help="publish/complete: a run file to complete with the secret, in place "
                         "(repeatable)")
    add_game_option(ch, "the solo game", solo=True)
    add_rule_option(ch, solo=True)
    ch.add_argument("--id", default=None, help="challenge id (default: random)")
    ch.add_argument("--count", type=count, default=1, metavar="N",
                    help="new: make N challenges, ID-0000 ... (default 1)")
    ch.add_argument("--date", default=None, help="daily: YYYY-MM-DD (default today)")
    ch.add_argument("--identity", metavar="PATH", default=None,
                    help="the organiser's identity key file")
    ch.add_argument("--out", metavar="DIR", default=None,
                    help="where to write the files (default: here; publish: beside --secret)")
    ch.add_argument("--challenge", metavar="FILE", default=None,
                    help="serve/publish: the challenge file")
    ch.add_argument("--secret", metavar="FILE", default=None,
                    help="serve/publish: the organiser's secret file")
    ch.add_argument("--published", metavar="FILE", default=None,
                    help="complete: the published secret file")
    ch.add_argument("--port", type=port, default=47821,
                    help="serve: TCP port (default 47821; 0: any free port)")
    ch.add_argument("--bind", metavar="ADDR", default="127.0.0.1",
                    help="serve: address to listen on (default 127.0.0.1; 0.0.0.0: every "
                         "interface)")
    ch.add_argument("--state", metavar="FILE", default=None,
                    help="serve: the durable state file (default: the secret file's name "
                         "with .state)")
    ch.add_argument("--max-players", type=count, default=10_000, metavar="N",
                    help="serve: player keys served at most (default 10000)")
    ch.set_defaults(func=Lazy("versus.cli.solo:cmd_challenge"))


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="versus", description="Versus P2P")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    add_games_parser(sub)
    add_network_parsers(sub)
    add_verify_parser(sub)
    add_replay_parser(sub)
    add_tournament_parser(sub)
    add_bot_check_parser(sub)
    add_solo_parsers(sub)
    return parser
