"""A setup learned through a lens file is only used through it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from piecebridge.calibration.camera import CameraCalibration

from piecebridge.cli import main

TUNE = Path(__file__).resolve().parents[1] / "fixtures" / "images" / "reflec" / "tune"


def test_a_setup_learned_through_a_lens_file_is_refused_without_it(tmp_path, capsys):
    """Reviewer: the setup's ``camera_calibration`` was written and never read, so such a
    setup used without the lens file read frames in other pixels than it was learned in."""
    photo = TUNE / "tune-rig0000-calibration.jpg"
    h, w = cv2.imread(str(photo)).shape[:2]
    K = np.array([[1.2 * w, 0, (w - 1) / 2], [0, 1.2 * w, (h - 1) / 2], [0, 0, 1]])
    lens = tmp_path / "cam.yaml"
    CameraCalibration(K, np.zeros(5), (w, h), 0.2).save(lens)
    setup = tmp_path / "setup.json"
    board = ["calibrate", "board", str(photo), "--out", str(setup)]
    assert main([*board, "--camera-calibration", str(lens)]) == 0
    shot = str(TUNE / "tune-00000.jpg")
    capsys.readouterr()
    assert main(["see", shot, "--setup", str(setup)]) == 1
    assert "learned through the lens file" in capsys.readouterr().err
    assert main(["see", shot, "--setup", str(setup), "--camera-calibration", str(lens)]) == 0
