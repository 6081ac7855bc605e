"""Cells, directions, suits, pieces and the board of Reflec.

Cells are integers 0..63 like python-chess squares: ``cell = row * 8 + column``
with column 0 = ``a`` (west) and row 0 = rank ``1`` (south).

>>> parse_cell("c4")
26
>>> cell_name(26)
'c4'
>>> Direction.NORTH.turn_back()
<Direction.SOUTH: 'south'>
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any


class ReflecError(ValueError):
    """Base of every error the Reflec engine raises for bad input."""


class BoardError(ReflecError):
    """A board description is invalid; the message names the offending item."""


# --- cells -----------------------------------------------------------------

FILES = "abcdefgh"
SIZE = 8
CELLS = range(SIZE * SIZE)
CELL_NAMES: tuple[str, ...] = tuple(f"{FILES[c % SIZE]}{c // SIZE + 1}" for c in CELLS)
_CELL_BY_NAME = {name: cell for cell, name in enumerate(CELL_NAMES)}


def parse_cell(name: str) -> int:
    """The cell index of a name such as ``"c4"``; raises :class:`BoardError`."""
    try:
        return _CELL_BY_NAME[name.strip().lower()]
    except (KeyError, AttributeError):
        raise BoardError(f"{name!r} is not a cell of the 8x8 board (a1..h8)") from None


def cell_name(cell: int) -> str:
    return CELL_NAMES[cell]


def column(cell: int) -> int:
    return cell % SIZE


def row(cell: int) -> int:
    return cell // SIZE


# --- directions --------------------------------------------------------------


class Direction(enum.Enum):
    """The four grid directions; value is the spec's name."""

    NORTH = "north"
    EAST = "east"
    SOUTH = "south"
    WEST = "west"

    # Members are singletons compared by identity: a C-level identity hash keeps
    # board hashing (the explain search keys on boards) fast.
    __hash__ = object.__hash__

    @property
    def delta(self) -> tuple[int, int]:
        """(d_column, d_row) of one step."""
        return _DELTAS[self]

    def turn_back(self) -> Direction:
        return _OPPOSITE[self]

    @classmethod
    def parse(cls, text: str) -> Direction:
        try:
            return _DIRECTION_BY_NAME[text.strip().lower()]
        except (KeyError, AttributeError):
            raise BoardError(f"{text!r} is not a direction (north, east, south, west)") from None


DIRECTIONS: tuple[Direction, ...] = tuple(Direction)
_DELTAS = {
    Direction.NORTH: (0, 1),
    Direction.EAST: (1, 0),
    Direction.SOUTH: (0, -1),
    Direction.WEST: (-1, 0),
}
_OPPOSITE = {
    Direction.NORTH: Direction.SOUTH,
    Direction.SOUTH: Direction.NORTH,
    Direction.EAST: Direction.WEST,
    Direction.WEST: Direction.EAST,
}
_DIRECTION_BY_NAME = {d.value: d for d in Direction} | {d.value[0]: d for d in Direction}


def _step(cell: int, direction: Direction) -> int:
    dc, dr = direction.delta
    c, r = column(cell) + dc, row(cell) + dr
    return r * SIZE + c if 0 <= c < SIZE and 0 <= r < SIZE else -1


#: ``STEP[direction][cell]`` is the neighbouring cell, or -1 off the board.
STEP: dict[Direction, tuple[int, ...]] = {d: tuple(_step(c, d) for c in CELLS) for d in Direction}

#: Orthogonal neighbours of every cell.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(n for d in Direction if (n := STEP[d][c]) >= 0) for c in CELLS
)


def manhattan(a: int, b: int) -> int:
    return abs(column(a) - column(b)) + abs(row(a) - row(b))


# --- suits and pieces ---------------------------------------------------------


class Suit(enum.Enum):
    """The four Piecepack suits, in the standard order."""

    SUNS = "suns"
    MOONS = "moons"
    CROWNS = "crowns"
    ARMS = "arms"

    __hash__ = object.__hash__  # see Direction

    @classmethod
    def parse(cls, text: str) -> Suit:
        try:
            return cls(text.strip().lower())
        except (ValueError, AttributeError):
            raise BoardError(f"{text!r} is not a suit (suns, moons, crowns, arms)") from None


