# `versus replay FILE`: step through a verified match, forward and back, in the terminal.
#
# How it works. The transcript is verified first, and the same run hands over the engine inputs
# (`protocol.verify.replay_inputs`: rules, layout seed, the inputs in chain order, and the full
# deal once the end-of-match reveals made it public), so nothing is re-parsed here. `Timeline`
# replays those inputs through `new_game`/`step` once and keeps every state: step 0 is the new
# game, step k the state after the k-th input, so moving back is an index, not an undo.
#
# What is shown depends on a lens: "as player 0/1" shows what that seat knew at the time (the
# public state and its own dealt cards), "everything revealed" shows every card, including those
# that stayed verso or in hand during play, marked as hidden in play. Lenses other than the public
# one need the reveals; a match that ended without them (a fault, or a timeout or resignation
# before the reveals) replays with the public lens only. The narration is engine.narrate's, told
# in the third person ("Player 1 summoned ...") since a replay has no "you".
#
# Two front ends: `--print` (every step, or one with `--step K`, as plain text for scripts and
# tests) and a prompt-toolkit full-screen app (arrows/n/p step, PgUp/PgDn turn, Home/End, h the
# lens, q quits), drawn like the match UI (texts wrapped at word boundaries, cut with "…"), in
# the colour theme of `--theme` (cli/ui/theme.py; NO_COLOR turns colours off).
#
# Other games. A transcript names its game; all of the above is Versus's (its board,
# its lenses, its turns). A match of another registered game is printed (there is no app for
# it): every input in the game's notation with the game's own narration, public information
# only (`GameTimeline`: `Game.new_game` of the setup, then `Game.step` through the inputs, each
# told by `Game.narrate` to seat 0 with an empty knowledge, so no hidden card can be named).
# `--game ID` says which game the transcript must be of: another one is a one-line error.
from __future__ import annotations

import argparse
import enum
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from versus.engine.versus42 import GameResult, Knowledge, PlayerView, State, new_game, step
from versus.engine.versus42.game import DECK
from versus.engine.versus42.narrate import narrate
from versus.protocol.match.verify import MatchReplay, ReplayStep, replay_inputs
from versus.protocol.wire.text import printable

from .board_text import render_board


class Lens(enum.Enum):
    REVEALED = "everything revealed"
    PLAYER_0 = "as player 0"
    PLAYER_1 = "as player 1"
    PUBLIC = "public information"

    @property
    def seat(self) -> int | None:
        return {Lens.PLAYER_0: 0, Lens.PLAYER_1: 1}.get(self)


class ReplayError(Exception):
    """A transcript that cannot be replayed (it did not verify, or has no game)."""


class RevealedView(PlayerView):
    """A PlayerView that also knows every identity the end-of-match reveals made public.
    Oriented as `player` (whose side is at the bottom); only a replay after the match has it."""

    __slots__ = ("_all",)

    def __init__(self, state: State, identities: dict[int, str], player: int = 0) -> None:
        super().__init__(state, Knowledge(player), player)
        self._all = identities

    def identity(self, handle: int) -> str | None:
        public = self._state.public_id(handle)
        if public is not None:
            return public
        return None if self._state.zone[handle] == DECK else self._all.get(handle)


@dataclass(frozen=True)
class Frame:
    """Step k of the replay: the state after input k (k = 0: the new game)."""

    index: int
    state: State
    before: State | None
    input: ReplayStep | None


