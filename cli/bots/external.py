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
#
# Process lifetime (SPEC Part 7). The bot starts in a session of its own (`_spawn`,
# start_new_session: its own process group, out of reach of the terminal's Ctrl-C), and ending
# it ends the whole group: SIGTERM to the group, TERM_GRACE_S for the bot to exit, then SIGKILL
# to the group (`_end_group`). So a child the bot started (a helper, or a `sleep` kept alive
# only to hold the bot's stderr open) dies with it, and no wait of the cleanup depends on the
# bot: the reap and the drains' end of file are each bounded (KILL_WAIT_S, DRAIN_GRACE_S), and
# a pipe still held after that (by a process that left the group with setsid) is closed on our
# side. Cleanup never decides a game: whoever scores it reads the board, not how we got out.
#
# Every two-player game of the registry: the driver knows its game (`game`, a
# registry id) and speaks of it only through the Game interface and the game's view object:
# the hello carries `game`, `rules` (`Game.rules_to_options`), `ruleset` (the canonical rules
# encoding, when it is a JSON object) and `catalogue` (each card's `to_json()` with its `text`,
# when the cards have one); the first decision's view gives the seat (`view.player`) and the
# match's rules and card data (`view.rules`, `view.catalogue`); `decide.view` is
# `view.to_dict()` and `legal` the inputs in the game's notation (`Game.format_input`).
# The hello's fields keep the order of the protocol's first version (the game's `ruleset` and
# `catalogue`, then `time_ms`), with `game` and `rules` added at the end.
from __future__ import annotations

import contextlib
import json
import math
import os
import shlex
import signal
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

import trio

from versus.engine.api import Finished, Game, Setup
from versus.engine.registry import DEFAULT_GAME, get_game
from versus.protocol.match.table import MatchResult

from .base import BotError, BotForfeit
from .sandbox import Launch, SandboxUnavailable, private_launch

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 * 1024  # one line from the bot
STDERR_KEEP_BYTES = 8 * 1024  # the tail of the bot's stderr kept for error messages
DEFAULT_TIME_MS = 1000
HELLO_TIMEOUT_S = 10.0  # starting an interpreter can be slow on a loaded machine
QUIT_GRACE_S = 1.0  # after "quit", how long the bot may take to exit before it is killed
TERM_GRACE_S = 0.5  # after SIGTERM to the bot's process group, before SIGKILL to it
KILL_WAIT_S = 2.0  # after SIGKILL, how long we wait to reap the bot (a process in D state)
DRAIN_GRACE_S = 0.5  # after the group is killed, how long the drains may wait for end of file
MAX_NAME_CHARS = 40


#: the process groups of this process's bots not ended yet (end_live_groups)
LIVE_GROUPS: set[int] = set()

#: what a game's view object must have for an external bot to play it (SPEC Part 7)
VIEW_MEMBERS = ("player", "rules", "catalogue", "to_dict")
_HOSTING: dict[str, str | None] = {}


def hosting_problem(game: Game) -> str | None:
    """Why an external bot cannot play `game`, or None: it plays a two-player game whose view
    object has VIEW_MEMBERS (checked once per game, on the view of a new game)."""
    if game.id not in _HOSTING:
        _HOSTING[game.id] = _hosting_problem(game)
    return _HOSTING[game.id]


def _hosting_problem(game: Game) -> str | None:
    head = "an external bot (cmd:...)"
    if game.players != 2:
        return (f"{head} plays the two-player games; {game.id} is a {game.players}-player game "
                "(versus solo --bot takes its own bots)")
    try:
        state = game.new_game(Setup(game.default_rules(), game.default_catalogue(),
                                    b"versus/external-bot"))
        view = game.view(state, 0, game.new_knowledge(0))
    except Exception as error:  # a game's bug: said in one line, where the bot is chosen
        return f"{head} cannot play {game.id}: its view fails ({type(error).__name__}: {error})"
    missing = [name for name in VIEW_MEMBERS if not hasattr(view, name)]
    if missing:
        return (f"{head} cannot play {game.id}: its view has no {', '.join(missing)} "
                "(SPEC Part 7)")
    return None


