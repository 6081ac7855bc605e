"""Reflec actions and their text notation.

==========================  ====  ==========================================
notation                    cost  action
==========================  ====  ==========================================
``place c4 suns north``      0    Drop round: put a coin suit side up
``move c4 d4 east``          1    move a coin to an adjacent open cell, new facing
``laser a1 a2``              1    move your laser to an adjacent open cell
``spin c4 west``             1    turn a coin in place
``drop c4 moons north``      2    put a coin removed by laser fire back
``swap c4 d4``               2    exchange two adjacent coins (facings stay)
``fire north``               3    fire your laser (``fire a1 north`` names the
                                  pawn when you have two)
``end``                      0    end the turn
==========================  ====  ==========================================

>>> parse_action("move c4 d4 east")
MoveCoin(source=26, target=27, facing=<Direction.EAST: 'east'>)
>>> str(parse_action("swap d4 c4"))
'swap c4 d4'
"""

from __future__ import annotations

from dataclasses import dataclass

from piecebridge.rules.reflec.core import CELL_NAMES, Direction, ReflecError, Suit, parse_cell


class NotationError(ReflecError):
    """A line of action notation does not parse."""


@dataclass(frozen=True, slots=True)
class Place:
    """Drop round: place an unplaced coin."""

    cell: int
    suit: Suit
    facing: Direction
    cost = 0

    def __str__(self) -> str:
        return f"place {CELL_NAMES[self.cell]} {self.suit.value} {self.facing.value}"


@dataclass(frozen=True, slots=True)
class MoveCoin:
    source: int
    target: int
    facing: Direction
    cost = 1

    def __str__(self) -> str:
        return f"move {CELL_NAMES[self.source]} {CELL_NAMES[self.target]} {self.facing.value}"


@dataclass(frozen=True, slots=True)
class MoveLaser:
    source: int
    target: int
    cost = 1

    def __str__(self) -> str:
        return f"laser {CELL_NAMES[self.source]} {CELL_NAMES[self.target]}"


@dataclass(frozen=True, slots=True)
class Spin:
    cell: int
    facing: Direction
    cost = 1

    def __str__(self) -> str:
        return f"spin {CELL_NAMES[self.cell]} {self.facing.value}"


@dataclass(frozen=True, slots=True)
class Drop:
    """Return a coin removed by laser fire to an open cell."""

    cell: int
    suit: Suit
    facing: Direction
    cost = 2

    def __str__(self) -> str:
        return f"drop {CELL_NAMES[self.cell]} {self.suit.value} {self.facing.value}"


@dataclass(frozen=True, slots=True)
class Swap:
    """Exchange two adjacent coins; each cell keeps its facing. Cells are stored sorted."""

    first: int
    second: int
    cost = 2

    def __post_init__(self) -> None:
        if self.first > self.second:
            a, b = self.second, self.first
            object.__setattr__(self, "first", a)
            object.__setattr__(self, "second", b)

    def __str__(self) -> str:
        return f"swap {CELL_NAMES[self.first]} {CELL_NAMES[self.second]}"


@dataclass(frozen=True, slots=True)
class Fire:
    """Fire the laser standing on ``pawn`` (``None``: the player's only laser)."""

    direction: Direction
    pawn: int | None = None
    cost = 3

    def __str__(self) -> str:
        where = "" if self.pawn is None else f"{CELL_NAMES[self.pawn]} "
        return f"fire {where}{self.direction.value}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    cost = 0

    def __str__(self) -> str:
        return "end"


Action = Place | MoveCoin | MoveLaser | Spin | Drop | Swap | Fire | EndTurn


def parse_action(text: str) -> Action:
    """Parse one action in the notation above; raises :class:`NotationError`."""
    words = text.split()
    if not words:
        raise NotationError("empty action")
    verb, args = words[0].lower(), words[1:]
    shape = _SHAPES.get(verb)
    if shape is None:
        raise NotationError(
            f"unknown action {verb!r} (place, move, laser, spin, drop, swap, fire, end)"
        )
    if len(args) not in shape[0]:
        raise NotationError(f"{text.strip()!r}: expected {shape[1]}")
    try:
        return shape[2](args)
    except ReflecError as error:
        raise NotationError(f"{text.strip()!r}: {error}") from None


def _fire(args: list[str]) -> Fire:
    if len(args) == 1:
        return Fire(Direction.parse(args[0]))
    return Fire(Direction.parse(args[1]), parse_cell(args[0]))


_SHAPES = {
    "place": (
        {3},
        "place CELL SUIT FACING",
        lambda a: Place(parse_cell(a[0]), Suit.parse(a[1]), Direction.parse(a[2])),
    ),
    "move": (
        {3},
        "move FROM TO FACING",
        lambda a: MoveCoin(parse_cell(a[0]), parse_cell(a[1]), Direction.parse(a[2])),
    ),
    "laser": ({2}, "laser FROM TO", lambda a: MoveLaser(parse_cell(a[0]), parse_cell(a[1]))),
    "spin": ({2}, "spin CELL FACING", lambda a: Spin(parse_cell(a[0]), Direction.parse(a[1]))),
    "drop": (
        {3},
        "drop CELL SUIT FACING",
        lambda a: Drop(parse_cell(a[0]), Suit.parse(a[1]), Direction.parse(a[2])),
    ),
    "swap": ({2}, "swap CELL CELL", lambda a: Swap(parse_cell(a[0]), parse_cell(a[1]))),
    "fire": ({1, 2}, "fire [PAWN_CELL] DIRECTION", _fire),
    "end": ({0}, "end", lambda a: EndTurn()),
}
