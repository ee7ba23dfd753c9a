# `versus tournament ... --report OUT.html` and `versus report DIR OUT.html`: a tournament as
# one page: the standings (score, Elo with its 95 % interval), each pairing's counts (the
# pentanomial of paired deals, else the trinomial) with its Elo estimate, the SPRT's
# log-likelihood ratio game by game against its two bounds when the tournament ran one (an
# inline SVG chart), and every game with its result, each opening its replay: the replays are
# sibling files in OUT's folder (`<OUT stem>-replays/<game>.html`, linked relatively, so the
# folder can be moved or shared as a whole).
#
# Everything comes from the tournament's folder (its manifest and game records, read by
# cli/tournament_records.py, which re-verifies each transcript); nothing is trusted as markup:
# the page's script writes every name and reason with textContent (cli/html/__init__.py).
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..files import UnreadableFile
from ..replay_steps import ReplayError
from ..tournament_records import Folder, load_records, read_manifest, scored
from ..tournament_report import describe_record, pair_statistics, standings
from ..tournament_schedule import Settings, TournamentError, pairings, participant_names
from ..tournament_stats import Sprt, pentanomial, trinomial
from . import asset, page

#: writes the replay page of one transcript: (transcript file, page file)
ReplayWriter = Callable[[Path, Path], None]


def sprt_path(settings: Settings, names: Sequence[str],
              records: Sequence[dict[str, Any]]) -> list[float]:
    """The SPRT's log-likelihood ratio after each scored game (paired deals: after each
    complete pair), in the order the records are given, from the first participant's side."""
    test: Sprt | None = settings.sprt_test
    if test is None or len(names) < 2:
        return []
    first, path, scores = names[0], [], []
    pending: dict[Any, float] = {}
    for record in records:
        if not scored(record):
            continue
        score = 0.5 if record["winner"] is None else float(record["winner"] == first)
        if record["pairing"][0] != first:
            score = 1.0 - score
        if settings.paired:
            key = (tuple(record["pairing"]), record.get("pair"))
            if key in pending:
                scores.append((pending.pop(key), score))
                path.append(test.llr(pentanomial(scores)))
            else:
                pending[key] = score
        else:
            scores.append(score)
            path.append(test.llr(trinomial(scores)))
    return path


def report_data(names: Sequence[str], participants: Sequence[str], settings: Settings,
                records: Sequence[dict[str, Any]], links: dict[str, str]) -> dict[str, Any]:
    """What the report page draws (see the module note)."""
    table = standings(names, settings, records, pairings(participants, settings))
    test = settings.sprt_test
    return {
        "game": settings.game, "format": settings.format, "paired": settings.paired,
        "standings": [row.to_dict(rank) for rank, row in enumerate(table, 1)],
        "pairings": [{**row.to_dict(), "estimate": str(row.estimate or "")}
                     for row in pair_statistics(names, settings, records)],
        "sprt": None if test is None else {
            "test": str(test), "lower": test.lower, "upper": test.upper,
            "path": sprt_path(settings, names, records)},
        "games": [{"id": r["game"], "text": describe_record(r).split(" ", 1)[1],
                   "seats": r["seats"],
                   "winner": r["winner"], "ending": r["ending"], "verified": r["verified"],
                   "replay": links.get(r["game"])} for r in records],
    }


def replay_folder(out: Path) -> Path:
    return out.with_name(out.stem + "-replays")


def write_report(folder_path: Path, out: Path, write_replay: ReplayWriter | None,
                 warn: Callable[[str], None]) -> Path:
    """Write the report of the tournament in `folder_path` to `out`, and each saved
    transcript's replay beside it (when `write_replay` is given); `out`."""
    folder = Folder(folder_path)
    if not folder.manifest.is_file():
        raise TournamentError(f"{folder_path} holds no tournament (no {folder.manifest.name})")
    participants, settings, schedule = read_manifest(folder)
    kept = load_records(folder, schedule, participants, warn)
    records = [kept[g.id] for g in schedule if g.id in kept]
    names = participant_names(participants)
    links: dict[str, str] = {}
    if write_replay is not None:
        replays = replay_folder(out)
        replays.mkdir(parents=True, exist_ok=True)
        for record in records:
            if not record["transcript"]:
                continue
            target = replays / f"{record['game']}.html"
            try:
                write_replay(folder.root / record["transcript"], target)
            except (OSError, ValueError, UnreadableFile, ReplayError) as error:
                warn(f"game {record['game']}: no replay ({error})")
                continue
            except Exception as error:  # the game's code on a verified transcript: its bug
                warn(f"game {record['game']}: no replay (internal error: "
                     f"{type(error).__name__}: {error})")
                continue
            links[record["game"]] = os.path.relpath(target, out.parent).replace(os.sep, "/")
    title = f"Tournament: {settings.game} {settings.format}"
    text = page(title, asset("report.html"),
                report_data(names, participants, settings, records, links),
                asset("report.js"), asset("report.css"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


__all__ = ["ReplayWriter", "replay_folder", "report_data", "sprt_path", "write_report"]
