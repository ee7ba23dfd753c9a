# The MatchClient (cli/client.py) of a solo run (SPEC Part 11): the terminal UI on top of the
# one function that plays and signs a run, protocol/solo/run.py `play`, for any one-seat game.
#
# How it works. `play` is synchronous: it asks a chooser for every TURN and CHOICE, and its
# reveals may wait on the organiser's service (a blocking socket, cli/solo_service.py). So the
# run is played in a worker thread (`trio.to_thread.run_sync`), and the chooser it is given
# hands each question over to trio (`trio.from_thread.run`) and waits there for the line the
# person enters in the UI (`submit`). Each applied input comes back the same way (`on_step`):
# the state the scene is drawn from, and the game's narration of the step for the log. All of
# the client's own fields are written on the trio thread only, so the UI's getters read them
# without locks, as for the other clients.
#
# Knowledge. A solo game keeps what the player learns in its state (the reveals are inputs),
# so the scene is asked with a fresh `new_knowledge(0)`. Resigning is not a solo run's move:
# the Ctrl-C menu offers leaving, which ends the run unfinished (nothing is written).
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio

from versus.engine import IllegalActionError
from versus.engine.api import Finished, rules_text, scene_of
from versus.engine.scene import Scene

from .client import (
    MAX_LOG_LINES,
    ClockState,
    Connection,
    ConnectionStatus,
    EndReason,
    MatchResult,
    one_line,
    parse_legal,
)

#: plays the run: (chooser(game, state, legal), on_step(before, input, after)) -> (run, state)
RunFunction = Callable[[Callable[..., Any], Callable[[Any, Any, Any], None]], tuple[Any, Any]]


class LeftTheRun(Exception):
    """The person left the run before its end: `play` stops (nothing is signed further)."""


class SoloClient:
    """A solo run in the UI; see the module comment."""

    def __init__(self, game: Any, rules: Any, run: RunFunction) -> None:
        self.game, self.rules, self._run = game, rules, run
        self._knowledge = game.new_knowledge(0)
        self._state: Any = None
        self._legal: list[Any] = []
        self._answer: Any = None
        self._answered = trio.Event()
        self._changed = trio.Event()
        self._log: list[str] = [f"Solo run of {game.title}"]
        self._status = ConnectionStatus(Connection.CONNECTING, "starting the run")
        self._result: MatchResult | None = None
        self._left = False
        self._steps = 0
        self._scene: tuple[int, Scene] | None = None
        self.record: Any = None  # the signed run, once it is over
        self.final_state: Any = None
        self.error: BaseException | None = None  # why the run could not be played

    # --- getters ------------------------------------------------------------------------------
    seat = 0
    players = 1
    opponent_fingerprint = "none (solo)"
    can_resign = False
    leave_words = "leave (the run ends unfinished: nothing is written)"

    @property
    def title(self) -> str:
        return str(self.game.title)

    @property
    def result(self) -> MatchResult | None:
        return self._result

    @property
    def match_started(self) -> bool:
        return self._state is not None

    def scene(self) -> Scene:
        if self._state is None:
            return Scene(title=self.title, seat=0, status=("starting the run…",))
        if self._scene is None or self._scene[0] != self._steps:
            self._scene = (self._steps, scene_of(self.game, self._state, 0, self._knowledge))
        return self._scene[1]

    def inputs(self) -> list[str]:
        if self._result is not None or self._answered.is_set():
            return []
        return [self.game.format_input(i) for i in self._legal]

    def decision_key(self) -> bytes:
        return b"%d" % self._steps

    def rules_text(self) -> str:
        return rules_text(self.game, self.rules)

    def clocks(self) -> ClockState | None:
        return None

    def connection(self) -> ConnectionStatus:
        return self._status

    def log_lines(self) -> list[str]:
        return list(self._log)

    # --- trio side ----------------------------------------------------------------------------
    async def wait_changed(self) -> None:
        await self._changed.wait()

    async def run(self) -> None:
        token = trio.lowlevel.current_trio_token()

        def choose(game: Any, state: Any, legal: list[Any]) -> Any:
            return trio.from_thread.run(self._ask, state, legal, trio_token=token)

        def on_step(before: Any, inp: Any, after: Any) -> None:
            trio.from_thread.run_sync(self._stepped, before, inp, after, trio_token=token)

        self._status = ConnectionStatus(Connection.CONNECTED, "solo run")
        try:
            self.record, self.final_state = await trio.to_thread.run_sync(
                self._run, choose, on_step, abandon_on_cancel=True)
        except LeftTheRun:
            self._status = ConnectionStatus(Connection.CLOSED, "you left the run")
        except Exception as error:  # shown as one line; the command reports it too
            self.error = error
            self._log.append(f"Error: {one_line(error)}")
            self._status = ConnectionStatus(Connection.CLOSED, one_line(error))
        else:
            d = self.game.decision(self.final_state)
            assert isinstance(d, Finished)
            score = self.game.score(self.final_state)
            self._result = MatchResult(d.winner, EndReason.GAME, f"{d.outcome}, score {score}",
                                       players=1)
            self._status = ConnectionStatus(Connection.CLOSED, "the run is over")
        self._notify()

    async def submit(self, line: str) -> None:
        if self._result is not None or not self._legal or self._answered.is_set():
            raise IllegalActionError(f"{line.strip()}: it is not your decision now")
        self._answer = parse_legal(self.game, line, self._legal)
        self._answered.set()
        await trio.sleep(0)

    async def resign(self) -> None:
        raise IllegalActionError("a solo run cannot be resigned: leave it instead")

    async def leave(self) -> None:
        self._left = True
        self._log.append("You left the run")
        self._status = ConnectionStatus(Connection.CLOSED, "you left the run")
        self._answered.set()
        self._notify()

    # --- internals (trio thread) --------------------------------------------------------------
    async def _ask(self, state: Any, legal: list[Any]) -> Any:
        self._state, self._legal = state, list(legal)
        self._answered = trio.Event()
        self._notify()
        await self._answered.wait()
        self._legal = []
        if self._left:
            raise LeftTheRun("the player left the run")
        return self._answer

    def _stepped(self, before: Any, inp: Any, after: Any) -> None:
        if self._state is None:
            self._log.extend(self.game.narrate_start(before, 0))
        self._state = after
        self._steps += 1
        self._log.extend(self.game.narrate(before, inp, after, 0, self._knowledge))
        del self._log[:-MAX_LOG_LINES]
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
