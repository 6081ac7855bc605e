"""Checkered pawns in the open left unknown (pawn28, round 60), tune checkered find rigs
7400-7439 rendered from their seeds:

* a cone pawn whose best look is *another* suit's coin, lining up in no turn, whose colour
  names its own suit's pawn clearly (``cells._flat_coin_pawns``: the coin look's suit no
  longer has to be the colour's);
* a pawn fitted best by its look made for the other tile tone whose colour leans to that
  suit and whose colour terms lie nearest it (``cells._made_look_only``: a lean agreeing
  with the hue is as good as a colour naming the suit);
* a pawn whose look ties its suit's coin look, the coin lining up in no turn, smooth, its
  colour naming the suit (``cells._flat_coin_pawns``, the pawn-best side of the tie).
"""

from __future__ import annotations

import pytest
from piecebridge.vision import cells
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.reader import BoardReader

from piecebridge.synth.reflec import SHOTS_PER_RIG, Difficulty, calibration_sample, sample

REALISTIC = Difficulty.parse("realistic")


def _decisions(rig: int, shot: int, art: str = "checkered") -> dict[str, cells.CellDecision]:
    """The decisions of a read of tune rig ``rig``'s shot ``shot`` (0-3) in ``art`` with the
    rig's setup, as ``benchmarks/vision_reflec.py`` reads it."""
    setup = learn_setup(calibration_sample("tune", rig, REALISTIC, art=art).image)[0]
    image = sample("tune", rig * SHOTS_PER_RIG + shot, REALISTIC, art=art).image
    return {d.cell: d for d in BoardReader(setup=setup).read(image).decisions}


@pytest.mark.parametrize(
    ("rig", "shot", "cell", "suit", "coin"),
    [
        (7416, 2, "h8", "arms", "moons"),  # detail 12.8: over PAWN_SMOOTH_DETAIL
        (7415, 1, "e8", "suns", "moons"),
    ],
)
def test_a_cone_fitting_another_suits_coin_is_its_colours_pawn(rig, shot, cell, suit, coin):
    """The coin look names another suit than the colour and lines up in no turn: no coin of
    either suit is there (a coin of the colour's suit fits its own look best, and the look's
    suit's coin is not of this colour); the cone is the colour's pawn, at most half sure."""
    d = _decisions(rig, shot)[cell]
    assert d.best == ("coin", coin) and d.facing_margin < cells.FLAT_TURN_LEAD
    assert d.colour_as_pawn == suit
    assert (d.kind, d.suit) == ("pawn", suit)
    assert d.confidence <= 0.5


@pytest.mark.parametrize(
    ("rig", "shot", "cell", "suit"), [(7402, 1, "a8", "suns"), (7424, 0, "h8", "moons")]
)
def test_a_made_look_whose_colour_leans_with_its_hue_is_that_pawn(rig, shot, cell, suit):
    """Fitted best by the pawn look made for the other tile tone, the colour not clear
    enough to name the suit but leaning to it, and the colour terms nearest it too."""
    d = _decisions(rig, shot)[cell]
    assert d.on_tone and not d.colour_named
    assert d.colour_suit == d.hue_near == suit
    assert (d.kind, d.suit) == ("pawn", suit)


def test_a_pawn_tied_with_its_flat_coin_look_is_the_pawn():
    """7428/2 a8, the crowns pawn: its made look and the crowns coin's fit alike (0.78),
    the coin look lines up in no turn (lead 0.05), detail 4.5, the colour names crowns."""
    d = _decisions(7428, 2)["a8"]
    assert d.colour_named and d.margin < 0.02
    assert d.as_coin is not None and d.as_coin.facing_margin < cells.FLAT_TURN_LEAD
    assert (d.kind, d.suit) == ("pawn", "crowns")
    assert d.confidence <= 0.5
