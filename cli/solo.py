# `versus solo` and `versus challenge`: verifiable solo runs (SPEC Part 11).
#
# `versus challenge new --out DIR` (an organiser): a signed challenge file and the secret file
# the organiser keeps; `versus challenge daily --date D` the same for a date's public daily
# challenge; `versus challenge serve` runs the networked reveal service (cli/solo_service.py)
# and `versus challenge publish` writes the public secret when the challenge closes and
# completes run files with it (`complete`: anyone, from the published file).
# `versus solo --game multiverse --challenge FILE --service HOST:PORT [--bot NAME]` plays a run
# against the organiser's service (the player never holds the secret); with `--secret FILE`
# the reveal service runs in this process instead (an organiser testing, or practice), and
# without a challenge a self-issued practice challenge is played (the player's own key is the
# organiser, which the verifier reports). `--batch DIR` runs bots over every challenge of a
# folder and reports score distributions. The run file is written to --out and `versus verify`
# checks it.
from __future__ import annotations

import argparse
import datetime
import json
import random
import secrets
import statistics
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from versus.p2p.errors import TransportError
from versus.protocol.errors import RemoteProtocolError
from versus.protocol.solo.challenge import (
    MAX_CHALLENGE,
    Challenge,
    ChallengeError,
    OrganiserSecret,
    daily_challenge,
    new_challenge,
    parse_challenge,
    parse_secret,
    solo_game,
)
from versus.protocol.solo.run import MAX_RUN, play, verify_run, with_secret
from versus.protocol.solo.service import (
    RevealService,
    StateError,
    parse_published,
    published_bytes,
)

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNFINISHED = 0, 1, 2, 3
BOTS = ("random", "greedy")


# --- bots -------------------------------------------------------------------------------------


def random_bot(seed: int = 0) -> Any:
    rng = random.Random(seed)

    def choose(game: Any, state: Any, legal: list[str]) -> str:
        return legal[rng.randrange(len(legal))]

    return choose


def _power(state: Any, h: int) -> Any:
    return state.cat.power(state.d["known"][str(h)])


def greedy_bot(seed: int = 0) -> Any:
    """Slow draw/rally cards first; attack the weakest known (else any) target with the
    smallest Super that beats it, or draw; instants only to turn a combat; discard the
    weakest card over the hand limit."""

    def choose(game: Any, state: Any, legal: list[str]) -> str:
        d = state.d
        slows = [a for a in legal if a.startswith("slow ")]
        if slows:
            return max(slows, key=lambda a: (_power(state, int(a.split()[1])).effect == "draw",
                                             a))
        attacks = [a for a in legal if a.startswith("attack ")]
        if attacks:
            r = next(i for i, row in enumerate(d["rows"]) if any(h >= 0 for h in row["cards"]))
            row = d["rows"][r]

            def margin(a: str) -> tuple[int, int]:
                _, h, c = a.split()
                me = _power(state, int(h))
                tgt = row["cards"][int(c)]
                defence = _power(state, tgt).power if row["up"][int(c)] else 3
                m = me.power + (me.amount if me.activation == "offensive" else 0) - defence
                return (1 if m > 0 else 0, -me.power if m > 0 else m)

            best = max(attacks, key=margin)
            if margin(best)[0] or len(d["hand"]) >= 6:
                return best
        if "draw" in legal:
            return "draw"
        if "end" in legal:
            return "end"
        cb = d["combat"]
        inst = [a for a in legal if a.startswith("instant ")]
        if cb is not None and inst:
            mine = cb["side"] == 0
            losing = cb["a"] <= cb["d"] if mine else cb["a"] > cb["d"]
            if losing:
                return inst[0]
            return "done"
        discards = [a for a in legal if a.startswith("discard ")]
        if discards:
            return min(discards, key=lambda a: _power(state, int(a.split()[1])).power)
        return legal[0]

    return choose


def make_bot(name: str, seed: int = 0) -> Any:
    if name == "random":
        return random_bot(seed)
    if name == "greedy":
        return greedy_bot(seed)
    raise ValueError(f"unknown solo bot {name!r}: one of {', '.join(BOTS)}")


