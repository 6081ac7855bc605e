"""*Reflector*, the two-player Business Card Game (seeds 000, 002 and 003).

Each player has one 10x10 board with five secret Control Nodes. On a turn the
Shooter claims one space on the opponent's board; the opponent answers Null,
Owned or Node, then gains the same space on the Shooter's board (reflection).

Notation: an action is the cell claimed on the opponent's board, e.g. ``"F3"``.

>>> s = new_game(seed=7)
>>> len(legal_actions(s))  # first move: anywhere on Row 1
10
>>> s2, events = apply(s, parse_action(s, "E1"))
>>> [e.kind for e in events][:2], s2.to_move
(['claim', 'reflect'], 1)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from piecebridge.rules.bcg.common import (
    BcgError,
    Event,
    IllegalAction,
    Result,
    options_from_json,
)
from piecebridge.rules.bcg.grid import (
    DIAMOND,
    NODES_PER_GRID,
    ROW_MASK,
    GridError,
    GridState,
    cell_name,
    grow,
    mask_cells,
    parse_cell,
    random_nodes,
)

GAME = "reflector"
PLAYERS = (2,)
LAYOUTS = ("standard",)


@dataclass(frozen=True)
class ReflectorOptions:
    """Rulings where players could disagree (see rules/RULINGS.md).

    ``first_player``: who moves first; ``None`` = the coin flip, drawn from the seed.
    ``tiebreak_counts``: ``"held"`` counts every space a player controls on the
    opponent's board (I.D. marks and retained overlap); ``"marked"`` counts only
    spaces bearing the player's I.D. symbol.
    """

    first_player: int | None = None
    tiebreak_counts: str = "held"

    def __post_init__(self) -> None:
        if self.first_player is not None and (
            type(self.first_player) is not int or self.first_player not in (0, 1)
        ):
            raise BcgError("first_player must be 0, 1 or null")
        if self.tiebreak_counts not in ("held", "marked"):
            raise BcgError("tiebreak_counts must be 'held' or 'marked'")


@dataclass(frozen=True)
class ReflectorState:
    """``boards[p]`` is player ``p``'s own board (its Nodes, the opponent's claims)."""

    boards: tuple[GridState, GridState]
    to_move: int
    ply: int = 0
    result: Result | None = None
    options: ReflectorOptions = field(default_factory=ReflectorOptions)

    @property
    def is_over(self) -> bool:
        return self.result is not None


# --- setup ---------------------------------------------------------------------


def new_game(
    *,
    players: int = 2,
    layout: str | None = None,
    seed: int = 0,
    options: ReflectorOptions | None = None,
    nodes: Sequence[Sequence[int]] | None = None,
) -> ReflectorState:
    """A starting state. Nodes are drawn from ``seed`` unless given per player.

    >>> s = new_game(nodes=[[0, 1, 2, 3, 4], [95, 96, 97, 98, 99]], options=ReflectorOptions(0))
    >>> s.to_move, cell_name(s.boards[1].nodes[0])
    (0, 'F10')
    """
    if players != 2:
        raise BcgError("Reflector is a game for exactly 2 players")
    if layout not in (None, "standard"):
        raise BcgError(f"Reflector has no layout {layout!r} (only 'standard')")
    options = options or ReflectorOptions()
    rng = random.Random(seed)
    if nodes is None:
        nodes = [random_nodes(rng), random_nodes(rng)]
    boards = []
    for p, ns in enumerate(nodes):
        if len(ns) != NODES_PER_GRID:
            raise BcgError(f"player {p} must place exactly {NODES_PER_GRID} Control Nodes")
        try:
            boards.append(GridState.new(p, 2, ns))
        except GridError as error:
            raise BcgError(f"player {p}: {error}") from None
    first = options.first_player if options.first_player is not None else rng.randrange(2)
    return ReflectorState(boards=(boards[0], boards[1]), to_move=first, options=options)


# --- moves -----------------------------------------------------------------------


def access_mask(state: ReflectorState, player: int) -> int:
    """Spaces of the opponent's board ``player`` may claim now."""
    board = state.boards[1 - player]
    mine = board.held[player]
    if not has_moved(state, player):  # first move: anywhere on Row 1 of the enemy's board
        return ROW_MASK[0] & ~mine
    return grow(mine) & ~mine


def has_moved(state: ReflectorState, player: int) -> bool:
    """Whether ``player`` has taken a turn (turns alternate from the first)."""
    return state.ply >= 2 or (state.ply == 1 and player != state.to_move)


