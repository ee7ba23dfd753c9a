# The networked MatchClient (cli/client.py): the terminal UI on top of a p2p MatchSession.
#
# The UI needs a client before any network exists, so `NetMatchClient` is built around a
# *connector*: a coroutine that `run()` awaits, which connects (host, join or loopback),
# creates the session, hands it over with `attach`, and runs it to the end. It reads only the
# session's public members (state, rules, knowledge, legal actions, log, clock) and asks the
# game for our seat's scene (`api.scene_of`): it never names a game. Until the match starts
# `match_started` is False and the scene is a placeholder saying so; the log says what we are
# waiting for, and only leaving is offered (resigning needs a match).
#
# The getters are called from the UI's asyncio side, outside any trio task, so they must not
# read trio's clock: clocks and the resume deadline are converted to time.monotonic() inside
# trio whenever the session changes (`_refresh`), and the getters only return those snapshots.
from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from versus.engine import IllegalActionError
from versus.engine.api import rules_text, scene_of
from versus.engine.scene import Scene
from versus.p2p.session import LinkState, MatchSession, SessionOutcome, open_nursery
from versus.protocol.errors import LocalProtocolError
from versus.protocol.match import Ending
from versus.protocol.match import MatchResult as ProtocolResult

from .client import (
    ClockState,
    Connection,
    ConnectionStatus,
    EndReason,
    MatchResult,
    parse_legal,
    seat_words,
)

Connector = Callable[["NetMatchClient"], Awaitable[SessionOutcome | None]]

_ENDINGS = {Ending.GAME: EndReason.GAME, Ending.RESIGNATION: EndReason.RESIGNATION,
            Ending.TIMEOUT: EndReason.TIME, Ending.DISPUTE: EndReason.DISPUTE,
            Ending.FAULT: EndReason.FAULT}


def client_result(result: ProtocolResult | None, session: MatchSession | None = None
                  ) -> MatchResult | None:
    """The UI's result type for a protocol MatchResult. A fault names no winner in the
    protocol; the UI's winner is the seat its EVIDENCE did not blame (from `session`)."""
    if result is None:
        return None
    if result.ending is Ending.FAULT and session is not None:
        blamed, reason = session.fault()
        winner = None if blamed is None else 1 - blamed
        path = session.transcript_path
        return MatchResult(winner, EndReason.FAULT, _one_line(reason),
                           "" if path is None else str(path))
    detail = result.outcome if result.outcome is not None else result.detail
    return MatchResult(result.winner, _ENDINGS[result.ending], detail[:200])


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


