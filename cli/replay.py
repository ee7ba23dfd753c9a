# `versus replay FILE`: step through a match transcript or a solo run of any game, forward and
# back, in the terminal; `--print` writes the steps as text instead.
#
# How it works. cli/replay_steps.py verifies the file and rebuilds every state of its game
# (step 0 the start, step k after the k-th input); each step shows the game's own scene
# (engine/scene.py, drawn by `scene_lines`) and the game's narration of the input that led
# there, through a lens: the public (the default, third person) or, once the end-of-match
# reveals made both decks public, what one seat knew then. A file that fails verification is
# replayed up to its last valid input and the failure is said there, naming its record; the
# exit status is still 1 (the file is not valid), as `versus verify` says.
#
# Two front ends: `--print` (every step, or one with `--step K`) and a prompt-toolkit
# full-screen app: the scene in a window (↑/↓ scroll it), the narration below, ←/→/n/p step,
# PgUp/PgDn turn, Home/End, h the lens, q quits; in the colours of `--theme` (NO_COLOR turns
# them off). `--position` writes a step's position text. `--game ID` says which game the file
# must be of: another one is a one-line error.
from __future__ import annotations

import argparse
import sys
import textwrap
from typing import IO, Any

from versus.engine.scene import player_name
from versus.protocol.wire.text import printable

from .replay_steps import Replay, ReplayError, Step, load_replay, step_lines


def lens_name(lens: int | None) -> str:
    return "public information" if lens is None else f"as {player_name(lens, None)} (seat {lens})"


def print_replay(replay: Replay, lens: int | None, out: IO[str], only: int | None = None,
                 width: int = 80) -> None:
    """Every step (or step `only`) as text: a header, then each step's lines."""
    if only is None:
        print(replay.header, file=out)
        print(f"{replay.rules_text}; {lens_name(lens)}", file=out)
    for step in replay.steps(lens, only):
        if only is None:
            print(file=out)
        print("\n".join(step_lines(step, replay.last, width)), file=out)
    ending = replay.ending()
    if only is None and ending is not None:
        print("\n" + "\n".join(textwrap.wrap(f"end of the game: {ending}", width,
                                              subsequent_indent="  ")), file=out)


# --- the full-screen app --------------------------------------------------------------------


class ReplayApp:
    """The interactive replay: a prompt-toolkit Application over a Replay."""

    def __init__(self, replay: Replay, lens: int | None, theme: str | None = None,
                 **app_args: Any) -> None:
        from prompt_toolkit.application import Application
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.layout import Dimension, HSplit, Layout, Window
        from prompt_toolkit.output import ColorDepth
        from prompt_toolkit.styles import Style

        from .ui.controls import WrapControl
        from .ui.theme import no_color, style_rules

        self.replay, self.lens, self.k = replay, lens, 0
        self.scroll = 0  # the first scene line shown (↑/↓: the scene is taller than a window)
        self._cache: dict[tuple[int, int | None], Step] = {}
        keys = KeyBindings()
        moves = {
            ("right",): lambda: min(self.k + 1, replay.last),
            ("n",): lambda: min(self.k + 1, replay.last),
            ("left",): lambda: max(self.k - 1, 0),
            ("p",): lambda: max(self.k - 1, 0),
            ("pagedown",): lambda: replay.next_turn(self.k),
            ("pageup",): lambda: replay.previous_turn(self.k),
            ("home",): lambda: 0,
            ("end",): lambda: replay.last,
        }
        for key, target in moves.items():
            keys.add(*key)(self._goto(target))
        keys.add("up")(lambda event: self._scroll(-1))
        keys.add("down")(lambda event: self._scroll(1))
        keys.add("h")(lambda event: self.next_lens())
        keys.add("q")(lambda event: event.app.exit())
        keys.add("c-c")(lambda event: event.app.exit())
        said = WrapControl(lambda w: [("class:prompt", self.status())])
        body = HSplit([
            Window(WrapControl(lambda w: [("class:header", replay.header)]), height=1),
            Window(WrapControl(lambda w: [("", "\n".join(self.scene_text(w)))])),
            Window(said, height=lambda: Dimension(min=1, max=8, preferred=said.best_height(
                self.app.output.get_size().columns, 1, 8))),
            Window(WrapControl(lambda w: [("class:dim", self.help())]), height=1),
        ])
        colourless = no_color()
        self.app: Application[None] = Application(
            layout=Layout(body), key_bindings=keys, full_screen=True,
            style=Style.from_dict(style_rules(theme, colourless=colourless)),
            color_depth=ColorDepth.DEPTH_1_BIT if colourless else None, **app_args)

    def _goto(self, target: Any) -> Any:
        def handler(event: Any) -> None:
            self.k = target()
        return handler

    def _scroll(self, by: int) -> None:
        self.scroll = max(0, self.scroll + by)

    def current(self) -> Step:
        key = (self.k, self.lens)
        if key not in self._cache:
            self._cache[key] = self.replay.step(self.k, self.lens)
        return self._cache[key]

    def next_lens(self) -> None:
        lenses = self.replay.lenses
        self.lens = lenses[(lenses.index(self.lens) + 1) % len(lenses)]

    def scene_text(self, width: int = 80) -> list[str]:
        from versus.engine.scene import scene_lines

        lines = scene_lines(self.current().scene, max(20, width))
        self.scroll = min(self.scroll, max(0, len(lines) - 1))
        return lines[self.scroll:]

    def status(self) -> str:
        """'step k/N, record …: INPUT', then the narration, then the file's failure there."""
        step = self.current()
        head = f"step {step.index}/{self.replay.last}" + (f", {step.record}" if step.record
                                                          else "")
        lines = [head, *step.narration]
        if step.failure is not None:
            lines.append(f"the file stops being valid here: {step.failure}")
        return "\n".join(lines)

    def help(self) -> str:
        lens = lens_name(self.lens) + ("" if len(self.replay.lenses) == 1 else " (h switches)")
        return f"{lens}  ←/p →/n step  PgUp/PgDn turn  Home/End  ↑/↓ scroll  q quits"

    def run(self) -> None:
        self.app.run()


