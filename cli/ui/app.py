# The full-screen terminal UI of a match of any game (prompt-toolkit), driven by a
# `MatchClient` (cli/client.py), drawing the game's scene (engine/scene.py).
#
# How it works. `run_ui(client)` runs an asyncio loop that hosts prompt-toolkit's Application
# and, as a guest, the trio run where the client lives (cli/ui/bridge.py explains the bridge).
# Inside trio, two tasks: the client's `run()` and a watcher that waits for `wait_changed()`
# and posts a redraw to the asyncio side. The UI reads the client's getters directly when it
# renders (one thread, so no locks) and sends `submit`/`resign`/`leave` through the bridge.
# The UI never knows the game: it draws the scene the game describes and plays input lines.
#
# The screen: a header (the game, our seat, clocks, opponent, connection), the board (cells
# with their shade as background AND word, the cards' labels, a ▶ cursor moved by the arrows
# or a click), the status lines and the other zones as compact lines, our hand (its cards with
# keys 1-9, the selected card's full text; every card's text in a wide terminal), what stands
# under the cursor and the inputs it takes, the log (the game's narration of every step; PgUp
# and PgDn scroll it; what came since the last key press is unread and takes the room it needs
# until the next one, `_narrow_heights`), the prompt line (what the game asks), a message area
# of at most two rows (why an input was refused, a warning; a longer one is cut "… (F3)" and
# goes whole into the log) and the input line, which Tab-completes the scene's legal inputs
# (the menu's meta says why a wasteful input wastes: `scene.notes`; entering one asks once
# more). The completion menu stands on the message area and covers the log and the prompt
# only, never the text of the card being completed (`_menu_rows`).
# From WIDE_COLS columns the side panel stands beside the board and log; below, everything is
# stacked. Every text is wrapped at word boundaries into its window (cli/ui/controls.py).
#
# Selecting. Enter or Space on an empty line (or a click) selects the cursor's cell or the
# hand's selected card: its inputs (Cell.inputs / Card.inputs) are offered, one written out in
# full (Enter plays it), several in the completion menu, where Enter plays the highlighted one
# (none highlighted on an empty line: it takes the first). ↓ from the board's last row goes into
# the cards (the hand's, then the other zones' cards that take inputs now: ← → move among
# them), ↑ back to the board; 1-9 select a hand card at once.
#
# An input is bound to the decision it was typed for: the decision that had been on screen
# for INPUT_GRACE seconds when its first character was typed (a person cannot have reacted to a
# newer one). Enter plays the line only if that decision is still the current one; otherwise
# it says what changed, keeps the line and binds it to the current decision (Enter again plays
# it), so a quick line typed just as the game moved on is not played in a position never seen.
#
# Modal states (rules help, a card's text, the Ctrl-C menu, the resign confirmation, game
# over) are one enum, so which keys do what is a table of filters rather than scattered flags.
# The Ctrl-C menu offers only what works now (no resign while a host waits for a joiner).
from __future__ import annotations

import asyncio
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
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from versus.engine import EngineError
from versus.engine.scene import Card, Cell, Scene, Zone

from ..client import Connection, MatchClient, MatchResult, one_line
from . import render
from .bridge import TrioGuest
from .controls import TAIL_LINES, LogControl, WrapControl
from .theme import chosen_theme, no_color, style_rules

MIN_COLS, MIN_ROWS = 80, 24
WIDE_COLS = 120  # from here the side panel (status, zones, hand with every text) sits beside
LOG_MIN = 3  # the stacked layout keeps at least these log lines
MESSAGE_ROWS = 2  # a longer message is cut (MORE) and goes whole to the log
MORE = "… (F3)"
MENU_ROWS = 10  # the completion menu's most rows (fewer where it would cover the cards)
REFRESH_SECONDS = 0.5  # clocks and the resume countdown tick without any event
INPUT_GRACE = 0.5  # s: a line begun sooner after a change was typed for the decision before
HINT = ("class:dim", "F1 rules & keys · F2 card · F3 log · Tab completes · Ctrl-C quits")
COMMANDS = ("help", "card", "resign", "leave")

KEYS_HELP = """\
Keys
  arrows       move the cursor over the board (▶ marks it); ↓ below the last row enters \
your hand and the cards that take inputs (← → move among them), ↑ goes back
  Enter        on an empty line: select what is under the cursor (its inputs are offered); \
otherwise play the line (a filter matching one input plays it); with the completion menu \
open: play its highlighted input (none highlighted, on an empty line: take the first)
  Space        on an empty line: select, like Enter
  1-9          on an empty line: select that card of your hand
  Tab, S-Tab   next / previous completion of the legal inputs
  Esc          close the completion menu; with no menu open, clear the line
  PgUp, PgDn   scroll the log
  F1           this help and the game's rules (↑/↓, PgUp/PgDn scroll)
  F2           the full text of the card under the cursor; `card REF` any visible card
  F3           the whole log, every battle and effect with its reason, and a message too \
long for its two rows (↑/↓ scroll; it opens at the newest line)
  Ctrl-C       resign or leave
  Mouse        click a cell or a hand card (select it), or a completion (take it)
Commands: help (or ?), card REF, resign, leave.
Log: what happened since your last key press stays on screen whole until the next key (the \
hand shrinks meanwhile); longer than the screen, its last row says "F3: N more lines".
Marks: ▶ cursor; a cell writes its shade's word (the colour is its ground); messages: \
✖ refused, ⚠ notice, ✔ played. Colours: --theme dark, light or contrast; NO_COLOR=1 turns \
them off.
"""


