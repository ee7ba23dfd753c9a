# The interface between the terminal UI and a match of any game, and an in-process
# implementation of it against a bot.
#
# `MatchClient` is what the UI talks to: scenes and input lines, never a game's own types. It
# lives on trio (the network does): its coroutines (`run`, `submit`, `resign`, `leave`,
# `wait_changed`) must be awaited inside the trio run, while its plain getters (`scene()`,
# `inputs()`, `clocks()`, `connection()`, `log_lines()`, `result`, ...) only read memory and may
# be called from anywhere on the same thread; the UI calls them from asyncio while trio runs as
# a guest of the same loop (cli/ui/bridge.py). The scene is the game's own description of what
# our seat sees (engine/scene.py, asked through `api.scene_of`), the inputs its legal input
# lines, the log its narration (`Game.narrate`) of every step.
#
# `LocalMatchClient` plays any registered game against a bot in-process, with the one
# full-information referee loop (engine/referee_loop.py LocalPlay): deals from the game's local
# deal, chance from a seeded stream, the bot (one of cli/bots, by name) answering the other
# seats. A one-seat game (a solo game) has no bot. It is what the UI tests drive and what
# `python -m versus.cli.ui --game ID` runs. Its seed comes from `secrets` unless one is given.
from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, runtime_checkable

import trio

from versus.engine import EngineError, IllegalActionError
from versus.engine.api import DecisionKind, Finished, Pending, Setup, rules_text, scene_of
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import get_game
from versus.engine.scene import Scene

MAX_LOG_LINES = 2000  # the UI shows the tail; a long game stays well under this
#: a bot of the local client: (its seat's view, the legal inputs) -> one of them
Chooser = Callable[[Any, list[Any]], Any]


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

    remaining_ms: tuple[int, ...]
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
    GAME = "game"  # the engine's result (see `MatchResult.detail`)
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
    players: int = 2  # one: a solo run (won or lost, no opponent)

    def describe(self, seat: int) -> str:
        if self.reason is EndReason.FAULT:
            return describe_fault(self.winner, seat, self.detail, self.evidence)
        how = seat_words(self.detail, seat) or self.reason.value
        if self.reason is EndReason.GAME:
            how = outcome_words(how)
        if self.reason is EndReason.DISPUTE:
            return f"no winner: the timeout claim is disputed ({how})"
        if self.players == 1:
            return f"{'victory' if self.winner == seat else 'defeat'} ({how})"
        if self.winner is None and self.reason is EndReason.TIME:
            return f"no winner ({how})"
        if self.winner is None:
            return f"a draw ({how})"
        return f"{'you win' if self.winner == seat else 'the opponent wins'} ({how})"


def outcome_words(text: str) -> str:
    """`text` with the outcome id it starts with said in words: "home base", not "home-base"
    (a fault's code or a sentence has no such id first and is left as it is)."""
    return re.sub(r"^[a-z]+(?:-[a-z]+)+\b", lambda m: m.group().replace("-", " "), text)


def seat_words(text: str, seat: int) -> str:
    """`text` with "seat N"/"player N" (a protocol's detail counts seats from 0) said to
    `seat`: "you" or "the opponent", so the screen, which counts players from 1, never shows a
    number that means another player."""
    return re.sub(r"\b(?:seat|player) ([0-9])\b",
                  lambda m: "you" if int(m.group(1)) == seat else "the opponent", text)


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
    """What the terminal UI needs from a match of any game (local, networked or solo)."""

    @property
    def seat(self) -> int: ...

    @property
    def players(self) -> int: ...  # 1: a solo game (no opponent, no clocks of another seat)

    @property
    def title(self) -> str: ...  # the game's title, for the header

    @property
    def opponent_fingerprint(self) -> str: ...  # short, printable, one line

    @property
    def result(self) -> MatchResult | None: ...

    @property
    def match_started(self) -> bool: ...  # False: scene() is a placeholder (waiting)

    @property
    def can_resign(self) -> bool: ...  # resigning works now (Ctrl-C offers only what works)

    @property
    def leave_words(self) -> str: ...  # what leaving does, for the Ctrl-C menu

    def scene(self) -> Scene: ...  # what our seat sees now
    def inputs(self) -> list[str]: ...  # our legal input lines ([] unless we decide now)
    def decision_key(self) -> bytes: ...  # changes whenever the game moves on
    def rules_text(self) -> str: ...  # the game's rules and notation (F1)
    def clocks(self) -> ClockState | None: ...  # None: untimed
    def connection(self) -> ConnectionStatus: ...
    def log_lines(self) -> list[str]: ...  # oldest first

    async def run(self) -> None: ...  # drive the match; returns when it is over or left
    async def submit(self, line: str) -> None: ...  # EngineError (one line) if not legal
    async def resign(self) -> None: ...
    async def leave(self) -> None: ...  # stop playing here (a network match may be resumed)
    async def wait_changed(self) -> None: ...  # returns once anything above changed


