"""The laser beam.

A beam leaves a pawn's cell in a direction and enters cell after cell. On a
coin it turns to the coin's facing and goes on; the second time it reaches any
coin there is a loop, and that coin and every coin hit after its first hit are
removed. A pawn (any pawn, the shooter's own included) stops it; so does the edge.

>>> from piecebridge.rules.reflec.core import Board, parse_cell
>>> board = Board.from_json({"pawns": [{"cell": "a1", "suit": "suns"}],
...     "coins": [{"cell": "a3", "suit": "moons", "facing": "east"}]})
>>> shot = trace(board, parse_cell("a1"), Direction.NORTH)
>>> shot.path_names(), shot.end
(['a2', 'a3', 'b3', 'c3', 'd3', 'e3', 'f3', 'g3', 'h3'], 'edge')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from piecebridge.rules.reflec.core import CELL_NAMES, STEP, Board, Coin, Direction, Pawn

EndKind = Literal["edge", "pawn", "loop"]


@dataclass(frozen=True, slots=True)
class Beam:
    """Where a shot went: the cells entered, how it ended, what it hit or removed."""

    path: tuple[int, ...]
    end: EndKind
    hit_cell: int | None = None  # the pawn's cell, for end == "pawn"
    removed: tuple[int, ...] = ()  # the loop's coin cells sorted by name, for a loop

    def path_names(self) -> list[str]:
        return [CELL_NAMES[c] for c in self.path]

    def to_json(self, board: Board) -> dict[str, Any]:
        """The spec's laser-query object."""
        end: dict[str, Any] = {"kind": self.end}
        if self.end == "pawn":
            assert self.hit_cell is not None
            pawn = board.squares[self.hit_cell]
            assert isinstance(pawn, Pawn)
            end |= {"cell": CELL_NAMES[self.hit_cell], "suit": pawn.suit.value}
        elif self.end == "loop":
            end["removed"] = [CELL_NAMES[c] for c in self.removed]
        return {"path": self.path_names(), "end": end}


# Plain tuples indexed by direction number keep the hot loop free of enum hashing.
_DIRS = tuple(Direction)
_DIR_INDEX = {d: i for i, d in enumerate(_DIRS)}
_STEP_BY_INDEX = tuple(STEP[d] for d in _DIRS)


def trace(board: Board, start: int, direction: Direction) -> Beam:
    """Follow a beam fired from ``start`` (the firing pawn's cell) towards ``direction``."""
    squares = board.squares
    step = _STEP_BY_INDEX
    d = _DIR_INDEX[direction]
    cell = start
    path: list[int] = []
    first_hit: dict[int, int] = {}  # coin cell -> index in hits
    hits: list[int] = []
    while True:
        cell = step[d][cell]
        if cell < 0:
            return Beam(tuple(path), "edge")
        path.append(cell)
        piece = squares[cell]
        if piece is None:
            continue
        if type(piece) is Coin:
            if cell in first_hit:
                loop = hits[first_hit[cell] :]
                # sorted by name, as the spec's JSON lists them
                removed = tuple(sorted(set(loop), key=CELL_NAMES.__getitem__))
                return Beam(tuple(path), "loop", removed=removed)
            first_hit[cell] = len(hits)
            hits.append(cell)
            d = _DIR_INDEX[piece.facing]
            continue
        return Beam(tuple(path), "pawn", hit_cell=cell)