class Mode(Enum):
    PLAY = "play"
    HELP = "help"
    CARD = "card"  # one card's full text
    LOG = "log"  # the whole log: a small screen shows its last lines only
    QUIT_MENU = "quit-menu"  # Ctrl-C: resign or leave?
    CONFIRM_RESIGN = "confirm-resign"
    GAME_OVER = "game-over"


@dataclass(frozen=True, slots=True)
class SeenDecision:
    """One moment of the game as the UI showed it: its key and when it appeared."""

    key: bytes
    since: float  # time.monotonic() when the UI saw it


class InputCompleter(Completer):
    """Completes the scene's legal inputs. What is typed is a prefix of an input, or a filter:
    every typed word must appear among its words. After a selection offered several inputs,
    those are the ones listed while the line still reads as offered."""

    def __init__(self, ui: MatchUI) -> None:
        self.ui = ui

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        scene = self.ui.client.scene()
        candidates = self.ui.client.inputs()
        offered = self.ui.offered
        if offered and text == self.ui.offered_line:
            candidates = [c for c in candidates if c in offered]
        names = input_names(scene)
        for line in matching_inputs(candidates, text):
            why = scene.note(line)
            meta = f"⚠ {why}" if why else names.get(line, "")
            yield Completion(line, start_position=-len(text), display_meta=meta)


def input_names(scene: Scene) -> dict[str, str]:
    """The names of the visible cards each input line names (`Card.inputs`): what a line
    such as `exile 12` does to, said beside it in the completion menu."""
    names: dict[str, list[str]] = {}
    for card in scene.cards():
        if card.face is not None:
            for line in card.inputs:
                if card.face.name not in names.setdefault(line, []):
                    names[line].append(card.face.name)
    return {line: ", ".join(found) for line, found in names.items()}


def matching_inputs(legal: Iterable[str], text: str) -> list[str]:
    stripped = " ".join(text.split())
    return [line for line in legal
            if line.startswith(stripped) or _filter_match(line, stripped, text.endswith(" "))]


def _filter_match(line: str, typed: str, complete_last: bool) -> bool:
    """Every typed word is a word of the input, as many times as typed; the last one may be a
    prefix while it is being typed."""
    want = typed.split()
    have = line.replace("/", " ").split()
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


def common_prefix(lines: list[str]) -> str:
    """The longest common prefix of `lines`, cut back to a whole word."""
    if not lines:
        return ""
    first, last = min(lines), max(lines)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    prefix = first[:n]
    return prefix if n == len(first) or prefix.endswith(" ") else prefix[:prefix.rfind(" ") + 1]


class MenuFloat(Float):
    """The completion menu's float: at the input's column, its bottom `bottom()` rows above
    the screen's (prompt-toolkit's Float takes a fixed number; the message's rows vary)."""

    def __init__(self, menu: CompletionsMenu, bottom: Callable[[], int]) -> None:
        self._bottom = bottom
        super().__init__(menu, xcursor=True)

    @property  # type: ignore[override]
    def bottom(self) -> int:
        return self._bottom()

    @bottom.setter
    def bottom(self, value: int | None) -> None:
        pass  # (Float.__init__ sets it; the callable decides)


