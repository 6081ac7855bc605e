"""wood23: a pawn out of focus is not plain tile when its colour names a suit's pawn and is
not the tile's in any shade; a cell a one-colour coin's fine look fits is no pawn claimed."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks, decide
from vision_support import check_tune_shot


def _soft_pawn(**kw) -> CellDecision:
    """A busy cell plain in fine detail (under ``detail_empty``) that a crowns pawn's look
    fits closely, of the tile's tint (tune woodburned 12 h8, out of focus in a corner)."""
    base = dict(
        similarity=0.85, margin=0.43, energy_ratio=4.6, detail_ratio=1.66, tint=11.3,
        light_ratio=0.48, best=("pawn", "crowns"), likeness=0.85,
    )  # fmt: skip
    base.update(kw)
    return CellDecision("h8", "unknown", **base)


def _looks() -> PieceLooks:
    return PieceLooks({}, {}, learned=True, detail_empty=2.0, empty_ratio=2.0)


@pytest.mark.parametrize(
    "named, shade_tint, kind",
    [
        (True, 25.3, "pawn"),  # a pawn's colour, no tile's in any shade: read by its look
        (True, 5.8, "empty"),  # the tile in a shadow: its colour for its lightness the tile's
        (False, 25.3, "empty"),  # no pawn's colour named: the plain-detail rule as before
    ],
)
def test_a_soft_cell_of_a_named_pawn_colour_is_no_plain_tile(named, shade_tint, kind):
    d = _soft_pawn(colour_named=named, shade_tint=shade_tint)
    assert decide(d, _looks()).kind == kind


def test_on_a_two_tone_board_the_other_tone_is_no_pawn_colour():
    """``shade_tint`` is taken against the board's one tile colour: the other tone of a
    two-tone board (pawn looks made for it, ``pawns_on_tone``) is no shade of it."""
    looks = _looks()
    looks.pawns_on_tone = {"suns": np.zeros((4, 4, 3), np.float32)}
    d = _soft_pawn(colour_named=True, shade_tint=25.3)
    assert decide(d, looks).kind == "empty"


def test_a_soft_pawn_coloured_cell_no_look_names_is_unknown_not_empty():
    """Its colour is no tile's: when no look names it (a coin of the pawn's colour), it is
    left unknown, not called tile by the textured rule either (tune woodburned 160 g8)."""
    d = _soft_pawn(colour_named=True, shade_tint=21.0, similarity=0.45, margin=0.01,
                   likeness=0.45, energy_ratio=3.4, detail_ratio=1.2)  # fmt: skip
    assert decide(d, _looks()).kind == "unknown"


def test_a_cell_a_one_colour_coin_fits_is_no_pawn_claimed():
    """A claim of the pawn rules (here by elimination) on a cell whose fine look a
    one-colour coin's fits at ``COIN_DETAIL_SHOWN`` is dropped (tune woodburned 12 g8, a
    moons coin: once the crowns pawn was read on h8, its arms pawn look was claimed)."""
    coin = CellDecision("g8", "unknown", coin_detail=cells.COIN_DETAIL_SHOWN + 0.1)
    pawn = CellDecision("c3", "unknown", coin_detail=cells.COIN_DETAIL_SHOWN - 0.1)
    cells._claim_pawns([(0.71, 0.06, coin, "arms"), (0.7, 0.1, pawn, "moons")], {"crowns"},
                       _looks())  # fmt: skip
    assert (coin.kind, pawn.kind, pawn.suit) == ("unknown", "pawn", "moons")


def test_on_a_two_tone_board_a_coins_fine_look_rules_out_no_pawn():
    """Checkered pawns fit the one-colour coins' fine looks as well as coins do: there the
    fit names no coin's face, and a claim stands."""
    looks = _looks()
    looks.pawns_on_tone = {"suns": np.zeros((4, 4, 3), np.float32)}
    d = CellDecision("g8", "unknown", coin_detail=cells.PAWN_COIN_DETAIL + 0.1)
    assert cells._a_coins_face(d, _looks()) and not cells._a_coins_face(d, looks)
    cells._claim_pawns([(0.71, 0.06, d, "arms")], set(), looks)
    assert (d.kind, d.suit) == ("pawn", "arms")


#: Tune woodburned shots whose corner pawn, out of focus, read empty at main: 12 (rig 3,
#: h8; with it read, the moons coin on g8 was claimed as the arms pawn until the claim
#: rules left a one-colour coin's face alone) and 189 (rig 47, a1). Shot 206 (rig 51): the
#: moons coin on c4, read as the suns pawn at main (its fine look a coin's, 0.73), was left
#: unknown; round 57 reads it as that coin from its fine look (_coins_by_their_fine_look).
@pytest.mark.parametrize(
    "rig, shot, cell, unknown", [(3, 12, "h8", None), (47, 189, "a1", None), (51, 206, "c4", None)]
)
def test_woodburned_pawns_out_of_focus_read_coins_no_pawn_and_nothing_wrong(
    rig, shot, cell, unknown
):
    """About 5 s each: the calibration learned, the shot read."""
    check_tune_shot(rig, shot, "woodburned", cell, unknown)
