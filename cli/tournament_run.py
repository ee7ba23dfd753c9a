# One invocation of `versus tournament`: what to play (the schedule, the games still to do)
# and what has been recorded so far. The runner (cli/tournament.py) and the cluster path
# (cli/cluster.py) both take a game with `next_game`, play `job(game)` somewhere, and hand the
# answer to `record`, which writes the game's record, updates the progress and the SPRT, and
# prints the standings every `--rating-interval` games.
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import IO, Any

from .tournament_records import Folder, make_record, write_atomically
from .tournament_report import Progress, format_standings, pair_statistics, standings
from .tournament_schedule import (
    ScheduledGame,
    Settings,
    TournamentError,
    deal_of,
    deal_seed,
    game_seed,
    pairings,
    participant_names,
)

WORKER_GRACE_S = 20.0  # beyond the per-game limit before the runner kills a worker


@dataclass
class Run:
    """One invocation: what to play and what has been recorded so far."""

    folder: Folder
    participants: list[str]  # as given (bot specs, numbered); `names` are their names
    settings: Settings
    schedule: list[ScheduledGame]
    records: dict[str, dict[str, Any]]
    concurrency: int
    max_games: int | None = None
    progress: Progress | None = None
    started: int = 0
    todo: list[ScheduledGame] = field(default_factory=list)
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

    def job(self, game: ScheduledGame) -> dict[str, Any]:
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

    def next_game(self) -> ScheduledGame | None:
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

    def record(self, game: ScheduledGame, answer: dict[str, Any]) -> None:
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
