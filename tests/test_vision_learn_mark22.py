"""Round 37: a suit's separate mark learned from calibration coins whose looks were cut a
few pixels off the coin's centre (see ``learn._marked`` and ``facing.round_symbol_centre``)."""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.vision.cells import board_views
from piecebridge.vision.facing import mark_blob, round_symbol_centre
from piecebridge.vision.learn import _marked
from piecebridge.vision.raster import FACE_PX

INK = (40, 40, 160)
C = 2.5 * FACE_PX
#: The calibration centre as cut, off the coin's true centre (tune piecepackr 71: 2.3 px).
OFF = (C - 1.0, C + 3.0)


def _coin(round_symbol: bool = True) -> np.ndarray:
    """A board raster with one coin at (C, C): a round symbol (a crescent if not), and a
    dot 11.5 px north of the coin's centre."""
    img = np.full((5 * FACE_PX, 5 * FACE_PX, 3), (175, 205, 220), np.uint8)
    c = int(C)
    cv2.circle(img, (c, c), int(0.38 * FACE_PX), (165, 195, 210), -1)
    cv2.circle(img, (c, c), 8, INK, -1)  # the symbol
    if not round_symbol:
        cv2.circle(img, (c + 4, c), 7, (165, 195, 210), -1)  # bite it into a crescent
    cv2.circle(img, (c, c - 12), 2, INK, -1)  # the dot, north
    return img


def _centres(c: tuple[float, float]) -> dict[str, list[tuple[float, float]]]:
    return {"suns": [c] * 6, "moons": [], "crowns": [], "arms": []}


def test_a_dot_missed_from_an_off_centre_cut_is_learned_from_the_round_symbols_centre():
    views = board_views(_coin())
    read = mark_blob(views, OFF)
    assert read[0] is None or read[1] < 0.6  # from the cut's centre: no sure mark
    centre = round_symbol_centre(views, OFF)
    assert centre is not None and np.hypot(centre[0] - C, centre[1] - C) < 1.0
    marked, spots = _marked(views, _centres(OFF))
    assert marked == ("suns",)
    assert abs(spots["suns"][0] - 12.0) < 1.0  # measured from the symbol's centre


def test_a_symbol_that_is_not_round_gives_no_centre_to_read_from():
    # A crescent's centroid is not the coin's centre: no read from there.
    views = board_views(_coin(round_symbol=False))
    assert round_symbol_centre(views, OFF) is None
    assert _marked(views, _centres(OFF))[0] == ()


def test_a_suit_whose_mark_is_learned_as_a_shape_is_not_read_again_off_its_cut():
    # Tune piecepackr 71: the suns' mark was learned as a shape from the looks as cut; a
    # blob mark learned from another centre beside it left right coins unknown.
    views = board_views(_coin())
    assert _marked(views, _centres(OFF), shapes=("suns",))[0] == ()
