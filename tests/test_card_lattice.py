"""The cell lattice against the printed lines the renderer drew (``vision/card.py``).

The renderer knows where each printed line crossing lands in a photo (print tilt,
curl, placement, camera, lens): ``benchmarks/card_lattice.py`` replays a split photo's
draws and projects them, and measures the reader's lattice against them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from piecebridge.vision import card as vc

from piecebridge.synth.card import split_photo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from card_lattice import true_lattices


def test_rectified_pixels_sit_where_the_lattice_says():
    """A lattice equal to the rectified pixel grid maps every rectified pixel to itself,
    the outermost ones too. (The coarse map was read half a pixel late, so the whole
    lattice came out 1/64 cell up and left of the printed lines, and the outer 4 pixels
    of the margin were held at the edge value.)"""
    m = vc.MARGIN_CELLS * vc.CELL_PX
    ideal = m + np.arange(11) * vc.CELL_PX
    identity = np.stack(np.meshgrid(ideal, ideal), -1)
    size = vc._canonical_size()
    pos = vc._grid_map(identity, size, vc.CELL_PX, vc.MARGIN_CELLS)
    want = np.stack(np.meshgrid(np.arange(size), np.arange(size)), -1)
    assert np.abs(pos - want).max() < 1e-3


def _grid_axes(true: np.ndarray) -> np.ndarray:
    """Matrix taking a photo displacement to (along the rows, along the columns) in cells."""
    ex = np.median(np.diff(true, axis=1), axis=(0, 1))
    ey = np.median(np.diff(true, axis=0), axis=(0, 1))
    return np.linalg.inv(np.stack([ex, ey], 1))


@pytest.fixture(scope="module")
def curled_photo():
    """Classic tune photo 1144: the card curled along its length (ends 2.4 mm up), so
    the right grid's rows bend and its far column is shifted 0.3 cell against a flat
    card's."""
    img, truth = split_photo("tune", 1144)
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), truth, true_lattices("tune", 1144)


def test_lattice_follows_the_printed_crossings_of_a_curled_card(curled_photo):
    grey, _, trues = curled_photo
    views = vc.orient_grids(grey, [vc.refine_lattice(grey, q) for q in vc.find_grids(grey)])
    assert len(views) == 2
    for view, true in zip(views, trues, strict=True):
        d = (view.lattice - true) @ _grid_axes(true).T  # (11, 11, 2) in cells
        assert np.abs(d).max() < 0.05  # every crossing within 1/20 cell
        # and no bias: each way the mean is under 1/200 cell (it was 1/64)
        assert np.abs(d.reshape(-1, 2).mean(axis=0)).max() < 0.005, d.reshape(-1, 2).mean(0)
