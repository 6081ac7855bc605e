"""Camera calibration on OpenCV's real sample photos, the file format, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from piecebridge.calibration.camera import (
    CameraCalibration,
    calibrate_images,
    detect_pattern,
    load_camera_calibration,
    load_gray,
    parse_pattern,
)

from piecebridge.cli import main
from piecebridge.errors import UserError

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "calibration" / "opencv-stereo"
if not DATA.is_dir():  # the work tree may live elsewhere; the shared data is fixed
    DATA = Path("/work/shared/data/calibration/opencv-stereo")
LEFT = sorted(DATA.glob("left*.jpg"))
RIGHT = sorted(DATA.glob("right*.jpg"))
PUBLISHED_FX = 535.9157
PUBLISHED_PP = (342.2832, 235.5708)

needs_data = pytest.mark.skipif(len(LEFT) != 13, reason="OpenCV sample photos not available")


@pytest.fixture(scope="module")
def left_run(tmp_path_factory):
    """One CLI run on the 13 left photos, shared by the checks below."""
    out = tmp_path_factory.mktemp("left") / "left.yaml"
    args = [*map(str, LEFT), "--pattern", "chessboard:9x6", "--square-mm", "25"]
    return out, args


@needs_data
def test_left_photos_meet_published_calibration(left_run, capsys):
    out, args = left_run
    assert main(["calibrate", "camera", *args, "--out", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    cal = load_camera_calibration(out)
    assert result["rms"] <= 0.41
    assert cal.rms <= 0.41
    assert abs(cal.fx - PUBLISHED_FX) / PUBLISHED_FX <= 0.005
    assert abs(cal.fy - PUBLISHED_FX) / PUBLISHED_FX <= 0.005
    assert np.hypot(*(np.array(cal.principal_point) - PUBLISHED_PP)) <= 3.0
    assert result["images_used"] + len(result["images_rejected"]) == 13
    assert (cal.image_size) == (640, 480)
    report = out.with_name("left-report.png")
    picture = cv2.imread(str(report))
    assert picture is not None and picture.shape[1] >= 1000


@needs_data
def test_file_is_the_spec_format(left_run, capsys):
    out, args = left_run
    main(["calibrate", "camera", *args, "--out", str(out), "--no-report"])
    storage = cv2.FileStorage(str(out), cv2.FILE_STORAGE_READ)
    assert storage.getNode("camera_matrix").mat().shape == (3, 3)
    assert storage.getNode("distortion_coefficients").mat().shape == (1, 5)
    assert storage.getNode("image_width").real() == 640
    assert storage.getNode("image_height").real() == 480
    assert 0 < storage.getNode("rms").real() <= 0.41
    storage.release()
    text = capsys.readouterr().out
    assert "per-view error" in text and "left01.jpg" in text


@needs_data
def test_far_off_view_is_rejected_by_name_and_refit():
    """A view whose corners were shifted by 2 px is named and left out; the fit recovers."""
    pattern = parse_pattern("chessboard:9x6", 25)
    from piecebridge.calibration.camera import calibrate_detected, detect_in_images

    views = detect_in_images(LEFT, pattern)
    clean = calibrate_detected(views, pattern).calibration
    rng = np.random.default_rng(1)
    views[4].image_points = views[4].image_points + rng.normal(
        0, 2.0, views[4].image_points.shape
    ).astype(np.float32)
    fit = calibrate_detected(views, pattern)
    assert [r.name for r in fit.rejected] == [str(LEFT[4])]
    assert "median" in fit.rejected[0].reason
    assert len(fit.views) == 12
    assert abs(fit.calibration.fx - clean.fx) / clean.fx < 0.01
    kept_all = calibrate_detected(views, pattern, reject_ratio=0)
    assert kept_all.calibration.rms > 2 * fit.calibration.rms


@needs_data
def test_view_without_pattern_is_rejected_with_reason(tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640), 128, np.uint8))
    fit = calibrate_images([*LEFT[:6], blank], parse_pattern("chessboard:9x6", 25))
    assert fit.rejected[0].name == str(blank)
    assert "not found" in fit.rejected[0].reason
    assert len(fit.views) == 6


@needs_data
def test_chessboard_corners_are_subpixel_and_ordered():
    view = detect_pattern(load_gray(LEFT[0]), parse_pattern("chessboard:9x6", 25))
    assert view.image_points.shape == (54, 2)
    assert view.object_points.shape == (54, 3)
    fractional = view.image_points - np.round(view.image_points)
    assert np.abs(fractional).max() > 0.05  # refined, not integer pixels
    assert view.object_points[1, 0] == 25 and view.object_points[9, 1] == 25


# ------------------------------------------------------------------ bad input: one line, exit 1


def _run_bad(capsys, tmp_path, images, pattern="chessboard:9x6"):
    out = tmp_path / "cam.yaml"
    code = main(
        [
            "calibrate",
            "camera",
            *map(str, images),
            "--pattern",
            pattern,
            "--square-mm",
            "25",
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert not out.exists() and not list(tmp_path.glob("cam*")), "nothing may be written"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("piecebridge: error:")
    return lines[0]


def test_no_image_contains_the_pattern(tmp_path, capsys):
    images = []
    for i in range(3):
        path = tmp_path / f"empty{i}.png"
        cv2.imwrite(str(path), np.random.default_rng(i).integers(0, 255, (240, 320), np.uint8))
        images.append(path)
    line = _run_bad(capsys, tmp_path, images)
    assert "none of the 3 image(s)" in line and "9x6" in line


@needs_data
def test_wrong_pattern_size(tmp_path, capsys):
    line = _run_bad(capsys, tmp_path, LEFT[:3], pattern="chessboard:8x6")
    assert "8x6" in line and "inner corners" in line


@needs_data
def test_images_of_different_sizes(tmp_path, capsys):
    big = tmp_path / "big.png"
    cv2.imwrite(str(big), cv2.resize(load_gray(LEFT[1]), (1280, 960)))
    line = _run_bad(capsys, tmp_path, [LEFT[0], big])
    assert "differ in size" in line and "big.png" in line and "1280x960" in line


@needs_data
def test_unreadable_file(tmp_path, capsys):
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"this is not a JPEG")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    line = _run_bad(capsys, tmp_path, [junk, empty])  # no image at all: the first one's error
    assert "junk.jpg" in line and "cannot read" in line
    line = _run_bad(capsys, tmp_path, [LEFT[0], tmp_path / "missing.jpg"])
    assert "missing.jpg" in line and "no such file" in line


@needs_data
def test_a_corrupt_photo_among_good_ones_is_rejected_not_fatal(tmp_path):
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"this is not a JPEG")
    fit = calibrate_images([junk, *LEFT[:5]], parse_pattern("chessboard:9x6", 25))
    rejected = fit.rejected[0]
    assert (rejected.name, rejected.reason) == (str(junk), "not an image file or damaged")
    assert len(fit.views) == 5


def test_malformed_pattern_text(tmp_path, capsys):
    line = _run_bad(capsys, tmp_path, [tmp_path / "x.png"], pattern="chess:9by6")
    assert "chessboard:COLSxROWS" in line


# ------------------------------------------------------------------ file + undistorter


def _calibration() -> CameraCalibration:
    matrix = np.array([[800.0, 0, 639.5], [0, 800, 359.5], [0, 0, 1]])
    return CameraCalibration(matrix, np.array([-0.3, 0.1, 0.001, -0.001, 0.0]), (1280, 720), 0.25)


def test_save_load_round_trip(tmp_path):
    cal = _calibration()
    cal.save(tmp_path / "c.yaml", {"pattern": "chessboard:9x6", "images_used": ["a", "b"]})
    back = load_camera_calibration(tmp_path / "c.yaml")
    assert np.allclose(back.camera_matrix, cal.camera_matrix)
    assert np.allclose(back.dist_coeffs, cal.dist_coeffs)
    assert back.image_size == (1280, 720) and back.rms == pytest.approx(0.25)


def test_loading_opencv_published_file():
    cal = load_camera_calibration(DATA / "left_intrinsics.yml")
    assert cal.fx == pytest.approx(535.9157, abs=1e-3)
    assert cal.rms == pytest.approx(0.3926, abs=1e-3)


def test_bad_calibration_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("%YAML:1.0\n---\nimage_width: 640\n")
    with pytest.raises(UserError, match="camera_matrix"):
        load_camera_calibration(bad)
    with pytest.raises(UserError, match="no such file"):
        load_camera_calibration(tmp_path / "none.yaml")
    garbage = tmp_path / "garbage.yaml"
    garbage.write_bytes(b"\x00\x01 not yaml {{{")
    with pytest.raises(UserError):
        load_camera_calibration(garbage)
    not_a_map = tmp_path / "scalar.yaml"
    not_a_map.write_text("camera_matrix: 3\n")  # no %YAML header: OpenCV's getNode asserts
    with pytest.raises(UserError, match="not an OpenCV YAML/XML file"):
        load_camera_calibration(not_a_map)


def test_undistorter_matches_cv2_undistort():
    cal = _calibration()
    rng = np.random.default_rng(0)
    frame = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280, 3), np.uint8), (0, 0), 3)
    ours = cal.undistorter()(frame).astype(int)
    reference = cv2.undistort(frame, cal.camera_matrix, cal.dist_coeffs).astype(int)
    inner = (slice(40, -40), slice(40, -40))
    assert np.abs(ours[inner] - reference[inner]).mean() < 1.0


def test_undistorter_points_round_trip_and_scaling():
    cal = _calibration()
    undistort = cal.undistorter()
    raw = np.array([[100.0, 80], [1200, 650], [640, 360]])
    flat = undistort.undistort_points(raw)
    assert np.allclose(undistort.distort_points(flat), raw, atol=1e-3)
    # Same lens, half resolution video mode: a frame of that size gets its own maps.
    half = undistort(np.zeros((360, 640), np.uint8))
    assert half.shape == (360, 640)
    with pytest.raises(UserError, match="aspect ratio"):
        undistort(np.zeros((480, 640), np.uint8))


def test_camera_calibration_argument_helpers(tmp_path):
    import argparse

    from piecebridge.calibration.camera import (
        add_camera_calibration_argument,
        undistorter_from_args,
    )

    parser = argparse.ArgumentParser()
    add_camera_calibration_argument(parser)
    assert undistorter_from_args(parser.parse_args([])) is None
    _calibration().save(tmp_path / "c.yaml")
    undistort = undistorter_from_args(
        parser.parse_args(["--camera-calibration", str(tmp_path / "c.yaml")])
    )
    assert undistort.image_size == (1280, 720)
    with pytest.raises(UserError):
        undistorter_from_args(parser.parse_args(["--camera-calibration", str(tmp_path / "x.yaml")]))


def test_every_command_that_reads_photos_undistorts_alike(tmp_path):
    """A board setup learned by ``calibrate board`` (vision's ``load_undistorter``) is in
    undistorted pixels: the referee's frames (``undistorter_from_args``) and ``score``'s must
    be undistorted the same way, or the learned pose misses the board."""
    import argparse

    from piecebridge.calibration.camera import (
        add_camera_calibration_argument,
        undistorter_from_args,
    )
    from piecebridge.vision.reader import load_undistorter

    from piecebridge.commands.score import _undistorter

    path = tmp_path / "c.yaml"
    _calibration().save(path)
    parser = argparse.ArgumentParser()
    add_camera_calibration_argument(parser)
    referee = undistorter_from_args(parser.parse_args(["--camera-calibration", str(path)]))
    see = load_undistorter(path)
    score = _undistorter(str(path))
    assert not np.allclose(see.new_camera_matrix(), _calibration().camera_matrix)  # alpha 1
    for other in (referee, score):
        np.testing.assert_array_equal(other.new_camera_matrix(), see.new_camera_matrix())
