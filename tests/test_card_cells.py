"""Card cell features: mark shape in the grid's frame, shading against the whole grid."""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.vision import card_cells as cc

CELL = cc.CELL_PX
M = round(cc.MARGIN_CELLS * CELL)
SIZE = 2 * M + 10 * CELL
# column offsets of the new feature groups
SHAPE0 = cc.PATCH_BINS**2 + cc.N_STATS + cc.HOG_FEATURES
SHADE0 = SHAPE0 + cc.N_SHAPE
C4 = SHAPE0 + cc.POLAR_BINS + 2  # cos(4 theta): +1 for a plus, -1 for an X


def blank_grid(paper: float = 230) -> np.ndarray:
    """A rectified grid: paper with printed lines every ``CELL`` pixels."""
    img = np.full((SIZE, SIZE), paper, np.float32)
    for i in range(11):
        p = M + i * CELL
        img[p - 1 : p + 1, M : M + 10 * CELL] = 40
        img[M : M + 10 * CELL, p - 1 : p + 1] = 40
    return img


def cell_centre(row: int, col: int) -> tuple[float, float]:
    return M + (col + 0.5) * CELL, M + (row + 0.5) * CELL


def draw(img, row, col, mark, size=0.35, offset=(0.0, 0.0), width=3):
    cx, cy = cell_centre(row, col)
    cx += offset[0] * CELL
    cy += offset[1] * CELL
    h = size * CELL
    segs = {
        "x": [((-h, -h), (h, h)), ((h, -h), (-h, h))],
        "plus": [((-h, 0), (h, 0)), ((0, -h), (0, h))],
    }[mark]
    for (x0, y0), (x1, y1) in segs:
        p = (round(cx + x0), round(cy + y0))
        q = (round(cx + x1), round(cy + y1))
        cv2.line(img, p, q, 60.0, width, cv2.LINE_AA)


def test_feature_count_matches_the_model_layout():
    feats = cc.grid_features(blank_grid().astype(np.uint8))
    assert feats.shape == (100, cc.N_FEATURES)
    assert np.isfinite(feats).all()


def test_x_and_plus_differ_in_the_four_fold_harmonic_wherever_they_sit():
    img = blank_grid()
    # small and large, centred and off-centre marks of both kinds
    cases = []
    for k, (size, off) in enumerate([(0.22, (0, 0)), (0.4, (0.1, -0.08)), (0.3, (-0.1, 0.1))]):
        draw(img, 2, 2 * k, "x", size, off)
        draw(img, 6, 2 * k, "plus", size, off)
        cases.append((2 * 10 + 2 * k, 6 * 10 + 2 * k))
    feats = cc.grid_features(img.astype(np.uint8))
    for x_cell, plus_cell in cases:
        assert feats[x_cell, C4] < -0.2
        assert feats[plus_cell, C4] > 0.2


def test_shading_in_the_middle_of_a_territory_stays_dark_against_the_grid():
    """A 5x5 shaded block: its middle cell has no paper within 1.5 cells, so the
    local reference calls it blank; the whole-grid reference must not."""
    img = blank_grid()
    y0, x0 = M + 2 * CELL, M + 2 * CELL
    img[y0 : y0 + 5 * CELL, x0 : x0 + 5 * CELL] *= 0.7
    img = blank_grid_lines_over(img)
    feats = cc.grid_features(img.astype(np.uint8))
    middle, far = 4 * 10 + 4, 8 * 10 + 8
    darkness = SHADE0  # log-brightness below the fitted paper surface
    assert feats[middle, darkness] < -0.25
    assert abs(feats[far, darkness]) < 0.05
    # the grid's light/dark split puts them on opposite sides
    assert feats[middle, SHADE0 + 3] < 0 < feats[far, SHADE0 + 3]


def test_shading_edge_shows_a_step_and_an_even_light_falloff_does_not():
    img = blank_grid()
    xx = np.arange(SIZE)[None, :]
    img *= (1 - 0.3 * xx / SIZE).astype(np.float32)  # light falls off across the grid
    y0, x0 = M + 5 * CELL, M + 5 * CELL
    img[y0 : y0 + CELL, x0 : x0 + CELL] *= 0.7  # one shaded cell, F6
    img = blank_grid_lines_over(img)
    feats = cc.grid_features(img.astype(np.uint8))
    step_min = SHADE0 + 5
    assert feats[55, step_min] > 0.15
    assert abs(feats[22, step_min]) < 0.05


def blank_grid_lines_over(img: np.ndarray) -> np.ndarray:
    """Print the lines again on top (shading does not cover the print)."""
    for i in range(11):
        p = M + i * CELL
        img[p - 1 : p + 1, M : M + 10 * CELL] = 40
        img[M : M + 10 * CELL, p - 1 : p + 1] = 40
    return img
