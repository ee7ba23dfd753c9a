# What one seat sees, as plain data: the scene a game describes and every shell draws (the
# full-screen terminal UI, the line UI, `versus replay`, HTML replays, an environment's
# render()). ARCHITECTURE "A game describes, the shell draws".
#
# A game builds a Scene from a state, a seat and that seat's knowledge (its optional member
# `scene`, asked through `api.scene_of`). Seat None is the public scene a spectator or replay
# shows: every card the public state hides stays hidden, and its words are third person
# ("player 1's hand", never "your hand"). The shell draws a scene without knowing the game:
# the board as a grid of cells, each zone with its cards, each visible card's face with its
# full text, the status lines, the legal inputs, and which place or card each input names.
#
# Why plain data: the same scene is drawn by a terminal, printed as text, embedded in an HTML
# page and compared in tests, so it holds strings and numbers only, validated on construction
# (a game's mistake is caught where it is made, not where a shell draws it).
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


class SceneError(ValueError):
    """A game built a scene that breaks the rules below (its own bug), naming the field."""


def _texts(name: str, values: tuple[str, ...]) -> None:
    if not isinstance(values, tuple) or not all(isinstance(v, str) for v in values):
        raise SceneError(f"{name} must be a tuple of strings, got {values!r}")


@dataclass(frozen=True, slots=True)
class Face:
    """A visible card's face: its name, kind (e.g. "character", "trap"), numbers as
    (label, value) pairs in the game's order, and its full rules text."""

    name: str
    kind: str = ""
    numbers: tuple[tuple[str, str], ...] = ()
    text: str = ""

    def __post_init__(self) -> None:
        if not self.name:
            raise SceneError("a face needs a name")
        if not all(isinstance(p, tuple) and len(p) == 2 and all(isinstance(x, str) for x in p)
                   for p in self.numbers):
            raise SceneError(f"face {self.name!r}: numbers must be (label, value) strings, "
                             f"got {self.numbers!r}")

    def line(self) -> str:
        """The face in one line: name, kind and numbers (not the text)."""
        numbers = " ".join(f"{label} {value}" for label, value in self.numbers)
        kind = f" ({self.kind})" if self.kind else ""
        return f"{self.name}{kind}" + (f" · {numbers}" if numbers else "")


@dataclass(frozen=True, slots=True)
class Card:
    """A card as one seat sees it in one place. `ref`: how a player names it (in inputs and in
    `card REF`); `label`: a few characters fit for a board cell; `face`: None when hidden from
    this seat; `owner`: its player, None when not owned; `status`: short marks ("face down",
    "exhausted"); `inputs`: the legal input lines that name this card now."""

    ref: str
    label: str
    face: Face | None = None
    owner: int | None = None
    status: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.ref or not self.label:
            raise SceneError(f"a card needs a ref and a label, got {self.ref!r}/{self.label!r}")
        _texts(f"card {self.ref} status", self.status)
        _texts(f"card {self.ref} inputs", self.inputs)


@dataclass(frozen=True, slots=True)
class Cell:
    """One place on a board. `ref`: the coordinate a player types ("b3"); `shade`: a theme
    name for its ground ("white", "base-0"; "" plain), never the only signal; `label`: what
    the place is in words ("Black tile"), shown where there is room; `cards`: the cards on it,
    top first; `inputs`: the legal input lines naming this cell now."""

    ref: str
    shade: str = ""
    label: str = ""
    cards: tuple[Card, ...] = ()
    inputs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.ref:
            raise SceneError("a cell needs a ref")
        _texts(f"cell {self.ref} inputs", self.inputs)


@dataclass(frozen=True, slots=True)
class Board:
    """A grid: column labels left to right, row labels top to bottom, cells row by row from
    the top; `legend`: one line saying what the cell marks mean."""

    columns: tuple[str, ...]
    rows: tuple[str, ...]
    cells: tuple[Cell, ...]
    legend: str = ""

    def __post_init__(self) -> None:
        if len(self.cells) != len(self.columns) * len(self.rows):
            raise SceneError(f"a {len(self.rows)}x{len(self.columns)} board needs "
                             f"{len(self.rows) * len(self.columns)} cells, got {len(self.cells)}")

    def row(self, index: int) -> tuple[Cell, ...]:
        width = len(self.columns)
        return self.cells[index * width:(index + 1) * width]

    def cell(self, ref: str) -> Cell | None:
        return next((c for c in self.cells if c.ref == ref), None)


