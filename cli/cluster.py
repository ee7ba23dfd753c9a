# Tournaments and audits past one machine: a Dask distributed executor (`--cluster ADDR` of
# `versus tournament` and `versus verify`, SPEC §8.3 "Cluster"), an optional extra
# (`pip install 'versus-p2p[cluster]'`).
#
# How it works. ADDR is a scheduler (`tcp://HOST:8786`: workers started elsewhere with
# `dask worker tcp://HOST:8786`, each with versus-p2p installed), or `local:N`, a LocalCluster
# of N worker processes on 127.0.0.1 (one thread each, no dashboard) that lives as long as the
# command. Each game is one task, `tournament_worker.play_inline(job)`: both peers play in the
# worker's process, over TCP on that machine's loopback, exactly as a local worker process
# plays them, and the task returns the game's record with the transcript's bytes (and the text
# record's text) instead of writing files. The organiser (this process) keeps a bounded number
# of tasks in flight (twice the cluster's threads), and for each answer verifies the transcript
# itself (`verify_transcript`) and reads the result from it, not from the worker's record;
# the transcript must show this game's players (keys derived from the job's seed) and game;
# an answer without a transcript it can check is recorded abandoned. It writes the transcript
# and the record atomically and keeps the resume file as the local path does (`Run.record`);
# so a result counts once, when the organiser records it.
#
# Trust. The cluster is trusted, like the machines of a process pool: Dask moves results as
# pickles, so a hostile scheduler or worker could run code in this process, and the two games
# of a paired deal share keys (a worker could swap them). The organiser's checks catch bugs,
# crashes and corruption, not an attacker: use `tls://` with Dask's security settings on a
# network you do not control.
#
# Lost workers. A task whose worker dies is rescheduled by Dask on another worker (up to the
# scheduler's `allowed-failures`); if Dask gives up (KilledWorker), or the task fails in any
# other way (a result lost with its worker: play_inline itself never raises), the organiser
# submits the game again, up to RESUBMITS times, then records it abandoned (`--resume`). A
# game is recorded once: an answer for a game already recorded is dropped. Games are
# deterministic under `--seed`, so a replayed game is the same game.
#
# Time limit. Every task has one (`Run.task_limit`: --task-timeout, by default the per-game
# limit plus the local worker's grace). The task keeps it itself (play_inline cancels its game
# and answers it abandoned with that reason); and since a stuck worker can keep no limit, the
# organiser gives a task up `backstop(limit)` after submitting it: it cancels the future and
# records the game abandoned, never waits on it forever, and does not submit it again.
#
# `versus verify --cluster` sends each file's bytes to a task that runs the same check as the
# local path (`verify_cmd.verify_on_cluster` submits `verify_cmd.verify_data` through
# `open_client`; this module knows nothing of verification) and prints the verdicts in order.
from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tournament_run import Run
    from .tournament_schedule import ScheduledGame

INSTALL_HINT = "pip install 'versus-p2p[cluster]'"
RESUBMITS = 2
BACKSTOP_SLACK_S = 10.0  # see backstop()
TASK_RETRIES = 1  # a task that raises (it should not: play_inline catches) runs once more
#: the workers of `local:N`: no statistical profiler (it samples the game's thread every
#: 10 ms) and a slow event-loop tick; either costs the game's thread the GIL (a game took
#: 22 % longer in a default worker, bench/tournament.py). For `dask worker` elsewhere:
#: DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL=1s
WORKER_CONFIG = {"distributed.worker.profile.enabled": False,
                 "distributed.admin.tick.interval": "1s"}
LOCAL = re.compile(r"local:([1-9][0-9]{0,2})")
ADDRESS = re.compile(r"(tcp|tls|inproc|ucx|ws|wss)://\S+")


class ClusterError(Exception):
    """A one-line failure of the cluster path; `status` is the exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ClusterAddress:
    """`local:N` (workers > 0) or a scheduler address."""

    scheduler: str | None
    workers: int = 0


def parse_address(text: str) -> ClusterAddress:
    if match := LOCAL.fullmatch(text):
        return ClusterAddress(None, int(match.group(1)))
    if ADDRESS.fullmatch(text):
        return ClusterAddress(text)
    raise ClusterError(f"--cluster {text!r}: expected tcp://HOST:PORT (a Dask scheduler) or "
                       "local:N (N worker processes on this machine, 1-999)", 2)


def require_distributed() -> Any:
    """The `distributed` module, or a one-line ClusterError (exit 2) naming the extra."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs Dask distributed, which is not installed: "
                           f"{INSTALL_HINT}", 2) from None
    return distributed


