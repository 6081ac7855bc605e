"""The fisheye lens model: fit, file, undistortion and the command, on lenses that see
wider than a pinhole can."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from piecebridge.calibration.camera import (
    FISHEYE,
    PINHOLE,
    CameraCalibration,
    View,
    calibrate_views,
    load_camera_calibration,
    parse_pattern,
    reprojection_error,
)

from piecebridge.errors import UserError
from piecebridge.synth.calibration_target import FisheyeLens, TargetScene, fisheye_views

SIZE = (800, 600)
LENS = FisheyeLens(SIZE, 240.0, (0.04, -0.015, 0.005, -0.001))
TRUTH = CameraCalibration(LENS.K, LENS.D, SIZE, 0.0, model=FISHEYE)
PATTERN = parse_pattern("chessboard:9x6", 25)


def _ray_angles(cal: CameraCalibration, pixels: np.ndarray) -> np.ndarray:
    """Each pixel's angle from the optical axis (radians) under ``cal``."""
    rays = cal.undistort_pixels(pixels, np.eye(3))
    return np.arctan(np.hypot(rays[:, 0], rays[:, 1]))


def _views(count: int, noise_px: float, seed: int) -> list[View]:
    """Target corners seen through ``LENS`` from random poses that reach far off-axis
    (up to ~75 degrees), with Gaussian noise: the geometry alone, no images."""
    rng = np.random.default_rng(seed)
    obj = PATTERN.object_points().astype(np.float64)
    views = []
    while len(views) < count:
        rvec = rng.normal(0, 0.4, 3)
        tvec = np.array([rng.uniform(-250, 50), rng.uniform(-200, 50), rng.uniform(120, 260)])
        img = TRUTH.project(obj, rvec, tvec)
        depth = (cv2.Rodrigues(rvec)[0] @ obj.T).T[:, 2] + tvec[2]
        inside = (img > 5).all() and (img < np.array(SIZE) - 5).all()
        if inside and (depth > 0).all():
            img = img + rng.normal(0, noise_px, img.shape)
            views.append(View(f"v{len(views)}", SIZE, img.astype(np.float32), obj))
    return views


def test_the_fit_recovers_a_wide_fisheye_that_a_pinhole_cannot_follow():
    views = _views(12, 0.1, seed=3)
    seen = np.concatenate([v.image_points for v in views])
    assert np.degrees(_ray_angles(TRUTH, seen).max()) > 70  # truly past a pinhole's reach
    fit = calibrate_views(views, SIZE, model=FISHEYE)
    cal = fit.calibration
    assert cal.model == FISHEYE and len(cal.dist_coeffs) == 4
    assert cal.rms < 0.15 and len(fit.views) == 12
    assert abs(cal.fx - 240.0) / 240.0 < 0.005
    assert np.hypot(*(np.array(cal.principal_point) - LENS.K[:2, 2])) < 1.0
    # Where the lens was seen, every pixel's angle off the axis within 0.3 px at the
    # centre (3x the corners' noise; measured 0.16).
    error_px = 240.0 * np.abs(_ray_angles(cal, seen) - _ray_angles(TRUTH, seen))
    assert error_px.max() < 0.3
    # The pinhole model with its usual coefficients cannot bend that far (its rational
    # model, eight coefficients, follows these views: 0.136 px).
    pinhole = calibrate_views(views, SIZE, reject_ratio=0).calibration
    assert pinhole.model == PINHOLE and pinhole.rms > 5 * cal.rms


@pytest.mark.parametrize("seed", range(4, 10))
def test_the_fisheye_fit_does_not_run_away(seed):
    """OpenCV's fit in one step from its own start ran away on each of these view sets
    (0.3 px noise; focal -45 to 254 px, or an exception): the two-step fit converges."""
    fit = calibrate_views(_views(10, 0.3, seed), SIZE, model=FISHEYE)
    assert abs(fit.calibration.fx - 240.0) / 240.0 < 0.01
    assert fit.calibration.rms < 0.5


