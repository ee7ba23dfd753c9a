# The interface between the terminal UI and a match, and an in-process implementation of it.
#
# `MatchClient` is what the UI talks to. It lives on trio (the network does): its coroutines
# (`run`, `submit`, `resign`, `leave`, `wait_changed`) must be awaited inside the trio run, while
# its plain getters (`view()`, `legal_actions()`, `clocks()`, `connection()`, `log_lines()`,
# `result`) only read memory and may be called from anywhere on the same thread; the UI calls
# them from asyncio while trio runs as a guest of the same loop (see cli/ui/bridge.py).
# The network session (p2p) implements the same protocol later; `run()` is where it connects,
# plays and resumes.
#
# `LocalMatchClient` plays against a bot in-process through the engine's full-information
# `Referee`: deals and reveals come from a random full assignment (`random_deal`), the opponent
# answers its turn actions and choices with a chooser `(PlayerView, list[Action]) -> Action`
# (default: `random_chooser`), and every step is turned into log lines by `engine.narrate`. It
# is what the UI tests drive and what `python -m versus.cli.ui` (and later `versus play --offline`)
# runs. Its seed comes from `secrets` unless one is given (then a game is reproducible).
from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

import trio

from versus.engine import EngineError, HashRng, IllegalActionError
from versus.engine.versus42 import (
    Action,
    Catalogue,
    ChoiceDecision,
    PlayerView,
    Referee,
    Ruleset,
    State,
    TurnDecision,
    default_catalogue,
    legal_actions,
    random_chooser,
    random_deal,
    step,
)
from versus.engine.versus42.narrate import narrate

Chooser = Callable[[PlayerView, list[Action]], Action]
MAX_LOG_LINES = 2000  # the UI shows the tail; a long game stays well under this


class Connection(Enum):
    CONNECTING = "connecting"  # no match yet: inviting, dialling, handshake, setting up
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"  # the link is down; resume is possible until `deadline`
    CLOSED = "closed"  # the session is over (see `reason`)


@dataclass(frozen=True, slots=True)
class ConnectionStatus:
    state: Connection
    reason: str = ""  # one line, shown as is
    deadline: float | None = None  # RECONNECTING: time.monotonic() at which resume gives up

    def __post_init__(self) -> None:
        if "\n" in self.reason:
            raise ValueError("a connection reason is one line")
        if (self.state is Connection.RECONNECTING) != (self.deadline is not None):
            raise ValueError("a deadline is given exactly when reconnecting")


@dataclass(frozen=True, slots=True)
class ClockState:
    """Remaining thinking time per seat as of `as_of` (time.monotonic()); `running` is the
    seat whose clock runs (None: both stopped)."""

    remaining_ms: tuple[int, int]
    running: int | None
    as_of: float

    def now_ms(self, seat: int, now: float | None = None) -> int:
        """The remaining time of `seat` at `now`, counting down the running clock."""
        left = self.remaining_ms[seat]
        if self.running == seat:
            elapsed = (time.monotonic() if now is None else now) - self.as_of
            left -= int(elapsed * 1000)
        return max(0, left)


class EndReason(Enum):
    GAME = "game"  # the engine's result (see `MatchResult.game`)
    RESIGNATION = "resignation"
    TIME = "time"  # a clock ran out (a signed claim by the waiting side)
    DISPUTE = "dispute"  # a timeout claim the accused's own clock contradicted: no winner
    ABANDONED = "abandoned"  # the opponent left or never came back
    FAULT = "fault"  # a protocol fault: `winner` is the seat that was not blamed


@dataclass(frozen=True, slots=True)
class MatchResult:
    winner: int | None  # None: a draw (a fault: no seat was blamed)
    reason: EndReason
    detail: str = ""  # e.g. the engine outcome ("elimination"); a fault: its reason
    evidence: str = ""  # a fault: where the signed evidence is (the transcript's path)

    def describe(self, seat: int) -> str:
        if self.reason is EndReason.FAULT:
            return describe_fault(self.winner, seat, self.detail, self.evidence)
        how = self.detail or self.reason.value
        if self.reason is EndReason.DISPUTE:
            return f"no winner: the timeout claim is disputed ({how})"
        if self.winner is None and self.reason is EndReason.TIME:
            return f"no winner ({how})"
        if self.winner is None:
            return f"a draw ({how})"
        return f"{'you win' if self.winner == seat else 'the opponent wins'} ({how})"