SUITS: tuple[Suit, ...] = tuple(Suit)
COINS_PER_SUIT = 6


class Coin:
    """A coin lying suit side up; ``facing`` is where its top points.

    There are only sixteen different coins, so each is made once and shared:
    equality is identity, which keeps boards cheap to compare and hash.

    >>> Coin(Suit.SUNS, Direction.EAST) is Coin(Suit.SUNS, Direction.EAST)
    True
    """

    __slots__ = ("facing", "suit")
    suit: Suit
    facing: Direction

    def __new__(cls, suit: Suit, facing: Direction) -> Coin:
        coin = _COINS.get((suit, facing))
        if coin is None:
            if not isinstance(suit, Suit) or not isinstance(facing, Direction):
                raise TypeError(f"Coin({suit!r}, {facing!r}): want a Suit and a Direction")
            coin = object.__new__(cls)
            object.__setattr__(coin, "suit", suit)
            object.__setattr__(coin, "facing", facing)
            _COINS[suit, facing] = coin
        return coin

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("coins are immutable")

    def __reduce__(self) -> tuple[type, tuple[Suit, Direction]]:
        return Coin, (self.suit, self.facing)

    def __repr__(self) -> str:
        return f"Coin(suit={self.suit!r}, facing={self.facing!r})"

    def __str__(self) -> str:
        return f"{self.suit.value} coin facing {self.facing.value}"


class Pawn:
    """A laser. One per suit, shared like :class:`Coin`."""

    __slots__ = ("suit",)
    suit: Suit

    def __new__(cls, suit: Suit) -> Pawn:
        pawn = _PAWNS.get(suit)
        if pawn is None:
            if not isinstance(suit, Suit):
                raise TypeError(f"Pawn({suit!r}): want a Suit")
            pawn = object.__new__(cls)
            object.__setattr__(pawn, "suit", suit)
            _PAWNS[suit] = pawn
        return pawn

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("pawns are immutable")

    def __reduce__(self) -> tuple[type, tuple[Suit]]:
        return Pawn, (self.suit,)

    def __repr__(self) -> str:
        return f"Pawn(suit={self.suit!r})"

    def __str__(self) -> str:
        return f"{self.suit.value} laser"


_COINS: dict[tuple[Suit, Direction], Coin] = {}
_PAWNS: dict[Suit, Pawn] = {}

Piece = Coin | Pawn


