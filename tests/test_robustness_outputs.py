"""Output files a user names wrongly are refused up front, in one line; outputs are whole.

Found by the robustness audit: OpenCV raised its own error (a traceback) for an image
name without a known ending (``--png out.txt``, ``--png somefolder``), and the referee
found out only after the whole game; ``calibrate board --out FOLDER`` studied the photo
and then printed write_text's traceback.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from piecebridge import outputs
from piecebridge.cli import main
from piecebridge.errors import UserError

BOARD = {"format": "reflec-board/1", "coins": [], "pawns": [{"cell": "a1", "suit": "suns"}]}


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("name", ["out.txt", "folder", "noending"])
def test_reflec_show_png_to_a_name_opencv_cannot_write(tmp_path, capsys, name):
    (tmp_path / "folder").mkdir()
    board = tmp_path / "board.json"
    board.write_text(json.dumps(BOARD))
    assert main(["reflec", "show", str(board), "--png", str(tmp_path / name)]) == 1
    assert "cannot write" in _one_line(capsys)


def test_referee_refuses_a_bad_png_before_the_game(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    code = main(["referee", "--speed", "0", "--quiet", "--log", str(log), "--png", "x.txt"])
    assert code == 1
    assert "x.txt" in _one_line(capsys)
    assert not log.exists()  # refused before anything was refereed or written


def test_calibrate_board_refuses_a_folder_as_out_before_learning(tmp_path, capsys):
    photo = tmp_path / "never-read.jpg"  # not even read: the --out check comes first
    assert main(["calibrate", "board", str(photo), "--out", str(tmp_path)]) == 1
    assert "is a folder" in _one_line(capsys)


def test_a_write_interrupted_before_the_rename_leaves_the_old_file_and_no_part(
    tmp_path, monkeypatch
):
    target = tmp_path / "setup.json"
    target.write_text("old")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        outputs.write_text(target, "new")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["setup.json"]


def test_a_link_is_followed_and_a_file_keeps_its_mode(tmp_path):
    target = tmp_path / "setup.json"
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "current.json"
    link.symlink_to(target)
    outputs.write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o600


def test_a_device_is_written_in_place_not_renamed_over(tmp_path):
    link = tmp_path / "out.json"  # as `--out /dev/stdout` would be, through a link
    link.symlink_to(os.devnull)
    outputs.write_text(link, "anything")
    assert link.is_symlink() and Path(os.devnull).exists() and not Path(os.devnull).is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_write_image_by_suffix_and_refusals(tmp_path):
    image = np.zeros((8, 8, 3), np.uint8)
    outputs.write_image(tmp_path / "a.jpg", image)
    assert (tmp_path / "a.jpg").read_bytes()[:2] == b"\xff\xd8"
    with pytest.raises(UserError, match=r"folder .* does not exist"):
        outputs.write_image(tmp_path / "no" / "a.png", image)
    with pytest.raises(UserError, match="image file names end in"):
        outputs.write_image(tmp_path / "a.yaml", image)


def test_referee_log_that_is_a_folder_is_named_as_such(tmp_path, capsys):
    # was "the log exists already (use --resume FOLDER to continue it)"
    assert main(["referee", "--speed", "0", "--quiet", "--log", str(tmp_path)]) == 1
    assert "is a folder" in _one_line(capsys)


@pytest.mark.parametrize("command", ["see", "score"])
def test_a_debug_dir_that_is_a_file_is_refused_before_reading(tmp_path, capsys, command):
    # was "FILE: File exists" after the read (score batches: every photo skipped so)
    in_the_way = tmp_path / "debug"
    in_the_way.write_text("x")
    photo = tmp_path / "never-read.jpg"
    photo.write_bytes(b"not an image")
    assert main([command, str(photo), "--debug-dir", str(in_the_way)]) == 1
    assert "a file of that name is in the way" in _one_line(capsys)


def test_calibrate_camera_refuses_its_report_path_before_the_fit(tmp_path, capsys):
    # the report was written after the calibration file: a bad --report failed after the
    # fit with the .yaml already written (the spec: nothing is written)
    out = tmp_path / "cam.yaml"
    report = tmp_path / "missing" / "report.png"
    args = ["calibrate", "camera", str(tmp_path / "never-read.jpg"), "--out", str(out)]
    args += ["--pattern", "chessboard:9x6", "--square-mm", "20", "--report", str(report)]
    assert main(args) == 1
    assert "report.png" in _one_line(capsys)
    assert not out.exists()


def test_ctrl_c_during_live_calibration_calibrates_from_the_views_kept(
    tmp_path, monkeypatch, capsys
):
    # A live camera never ends: Ctrl-C was the only way out, and it threw every view away.
    from piecebridge.calibration.camera import load_camera_calibration
    from test_calibration_camera_live import LENS, PATTERN

    from piecebridge.commands import calibrate_camera
    from piecebridge.synth.calibration_target import TargetScene, hand_held_video

    frames = hand_held_video(TargetScene.of(PATTERN), LENS, 14, np.random.default_rng(1))

    def camera(*args):
        for index, (frame, _) in enumerate(frames):
            yield f"frame{index:03d}", frame
        raise KeyboardInterrupt  # the user, before the estimate settled

    monkeypatch.setattr(calibrate_camera, "open_frames", camera)
    out = tmp_path / "live.yaml"
    args = ["calibrate", "camera", "--camera", "0", "--pattern", "chessboard:7x5"]
    args += ["--square-mm", "25", "--out", str(out), "--max-views", "99", "--min-views", "99"]
    assert main(args) == 0
    assert "stopped by Ctrl-C: calibrating from the" in capsys.readouterr().err
    assert abs(load_camera_calibration(out).fx - 300.0) / 300.0 < 0.05


@pytest.mark.parametrize(
    "command",
    [["print", "card"], ["print", "chessboard", "4x3"], ["cards", "new", "rotator"]],
)
def test_printed_and_dealt_outputs_are_whole_or_absent_after_ctrl_c(tmp_path, monkeypatch, command):
    out = tmp_path / ("out.json" if command[0] == "cards" else "out.pdf")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    assert main([*command, "--out", str(out)]) == 130
    assert list(tmp_path.iterdir()) == []  # no torn file, no temporary left behind
