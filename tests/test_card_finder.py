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


@pytest.mark.parametrize("index", [82, 150, 223, 402])
def test_label_cells_dropped_on_the_header_sides(index):
    """Alt-style tune photos with labels in ruled cells (an 11x11 web). 82: tinted header
    cells with faint labels, whose contrast over each cell's middle was below the
    game column's; 150: a turned card whose far game column, pencilled in most cells,
    outscored the header column. The header is the corner cell holding nothing with
    every cell of its row and column inked. 223 (pen shading and pen marks, soft focus)
    and 402 (pen and pencil over a heavy frame and every-fifth lines): the ink between
    the lines raised the web's response at the 11 lines' places as well as at the 12
    lines', so the 12 were not clearly counted and the header stayed in (a corner a cell
    or more out); the lines are counted above the web's typical ink
    (:func:`piecebridge.vision.card._counts_eleven`)."""
    img, truth = split_photo("tune", index, style="alt")
    assert truth["style"]["design"]["boxed_labels"]
    quads = vc.find_grids(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert len(quads) == 2
    errs = [_corner_error_cells(q, truth["corners_px"]) for q in quads]
    assert max(errs) < 0.85, errs


def test_twelve_lines_are_counted_above_the_webs_typical_ink():
    """A profile across an 11x11 web with ink between its lines (marks and shading,
    heaviest where a 10x10 web's lines would be: its comb of 11 above twice the other
    only when counted from the web's median) still counts 12 lines; a 10x10 web's
    profile with the same ink does not, nor does either web without the ink."""
    x = np.arange(264)

    def web(n: int, ink: float = 0.15) -> np.ndarray:
        near = np.min(np.abs(x[:, None] - np.linspace(0, 263, n + 1)), axis=1) < 2
        return near * 0.35 + 0.12 + ink * np.cos(x * 10 * np.pi / 263) ** 2

    assert vc._counts_eleven(web(11)) and not vc._counts_eleven(web(10))
    assert vc._counts_eleven(web(11, 0.0)) and not vc._counts_eleven(web(10, 0.0))
