# A plain line interface for a person playing any game without a terminal (standard input a
# pipe or a file: a script can play); with a terminal, `versus play`, `host` and `join` open the
# full-screen UI (cli/ui/), which draws the same scene.
#
# What it shows: the session's log lines as they come (the game's own narration, from
# cli/driving.py `narrate_events`, and the session's lost links, resumes and faults), and at
# each decision of ours the game's scene as text (engine/scene.py `scene_lines`, the scene
# `api.scene_of` gives for our seat) and the legal inputs in the game's notation.
# What it reads: one line per answer, from standard input (a terminal or a pipe: a script can
# play). A legal input's notation (or any text the game parses to a legal input) is submitted;
# `resign` resigns; `leave` (or the end of the input) leaves the match, which host and join can
# resume (`--resume`); anything else is refused with one line, and the question is asked again.
#
# Help and completion. `help` (or `?`) lists the legal inputs and the commands. On a terminal
# the line is read with the standard library's readline: Tab completes the whole line among the
# legal inputs and commands of the question being asked (`complete_line`), and the arrow keys
# edit and recall lines; from a pipe the lines are read as they are.
#
# Reading. Standard input is read by one thread at a time (trio.lowlevel.start_thread_soon, a
# daemon thread: a read still blocked when the match ends does not keep the program alive);
# a line read before the question is kept for it (type-ahead), never lost.
from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import outcome
import trio

from versus.engine.errors import EngineError
from versus.p2p.session import MatchSession
from versus.protocol.wire.text import printable

MAX_LINE = 300  # one shown line
MAX_VIEW_LINES = 60
COMMANDS = ("help", "resign", "leave")


def complete_line(candidates: Sequence[str], line: str) -> list[str]:
    """The candidates a line typed so far can complete to, in order (Tab on a terminal)."""
    return [c for c in candidates if c.startswith(line)]


def scene_text(session: MatchSession, width: int = 80) -> list[str]:
    """Our seat's scene of the session's match as text lines (each printable, at most
    MAX_VIEW_LINES)."""
    from versus.engine.api import scene_of
    from versus.engine.scene import scene_lines

    scene = scene_of(session.game, session.state, session.seat, session.knowledge)
    lines = scene_lines(scene, width)
    shown = [printable(line, MAX_LINE) for line in lines[:MAX_VIEW_LINES]]
    if len(lines) > MAX_VIEW_LINES:
        shown.append(f"(… {len(lines) - MAX_VIEW_LINES} more lines)")
    return shown


def describe_view(game: Any, view: Any) -> list[str]:
    """The view as text lines: the game's `describe_view(view)` if it has one, else the
    view's own `describe()`, else `str(view)`; each line printable, at most MAX_VIEW_LINES."""
    describe = getattr(game, "describe_view", None)  # (engine/shell.py: the game draws it)
    if callable(describe):
        text = describe(view)
    elif callable(getattr(view, "describe", None)):
        text = view.describe()
    else:
        text = str(view)
    lines = str(text).splitlines() or [""]
    shown = [printable(line, MAX_LINE) for line in lines[:MAX_VIEW_LINES]]
    if len(lines) > MAX_VIEW_LINES:
        shown.append(f"(… {len(lines) - MAX_VIEW_LINES} more lines)")
    return shown


class LineReader:
    """Lines of a text stream, read in a worker thread, one read at a time (see the module
    comment). `None` is the end of the input."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        #: what Tab completes to now (the question's legal inputs and the commands)
        self.candidates: Sequence[str] = ()
        self._readline = _terminal_readline(stream)
        self._reading = False
        self._lines: list[str | None] = []
        self._arrived = trio.Event()

    async def readline(self) -> str | None:
        while not self._lines:
            if not self._reading:
                self._start()
            arrived = self._arrived
            await arrived.wait()
        return self._lines.pop(0)

    def _start(self) -> None:
        self._reading = True
        token = trio.lowlevel.current_trio_token()

        def deliver(result: outcome.Outcome[str]) -> None:
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(self._delivered, result)

        read = self._read_terminal if self._readline is not None else self.stream.readline
        trio.lowlevel.start_thread_soon(read, deliver)

    def _read_terminal(self) -> str:
        """One line with readline's editing and completion ("" at the end of the input)."""
        readline = self._readline
        assert readline is not None
        matches: list[str] = []

        def complete(text: str, state: int) -> str | None:
            if state == 0:
                matches[:] = complete_line(self.candidates, readline.get_line_buffer())
            return matches[state] if state < len(matches) else None

        readline.set_completer(complete)
        try:
            return input() + "\n"
        except EOFError:
            return ""

    def _delivered(self, result: outcome.Outcome[str]) -> None:
        self._reading = False
        try:
            line: str | None = result.unwrap()
        except (OSError, ValueError):  # a closed or unreadable input: the end of it
            line = None
        self._lines.append(line or None)  # "" is the end of the input
        self._arrived.set()
        self._arrived = trio.Event()