def legal_actions(state: ReflectorState) -> list[int]:
    """Cells the player to move may claim, in index order."""
    if state.is_over:
        return []
    return mask_cells(access_mask(state, state.to_move))


def check(state: ReflectorState, cell: int) -> None:
    """Raise :class:`IllegalAction` unless the player to move may claim ``cell``."""
    if state.is_over:
        raise IllegalAction("the game is over")
    if not 0 <= cell < 100:
        raise IllegalAction("not a cell of the board")
    player = state.to_move
    board = state.boards[1 - player]
    if (board.held[player] >> cell) & 1:
        raise IllegalAction(f"{cell_name(cell)} is already your territory")
    if not (access_mask(state, player) >> cell) & 1:
        if not board.held[player]:
            raise IllegalAction(f"{cell_name(cell)}: the first move must be on Row 1")
        raise IllegalAction(f"{cell_name(cell)} is not next to your territory")


def hit(board: GridState, grid: int, cell: int, player: int) -> tuple[GridState, list[Event]]:
    """``player`` takes ``cell`` on ``board``: Null, Owned or Node (full capture)."""
    target = board.owner
    index = board.node_index(cell)
    if index is not None and board.control[index] != player:
        board, report = board.capture(index, player)
        events = [
            Event(
                "capture",
                player,
                grid,
                cell,
                report.previous,
                "node",
                (len(mask_cells(report.taken)),),
            )
        ]
        if report.retained:
            events.append(
                Event(
                    "retain",
                    report.previous,
                    grid,
                    None,
                    player,
                    None,
                    (len(mask_cells(report.retained)),),
                )
            )
        for n in mask_cells(report.revealed & ~(1 << cell)):
            events.append(Event("reveal", None, grid, n, target, "node"))
        return board, events
    answer = "owned" if (board.cover() >> cell) & 1 else "null"
    holder = board.holder(cell)
    return board.claim(cell, player), [
        Event("claim", player, grid, cell, holder if holder is not None else target, answer)
    ]


def apply(state: ReflectorState, cell: int) -> tuple[ReflectorState, list[Event]]:
    """Claim ``cell`` on the opponent's board, then reflect it onto the Shooter's.

    The Shooter concedes only the one space, even when taking a whole Node; a
    Node conceded on the Shooter's own board gives the Target its whole diamond.
    """
    check(state, cell)
    shooter, target = state.to_move, 1 - state.to_move
    boards = list(state.boards)
    boards[target], events = hit(boards[target], target, cell, shooter)
    # Reflection: the Target gains the same space on the Shooter's board.
    own = boards[shooter]
    if (own.held[target] >> cell) & 1:
        events.append(Event("reflect", target, shooter, cell, shooter, "noop"))
    else:
        own, more = hit(own, shooter, cell, target)
        boards[shooter] = own
        events.append(Event("reflect", target, shooter, cell, shooter, more[0].answer))
        events.extend(more)
    new = replace(state, boards=(boards[0], boards[1]), to_move=target, ply=state.ply + 1)
    result = _result(new)
    if result is not None:
        new = replace(new, result=result)
        events.append(Event("win" if result.winners else "draw", None, detail=(result.reason,)))
    return new, events


def nodes_left(state: ReflectorState, player: int) -> int:
    return state.boards[player].nodes_of(player)


def spaces_controlled(state: ReflectorState, player: int) -> int:
    """Spaces ``player`` controls on the opponent's board (the tie-break count)."""
    board = state.boards[1 - player]
    mask = board.held[player]
    if state.options.tiebreak_counts == "marked":
        mask &= board.marked
    return mask.bit_count()


def _result(state: ReflectorState) -> Result | None:
    lost = [nodes_left(state, p) == 0 for p in (0, 1)]
    if lost[0] and lost[1]:
        counts = [spaces_controlled(state, p) for p in (0, 1)]
        if counts[0] == counts[1]:
            return Result((), f"true draw: both lost their last Node, {counts[0]} spaces each")
        w = 0 if counts[0] > counts[1] else 1
        return Result((w,), f"both lost their last Node; spaces {counts[0]} to {counts[1]}")
    if lost[0] or lost[1]:
        w = 1 if lost[0] else 0
        return Result((w,), f"player {1 - w} lost all Control Nodes")
    return None


# --- notation, JSON, views -----------------------------------------------------


def parse_action(state: ReflectorState, text: str) -> int:
    try:
        return parse_cell(text)
    except GridError as error:
        raise IllegalAction(str(error)) from None


