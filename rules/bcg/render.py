"""Text pictures of Business Card Games grids (for ``piecebridge cards show``).

One character a space:

=====  =========================================================
``.``  nothing known
``N``  a Control Node its owner still controls (when known)
``0``  a space marked with player 0's I.D. (digits, then ``a``, ``b`` ... for 10+)
``+``  shaded, no I.D.: Node territory retained by its controller
``:``  Node territory nobody has touched (only on grids whose secrets you know)
``/``  an unused Deflector (secret)
``x``  a used Deflector
=====  =========================================================

>>> from piecebridge.rules.bcg.grid import GridState, parse_cell
>>> g = GridState.new(0, 2, [parse_cell("B2")]).claim(parse_cell("J10"), 1)
>>> print(grid_lines(g.public(), "grid 0")[-1])
10 . . . . . . . . . 1
"""

from __future__ import annotations

from typing import Any

from piecebridge.rules.bcg.grid import CELL_NAMES, COLUMNS

LEGEND = (
    "N Node held by its owner, digit/letter = that player's I.D., + retained territory, "
    ": untouched Node territory, / Deflector, x used Deflector, . unknown"
)


def symbol(player: int) -> str:
    return str(player) if player < 10 else chr(ord("a") + player - 10)


def grid_lines(grid: dict[str, Any], title: str) -> list[str]:
    """12 lines: a title, the column letters, then rows 1..10."""
    holder: dict[str, int] = {}
    for p, cells in enumerate(grid.get("held", [])):
        for c in cells:
            holder[c] = p
    marked = set(grid.get("marked", []))
    shaded = set(grid.get("shaded", []))
    deflectors = set(grid.get("deflectors", []))
    spent = set(grid.get("spent", []))
    nodes = grid.get("nodes", {})
    owner = grid.get("owner")
    glyphs = []
    for name in CELL_NAMES:
        if name in nodes and nodes[name] == owner:
            g = "N"
        elif name in deflectors:
            g = "/"
        elif name in marked and name in holder:
            g = symbol(holder[name])
        elif name in spent:
            g = "x"
        elif name in shaded:
            g = "+"
        elif name in holder:
            g = ":"
        else:
            g = "."
        glyphs.append(g)
    lines = [f"{title:<23}", "   " + " ".join(COLUMNS)]
    for r in range(10):
        lines.append(f"{r + 1:>2} " + " ".join(glyphs[r * 10 : r * 10 + 10]))
    return lines


def grids_text(grids: list[dict[str, Any]], titles: list[str], per_row: int = 4) -> str:
    blocks = []
    for start in range(0, len(grids), per_row):
        chunk = [
            grid_lines(g, t)
            for g, t in zip(
                grids[start : start + per_row], titles[start : start + per_row], strict=True
            )
        ]
        blocks.append("\n".join("   ".join(parts) for parts in zip(*chunk, strict=True)))
    return "\n\n".join(blocks)


def render_view(view: dict[str, Any]) -> str:
    """Text for a ``view`` (or a whole-truth view) of a Reflector/Deflector/Defector state."""
    titles = []
    for i, g in enumerate(view["grids"]):
        owner = g.get("owner")
        titles.append(f"grid {i} (player {owner})" if owner is not None else f"grid {i} (centre)")
    out = [grids_text(view["grids"], titles), LEGEND]
    status = f"{view.get('game')}: ply {view.get('ply', 0)}, player {view.get('to_move')} to move"
    if view.get("you") is not None:
        status += f"; seen by player {view['you']}"
    out.append(status)
    if view.get("alliances"):
        parts = [
            "+".join(str(m) for t in a["teams"] for m in t["members"]) for a in view["alliances"]
        ]
        out.append("alliances: " + ", ".join(parts))
    if view.get("pending"):
        pend = view["pending"]
        out.append(f"player {pend['from']} proposes an alliance; player {pend['to']} to answer")
    if view.get("eliminated") and any(view["eliminated"]):
        out.append(
            "eliminated: " + ", ".join(str(p) for p, e in enumerate(view["eliminated"]) if e)
        )
    if view.get("result"):
        r = view["result"]
        who = ", ".join(str(w) for w in r["winners"]) or "nobody (draw)"
        out.append(f"over: winner {who} -- {r['reason']}")
    return "\n".join(out)
