# The terminal UI driven as a person would: keys into prompt-toolkit's pipe input, a real local
# match (engine + random bot) behind it, trio running as a guest of the UI's asyncio loop.
from __future__ import annotations

import asyncio
import io
import re
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from versus.cli.client import Connection, ConnectionStatus, EndReason, LocalMatchClient
from versus.cli.ui.app import MatchUI, Mode, matching_actions, one_line, run_ui_async
from versus.engine import HashRng
from versus.engine.versus42 import (
    ActionKind,
    ChoiceDecision,
    ChoiceKind,
    Referee,
    Ruleset,
    default_catalogue,
    format_input,
    random_chooser,
    random_deal,
)

CTRL_C, ESC, ENTER = "\x03", "\x1b", "\r"
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


FAST_GRACE = 0.05  # s: the UI's input grace in tests that are not about it (they type fast)


class Harness:
    def __init__(self, ui: MatchUI, pipe: Any, task: asyncio.Task[Any]) -> None:
        self.ui, self.pipe, self.task = ui, pipe, task
        self.client = ui.client

    async def keys(self, text: str, settle: float = 0.05) -> None:
        self.pipe.send_text(text)
        # a lone Escape is told from an escape sequence by a short timeout (ttimeoutlen)
        await asyncio.sleep(0.3 if text.endswith(ESC) else settle)

    async def until(self, cond: Callable[[], bool], what: str, timeout: float = 5) -> None:
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                raise AssertionError(f"timed out waiting for {what}")
            await asyncio.sleep(0.01)

    async def my_decision(self) -> None:
        """Wait for our decision, and until it has been on screen long enough for a line
        typed now to be bound to it (the UI's input grace)."""
        await self.until(lambda: bool(self.client.legal_actions()), "our decision")
        await self.settled()

    async def settled(self) -> None:
        """Wait until the game's current state has been on screen for the input grace."""
        ui = self.ui

        def shown_long_enough() -> bool:
            now = ui.current_decision()  # (the UI may not have noted it yet under load)
            return (bool(ui.decisions) and ui.decisions[-1].key == now.key
                    and time.monotonic() - ui.decisions[-1].since > ui.input_grace)

        await self.until(shown_long_enough, "our decision to be on screen")

    async def trio(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        assert self.ui.guest is not None
        return await self.ui.guest.call(fn, *args)

    async def screen(self) -> list[str]:
        """The screen as drawn by the next redraw (needs a sized output: see `sized_output`),
        one string per row."""
        app = self.ui.app
        count = app.render_counter
        app.invalidate()
        await self.until(lambda: app.render_counter > count, "a redraw")
        screen = app.renderer.last_rendered_screen
        assert screen is not None
        cols, rows = self.ui.size()
        return ["".join(screen.data_buffer[y][x].char for x in range(cols)) for y in range(rows)]

    async def click(self, x: int, y: int) -> None:
        """A left click at column x, row y (0-based), as an xterm sends it (SGR mode)."""
        await self.keys(f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m")

    async def finish(self, how: str = "leave") -> Any:
        if self.ui.mode is not Mode.GAME_OVER:
            await self.keys(CTRL_C)
            await self.keys("l")
        else:
            await self.keys(ENTER)
        return await asyncio.wait_for(self.task, 5)


@asynccontextmanager
async def ui_session(client: Any, output: Any = None,  # type: ignore[no-untyped-def]
                     grace: float | None = FAST_GRACE, theme: str | None = None):
    """The UI on `client`, driven through a pipe; `grace`: the input grace (None: the UI's
    own, for the tests about it)."""
    output = output or DummyOutput()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=output):
        ready: asyncio.Future[MatchUI] = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(run_ui_async(client, input=pipe, output=output,
                                                  ui_ready=ready, theme=theme))
        ui = await asyncio.wait_for(ready, 5)
        if grace is not None:
            ui.input_grace = grace
        h = Harness(ui, pipe, task)
        try:
            yield h
        finally:
            if not task.done():
                ui.app.exit()
                await asyncio.wait_for(asyncio.shield(task), 5)


def sized_output(cols: int, rows: int) -> tuple[Vt100_Output, io.StringIO]:
    """An xterm of the given size whose escape sequences are kept (for colour checks)."""
    buf = io.StringIO()
    return Vt100_Output(buf, lambda: Size(rows=rows, columns=cols), term="xterm"), buf


def find(rows: list[str], text: str) -> tuple[int, int]:
    """(x, y) of the first occurrence of `text` on the screen."""
    for y, row in enumerate(rows):
        x = row.find(text)
        if x >= 0:
            return x, y
    raise AssertionError(f"{text!r} is not on the screen:\n" + "\n".join(rows))


def run(coro: Awaitable[Any], timeout: float = 30) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, timeout)
    return asyncio.run(bounded())


