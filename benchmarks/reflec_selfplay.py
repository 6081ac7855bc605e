"""Self-play: many random legal Reflec games, every invariant checked after every action.

    python benchmarks/reflec_selfplay.py --games 10000 --workers 2

The policy is random and legal: it picks an action kind uniformly (move, spin, swap,
drop, laser move, fire, end), then an action of that kind uniformly, so lasers fire
often enough for games to finish. Games are cut at --max-turns.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from multiprocessing import Pool

from piecebridge.rules.reflec import (
    SUITS,
    Options,
    apply,
    legal_actions,
    new_game,
    state_from_json,
    state_to_json,
)
from piecebridge.rules.reflec.core import COINS_PER_SUIT


def check_invariants(state, before_coins: dict) -> None:
    board = state.board
    for i, suit in enumerate(SUITS):
        on_board = sum(1 for _, c in board.coins() if c.suit is suit)
        total = on_board + state.pool[i] + state.unplaced[i]
        assert total == before_coins[suit], f"{suit} coins not conserved: {total}"
        assert total in (0, COINS_PER_SUIT)
    pawn_suits = [p.suit for _, p in board.pawns()]
    assert len(pawn_suits) == len(set(pawn_suits)), "two pawns of one suit"
    for player, suits in enumerate(state.players):
        has_laser = any(s in pawn_suits for s in suits)
        if state.phase != "over":
            assert has_laser == state.alive[player], "alive iff a laser stands"
    assert all(0 <= d <= 5 for d in state.dice)
    assert state.tile_points >= 0
    if state.phase == "play":
        assert state.alive[state.current], "a dead player is to move"
        assert sum(state.alive) >= 2
    if state.phase == "over":
        assert state.winner is not None and sum(state.alive) == 1 and state.alive[state.winner]


def play(seed: int) -> dict:
    rng = random.Random(seed)
    players = 2 + seed % 3
    options = Options(
        tile_points=rng.choice(["count", "face_values"]),
        two_player_lasers=rng.choice([1, 2]),
        spare_suits=rng.choice(["unused", "neutral"]),
        neutral_lock=rng.choice(["previous_turn", "since_your_last_turn"]),
        own_swaps_undoable=rng.random() < 0.5,
    )
    state = new_game(list(SUITS[:players]), options)
    coins = {s: state.unplaced[i] for i, s in enumerate(SUITS)}
    actions_taken = 0
    kinds: Counter[str] = Counter()
    while state.phase != "over" and state.turn < ARGS.max_turns:
        legal = legal_actions(state)
        by_kind: dict[str, list] = {}
        for action in legal:
            by_kind.setdefault(type(action).__name__, []).append(action)
        kind = rng.choice(sorted(by_kind))
        action = rng.choice(by_kind[kind])
        state, _ = apply(state, action)
        kinds[kind] += 1
        actions_taken += 1
        check_invariants(state, coins)
        if actions_taken % 97 == 0:
            assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state
    return {
        "players": players,
        "finished": state.phase == "over",
        "turns": state.turn + 1,
        "actions": actions_taken,
        "kinds": dict(kinds),
    }


def main() -> int:
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-turns", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    ARGS = parser.parse_args()
    start = time.perf_counter()
    with Pool(ARGS.workers, initializer=_init, initargs=(ARGS,)) as pool:
        results = []
        for i, result in enumerate(
            pool.imap_unordered(play, range(ARGS.seed, ARGS.seed + ARGS.games), chunksize=20)
        ):
            results.append(result)
            if (i + 1) % max(1, ARGS.games // 20) == 0:
                print(f"  {i + 1}/{ARGS.games} games", file=sys.stderr, flush=True)
    wall = time.perf_counter() - start
    print(f"{len(results)} games, {wall:.1f} s wall on {ARGS.workers} workers, no invariant broken")
    for players in (2, 3, 4):
        group = [r for r in results if r["players"] == players]
        turns = [r["turns"] for r in group if r["finished"]]
        print(
            f"  {players} players: {len(group)} games, {sum(r['finished'] for r in group)} "
            f"finished, turns median {statistics.median(turns) if turns else '-'}, "
            f"actions {sum(r['actions'] for r in group)}"
        )
    total = Counter()
    for r in results:
        total.update(r["kinds"])
    print("  actions by kind:", dict(sorted(total.items())))
    return 0


ARGS: argparse.Namespace


def _init(args: argparse.Namespace) -> None:
    global ARGS
    ARGS = args


if __name__ == "__main__":
    raise SystemExit(main())