class Timeline:
    """Every state of a verified match, with views and narration per lens."""

    def __init__(self, replay: MatchReplay) -> None:
        _check_replayable(replay)
        assert replay.rules is not None and replay.setup_seed is not None
        self.replay = replay
        self.catalogue = replay.catalogue
        self.identities = replay.identities
        state = new_game(replay.rules.ruleset, replay.catalogue, replay.setup_seed)
        self.frames = [Frame(0, state, None, None)]
        for i, inp in enumerate(replay.inputs, start=1):
            after = step(state, inp.input)
            self.frames.append(Frame(i, after, state, inp))
            state = after

    @property
    def last(self) -> int:
        return len(self.frames) - 1

    @property
    def lenses(self) -> tuple[Lens, ...]:
        if self.identities is None:
            return (Lens.PUBLIC,)
        return (Lens.REVEALED, Lens.PLAYER_0, Lens.PLAYER_1, Lens.PUBLIC)

    def lens_for(self, wanted: str | None) -> Lens:
        """The lens named on the command line ("0", "1", "all", "public"), else the default."""
        if wanted in (None, "all"):
            return self.lenses[0]
        lens = {"0": Lens.PLAYER_0, "1": Lens.PLAYER_1, "public": Lens.PUBLIC}[wanted]
        return lens if lens in self.lenses else Lens.PUBLIC

    def turn(self, k: int) -> int:
        return self.frames[k].state.turn + 1

    def next_turn(self, k: int) -> int:
        """The first step of the next turn (or the last step)."""
        turn = self.frames[k].state.turn
        return next((f.index for f in self.frames[k + 1:] if f.state.turn != turn), self.last)

    def previous_turn(self, k: int) -> int:
        """The first step of this turn, or of the previous one when already there."""
        turn = self.frames[k].state.turn
        start = next(f.index for f in self.frames if f.state.turn == turn)
        if start < k:
            return start
        if start == 0:
            return 0
        earlier = self.frames[start - 1].state.turn
        return next(f.index for f in self.frames if f.state.turn == earlier)

    # --- what one lens sees ---------------------------------------------------------------

    def knowledge(self, seat: int, state: State) -> Knowledge:
        """What `seat` privately knew in `state`: its own cards that left its deck."""
        known = self.identities or {}
        return Knowledge(seat, {h: known[h] for h in state.handles(seat)
                                if h in known and state.zone[h] != DECK})

    def view(self, k: int, lens: Lens) -> PlayerView:
        state = self.frames[k].state
        if lens is Lens.REVEALED and self.identities is not None:
            return RevealedView(state, self.identities)
        seat = lens.seat if lens.seat is not None else 0
        return PlayerView(state, self.knowledge(seat, state) if lens.seat is not None
                          else Knowledge(seat), seat)

    def narration(self, k: int, lens: Lens) -> list[str]:
        frame = self.frames[k]
        if frame.before is None or frame.input is None:
            s = frame.state
            if s.rules.start:
                return [f"The match starts from a position at turn {s.turn}: player {s.active} "
                        "to play"]
            return [f"The game starts: player {s.first} plays first"]
        before, after = frame.before, frame.state
        if lens is Lens.REVEALED:
            teller = getattr(before.decision, "player", frame.input.seat)
        else:
            teller = lens.seat if lens.seat is not None else 0
        knowledge = (self.knowledge(teller, after) if lens is not Lens.PUBLIC
                     else Knowledge(teller))
        lines = narrate(before, frame.input.input, after, teller, knowledge)
        return [third_person(line, teller) for line in lines]

    def status(self, k: int, lens: Lens) -> str:
        frame = self.frames[k]
        said = "; ".join(self.narration(k, lens))
        parts = [f"step {k}/{self.last}", f"turn {self.turn(k)}"]
        if frame.input is not None:
            parts.append(f"seat {frame.input.seat}: {frame.input.text}")
        return ", ".join(parts) + (f": {said}" if said else "")

    def cards_text(self, k: int, lens: Lens) -> list[str]:
        """The field and the hands by name, as far as the lens knows them."""
        view, state = self.view(k, lens), self.frames[k].state
        cat = self.catalogue
        lines = []
        for fc in sorted(view.field, key=lambda c: c.area):
            name = cat[fc.card_id].name if fc.card_id else "?"
            face = "recto" if fc.recto else "verso"
            hidden = " (hidden in play)" if fc.card_id and state.public_id(fc.handle) is None \
                and lens is Lens.REVEALED else ""
            lines.append(f"  {fc.area} P{fc.owner} #{fc.handle} {name}, {face}{hidden}")
        for p in (0, 1):
            names = []
            for h in view.hand_handles(p):
                cid = view.identity(h)
                names.append(f"#{h} {cat[cid].name}" if cid else f"#{h} ?")
            lines.append(f"  hand P{p}: {', '.join(names) or '(empty)'}")
        return lines

    def step_text(self, k: int, lens: Lens) -> str:
        return "\n".join([self.status(k, lens), render_board(self.view(k, lens)),
                          *self.cards_text(k, lens)])