@dataclass(frozen=True, slots=True)
class Zone:
    """A group of cards outside the board: a hand, a deck, a discard pile, a row of heroes.
    `cards`: the cards this seat may see, in order; `count`: how many the zone holds (at
    least len(cards); hidden ones are counted, not listed); `hand`: the deciding seat's own
    hand (drawn with the selected card's text and selectable)."""

    name: str
    owner: int | None = None
    cards: tuple[Card, ...] = ()
    count: int | None = None
    hand: bool = False

    def __post_init__(self) -> None:
        if not self.name:
            raise SceneError("a zone needs a name")
        if self.count is not None and self.count < len(self.cards):
            raise SceneError(f"zone {self.name!r} counts {self.count} cards but lists "
                             f"{len(self.cards)}")

    @property
    def size(self) -> int:
        return len(self.cards) if self.count is None else self.count


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything one seat (None: the public) sees of a game at one moment.

    `title`: the game and moment ("grid · turn 5"); `status`: short lines (whose turn, life,
    energy, score); `board`: the grid, None for a game without one; `zones`: the other card
    groups; `prompt`: what the deciding seat is asked, "" when it does not decide; `inputs`:
    its legal input lines now (the game's canonical notation); `notes`: (input line, why)
    for legal inputs that waste a card or that the rules will let do nothing, said before
    they are played; `result`: the plain result once the game is over ("You win: ...")."""

    title: str
    seat: int | None
    status: tuple[str, ...] = ()
    board: Board | None = None
    zones: tuple[Zone, ...] = ()
    prompt: str = ""
    inputs: tuple[str, ...] = ()
    notes: tuple[tuple[str, str], ...] = ()
    result: str | None = None
    _cards: dict[str, Card] = field(default_factory=dict, init=False, repr=False,
                                    compare=False)

    def __post_init__(self) -> None:
        _texts("scene status", self.status)
        _texts("scene inputs", self.inputs)
        for pair in self.notes:
            if not (isinstance(pair, tuple) and len(pair) == 2 and pair[0] in self.inputs
                    and isinstance(pair[1], str)):
                raise SceneError(f"a note must be (legal input, why), got {pair!r}")
        refs = self._cards
        for card in self.cards():
            if card.face is not None:
                refs.setdefault(card.ref, card)

    def cards(self) -> Iterator[Card]:
        """Every card in the scene: the board's, cell by cell, then each zone's."""
        if self.board is not None:
            for cell in self.board.cells:
                yield from cell.cards
        for zone in self.zones:
            yield from zone.cards

    def card(self, ref: str) -> Card | None:
        """The visible card named `ref` (None when no visible card has it)."""
        return self._cards.get(ref)

    def note(self, line: str) -> str | None:
        """Why the legal input `line` wastes or does nothing, None when it does not."""
        return next((why for text, why in self.notes if text == line), None)

    def hand(self) -> Zone | None:
        """The deciding seat's own hand, if the scene has one."""
        return next((z for z in self.zones if z.hand), None)


def fit_label(text: str, width: int) -> str:
    """`text` as a label of at most `width` characters: cut, it ends with "…" (a cut name
    never reads as a whole one: "Plated Harn…", never "Plated Harne"). Every game's scene
    cuts its card labels here."""
    return text if len(text) <= width else text[:max(0, width - 1)].rstrip(" …") + "…"


def player_name(player: int | None, seat: int | None) -> str:
    """How a scene names `player` to `seat`: "you"/"the opponent" for a seat, "player N"
    (counted from 1) for the public; "nobody" for None."""
    if player is None:
        return "nobody"
    if seat is None:
        return f"player {player + 1}"
    return "you" if player == seat else "the opponent"


def possessive(player: int | None, seat: int | None) -> str:
    """"your" / "the opponent's" / "player N's"."""
    if seat is not None and player == seat:
        return "your"
    return f"{player_name(player, seat)}'s"


# --- plain text, for the line UI, replays and environments' render() ---------------------


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        candidate = f"{line} {word}" if line else word
        if len(candidate) <= width - len(indent) or not line:
            line = candidate
        else:
            lines.append(indent + _fit(line, width - len(indent)))
            line = word
    if line:
        lines.append(indent + _fit(line, width - len(indent)))
    return lines


def shade_letters(board: Board) -> dict[str, str]:
    """One letter per shade of `board`, in the order they appear: the shade's first letter,
    else its next letter not yet taken (black and blue: B and L), so no two share one."""
    letters: dict[str, str] = {}
    for cell in board.cells:
        shade = cell.shade
        if not shade or shade in letters:
            continue
        taken = set(letters.values())
        pick = next((c for c in shade.upper() if c.isalnum() and c not in taken), "?")
        letters[shade] = pick
    return letters


def board_lines(board: Board, width: int = 80) -> list[str]:
    """The board as rows of fixed-width cells: each cell its shade's letter (when shaded,
    `shade_letters`, said under the board) and its top card's label, '.' when empty."""
    label_w = max((len(r) for r in board.rows), default=1) + 1
    cell_w = max(4, min(16, (width - label_w) // max(1, len(board.columns))))
    letters = shade_letters(board)
    head = " " * label_w + "".join(_fit(c, cell_w - 1).ljust(cell_w) for c in board.columns)
    lines = [head.rstrip()]
    for index, row_label in enumerate(board.rows):
        parts = []
        for cell in board.row(index):
            top = cell.cards[0].label if cell.cards else "."
            shade = letters[cell.shade] + " " if cell.shade else ""
            parts.append(_fit(shade + top, cell_w - 1).ljust(cell_w))
        lines.append(row_label.rjust(label_w - 1) + " " + "".join(parts).rstrip())
    if letters:
        lines += _wrap("grounds: " + ", ".join(f"{k} {v}" for v, k in letters.items()), width)
    if board.legend:
        lines += _wrap(board.legend, width)
    return lines


def card_lines(card: Card, width: int = 80) -> list[str]:
    """A card's full text: its face line, status and rules text, wrapped to `width`."""
    if card.face is None:
        return [_fit(f"{card.ref}: {card.label} (hidden)", width)]
    head = f"{card.ref}: {card.face.line()}"
    if card.status:
        head += f" [{', '.join(card.status)}]"
    lines = _wrap(head, width)
    if card.face.text:
        lines += _wrap(card.face.text, width, "    ")
    return lines


def zone_lines(zone: Zone, width: int = 80, with_text: bool = False) -> list[str]:
    """A zone: its name and count, then each visible card (with its text when asked)."""
    hidden = zone.size - len(zone.cards)
    head = f"{zone.name}: {zone.size} card{'s' if zone.size != 1 else ''}"
    if hidden and zone.cards:
        head += f" ({hidden} hidden)"
    lines = [_fit(head, width)]
    for card in zone.cards:
        if with_text:
            lines += ["  " + line for line in card_lines(card, width - 2)]
        else:
            line = card.face.line() if card.face else card.label
            lines.append(_fit(f"  {card.ref}: {line}", width))
    return lines


def scene_lines(scene: Scene, width: int = 80) -> list[str]:
    """The whole scene as plain text lines of at most `width` characters."""
    lines = [_fit(scene.title, width)]
    for status in scene.status:
        lines += _wrap(status, width)
    if scene.board is not None:
        lines += board_lines(scene.board, width)
    for zone in scene.zones:
        lines += zone_lines(zone, width, with_text=zone.hand)
    if scene.result is not None:
        lines += _wrap(scene.result, width)
    elif scene.prompt:
        lines += _wrap(scene.prompt, width)
    return lines


__all__ = ["Board", "Card", "Cell", "Face", "Scene", "SceneError", "Zone", "board_lines",
           "card_lines", "fit_label", "player_name", "possessive", "scene_lines", "shade_letters",
           "zone_lines"]
