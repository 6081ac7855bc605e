"""Cell rules of round 10 (benchmarks/results/vision_reflec.md): decisions on made-up
measurements, milliseconds."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision.cells import CellDecision, PieceLooks, _pawn_by_colour, decide
from test_vision_cells import _disc_crop
from test_vision_cells import _measured as _cell

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


LEARNED = PieceLooks({}, {}, learned=True)


@pytest.mark.parametrize("light, want", [(1.3, "empty"), (0.8, "empty"), (2.0, "unknown")])
def test_plain_tile_under_washed_out_lines_in_a_bright_spot_is_empty(light, want):
    """Mixed tune shot 46 c7, acrylic tune shot 9 (five cells): plain tile at 1.26-1.36 x
    the typical cell's lightness, its light lines washed out; a cell burnt out by glare (2x
    and more) may hide a coin and stays unknown."""
    plain = _cell(covered=True, detail_ratio=0.8, shade_tint=3.3, light_ratio=light,
                  best=("coin", "arms"), similarity=0.5)  # fmt: skip
    assert decide(plain, LEARNED).kind == want


def test_a_plain_cell_darker_than_any_shadow_is_not_called_empty():
    """Mixed tune shot 215 a8: a black pawn out of focus, as plain in detail as a tile (1.67
    x the floor) but 0.34 x the typical cell's lightness (empty cells measured 0.40 up)."""
    pawn = _cell(detail_ratio=1.67, light_ratio=0.34, energy_ratio=4.5, tint=3.1,
                 best=("pawn", "moons"), similarity=0.53, margin=0.43)  # fmt: skip
    assert decide(pawn, LEARNED).kind == "unknown"
    assert decide(_cell(**{**pawn.__dict__, "light_ratio": 0.6}), LEARNED).kind == "empty"


@pytest.mark.parametrize("named, want", [(True, "pawn"), (False, "unknown")])
def test_a_pawn_named_by_its_colour_may_fit_its_look_loosely(named, want):
    """Piecepackr tune shots 69 c7 and 71 b8: suns pawns leaning near a corner whose colour
    named their suit, fitting at 0.62-0.63 and leading every coin look by 0.16-0.19."""
    pawn = _cell(best=("pawn", "suns"), similarity=0.62, margin=0.16, colour_named=named,
                 likeness=0.62, detail_ratio=8.7, energy_ratio=27.0, tint=15.0)  # fmt: skip
    d = decide(pawn, LEARNED)
    assert d.kind == want
    assert decide(_cell(**{**pawn.__dict__, "margin": 0.1}), LEARNED).kind == "unknown"


def test_two_agreeing_mark_reads_do_not_name_a_coin_whose_look_fits_every_turn(monkeypatch):
    """Mixed tune shot 224 b1: a moons coin whose arms look fits all four turns within 0.08
    (it may be another suit's coin); two sure mark reads said west, and it was read as an
    arms coin. A look that rules a turn out still takes the two reads' facing."""
    from piecebridge.vision.cells import _check_mark
    from test_vision_cells_round9 import _marks

    coin = _cell(best=("coin", "arms"), facing="north", facing_margin=0.069, similarity=0.71,
                 margin=0.074, turn_leads=(0.0, 0.08, 0.08, 0.07), detail_ratio=8.6)  # fmt: skip
    _marks(monkeypatch, ("west", 0.9), ("west", 0.95))
    d = _cell(**coin.__dict__)
    _check_mark(d, None, 0, LEARNED)
    assert decide(d, LEARNED).kind == "unknown"
    d = _cell(**{**coin.__dict__, "turn_leads": (0.0, 0.08, 0.2, 0.07)})
    _check_mark(d, None, 0, LEARNED)
    assert (decide(d, LEARNED).kind, d.facing) == ("coin", "west")


def test_a_busy_cell_unlike_any_piece_is_a_textured_tile_only_when_its_detail_is_a_tiles():
    """Mixed tune shot 201 c3: an arms coin half under a hand fits no look (0.5) and its
    structure is under twice the empty threshold, but its fine detail (5.2 x the floor) is
    more than empty cells beside a pawn or a hand show (up to ~5): not empty."""
    looks = PieceLooks({}, {}, learned=True, empty_ratio=3.0)
    cell = _cell(best=("pawn", "suns"), similarity=0.49, margin=0.1, energy_ratio=5.4,
                 detail_ratio=5.2, tint=16.8, light_ratio=0.73)  # fmt: skip
    assert decide(cell, looks).kind == "unknown"
    assert decide(_cell(**{**cell.__dict__, "detail_ratio": 4.2}), looks).kind == "empty"