_PRONOUNS = [
    (re.compile(r"\bthe opponent wins\b"), "player {o} wins"),
    (re.compile(r"\byou win\b"), "player {v} wins"),
    (re.compile(r"\bThe opponent's\b"), "Player {o}'s"),
    (re.compile(r"\bthe opponent's\b"), "player {o}'s"),
    (re.compile(r"\bOpponent\b"), "Player {o}"),
    (re.compile(r"\bYour\b"), "Player {v}'s"),
    (re.compile(r"\byour\b"), "player {v}'s"),
    (re.compile(r"\bYou\b"), "Player {v}"),
]


def third_person(line: str, viewer: int) -> str:
    """engine.narrate speaks to `viewer` ("You drew ..."); a replay names the seats."""
    for pattern, words in _PRONOUNS:
        line = pattern.sub(words.format(v=viewer, o=1 - viewer), line)
    return line


def header_text(replay: MatchReplay) -> str:
    s = replay.report.summary
    players = ", ".join(f"P{i} {fp}" for i, fp in enumerate(s.get("players", [])))
    result = s.get("result")
    if result is None:
        outcome = "no result"
    else:
        winner = result["winner"]
        outcome = (f"{'no winner' if winner is None else f'seat {winner} wins'} "
                   f"({result['outcome'] or result['ending']})")
    return f"{s.get('deal_mode', '?')} match {s.get('match_id', '?')[:16]}…  {players}  {outcome}"


def print_replay(timeline: Timeline, lens: Lens, out: IO[str], only: int | None = None) -> None:
    if only is None:
        print(header_text(timeline.replay), file=out)
    steps: Sequence[int] = range(timeline.last + 1) if only is None else (only,)
    for k in steps:
        if only is None:
            print(file=out)
        print(timeline.step_text(k, lens), file=out)
    final = timeline.frames[-1].state.result
    if only is None and isinstance(final, GameResult):
        print(f"\nend of the game: {final}", file=out)


# --- another game than Versus: its inputs and narration, printed --------------------------


class GameTimeline:
    """Every state of a verified match of any game, told through the game's own narration
    (public information: see the module comment)."""

    def __init__(self, replay: MatchReplay) -> None:
        from versus.engine.api import Setup

        _check_replayable(replay)
        assert replay.rules is not None and replay.setup_seed is not None
        self.replay = replay
        self.game = game = replay.rules.game_impl
        state = game.new_game(Setup(replay.rules.ruleset, replay.catalogue, replay.setup_seed))
        self.states = [state]
        for inp in replay.inputs:
            state = game.step(state, inp.input)
            self.states.append(state)

    @property
    def last(self) -> int:
        return len(self.states) - 1

    def narration(self, k: int) -> list[str]:
        game = self.game
        if k == 0:
            return list(game.narrate_start(self.states[0], 0))
        step_ = self.replay.inputs[k - 1]
        return list(game.narrate(self.states[k - 1], step_.input, self.states[k], 0,
                                 game.new_knowledge(0)))

    def step_text(self, k: int) -> str:
        said = "; ".join(self.narration(k))
        head = f"step {k}/{self.last}"
        if k > 0:
            step_ = self.replay.inputs[k - 1]
            head += f", seat {step_.seat}: {step_.text}"
        return printable(head + (f": {said}" if said else ""), 2000)

    def ending(self) -> str | None:
        from versus.engine.api import Finished

        decision = self.game.decision(self.states[-1])
        if not isinstance(decision, Finished):
            return None
        who = "a draw" if decision.winner is None else f"player {decision.winner} wins"
        return f"{who} ({printable(decision.outcome, 40)})"


