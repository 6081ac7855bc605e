"""Hidden printed lines (:mod:`piecebridge.vision.occlusion`): a hand hides them, a shadow
only dims them with their tile (cell rules round 11, moved here from
tests/test_vision_cells_round11.py when ``hidden_fractions``, used by that test alone, went)."""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.calibration.geometry import N
from piecebridge.vision.occlusion import covered_cells, hidden_share, line_strengths
from test_vision_cells import _rectified_board


def _linear(srgb: np.ndarray) -> np.ndarray:
    v = srgb / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _srgb(linear: np.ndarray) -> np.ndarray:
    v = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
    return np.clip(v * 255, 0, 255).astype(np.uint8)


def test_lines_in_a_deep_shadow_are_seen_once_the_light_is_made_up_for():
    """A shadow scales the light of a line and its tile alike (here a twentieth, the
    south-east quarter); a hand (a flat blob, light or dark) hides the lines."""
    light = _linear(_rectified_board().astype(np.float64))
    light[180:340, 180:340] *= 0.05  # cells e1-h4 (rows and columns 4-7) in shadow
    for hand in (150, 20):
        gray = _srgb(light)
        cv2.circle(gray, (120, 120), 70, hand, -1)  # over the north-west
        lab_l = cv2.cvtColor(cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR), cv2.COLOR_BGR2LAB)[..., 0]
        # As cells.measure judges them: the line pieces' strengths, hidden as they look
        # and hidden relative to the light falling there.
        strengths = line_strengths(lab_l, 40, 0.5)
        seen = covered_cells(hidden_share(strengths, 40)).reshape(N, N)
        lit = covered_cells(hidden_share(strengths, 40, lab_l)).reshape(N, N)
        assert seen[5:, 5:].all()  # as the lines look, the shadow hides them
        assert not lit[5:, 5:].any()  # made up for, they show
        assert lit[2, 2] and lit[1, 2] and lit[3, 3]  # the hand still hides its cells
