# What a tournament tells: the progress line per game (on stderr, in place on a terminal),
# the standings (games, wins, draws, losses, forfeits, score, Elo with its 95 % interval from
# cli/tournament_elo.py, and per pairing the pair statistics and the SPRT of
# cli/tournament_stats.py), and the rows of DIR/results.csv. Reads records, writes nothing.
from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from .tournament_elo import Rating, ratings
from .tournament_records import scored
from .tournament_schedule import Settings, pairings
from .tournament_stats import (
    PENTA_LABELS,
    TRI_LABELS,
    Estimate,
    Sprt,
    estimate,
    pentanomial,
    trinomial,
)

RESULTS_FORMAT = "versus-tournament-results/1"


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
        unit = "pair" if len(self.counts) == 5 else "game"
        head = (f"{self.pairing[0]} vs {self.pairing[1]}: {plural(sum(self.counts), unit)} "
                f"[{counts}]")
        if self.incomplete:
            head += f" ({plural(self.incomplete, 'incomplete pair')} not counted)"
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


def plural(count: int, noun: str) -> str:
    """"1 pair", "2 pairs": a count with its noun."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


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
    tail = f"{plural(counted, 'game')} scored"
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
