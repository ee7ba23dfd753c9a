# `versus tournament`: bots (built-in or external programs) play each other in real
# peer-to-peer matches, many at once, and the standings come out with Elo ratings (SPEC §8.3).
#
# The parts: cli/tournament_schedule.py (settings, schedule, deals, names),
# cli/tournament_records.py (the manifest and the per-game records on disk),
# cli/tournament_report.py (progress, standings, CSV rows), cli/tournament_run.py (one
# invocation's state, shared with the cluster path), cli/tournament_worker.py (one game);
# this module runs the workers and is the command.
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
# Games: every game of a tournament is of the game `--game` names (default
# versus42), under the rules its `--rule NAME=VALUE` options make (the manifest keeps both, so
# `--resume` plays the same game); its participants must be bots that play it (`random` plays
# every game, external `cmd:` bots every two-player game; greedy and ismcts play Versus and
# the games that have their own, cli/bots/registry.py), and its default deal is decklist
# for Versus, shared-pool for another game (cli/game_options.py).
#
# Paired deals, deal suites, SPRT. By default every deal is played twice with the
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
import secrets
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, ClassVar

import trio

from versus.p2p.session import open_nursery

from .bots.registry import parse_bot
from .html.replay import write_replay_file
from .html.report import write_report
from .parsers import add_tournament_parser
from .tournament_records import (
    Folder,
    load_records,
    read_manifest,
    scored,
    settings_difference,
    write_atomically,
    write_manifest,
)
from .tournament_report import (
    CSV_FIELDS,
    RESULTS_FORMAT,
    Progress,
    Standing,
    csv_row,
    format_standings,
    pair_statistics,
    standings,
)
from .tournament_run import Run
from .tournament_schedule import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNFINISHED,
    EXIT_UNVERIFIED,
    EXIT_USAGE,
    Settings,
    TournamentError,
    make_schedule,
    number_duplicates,
    pairings,
    participant_names,
    read_deals,
)
from .tournament_stats import SprtError, parse_sprt
from .tournament_worker import bot_of

WORKER_START_S = 60.0
WORKER_TERM_GRACE_S = 2.0  # after SIGTERM, for a worker to end its bots, before SIGKILL
MAX_WORKER_LINE = 1 << 20
STDERR_KEEP = 8192
ROOT = Path(__file__).resolve().parent.parent


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


def check_names(participants: Sequence[str]) -> list[str]:
    names = participant_names(participants)
    for k, name in enumerate(names):
        if name in names[:k]:
            raise TournamentError(f"participant {name!r} is given twice", EXIT_USAGE)
    return names


def check_participant(name: str, game: str) -> None:
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
    if args.report is not None:
        try:
            report = write_report(run.folder.root, Path(args.report), write_replay_file, warn)
        except (OSError, TournamentError) as error:
            warn(f"no report: {error}")
            return EXIT_ERROR if isinstance(error, OSError) else error.status
        print(f"report: {report}", file=out)
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
