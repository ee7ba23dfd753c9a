# A tournament's folder on disk: the manifest DIR/tournament.json (participants, settings,
# schedule) and one record per finished game, DIR/games/<game>.json, written atomically
# (temporary file + rename) the moment the game ends. A record is the game's only result:
# `--resume` reloads the records, re-verifies each saved transcript, and plays only the games
# without a valid one (`load_records`).
from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from versus.protocol.match import Ending
from versus.protocol.match.verify import verify_transcript

from .files import UnreadableFile, read_limited
from .tournament_schedule import (
    ScheduledGame,
    Settings,
    TournamentError,
    make_schedule,
)

MANIFEST_FORMAT = "versus-tournament/1"
#: how a game can end: the match endings, and the two only a tournament has
ENDINGS = (*(ending.value for ending in Ending), "forfeit", "abandoned")
MAX_RECORD_FILE = 1 << 20
MAX_MANIFEST_FILE = 16 << 20


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

    def record_path(self, game: ScheduledGame) -> Path:
        return self.games / f"{game.id}.json"

    def transcript_path(self, game: ScheduledGame) -> Path:
        return self.games / f"{game.id}.vtr"

    def record_text_path(self, game: ScheduledGame) -> Path:
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
                   schedule: Sequence[ScheduledGame]) -> None:
    manifest = {"format": MANIFEST_FORMAT, "participants": list(participants),
                "settings": settings.to_dict(), "schedule": [g.to_dict() for g in schedule]}
    try:
        write_atomically(folder.manifest, json.dumps(manifest, indent=1) + "\n")
    except OSError as error:
        raise TournamentError(f"cannot write {folder.manifest}: "
                              f"{error.strerror or error}") from None


def read_manifest(folder: Folder) -> tuple[list[str], Settings, list[ScheduledGame]]:
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
        if "paired" not in data["settings"]:  # a manifest from before paired deals
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


def make_record(game: ScheduledGame, participants: Sequence[str], answer: dict[str, Any],
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


def check_record(record: Any, game: ScheduledGame, participants: Sequence[str],
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


def load_records(folder: Folder, schedule: Sequence[ScheduledGame], participants: Sequence[str],
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
