"""Round 25 of cell decisions: a one-colour coin (woodburned: a symbol burnt into wood) that
the coarse tests take for tile is left unknown when a coin's fine look fits it closely."""

from __future__ import annotations

import pytest
from piecebridge.vision import cells
from piecebridge.vision.cells import COIN_DETAIL_SHOWN, CellDecision
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.reader import BoardReader

from piecebridge.synth.reflec import Difficulty, calibration_sample, sample


@pytest.mark.parametrize(
    "kind, fit, after",
    [
        ("empty", COIN_DETAIL_SHOWN, "unknown"),
        ("empty", 0.45, "empty"),  # the most an empty cell fitted (tune woodburned 0-49, 90-149)
        ("empty", -1.0, "empty"),  # not measured
        ("coin", 0.8, "coin"),  # read as a piece: left alone
    ],
)
def test_a_cell_decided_empty_that_a_coin_fits_closely_is_left_unknown(kind, fit, after):
    d = CellDecision("e4", kind, suit="suns" if kind == "coin" else None, coin_detail=fit)
    cells._no_tile_where_a_coin_shows([d])
    assert d.kind == after


#: Tune woodburned shot 427 (rig 106): three coins in a dim corner (lightness 0.72-0.91 of the
#: typical cell, structure 0.69-0.98 of the empty threshold, their coarse looks 0.58-0.69
#: alike) were read as empty; their fine looks fit 0.79 (empty cells: 0.45 at most).
SHOT, RIG, COINS = 427, 106, ("f1", "g7", "h6")


def test_woodburned_coins_taken_for_tile_are_not_read_as_empty():
    """About 5 s: the calibration learned, the shot read. None of the three coins reads
    as empty, and no cell of the shot is read wrong."""
    diff = Difficulty.parse("realistic")
    setup, _ = learn_setup(calibration_sample("tune", RIG, diff, art="woodburned").image)
    shot = sample("tune", SHOT, diff, art="woodburned")
    board = BoardReader(setup=setup).read(shot.image).board
    want = {c["cell"]: ("coin", c["suit"], c["facing"]) for c in shot.truth["coins"]}
    want.update({p["cell"]: ("pawn", p["suit"]) for p in shot.truth["pawns"]})
    got = {c["cell"]: ("coin", c["suit"], c["facing"]) for c in board["coins"]}
    got.update({p["cell"]: ("pawn", p["suit"]) for p in board["pawns"]})
    unknown = set(board["unknown"])
    assert all(c in unknown or got.get(c) == want[c] for c in COINS)
    wrong = [c for c in cells.CELL_ORDER if c not in unknown and got.get(c) != want.get(c)]
    assert wrong == []