class NetMatchClient:
    """A MatchClient over a MatchSession (see the module comment)."""

    def __init__(self, connector: Connector, *, seat: int, game: Any = None,
                 waiting: str = "connecting", resumable: bool = True) -> None:
        self._connector = connector
        self._resumable = resumable  # host and join: a match left may be resumed
        self._seat = seat
        self._game = game  # the game to be played, when known before the session exists
        self.session: MatchSession | None = None
        self._log: list[str] = [waiting]
        self._changed = trio.Event()
        self._status = ConnectionStatus(Connection.CONNECTING, _one_line(waiting))
        self._clocks: ClockState | None = None
        self._closed_reason = ""
        self._scene: tuple[Any, Scene] | None = None
        self.outcome: SessionOutcome | None = None

    # --- wiring ---------------------------------------------------------------------------------

    def attach(self, session: MatchSession) -> None:
        """Called by the connector once the session exists (inside trio)."""
        self.session = session
        self._refresh()

    def note(self, line: str) -> None:
        """A line for the log before the session exists (e.g. the invite to share)."""
        self._log.append(_one_line(line))
        self._status = ConnectionStatus(Connection.CONNECTING, _one_line(line))
        self._notify()

    # --- getters (plain reads) ------------------------------------------------------------------

    @property
    def seat(self) -> int:
        return self._seat

    @property
    def opponent_fingerprint(self) -> str:
        s = self.session
        return (s.peer_fingerprint if s is not None and s.peer_fingerprint else "?")[:40]

    @property
    def game(self) -> Any:
        s = self.session
        return s.game if s is not None else self._game

    @property
    def players(self) -> int:
        game = self.game
        return 2 if game is None else int(game.players)

    @property
    def title(self) -> str:
        game = self.game
        return "a match" if game is None else str(game.title)

    @property
    def result(self) -> MatchResult | None:
        return (None if self.session is None
                else client_result(self.session.result, self.session))

    @property
    def match_started(self) -> bool:
        s = self.session
        return s is not None and s.state is not None

    @property
    def can_resign(self) -> bool:
        """Resigning is signed into the match: there must be one, still being played (while
        a host waits for a joiner, or the setup runs, only leaving works)."""
        s = self.session
        return self.match_started and s is not None and s.result is None and not s.done

    @property
    def leave_words(self) -> str:
        if not self.match_started:
            return "leave (stop before the match starts)"
        if not self._resumable:
            return "leave (the match ends unfinished: it cannot be resumed)"
        return "leave (resume it later with --resume)"

    def scene(self) -> Scene:
        s = self.session
        if s is None or s.state is None:
            return Scene(title=self.title, seat=self._seat,
                         status=("waiting for the match: the log says what happens",))
        key = (s.state, s.result)
        if self._scene is None or self._scene[0] != key:
            self._scene = (key, scene_of(s.game, s.state, self._seat, s.knowledge))
        return self._scene[1]

    def inputs(self) -> list[str]:
        s = self.session  # not s.legal_actions(): that reads trio's clock, not callable here
        if s is None:
            return []
        return [s.game.format_input(a) for a in s.legal_actions_untimed()]

    def decision_key(self) -> bytes:
        s = self.session
        if s is None or s.state is None:
            return b""
        return bytes(s.game.state_hash(s.state))

    def rules_text(self) -> str:
        s = self.session
        if s is None:
            return "The rules are shown once the match has started."
        return rules_text(s.game, s.rules.ruleset)

    def clocks(self) -> ClockState | None:
        return self._clocks

    def connection(self) -> ConnectionStatus:
        return self._status

    def log_lines(self) -> list[str]:
        return self._log + ([] if self.session is None else self.session.log)

    # --- trio side ------------------------------------------------------------------------------

    async def wait_changed(self) -> None:
        await self._changed.wait()

    async def run(self) -> None:
        try:
            async with open_nursery() as nursery:
                nursery.start_soon(self._follow)
                self.outcome = await self._connector(self)
                nursery.cancel_scope.cancel()
        except Exception as error:  # shown in the UI as one line, never a traceback
            self._closed_reason = _one_line(str(error) or type(error).__name__)
            self._log.append(f"Error: {self._closed_reason}")
        except BaseExceptionGroup as group:
            # The UI closed (it cancels the trio run) while a task failed, e.g. the opponent's
            # side of a match we just left: the cancellation goes on alone, without the failure,
            # or the command would report trio's "cancelled" instead of the match's outcome.
            cancelled, rest = group.split(trio.Cancelled)
            if cancelled is None or (rest is not None and not isinstance(rest, Exception)):
                raise
            raise cancelled from None
        self._refresh(final=True)

    async def submit(self, line: str) -> None:
        s = self.session
        typed = " ".join(line.split())
        if s is None or s.state is None:
            raise IllegalActionError(f"{typed}: the match has not started")
        if s.result is not None:
            raise IllegalActionError(f"{typed}: the match is over")
        if not s.legal_actions():
            why = ("your clock has run out" if s.own_time_out() else
                   "it is not your decision")
            raise IllegalActionError(f"{typed}: {why}")
        action = parse_legal(s.game, typed, s.legal_actions(), s.state)
        try:
            await s.submit(action)
        except LocalProtocolError as error:
            raise IllegalActionError(f"{typed}: {error}") from None

    async def resign(self) -> None:
        if self.session is not None and self.session.result is None:
            try:
                await self.session.resign()
            except LocalProtocolError as error:
                self._log.append(_one_line(f"Cannot resign: {error}"))
                self._notify()

    async def leave(self) -> None:
        if self.session is not None:  # the command line says whether it can be resumed
            await self.session.leave("you left the match")
        else:  # an error that ended the run stays the reason shown
            self._closed_reason = self._closed_reason or "you left before the match started"
            self._refresh(final=True)

    # --- internals ------------------------------------------------------------------------------

    async def _follow(self) -> None:
        while True:
            if self.session is None:
                await self._changed.wait()
                continue
            await self.session.wait_changed()
            self._refresh()

    def _refresh(self, final: bool = False) -> None:
        s = self.session
        now_trio, now_mono = (trio.current_time(), time.monotonic())
        if s is not None:
            clock = s.clock()
            if clock is not None:
                left, running, mark = clock
                self._clocks = ClockState(left, running, now_mono - (now_trio - mark / 1000))
            status = s.status
            if status.state is LinkState.RECONNECTING and not final and s.result is None:
                deadline = now_mono + max(0.0, (status.deadline or now_trio) - now_trio)
                self._status = ConnectionStatus(Connection.RECONNECTING,
                                                _one_line(status.reason), deadline)
            elif status.state is LinkState.CLOSED or final:
                # (the session's "match over: seat 1 wins ..." said to our seat, as the
                # end screen says it)
                self._status = ConnectionStatus(
                    Connection.CLOSED, _one_line(self._closed_reason or seat_words(
                        status.reason, s.seat) or "session closed"))
            elif s.state is None:
                self._status = ConnectionStatus(Connection.CONNECTING, _one_line(
                    f"{status.reason or 'connected'}: setting up the match (coin toss, deal)"))
            elif status.state is LinkState.CONNECTING:
                self._status = ConnectionStatus(Connection.CONNECTING, _one_line(
                    status.reason or "match restored from disk: reconnecting to the opponent"))
            else:
                self._status = ConnectionStatus(Connection.CONNECTED, _one_line(
                    status.reason or status.state.value))
        elif final:
            self._status = ConnectionStatus(Connection.CLOSED,
                                            self._closed_reason or "session closed")
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
