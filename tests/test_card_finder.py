"""The grid finder on tune photos whose outline is not the frame (``vision/card.py``)."""

import cv2
import numpy as np
from piecebridge.vision import card as vc

from piecebridge.synth.card import split_photo


def _corner_error_cells(quad: np.ndarray, truth_quads: list) -> float:
    """Worst corner of ``quad`` from the nearest corner of the best-matching true frame,
    in cells of that grid (a row cut off or added is about one cell)."""
    errs = []
    for t in np.asarray(truth_quads, float):
        cell = np.mean(np.linalg.norm(t - np.roll(t, 1, axis=0), axis=1)) / 10
        errs.append(max(np.linalg.norm(t - c, axis=1).min() for c in quad) / cell)
    return min(errs)


def test_a_game_column_is_not_dropped_as_label_cells():
    """Tune photo 745 (classic card, labels not in ruled cells): the outline of its right
    grid misses the bottom-left corner by 0.7 cell, so the warped vertical lines run
    unevenly and look like 12 on that axis alone; a column of X's along the edge then
    looked like labels, and the finder cut a game column off (corner 0.95 cell out).
    Boxed labels add a header row and a header column, so 12 lines on one axis only are
    not label cells: the outline is left to the line follower."""
    img, truth = split_photo("tune", 745)
    quads = vc.find_grids(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert len(quads) == 2
    errs = [_corner_error_cells(q, truth["corners_px"]) for q in quads]
    assert max(errs) < 0.85, errs