def game_ruleset_json(game: Game, rules: Any) -> dict[str, Any] | None:
    """The hello's `ruleset`: the game's canonical rules encoding when it is a JSON object
    (every game of the registry today), else None (the field is left out)."""
    try:
        obj = json.loads(game.encode_rules(rules))
    except (ValueError, UnicodeDecodeError):
        return None
    return obj if isinstance(obj, dict) else None


def game_catalogue_json(catalogue: Any) -> list[dict[str, Any]] | None:
    """The hello's `catalogue`: every card's own JSON form (`to_json()`) with its rules `text`
    when the game's cards have both, else None (the field is left out)."""
    cards = getattr(catalogue, "cards", None)
    if not cards or not all(hasattr(c, "to_json") and hasattr(c, "text") for c in cards):
        return None
    return [{**card.to_json(), "text": card.text} for card in cards]


def hello_message(game: Game, seat: int, rules: Any, catalogue: Any,
                  time_ms: int) -> dict[str, Any]:
    """The hello of protocol version 1 (SPEC Part 7): the fields of the first version, in
    their order, then `game` and `rules`; `ruleset` and `catalogue` only when the game has a
    JSON form of them (its rules encoding, its cards' `to_json()`)."""
    hello: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION, "seat": seat}
    ruleset = game_ruleset_json(game, rules)
    if ruleset is not None:
        hello["ruleset"] = ruleset
    cards = game_catalogue_json(catalogue)
    if cards is not None:
        hello["catalogue"] = cards
    hello.update(time_ms=time_ms, game=game.id, rules=game.rules_to_options(rules))
    return hello


class ExternalBot:
    """An AsyncPlayer backed by a child process speaking the external bot protocol, playing
    `game` (a registry id of a two-player game).

    Use as `async with ExternalBot("python3 examples/random_bot.py") as bot:`; `start` sends
    the hello (or the first `choose` does, from its view); `finish(result)` says goodbye."""

    cheap = True

    def __init__(self, command: str | Sequence[str], *, name: str | None = None,
                 time_ms: int = DEFAULT_TIME_MS, hello_timeout: float = HELLO_TIMEOUT_S,
                 max_line: int = MAX_LINE_BYTES, game: str = DEFAULT_GAME,
                 sandbox: bool = False) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise BotError("an external bot needs a command line, got an empty one")
        if not 1 <= time_ms <= 3_600_000:
            raise BotError(f"time_ms must be 1..3600000, got {time_ms}")
        self.argv = argv
        self.game: Game = get_game(game)
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
        self._drain_scope = trio.CancelScope()
        self._ended = False  # the process group was ended (once: its id may be reused later)
        self._nursery_cm: Any = None
        self.sandbox = sandbox  # run under bubblewrap (cli/bots/sandbox.py)
        self._launch: Launch | None = None

    # --- lifetime ---------------------------------------------------------------------------
    async def __aenter__(self) -> ExternalBot:
        self._nursery_cm = trio.open_nursery()
        nursery = await self._nursery_cm.__aenter__()
        try:
            # a fresh private directory and environment per game (and bwrap when sandboxed):
            # the bot forgets between games (cli/bots/sandbox.py)
            self._launch = private_launch(self.argv, sandbox=self.sandbox)
            self._proc = await _spawn(self._launch.argv, cwd=self._launch.cwd,
                                      env=self._launch.env)
            LIVE_GROUPS.add(self._proc.pid)
        except (OSError, SandboxUnavailable) as e:
            self._remove_launch()
            await self._nursery_cm.__aexit__(None, None, None)
            raise BotForfeit(f"bot {self.name!r} could not be started: {e}") from None
        nursery.start_soon(self._drain_stderr)
        return self

    async def __aexit__(self, *exc: object) -> bool | None:
        await self.aclose()
        return await self._nursery_cm.__aexit__(*exc)  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        """End the bot's process group (if not done yet), reap the bot and close the pipes;
        every wait is bounded, whatever the bot or its children do."""
        proc = self._proc
        if proc is None:
            return
        with trio.CancelScope(shield=True):
            if not self._ended:
                self._ended = True
                await _end_group(proc, TERM_GRACE_S)
                LIVE_GROUPS.discard(proc.pid)
            with trio.move_on_after(DRAIN_GRACE_S):
                await self._stderr_done.wait()
            self._drain_scope.cancel()  # a pipe still held by a process that left the group
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    await stream.aclose()
        self._remove_launch()

    def _remove_launch(self) -> None:
        if self._launch is not None:
            self._launch.remove()

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.returncode

    # --- the protocol -----------------------------------------------------------------------
    async def start(self, seat: int, ruleset: Any, catalogue: Any) -> None:
        """Send the hello (the game's rules and card data) and wait for the bot's ready."""
        hello = hello_message(self.game, seat, ruleset, catalogue, self.time_ms)
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

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        if not self.started:
            rules, catalogue = getattr(view, "rules", None), getattr(view, "catalogue", None)
            if rules is None or catalogue is None:
                raise BotError(f"a {self.game.id} view has no rules or card data: an external "
                               "bot cannot be told the match (SPEC Part 7)")
            await self.start(view.player, rules, catalogue)
        self.decisions += 1
        k = self.decisions
        by_text = {self.game.format_input(a): a for a in legal}
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

    async def finish(self, result: Finished | MatchResult | Any,
                     seat: int | None = None) -> None:
        """Tell the bot how the game ended (`result`: anything with `winner` and `outcome`, or
        None), ask it to quit, and reap it (killed if it lingers). The bot can no longer lose
        here, so its errors are ignored."""
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
            with self._drain_scope:
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


