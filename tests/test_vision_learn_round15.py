"""Round 15 of learning looks: a one-colour set (woodburned: every coin the same wood, every
symbol burnt the same brown) centres each suit's look as its calibration coins lie about
their cells' middles, not on their rim circles, which there may sit far off the coins."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.calibration.looks import SUITS
from piecebridge.vision import learn
from piecebridge.vision.cells import CROP, board_views
from piecebridge.vision.facing import FACE_MASK, fine_detail
from piecebridge.vision.raster import FACE_CROP
from test_vision_learn_round13 import _board

from piecebridge.synth.reflec import Difficulty, calibration_sample

#: Six coins laid up to 7.5 px (FACE_PX) off their cells' middles, every way.
FAR = [(1.0, 7.5), (-2.0, -6.5), (0.5, -2.0), (2.5, 6.5), (-1.5, 0.5), (0.0, -5.0)]
#: Where their rim circles are found: 10 px north of each cell's middle, all to one side
#: (tune woodburned rig 30's arms: 4-20 px off their coins, every one to the north).
RIM_OFF = (0.0, -10.0)


def _misfound_rims(monkeypatch: pytest.MonkeyPatch) -> None:
    def rim(views, i):
        x, y = learn._cell_middle(i)
        return x + RIM_OFF[0], y + RIM_OFF[1]

    monkeypatch.setattr(learn, "coin_centre", rim)


def _look_fit(one_colour: bool) -> float:
    """How closely the look learned from the six ``FAR`` coins fits a coin laid straight,
    cut out at its middle (fine detail in the coin's disc): sharp and centred on the coin."""
    img, found, _ = _board([0.0] * 6, FAR)
    _, look, _ = learn._coin_looks(board_views(img), found, askew=True, one_colour=one_colour)
    straight, _, centres = _board([0.0] * 6)
    want = cv2.getRectSubPix(board_views(straight).rel_hi, (FACE_CROP, FACE_CROP), centres[2])
    mask = np.repeat(FACE_MASK, 3, axis=2)
    fit = cv2.matchTemplate(fine_detail(look), fine_detail(want), cv2.TM_CCORR_NORMED, mask=mask)
    return float(fit[0, 0])


def test_a_one_colour_look_is_centred_as_its_coins_lie_about_their_cells_middles(monkeypatch):
    """Rim circles 10 px north of their cells' middles, the coins about them: the look
    centred on the rims lies 10 px off its coins; centred as the coins lie about their
    cells' middles (0.75 px north, the median), it fits a coin cut out at its middle."""
    _misfound_rims(monkeypatch)
    assert _look_fit(one_colour=True) > 0.9


def test_a_look_of_a_set_in_colours_is_centred_on_its_rim_circles(monkeypatch):
    """The same coins in a set whose suits differ in colour (printplay's one ink on grounds
    of four colours): the colour arts' reads are tuned on looks centred on the rims."""
    _misfound_rims(monkeypatch)
    assert _look_fit(one_colour=False) < 0.6


def _coin(ground_ab: tuple[float, float]) -> np.ndarray:
    """A coarse coin look: a ground of ``ground_ab`` (relative a, b) with a dark symbol."""
    look = np.zeros((CROP, CROP, 3), np.float32)
    look[..., 1:] = ground_ab
    c = CROP // 2
    look[c - 3 : c + 3, c - 3 : c + 3] = (-40, 8, 10)
    return look


@pytest.mark.parametrize(
    "grounds, one",
    [
        ([(0.5, -1.4), (0.3, -0.3), (1.4, 0.5), (0.6, -0.4)], True),  # woodburned rig 0
        ([(0.0, 0.0), (5.0, 4.0), (0.0, 9.0), (0.0, 0.0)], True),
        ([(0.0, 0.0), (5.0, 4.0), (0.0, 10.0), (0.0, 0.0)], False),
        ([(0.0, 0.0), (-5.0, 0.0), (5.0, 0.0), (0.0, 0.0)], False),  # each pair, not to one
        ([(4.2, 5.7), (1.2, -2.1), (-5.3, 0.7), (-4.7, -2.9)], False),  # printplay rig 1
    ],
)
def test_a_set_is_one_colour_when_every_coin_ground_lies_within_9_5(grounds, one):
    coins = dict(zip(SUITS, map(_coin, grounds), strict=True))
    assert learn._one_colour(coins) is one


def test_woodburned_rig_30_calibrates_and_reads_its_arms_coins_back():
    """Tune woodburned rig 30 (about 3 s): its arms coins' rim circles sat 4-20 px off the
    coins, nearly all north; the arms look centred on them, 3 arms coins read back as suns
    and the layout was refused (``MAX_MISNAMED``)."""
    shot = calibration_sample("tune", 30, Difficulty.parse("realistic"), art="woodburned")
    _, report = learn.learn_setup(shot.image)
    assert report["misnamed"] == 0 and report["read_back"] >= 27
