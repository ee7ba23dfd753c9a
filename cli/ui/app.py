# The full-screen terminal UI of a match (prompt-toolkit), driven by a `MatchClient`.
#
# How it works. `run_ui(client)` runs an asyncio loop that hosts prompt-toolkit's Application
# and, as a guest, the trio run where the client lives (cli/ui/bridge.py explains the bridge).
# Inside trio, two tasks: the client's `run()` and a watcher that waits for `wait_changed()`
# and posts a redraw to the asyncio side. The UI reads the client's getters directly when it
# renders (one thread, so no locks) and sends `submit`/`resign`/`leave` through the bridge.
#
# The screen: a header (who, against whom, connection, clocks), the field (tile colours as
# backgrounds, cards with owner, Strength, face, absorbed count), a side panel (counts, the
# hand with each card's rules text, what stands under the cursor), the log (engine.narrate's
# sentences), a prompt line saying what the game waits for (including the choices the rules
# ask), a one-line message (the reason an input was refused), and the input line, which
# completes the legal actions in the engine notation. Below 80x24 the body gives way to a
# "terminal too small" note; the prompt, message and input lines stay usable.
#
# Modal states (help, the Ctrl-C "resign or leave?" menu, the resign confirmation, game over)
# are one enum, so which keys do what is a table of filters rather than scattered flags.
from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from enum import Enum
from typing import Any

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_session
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.data_structures import Point
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_completions
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    DynamicContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from versus.engine import (
    Action,
    ChoiceDecision,
    ChoiceKind,
    EngineError,
    format_input,
    parse_action,
)

from ..client import Connection, MatchClient, MatchResult
from . import render
from .bridge import TrioGuest

MIN_COLS, MIN_ROWS = 80, 24
WIDE_COLS = 118  # from here the hand sits beside the field with its rules text
REFRESH_SECONDS = 0.5  # clocks and the resume countdown tick without any event


class Mode(Enum):
    PLAY = "play"
    HELP = "help"
    QUIT_MENU = "quit-menu"  # Ctrl-C: resign or leave?
    CONFIRM_RESIGN = "confirm-resign"
    GAME_OVER = "game-over"


def one_line(error: BaseException | str, limit: int = 160) -> str:
    """An engine error as one short line: 'move b2 b4: b4 is not adjacent to b2'."""
    text = " ".join(str(error).split())
    m = re.match(r"illegal input '(.*?)' at turn .*?, awaiting [^:]*: (.*)$", text)
    if m:
        text = f"{m.group(1)}: {m.group(2)}"
    m = re.match(r"malformed action '(.*?)': (.*)$", text)
    if m:  # the engine may nest its field-level message (with a tuple repr) inside
        text = f"{m.group(1)}: {re.sub(r'^malformed action [(].*[)]: ', '', m.group(2))}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ActionCompleter(Completer):
    """Completes the legal actions (engine notation). What is typed is a prefix of an action,
    or a filter: every typed word (an area, a handle) must appear among its words."""

    def __init__(self, ui: MatchUI) -> None:
        self.ui = ui

    def matches(self, text: str) -> list[Action]:
        return matching_actions(self.ui.client.legal_actions(), text)

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        view = self.ui.client.view()
        for a in self.matches(text):
            yield Completion(format_input(a), start_position=-len(text),
                             display_meta=render.describe_action(view, self.ui.cat, a))


def matching_actions(legal: list[Action], text: str) -> list[Action]:
    stripped = " ".join(text.split())
    out = []
    for a in legal:
        words = format_input(a)
        if words.startswith(stripped) or _filter_match(words, stripped, text.endswith(" ")):
            out.append(a)
    return out


def _filter_match(action: str, typed: str, complete_last: bool) -> bool:
    want = typed.split()
    have = action.replace("/", " ").split()
    if not want:
        return True
    *whole, last = want
    if complete_last:
        whole, last = want, ""
    return all(w in have for w in whole) and (not last or any(h.startswith(last) for h in have))


