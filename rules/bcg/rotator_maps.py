"""The *Rotator* board: a 10x20 map built from ten Control Nodes.

*Rotator* uses both grids of the business card as one board ten columns wide
and twenty rows long. The two grids meet at their Row 1 (the fold) and their
Row 10 form the two short edges: the game is a trip "from Row 10 of one grid
to Row 10 of the other".

Coordinates
-----------
Inside the engine a cell is an index ``y * 10 + x`` into a fixed *frame*:
``x`` 0..9 from left to right and ``y`` 0..19 from top to bottom, grid 1 on top
(drawn upside down, so that its Row 1 touches the fold) and grid 2 below it,
upright. Outside the engine a cell is named ``<grid>:<column><row>`` as printed
on its grid:

>>> cell_name(0), cell_name(9), cell_name(90), cell_name(100), cell_name(199)
('1:J10', '1:A10', '1:J1', '2:A1', '2:J10')
>>> parse_cell("2:F3") == index(5, 12)
True

The map
-------
Each Node shades a diamond (Manhattan distance <= 2, up to 13 cells) of solid
rock; everything else is air. Nodes may not overlap and need a one-row buffer
from the edge (see :data:`EDGE_READINGS`). :func:`generate_map` makes a seeded
random map; :data:`FIXED_MAPS` holds a few hand-made ones (the rulebook's
example boards are lost).

>>> m = FIXED_MAPS["pinwheel"]
>>> validate_map(m.nodes)
>>> len(m.solid_cells())
128
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from piecebridge.rules.bcg import grid as card_grid
from piecebridge.rules.bcg.common import BcgError

WIDTH = 10
HEIGHT = 20
CELLS = WIDTH * HEIGHT
NODES_PER_GRID = card_grid.NODES_PER_GRID
NODE_RADIUS = card_grid.NODE_RADIUS

#: How to read "Nodes CANNOT ... be placed on edge spaces. A buffer of one row is
#: required between an edge and a Node." ``"board"``: the edges of the single 10x20
#: board (columns A and J, the two Row 10s); diamonds reach across the fold.
#: ``"grid"``: every edge of each 10x10 grid, the fold rows (Row 1) included;
#: each diamond is clipped to its own grid.
EDGE_READINGS = ("board", "grid")

_COLUMNS = card_grid.COLUMNS


class MapError(BcgError):
    """A map or a cell name that breaks the rules; the message says which and why."""


def index(x: int, y: int) -> int:
    """The frame index of column ``x``, row ``y`` (no bounds check)."""
    return y * WIDTH + x


def xy(cell: int) -> tuple[int, int]:
    """The frame ``(x, y)`` of a cell index."""
    return cell % WIDTH, cell // WIDTH


def on_board(x: int, y: int) -> bool:
    return 0 <= x < WIDTH and 0 <= y < HEIGHT


def grid_of(cell: int) -> int:
    """1 for the top grid of the frame, 2 for the bottom one."""
    return 1 if cell < CELLS // 2 else 2


def grid_row(cell: int) -> int:
    """The printed row (1..10) of a cell on its own grid; 1 is at the fold."""
    y = cell // WIDTH
    return 10 - y if y < 10 else y - 9


@cache
def edge_cells(grid: int) -> tuple[int, ...]:
    """The ten cells of Row 10 of ``grid``: the short edge of the board it forms."""
    y = 0 if grid == 1 else HEIGHT - 1
    return tuple(index(x, y) for x in range(WIDTH))


def _name(cell: int) -> str:
    x, _ = xy(cell)
    grid = grid_of(cell)
    column = _COLUMNS[WIDTH - 1 - x] if grid == 1 else _COLUMNS[x]
    return f"{grid}:{column}{grid_row(cell)}"


CELL_NAMES: tuple[str, ...] = tuple(_name(c) for c in range(CELLS))


def cell_name(cell: int) -> str:
    """``"1:J10"``-style name of a frame index (see the module docstring)."""
    if not 0 <= cell < CELLS:
        raise MapError(f"cell index {cell} is off the 10x20 board")
    return CELL_NAMES[cell]


def parse_cell(text: str) -> int:
    """The frame index of a name such as ``"2:F3"`` (case-insensitive).

    >>> cell_name(parse_cell("1:c7"))
    '1:C7'
    """
    grid_text, sep, rest = str(text).strip().partition(":")
    if not sep or grid_text not in ("1", "2"):
        raise MapError(f"bad cell {text!r}: expected GRID:CELL such as 2:F3 (grid 1 or 2)")
    try:
        on_grid = card_grid.parse_cell(rest)
    except card_grid.GridError:
        raise MapError(f"bad cell {text!r}: columns are A-J and rows 1-10") from None
    col, row = card_grid.column(on_grid), card_grid.row(on_grid)
    if grid_text == "1":
        return index(WIDTH - 1 - col, 10 - row)
    return index(col, row + 9)


@cache
def diamond(node: int, edges: str = "board") -> frozenset[int]:
    """The cells a Node covers: Manhattan distance <= 2, clipped.

    With ``edges="board"`` the diamond is clipped to the 10x20 board (it may
    reach across the fold); with ``"grid"`` to the Node's own grid.

    >>> len(diamond(parse_cell("2:E5")))
    13
    >>> len(diamond(parse_cell("2:E2"))), len(diamond(parse_cell("2:E2"), "grid"))
    (13, 12)
    """
    nx, ny = xy(node)
    cells = (index(x, y) for x, y in card_grid.diamond_xy(nx, ny, WIDTH, HEIGHT, NODE_RADIUS))
    if edges == "grid":
        return frozenset(c for c in cells if grid_of(c) == grid_of(node))
    return frozenset(cells)


def _node_edge_problem(node: int, edges: str) -> str | None:
    x, y = xy(node)
    if x in (0, WIDTH - 1) or y in (0, HEIGHT - 1):
        return "is on an edge of the board"
    if edges == "grid" and y in (HEIGHT // 2 - 1, HEIGHT // 2):
        return "is on Row 1 of its grid, an edge of the grid"
    return None


def validate_map(nodes: Sequence[int], edges: str = "board") -> None:
    """Raise :class:`MapError` unless ``nodes`` is a legal *Rotator* setup.

    Ten Nodes, five on each grid, none on an edge, no two diamonds sharing a
    cell.

    >>> try:
    ...     validate_map([0] * 10)
    ... except MapError as e:
    ...     print(e)
    two Nodes on 1:J10
    """
    if edges not in EDGE_READINGS:
        raise MapError(f"unknown edge reading {edges!r}: expected one of {EDGE_READINGS}")
    seen: dict[int, int] = {}
    for node in nodes:
        if not 0 <= node < CELLS:
            raise MapError(f"Node index {node} is off the board")
        if node in seen:
            raise MapError(f"two Nodes on {cell_name(node)}")
        seen[node] = node
    if len(nodes) != 2 * NODES_PER_GRID:
        raise MapError(f"a Rotator map has 10 Nodes, not {len(nodes)}")
    for grid in (1, 2):
        count = sum(1 for node in nodes if grid_of(node) == grid)
        if count != NODES_PER_GRID:
            raise MapError(f"grid {grid} has {count} Nodes; each grid takes 5")
    owner: dict[int, int] = {}
    for node in nodes:
        problem = _node_edge_problem(node, edges)
        if problem:
            raise MapError(f"Node {cell_name(node)} {problem}: Nodes need a one-row buffer")
        for cell in diamond(node, edges):
            if cell in owner:
                raise MapError(
                    f"Nodes {cell_name(owner[cell])} and {cell_name(node)} overlap "
                    f"on {cell_name(cell)}"
                )
            owner[cell] = node


@dataclass(frozen=True)
class RotatorMap:
    """A validated set of ten Nodes and the edge reading used to draw them.

    >>> RotatorMap.from_names(["1:C3"])  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    MapError: a Rotator map has 10 Nodes, not 1
    """

    nodes: tuple[int, ...]
    edges: str = "board"
    name: str = ""

    def __post_init__(self) -> None:
        validate_map(self.nodes, self.edges)
        object.__setattr__(self, "nodes", tuple(sorted(self.nodes)))

    @classmethod
    def from_names(cls, names: Iterable[str], edges: str = "board", name: str = "") -> RotatorMap:
        return cls(tuple(parse_cell(n) for n in names), edges, name)

    def node_names(self) -> list[str]:
        return [cell_name(n) for n in self.nodes]

    def territory(self, node: int) -> frozenset[int]:
        """The cells ``node`` covers on this map."""
        return diamond(node, self.edges)

    def solid_cells(self) -> frozenset[int]:
        """The cells shaded at the start: the union of the ten diamonds."""
        return frozenset().union(*(self.territory(n) for n in self.nodes))

    def with_edges(self, edges: str) -> RotatorMap:
        return RotatorMap(self.nodes, edges, self.name)

    def to_json(self) -> dict:
        return {"name": self.name, "edges": self.edges, "nodes": self.node_names()}

    @classmethod
    def from_json(cls, data: object) -> RotatorMap:
        if not isinstance(data, dict) or not isinstance(data.get("nodes"), list):
            raise MapError('a map is an object with a "nodes" list of cell names')
        edges = data.get("edges", "board")
        name = data.get("name", "")
        if not isinstance(edges, str) or not isinstance(name, str):
            raise MapError('map "edges" and "name" must be strings')
        if not all(isinstance(n, str) for n in data["nodes"]):
            raise MapError('map "nodes" must be cell names such as "2:F3"')
        return cls.from_names(data["nodes"], edges, name)


def open_columns(rmap: RotatorMap) -> list[int]:
    """Columns with no rock at all: a start there falls straight to victory."""
    solid = rmap.solid_cells()
    return [x for x in range(WIDTH) if not any(index(x, y) in solid for y in range(HEIGHT))]


@cache
def _node_sites(grid: int, edges: str) -> tuple[int, ...]:
    """Where a Node of ``grid`` may stand, in reading order."""
    y0 = 0 if grid == 1 else HEIGHT // 2
    return tuple(
        index(x, y)
        for y in range(y0, y0 + HEIGHT // 2)
        for x in range(WIDTH)
        if _node_edge_problem(index(x, y), edges) is None
    )


def _random_grid_nodes(rng: random.Random, grid: int, edges: str) -> list[int] | None:
    candidates = list(_node_sites(grid, edges))
    rng.shuffle(candidates)
    chosen: list[tuple[int, int]] = []
    for cell in candidates:
        cx, cy = cell % WIDTH, cell // WIDTH
        # Diamonds of radius 2 are disjoint exactly when centres are >= 5 apart.
        if all(abs(cx - x) + abs(cy - y) >= 5 for x, y in chosen):
            chosen.append((cx, cy))
            if len(chosen) == NODES_PER_GRID:
                return [index(x, y) for x, y in chosen]
    return None


def generate_map(seed: int | str | None = None, edges: str = "board") -> RotatorMap:
    """A random legal map, the same for the same seed.

    Maps with a rock-free column are rejected: starting there wins by falling
    on the first turn, which is no game.

    >>> generate_map(7) == generate_map(7)
    True
    >>> open_columns(generate_map(7))
    []
    """
    rng = random.Random(f"rotator-map:{seed}:{edges}")
    for _ in range(10_000):
        top = _random_grid_nodes(rng, 1, edges)
        bottom = _random_grid_nodes(rng, 2, edges)
        if top is None or bottom is None:
            continue
        nodes = tuple(top + bottom)
        try:
            rmap = RotatorMap(nodes, edges, f"random-{seed}")
        except MapError:  # diamonds across the fold may overlap under "board"
            continue
        if not open_columns(rmap):
            return rmap
    raise MapError(f"could not generate a map for seed {seed!r}")  # pragma: no cover


def _map(name: str, nodes: str) -> RotatorMap:
    return RotatorMap.from_names(nodes.split(), "board", name)


def _map(name: str, nodes: str) -> RotatorMap:
    return RotatorMap.from_names(nodes.split(), "board", name)


#: Hand-made maps (the rulebook's example boards are lost). No Node sits on a
#: fold row, so each is legal under both edge readings (``m.with_edges("grid")``).
FIXED_MAPS: dict[str, RotatorMap] = {
    m.name: m
    for m in (
        # Each grid a pinwheel of four Nodes around a central one; the densest.
        _map("pinwheel", "1:I3 1:D2 1:H8 1:C7 1:F5 2:I3 2:D2 2:H8 2:C7 2:F5"),
        # Two shelves of rock per grid with a band of open air between them.
        _map("terraces", "1:I9 1:C9 1:F7 1:H2 1:C2 2:E2 2:I3 2:B4 2:D9 2:I9"),
        # Rock along the long edges, a shaft of air down the middle columns.
        _map("canyon", "1:I9 1:D9 1:G6 1:I3 1:B3 2:I3 2:B4 2:G6 2:B9 2:I9"),
        # Rock packed around the fold: open ends, a hard middle.
        _map("bottleneck", "1:I8 1:C7 1:F4 1:I2 1:C2 2:E2 2:I3 2:B4 2:C8 2:G9"),
    )
}
