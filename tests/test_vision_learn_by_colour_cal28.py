"""Calibration, round 61 (issue #4, acrylic): a calibration photo every other search
refused is learned on a board outlined by a region of one tile colour closed over the
layout's pieces, where the whole layout reads back there alone
(``learn._learn_by_colour``, ``locate.boards_by_colour``)."""

from __future__ import annotations

import numpy as np
from piecebridge.calibration.geometry import cell_centre
from piecebridge.vision import locate
from piecebridge.vision.learn import learn_setup

from piecebridge.synth.reflec import calibration_sample


def test_pale_tiles_with_washed_out_lines_on_a_gingham_are_learned_by_their_colour():
    """Tune acrylic calibration photo of rig 7602: pale blue tiles, white lines washed out
    by glare over the upper tiles, on a red gingham; refused as "no 8x8 tile grid found"
    (the lines' nets broken, no tile blobs, the tile colour's region cut by the coins into
    an upper half). Learned in place, every cell centre within a tenth of a cell."""
    shot = calibration_sample("tune", 7602, art="acrylic")
    setup, report = learn_setup(shot.image)
    assert report.get("found_by_colour")
    centres = shot.truth["synth"]["cell_centers_px"]
    names = sorted(centres)
    want = np.array([centres[c] for c in names])
    got = setup.pose.to_image(np.array([cell_centre(c) for c in names]))
    assert np.linalg.norm(want - got, axis=1).max() < 0.15 * setup.pose.cell_size_px()


def test_boards_by_colour_finds_no_board_on_a_frame_without_one():
    """A plain frame of one colour: its region fills the frame, no board fits there."""
    frame = np.full((540, 960, 3), (180, 200, 210), np.uint8)
    assert locate.boards_by_colour(frame) == []
