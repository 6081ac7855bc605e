"""Helpers for the vision tests: how far a learned setup lies from the renderer's truth."""

from __future__ import annotations

import numpy as np
from piecebridge.calibration.geometry import cell_centre


def setup_off_by(setup, truth: dict) -> float:
    """Largest distance (cells) of the setup's cell centres from the renderer's."""
    synth = truth["synth"]
    corners = np.array(synth["board_corners_px"])
    cell = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1).mean() / 8
    centres = synth["cell_centers_px"]
    got = setup.pose.to_image(np.array([cell_centre(c) for c in centres]))
    return float(np.linalg.norm(got - np.array(list(centres.values())), axis=1).max() / cell)
