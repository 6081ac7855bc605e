"""Simple players for the Business Card Games: random legal and greedy.

Both only look at what the player may know (its own grids, allies' grids and the
Public Grids): the greedy bot prefers revealed enemy Nodes, then shaded spaces
(known to lie in some Node's range) and their neighbours, and in games with
reflection it avoids conceding its own Nodes.

>>> import random
>>> from piecebridge.rules.bcg import reflector
>>> s = reflector.new_game(seed=1)
>>> a = choose(s, random.Random(0), "greedy")
>>> a in reflector.legal_actions(s)
True
"""

from __future__ import annotations

import random
from typing import Any

from piecebridge.rules.bcg import reflector
from piecebridge.rules.bcg.grid import grow, mask_cells
from piecebridge.rules.bcg.table import (
    Ally,
    Claim,
    Desert,
    Pass,
    TableState,
    access_masks,
    alliance_of,
    node_counts,
)

KINDS = ("random", "greedy")
EPSILON = 0.1


def _pick(mask: int, rng: random.Random) -> int:
    cells = mask_cells(mask)
    return cells[rng.randrange(len(cells))]


def choose(state: Any, rng: random.Random, kind: str = "random") -> Any:
    """A legal action for the player to move (``kind`` is "random" or "greedy")."""
    if kind not in KINDS:
        raise ValueError(f"unknown bot {kind!r} (random, greedy)")
    if isinstance(state, reflector.ReflectorState):
        return _reflector(state, rng, kind)
    if isinstance(state, TableState):
        if state.game == "defector":
            move = _diplomacy(state, rng, kind)
            if move is not None:
                return move
        return _table(state, rng, kind)
    raise TypeError(f"no bot for {type(state).__name__}")


def _reflector(state: reflector.ReflectorState, rng: random.Random, kind: str) -> int:
    p = state.to_move
    avail = reflector.access_mask(state, p)
    if kind == "random":
        return _pick(avail, rng)
    enemy, own = state.boards[1 - p], state.boards[p]
    # conceding a space that holds one of my live Nodes hands over its diamond
    mine_live = 0
    for n, c in zip(own.nodes, own.control, strict=True):
        if c == p:
            mine_live |= 1 << n
    safe = avail & ~mine_live
    live_enemy = 0
    for n, c in zip(enemy.nodes, enemy.control, strict=True):
        if c != p:
            live_enemy |= 1 << n
    revealed = enemy.revealed & live_enemy  # only Nodes shown on the Public Grid
    theirs = enemy.shaded & ~enemy.held[p]
    for m in (safe & revealed, safe & theirs, safe & grow(enemy.shaded), safe, avail):
        if m:
            return _pick(m, rng)
    raise AssertionError("no legal move in an unfinished Reflector game")


def _table(state: TableState, rng: random.Random, kind: str) -> Claim | Pass:
    p = state.to_move
    masks = access_masks(state, p)
    total = sum(m.bit_count() for m in masks)
    if total == 0:
        return Pass()
    # a little randomness keeps two greedy bots from trading one Node back and forth
    if kind == "random" or rng.random() < EPSILON:
        k = rng.randrange(total)
        for g, m in enumerate(masks):
            n = m.bit_count()
            if k < n:
                return Claim(g, mask_cells(m)[k])
            k -= n
    tiers: list[list[tuple[int, int]]] = [[] for _ in range(10)]
    counts = node_counts(state)
    rivals = [
        q
        for q in range(state.players)
        if q != p and not state.eliminated[q] and state.grids[q].nodes_of(q)
    ]
    victim = min(rivals, key=lambda q: (state.grids[q].nodes_of(q), counts[q]), default=None)
    al = alliance_of(state, p)
    friends = al.members if al else None
    for g, m in enumerate(masks):
        if not m:
            continue
        grid = state.grids[g]
        foreign = grid.owner is not None and grid.owner != p
        live = prime = 0
        for n, c in zip(grid.nodes, grid.control, strict=True):
            if c != p and not (friends and c in friends):
                live |= 1 << n
                if state.eliminated[c]:
                    prime |= 1 << n
        fresh = m & ~grid.marked  # unclaimed spaces: no stealing wars between bots
        if state.options.reflector:
            own = state.grids[p]
            for n, c in zip(own.nodes, own.control, strict=True):
                if c == p:
                    fresh &= ~(1 << n)
        mine = grid.nodes_of(p)
        targets = m & grid.revealed & live
        if targets and mine == len(grid.nodes) - 1:
            tiers[0].append((g, targets))  # the last Node of a grid: it becomes a home
        if grid.owner == victim:
            # gang up on the weakest player's grid: eliminations end games
            tiers[1].append((g, targets))
            tiers[2].append((g, fresh & grid.shaded))
            tiers[3].append((g, fresh & grow(grid.shaded & ~grid.held[p])))
            tiers[4].append((g, fresh))
        tiers[5].append((g, m & grid.revealed & prime))
        tiers[6].append((g, fresh & grid.shaded))
        tiers[7].append((g, targets))
        tiers[8].append((g, fresh if foreign else 0))
        tiers[9].append((g, fresh or masks[g]))
    for tier in tiers:
        options = [(g, m) for g, m in tier if m]
        if options:
            g, m = options[rng.randrange(len(options))]
            return Claim(g, _pick(m, rng))
    return Pass()


def _diplomacy(state: TableState, rng: random.Random, kind: str) -> Ally | Desert | None:
    """Now and then form or leave an alliance (only legal ones are proposed)."""
    from piecebridge.rules.bcg import defector

    if state.diplomacy_done or rng.random() > (0.08 if kind == "random" else 0.04):
        return None
    options = defector.diplomacy_actions(state)
    if not options:
        return None
    if kind == "greedy":
        # a greedy player leaves an alliance only when it has become the strongest
        options = [a for a in options if isinstance(a, Ally)] or options
    return options[rng.randrange(len(options))]
