# The full-screen terminal UI of a match (prompt-toolkit), driven by a `MatchClient`.
#
# How it works. `run_ui(client)` runs an asyncio loop that hosts prompt-toolkit's Application
# and, as a guest, the trio run where the client lives (cli/ui/bridge.py explains the bridge).
# Inside trio, two tasks: the client's `run()` and a watcher that waits for `wait_changed()`
# and posts a redraw to the asyncio side. The UI reads the client's getters directly when it
# renders (one thread, so no locks) and sends `submit`/`resign`/`leave` through the bridge.
#
# The screen: a header (who, against whom, turn, clocks), the field (tile colours as
# backgrounds and tile names, cards with owner mark, Strength, face, absorbed count), the
# counts, the hand (key, name, handle, rules text), what stands under the cursor, the log
# (engine.narrate's sentences), a prompt line saying what the game waits for, a message line
# (why an input was refused, that a turn ended by itself) and the input line, which completes
# the legal actions in the engine notation. From WIDE_COLS columns the side panel stands beside
# the field; below, everything is stacked. Columns have fixed widths (the field's, and the rest
# of the terminal): every text is wrapped at word boundaries into its window by
# cli/ui/controls.py, so no content can widen a column or clip another. Below 80x24 the body
# gives way to a "terminal too small" note; the prompt, message and input lines stay usable.
#
# An input is bound to the decision it was typed for. The UI keeps the recent decisions (the
# engine state, compared by its canonical encoding) with the time each appeared; a line is
# bound when its first character is typed (or a pick puts it there) to the decision that had
# been on screen for INPUT_GRACE seconds by then, since a person cannot have reacted to a newer
# one. Enter plays the line only if that decision is still the current one; otherwise it says
# what changed, keeps the line and binds it to the current decision (Enter again plays it).
# This is what stops a quick `end` typed after a Move (which may end the turn by itself, the
# opponent then playing at once) from ending the next turn. A turn of ours that ended by itself
# is said on the message line (the log says it too, from engine.narrate).
#
# Mouse (prompt-toolkit mouse support): a click on an area moves the cursor there and picks it
# (as Space), on a hand card picks it (as its key), on a completion plays that completion.
#
# Modal states (help, the Ctrl-C "resign or leave?" menu, the resign confirmation, game over)
# are one enum, so which keys do what is a table of filters rather than scattered flags.
from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app_session
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_completions
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
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
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from versus.engine import EngineError
from versus.engine.versus42 import (
    Action,
    ActionKind,
    ChoiceDecision,
    ChoiceKind,
    TurnDecision,
    encode_state,
    format_input,
    parse_action,
)

from ..client import Connection, MatchClient, MatchResult
from . import render
from .bridge import TrioGuest
from .controls import WrapControl
from .theme import chosen_theme, no_color, style_rules

MIN_COLS, MIN_ROWS = 80, 24
WIDE_COLS = 120  # from here the side panel (counts, cursor, hand with rules text) sits beside
FIELD_HEADER_ROWS = 26  # from here (or wide) the column letters are drawn above the field
REFRESH_SECONDS = 0.5  # clocks and the resume countdown tick without any event
INPUT_GRACE = 0.5  # s: a line begun sooner after a change was typed for the decision before
HINT = ("class:dim", "F1 help · Tab completes · Ctrl-C quits")


class Mode(Enum):
    PLAY = "play"
    HELP = "help"
    QUIT_MENU = "quit-menu"  # Ctrl-C: resign or leave?
    CONFIRM_RESIGN = "confirm-resign"
    GAME_OVER = "game-over"


