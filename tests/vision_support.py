"""Helpers for the vision tests: how far a learned setup or pose lies from the renderer's truth."""

from __future__ import annotations

import numpy as np
from piecebridge.calibration.geometry import N, cell_centre
from piecebridge.calibration.pose import BoardPose


def setup_off_by(setup, truth: dict) -> float:
    """Largest distance (cells) of the setup's cell centres from the renderer's."""
    synth = truth["synth"]
    corners = np.array(synth["board_corners_px"])
    cell = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1).mean() / 8
    centres = synth["cell_centers_px"]
    got = setup.pose.to_image(np.array([cell_centre(c) for c in centres]))
    return float(np.linalg.norm(got - np.array(list(centres.values())), axis=1).max() / cell)


def corners_off(pose: BoardPose, truth: dict, dy: float = 0.0) -> float:
    """The largest distance (cells) of ``pose``'s board corners from the true ones (the
    photo cropped ``dy`` pixels at its top), in the quarter turn nearest them."""
    want = np.array(truth["synth"]["board_corners_px"], float) - [0.0, dy]
    got = pose.to_image(np.array([[0, 0], [N, 0], [N, N], [0, N]], float))
    cell = np.linalg.norm(want[1] - want[0]) / N
    return min(
        float(np.linalg.norm(np.roll(got, k, axis=0) - want, axis=1).max() / cell) for k in range(4)
    )
