"""Every named difficulty factor really changes the photo, in the way its name says.

Each test renders the same shot twice, with one factor at level 0 and at level 1 and all other
factors at the mild baseline; the shots share every random draw, so any difference is the
factor's doing.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from piecebridge.synth.reflec import FACTORS, Difficulty, sample

SIZE = (480, 270)


def _pair(factor: str, index: int = 1):
    lo = sample("tune", index, Difficulty.sweep(factor, 0.0), image_size=SIZE)
    hi = sample("tune", index, Difficulty.sweep(factor, 1.0), image_size=SIZE)
    return lo, hi


def _gray(shot) -> np.ndarray:
    return cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY).astype(float)


def _board(shot) -> np.ndarray:
    m = np.zeros(shot.image.shape[:2], np.uint8)
    corners = np.round(np.array(shot.truth["synth"]["board_corners_px"])).astype(np.int32)
    cv2.fillConvexPoly(m, corners, 1)
    return m.astype(bool)


def test_every_factor_changes_the_image():
    for factor in FACTORS:
        lo, hi = _pair(factor)
        assert lo.truth["synth"]["levels"][factor] == 0.0
        assert hi.truth["synth"]["levels"][factor] == 1.0
        diff = np.abs(_gray(lo) - _gray(hi)).mean()
        assert diff > 0.3, (factor, diff)
        # the position itself never changes with the difficulty
        assert lo.truth["coins"] == hi.truth["coins"] and lo.truth["pawns"] == hi.truth["pawns"]


def _skew(corners: np.ndarray) -> float:
    """How far opposite board edges differ in length (0 for a straight-down view)."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    return max(abs(1 - sides[0] / sides[2]), abs(1 - sides[1] / sides[3]))


def test_tilt_gives_perspective():
    lo, hi = _pair("tilt")
    assert hi.rig.camera.tilt_deg == pytest.approx(30.0)
    assert _skew(np.array(hi.truth["synth"]["board_corners_px"])) > 0.08
    assert _skew(np.array(lo.truth["synth"]["board_corners_px"])) < 0.03


def _edge_bow(shot) -> float:
    """Largest distance (px) of the board's north edge from the chord between its corners."""
    lay, cam = shot.rig.layout, shot.photo.camera
    a, b = lay.board_corners()[:2]
    pts = np.array([a + (b - a) * t for t in np.linspace(0, 1, 21)])
    p = cam.project(np.column_stack([pts, np.full(len(pts), lay.thickness_mm)]))
    d = p[-1] - p[0]
    n = np.array([-d[1], d[0]]) / np.linalg.norm(d)
    return float(np.abs((p - p[0]) @ n).max())


def test_lens_bends_straight_lines():
    lo, hi = _pair("lens")
    assert _edge_bow(lo) < 0.05
    assert _edge_bow(hi) > 1.0


def test_blur_removes_detail():
    lo, hi = _pair("blur")
    m = _board(lo)
    lap = [cv2.Laplacian(_gray(s), cv2.CV_64F)[m].var() for s in (lo, hi)]
    assert lap[1] < 0.3 * lap[0]


def test_noise_adds_grain():
    lo, hi = _pair("noise")
    m = _board(lo)

    def grain(s):
        g = _gray(s)
        return np.abs(g - cv2.GaussianBlur(g, (0, 0), 1.0))[m].mean()

    assert grain(hi) > 1.1 * grain(lo)


def test_light_makes_it_uneven():
    lo, hi = _pair("light")
    m = _board(lo)
    smooth = [cv2.GaussianBlur(_gray(s), (0, 0), 15) for s in (lo, hi)]
    ratio = smooth[1] / np.maximum(smooth[0], 1)
    assert ratio[m].std() > 0.05


def test_glare_washes_out_part_of_the_board_and_says_where():
    lo, hi = _pair("glare")
    m = _board(lo)
    bright = [(_gray(s)[m] > 240).sum() for s in (lo, hi)]
    assert bright[1] > bright[0] + 500
    assert lo.truth["synth"]["washed_out_cells"] == []
    washed = hi.truth["synth"]["washed_out_cells"]
    assert washed
    g = _gray(hi)
    for cell in washed:
        x, y = np.round(hi.truth["synth"]["cell_centers_px"][cell]).astype(int)
        assert g[max(y - 3, 0) : y + 4, max(x - 3, 0) : x + 4].mean() > 200


def test_occlusion_puts_a_hand_over_cells_and_says_which():
    lo, hi = _pair("occlusion")
    assert lo.truth["synth"]["occluded_cells"] == [] and not lo.photo.occlusion.any()
    cells = hi.truth["synth"]["occluded_cells"]
    assert len(cells) >= 4
    # the photo really changed at those cells' centres (the hand is drawn there)
    ga, gb = _gray(lo), _gray(hi)
    changed = 0
    for cell in cells:
        x, y = np.round(hi.truth["synth"]["cell_centers_px"][cell]).astype(int)
        if 0 <= x < SIZE[0] and 0 <= y < SIZE[1]:
            changed += abs(ga[y, x] - gb[y, x]) > 10 or hi.photo.occlusion[y, x] > 0.9
    assert changed >= 0.8 * len(cells)


def test_clutter_stays_off_the_board():
    lo, hi = _pair("clutter")
    m = _board(lo)
    d = np.abs(_gray(lo) - _gray(hi))
    assert d[~m].mean() > 0.5
    assert d[m].mean() < 0.2 * d[~m].mean()


def test_realistic_mix_varies_between_shots():
    levels = [sample("test", i, image_size=SIZE).truth["synth"]["levels"] for i in (0, 5)]
    assert levels[0] != levels[1]
    assert all(0.0 <= v <= 1.0 for lv in levels for v in lv.values())