@dataclass(frozen=True, slots=True)
class SeenDecision:
    """One state of the game as the UI showed it: when it appeared, and in words."""

    key: bytes  # the public state's canonical encoding
    since: float  # time.monotonic() when the UI saw it
    turn: int
    words: str  # "your turn 3", "the opponent's turn 4", ...


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
    """Every typed word is a word of the action, as many times as typed ('end end' is not
    'end'); the last one may be a prefix while it is being typed."""
    want = typed.split()
    have = action.replace("/", " ").split()
    if not want:
        return True
    *whole, last = want
    if complete_last:
        whole, last = want, ""
    left = list(have)
    for w in whole:
        if w not in left:
            return False
        left.remove(w)
    return not last or any(h.startswith(last) for h in left)


class MatchUI:
    """The Application and its controller for one client."""

    def __init__(self, client: MatchClient, *, input: Input | None = None,
                 output: Output | None = None, theme: str | None = None) -> None:
        self.client = client
        self.cat = client.catalogue
        self.mode = Mode.PLAY
        self.message: tuple[str, str] = HINT
        self.message_for: bytes | None = None  # the decision a message is about (None: any)
        geom = client.view().geometry
        self.cursor = (0, 0) if client.seat == 0 else (geom.rows - 1, 0)
        self.guest: TrioGuest | None = None
        self.busy = False  # a submit is in flight
        self.help_top = 0  # the first help line shown (the help scrolls)
        self.input_grace = INPUT_GRACE
        self.decisions: list[SeenDecision] = []  # the recent ones, oldest first
        self.bound: SeenDecision | None = None  # what the input line was typed for
        self._open_turn: int | None = None  # our turn in progress (or last seen)
        self._ended_by_us: int | None = None  # the last turn we ended with `end`
        self._last_played = ""
        self.note_decision()
        self.input_buffer = Buffer(
            name="input", multiline=False, completer=ActionCompleter(self),
            complete_while_typing=True)
        self.input_buffer.on_text_changed += self._text_changed
        self.theme = chosen_theme(theme)
        colourless = no_color()
        self.app: Application[MatchResult | None] = Application(
            layout=Layout(self._build_root(), focused_element=self.input_window),
            key_bindings=self._bindings(),
            style=Style.from_dict(style_rules(self.theme, colourless=colourless)),
            color_depth=ColorDepth.DEPTH_1_BIT if colourless else None,
            full_screen=True, mouse_support=True, refresh_interval=REFRESH_SECONDS,
            input=input, output=output)
        self.app.ttimeoutlen = 0.05  # a lone Escape acts at once (not taken as a Meta prefix)

    # --- sizes ------------------------------------------------------------------------------
    def size(self) -> tuple[int, int]:
        app = getattr(self, "app", None)  # None while the layout is being built
        s = (app.output if app is not None else get_app_session().output).get_size()
        return s.columns, s.rows

    @property
    def wide(self) -> bool:
        return self.size()[0] >= WIDE_COLS

    @property
    def cursor_area(self) -> str:
        geom = self.client.view().geometry
        r, c = self.cursor
        return geom.names[r * geom.cols + c]

    @property
    def started(self) -> bool:
        return self.client.match_started

    # --- layout -----------------------------------------------------------------------------
    def _build_root(self) -> FloatContainer:
        big = Condition(lambda: self.size()[0] >= MIN_COLS and self.size()[1] >= MIN_ROWS)
        self.input_window = Window(
            BufferControl(self.input_buffer, input_processors=[
                BeforeInput(lambda: [("class:input-prompt", "> ")])]),
            height=1)
        small_note = Window(WrapControl(lambda w: self._small_note()))
        wide, narrow = self._wide_body(), self._narrow_body()
        body = DynamicContainer(lambda: wide if self.wide else narrow)
        root = HSplit([
            Window(FormattedTextControl(self._header), height=1, style="class:header"),
            ConditionalContainer(body, filter=big),
            ConditionalContainer(small_note, filter=~big),
            self._fitted(WrapControl(lambda w: self._prompt_line(),
                                     lambda w: self._prompt_line(short=True)),
                         self._cols, 1, 2),
            self._fitted(WrapControl(lambda w: [self._message_fragment()]), self._cols,
                         1, 2),
            self.input_window,
        ])
        modal = Condition(lambda: self.mode is not Mode.PLAY)
        return FloatContainer(root, floats=[
            Float(xcursor=True, ycursor=True,
                  content=CompletionsMenu(max_height=12, scroll_offset=1)),
            Float(ConditionalContainer(Frame(
                Window(WrapControl(self._modal_source), width=self._modal_width,
                       height=self._modal_height, style=self._modal_style)), filter=modal)),
        ])

    def _cols(self) -> int:
        return self.size()[0]

    def _fitted(self, control: WrapControl, width: Callable[[], int], lo: int, hi: int
                ) -> Window:
        """A window exactly as tall as its wrapped text (from `lo` to `hi` lines): it takes
        no spare rows, which go to the log and the hand."""
        return Window(control, height=lambda: Dimension.exact(
            control.best_height(width(), lo, hi)))

    def _flexible(self, control: WrapControl, width: Callable[[], int], lo: int, hi: int
                  ) -> Window:
        """A window from `lo` lines up to its text's full height (at most `hi`): short of
        rows, its control falls back to a shorter source or cuts with "…"."""
        def height() -> Dimension:
            full = max(lo, min(hi, len(control.lines(width()))))
            return Dimension(min=lo, max=full, preferred=full)
        return Window(control, height=height)

    def _field_window(self) -> Window:
        geom = self.client.view().geometry

        def header() -> bool:
            return self.wide or self.size()[1] >= FIELD_HEADER_ROWS

        return Window(FormattedTextControl(lambda: render.render_field(
            self.client.view(), self.cat, self.cursor_area, click=self.click_area,
            with_header=header(), waiting=None if self.started else self._waiting_note())),
            height=lambda: render.field_height(geom.rows, header()),
            width=render.field_width(geom.cols), dont_extend_width=True)

    def _log_window(self) -> Window:
        return Window(WrapControl(lambda w: self._log_text(), tail=True),
                      height=Dimension(min=1, weight=2))

    def _side_width(self) -> int:
        return max(1, self.size()[0] - render.field_width(self.client.view().geometry.cols) - 1)

    def _wide_body(self) -> VSplit:
        field_w = render.field_width(self.client.view().geometry.cols)
        side = HSplit([
            self._fitted(WrapControl(lambda w: self._status_text()), self._side_width, 3, 7),
            self._fitted(WrapControl(lambda w: self._cursor_text(True)), self._side_width,
                         2, 6),
            Window(WrapControl(lambda w: self._hand(True), lambda w: self._hand(False),
                               lambda w: self._hand_compact())),
        ], padding=1, padding_char="─", padding_style="class:dim", width=self._side_width)
        left = HSplit([self._field_window(), self._log_window()], padding=1,
                      padding_char="─", padding_style="class:dim", width=field_w)
        return VSplit([left, side], padding=1, padding_char="│", padding_style="class:dim")

    def _narrow_body(self) -> HSplit:
        return HSplit([
            self._field_window(),
            self._fitted(WrapControl(lambda w: self._status_compact(True),
                                     lambda w: self._status_compact(False)), self._cols,
                         1, 2),
            self._flexible(WrapControl(*self._narrow_hand_sources()), self._cols, 1, 12),
            self._flexible(WrapControl(lambda w: self._cursor_text(True),
                                       lambda w: self._cursor_text(False)), self._cols,
                           1, 4),
            self._log_window(),
        ])

    def _narrow_hand_sources(self) -> list[Callable[[int], StyleAndTextTuples]]:
        """Tall enough: the hand with its rules text, else as compact as it gets (a shorter
        fallback in between would leave blank rows in the stacked layout)."""
        def full(width: int) -> StyleAndTextTuples:
            return self._hand(True) if self.size()[1] > 34 else self._hand_compact()
        return [full, lambda w: self._hand_compact()]

    # --- text of the windows ----------------------------------------------------------------
    def _header(self) -> StyleAndTextTuples:
        c = self.client
        view = c.view()
        clocks = c.clocks()
        clock = ("· untimed " if clocks is None else
                 f"· clocks you {render.clock_text(clocks, c.seat)} / opp "
                 f"{render.clock_text(clocks, 1 - c.seat)} ")
        status = c.connection()
        link = "● connected" if status.state is Connection.CONNECTED else status.state.value
        return render.fit_parts([
            ("class:header bold", " Versus ", 0),
            ("class:header", f"· you: player {c.seat} ", 1),
            ("class:header", f"· turn {view.turn + 1} " if self.started else "· no match yet ",
             2),
            ("class:header", clock, 3),
            ("class:header", f"· opponent {c.opponent_fingerprint} ", 5),
            ("class:header", f"· {link} ", 4),
        ], self.size()[0])

    def _waiting_note(self) -> str:
        return "waiting for the match: the field is dealt when it starts"

    def _status_text(self) -> StyleAndTextTuples:
        c = self.client
        view = c.view()
        zones = view.to_dict()["zones"]
        clocks = c.clocks()
        out: StyleAndTextTuples = []
        if not self.started:
            out.append(("class:warn", "Waiting for the match (the log says what happens)\n"))
        else:
            for p, who in ((c.seat, "You"), (1 - c.seat, "Opponent")):
                out += [("class:title", f"{who} (player {p})"),
                        ("", f"  clock {render.clock_text(clocks, p)}\n"),
                        ("", f"  {render.counts_line(view, p, zones)}\n")]
        out += [("class:dim", f"Opponent id {c.opponent_fingerprint}\n")]
        out += render.connection_fragments(c.connection())
        return out

    def _status_compact(self, short: bool) -> StyleAndTextTuples:
        """Counts per player for the stacked layout (`short`: on one line)."""
        c = self.client
        if not self.started:
            return [("class:warn", "Waiting for the match (the log says what happens)")]
        view = c.view()
        zones = view.to_dict()["zones"]
        out: StyleAndTextTuples = []
        for n, (p, who) in enumerate(((c.seat, "You"), (1 - c.seat, "Opp"))):
            sep = ("", "" if n == 0 else " · " if short else "\n")
            out += [sep, ("class:title", f"{who}: " if not short else f"{who} "),
                    ("", render.counts_line(view, p, zones, short=short))]
        return out

    def _cursor_text(self, with_text: bool) -> StyleAndTextTuples:
        if not self.started:
            return [("class:dim", f"Cursor {self.cursor_area}: the field is not dealt yet")]
        return render.cursor_fragments(self.client.view(), self.cat, self.cursor_area,
                                       with_text=with_text)

    def _hand(self, with_text: bool) -> StyleAndTextTuples:
        return render.hand_fragments(self.client.view(), self.cat, with_text=with_text,
                                     click=self.click_hand)

    def _hand_compact(self) -> StyleAndTextTuples:
        return render.hand_compact(self.client.view(), self.cat, click=self.click_hand)

    def _log_text(self) -> StyleAndTextTuples:
        lines = self.client.log_lines()[-120:]
        return [("class:log", "\n".join(render.user_words(line) for line in lines))]

    def _prompt_line(self, short: bool = False) -> StyleAndTextTuples:
        c = self.client
        status = c.connection()
        if (status.state in (Connection.RECONNECTING, Connection.CONNECTING)
                and c.result is None):
            return render.connection_fragments(status)
        return [render.decision_prompt(c.view(), self.cat, c.result, status, short=short)]

    def _message_fragment(self) -> tuple[str, str]:
        style, text = self.message
        return style, render.MESSAGE_MARKS.get(style, "") + text

    def _small_note(self) -> StyleAndTextTuples:
        cols, rows = self.size()
        return [("class:warn", f"Terminal too small ({cols}x{rows}); the board needs "
                 f"{MIN_COLS}x{MIN_ROWS}. Enlarge the window. Typing still works; F1 help, "
                 "Ctrl-C resign or leave.")]

    # --- modal boxes ------------------------------------------------------------------------
    def _modal_width(self) -> int:
        """The dialog's text width (its frame takes a column on each side)."""
        return min(self.size()[0] - 2, 94) if self.mode is Mode.HELP else min(
            self.size()[0] - 4, 58)

    def _modal_height(self) -> Dimension:
        if self.mode is Mode.HELP:
            return Dimension.exact(self._help_rows())
        return Dimension()

    def _modal_style(self) -> str:
        return "class:help" if self.mode is Mode.HELP else "class:dialog"

    def _help_rows(self) -> int:
        total = len(self._help_lines(self._modal_width()))
        return max(3, min(total + 1, self.size()[1] - 4))  # the frame takes two rows

    def _help_lines(self, width: int) -> list[StyleAndTextTuples]:
        return list(split_lines(render.wrap_fragments([("", render.HELP_TEXT.rstrip("\n"))],
                                                      width)))

    def _help_source(self, width: int) -> StyleAndTextTuples:
        lines = self._help_lines(width)
        shown = self._help_rows() - 1
        self.help_top = max(0, min(self.help_top, len(lines) - shown))
        out: StyleAndTextTuples = []
        for line in lines[self.help_top:self.help_top + shown]:
            out += [*line, ("", "\n")]
        last = min(len(lines), self.help_top + shown)
        scroll = "↑/↓ PgUp/PgDn scroll · " if shown < len(lines) else ""
        out.append(("class:title", f"{scroll}F1, Esc or q closes · lines {self.help_top + 1}–"
                                   f"{last} of {len(lines)}"))
        return out

    def _modal_source(self, width: int) -> StyleAndTextTuples:
        if self.mode is Mode.HELP:
            return self._help_source(width)
        if self.mode is Mode.QUIT_MENU:
            return [("class:title", " Resign or leave?\n\n"),
                    ("", "  r  resign (the opponent wins)\n"
                         "  l  leave (host or join: resume it later with --resume)\n"
                         "  Esc  back to the game\n")]
        if self.mode is Mode.CONFIRM_RESIGN:
            return [("class:title", " Really resign this match?\n\n"),
                    ("", "  y  yes, resign      n / Esc  no\n")]
        result = self.client.result
        text = result.describe(self.client.seat) if result else "the match is closed"
        return [("class:title", f" Game over: {render.user_words(text)}\n\n"),
                ("", "  Enter or q closes\n")]

    def _modal_text(self) -> StyleAndTextTuples:
        return self._modal_source(self._modal_width())

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

        for key, delta in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10),
                           ("home", -10_000), ("end", 10_000)):
            @kb.add(key, filter=helping)
            def _(event: KeyPressEvent, delta: int = delta) -> None:
                self.help_top = max(0, self.help_top + delta)  # clamped when drawn

        @kb.add("enter", filter=over)
        @kb.add("q", filter=over)
        @kb.add("c-c", filter=over)
        def _(event: KeyPressEvent) -> None:
            event.app.exit(result=self.client.result)

        @kb.add("f1", filter=playing)
        def _(event: KeyPressEvent) -> None:
            self.open_help()

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

        @kb.add("escape", filter=playing & menu_open, eager=True)
        def _(event: KeyPressEvent) -> None:
            self.input_buffer.cancel_completion()  # the menu closes; the typed line stays

        @kb.add("escape", filter=playing & ~menu_open, eager=True)
        def _(event: KeyPressEvent) -> None:
            self.clear_line()

        @kb.add("<any>", filter=~playing)
        def _(event: KeyPressEvent) -> None:
            pass  # a modal is open: other keys do nothing (typing is not lost into the game)

        return kb

    # --- controller -------------------------------------------------------------------------
    def open_help(self) -> None:
        self.mode = Mode.HELP
        self.help_top = 0

    def move_cursor(self, drow: int, dcol: int) -> None:
        geom = self.client.view().geometry
        if self.client.seat == 1:  # the board is drawn upside down for player 1
            drow = -drow
        r, c = self.cursor
        self.cursor = (min(max(r + drow, 0), geom.rows - 1), min(max(c + dcol, 0), geom.cols - 1))

    def click_area(self, area: str) -> None:
        """A click on an area: the cursor goes there and picks it (as Space)."""
        if self.mode is not Mode.PLAY:
            return
        geom = self.client.view().geometry
        i = geom.index[area]
        self.cursor = divmod(i, geom.cols)
        self.pick_area(area)

    def click_hand(self, n: int) -> None:
        """A click on the n-th card of the hand: as its number key."""
        if self.mode is Mode.PLAY:
            self.pick_hand(n)

    def set_line(self, text: str) -> None:
        self.input_buffer.document = Document(text, len(text))

    def clear_line(self) -> None:
        self.input_buffer.reset()  # (fires no text-changed event)
        self.bound = None

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
            self.say("error", f"card [{n}] (#{handle}) cannot be summoned now")
            return
        self.offer(f"summon {handle} ")

    def enter_line(self, text: str) -> None:
        word = text.strip().lower()
        if word in ("help", "?"):
            self.open_help()
            self.clear_line()
            return
        if word in ("quit", "exit", "resign", "leave"):
            self.mode = Mode.QUIT_MENU
            self.clear_line()
            return
        typed = " ".join(text.split())
        try:
            action = parse_action(typed)
        except EngineError as e:
            found = matching_actions(self.client.legal_actions(), text)
            if len(found) == 1:
                action = found[0]
            else:
                hint = f" ({len(found)} legal actions match: Tab lists them)" if found else ""
                reason = one_line(e)
                if not reason.startswith(typed):
                    reason = f"{typed}: {reason}"
                self.say("error", reason + hint)
                return
        now = self.current_decision()
        bound = self.bound or now
        if bound.key != now.key:
            self.refuse_stale(typed, bound, now)
            return
        self._spawn(self._submit(action, now.key))

    def refuse_stale(self, typed: str, bound: SeenDecision, now: SeenDecision) -> None:
        """The line was typed for a decision that is over: say so, keep it, rebind it."""
        if bound.turn != now.turn:
            why = f"'{typed}' was for {bound.words}; it is {now.words} now"
        else:
            why = f"the board changed while '{typed}' was typed"
        self.bound = now
        self.say("warn", f"not played: {why}. Enter plays it.")

    def say(self, kind: str, text: str) -> None:
        """Put `text` on the message line. A refusal, a warning or a hint is about the current
        decision and goes when it changes; what was played stays until the next message."""
        self.message = (f"class:{kind}", one_line(text, 200))
        self.message_for = None if kind == "ok" else self.current_decision().key
        self.app.invalidate()

    def on_change(self) -> None:
        """Posted by the trio watcher whenever the client changed."""
        if self.client.result is not None and self.mode in (Mode.PLAY, Mode.HELP):
            self.mode = Mode.GAME_OVER
        self.note_decision()
        self.app.invalidate()

    # --- decisions and the input line ---------------------------------------------------------
    def current_decision(self) -> SeenDecision:
        view = self.client.view()
        key = encode_state(view.public_state)
        last = self.decisions[-1] if self.decisions else None
        if last is not None and last.key == key:
            return last
        return SeenDecision(key, time.monotonic(), view.turn, self._decision_words())

    def _decision_words(self) -> str:
        view = self.client.view()
        d = view.decision
        if not self.started:
            return "the match setup"
        if self.client.result is not None or view.result is not None:
            return "the end of the match"
        whose = "your" if view.active_player == view.player else "the opponent's"
        if isinstance(d, ChoiceDecision) and d.player == view.player:
            return f"your discard choice in turn {view.turn + 1}"
        return f"{whose} turn {view.turn + 1}"

    def note_decision(self) -> None:
        """Record the decision now shown if it is new; a new one clears a refusal message
        about the last one and says if our turn ended by itself."""
        now = self.current_decision()
        if self.decisions and self.decisions[-1].key == now.key:
            return
        self.decisions = [*self.decisions[-7:], now]
        if self.message_for is not None and self.message_for != now.key:
            self.message, self.message_for = HINT, None  # it was about a decision now over
        if not self.busy:  # else once the submit is answered (it says what was played first)
            self.check_turn_end()

    def check_turn_end(self) -> None:
        """Say so when our turn ended by itself; remember the turn we are playing."""
        view = self.client.view()
        if self._open_turn is not None and view.turn > self._open_turn:
            if self._ended_by_us != self._open_turn and self.client.result is None:
                ended = f"your turn {self._open_turn + 1} ended by itself"
                played = f"played: {self._last_played}"
                if self._last_played and self.message == ("class:ok", played):
                    text = f"{played}; {ended} (nothing but 'end' was left)"
                else:
                    after = f" after '{self._last_played}'" if self._last_played else ""
                    text = f"{ended[0].upper()}{ended[1:]}{after}: nothing but 'end' was left"
                self.message, self.message_for = ("class:warn", text), None
            self._open_turn = None
        d = view.decision
        if isinstance(d, TurnDecision) and d.player == view.player:
            if self._open_turn != view.turn:
                self._last_played = ""
            self._open_turn = view.turn

    def decision_typed_for(self) -> SeenDecision:
        """The decision a line begun now is typed for: the newest one that had been on screen
        for `input_grace` seconds (see the module comment)."""
        self.note_decision()
        seen_by = time.monotonic() - self.input_grace
        shown = [d for d in self.decisions if d.since <= seen_by]
        return shown[-1] if shown else self.decisions[0]

    def _text_changed(self, buffer: Buffer) -> None:
        if not buffer.text:
            self.bound = None
        elif self.bound is None:
            self.bound = self.decision_typed_for()

    # --- calls into trio --------------------------------------------------------------------
    def _spawn(self, coro: Any) -> None:
        self.app.create_background_task(coro)

    async def _call(self, fn: Any, *args: Any) -> Any:
        assert self.guest is not None, "run_ui starts the trio guest first"
        return await self.guest.call(fn, *args)

    async def _submit(self, action: Action, key: bytes) -> None:
        if self.busy:
            self.say("error", "one action at a time: the previous one is still being sent")
            return
        self.busy = True
        sent = self.input_buffer.text
        turn = self.client.view().turn
        try:
            played = await self._call(self._submit_in_trio, action, key)
        except EngineError as e:
            self.say("error", one_line(e))
        else:
            if not played:  # the game changed between Enter and the call into trio
                self.bound = self.current_decision()
                self.say("warn", f"not played: the game changed just as '{format_input(action)}'"
                         " was entered. Check the board; Enter plays it now.")
                return
            if self.input_buffer.text == sent:  # keep whatever was typed in the meantime
                self.clear_line()
            if action.kind == ActionKind.END:
                self._ended_by_us = turn
            self._last_played = format_input(action)
            self.say("ok", f"played: {format_input(action)}")
        finally:
            self.busy = False
            self.note_decision()
            self.check_turn_end()

    async def _submit_in_trio(self, action: Action, key: bytes) -> bool:
        """In trio: submit unless the game changed since Enter (False then)."""
        if encode_state(self.client.view().public_state) != key:
            return False
        await self.client.submit(action)
        return True

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
                       ui_ready: asyncio.Future[MatchUI] | None = None,
                       theme: str | None = None) -> MatchResult | None:
    ui = MatchUI(client, input=input, output=output, theme=theme)
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


def run_ui(client: MatchClient, *, input: Input | None = None, output: Output | None = None,
           theme: str | None = None) -> MatchResult | None:
    """Play `client`'s match in the terminal; returns its result (None if left unfinished).
    `theme`: dark, light or contrast (default: what theme.set_theme chose, else dark)."""
    return asyncio.run(run_ui_async(client, input=input, output=output, theme=theme))