def test_a_few_turns_typed_into_the_ui() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-turns")
        async with ui_session(client) as h:
            for turn in range(3):
                await h.my_decision()
                legal = client.legal_actions()
                summons = [a for a in legal if format_input(a).startswith("summon")]
                action = (summons or legal)[0]
                before = len(client.log_lines())
                await h.keys(format_input(action))
                assert h.ui.input_buffer.text == format_input(action)
                await h.keys(ENTER)
                await h.until(lambda b=before: len(client.log_lines()) > b, "a log line")
                assert h.ui.message == ("class:ok", f"played: {format_input(action)}")
                assert h.ui.input_buffer.text == ""
                if turn == 0:
                    assert any(line.startswith("You summoned ") for line in client.log_lines())
                await h.my_decision()
                if client.legal_actions() and client.view().my_turn:
                    await h.keys("end" + ENTER)
            await h.until(lambda: any(line.startswith("Opponent ")
                                      for line in client.log_lines()[8:]), "the bot's moves")
            result = await h.finish()
        assert result is None  # left unfinished
        assert client.connection().state is Connection.CLOSED

    run(main())


def test_completion_offers_exactly_legal_actions() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-complete")
        async with ui_session(client) as h:
            await h.my_decision()
            legal = {format_input(a) for a in client.legal_actions()}
            completer = h.ui.input_buffer.completer
            assert completer is not None

            def texts(typed: str) -> list[str]:
                doc = Document(typed, len(typed))
                return [c.text for c in completer.get_completions(doc, CompleteEvent())]

            everything = texts("")
            assert set(everything) == legal
            summons = texts("sum")
            assert summons and all(t.startswith("summon") and t in legal for t in summons)
            handle = client.view().hand[0][0]
            mine = texts(f"summon {handle} ")
            assert mine and all(t.startswith(f"summon {handle} ") for t in mine)
            assert texts("dance") == []
            # a filter: an area alone lists the legal actions naming it
            area = format_input(next(a for a in client.legal_actions()
                                 if format_input(a).startswith("summon"))).split()[2]
            by_area = texts(area + " ")
            assert by_area and all(area in t.split() for t in by_area)
            # typed into the real buffer, the menu opens with those completions
            await h.keys("summon ")
            await h.until(lambda: h.ui.input_buffer.complete_state is not None, "the menu")
            shown = {c.text for c in h.ui.input_buffer.complete_state.completions}
            assert shown and shown <= legal
            await h.keys(ESC)  # closes the menu only: the typed line stays
            assert h.ui.input_buffer.complete_state is None
            assert h.ui.input_buffer.text == "summon "
            await h.keys(ESC)  # no menu open: clears the line
            assert h.ui.input_buffer.text == ""
            await h.finish()

    run(main())


def test_illegal_input_gets_a_one_line_reason() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-illegal")
        async with ui_session(client) as h:
            await h.my_decision()
            before = client.view().to_dict()
            await h.keys("move a1 a4" + ENTER)
            await h.until(lambda: h.ui.message[0] == "class:error", "an error")
            _style, text = h.ui.message
            assert text.startswith("move a1 a4: ") and "\n" not in text
            assert "Traceback" not in text and len(text) <= 200
            assert client.view().to_dict() == before
            assert h.ui.input_buffer.text == "move a1 a4"  # kept for editing
            await h.keys(ESC)
            await h.keys("dance" + ENTER)
            assert h.ui.message == ("class:error", "dance: unknown word 'dance'")
            await h.finish()

    run(main())


def test_one_line_trims_engine_messages() -> None:
    msg = ("illegal input 'move b2 b4' at turn 3, player 0 to play, awaiting turn action by "
           "player 0: b4 is not adjacent to b2")
    assert one_line(msg) == "move b2 b4: b4 is not adjacent to b2"
    assert one_line("a\nb   c") == "a b c"
    nested = ("malformed action 'move d1 d2v': malformed action (<ActionKind.MOVE: 3>, -1): "
              "to must be an area name")
    assert one_line(nested) == "move d1 d2v: to must be an area name"
    assert len(one_line("x" * 500)) == 160


