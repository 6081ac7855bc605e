"""Camera calibration on rendered target photos with known intrinsics and distortion."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.calibration.camera import (
    CameraCalibration,
    calibrate_views,
    detect_pattern,
    distortion_difference,
    parse_pattern,
    pixels_inside,
)

from piecebridge.synth.calibration_target import TEST_LENS, TargetScene
from piecebridge.synth.photo import Camera, PhotoStyle

LENS = TEST_LENS


def distortion_field_error(found: CameraCalibration, lens: Camera, seen: np.ndarray) -> float:
    """Largest undistortion difference (px) where corners were seen (hull of ``seen``).

    A polynomial lens model means nothing beyond the data (the coverage advice asks
    for views there), so the lens is judged on the pixels it saw.
    """
    truth = CameraCalibration(lens.K, lens.dist, lens.image_size, 0.0)
    return distortion_difference(found, truth, pixels_inside([seen], lens.image_size, 10))


def _seen(views) -> np.ndarray:
    return np.concatenate([v.image_points for v in views])


@pytest.fixture(scope="module")
def chessboard_shots():
    scene = TargetScene.of(parse_pattern("chessboard:9x6", 25))
    style = PhotoStyle.clean().replace(defocus_sigma_px=0.8, noise_sigma=0.01, jpeg_quality=92)
    return scene.views(LENS, 12, np.random.default_rng(7), style=style)


def test_detected_corners_match_ground_truth(chessboard_shots):
    pattern = parse_pattern("chessboard:9x6", 25)
    errors = []
    for shot in chessboard_shots[:6]:
        view = detect_pattern(shot.image, pattern)
        assert view.found
        errors.append(np.linalg.norm(view.image_points - shot.corners, axis=1))
    errors = np.concatenate(errors)
    assert np.median(errors) < 0.15
    assert np.percentile(errors, 99) < 0.6


def test_chessboard_recovers_focal_length_and_distortion(chessboard_shots):
    pattern = parse_pattern("chessboard:9x6", 25)
    views = [detect_pattern(s.image, pattern, name=f"v{i}") for i, s in enumerate(chessboard_shots)]
    fit = calibrate_views([v for v in views if v.found], LENS.image_size)
    cal = fit.calibration
    assert len(fit.views) >= 11
    assert cal.rms < 0.3
    # Tolerances from benchmarks/calibration_synthetic.py (p90 over seeds at 10 views and
    # noise 0.02: fx 0.14 %, principal point 2.3 px, undistortion 0.44 px), with margin.
    assert abs(cal.fx - 620.0) / 620.0 < 0.01
    assert abs(cal.fy - 620.0) / 620.0 < 0.01
    assert np.hypot(cal.principal_point[0] - 326.0, cal.principal_point[1] - 236.0) < 4.0
    assert abs(cal.dist_coeffs[0] - (-0.28)) < 0.05
    assert distortion_field_error(cal, LENS, _seen(fit.views)) < 0.6


def test_charuco_recovers_focal_length():
    pattern = parse_pattern("charuco:8x6", 25, 18)
    scene = TargetScene.of(pattern)
    shots = scene.views(LENS, 10, np.random.default_rng(3))
    views = [detect_pattern(s.image, pattern, name=f"c{i}") for i, s in enumerate(shots)]
    found = [v for v in views if v.found]
    assert len(found) >= 9
    for view, shot in zip(views[:3], shots[:3], strict=True):
        # Ids say which corner each detection is: compare with the truth at that id.
        ids = [
            int(np.flatnonzero((pattern.object_points() == o).all(1))[0])
            for o in view.object_points
        ]
        assert np.median(np.linalg.norm(view.image_points - shot.corners[ids], axis=1)) < 0.2
    cal = calibrate_views(found, LENS.image_size).calibration
    assert abs(cal.fx - 620.0) / 620.0 < 0.01
    assert distortion_field_error(cal, LENS, _seen(found)) < 0.5


def test_partly_hidden_charuco_still_gives_a_view():
    """ChArUco's point: a board cut by the frame edge still yields identified corners."""
    pattern = parse_pattern("charuco:8x6", 25, 18)
    shot = TargetScene.of(pattern).views(LENS, 1, np.random.default_rng(5))[0]
    image = shot.image.copy()
    cut = image.shape[1] // 2 + 40
    image[:, :cut] = 110  # hide the left part of the frame
    hidden = shot.corners[:, 0] < cut
    assert 8 <= (~hidden).sum() < len(shot.corners) // 2  # this pose: most corners hidden
    view = detect_pattern(image, pattern)
    assert view.found and len(view.image_points) >= 8
    ids = [
        int(np.flatnonzero((pattern.object_points() == o).all(1))[0]) for o in view.object_points
    ]
    assert not hidden[ids].any()  # only corners that are really visible, correctly identified
    assert np.linalg.norm(view.image_points - shot.corners[ids], axis=1).max() < 0.7


def test_charuco_through_the_command(tmp_path, capsys):
    import json

    from piecebridge.cli import main

    pattern = parse_pattern("charuco:8x6", 25, 18)
    shots = TargetScene.of(pattern).views(LENS, 8, np.random.default_rng(11))
    photos = tmp_path / "photos"
    photos.mkdir()
    for index, shot in enumerate(shots):
        cv2.imwrite(str(photos / f"ch{index}.png"), shot.image)
    out = tmp_path / "charuco.yaml"
    code = main(
        ["calibrate", "camera", str(photos), "--pattern", "charuco:8x6", "--square-mm", "25",
         "--marker-mm", "18", "--out", str(out), "--json"]
    )  # fmt: skip
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["images_used"] >= 7
    assert abs(result["camera_matrix"][0][0] - 620.0) / 620.0 < 0.015
    assert (tmp_path / "charuco-report.png").is_file()
    # The wrong dictionary finds no markers: one clear line, nothing written.
    other = tmp_path / "other.yaml"
    code = main(
        ["calibrate", "camera", str(photos), "--pattern", "charuco:8x6", "--square-mm", "25",
         "--dictionary", "DICT_4X4_50", "--out", str(other)]
    )  # fmt: skip
    assert code == 1 and not other.exists()
    assert "none of the" in capsys.readouterr().err
