"""Training grids for the cell network from photos the *old* renderer drew (renderer 1).

    PIECEBRIDGE_CARD_CACHE=out/card2/cache python benchmarks/card_turned.py --photos 1100
    python benchmarks/card_train.py \
        --train-data out/card2/cache/net_tune_0_1099_2000x1500_r1turned.npz ...

Renderer 2 (``synth.card.RENDER_VERSION``) draws the same photos as renderer 1 but
for the x and plus marks that leaned past ``MAX_LEAN_DEG``: it turns those back,
with the same random draws. So renderer 1's rectified grids of the tuning photos
are renderer 2's minus those cells. This finds them (each card's draws replayed
with drawing switched off, a fraction of a render), computes the network's inputs
again from renderer 1's cached rectified grids (``out/card/tune_2000x1500/``,
so new scalars come with them) and writes training grids for ``card_train.py
--train-data`` (named ``..._r1turned``, never the name of renderer 2's own cache),
with those cells' mark labels set to -100 (left out of the mark loss;
their shading still counts). It saves re-rendering every photo (~2.7 CPU-s each).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from card_data import CACHE, ROOT
from piecebridge.vision import card_cells as cc

from piecebridge.synth import card as synth

OLD = ROOT / "out" / "card" / "tune_2000x1500"  # renderer 1's photos and grids


def turned_cells(index: int) -> list[tuple[int, int]]:
    """``(grid, cell)`` of tuning photo ``index`` whose x or plus renderer 2 turns back."""
    calls: list[list] = []
    contents: dict = {}
    saved = (synth._draw_cross, synth._draw_mark, synth._Canvas.stroke_with, synth.random_contents)

    def cross(canvas, mark, strokes, centre, pencil):
        leans = [abs(synth.lean_deg(synth.stroke_angle(p), mark)) for p, _ in strokes]
        calls[-1][1] = max(leans) > synth.MAX_LEAN_DEG

    def draw_mark(canvas, mark, centre, pencil, rng):
        calls.append([tuple(np.floor(centre).astype(int)), False])
        return saved[1](canvas, mark, centre, pencil, rng)

    def contents_of(rng, n):
        contents["grids"] = saved[3](rng, n)
        return contents["grids"]

    synth._draw_cross, synth._draw_mark = cross, draw_mark
    synth._Canvas.stroke_with = lambda self, *a, **k: None  # no drawing: the draws only
    synth.random_contents = contents_of
    try:
        synth.render_card(np.random.default_rng([synth.SPLITS["tune"], index]))
    finally:
        synth._draw_cross, synth._draw_mark, synth._Canvas.stroke_with = saved[:3]
        synth.random_contents = saved[3]
    out, k = [], 0
    for g, cells in enumerate(contents["grids"]):  # render_card draws in this order
        for name in sorted(cells):
            spec = cells[name]
            if spec.get("erased") or spec.get("mark"):
                (col, row), turned = calls[k]
                k += 1
                assert (col, row) == ("ABCDEFGHIJ".index(name[0]), int(name[1:]) - 1)
                if turned and not spec.get("erased"):
                    out.append((g, int(row * 10 + col)))
    assert k == len(calls)
    return out


def labelled_grids(index: int, rects, marks, shaded) -> tuple[list[tuple], int]:
    """Tuning photo ``index``'s grids as training rows ``(maps uint8 (2, H, W), scalars,
    marks, shaded)``, each x or plus renderer 2 turned back left out of the marks (-100),
    and how many were left out."""
    turned = turned_cells(index)
    rows, left_out = [], 0
    for g, rect in enumerate(rects):
        mp, sc = cc.cell_maps(rect)
        maps = np.stack([mp[0] * 255, mp[1] * 170]).round().clip(0, 255).astype(np.uint8)
        mk = marks[g].copy()
        for tg, cell in turned:
            if tg == g:
                assert mk[cell] in (2, 5)  # an x or a plus
                mk[cell] = -100
                left_out += 1
        rows.append((maps, sc, mk, shaded[g]))
    return rows, left_out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--photos", type=int, default=1100, help="tuning photos 0..N-1")
    a = ap.parse_args()
    maps, scalars, mark, shaded = [], [], [], []
    left_out = 0
    for i in range(a.photos):
        d = np.load(OLD / f"tune_{i:05d}.rects.npz")
        if "error" in d:
            print(f"  skipped tune {i}: {d['error']}")
            continue
        rows, n = labelled_grids(i, d["rects"], d["mark"], d["shaded"])
        left_out += n
        for m, sc, mk, sh in rows:
            maps.append(m)
            scalars.append(sc)
            mark.append(mk)
            shaded.append(sh)
        if i % 100 == 0:
            print(f"  photo {i}: {left_out} marks left out so far", flush=True)
    name = f"net_tune_0_{a.photos - 1}_2000x1500_r1turned.npz"
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = CACHE / f"{name}.{os.getpid()}.tmp.npz"
    np.savez(
        tmp,
        maps=np.stack(maps),
        scalars=np.stack(scalars).astype(np.float32),
        mark=np.stack(mark).astype(np.int64),
        shaded=np.stack(shaded).astype(np.float32),
    )
    os.replace(tmp, CACHE / name)
    print(f"{CACHE / name}: {len(mark)} grids, {left_out} marks left out of the mark loss")


if __name__ == "__main__":
    main()