class MatchUI:
    """The Application and its controller for one client."""

    def __init__(self, client: MatchClient, *, input: Input | None = None,
                 output: Output | None = None) -> None:
        self.client = client
        self.cat = client.catalogue
        self.mode = Mode.PLAY
        self.message: tuple[str, str] = ("class:dim", "F1 help · Tab completes · Ctrl-C quits")
        geom = client.view().geometry
        self.cursor = (0, 0) if client.seat == 0 else (geom.rows - 1, 0)
        self.guest: TrioGuest | None = None
        self.busy = False  # a submit is in flight
        self.input_buffer = Buffer(
            name="input", multiline=False, completer=ActionCompleter(self),
            complete_while_typing=True)
        self.app: Application[MatchResult | None] = Application(
            layout=Layout(self._build_root(), focused_element=self.input_window),
            key_bindings=self._bindings(), style=Style.from_dict(render.STYLE),
            full_screen=True, mouse_support=False, refresh_interval=REFRESH_SECONDS,
            input=input, output=output)
        self.app.ttimeoutlen = 0.05  # a lone Escape acts at once (not taken as a Meta prefix)

    # --- sizes ------------------------------------------------------------------------------
    def size(self) -> tuple[int, int]:
        app = getattr(self, "app", None)  # None while the layout is being built
        s = (app.output if app is not None else get_app_session().output).get_size()
        return s.columns, s.rows

    @property
    def cursor_area(self) -> str:
        geom = self.client.view().geometry
        r, c = self.cursor
        return geom.names[r * geom.cols + c]

    # --- layout -----------------------------------------------------------------------------
    def _build_root(self) -> FloatContainer:
        big = Condition(lambda: self.size()[0] >= MIN_COLS and self.size()[1] >= MIN_ROWS)
        self.input_window = Window(
            BufferControl(self.input_buffer, input_processors=[
                BeforeInput(lambda: [("class:input-prompt", "> ")])]),
            height=1)
        small_note = Window(FormattedTextControl(self._small_note), wrap_lines=True)
        wide, narrow = self._wide_body(), self._narrow_body()
        body = DynamicContainer(lambda: wide if self.size()[0] >= WIDE_COLS else narrow)
        root = HSplit([
            Window(FormattedTextControl(self._header), height=1, style="class:header"),
            ConditionalContainer(body, filter=big),
            ConditionalContainer(small_note, filter=~big),
            Window(FormattedTextControl(self._prompt_line), height=1),
            Window(FormattedTextControl(lambda: [self.message]), height=1),
            self.input_window,
        ])
        modal = Condition(lambda: self.mode is not Mode.PLAY)
        return FloatContainer(root, floats=[
            Float(xcursor=True, ycursor=True,
                  content=CompletionsMenu(max_height=12, scroll_offset=1)),
            Float(ConditionalContainer(
                Window(FormattedTextControl(self._modal_text), style="class:dialog",
                       wrap_lines=True, width=self._modal_width), filter=modal)),
        ])

    def _field_window(self) -> Window:
        rows = self.client.view().geometry.rows
        return Window(FormattedTextControl(
            lambda: render.render_field(self.client.view(), self.cat, self.cursor_area)),
            height=rows * 3 + 1, width=3 + render.CELL_W * self.client.view().geometry.cols,
            dont_extend_width=True)

    def _log_window(self) -> Window:
        return Window(FormattedTextControl(self._log_text, get_cursor_position=self._log_end,
                                           focusable=False),
                      wrap_lines=True, height=Dimension(min=2))

    def _wide_body(self) -> VSplit:
        side = HSplit([
            Window(FormattedTextControl(self._status_text), height=6),
            Window(FormattedTextControl(self._cursor_text), height=Dimension(min=2, max=4),
                   wrap_lines=True),
            Window(FormattedTextControl(lambda: render.hand_fragments(
                self.client.view(), self.cat, max(20, self.size()[0] - 76))),
                wrap_lines=True),
        ], padding=1, padding_char="─", padding_style="class:dim")
        left = HSplit([self._field_window(), self._log_window()], padding=1,
                      padding_char="─", padding_style="class:dim")
        return VSplit([left, side], padding=1, padding_char="│", padding_style="class:dim")

    def _narrow_body(self) -> HSplit:
        return HSplit([
            self._field_window(),
            Window(FormattedTextControl(self._status_compact), height=2),
            Window(FormattedTextControl(self._cursor_text), height=Dimension(min=1, max=2),
                   wrap_lines=True),
            Window(FormattedTextControl(lambda: render.hand_fragments(
                self.client.view(), self.cat, self.size()[0], with_text=self.size()[1] > 34)),
                height=Dimension(min=2, max=12), wrap_lines=True),
            self._log_window(),
        ])

    # --- text of the windows ----------------------------------------------------------------
    def _header(self) -> StyleAndTextTuples:
        c = self.client
        view = c.view()
        clocks = c.clocks()
        return [("class:header bold", f" Versus · you: player {c.seat} "),
                ("class:header", f"· opponent {c.opponent_fingerprint} · turn {view.turn + 1} "
                 f"· clocks you {render.clock_text(clocks, c.seat)} / opp "
                 f"{render.clock_text(clocks, 1 - c.seat)} ")]

    def _status_text(self) -> StyleAndTextTuples:
        c = self.client
        view = c.view()
        zones = view.to_dict()["zones"]
        clocks = c.clocks()
        out: StyleAndTextTuples = []
        for p, who in ((c.seat, "You"), (1 - c.seat, "Opponent")):
            out += [("class:title", f"{who} (player {p})"),
                    ("", f"  clock {render.clock_text(clocks, p)}\n"),
                    ("", f"  {render.counts_line(view, p, zones)}\n")]
        out += [("class:dim", f"Opponent id {c.opponent_fingerprint}\n")]
        out += render.connection_fragments(c.connection())
        return out

    def _status_compact(self) -> StyleAndTextTuples:
        """Two lines for narrow terminals: counts per player, then the connection."""
        c = self.client
        view = c.view()
        zones = view.to_dict()["zones"]
        out: StyleAndTextTuples = []
        for p, who in ((c.seat, "You"), (1 - c.seat, "Opp")):
            out += [("class:title", f"{who} "), ("", f"{render.counts_line(view, p, zones)}  ")]
        out.append(("", "\n"))
        return out + render.connection_fragments(c.connection())

    def _cursor_text(self) -> StyleAndTextTuples:
        return render.cursor_fragments(self.client.view(), self.cat, self.cursor_area)

    def _log_text(self) -> StyleAndTextTuples:
        lines = self.client.log_lines()[-300:]
        return [("class:log", "\n".join(lines))]

    def _log_end(self) -> Point:
        return Point(0, max(0, len(self.client.log_lines()[-300:]) - 1))

    def _prompt_line(self) -> StyleAndTextTuples:
        c = self.client
        status = c.connection()
        if (status.state in (Connection.RECONNECTING, Connection.CONNECTING)
                and c.result is None):
            return render.connection_fragments(status)
        return [render.decision_prompt(c.view(), self.cat, c.result, status)]

    def _small_note(self) -> StyleAndTextTuples:
        cols, rows = self.size()
        return [("class:warn", f"Terminal too small ({cols}x{rows}); the board needs "
                 f"{MIN_COLS}x{MIN_ROWS}. Enlarge the window. Typing still works; F1 help, "
                 "Ctrl-C resign or leave.")]

    def _modal_width(self) -> int:
        return min(self.size()[0] - 2, 96) if self.mode is Mode.HELP else 60

    def _modal_text(self) -> StyleAndTextTuples:
        if self.mode is Mode.HELP:
            return [("class:help", render.HELP_TEXT)]
        if self.mode is Mode.QUIT_MENU:
            return [("class:title", " Resign or leave?\n\n"),
                    ("", "  r  resign (the opponent wins)\n"
                         "  l  leave (a network match can be resumed)\n"
                         "  Esc  back to the game\n")]
        if self.mode is Mode.CONFIRM_RESIGN:
            return [("class:title", " Really resign this match?\n\n"),
                    ("", "  y  yes, resign      n / Esc  no\n")]
        result = self.client.result
        text = result.describe(self.client.seat) if result else "the match is closed"
        return [("class:title", f" Game over: {text}\n\n"), ("", "  Enter or q closes\n")]

    # --- key bindings -----------------------------------------------------------------------
    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        playing = Condition(lambda: self.mode is Mode.PLAY)
        menu = Condition(lambda: self.mode is Mode.QUIT_MENU)
        confirm = Condition(lambda: self.mode is Mode.CONFIRM_RESIGN)
        over = Condition(lambda: self.mode is Mode.GAME_OVER)
        helping = Condition(lambda: self.mode is Mode.HELP)
        empty = Condition(lambda: self.input_buffer.text == "")
        after_space = Condition(lambda: self.input_buffer.text.endswith(" "))
        menu_open = has_completions & Condition(
            lambda: self.input_buffer.complete_state is not None)

        @kb.add("c-c", filter=playing | helping)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.QUIT_MENU

        @kb.add("c-c", filter=menu)
        @kb.add("l", filter=menu)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.PLAY
            self._spawn(self._leave())

        @kb.add("r", filter=menu)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.CONFIRM_RESIGN

        @kb.add("y", filter=confirm)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.PLAY
            self._spawn(self._resign())

        @kb.add("n", filter=confirm)
        @kb.add("escape", filter=menu | confirm | helping, eager=True)
        @kb.add("c-c", filter=confirm)
        @kb.add("f1", filter=helping)
        @kb.add("q", filter=helping)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.PLAY

        @kb.add("enter", filter=over)
        @kb.add("q", filter=over)
        @kb.add("c-c", filter=over)
        def _(event: KeyPressEvent) -> None:
            event.app.exit(result=self.client.result)

        @kb.add("f1", filter=playing)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.HELP

        for key, dr, dc in (("up", 1, 0), ("down", -1, 0), ("left", 0, -1), ("right", 0, 1)):
            @kb.add(key, filter=playing & (~menu_open if key in ("up", "down") else playing))
            def _(event: KeyPressEvent, dr: int = dr, dc: int = dc) -> None:
                self.move_cursor(dr, dc)

        @kb.add("enter", filter=playing)
        def _(event: KeyPressEvent) -> None:
            buf = self.input_buffer
            state = buf.complete_state
            if state is not None and state.current_completion is not None:
                buf.apply_completion(state.current_completion)
                return
            if buf.text.strip() == "":
                self.pick_area(self.cursor_area)
            else:
                self.enter_line(buf.text)

        @kb.add("space", filter=playing & (empty | after_space))
        def _(event: KeyPressEvent) -> None:
            self.pick_area(self.cursor_area)

        for digit in "123456789":
            @kb.add(digit, filter=playing & empty)
            def _(event: KeyPressEvent, n: int = int(digit)) -> None:
                self.pick_hand(n)

        @kb.add("escape", filter=playing, eager=True)
        def _(event: KeyPressEvent) -> None:
            self.input_buffer.reset()

        @kb.add("<any>", filter=~playing)
        def _(event: KeyPressEvent) -> None:
            pass  # a modal is open: other keys do nothing (typing is not lost into the game)

        return kb

    # --- controller -------------------------------------------------------------------------
    def move_cursor(self, drow: int, dcol: int) -> None:
        geom = self.client.view().geometry
        if self.client.seat == 1:  # the board is drawn upside down for player 1
            drow = -drow
        r, c = self.cursor
        self.cursor = (min(max(r + drow, 0), geom.rows - 1), min(max(c + dcol, 0), geom.cols - 1))

    def set_line(self, text: str) -> None:
        self.input_buffer.document = Document(text, len(text))

    def offer(self, line: str) -> None:
        """Put a picked prefix or filter on the line. One matching action is written out in
        full (Enter plays it); several are counted (Tab lists them). The menu is not opened
        here, so the arrows keep moving the field cursor."""
        found = matching_actions(self.client.legal_actions(), line)
        if not found:
            self.say("error", f"{line.strip()}: no legal action matches")
        elif len(found) == 1:
            self.set_line(format_input(found[0]))
            self.say("info", "Enter plays it")
        else:
            self.set_line(line)
            self.say("info", f"{len(found)} legal actions match '{line.strip()}': Tab lists "
                     "them, or pick more areas (Space)")

    def pick_area(self, area: str) -> None:
        """The cursor's area goes on the input line; the completion menu lists what it can do."""
        view = self.client.view()
        d = view.decision
        if (isinstance(d, ChoiceDecision) and d.player == view.player
                and d.kind is ChoiceKind.DISCARD_FROM_FIELD):
            fc = next((f for f in view.field if f.area == area), None)
            if fc is not None and fc.handle in d.options:
                self.set_line(f"pick {fc.handle}")
            else:
                self.say("error", f"{area}: no card of yours to discard there")
            return
        text = self.input_buffer.text
        self.offer((text + area + " ") if text.strip() else area + " ")

    def pick_hand(self, n: int) -> None:
        view = self.client.view()
        d = view.decision
        if (isinstance(d, ChoiceDecision) and d.player == view.player
                and d.kind is ChoiceKind.DISCARD_FROM_HAND):
            if n > len(d.options):
                self.say("error", f"there is no option {n}")
                return
            self.set_line(f"pick {d.options[n - 1]}")
            return
        hand = view.hand
        if n > len(hand):
            self.say("error", f"your hand has {len(hand)} card(s)")
            return
        handle = hand[n - 1][0]
        if not matching_actions(self.client.legal_actions(), f"summon {handle} "):
            self.say("error", f"card {n} (#{handle}) cannot be summoned now")
            return
        self.offer(f"summon {handle} ")

    def enter_line(self, text: str) -> None:
        word = text.strip().lower()
        if word in ("help", "?"):
            self.mode = Mode.HELP
            self.input_buffer.reset()
            return
        if word in ("quit", "exit", "resign", "leave"):
            self.mode = Mode.QUIT_MENU
            self.input_buffer.reset()
            return
        try:
            action = parse_action(" ".join(text.split()))
        except EngineError as e:
            found = matching_actions(self.client.legal_actions(), text)
            if len(found) == 1:
                action = found[0]
            else:
                hint = f" ({len(found)} legal actions match: Tab lists them)" if found else ""
                reason = one_line(e)
                typed = " ".join(text.split())
                if not reason.startswith(typed):
                    reason = f"{typed}: {reason}"
                self.say("error", reason + hint)
                return
        self._spawn(self._submit(action))

    def say(self, kind: str, text: str) -> None:
        self.message = (f"class:{kind}", one_line(text, 200))
        self.app.invalidate()

    def on_change(self) -> None:
        """Posted by the trio watcher whenever the client changed."""
        if self.client.result is not None and self.mode in (Mode.PLAY, Mode.HELP):
            self.mode = Mode.GAME_OVER
        self.app.invalidate()

    # --- calls into trio --------------------------------------------------------------------
    def _spawn(self, coro: Any) -> None:
        self.app.create_background_task(coro)

    async def _call(self, fn: Any, *args: Any) -> Any:
        assert self.guest is not None, "run_ui starts the trio guest first"
        return await self.guest.call(fn, *args)

    async def _submit(self, action: Action) -> None:
        if self.busy:
            self.say("error", "one action at a time: the previous one is still being sent")
            return
        self.busy = True
        sent = self.input_buffer.text
        try:
            await self._call(self.client.submit, action)
        except EngineError as e:
            self.say("error", one_line(e))
        else:
            if self.input_buffer.text == sent:  # keep whatever was typed in the meantime
                self.input_buffer.reset()
            self.say("ok", f"played: {format_input(action)}")
        finally:
            self.busy = False

    async def _resign(self) -> None:
        await self._call(self.client.resign)
        self.on_change()

    async def _leave(self) -> None:
        await self._call(self.client.leave)
        self.app.exit(result=self.client.result)

    # --- trio side ----------------------------------------------------------------------------
    async def trio_main(self, guest: TrioGuest) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._watch, guest)
            await self.client.run()
            guest.post(self.on_change)
            await trio.sleep_forever()  # keep serving calls until the UI closes

    async def _watch(self, guest: TrioGuest) -> None:
        while True:
            await self.client.wait_changed()
            guest.post(self.on_change)


async def run_ui_async(client: MatchClient, *, input: Input | None = None,
                       output: Output | None = None,
                       ui_ready: asyncio.Future[MatchUI] | None = None) -> MatchResult | None:
    ui = MatchUI(client, input=input, output=output)
    async with TrioGuest(ui.trio_main) as guest:
        ui.guest = guest
        if ui_ready is not None:
            ui_ready.set_result(ui)
        app_task = asyncio.ensure_future(ui.app.run_async())
        done_task = asyncio.ensure_future(guest.wait_done())
        await asyncio.wait([app_task, done_task], return_when=asyncio.FIRST_COMPLETED)
        if done_task.done() and not app_task.done():  # trio ended first: a client failure
            ui.app.exit()
            await app_task
            done_task.result()  # raises the client's error
        done_task.cancel()
        await app_task
    return client.result


def run_ui(client: MatchClient, *, input: Input | None = None,
           output: Output | None = None) -> MatchResult | None:
    """Play `client`'s match in the terminal; returns its result (None if left unfinished)."""
    return asyncio.run(run_ui_async(client, input=input, output=output))

