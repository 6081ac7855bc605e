"""Outlines from the net of lines taken by its sides (localisation round 6): lines that run
to the tile edges, with no line along the board's edge, make a net whose hull has its
corners cut off; pale tiles on a checked cloth whose squares are a cell wide, found from
those outlines on a frame twice the work width."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision.locate import (
    _line_outlines,
    _net_side_outlines,
    _net_side_subsets,
    find_board,
)

from piecebridge.synth import reflec


def _net_picture(cell: int = 20, margin: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """A light picture with the 7 inner lines of an 8x8 board drawn dark, each running the
    board's whole width and no line along its edge, and the board's true corners."""
    size = 8 * cell + 2 * margin
    img = np.full((size, size), 200, np.uint8)
    lo, hi = margin, margin + 8 * cell
    for k in range(1, 8):
        at = margin + k * cell
        cv2.line(img, (at, lo), (at, hi - 1), 60, 1)
        cv2.line(img, (lo, at), (hi - 1, at), 60, 1)
    corners = np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]], float)
    return img, corners


def _worst(quad: np.ndarray, truth: np.ndarray) -> float:
    """Worst distance (pixels) from a true corner to the nearest corner of ``quad``."""
    return float(np.linalg.norm(truth[:, None] - quad[None], axis=2).min(axis=1).max())


def test_a_net_without_edge_lines_is_outlined_by_its_sides_not_its_cut_corners():
    img, truth = _net_picture(cell=20)
    by_sides = _net_side_outlines(img)
    assert by_sides, "the net gave no outline"
    assert min(_worst(q, truth) for q in by_sides) < 0.15 * 20
    # The hull's corners (the outlines of the usual search) lie a good part of a cell in.
    by_corners = list(_line_outlines(img))
    assert by_corners and min(_worst(q, truth) for q in by_corners) > 0.3 * 20


@functools.cache
def _acrylic(index: int) -> reflec.Shot:
    """Tune acrylic game shot ``index`` (rig ``index // 4``) at 1920x1080."""
    return reflec.sample("tune", index, art="acrylic")


def _placed(pose: BoardPose, truth: np.ndarray) -> float:
    """Worst distance (cells) from a true board corner to the nearest found one."""
    misses = np.linalg.norm(truth[:, None] - pose.corners[None], axis=2).min(axis=1)
    return float(misses.max() / pose.cell_size_px())


@pytest.mark.parametrize(
    "index",
    [
        # Tune acrylic rig 20 shot 1: a blue checked cloth whose squares are a cell wide, the
        # white cloth showing in the tile gaps; no tile blobs, no crosses or cells as blobs,
        # and the net's hull corners were a cell off. Not found before round 6.
        81,
        # Tune acrylic rig 7 shot 2: glare washes out the lines of four cells on a green
        # checked cloth; the nets of the wider frame run into the cloth, the small frame's
        # net is cut short. Not found before round 8; found by four of its net's sides.
        30,
        # Tune acrylic rig 37 shot 1 (the lock test's frame): a hand over the board on a
        # checked cloth; no tile-like blobs on the small frame, so the tile searches did not
        # run, though a net there has a square outline; four sides of a wider frame's net
        # place the board. Not found before round 8.
        37 * 4 + 1,
    ],
)
def test_pale_acrylic_tiles_are_found_in_place(index):
    shot = _acrylic(index)
    pose = find_board(shot.image)
    truth = np.array(shot.truth["synth"]["board_corners_px"], float)
    assert _placed(pose, truth) < 0.25


def test_a_locked_board_under_a_hand_keeps_its_lock_when_two_sides_read_apart():
    # Tune acrylic rig 37, shot 1: the camera has not moved and all 12 crosses seen sit
    # within 0.01 cell of the lock, but beside a hand the east side reads +0.32 cell and the
    # west -0.2 (apart: no shift does that). Read as "moved" before, and the search from
    # scratch found no board under the hand.
    from piecebridge.vision.learn import learn_setup
    from piecebridge.vision.reader import BoardReader

    setup, _ = learn_setup(reflec.calibration_sample("tune", 37, art="acrylic").image)
    obs = BoardReader(setup=setup).read(_acrylic(37 * 4 + 1).image)
    assert not obs.moved


def test_a_net_with_a_corner_cut_off_is_outlined_by_four_of_its_sides():
    # Glare that washes out a corner tile's lines cuts the corner off the net: its slanted
    # side is longer than what is left of the two sides it cuts, so the four longest sides
    # make no board outline; four of the six longest do (localisation round 8).
    img, truth = _net_picture(cell=20)
    far = 40 + 8 * 20
    cv2.fillConvexPoly(
        img, np.array([[far - 80, far + 5], [far + 5, far + 5], [far + 5, far - 80]]), 200
    )
    assert all(_worst(q, truth) > 0.5 * 20 for q in _net_side_outlines(img))
    subsets = _net_side_subsets(img)
    assert subsets and min(_worst(q, truth) for q in subsets) < 0.15 * 20
