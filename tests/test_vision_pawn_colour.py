"""A pawn whose look names one suit and whose colour leans to another is left unknown."""

from __future__ import annotations

import numpy as np
from piecebridge.vision.cells import CellDecision, PieceLooks, _pawn_by_colour, decide
from test_vision_cells import _disc_crop


def test_a_shaded_pawn_whose_colour_leans_to_another_suit_than_its_look_is_unknown():
    # piecepackr tune shot 22 h8: an orange (suns) pawn in shade fits the dark moons pawn's
    # look best; its colour is nearer suns (0.58 of the distance to moons: not clear).
    orange, dark = (-78.0, 24.0, 25.0), (-152.0, -5.0, -28.0)
    looks = PieceLooks({}, {"suns": _disc_crop(orange), "moons": _disc_crop(dark)})
    labels = [("coin", "suns", "north"), ("pawn", "suns", None), ("pawn", "moons", None)]
    sims = np.array([0.33, 0.71, 0.83])

    def read(colour):
        d = CellDecision("h8", "unknown", similarity=0.83, margin=0.12, best=("pawn", "moons"))
        d.energy_ratio, d.detail_ratio = 10.0, 5.0
        _pawn_by_colour(d, _disc_crop(colour), sims, labels, looks)
        return decide(d, looks)

    shaded = read((-106.0, 21.0, 2.0))
    assert shaded.kind == "unknown" and shaded.likeness == 0.83  # still piece-like
    assert read((-140.0, -3.0, -22.0)).suit == "moons"  # colour and look agree
    assert read((-80.0, 24.0, 24.0)).suit == "suns"  # a clear colour names the suit
