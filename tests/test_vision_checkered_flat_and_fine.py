"""Checkered pieces in the open left unknown (chk22): a coin held back only by a dark pawn's
look made for its tile tone, named by its fine detail and a clear turn
(``cells._coin_past_pawn_looks``); a cone pawn whose best look is its suit's coin, smooth
and lining up in no turn, named by its colour (``cells._flat_coin_pawns``; since round 60
also where the coin look names another suit than the colour). Tune checkered
rigs 0, 13, 22 and 24 (calibration photos and shots 1, 55, 88, 98), rendered from their seeds
(seconds each)."""

from __future__ import annotations

import pytest
from piecebridge.vision import cells
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.reader import BoardReader

from piecebridge.synth.reflec import Difficulty, calibration_sample, sample

REALISTIC = Difficulty.parse("realistic")


def _decisions(rig: int, index: int, sought: bool = False) -> dict[str, cells.CellDecision]:
    """The decisions of a read of tune shot ``index`` with rig ``rig``'s setup; ``sought``:
    at the pose a search finds in the shot, not the setup's locked pose."""
    setup = learn_setup(calibration_sample("tune", rig, REALISTIC, art="checkered").image)[0]
    shot = sample("tune", index, REALISTIC, art="checkered")
    reader = BoardReader(setup=setup)
    if sought:
        reader.pose = None  # no lock: the board is sought in the shot
    return {d.cell: d for d in reader.read(shot.image).decisions}


@pytest.fixture(scope="module")
def shot_98() -> dict[str, cells.CellDecision]:
    return _decisions(24, 98)


def test_a_moons_coin_past_the_made_pawn_looks_is_read():
    """55:c5, the moons coin facing west: the moons pawn's look made for its tile tone fit
    0.007 under its coin look; its turn led by 0.87 at fine detail 16.8."""
    d = _decisions(13, 55)["c5"]
    assert d.best == ("coin", "moons") and d.margin < 0.02
    assert d.detail_ratio > cells.PAWN_FINE_DETAIL
    assert (d.kind, d.suit, d.facing) == ("coin", "moons", "west")
    assert d.confidence <= 0.5


def test_a_pawn_at_the_edge_fitting_its_coins_look_is_read(shot_98):
    """98:a8, the crowns pawn: the crowns coin's look fits best (0.78), a turn leads by 0.02,
    fine detail 4.5; its colour names the crowns pawn."""
    d = shot_98["a8"]
    assert d.best == ("coin", "crowns") and d.facing_margin < cells.FLAT_TURN_LEAD
    assert d.detail_ratio < cells.PAWN_SMOOTH_DETAIL
    assert (d.kind, d.suit) == ("pawn", "crowns")
    assert d.confidence <= 0.5


def test_a_moons_pawn_in_a_corner_is_read():
    """1:h8, the moons pawn: the moons coin's look fits best (0.72), a turn leads by 0.02,
    fine detail 4.6; its colour names the moons pawn."""
    d = _decisions(0, 1)["h8"]
    assert d.best[0] == "coin" and d.detail_ratio < cells.PAWN_SMOOTH_DETAIL
    assert (d.kind, d.suit) == ("pawn", "moons")


def test_a_pawn_whose_colour_and_look_disagree_is_its_colours_pawn(shot_98):
    """98:b3, the suns pawn: the fine look names the moons coin best, lining up in no turn,
    its colour the suns pawn. Left unknown until round 60 (pawn28): no coin of either suit
    is there, so it is the colour's pawn (never the moons pawn), at most half sure."""
    d = shot_98["b3"]
    assert d.best == ("coin", "moons") and d.colour_as_pawn == "suns"
    assert (d.kind, d.suit) == ("pawn", "suns")
    assert d.confidence <= 0.5


def test_a_coin_whose_turn_is_unclear_is_no_pawn():
    """88:e4, a suns coin whose turn is unclear (lead 0.03): its printed detail (13.4) says
    coin; it is left unknown, not named the suns pawn. Read at the pose a search finds, as
    the reader did when the lock by lines called every checkered shot moved: at the setup's
    pose (1-4 px off) the pawn's look fits it best and the rule is not reached."""
    d = _decisions(22, 88, sought=True)["e4"]
    assert d.best[0] == "coin" and d.facing_margin < cells.FLAT_TURN_LEAD
    assert d.kind != "pawn"
