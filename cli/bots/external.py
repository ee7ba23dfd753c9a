# External bots: a separate program that plays through JSON lines on its stdin/stdout, in the
# spirit of UCI (SPEC Part 7 lists every message and field). The driver here is the only part
# of the bots that does I/O; it treats the program as untrusted input:
#   - every line it reads is size-limited (MAX_LINE_BYTES) and must be one JSON object of the
#     expected type; the action must be one of the legal actions' exact notations;
#   - every decision has a deadline (`time_ms`, trio.move_on_after); the handshake has its own;
#   - stderr is drained all the time into a bounded buffer (so a chatty bot cannot block on a
#     full pipe) and its last line names the cause when the bot dies;
#   - any failure raises `BotForfeit` with one line naming the bot and the decision, after the
#     process is killed. The process is always reaped: `async with ExternalBot(...)` kills it on
#     the way out, whatever happened.
from __future__ import annotations

import json
import math
import shlex
import subprocess
from collections.abc import Sequence
from typing import Any

import trio

from versus.engine import Action, Catalogue, GameResult, PlayerView, Ruleset
from versus.engine.api import Finished
from versus.protocol.match.table import MatchResult

from .base import BotError, BotForfeit
from .worlds import public_state

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024  # one line from the bot
STDERR_KEEP_BYTES = 8 * 1024  # the tail of the bot's stderr kept for error messages
DEFAULT_TIME_MS = 1000
HELLO_TIMEOUT_S = 10.0  # starting an interpreter can be slow on a loaded machine
QUIT_GRACE_S = 1.0  # after "quit", how long the bot may take to exit before it is killed
MAX_NAME_CHARS = 40


def ruleset_json(ruleset: Ruleset) -> dict[str, Any]:
    return json.loads(ruleset.encode())  # type: ignore[no-any-return]


def catalogue_json(catalogue: Catalogue) -> list[dict[str, Any]]:
    return [{**card.to_json(), "text": card.text} for card in catalogue.cards]


