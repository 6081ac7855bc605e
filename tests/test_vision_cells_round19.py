"""Round 19: a pawn's shaded side names its suit by its hue (see ``cells.hue_suit``)."""

from __future__ import annotations

import numpy as np
from piecebridge.vision.cells import CellDecision, PieceLooks, _pawn_by_colour, decide, hue_suit
from test_vision_cells import _disc_crop

# Acrylic tune rig 20: the learned pawns (relative Lab, see pawn_colour); the board's grey
# (a colourless thing's relative a, b) lies by the black moons pawn's.
MOONS, ARMS, SUNS = (-117.0, 10.0, 2.0), (-59.0, 9.0, -36.0), (-73.0, 65.0, 48.0)
GREY = np.array([12.0, 4.0])
LABELS = [("coin", "arms", "north"), ("pawn", "moons", None), ("pawn", "arms", None)]


def _looks() -> PieceLooks:
    pawns = {"moons": _disc_crop(MOONS), "arms": _disc_crop(ARMS), "suns": _disc_crop(SUNS)}
    return PieceLooks({}, pawns, learned=True)


def _read(colour, grey) -> CellDecision:
    """A pawn-like cell whose look names moons by a little, its colour read as measure does."""
    d = CellDecision("a8", "unknown", similarity=0.68, margin=0.03, best=("pawn", "moons"))
    d.energy_ratio, d.detail_ratio, d.tint = 32.0, 14.0, 12.0
    _pawn_by_colour(d, _disc_crop(colour), np.array([0.38, 0.68, 0.65]), LABELS, _looks(), grey)
    return d


def test_a_dark_blue_side_is_named_by_its_hue_not_taken_for_the_black_pawn():
    # Tune acrylic shot 20/0 a8: the arms pawn leans at the board's corner and shows its
    # side, darker than the moons pawn; its colour terms are the arms pawn's, dimmed.
    side = (-133.0, 9.0, -25.0)
    before = _read(side, None)  # by lightness it leans to moons, as the look: not named
    assert before.colour_suit == "moons" and not before.colour_named
    assert decide(before, _looks()).kind == "unknown"  # the look's margin is too small
    after = _read(side, GREY)
    assert after.colour_named and after.colour_suit == "arms" and after.best == ("pawn", "arms")
    assert after.margin > 0.25  # over the coin looks only, as any colour-named pawn's
    assert decide(after, _looks()).suit == "arms"


def test_the_hue_never_names_the_greyest_suit():
    # Any colour in deep shade turns grey: a grey side may be any suit's, so it is not named.
    dim = np.array([-150.0, 12.0, 1.0])
    colours = {s: np.asarray(v) for s, v in (("moons", MOONS), ("arms", ARMS), ("suns", SUNS))}
    assert hue_suit(dim, colours, GREY) is None
    d = _read(tuple(dim), GREY)
    assert d.colour_suit == "moons" and d.best == ("pawn", "moons")  # by its lightness, as before


def test_an_unclear_hue_names_nothing():
    # Between blue and grey: nearer blue, but not by HUE_CLEAR (0.58 of the way to grey).
    colours = {s: np.asarray(v) for s, v in (("moons", MOONS), ("arms", ARMS), ("suns", SUNS))}
    assert hue_suit(np.array([-100.0, 9.5, -22.0]), colours, GREY) is None
    assert hue_suit(np.array([-100.0, 9.5, -24.0]), colours, GREY) == "arms"  # 0.46
    assert hue_suit(np.array([-100.0, 9.0, -30.0]), colours, GREY) == "arms"
    assert hue_suit(np.array([-40.0, 60.0, 40.0]), colours, GREY) == "suns"
