"""How far the reader's cell lattice is from the printed cell lines, and what it costs.

    python benchmarks/card_lattice.py --split tune --start 1100 --photos 100
    python benchmarks/card_lattice.py --split tune --style alt --photos 60 --sheet /tmp/sheet.png

The renderer knows where every printed line crossing lands in the photo (print
tilt, curl, card placement, camera and lens); :func:`true_lattices` replays a
split photo's random draws up to the camera and projects the 11x11 crossings of
each grid. For every photo the reader runs as ``read_card`` does; then

* the lattice error: each crossing's distance from the true one, in cells;
* the cells read wrong or unknown, and the same grids read again through the
  *true* lattice (same classifier): the errors that go away are the lattice's,
  the ones that stay are the network's judgement of a well-placed patch.

``--sheet`` saves a PNG of error cells cut from the photo, the reader's lattice
drawn in green and the true one in red.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from card_data import load_truth, match_views, style_photo_path, use_model
from piecebridge.vision import card as vc
from piecebridge.vision import card_cells as cc

from piecebridge.errors import UserError
from piecebridge.synth import card as synth_card


class _Stop(Exception):
    pass


def true_lattices(split: str, index: int, size=(2000, 1500), style: str = "classic"):
    """The 11x11 printed line crossings (photo pixels, (x, y)) of every grid of a split
    photo, upright and in the truth's order: ``[i, j]`` = horizontal line ``i``, vertical
    line ``j`` (as :class:`piecebridge.vision.card.GridView.lattice`)."""
    rec: dict = {}
    orig_world = synth_card._compose_world

    def world(card, m_mm, cam, rng):
        rec.update(card=card, m_mm=m_mm, cam=cam)
        raise _Stop

    synth_card._compose_world = world
    try:
        if style == "classic":
            synth_card.split_photo(split, index, size)
        else:
            from piecebridge.synth import card_styles

            card_styles.split_photo(split, index, size, style)
    except _Stop:
        pass
    finally:
        synth_card._compose_world = orig_world
    card, ppm = rec["card"], rec["card"].px_per_mm
    layout = card.layout
    out = []
    for gx, gy in layout.grid_origins:
        k = np.arange(11) * layout.cell_mm
        px, py = np.meshgrid(gx + k, gy + k)  # [i, j]: y from row line i, x from column j
        pts = np.stack([px.ravel(), py.ravel()], 1) @ layout.transform()[:, :2].T
        pts = (pts + layout.transform()[:, 2]) * ppm
        if card.curl is not None:  # the renderer bent the card: so are its lines
            pts = card.curl.bend(pts)
        mm = pts / ppm @ rec["m_mm"][:, :2].T + rec["m_mm"][:, 2]
        out.append(rec["cam"].project(mm).reshape(11, 11, 2))
    return out


def _truth_cached(path: Path, split: str, index: int, size, style: str) -> list[np.ndarray]:
    cache = path.with_suffix(".lattice.npy")
    if cache.exists():
        return list(np.load(cache))
    lats = true_lattices(split, index, size, style)
    np.save(cache, np.stack(lats))
    return lats


def cell_errors(reading_grid: dict, truth_grid: dict) -> np.ndarray:
    """(10, 10) codes: 0 right, 1 wrong, 2 unknown (row-major, A1 at [0, 0])."""
    codes = np.zeros((10, 10), int)
    unk = set(reading_grid.get("unknown", []))
    blank = {"mark": None, "shaded": False}
    for r in range(10):
        for c in range(10):
            name = f"{'ABCDEFGHIJ'[c]}{r + 1}"
            if name in unk:
                codes[r, c] = 2
                continue
            x = reading_grid["cells"].get(name, blank)
            t = truth_grid["cells"].get(name, blank)
            codes[r, c] = (x["mark"], x["shaded"]) != (t["mark"], t["shaded"])
    return codes


def lattice_error_cells(lat: np.ndarray, true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per crossing (11, 11) and per cell (10, 10, the worst of its 4 corners) distance
    of ``lat`` from ``true``, in cells (the local cell size of the true lattice)."""
    size = np.median(np.linalg.norm(np.diff(true, axis=1), axis=-1))
    d = np.linalg.norm(lat - true, axis=-1) / size
    per_cell = np.max([d[:-1, :-1], d[:-1, 1:], d[1:, :-1], d[1:, 1:]], axis=0)
    return d, per_cell


