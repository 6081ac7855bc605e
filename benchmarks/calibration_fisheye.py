"""How well does ``calibrate camera --fisheye`` recover a known fisheye lens, against the
pinhole models on the same photos?

Renders chessboard photos (a 9x6 board, 25 mm squares) through a known 640x480 fisheye
(OpenCV's model, f = 205 px: the frame's corners see 98 degrees off the axis; k1-k4 =
0.04 -0.015 0.005 -0.001) from random poses (``synth.calibration_target.fisheye_views``:
tilt up to 40 deg, targets out to about 60 degrees off the axis; defocus 0.8 px, JPEG 92 and
sensor noise 0.02 on the pinhole photo the fisheye image is resampled from); detects them
and calibrates with each lens model through the same code as ``piecebridge calibrate
camera`` (views rejected as there).

Reported per model, median and 90th percentile over seeds: views used, RMS, focal-length
error, principal-point error, and the largest error of a pixel's angle off the axis where
the corners were seen, in pixels at the image centre (focal x radians).

Run:  python benchmarks/calibration_fisheye.py [--seeds 6] [--views 12] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import time

import cv2
import numpy as np
from piecebridge.calibration.camera import (
    FISHEYE,
    CameraCalibration,
    calibrate_detected,
    detect_pattern,
    parse_pattern,
    pixels_inside,
)

from piecebridge.errors import UserError
from piecebridge.synth.calibration_target import FisheyeLens, TargetScene, fisheye_views
from piecebridge.synth.photo import PhotoStyle

LENS = FisheyeLens((640, 480), 205.0, (0.04, -0.015, 0.005, -0.001))
MODELS = {  # name: (model, calibrateCamera flags)
    "fisheye": (FISHEYE, 0),
    "pinhole (k1 k2 p1 p2 k3)": ("pinhole", 0),
    "pinhole rational (8 coefficients)": ("pinhole", cv2.CALIB_RATIONAL_MODEL),
}


def off_axis(cal: CameraCalibration, pixels: np.ndarray) -> np.ndarray:
    """Each pixel's angle from the optical axis (radians) under ``cal``."""
    rays = cal.undistort_pixels(pixels, np.eye(3))
    return np.arctan(np.hypot(rays[:, 0], rays[:, 1]))


def run(seeds: int, views: int) -> tuple[list[str], float]:
    pattern = parse_pattern("chessboard:9x6", 25)
    scene = TargetScene.of(pattern)
    truth = CameraCalibration(LENS.K, LENS.D, LENS.image_size, 0.0, model=FISHEYE)
    style = PhotoStyle.clean().replace(defocus_sigma_px=0.8, noise_sigma=0.02, jpeg_quality=92)
    rows: dict[str, list[tuple[float, ...]]] = {name: [] for name in MODELS}
    fit_seconds: dict[str, list[float]] = {name: [] for name in MODELS}
    failed: dict[str, int] = {name: 0 for name in MODELS}
    started = time.perf_counter()
    for seed in range(seeds):
        shots = fisheye_views(scene, LENS, views, np.random.default_rng(2000 + seed), style=style)
        found = [detect_pattern(s.image, pattern, name=f"s{seed}v{i}") for i, s in enumerate(shots)]
        for name, (model, flags) in MODELS.items():
            t0 = time.perf_counter()
            try:
                fit = calibrate_detected(found, pattern, flags=flags, model=model)
            except UserError:
                failed[name] += 1
                continue
            fit_seconds[name].append(time.perf_counter() - t0)
            cal = fit.calibration
            seen = pixels_inside([v.image_points for v in fit.views], LENS.image_size, 10)
            angle_px = LENS.focal_px * np.abs(off_axis(cal, seen) - off_axis(truth, seen)).max()
            principal = np.hypot(*(np.array(cal.principal_point) - LENS.K[:2, 2]))
            rows[name].append(
                (
                    len(fit.views),
                    cal.rms,
                    abs(cal.fx / LENS.focal_px - 1) * 100,
                    principal,
                    angle_px,
                )
            )
        print(f"seed {seed}: {sum(v.found for v in found)}/{views} views found", flush=True)
    elapsed = time.perf_counter() - started
    lines = [
        "| model | views used | rms px | focal error % | principal point px | "
        "off-axis angle, max px | fit s | failed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, values in rows.items():
        if not values:
            lines.append(f"| {name} | — | — | — | — | — | — | {failed[name]} of {seeds} |")
            continue
        a = np.array(values)
        cells = [f"{np.median(a[:, k]):.3g} / {np.percentile(a[:, k], 90):.3g}" for k in range(5)]
        lines.append(
            f"| {name} | {' | '.join(cells)} | {np.median(fit_seconds[name]):.2f} | "
            f"{failed[name]} of {seeds} |"
        )
    return lines, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--views", type=int, default=12)
    parser.add_argument("--out", help="append the markdown table to this file")
    args = parser.parse_args()
    lines, elapsed = run(args.seeds, args.views)
    text = "\n".join(
        [
            f"Median / p90 over {args.seeds} seeds, {args.views} rendered views each "
            f"({elapsed:.0f} s in all):",
            "",
            *lines,
        ]
    )
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
