# `versus tournament`: bots (built-in or external programs) play each other in real
# peer-to-peer matches, many at once, and the standings come out with Elo ratings (SPEC §8.3).
#
# How it works. The runner (this module, one trio program) computes the schedule (round robin
# or gauntlet, a number of games per pairing with the seats swapped every other game), writes
# the manifest DIR/tournament.json (participants, settings, schedule), then keeps N worker
# processes busy (`python -m versus.cli.tournament_worker`, one game at a time each, so games
# use all the cores and a bot or a worker that goes wrong takes down one game, not the tournament).
# Every game is a whole match over TCP on 127.0.0.1 through the full protocol; the worker saves
# its transcript as DIR/games/<game>.vtr and returns the verified result; the runner writes
# DIR/games/<game>.json atomically (temporary file + rename) the moment each game ends. That
# file is the game's only record: an interrupted tournament resumes (`--resume`) by reloading
# the records, re-verifying each saved transcript, and playing only the games without a valid
# record. A worker that dies or outlives the task limit (`--task-timeout`, by default the
# per-game limit plus a grace) is killed and its game recorded as abandoned (not scored;
# `--resume` plays it again); a new worker takes over. (A game a bot forfeits is scored by the
# worker before it ends the bots, so no bot can turn its loss into an abandoned game.)
#
# Games (issue 16): every game of a tournament is of the game `--game` names (default
# versus42), under the rules its `--rule NAME=VALUE` options make (the manifest keeps both, so
# `--resume` plays the same game); its participants must be bots that play it (`random` plays
# every game, external `cmd:` bots every two-player game; greedy and ismcts play Versus and
# the games that have their own, cli/bots/registry.py), and its default deal is decklist
# for Versus, shared-pool for another game (cli/game_options.py).
#
# Paired deals, deal suites, SPRT (issue 21). By default every deal is played twice with the
# seats swapped (`--unpaired`: once): the two games of a pair share a deal seed, from which the
# identities, master secrets and handshake randomness of both seats derive, so both games have
# the same match id, decks, shuffles and layout, and only the bots change seats (their own
# seeds still differ per game). Deal k's seed is SHA-256("versus/v1/tournament-deal" ‖ 0x00 ‖
# label), its label the k-th line of `--deals FILE` (cycled) or `<srand>-<k>` (`--srand N`, by
# default a random N saved in the manifest, or one derived from `--seed`). Pair statistics,
# Elo, normalized Elo and the SPRT are in cli/tournament_stats.py; `--sprt` stops starting
# games once the LLR crosses a bound (two participants only). `--rating-interval N` prints
# the standings every N games; `--records` writes a text record beside each transcript.
# Participants may carry options (`ismcts:time=0.05,name=Fast`, cli/bots/registry.py): the
# manifest keeps the given specs, records and standings use the participants' names.
#
# `--sandbox` runs the external bots under bubblewrap (cli/bots/sandbox.py): duplicate play
# assumes the bots remember nothing between games; like --concurrency it is not a setting.
#
# `--cluster ADDR` plays the same jobs as tasks of a Dask cluster instead of worker processes
# (cli/cluster.py): the organiser (this process) verifies and writes every transcript and
# record itself, so resume, standings and results are the same.
#
# Output: a progress bar on stderr (in place on a terminal, one line per game otherwise), the
# standings on stdout (games, wins, draws, losses, forfeits, score, Elo with its 95 % interval
# from cli/tournament_elo.py), DIR/results.json and DIR/results.csv (one row per game).
# Errors are one line on stderr and an exit status (EXIT_* below, README, `--help`).
from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import io
import json
import os
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, ClassVar

import trio

from versus.p2p.session import open_nursery
from versus.protocol.match import Ending
from versus.protocol.match.rules import DealMode
from versus.protocol.match.verify import verify_transcript

from .bots.base import BotError
from .bots.registry import parse_bot
from .parsers import DEFAULT_GAME_TIMEOUT, add_tournament_parser
from .tournament_elo import Rating, ratings
from .tournament_stats import (
    PENTA_LABELS,
    TRI_LABELS,
    Estimate,
    Sprt,
    SprtError,
    estimate,
    parse_sprt,
    pentanomial,
    trinomial,
)
from .tournament_worker import bot_of
from .files import UnreadableFile, read_limited

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNFINISHED, EXIT_UNVERIFIED = 0, 1, 2, 3, 4
MANIFEST_FORMAT = "versus-tournament/1"
RESULTS_FORMAT = "versus-tournament-results/1"
#: how a game can end: the match endings, and the two only a tournament has
ENDINGS = (*(ending.value for ending in Ending), "forfeit", "abandoned")
WORKER_GRACE_S = 20.0  # beyond the per-game limit before the runner kills a worker
WORKER_START_S = 60.0
WORKER_TERM_GRACE_S = 2.0  # after SIGTERM, for a worker to end its bots, before SIGKILL
MAX_RECORD_FILE = 1 << 20
MAX_MANIFEST_FILE = 16 << 20
MAX_DEALS_FILE = 4 << 20
DEAL_LABEL = re.compile(r"[A-Za-z0-9._-]{1,64}")
MAX_WORKER_LINE = 1 << 20
STDERR_KEEP = 8192
ROOT = Path(__file__).resolve().parent.parent


