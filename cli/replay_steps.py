# The steps of a replay, for any game and any file `versus verify` reads: a match transcript
# (protocol/match/verify.py `replay_inputs`) or a solo run (protocol/solo/run.py `replay_run`).
# `versus replay` prints or browses them; an HTML replay reuses `replay_steps`.
#
# How it works. The file is verified, and the same pass hands over the game's start and the
# inputs it applied in order, each with the record that carried it, so nothing is re-parsed here.
# `load_replay` steps the game through them once and keeps every state: step 0 is the start,
# step k the state after the k-th input, so moving back is an index, not an undo. A file that
# fails verification (a forged record, a transcript left incomplete by quitting a game) is
# replayed up to its last valid input, and the failure is said after it, naming its record.
#
# What a step shows is the game's own scene and narration (engine/scene.py, Game.narrate), the
# shell never knowing the game. A lens picks the viewer: the public (the default: `scene_of(
# game, state, None, None)`, narration to viewer None, third person, public information only)
# or, once the end-of-match reveals made both decks public, "as seat k": what seat k knew then,
# its own dealt cards (each step says which card it dealt to whom), told as the game tells that
# seat. There is no "everything revealed" lens: a game's scene shows a seat the opponent's
# hidden cards through no interface, and a lens the game does not draw would be the shell
# drawing the game.
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from versus.engine.api import Finished, Pending, Setup, scene_of
from versus.engine.scene import Scene, player_name
from versus.protocol.solo import is_run
from versus.protocol.wire.text import printable

#: how much of one narration line or of a failure a replay shows
SHOWN = 2000


class ReplayError(Exception):
    """A file that cannot be replayed at all (it fails before its game starts), one line."""


@dataclass(frozen=True)
class Input:
    """The k-th input of the file: its notation, the seat or player that sent it (None: a solo
    run's), the record that carried it as words, and the card it dealt to its owner."""

    value: Any
    text: str
    seat: int | None
    record: str
    drawn: tuple[int, int] | None = None


@dataclass(frozen=True)
class Step:
    """What a replay shows at step `index` through one lens: the scene, what happened (the
    narration of the input that led here; the start's at step 0), the record that carried it
    and the input ("record 7, seat 0 seq 5: end"; "" at step 0). `failure`: the file's
    failure, on its last step only."""

    index: int
    scene: Scene
    narration: tuple[str, ...]
    record: str
    failure: str | None = None


@dataclass
class Replay:
    """Every state of a file's game and the inputs between them (see the module comment)."""

    game: Any
    header: str
    rules_text: str
    states: list[Any]
    inputs: list[Input]
    failure: str | None = None  # the verification's failure line, after the last step
    identities: dict[int, str] | None = None  # every card of both decks, once revealed
    verdict: tuple[str, ...] = ()  # the verification's report, line by line

    @property
    def last(self) -> int:
        return len(self.states) - 1

    @property
    def lenses(self) -> tuple[int | None, ...]:
        """None (the public) first, then each seat when the reveals let it be shown."""
        if self.identities is None or self.game.players < 2:
            return (None,)
        return (None, *range(self.game.players))

    def lens_for(self, wanted: str | None) -> int | None:
        """The lens `--view` names ("public", "all", "0", "1"); the public one when that seat's
        knowledge is not in the file."""
        if wanted is None or not wanted.isdigit():
            return None
        seat = int(wanted)
        return seat if seat in self.lenses else None

    # --- what one step shows -------------------------------------------------------------

    def knowledge(self, seat: int, k: int) -> Any:
        """What `seat` privately knew at step k: the cards dealt to it up to then."""
        knowledge = self.game.new_knowledge(seat)
        known = self.identities or {}
        for inp in self.inputs[:k]:
            if inp.drawn is not None and inp.drawn[0] == seat and inp.drawn[1] in known:
                knowledge.learn(inp.drawn[1], known[inp.drawn[1]])
        return knowledge

    def scene(self, k: int, lens: int | None = None) -> Scene:
        knowledge = None if lens is None else self.knowledge(lens, k)
        return scene_of(self.game, self.states[k], lens, knowledge)  # type: ignore[no-any-return]

    def narration(self, k: int, lens: int | None = None) -> tuple[str, ...]:
        game = self.game
        if k == 0:
            lines = _told(lens is None, game.narrate_start, self.states[0], lens)
        else:
            knowledge = None if lens is None else self.knowledge(lens, k)
            lines = _told(lens is None, game.narrate, self.states[k - 1],
                          self.inputs[k - 1].value, self.states[k], lens, knowledge)
        return tuple(printable(line, SHOWN) for line in lines)

    def step(self, k: int, lens: int | None = None) -> Step:
        record = "" if k == 0 else f"{self.inputs[k - 1].record}: {self.inputs[k - 1].text}"
        return Step(k, self.scene(k, lens), self.narration(k, lens), record,
                    self.failure if k == self.last else None)

    def steps(self, lens: int | None = None, only: int | None = None) -> Iterator[Step]:
        for k in range(self.last + 1) if only is None else (only,):
            yield self.step(k, lens)

    # --- turns ---------------------------------------------------------------------------

    def turn_starts(self) -> list[int]:
        """The steps where a turn starts: where the player deciding turn actions changes."""
        starts, last = [0], None
        for k, state in enumerate(self.states):
            d = self.game.decision(state)
            if isinstance(d, Pending) and d.kind.value == "turn":
                if last is not None and d.player != last:
                    starts.append(k)
                last = d.player
        return starts

    def next_turn(self, k: int) -> int:
        return next((s for s in self.turn_starts() if s > k), self.last)

    def previous_turn(self, k: int) -> int:
        """The start of this turn, or of the previous one when already there."""
        return max((s for s in self.turn_starts() if s < k), default=0)

    def ending(self) -> str | None:
        """The game's result in a line (None: the game did not end)."""
        decision = self.game.decision(self.states[-1])
        if not isinstance(decision, Finished):
            return None
        result = self.scene(self.last).result
        if result:
            return printable(result, SHOWN)
        who = ("a draw" if decision.winner is None
               else f"{player_name(decision.winner, None)} wins")
        return f"{who} ({printable(decision.outcome, 40)})"