def describe_fault(winner: int | None, seat: int, reason: str, evidence: str) -> str:
    """One line on a match stopped by a protocol fault (the UI's game-over and the CLI's
    summary say the same): who broke the protocol, why, and where the evidence is."""
    saved = f"; evidence saved in {evidence}" if evidence else ""
    if winner == seat:
        return f"the opponent broke the protocol: {reason}; you win{saved}"
    if winner is None:
        return f"the match stopped on a protocol fault: {reason}{saved}"
    return f"the opponent reports that this side broke the protocol: {reason}{saved}"


@runtime_checkable
class MatchClient(Protocol):
    """What the terminal UI needs from a match (local or networked)."""

    @property
    def seat(self) -> int: ...  # 0 or 1

    @property
    def opponent_fingerprint(self) -> str: ...  # short, printable, one line

    @property
    def catalogue(self) -> Catalogue: ...  # the match's (public) card pool

    @property
    def result(self) -> MatchResult | None: ...

    @property
    def match_started(self) -> bool: ...  # False: view() is a placeholder (no layout yet)

    def view(self) -> PlayerView: ...
    def legal_actions(self) -> list[Action]: ...  # [] unless this seat decides now
    def clocks(self) -> ClockState | None: ...  # None: untimed
    def connection(self) -> ConnectionStatus: ...
    def log_lines(self) -> list[str]: ...  # oldest first

    async def run(self) -> None: ...  # drive the match; returns when it is over or left
    async def submit(self, action: Action) -> None: ...  # IllegalActionError if not legal
    async def resign(self) -> None: ...
    async def leave(self) -> None: ...  # stop playing here (a network match may be resumed)
    async def wait_changed(self) -> None: ...  # returns once anything above changed


