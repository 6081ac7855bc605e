"""The 10x10 grid shared by the Business Card Games.

Cells are integers 0..99 like python-chess squares: ``cell = (row - 1) * 10 + column``
with column 0 = ``A`` and row 1 = the printed Row 1. Sets of cells are Python ints
used as 100-bit masks (bit ``cell`` set = cell in the set), which keeps the engines
immutable and fast.

>>> parse_cell("F3"), cell_name(25)
(25, 'F3')
>>> len(diamond(parse_cell("E5"))), len(diamond(parse_cell("A1")))
(13, 6)

A :class:`GridState` is one player's grid: the private truth (Control Nodes,
Deflectors) and the public marks (who holds each space, shading, revealed Nodes).
:meth:`GridState.public` is what the Public Grid shows; it never contains hidden
information.

>>> g = GridState.new(owner=1, players=2, nodes=[parse_cell(c) for c in ("C3", "E3")])
>>> g.answer(parse_cell("D3")), g.answer(parse_cell("C3")), g.answer(parse_cell("J10"))
(<Answer.OWNED: 'owned'>, <Answer.NODE: 'node'>, <Answer.NULL: 'null'>)
>>> g2, report = g.capture(0, player=0)
>>> cell_name(mask_cells(report.taken)[0]), g2.holder(parse_cell("D3"))  # D3 retained by E3
('C1', 1)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

SIZE = 10
N_CELLS = SIZE * SIZE
COLUMNS = "ABCDEFGHIJ"
NODES_PER_GRID = 5
NODE_RADIUS = 2
FULL: int = (1 << N_CELLS) - 1

CELL_NAMES: tuple[str, ...] = tuple(f"{COLUMNS[c % SIZE]}{c // SIZE + 1}" for c in range(N_CELLS))
_CELL_BY_NAME = {name: c for c, name in enumerate(CELL_NAMES)}


class GridError(ValueError):
    """A cell name or grid description that is not valid; the message says why."""


# --- cells -----------------------------------------------------------------


def parse_cell(name: str) -> int:
    """The cell index of a name such as ``"F3"`` (case-insensitive).

    >>> parse_cell("j10")
    99
    """
    try:
        return _CELL_BY_NAME[name.strip().upper()]
    except (KeyError, AttributeError):
        raise GridError(f"{name!r} is not a cell of a 10x10 grid (A1..J10)") from None


def cell_name(cell: int) -> str:
    return CELL_NAMES[cell]


def column(cell: int) -> int:
    """0 for column A .. 9 for column J."""
    return cell % SIZE


def row(cell: int) -> int:
    """The printed row number, 1..10."""
    return cell // SIZE + 1


def at(col: int, row_number: int) -> int:
    """The cell at column index ``col`` (0..9) and printed row ``row_number`` (1..10)."""
    return (row_number - 1) * SIZE + col


def bit(cell: int) -> int:
    return 1 << cell


def mask_of(cells: Iterable[int]) -> int:
    m = 0
    for c in cells:
        m |= 1 << c
    return m


def mask_cells(mask: int) -> list[int]:
    """The cells of a mask in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_names(mask: int) -> list[str]:
    return [CELL_NAMES[c] for c in mask_cells(mask)]


def parse_mask(names: Iterable[str]) -> int:
    return mask_of(parse_cell(n) for n in names)


def popcount(mask: int) -> int:
    return mask.bit_count()


ROW_MASK: tuple[int, ...] = tuple(
    mask_of(at(c, r) for c in range(SIZE)) for r in range(1, SIZE + 1)
)  # ROW_MASK[r - 1]
COL_MASK: tuple[int, ...] = tuple(
    mask_of(at(c, r) for r in range(1, SIZE + 1)) for c in range(SIZE)
)
_NOT_COL_A = FULL & ~COL_MASK[0]
_NOT_COL_J = FULL & ~COL_MASK[SIZE - 1]