def test_ctrl_c_asks_resign_or_leave_and_resigning_ends_the_match() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-ctrl-c")
        async with ui_session(client) as h:
            await h.my_decision()
            await h.keys(CTRL_C)
            assert h.ui.mode is Mode.QUIT_MENU
            assert "Resign or leave?" in "".join(t for _, t in h.ui._modal_text())
            await h.keys("xyz")  # other keys do nothing while the menu is open
            assert h.ui.mode is Mode.QUIT_MENU and h.ui.input_buffer.text == ""
            await h.keys(ESC)
            assert h.ui.mode is Mode.PLAY and client.result is None
            await h.keys(CTRL_C + "r")
            assert h.ui.mode is Mode.CONFIRM_RESIGN
            await h.keys("n")
            assert h.ui.mode is Mode.PLAY and client.result is None
            await h.keys(CTRL_C + "r" + "y")
            await h.until(lambda: h.ui.mode is Mode.GAME_OVER, "game over")
            assert "Game over: the opponent wins" in "".join(t for _, t in h.ui._modal_text())
            result = await h.finish()
        assert result.reason is EndReason.RESIGNATION and result.winner == 1

    run(main())


def _seed_with_a_hand_choice() -> tuple[bytes, list[str]]:
    """A local-match seed and our inputs (a random policy) that reach a discard-from-hand
    choice for us (seat 0): small decks run out, and then a discard is picked from the hand."""
    cat = default_catalogue()
    rs = Ruleset(deck_size=4, hand_size=3)
    for i in range(400):
        seed = b"choice-%d" % i
        ids, orders = random_deal(cat, rs, HashRng(seed, "local-deal"))
        me = random_chooser(HashRng(seed, "me"))
        bot = random_chooser(HashRng(seed, "local-bot"))
        mine: list[str] = []

        def record(view: Any, legal: Any, mine: list[str] = mine, me: Any = me) -> Any:
            a = me(view, legal)
            mine.append(format_input(a))
            return a

        ref = Referee(rs, cat, seed, ids, orders, (record, bot))
        while ref.state.result is None:
            d = ref.state.pending
            if (isinstance(d, ChoiceDecision) and d.player == 0
                    and d.kind is ChoiceKind.DISCARD_FROM_HAND and len(d.options) >= 2):
                return seed, mine
            ref.advance()
    raise AssertionError("no seed reaches a hand discard choice")


def test_a_choice_the_rules_ask_appears_as_a_prompt() -> None:
    seed, inputs = _seed_with_a_hand_choice()

    async def main() -> None:
        client = LocalMatchClient(seed=seed, ruleset=Ruleset(deck_size=4, hand_size=3))
        async with ui_session(client) as h:
            for text in inputs:
                await h.my_decision()
                h.ui.message = ("", "")
                await h.keys(text + ENTER, settle=0)
                await h.until(lambda t=text: h.ui.message[1].startswith(f"played: {t}"),
                              f"{text} played")
            await h.until(lambda: isinstance(client.view().decision, ChoiceDecision), "choice")
            await h.my_decision()
            _style, prompt = h.ui._prompt_line()[0]
            assert prompt.startswith("Choose a card of your hand to discard: 1 ")
            options = client.view().decision.options
            await h.keys("2")
            assert h.ui.input_buffer.text == f"pick {options[1]}"
            await h.keys(ENTER)
            await h.until(lambda: (client.view().identity(options[1]) is not None
                          and not isinstance(client.view().decision, ChoiceDecision))
                          or client.result is not None, "the discard")
            assert any(line.startswith("You discarded ") for line in client.log_lines())
            await h.finish()

    run(main(), timeout=40)


def test_lost_connection_shows_the_resume_countdown() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-conn")
        async with ui_session(client) as h:
            await h.my_decision()

            async def drop() -> None:
                client.set_connection(ConnectionStatus(
                    Connection.RECONNECTING, "peer timed out", deadline=time.monotonic() + 30))

            await h.trio(drop)
            text = "".join(t for _, t in h.ui._prompt_line())
            assert re.search(r"connection lost: resuming, (29|30) s left", text)
            assert "peer timed out" in "".join(t for _, t in h.ui._status_text())
            await h.finish()

    run(main())


