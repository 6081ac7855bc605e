"""Two cells claiming one suit's pawn (a Piecepack has one): the claim whose colour named the
suit is kept over one by its look alone (tune printplay 20/3: a folded paper pawn's look
turns with its slopes, its colour does not). Made-up measurements, milliseconds."""

from __future__ import annotations

from tests.test_vision_cells_round21 import _board


def _claims(named: bool) -> dict:
    # b1: the black (moons) pawn, its colour naming its suit when ``named``, its look 0.9;
    # h8: the dark blue (arms) tent turned so that the moons look fits it better (0.91)
    # than its own (0.88) and than the moons pawn itself; its colour named nothing.
    h8 = dict(similarity=0.91, margin=0.03, pawn_fits=(0.5, 0.91, 0.5, 0.88), coin_fit=0.2)
    return _board(others={"b1": {"colour_named": named, "colour_suit": "moons"}}, **h8)


def test_a_claim_named_by_its_colour_is_kept_over_one_by_its_look():
    got = _claims(named=True)
    assert (got["b1"].kind, got["b1"].suit) == ("pawn", "moons")
    assert got["b1"].confidence > 0.5  # not halved by a claim whose colour said nothing
    # ... and the turned tent, its moons claim dropped, is the last free suit's pawn.
    assert (got["h8"].kind, got["h8"].suit) == ("pawn", "arms")


def test_claims_named_alike_are_ranked_by_their_look_as_before():
    got = _claims(named=False)
    assert (got["h8"].kind, got["h8"].suit) == ("pawn", "moons")
    assert got["h8"].confidence <= 0.5 and got["b1"].kind == "unknown"