def grow(mask: int) -> int:
    """Every cell orthogonally adjacent (inside the grid) to a cell of ``mask``.

    >>> mask_names(grow(bit(parse_cell("A1"))))
    ['B1', 'A2']
    """
    return (
        ((mask << SIZE) & FULL)
        | (mask >> SIZE)
        | ((mask & _NOT_COL_J) << 1)
        | ((mask & _NOT_COL_A) >> 1)
    ) & FULL


def step_mask(mask: int, direction: int) -> int:
    """Shift every cell one step: 0 = towards Row 10, 1 = towards column J,
    2 = towards Row 1, 3 = towards column A (cells falling off the grid vanish)."""
    if direction == 0:
        return (mask << SIZE) & FULL
    if direction == 1:
        return (mask & _NOT_COL_J) << 1
    if direction == 2:
        return mask >> SIZE
    return (mask & _NOT_COL_A) >> 1


def neighbours(cell: int) -> tuple[int, ...]:
    return tuple(mask_cells(grow(bit(cell))))


def diamond_xy(
    col: int, row_index: int, width: int = SIZE, height: int = SIZE, radius: int = NODE_RADIUS
) -> list[tuple[int, int]]:
    """The cells ``(col, row_index)`` (0-based) within Manhattan distance ``radius``
    of a Node, clipped to a ``width`` x ``height`` board (for maps other than 10x10).

    >>> len(diamond_xy(0, 0, 10, 20)), len(diamond_xy(5, 10, 10, 20))
    (6, 13)
    """
    out = []
    for dy in range(-radius, radius + 1):
        span = radius - abs(dy)
        for dx in range(-span, span + 1):
            x, y = col + dx, row_index + dy
            if 0 <= x < width and 0 <= y < height:
                out.append((x, y))
    return out


DIAMOND: tuple[int, ...] = tuple(
    mask_of(at(x, y + 1) for x, y in diamond_xy(column(c), row(c) - 1)) for c in range(N_CELLS)
)


def diamond(cell: int) -> frozenset[int]:
    """The cells a Control Node on ``cell`` covers (itself included, at most 13)."""
    return frozenset(mask_cells(DIAMOND[cell]))


@cache
def _controlled_cover(nodes: tuple[int, ...], control: tuple[int, ...], player: int) -> int:
    m = 0
    for n, c in zip(nodes, control, strict=True):
        if c == player:
            m |= DIAMOND[n]
    return m


@cache
def cover_mask(nodes: tuple[int, ...]) -> int:
    """Every cell covered by at least one of ``nodes``."""
    m = 0
    for n in nodes:
        m |= DIAMOND[n]
    return m


# --- answers -------------------------------------------------------------------


class Answer(enum.Enum):
    """What the Target reveals about a hit space."""

    NULL = "null"
    OWNED = "owned"
    NODE = "node"
    DEFLECTOR = "deflector"


@dataclass(frozen=True)
class CaptureReport:
    """What a Node capture changed on one grid (all masks)."""

    node: int
    previous: int
    taken: int  # cells now held by the capturer
    retained: int  # overlap kept by the previous controller
    activated: int  # unused Deflectors in range, now spent (shots to divert)
    revealed: int  # Node cells made public


# --- one grid ------------------------------------------------------------------