class TournamentError(Exception):
    """A one-line failure; `status` is the exit status."""

    def __init__(self, message: str, status: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.status = status


# --- settings and schedule ---------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Everything that fixes the schedule and the games (concurrency does not)."""

    format: str = "round-robin"
    games: int = 2
    champion: str | None = None  # gauntlet: the participant who plays everyone
    deal: str = DealMode.DECKLIST.value
    seed: str | None = None  # hex; None: every game draws fresh secrets
    time_per_decision_ms: int | None = None
    game_timeout: float = DEFAULT_GAME_TIMEOUT
    game: str = "versus42"  # the registry id of the game every match plays
    rules: tuple[tuple[str, Any], ...] = ()  # its rules options (--rule), as plain values
    paired: bool = False  # each deal twice, seats swapped (issue 21; the CLI default)
    srand: int | None = None  # the random deal suite's number (None: fresh deals, unpaired)
    deals: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()  # --deals: (label, rules)
    sprt: tuple[tuple[str, Any], ...] | None = None  # --sprt, as Sprt.to_dict() items
    records: bool = False  # --records: a text record per game

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "games": self.games, "champion": self.champion,
                "deal": self.deal, "seed": self.seed,
                "time_per_decision_ms": self.time_per_decision_ms,
                "game_timeout": self.game_timeout, "game": self.game,
                "rules": dict(self.rules), "paired": self.paired, "srand": self.srand,
                "deals": [{"seed": label, "rules": dict(rules)} for label, rules in self.deals],
                "sprt": None if self.sprt is None else dict(self.sprt),
                "records": self.records}

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        if isinstance(data, dict):  # a manifest from before issue 16: a Versus tournament;
            # from before issue 21: unpaired, fresh deals, no SPRT
            data = {"game": "versus42", "rules": {}, "paired": False, "srand": None,
                    "deals": [], "sprt": None, "records": False, **data}
        if not isinstance(data, dict) or set(data) != set(cls().to_dict()) or not isinstance(
                data["rules"], dict) or not isinstance(data["game"], str) or not isinstance(
                data["deals"], list) or not all(isinstance(d, dict) and isinstance(
                    d.get("rules"), dict) for d in data["deals"]) or not isinstance(
                data["sprt"], dict | None):
            raise ValueError("settings are not the expected object")
        return cls(**{**data, "rules": tuple(data["rules"].items()),
                      "deals": tuple((d["seed"], tuple(d["rules"].items()))
                                     for d in data["deals"]),
                      "sprt": None if data["sprt"] is None else tuple(data["sprt"].items())})

    @property
    def sprt_test(self) -> Sprt | None:
        return None if self.sprt is None else Sprt(**dict(self.sprt))


@dataclass(frozen=True)
class Game:
    """One scheduled game: `pairing` (i, j) are participant indexes, `seats` who plays seat 0
    and seat 1; `round` counts the games of the pairing from 1."""

    id: str
    round: int
    pairing: tuple[int, int]
    seats: tuple[int, int]
    deal: int = 0  # the deal played, from 1 (0: fresh secrets)
    pair: int | None = None  # paired deals: the pair of the pairing (its two games share it)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.id, "round": self.round, "pairing": list(self.pairing),
                "seats": list(self.seats), "deal": self.deal, "pair": self.pair}


def pairings(participants: Sequence[str], settings: Settings) -> list[tuple[int, int]]:
    if settings.format == "gauntlet":
        champion = participants.index(settings.champion or participants[0])
        return [(champion, j) for j in range(len(participants)) if j != champion]
    return [(i, j) for i in range(len(participants)) for j in range(i + 1, len(participants))]


def make_schedule(participants: Sequence[str], settings: Settings) -> list[Game]:
    """Round by round, so a tournament stopped early is balanced between pairings; seat 0 goes
    to the pairing's first participant in odd rounds and to the second in even ones. Paired:
    pair by pair (rounds 2k-1 and 2k play deal k, one after the other), so a run stopped early
    leaves few pairs incomplete."""
    games = []
    fresh = settings.srand is None and not settings.deals
    if settings.paired:
        for k in range(1, settings.games // 2 + 1):
            for i, j in pairings(participants, settings):
                for n, seats in ((2 * k - 1, (i, j)), (2 * k, (j, i))):
                    games.append(Game(f"p{i}-p{j}-{n:03d}", n, (i, j), seats, k, k))
        return games
    for n in range(1, settings.games + 1):
        for i, j in pairings(participants, settings):
            seats = (i, j) if n % 2 == 1 else (j, i)
            games.append(Game(f"p{i}-p{j}-{n:03d}", n, (i, j), seats, 0 if fresh else n))
    return games


def game_seed(settings: Settings, game: Game) -> str | None:
    if settings.seed is None:
        return None
    return hashlib.sha256(b"versus/v1/tournament-game\x00" + bytes.fromhex(settings.seed)
                          + game.id.encode()).hexdigest()


def deal_of(settings: Settings, game: Game) -> tuple[str, dict[str, Any]] | None:
    """The label of the game's deal and its rules options (None: fresh secrets)."""
    if game.deal == 0:
        return None
    if settings.deals:
        label, rules = settings.deals[(game.deal - 1) % len(settings.deals)]
        return label, dict(rules)
    return f"{settings.srand}-{game.deal}", {}


def deal_seed(label: str) -> str:
    return hashlib.sha256(b"versus/v1/tournament-deal\x00" + label.encode()).hexdigest()


# --- the output folder -------------------------------------------------------------------------


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@dataclass
class Folder:
    root: Path

    @property
    def manifest(self) -> Path:
        return self.root / "tournament.json"

    @property
    def games(self) -> Path:
        return self.root / "games"

    def record_path(self, game: Game) -> Path:
        return self.games / f"{game.id}.json"

    def transcript_path(self, game: Game) -> Path:
        return self.games / f"{game.id}.vtr"

    def record_text_path(self, game: Game) -> Path:
        return self.games / f"{game.id}.txt"

    def prepare(self) -> None:
        try:
            self.games.mkdir(parents=True, exist_ok=True)
            probe = self.root / ".write-test"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as error:
            raise TournamentError(f"cannot write to {self.root}: "
                                  f"{error.strerror or error}") from None


def read_json(path: Path, limit: int) -> Any:
    """A JSON file, or ValueError naming the problem."""
    try:
        data = read_limited(str(path), limit)
    except UnreadableFile as error:
        raise ValueError(str(error)) from None
    if data is None:
        raise ValueError(f"larger than {limit} bytes")
    try:
        return json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"not JSON: {error}") from None


def write_manifest(folder: Folder, participants: Sequence[str], settings: Settings,
                   schedule: Sequence[Game]) -> None:
    manifest = {"format": MANIFEST_FORMAT, "participants": list(participants),
                "settings": settings.to_dict(), "schedule": [g.to_dict() for g in schedule]}
    try:
        write_atomically(folder.manifest, json.dumps(manifest, indent=1) + "\n")
    except OSError as error:
        raise TournamentError(f"cannot write {folder.manifest}: "
                              f"{error.strerror or error}") from None


def read_manifest(folder: Folder) -> tuple[list[str], Settings, list[Game]]:
    try:
        data = read_json(folder.manifest, MAX_MANIFEST_FILE)
        if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
            raise ValueError(f"not a {MANIFEST_FORMAT} manifest")
        participants = data["participants"]
        if not isinstance(participants, list) or not all(isinstance(p, str) for p in
                                                         participants):
            raise ValueError("participants must be a list of names")
        settings = Settings.from_dict(data["settings"])
        schedule = make_schedule(participants, settings)
        expected = [g.to_dict() for g in schedule]
        if "paired" not in data["settings"]:  # a manifest from before issue 21
            expected = [{k: v for k, v in g.items() if k not in ("deal", "pair")}
                        for g in expected]
        if data["schedule"] != expected:
            raise ValueError("the schedule does not follow from the participants and settings")
    except (ValueError, KeyError, TypeError) as error:
        raise TournamentError(f"cannot resume from {folder.manifest}: {error}") from None
    return participants, settings, schedule


