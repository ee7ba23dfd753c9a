# The terminal UI as a person sees it, for tests: the real prompt-toolkit Application reads
# keys from a pipe input and writes VT100 into a `pyte` terminal emulator of a given size, so
# a test reads the screen a terminal would show (what is clipped, wrapped or cut is what the
# person would see), and types and clicks as a person does.
from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pyte
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from versus.cli.ui.app import MatchUI, Mode, run_ui_async

CTRL_C, ESC, ENTER, TAB = "\x03", "\x1b", "\r", "\t"
UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"
F1, F2, F3, PGUP, PGDN = "\x1bOP", "\x1bOQ", "\x1bOR", "\x1b[5~", "\x1b[6~"
FAST_GRACE = 0.02  # s: the UI's input grace in tests that are not about it (they type fast)


class PyteStream:
    """A text stream that feeds what prompt-toolkit writes into a pyte screen."""

    encoding = "utf-8"

    def __init__(self, cols: int, rows: int) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        self.raw: list[str] = []

    def write(self, data: str) -> int:
        self.raw.append(data)
        self.stream.feed(data)
        return len(data)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("a pyte screen has no file descriptor")


def pyte_output(cols: int, rows: int) -> tuple[Vt100_Output, PyteStream]:
    stream = PyteStream(cols, rows)
    output = Vt100_Output(stream, lambda: Size(rows=rows, columns=cols),  # type: ignore[arg-type]
                          term="xterm", enable_cpr=False)
    return output, stream


class Harness:
    """Keys in, screen out, for one running UI."""

    def __init__(self, ui: MatchUI, pipe: Any, task: asyncio.Task[Any], term: PyteStream
                 ) -> None:
        self.ui, self.pipe, self.task, self.term = ui, pipe, task, term
        self.client = ui.client

    async def keys(self, text: str, settle: float = 0.03) -> None:
        self.pipe.send_text(text)
        # a lone Escape is told from an escape sequence by a short timeout (ttimeoutlen)
        await asyncio.sleep(0.15 if text.endswith(ESC) else settle)

    async def until(self, cond: Callable[[], bool], what: str, timeout: float = 5) -> None:
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.005)

    async def my_decision(self) -> None:
        """Wait for our decision, on screen long enough for a line typed now to be bound
        to it (the UI's input grace)."""
        await self.until(lambda: bool(self.client.inputs()) or self.client.result is not None,
                         "our decision")
        await self.settled()

    async def settled(self) -> None:
        ui = self.ui

        def shown_long_enough() -> bool:
            now = ui.current_decision()
            return (bool(ui.decisions) and ui.decisions[-1].key == now.key
                    and time.monotonic() - ui.decisions[-1].since > ui.input_grace)

        await self.until(shown_long_enough, "our decision to be on screen")

    async def trio(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        assert self.ui.guest is not None
        return await self.ui.guest.call(fn, *args)

    async def screen(self) -> list[str]:
        """The terminal's rows after the next redraw."""
        app = self.ui.app
        count = app.render_counter
        app.invalidate()
        await self.until(lambda: app.render_counter > count, "a redraw")
        await asyncio.sleep(0.01)
        return list(self.term.screen.display)

    async def click(self, x: int, y: int) -> None:
        """A left click at column x, row y (0-based), as an xterm sends it (SGR mode)."""
        await self.keys(f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m")

    async def finish(self) -> Any:
        if self.ui.mode is not Mode.GAME_OVER:
            await self.keys(CTRL_C)
            await self.keys("l")
        else:
            await self.keys(ENTER)
        return await asyncio.wait_for(self.task, 5)


@asynccontextmanager
async def ui_session(client: Any, cols: int = 80, rows: int = 24,
                     grace: float | None = FAST_GRACE, theme: str | None = None
                     ) -> AsyncIterator[Harness]:
    """The UI on `client` in a `cols` x `rows` pyte terminal, driven through a pipe."""
    output, term = pyte_output(cols, rows)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=output):
        ready: asyncio.Future[MatchUI] = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(run_ui_async(client, input=pipe, output=output,
                                                  ui_ready=ready, theme=theme))
        ui = await asyncio.wait_for(ready, 5)
        if grace is not None:
            ui.input_grace = grace
        h = Harness(ui, pipe, task, term)
        try:
            yield h
        finally:
            if not task.done():
                ui.app.exit()
                await asyncio.wait_for(asyncio.shield(task), 5)


def run(coro: Awaitable[Any], timeout: float = 30) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, timeout)
    return asyncio.run(bounded())


def find(rows: list[str], text: str) -> tuple[int, int]:
    """(x, y) of the first occurrence of `text` on the screen."""
    for y, row in enumerate(rows):
        x = row.find(text)
        if x >= 0:
            return x, y
    raise AssertionError(f"{text!r} is not on the screen:\n" + "\n".join(rows))


def on_screen(rows: list[str], text: str) -> bool:
    return any(text in row for row in rows)


WORD = re.compile(r"[A-Za-z]{2,}")


def cut_words(rows: list[str], words: set[str]) -> list[str]:
    """Rows where a line ends in the middle of one of `words` (the start of a known word at
    the right edge, continued at the start of the next row): a word broken by wrapping."""
    found = []
    for y in range(len(rows) - 1):
        row, nxt = rows[y].rstrip(), rows[y + 1].lstrip()
        if len(rows[y]) != len(row) or not row or not nxt:
            continue
        tail = re.search(r"[A-Za-z]+$", row)
        head = re.match(r"[A-Za-z]+", nxt)
        if tail and head and tail.group(0) + head.group(0) in words:
            found.append(f"row {y}: {row[-20:]!r} | {nxt[:20]!r}")
    return found


def text_words(*texts: str, longest: int = 40) -> set[str]:
    """The words of `texts` (what must never be broken across rows), from the tokens between
    spaces of at most `longest` characters (a longer one cannot fit a row: it is broken)."""
    return {w for t in texts for token in t.split() if len(token) <= longest
            for w in WORD.findall(token)}


# --- clients of every game ---------------------------------------------------------------------

#: the games every UI test covers (their registry ids; the solo one plays a solo run)
GAMES = ("versus42", "grid", "vanquishers", "multiverse")


def solo_client(game: Any, seed: bytes = b"ui-solo") -> Any:
    """The solo client over a real practice run (protocol/solo/run.py `play`), its reveals
    from an in-process reveal service."""
    from versus.cli.solo_client import SoloClient
    from versus.protocol.crypto.identity import Identity
    from versus.protocol.solo.challenge import new_challenge
    from versus.protocol.solo.run import play
    from versus.protocol.solo.service import RevealService

    player = Identity(hashlib.sha256(seed).digest())
    rules = game.default_rules()
    ch, secret = new_challenge(player, game, rules, "ui-test",
                               lambda n: hashlib.sha256(seed + b"/secret").digest()[:n])
    service = RevealService(ch, secret)
    return SoloClient(game, rules, lambda choose, on_step: play(
        game, ch, player, service.reveal, choose, on_step=on_step))


def client_for(game_id: str | Any, seed: bytes = b"ui") -> Any:
    """A client of `game_id` (or a game object) against a local random bot, or its solo
    run for a one-seat game."""
    from versus.cli.client import LocalMatchClient
    from versus.engine.registry import get_game

    game = get_game(game_id) if isinstance(game_id, str) else game_id
    if game.players == 1:
        return solo_client(game, seed)
    return LocalMatchClient(game, seed=seed)