def line_chooser(out: TextIO, inp: TextIO | None = None, rules: Any = None) -> Any:
    """A simple line UI (no terminal): the scene as text (engine/scene.py `scene_lines`: the
    board, the hand with each card's text, what the game asks), the numbered legal inputs with
    the game's warning beside an input that wastes a card; a number or the input's text; `?`
    prints the game's rules and notation (`rules_text` of `rules`)."""
    from versus.engine.api import rules_text, scene_of
    from versus.engine.scene import scene_lines

    def choose(game: Any, state: Any, legal: list[str]) -> str:
        scene = scene_of(game, state, game.decision(state).player, None)
        print("\n".join(scene_lines(scene, 80)), file=out)
        for i, a in enumerate(legal):
            note = scene.note(a)
            print(f"  {i:>2}: {a}" + (f"  (! {note})" if note else ""), file=out)
        source = sys.stdin if inp is None else inp
        while True:
            out.write("> ")
            out.flush()
            line = source.readline()
            if not line:
                raise KeyboardInterrupt
            text = line.strip()
            if text in ("?", "help"):
                print(rules_text(game, game.default_rules() if rules is None else rules),
                      file=out)
                print("Type the number or the text of an input (a unique beginning will do).",
                      file=out)
                continue
            if text.isdigit() and int(text) < len(legal):
                return legal[int(text)]
            matches = [a for a in legal if a == text] or [a for a in legal if a.startswith(text)]
            if len(matches) == 1:
                return matches[0]
            # say what the game asks for instead: the word it takes may not be the one typed
            asked = f" {scene.prompt}" if scene.prompt else ""
            print(f"{text!r} is not one of the legal inputs now.{asked} (`?`: the rules)",
                  file=out)

    return choose


# --- commands ---------------------------------------------------------------------------------


class UsageError(Exception):
    """A command line that cannot work (exit 2, one line)."""


#: what a solo command reports as one line (exit 1): bad files, refusals, the service's faults
_FAILURES = (ChallengeError, StateError, RemoteProtocolError, TransportError, OSError)


def _one_line(command: str, func: Callable[[argparse.Namespace, TextIO], int]
              ) -> Callable[[argparse.Namespace, TextIO], int]:
    def run(args: argparse.Namespace, out: TextIO) -> int:
        try:
            return func(args, out)
        except UsageError as e:
            print(f"versus {command}: {e} (see versus {command} --help)", file=sys.stderr)
            return EXIT_USAGE
        except KeyboardInterrupt:
            print(f"versus {command}: interrupted; no run file written", file=sys.stderr)
            return EXIT_UNFINISHED
        except _FAILURES as e:
            text = " ".join(str(e).split()) or type(e).__name__
            print(f"versus {command}: {text}", file=sys.stderr)
            return EXIT_ERROR

    return run


def _identity(path: str | None) -> Any:
    from versus.p2p.keystore import load_or_create_identity

    return load_or_create_identity(path)


def _game(name: str | None) -> Any:
    """The one-player game `--game` names (default: the registry's DEFAULT_SOLO_GAME); a
    two-player game is a usage error (exit 2, one line), caught before anything is made or
    played."""
    from versus.engine.registry import DEFAULT_SOLO_GAME

    try:
        return solo_game(name or DEFAULT_SOLO_GAME)
    except ChallengeError as e:
        raise UsageError(f"--game {name}: {e}") from None


def _challenge_game(args: argparse.Namespace, ch: Challenge) -> Any:
    """The game of a challenge file (a one-player game: ChallengeError otherwise), which
    `--game`, when given, must name."""
    if args.game is not None and args.game != ch.game:
        raise UsageError(f"--game {args.game}: the challenge {ch.id!r} is of game {ch.game!r}")
    return solo_game(ch.game)


def _rules(game: Any, pairs: list[tuple[str, Any]] | None) -> Any:
    return game.rules_from_options(dict(pairs or []))