@dataclass(frozen=True)
class GridState:
    """One 10x10 grid: private truth plus public marks.

    ``owner`` is the player who mapped it (``None`` for an empty centre grid).
    ``nodes[i]`` is a Node cell and ``control[i]`` the player who controls it now.
    ``held[p]`` is the mask of spaces player ``p`` holds; a space is held either with
    an I.D. mark (``marked``) or silently through a Node's coverage. ``shaded`` and
    ``revealed`` (Node cells) and ``spent`` (used Deflectors) are public;
    ``deflectors`` (unused) and the unmarked part of ``held`` are private.
    """

    owner: int | None
    nodes: tuple[int, ...]
    control: tuple[int, ...]
    held: tuple[int, ...]
    marked: int = 0
    shaded: int = 0
    revealed: int = 0
    deflectors: int = 0
    spent: int = 0
    rotation: int = 0
    node_mask: int = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "node_mask", mask_of(self.nodes))

    # -- construction -------------------------------------------------------

    @classmethod
    def new(
        cls,
        owner: int | None,
        players: int,
        nodes: Sequence[int] = (),
        deflectors: Iterable[int] = (),
    ) -> GridState:
        """A fresh grid: the owner holds every space its Nodes cover."""
        nodes = tuple(nodes)
        if len(set(nodes)) != len(nodes):
            raise GridError("two Control Nodes on the same space")
        dmask = mask_of(deflectors)
        if dmask & mask_of(nodes):
            raise GridError("a Deflector cannot be placed on a Node")
        held = [0] * players
        if owner is not None:
            held[owner] = cover_mask(nodes)
        return cls(
            owner=owner,
            nodes=nodes,
            control=tuple(owner for _ in nodes) if owner is not None else (),
            held=tuple(held),
            deflectors=dmask,
        )

    # -- queries ----------------------------------------------------------------

    def cover(self) -> int:
        return cover_mask(self.nodes)

    def holder(self, cell: int) -> int | None:
        b = 1 << cell
        for p, m in enumerate(self.held):
            if m & b:
                return p
        return None

    def node_index(self, cell: int) -> int | None:
        return self.nodes.index(cell) if (self.node_mask >> cell) & 1 else None

    def answer(self, cell: int) -> Answer:
        """The truthful answer for a hit on ``cell``."""
        if (self.deflectors >> cell) & 1:
            return Answer.DEFLECTOR
        if (self.node_mask >> cell) & 1:
            return Answer.NODE
        if (self.cover() >> cell) & 1:
            return Answer.OWNED
        return Answer.NULL

    def nodes_of(self, player: int) -> int:
        return self.control.count(player)

    def controlled_cover(self, player: int) -> int:
        """Cells covered by Nodes ``player`` controls (which ``player`` may not claim)."""
        if player not in self.control:
            return 0
        return _controlled_cover(self.nodes, self.control, player)

    def _with(self, **changes: Any) -> GridState:
        # dataclasses.replace re-runs __init__; this copy is ~10x faster and the
        # engines call it on every shot. Only fields that keep node_mask valid change.
        new = object.__new__(GridState)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    # -- changes ----------------------------------------------------------------

    def claim(self, cell: int, player: int) -> GridState:
        """``player`` takes a Null or Owned space: I.D. mark, shading if covered."""
        b = 1 << cell
        held = tuple((m | b) if p == player else (m & ~b) for p, m in enumerate(self.held))
        shaded = self.shaded | (b if self.cover() & b else 0)
        return self._with(held=held, marked=self.marked | b, shaded=shaded)

    def spend_deflector(self, cell: int) -> GridState:
        b = 1 << cell
        return self._with(deflectors=self.deflectors & ~b, spent=self.spent | b)

    def capture(
        self, index: int, player: int, *, take_claimed: bool = False
    ) -> tuple[GridState, CaptureReport]:
        """``player`` captures Node ``index``.

        The capturer takes every space of the Node's diamond that the previous
        controller held, except the overlap with another Node the previous
        controller still controls (retained, shaded but unmarked). With
        ``take_claimed`` spaces other players had claimed there go too. The whole
        diamond is shaded, every Node inside it revealed, and unused Deflectors in
        range are spent (returned as ``activated``; the caller diverts their shots).
        Deflector spaces change hands without an I.D. mark ("remain unclaimed").
        """
        node = self.nodes[index]
        prev = self.control[index]
        rng = DIAMOND[node]
        retained = 0
        for i, (n, c) in enumerate(zip(self.nodes, self.control, strict=True)):
            if i != index and c == prev:
                retained |= DIAMOND[n]
        retained &= rng & ~(1 << node)
        eligible = self.held[prev] if prev is not None else 0
        if take_claimed:
            for m in self.held:
                eligible |= m
        unheld = rng
        for m in self.held:
            unheld &= ~m
        taken = (rng & ~retained & (eligible | unheld)) | (1 << node)
        activated = self.deflectors & rng
        held = tuple((m | taken) if p == player else (m & ~taken) for p, m in enumerate(self.held))
        control = tuple(player if i == index else c for i, c in enumerate(self.control))
        revealed = self.node_mask & rng
        new = self._with(
            control=control,
            held=held,
            marked=self.marked | (taken & ~activated),
            shaded=self.shaded | rng,
            revealed=self.revealed | revealed,
            deflectors=self.deflectors & ~activated,
            spent=self.spent | activated,
        )
        report = CaptureReport(
            node,
            prev,
            taken,
            retained & self.held[prev] if prev is not None else 0,
            activated,
            revealed,
        )
        return new, report

    def rotated(self) -> GridState:
        return self._with(rotation=(self.rotation + 1) % 4)

    # -- JSON -------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "owner": self.owner,
            "nodes": [cell_name(n) for n in self.nodes],
            "control": list(self.control),
            "held": [mask_names(m) for m in self.held],
            "marked": mask_names(self.marked),
            "shaded": mask_names(self.shaded),
            "revealed": mask_names(self.revealed),
            "deflectors": mask_names(self.deflectors),
            "spent": mask_names(self.spent),
            "rotation": self.rotation,
        }

    def check(self, players: int) -> None:
        """Raise :class:`GridError` unless the grid is consistent for ``players``."""
        if self.owner is not None and not (
            isinstance(self.owner, int) and 0 <= self.owner < players
        ):
            raise GridError(f"grid owner {self.owner!r} is not a player")
        if len(self.held) != players:
            raise GridError(f"'held' must list {players} players, not {len(self.held)}")
        if any(not 0 <= c < players for c in self.control):
            raise GridError("a Node's controller is not a player")
        union = 0
        for m in self.held:
            if union & m:
                raise GridError("a space held by two players")
            union |= m

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GridState:
        try:
            nodes = tuple(parse_cell(n) for n in data["nodes"])
            control = tuple(int(c) for c in data["control"])
            if len(control) != len(nodes):
                raise GridError("'control' must list one player per Node")
            return cls(
                owner=data["owner"],
                nodes=nodes,
                control=control,
                held=tuple(parse_mask(m) for m in data["held"]),
                marked=parse_mask(data.get("marked", ())),
                shaded=parse_mask(data.get("shaded", ())),
                revealed=parse_mask(data.get("revealed", ())),
                deflectors=parse_mask(data.get("deflectors", ())),
                spent=parse_mask(data.get("spent", ())),
                rotation=int(data.get("rotation", 0)) % 4,
            )
        except (KeyError, TypeError) as error:
            raise GridError(f"grid description is missing or mangles {error}") from None

    def public(self) -> dict[str, Any]:
        """What the Public Grid shows: marks with their holder, shading, revealed
        Nodes with their controller, spent Deflectors. Holders of unmarked spaces
        are shown only where shading already tells (retained overlap)."""
        visible = self.marked | self.shaded
        return {
            "owner": self.owner,
            "nodes": {
                cell_name(n): c
                for n, c in zip(self.nodes, self.control, strict=True)
                if (self.revealed >> n) & 1
            },
            "held": [mask_names(m & visible) for m in self.held],
            "marked": mask_names(self.marked),
            "shaded": mask_names(self.shaded),
            "spent": mask_names(self.spent),
            "rotation": self.rotation,
        }

    def private(self) -> dict[str, Any]:
        """The whole truth (what the owner's Private Grid shows)."""
        out = self.public()
        out["nodes"] = {cell_name(n): c for n, c in zip(self.nodes, self.control, strict=True)}
        out["held"] = [mask_names(m) for m in self.held]
        out["deflectors"] = mask_names(self.deflectors)
        return out


def random_nodes(rng: Any, count: int = NODES_PER_GRID) -> tuple[int, ...]:
    """``count`` distinct Node cells chosen with ``rng`` (a ``random.Random``)."""
    return tuple(sorted(rng.sample(range(N_CELLS), count)))


def random_deflectors(rng: Any, nodes: Iterable[int], count: int = 20) -> tuple[int, ...]:
    """``count`` Deflector cells, never on a Node."""
    free = [c for c in range(N_CELLS) if c not in set(nodes)]
    return tuple(sorted(rng.sample(free, count)))


def iter_bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