# --- the board ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """What stands on the 64 cells: ``squares[cell]`` is a piece or ``None``.

    >>> board = Board.from_json({"coins": [{"cell": "c4", "suit": "suns", "facing": "north"}],
    ...                          "pawns": [{"cell": "a1", "suit": "moons"}]})
    >>> board.piece_at(parse_cell("c4"))
    Coin(suit=<Suit.SUNS: 'suns'>, facing=<Direction.NORTH: 'north'>)
    >>> board.to_json()["pawns"]
    [{'cell': 'a1', 'suit': 'moons'}]
    """

    squares: tuple[Piece | None, ...] = (None,) * 64

    @classmethod
    def from_pieces(cls, pieces: Mapping[int, Piece]) -> Board:
        squares: list[Piece | None] = [None] * 64
        for cell, piece in pieces.items():
            squares[cell] = piece
        return cls(tuple(squares))

    def piece_at(self, cell: int) -> Piece | None:
        return self.squares[cell]

    def is_open(self, cell: int) -> bool:
        return self.squares[cell] is None

    def coins(self) -> Iterator[tuple[int, Coin]]:
        for cell, piece in enumerate(self.squares):
            if type(piece) is Coin:
                yield cell, piece

    def pawns(self) -> Iterator[tuple[int, Pawn]]:
        for cell, piece in enumerate(self.squares):
            if type(piece) is Pawn:
                yield cell, piece

    def pawn_cell(self, suit: Suit) -> int | None:
        return next((cell for cell, pawn in self.pawns() if pawn.suit is suit), None)

    def with_pieces(self, changes: Mapping[int, Piece | None]) -> Board:
        """A new board with the given cells replaced (``None`` empties a cell)."""
        squares = list(self.squares)
        for cell, piece in changes.items():
            squares[cell] = piece
        return Board(tuple(squares))

    # reflec-board/1 ------------------------------------------------------

    @classmethod
    def from_json(cls, data: Any) -> Board:
        """Parse a ``reflec-board/1`` object; extra keys (confidence, unknown) are ignored."""
        if not isinstance(data, Mapping):
            raise BoardError("a reflec-board/1 object must be a JSON object")
        fmt = data.get("format", "reflec-board/1")
        if fmt != "reflec-board/1":
            raise BoardError(f"format {fmt!r} is not reflec-board/1")
        pieces: dict[int, Piece] = {}
        for kind in ("coins", "pawns"):
            items = data.get(kind, [])
            if not isinstance(items, list):
                raise BoardError(f"{kind!r} must be a list")
            for index, item in enumerate(items):
                where = f"{kind}[{index}]"
                cell, piece = _parse_item(item, kind, where)
                if cell in pieces:
                    raise BoardError(
                        f"{where} on {cell_name(cell)}: that cell already holds the {pieces[cell]}"
                    )
                pieces[cell] = piece
        pawn_suits = [p.suit for p in pieces.values() if type(p) is Pawn]
        for suit in set(pawn_suits):
            if pawn_suits.count(suit) > 1:
                raise BoardError(f"two {suit.value} lasers on the board; each suit has one pawn")
        for suit in Suit:
            n = sum(1 for p in pieces.values() if type(p) is Coin and p.suit is suit)
            if n > COINS_PER_SUIT:
                raise BoardError(
                    f"{n} {suit.value} coins on the board; a suit has {COINS_PER_SUIT}"
                )
        return cls.from_pieces(pieces)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "reflec-board/1",
            "coins": [
                {"cell": cell_name(c), "suit": p.suit.value, "facing": p.facing.value}
                for c, p in self.coins()
            ],
            "pawns": [{"cell": cell_name(c), "suit": p.suit.value} for c, p in self.pawns()],
        }

    def __str__(self) -> str:
        return render_text(self)


def _parse_item(item: Any, kind: str, where: str) -> tuple[int, Piece]:
    if not isinstance(item, Mapping):
        raise BoardError(f"{where} must be an object")
    for key in ("cell", "suit") + (("facing",) if kind == "coins" else ()):
        if key not in item:
            raise BoardError(f"{where} has no {key!r}")
        if not isinstance(item[key], str):
            raise BoardError(f"{where}: {key!r} must be a string")
    try:
        cell = parse_cell(item["cell"])
        suit = Suit.parse(item["suit"])
        piece: Piece = (
            Coin(suit, Direction.parse(item["facing"])) if kind == "coins" else Pawn(suit)
        )
    except BoardError as error:
        raise BoardError(f"{where}: {error}") from None
    return cell, piece


SUIT_GLYPHS = {Suit.SUNS: "S", Suit.MOONS: "M", Suit.CROWNS: "C", Suit.ARMS: "A"}
FACING_ARROWS = {
    Direction.NORTH: "↑",
    Direction.EAST: "→",
    Direction.SOUTH: "↓",
    Direction.WEST: "←",
}


def render_text(board: Board, beam: Iterable[int] = ()) -> str:
    """The board as Unicode text, north up: ``S↑`` a suns coin facing north,
    ``[M]`` the moons laser, ``··`` an empty cell, ``**`` a beam cell.
    """
    lit = set(beam)
    lines = []
    for r in reversed(range(SIZE)):
        cells = []
        for c in range(SIZE):
            cell = r * SIZE + c
            piece = board.squares[cell]
            if type(piece) is Coin:
                text = f"{SUIT_GLYPHS[piece.suit]}{FACING_ARROWS[piece.facing]} "
            elif type(piece) is Pawn:
                text = f"[{SUIT_GLYPHS[piece.suit]}]"
            else:
                text = " * " if cell in lit else " · "
            cells.append(text)
        lines.append(f"{r + 1} " + "".join(cells))
    lines.append("   " + "".join(f" {f} " for f in FILES))
    return "\n".join(lines)