def _screen(cols: int, rows: int, seed: bytes) -> str:
    buf = io.StringIO()
    output = Vt100_Output(buf, lambda: Size(rows=rows, columns=cols), term="xterm")

    async def main() -> None:
        client = LocalMatchClient(seed=seed)
        async with ui_session(client, output) as h:
            await h.my_decision()
            await h.keys("\x1b[A")  # arrow up: the cursor moves (and the screen redraws)
            await asyncio.sleep(0.3)
            await h.finish()

    run(main())
    return ANSI.sub("", buf.getvalue())


def test_screen_shows_field_hand_and_help_and_degrades_when_small() -> None:
    big = _screen(120, 40, b"ui-screen")
    for words in ("Versus", "Your hand", "Active:", "Passive:", "White", "Black", "Blue",
                  "connected", "Cursor a2", "deck"):
        assert words in big, words
    small = _screen(60, 20, b"ui-screen")
    assert "Terminal too small (60x20)" in small and "Your hand" not in small


def test_trio_is_shut_down_with_the_ui() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-shutdown", opponent_delay=3600)
        async with ui_session(client) as h:
            await h.until(lambda: h.ui.guest is not None, "the guest")
            guest = h.ui.guest
            await h.finish()
            assert guest.done  # no trio task outlives the UI
            assert trio.lowlevel  # (imported for the guest run)

    run(main())


def test_end_typed_in_one_burst_ends_the_turn() -> None:
    """'end' and Enter arriving in one read (as a paste or fast typing delivers them) play
    'end'. (The lead's `tmux send-keys "end" Enter` sends tmux's End *key*, since tmux looks key
    names up case-insensitively; `send-keys -l end` types the letters.)"""
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-burst")
        async with ui_session(client) as h:
            await h.my_decision()
            turn = client.view().turn
            h.pipe.send_text("end\r")
            await h.until(lambda: client.view().turn != turn, "the turn to end")
            await h.until(lambda: h.ui.message == ("class:ok", "played: end"), "'played: end'")
            assert h.ui.input_buffer.text == ""
            await h.finish()

    run(main())


def test_illegal_inputs_name_what_is_wrong() -> None:
    from versus.cli.client import check_legal
    from versus.engine import EngineError
    from versus.engine.versus42 import parse_action

    client = LocalMatchClient(seed=b"ui-reasons")
    ref = client.referee
    while not (client.legal_actions() and client.view().my_turn):
        ref.advance()
    state = ref.state
    mine = client.view().hand[0][0]
    theirs = next(h for h in state.handles(1))

    def reason(text: str) -> str:
        try:
            check_legal(state, parse_action(text))
        except EngineError as error:
            return one_line(error)
        raise AssertionError(f"{text} is legal")

    assert reason("flip z9") == "flip z9: z9 is not an area of the field (a1–e4)"
    assert reason("move a1 z9") == "move a1 z9: z9 is not an area of the field (a1–e4)"
    assert reason("flip a1") == "flip a1: no card on a1"
    assert reason(f"summon {theirs} a1 recto").endswith(
        f"card #{theirs} is player 1's, not in player 0's hand")
    assert reason("summon 99 a1 recto").endswith("there is no card #99 (handles are 0–23)")
    assert reason(f"summon {mine} e4 recto").endswith("e4 is not on player 0's side")
    with_args = {"summon 2 a1": "'summon' takes 3 arguments (summon HANDLE AREA recto|verso), "
                                "got 2",
                 "move a1": "'move' takes 2 arguments (move FROM TO), got 1",
                 "flip 0": "area must be an area name like 'b2', got '0'"}
    for text, why in with_args.items():
        with pytest.raises(EngineError) as caught:
            parse_action(text)
        assert one_line(caught.value) == f"{text}: {why}"


def test_a_protocol_fault_is_said_plainly() -> None:
    from versus.cli.client import MatchResult

    fault = MatchResult(0, EndReason.FAULT, "illegal-action: move a1 e4 is not legal",
                        "/tmp/m/transcript.vtr")
    assert fault.describe(0) == ("the opponent broke the protocol: illegal-action: move a1 e4 "
                                 "is not legal; you win; evidence saved in "
                                 "/tmp/m/transcript.vtr")
    assert "abandoned" not in fault.describe(1) and "broke the protocol" in fault.describe(1)


# --- a turn that ends by itself, and inputs bound to their decision ---------------


