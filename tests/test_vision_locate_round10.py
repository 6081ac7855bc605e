"""Localisation and calibration round 10: a calibration photo with the board cut off by the
frame edge says so."""

from __future__ import annotations

import pytest
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.locate import BoardCutOff

from piecebridge.synth.reflec import Difficulty, calibration_sample


def test_a_calibration_photo_cut_off_by_the_frame_says_cut_off():
    """Tune acrylic calibration photo of rig 336: the south row of tiles runs half a cell
    past the bottom of the frame. Only the thorough search's wider frame sees its thin
    white lines, running past the frame; the photo was refused as "no 8x8 tile grid found"
    (the small frame's message), which tells the user nothing to do."""
    photo = calibration_sample("tune", 336, Difficulty.realistic(), art="acrylic").image
    with pytest.raises(BoardCutOff, match="cut off by the frame edge"):
        learn_setup(photo)