def action_text(state: ReflectorState, action: int) -> str:
    return cell_name(action)


def to_json(state: ReflectorState) -> dict[str, Any]:
    return {
        "format": "bcg-state/1",
        "game": GAME,
        "players": 2,
        "layout": "standard",
        "options": state.options.__dict__.copy(),
        "to_move": state.to_move,
        "ply": state.ply,
        "result": state.result.to_json() if state.result else None,
        "grids": [b.to_json() for b in state.boards],
    }


def from_json(data: Mapping[str, Any]) -> ReflectorState:
    if data.get("game") != GAME:
        raise BcgError(f"not a Reflector state (game={data.get('game')!r})")
    try:
        grids = [GridState.from_json(g) for g in data["grids"]]
        if len(grids) != 2:
            raise BcgError("a Reflector state has exactly 2 grids")
        for p, g in enumerate(grids):
            g.check(2)
            if g.owner != p:
                raise BcgError(f"grid {p} must belong to player {p}")
        if data["to_move"] not in (0, 1):
            raise BcgError("to_move must be 0 or 1")
        return ReflectorState(
            boards=(grids[0], grids[1]),
            to_move=int(data["to_move"]),
            ply=int(data.get("ply", 0)),
            result=Result.from_json(data.get("result")),
            options=options_from_json(ReflectorOptions, data.get("options")),
        )
    except (KeyError, TypeError, GridError) as error:
        raise BcgError(f"bad Reflector state: {error}") from None


def view(state: ReflectorState, player: int) -> dict[str, Any]:
    """What ``player`` may know: own board in full, the other as its Public Grid."""
    return {
        "game": GAME,
        "you": player,
        "to_move": state.to_move,
        "ply": state.ply,
        "result": state.result.to_json() if state.result else None,
        "grids": [b.private() if p == player else b.public() for p, b in enumerate(state.boards)],
    }


def winners(state: ReflectorState) -> tuple[int, ...] | None:
    return state.result.winners if state.result else None


# --- scoring a card --------------------------------------------------------------


@dataclass(frozen=True)
class GridScore:
    """One board on a Reflector card: marks counted, Nodes seen and captured."""

    counts: dict[str, int]
    shaded: int
    nodes_seen: tuple[str, ...]
    nodes_captured: tuple[str, ...] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "shaded": self.shaded,
            "nodes_seen": list(self.nodes_seen),
            "nodes_captured": None if self.nodes_captured is None else list(self.nodes_captured),
        }


@dataclass(frozen=True)
class CardScore:
    """A scored Reflector card. ``status`` is ``win``, ``true_draw``,
    ``in_progress`` or ``undetermined`` (Node positions unknown)."""

    grids: tuple[GridScore, ...]
    symbols: tuple[str, str]
    status: str
    winner: int | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "game": GAME,
            "symbols": list(self.symbols),
            "grids": [g.to_json() for g in self.grids],
            "status": self.status,
            "winner": self.winner,
            "winner_symbol": None if self.winner is None else self.symbols[self.winner],
            "reason": self.reason,
        }


def _cells_of(grid: Mapping[str, Any]) -> dict[int, tuple[str | None, bool]]:
    cells = grid.get("cells", grid) if isinstance(grid, Mapping) else grid
    out: dict[int, tuple[str | None, bool]] = {}
    for name, info in cells.items():
        if isinstance(info, Mapping):
            mark, shaded = info.get("mark"), bool(info.get("shaded", False))
        elif isinstance(info, tuple | list):
            mark, shaded = info[0], bool(info[1])
        else:
            mark, shaded = info, False
        try:
            out[parse_cell(name)] = (mark, shaded)
        except GridError as error:
            raise BcgError(str(error)) from None
    return out