def test_a_wrong_view_is_rejected_from_the_fisheye_fit():
    views = _views(10, 0.1, seed=4)
    bad = views[6]
    shifted = bad.image_points.copy()
    shifted[::2] += 4.0  # every other corner 4 px off: a misdetection
    views[6] = View(bad.name, SIZE, shifted, bad.object_points)
    fit = calibrate_views(views, SIZE, model=FISHEYE)
    assert [r.name for r in fit.rejected] == [bad.name]
    assert reprojection_error(fit.calibration, views[6]) > 1.0
    assert abs(fit.calibration.fx - 240.0) / 240.0 < 0.005


def _off_chord(points: np.ndarray) -> np.ndarray:
    """Distance (px) of each point from the line through the first and the last."""
    chord, rel = points[-1] - points[0], points - points[0]
    return np.abs(chord[0] * rel[:, 1] - chord[1] * rel[:, 0]) / np.linalg.norm(chord)


def test_fisheye_undistortion_straightens_lines_and_maps_points_both_ways():
    undistort = TRUTH.undistorter(alpha=0.0)
    # A straight edge in space: its image is curved, its undistorted image straight.
    t = np.linspace(-1, 1, 25)
    line = np.stack([150 * t, 80 + 0 * t, 200 + 40 * t], axis=1)
    curved = TRUTH.project(line, np.zeros(3), np.zeros(3))
    flat = undistort.undistort_points(curved)
    assert _off_chord(curved).max() > 10  # it was curved
    assert _off_chord(flat).max() < 0.01
    assert np.abs(undistort.distort_points(flat) - curved).max() < 1e-3
    frame = np.full((SIZE[1], SIZE[0], 3), 200, np.uint8)
    assert undistort(frame).shape == frame.shape


def test_the_file_keeps_the_model_and_refuses_a_mismatch(tmp_path):
    path = tmp_path / "fisheye.yaml"
    TRUTH.save(path)
    loaded = load_camera_calibration(path)
    assert loaded.model == FISHEYE
    np.testing.assert_allclose(loaded.dist_coeffs, LENS.D)
    assert "distortion_model: fisheye" in path.read_text()
    # A file from OpenCV's own samples has no model: it is a pinhole.
    older = tmp_path / "older.yaml"
    CameraCalibration(LENS.K, np.zeros(5), SIZE, 0.2).save(older)
    older.write_text(older.read_text().replace("distortion_model: pinhole\n", ""))
    assert load_camera_calibration(older).model == PINHOLE
    for text, problem in (
        ("distortion_model: fisheye", "wrong length"),  # five coefficients
        ("distortion_model: kannala", "is not one of"),
    ):
        bad = tmp_path / "bad.yaml"
        bad.write_text(older.read_text() + text + "\n")
        with pytest.raises(UserError, match=problem):
            load_camera_calibration(bad)


def test_the_command_calibrates_rendered_fisheye_photos(tmp_path, capsys):
    from piecebridge.cli import main

    scene = TargetScene.of(PATTERN)
    shots = fisheye_views(
        scene, FisheyeLens((640, 480), 205.0, LENS.dist_coeffs), 8, np.random.default_rng(7)
    )
    for i, shot in enumerate(shots):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), shot.image)
    out = tmp_path / "lens.yaml"
    args = ["calibrate", "camera", str(tmp_path), "--pattern", "chessboard:9x6"]
    args += ["--square-mm", "25", "--out", str(out), "--fisheye", "--json", "--no-report"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["distortion_model"] == FISHEYE and result["images_used"] >= 7
    cal = load_camera_calibration(out)
    assert cal.model == FISHEYE
    assert abs(cal.fx - 205.0) / 205.0 < 0.005  # measured 205.2
    # The same photos through the pinhole model fit clearly worse (measured 0.35 against
    # 0.12 px).
    pinhole = [str(tmp_path / "pinhole.yaml") if a == str(out) else a for a in args]
    assert main([a for a in pinhole if a != "--fisheye"]) == 0
    assert json.loads(capsys.readouterr().out)["rms"] > 2 * result["rms"]
    # The pinhole options do not apply: a usage error (argparse's message, exit 2).
    with pytest.raises(SystemExit) as usage:
        main([*args, "--rational"])
    assert usage.value.code == 2
    assert "--fisheye takes none of" in capsys.readouterr().err