def settings_difference(here: tuple[list[str], Settings],
                        there: tuple[list[str], Settings]) -> str | None:
    if here[0] != there[0]:
        return f"participants {here[0]} here, {there[0]} there"
    a, b = here[1].to_dict(), there[1].to_dict()
    for key in a:
        if a[key] != b[key]:
            return f"{key} {a[key]!r} here, {b[key]!r} there"
    return None


# --- game records ------------------------------------------------------------------------------


def make_record(game: Game, participants: Sequence[str], answer: dict[str, Any],
                folder: Folder) -> dict[str, Any]:
    """The saved record of a game, from the worker's answer (or the runner's abandonment);
    `participants` are the participants' names."""
    seats = [participants[s] for s in game.seats]
    abandoned = bool(answer.get("abandoned"))
    winner_seat = None if abandoned else answer.get("winner_seat")
    transcript = answer.get("transcript")
    record = answer.get("record")
    return {
        "game": game.id, "round": game.round, "deal": game.deal, "pair": game.pair,
        "pairing": [participants[p] for p in game.pairing], "seats": seats,
        "winner_seat": winner_seat,
        "winner": None if winner_seat is None else seats[winner_seat],
        "ending": "abandoned" if abandoned else answer.get("ending"),
        "outcome": answer.get("outcome"), "reason": answer.get("reason") or "",
        "forfeit_seat": answer.get("forfeit_seat"),
        "transcript": None if not transcript
        else os.path.relpath(transcript, folder.root).replace(os.sep, "/"),
        "verified": bool(answer.get("verified")) and not abandoned,
        "check": answer.get("check"), "actions": answer.get("actions"),
        "fingerprints": answer.get("fingerprints"), "match_id": answer.get("match_id"),
        "seconds": round(float(answer.get("seconds") or 0.0), 3),
        "setup_seconds": round(float(answer.get("setup_seconds") or 0.0), 3),
        "record": None if not record
        else os.path.relpath(record, folder.root).replace(os.sep, "/"),
    }


def scored(record: dict[str, Any]) -> bool:
    """A game that counts in the standings: it has a result (a fault without a winner and an
    abandoned game do not)."""
    return record["ending"] != "abandoned" and not (record["ending"] == "fault"
                                                    and record["winner_seat"] is None)


def check_record(record: Any, game: Game, participants: Sequence[str],
                 folder: Folder) -> str | None:
    """Why a saved record cannot be kept (None: keep it). Its transcript is verified again and
    must show the recorded winner."""
    if not isinstance(record, dict) or record.get("game") != game.id:
        return "not this game's record"
    if record.get("seats") != [participants[s] for s in game.seats]:
        return "recorded with other seats"
    if record.get("ending") not in ENDINGS or record.get("winner_seat") not in (0, 1, None):
        return "not a valid record"
    if record["ending"] == "abandoned":
        return "abandoned"
    if record.get("transcript") is None:
        return None if record["ending"] == "forfeit" else "no transcript"
    path = folder.root / record["transcript"]
    if path.resolve() != folder.transcript_path(game).resolve():
        return "its transcript is not in the games folder"
    try:
        data = read_limited(str(path), MAX_RECORD_FILE * 256)
    except UnreadableFile as error:
        return f"transcript unreadable: {error}"
    if data is None:
        return "transcript too large"
    report = verify_transcript(data)
    if not report.ok:
        return f"its transcript does not verify: {report.check}: {report.message}"[:200]
    verified = report.summary.get("result") or {}
    if verified.get("winner") != record["winner_seat"]:
        return "its transcript names another winner"
    record["verified"] = True
    return None


