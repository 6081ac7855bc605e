"""Cell rules of round 10 (benchmarks/results/vision_reflec.md): decisions on made-up
measurements, milliseconds."""

from __future__ import annotations

import numpy as np
from piecebridge.vision.cells import CellDecision, PieceLooks, _pawn_by_colour

from tests.test_vision_cells import _disc_crop

ORANGE, DARK = (-78.0, 24.0, 25.0), (-152.0, -5.0, -28.0)


def _colour_read(colour) -> CellDecision:
    """A pawn cell whose look names moons, its colour read against suns' and moons' pawns."""
    looks = PieceLooks({}, {"suns": _disc_crop(ORANGE), "moons": _disc_crop(DARK)})
    labels = [("coin", "suns", "north"), ("pawn", "suns", None), ("pawn", "moons", None)]
    d = CellDecision("h8", "unknown", similarity=0.83, margin=0.12, best=("pawn", "moons"))
    _pawn_by_colour(d, _disc_crop(colour), np.array([0.33, 0.71, 0.83]), labels, looks)
    return d


def test_colour_named_is_set_only_when_the_colour_names_the_suit():
    named = _colour_read((-80.0, 24.0, 24.0))  # clearly orange: suns
    assert named.colour_named and named.best == ("pawn", "suns") and named.likeness == 0.83
    leaning = _colour_read((-106.0, 21.0, 2.0))  # nearer suns, not clearly: against the look
    assert not leaning.colour_named and leaning.likeness == 0.83 and leaning.margin == 0.0