def score_card(
    grids: Sequence[Mapping[str, Any]],
    *,
    symbols: tuple[str, str] = ("x", "o"),
    nodes: Sequence[Sequence[str] | None] | None = None,
    nodes_per_grid: int = NODES_PER_GRID,
) -> CardScore:
    """Score a Reflector card from plain per-cell marks.

    ``grids[k]`` is player ``k``'s board as marked on the card (the Public Grid:
    the opponent's I.D. symbols, shading, revealed Nodes drawn as ``dot``). Each is
    a mapping ``"F3" -> {"mark": "x", "shaded": True}`` (a ``card/1`` grid, its
    ``"cells"`` member, or ``(mark, shaded)`` pairs). ``symbols[k]`` is player
    ``k``'s I.D. symbol. ``nodes[k]`` optionally lists player ``k``'s Node cells
    (from the Private Grid); a Node counts as captured when it bears the
    opponent's symbol. Without Node positions a Node is captured only if seen.

    >>> b0 = {"A1": {"mark": "o", "shaded": False}}
    >>> b1 = {c: {"mark": "x", "shaded": True} for c in ("C3", "C4")}
    >>> nodes = [["J9", "J8", "J7", "J6", "J5"], ["C3", "A1", "A2", "A3", "A4"]]
    >>> s = score_card([b0, b1], nodes=nodes)
    >>> s.grids[1].counts, s.status
    ({'x': 2}, 'in_progress')
    """
    if len(grids) != 2:
        raise BcgError("a Reflector card has two boards")
    if len(symbols) != 2 or symbols[0] == symbols[1]:
        raise BcgError("give two different I.D. symbols")
    scores = []
    captured_counts: list[int | None] = []
    marks_on = []
    for k, grid in enumerate(grids):
        cells = _cells_of(grid)
        counts: dict[str, int] = {}
        for mark, _ in cells.values():
            if mark:
                counts[mark] = counts.get(mark, 0) + 1
        seen = tuple(cell_name(c) for c, (m, _) in sorted(cells.items()) if m == "dot")
        captured: tuple[str, ...] | None = None
        if nodes is not None and nodes[k] is not None:
            node_cells = sorted({parse_cell(n) for n in nodes[k]})
            captured = tuple(
                cell_name(c) for c in node_cells if cells.get(c, (None, False))[0] == symbols[1 - k]
            )
            captured_counts.append(len(captured) if len(node_cells) == len(nodes[k]) else None)
            total = len(node_cells)
        else:
            captured_counts.append(None)
            total = nodes_per_grid
        scores.append(GridScore(counts, sum(1 for _, s in cells.values() if s), seen, captured))
        marks_on.append((counts.get(symbols[1 - k], 0), total))
    status, winner, reason = _card_result(captured_counts, marks_on, nodes)
    return CardScore(tuple(scores), (symbols[0], symbols[1]), status, winner, reason)


def _card_result(
    captured: list[int | None], marks_on: list[tuple[int, int]], nodes: Any
) -> tuple[str, int | None, str]:
    if any(c is None for c in captured):
        return "undetermined", None, "Node positions are needed to tell who has lost"
    lost = [captured[k] == marks_on[k][1] for k in (0, 1)]
    if lost[0] and lost[1]:
        # spaces each player controls on the opponent's board = its symbols there
        c0, c1 = marks_on[1][0], marks_on[0][0]
        if c0 == c1:
            return "true_draw", None, f"both lost every Node; {c0} spaces each"
        w = 0 if c0 > c1 else 1
        return "win", w, f"both lost every Node; spaces {c0} to {c1}"
    if lost[0] or lost[1]:
        w = 1 if lost[0] else 0
        return "win", w, f"player {1 - w} lost all Control Nodes"
    return "in_progress", None, "both players still hold a Control Node"


def card_marks(
    state: ReflectorState, symbols: tuple[str, str] = ("x", "o")
) -> list[dict[str, Any]]:
    """The two Public Grids of ``state`` drawn as card marks (for scoring tests).

    Claimed spaces carry the holder's symbol, revealed unclaimed Nodes a ``dot``.
    """
    out = []
    for k, board in enumerate(state.boards):
        cells: dict[str, dict[str, Any]] = {}
        for c in range(100):
            mark = None
            if (board.marked >> c) & 1:
                mark = symbols[board.holder(c)]
            elif (board.revealed >> c) & 1:
                mark = "dot"
            shaded = bool((board.shaded >> c) & 1)
            if mark or shaded:
                cells[cell_name(c)] = {"mark": mark, "shaded": shaded}
        out.append({"cells": cells})
        del k
    return out


def diamond_names(cell: str) -> list[str]:
    """The spaces a Node on ``cell`` covers, by name (a convenience for scorers)."""
    return [cell_name(c) for c in mask_cells(DIAMOND[parse_cell(cell)])]


def render(state: ReflectorState, player: int | None = None) -> str:
    """Both boards as text: the whole truth, or what ``player`` may see."""
    from piecebridge.rules.bcg.render import render_view

    if player is None:
        v = view(state, 0)
        v["grids"] = [b.private() for b in state.boards]
        v["you"] = None
    else:
        if player not in (0, 1):
            raise BcgError("Reflector has players 0 and 1")
        v = view(state, player)
    return render_view(v)
