"""What happened between two observed boards: the cheapest legal action sequences.

The referee sees the board before and after a hand passed over it. :func:`explain`
searches (A*) for the cheapest sequences of non-firing actions — coin moves,
laser moves, spins, swaps, drops — that turn one board into the other within the
action points left, checking every step with the engine's own rules.

The heuristic is a per-suit assignment between misplaced coins and the cells
that want them (Manhattan steps, a spin for a wrong facing, two points for a
drop) plus the lasers' distances. Every action lowers it by at most its cost, so
it never overestimates and the first goal found is the cheapest. The search first
moves only misplaced pieces; only if that fails does it let any piece step aside.

>>> from piecebridge.rules.reflec import Board, new_game
>>> state = _example_state()
>>> after = state.board.with_pieces({parse_cell("d4"): None,
...     parse_cell("d3"): Coin(Suit.SUNS, Direction.EAST)})
>>> result = explain(state.board, after, state)
>>> result.cost, [str(a) for a in result.sequences[0]]
(1, ['move d4 d3 east'])
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace

from piecebridge.rules.reflec.actions import Action, Drop, MoveCoin, MoveLaser, Spin, Swap
from piecebridge.rules.reflec.core import (
    CELL_NAMES,
    CELLS,
    NEIGHBOURS,
    SUITS,
    Board,
    Coin,
    Direction,
    Pawn,
    Suit,
    manhattan,
    parse_cell,
)
from piecebridge.rules.reflec.game import GameState, IllegalAction, apply

INFINITE = 10**6
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}


@dataclass(frozen=True, slots=True)
class Explanation:
    """The answer of :func:`explain`.

    ``sequences`` holds the cheapest legal sequences (distinct as sets of actions);
    empty when none exists, and then ``reason`` says why in one sentence and
    ``cells`` names the cells that break it.
    """

    sequences: tuple[tuple[Action, ...], ...] = ()
    cost: int | None = None
    reason: str = ""
    cells: tuple[int, ...] = ()

    @property
    def found(self) -> bool:
        return bool(self.sequences)


def explain(
    before: Board,
    after: Board,
    state: GameState,
    *,
    max_sequences: int = 8,
    max_expansions: int = 50_000,
) -> Explanation:
    """The cheapest action sequences that turn ``before`` into ``after`` for the
    player to move in ``state`` (whose board is taken to be ``before``).
    """
    start = replace(state, board=before)
    if before.squares == after.squares:
        return Explanation(sequences=((),), cost=0)
    if state.phase != "play":
        return _unexplained(f"the game is in its {state.phase} phase", before, after)
    obvious = _diagnose_obvious(start, after)
    if obvious is not None:
        return obvious
    budget = start.points_left
    for focused in (True, False):
        found = _search(start, after, budget, focused, max_sequences, max_expansions)
        if found:
            cost = sum(a.cost for a in found[0])
            return Explanation(sequences=tuple(found), cost=cost)
    return _diagnose_failure(start, after, budget)


# --- search -------------------------------------------------------------------------


def _search(
    start: GameState,
    goal: Board,
    budget: int,
    focused: bool,
    max_sequences: int,
    max_expansions: int,
) -> list[tuple[Action, ...]]:
    h0 = lower_bound(start.board, goal, start)
    if h0 > budget:
        return []
    # Ties on f go to the deeper node (-g first), so the search dives to a goal.
    tie = itertools.count()
    frontier: list[tuple[int, int, int, GameState, tuple[Action, ...]]] = [
        (h0, 0, next(tie), start, ())
    ]
    best_g: dict[object, int] = {}
    results: list[tuple[Action, ...]] = []
    seen_sets: set[frozenset[str]] = set()
    best_cost: int | None = None
    expansions = 0
    stop_after = max_expansions
    while frontier and expansions < max_expansions:
        f, minus_g, _, node, path = heapq.heappop(frontier)
        g = -minus_g
        if best_cost is not None and (f > best_cost or expansions > stop_after):
            break
        if node.board.squares == goal.squares:
            if best_cost is None:  # alternatives are sought for a bounded extra effort
                stop_after = 2 * expansions + 20
            best_cost = g
            key = frozenset(map(str, path))
            if key not in seen_sets:
                seen_sets.add(key)
                results.append(path)
                if len(results) >= max_sequences:
                    break
            continue
        expansions += 1
        last = path[-1] if path else None
        for action in _successor_actions(node, goal, focused):
            if g + action.cost > budget:
                continue
            if last is not None and _commutes_and_out_of_order(action, last):
                continue
            try:
                child, _ = apply(node, action)
            except IllegalAction:
                continue
            child_g = g + action.cost
            key = (child.board.squares, child.pool, child.swaps, child.neutral_moves)
            if best_g.get(key, INFINITE) < child_g:
                continue
            best_g[key] = child_g
            h = lower_bound(child.board, goal, child)
            if child_g + h <= budget:
                heapq.heappush(frontier, (child_g + h, -child_g, next(tie), child, (*path, action)))
    return results


def _touched(action: Action) -> tuple[int, ...]:
    if isinstance(action, MoveCoin | MoveLaser):
        return (action.source, action.target)
    if isinstance(action, Swap):
        return (action.first, action.second)
    return (action.cell,)  # Spin, Drop


def _commutes_and_out_of_order(action: Action, previous: Action) -> bool:
    """Partial-order reduction: two actions on disjoint cells give the same result in
    either order (points add up, locks and swap records are per cell), so only the
    order with the smaller notation first is searched.
    """
    if set(_touched(action)).isdisjoint(_touched(previous)):
        return str(action) < str(previous)
    return False


def _successor_actions(node: GameState, goal: Board, focused: bool) -> Iterator[Action]:
    """Candidate actions. A coin's facing matters only where some coin finally stays,
    and a swap hands a cell's facing to the coin that comes in; so facings are
    chosen canonically: the goal's facing for that cell (whatever suit will stand
    there), or else unchanged.
    """
    squares, targets = node.board.squares, goal.squares
    mismatched = [c for c in CELLS if squares[c] != targets[c]]
    movers = mismatched if focused else [c for c in CELLS if squares[c] is not None]
    swaps: set[Swap] = set()
    for cell in movers:
        piece = squares[cell]
        if type(piece) is Coin:
            if not node.controls(piece.suit):  # only a swap with a coin we control moves it
                swaps.update(
                    Swap(cell, n)
                    for n in NEIGHBOURS[cell]
                    if type(squares[n]) is Coin and node.controls(squares[n].suit)
                )
                continue
            want = targets[cell]
            if type(want) is Coin and want.facing is not piece.facing:
                yield Spin(cell, want.facing)
            for n in NEIGHBOURS[cell]:
                if squares[n] is None:
                    there = targets[n]
                    yield MoveCoin(cell, n, piece.facing)
                    if type(there) is Coin and there.facing is not piece.facing:
                        yield MoveCoin(cell, n, there.facing)
                elif type(squares[n]) is Coin:
                    swaps.add(Swap(cell, n))
        elif type(piece) is Pawn:
            for n in NEIGHBOURS[cell]:
                if squares[n] is None:
                    yield MoveLaser(cell, n)
    yield from swaps
    droppable = [s for s in SUITS if node.pool[_SUIT_INDEX[s]]]
    if droppable:
        for cell in mismatched:
            want = targets[cell]
            if squares[cell] is None and type(want) is Coin:
                for suit in droppable:
                    yield Drop(cell, suit, want.facing)


def lower_bound(board: Board, goal: Board, state: GameState) -> int:
    """Action points at least needed to turn ``board`` into ``goal`` (admissible)."""
    squares, targets = board.squares, goal.squares
    sources: dict[Suit, list[tuple[int, Direction]]] = {}
    wanted: dict[Suit, list[tuple[int, Direction]]] = {}
    total = 0
    for cell in CELLS:
        have, want = squares[cell], targets[cell]
        if have is want or have == want:
            continue
        if type(have) is Coin:
            sources.setdefault(have.suit, []).append((cell, have.facing))
        elif type(have) is Pawn:
            goal_cell = goal.pawn_cell(have.suit)
            if goal_cell is None:
                return INFINITE
            total += manhattan(cell, goal_cell)
        if type(want) is Coin:
            wanted.setdefault(want.suit, []).append((cell, want.facing))
    for suit in set(sources) | set(wanted):
        have_list, want_list = sources.get(suit, []), wanted.get(suit, [])
        drops = len(want_list) - len(have_list)
        if drops < 0 or drops > state.pool[_SUIT_INDEX[suit]]:
            return INFINITE
        total += 2 * drops + _assignment_cost(have_list, want_list)
    return total


def _step_cost(source: tuple[int, Direction], target: tuple[int, Direction]) -> int:
    if source[0] == target[0]:
        return 0 if source[1] is target[1] else 1
    return manhattan(source[0], target[0])


def _assignment_cost(
    sources: list[tuple[int, Direction]], targets: list[tuple[int, Direction]]
) -> int:
    """Cheapest way to send every source to a distinct target (the rest are dropped)."""
    if not sources:
        return 0
    if len(targets) > 8:  # a weaker bound that is still admissible
        return sum(min(_step_cost(s, t) for t in targets) for s in sources)
    costs = [[_step_cost(s, t) for t in targets] for s in sources]
    best = {0: 0}
    for row in costs:
        nxt: dict[int, int] = {}
        for mask, value in best.items():
            for j, c in enumerate(row):
                if not mask >> j & 1:
                    m = mask | 1 << j
                    if value + c < nxt.get(m, INFINITE):
                        nxt[m] = value + c
        best = nxt
    return min(best.values())


# --- why not ------------------------------------------------------------------------------


def _unexplained(
    reason: str, before: Board, after: Board, cells: list[int] | None = None
) -> Explanation:
    if cells is None:
        cells = [c for c in CELLS if before.squares[c] != after.squares[c]]
    return Explanation(reason=reason, cells=tuple(sorted(set(cells))))


def _diagnose_obvious(state: GameState, after: Board) -> Explanation | None:
    """Changes no sequence of non-firing actions can make, named in one sentence."""
    before = state.board
    mover = "+".join(s.value for s in state.current_suits)
    for suit in SUITS:
        was, now = before.pawn_cell(suit), after.pawn_cell(suit)
        if was == now:
            continue
        if now is None:
            return _unexplained(
                f"the {suit.value} laser on {CELL_NAMES[was]} is gone, but lasers leave the board "
                "only when a beam hits them",
                before,
                after,
                [was],
            )
        if was is None:
            return _unexplained(
                f"a {suit.value} laser appeared on {CELL_NAMES[now]}, "
                "but destroyed lasers never return",
                before,
                after,
                [now],
            )
        if suit not in state.current_suits:
            return _unexplained(
                f"the {suit.value} laser moved from {CELL_NAMES[was]} to {CELL_NAMES[now]}, "
                f"but it is {mover}'s turn",
                before,
                after,
                [was, now],
            )
    for suit in SUITS:
        was = [c for c, p in before.coins() if p.suit is suit]
        now = [c for c, p in after.coins() if p.suit is suit]
        if len(now) < len(was):
            gone = [c for c in was if c not in now]
            return _unexplained(
                f"a {suit.value} coin disappeared from {_cells_text(gone)}: coins leave the board "
                "only by laser fire",
                before,
                after,
                gone,
            )
        extra = len(now) - len(was)
        if extra and (extra > state.pool[_SUIT_INDEX[suit]] or not state.controls(suit)):
            new = [c for c in now if c not in was]
            return _unexplained(
                f"{_count(extra, 'more ' + suit.value + ' coin')} on the board "
                f"({_cells_text(new)}) than can be dropped by {mover}",
                before,
                after,
                new,
            )
    return None


def _diagnose_failure(state: GameState, after: Board, budget: int) -> Explanation:
    before = state.board
    need = lower_bound(before, after, state)
    if need > budget:
        worst = _costliest_change(before, after)
        if worst is not None:
            text, cells = worst
            return _unexplained(
                f"{text} but only {_count(budget, 'action point')} "
                f"{'was' if budget == 1 else 'were'} left",
                before,
                after,
                cells,
            )
        return _unexplained(
            f"the changes need at least {_count(need, 'action point')} but only {budget} "
            f"{'was' if budget == 1 else 'were'} left",
            before,
            after,
        )
    for cell in CELLS:
        have = before.squares[cell]
        if type(have) is Coin and have != after.squares[cell] and not state.controls(have.suit):
            return _unexplained(
                f"the {have.suit.value} coin on {CELL_NAMES[cell]} belongs to another player and "
                "no legal swap moves it there",
                before,
                after,
                [cell],
            )
    return _unexplained(
        "no legal sequence of moves, spins, swaps and drops turns the board into the one seen",
        before,
        after,
    )


def _costliest_change(before: Board, after: Board) -> tuple[str, list[int]] | None:
    """The single piece change that costs the most, described for a person."""
    best: tuple[int, str, list[int]] | None = None
    for cell in CELLS:
        have = before.squares[cell]
        if have is None or have == after.squares[cell]:
            continue
        if type(have) is Pawn:
            goal = after.pawn_cell(have.suit)
            if goal is None:
                continue
            cost = manhattan(cell, goal)
            text = f"the {have.suit.value} laser on {CELL_NAMES[cell]} moved {_count(cost, 'cell')}"
            cells = [cell, goal]
        else:
            assert isinstance(have, Coin)
            options = [
                (manhattan(cell, c), c)
                for c, p in after.coins()
                if p.suit is have.suit and before.squares[c] != p
            ]
            if not options:
                continue
            cost, goal = min(options)
            if cost == 0:
                cost, text = 1, f"the {have.suit.value} coin on {CELL_NAMES[cell]} was spun"
            else:
                text = (
                    f"the {have.suit.value} coin on {CELL_NAMES[cell]} moved "
                    f"{_count(cost, 'cell')} to {CELL_NAMES[goal]}"
                )
            cells = [cell, goal]
        if best is None or cost > best[0]:
            best = (cost, text, cells)
    return None if best is None else (best[1], best[2])


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count(n: int, noun: str) -> str:
    word = _WORDS[n] if 0 <= n < len(_WORDS) else str(n)
    return f"{word} {noun}{'' if n == 1 else 's'}"


def _cells_text(cells: list[int]) -> str:
    return ", ".join(CELL_NAMES[c] for c in sorted(cells))


def _example_state() -> GameState:
    """A four-player game right after its Drop round (for examples and tests)."""
    from piecebridge.rules.reflec.actions import Place
    from piecebridge.rules.reflec.game import new_game

    state = new_game(["suns", "moons", "crowns", "arms"])
    cells = iter(
        [
            "d4",
            "e4",
            "d5",
            "e5",
            "c3",
            "f3",
            "c6",
            "f6",
            "b2",
            "g2",
            "b7",
            "g7",
            "c4",
            "f4",
            "c5",
            "f5",
            "d2",
            "e2",
            "d7",
            "e7",
            "b4",
            "g4",
            "b5",
            "g5",
        ]
    )
    while state.phase == "drop":
        suit = state.current_suits[0]
        state, _ = apply(state, Place(parse_cell(next(cells)), suit, Direction.NORTH))
    return state