def parse_legal(game: Any, line: str, legal: list[Any], state: Any = None) -> Any:
    """The legal input `line` names (its canonical line, or any text the game parses to a legal
    input); the game's MalformedActionError, or IllegalActionError naming the line (with the
    engine's reason when `state` is given: the game's `step` says why, before it looks at
    anything hidden)."""
    typed = " ".join(line.split())
    for inp in legal:
        if game.format_input(inp) == typed:
            return inp
    inp = game.parse_input(typed)  # raises MalformedActionError with the game's reason
    if inp in legal:
        return inp
    if not legal:
        raise IllegalActionError(f"{typed}: it is not your decision now")
    if state is not None:
        try:
            game.step(state, inp)
        except EngineError as error:
            raise IllegalActionError(f"{typed}: {_reason(error)}") from None
        except Exception:  # a state without the hidden cards: no better reason
            pass
    raise IllegalActionError(f"{typed}: not a legal input now (Tab lists the legal ones)")


def _reason(error: EngineError) -> str:
    """An engine error's reason without the input it repeats ("illegal input 'x' at ...: ")."""
    text = " ".join(str(error).split())
    head, sep, rest = text.partition(": ")
    return rest if sep and ("input" in head or "action" in head) else text


def random_chooser(seed: bytes) -> Chooser:
    """A bot answering uniformly at random from a seeded stream (no `random`)."""
    stream = HashBelow(seed + b"/bot", 8)
    return lambda view, legal: legal[stream.below(len(legal))]


def bot_chooser(game_id: str, name: str, seed: bytes) -> Chooser:
    """The named bot of cli/bots for `game_id`, as a chooser (its seed from `seed`)."""
    from .bots import make_bot

    bot = make_bot(name, seed=int.from_bytes(seed[:4], "big"), game=game_id)
    return bot.choose  # type: ignore[union-attr,no-any-return]


