# `versus replay --html OUT.html FILE`: a whole match (or solo run) as one self-contained page.
#
# What it shows. Step 0 is the start, step k the public scene after the k-th input (the same
# engine/scene.py Scene the terminal draws, seat None: third person, nothing hidden), with the
# game's narration of that input, the input in the game's notation, who signed the record that
# carried it and what that record proves. Buttons, a slider and the arrow keys step through;
# PageUp/PageDown jump a turn (a turn: the inputs one seat signed in a row); "Seen from" turns
# the board round to either player's side (it changes where the board is drawn from, never
# what is shown: every step is the public scene). The verdict of the verification heads the
# page; a file that fails verification is shown up to its last valid record and the failure
# is named at the step where it happened.
#
# Size. Card faces repeat from step to step, so the page keeps one table of faces and each
# card names its face by index; and a step keeps only what changed since the one before
# (`delta`: a part left out or a board cell written 0 is the previous step's), which the
# script puts back when the page loads. A typical Versus match stays under 300 KB.
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from versus.engine.scene import Board, Card, Face, Scene, Zone

from . import asset, page


@dataclass(frozen=True)
class Frame:
    """One step of a replay: the public scene after the input (None at the start), what the
    game narrates of it, who signed the record that carried it and what that record proves."""

    scene: Scene
    narration: tuple[str, ...] = ()
    input: str | None = None
    signer: int | None = None
    record: str | None = None
    proof: str = ""


@dataclass(frozen=True)
class Verdict:
    """The verification's word on the whole file: `ok`, its lines, and where it failed
    (`failed_after`: the number of frames shown before the failure, None when it did not)."""

    ok: bool
    lines: tuple[str, ...]
    failed_after: int | None = None
    failure: str = ""


class _Faces:
    """The page's one table of card faces; a card names its face by index."""

    def __init__(self) -> None:
        self.table: list[list[Any]] = []
        self._index: dict[Face, int] = {}

    def of(self, face: Face | None) -> int:
        if face is None:
            return -1
        index = self._index.get(face)
        if index is None:
            index = self._index[face] = len(self.table)
            self.table.append([face.name, face.kind, [list(p) for p in face.numbers], face.text])
        return index


def _card(card: Card, faces: _Faces) -> list[Any]:
    return [card.ref, card.label, faces.of(card.face), card.owner, list(card.status)]


def _board(board: Board, faces: _Faces) -> dict[str, Any]:
    return {"c": list(board.columns), "r": list(board.rows), "lg": board.legend,
            "cells": [[c.ref, c.shade, c.label, [_card(k, faces) for k in c.cards]]
                      for c in board.cells]}


def _zone(zone: Zone, faces: _Faces) -> list[Any]:
    return [zone.name, zone.owner, [_card(k, faces) for k in zone.cards], zone.size]


def frame_data(frame: Frame, faces: _Faces) -> dict[str, Any]:
    """One frame as the page's JSON (short keys: a replay has hundreds)."""
    s = frame.scene
    return {"t": s.title, "st": list(s.status),
            "b": None if s.board is None else _board(s.board, faces),
            "z": [_zone(z, faces) for z in s.zones], "res": s.result,
            "n": list(frame.narration), "in": frame.input, "who": frame.signer,
            "rec": frame.record, "pf": frame.proof}


#: the parts of a frame that are left out when they equal the previous frame's
CARRIED = ("t", "st", "z", "res")


def delta(previous: dict[str, Any] | None, frame: dict[str, Any]) -> dict[str, Any]:
    """`frame` without what it shares with `previous`: a part left out, or a board cell as
    0, is the previous frame's (the page's script puts them back before drawing)."""
    if previous is None:
        return frame
    out = {k: v for k, v in frame.items() if k not in CARRIED or previous.get(k) != v}
    old, new = previous.get("b"), frame.get("b")
    if old is not None and new is not None and (old["c"], old["r"], old["lg"]) == (
            new["c"], new["r"], new["lg"]):
        out["b"] = {"cells": [0 if a == b else b for a, b in zip(old["cells"], new["cells"],
                                                                 strict=True)]}
    return out


def replay_data(title: str, frames: Sequence[Frame], verdict: Verdict,
                players: Sequence[str] = ()) -> dict[str, Any]:
    faces = _Faces()
    full = [frame_data(f, faces) for f in frames]
    data = [delta(full[i - 1] if i else None, f) for i, f in enumerate(full)]
    return {"title": title, "players": list(players), "faces": faces.table, "frames": data,
            "verdict": {"ok": verdict.ok, "lines": list(verdict.lines),
                        "at": verdict.failed_after, "why": verdict.failure}}


#: what a record proves, said on every step that one carried (SPEC Part 4: a signed envelope in
#: the hash chain, the input replayed through the rules by the verifier)
PROOF = ("Proven: this seat signed the input at this place in the hash chain, and the rules "
         "accept it here (the verifier replayed it).")
#: a solo run's inputs: the player signed them; a deal is the organiser's revealed value
SOLO_PROOF = ("Proven: the player signed this input in the run's hash chain, and the rules "
              "accept it here (the verifier replayed it).")


def file_frames(data: bytes) -> tuple[list[Frame], Verdict, str]:
    """The frames of a match transcript or a solo run (cli/replay_steps.py, the public lens),
    its verdict and a title. ReplayError when nothing can be replayed."""
    from ..replay_steps import load_replay

    return replay_frames(load_replay(data))


def replay_frames(replay: Any) -> tuple[list[Frame], Verdict, str]:
    """`file_frames` of a loaded replay (cli/replay_steps.py `Replay`)."""
    frames = []
    for step in replay.steps():
        inp = replay.inputs[step.index - 1] if step.index else None
        proof = "" if inp is None or "no record" in inp.record else (
            SOLO_PROOF if inp.seat is None else PROOF)
        frames.append(Frame(step.scene, step.narration, None if inp is None else inp.text,
                            None if inp is None else inp.seat,
                            None if inp is None else inp.record, proof))
    verdict = Verdict(replay.failure is None, (replay.header, *replay.verdict),
                      None if replay.failure is None else len(frames) - 1, replay.failure or "")
    return frames, verdict, replay.game.title


def write_replay_file(transcript: Path, out: Path) -> None:
    """The replay page of the transcript or solo run file `transcript`, written to `out`
    (ValueError: over the size limit; ReplayError: nothing to replay)."""
    from versus.protocol.wire.transcript import MAX_TRANSCRIPT_SIZE

    from ..files import read_limited

    data = read_limited(str(transcript), MAX_TRANSCRIPT_SIZE)
    if data is None:
        raise ValueError(f"{transcript}: over the transcript size limit")
    frames, verdict, title = file_frames(data)
    out.write_text(replay_page(title, frames, verdict), encoding="utf-8")


def replay_page(title: str, frames: Iterable[Frame], verdict: Verdict,
                players: Sequence[str] = ()) -> str:
    """The whole replay page (see the module note)."""
    frames = list(frames)
    if not frames:
        raise ValueError("a replay needs at least its start")
    return page(title, asset("replay.html"), replay_data(title, frames, verdict, players),
                asset("replay.js"), asset("replay.css"))


__all__ = ["PROOF", "SOLO_PROOF", "Frame", "Verdict", "delta", "file_frames", "frame_data",
           "replay_data", "replay_frames", "replay_page", "write_replay_file"]
