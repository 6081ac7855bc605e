"""Self-play of Reflector, Deflector and Defector with the bundled bots.

Plays complete games for every table layout, checks invariants after every action
(one holder per space, Node territory always held, Node spaces held by their
controller, spent Deflectors gone, no view leaks a secret at the end, JSON
round-trip of the final state, replay of a sample of records), and prints a
Markdown table: games, wall time, plies per second, game length
(median / mean / p95 / max), how games ended.

Speed baseline measured in the same run: replaying the recorded actions of a
sample of games without bots (``apply`` only), so the ratio shows what the bots
cost on top of the engine.

    python benchmarks/bcg_selfplay.py --games 2000 --workers 2 --out benchmarks/results/bcg.md
    python benchmarks/bcg_selfplay.py --only deflector:3 --games 50
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import random
import statistics
import sys
import time
from collections import Counter

from piecebridge.rules.bcg import defector, deflector, reflector
from piecebridge.rules.bcg.bots import choose
from piecebridge.rules.bcg.grid import cover_mask, parse_mask
from piecebridge.rules.bcg.table import TableOptions

MODULES = {"reflector": reflector, "deflector": deflector, "defector": defector}
PLAN = [
    ("reflector", 2, "standard"),
    ("deflector", 3, "3"),
    ("deflector", 4, "4-full"),
    ("deflector", 4, "4-partial"),
    ("deflector", 5, "5-full"),
    ("deflector", 5, "5-partial"),
    ("defector", 6, "full"),
    ("defector", 6, "island"),
]


def grids_of(state):
    return state.boards if hasattr(state, "boards") else state.grids


def invariant_problem(state) -> str | None:
    for g, grid in enumerate(grids_of(state)):
        union = 0
        for m in grid.held:
            if union & m:
                return f"grid {g}: a space with two holders"
            union |= m
        if cover_mask(grid.nodes) & ~union:
            return f"grid {g}: Node territory without a holder"
        for n, ctrl in zip(grid.nodes, grid.control, strict=True):
            if not (grid.held[ctrl] >> n) & 1:
                return f"grid {g}: a Node space not held by its controller"
        if grid.deflectors & grid.spent:
            return f"grid {g}: a spent Deflector still armed"
    return None


def leak_problem(module, state) -> str | None:
    players = 2 if hasattr(state, "boards") else state.players
    for p in range(players):
        v = module.view(state, p)
        for al, shown in zip(getattr(state, "alliances", ()), v.get("alliances", ()), strict=True):
            hidden = p not in al.members
            if hidden and (shown["master"] or any(t["link"] for t in shown["teams"])):
                return f"player {p} sees another alliance's Link or Master Node"
        for grid, shown in zip(grids_of(state), v["grids"], strict=True):
            known = grid.owner == p or (
                hasattr(state, "knows")
                and grid.owner is not None
                and (state.knows[p] >> grid.owner) & 1
            )
            if known:
                continue
            if "deflectors" in shown or parse_mask(shown["nodes"]) & ~grid.revealed:
                return f"player {p} sees a secret of grid owned by {grid.owner}"
            visible = grid.marked | grid.shaded
            if any(parse_mask(cells) & ~visible for cells in shown["held"]):
                return f"player {p} sees silent holdings"
    return None


def one_game(job: tuple[str, int, str, int, str, int]) -> dict:
    game, players, layout, seed, bot, max_plies = job
    module = MODULES[game]
    kwargs = {"seed": seed}
    if game != "reflector":
        kwargs.update(players=players, layout=layout, options=TableOptions(max_plies=max_plies))
    rng = random.Random(seed)
    t0 = time.perf_counter()
    state = start = module.new_game(**kwargs)
    actions = []
    problem = None
    diplomacy = Counter()
    while not state.is_over:
        action = choose(state, rng, bot)
        actions.append(action)
        state, events = module.apply(state, action)
        diplomacy.update(e.kind for e in events if e.kind in DIPLOMACY)
        problem = invariant_problem(state)
        if problem:
            break
    wall = time.perf_counter() - t0
    problem = problem or leak_problem(module, state)
    if not problem and module.from_json(json.loads(json.dumps(module.to_json(state)))) != state:
        problem = "JSON round-trip changed the state"
    replay_time = None
    if seed % 40 == 0 and not problem:  # the same-run baseline: replay without bots
        t1 = time.perf_counter()
        again = start
        for a in actions:
            again, _ = module.apply(again, a)
        replay_time = time.perf_counter() - t1
        if again != state:
            problem = "replay differs"
    reason = state.result.reason if state.result else "unfinished"
    return {
        "plies": state.ply,
        "wall": wall,
        "replay": replay_time,
        "end": _kind(reason),
        "problem": problem,
        "diplomacy": dict(diplomacy),
    }


DIPLOMACY = ("propose", "ally", "decline", "desert", "disband")


def _kind(reason: str) -> str:
    for key, label in (
        ("move limit", "move limit (draw)"),
        ("last player", "last standing"),
        ("true draw", "true draw"),
        ("both lost", "double loss, count"),
        ("lost all", "all Nodes captured"),
        ("every Node", "most Nodes at the end"),
        ("fewer than four", "most Nodes at the end"),
        ("controls", "Node count"),
        ("no player can", "stalemate (draw)"),
    ):
        if key in reason:
            return label
    return reason


def run(game, players, layout, games, workers, bot, max_plies, budget):
    jobs = [(game, players, layout, seed, bot, max_plies) for seed in range(games)]
    t0 = time.perf_counter()
    rows = []
    with mp.Pool(workers) as pool:
        for row in pool.imap_unordered(one_game, jobs, chunksize=4):
            rows.append(row)
            if budget and time.perf_counter() - t0 > budget:
                pool.terminate()
                break
    wall = time.perf_counter() - t0
    return rows, wall


def summarise(game, layout, rows, wall, bot):
    plies = sorted(r["plies"] for r in rows)
    ends = Counter(r["end"] for r in rows)
    problems = [r["problem"] for r in rows if r["problem"]]
    bot_time = sum(r["wall"] for r in rows)
    sample = [r for r in rows if r["replay"] is not None]
    ratio = (
        sum(r["wall"] for r in sample) / max(1e-9, sum(r["replay"] for r in sample))
        if sample
        else float("nan")
    )
    p95 = plies[int(0.95 * (len(plies) - 1))]
    return (
        f"| {game} | {layout} | {bot} | {len(rows)} | {wall:.0f} s | "
        f"{sum(plies) / max(bot_time, 1e-9):,.0f} | {ratio:.2f}x | "
        f"{statistics.median(plies):.0f} / {statistics.mean(plies):.0f} / {p95} / {plies[-1]} | "
        f"{', '.join(f'{k} {v}' for k, v in ends.most_common())} | {len(problems)} |"
    ), problems


HEADER = (
    "| game | layout | bots | games | wall | plies/s (per core) | self-play / replay "
    "| plies median / mean / p95 / max | endings | invariant failures |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--bot", choices=("random", "greedy"), default="greedy")
    ap.add_argument("--max-plies", type=int, default=4000)
    ap.add_argument("--budget", type=float, default=0, help="seconds per layout (0: none)")
    ap.add_argument("--only", action="append", default=[], help="GAME or GAME:LAYOUT")
    ap.add_argument("--out", help="append the Markdown table here too")
    args = ap.parse_args(argv)
    plan = [
        p for p in PLAN if not args.only or any(o in (p[0], f"{p[0]}:{p[2]}") for o in args.only)
    ]
    stamp = time.strftime("%Y-%m-%d %H:%M")
    print(f"python {platform.python_version()}, {mp.cpu_count()} cpus, {stamp}")
    print(HEADER)
    lines, failures = [], 0
    for game, players, layout in plan:
        rows, wall = run(
            game, players, layout, args.games, args.workers, args.bot, args.max_plies, args.budget
        )
        line, problems = summarise(game, layout, rows, wall, args.bot)
        failures += len(problems)
        for p in problems[:3]:
            print(f"  problem: {p}", file=sys.stderr)
        print(line, flush=True)
        lines.append(line)
        talk = Counter()
        for r in rows:
            talk.update(r["diplomacy"])
        if talk:
            print(f"  {game} {layout} alliance events: {dict(sorted(talk.items()))}", flush=True)
        if args.out:
            with open(args.out, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
