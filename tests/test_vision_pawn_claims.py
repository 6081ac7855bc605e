"""Two cells claiming one suit's pawn (a Piecepack has one): a claim whose hue lies nearest
another suit's pawn colour gives way (tune printplay 20/3: a folded paper pawn's look turns
with its slopes, its hue does not). Made-up measurements, milliseconds."""

from __future__ import annotations

import numpy as np
from test_vision_cells_round21 import _board


def _claims(h8_hue: str) -> dict:
    # b1: the black (moons) pawn, its colour naming its suit, its look 0.9; h8: a dark
    # pawn whose moons look fits better (0.91) than its arms look (0.88) and than the
    # moons pawn itself, its colour terms nearest ``h8_hue``'s pawn colour.
    b1 = {"colour_named": True, "colour_suit": "moons", "hue_near": "moons"}
    h8 = dict(similarity=0.91, margin=0.03, pawn_fits=(0.5, 0.91, 0.5, 0.88), coin_fit=0.2)
    return _board(others={"b1": b1}, hue_near=h8_hue, **h8)


def test_a_claim_whose_hue_is_another_suits_gives_way():
    # h8 is the dark blue (arms) tent turned: its hue is the arms pawn's.
    got = _claims("arms")
    assert (got["b1"].kind, got["b1"].suit) == ("pawn", "moons")
    assert got["b1"].confidence > 0.5  # not halved by a claim of another suit's hue
    # ... and h8, its moons claim dropped, is the last free suit's pawn.
    assert (got["h8"].kind, got["h8"].suit) == ("pawn", "arms")


def test_claims_of_the_suits_hue_are_ranked_by_their_look_as_before():
    # Both of the moons hue: the better look is kept, however plainly the other's colour
    # named the suit (tune acrylic 14/1: a black coin's colour named the black pawn).
    got = _claims("moons")
    assert (got["h8"].kind, got["h8"].suit) == ("pawn", "moons")
    assert got["h8"].confidence <= 0.5 and got["b1"].kind == "unknown"


def test_the_hue_nearest_is_measured_however_unclear_the_colour():
    # Tune printplay 20/3 a1 (relative Lab): a dark blue tent turned, as dark as the black
    # tent's learned colour and nearer it by lightness, its colour terms nearer the blue's.
    from piecebridge.vision.cells import CellDecision, PieceLooks, _pawn_by_colour
    from test_vision_cells import _disc_crop

    black, blue = (-113.9, 3.2, -9.2), (-86.0, -0.5, -29.2)
    looks = PieceLooks({}, {"moons": _disc_crop(black), "arms": _disc_crop(blue)})
    labels = [("coin", "moons", "north"), ("pawn", "moons", None), ("pawn", "arms", None)]
    d = CellDecision("a1", "unknown", similarity=0.93, margin=0.05, best=("pawn", "moons"))
    _pawn_by_colour(d, _disc_crop((-128.8, 1.4, -21.1)), np.array([0.2, 0.93, 0.88]), labels, looks)
    assert (d.hue_near, d.colour_named) == ("arms", False)
