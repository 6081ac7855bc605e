"""Round 53 (benchmarks/results/vision_reflec.md, twenty-fifth session): a tile laid farther
off the raster (up to ``SHIFTED_TILE``) does not hide its own lines when both halves of its
arm moved alike; half an arm found that far out alone (a hand's edge) does not count.
Drawn crosses, milliseconds."""

from __future__ import annotations

import numpy as np
from piecebridge.vision.occlusion import (
    SHIFTED_ARM,
    SHIFTED_TILE,
    covered_cells,
    hidden_share,
    line_strengths,
)
from piecebridge.vision.raster import FACE_PX, MARGIN
from test_vision_cells_round21 import TILE, _crosses

#: Printplay tune 29 (every shot): the south-west tiles' arms 7-9 px off the raster.
FAR = 8


def _hidden(img: np.ndarray) -> np.ndarray:
    """Each cell's share of hidden line pieces on the drawn board ``img``."""
    return hidden_share(line_strengths(img, FACE_PX, MARGIN), FACE_PX)


def test_the_drawn_shift_lies_past_a_half_arm_alone_and_within_a_tile():
    assert round(SHIFTED_ARM * FACE_PX) < FAR <= round(SHIFTED_TILE * FACE_PX)


def _tile_east(shift: int) -> np.ndarray:
    """The crosses with the north-west tile's cross ``shift`` px east (as printplay 29's)."""
    img = _crosses()
    m, px = round(MARGIN * FACE_PX), FACE_PX
    img[m : m + 2 * px, m : m + 2 * px] = 200
    img[m + px - 1 : m + px + 1, m + 2 + shift : m + 2 * px - 2 + shift] = 80  # horizontal
    img[m + 2 : m + 2 * px - 2, m + px - 1 + shift : m + px + 1 + shift] = 80  # vertical
    return img


def test_a_tile_laid_farther_off_the_raster_is_not_covered():
    # Before (only a half-arm's own search, 5 px): a8, b8, a7 and b7 read covered, their
    # lines "hidden" by the tile itself, nothing over them.
    shifted = _hidden(_tile_east(FAR))
    assert shifted[TILE].max() <= 0.25 and not covered_cells(shifted).any()


def _half_arm_off(shift: int) -> np.ndarray:
    """The crosses with the north-west tile's vertical arm's northern half ``shift`` px east
    and its southern half gone (a hand's edge over a8-b8, the hand over a7-b7's lines)."""
    img = _crosses()
    m, px = round(MARGIN * FACE_PX), FACE_PX
    img[m + 2 : m + 2 * px - 2, m + px - 1 : m + px + 1] = 200  # the whole arm gone
    img[m + 2 : m + px, m + px - 1 + shift : m + px + 1 + shift] = 80  # its northern half
    return img


def test_half_an_arm_far_off_alone_is_still_hidden():
    # A straight edge as far out as a shifted tile's, where the arm's other half is not
    # found there too: no tile moved, the pieces stay hidden (a8, b8 covered).
    hidden = _hidden(_half_arm_off(FAR))
    assert covered_cells(hidden)[TILE[:2]].all()


def test_half_an_arm_a_little_off_alone_still_counts_in_view():
    # Within a half-arm's own search (round 21), as before: in view, its other half aside.
    hidden = _hidden(_half_arm_off(round(SHIFTED_ARM * FACE_PX)))
    assert hidden[TILE[:2]].max() <= 0.25


def test_two_halves_far_apart_are_no_arm():
    # Each half straight but 16 px apart (two edges, no tile's one arm): both stay hidden.
    img = _half_arm_off(FAR)
    m, px = round(MARGIN * FACE_PX), FACE_PX
    img[m + px : m + 2 * px - 2, m + px - 1 - FAR : m + px + 1 - FAR] = 80  # southern, west
    assert covered_cells(_hidden(img))[TILE].all()


def test_a_faint_other_half_does_not_make_an_arm():
    # The southern half found at the same offset but faint (texture under a hand, not the
    # printed arm): not one arm, a8 and b8 stay hidden.
    img = _half_arm_off(FAR)
    m, px = round(MARGIN * FACE_PX), FACE_PX
    img[m + px : m + 2 * px - 2, m + px - 1 + FAR : m + px + 1 + FAR] = 185
    assert covered_cells(_hidden(img))[TILE[:2]].all()