def _told(public: bool, member: Any, *args: Any) -> list[str]:
    """A narration member called for a lens. A game whose narration does not take the public
    viewer (None) says nothing rather than speak to a seat ("you") in a public replay."""
    try:
        return list(member(*args))
    except (TypeError, AttributeError, ValueError, KeyError, IndexError):
        if public:  # what a narration written for a seat raises on viewer None
            return []
        raise


def replay_steps(data: bytes, lens: int | None = None) -> Iterator[Step]:
    """Every step of the file `data` through `lens` (None: the public): index, scene,
    narration and record, the failure on the last. ReplayError when nothing can be replayed."""
    yield from load_replay(data).steps(lens)


def load_replay(data: bytes, catalogue: Any = None) -> Replay:
    """The replay of a match transcript or a solo run (see the module comment)."""
    if is_run(data):
        return _run_replay(data)
    return _match_replay(data, catalogue)


# --- a match transcript ----------------------------------------------------------------------


def _match_replay(data: bytes, catalogue: Any) -> Replay:
    from versus.protocol.match.verify import replay_inputs

    replay = replay_inputs(data, catalogue)
    report = replay.report
    failure = None if report.ok else report.describe().splitlines()[0]
    if replay.rules is None or replay.setup_seed is None:
        raise ReplayError(failure or "the transcript ends before the game started")
    game = replay.rules.game_impl
    states = [game.new_game(Setup(replay.rules.ruleset, replay.catalogue, replay.setup_seed))]
    inputs = []
    for step in replay.inputs:
        states.append(game.step(states[-1], step.input))
        inputs.append(Input(step.input, printable(step.text, 200), step.seat,
                            f"record {step.record} (seat {step.seat}, seq {step.seq})",
                            step.drawn))
    return Replay(game, _match_header(report.summary), printable(replay.rules.describe(), 300),
                  states, inputs, failure, replay.identities, _verdict(report))


def _verdict(report: Any) -> tuple[str, ...]:
    return tuple(printable(line, SHOWN) for line in report.describe().splitlines())


def _match_header(s: dict[str, Any]) -> str:
    players = ", ".join(f"{player_name(i, None)} (seat {i}) {fp}"
                        for i, fp in enumerate(s.get("players", [])))
    result = s.get("result")
    if result is None:
        outcome = "no result"
    else:
        winner = result["winner"]
        who = "no winner" if winner is None else f"{player_name(winner, None)} wins"
        outcome = (f"{who} "
                   f"({result['outcome'] or result['ending']})")
    return printable(f"{s.get('deal_mode', '?')} match {s.get('match_id', '?')[:16]}…  "
                     f"{players}  {outcome}", 400)


# --- a solo run ------------------------------------------------------------------------------


def _run_replay(data: bytes) -> Replay:
    from versus.protocol.solo.run import replay_run

    replay = replay_run(data)
    report = replay.report
    failure = None if report.ok else report.describe().splitlines()[0]
    if replay.game is None or replay.start is None:
        raise ReplayError(failure or "the run ends before its game started")
    game = replay.game
    states, inputs = [replay.start], []
    for step in replay.steps:
        states.append(game.step(states[-1], step.input))
        where = "deal (no record)" if step.record is None else f"record {step.record}"
        inputs.append(Input(step.input, printable(step.text, 200), None, where))
    s = report.summary
    header = printable(f"solo run of challenge {s.get('challenge', '?')} ({s.get('game', '?')})"
                       f"  player {s.get('player', '?')}", 400)
    return Replay(game, header, printable(s.get("rules", ""), 300), states, inputs, failure,
                  verdict=_verdict(report))


def step_lines(step: Step, last: int, width: int = 80) -> list[str]:
    """One step as plain text: its head line (step, record, input), the narration, the scene
    drawn by engine/scene.py, and the failure where the file stops being valid."""
    import textwrap

    from versus.engine.scene import scene_lines

    def wrapped(text: str, indent: str = "") -> list[str]:
        return textwrap.wrap(text, width, initial_indent=indent,
                             subsequent_indent=indent + "  ") or [indent]

    lines = wrapped(f"step {step.index}/{last}" + (f", {step.record}" if step.record else ""))
    for line in step.narration:
        lines += wrapped(line, "  ")
    lines += scene_lines(step.scene, width)
    if step.failure is not None:
        lines += wrapped(f"the file stops being valid here: {step.failure}")
    return lines


__all__ = ["Input", "Replay", "ReplayError", "Step", "load_replay",
           "replay_steps", "step_lines"]