@contextlib.contextmanager
def open_client(text: str) -> Iterator[Any]:
    """A distributed.Client on ADDR (a LocalCluster for `local:N`, closed on the way out)."""
    address = parse_address(text)
    distributed = require_distributed()
    with contextlib.ExitStack() as stack:
        try:
            if address.scheduler is None:
                import dask

                stack.enter_context(dask.config.set(WORKER_CONFIG))
                cluster = stack.enter_context(distributed.LocalCluster(
                    n_workers=address.workers, threads_per_worker=1, processes=True,
                    # (the scheduler's HTTP server starts even without a dashboard,
                    # dask/distributed#7207: a free loopback port, never a fixed 8787)
                    host="127.0.0.1", dashboard_address="127.0.0.1:0",
                    silence_logs=logging.CRITICAL))
                client = stack.enter_context(distributed.Client(cluster))
            else:
                client = stack.enter_context(distributed.Client(address.scheduler,
                                                                timeout="10s"))
        except (OSError, TimeoutError, RuntimeError) as error:  # (LocalCluster: RuntimeError)
            raise ClusterError(f"--cluster {text}: cannot reach the cluster: "
                               f"{error}"[:300]) from None
        yield client


def threads(client: Any) -> int:
    return max(1, sum(client.nthreads().values()))


# --- tournaments -------------------------------------------------------------------------------


MAX_ANSWER_TEXT = 300  # a reason or check name from a worker, cut and made printable
MAX_TRANSCRIPT = 64 << 20  # a transcript's bytes from a worker


def expected_fingerprints(job: dict[str, Any]) -> list[str] | None:
    """The two players' fingerprints a seeded game must show (the worker derives the
    identities from the job's seed, tournament_worker.play_job); None: fresh keys, unknown."""
    from versus.protocol.crypto.identity import Identity, fingerprint

    from .tournament_worker import derive

    seed = job.get("deal_seed") or job.get("seed")
    if not seed:
        return None
    return [fingerprint(Identity.generate(derive(bytes.fromhex(seed), f"identity-{seat}"))
                        .public_key) for seat in (0, 1)]


def _abandoned(reason: str) -> dict[str, Any]:
    return {"abandoned": True, "reason": reason, "transcript": None}


def accept(run: Run, game: ScheduledGame, answer: Any) -> dict[str, Any]:
    """What the organiser records of a cluster answer. Nothing a worker says about the result
    is taken: the result (ending, winner, outcome) is read from the transcript the organiser
    verifies itself, which must be this job's game (its players' keys, derived from the job's
    seed, and its game id). (The two games of a paired deal share keys and match id, so a
    worker could still swap them: the cluster is trusted, see the module comment.) An answer
    without a
    checkable transcript (a worker-side forfeit or timeout, a malformed answer) is recorded
    abandoned, so `--resume` plays the game again."""
    from versus.protocol.match.verify import verify_transcript
    from versus.protocol.wire.text import printable

    from .tournament_worker import write_atomically

    if not isinstance(answer, dict):
        return _abandoned(f"the worker answered a {type(answer).__name__}, not a record")
    reason = printable(str(answer.get("reason") or ""), MAX_ANSWER_TEXT)
    data, text = answer.get("transcript_bytes"), answer.get("record_text")
    if answer.get("abandoned"):
        return _abandoned(reason or "abandoned on the worker")
    if not isinstance(data, bytes) or not 0 < len(data) <= MAX_TRANSCRIPT:
        return _abandoned("the worker's answer has no transcript the organiser can verify"
                          + (f" ({reason})" if reason else ""))
    try:
        report = verify_transcript(data)
    except Exception as error:  # the verifier gives verdicts, but a worker's bytes are untrusted
        return _abandoned(printable(f"the organiser's verifier failed on the worker's "
                                    f"transcript: {type(error).__name__}: {error}",
                                    MAX_ANSWER_TEXT))
    summary = report.summary
    result = summary.get("result") or {}
    job = run.job(game)
    expected = expected_fingerprints(job)
    match_id = summary.get("match_id")
    if expected is not None and summary.get("players") != expected:
        return _abandoned("the worker's transcript is not this game's (other players' keys)")
    if (summary.get("rules") or {}).get("game") not in (None, job["game_id"]):
        return _abandoned("the worker's transcript is of another game")
    winner = result.get("winner")
    forfeit = answer.get("forfeit_seat")
    forfeited = (forfeit in (0, 1) and winner == 1 - forfeit
                 and result.get("ending") == "resignation")  # a forfeit is a resignation
    record: dict[str, Any] = {
        "abandoned": False, "winner_seat": winner if winner in (0, 1) else None,
        "ending": "forfeit" if forfeited else result.get("ending", "abandoned"),
        "outcome": result.get("outcome"), "forfeit_seat": forfeit if forfeited else None,
        "reason": reason, "verified": bool(report.ok and result),
        "check": report.check, "actions": summary.get("actions"),
        "fingerprints": summary.get("players"), "match_id": match_id,
        "seconds": _finite(answer.get("seconds")),
        "setup_seconds": _finite(answer.get("setup_seconds")),
    }
    if not record["verified"]:  # counted only once verified here (replayed on --resume)
        return _abandoned(printable(f"the worker's transcript failed verification: "
                                    f"{report.check}: {report.message}", MAX_ANSWER_TEXT))
    path = run.folder.transcript_path(game)
    write_atomically(path, data)
    record["transcript"] = str(path.resolve())
    if isinstance(text, str):
        written = run.folder.record_text_path(game)
        write_atomically(written, text.encode()[:MAX_TRANSCRIPT])
        record["record"] = str(written.resolve())
    return record


