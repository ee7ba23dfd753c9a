# The bridge between prompt-toolkit (asyncio) and the match client (trio): trio guest mode.
#
# How it works. The UI owns the thread and runs the asyncio loop (prompt-toolkit needs it).
# `TrioGuest` starts a trio run *inside* that loop with `trio.lowlevel.start_guest_run`:
# trio's scheduler ticks are callbacks posted with `loop.call_soon_threadsafe`, and its I/O
# waits happen on a helper thread that only reports readiness back through that same callback.
# So all trio tasks and all asyncio tasks run on one thread, interleaved, never in parallel.
#
# Consequences, which the UI relies on:
# - Plain reads of trio-side objects (the client's getters) are safe from asyncio code: no
#   locks, nothing runs concurrently with them.
# - Coroutines of the trio side must run in trio. `call(fn, *args)` (from asyncio) asks trio,
#   through its `TrioToken`, to start `fn(*args)` in the guest nursery and returns its result
#   (or exception) to the awaiting asyncio task through an asyncio Future.
# - trio -> asyncio: trio code may call asyncio functions directly only via
#   `loop.call_soon_threadsafe` (the UI's invalidate and exit are posted that way), so each side
#   only runs its own loop's code in its own context.
# - Shutdown: `cancel()` cancels the guest nursery; `wait_done()` awaits `done_callback`,
#   which trio calls once the run has completely finished, with the main task's outcome.
#   Leaving the `async with` always does both, so no trio task outlives the UI.
# - Signals: asyncio (and prompt-toolkit's SIGWINCH handling on resize) uses
#   `signal.set_wakeup_fd`, so the guest is started with `host_uses_signal_set_wakeup_fd=True`
#   and leaves it alone.
from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import outcome
import trio

T = TypeVar("T")


class GuestNotRunning(RuntimeError):
    """`call` was used before `start` finished or after the trio run ended."""


class TrioGuest:
    """A trio run hosted by the running asyncio loop; use as `async with TrioGuest(main):`.

    `main(guest)` is the trio task that runs for the lifetime of the guest (e.g. the match
    client's `run()`); when it returns, the run ends and `done` is set."""

    def __init__(self, main: Callable[[TrioGuest], Awaitable[Any]] | None = None) -> None:
        self._main = main
        self._token: trio.lowlevel.TrioToken | None = None
        self._nursery: trio.Nursery | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._done: asyncio.Future[outcome.Outcome[Any]] | None = None
        #: the run's value or error, taken once from its outcome (an outcome unwraps only
        #: once, and both the UI and `async with` may wait for the end)
        self._ended: tuple[bool, Any] | None = None

    async def __aenter__(self) -> TrioGuest:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cancel()
        await self.wait_done()

    @property
    def done(self) -> bool:
        return self._done is not None and self._done.done()

    async def start(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        self._done = loop.create_future()
        ready: asyncio.Future[None] = loop.create_future()

        async def trio_main() -> Any:
            async with trio.open_nursery() as nursery:
                self._nursery, self._token = nursery, trio.lowlevel.current_trio_token()
                loop.call_soon_threadsafe(_set, ready, None)
                # captured so that its error reaches asyncio as raised, not in an ExceptionGroup
                result = await outcome.acapture(self._main or _forever, self)
                nursery.cancel_scope.cancel()  # the calls still in flight end with it
            if isinstance(result, outcome.Error) and _only_cancelled(result.error):
                return None  # cancelled by `cancel()`: a normal end
            return result.unwrap()

        def on_done(result: outcome.Outcome[Any]) -> None:
            self._token = None
            _set(self._done, result)  # type: ignore[arg-type]

        trio.lowlevel.start_guest_run(
            trio_main,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            done_callback=on_done,
            host_uses_signal_set_wakeup_fd=True,
        )
        await asyncio.wait([ready, self._done], return_when=asyncio.FIRST_COMPLETED)
        if not ready.done():  # the trio main task failed before it was ready
            self._done.result().unwrap()

    async def call(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run the trio coroutine function `fn(*args)` in the guest; return its result."""
        token, loop = self._token, self._loop
        if token is None or loop is None or self._nursery is None:
            raise GuestNotRunning("the trio guest run is not running")
        fut: asyncio.Future[outcome.Outcome[T]] = loop.create_future()
        nursery = self._nursery

        async def task() -> None:
            result = await outcome.acapture(fn, *args)
            loop.call_soon_threadsafe(_set, fut, result)

        try:
            token.run_sync_soon(nursery.start_soon, task)
        except trio.RunFinishedError:
            raise GuestNotRunning("the trio guest run has finished") from None
        done = self._done
        assert done is not None
        await asyncio.wait([fut, done], return_when=asyncio.FIRST_COMPLETED)
        if not fut.done():
            raise GuestNotRunning("the trio guest run ended before the call returned")
        return fut.result().unwrap()

    def cancel(self) -> None:
        """Ask trio to cancel everything in the guest (idempotent; safe after the end)."""
        token, nursery = self._token, self._nursery
        if token is None or nursery is None:
            return
        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(nursery.cancel_scope.cancel)

    async def wait_done(self) -> Any:
        """Wait until the trio run has finished; return its main task's value (or raise)."""
        assert self._done is not None, "start() first"
        result = await asyncio.shield(self._done)
        if self._ended is None:
            try:
                self._ended = (True, result.unwrap())
            except BaseException as error:  # kept and raised to every waiter
                self._ended = (False, error)
        ok, value = self._ended
        if not ok:
            raise value
        return value

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """From trio: run `fn(*args)` on the asyncio side (e.g. the UI's invalidate)."""
        assert self._loop is not None
        self._loop.call_soon_threadsafe(fn, *args)


def _only_cancelled(error: BaseException) -> bool:
    """True for trio.Cancelled, also grouped by the main task's own nurseries."""
    if isinstance(error, BaseExceptionGroup):
        rest = error.split(trio.Cancelled)[1]
        return rest is None
    return isinstance(error, trio.Cancelled)


async def _forever(guest: TrioGuest) -> None:
    await trio.sleep_forever()


def _set(fut: asyncio.Future[Any], value: Any) -> None:
    if not fut.done():
        fut.set_result(value)
