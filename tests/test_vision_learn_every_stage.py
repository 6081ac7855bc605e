"""Calibration round 21: a calibration photo whose board both the line searches and the first
stage of the tiles' search fitted at one wrong place (tile blobs merged with a gingham's light
squares, the fit on the upper tiles alone, the lower ones' crosses under the layout's coins)
is learned on the board a later stage of the tiles' search finds
(``learn._learn_by_tiles``, ``locate.board_by_tiles(every_stage=True)``). Tune acrylic
calibration photo of rig 1039, rendered from its seed (a few seconds)."""

from __future__ import annotations

import pytest
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.locate import board_by_tiles, find_board
from vision_support import corners_off, setup_off_by

from piecebridge.synth.reflec import Difficulty, calibration_sample


@pytest.fixture(scope="module")
def rig1039():
    return calibration_sample("tune", 1039, Difficulty.parse("realistic"), art="acrylic")


def test_the_first_stage_and_the_finder_fit_one_grid_off_the_board(rig1039):
    """The finder's grid and the first stage's tiles board: one place, cells off the board;
    every stage searched, the tiles' board lies in place."""
    found = find_board(rig1039.image, thorough=True)
    first = board_by_tiles(rig1039.image)
    assert first is not None and corners_off(found, rig1039.truth) > 1.0
    assert corners_off(first, rig1039.truth) > 1.0
    every = board_by_tiles(rig1039.image, every_stage=True)
    assert every is not None and corners_off(every, rig1039.truth) < 0.2


def test_a_grid_the_tiles_fit_again_gives_way_to_a_later_stage_of_their_search(rig1039):
    """Rig 1039: refused on the finder's grid (23 of 28 read back), the board of every
    stage of the tiles' search reads all 28 back, in place."""
    setup, report = learn_setup(rig1039.image)
    assert setup_off_by(setup, rig1039.truth) < 0.2
    assert report["found_by_tiles"] and report["read_back"] == 28
