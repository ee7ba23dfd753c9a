# A prompt-toolkit text control that wraps at word boundaries to the width it is given.
#
# Why: Window(wrap_lines=True) breaks lines at the last column, in the middle of a word
# ("When d|estroyed"), and a FormattedTextControl reports its longest line as its preferred
# width, so one long log line could widen its column. `WrapControl` gets its text for the
# width the layout assigned (`create_content(width, height)`), wraps it with
# render.wrap_fragments, and prefers no width of its own: the layout decides widths, content
# never does.
#
# Heights: a control may have several sources, tried in order (e.g. the hand with its rules
# text, then without): the first whose wrapped text fits the window's height is shown. Text
# that still does not fit is cut: the log keeps its last lines (`tail=True`, the newest), any
# other box its first lines with "…" at the end of the last one shown, so a cut is never
# silent. Mouse handlers in the fragments keep working: the control maps clicks on the lines
# it actually shows.
#
# The log (`LogControl`) is a tail control that also knows which of its lines are unread (came
# since the player's last key press): those are what just happened, so they are shown from
# their first line, and when they do not all fit, the last row says how many more F3 shows
# (a battle never scrolls away half read, and never silently).
from __future__ import annotations

from collections.abc import Callable, Sequence

from prompt_toolkit.application.current import get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.layout.controls import FormattedTextControl, GetLinePrefixCallable, UIContent

from .render import ellipsize, wrap_fragments

Source = Callable[[int], StyleAndTextTuples]  # width -> fragments
TAIL_LINES = 200  # a tail control wraps at most this many of its last lines (taller than any
# terminal, and each makes at least one row)


class WrapControl(FormattedTextControl):
    """Formatted text from `sources` (see the module comment), wrapped to the window."""

    def __init__(self, *sources: Source, tail: bool = False) -> None:
        if not sources:
            raise ValueError("WrapControl needs at least one source")
        self.sources: Sequence[Source] = sources
        self.tail = tail
        self._cache: dict[tuple[int, int, int], list[StyleAndTextTuples]] = {}
        super().__init__("", focusable=False, show_cursor=False)

    def wrapped(self, n: int, width: int) -> list[StyleAndTextTuples]:
        """Source `n`'s text wrapped to `width`, as lines; computed once per redraw (the layout
        asks for heights and content several times). A tail control wraps only the lines at
        the end that a terminal's height can show."""
        key = (_redraw(), n, width)
        if key not in self._cache:
            if len(self._cache) > 32:
                self._cache.clear()
            fragments = self.sources[n](width)
            if self.tail:
                fragments = _last_lines(fragments, TAIL_LINES)
            self._cache[key] = _drop_final_blank(list(split_lines(wrap_fragments(fragments,
                                                                                 width))))
        return self._cache[key]

    def lines(self, width: int, height: int | None = None) -> list[StyleAndTextTuples]:
        """The wrapped lines to show in a window of `width` x `height` (None: unbounded)."""
        lines: list[StyleAndTextTuples] = []
        for n in range(len(self.sources)):
            lines = self.wrapped(n, width)
            if height is None or len(lines) <= height:
                return lines
        assert height is not None
        if height <= 0:
            return []
        if self.tail:
            return lines[-height:]
        shown = lines[:height]
        shown[-1] = _ellipsis_end(shown[-1], width)
        return shown

    def best_height(self, width: int, lo: int, hi: int) -> int:
        """The fewest lines from `lo` to `hi` some source fits in at `width` (else `hi`)."""
        counts = [len(self.wrapped(n, width)) for n in range(len(self.sources))]
        return max(lo, min((n for n in counts if n <= hi), default=hi))

    def preferred_width(self, max_available_width: int) -> int | None:
        return None  # the layout gives the width; the text wraps into it

    def preferred_height(self, width: int, max_available_height: int, wrap_lines: bool,
                         get_line_prefix: GetLinePrefixCallable | None) -> int | None:
        return len(self.lines(width))

    def create_content(self, width: int, height: int | None) -> UIContent:
        lines = self.lines(width, height)
        shown: StyleAndTextTuples = []
        for n, line in enumerate(lines):
            if n:
                shown.append(("", "\n"))
            shown += line
        self._fragments = shown  # what FormattedTextControl.mouse_handler maps clicks on
        return UIContent(get_line=lambda i: [(f[0], f[1]) for f in lines[i]],
                         line_count=len(lines), show_cursor=False)


def _redraw() -> int:
    """The number of the redraw in progress."""
    return get_app().render_counter


def _last_lines(fragments: StyleAndTextTuples, count: int) -> StyleAndTextTuples:
    """The fragments of the last `count` lines."""
    lines = list(split_lines(fragments))[-count:]
    out: StyleAndTextTuples = []
    for n, line in enumerate(lines):
        if n:
            out.append(("", "\n"))
        out += line
    return out


def _drop_final_blank(lines: list[StyleAndTextTuples]) -> list[StyleAndTextTuples]:
    """A text ending in a newline does not make a blank last line."""
    if len(lines) > 1 and not "".join(f[1] for f in lines[-1]):
        return lines[:-1]
    return lines


def _ellipsis_end(line: StyleAndTextTuples, width: int) -> StyleAndTextTuples:
    """The line with "…" at its end (within `width`): more text follows that is not shown."""
    text = "".join(f[1] for f in line)
    mark = " …" if text.endswith("…") else "…"  # (after a cut label: not "……")
    if len(text) + len(mark) <= width:
        return [*line, ("class:dim", mark)]
    keep = len(ellipsize(text, width)) - 1
    out: StyleAndTextTuples = []
    for f in line:
        if keep <= 0:
            break
        out.append((f[0], f[1][:keep], *f[2:]))  # type: ignore[arg-type]
        keep -= len(f[1])
    return [*out, ("class:dim", "…")]


class LogControl(WrapControl):
    """The log's newest lines, its unread ones whole or counted (see the module comment).
    `log()`: every line, oldest first; `unread()`: how many at its end are unread."""

    def __init__(self, log: Callable[[], list[str]], unread: Callable[[], int]) -> None:
        self.log, self.unread = log, unread
        self._unread_cache: dict[tuple[int, int, int], list[list[StyleAndTextTuples]]] = {}
        super().__init__(lambda w: [("class:log", "\n".join(self.log()[-TAIL_LINES:]))],
                         tail=True)

    def unread_lines(self, width: int) -> list[list[StyleAndTextTuples]]:
        """The rows of each unread line, oldest first."""
        count = min(self.unread(), TAIL_LINES)
        key = (_redraw(), count, width)
        if key not in self._unread_cache:
            if len(self._unread_cache) > 32:
                self._unread_cache.clear()
            lines = self.log()[-count:] if count else []
            self._unread_cache[key] = [_drop_final_blank(list(split_lines(wrap_fragments(
                [("class:log", line)], width)))) for line in lines]
        return self._unread_cache[key]

    def unread_rows(self, width: int) -> int:
        """How many rows the unread lines take at `width`."""
        return sum(len(rows) for rows in self.unread_lines(width))

    def lines(self, width: int, height: int | None = None) -> list[StyleAndTextTuples]:
        per_line = self.unread_lines(width)
        if height is None or height <= 0 or sum(len(r) for r in per_line) <= height:
            return super().lines(width, height)  # the unread lines are the tail's last ones
        shown: list[StyleAndTextTuples] = []
        whole = 0
        for rows in per_line:
            if len(shown) + len(rows) > height - 1:
                break
            shown += rows
            whole += 1
        more = len(per_line) - whole
        return [*shown, [("class:warn", f"F3: {more} more line{'s' if more != 1 else ''}")]]