def _read(path: str, limit: int = MAX_RUN) -> bytes:
    """A file's bytes, at most `limit` (OSError otherwise: one line)."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"{path}: over {limit} bytes")
    return data


def _challenge_file(path: str) -> Challenge:
    try:
        return parse_challenge(_read(path, MAX_CHALLENGE))
    except ChallengeError as e:
        raise ChallengeError(e.check, f"{path}: {e}") from None


def _secret_file(path: str, ch: Challenge) -> OrganiserSecret:
    try:
        return parse_secret(_read(path, 1024), ch)
    except ChallengeError as e:
        raise ChallengeError(e.check, f"{path}: {e}") from None


def cmd_challenge(args: argparse.Namespace, out: TextIO) -> int:
    return _one_line("challenge", _challenge_cmd)(args, out)


def _challenge_cmd(args: argparse.Namespace, out: TextIO) -> int:
    action = {"serve": _serve, "publish": _publish, "complete": _complete}.get(args.action)
    if action is not None:
        return action(args, out)
    if args.runs:
        raise UsageError(f"`challenge {args.action}` takes no --run")
    game = _game(args.game)
    organiser = _identity(args.identity)
    outdir = Path(args.out or ".")
    outdir.mkdir(parents=True, exist_ok=True)
    made = []
    if args.action == "daily":
        date = datetime.date.fromisoformat(args.date) if args.date else datetime.date.today()
        made.append(daily_challenge(organiser, game, date))
    else:
        cid = args.id or f"c-{secrets.token_hex(6)}"
        ids = [cid] if args.count == 1 else [f"{cid}-{i:04d}" for i in range(args.count)]
        made += [new_challenge(organiser, game, _rules(game, args.rule), one,
                               secrets.token_bytes) for one in ids]
    for ch, sec in made:
        cpath, spath = outdir / f"{ch.id}.challenge", outdir / f"{ch.id}.secret"
        cpath.write_bytes(ch.to_bytes())
        spath.touch(mode=0o600)
        spath.write_bytes(sec.to_bytes())
        print(f"challenge {ch.id}: {cpath} (public); organiser secret: {spath} (keep it)",
              file=out)
    return EXIT_OK


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    """`versus challenge serve`: the networked reveal service, until interrupted."""
    import trio

    from .solo_service import Server, bound_address, open_state

    if not args.challenge or not args.secret or args.runs:
        raise UsageError("`challenge serve` needs --challenge FILE and --secret FILE")
    ch = _challenge_file(args.challenge)
    service = RevealService(ch, _secret_file(args.secret, ch), max_players=args.max_players)
    state_path = Path(args.state or Path(args.secret).with_suffix(".state"))
    state, entries = open_state(state_path, ch)

    def log(line: str) -> None:
        print(f"versus challenge serve: {line}", file=sys.stderr, flush=True)

    server = Server(service, state, entries, log)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(server.serve, args.bind, args.port)
            host, port = bound_address(listeners)
            print(f"reveal service for challenge {ch.id} listening on {host}:{port} (state "
                  f"{state_path}: {service.ledger.players} player keys, {len(entries)} steps)",
                  file=out, flush=True)

    try:
        trio.run(main)
    except KeyboardInterrupt:
        print(f"versus challenge serve: stopped after {server.answered} answers", file=out)
    finally:
        state.close()
    return EXIT_OK


def _publish(args: argparse.Namespace, out: TextIO) -> int:
    """`versus challenge publish --secret FILE [--run FILE...]`: the public secret file (never the
    signing key), and the given run files completed with it, in place."""
    if not args.secret or not args.challenge:
        raise UsageError("`challenge publish` needs --challenge FILE and --secret FILE")
    ch = _challenge_file(args.challenge)
    sec = _secret_file(args.secret, ch)
    path = Path(args.out or Path(args.secret).parent) / f"{ch.id}.published"
    path.write_bytes(published_bytes(sec))
    print(f"published secret of challenge {ch.id}: {path} (public)", file=out)
    return _complete_runs(args.runs, sec.challenge, sec.secret, out)


def _complete(args: argparse.Namespace, out: TextIO) -> int:
    """`versus challenge complete --published FILE --run FILE...` (anyone, once published)."""
    if not args.published or not args.runs:
        raise UsageError("`challenge complete` needs --published FILE and --run FILE")
    digest, secret = parse_published(_read(args.published, 1024))
    return _complete_runs(args.runs, digest, secret, out)


def _complete_runs(runs: list[str], digest: bytes, secret: bytes, out: TextIO) -> int:
    for run_path in runs:
        try:
            Path(run_path).write_bytes(with_secret(_read(run_path), secret, digest))
        except ChallengeError as e:
            raise ChallengeError(e.check, f"{run_path}: {e}") from None
        print(f"{run_path}: completed with the published secret", file=out)
    return EXIT_OK


def cmd_solo(args: argparse.Namespace, out: TextIO) -> int:
    return _one_line("solo", _solo)(args, out)


def _solo(args: argparse.Namespace, out: TextIO) -> int:
    if args.batch:
        return _batch(args, out)
    if args.service and (args.secret or args.publish_secret):
        raise UsageError("--service plays against the organiser's service: no --secret or "
                         "--publish-secret")
    if (args.service or args.secret) and not args.challenge:
        raise UsageError("--service and --secret need --challenge FILE")
    if args.challenge and not (args.service or args.secret):
        raise UsageError("a challenge is played against its reveal service (--service "
                         "HOST:PORT) or, for the organiser, with --secret FILE")
    address = None
    if args.service:
        from .solo_service import ServiceClient, parse_address

        try:
            address = parse_address(args.service)
        except ValueError as e:
            raise UsageError(str(e)) from None
    if args.challenge:
        ch = _challenge_file(args.challenge)
        game = _challenge_game(args, ch)
        _new_run_path(args.out, ch)  # refused before anything is played
    else:
        game = _game(args.game)
        if args.out:
            _new_run_path(args.out, None)
    player = _identity(args.identity)
    client = None
    if address is not None:
        client = ServiceClient(address, ch, player)
        reveal, secret = client.reveal, None
    else:
        if args.challenge:
            sec = _secret_file(args.secret, ch)
        else:  # a self-issued practice challenge
            ch, sec = new_challenge(player, game, _rules(game, args.rule),
                                    f"practice-{secrets.token_hex(4)}", secrets.token_bytes)
        service = RevealService(ch, sec)
        reveal = service.reveal
        publish = args.publish_secret or not args.challenge
        secret = service.publish_secret() if publish else None
    path = _new_run_path(args.out, ch)
    if not args.bot and sys.stdin.isatty():  # a person at a terminal: the full-screen UI
        try:
            run, state = _play_in_ui(args, game, ch, player, reveal)
        finally:
            if client is not None:
                client.close()
        return _write_run(run, state, secret, path, game, out)
    on_step = None
    if args.bot:
        chooser = make_bot(args.bot, args.seed)
    else:  # a person: told what each step did, the automatic ones included
        chooser = line_chooser(out, rules=_rules_of(game, ch))

        def on_step(before: Any, inp: Any, after: Any) -> None:
            for line in game.narrate(before, inp, after, 0, None):
                print(f"  {line}", file=out)

    try:
        run, state = play(game, ch, player, reveal, chooser, on_step=on_step)
    finally:
        if client is not None:
            client.close()
    return _write_run(run, state, secret, path, game, out)


def _write_run(run: Any, state: Any, secret: bytes | None, path: Path, game: Any,
               out: TextIO) -> int:
    try:
        with open(path, "xb") as f:  # never over a run file made meanwhile
            f.write(run.to_bytes(secret))
    except FileExistsError:
        raise UsageError(_run_exists(path)) from None
    print(f"{_result(game, state)} Run written to {path}.", file=out)
    return EXIT_OK


def _play_in_ui(args: argparse.Namespace, game: Any, ch: Challenge, player: Any,
                reveal: Any) -> tuple[Any, Any]:
    """The run played by a person in the full-screen UI (cli/solo_client.py); KeyboardInterrupt
    when the person leaves it unfinished (as the line interface's end of input)."""
    from .solo_client import SoloClient
    from .ui.app import run_ui

    def run(chooser: Any, on_step: Any) -> tuple[Any, Any]:
        return play(game, ch, player, reveal, chooser, on_step=on_step)

    client = SoloClient(game, _rules_of(game, ch) or game.default_rules(), run)
    run_ui(client, theme=getattr(args, "theme", None))
    if client.error is not None:
        raise client.error
    if client.record is None:
        raise KeyboardInterrupt
    return client.record, client.final_state


def _rules_of(game: Any, ch: Challenge) -> Any:
    """The challenge's rules, None when they do not decode (playing then says why)."""
    from versus.engine.errors import RulesetError

    try:
        return game.decode_rules(ch.rules)
    except RulesetError:
        return None


def _run_exists(path: Path) -> str:
    return (f"the run file {path} already exists: keep it (check it with `versus verify "
            f"{path}`) and name this run with --out NEW.run, or move the old one away")


def _new_run_path(out: str | None, ch: Challenge | None) -> Path:
    """Where a run of `ch` is written (--out, else CHALLENGE-ID.run): refused (UsageError)
    when a file is there, before anything is played, since a run file is the only proof of a
    run and a second run of the same challenge would replace the first without a word."""
    path = Path(out or f"{ch.id if ch is not None else 'run'}.run")
    if path.exists():
        raise UsageError(_run_exists(path))
    return path


def _result(game: Any, state: Any) -> str:
    """The finished run's result in the game's words (its scene: victory or defeat, why, the
    score), else its outcome label and score."""
    from versus.engine.api import scene_of

    fin = game.decision(state)
    said = scene_of(game, state, 0, None).result
    return said if said else f"{fin.outcome}: score {game.score(state)}."


# --- batch runs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scores:
    """One bot's score distribution over a batch."""

    bot: str
    runs: int
    wins: int
    mean: float
    median: float
    q1: float
    q3: float
    low: int
    high: int
    verified: int

    def __post_init__(self) -> None:
        if not 0 <= self.wins <= self.runs or not 0 <= self.verified <= self.runs:
            raise ValueError(f"scores of {self.bot!r}: counts out of range")

    @classmethod
    def of(cls, bot: str, scores: list[int], wins: int, verified: int) -> Scores:
        if not scores:
            return cls(bot, 0, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0)
        q1, med, q3 = (statistics.quantiles(scores, n=4, method="inclusive")
                       if len(scores) > 1 else (scores[0],) * 3)
        return cls(bot, len(scores), wins, statistics.fmean(scores), med, q1, q3,
                   min(scores), max(scores), verified)

    HEADER = (f"{'bot':<8}{'runs':>6}{'wins':>6}{'win %':>7}{'mean':>8}{'median':>8}"
              f"{'q1':>7}{'q3':>7}{'min':>6}{'max':>6}{'verified':>10}")

    def row(self) -> str:
        rate = 100 * self.wins / self.runs if self.runs else 0.0
        return (f"{self.bot:<8}{self.runs:>6}{self.wins:>6}{rate:>7.1f}{self.mean:>8.1f}"
                f"{self.median:>8.1f}{self.q1:>7.1f}{self.q3:>7.1f}{self.low:>6}{self.high:>6}"
                f"{self.verified:>10}")


def play_batch(game: Any, pairs: list[tuple[Challenge, OrganiserSecret]], bots: list[str],
               player: Any, seed: int = 0,
               keep: Callable[[str, Challenge, bytes], None] | None = None) -> list[Scores]:
    """Every bot plays every challenge with the same player key (so every bot meets the same
    card order and dice: a paired comparison); every run file is verified against its
    challenge. `keep(bot, challenge, run file)` sees each run file."""
    out = []
    for bot in bots:
        scores, wins, verified = [], 0, 0
        for i, (ch, sec) in enumerate(pairs):
            service = RevealService(ch, sec)
            run, state = play(game, ch, player, service.reveal, make_bot(bot, seed + i))
            data = run.to_bytes(service.publish_secret())
            report = verify_run(data, ch)
            verified += report.ok and report.summary.get("score") == game.score(state)
            scores.append(game.score(state))
            wins += game.decision(state).outcome == "victory"
            if keep is not None:
                keep(bot, ch, data)
        out.append(Scores.of(bot, scores, wins, verified))
    return out


def _batch(args: argparse.Namespace, out: TextIO) -> int:
    """`versus solo --batch DIR --bot greedy,random --out DIR` (SPEC §11.8)."""
    if args.service or args.secret or args.challenge:
        raise UsageError("--batch plays the challenges of a folder with their secret files: "
                         "no --challenge, --secret or --service")
    bots = [b for b in (args.bot or "greedy,random").split(",") if b]
    for b in bots:
        if b not in BOTS:
            raise UsageError(f"unknown solo bot {b!r}: one of {', '.join(BOTS)}")
    folder = Path(args.batch)
    files = sorted(folder.glob("*.challenge"))
    if not files:
        raise UsageError(f"no *.challenge files in {folder}")
    pairs = []
    for f in files:
        ch = _challenge_file(str(f))
        secret = f.with_suffix(".secret")
        if not secret.exists():
            raise UsageError(f"{f} has no secret file beside it ({secret.name}): a batch is "
                             "the organiser's")
        pairs.append((ch, _secret_file(str(secret), ch)))
    games = {ch.game for ch, _ in pairs}
    if len(games) != 1:
        raise UsageError(f"the challenges are of several games: {', '.join(sorted(games))}")
    game = _game(games.pop())
    outdir = Path(args.out) if args.out else folder  # the folder's summary.json (README)

    def keep(bot: str, ch: Challenge, data: bytes) -> None:
        (outdir / bot).mkdir(parents=True, exist_ok=True)
        (outdir / bot / f"{ch.id}.run").write_bytes(data)

    table = play_batch(game, pairs, bots, _identity(args.identity), args.seed, keep)
    (outdir / "summary.json").write_text(json.dumps(
        {"challenges": len(pairs), "bots": [asdict(s) for s in table]}, indent=2) + "\n")
    print(f"{len(pairs)} challenges from {folder}; run files in {outdir}/<bot>/", file=out)
    print(Scores.HEADER, file=out)
    for s in table:
        print(s.row(), file=out)
    bad = sum(s.runs - s.verified for s in table)
    if bad:
        print(f"versus solo: {bad} run files failed verification", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


__all__ = ["ChallengeError", "Scores", "cmd_challenge", "cmd_solo", "make_bot", "play_batch"]