def _terminal_readline(stream: TextIO) -> Any:
    """The readline module when `stream` is this process's terminal input, else None."""
    import sys

    if stream is not sys.stdin or not stream.isatty():
        return None
    try:
        import readline
    except ImportError:  # a Python without it: plain lines
        return None
    readline.set_completer_delims("")  # complete the whole line, spaces included
    readline.parse_and_bind("tab: complete")
    return readline


class LinePlayer:
    """A person at a line terminal (see the module comment), for cli/driving.py
    `drive_player`; `attach` gives it its session and the function that shows the session's
    log lines so far (called before each question, so it comes after what happened)."""

    name = "you"

    def __init__(self, game: Any, out: TextIO, stdin: TextIO) -> None:
        self.game, self.out = game, out
        self.reader = LineReader(stdin)
        self.session: MatchSession | None = None
        self.flush_log: Callable[[], None] = lambda: None

    def attach(self, session: MatchSession, flush_log: Callable[[], None] | None = None
               ) -> None:
        self.session = session
        if flush_log is not None:
            self.flush_log = flush_log

    def say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        self.flush_log()
        texts = [self.game.format_input(action) for action in legal]
        shown = (describe_view(self.game, view) if self.session is None
                 or self.session.state is None else scene_text(self.session, 78))
        for line in shown:
            self.say(f"  {line}")
        self.say(printable(f"your move, {choices_text(texts)} (or: {', '.join(COMMANDS)})",
                           4 * MAX_LINE))
        self.reader.candidates = [*texts, *COMMANDS]
        while True:
            print("> ", end="", file=self.out, flush=True)
            line = await self.reader.readline()
            if line is None:
                self.say("")
                return await self._leave("the player left (end of input)")
            text = line.strip()
            if not text:
                continue
            if text in texts:
                return legal[texts.index(text)]
            if text in ("help", "?"):
                for line in help_lines(texts):
                    self.say(line)
                continue
            if text == "resign":
                return await self._resign()
            if text == "leave":
                return await self._leave("you left the match")
            try:
                parsed = self.game.parse_input(text)
            except EngineError as error:
                self.say(printable(f"not an input: {error}", MAX_LINE))
                continue
            if parsed in legal:
                return parsed
            self.say(printable(f"{text!r} is not legal now; one of: {', '.join(texts)}",
                               MAX_LINE))

    async def _resign(self) -> Any:
        assert self.session is not None
        await self.session.resign()
        await trio.sleep_forever()  # the decision is gone: drive_player moves on

    async def _leave(self, why: str) -> Any:
        assert self.session is not None
        await self.session.leave(why)
        await trio.sleep_forever()


#: a prompt listing more than this many characters of inputs groups them by their first word
SHORT_CHOICES = 160


def choices_text(texts: Sequence[str]) -> str:
    """The inputs of a decision for the prompt: all of them when short ("one of: bet, pass"),
    else grouped by their first word with counts and one example each ("32 inputs: place (30,
    e.g. place 0 a1 down), use (2, e.g. use 0); help lists them"): a 6x6 grid offers dozens of
    placements, a wall of text on an 80-column terminal."""
    listed = ", ".join(texts)
    if len(listed) <= SHORT_CHOICES:
        return f"one of: {listed}"
    groups: dict[str, list[str]] = {}
    for text in texts:
        groups.setdefault(text.split(" ", 1)[0], []).append(text)
    parts = [f"{word} ({len(group)}, e.g. {group[0]})" if len(group) > 1 else group[0]
             for word, group in groups.items()]
    return f"{len(texts)} inputs: {', '.join(parts)}; help lists them, Tab completes"


def help_lines(texts: Sequence[str]) -> list[str]:
    """What `help` prints: every legal input of the question, then the commands."""
    lines = ["legal inputs now (type one; on a terminal Tab completes it):"]
    lines += [printable(f"  {text}", MAX_LINE) for text in texts]
    lines += ["commands:", "  help      this list",
              "  resign    give up the match (signed: the opponent wins)",
              "  leave     stop here; host and join can resume the match with --resume"]
    return lines