def _read_grid(grey, lattice, clf) -> dict:
    rect = vc.remap_grid(grey, lattice)
    cells, unknown = cc.classify_grid(rect, clf)
    view = vc.GridView(lattice, rect)
    return vc.GridReading(view, cells, unknown).to_json()


def _views(path: Path, read_cells: bool):
    """``(out, truth, grey, scale, reading_or_views, matched)``; ``out`` holds an
    ``"error"`` when the photo is rejected or its grids are not where and how they are."""
    truth = load_truth(path)
    out: dict = {"path": str(path)}
    grey, scale = vc.load_photo(path)
    try:
        if read_cells:
            got = vc.read_card(grey)
            views = [g.view for g in got.grids]
        else:  # find, refine and orient as read_card does, without reading cells
            refined = [vc.refine_lattice(grey, q, with_response=True) for q in vc.find_grids(grey)]
            views = got = vc.orient_grids(grey, [r[0] for r in refined], [r[1] for r in refined])
    except UserError as e:
        out["error"] = str(e)
        return out, truth, grey, scale, None, None
    matched = match_views(views, truth, scale)
    if matched is None or len(views) != len(truth["grids"]):
        out["error"] = "wrong grids or orientation"
    return out, truth, grey, scale, got, matched


def analyse(path: Path, split: str, index: int, size, style: str) -> dict:
    out, truth, grey, scale, reading, matched = _views(path, read_cells=True)
    out["index"] = index
    if "error" in out:
        return out
    views = [g.view for g in reading.grids]
    trues = _truth_cached(path, split, index, size, style)
    clf = cc.default_classifier()
    got = reading.to_card1()
    grids = []
    for g, j in enumerate(matched):
        true = trues[j] * scale
        cross, per_cell = lattice_error_cells(views[g].lattice, true)
        codes = cell_errors(got["grids"][g], truth["grids"][j])
        codes_true = cell_errors(_read_grid(grey, true, clf), truth["grids"][j])
        grids.append(
            {
                "truth_index": j,
                "cross_err": cross.round(4).tolist(),
                "cell_err": per_cell.round(4).tolist(),
                "codes": codes.tolist(),
                "codes_true_lattice": codes_true.tolist(),
                "lattice": views[g].lattice.round(2).tolist(),
                "true": true.round(2).tolist(),
            }
        )
    out["grids"] = grids
    return out


def lattice_only(path: Path, split: str, index: int, size, style: str) -> dict:
    """The lattice error alone (no cells read)."""
    out, _, _, scale, views, matched = _views(path, read_cells=False)
    out["index"] = index
    if "error" in out:
        return out
    trues = _truth_cached(path, split, index, size, style)
    out["cross_err"] = [
        lattice_error_cells(views[g].lattice, trues[j] * scale)[0].round(4).tolist()
        for g, j in enumerate(matched)
    ]
    return out


def summarise_lattice(results: list[dict]) -> None:
    failed = [r for r in results if "error" in r]
    print(f"photos {len(results)}, failed {len(failed)}: {[Path(r['path']).name for r in failed]}")
    errs = [np.array(e) for r in results for e in r.get("cross_err", [])]
    if not errs:
        print("no grid was read: nothing to measure")
        return
    cross = np.concatenate([e.ravel() for e in errs])
    worst = np.array([e.max() for e in errs])
    q = [50, 90, 99, 100]
    print(f"crossing error (cells) percentiles {q}: {np.percentile(cross, q).round(3)}")
    print(f"worst crossing per grid, percentiles {q}: {np.percentile(worst, q).round(3)}")
    print(
        "grids with a crossing over 0.1 / 0.2 / 0.4 cell off: "
        f"{(worst > 0.1).sum()} / {(worst > 0.2).sum()} / {(worst > 0.4).sum()} of {len(worst)}"
    )
    names = [
        (float(e.max()), Path(r["path"]).stem[-5:], k)
        for r in results
        for k, e in enumerate(np.array(x) for x in r.get("cross_err", []))
    ]
    print("worst grids:", [(round(e, 3), n, k) for e, n, k in sorted(names, reverse=True)[:10]])


