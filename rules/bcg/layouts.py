"""Table layouts of *Deflector* and *Defector* as grid-adjacency graphs.

Seats are numbered clockwise round the table (seen from above); grid ``i`` is the
grid of the player in seat ``i``. Every player grid lies with Row 1 towards the
centre, so Column A is on its owner's left and Column J on the right; the player
on your left is the next one clockwise (``i + 1``). Column A of your grid meets
Column J of the grid on your left. Where a rulebook figure is lost, the pairing of
cells along a seam is a ruling (rules/RULINGS.md).

A :class:`Seam` joins contact cells of two grids. ``pairs`` maps a cell on one side
to the cell it touches on the other; a seam with ``pairs=None`` is *full contact*
(every contact cell touches every contact cell of the other grid, as Row 1 in
*Defector*'s "Full Access").

>>> lay = layout("deflector", 3)
>>> sorted(lay.touching(0))
[1, 2]
>>> [cell_name(c) for c in mask_cells(lay.contact(0, 1))][:3]
['J1', 'J2', 'J3']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from piecebridge.rules.bcg.grid import (
    COL_MASK,
    ROW_MASK,
    at,
    cell_name,
    mask_cells,
    mask_of,
)


@dataclass(frozen=True)
class Seam:
    a: int
    b: int
    edge_a: int
    edge_b: int
    pairs: tuple[tuple[int, int], ...] | None = None


@dataclass(frozen=True)
class Layout:
    """``grids`` grids, the first ``players`` of them player grids (seats)."""

    name: str
    players: int
    grids: int
    seams: tuple[Seam, ...]
    notes: str = ""

    def touching(self, g: int) -> set[int]:
        """Grids sharing a seam with grid ``g``."""
        out = set()
        for s in self.seams:
            if s.a == g:
                out.add(s.b)
            if s.b == g:
                out.add(s.a)
        return out

    def contact(self, src: int, dst: int) -> int:
        """Cells of grid ``dst`` that touch grid ``src`` (first-move access)."""
        m = 0
        for s in self.seams:
            if s.a == src and s.b == dst:
                m |= s.edge_b
            if s.b == src and s.a == dst:
                m |= s.edge_a
        return m

    @cached_property
    def _links(self) -> dict[int, list[tuple[int, int, int, tuple[tuple[int, int], ...] | None]]]:
        # per source grid: (dst grid, source edge mask, dst edge mask, cell pairs src->dst)
        links: dict[int, list] = {g: [] for g in range(self.grids)}
        for s in self.seams:
            links[s.a].append((s.b, s.edge_a, s.edge_b, s.pairs))
            rev = None if s.pairs is None else tuple((b, a) for a, b in s.pairs)
            links[s.b].append((s.a, s.edge_b, s.edge_a, rev))
        return links

    def across(self, src: int, mask: int) -> list[tuple[int, int]]:
        """For cells ``mask`` of grid ``src``: ``(dst, cells of dst they touch)``."""
        out = []
        for dst, edge_src, edge_dst, pairs in self._links[src]:
            hit = mask & edge_src
            if not hit:
                continue
            if pairs is None:
                out.append((dst, edge_dst))
            else:
                m = 0
                for a, b in pairs:
                    if (hit >> a) & 1:
                        m |= 1 << b
                out.append((dst, m))
        return out

    def describe(self) -> list[str]:
        """One line per seam, e.g. ``"grid 0 A1-A10 <-> grid 1 J1-J10"``."""
        lines = []
        for s in self.seams:
            ea, eb = mask_cells(s.edge_a), mask_cells(s.edge_b)
            kind = "full contact" if s.pairs is None else "paired"
            lines.append(
                f"grid {s.a} {cell_name(ea[0])}..{cell_name(ea[-1])} <-> "
                f"grid {s.b} {cell_name(eb[0])}..{cell_name(eb[-1])} ({kind})"
            )
        return lines


def _col(c: int, rows: range) -> list[int]:
    return [at(c, r) for r in rows]


def _row1(cols: range) -> list[int]:
    return [at(c, 1) for c in cols]


def _seam(a: int, b: int, cells_a: list[int], cells_b: list[int]) -> Seam:
    return Seam(a, b, mask_of(cells_a), mask_of(cells_b), tuple(zip(cells_a, cells_b, strict=True)))


ALL_ROWS = range(1, 11)
TOP_HALF = range(1, 6)


def _sides(a: int, b: int, rows: range = ALL_ROWS) -> Seam:
    """Column A of grid ``a`` meets Column J of grid ``b`` (its left neighbour), row to row."""
    return _seam(a, b, _col(0, rows), _col(9, rows))


def _tops(a: int, b: int, cols: range = range(10)) -> Seam:
    """Row 1 of ``a`` faces Row 1 of ``b``: column x meets column 9 - x."""
    return _seam(a, b, _row1(cols), [at(9 - x, 1) for x in cols])


def deflector_layout(players: int, access: str = "full") -> Layout:
    """The *Deflector* table for 3, 4 or 5 players (``access`` "full" or "partial")."""
    if players == 3:
        seams = tuple(_sides(i, (i + 1) % 3) for i in range(3))
        return Layout("3", 3, 3, seams, "Column A to Column J of the left neighbour")
    if players == 4 and access == "full":
        seams = (*tuple(_sides(i, (i + 1) % 4) for i in range(4)), _tops(0, 2), _tops(1, 3))
        return Layout("4-full", 4, 4, seams, "sides all round, Row 1 to the grid across")
    if players == 4 and access == "partial":
        # a 2x2 square, tops meeting along a centre line: seats 0|3 and 1|2 side by side,
        # 0 facing 1 and 3 facing 2 across the line.
        seams = (_sides(1, 2), _sides(3, 0), _tops(0, 1), _tops(2, 3))
        return Layout("4-partial", 4, 4, seams, "each grid touches two others")
    if players == 5 and access == "full":
        seams = tuple(_sides(i, (i + 1) % 5, TOP_HALF) for i in range(5))
        # left half of Row 1 meets the right half of Row 1 two seats to the left
        seams += tuple(
            _seam(i, (i + 2) % 5, _row1(range(0, 5)), [at(9 - x, 1) for x in range(0, 5)])
            for i in range(5)
        )
        return Layout("5-full", 5, 5, seams, "top halves of the sides, halves of Row 1")
    if players == 5 and access == "partial":
        # pentagon, seats 0..4 clockwise: 0|4 side to side; 1 and 2 touch the left half of
        # Row 1 of their right neighbour with the top half of Column J; 2 and 3 reach the
        # right half of Row 1 of their left neighbour with the top half of Column A.
        def j_to_left_row1(a: int, b: int) -> Seam:
            return _seam(a, b, _col(9, TOP_HALF), [at(5 - r, 1) for r in TOP_HALF])

        def a_to_right_row1(a: int, b: int) -> Seam:
            return _seam(a, b, _col(0, TOP_HALF), [at(4 + r, 1) for r in TOP_HALF])

        seams = (
            _sides(4, 0),
            j_to_left_row1(1, 0),
            j_to_left_row1(2, 1),
            a_to_right_row1(2, 3),
            a_to_right_row1(3, 4),
        )
        return Layout("5-partial", 5, 5, seams, "pentagon; each grid touches two others")
    raise ValueError(f"Deflector has no layout for {players} players with {access!r} access")


def defector_layout(players: int, access: str = "full") -> Layout:
    """*Defector*: "full" (every Row 1 meets every Row 1) or "island" (centre grids)."""
    if players < 2:
        raise ValueError("Defector needs players")
    if access == "full":
        seams = tuple(
            Seam(a, b, ROW_MASK[0], ROW_MASK[0], None)
            for a in range(players)
            for b in range(a + 1, players)
        )
        return Layout("full", players, players, seams, "Row 1 meets Row 1 of every grid")
    if access == "island":
        # centre grids C0..C(m-1) in a row, joined side to side; players' Row 1 meet
        # their sides: tops left to right, the east end, bottoms right to left, the west end.
        m = max(1, -(-(players - 2) // 2))
        centre = [players + k for k in range(m)]
        seams = [
            _seam(centre[k + 1], centre[k], _col(0, ALL_ROWS), _col(9, ALL_ROWS))
            for k in range(m - 1)
        ]
        slots: list[tuple[int, list[int]]] = []
        for k in range(m):
            slots.append((centre[k], [at(x, 1) for x in range(10)]))
        slots.append((centre[-1], _col(9, ALL_ROWS)))
        for k in reversed(range(m)):
            slots.append((centre[k], [at(x, 10) for x in reversed(range(10))]))
        slots.append((centre[0], list(reversed(_col(0, ALL_ROWS)))))
        for p in range(players):
            g, cells = slots[p]
            seams.append(_seam(p, g, [at(x, 1) for x in range(10)], cells))
        return Layout("island", players, players + m, tuple(seams), f"{m} empty centre grid(s)")
    raise ValueError(f"Defector has no layout {access!r} (full, island)")


DEFLECTOR_LAYOUTS = {
    "3": (3, "full"),
    "4-full": (4, "full"),
    "4-partial": (4, "partial"),
    "5-full": (5, "full"),
    "5-partial": (5, "partial"),
}


def layout(game: str, players: int, access: str | None = None) -> Layout:
    if game == "deflector":
        return deflector_layout(players, access or "full")
    return defector_layout(players, access or "full")


COLUMN_A, COLUMN_J = COL_MASK[0], COL_MASK[9]
