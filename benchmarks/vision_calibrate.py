"""Benchmark: how often `piecebridge calibrate board` learns a setup from a rig's calibration photo.

Each rendered rig (``piecebridge.synth.reflec``, as ``benchmarks/vision_reflec.py`` makes
them) has one photo of the ``reflec-calibration/1`` layout; a failed calibration loses every
shot of that camera, so this counts, per art, the photos that calibrate, the refusals by
reason, and the setups learned wrong (a cell centre of the learned pose more than half a cell
from the renderer's: such a setup misreads every shot without a word).

    python benchmarks/vision_calibrate.py --split tune --art acrylic --rigs 300
    python benchmarks/vision_calibrate.py --split tune --rigs 200 --half odd     # check half
    python benchmarks/vision_calibrate.py --split tune --art acrylic --rigs 40 --difficulty glare=1

Images are cached as ``vision_reflec.py`` names them (``--cache``): the same cache serves both.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import collections
import sys
from pathlib import Path

import cv2
import numpy as np
from machine import describe
from piecebridge.calibration.geometry import cell_centre
from piecebridge.vision.learn import learn_setup
from vision_reflec import _load_or_render, image_tag

from piecebridge.errors import UserError
from piecebridge.synth.art import ART

#: Refusal messages (a part of each) -> the reason tabulated, first match wins.
REASONS = (
    ("cut off by the frame edge", "board cut off"),
    ("tile crosses at full size", "few tile crosses"),
    ("may lie a cell off", "grid may lie a cell off"),
    ("the grid found", "taken for a printed grid"),
    ("no 8x8 tile grid", "no tile grid"),
    ("no tile-coloured region", "no tile grid"),
    ("does not show the reflec-calibration/1", "layout not seen"),
    ("does not read back", "read back too few"),
    ("may sit off", "grid may sit off"),
)
#: A learned pose further than this (cells, at any cell centre) from the truth is wrong.
WRONG_CELLS = 0.5


def reason(message: str) -> str:
    """The tabulated reason of a refusal message.

    >>> reason("board cut off by the frame edge: move the camera so all 16 tiles show")
    'board cut off'
    >>> reason("no board in view: the grid found may lie a cell off the board (its lines ...)")
    'grid may lie a cell off'
    """
    return next((r for part, r in REASONS if part in message), "other")


def pose_error(pose, truth: dict) -> float:
    """Largest distance (cells) of the learned pose's cell centres from the renderer's."""
    synth = truth["synth"]
    names = sorted(synth["cell_centers_px"])
    got = pose.to_image(np.array([cell_centre(n) for n in names]))
    want = np.array([synth["cell_centers_px"][n] for n in names])
    corners = np.array(synth["board_corners_px"])
    cell = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1).mean() / 8
    return float(np.linalg.norm(got - want, axis=1).max() / cell)


def calibrate(
    split: str, rig: int, difficulty: str, cache: Path, art: str | None
) -> tuple[str, dict]:
    """(``"ok"``, ``"WRONG SETUP"`` or the reason the rig's calibration photo was refused;
    the setup's report, empty when refused)."""
    from piecebridge.synth.reflec import Difficulty, calibration_sample

    tag = image_tag(split, rig, difficulty, art)
    diff = Difficulty.parse(difficulty)
    photo, truth = _load_or_render(
        cache / f"{tag}-cal", lambda: calibration_sample(split, rig, diff, art=art)
    )
    try:
        setup, report = learn_setup(photo)
    except UserError as error:
        print(f"  rig {rig}: {error}", file=sys.stderr)
        return reason(str(error)), {}
    err = pose_error(setup.pose, truth)
    if err > WRONG_CELLS:
        print(f"  rig {rig}: WRONG SETUP, {err:.2f} cells off", file=sys.stderr)
        return "WRONG SETUP", report
    return "ok", report


def margin_text(reports: list[dict]) -> str:
    """How much of the layout the learned setups read back (the margin that keeps a photo
    from being refused: ``learn.MIN_READ_BACK``), one markdown line.

    >>> text = margin_text([{"read_back": 28, "unsure_own_suit": 0, "read_by_face": 1},
    ...                     {"read_back": 26, "unsure_own_suit": 1, "read_by_face": 0}])
    >>> for part in text.split("; "):
    ...     print(part)
    read back (photos): 28: 1, 26: 1
    pieces unsure as their own suit: 1
    photos with coins read by their faces: 1
    """
    counts = collections.Counter(r["read_back"] for r in reports)
    back = ", ".join(f"{n}: {counts[n]}" for n in sorted(counts, reverse=True))
    unsure = sum(r.get("unsure_own_suit", 0) for r in reports)
    by_face = sum(r.get("read_by_face", 0) > 0 for r in reports)
    return (
        f"read back (photos): {back}; pieces unsure as their own suit: {unsure}; "
        f"photos with coins read by their faces: {by_face}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="tune", choices=["tune", "test"])
    ap.add_argument("--rigs", type=int, default=100)
    ap.add_argument("--first-rig", type=int, default=0)
    ap.add_argument("--half", choices=["all", "even", "odd"], default="all")
    ap.add_argument("--difficulty", default="realistic")
    ap.add_argument("--art", choices=sorted(ART), help="default: the split's mix of arts")
    ap.add_argument("--cache", default="~/.cache/piecebridge/vision_reflec")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    cache = Path(args.cache).expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    rigs = range(args.first_rig, args.first_rig + args.rigs)
    if args.half != "all":
        rigs = [r for r in rigs if r % 2 == (args.half == "odd")]
    results = [calibrate(args.split, r, args.difficulty, cache, args.art) for r in rigs]
    outcomes = collections.Counter(outcome for outcome, _ in results)
    n = sum(outcomes.values())
    print(f"Machine: {describe()}\n")
    print(f"{args.split}, art {args.art or 'mixed'}, {args.difficulty}, rigs {rigs}")
    print("| outcome | photos | share |\n|---|---|---|")
    for outcome, count in outcomes.most_common():
        print(f"| {outcome} | {count} | {100 * count / n:.1f} % |")
    reports = [report for _, report in results if report]
    if reports:
        print(f"\n{margin_text(reports)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
