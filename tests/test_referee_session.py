"""The referee session's reader: set up from a recording as its frames are read."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import piecebridge.vision.learn as learn
from piecebridge.vision.reader import load_frame

from piecebridge.referee.session import _reader
from piecebridge.referee.sources import RecordingSource

DEMO = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "demo"


def test_a_recordings_calibration_photo_is_learned_undistorted_as_its_frames_are_read(
    monkeypatch,
):
    """Reviewer: the setup was learned from the raw calibration photo while every frame was
    undistorted, so with a lens file the learned pose missed the board."""
    learned_from = []

    def learn_setup(frame: np.ndarray) -> tuple[None, dict]:
        learned_from.append(frame)
        return None, {}

    def undistort(frame: np.ndarray) -> np.ndarray:
        return frame[::-1].copy()  # stands for any change a lens file makes

    monkeypatch.setattr(learn, "learn_setup", learn_setup)
    source = RecordingSource(DEMO)
    _reader(source, None, undistort)
    raw = load_frame(source.calibration_path)
    assert len(learned_from) == 1 and np.array_equal(learned_from[0], raw[::-1])
