# The Dask executor (cli/cluster.py) against a real LocalCluster on 127.0.0.1: the same seeded
# tournament gives the same records and standings as the process pool; a worker killed
# mid-tournament loses no game and counts none twice; `verify --cluster` prints what the local
# path prints; without `distributed`, `--cluster` is one line naming the extra, exit 2; a task
# over its time limit (--task-timeout) is abandoned with that reason, not waited for.
# `distributed` is in the `test` extra, so these run in CI; where it is missing they skip and
# say so.
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from versus.cli.main import main as versus_main

distributed = pytest.importorskip(
    "distributed", reason="Dask distributed is not installed (pip install -e '.[test]')")

GAMES = ["--games", "6", "--seed", "c1"]


def versus(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = versus_main(list(argv))
    except SystemExit as exit_info:
        status = int(exit_info.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def games_of(folder: Path) -> list[dict[str, Any]]:
    """The game records without the timings (which differ from run to run)."""
    games = json.loads((folder / "results.json").read_text())["games"]
    return [{k: v for k, v in g.items() if k not in ("seconds", "setup_seconds")}
            for g in games]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=50) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded tournament on the process pool (the local path)."""
    out = tmp_path_factory.mktemp("pool")
    assert versus_main(["tournament", "random", "random:name=r2", *GAMES, "--concurrency",
                        "2", "--out", str(out / "t")]) == 0
    return out / "t"


def test_local_cluster_gives_the_process_pool_results(
        tmp_path: Path, baseline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = versus(capsys, "tournament", "random", "random:name=r2", *GAMES,
                            "--cluster", "local:2", "--out", str(tmp_path / "t"))
    assert status == 0
    assert games_of(tmp_path / "t") == games_of(baseline)
    results = json.loads((tmp_path / "t" / "results.json").read_text())
    pool = json.loads((baseline / "results.json").read_text())
    assert results["standings"] == pool["standings"] and results["pairings"] == pool["pairings"]
    for game in results["games"]:
        assert game["verified"] and (tmp_path / "t" / game["transcript"]).read_bytes() == (
            baseline / game["transcript"]).read_bytes()


def test_a_killed_worker_loses_no_game_and_counts_none_twice(
        tmp_path: Path, baseline: Path, cluster: str) -> None:
    out = tmp_path / "t"
    status: list[int] = []
    runner = threading.Thread(target=lambda: status.append(versus_main(
        ["tournament", "random", "random:name=r2", *GAMES, "--cluster", cluster,
         "--out", str(out)])))
    with distributed.Client(cluster, timeout="10s") as client:
        pids = client.run(os.getpid)  # worker address -> pid
        runner.start()
        deadline = time.monotonic() + 20
        busy: list[str] = []
        while time.monotonic() < deadline and not busy:
            if list((out / "games").glob("*.json")):  # mid-tournament: a game recorded,
                busy = [w for w, tasks in client.processing().items() if tasks]  # others on
            time.sleep(0.01)
        assert busy, "no worker had a game in flight after the first game was recorded"
        os.kill(pids[busy[0]], signal.SIGKILL)  # its games in flight are lost with it
        runner.join(60)
    assert not runner.is_alive() and status == [0]
    games = games_of(out)
    assert [g["game"] for g in games] == [g["game"] for g in games_of(baseline)]
    assert all(g["ending"] != "abandoned" and g["verified"] for g in games)
    assert games == games_of(baseline)  # replayed games are the same games, counted once
    standings = json.loads((out / "results.json").read_text())["standings"]
    assert sum(row["games"] for row in standings) == 2 * 6


def test_verify_on_the_cluster_prints_what_the_local_path_prints(
        baseline: Path, cluster: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.vtr"
    data = bytearray((baseline / "games" / "p0-p1-001.vtr").read_bytes())
    data[-5] ^= 1
    bad.write_bytes(bytes(data))
    files = [*sorted(str(p) for p in (baseline / "games").glob("*.vtr"))[:3], str(bad),
             str(tmp_path / "missing.vtr")]
    local = versus(capsys, "verify", *files)
    remote = versus(capsys, "verify", "--cluster", cluster, *files)
    assert remote == local and local[0] == 2 and "3 of 5 transcripts valid" in local[1]
    local_json = versus(capsys, "verify", "--json", *files)
    assert versus(capsys, "verify", "--json", "--cluster", cluster, *files) == local_json


def test_without_distributed_cluster_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    status, _, err = versus(capsys, "tournament", "random", "random", "--cluster", "local:2",
                            "--out", str(tmp_path / "t"))
    assert status == 2 and err.count("\n") == 1
    assert "pip install 'versus-p2p[cluster]'" in err and not (tmp_path / "t").exists()
    status, _, err = versus(capsys, "verify", "--cluster", "local:2", "x.vtr")
    assert status == 2 and err.count("\n") == 1 and "versus-p2p[cluster]" in err
    status, _, err = versus(capsys, "tournament", "random", "random", "--cluster", "nowhere",
                            "--out", str(tmp_path / "t"))
    assert status == 2 and "expected tcp://HOST:PORT" in err


# --- a task's time limit (--task-timeout) ------------------------------------------------------

# A bot that says ready, then thinks for a minute on its first decision.
HUNG = """
import json, sys, time
for line in sys.stdin:
    if json.loads(line)["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "hung"}), flush=True)
    else:
        time.sleep(60)
"""


def test_a_task_over_its_time_limit_is_abandoned_with_the_reason(
        tmp_path: Path, cluster: str, capsys: pytest.CaptureFixture[str]) -> None:
    # before: a task had no time limit: the organiser waited for it as long as it ran
    bot = tmp_path / "hung.py"
    bot.write_text(HUNG)
    started = time.monotonic()
    status, _, err = versus(capsys, "tournament", "random", f"cmd:{sys.executable} {bot}",
                            "--games", "1", "--unpaired", "--time-per-decision", "50000",
                            "--game-timeout", "100", "--task-timeout", "2",
                            "--cluster", cluster, "--out", str(tmp_path / "t"))
    assert time.monotonic() - started < 20
    assert status == 3, err  # unfinished: the game is abandoned, --resume plays it again
    (game,) = games_of(tmp_path / "t")
    assert game["ending"] == "abandoned"
    assert game["reason"] == "the game's task exceeded its time limit of 2 s (--task-timeout)"


STUCK = threading.Event()


def _stuck_task(job: dict[str, Any], limit: float | None = None) -> dict[str, Any]:
    """A task whose worker is stuck beyond what the task's own limit can cancel."""
    STUCK.wait(30)
    return {"abandoned": True, "reason": "released", "game": job["game"]}


def test_the_organiser_gives_up_a_stuck_task_without_waiting_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from versus.cli import cluster as cluster_module

    monkeypatch.setattr("versus.cli.tournament_worker.play_inline", _stuck_task)
    monkeypatch.setattr(cluster_module, "BACKSTOP_SLACK_S", 0.5)
    STUCK.clear()
    # in this process (threads), so the stuck task is the one patched in here
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address="127.0.0.1:0", silence_logs=50) as local:
        try:
            started = time.monotonic()
            status, _, err = versus(capsys, "tournament", "random", "random:name=r2",
                                    "--games", "1", "--unpaired", "--task-timeout", "1",
                                    "--cluster", local.scheduler_address,
                                    "--out", str(tmp_path / "t"))
            assert time.monotonic() - started < 15
        finally:
            STUCK.set()
    assert status == 3, err
    (game,) = games_of(tmp_path / "t")
    assert game["ending"] == "abandoned"
    assert game["reason"] == ("its cluster task did not answer within 2.5 s (the task's time "
                              "limit is 1 s, --task-timeout): its worker is stuck or gone")


# --- what the organiser believes of a worker's answer (cli/cluster.py accept) ------------------


class _Folder:
    def __init__(self, root: Path) -> None:
        self.root = root

    def transcript_path(self, game: Any) -> Path:
        return self.root / f"{game}.vtr"

    def record_text_path(self, game: Any) -> Path:
        return self.root / f"{game}.txt"


class _Run:
    """What accept reads of a tournament run: the job (its seed fixes the players' keys)."""

    def __init__(self, root: Path, seed: str | None) -> None:
        self.folder, self.records, self.seed = _Folder(root), {}, seed

    def job(self, game: Any) -> dict[str, Any]:
        return {"game_id": "versus42", "seed": self.seed, "deal_seed": None}


@pytest.fixture(scope="module")
def demo_transcript(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = tmp_path_factory.mktemp("demo")
    assert versus_main(["demo", "--deal", "decklist", "--seed", "5eed", "--quiet",
                        "--out", str(out)]) == 0
    return next(out.glob("*/transcript.vtr")).read_bytes()


@pytest.mark.parametrize("answer", [
    "not a dict",
    {"winner_seat": 5, "ending": "game", "seconds": "x"},  # before: IndexError in make_record
    {"winner_seat": 0, "ending": "forfeit", "forfeit_seat": 1},  # before: scored, unverified
    {"winner_seat": 0, "ending": "game", "transcript_bytes": b"garbage"},
])
def test_an_answer_the_organiser_cannot_check_is_abandoned(tmp_path: Path, answer: Any) -> None:
    from versus.cli.cluster import accept

    record = accept(_Run(tmp_path, "aa"), "g1", answer)  # type: ignore[arg-type]
    assert record["abandoned"] is True and record["transcript"] is None, record
    assert list(tmp_path.iterdir()) == []


def test_an_answer_the_organiser_s_verifier_fails_on_is_abandoned(
        tmp_path: Path, demo_transcript: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the verifier raises on a worker's bytes, accept() records the game abandoned
    (replayed on --resume) instead of raising."""
    from versus.cli.cluster import accept
    from versus.protocol.match import verify

    monkeypatch.setattr(verify, "verify_transcript", lambda data: {}["boom"])
    answer = {"winner_seat": 0, "ending": "game", "transcript_bytes": demo_transcript}
    record = accept(_Run(tmp_path, None), "g1", answer)  # type: ignore[arg-type]
    assert record["abandoned"] is True and "KeyError" in record["reason"], record
    assert list(tmp_path.iterdir()) == []


def test_the_result_is_read_from_the_transcript_not_from_the_worker(
        tmp_path: Path, demo_transcript: bytes) -> None:
    from versus.cli.cluster import accept
    from versus.protocol.match.verify import verify_transcript

    truth = verify_transcript(demo_transcript).summary["result"]
    lie = {"winner_seat": 1 - truth["winner"], "ending": "timeout",
           "transcript_bytes": demo_transcript}
    record = accept(_Run(tmp_path, None), "g1", lie)  # type: ignore[arg-type]
    assert record["verified"] and record["winner_seat"] == truth["winner"]
    assert record["ending"] == truth["ending"]
    # a seeded game must show the keys its seed derives: this transcript is another game's
    other = accept(_Run(tmp_path, "aa"), "g2", dict(lie))  # type: ignore[arg-type]
    assert other["abandoned"] and "other players' keys" in other["reason"]
