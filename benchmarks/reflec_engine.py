"""Speed of the Reflec engine: fire, legal_actions and explain.

    python benchmarks/reflec_engine.py

Each figure is a median over many calls, and is also given as a ratio against two
baselines timed in the same run, since these shared machines are noisy:
``naive fire`` (a straightforward dict-and-string beam tracer, the obvious first
implementation) and ``sort 1k`` (sorting 1,000 floats: a fixed unit of CPU work).
"""

from __future__ import annotations

import json
import platform
import random
import statistics
import time
from collections.abc import Callable

from piecebridge.rules.reflec import (
    SUITS,
    Coin,
    Direction,
    EndTurn,
    Fire,
    Place,
    apply,
    legal_actions,
    new_game,
    trace,
)
from piecebridge.rules.reflec.explain import explain


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times) / 1e9


def full_board(seed: int):
    """Four players after the Drop round: 24 coins, random cells and facings."""
    rng = random.Random(seed)
    state = new_game(list(SUITS))
    cells = [c for c in range(64) if state.board.is_open(c)]
    rng.shuffle(cells)
    while state.phase == "drop":
        state, _ = apply(
            state, Place(cells.pop(), state.current_suits[0], rng.choice(list(Direction)))
        )
    return state


def naive_fire(pieces: dict[str, tuple[str, str | None]], start: str, direction: str):
    """The obvious implementation: string cells, dict board, list membership for loops."""
    steps = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}
    col, row = "abcdefgh".index(start[0]), int(start[1]) - 1
    path, hit = [], []
    while True:
        dc, dr = steps[direction]
        col, row = col + dc, row + dr
        if not (0 <= col < 8 and 0 <= row < 8):
            return path, "edge"
        name = f"{'abcdefgh'[col]}{row + 1}"
        path.append(name)
        piece = pieces.get(name)
        if piece is None:
            continue
        if piece[0] == "coin":
            if name in hit:
                return path, "loop"
            hit.append(name)
            direction = piece[1]
            continue
        return path, "pawn"


def longest_shot(state):
    best = None
    for cell, _pawn in state.board.pawns():
        for d in Direction:
            beam = trace(state.board, cell, d)
            if best is None or len(beam.path) > len(best[2].path):
                best = (cell, d, beam)
    return best


def six_point_turns(count: int, seed: int):
    """(state, after) pairs: a random 6-point turn of non-firing actions from mid-game."""
    rng = random.Random(seed)
    pairs = []
    while len(pairs) < count:
        state = full_board(rng.randrange(10**6))
        state = state.__class__(
            **{
                **{f: getattr(state, f) for f in state.__dataclass_fields__},
                "tile_points": 3,
                "dice": (3, 2, 2, 2),
            }
        )
        start, spent = state, 0
        while spent < 6:
            options = [
                a
                for a in legal_actions(state)
                if not isinstance(a, (Fire, EndTurn)) and spent + a.cost <= 6
            ]
            if not options:
                break
            action = rng.choice(options)
            state, _ = apply(state, action)
            spent += action.cost
        if spent == 6:
            pairs.append((start, state.board))
    return pairs


def main() -> None:
    sort_data = [random.random() for _ in range(1000)]
    reference = median_seconds(lambda: sorted(sort_data), 2000)

    states = [full_board(seed) for seed in range(20)]
    shots = [longest_shot(s) for s in states]
    fire_times, naive_times = [], []
    for state, (cell, d, _) in zip(states, shots, strict=True):
        board = state.board
        fire_times.append(median_seconds(lambda b=board, c=cell, d=d: trace(b, c, d), 2000))
        pieces = {
            f"{'abcdefgh'[c % 8]}{c // 8 + 1}": ("coin", p.facing.value)
            if isinstance(p, Coin)
            else ("pawn", None)
            for c, p in enumerate(board.squares)
            if p is not None
        }
        start = f"{'abcdefgh'[cell % 8]}{cell // 8 + 1}"
        naive_times.append(
            median_seconds(lambda p=pieces, s=start, d=d: naive_fire(p, s, d.value), 2000)
        )
    fire, naive = statistics.median(fire_times), statistics.median(naive_times)
    path_len = statistics.median(len(s[2].path) for s in shots)

    legal = statistics.median(median_seconds(lambda s=s: legal_actions(s), 50) for s in states)
    n_legal = statistics.median(len(legal_actions(s)) for s in states)

    pairs = six_point_turns(30, seed=7)
    explain_times, costs = [], []
    for state, after in pairs:
        result = explain(state.board, after, state)
        assert result.found and result.cost <= 6, result.reason
        costs.append(result.cost)
        explain_times.append(median_seconds(lambda s=state, a=after: explain(s.board, a, s), 5))
    explain_median = statistics.median(explain_times)

    report = {
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "reference_sort_1k_us": reference * 1e6,
        "fire_us": fire * 1e6,
        "fire_naive_us": naive * 1e6,
        "fire_path_cells_median": path_len,
        "legal_actions_ms": legal * 1e3,
        "legal_actions_count_median": n_legal,
        "explain_6pt_ms_median": explain_median * 1e3,
        "explain_6pt_ms_max": max(explain_times) * 1e3,
        "explain_costs": dict(sorted({c: costs.count(c) for c in costs}.items())),
    }
    print(json.dumps(report, indent=2))
    print()
    print("| operation | median | vs naive fire | vs sort 1k |")
    print("|---|---|---|---|")
    print(
        f"| fire, 24 coins (longest shot, median {path_len:.0f} cells) | {fire * 1e6:.1f} µs | "
        f"{fire / naive:.2f}x | {fire / reference:.2f}x |"
    )
    print(f"| naive fire (baseline) | {naive * 1e6:.1f} µs | 1.00x | {naive / reference:.2f}x |")
    print(
        f"| legal_actions (≈{n_legal:.0f} actions) | {legal * 1e3:.2f} ms | "
        f"{legal / naive:.0f}x | {legal / reference:.1f}x |"
    )
    print(
        f"| explain, 6-point turn (30 turns; max {max(explain_times) * 1e3:.1f} ms) | "
        f"{explain_median * 1e3:.2f} ms | {explain_median / naive:.0f}x | "
        f"{explain_median / reference:.1f}x |"
    )
    print(f"| sort 1,000 floats (baseline) | {reference * 1e6:.1f} µs | | 1.00x |")


if __name__ == "__main__":
    main()
