"""A coin read as its own suit's pawn (chk21b): its colour names the suit's pawn and its
face fits the pawn's look nearly as well as a coin's, under a hand's edge or beside a hand;
its printed detail says coin (``cells._fine_as_a_coin``, ``PAWN_FINE_DETAIL``). Tune
checkered rigs 21, 22 and 210 (calibration photos and shots 84, 89 and 840), rendered from
their seeds (seconds each)."""

from __future__ import annotations

import pytest
from piecebridge.vision import cells
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.reader import BoardReader

from piecebridge.synth.reflec import Difficulty, calibration_sample, sample

REALISTIC = Difficulty.parse("realistic")


def _decisions(rig: int, index: int) -> dict[str, cells.CellDecision]:
    setup = learn_setup(calibration_sample("tune", rig, REALISTIC, art="checkered").image)[0]
    shot = sample("tune", index, REALISTIC, art="checkered")
    return {d.cell: d for d in BoardReader(setup=setup).read(shot.image).decisions}


@pytest.fixture(scope="module")
def shot_84() -> dict[str, cells.CellDecision]:
    return _decisions(21, 84)


def test_a_coin_under_a_hands_edge_is_not_its_suits_pawn(shot_84):
    """84:a3, the arms coin 42 % under a hand: the arms pawn's look led the coin's by 0.042
    at fine detail 10.0 x the floor; it was named the arms pawn (no arms pawn on the board)."""
    d = shot_84["a3"]
    assert d.best == ("pawn", "arms") and d.detail_ratio > cells.PAWN_FINE_DETAIL
    assert d.kind != "pawn"


def test_a_pawn_beside_it_is_still_read(shot_84):
    """84:a4, the crowns pawn beside it (lead 0.079, detail 2.9), is read as before."""
    d = shot_84["a4"]
    assert (d.kind, d.suit) == ("pawn", "crowns")


def test_a_pawn_with_a_thin_lead_and_a_pawns_detail_is_still_read():
    """89:a8, the crowns pawn on its other tile tone: it leads the coin looks by 0.032 only
    (under ``PAWN_SURE_LEADS`` x ``min_margin``) at fine detail 6.3: a pawn's, still named."""
    d = _decisions(22, 89)["a8"]
    assert d.margin < 0.06
    assert d.detail_ratio < cells.PAWN_FINE_DETAIL
    assert (d.kind, d.suit) == ("pawn", "crowns")


def test_a_coin_beside_a_hand_fitting_a_made_pawn_look_is_no_pawn():
    """840:b5, the crowns coin 17 % under a hand: the crowns pawn made for its tile tone led
    by 0.024 at fine detail 11.3; it was named the crowns pawn (which stood on d5)."""
    d = _decisions(210, 840)["b5"]
    assert d.best == ("pawn", "crowns") and d.on_tone
    assert d.kind != "pawn"
