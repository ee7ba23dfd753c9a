# The asyncio <-> trio bridge (trio guest mode inside the asyncio loop that runs the UI).
from __future__ import annotations

import asyncio

import pytest
import trio

from versus.cli.ui.bridge import GuestNotRunning, TrioGuest


def _run(coro: object, timeout: float = 10) -> object:
    async def bounded() -> object:
        return await asyncio.wait_for(coro, timeout)  # type: ignore[arg-type]
    return asyncio.run(bounded())


def test_asyncio_and_trio_exchange_data_and_shut_down_cleanly() -> None:
    events: list[str] = []
    to_asyncio: list[int] = []

    async def trio_main(guest: TrioGuest) -> None:
        send, receive = trio.open_memory_channel[int](10)
        guest.channel = send  # type: ignore[attr-defined]
        try:
            async for item in receive:  # a trio task consuming what asyncio sends
                await trio.sleep(0.001)
                guest.post(to_asyncio.append, item * 10)  # ... and answering on asyncio
        finally:
            events.append("trio cleaned up")

    async def in_trio(x: int) -> tuple[int, float]:
        await trio.sleep(0.01)  # only works inside trio
        return x + 1, trio.current_time()

    async def failing() -> None:
        await trio.sleep(0)
        raise KeyError("from trio")

    async def main() -> None:
        async with TrioGuest(trio_main) as guest:
            value, now = await guest.call(in_trio, 41)
            assert value == 42 and now > 0
            with pytest.raises(KeyError, match="from trio"):
                await guest.call(failing)
            for i in range(3):
                await guest.call(guest.channel.send, i)  # type: ignore[attr-defined]
            for _ in range(100):
                if len(to_asyncio) == 3:
                    break
                await asyncio.sleep(0.01)
            assert to_asyncio == [0, 10, 20]
            assert not guest.done
        assert guest.done and events == ["trio cleaned up"]
        with pytest.raises(GuestNotRunning):
            await guest.call(in_trio, 1)
        guest.cancel()  # idempotent after the end
        events.append("asyncio done")

    _run(main())
    assert events == ["trio cleaned up", "asyncio done"]


def test_main_task_result_and_failure_reach_asyncio() -> None:
    async def returns(guest: TrioGuest) -> str:
        await trio.sleep(0)
        return "finished"

    async def fails(guest: TrioGuest) -> None:
        await trio.sleep(0)
        raise RuntimeError("trio side broke")

    async def main() -> None:
        guest = TrioGuest(returns)
        await guest.start()
        assert await guest.wait_done() == "finished"
        bad = TrioGuest(fails)
        with pytest.raises(RuntimeError, match="broke"):
            await bad.start()
            await bad.wait_done()

    _run(main())


def test_a_call_in_flight_is_released_when_trio_is_cancelled() -> None:
    async def main() -> None:
        async with TrioGuest() as guest:
            call = asyncio.ensure_future(guest.call(trio.sleep_forever))
            await asyncio.sleep(0.05)
            guest.cancel()
            with pytest.raises((GuestNotRunning, trio.Cancelled)):
                await call

    _run(main())


@pytest.mark.parametrize("fails", [False, True])
def test_the_end_can_be_awaited_twice(fails: bool) -> None:
    """the UI waits for the run's end, then `async with` does again on the way out
    (a UI cancelled after the trio run finished): the second wait gives the same answer, not
    outcome's AlreadyUsedError."""

    async def trio_main(guest: TrioGuest) -> str:
        await trio.sleep(0)
        if fails:
            raise KeyError("from trio")
        return "done"

    async def main() -> list[object]:
        seen: list[object] = []
        for _ in range(2):
            try:
                async with TrioGuest(trio_main) as guest:
                    seen.append(await guest.wait_done())
            except KeyError as error:
                seen.append(repr(error))
        guest = TrioGuest(trio_main)
        await guest.start()
        for _ in range(2):
            try:
                seen.append(await guest.wait_done())
            except KeyError as error:
                seen.append(repr(error))
        return seen

    expected = "KeyError('from trio')" if fails else "done"
    assert _run(main()) == [expected] * 4
