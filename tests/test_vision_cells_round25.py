"""Round 25 of cell decisions: a one-colour coin (woodburned: a symbol burnt into wood) that
the coarse tests take for tile is no tile when a coin's fine look fits it closely: that coin
when its look leads clearly in suit and turn, else unknown."""

from __future__ import annotations

import pytest
from piecebridge.vision import cells
from piecebridge.vision.cells import (
    COIN_DETAIL_SHOWN,
    DETAIL_SUIT_LEAD,
    DETAIL_TURN_LEAD,
    CellDecision,
)
from vision_support import read_tune_shot, wrong_cells

CLEAR = ("suns", "east", DETAIL_SUIT_LEAD, DETAIL_TURN_LEAD)


@pytest.mark.parametrize(
    "kind, fit, coin, after",
    [
        ("empty", COIN_DETAIL_SHOWN, CLEAR, ("coin", "suns", "east")),
        ("empty", COIN_DETAIL_SHOWN, ("suns", "east", 0.09, 0.3), ("unknown", None, None)),
        ("empty", COIN_DETAIL_SHOWN, ("suns", "east", 0.3, 0.19), ("unknown", None, None)),
        # the most an empty cell fitted (tune woodburned 0-49, 90-149)
        ("empty", 0.45, CLEAR, ("empty", None, None)),
        ("empty", -1.0, None, ("empty", None, None)),  # not measured
        ("coin", 0.8, ("moons", "west", 0.3, 0.3), ("coin", "suns", "north")),  # a piece: kept
    ],
)
def test_a_cell_decided_empty_that_a_coin_fits_closely_is_that_coin_or_unknown(
    kind, fit, coin, after
):
    suit, facing = ("suns", "north") if kind == "coin" else (None, None)
    d = CellDecision("e4", kind, suit, facing, coin_detail=fit, detail_coin=coin)
    cells._no_tile_where_a_coin_shows([d])
    assert (d.kind, d.suit, d.facing) == after
    assert d.confidence <= 0.5 or d.kind == kind  # a coin named so: at most half sure


#: Tune woodburned shot 427 (rig 106): three coins in a dim corner (lightness 0.72-0.91 of the
#: typical cell, structure 0.69-0.98 of the empty threshold, their coarse looks 0.58-0.69
#: alike) were read as empty; their fine looks fit 0.79 (empty cells: 0.45 at most), each its
#: own suit's and turn's, leading by 0.12-0.24 and 0.22-0.42.
SHOT, RIG, COINS = 427, 106, ("f1", "g7", "h6")


def test_woodburned_coins_taken_for_tile_are_read_from_their_fine_look():
    """About 5 s: the calibration learned, the shot read. The three coins read right, and
    no cell of the shot is read wrong."""
    want, got, unknown = read_tune_shot(RIG, SHOT, "woodburned")
    assert all(got.get(c) == want[c] for c in COINS)
    assert wrong_cells(want, got, unknown) == []