async def _spawn(argv: Sequence[str], *, cwd: str | os.PathLike[str] | None = None,
                 env: Mapping[str, str] | None = None) -> trio.Process:
    """Start a bot: `argv` with pipes on its stdin, stdout and stderr, in a session of its own
    (so its process id is its process group's id, which `_end_group` ends whole). OSError when
    it cannot be started."""
    return await trio.lowlevel.open_process(
        list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=cwd, env=None if env is None else dict(env), start_new_session=True)


async def _end_group(proc: trio.Process, grace: float) -> None:
    """End the process group that `proc` leads (started by `_spawn`): SIGTERM to the group,
    up to `grace` seconds for `proc` to exit, then SIGKILL to the group (whatever is left of
    it: children that ignored SIGTERM), and reap `proc` (bounded by KILL_WAIT_S)."""
    _signal_group(proc.pid, signal.SIGTERM)
    with trio.move_on_after(grace):
        await proc.wait()
    _signal_group(proc.pid, signal.SIGKILL)
    with trio.move_on_after(KILL_WAIT_S):
        await proc.wait()


def end_live_groups() -> None:
    """SIGKILL to the process group of every bot of this process not ended yet: for a process
    about to exit without its cleanup (a tournament worker told to stop, from its SIGTERM
    handler: no waits here)."""
    for pgid in list(LIVE_GROUPS):
        _signal_group(pgid, signal.SIGKILL)
    LIVE_GROUPS.clear()


def _signal_group(pgid: int, signum: int) -> None:
    # An empty group is gone (ESRCH); EPERM: a member changed its user (a setuid program).
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def _short(value: object, limit: int = 80) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[: limit - 3] + "..."


def time_ms_of(seconds: float | None) -> int:
    return DEFAULT_TIME_MS if seconds is None else max(1, math.ceil(seconds * 1000))


def _label(outcome: object) -> object:
    """An outcome as its label: a game's own result may hold an enum, the generic Finished and
    the match result a string."""
    return getattr(outcome, "value", outcome)