class LocalMatchClient:
    """A local game against an in-process bot; see the module comment."""

    def __init__(self, game: str | Any, *, seat: int = 0, chooser: Chooser | None = None,
                 seed: bytes | None = None, rules: Any = None, clock_ms: int | None = None,
                 opponent_delay: float = 0.0, bot_name: str = "random") -> None:
        self.game = get_game(game) if isinstance(game, str) else game
        g = self.game
        if not 0 <= seat < g.players:
            raise ValueError(f"seat must be 0..{g.players - 1}, got {seat!r}")
        self.seed = seed if seed is not None else secrets.token_bytes(16)
        self.rules = rules if rules is not None else g.default_rules()
        catalogue = g.default_catalogue()
        identity, orders = local_deal(g, self.rules, catalogue, self.seed)
        chance = HashBelow(self.seed + b"/chance", 8).below
        self.play = LocalPlay.start(g, Setup(self.rules, catalogue, self.seed[:32] or b"0"),
                                    identity, orders, chance)
        self._bot = chooser or random_chooser(self.seed)
        self._seat, self._bot_name = seat, bot_name
        opening = (f"Local game of {g.title} against the {bot_name} bot; you are player "
                   f"{seat + 1}" if g.players > 1 else f"Local game of {g.title}")
        self._log: list[str] = [opening]
        self._started = False
        self._changed = trio.Event()
        self._my_turn = trio.Event()
        self._result: MatchResult | None = None
        self._status = ConnectionStatus(Connection.CONNECTED, "local game")
        self.opponent_delay = opponent_delay
        self._clock_ms = clock_ms
        self._remaining = [clock_ms or 0] * g.players
        self._running: int | None = None
        self._since = time.monotonic()
        self._scene: tuple[int, Scene] | None = None

    # --- getters (plain reads; safe from the UI thread) ---------------------------------
    @property
    def seat(self) -> int:
        return self._seat

    @property
    def players(self) -> int:
        return int(self.game.players)

    @property
    def title(self) -> str:
        return str(self.game.title)

    @property
    def opponent_fingerprint(self) -> str:
        return f"local:{self._bot_name}-bot" if self.players > 1 else "none (solo)"

    @property
    def result(self) -> MatchResult | None:
        return self._result

    @property
    def match_started(self) -> bool:
        return True  # the deal is local: the game exists from the start

    @property
    def can_resign(self) -> bool:
        return self._result is None

    @property
    def leave_words(self) -> str:
        return "leave (the local game ends unfinished)"

    def scene(self) -> Scene:
        key = self.play.inputs
        if self._scene is None or self._scene[0] != key:
            self._scene = (key, scene_of(self.game, self.play.state, self._seat,
                                         self.play.knowledge[self._seat]))
        return self._scene[1]

    def inputs(self) -> list[str]:
        if self._result is not None or self._decider() != self._seat:
            return []
        return [self.game.format_input(i) for i in self.game.legal_actions(self.play.state)]

    def decision_key(self) -> bytes:
        return b"%d" % self.play.inputs

    def rules_text(self) -> str:
        return rules_text(self.game, self.rules)

    def clocks(self) -> ClockState | None:
        if self._clock_ms is None:
            return None
        return ClockState(tuple(self._remaining), self._running, self._since)

    def connection(self) -> ConnectionStatus:
        return self._status

    def log_lines(self) -> list[str]:
        return list(self._log)

    def set_connection(self, status: ConnectionStatus) -> None:
        """Pretend a connection change (a local game has none): for tests and demos."""
        self._status = status
        self._notify()

    # --- trio side --------------------------------------------------------------------------
    async def wait_changed(self) -> None:
        await self._changed.wait()

    async def run(self) -> None:
        """Answer the automatic decisions and the bot's until the game ends or is left."""
        while self._result is None and self._status.state is not Connection.CLOSED:
            d = self.play.to_player()
            if not self._started:
                self._started = True
                self._log.extend(self.game.narrate_start(self.play.state, self._seat))
                self._notify()
            if isinstance(d, Finished):
                self._finish(self._game_result(d))
                break
            if d.player == self._seat:
                self._start_clock(self._seat)
                self._notify()
                await self._wait_for_me()
                continue
            self._start_clock(d.player)
            self._notify()
            await trio.sleep(self.opponent_delay)
            before = self.play.state
            self._apply(self.play.advance(lambda view, legal, seat: self._bot(view, legal)),
                        before)
        self._start_clock(None)

    async def submit(self, line: str) -> None:
        if self._result is not None:
            raise IllegalActionError(f"{line.strip()}: the game is over")
        if self._decider() != self._seat:
            raise IllegalActionError(f"{line.strip()}: it is not your decision")
        inp = parse_legal(self.game, line, list(self.game.legal_actions(self.play.state)),
                          self.play.state)
        before = self.play.state
        self.play.apply(inp)
        self._apply(inp, before)
        self._my_turn.set()
        await trio.sleep(0)

    async def resign(self) -> None:
        if self._result is None:
            self._log.append("You resigned")
            winner = None if self.players == 1 else (self._seat + 1) % self.players
            self._finish(MatchResult(winner, EndReason.RESIGNATION, players=self.players))

    async def leave(self) -> None:
        if self._status.state is not Connection.CLOSED:
            self._log.append("You left the game")
            self._status = ConnectionStatus(Connection.CLOSED, "you left the game")
            self._start_clock(None)
            self._my_turn.set()
            self._notify()

    # --- internals --------------------------------------------------------------------------
    def _decider(self) -> int | None:
        d = self.game.decision(self.play.state)
        if isinstance(d, Pending) and d.kind in (DecisionKind.TURN, DecisionKind.CHOICE):
            return d.player  # type: ignore[no-any-return]
        return None

    def _apply(self, inp: Any, before: Any) -> None:
        """Log what `inp` (applied to `before`) did, as the game narrates it to our seat."""
        self._log.extend(self.game.narrate(before, inp, self.play.state, self._seat,
                                           self.play.knowledge[self._seat]))
        del self._log[:-MAX_LOG_LINES]
        self._notify()

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
        winner = None if self.players == 1 else (self._seat + 1) % self.players
        self._finish(MatchResult(winner, EndReason.TIME, players=self.players))

    def _start_clock(self, seat: int | None) -> None:
        now = time.monotonic()
        if self._running is not None:
            spent = int((now - self._since) * 1000)
            self._remaining[self._running] = max(0, self._remaining[self._running] - spent)
        self._running, self._since = (seat if self._clock_ms is not None else None), now

    def _game_result(self, d: Finished) -> MatchResult:
        return MatchResult(d.winner, EndReason.GAME, str(d.outcome), players=self.players)

    def _finish(self, result: MatchResult) -> None:
        self._result = result
        self._start_clock(None)
        self._my_turn.set()
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()


def one_line(error: BaseException | str, limit: int = 200) -> str:
    """An error as one printable line (the UI's message line, a log line)."""
    text = " ".join(str(error).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


__all__ = ["ClockState", "Connection", "ConnectionStatus", "EndReason", "EngineError",
           "LocalMatchClient", "MatchClient", "MatchResult", "bot_chooser", "describe_fault",
           "one_line", "parse_legal", "random_chooser"]
