"""Camera calibration on OpenCV's real stereo sample photos, and speed.

Accuracy: our pipeline (``piecebridge calibrate camera``'s code path) against
OpenCV's published calibration of the 13 left photos, and against a plain
``cv2.calibrateCamera`` run (classic detector, 11x11 cornerSubPix, as in
OpenCV's tutorial) for both cameras, in the same run.

Speed (medians, same-run baselines): calibrating 13 views (detect + fit +
outlier check), and undistorting a 1080p frame with precomputed maps against
``cv2.undistort``.

Run:  python benchmarks/calibration_real.py [--repeats 7] [--markdown]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import cv2
import numpy as np
from piecebridge.calibration.camera import (
    CameraCalibration,
    calibrate_images,
    load_camera_calibration,
    parse_pattern,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "calibration" / "opencv-stereo"
PUBLISHED = DATA / "left_intrinsics.yml"


def plain_opencv(paths: list[Path]) -> tuple[float, np.ndarray, np.ndarray]:
    """The textbook calibration: findChessboardCorners + cornerSubPix(11x11) + calibrateCamera."""
    obj = np.zeros((54, 3), np.float32)
    obj[:, :2] = np.mgrid[0:9, 0:6].T.reshape(-1, 2) * 25.0
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.001)
    object_points, image_points, size = [], [], None
    for path in paths:
        gray = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        size = gray.shape[::-1]
        found, corners = cv2.findChessboardCorners(gray, (9, 6))
        if not found:
            continue
        corners = cv2.cornerSubPix(gray, corners.reshape(-1, 1, 2), (11, 11), (-1, -1), criteria)
        object_points.append(obj)
        image_points.append(corners.reshape(-1, 2))
    rms, matrix, dist, _, _ = cv2.calibrateCamera(object_points, image_points, size, None, None)
    return rms, matrix, dist.ravel()


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def accuracy_rows() -> list[str]:
    pattern = parse_pattern("chessboard:9x6", 25)
    published = load_camera_calibration(PUBLISHED)
    rows = [
        "| camera | method | views used | RMS px | fx | fy | cx | cy | fx vs published |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    pub_cx, pub_cy = published.principal_point
    rows.append(
        f"| left | OpenCV published (FIX_ASPECT_RATIO) | 13 | {published.rms:.3f} | "
        f"{published.fx:.2f} | {published.fy:.2f} | {pub_cx:.2f} | {pub_cy:.2f} | - |"
    )
    for side in ("left", "right"):
        paths = sorted(DATA.glob(f"{side}*.jpg"))
        fit = calibrate_images(paths, pattern)
        ours = fit.calibration
        rms, matrix, _ = plain_opencv(paths)
        for name, cal, used in (
            ("plain cv2.calibrateCamera (11x11 subpix)", None, len(paths)),
            ("piecebridge calibrate camera", ours, len(fit.views)),
        ):
            m = matrix if cal is None else cal.camera_matrix
            r = rms if cal is None else cal.rms
            vs = (
                f"{(m[0, 0] - published.fx) / published.fx:+.2%}, "
                f"pp {np.hypot(m[0, 2] - pub_cx, m[1, 2] - pub_cy):.2f} px"
                if side == "left"
                else "(no published answer)"
            )
            rows.append(
                f"| {side} | {name} | {used} | {r:.3f} | {m[0, 0]:.2f} | {m[1, 1]:.2f} | "
                f"{m[0, 2]:.2f} | {m[1, 2]:.2f} | {vs} |"
            )
        if fit.rejected:
            rows.append(
                f"| {side} | rejected by piecebridge | "
                + "; ".join(f"{Path(r.name).name}: {r.reason}" for r in fit.rejected)
                + " | | | | | | |"
            )
    return rows


def speed_rows(repeats: int) -> list[str]:
    pattern = parse_pattern("chessboard:9x6", 25)
    paths = sorted(DATA.glob("left*.jpg"))
    ours = _median_time(lambda: calibrate_images(paths, pattern), repeats)
    plain = _median_time(lambda: plain_opencv(paths), repeats)
    matrix = np.array([[1400.0, 0, 959.5], [0, 1400.0, 539.5], [0, 0, 1]])
    cal = CameraCalibration(matrix, np.array([-0.3, 0.12, 0.001, -0.001, -0.02]), (1920, 1080), 0.2)
    frame = cv2.GaussianBlur(
        np.random.default_rng(0).integers(0, 255, (1080, 1920, 3), np.uint8), (0, 0), 2
    )
    start = time.perf_counter()
    undistort = cal.undistorter()
    maps = time.perf_counter() - start
    rows = [
        "| task | ours (median) | baseline (median, same run) | ratio |",
        "|---|---|---|---|",
        f"| calibrate 13 views of 640x480 (read, detect, fit, outlier check) | {ours * 1e3:.0f} ms "
        f"| plain cv2 pipeline {plain * 1e3:.0f} ms | {ours / plain:.2f}x the time |",
    ]
    threads = cv2.getNumThreads()
    for count in (threads, 1):
        cv2.setNumThreads(count)
        remap = _median_time(lambda: undistort(frame), repeats * 5)
        direct = _median_time(
            lambda: cv2.undistort(frame, cal.camera_matrix, cal.dist_coeffs), repeats * 5
        )
        rows.append(
            f"| undistort one 1080p BGR frame, {count} OpenCV thread(s) | {remap * 1e3:.1f} ms "
            f"(cv2.remap; maps made once in {maps * 1e3:.0f} ms) | cv2.undistort "
            f"{direct * 1e3:.1f} ms | {direct / remap:.1f}x faster |"
        )
    cv2.setNumThreads(threads)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print("\n".join(accuracy_rows()))
    print()
    print("\n".join(speed_rows(args.repeats)))


if __name__ == "__main__":
    main()
