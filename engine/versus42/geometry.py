# Board geometry in one place: area names, adjacency (diagonals included), which player owns
# each area and which row is each player's Backline. Everything else in the engine works on
# area *indexes* through the tables built here, so another grid (4x4, 6x6, ...) is a different
# `Geometry` value, not a code change.
#
# Naming: columns are letters a.., rows are numbers 1..; index = (row - 1) * cols + column.
# Player 0 owns the lower half of the rows (rows 1-2 on the 4x5 field) and player 1 the upper
# half. A player's Backline is its own back row (row 1 for player 0, the last row for player 1),
# so a Backline Move is a Move into the far row of the field.
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Geometry:
    rows: int
    cols: int
    names: tuple[str, ...] = field(init=False)
    index: dict[str, int] = field(init=False, compare=False)
    adjacent: tuple[tuple[int, ...], ...] = field(init=False, compare=False)
    owner: tuple[int, ...] = field(init=False, compare=False)
    side: tuple[tuple[int, ...], tuple[int, ...]] = field(init=False, compare=False)
    backline_of: tuple[int, ...] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        if not (2 <= self.rows <= 9 and self.rows % 2 == 0 and 1 <= self.cols <= 26):
            raise ValueError(f"unsupported field size {self.rows}x{self.cols}")
        rows, cols = self.rows, self.cols
        names = tuple(
            f"{chr(ord('a') + c)}{r + 1}" for r in range(rows) for c in range(cols)
        )
        adjacent = []
        for r in range(rows):
            for c in range(cols):
                adjacent.append(tuple(
                    rr * cols + cc
                    for rr in (r - 1, r, r + 1)
                    for cc in (c - 1, c, c + 1)
                    if 0 <= rr < rows and 0 <= cc < cols and (rr, cc) != (r, c)
                ))
        half = rows // 2
        owner = tuple(0 if i // cols < half else 1 for i in range(rows * cols))
        backline_of = tuple(
            0 if i // cols == 0 else 1 if i // cols == rows - 1 else -1
            for i in range(rows * cols)
        )
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "index", {n: i for i, n in enumerate(names)})
        object.__setattr__(self, "adjacent", tuple(adjacent))
        object.__setattr__(self, "owner", owner)
        object.__setattr__(
            self, "side",
            (tuple(i for i in range(rows * cols) if owner[i] == 0),
             tuple(i for i in range(rows * cols) if owner[i] == 1)),
        )
        object.__setattr__(self, "backline_of", backline_of)

    @property
    def size(self) -> int:
        return self.rows * self.cols


#: the Versus field: 4 rows x 5 columns
STANDARD = Geometry(4, 5)