# --- the command ----------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace, out: IO[str]) -> int:
    from .verify_cmd import (
        EXIT_INVALID,
        EXIT_UNREADABLE,
        MAX_FILE_SIZE,
        UnreadableFile,
        read_limited,
        transcript_game,
        unknown_game,
    )

    try:
        data = read_limited(args.file, MAX_FILE_SIZE)
    except UnreadableFile as error:
        print(f"versus replay: {args.file}: UNREADABLE: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    if data is None:
        print(f"versus replay: {args.file}: over the transcript size limit", file=sys.stderr)
        return EXIT_INVALID
    game = transcript_game(data)
    why = None if game is None else unknown_game(data, game)
    if why is not None:
        print(f"versus replay: {args.file}: {why}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        replay = load_replay(data)
    except ReplayError as error:
        print(f"versus replay: {args.file}: {error}", file=sys.stderr)
        return EXIT_INVALID
    wanted = getattr(args, "game", None) if getattr(args, "game_given", True) else None
    if wanted is not None and replay.game.id != wanted:
        what = "transcript is a match" if game is not None else "file is a game"
        print(f"versus replay: {args.file}: --game {wanted}: the {what} of "
              f"{printable(replay.game.id, 40)}", file=sys.stderr)
        return EXIT_UNREADABLE
    k = replay.last if args.step is None and getattr(args, "position", False) else args.step
    if k is not None and not 0 <= k <= replay.last:
        kind = "match" if game is not None else "run"
        print(f"versus replay: --step {k}: the {kind} has steps 0..{replay.last}",
              file=sys.stderr)
        return EXIT_UNREADABLE
    status = 0
    if replay.failure is not None:  # said where it happens too; a script reads it here
        print(f"versus replay: {args.file}: {replay.failure}", file=sys.stderr)
        status = EXIT_INVALID
    if getattr(args, "position", False):
        print(replay.game.dump_position(replay.states[k]), file=out)
        return status
    if getattr(args, "html", None):
        from .html.replay import replay_frames, replay_page

        try:
            with open(args.html, "w", encoding="utf-8") as page:
                frames, verdict, title = replay_frames(replay)
                page.write(replay_page(title, frames, verdict))
        except OSError as error:
            print(f"versus replay: {args.html}: {error.strerror or error}", file=sys.stderr)
            return EXIT_UNREADABLE
        print(f"replay page: {args.html}", file=out)
        return status
    lens = replay.lens_for(args.view)
    if args.print or args.step is not None:
        print_replay(replay, lens, out, args.step)
        return status
    if not sys.stdin.isatty():  # the browser reads keys; prompt-toolkit would fail with EOFError
        print(f"versus replay: {args.file}: the replay browser needs a terminal on the standard "
              "input; --print writes the whole file instead", file=sys.stderr)
        return EXIT_UNREADABLE
    ReplayApp(replay, lens, theme=getattr(args, "theme", None)).run()
    return status
