"""Train the card cell classifier on the *tuning* split only, and tune its threshold.

    python benchmarks/card_train.py --photos 1400 --val 200 --jobs 2

The first ``photos - val`` tuning photos train the network (each grid also
shifted by a pixel or two, so small lattice errors are learnt, and mirrored left
to right, which keeps every class); the last ``val`` (still tuning split, never
the held-out ``test`` split) choose the confidence threshold below which a cell
is reported ``unknown``. Writes ``vision/card_cells_model.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from card_data import CACHE, features_from_rects, photo_path, rects_of
from piecebridge.vision import card_cells as cc

#: variants of every training grid: (dy, dx, mirrored) — shifts teach small lattice
#: errors; a left-right mirror keeps every class (no X turns into a plus)
SHIFTS = ((0, 0, False), (2, -1, True), (-1, 2, False))


FEATURE_CACHE = CACHE / "features"


def _cached(i, size, shifts, tag):
    """Features of one photo, cached per photo (so adding photos re-extracts only them)."""
    FEATURE_CACHE.mkdir(parents=True, exist_ok=True)
    f = FEATURE_CACHE / f"tune_{i:05d}_{size[0]}x{size[1]}_{tag}_{cc.N_FEATURES}_v3.npz"
    if f.exists():
        d = np.load(f, allow_pickle=False)
        if "error" in d:
            return {"path": str(f), "error": str(d["error"])}
        return {"path": str(f), "x": d["x"], "mark": d["mark"], "shaded": d["shaded"]}
    item = rects_of(photo_path("tune", i, size))
    if "error" not in item:
        item = features_from_rects(item, shifts)
    if "error" in item:
        np.savez(f, error=item["error"])
    else:
        np.savez(f, x=item["x"], mark=item["mark"], shaded=item["shaded"])
    return item


def _train_item(args):
    i, size = args
    return _cached(i, size, SHIFTS, "train")


def _val_item(args):
    i, size = args
    return _cached(i, size, ((0, 0),), "val")


def collect(indices, size, jobs, fn):
    with Pool(jobs) as pool:
        items = pool.map(fn, [(i, size) for i in indices], chunksize=2)
    bad = [it for it in items if "error" in it]
    for it in bad:
        print(f"  skipped {it['path']}: {it['error']}")
    good = [it for it in items if "error" not in it]
    return (
        np.concatenate([it["x"] for it in good]),
        np.concatenate([it["mark"] for it in good]),
        np.concatenate([it["shaded"] for it in good]),
    )


def choose_threshold(clf, x, mark, shaded) -> tuple[float, dict]:
    """The threshold minimising ``wrong + unknown / 4`` on the validation photos: an
    ``unknown`` (the player is asked) costs a quarter of a wrong answer (misled)."""
    pm, ps = clf.predict(x)
    k = pm.argmax(1)
    conf = pm.max(1) * np.maximum(ps, 1 - ps)
    wrong = (k != mark) | ((ps > 0.5) != (shaded > 0.5))
    report = {}
    for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95):
        sure = conf >= t
        w = float((wrong & sure).mean())
        u = float((~sure).mean())
        report[t] = (w, u)
        print(f"  threshold {t:.2f}: wrong {w:.4%}  unknown {u:.4%}")
    chosen = min(report, key=lambda t: report[t][0] + report[t][1] / 4)
    return chosen, {"val_wrong_at_0.5": float(np.mean(wrong)), "val_at_threshold": report[chosen]}


_DATA: tuple | None = None


def _fit(seed: int) -> cc.CellClassifier:
    x, m, s, a = _DATA
    t0 = time.time()

    def log(msg):
        print(f"net {seed}: {msg} ({time.time() - t0:.0f}s)", flush=True)

    return cc.train(
        x,
        m,
        s,
        epochs=a.epochs,
        hidden=a.hidden,
        lr=a.lr,
        weight_decay=a.weight_decay,
        seed=seed,
        batch=a.batch,
        log=log,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--photos", type=int, default=1400)
    ap.add_argument("--val", type=int, default=200, help="last photos: threshold only")
    ap.add_argument("--extract-only", action="store_true", help="fill the feature cache")
    ap.add_argument("--size", default="2000x1500")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--hidden", type=int, default=96)
    ap.add_argument("--weight-decay", type=float, default=5e-4)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seeds", type=int, default=1, help="nets in the ensemble")
    ap.add_argument("--features", help="cache the extracted features in this .npz")
    ap.add_argument("--out", default=str(cc.MODEL_PATH))
    a = ap.parse_args()
    size = tuple(int(v) for v in a.size.split("x"))
    n_train = a.photos - a.val
    t0 = time.time()
    cache = Path(a.features) if a.features else None
    if cache and cache.exists():
        d = np.load(cache)
        x, m, s, xv, mv, sv = (d[k] for k in ("x", "m", "s", "xv", "mv", "sv"))
    else:
        x, m, s = collect(range(n_train), size, a.jobs, _train_item)
        xv, mv, sv = collect(range(n_train, a.photos), size, a.jobs, _val_item)
        if a.extract_only:
            return
        if cache:
            np.savez(cache, x=x, m=m, s=s, xv=xv, mv=mv, sv=sv)
    print(f"features: {len(x)} train cells, {len(xv)} validation cells ({time.time() - t0:.0f}s)")
    global _DATA
    _DATA = (x, m, s, a)
    if a.seeds > 1 and a.jobs > 1:
        # forked workers share the feature matrix (copy-on-write)
        with Pool(min(a.jobs, a.seeds)) as pool:
            nets = pool.map(_fit, range(a.seeds))
    else:
        nets = [_fit(k) for k in range(a.seeds)]
    clf = nets[0] if a.seeds == 1 else cc.Ensemble(nets)
    thr, info = choose_threshold(clf, xv, mv, sv)
    clf.min_confidence = thr
    clf.info = {
        "trained_on": f"tune split photos 0..{n_train - 1} at {a.size}, shifts {SHIFTS}",
        "threshold_from": f"tune split photos {n_train}..{a.photos - 1}",
        **info,
    }
    clf.save(a.out)
    print(f"saved {a.out} (min_confidence {thr}); {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
