"""Benchmark: finding the Reflec board (localisation and pose) on rendered photos.

Renders shots of the fixture renderer's splits (``piecebridge.synth.reflec``, the same split
seeds and rig/shot numbering as ``benchmarks/vision_reflec.py``) and runs
``piecebridge.vision.locate.find_board`` on each 1920x1080 frame, from scratch, on one core.

    python benchmarks/vision_locate.py --split tune --rigs 8             # realistic mix
    python benchmarks/vision_locate.py --split test --rigs 25 --sweep    # + one row per cause
    python benchmarks/vision_locate.py --split test --rigs 25 --sweep --out RESULTS.md
    python benchmarks/vision_locate.py --split tune --rigs 35 --thorough  # calibration: thorough
    python benchmarks/vision_locate.py --split tune --rigs 15 --first-rig 10 --art acrylic

Per group of frames it reports:

* ``found``     the board was located (no ``BoardNotFound``);
* ``placed``    found and every corner within 0.25 cell of the renderer's ground truth
  (the projection of the outer corners of the corner tiles, any quarter turn: north is not
  decided here); a found board outside that is counted ``misplaced`` (a wrong answer);
* corner error, median and 90th percentile over found boards, in pixels and in cells;
* time per frame (median, ms) and, measured in the same run on the same frames, the time of a
  ``cv2.warpPerspective`` of the frame to a 512x512 board (the baseline of the speed targets).

Groups: the realistic mix split into calibration photos and game shots (and, within shots,
those with a hand over the board); with ``--sweep`` one row per difficulty factor at a hard
level (other factors at the renderer's mild baseline); with ``--negatives`` photos that must
be rejected (no board, board cut off by the frame edge).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from machine import describe
from piecebridge.calibration.geometry import cell_centre, closest_turns
from piecebridge.vision.locate import BoardNotFound, check_lock, find_board

#: Hard level per difficulty factor (as benchmarks/vision_reflec.py sweeps them).
SWEEP = (("tilt", 1.0), ("lens", 1.0), ("blur", 0.8), ("light", 1.0), ("occlusion", 0.8),
         ("noise", 1.0), ("glare", 1.0), ("clutter", 1.0))  # fmt: skip
PLACED_CELLS = 0.25  # a corner further than this from the truth: the board is misplaced


# --------------------------------------------------------------------------- images


def _load_or_render(stem: Path, render) -> tuple[np.ndarray, dict]:
    png, js = Path(f"{stem}.png"), Path(f"{stem}.json")
    if png.exists() and js.exists():
        return cv2.imread(str(png)), json.loads(js.read_text())
    shot = render()
    cv2.imwrite(str(png), shot.image)
    js.write_text(json.dumps(shot.truth))
    return shot.image, shot.truth


def rig_frames(split: str, rig: int, difficulty: str, cache: Path, art: str | None = None):
    """[(kind, image, truth)] for one rig: its calibration photo, then its shots; ``art``
    forces that piece art (default: the split's own mix).

    Same seeds and cache names as ``benchmarks/vision_reflec.py`` (a shared cache works).
    """
    from vision_reflec import image_tag

    from piecebridge.synth.reflec import SHOTS_PER_RIG, Difficulty, calibration_sample, sample

    diff = Difficulty.parse(difficulty)
    tag = image_tag(split, rig, difficulty, art)
    render_cal = lambda: calibration_sample(split, rig, diff, art=art)  # noqa: E731
    out = [("cal", *_load_or_render(cache / f"{tag}-cal", render_cal))]
    for s in range(SHOTS_PER_RIG):
        i = rig * SHOTS_PER_RIG + s
        render = lambda i=i: sample(split, i, diff, art=art)  # noqa: E731
        out.append(("shot", *_load_or_render(cache / f"{tag}-s{s}", render)))
    return out


def negative_frames(split: str, count: int, cache: Path):
    """[(kind, image, truth)] photos with no board, or with the board cut off."""
    from piecebridge.synth.reflec import negative_sample

    out = []
    for kind in ("no-board", "cut-off"):
        for i in range(count):
            stem = cache / f"{split}-neg-{kind}-{i:03d}"
            out.append(
                (kind, *_load_or_render(stem, lambda i=i, k=kind: negative_sample(split, i, k)))
            )
    return out


# --------------------------------------------------------------------------- scoring


def corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance (px) under the best quarter turn of the found corners."""
    return float(
        min(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max() for k in range(4))
    )


def centre_error(pose, synth: dict) -> float:
    """Worst cell-centre distance (px) over the cells no hand covers, north as the truth's."""
    truth = np.asarray(synth["board_corners_px"], float)
    turned = pose.rotated(closest_turns(pose.H, truth))
    seen = [c for c in synth["cell_centers_px"] if c not in synth["occluded_cells"]]
    found = turned.to_image(np.array([cell_centre(c) for c in seen]))
    want = np.array([synth["cell_centers_px"][c] for c in seen])
    return float(np.linalg.norm(found - want, axis=1).max())


def truth_cell_px(truth: np.ndarray) -> float:
    return float(np.linalg.norm(np.roll(truth, -1, axis=0) - truth, axis=1).mean() / 8)


@dataclass
class Result:
    """One frame: found or not, corner error, time, the same-run warp baseline."""

    found: bool
    placed: bool
    err_px: float
    err_cells: float
    centre_cells: float  # worst cell centre (cells the hand leaves in view), in cells
    ms: float
    warp_ms: float
    note: str = ""


@dataclass
class Tally:
    results: list[Result] = field(default_factory=list)

    def row(self, name: str) -> str:
        res = self.results
        found = [r for r in res if r.found]
        px = [r.err_px for r in found]
        cells = [r.err_cells for r in found]
        centres = [r.centre_cells for r in found]

        def q(v, p, fmt):
            return format(float(np.percentile(v, p)), fmt) if v else "-"

        med = statistics.median(r.ms for r in res) if res else float("nan")
        warps = [r.warp_ms for r in res if not np.isnan(r.warp_ms)]
        ratio = f"{med / statistics.median(warps):.1f}x" if warps else "-"
        placed = sum(r.placed for r in res)
        wrong = sum(r.found and not r.placed for r in res)
        return (
            f"| {name} | {len(res)} | {len(found)} | {placed} | {wrong}"
            f" | {q(px, 50, '.1f')} / {q(px, 90, '.1f')}"
            f" | {q(cells, 50, '.3f')} / {q(cells, 90, '.3f')}"
            f" | {q(centres, 50, '.3f')} / {q(centres, 90, '.3f')} | {med:.1f} | {ratio} |"
        )


HEADER = (
    "| frames | n | found | placed | misplaced | corner err px (median / p90) "
    "| corner err cells (median / p90) | worst visible cell centre, cells (median / p90) "
    "| ms/frame (median) | vs warp |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def measure(image: np.ndarray, truth: dict, label: str, thorough: bool = False) -> Result:
    """Locate the board in one frame, timed, against the truth and the warp baseline
    (``thorough``: ``find_board(thorough=True)``, as for a calibration photo)."""
    tc = np.asarray(truth["synth"]["board_corners_px"], float)
    # Baseline in the same run: warp this frame to a 512x512 board (64 px per cell).
    H = cv2.getPerspectiveTransform(
        tc.astype(np.float32), np.float32([[0, 0], [512, 0], [512, 512], [0, 512]])
    )
    t = time.perf_counter()
    cv2.warpPerspective(image, H, (512, 512))
    warp = 1e3 * (time.perf_counter() - t)
    t = time.perf_counter()
    try:
        pose = find_board(image, thorough=thorough)
    except BoardNotFound as e:
        ms = 1e3 * (time.perf_counter() - t)
        return Result(False, False, np.nan, np.nan, np.nan, ms, warp, f"{label}: not found ({e})")
    ms = 1e3 * (time.perf_counter() - t)
    err = corner_error(pose.corners, tc)
    cells = err / truth_cell_px(tc)
    centre = centre_error(pose, truth["synth"]) / truth_cell_px(tc)
    placed = cells <= PLACED_CELLS
    note = "" if placed else f"{label}: misplaced, corner error {err:.0f} px ({cells:.2f} cells)"
    return Result(True, placed, err, cells, centre, ms, warp, note)


def measure_negative(image: np.ndarray, label: str) -> Result:
    """A frame that must be rejected: ``placed`` counts it rejected, ``found`` (and so
    ``misplaced``) accepted."""
    t = time.perf_counter()
    try:
        find_board(image)
        ok = False
    except BoardNotFound:
        ok = True
    ms = 1e3 * (time.perf_counter() - t)
    note = "" if ok else f"{label}: accepted a frame without a whole board"
    return Result(not ok, ok, np.nan, np.nan, np.nan, ms, np.nan, note)


# --------------------------------------------------------------------------- locked pose

LOCK_PX, LOCK_MARGIN = 40, 0.5  # the reader's rectified view (vision.raster FACE_PX, MARGIN)
BUMPS = (0.3, 0.6, 1.0, 2.0)  # cells the camera is bumped by, in a random direction


@dataclass
class LockTally:
    still: int = 0
    false_moved: int = 0
    bumped: dict = field(default_factory=lambda: {b: [0, 0] for b in BUMPS})  # [n, caught]
    ms: list = field(default_factory=list)
    rectify_ms: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def lock_frames(tally: LockTally, cal: np.ndarray, shots: list, rng, label: str) -> None:
    """Lock on the calibration photo's pose; each shot must read as still, and as moved once
    the frame is shifted (a bumped camera)."""
    try:
        pose = find_board(cal)
    except BoardNotFound:
        tally.notes.append(f"{label}: calibration photo not found, rig skipped")
        return
    cell = pose.cell_size_px()

    def state(frame: np.ndarray) -> str:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if pose.inverted:
            gray = 255 - gray
        t = time.perf_counter()
        rect = pose.rectify(gray, LOCK_PX, LOCK_MARGIN)
        t1 = time.perf_counter()
        got = check_lock(rect, LOCK_PX, LOCK_MARGIN)[0]
        tally.rectify_ms.append(1e3 * (t1 - t))
        tally.ms.append(1e3 * (time.perf_counter() - t1))
        return got

    for i, shot in enumerate(shots):
        tally.still += 1
        if state(shot) in ("moved", "lost"):
            tally.false_moved += 1
            tally.notes.append(f"{label} shot {i}: still camera read as moved")
        for bump in BUMPS:
            a = rng.uniform(0, 2 * np.pi)
            dx, dy = bump * cell * np.cos(a), bump * cell * np.sin(a)
            M = np.float32([[1, 0, dx], [0, 1, dy]])
            h, w = shot.shape[:2]
            moved = cv2.warpAffine(shot, M, (w, h), borderMode=cv2.BORDER_REPLICATE)
            tally.bumped[bump][0] += 1
            caught = state(moved) in ("moved", "lost")
            tally.bumped[bump][1] += caught
            if not caught:
                tally.notes.append(f"{label} shot {i}: bump by {bump} cell not noticed")


def lock_report(t: LockTally) -> list[str]:
    med = statistics.median
    lines = [
        "| locked pose check | frames | read as moved |",
        "|---|---|---|",
        f"| camera still | {t.still} | {t.false_moved} (false alarms) |",
    ]
    lines += [f"| bumped by {b} cell | {n} | {c} |" for b, (n, c) in t.bumped.items()]
    if t.ms:
        lines += [
            "",
            f"Time per check (`check_lock` on the {LOCK_PX} px/cell view): median "
            f"{med(t.ms):.2f} ms; rectifying that view (shared with reading the cells): "
            f"{med(t.rectify_ms):.2f} ms.",
        ]
    return lines


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="tune", choices=["tune", "test"])
    ap.add_argument("--rigs", type=int, default=8)
    ap.add_argument("--first-rig", type=int, default=0)
    ap.add_argument("--sweep", action="store_true", help="also one row per difficulty factor")
    ap.add_argument("--sweep-rigs", type=int, default=3, help="rigs per sweep row")
    ap.add_argument("--negatives", type=int, default=0, help="negative photos of each kind")
    ap.add_argument("--lock", action="store_true", help="also the locked-pose check (bumps)")
    ap.add_argument(
        "--thorough", action="store_true", help="calibration photos with find_board(thorough=True)"
    )
    ap.add_argument("--cache", default="~/.cache/piecebridge/vision_locate")
    ap.add_argument(
        "--art",
        choices=["acrylic", "classic", "ebony", "french", "piecepackr"],
        help="render every rig in this piece art (default: the split's mix)",
    )
    ap.add_argument("--out", help="append the markdown table to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failure")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)  # the targets are for one core
    cache = Path(args.cache).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    rigs = range(args.first_rig, args.first_rig + args.rigs)
    rows: list[tuple[str, Tally]] = []
    # Warm up (OpenCV's first calls set up tables): no frame should pay for that.
    _, image, truth = rig_frames(args.split, args.first_rig, "realistic", cache, args.art)[1]
    measure(image, truth, "warm-up")

    cal, shots, hands = Tally(), Tally(), Tally()
    lock = LockTally()
    rng = np.random.default_rng(4)
    for rig in rigs:
        frames = rig_frames(args.split, rig, "realistic", cache, args.art)
        if args.lock:
            lock_frames(lock, frames[0][1], [f[1] for f in frames[1:]], rng, f"rig {rig}")
        for i, (kind, image, truth) in enumerate(frames):
            what = "calibration photo" if kind == "cal" else f"shot {i - 1}"
            thorough = args.thorough and kind == "cal"
            r = measure(image, truth, f"{args.split} realistic rig {rig} {what}", thorough)
            (cal if kind == "cal" else shots).results.append(r)
            if kind != "cal" and truth["synth"]["levels"].get("occlusion", 0) > 0:
                hands.results.append(r)
        print(f"  rig {rig} done", file=sys.stderr)
    mix = f"{args.split} realistic" + (f", art {args.art}" if args.art else "")
    rows += [
        (f"{mix}, all", Tally(cal.results + shots.results)),
        (f"{mix}, calibration photos", cal),
        (f"{mix}, game shots", shots),
        (f"{mix}, shots with a hand", hands),
    ]
    if args.sweep:
        for factor, level in SWEEP:
            t = Tally()
            name = f"{factor}={level:g}"
            for rig in range(args.first_rig, args.first_rig + args.sweep_rigs):
                frames = rig_frames(args.split, rig, name, cache, args.art)
                for i, (_, image, truth) in enumerate(frames):
                    what = "calibration photo" if i == 0 else f"shot {i - 1}"
                    t.results.append(measure(image, truth, f"{args.split} {name} rig {rig} {what}"))
            rows.append((f"{args.split} {name}", t))
            print(f"  sweep {name} done", file=sys.stderr)
    if args.negatives:
        t = Tally()
        for i, (kind, image, _) in enumerate(negative_frames(args.split, args.negatives, cache)):
            t.results.append(measure_negative(image, f"{args.split} {kind} {i % args.negatives}"))
        rows.append((f"{args.split} negatives (placed = rejected)", t))

    lines = [f"Machine: {describe()}", "", HEADER] + [t.row(n) for n, t in rows]
    if args.lock:
        lines += ["", *lock_report(lock)]
    notes = list(dict.fromkeys(r.note for _, t in rows[1:] for r in t.results if r.note))
    notes += lock.notes
    if notes:
        lines += [""] + [f"- {n}" for n in (notes if args.verbose else notes[:25])]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "a") as fh:
            fh.write(text + "\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