def summarise(results: list[dict]) -> None:
    grids = [g for r in results for g in r.get("grids", [])]
    failed = [r for r in results if "error" in r]
    print(f"photos {len(results)}, failed {len(failed)}: {[Path(r['path']).name for r in failed]}")
    if not grids:
        print("no grid was read: nothing to measure")
        return
    cross = np.concatenate([np.ravel(g["cross_err"]) for g in grids])
    cell = np.concatenate([np.ravel(g["cell_err"]) for g in grids])
    codes = np.concatenate([np.ravel(g["codes"]) for g in grids])
    codes_t = np.concatenate([np.ravel(g["codes_true_lattice"]) for g in grids])
    per_grid = np.array([np.max(g["cross_err"]) for g in grids])
    q = [50, 90, 99, 100]
    print(f"crossing error (cells) percentiles {q}: {np.percentile(cross, q).round(3)}")
    print(f"worst crossing per grid, percentiles {q}: {np.percentile(per_grid, q).round(3)}")
    for name, c in (("reader's lattice", codes), ("true lattice", codes_t)):
        ex = sum(int(np.max(g) == 0) for g in (c.reshape(-1, 100)))
        print(
            f"{name}: wrong {np.mean(c == 1):.3%} unknown {np.mean(c == 2):.3%} "
            f"exact {ex / len(grids):.1%} ({ex} of {len(grids)})"
        )
    bad, bad_t = codes > 0, codes_t > 0
    print(
        f"error cells {bad.sum()}: also wrong/unknown through the true lattice "
        f"{np.sum(bad & bad_t)}, right there {np.sum(bad & ~bad_t)}; "
        f"new errors there {np.sum(~bad & bad_t)}"
    )
    for lo, hi in ((0, 0.05), (0.05, 0.1), (0.1, 0.15), (0.15, 0.25), (0.25, 99)):
        sel = (cell >= lo) & (cell < hi)
        print(
            f"  cells with worst corner {lo:.2f}-{hi:.2f} cell off: {sel.sum():6d}, "
            f"error rate {bad[sel].mean() if sel.any() else 0:.3%}, "
            f"through true lattice {bad_t[sel].mean() if sel.any() else 0:.3%}"
        )
    print(f"error cells' worst corner, percentiles {q}: {np.percentile(cell[bad], q).round(3)}")
    print(f"all cells' worst corner, percentiles {q}: {np.percentile(cell, q).round(3)}")
    worst = sorted(
        (
            (np.max(g["cross_err"]), Path(r["path"]).name, g["truth_index"])
            for r in results
            for g in r.get("grids", [])
        ),
        reverse=True,
    )[:8]
    print("worst grids:", [(round(float(e), 3), p, j) for e, p, j in worst])


