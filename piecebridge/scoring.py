"""Score a game from a ``card/1`` reading of a business card.

This module only decides *which board is whose* and *what the card shows*;
every rule (what a captured Node is worth, who has won, the tie-break, the True
Draw) comes from the rules engine, :mod:`piecebridge.rules.bcg.reflector`, so
there is one place the rulebook lives.

Which grid belongs to whom is inferred from whose symbols stand on it: in
*Reflector* a player's board carries the *opponent's* I.D. symbol (the Shooter's
symbol is written on the Target's board), so the grid covered in ``x`` is the
board of the player who plays ``o``. :class:`ScoreOptions` overrides any of it.

>>> card = {"format": "card/1", "grids": [
...     {"cells": {"A1": {"mark": "o", "shaded": False}}},
...     {"cells": {"C3": {"mark": "x", "shaded": True}, "C4": {"mark": "x", "shaded": False}}}]}
>>> s = score_card1(card)
>>> s["symbols"], s["grids"][1]["counts"], s["status"]
(['x', 'o'], {'x': 2}, 'in_progress')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from piecebridge.errors import UserError
from piecebridge.rules.bcg import reflector
from piecebridge.rules.bcg.common import BcgError
from piecebridge.rules.bcg.grid import NODES_PER_GRID, GridError

SYMBOLS = ("x", "o", "slash", "plus", "triangle")  # player I.D. symbols ("dot" is a Node)
GAMES = ("reflector",)


@dataclass(frozen=True)
class ScoreOptions:
    """Overrides for what the scorer would otherwise infer from the card.

    ``symbols``: the I.D. symbols of player 0 and player 1.
    ``owners``: the player whose board each card grid is (``(0, 1)`` = left grid is
    player 0's). ``nodes``: each player's Control Node cells, from the Private
    Grids, when known. ``infer_nodes``: without ``nodes``, count a Node as captured
    where a cell bearing the Shooter's symbol has its whole diamond shaded in (the
    rulebook has the Target shade every space a captured Node covered).
    """

    game: str = "reflector"
    symbols: tuple[str, str] | None = None
    owners: tuple[int, int] | None = None
    nodes: tuple[Sequence[str] | None, Sequence[str] | None] | None = None
    infer_nodes: bool = True
    nodes_per_grid: int = NODES_PER_GRID


def _cells(grid: Mapping[str, Any]) -> dict[str, dict]:
    return dict(grid.get("cells", {}))


def symbol_counts(grid: Mapping[str, Any]) -> Counter:
    """How many cells of a ``card/1`` grid bear each player symbol (dots excluded)."""
    return Counter(c.get("mark") for c in _cells(grid).values() if c.get("mark") in SYMBOLS)


def assign_boards(grids: Sequence[Mapping[str, Any]], options: ScoreOptions):
    """Decide ``(owners, symbols, how)``: the player owning each grid, each player's
    symbol, and a short note of what was inferred.

    >>> g = [{"cells": {"A1": {"mark": "x"}}}, {"cells": {"B2": {"mark": "o"}}}]
    >>> assign_boards(g, ScoreOptions())[:2]
    ((0, 1), ('o', 'x'))
    """
    counts = [symbol_counts(g) for g in grids]
    notes = []
    if options.symbols is not None:
        symbols = tuple(options.symbols)
    else:
        top = [c.most_common(1)[0][0] if c else None for c in counts]
        if top[0] and top[1] and top[0] != top[1]:
            # Grid 0 bears its owner's opponent's symbol; say grid 0 is player 0's.
            symbols = (top[1], top[0])
            notes.append("symbols inferred from the marks on each grid")
        else:
            total = (counts[0] + counts[1]).most_common(2)
            found = [s for s, _ in total]
            symbols = tuple((found + [s for s in ("x", "o") if s not in found])[:2])
            notes.append("symbols guessed (a grid has no clear majority symbol)")
    if symbols[0] == symbols[1]:
        raise UserError("the two players need different symbols")
    if options.owners is not None:
        owners = tuple(options.owners)
    else:
        # Player k's board carries symbols[1-k]: the grid with more of symbols[1] is
        # player 0's.
        lean = counts[0][symbols[1]] - counts[0][symbols[0]]
        lean -= counts[1][symbols[1]] - counts[1][symbols[0]]
        owners = (0, 1) if lean >= 0 else (1, 0)
        notes.append("grid owners inferred from whose symbols stand on them")
    if sorted(owners) != [0, 1]:
        raise UserError("owners must name player 0 and player 1 once each")
    return owners, symbols, "; ".join(notes)


def infer_captured(grid: Mapping[str, Any], shooter_symbol: str) -> list[str]:
    """Cells that show a captured Node: the Shooter's symbol with its diamond all shaded.

    >>> from piecebridge.rules.bcg.reflector import diamond_names
    >>> g = {"cells": {n: {"mark": None, "shaded": True} for n in diamond_names("E5")}}
    >>> g["cells"]["E5"] = {"mark": "x", "shaded": True}
    >>> infer_captured(g, "x")
    ['E5']
    """
    cells = _cells(grid)
    out = []
    for name, c in cells.items():
        if c.get("mark") != shooter_symbol:
            continue
        if all(cells.get(n, {}).get("shaded") for n in reflector.diamond_names(name)):
            out.append(name)
    return sorted(out, key=lambda n: (int(n[1:]), n[0]))


def score_card1(card: Mapping[str, Any], options: ScoreOptions | None = None) -> dict:
    """The ``"score"`` member for a ``card/1`` reading (Reflector).

    Per card grid (in card order): its owner, each symbol's count, the Nodes seen
    (dots) and captured; then the result by the rulebook (``status`` one of
    ``win``, ``true_draw``, ``in_progress``, ``undetermined``).
    """
    options = options or ScoreOptions()
    if options.game not in GAMES:
        raise UserError(f"unknown game {options.game!r}; known: {', '.join(GAMES)}")
    grids = list(card.get("grids", []))
    if len(grids) != 2:
        return {
            "game": options.game,
            "status": "undetermined",
            "reason": f"a Reflector card has two grids; this photo shows {len(grids)}",
            "grids": [{"counts": dict(symbol_counts(g))} for g in grids],
        }
    owners, symbols, how = assign_boards(grids, options)
    boards = [None, None]
    for g, player in enumerate(owners):
        boards[player] = grids[g]
    nodes = options.nodes
    inferred = None
    if nodes is None and options.infer_nodes:
        inferred = [infer_captured(boards[k], symbols[1 - k]) for k in (0, 1)]
    try:
        result = reflector.score_card(
            boards, symbols=symbols, nodes=nodes, nodes_per_grid=options.nodes_per_grid
        )
    except (BcgError, GridError) as error:  # a Node off the grid is a GridError
        raise UserError(f"cannot score the card: {error}") from None
    out = result.to_json()
    if inferred is not None:
        # Only a board whose every Node shows captured settles the game; fewer
        # captured Nodes mean that player has not lost (the others are still hidden).
        n = options.nodes_per_grid
        lost = [len(inferred[k]) >= n for k in (0, 1)]
        node_lists = [
            inferred[k][:n] if lost[k] else _alive_stand_in(boards[k], inferred[k], n)
            for k in (0, 1)
        ]
        settled = reflector.score_card(boards, symbols=symbols, nodes=node_lists, nodes_per_grid=n)
        out.update({k: v for k, v in settled.to_json().items() if k != "grids"})
        for k in (0, 1):
            out["grids"][k]["nodes_captured"] = inferred[k]
        out["nodes_inferred"] = True
    per_grid = []
    for g, player in enumerate(owners):
        item = {"grid": g, "player": player, "board_of": symbols[player]}
        item.update(out["grids"][player])
        per_grid.append(item)
    out["grids"] = per_grid
    out["inferred"] = how
    return out


def _alive_stand_in(board: Mapping[str, Any], captured: list[str], n: int) -> list[str]:
    """Node list for a board that has *not* lost every Node: the captured ones plus
    enough uncaptured cells that the engine sees Nodes remaining."""
    taken = set(captured)
    spare = [
        f"{c}{r}"
        for r in range(1, 11)
        for c in "ABCDEFGHIJ"
        if f"{c}{r}" not in taken and _cells(board).get(f"{c}{r}", {}).get("mark") is None
    ]
    return captured[: n - 1] + spare[: n - min(len(captured), n - 1)]
