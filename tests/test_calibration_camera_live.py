"""Live calibration from a video file or a folder of frames (no camera needed)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from piecebridge.calibration.camera import load_camera_calibration, parse_pattern
from piecebridge.calibration.camera_live import LiveCalibrator

from piecebridge.cli import main
from piecebridge.synth.calibration_target import TargetScene, hand_held_video
from piecebridge.synth.photo import Camera

PATTERN = parse_pattern("chessboard:7x5", 25)
LENS = Camera(
    image_size=(320, 240),
    focal_px=300.0,
    principal_px=(162.0, 118.0),
    dist_coeffs=(-0.25, 0.07, 0.0, 0.0, 0.0),
)


@pytest.fixture(scope="module")
def video_frames():
    """14 held poses (3 still frames each) with a motion-blurred frame between them."""
    return hand_held_video(TargetScene.of(PATTERN), LENS, 14, np.random.default_rng(1))


def test_keeps_only_still_frames_that_add_coverage(video_frames):
    live = LiveCalibrator(PATTERN)
    kinds, kept_still = [], []
    for index, (frame, still) in enumerate(video_frames):
        event = live.feed(f"f{index:03d}", frame)
        kinds.append(event.kind)
        if event.kind == "kept":
            kept_still.append(still)
        if event.done:
            break
    assert kept_still and all(kept_still), "a moving frame was kept"
    assert kinds.count("kept") == len(live.views) >= live.min_views
    assert "moving" in kinds
    assert "redundant" in kinds  # the 3rd frame of a hold adds nothing new
    # At most one view per held pose: names of kept frames are at least 2 apart.
    indices = [int(v.name[1:]) for v in live.views]
    assert min(np.diff(indices)) >= 2
    assert live.stable
    cal = live.final_fit().calibration
    assert abs(cal.fx - 300.0) / 300.0 < 0.02


def test_folder_of_frames_through_the_command(video_frames, tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    for index, (frame, _) in enumerate(video_frames):
        cv2.imwrite(str(folder / f"frame{index:03d}.png"), frame)
    out = tmp_path / "live.yaml"
    code = main(
        ["calibrate", "camera", "--frames", str(folder), "--pattern", "chessboard:7x5",
         "--square-mm", "25", "--out", str(out), "--json", "--save-views", str(tmp_path / "kept"),
         "--preview", str(tmp_path / "preview.png")]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0
    result = json.loads(captured.out)
    assert result["images_used"] >= 8
    assert "kept view 1" in captured.err and "estimate stable" in captured.err
    assert abs(load_camera_calibration(out).fx - 300.0) / 300.0 < 0.02
    preview = cv2.imread(str(tmp_path / "preview.png"))
    assert preview is not None and preview.shape == (240, 320, 3)
    assert len(list((tmp_path / "kept").glob("*.png"))) == result["images_used"] + len(
        result["images_rejected"]
    )


def test_video_file_source(video_frames, tmp_path, capsys):
    path = tmp_path / "show.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, LENS.image_size)
    if not writer.isOpened():
        pytest.skip("no MJPG writer in this OpenCV build")
    for frame, _ in video_frames:
        writer.write(frame)
    writer.release()
    out = tmp_path / "video.yaml"
    code = main(
        ["calibrate", "camera", "--video", str(path), "--pattern", "chessboard:7x5",
         "--square-mm", "25", "--out", str(out), "--no-report"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert abs(load_camera_calibration(out).fx - 300.0) / 300.0 < 0.03


def test_video_without_target_is_one_clear_error(tmp_path, capsys):
    folder = tmp_path / "empty"
    folder.mkdir()
    for index in range(3):
        cv2.imwrite(str(folder / f"{index}.png"), np.full((240, 320), 90, np.uint8))
    out = tmp_path / "none.yaml"
    code = main(
        ["calibrate", "camera", "--frames", str(folder), "--pattern", "chessboard:7x5",
         "--square-mm", "25", "--out", str(out)]
    )  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and not out.exists()
    assert err[-1].startswith("piecebridge: error: no still view")
    missing = ["--video", str(tmp_path / "nope.mp4")]
    args = ["--pattern", "chessboard:7x5", "--square-mm", "25", "--out", str(out)]
    assert main(["calibrate", "camera", *missing, *args]) == 1
    assert "nope.mp4" in capsys.readouterr().err


def test_missing_camera_is_one_clear_line(tmp_path, capsys):
    out = tmp_path / "cam.yaml"
    args = ["--pattern", "chessboard:7x5", "--square-mm", "25", "--out", str(out)]
    assert main(["calibrate", "camera", "--camera", "97", *args]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["piecebridge: error: cannot open camera 97"] and not out.exists()