def sheet(results: list[dict], out: Path, n: int = 12, zoom: int = 4) -> None:
    """Error cells cut from the photos, reader's lattice green, true red."""
    items = []
    for r in results:
        for g in r.get("grids", []):
            codes, err = np.array(g["codes"]), np.array(g["cell_err"])
            for rr, c in zip(*np.nonzero(codes), strict=True):
                items.append((float(err[rr, c]), r["path"], g, int(rr), int(c)))
    items.sort(key=lambda t: -t[0])
    # the worst-placed half and a spread of the rest
    pick = (
        items[: n // 2]
        + items[n // 2 :: max(1, (len(items) - n // 2) // (n - n // 2))][: n - n // 2]
    )
    if not pick:
        print("no error cells: no sheet written")
        return
    tiles = []
    for e, path, g, rr, c in pick:
        grey, _ = vc.load_photo(path)
        lat, true = np.array(g["lattice"]), np.array(g["true"])
        # two cells wide about the true cell's centre, whatever the reader's lattice did
        centre = true[rr : rr + 2, c : c + 2].reshape(-1, 2).mean(0)
        size = np.linalg.norm(true[rr, c + 1] - true[rr, c])
        x0, y0 = (centre - 1.0 * size).astype(int)
        x1, y1 = (centre + 1.0 * size).astype(int)
        crop = cv2.cvtColor(grey[max(y0, 0) : y1, max(x0, 0) : x1], cv2.COLOR_GRAY2BGR)
        crop = cv2.resize(crop, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
        off = np.array([max(x0, 0), max(y0, 0)])
        for pts, col in ((true, (0, 0, 255)), (lat, (0, 200, 0))):
            p = ((pts - off) * zoom * 16).round().astype(np.int32)
            lines = [p[i, max(c - 1, 0) : c + 3] for i in range(max(rr - 1, 0), min(rr + 3, 11))]
            lines += [p[max(rr - 1, 0) : rr + 3, j] for j in range(max(c - 1, 0), min(c + 3, 11))]
            lines = [np.ascontiguousarray(line) for line in lines]
            cv2.polylines(crop, lines, False, col, 1, cv2.LINE_AA, 4)
        code = "wrong" if g["codes"][rr][c] == 1 else "unknown"
        tc = g["codes_true_lattice"][rr][c]
        label = f"{Path(path).stem[-4:]} g{g['truth_index']} {'ABCDEFGHIJ'[c]}{rr + 1} {code} "
        label += f"off {e:.2f} true:{'ok' if tc == 0 else 'bad'}"
        crop = cv2.resize(crop, (240, 240))
        cv2.putText(crop, label, (2, 12), cv2.FONT_HERSHEY_PLAIN, 0.8, (255, 0, 0), 1)
        tiles.append(crop)
    while len(tiles) % 4:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[k : k + 4]) for k in range(0, len(tiles), 4)]
    cv2.imwrite(str(out), np.vstack(rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--split", default="tune", choices=["tune"])  # choices are made on tune
    ap.add_argument("--start", type=int, default=1100)
    ap.add_argument("--photos", type=int, default=100)
    ap.add_argument("--size", default="2000x1500")
    ap.add_argument("--style", default="classic")
    ap.add_argument("--model")
    ap.add_argument("--json")
    ap.add_argument("--from-json", help="summarise a saved --json run instead of reading")
    ap.add_argument("--sheet", help="PNG of error cells with both lattices drawn")
    ap.add_argument(
        "--lattice-only",
        action="store_true",
        help="measure the lattice alone (no cells read; a few times faster)",
    )
    a = ap.parse_args()
    use_model(a.model)
    size = tuple(int(v) for v in a.size.split("x"))
    t0 = time.time()
    if a.lattice_only:
        results = [
            lattice_only(style_photo_path(a.split, i, size, a.style), a.split, i, size, a.style)
            for i in range(a.start, a.start + a.photos)
        ]
        summarise_lattice(results)
        if a.json:
            Path(a.json).write_text(json.dumps(results))
        print(f"{time.time() - t0:.0f}s")
        return
    if a.from_json:
        results = json.loads(Path(a.from_json).read_text())
    else:
        results = []
        for i in range(a.start, a.start + a.photos):
            path = style_photo_path(a.split, i, size, a.style)
            results.append(analyse(path, a.split, i, size, a.style))
    summarise(results)
    if a.json:
        Path(a.json).write_text(json.dumps(results))
    if a.sheet:
        sheet(results, Path(a.sheet))
    print(f"{time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