async def _summon_then_move(h: Harness) -> tuple[int, str]:
    """Our turn: summon a card recto on an empty area, then pick a Move (not yet entered).
    Returns (the turn, the Move's text)."""
    client = h.client
    await h.my_decision()
    occupied = {fc.area for fc in client.view().field}
    summon = next(a for a in client.legal_actions() if a.kind == ActionKind.SUMMON
                  and a.recto and a.area not in occupied)
    await h.keys(format_input(summon) + ENTER)
    await h.until(lambda: h.ui.message[1].startswith(f"played: {format_input(summon)}"),
                  "the summon")
    await h.my_decision()
    move = next(a for a in client.legal_actions() if a.kind == ActionKind.MOVE)
    return client.view().turn, format_input(move)


def test_a_turn_that_ends_by_itself_is_said() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-auto-end")
        async with ui_session(client) as h:
            turn, move = await _summon_then_move(h)
            await h.keys(move + ENTER)
            await h.until(lambda: client.view().turn != turn, "the turn to end")
            await h.until(lambda: "ended by itself" in h.ui.message[1], "the cue")
            assert h.ui.message == ("class:warn", f"played: {move}; your turn {turn + 1} ended "
                                    "by itself (nothing but 'end' was left)")
            assert f"Your turn {turn + 1} ended by itself (no action but 'end' was left)" \
                in client.log_lines()
            await h.finish()

    run(main())


def test_a_quick_end_after_a_move_does_not_end_the_next_turn() -> None:
    """The Move ends the turn by itself and the bot answers at once: an 'end' typed right
    after (before anyone could see the new turn) was meant for the turn that is over."""
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-auto-end")
        # the UI's input grace, made long enough that a loaded machine cannot outlast it
        async with ui_session(client, grace=2.0) as h:
            turn, move = await _summon_then_move(h)
            await h.keys(move + ENTER, settle=0)
            await h.until(lambda: client.view().turn == turn + 2 and bool(
                client.legal_actions()), "our next turn")
            await h.keys("end" + ENTER, settle=0.2)
            assert client.view().turn == turn + 2  # not ended
            style, text = h.ui.message
            assert style == "class:warn" and text == (
                f"not played: 'end' was for your turn {turn + 1}; it is your turn {turn + 3} "
                "now. Enter plays it.")
            assert h.ui.input_buffer.text == "end"  # kept: Enter again plays it
            await h.keys(ENTER)
            await h.until(lambda: client.view().turn > turn + 2, "the turn to end")
            assert h.ui.message == ("class:ok", "played: end")
            await h.finish()

    run(main())


def test_end_end_is_refused() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-end-end")
        async with ui_session(client) as h:
            await h.my_decision()
            turn = client.view().turn
            await h.keys("end end" + ENTER, settle=0.2)
            assert h.ui.message == ("class:error", "end end: 'end' takes 0 arguments (end), "
                                                   "got 1")
            assert client.view().turn == turn and h.ui.input_buffer.text == "end end"
            assert [format_input(a) for a in matching_actions(client.legal_actions(),
                                                               "end end")] == []
            await h.finish()

    run(main())


def test_a_refusal_does_not_outlive_its_decision() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-stale", opponent_delay=0.8)
        async with ui_session(client) as h:
            await h.my_decision()
            turn = client.view().turn
            await h.keys("end" + ENTER)
            await h.until(lambda: client.view().turn == turn + 1, "the opponent's turn")
            await h.settled()  # (the bot thinks 0.8 s: the state holds still meanwhile)
            await h.keys("end" + ENTER)  # not ours to play
            await h.until(lambda: h.ui.message[0] == "class:error", "the refusal")
            assert "not your decision" in h.ui.message[1]
            await h.keys(ESC)
            await h.until(lambda: client.view().turn == turn + 2, "our next turn")
            await h.until(lambda: h.ui.message[0] != "class:error", "the refusal to go")
            assert h.ui.message[1] == "F1 help · Tab completes · Ctrl-C quits"
            await h.finish()

    run(main())


def test_the_hand_shows_each_cards_key_and_handle() -> None:
    async def main() -> None:
        client = LocalMatchClient(seed=b"ui-hand-keys")
        output, _ = sized_output(130, 42)
        async with ui_session(client, output) as h:
            await h.my_decision()
            rows = await h.screen()
            hand = client.view().hand
            assert len(hand) >= 2
            for key, (handle, cid) in enumerate(hand, 1):
                x, y = find(rows, f"[{key}] {client.catalogue[cid].name}")
                assert f"#{handle} " in rows[y][x:], rows[y]
            assert "Your hand · [key 1-9] · #handle to type" in "\n".join(rows)
            await h.keys("2")
            assert h.ui.input_buffer.text.startswith(f"summon {hand[1][0]} ")
            await h.finish()

    run(main())