def load_records(folder: Folder, schedule: Sequence[Game], participants: Sequence[str],
                 warn: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """The records worth keeping, by game id; the others are played again."""
    kept: dict[str, dict[str, Any]] = {}
    for game in schedule:
        path = folder.record_path(game)
        if not path.exists():
            continue
        try:
            record = read_json(path, MAX_RECORD_FILE)
        except ValueError as error:
            warn(f"game {game.id}: its record is unreadable ({error}); playing it again")
            continue
        why = check_record(record, game, participants, folder)
        if why is None:
            kept[game.id] = record
        elif why != "abandoned":
            warn(f"game {game.id}: {why}; playing it again")
    return kept


# --- worker processes --------------------------------------------------------------------------


class WorkerDied(Exception):
    pass


class Worker:
    """One `python -m versus.cli.tournament_worker` process; its stderr is drained into a tail kept
    for the one-line reason when it dies."""

    command: ClassVar[Sequence[str]] = (sys.executable, "-m", "versus.cli.tournament_worker")

    def __init__(self, nursery: trio.Nursery) -> None:
        self.nursery = nursery
        self.proc: trio.Process | None = None
        self.buffer = bytearray()
        self.stderr = bytearray()

    async def start(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        self.proc = await trio.lowlevel.open_process(
            list(self.command), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
            start_new_session=True)  # Ctrl-C reaches the runner, which stops the workers
        self.nursery.start_soon(self._drain)
        with trio.move_on_after(WORKER_START_S):
            ready = await self._read_line()
            if "ready" not in ready:
                raise WorkerDied("the worker did not say ready")
            return
        raise WorkerDied(f"the worker did not start within {WORKER_START_S:g} s")

    async def play(self, job: dict[str, Any], limit: float) -> dict[str, Any]:
        """The worker's answer; WorkerDied (worker killed) when it dies or overruns `limit`."""
        assert self.proc is not None and self.proc.stdin is not None
        try:
            await self.proc.stdin.send_all(json.dumps(job).encode() + b"\n")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise WorkerDied(await self._death()) from None
        with trio.move_on_after(limit):
            return await self._read_line()
        await self.kill()
        raise WorkerDied(f"the worker exceeded the game's task limit of {limit:g} s and was "
                         "killed")

    async def _read_line(self) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        while (end := self.buffer.find(b"\n")) < 0:
            if len(self.buffer) > MAX_WORKER_LINE:
                await self.kill()
                raise WorkerDied("the worker answered an overlong line")
            chunk = await self.proc.stdout.receive_some(65536)
            if not chunk:
                raise WorkerDied(await self._death())
            self.buffer += chunk
        line = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            await self.kill()
            raise WorkerDied("the worker answered something that is not a JSON object")
        return answer

    async def _death(self) -> str:
        assert self.proc is not None
        with trio.move_on_after(2):
            await self.proc.wait()
        await self.kill()
        lines = [x for x in self.stderr.decode("utf-8", "replace").splitlines() if x.strip()]
        tail = f": {lines[-1].strip()[:200]}" if lines else ""
        return f"the worker process died (exit status {self.proc.returncode}){tail}"

    async def _drain(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        try:
            while chunk := await self.proc.stderr.receive_some(65536):
                self.stderr += chunk
                del self.stderr[:-STDERR_KEEP]
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass

    async def kill(self) -> None:
        """Stop the worker: SIGTERM (it ends its bots' process groups and exits), then SIGKILL
        after WORKER_TERM_GRACE_S."""
        proc = self.proc
        if proc is None:
            return
        with trio.CancelScope(shield=True):
            if proc.returncode is None:
                proc.terminate()
                with trio.move_on_after(WORKER_TERM_GRACE_S):
                    await proc.wait()
            if proc.returncode is None:
                proc.kill()
            await proc.wait()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    await stream.aclose()


# --- progress ----------------------------------------------------------------------------------


def describe_record(record: dict[str, Any]) -> str:
    seats = record["seats"]
    head = f"{record['game']} {seats[0]} vs {seats[1]}: "
    if record["ending"] == "abandoned":
        return head + f"abandoned ({record['reason']})"
    if record["winner"] is None:
        return head + f"draw ({record['outcome'] or record['ending']})"
    how = record["outcome"] or record["ending"]
    if record["ending"] == "forfeit":
        how = f"forfeit: {record['reason']}"
    return head + f"{record['winner']} wins ({how})"


class Progress:
    """Plain text on stderr: a bar redrawn in place on a terminal, else a line per game."""

    def __init__(self, total: int, done: int, to_play: int, stream: IO[str]) -> None:
        self.total, self.done, self.to_play, self.stream = total, done, to_play, stream
        self.played = 0
        self.tty = stream.isatty()
        self.started = time.monotonic()

    def start(self) -> None:
        if self.tty and self.to_play:
            self._draw(f"{self.done}/{self.total} games, starting the workers")

    def game(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.played += 1
        if not self.tty:
            print(f"[{self.done}/{self.total}] {describe_record(record)}", file=self.stream,
                  flush=True)
            return
        elapsed = time.monotonic() - self.started
        rate = self.played / elapsed * 60 if elapsed > 0 else 0.0
        left = max(0, self.to_play - self.played) * elapsed / self.played
        self._draw(f"{self.done}/{self.total} games, {rate:.0f}/min, eta {_clock(left)} | "
                   f"{describe_record(record)}")

    def _draw(self, text: str) -> None:
        width = 24
        filled = width * self.done // max(1, self.total)
        line = f"[{'#' * filled}{'.' * (width - filled)}] {text}"
        columns = shutil.get_terminal_size((100, 20)).columns
        self.stream.write("\r" + line[: columns - 1].ljust(columns - 1))
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.to_play:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


# --- running the games -------------------------------------------------------------------------


@dataclass
class Run:
    """One invocation: what to play and what has been recorded so far."""

    folder: Folder
    participants: list[str]  # as given (bot specs, numbered); `names` are their names
    settings: Settings
    schedule: list[Game]
    records: dict[str, dict[str, Any]]
    concurrency: int
    max_games: int | None = None
    progress: Progress | None = None
    started: int = 0
    todo: list[Game] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    rating_interval: int | None = None
    out: IO[str] | None = None
    verdict: str | None = None  # the SPRT's, once a bound is crossed: "H0" or "H1"
    recorded: int = 0  # games recorded by this run
    cluster: str | None = None  # --cluster: play on this Dask cluster (cli/cluster.py)
    task_timeout: float | None = None  # --task-timeout; None: the per-game limit + a grace
    sandbox: bool = False  # --sandbox: external bots run under bwrap (cli/bots/sandbox.py)

    @property
    def task_limit(self) -> float:
        """How long one game's worker process or cluster task may take before it is given
        up: --task-timeout, else the per-game limit plus WORKER_GRACE_S."""
        if self.task_timeout is not None:
            return self.task_timeout
        return self.settings.game_timeout + WORKER_GRACE_S

    def __post_init__(self) -> None:
        if not self.names:
            self.names = participant_names(self.participants)
        self.verdict = self.sprt_verdict()

    def job(self, game: Game) -> dict[str, Any]:
        deal = deal_of(self.settings, game)
        job = {"game": game.id, "players": [self.participants[s] for s in game.seats],
               "game_id": self.settings.game,
               "rules": {**dict(self.settings.rules), **(deal[1] if deal else {})},
               "deal": self.settings.deal, "seed": game_seed(self.settings, game),
               "deal_seed": None if deal is None else deal_seed(deal[0]),
               "time_ms": self.settings.time_per_decision_ms,
               "game_timeout": self.settings.game_timeout,
               "transcript": str(self.folder.transcript_path(game).resolve())}
        if self.sandbox:
            job["sandbox"] = True
        if self.settings.records:
            job["record"] = str(self.folder.record_text_path(game).resolve())
            job["tags"] = {"Event": "versus tournament", "Game": game.id,
                           "Variant": self.settings.game, "Round": str(game.round),
                           "Deal": "fresh" if deal is None else deal[0],
                           "Seat0": self.names[game.seats[0]],
                           "Seat1": self.names[game.seats[1]]}
        return job

    def next_game(self) -> Game | None:
        if not self.todo or (self.max_games is not None and self.started >= self.max_games) \
                or self.verdict is not None:
            return None
        self.started += 1
        return self.todo.pop(0)

    def sprt_verdict(self) -> str | None:
        test = self.settings.sprt_test
        if test is None:
            return None
        (row,) = pair_statistics(self.names, self.settings, self.ordered_records()) or [None]
        return None if row is None else test.verdict(row.llr)

    def ordered_records(self) -> list[dict[str, Any]]:
        return [self.records[g.id] for g in self.schedule if g.id in self.records]

    def record(self, game: Game, answer: dict[str, Any]) -> None:
        record = make_record(game, self.names, answer, self.folder)
        try:
            write_atomically(self.folder.record_path(game), json.dumps(record, indent=1))
        except OSError as error:
            raise TournamentError(f"cannot write {self.folder.record_path(game)}: "
                                  f"{error.strerror or error}") from None
        self.records[game.id] = record
        self.recorded += 1
        if self.progress is not None:
            self.progress.game(record)
        if self.verdict is None:
            self.verdict = self.sprt_verdict()
        if self.out is not None and self.rating_interval and (
                self.recorded % self.rating_interval == 0):
            records = self.ordered_records()
            table = standings(self.names, self.settings, records,
                              pairings(self.participants, self.settings))
            print(f"standings after {len(records)} of {len(self.schedule)} games:\n"
                  + format_standings(table, records, self.names, self.settings), file=self.out,
                  flush=True)


async def play_games(run: Run) -> None:
    """Play `run.todo` on `run.concurrency` workers (fewer if fewer games are left)."""
    limit = run.task_limit
    slots = max(1, min(run.concurrency, len(run.todo), run.max_games or len(run.todo)))

    async def slot() -> None:
        async with open_nursery() as nursery:
            worker: Worker | None = None
            try:
                while (game := run.next_game()) is not None:
                    if worker is None:
                        worker = Worker(nursery)
                        try:
                            await worker.start()
                        except WorkerDied as error:
                            await worker.kill()
                            raise TournamentError(f"cannot start a worker process: "
                                                  f"{error}") from None
                    try:
                        answer = await worker.play(run.job(game), limit)
                    except WorkerDied as error:
                        answer = {"abandoned": True, "reason": str(error)}
                        worker = None
                    run.record(game, answer)
            finally:
                if worker is not None:
                    await worker.kill()
                nursery.cancel_scope.cancel()

    async with open_nursery() as nursery:
        for _ in range(slots):
            nursery.start_soon(slot)


def play_on_cluster(run: Run) -> None:
    """`--cluster`: the same games on a Dask cluster (cli/cluster.py); its failures are
    TournamentErrors."""
    from .cluster import ClusterError, run_on_cluster

    try:
        run_on_cluster(run)
    except ClusterError as error:
        raise TournamentError(str(error), error.status) from None


# --- standings ---------------------------------------------------------------------------------


@dataclass
class Standing:
    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0  # losses by forfeit (included in losses)
    rating: Rating | None = None

    @property
    def score(self) -> float:
        return self.wins + self.draws / 2

    def to_dict(self, rank: int) -> dict[str, Any]:
        return {"rank": rank, "name": self.name, "games": self.games, "wins": self.wins,
                "draws": self.draws, "losses": self.losses, "forfeits": self.forfeits,
                "score": self.score,
                "elo": None if self.rating is None else round(self.rating.elo, 1),
                "elo_margin": None if self.rating is None else round(self.rating.margin, 1)}


def standings(participants: Sequence[str], settings: Settings,
              records: Sequence[dict[str, Any]],
              pairs: Sequence[tuple[int, int]] | None = None) -> list[Standing]:
    """The table by participant name; `pairs`: the scheduled pairings (default: from the
    names and settings)."""
    if pairs is None:
        pairs = pairings(participants, settings)
    table = [Standing(name) for name in participants]
    index = {name: i for i, name in enumerate(participants)}
    games: list[tuple[int, int, float]] = []
    for record in records:
        if not scored(record):
            continue
        seats = [index[name] for name in record["seats"]]
        winner = record["winner_seat"]
        for seat, p in enumerate(seats):
            row = table[p]
            row.games += 1
            if winner is None:
                row.draws += 1
            elif winner == seat:
                row.wins += 1
            else:
                row.losses += 1
                row.forfeits += record["ending"] == "forfeit"
        games.append((seats[0], seats[1], 0.5 if winner is None else float(winner == 0)))
    if len(participants) >= 2:
        for row, rating in zip(table, ratings(len(participants), pairs, games), strict=True):
            row.rating = rating
    return sorted(table, key=lambda r: (-r.score, -(r.rating.elo if r.rating else 0), r.name))


@dataclass(frozen=True)
class PairingStats:
    """One pairing's statistics from its first participant's side (tournament_stats.py)."""

    pairing: tuple[str, str]
    counts: tuple[int, ...]  # LL, LD, DD+WL, WD, WW (paired) or L, D, W (unpaired)
    estimate: Estimate | None
    llr: float = 0.0
    incomplete: int = 0  # paired: pairs with one game scored (not counted)

    @property
    def labels(self) -> tuple[str, ...]:
        return PENTA_LABELS if len(self.counts) == 5 else TRI_LABELS

    def to_dict(self) -> dict[str, Any]:
        return {"pairing": list(self.pairing),
                "model": "pentanomial" if len(self.counts) == 5 else "trinomial",
                "counts": dict(zip(self.labels, self.counts, strict=True)),
                "incomplete_pairs": self.incomplete,
                **(self.estimate.to_dict() if self.estimate else {"samples": 0}),
                "llr": round(self.llr, 4)}

    def line(self, sprt: Sprt | None) -> str:
        counts = ", ".join(f"{label} {n}" for label, n in zip(self.labels, self.counts,
                                                              strict=True))
        unit = "pairs" if len(self.counts) == 5 else "games"
        head = (f"{self.pairing[0]} vs {self.pairing[1]}: {sum(self.counts)} {unit} "
                f"[{counts}]")
        if self.incomplete:
            head += f" ({self.incomplete} incomplete pairs not counted)"
        text = head + (f"; {self.estimate}" if self.estimate else "")
        if sprt is not None:
            verdict = sprt.verdict(self.llr)
            text += (f"\nSPRT {sprt}: LLR {self.llr:.2f}, bounds "
                     f"[{sprt.lower:.2f}, {sprt.upper:.2f}]: "
                     + {"H1": "H1 accepted (elo1)", "H0": "H0 accepted (elo0)",
                        None: "continue"}[verdict])
        return text


def pair_statistics(names: Sequence[str], settings: Settings,
                    records: Sequence[dict[str, Any]]) -> list[PairingStats]:
    """Per pairing (in first-appearance order of the scored records): pentanomial counts of its
    complete pairs (paired deals) or trinomial counts of its games, the estimate, the LLR."""
    test = settings.sprt_test
    games: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for record in records:
        if scored(record):
            games.setdefault(tuple(record["pairing"]), []).append(record)  # type: ignore[arg-type]
    rows = []
    for pairing, mine in games.items():
        def score(record: dict[str, Any], first: str = pairing[0]) -> float:
            winner = record["winner"]
            return 0.5 if winner is None else float(winner == first)

        incomplete = 0
        if settings.paired:
            by_pair: dict[Any, list[float]] = {}
            for record in mine:
                by_pair.setdefault(record.get("pair"), []).append(score(record))
            pairs = [(v[0], v[1]) for v in by_pair.values() if len(v) == 2]
            incomplete = sum(len(v) != 2 for v in by_pair.values())
            counts: tuple[int, ...] = pentanomial(pairs)
        else:
            counts = trinomial([score(r) for r in mine])
        rows.append(PairingStats(pairing, counts, estimate(counts),  # type: ignore[arg-type]
                                 0.0 if test is None else test.llr(counts), incomplete))
    return rows


def format_standings(table: Sequence[Standing], records: Sequence[dict[str, Any]],
                     names: Sequence[str] = (), settings: Settings | None = None) -> str:
    width = max([11, *(len(r.name) for r in table)])
    width = min(width, 40)
    lines = [f"{'#':>2}  {'participant':<{width}}  {'games':>5} {'wins':>5} {'draws':>5} "
             f"{'losses':>6} {'forfeits':>8} {'score':>6} {'%':>5}  Elo (95%)"]
    for rank, row in enumerate(table, 1):
        share = 100 * row.score / row.games if row.games else 0.0
        elo = "" if row.rating is None else str(row.rating)
        lines.append(f"{rank:>2}  {row.name[:width]:<{width}}  {row.games:>5} {row.wins:>5} "
                     f"{row.draws:>5} {row.losses:>6} {row.forfeits:>8} {row.score:>6.1f} "
                     f"{share:>5.1f}  {elo}")
    counted = sum(scored(r) for r in records)
    abandoned = sum(r["ending"] == "abandoned" for r in records)
    unverified = sum(scored(r) and not r["verified"] for r in records)
    tail = f"{counted} games scored"
    if abandoned:
        tail += f", {abandoned} abandoned (not scored; --resume plays them again)"
    if unverified:
        tail += f", {unverified} without a verified transcript"
    lines.append(tail + ". Elo: maximum likelihood, mean 0, +/- = 95% interval.")
    if settings is not None:
        test = settings.sprt_test
        for row in pair_statistics(names, settings, records):
            lines.append(row.line(test))
    return "\n".join(lines)


CSV_FIELDS = ("game", "round", "pairing", "seat0", "seat1", "winner", "ending", "outcome",
              "reason", "transcript", "verified", "actions", "seconds")


def csv_row(record: dict[str, Any]) -> dict[str, Any]:
    winner = record["winner"] if record["winner"] is not None else (
        "" if not scored(record) else "draw")
    return {"game": record["game"], "round": record["round"],
            "pairing": " vs ".join(record["pairing"]), "seat0": record["seats"][0],
            "seat1": record["seats"][1], "winner": winner, "ending": record["ending"],
            "outcome": record["outcome"] or "", "reason": record["reason"],
            "transcript": record["transcript"] or "",
            "verified": "yes" if record["verified"] else "no",
            "actions": "" if record["actions"] is None else record["actions"],
            "seconds": record["seconds"]}


def write_results(run: Run, table: Sequence[Standing], complete: bool) -> None:
    records = [run.records[g.id] for g in run.schedule if g.id in run.records]
    test = run.settings.sprt_test
    stats = pair_statistics(run.names, run.settings, records)
    results = {"format": RESULTS_FORMAT, "complete": complete,
               "participants": run.participants, "names": run.names,
               "settings": run.settings.to_dict(),
               "standings": [row.to_dict(rank) for rank, row in enumerate(table, 1)],
               "pairings": [row.to_dict() for row in stats],
               "sprt": None if test is None else {
                   **test.to_dict(), "lower": round(test.lower, 4),
                   "upper": round(test.upper, 4),
                   "llr": round(stats[0].llr, 4) if stats else 0.0,
                   "verdict": run.verdict},
               "games": records}
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow(csv_row(record))
    try:
        write_atomically(run.folder.root / "results.json", json.dumps(results, indent=1) + "\n")
        write_atomically(run.folder.root / "results.csv", buffer.getvalue())
    except OSError as error:
        raise TournamentError(f"cannot write the results to {run.folder.root}: "
                              f"{error.strerror or error}") from None


# --- the command -------------------------------------------------------------------------------


def number_duplicates(given: Sequence[str]) -> list[str]:
    """Participants by name; the second `random` becomes `random#2` and so on (the bot is the
    name without its `#N`, see `bot_of`)."""
    names: list[str] = []
    for name in given:
        count = sum(bot_of(n) == name for n in names)
        unique = name if count == 0 else f"{name}#{count + 1}"
        if unique in names:
            raise TournamentError(f"participant {unique!r} is given twice", EXIT_USAGE)
        names.append(unique)
    return names


def participant_names(participants: Sequence[str]) -> list[str]:
    """Each participant's name: its `name=` option (with the `#N` of a repeated spec), else
    the spec as given."""
    names = []
    for participant in participants:
        base = bot_of(participant)
        try:
            given = parse_bot(base).name
        except BotError:
            given = None
        names.append(participant if given is None else given + participant[len(base):])
    return names


def check_names(participants: Sequence[str]) -> list[str]:
    names = participant_names(participants)
    for k, name in enumerate(names):
        if name in names[:k]:
            raise TournamentError(f"participant {name!r} is given twice", EXIT_USAGE)
    return names


def read_deals(path: str, game: str, rules_given: bool = False
               ) -> tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]:
    """`--deals FILE` (SPEC §8.3): a JSON list (of labels, of {"seed": label, "rules":
    {name: value}}, of positions, or of {"seed": label, "position": ...}) or text, one deal a
    line: `LABEL [NAME=VALUE ...]` or `[LABEL] {position JSON}`, `#` comments. A label is 1-64
    characters of A-Z a-z 0-9 . _ -; a position without one is labelled by its hash. A
    position becomes the game's rules with that start (`rules_for_position`), so the match
    starts there. TournamentError (one line) on any mistake."""
    from .game_options import GameOptionError, game_of, game_rules, rules_options

    def bad(why: str) -> TournamentError:
        return TournamentError(f"--deals {path}: {why}", EXIT_USAGE)

    try:
        data = read_limited(path, MAX_DEALS_FILE)
    except UnreadableFile as error:
        raise bad(str(error)) from None
    if data is None:
        raise bad(f"larger than {MAX_DEALS_FILE} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise bad("not UTF-8 text") from None
    # (line or item number, label or None, rules: NAME=VALUE pairs or a mapping, position)
    entries: list[tuple[int, str | None, Any, Any]] = []
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except (ValueError, RecursionError) as error:
            raise bad(f"not JSON: {error}") from None
        if not isinstance(items, list):
            raise bad("a JSON deal file is a list")
        for n, item in enumerate(items, 1):
            entries.append((n, *_json_deal(item, n, bad)))
    else:
        for n, line in enumerate(text.splitlines(), 1):
            brace = line.find("{")
            if brace >= 0:  # `[LABEL] {position}`: the JSON runs to the end of the line
                label = line[:brace].split()
                if len(label) > 1:
                    raise bad(f"line {n}: a position line is `[LABEL] {{...}}`, got "
                              f"{line[:brace].strip()!r:.60} before it")
                entries.append((n, label[0] if label else None, {}, line[brace:]))
                continue
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            pairs = []
            for word in words[1:]:
                name, eq, value = word.partition("=")
                if not eq or not name or not value:
                    raise bad(f"line {n}: {word!r} is not NAME=VALUE")
                pairs.append((name, value))
            entries.append((n, words[0], pairs, None))
    if not entries:
        raise bad("no deals")
    impl = game_of(game)
    deals = []
    for n, label, rules, position in entries:
        try:
            if position is not None:
                if rules_given:
                    raise GameOptionError("a start position carries its own rules: drop --rule")
                label, options = _position_deal(impl, label, position)
            else:
                options = (rules_options(impl, rules) if isinstance(rules, list)
                           else rules_options(impl, [(k, str(v)) for k, v in rules.items()]))
                game_rules(impl, options)
        except GameOptionError as error:
            raise bad(f"deal {n}: {error}") from None
        assert label is not None
        if not DEAL_LABEL.fullmatch(label):
            raise bad(f"deal {n}: label {label!r} is not 1-64 characters of A-Z a-z 0-9 . _ -")
        deals.append((label, tuple(options.items())))
    return tuple(deals)


def _json_deal(item: Any, n: int, bad: Callable[[str], TournamentError]
               ) -> tuple[str | None, Any, Any]:
    """(label, rules, position) of one item of a JSON deal file."""
    if isinstance(item, str):
        return item, {}, None
    if isinstance(item, dict) and "format" in item:  # a bare position
        return None, {}, json.dumps(item)
    if isinstance(item, dict) and isinstance(item.get("seed"), str):
        if set(item) <= {"seed", "rules"} and isinstance(item.get("rules", {}), dict):
            return item["seed"], item.get("rules", {}), None
        if set(item) == {"seed", "position"} and isinstance(item["position"], dict | str):
            position = item["position"]
            return item["seed"], {}, position if isinstance(position, str) else json.dumps(
                position)
    raise bad(f"item {n}: expected a label, {{\"seed\": ..., \"rules\": {{...}}}}, a position "
              "or {\"seed\": ..., \"position\": {...}}")


def _position_deal(game: Any, label: str | None, position: str) -> tuple[str, dict[str, Any]]:
    """A start position as a deal: its label (given, or `start-` and 12 hex digits of the
    position's canonical text) and the game's rules options with it as their start."""
    from versus.engine.api import Setup, rules_for_position
    from versus.engine.errors import EngineError

    from .game_options import GameOptionError

    try:
        rules = rules_for_position(game, position)
        options = game.rules_to_options(rules)
        # the organiser's card data must be the position's: find out now, not in every game
        game.new_game(Setup(rules, game.default_catalogue(), b"deal-check"))
    except EngineError as error:
        raise GameOptionError(f"start position: {' '.join(str(error).split())}"[:300]) from None
    if label is None:
        digest = hashlib.sha256(game.encode_rules(rules)).hexdigest()
        label = f"start-{digest[:12]}"
    return label, options


def check_participant(name: str, game: str = "versus42") -> None:
    from .bots import BotError, make_bot

    name = bot_of(name)
    try:
        make_bot(name, game=game)
    except BotError as error:
        raise TournamentError(str(error), EXIT_USAGE) from None
    except ValueError as error:
        raise TournamentError(f"bot {name!r}: {error}", EXIT_USAGE) from None
    command = parse_bot(name).command
    if command is not None:
        program = shlex.split(command)[0]
        if shutil.which(program) is None and not Path(program).is_file():
            raise TournamentError(f"bot {name!r}: program {program!r} not found", EXIT_USAGE)


def settings_from(args: argparse.Namespace, participants: Sequence[str]) -> Settings:
    from .game_options import GameOptionError, ensure_game_args

    try:
        ensure_game_args(args, "tournament")  # (done while parsing the versus command line)
    except GameOptionError as error:
        raise TournamentError(str(error), EXIT_USAGE) from None
    if len(participants) < 2:
        raise TournamentError("give at least two participants (bot names or cmd:<command>)",
                              EXIT_USAGE)
    for name in participants:
        check_participant(name, args.game)
    if args.format == "gauntlet" and args.gauntlet_champion not in (None, *participants):
        raise TournamentError(f"--gauntlet-champion {args.gauntlet_champion!r} is not one of "
                              "the participants", EXIT_USAGE)
    if args.format != "gauntlet" and args.gauntlet_champion is not None:
        raise TournamentError("--gauntlet-champion needs --format gauntlet", EXIT_USAGE)
    seed = None
    if args.seed is not None:
        try:
            seed = bytes.fromhex(args.seed).hex()
        except ValueError:
            raise TournamentError(f"--seed {args.seed!r} is not hexadecimal", EXIT_USAGE) \
                from None
        if not 1 <= len(seed) // 2 <= 32:
            raise TournamentError("--seed must be 1..32 bytes (2..64 hex digits)", EXIT_USAGE)
    champion = (args.gauntlet_champion or participants[0]) if args.format == "gauntlet" \
        else None
    paired = not args.unpaired
    if paired and args.games % 2:
        raise TournamentError(f"--games {args.games}: paired deals need an even number of "
                              "games per pairing (or give --unpaired)", EXIT_USAGE)
    sprt = None
    if args.sprt is not None:
        try:
            sprt = tuple(parse_sprt(args.sprt).to_dict().items())
        except SprtError as error:
            raise TournamentError(str(error), EXIT_USAGE) from None
        if len(participants) != 2:
            raise TournamentError(f"--sprt compares two participants; {len(participants)} "
                                  "given", EXIT_USAGE)
    deals = (read_deals(args.deals, args.game, bool(args.rules_options))
             if args.deals is not None else ())
    srand = args.srand
    if srand is None and not deals and (paired or seed is not None):
        srand = (int.from_bytes(hashlib.sha256(b"versus/v1/tournament-srand\x00"
                                               + bytes.fromhex(seed)).digest()[:4], "big")
                 if seed is not None else secrets.randbelow(1 << 32))
    if deals:
        srand = None
    return Settings(args.format, args.games, champion, args.deal, seed,
                    args.time_per_decision, args.game_timeout, args.game,
                    tuple(args.rules_options.items()), paired, srand, deals, sprt,
                    bool(args.records))


def open_run(args: argparse.Namespace, warn: Callable[[str], None]) -> Run:
    folder = Folder(Path(args.out))
    participants = number_duplicates(args.participants)
    cluster = getattr(args, "cluster", None)
    if cluster is not None:  # before anything is written: a bad address, no Dask
        from .cluster import ClusterError, parse_address, require_distributed

        try:
            parse_address(cluster)
            require_distributed()
        except ClusterError as error:
            raise TournamentError(str(error), error.status) from None
    sandbox = bool(getattr(args, "sandbox", False))
    if sandbox:  # before anything is written: no bubblewrap, no tournament
        from .bots.sandbox import SandboxUnavailable, bwrap_program

        try:
            bwrap_program()
        except SandboxUnavailable as error:
            raise TournamentError(str(error), EXIT_USAGE) from None
    if args.resume:
        if not folder.manifest.exists():
            raise TournamentError(f"--resume: {folder.manifest} does not exist; start the "
                                  "tournament without --resume")
        saved_participants, settings, schedule = read_manifest(folder)
        if participants:
            mine = settings_from(args, participants)
            if args.srand is None:  # the saved suite (perhaps a random one)
                mine = dataclasses.replace(mine, srand=settings.srand)
            here = (participants, mine)
            difference = settings_difference(here, (saved_participants, settings))
            if difference is not None:
                raise TournamentError(f"--resume: the settings differ from {folder.manifest}: "
                                      f"{difference}")
        else:
            for name in saved_participants:
                check_participant(name, settings.game)
        participants = saved_participants
        folder.prepare()
        records = load_records(folder, schedule, check_names(participants), warn)
    else:
        settings = settings_from(args, participants)
        check_names(participants)
        if folder.manifest.exists():
            raise TournamentError(f"{folder.root} already holds a tournament; add --resume to "
                                  "finish it, or choose another --out")
        folder.prepare()
        schedule = make_schedule(participants, settings)
        write_manifest(folder, participants, settings, schedule)
        records = {}
    run = Run(folder, participants, settings, schedule, records,
              concurrency=args.concurrency or os.cpu_count() or 1, max_games=args.max_games,
              rating_interval=args.rating_interval, cluster=cluster,
              task_timeout=getattr(args, "task_timeout", None), sandbox=sandbox)
    run.todo = [g for g in schedule if g.id not in records]
    return run


def cmd_tournament(args: argparse.Namespace, out: IO[str]) -> int:
    err = sys.stderr

    def warn(line: str) -> None:
        print(f"versus tournament: {line}", file=err, flush=True)

    try:
        run = open_run(args, warn)
    except TournamentError as error:
        warn(str(error))
        return error.status
    total = len(run.schedule)
    run.out = out
    if args.resume:
        warn(f"resuming: {total - len(run.todo)} of {total} games done, {len(run.todo)} to play")
    run.progress = Progress(total, total - len(run.todo), min(len(run.todo),
                                                              run.max_games or total), err)
    status = EXIT_OK
    run.progress.start()
    try:
        if run.cluster is not None:
            play_on_cluster(run)
        else:
            trio.run(play_games, run)
    except (KeyboardInterrupt, TournamentError, BaseExceptionGroup) as caught:
        run.progress.close()
        error = _first_failure(caught)
        if error is not None:
            warn(str(error))
            return error.status
        warn("interrupted")
        status = EXIT_UNFINISHED
    run.progress.close()
    records = [run.records[g.id] for g in run.schedule if g.id in run.records]
    complete = (len(records) == total or run.verdict is not None) and all(
        r["ending"] != "abandoned" for r in records)
    table = standings(run.names, run.settings, records,
                      pairings(run.participants, run.settings))
    try:
        write_results(run, table, complete)
    except TournamentError as error:
        warn(str(error))
        return error.status
    print(format_standings(table, records, run.names, run.settings), file=out)
    if run.verdict is not None:
        print(f"SPRT: {'H1' if run.verdict == 'H1' else 'H0'} accepted after "
              f"{len(records)} of {total} scheduled games; the tournament stopped there",
              file=out)
    print(f"results: {run.folder.root / 'results.json'}, {run.folder.root / 'results.csv'}",
          file=out)
    if not complete:
        left = sum(g.id not in run.records or run.records[g.id]["ending"] == "abandoned"
                   for g in run.schedule)
        warn(f"{left} of {total} games not played or abandoned; finish with: versus "
             f"tournament --resume --out {shlex.quote(str(run.folder.root))}")
        return EXIT_UNFINISHED
    if any(r["transcript"] and scored(r) and not r["verified"] for r in records):
        warn("some saved transcripts failed verification (see results.csv)")
        return EXIT_UNVERIFIED
    return status


def _first_failure(caught: BaseException) -> TournamentError | None:
    """The TournamentError inside what trio.run raised (None: an interruption); anything
    else is a bug and goes on up."""
    if isinstance(caught, TournamentError):
        return caught
    if isinstance(caught, KeyboardInterrupt):
        return None
    assert isinstance(caught, BaseExceptionGroup)
    failures = caught.subgroup(TournamentError)
    if failures is not None:
        return _first_failure(failures.exceptions[0])
    if caught.subgroup(KeyboardInterrupt) is not None:
        return None
    raise caught


def main(argv: Sequence[str] | None = None) -> int:
    from .parsers import OneLineParser

    parser = argparse.ArgumentParser(prog="versus")
    add_tournament_parser(parser.add_subparsers(dest="command", required=True,
                                                parser_class=OneLineParser))
    args = parser.parse_args(["tournament", *(argv if argv is not None else sys.argv[1:])])
    return int(args.func(args, sys.stdout))


if __name__ == "__main__":
    raise SystemExit(main())