class LocalMatchClient:
    """A match against an in-process bot; see the module comment."""

    def __init__(self, *, seat: int = 0, chooser: Chooser | None = None,
                 seed: bytes | None = None, ruleset: Ruleset | None = None,
                 catalogue: Catalogue | None = None, clock_ms: int | None = None,
                 opponent_delay: float = 0.0, bot_name: str = "random") -> None:
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        self.seed = seed if seed is not None else secrets.token_bytes(16)
        self.ruleset = ruleset or Ruleset()
        catalogue = self._catalogue = catalogue or default_catalogue()
        ids, orders = random_deal(catalogue, self.ruleset, HashRng(self.seed, "local-deal"))
        bot = chooser or random_chooser(HashRng(self.seed, "local-bot"))
        choosers: list[Chooser] = [bot, bot]
        choosers[seat] = self._my_chooser
        self._seat = seat
        self._ref = Referee(self.ruleset, catalogue, self.seed, ids, orders,
                            (choosers[0], choosers[1]))
        self._bot_name = bot_name
        self._submitted: Action | None = None
        self._log: list[str] = [f"Local match against the {bot_name} bot; you are player "
                                f"{seat}, player {self._ref.state.first} plays first"]
        self._changed = trio.Event()
        self._my_turn = trio.Event()
        self._result: MatchResult | None = None
        self._status = ConnectionStatus(Connection.CONNECTED, "local match")
        self.opponent_delay = opponent_delay
        self._clock_ms = clock_ms
        self._remaining = [clock_ms or 0, clock_ms or 0]
        self._running: int | None = None
        self._since = time.monotonic()

    # --- getters (plain reads; safe from the UI thread) ---------------------------------
    @property
    def seat(self) -> int:
        return self._seat

    @property
    def opponent_fingerprint(self) -> str:
        return f"local:{self._bot_name}-bot"

    @property
    def catalogue(self) -> Catalogue:
        return self._catalogue

    @property
    def result(self) -> MatchResult | None:
        return self._result

    @property
    def match_started(self) -> bool:
        return True  # the deal is local: the field exists from the start

    @property
    def referee(self) -> Referee:
        """The full-information referee (tests and bots only: the UI must use `view()`)."""
        return self._ref

    def view(self) -> PlayerView:
        return self._ref.view(self._seat)

    def legal_actions(self) -> list[Action]:
        if self._result is not None:
            return []
        return self.view().legal_actions

    def clocks(self) -> ClockState | None:
        if self._clock_ms is None:
            return None
        return ClockState((self._remaining[0], self._remaining[1]), self._running, self._since)

    def connection(self) -> ConnectionStatus:
        return self._status

    def log_lines(self) -> list[str]:
        return list(self._log)

    def set_connection(self, status: ConnectionStatus) -> None:
        """Pretend a connection change (a local match has none): for tests and demos."""
        self._status = status
        self._notify()

    # --- trio side --------------------------------------------------------------------------
    async def wait_changed(self) -> None:
        await self._changed.wait()

    async def run(self) -> None:
        """Answer deals, reveals and the bot's decisions until the game ends or is left."""
        while self._result is None and self._status.state is not Connection.CLOSED:
            if self._decider() == self._seat:
                self._start_clock(self._seat)
                await self._wait_for_me()
                continue
            if self._decider() is not None:  # the bot thinks (its clock runs, visibly)
                self._start_clock(1 - self._seat)
                await trio.sleep(self.opponent_delay)
            else:
                await trio.sleep(0)
            self._advance()
        self._start_clock(None)

    async def submit(self, action: Action) -> None:
        if self._result is not None:
            raise IllegalActionError(f"illegal input {str(action)!r}: the match is over")
        if self._decider() != self._seat:
            raise IllegalActionError(f"illegal input {str(action)!r}: it is not your decision")
        self._submitted = action
        try:
            self._advance()  # raises IllegalActionError/MalformedActionError; state unchanged
        finally:
            self._submitted = None
        self._my_turn.set()
        await trio.sleep(0)

    async def resign(self) -> None:
        if self._result is None:
            self._log.append("You resigned")
            self._finish(MatchResult(1 - self._seat, EndReason.RESIGNATION))

    async def leave(self) -> None:
        if self._status.state is not Connection.CLOSED:
            self._log.append("You left the match")
            self._status = ConnectionStatus(Connection.CLOSED, "you left the match")
            self._start_clock(None)
            self._my_turn.set()
            self._notify()

    # --- internals --------------------------------------------------------------------------
    def _my_chooser(self, view: PlayerView, legal: list[Action]) -> Action:
        assert self._submitted is not None, "the referee asked the UI seat without an action"
        return self._submitted

    def _decider(self) -> int | None:
        d = self._ref.state.pending
        if isinstance(d, TurnDecision | ChoiceDecision):
            return d.player
        return None

    async def _wait_for_me(self) -> None:
        self._my_turn = trio.Event()
        if self._clock_ms is None:
            await self._my_turn.wait()
            return
        with trio.move_on_after(self._remaining[self._seat] / 1000):
            await self._my_turn.wait()
            return
        self._remaining[self._seat] = 0
        self._log.append("Your clock ran out")
        self._finish(MatchResult(1 - self._seat, EndReason.TIME))

    def _start_clock(self, seat: int | None) -> None:
        now = time.monotonic()
        if self._running is not None:
            spent = int((now - self._since) * 1000)
            self._remaining[self._running] = max(0, self._remaining[self._running] - spent)
        self._running, self._since = (seat if self._clock_ms is not None else None), now

    def _advance(self) -> None:
        before = self._ref.state
        decided = before.pending
        if self._submitted is not None:
            _check_legal(before, self._submitted)
        inp = self._ref.advance()
        self._log.extend(narrate(before, inp, self._ref.state, self._seat,
                                 self._ref.knowledge[self._seat]))
        del self._log[:-MAX_LOG_LINES]
        r = self._ref.state.result
        if r is not None:
            self._finish(MatchResult(r.winner, EndReason.GAME, r.outcome))
        elif decided is not None:
            self._notify()

    def _finish(self, result: MatchResult) -> None:
        self._result = result
        self._start_clock(None)
        self._my_turn.set()
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()


def _check_legal(state: State, action: Action) -> None:
    """Raise IllegalActionError unless `action` is legal: the engine's own message when it has
    one (it names the reason, e.g. "z9 is not an area of the field (a1–e4)"), a plain one
    otherwise. The engine validates an action before it touches anything hidden, so this also
    works on a player's own (partial-information) state."""
    if action in legal_actions(state):
        return
    try:
        step(state, action)
    except EngineError:
        raise
    except Exception:  # a state without the hidden cards: no better reason
        pass
    raise IllegalActionError(f"illegal input {str(action)!r} at {state.position()}: not a "
                             "legal action now")


check_legal = _check_legal