class MatchUI:
    """The Application and its controller for one client."""

    def __init__(self, client: MatchClient, *, input: Input | None = None,
                 output: Output | None = None, theme: str | None = None) -> None:
        self.client = client
        self.mode = Mode.PLAY
        self.message: tuple[str, str] = HINT
        self.message_for: bytes | None = None  # the decision a message is about (None: any)
        self.cursor = (0, 0)
        self.in_hand = False  # the arrows move among the cards (else over the board)
        self.hand_index = 0  # in `cards()`: the hand's, then other zones' that take inputs
        self.guest: TrioGuest | None = None
        self.busy = False  # a submit is in flight
        self.modal_top = 0  # the first line shown of a scrolling modal (help, card)
        self.card_ref = ""  # Mode.CARD: the card shown
        self.log_back = 0  # how many log lines up from the newest the log is scrolled
        self.input_grace = INPUT_GRACE
        self.decisions: list[SeenDecision] = []  # the recent ones, oldest first
        self.bound: SeenDecision | None = None  # what the input line was typed for
        self.offered: tuple[str, ...] = ()  # what the last selection offered
        self.offered_line = ""
        self.noted = ""  # a wasteful input already warned about once (Enter again plays it)
        self._placed = False  # the cursor starts on our side once the board exists
        self.ui_log: list[tuple[int, str]] = []  # (client log lines before it, a long message)
        self.read_upto = 0  # the log lines before this one were on screen at a key press
        self.mark_read()  # (what the log held before the UI opened is not news)
        self.note_decision()
        self.input_buffer = Buffer(
            name="input", multiline=False, completer=InputCompleter(self),
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
        self.app.key_processor.before_key_press += lambda _: self.mark_read()

    # --- what is shown ----------------------------------------------------------------------
    def size(self) -> tuple[int, int]:
        app = getattr(self, "app", None)  # None while the layout is being built
        s = (app.output if app is not None else get_app_session().output).get_size()
        return s.columns, s.rows

    @property
    def wide(self) -> bool:
        return self.size()[0] >= WIDE_COLS

    @property
    def scene(self) -> Scene:
        return self.client.scene()

    def hand(self) -> Zone | None:
        return self.scene.hand()

    def cursor_cell(self) -> Cell | None:
        board = self.scene.board
        if board is None or not board.cells:
            return None
        r, c = self.cursor
        r, c = min(r, len(board.rows) - 1), min(c, len(board.columns) - 1)
        return board.row(r)[c]

    def cards(self) -> list[Card]:
        """The cards the arrows move among below the board: the hand's, then the visible
        cards of the other zones that take inputs now (a weapon to fire, a hero to use)."""
        hand = self.hand()
        out = list(hand.cards) if hand is not None else []
        for zone in self.scene.zones:
            if not zone.hand:
                out += [card for card in zone.cards if card.inputs]
        return out

    def selected_index(self) -> int | None:
        cards = self.cards()
        return min(self.hand_index, len(cards) - 1) if self.in_hand and cards else None

    def selected_card(self) -> Card | None:
        """The selected card when the cursor is among the cards, else the top card of the
        cursor's cell."""
        index = self.selected_index()
        if index is not None:
            return self.cards()[index]
        cell = self.cursor_cell()
        return cell.cards[0] if cell is not None and cell.cards else None

    def _in_hand_zone(self) -> bool:
        """The selected card is one of the hand's (its text is shown in the hand)."""
        index, hand = self.selected_index(), self.hand()
        return index is not None and hand is not None and index < len(hand.cards)

    # --- layout -----------------------------------------------------------------------------
    def _build_root(self) -> FloatContainer:
        big = Condition(lambda: self.size()[0] >= MIN_COLS and self.size()[1] >= MIN_ROWS)
        # the "> " is a window of its own: a long line scrolls, the prompt mark stays
        self.input_window = Window(BufferControl(self.input_buffer), height=1)
        input_line = VSplit([
            Window(FormattedTextControl([("class:input-prompt", "> ")]), width=2, height=1),
            self.input_window])
        small_note = Window(WrapControl(lambda w: self._small_note()))
        self._log_box = LogControl(self.log_lines, self.unread)
        self._prompt_box = WrapControl(lambda w: self._prompt_line(),
                                       lambda w: self._prompt_line(short=True))
        self._message_box = WrapControl(lambda w: [self._message_fragment()], self._message_cut)
        wide, boardless, narrow = self._wide_body(), self._wide_boardless(), self._narrow_body()
        body = DynamicContainer(lambda: narrow if not self.wide else
                                wide if self.scene.board is not None else boardless)
        root = HSplit([
            Window(FormattedTextControl(self._header), height=1, style="class:header"),
            ConditionalContainer(body, filter=big),
            ConditionalContainer(small_note, filter=~big),
            self._fitted(self._prompt_box, self._cols, 1, 2),
            self._fitted(self._message_box, self._cols, 1, MESSAGE_ROWS),
            input_line,
        ])
        modal = Condition(lambda: self.mode is not Mode.PLAY)
        menu = CompletionsMenu(max_height=MENU_ROWS, scroll_offset=1)
        menu.content.height = lambda: Dimension(min=1, max=self._menu_rows())  # type: ignore
        return FloatContainer(root, floats=[
            MenuFloat(menu, lambda: 1 + self._message_box.best_height(self._cols(), 1,
                                                                      MESSAGE_ROWS)),
            Float(ConditionalContainer(Frame(
                Window(WrapControl(self._modal_source), width=self._modal_width,
                       height=self._modal_height, style=self._modal_style)), filter=modal)),
        ])

    def _cols(self) -> int:
        return self.size()[0]

    def _body_rows(self) -> int:
        return max(1, self.size()[1] - 5)  # header, prompt, message, input (+1 spare)

    def _fitted(self, control: WrapControl, width: Callable[[], int], lo: int, hi: int
                ) -> Window:
        """A window exactly as tall as its wrapped text (from `lo` to `hi` lines)."""
        return Window(control, height=lambda: Dimension.exact(
            control.best_height(width(), lo, hi)))

    def _flexible(self, control: WrapControl, width: Callable[[], int], lo: int, hi: int,
                  weight: int = 1) -> Window:
        """A window from `lo` lines up to its text's full height (at most `hi`): short of
        rows, its control falls back to a shorter source or cuts with "…"."""
        def height() -> Dimension:
            full = max(lo, min(hi, len(control.lines(width()))))
            return Dimension(min=lo, max=full, preferred=full, weight=weight)
        return Window(control, height=height)

    def _board_area(self) -> tuple[int, int]:
        """(width, height) the board may take."""
        cols = self.size()[0]
        width = cols * 11 // 20 if self.wide else cols
        return width, self._body_rows() * (11 if self.wide else 7) // 20

    def _board_geometry(self) -> tuple[int, int, int, int]:
        """(cell width, cell height, board columns, board lines); zeros without a board."""
        board = self.scene.board
        if board is None:
            return 0, 0, 0, 0
        cell_w, cell_h = render.board_cells(board, *self._board_area())
        return (cell_w, cell_h, *render.board_size(board, cell_w, cell_h))

    def _board_window(self) -> Window:
        def text() -> StyleAndTextTuples:
            board = self.scene.board
            if board is None:
                return []
            cell_w, cell_h, _, _ = self._board_geometry()
            cursor = None if self.in_hand else self.cursor
            return render.render_board(board, cursor, cell_w, cell_h, self.client.seat,
                                       click=self.click_cell)

        return Window(FormattedTextControl(text),
                      height=lambda: Dimension.exact(self._board_geometry()[3]),
                      width=lambda: Dimension.exact(self._left_width()) if self.wide
                      else Dimension())

    def _left_width(self) -> int:
        cols = self.size()[0]
        board_w = self._board_geometry()[2]
        return max(board_w, min(cols * 11 // 20, cols - 40))

    def _side_width(self) -> int:
        return max(1, self.size()[0] - self._left_width() - 1)

    def _log_window(self) -> Window:
        return Window(self._log_box, height=Dimension(min=1, weight=3))

    def _menu_rows(self) -> int:
        """The completion menu's height: it stands on the message line (which says what the
        Enter key does) and covers only the prompt and the log, never the board, the hand or
        the cursor's cell (the text of the card being completed stays readable)."""
        cols, rows = self.size()
        if cols < MIN_COLS or rows < MIN_ROWS:
            return MENU_ROWS
        above = 1 + self._board_geometry()[3]  # the header and the board
        if not self.wide:
            above += sum(self._narrow_heights())
        elif self.scene.board is not None:
            above += 1  # the rule under the board
        below = 1 + self._message_box.best_height(cols, 1, MESSAGE_ROWS)  # and the input
        return max(2, min(MENU_ROWS, rows - below - above))

    def _wide_body(self) -> VSplit:
        side = HSplit([
            self._flexible(WrapControl(lambda w: self._status_text()), self._side_width, 1,
                           14),
            self._flexible(WrapControl(lambda w: self._focus_text(True),
                                       lambda w: self._focus_text(False)),
                           self._side_width, 1, 10),
            Window(WrapControl(lambda w: self._hand(True), lambda w: self._hand(None),
                               lambda w: self._hand(False))),
        ], padding=1, padding_char="─", padding_style="class:dim", width=self._side_width)
        left = HSplit([self._board_window(), self._log_window()], padding=1,
                      padding_char="─", padding_style="class:dim", width=self._left_width)
        return VSplit([left, side], padding=1, padding_char="│", padding_style="class:dim")

    def _wide_boardless(self) -> VSplit:
        """Wide, for a scene without a board: the status and zones above the log on the left,
        the cursor's card and the hand with every text on the right."""
        half = lambda: max(1, self.size()[0] // 2 - 1)  # noqa: E731
        left = HSplit([
            self._flexible(WrapControl(lambda w: self._status_text()), half, 1, 24),
            self._log_window(),
        ], padding=1, padding_char="─", padding_style="class:dim", width=half)
        side = HSplit([
            self._flexible(WrapControl(lambda w: self._focus_text(True),
                                       lambda w: self._focus_text(False)), half, 1, 10),
            Window(WrapControl(lambda w: self._hand(True), lambda w: self._hand(None),
                               lambda w: self._hand(False))),
        ], padding=1, padding_char="─", padding_style="class:dim")
        return VSplit([left, side], padding=1, padding_char="│", padding_style="class:dim")

    def _narrow_body(self) -> HSplit:
        """Stacked: the board, the status and zones, the hand, the cursor's cell, the log. The
        heights are shared out in that order of need (`_narrow_heights`): the hand with the
        selected card's text first, the log at least LOG_MIN lines."""
        self._status_box = WrapControl(lambda w: self._status_text())
        self._hand_box = WrapControl(lambda w: self._hand(None),
                                     lambda w: self._hand(False, selected_text=True),
                                     lambda w: self._hand(False))
        self._focus_box = WrapControl(lambda w: self._focus_text(True),
                                      lambda w: self._focus_text(False))

        def height(n: int) -> Callable[[], Dimension]:
            return lambda: Dimension.exact(self._narrow_heights()[n])

        return HSplit([
            self._board_window(),
            Window(self._status_box, height=height(0)),
            Window(self._hand_box, height=height(1)),
            Window(self._focus_box, height=height(2)),
            self._log_window(),
        ])

    def _narrow_heights(self) -> tuple[int, int, int]:
        """(status, hand, cursor cell) lines of the stacked layout; the log takes the rest.
        In the hand, the cursor's cell is not shown (the offered inputs are in the menu).

        Unread narration (what happened since the last key press: our input's and the
        opponent's) is what the player must read now, so until the next key press the log
        takes the rows it needs from the cursor's cell first (down to none), then the hand
        (down to one line), then the status (down to one line); what still does not fit is
        counted on the log's last row ("F3: N more lines", cli/ui/controls.py)."""
        width = self._cols()
        board = self._board_geometry()[3]
        status_full = min(len(self._status_box.wrapped(0, width)), 12)
        focus_lines = self._focus_box.wrapped(0, width)
        blank = not any(f[1].strip() for line in focus_lines for f in line)  # (no board)
        focus_full = 0 if self._in_hand_zone() or blank else min(len(focus_lines), 3)
        counts = [len(self._hand_box.wrapped(n, width)) for n in range(3)]
        unread = self._log_box.unread_rows(width)
        if unread > LOG_MIN:
            body = self.size()[1] - 2 - self._bar_rows()  # the rows the body really has
            room = min(self._body_rows() - LOG_MIN, body - unread) - board
            status = min(status_full, max(1, room - 1))
            hand_room = max(1, room - status)
            hand = next((c for c in counts if c <= hand_room), min(counts[2], hand_room))
            return status, hand, min(focus_full, max(0, room - status - hand))
        room = self._body_rows() - board - LOG_MIN
        status, focus = min(status_full, 2), min(focus_full, 1)
        hand_room = max(1, room - status - focus)
        whole = status_full - status  # a hand form that leaves the status whole
        hand = next((c for c in counts[:2] if c <= hand_room - whole),
                    next((c for c in counts if c <= hand_room), min(counts[2], hand_room)))
        spare = max(0, room - status - focus - hand)
        grow = min(spare, focus_full - focus)
        focus, spare = focus + grow, spare - grow
        status += min(spare, max(0, status_full - status))
        return status, hand, focus

    # --- text of the windows ----------------------------------------------------------------
    def _header(self) -> StyleAndTextTuples:
        c = self.client
        clocks = c.clocks()
        if clocks is None:
            clock = "· untimed "
        elif c.players == 1:
            clock = f"· clock {render.clock_text(clocks, c.seat)} "
        else:
            clock = " ".join(
                ["· clocks"] + [f"{'you' if p == c.seat else f'P{p + 1}'} "
                                f"{render.clock_text(clocks, p)}" for p in range(c.players)]) + " "
        status = c.connection()
        link = "● connected" if status.state is Connection.CONNECTED else status.state.value
        who = "solo" if c.players == 1 else f"you: player {c.seat + 1}"
        return render.fit_parts([
            ("class:header bold", f" {self.scene.title or c.title} ", 0),
            ("class:header", f"· {who} ", 1),
            ("class:header", clock, 3),
            ("class:header", f"· opponent {c.opponent_fingerprint} "
             if c.players > 1 else "", 5),
            ("class:header", f"· {link} ", 4),
        ], self.size()[0])

    def _status_text(self) -> StyleAndTextTuples:
        scene = self.scene
        out: StyleAndTextTuples = []
        if not self.client.match_started:
            out.append(("class:warn", "Waiting for the match (the log says what happens)\n"))
        out += render.status_fragments(scene)
        card = self.selected_card() if self.in_hand and not self._in_hand_zone() else None
        out += render.zones_fragments(scene.zones, None if card is None else card.ref)
        return out

    def _focus_text(self, with_text: bool) -> StyleAndTextTuples:
        """What the cursor is on: the hand's selected card (its text is in the hand) or the
        cursor's cell with its cards; and the inputs it takes."""
        scene = self.scene
        if self.in_hand:
            card = self.selected_card()
            if card is None:
                return []
            text = [] if self._in_hand_zone() else render.card_fragments(card)
            return [*text, *render.offers_fragments(card.inputs, scene)]
        cell = self.cursor_cell()
        if cell is None:
            return []
        return [*render.cell_fragments(cell, with_text),
                *render.offers_fragments(cell.inputs, scene)]

    def _hand(self, with_text: bool | None, selected_text: bool = False) -> StyleAndTextTuples:
        hand = self.hand()
        if hand is None:
            return []
        selected = self.selected_index() if self._in_hand_zone() else None
        return render.hand_fragments(hand, selected, with_text, click=self.click_hand,
                                     selected_text=selected_text)

    def log_lines(self) -> list[str]:
        """The log as the main screen shows it: its last TAIL_LINES lines in the UI's words,
        with the messages too long for the message area where they were said (scrolled up with
        PgUp: the lines up to there and a note saying so)."""
        lines = self._merged_log()
        if self.log_back:
            self.log_back = min(self.log_back, max(0, len(lines) - 1))
            lines = [*lines[:len(lines) - self.log_back],
                     f"(scrolled up {self.log_back} lines: PgDn goes back down)"]
        return [render.user_words(line) for line in lines[-TAIL_LINES:]]

    def whole_log(self) -> list[str]:
        """Every line of the log (F3), in the UI's words."""
        return [render.user_words(line) for line in self._merged_log()]

    def _merged_log(self) -> list[str]:
        lines = list(self.client.log_lines())  # (a copy: the long messages go in)
        for at, text in reversed(self.ui_log):
            lines.insert(min(at, len(lines)), text)
        return lines

    def _log_count(self) -> int:
        return len(self.client.log_lines()) + len(self.ui_log)

    def unread(self) -> int:
        """How many lines at the log's end came since the last key press (none while the log
        is scrolled up). Counted by length: a client log trimmed at its cap (cli/client.py
        MAX_LOG_LINES, far beyond a game's length) counts none, and the log is its tail."""
        return 0 if self.log_back else max(0, self._log_count() - self.read_upto)

    def mark_read(self) -> None:
        """A key was pressed: what the log says now has been on screen."""
        self.read_upto = self._log_count()

    def _bar_rows(self) -> int:
        """The prompt's and the message's rows below the body."""
        cols = self._cols()
        return (self._prompt_box.best_height(cols, 1, 2)
                + self._message_box.best_height(cols, 1, MESSAGE_ROWS))

    def _prompt_line(self, short: bool = False) -> StyleAndTextTuples:
        """What the game asks (`short`: without the count of legal inputs, when the whole
        line does not fit)."""
        c = self.client
        status = c.connection()
        if c.result is not None:
            return [("class:prompt", f"Game over: {self._result_words()}. Enter or q closes.")]
        if status.state in (Connection.RECONNECTING, Connection.CONNECTING):
            return render.connection_fragments(status)
        if status.state is Connection.CLOSED:
            return [("class:error", f"The match is closed: {render.user_words(status.reason)}")]
        scene = self.scene
        if scene.prompt and c.inputs() and not short:
            return [("class:prompt", f"{scene.prompt} (Tab lists the {len(c.inputs())} "
                                     "legal inputs)")]
        if scene.prompt:
            return [("class:prompt", scene.prompt)]
        return [("class:info", "Waiting for the other side…" if c.players > 1 else "…")]

    def _result_words(self) -> str:
        result = self.client.result
        head = render.user_words(result.describe(self.client.seat)) if result else ""
        return head[:1].upper() + head[1:]

    def _message_fragment(self) -> tuple[str, str]:
        style, text = self.message
        return style, render.MESSAGE_MARKS.get(style, "") + text

    def _message_cut(self, width: int) -> StyleAndTextTuples:
        """The message cut at a word to MESSAGE_ROWS rows, ending "… (F3)": `say` put the
        whole of it in the log."""
        style, text = self._message_fragment()
        if render.rows_of([(style, text)], width) <= MESSAGE_ROWS:
            return [(style, text)]
        words = text.split(" ")
        while len(words) > 1:
            words.pop()
            cut = " ".join(words).rstrip(" ,;:") + MORE
            if render.rows_of([(style, cut)], width) <= MESSAGE_ROWS:
                return [(style, cut)]
        return [(style, render.ellipsize(text, max(1, width - len(MORE))) + MORE)]

    def _small_note(self) -> StyleAndTextTuples:
        cols, rows = self.size()
        return [("class:warn", f"Terminal too small ({cols}x{rows}); the board needs "
                 f"{MIN_COLS}x{MIN_ROWS}. Enlarge the window. Typing still works; F1 help, "
                 "Ctrl-C resign or leave.")]

    # --- modal boxes ------------------------------------------------------------------------
    def _scrolls(self) -> bool:
        return self.mode in (Mode.HELP, Mode.CARD, Mode.LOG, Mode.GAME_OVER)

    def _modal_width(self) -> int:
        """The dialog's text width (its frame takes a column on each side)."""
        return min(self.size()[0] - 2, 94) if self._scrolls() else min(self.size()[0] - 4, 60)

    def _modal_height(self) -> Dimension:
        if self._scrolls():
            return Dimension.exact(self._modal_rows())
        return Dimension()

    def _modal_style(self) -> str:
        return "class:help" if self._scrolls() else "class:dialog"

    def _modal_rows(self) -> int:
        total = len(self._modal_lines(self._modal_width()))
        return max(3, min(total + 1, self.size()[1] - 4))  # the frame takes two rows

    def _modal_text(self) -> StyleAndTextTuples:
        if self.mode is Mode.HELP:
            return [("class:title", "Rules\n"), ("", self.client.rules_text().rstrip("\n")),
                    ("", "\n\n"), ("", KEYS_HELP.rstrip("\n"))]
        if self.mode is Mode.LOG:
            lines = self.whole_log() or ["(nothing has happened yet)"]
            return [("class:title", "Log (oldest first)\n"),
                    ("", "\n".join(lines))]
        if self.mode is Mode.CARD:
            card = self.scene.card(self.card_ref)
            if card is None:
                return [("class:dim", f"{self.card_ref}: no visible card has this ref now")]
            return render.card_fragments(card)
        scene = self.scene
        out: StyleAndTextTuples = [("class:title", f"Game over: {self._result_words()}\n")]
        if scene.result:
            out.append(("", f"\n{scene.result}\n"))
        return out

    def _modal_lines(self, width: int) -> list[StyleAndTextTuples]:
        text = render.wrap_fragments(self._modal_text(), width)
        lines = list(split_lines(text))
        while len(lines) > 1 and not "".join(f[1] for f in lines[-1]):
            lines.pop()
        return lines

    def _scroll_source(self, width: int) -> StyleAndTextTuples:
        lines = self._modal_lines(width)
        shown = self._modal_rows() - 1
        self.modal_top = max(0, min(self.modal_top, len(lines) - shown))
        out: StyleAndTextTuples = []
        for line in lines[self.modal_top:self.modal_top + shown]:
            out += [*line, ("", "\n")]
        last = min(len(lines), self.modal_top + shown)
        scroll = "↑/↓ PgUp/PgDn scroll · " if shown < len(lines) else ""
        closes = ("F3 the whole log · Enter or q closes" if self.mode is Mode.GAME_OVER
                  else "Esc or q closes")
        out.append(("class:title", f"{scroll}{closes} · lines {self.modal_top + 1}–{last} of "
                                   f"{len(lines)}"))
        return out

    def _modal_source(self, width: int) -> StyleAndTextTuples:
        if self._scrolls():
            return self._scroll_source(width)
        if self.mode is Mode.QUIT_MENU:
            offers = "  r  resign (the opponent wins)\n" if self.client.can_resign else ""
            title = " Resign or leave?" if offers else " Leave?"
            return [("class:title", f"{title}\n\n"),
                    ("", f"{offers}  l  {self.client.leave_words}\n  Esc  back to the game\n")]
        return [("class:title", " Really resign this match?\n\n"),
                ("", "  y  yes, resign      n / Esc  no\n")]

    # --- key bindings -----------------------------------------------------------------------
    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        playing = Condition(lambda: self.mode is Mode.PLAY)
        menu = Condition(lambda: self.mode is Mode.QUIT_MENU)
        resignable = Condition(lambda: self.client.can_resign)
        confirm = Condition(lambda: self.mode is Mode.CONFIRM_RESIGN)
        over = Condition(lambda: self.mode is Mode.GAME_OVER)
        reading = Condition(lambda: self.mode in (Mode.HELP, Mode.CARD, Mode.LOG))
        scrolling = Condition(self._scrolls)
        empty = Condition(lambda: self.input_buffer.text == "")
        menu_open = has_completions & Condition(
            lambda: self.input_buffer.complete_state is not None)

        @kb.add("c-c", filter=playing | reading)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.QUIT_MENU

        @kb.add("c-c", filter=menu)
        @kb.add("l", filter=menu)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.PLAY
            self._spawn(self._leave())

        @kb.add("r", filter=menu & resignable)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.CONFIRM_RESIGN

        @kb.add("y", filter=confirm)
        def _(event: KeyPressEvent) -> None:
            self.mode = Mode.PLAY
            self._spawn(self._resign())

        @kb.add("n", filter=confirm)
        @kb.add("escape", filter=menu | confirm | reading, eager=True)
        @kb.add("c-c", filter=confirm)
        @kb.add("f1", filter=reading)
        @kb.add("f2", filter=reading)
        @kb.add("f3", filter=reading)
        @kb.add("q", filter=reading)
        def _(event: KeyPressEvent) -> None:
            # After the end the game-over box comes back: rules and log were read from it.
            self.mode = Mode.PLAY if self.client.result is None else Mode.GAME_OVER

        for key, delta in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10),
                           ("home", -10_000), ("end", 10_000)):
            @kb.add(key, filter=scrolling)
            def _(event: KeyPressEvent, delta: int = delta) -> None:
                self.modal_top = max(0, self.modal_top + delta)  # clamped when drawn

        @kb.add("enter", filter=over)
        @kb.add("q", filter=over)
        @kb.add("c-c", filter=over)
        def _(event: KeyPressEvent) -> None:
            event.app.exit(result=self.client.result)

        @kb.add("f1", filter=playing | over)
        def _(event: KeyPressEvent) -> None:
            self.open_help()

        @kb.add("f3", filter=playing | over)
        def _(event: KeyPressEvent) -> None:
            self.open_log()

        @kb.add("f2", filter=playing)
        def _(event: KeyPressEvent) -> None:
            card = self.selected_card()
            if card is None:
                self.say("error", "no card under the cursor (`card REF` shows any visible one)")
            else:
                self.open_card(card.ref)

        for key, dr, dc in (("up", -1, 0), ("down", 1, 0), ("left", 0, -1), ("right", 0, 1)):
            @kb.add(key, filter=playing & (~menu_open if key in ("up", "down") else playing))
            def _(event: KeyPressEvent, dr: int = dr, dc: int = dc) -> None:
                self.move_cursor(dr, dc)

        for key, delta in (("pageup", 5), ("pagedown", -5)):
            @kb.add(key, filter=playing & ~menu_open)
            def _(event: KeyPressEvent, delta: int = delta) -> None:
                self.log_back = max(0, self.log_back + delta)

        @kb.add("enter", filter=playing)
        def _(event: KeyPressEvent) -> None:
            buf = self.input_buffer
            state = buf.complete_state
            if state is not None and state.current_completion is not None:
                buf.apply_completion(state.current_completion)  # a legal input: played
                self.enter_line(buf.text)
                return
            if state is not None and state.completions and buf.text.strip() == "":
                buf.go_to_completion(0)  # nothing picked yet: the first, Enter again plays
                self.say("info", f"Enter plays {buf.text}; ↑/↓ picks another")
                return
            if buf.text.strip() == "":
                self.select()
            else:
                self.enter_line(buf.text)

        @kb.add("space", filter=playing & empty)
        def _(event: KeyPressEvent) -> None:
            self.select()

        for digit in "123456789":
            @kb.add(digit, filter=playing & empty)
            def _(event: KeyPressEvent, n: int = int(digit)) -> None:
                self.pick_hand(n - 1)

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
        self.modal_top = 0

    def open_log(self) -> None:
        """The whole log, opened at its newest lines (the drawing clamps the top)."""
        self.mode = Mode.LOG
        self.modal_top = 10_000_000

    def open_card(self, ref: str) -> None:
        self.mode = Mode.CARD
        self.card_ref = ref
        self.modal_top = 0

    def move_cursor(self, drow: int, dcol: int) -> None:
        board = self.scene.board
        count = len(self.cards())
        if self.in_hand or board is None:
            if not count:
                return
            if drow < 0 and board is not None:
                self.in_hand = False
                return
            self.in_hand = True
            self.hand_index = min(max(self.hand_index + dcol + drow, 0), count - 1)
            return
        r, c = self.cursor
        rows, cols = len(board.rows), len(board.columns)
        if drow > 0 and r >= rows - 1 and count:
            self.in_hand = True
            return
        self.cursor = (min(max(r + drow, 0), rows - 1), min(max(c + dcol, 0), cols - 1))

    def click_cell(self, row: int, col: int) -> None:
        """A click on a cell: the cursor goes there and selects it."""
        if self.mode is not Mode.PLAY:
            return
        self.cursor, self.in_hand = (row, col), False
        self.select()

    def click_hand(self, index: int) -> None:
        if self.mode is Mode.PLAY:
            self.pick_hand(index)

    def pick_hand(self, index: int) -> None:
        hand = self.hand()
        if hand is None or index >= len(hand.cards):
            count = 0 if hand is None else len(hand.cards)
            self.say("error", f"your hand has {count} card{'s' if count != 1 else ''}")
            return
        self.in_hand, self.hand_index = True, index
        self.select()

    def select(self) -> None:
        """Offer the inputs of what is under the cursor (see the module comment)."""
        if self.in_hand:
            card = self.selected_card()
            if card is None:
                return
            self.offer(card.inputs, f"{card.label}")
            return
        cell = self.cursor_cell()
        if cell is None:
            self.say("info", "no board: type an input (Tab lists them)")
            return
        inputs = list(cell.inputs)
        for card in cell.cards:
            inputs += [i for i in card.inputs if i not in inputs]
        self.offer(tuple(inputs), cell.ref)

    def offer(self, inputs: tuple[str, ...], what: str) -> None:
        legal = set(self.client.inputs())
        found = [i for i in inputs if i in legal]
        if not found:
            self.say("info", f"{what}: no input takes it now" if legal else
                     f"{what}: selected (it is not your decision)")
            return
        if len(found) == 1:
            self.set_line(found[0])
            why = self.scene.note(found[0])
            self.say("warn" if why else "info",
                     f"{why} — Enter plays it anyway" if why else "Enter plays it")
            return
        line = common_prefix(found)
        self.set_line(line)
        self.offered, self.offered_line = tuple(found), line
        self.input_buffer.start_completion(select_first=False)
        self.say("info", f"{len(found)} inputs take {what}: pick one (↑/↓, Enter) or type")

    def set_line(self, text: str) -> None:
        self.input_buffer.document = Document(text, len(text))

    def clear_line(self) -> None:
        self.input_buffer.reset()  # (fires no text-changed event)
        self.bound = None
        self.offered, self.offered_line = (), ""

    def enter_line(self, text: str) -> None:
        typed = " ".join(text.split())
        word = typed.lower()
        if word in ("help", "?"):
            self.open_help()
            self.clear_line()
            return
        if word.startswith("card ") or word == "card":
            ref = typed[5:].strip()
            if not ref or self.scene.card(ref) is None:
                self.say("error", f"card {ref}: no visible card is named {ref!r}" if ref else
                         "card REF: name a card (its ref, as inputs name it)")
                return
            self.open_card(ref)
            self.clear_line()
            return
        if word in ("quit", "exit", "resign", "leave"):
            self.mode = Mode.QUIT_MENU
            self.clear_line()
            return
        legal = self.client.inputs()
        line = typed
        if typed not in legal:
            found = matching_inputs(legal, text)
            if len(found) == 1:
                line = found[0]
        why = self.scene.note(line) if line in legal else None
        if why and self.noted != line:
            self.noted = line
            self.set_line(line)
            self.say("warn", f"{why} — Enter again to play it")
            return
        now = self.current_decision()
        bound = self.bound or now
        if bound.key != now.key:
            self.bound = now
            self.say("warn", f"not played: the game moved on while '{typed}' was typed. "
                     "Check the board; Enter plays it.")
            return
        self._spawn(self._submit(line, now.key))

    def say(self, kind: str, text: str) -> None:
        """Put `text` on the message line. A refusal, a warning or a hint is about the current
        decision and goes when it changes; what was played stays until the next message."""
        self.message = (f"class:{kind}", one_line(render.user_words(text), 10_000))
        self.message_for = None if kind == "ok" else self.current_decision().key
        if render.rows_of([self._message_fragment()], self._cols()) > MESSAGE_ROWS:
            self.ui_log.append((len(self.client.log_lines()), self._message_fragment()[1]))
        self.app.invalidate()

    def on_change(self) -> None:
        """Posted by the trio watcher whenever the client changed."""
        if self.client.result is not None and self.mode in (Mode.PLAY, Mode.HELP, Mode.CARD):
            self.mode = Mode.GAME_OVER
            self.modal_top = 0
        self.note_decision()
        self.app.invalidate()

    # --- decisions and the input line ---------------------------------------------------------
    def current_decision(self) -> SeenDecision:
        key = self.client.decision_key()
        last = self.decisions[-1] if self.decisions else None
        if last is not None and last.key == key:
            return last
        return SeenDecision(key, time.monotonic())

    def note_decision(self) -> None:
        """Record the decision now shown if it is new; a new one clears a message about the
        last one, and the cursor starts on our side of a board that has just appeared."""
        now = self.current_decision()
        if not self._placed and self.scene.board is not None:
            self._placed = True
            self.cursor = (len(self.scene.board.rows) - 1, 0)
        if self.decisions and self.decisions[-1].key == now.key:
            return
        self.decisions = [*self.decisions[-7:], now]
        self.noted = ""
        if self.message_for is not None and self.message_for != now.key:
            self.message, self.message_for = HINT, None  # it was about a decision now over

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
        if buffer.text != self.offered_line:
            self.offered, self.offered_line = (), ""

    # --- calls into trio --------------------------------------------------------------------
    def _spawn(self, coro: Any) -> None:
        self.app.create_background_task(coro)

    async def _call(self, fn: Any, *args: Any) -> Any:
        assert self.guest is not None, "run_ui starts the trio guest first"
        return await self.guest.call(fn, *args)

    async def _submit(self, line: str, key: bytes) -> None:
        if self.busy:
            self.say("error", "one input at a time: the previous one is still being sent")
            return
        self.busy = True
        sent = self.input_buffer.text
        try:
            played = await self._call(self._submit_in_trio, line, key)
        except EngineError as e:
            self.say("error", one_line(e))
        else:
            if not played:  # the game changed between Enter and the call into trio
                self.bound = self.current_decision()
                self.say("warn", f"not played: the game changed just as '{line}' was entered."
                         " Check the board; Enter plays it now.")
                return
            if self.input_buffer.text == sent:  # keep whatever was typed in the meantime
                self.clear_line()
            self.say("ok", f"played: {line}")
        finally:
            self.busy = False
            self.note_decision()

    async def _submit_in_trio(self, line: str, key: bytes) -> bool:
        """In trio: submit unless the game changed since Enter (False then)."""
        if self.client.decision_key() != key:
            return False
        await self.client.submit(line)
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
            await nursery.start(self._watch, guest)  # it waits before the client changes
            await self.client.run()
            guest.post(self.on_change)
            await trio.sleep_forever()  # keep serving calls until the UI closes

    async def _watch(self, guest: TrioGuest,
                     task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()  # (no checkpoint before the wait below: no change is missed)
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
