"""The grid finder on tune photos whose outline is not the frame (``vision/card.py``)."""

import cv2
import numpy as np
import pytest
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


@pytest.mark.parametrize("index", [82, 150])
def test_label_cells_dropped_on_the_header_sides(index):
    """Alt-style tune photos with labels in ruled cells (an 11x11 web). 82: tinted header
    cells with faint labels, whose contrast over each cell's middle was below the
    game column's; 150: a turned card whose far game column, pencilled in most cells,
    outscored the header column. The header is the corner cell holding nothing with
    every cell of its row and column inked."""
    img, truth = split_photo("tune", index, style="alt")
    assert truth["style"]["design"]["boxed_labels"]
    quads = vc.find_grids(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert len(quads) == 2
    errs = [_corner_error_cells(q, truth["corners_px"]) for q in quads]
    assert max(errs) < 0.85, errs