def _finite(value: Any) -> float:
    """A duration a worker reports (only shown): a finite number >= 0, else 0."""
    return float(value) if isinstance(value, int | float) and 0 <= value < 1e9 else 0.0


def run_on_cluster(run: Run) -> None:
    """Play `run.todo` on the cluster `run.cluster` (see the module comment)."""
    from .tournament_worker import play_inline

    assert run.cluster is not None
    limit = run.task_limit
    with open_client(run.cluster) as client:
        distributed = require_distributed()
        window = 2 * threads(client)
        #: future -> (game, submissions, due)
        flight: dict[Any, tuple[ScheduledGame, int, float]] = {}
        settled = threading.Event()  # set by a future's callback when it is done

        def submit(game: ScheduledGame, tries: int) -> None:
            future = client.submit(play_inline, run.job(game), limit, retries=TASK_RETRIES,
                                   pure=False, key=f"versus-game-{game.id}-{os.urandom(6).hex()}")
            flight[future] = (game, tries, time.monotonic() + backstop(limit))
            future.add_done_callback(lambda _: settled.set())

        def top_up() -> None:
            while len(flight) < window and (game := run.next_game()) is not None:
                submit(game, 1)

        top_up()
        while flight:
            due = min(entry[2] for entry in flight.values())
            settled.wait(max(0.0, due - time.monotonic()))
            settled.clear()  # (a future done from here on is seen now or sets it again)
            now = time.monotonic()
            for future in [f for f, entry in flight.items() if f.done() or entry[2] <= now]:
                game, tries, _ = flight.pop(future)
                if game.id in run.records and run.records[game.id]["ending"] != "abandoned":
                    future.release()
                    continue  # recorded already: never counted twice
                answer = _answer(future, game, tries, limit, submit, distributed)
                future.release()
                if answer is not None:  # (None: submitted again)
                    run.record(game, accept(run, game, answer))
            top_up()


def backstop(limit: float) -> float:
    """How long after its submission the organiser gives a task up: the task keeps its own
    `limit` (play_inline), but it may first wait in the queue behind one task (the window is
    twice the threads), and a worker can be stuck beyond what the task's limit can cancel."""
    return 2 * limit + BACKSTOP_SLACK_S


def _answer(future: Any, game: ScheduledGame, tries: int, limit: float, submit: Any,
            distributed: Any) -> dict[str, Any] | None:
    """The answer of a settled task (None: the game was submitted again)."""
    if not future.done():
        future.cancel()  # (a running task cannot be stopped: its thread stays busy)
        return {"abandoned": True,
                "reason": f"its cluster task did not answer within {backstop(limit):g} s "
                          f"(the task's time limit is {limit:g} s, --task-timeout): its "
                          "worker is stuck or gone"}
    try:
        return future.result()  # type: ignore[no-any-return]
    except Exception as error:  # KilledWorker, a lost result, a task that raised:
        # never the game's own failure (play_inline answers those), so play it again
        if tries <= RESUBMITS:
            submit(game, tries + 1)
            return None
        why = (f"its worker died {tries} times" if isinstance(
            error, distributed.KilledWorker) else "the cluster task failed")
        return {"abandoned": True, "reason": f"{why}: {type(error).__name__}: {error}"[:300]}


def worker_pids(client: Any) -> list[int]:
    """The process ids of the cluster's workers (tests kill one)."""
    return list(client.run(os.getpid).values())

