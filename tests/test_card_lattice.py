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


def _pale_grid_with_pen_run(pull: float) -> tuple[np.ndarray, np.ndarray]:
    """An ink response (rectified frame) of a pale printed grid whose lines bow a little
    (as a curled card's do), with a run of black pen strokes lying ``pull`` cells
    below the top frame along four cells; and the true rows of the horizontal lines."""
    cell, m = vc.CELL_PX, round(vc.MARGIN_CELLS * vc.CELL_PX)
    size = vc._canonical_size()
    x = np.arange(size)
    bow = 2.0 * ((x - size / 2) / (5 * cell)) ** 2  # 2 px sag at the ends
    resp = np.zeros((size, size), np.float32)
    rows = np.array([m + i * cell + bow for i in range(11)])  # (11, size)
    yy = np.arange(size)[:, None]
    for i in range(11):
        resp = np.maximum(resp, 0.25 * np.exp(-0.5 * ((yy - rows[i]) / 1.2) ** 2))
        col = m + i * cell
        resp[:, col - 1 : col + 2] = np.maximum(resp[:, col - 1 : col + 2], 0.25)
    y_pen = round(m + pull * cell)
    resp[y_pen - 2 : y_pen + 3, m + 2 : m + 4 * cell] = 0.9  # black pen along the frame
    return resp, rows


def test_a_pale_line_is_not_pulled_onto_pen_strokes_beside_it():
    """The top line of a pale grey print runs 0.3 cell above a row of black pen strokes
    along four cells: fitted alone, its quadratic bent towards the strokes (9 px, at
    the frame's end); fitted with the other ten lines as one smooth family it stays on
    the print."""
    resp, rows = _pale_grid_with_pen_run(0.3)
    m = vc.MARGIN_CELLS * vc.CELL_PX
    fits = vc._follow_lines(resp, 0, m, vc.CELL_PX, 0.4)
    x = np.arange(round(m), round(m + 10 * vc.CELL_PX))
    for i in (0, 1, 5, 10):
        assert np.abs(np.polyval(fits[i], x) - rows[i][x]).max() < 0.5, i


@pytest.mark.parametrize("index", [7, 45])
def test_lattice_of_pale_lines_among_pen_marks(index):
    """Alt-style tune photos, the grid lines paler than the pen: 7 (light grey lines,
    labels in tinted ruled cells, black pen crosses): fitted line by line, its lines
    wandered onto the strokes, 0.73 cell at the worst crossing; 45 (a green print): the
    top frame of the right grid bent onto a row of black o's (0.5-0.7 cell), so far that
    the grid no longer matched its place."""
    img, _ = split_photo("tune", index, style="alt")
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    views = vc.orient_grids(grey, [vc.refine_lattice(grey, q) for q in vc.find_grids(grey)])
    assert len(views) == 2
    for view, true in zip(views, true_lattices("tune", index, style="alt"), strict=True):
        d = (view.lattice - true) @ _grid_axes(true).T
        assert np.abs(d).max() < 0.1


def test_a_corner_cut_off_the_web_is_put_back():
    """The outline of a grid whose top-left cells broke off the web (thin lines under a
    shadow) is a pentagon; its quadrilateral is the four long sides extended, not the
    cut kept as a side."""
    square = np.array([[100, 0], [100, 100], [0, 100], [0, 40], [40, 0]], np.float64)
    hull = cv2.convexHull(square.astype(np.int32))
    quad = vc._cut_corner_quad(square, hull)
    want = np.array([[100, 0], [100, 100], [0, 100], [0, 0]], np.float64)
    assert np.abs(quad - want).max() < 1e-6


def test_a_grid_whose_web_broke_is_found_in_place():
    """Alt tune photo 149: thin black lines (0.09 mm) under a shadow, so the right grid's
    top-left 4x4 cells broke off its web; the outline's quadrilateral missed that corner
    by 1.2 cells and the lattice settled a whole cell off (before the line family too).
    Fragile: the photo as rendered, not stored again as JPEG, was found before too."""
    img, _ = split_photo("tune", 149, style="alt")
    # stored as the benchmarks store it (JPEG 97 over the renderer's own JPEG)
    jpeg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 97])[1]
    grey = cv2.imdecode(jpeg, cv2.IMREAD_GRAYSCALE)
    views = vc.orient_grids(grey, [vc.refine_lattice(grey, q) for q in vc.find_grids(grey)])
    assert len(views) == 2
    for view, true in zip(views, true_lattices("tune", 149, style="alt"), strict=True):
        d = (view.lattice - true) @ _grid_axes(true).T
        assert np.abs(d).max() < 0.1
