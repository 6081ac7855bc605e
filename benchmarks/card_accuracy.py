"""Accuracy of the card reader on a split of rendered phone photos.

    python benchmarks/card_accuracy.py --split test --photos 200 --jobs 2
    python benchmarks/card_accuracy.py --split print --photos 30
    python benchmarks/card_accuracy.py --split print-tune --photos 30   # its tuning twin
    python benchmarks/card_accuracy.py --split test --style alt --photos 100 --jobs 1

Runs the whole command path (JPEG file -> ``read_card`` -> ``card/1``) on every
photo and compares with the truth beside it. Reports per-cell error (``mark``
and ``shaded`` together; an ``unknown`` cell counts as an error in
``cell error`` and is also shown apart), exact grids, rejected photos.

Beside the strict figure, *grids exact where visible*: a shaded cell whose shading the
photo does not show (the renderer's ``shading_seen`` below
:data:`~piecebridge.synth.card.SEEN_VISIBLE`: its mean darkening in the final photo is
less than the paper's noise there) is judged on its mark only, its ``shaded`` read
either way; an unknown still counts. It says how much of the gap to the target is not
in the pixels; the strict figure stays the target. The truths get ``shading_seen`` on
first use (each photo rendered again, ``card_data.add_seen``); ``--no-seen`` skips it.

A third figure beside both, *grids exact where visible, faint marks excused*: also a mark
the photo shows faintly (the renderer's ``mark_seen`` below
:data:`~piecebridge.synth.card.MARK_VISIBLE`: its strokes darken the photo less than 99 %
of the marks the reader reads on bare paper) is judged on its shading only, its mark read
either way; a cell whose mark and shading are both hidden does not count. Such marks are
faint, not gone (on the classic tune sets the reader reads most of them right), so this
figure is an upper bound of what the pixels excuse, never the target (``add_mark_seen``:
each photo rendered again with its mark twins, once). On the alt style's pen-shaded cards
the noise is read on the ground under the mark, bare paper or a pen fill: a pen fill's
strokes are full ink, as dark as a mark's, and a mark drawn on them is not in the pixels
unless it stands out from them (``card_styles.pen_shaded``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from card_data import load_truth, match_views, rewrite_truth, style_photo_path, use_model
from piecebridge.vision import card as vc

from piecebridge.errors import UserError
from piecebridge.synth.card import MARK_VISIBLE, SEEN_VISIBLE, SPLITS, split_photo
from piecebridge.synth.card_styles import STYLES


def _code(cell: dict) -> str:
    return f"{cell['mark']}{'*' if cell['shaded'] else ''}"


def hidden_shading(truth_grid: dict) -> set[str]:
    """The shaded cells of a truth grid whose shading the photo does not show (empty
    when the truth does not say: an older truth is judged strictly).

    >>> sorted(hidden_shading({"cells": {}, "shading_seen": {"C7": 0.3, "D7": 4.0}}))
    ['C7']
    """
    return {c for c, v in truth_grid.get("shading_seen", {}).items() if v < SEEN_VISIBLE}


def hidden_marks(truth_grid: dict) -> set[str]:
    """The cells of a truth grid whose mark the photo does not show (empty when the truth
    does not say: an older truth is judged strictly).

    >>> sorted(hidden_marks({"cells": {}, "mark_seen": {"C7": 1.2, "D7": 14.0}}))
    ['C7']
    """
    return {c for c, v in truth_grid.get("mark_seen", {}).items() if v < MARK_VISIBLE}


def compare(got: dict, truth: dict) -> dict:
    """A ``card/1`` reading against its truth, grid by grid: cells ``wrong`` and
    ``unknown``, grids ``exact``, grids ``exact_seen`` (exact where visible: a cell whose
    shading the photo does not show, :func:`hidden_shading`, is judged on its mark only;
    an unknown still counts), the ``hidden`` cells and how many of them were read wrong
    or unknown (``hidden_bad``), the ``confusions`` and whether the truth said what is
    visible (``seen_known``); and ``exact_seen_marks``: exact where visible with faint
    marks excused too (a cell whose mark is faint, :func:`hidden_marks`, is judged on its
    shading only), the faint marks (``marks_hidden``), how many of them were read wrong
    or unknown (``marks_hidden_bad``) and whether the truth said (``marks_known``).

    >>> truth = {"grids": [{"cells": {"C7": {"mark": None, "shaded": True},
    ...                               "D7": {"mark": "x", "shaded": True}},
    ...                     "shading_seen": {"C7": 0.3, "D7": 5.0}}]}
    >>> got = {"grids": [{"cells": {"D7": {"mark": "x", "shaded": True}}}]}
    >>> r = compare(got, truth)  # C7's shading is not in the photo: read blank
    >>> r["wrong"], r["exact"], r["exact_seen"], r["hidden"], r["hidden_bad"]
    (1, 0, 1, 1, 1)
    """
    wrong = unknown = 0
    exact = exact_seen = hidden = hidden_bad = 0
    exact_seen_marks = marks_hidden = marks_hidden_bad = 0
    confusions = Counter()
    for g, t in zip(got["grids"], truth["grids"], strict=True):
        unk = set(g.get("unknown", []))
        unseen = hidden_shading(t)
        hidden += len(unseen)
        faint = hidden_marks(t)
        marks_hidden += len(faint)
        bad = bad_seen = bad_seen_marks = 0
        for r in range(1, 11):
            for c in "ABCDEFGHIJ":
                name = f"{c}{r}"
                w = t["cells"].get(name, {"mark": None, "shaded": False})
                if name in unk:
                    unknown += 1
                    bad += 1
                    bad_seen += 1
                    bad_seen_marks += 1
                    hidden_bad += name in unseen
                    marks_hidden_bad += name in faint
                    continue
                x = g["cells"].get(name, {"mark": None, "shaded": False})
                if (x["mark"], x["shaded"]) != (w["mark"], w["shaded"]):
                    wrong += 1
                    bad += 1
                    hidden_bad += name in unseen
                    marks_hidden_bad += name in faint
                    confusions[f"{_code(w)}->{_code(x)}"] += 1
                    # shading the photo does not show: judged on the mark alone
                    bad_seen += name not in unseen or x["mark"] != w["mark"]
                    # and with faint marks excused: a faint mark leaves the shading
                    mark_bad = x["mark"] != w["mark"] and name not in faint
                    shade_bad = x["shaded"] != w["shaded"] and name not in unseen
                    bad_seen_marks += mark_bad or shade_bad
        exact += bad == 0
        exact_seen += bad_seen == 0
        exact_seen_marks += bad_seen_marks == 0
    return {
        "wrong": wrong,
        "unknown": unknown,
        "exact": exact,
        "confusions": dict(confusions),
        "exact_seen": exact_seen,
        "hidden": hidden,
        "hidden_bad": hidden_bad,
        "seen_known": all("shading_seen" in t for t in truth["grids"]),
        "exact_seen_marks": exact_seen_marks,
        "marks_hidden": marks_hidden,
        "marks_hidden_bad": marks_hidden_bad,
        "marks_known": all("mark_seen" in t for t in truth["grids"]),
    }


def add_mark_seen(
    path: Path, split: str, index: int, size: tuple[int, int], style: str = "classic"
) -> Path:
    """Give the truth beside a cached photo its ``mark_seen`` (and ``shading_seen``),
    rendered again with ``split_photo(..., seen=True, marks_seen=True)``, which draws the
    very same photo (checked against the cached one), unless it has them; the truth file
    is rewritten atomically."""
    truth = load_truth(path)
    if not all("mark_seen" in g and "shading_seen" in g for g in truth["grids"]):
        rendered = split_photo(split, index, size, style=style, seen=True, marks_seen=True)
        rewrite_truth(path, rendered)
    return path


def evaluate(path: Path) -> dict:
    truth = load_truth(path)
    out = {"path": str(path), "grids": len(truth["grids"])}
    try:
        grey, scale = vc.load_photo(path)
        reading = vc.read_card(grey)
    except UserError as e:
        out["error"] = str(e)
        return out
    views = [g.view for g in reading.grids]
    if len(views) != len(truth["grids"]) or match_views(views, truth, scale) is None:
        out["error"] = "wrong grids or orientation"
        return out
    out.update(compare(reading.to_card1(), truth))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--split", default="test", choices=list(SPLITS))
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--photos", type=int, default=100)
    ap.add_argument("--size", default="2000x1500")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="write per-photo results here")
    ap.add_argument("--model", help="cell model (.npz) instead of the shipped one")
    ap.add_argument(
        "--no-seen",
        action="store_true",
        help="do not add shading_seen to the truths (no 'exact where visible' figure)",
    )
    ap.add_argument(
        "--style",
        default="classic",
        choices=["classic", *STYLES],
        help="hand and card: classic (the renderer the reader was tuned on) or one of "
        "piecebridge.synth.card_styles.STYLES (other pens, pencils and prints)",
    )
    a = ap.parse_args()
    use_model(a.model)
    size = tuple(int(v) for v in a.size.split("x"))
    seen = not a.no_seen
    todo = [(a.split, i, size, a.style, seen) for i in range(a.start, a.start + a.photos)]
    t0 = time.time()
    with Pool(a.jobs, initializer=use_model, initargs=(a.model,)) as pool:  # spawn-safe
        paths = pool.starmap(style_photo_path, todo, chunksize=1)  # renders what is not cached
        if seen:  # marks the photo does not show
            indices = [i for _, i, *_ in todo]
            marked = [(p, a.split, i, size, a.style) for p, i in zip(paths, indices, strict=True)]
            paths = pool.starmap(add_mark_seen, marked, chunksize=1)
        results = pool.map(evaluate, paths, chunksize=1)
    cells = sum(100 * r["grids"] for r in results)
    grids = sum(r["grids"] for r in results)
    failed = [r for r in results if "error" in r]
    wrong = sum(r.get("wrong", 0) for r in results) + sum(100 * r["grids"] for r in failed)
    unknown = sum(r.get("unknown", 0) for r in results)
    exact = sum(r.get("exact", 0) for r in results)
    conf = Counter()
    for r in results:
        conf.update(r.get("confusions", {}))
    print(f"split {a.split} ({a.style}) photos {a.start}..{a.start + a.photos - 1} at {a.size}")
    print(f"photos rejected or misread: {len(failed)} of {len(results)}")
    for r in failed:
        print(f"  {r['path']}: {r['error']}")
    print(f"cell error (wrong + unknown): {(wrong + unknown) / cells:.3%} of {cells} cells")
    print(f"  wrong answers: {wrong / cells:.3%}; unknown: {unknown / cells:.3%}")
    print(f"grids read exactly: {exact / grids:.1%} ({exact} of {grids})")
    if all(r.get("seen_known", "error" in r) for r in results) and seen:
        exact_seen = sum(r.get("exact_seen", 0) for r in results)
        hidden = sum(r.get("hidden", 0) for r in results)
        hidden_bad = sum(r.get("hidden_bad", 0) for r in results)
        print(
            f"grids read exactly where visible: {exact_seen / grids:.1%} ({exact_seen} of "
            f"{grids}; {hidden} shaded cells show their shading under {SEEN_VISIBLE} x the "
            f"paper's noise, judged on their mark only; {hidden_bad} of them read wrong or "
            "unknown strictly)"
        )
    if all(r.get("marks_known", "error" in r) for r in results) and seen:
        exact_marks = sum(r.get("exact_seen_marks", 0) for r in results)
        faint = sum(r.get("marks_hidden", 0) for r in results)
        faint_bad = sum(r.get("marks_hidden_bad", 0) for r in results)
        print(
            f"  ... and faint marks excused too: {exact_marks / grids:.1%} ({exact_marks} of "
            f"{grids}; {faint} marks show under {MARK_VISIBLE} x the paper's noise (a pen "
            f"fill's, on it), judged on their shading only; {faint_bad} of them read wrong or "
            "unknown strictly: "
            "faint, not gone, so an upper bound, never the target)"
        )
    print(f"top confusions (truth->read): {conf.most_common(12)}")
    worst = sorted(results, key=lambda r: -(r.get("wrong", 100) + r.get("unknown", 0)))[:5]
    print(
        "worst photos:", [(Path(r["path"]).name, r.get("wrong"), r.get("unknown")) for r in worst]
    )
    print(f"{time.time() - t0:.0f}s")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
