"""A one-ink coin's suit (woodburned: every symbol burnt the same brown) from two measures
that must agree: the fine look's turned fit (``_fine_suits``) and the burnt symbol's shape
measured free of its turn (``symbol_shape``). Under ``FINE_SUIT_LEAD`` the fine look alone
leaves the suit undecided; where the shape names the same suit clearly it is named."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.vision import cells
from piecebridge.vision.cells import (
    FINE_SUIT_LEAD,
    SHAPE_FIT,
    SHAPE_SUIT_LEAD,
    SHAPE_SUIT_VETO,
    symbol_shape,
)
from piecebridge.vision.raster import FACE_CROP
from vision_support import check_tune_shot


def _symbol(points: int) -> np.ndarray:
    """A fine look (relative Lab) whose symbol is a dark star of ``points`` rays, its centre
    in the middle of the square."""
    look = np.zeros((FACE_CROP, FACE_CROP, 3), np.float32)
    c = (FACE_CROP - 1) / 2
    a = np.linspace(0, 2 * np.pi, 2 * points, endpoint=False)
    r = np.where(np.arange(2 * points) % 2 == 0, 8.5, 4.0)
    star = np.stack([c + r * np.sin(a), c - r * np.cos(a)], axis=1)
    light = np.zeros((FACE_CROP, FACE_CROP), np.float32)
    cv2.fillPoly(light, [np.round(star * 16).astype(np.int32)], -40.0, cv2.LINE_AA, 4)
    look[..., 0] = light
    return look


def _twisted(look: np.ndarray, degrees: float) -> np.ndarray:
    c = (FACE_CROP - 1) / 2
    m = cv2.getRotationMatrix2D((c, c), degrees, 1.0)
    return cv2.warpAffine(look, m, (FACE_CROP, FACE_CROP), flags=cv2.INTER_LINEAR)


def test_the_symbol_shape_is_the_same_at_every_turn_and_tells_symbols_apart():
    sun, five = _symbol(8), _symbol(5)
    shape = symbol_shape(sun)
    for k in range(4):
        assert float(symbol_shape(np.rot90(sun, k).copy()) @ shape) > 0.999
    assert float(symbol_shape(_twisted(sun, 10.0)) @ shape) > 0.98  # laid askew
    assert float(symbol_shape(five) @ shape) < float(symbol_shape(_twisted(sun, 10.0)) @ shape)


SURE = SHAPE_FIT + 0.01
LOOSE = SHAPE_FIT - 0.01


@pytest.mark.parametrize(
    "lead, shape, named",
    [
        (0.2, None, True),  # not weighed: the fine look alone
        (FINE_SUIT_LEAD - 0.01, None, False),
        # under the fine bar: named only where the shape agrees, clearly and closely
        (0.01, ("suns", SHAPE_SUIT_LEAD, SURE), True),
        (0.01, ("suns", SHAPE_SUIT_LEAD - 0.005, SURE), False),
        (0.01, ("suns", 0.2, LOOSE), False),
        (0.01, ("arms", 0.2, SURE), False),
        # past it: named unless the shape names another suit clearly and closely
        (FINE_SUIT_LEAD, ("suns", 0.0, 0.5), True),
        (FINE_SUIT_LEAD, ("arms", SHAPE_SUIT_VETO, SURE), False),
        (FINE_SUIT_LEAD, ("arms", SHAPE_SUIT_VETO - 0.005, SURE), True),
        (FINE_SUIT_LEAD, ("arms", 0.2, LOOSE), True),
    ],
)
def test_a_suit_is_named_where_the_fine_look_and_the_symbol_shape_agree(lead, shape, named):
    assert cells._suit_named("suns", lead, shape) is named


#: Tune woodburned rig 22, shot 88: the suns coin on c8 (its fine look leads the other suits
#: by 0.046, under FINE_SUIT_LEAD; its shape names suns by 0.18, cosine 0.98) was unknown.
#: Rig 31, shot 126: the suns coin on e8, its fine lead 0.008 (under ``min_margin`` too: named,
#: its margin is FINE_SUIT_LEAD's), its shape's 0.11 (cosine 0.97), was unknown.
#: Rig 49, shot 197: the arms coin on h3 (laid off its cell's middle) is taken for a sun by
#: both (fine 0.008, shape 0.19) but its shape fits suns' only 0.91: left unknown.
@pytest.mark.parametrize(
    "rig, shot, named, unknown",
    [(22, 88, "c8", None), (31, 126, "e8", None), (49, 197, None, "h3")],
)
def test_woodburned_coins_named_where_both_measures_agree_and_none_wrongly(
    rig, shot, named, unknown
):
    """About 5 s each: the calibration learned, the shot read."""
    check_tune_shot(rig, shot, "woodburned", named, unknown)
