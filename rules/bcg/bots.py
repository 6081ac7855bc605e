"""Simple players for the Business Card Games: random legal and greedy.

Both only look at what the player may know (its own grids, allies' grids and the
Public Grids): the greedy bot prefers revealed enemy Nodes, then shaded spaces
(known to lie in some Node's range) and their neighbours, and in games with
reflection it avoids conceding its own Nodes. In *Defector* it plays towards an
end (see :func:`_defector`), now and then proposes an alliance, and answers
proposals (``accept`` only if the proposer holds fewer Nodes than the leader).

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
from piecebridge.rules.bcg.grid import FULL, grow, mask_cells
from piecebridge.rules.bcg.table import (
    Accept,
    Claim,
    Decline,
    Desert,
    Pass,
    Propose,
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
            if state.pending is not None:
                return _answer(state, rng, kind)
            move = _diplomacy(state, rng, kind)
            if move is not None:
                return move
            if kind == "greedy":
                return _defector(state, rng)
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
        return _random_claim(masks, rng)
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


def _diplomacy(state: TableState, rng: random.Random, kind: str) -> Propose | Desert | None:
    """Now and then propose or leave an alliance (only legal moves are chosen)."""
    from piecebridge.rules.bcg import defector

    if state.diplomacy_done or rng.random() > (0.08 if kind == "random" else 0.03):
        return None
    options = defector.diplomacy_actions(state)
    if not options:
        return None
    if kind == "greedy":
        # a greedy player courts anyone but the leader; only when no such offer is legal
        # does it fall back to any diplomacy move (the leader, or deserting)
        counts = node_counts(state)
        best = max(counts)
        options = [
            a for a in options if isinstance(a, Propose) and counts[a.partner] < best
        ] or options
    return options[rng.randrange(len(options))]


def _answer(state: TableState, rng: random.Random, kind: str) -> Accept | Decline:
    """The answer to an alliance proposal: random, or (greedy) yes only if the
    proposer holds fewer Nodes than the leader (a tie for the lead is a no)."""
    offer = state.pending
    assert offer is not None
    if kind == "random":
        return Accept() if rng.random() < 0.5 else Decline()
    counts = node_counts(state)
    return Accept() if counts[offer.proposer] < max(counts) else Decline()


# Values of the Defector greedy bot's claims (higher first; ties drawn at random).
WIN, ELIMINATE, COMPLETE, RESCUE, VICTIM_NODE, ORPHAN, DEFEND = 100, 90, 80, 70, 60, 50, 40
VICTIM_PATH, VICTIM_TRADE, VICTIM_SHADED, VICTIM_NEAR, VICTIM_FRESH = 35, 32, 30, 25, 20
VICTIM_WAY = 15
ORPHAN_PATH, CAPTURE, SHADED, FOREIGN, ANY = 18, 10, 6, 3, 1


def nearest(mask: int, aims: int) -> int:
    """The cells of ``mask`` closest (orthogonal steps on the grid) to ``aims``.

    >>> from piecebridge.rules.bcg.grid import mask_names, parse_mask
    >>> mask_names(nearest(parse_mask(["A1", "C1", "J10"]), parse_mask(["E1"])))
    ['C1']
    """
    if not mask or not aims:
        return 0
    zone = aims
    for _ in range(19):  # no two cells of a 10x10 grid are farther apart
        if zone & mask:
            return zone & mask
        zone |= grow(zone)
    return mask


def home_nodes(state: TableState, player: int) -> int:
    """How many Nodes ``player`` controls on its original grids (0 = eliminated
    unless an alliance carries it)."""
    homes = state.homes[player]
    return sum(g.nodes_of(player) for h, g in enumerate(state.grids) if (homes >> h) & 1)


def _defector(state: TableState, rng: random.Random) -> Claim | Pass:
    """Greedy *Defector*: play towards an end.

    Two greedy players would trade one Node back and forth for ever (any Row 1
    space reaches every Row 1 in "Full Access"), so captures are valued by what
    they change for good: a majority win, an elimination, a completed grid (a new
    original grid), rescuing one's last original-grid Nodes, a Node of the weakest
    rival's original grid (the whole table gangs up on it), a Node of an
    eliminated player (nobody takes it back). A capture that is only a trade ranks
    below exploring the weakest rival's grid.
    """
    p = state.to_move
    masks = access_masks(state, p)
    if not any(masks):
        return Pass()
    if rng.random() < EPSILON / 2:
        return _random_claim(masks, rng)
    counts = node_counts(state)
    total = sum(counts)
    al = alliance_of(state, p)
    friends = al.members if al else frozenset({p})
    alive = [q for q in range(state.players) if not state.eliminated[q]]
    home = {q: home_nodes(state, q) for q in alive}
    rivals = [q for q in alive if q not in friends and home[q] and _can_hurt(state, p, q)]
    victim = min(rivals, key=lambda q: (home[q], counts[q], q), default=None)
    best, options = 0, []

    def offer(value: int, g: int, mask: int) -> None:
        nonlocal best, options
        if mask and value >= best:
            if value > best:
                best, options = value, []
            options.append((g, mask))

    for g, m in enumerate(masks):
        if not m:
            continue
        grid = state.grids[g]
        # Nodes it may know: revealed ones, and all of its own or past allies' grids
        secret_known = grid.owner is not None and (state.knows[p] >> grid.owner) & 1
        known = grid.node_mask if secret_known else grid.revealed
        friendly = 0
        for i, (n, c) in enumerate(zip(grid.nodes, grid.control, strict=True)):
            if not (m >> n) & 1 or not (known >> n) & 1:
                continue
            if c in friends:
                friendly |= 1 << n
                continue
            offer(_capture_value(state, g, i, p, c, counts, total, home, victim), g, 1 << n)
        if best > VICTIM_PATH:
            continue
        # unclaimed spaces (no stealing wars); hidden Nodes lie among them
        fresh = m & ~grid.marked & ~friendly
        if victim is not None and (state.homes[victim] >> g) & 1:
            aims = 0
            for n, c in zip(grid.nodes, grid.control, strict=True):
                if c == victim and (known >> n) & 1:
                    aims |= 1 << n
            if aims:  # a known Node out of reach: cut a way to it, through marks if need be
                offer(VICTIM_PATH, g, nearest(m, aims))
            offer(VICTIM_SHADED, g, fresh & grid.shaded)
            offer(VICTIM_NEAR, g, fresh & grow(grid.shaded & ~grid.held[p]))
            offer(VICTIM_FRESH, g, fresh)
            offer(VICTIM_WAY, g, nearest(m, ~grid.marked & ~grid.shaded & FULL))
        orphans = 0
        for n, c in zip(grid.nodes, grid.control, strict=True):
            if state.eliminated[c] and (known >> n) & 1:
                orphans |= 1 << n
        if orphans:  # Nodes of eliminated players: the last ones end the game
            offer(ORPHAN_PATH if len(alive) < 4 else SHADED, g, nearest(m, orphans))
        offer(SHADED, g, fresh & grid.shaded)
        if grid.owner is not None and grid.owner not in friends:
            offer(FOREIGN, g, fresh)
        offer(ANY, g, m)
    g, mask = options[rng.randrange(len(options))]
    return Claim(g, _pick(mask, rng))


def _can_hurt(state: TableState, p: int, q: int) -> bool:
    """Does ``q`` control an original-grid Node that ``p`` is allowed to claim (one
    outside the range of ``p``'s own Nodes)?"""
    for h, grid in enumerate(state.grids):
        if (state.homes[q] >> h) & 1:
            cover = grid.controlled_cover(p)
            for n, c in zip(grid.nodes, grid.control, strict=True):
                if c == q and not (cover >> n) & 1:
                    return True
    return False


def _capture_value(
    state: TableState,
    g: int,
    index: int,
    p: int,
    prev: int,
    counts: list[int],
    total: int,
    home: dict[int, int],
    victim: int | None,
) -> int:
    grid = state.grids[g]
    if 2 * (counts[p] + 1) > total:
        return WIN
    on_prev_home = (state.homes[prev] >> g) & 1
    if state.eliminated[prev]:
        return ORPHAN  # nobody will take it back
    if on_prev_home and home[prev] == 1 and alliance_of(state, prev) is None:
        return ELIMINATE
    if grid.nodes_of(p) == len(grid.nodes) - 1:
        return COMPLETE
    if (state.homes[p] >> g) & 1 and home[p] <= 2:
        return RESCUE
    if prev == victim and on_prev_home:
        return _follow_up(state, g, grid.nodes[index], victim)
    if (state.homes[p] >> g) & 1:
        return DEFEND
    return CAPTURE


def _follow_up(state: TableState, g: int, cell: int, victim: int) -> int:
    """What capturing the victim's Node at ``cell`` is worth, one ply ahead.

    Best when the next player can then take the victim's last original-grid Node;
    worth less than cutting a way to its other Nodes when the victim simply takes
    it back next turn (two players would trade it for ever)."""
    from piecebridge.rules.bcg import defector

    after, _ = defector.apply(state, Claim(g, cell))
    if after.is_over or after.eliminated[victim]:
        return ELIMINATE
    nxt = after.to_move
    if nxt != victim and home_nodes(after, victim) == 1 and _can_take_home(after, nxt, victim):
        return VICTIM_NODE + 5
    if (access_masks(after, victim)[g] >> cell) & 1:
        return VICTIM_TRADE
    return VICTIM_NODE


def _can_take_home(state: TableState, player: int, victim: int) -> bool:
    """Can ``player`` claim one of ``victim``'s original-grid Nodes now?"""
    masks = access_masks(state, player)
    for h, grid in enumerate(state.grids):
        if (state.homes[victim] >> h) & 1:
            for n, c in zip(grid.nodes, grid.control, strict=True):
                if c == victim and (masks[h] >> n) & 1:
                    return True
    return False


def _random_claim(masks: list[int], rng: random.Random) -> Claim:
    total = sum(m.bit_count() for m in masks)
    k = rng.randrange(total)
    for g, m in enumerate(masks):
        n = m.bit_count()
        if k < n:
            return Claim(g, mask_cells(m)[k])
        k -= n
    raise AssertionError("k < total")