class ExternalBot:
    """An AsyncPlayer backed by a child process speaking the external bot protocol.

    Use as `async with ExternalBot("python3 examples/random_bot.py") as bot:`; `start` sends
    the hello (or the first `choose` does, from its view); `finish(result)` says goodbye."""

    cheap = True

    def __init__(self, command: str | Sequence[str], *, name: str | None = None,
                 time_ms: int = DEFAULT_TIME_MS, hello_timeout: float = HELLO_TIMEOUT_S,
                 max_line: int = MAX_LINE_BYTES) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise BotError("an external bot needs a command line, got an empty one")
        if not 1 <= time_ms <= 3_600_000:
            raise BotError(f"time_ms must be 1..3600000, got {time_ms}")
        self.argv = argv
        self.name = name or " ".join(argv)[:MAX_NAME_CHARS]
        self.time_ms = time_ms
        self.hello_timeout = hello_timeout
        self.max_line = max_line
        self.decisions = 0
        self.started = False
        self.declared_name: str | None = None  # from the bot's ready
        self._proc: trio.Process | None = None
        self._buf = bytearray()
        self._stderr = bytearray()
        self._stderr_done = trio.Event()
        self._nursery_cm: Any = None

    # --- lifetime ---------------------------------------------------------------------------
    async def __aenter__(self) -> ExternalBot:
        self._nursery_cm = trio.open_nursery()
        nursery = await self._nursery_cm.__aenter__()
        try:
            self._proc = await trio.lowlevel.open_process(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE)
        except OSError as e:
            await self._nursery_cm.__aexit__(None, None, None)
            raise BotForfeit(f"bot {self.name!r} could not be started: {e}") from None
        nursery.start_soon(self._drain_stderr)
        return self

    async def __aexit__(self, *exc: object) -> bool | None:
        await self.aclose()
        return await self._nursery_cm.__aexit__(*exc)  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        """Kill the process (if still running) and reap it."""
        proc = self._proc
        if proc is None:
            return
        if proc.returncode is None:
            proc.kill()
        with trio.CancelScope(shield=True):
            await proc.wait()
            for stream in (proc.stdin, proc.stdout):
                if stream is not None:
                    await stream.aclose()

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.returncode

    # --- the protocol -----------------------------------------------------------------------
    async def start(self, seat: int, ruleset: Ruleset, catalogue: Catalogue) -> None:
        """Send the hello and wait for the bot's ready."""
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "seat": seat,
                 "ruleset": ruleset_json(ruleset), "catalogue": catalogue_json(catalogue),
                 "time_ms": self.time_ms}
        with trio.move_on_after(self.hello_timeout) as scope:
            await self._send(hello, "the hello")
            msg = await self._receive("the hello")
        if scope.cancelled_caught:
            await self._forfeit(f"did not answer the hello within {self.hello_timeout:g} s")
        if msg.get("type") != "ready":
            await self._forfeit(f"answered the hello with {_short(msg)} instead of a ready")
        name = msg.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME_CHARS or \
                not name.isprintable():
            await self._forfeit(f"sent a ready with a bad name {_short(name)} "
                                f"(1-{MAX_NAME_CHARS} printable characters)")
        self.declared_name = name
        self.started = True

    async def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if not self.started:
            s = public_state(view)
            await self.start(view.player, s.rules, s.cat)
        self.decisions += 1
        k = self.decisions
        by_text = {str(a): a for a in legal}
        msg = {"type": "decide", "decision": k, "view": view.to_dict(),
               "legal": list(by_text), "time_ms": self.time_ms}
        where = f"decision {k}"
        with trio.move_on_after(self.time_ms / 1000) as scope:
            await self._send(msg, where)
            answer = await self._receive(where)
        if scope.cancelled_caught:
            await self._forfeit(f"exceeded {self.time_ms} ms on {where}")
        if answer.get("type") != "action" or not isinstance(answer.get("action"), str):
            await self._forfeit(f"answered {_short(answer)} on {where}, expected "
                                '{"type":"action","action":...}')
        text = answer["action"]
        if text not in by_text:
            await self._forfeit(f"answered an illegal action {_short(text)} on {where}")
        return by_text[text]

    async def finish(self, result: GameResult | Finished | MatchResult | None,
                     seat: int | None = None) -> None:
        """Tell the bot how the game ended, ask it to quit, and reap it (killed if it lingers).
        The bot can no longer lose here, so its errors are ignored."""
        try:
            if result is not None and self.started:
                await self._write({"type": "result", "seat": seat, "winner": result.winner,
                                   "outcome": _label(result.outcome)})
            await self._write({"type": "quit"})
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        if self._proc is not None:
            with trio.move_on_after(QUIT_GRACE_S):
                await self._proc.wait()
        await self.aclose()

    # --- plumbing ---------------------------------------------------------------------------
    async def _write(self, obj: dict[str, Any]) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        data = json.dumps(obj, separators=(",", ":"), ensure_ascii=True).encode() + b"\n"
        await self._proc.stdin.send_all(data)

    async def _send(self, obj: dict[str, Any], where: str) -> None:
        if self._proc is None:
            raise BotError(f"bot {self.name!r} is not running: use 'async with ExternalBot(...)'")
        try:
            await self._write(obj)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await self._died(where)

    async def _receive(self, where: str) -> dict[str, Any]:
        line = await self._read_line(where)
        try:
            obj = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            await self._forfeit(f"answered a line that is not JSON on {where}: "
                                f"{_short(line.decode('utf-8', 'replace'))}")
        if not isinstance(obj, dict):
            await self._forfeit(f"answered {_short(obj)} on {where}, not a JSON object")
        return obj  # type: ignore[no-any-return]

    async def _read_line(self, where: str) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        buf = self._buf
        while True:
            nl = buf.find(b"\n")
            if nl >= 0:
                line = bytes(buf[:nl])
                del buf[: nl + 1]
                if len(line) > self.max_line:
                    break
                return line.rstrip(b"\r")
            if len(buf) > self.max_line:
                break
            chunk = await self._proc.stdout.receive_some(65536)
            if not chunk:
                await self._died(where)
            buf += chunk
        await self._forfeit(f"answered a line longer than {self.max_line} bytes on {where}")
        raise AssertionError("unreachable")

    async def _drain_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        try:
            while chunk := await self._proc.stderr.receive_some(65536):
                self._stderr += chunk
                if len(self._stderr) > STDERR_KEEP_BYTES:
                    del self._stderr[: len(self._stderr) - STDERR_KEEP_BYTES]
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self._stderr_done.set()

    def last_stderr_line(self) -> str:
        lines = [x for x in self._stderr.decode("utf-8", "replace").splitlines() if x.strip()]
        return lines[-1].strip()[:200] if lines else ""

    async def _died(self, where: str) -> None:
        """The pipe closed: wait (briefly) for the exit code and the stderr tail, forfeit."""
        assert self._proc is not None
        with trio.move_on_after(1.0):
            await self._proc.wait()
        if self._proc.returncode is None:
            await self._forfeit(f"closed its output on {where}")
        with trio.move_on_after(0.5):
            await self._stderr_done.wait()
        tail = self.last_stderr_line()
        await self._forfeit(f"exited with code {self._proc.returncode} on {where}"
                            + (f": {tail}" if tail else ""))

    async def _forfeit(self, what: str) -> None:
        await self.aclose()
        raise BotForfeit(f"bot {self.name!r} {what}")


def _short(value: object, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def time_ms_of(seconds: float | None) -> int:
    return DEFAULT_TIME_MS if seconds is None else max(1, math.ceil(seconds * 1000))


def _label(outcome: object) -> object:
    """An outcome as its label: the engine's GameResult holds an enum, the generic Finished and
    the match result a string."""
    return getattr(outcome, "value", outcome)