def print_game_replay(timeline: GameTimeline, out: IO[str], only: int | None = None) -> None:
    if only is None:
        rules = timeline.replay.rules
        assert rules is not None
        print(f"{header_text(timeline.replay)}", file=out)
        print(f"{printable(rules.describe(), 300)}; public information", file=out)
    steps: Sequence[int] = range(timeline.last + 1) if only is None else (only,)
    for k in steps:
        print(timeline.step_text(k), file=out)
    ending = timeline.ending()
    if only is None and ending is not None:
        print(f"end of the game: {ending}", file=out)


def _check_replayable(replay: MatchReplay) -> None:
    if not replay.report.ok:
        r = replay.report
        who = "unknown" if r.player is None else f"seat {r.player}"
        where = "" if r.bad_index is None else f"record {r.bad_index}: "
        raise ReplayError(f"the transcript does not verify ({where}{r.check}, at fault: "
                          f"{who}): {r.message}")
    if replay.rules is None or replay.setup_seed is None:
        raise ReplayError("the transcript ends before the game started")


# --- the full-screen app --------------------------------------------------------------------


class ReplayApp:
    """The interactive replay: a prompt-toolkit Application over a Timeline."""

    def __init__(self, timeline: Timeline, lens: Lens, theme: str | None = None,
                 **app_args: Any) -> None:
        from prompt_toolkit.application import Application
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.layout import Dimension, HSplit, Layout, Window
        from prompt_toolkit.layout.controls import FormattedTextControl
        from prompt_toolkit.output import ColorDepth
        from prompt_toolkit.styles import Style

        from .ui.controls import WrapControl
        from .ui.theme import no_color, style_rules

        self.timeline, self.lens, self.k = timeline, lens, 0
        keys = KeyBindings()
        moves = {
            ("right",): lambda: min(self.k + 1, timeline.last),
            ("n",): lambda: min(self.k + 1, timeline.last),
            ("left",): lambda: max(self.k - 1, 0),
            ("p",): lambda: max(self.k - 1, 0),
            ("pagedown",): lambda: timeline.next_turn(self.k),
            ("pageup",): lambda: timeline.previous_turn(self.k),
            ("home",): lambda: 0,
            ("end",): lambda: timeline.last,
        }
        for key, target in moves.items():
            keys.add(*key)(self._goto(target))
        keys.add("h")(lambda event: self.next_lens())
        keys.add("q")(lambda event: event.app.exit())
        keys.add("c-c")(lambda event: event.app.exit())
        status = WrapControl(lambda w: [("class:prompt", self.status())])
        body = HSplit([
            Window(WrapControl(lambda w: [("class:header", header_text(timeline.replay))]),
                   height=1),
            Window(FormattedTextControl(self._field),
                   height=field_height(timeline.frames[0].state.geom.rows)),
            Window(WrapControl(lambda w: self._cards())),
            Window(status, height=lambda: Dimension.exact(status.best_height(
                self.app.output.get_size().columns, 1, 4))),
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

    def next_lens(self) -> None:
        lenses = self.timeline.lenses
        self.lens = lenses[(lenses.index(self.lens) + 1) % len(lenses)]

    def status(self) -> str:
        return self.timeline.status(self.k, self.lens)

    def help(self) -> str:
        lens = self.lens.value + ("" if len(self.timeline.lenses) == 1 else " (h switches)")
        return f"{lens}  ←/p →/n step  PgUp/PgDn turn  Home/End  q quits"

    def _field(self) -> Any:
        return render_field(self.timeline.view(self.k, self.lens), self.timeline.catalogue, None,
                            owners=("P0", "P1"))

    def _cards(self) -> Any:
        return [("", "\n".join(self.timeline.cards_text(self.k, self.lens)))]

    def run(self) -> None:
        self.app.run()


# --- the command ----------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace, out: IO[str]) -> int:
    from versus.engine.api import full_screen_ui

    from .game_options import game_of
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
    wanted = getattr(args, "game", None) if getattr(args, "game_given", True) else None
    if wanted is not None and game is not None and game != wanted:
        print(f"versus replay: {args.file}: --game {wanted}: the transcript is a match of "
              f"{printable(game, 40)}", file=sys.stderr)
        return EXIT_UNREADABLE
    why = None if game is None else unknown_game(data, game)
    if why is not None:
        print(f"versus replay: {args.file}: {why}", file=sys.stderr)
        return EXIT_UNREADABLE
    try:
        replay = replay_inputs(data)
        if getattr(args, "position", False):
            return _print_position(GameTimeline(replay), args, out)
        if game is not None and not full_screen_ui(game_of(game)):  # no browser draws it
            return _replay_game(GameTimeline(replay), args, out)
        timeline = Timeline(replay)
    except ReplayError as error:
        print(f"versus replay: {args.file}: {error}", file=sys.stderr)
        return EXIT_INVALID
    lens = timeline.lens_for(args.view)
    if args.step is not None and not 0 <= args.step <= timeline.last:
        print(f"versus replay: --step {args.step}: the match has steps 0..{timeline.last}",
              file=sys.stderr)
        return EXIT_UNREADABLE
    if args.print or args.step is not None:
        print_replay(timeline, lens, out, args.step)
        return 0
    if not sys.stdin.isatty():  # the browser reads keys; prompt-toolkit would fail with EOFError
        print(f"versus replay: {args.file}: the replay browser needs a terminal on the standard "
              "input; --print writes the whole match instead", file=sys.stderr)
        return EXIT_UNREADABLE
    ReplayApp(timeline, lens, theme=getattr(args, "theme", None)).run()
    return 0


def _print_position(timeline: GameTimeline, args: argparse.Namespace, out: IO[str]) -> int:
    """`--position`: the game's position text of step K (default: the last), one line. A
    position never holds a hidden identity (SPEC §3.3), so it is safe to share whatever the
    transcript revealed."""
    k = timeline.last if args.step is None else args.step
    if not 0 <= k <= timeline.last:
        print(f"versus replay: --step {k}: the match has steps 0..{timeline.last}",
              file=sys.stderr)
        return 2
    print(timeline.game.dump_position(timeline.states[k]), file=out)
    return 0


def _replay_game(timeline: GameTimeline, args: argparse.Namespace, out: IO[str]) -> int:
    """The replay of another game than Versus: printed (see the module comment)."""
    if args.step is not None and not 0 <= args.step <= timeline.last:
        print(f"versus replay: --step {args.step}: the match has steps 0..{timeline.last}",
              file=sys.stderr)
        return 2
    print_game_replay(timeline, out, args.step)
    return 0


# --- the field of the interactive replay (Versus's board, drawn from its view) ----------

# (prompt-toolkit is imported where a screen is drawn: `versus replay --text` needs none)
from versus.engine.versus42 import Catalogue, FieldCard, Tile  # noqa: E402
from versus.engine.versus42.views import strength_label  # noqa: E402

Fragments = list  # prompt-toolkit's StyleAndTextTuples
OneStyleAndTextTuple = tuple
CELL_W = 15  # characters per area: a space, then 14 (the longest name that is not cut)
ROW_LABEL_W = 3
TILE_NAMES = {Tile.WHITE: "White", Tile.BLACK: "Black", Tile.GRAY: "Gray", Tile.BLUE: "Blue"}
TILE_STYLE = {Tile.WHITE: "class:tile.white", Tile.BLACK: "class:tile.black",
              Tile.GRAY: "class:tile.gray", Tile.BLUE: "class:tile.blue"}
CURSOR_MARK = "▶"
OWNER_MARKS = ("▲", "▼")  # the viewer's cards, the opponent's
def field_width(cols: int) -> int:
    return ROW_LABEL_W + CELL_W * cols


def field_height(rows: int, with_header: bool = True) -> int:
    return rows * 3 + (1 if with_header else 0)


def rows_top_down(view: PlayerView) -> list[int]:
    """Row indexes from the top of the screen: the viewer's own side at the bottom."""
    rows = list(range(view.geometry.rows))
    return rows if view.player == 1 else rows[::-1]


def strength_text(view: PlayerView, cat: Catalogue, fc: FieldCard) -> str:
    """'4+1' when bonuses apply, '3' without, '?' when hidden from the viewer."""
    if fc.card_id is None or fc.strength is None:
        return "?"
    return strength_label(cat[fc.card_id].strength, fc.strength)


def render_field(view: PlayerView, cat: Catalogue, cursor: str | None,
                 owners: tuple[str, str] | None = None, *,
                 click: Callable[[str], None] | None = None, with_header: bool = True,
                 waiting: str | None = None) -> Fragments:
    """The field as styled fragments. `owners` names the seats ("P0", "P1") where "you" and
    "opp" would mislead, as in a replay seen by nobody in particular. `click(area)` is called
    when an area is clicked. `waiting`: no match yet; a neutral grid (no tiles: the layout is
    not dealt) with this note in its middle."""
    from .ui.render import on_click
    geom = view.geometry
    cards = {fc.area: fc for fc in view.field}
    out: Fragments = []
    if with_header:
        out.append(("", " " * ROW_LABEL_W))
        for c in range(geom.cols):
            out.append(("class:title", f" {chr(ord('a') + c)}".ljust(CELL_W)))
        out.append(("", "\n"))
    order = rows_top_down(view)
    for line_no, r in enumerate(order):
        for line in range(3):
            out.append(("class:title", f" {r + 1} " if line == 1 else " " * ROW_LABEL_W))
            if waiting is not None and line == 1 and line_no == (len(order) - 1) // 2:
                out.append(("class:warn", waiting.center(CELL_W * geom.cols)[:CELL_W * geom.cols]))
                out.append(("", "\n"))
                continue
            for c in range(geom.cols):
                name = geom.names[r * geom.cols + c]
                handler = on_click(lambda a=name: click(a)) if click is not None else None
                if waiting is not None:
                    cell = [("class:tile.none", f" {name}".ljust(CELL_W) if line == 0
                             else " " * CELL_W)]
                else:
                    tile = Tile(view.tiles[r * geom.cols + c])
                    style = TILE_STYLE[tile] + (" class:cursor" if name == cursor else "")
                    cell = _cell_line(view, cat, name, tile, cards.get(name), line, style,
                                      owners, name == cursor)
                out += [_with_handler(f, handler) for f in cell]
            out.append(("", "\n"))
    return out


def _with_handler(fragment: OneStyleAndTextTuple,
                  handler: Callable[[Any], object] | None) -> OneStyleAndTextTuple:
    if handler is None:
        return fragment
    return (fragment[0], fragment[1], handler)


def _cell_line(view: PlayerView, cat: Catalogue, area: str, tile: Tile, fc: FieldCard | None,
               line: int, style: str, owners: tuple[str, str] | None = None,
               is_cursor: bool = False) -> Fragments:
    from .ui.render import ellipsize
    inner = CELL_W - 1
    if line == 0:
        lead = CURSOR_MARK if is_cursor else " "
        return [(style, f"{lead}{area}{TILE_NAMES[tile]:>{inner - len(area) - 1}} ")]
    if fc is None:
        return [(style, " " * CELL_W)]
    mine = fc.owner == view.player
    own_style = style + (" class:mine" if mine else " class:theirs")
    if line == 1:
        label = cat[fc.card_id].name if fc.card_id else "(verso)"
        return [(own_style, f" {ellipsize(label, inner):<{inner}}")]
    mark_style = "class:mark.mine" if mine else "class:mark.theirs"
    mark = OWNER_MARKS[0] if mine else OWNER_MARKS[1]
    who = owners[fc.owner] if owners is not None else "you" if mine else "opp"
    text = f"{who} {stats_text(view, cat, fc)}"
    if len(text) > inner - 1:  # the stats and the absorbed count always stay; the word goes
        text = stats_text(view, cat, fc)
    return [(style, " "), (style + " " + mark_style, mark),
            (own_style, f"{text[:inner - 1]:<{inner - 1}}")]


def stats_text(view: PlayerView, cat: Catalogue, fc: FieldCard) -> str:
    """'4+1 R ×2': Strength, face (R recto, V verso), absorbed cards (when there are any)."""
    absorbed = f" ×{fc.level}" if fc.level else ""
    return f"{strength_text(view, cat, fc)} {'R' if fc.recto else 'V'}{absorbed}"


