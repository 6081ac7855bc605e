"""Glare as a camera records it: bright glare clips a coloured tile's strongest channels, so
the cell's hue turns as well as pales (benchmarks/results/vision_reflec.md, "Seventh session:
cell rules round 13"). Made-up colours and a drawn board, about a second."""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.calibration.geometry import N
from piecebridge.vision.cells import (
    CHROMA_WEIGHT,
    WASHED_TINT,
    PieceLooks,
    classify,
    glare_tints,
)
from piecebridge.vision.raster import FACE_PX, MARGIN

#: A pale cyan-blue tile (sRGB, BGR order) with faint print: its blue channel is its strongest.
TILE_BGR = (230, 190, 110)
PALE_HAND_BGR = (175, 200, 240)


def _linear(bgr) -> np.ndarray:
    v = np.asarray(bgr, np.float64) / 255
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _recorded(linear: np.ndarray) -> np.ndarray:
    """What a camera stores: each channel clipped at full scale, then the sRGB curve."""
    v = np.clip(linear, 0.0, 1.0)
    return np.round(255 * np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055))


def _lab(bgr) -> np.ndarray:
    """OpenCV 8-bit Lab of one sRGB colour."""
    px = np.uint8(np.clip(bgr, 0, 255)).reshape(1, 1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0].astype(np.float64)


def test_clipped_glare_is_glare_and_a_pale_hand_is_not():
    tile = _lab(TILE_BGR)
    tile_ab, tile_light = tile[1:], tile[0]
    glared = _lab(_recorded(_linear(TILE_BGR) + 0.6))  # blue and green clip, red does not
    hand = _lab(PALE_HAND_BGR)
    colours = np.array(
        [[c[0], *((c[1:] - tile_ab) * CHROMA_WEIGHT)] for c in (glared, hand)], np.float64
    )
    plain = glare_tints(colours, tile_ab)  # the tile paled toward white in Lab alone
    recorded = glare_tints(colours, tile_ab, tile_light)
    # The clipped glare leaves the paled-tile segment (why such cells stayed unknown) ...
    assert plain[0] >= WASHED_TINT
    # ... but lies on the colours glare over this tile records; a pale hand on neither.
    assert recorded[0] < 0.25 * WASHED_TINT
    assert recorded[1] > 3 * WASHED_TINT and plain[1] > 3 * WASHED_TINT


def _board(glare: float, dark_discs: tuple[str, ...] = ()) -> np.ndarray:
    """A rectified board (FACE_PX, MARGIN) of faintly printed tiles, ``glare`` white light
    (linear) added over cells b5-d7, and a flat pale hand over e2-g3 (its lines hidden);
    a near-black disc (0.45 cell, blurred 3 px: a dark piece from above) in each cell of
    ``dark_discs``, under the glare."""
    m, n = round(MARGIN * FACE_PX), round((N + 2 * MARGIN) * FACE_PX)
    img = np.empty((n, n, 3))
    img[:] = _linear(TILE_BGR)
    for k in range(N // 2):  # each tile's cross, printed at 0.6 of the tile's light
        c = m + (2 * k + 1) * FACE_PX
        img[:, c - 2 : c + 2] = img[c - 2 : c + 2, :] = 0.6 * _linear(TILE_BGR)
    for cell in dark_discs:
        col, row = "abcdefgh".index(cell[0]), int(cell[1])
        centre = (m + col * FACE_PX + FACE_PX // 2, m + (N - row) * FACE_PX + FACE_PX // 2)
        disc = np.zeros((n, n), np.float32)
        cv2.circle(disc, centre, int(0.45 * FACE_PX), 1.0, -1)
        disc = cv2.GaussianBlur(disc, (0, 0), 3)[..., None]
        img = img * (1 - disc) + 0.02 * disc
    spot = np.zeros((n, n))
    y0 = x0 = m + FACE_PX
    spot[y0 - 6 : y0 + 3 * FACE_PX + 6, x0 - 6 : x0 + 3 * FACE_PX + 6] = glare
    img += cv2.GaussianBlur(spot, (0, 0), 3)[..., None]
    hy, hx = m + 5 * FACE_PX, m + 4 * FACE_PX
    img[hy - 4 : hy + 2 * FACE_PX + 4, hx - 4 : hx + 3 * FACE_PX + 4] = _linear(PALE_HAND_BGR)
    noisy = _recorded(img) + np.random.default_rng(0).normal(0, 1.5, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


GLARED = [f"{c}{r}" for c in "bcd" for r in (5, 6, 7)]
HAND = [f"{c}{r}" for c in "efg" for r in (2, 3)]


def test_cells_under_clipping_glare_read_empty_at_most_half_sure():
    cells = {d.cell: d for d in classify(_board(0.6), PieceLooks.default())}
    for c in GLARED:
        d = cells[c]
        assert d.covered  # the glare washed the faint print out
        assert d.kind == "empty" and 0 < d.confidence <= 0.5, (c, d.kind, d.confidence)
    for c in HAND:  # lighter than the tiles too, but of its own hue
        assert cells[c].kind == "unknown", c


def test_glare_clipping_nothing_stays_read_as_before():
    # Weak glare clips no channel: its cells keep their lines and read empty in the open.
    cells = {d.cell: d for d in classify(_board(0.05), PieceLooks.default())}
    assert all(cells[c].kind == "empty" and not cells[c].covered for c in GLARED)
