"""Cell rules of round 11 (benchmarks/results/vision_reflec.md): lines in a hand's shadow,
pieces in it, pawns by elimination; made-up boards and measurements, milliseconds."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision.cells import CellDecision, PieceLooks, decide, decide_all
from piecebridge.vision.raster import CELL_ORDER
from test_vision_cells import _measured as _cell

LEARNED = PieceLooks({}, {}, learned=True)


SHADED_COIN = dict(covered=True, shaded=True, best=("coin", "suns"), similarity=0.72, margin=0.2,
                   facing="west", facing_margin=0.4, detail_ratio=4.6, energy_ratio=6.4,
                   light_ratio=0.57, shade_tint=15.0)  # fmt: skip


@pytest.mark.parametrize("shaded, want", [(True, "coin"), (False, "unknown")])
def test_a_coin_in_a_hands_shadow_is_read_as_in_the_open(shaded, want):
    """Mixed tune shot 206 a5: a crowns coin in a hand's shadow (0.46 x the typical cell's
    lightness) whose lines looked hidden, fitting its look at 0.73 (a covered cell's coin
    needs 0.75)."""
    d = decide(_cell(**{**SHADED_COIN, "shaded": shaded}), LEARNED)
    assert (d.kind, d.facing) == ((want, "west") if shaded else (want, None))


def test_a_shaded_cell_is_not_called_empty_unless_it_is_plain_tile():
    """A hand over a coin can be as plain as a tile: a shaded cell with no detail is empty
    only with the tile's colour (shade tint), as any covered cell."""
    plain = {**SHADED_COIN, "detail_ratio": 1.0, "energy_ratio": 2.1, "similarity": 0.5}
    assert decide(_cell(**{**plain, "shade_tint": 12.0}), LEARNED).kind == "unknown"
    assert decide(_cell(**{**plain, "shade_tint": 2.0}), LEARNED).kind == "empty"


def _board(**cells: CellDecision) -> dict[str, CellDecision]:
    plain = [CellDecision(c, "unknown", detail_ratio=1.0, energy_ratio=1.0) for c in CELL_ORDER]
    for name, d in cells.items():
        plain[CELL_ORDER.index(name)] = d
    return {d.cell: d for d in decide_all(plain, LEARNED)}


def _pawn(cell: str, fits, **kw) -> CellDecision:
    """A pawn-like cell: ``fits`` its looks' fits per suit (suns, moons, crowns, arms)."""
    best = int(np.argmax(fits))
    second = max(f for k, f in enumerate(fits) if k != best)
    suit = ("suns", "moons", "crowns", "arms")[best]
    return _cell(cell=cell, best=("pawn", suit), similarity=fits[best], margin=fits[best] - second,
                 pawn_fits=tuple(fits), coin_fit=0.4, energy_ratio=15.0, detail_ratio=6.0,
                 tint=20.0, **kw)  # fmt: skip


def test_a_pawn_fitting_two_suits_alike_is_the_one_whose_pawn_is_not_placed():
    """Mixed tune shot 178 a1: an arms pawn at the corner fitting arms and moons within
    0.01; the moons pawn stands clearly elsewhere."""
    moons = _pawn("e5", (0.3, 0.92, 0.4, 0.6))
    corner = _pawn("a1", (0.3, 0.87, 0.5, 0.88))
    got = _board(e5=moons, a1=corner)
    assert (got["e5"].kind, got["e5"].suit) == ("pawn", "moons")
    assert (got["a1"].kind, got["a1"].suit) == ("pawn", "arms")
    alone = _board(a1=_pawn("a1", (0.3, 0.87, 0.5, 0.88)))  # nothing placed: undecided
    assert alone["a1"].kind == "unknown"


@pytest.mark.parametrize(
    "change",
    [
        {"colour_suit": "moons"},  # its colour says moons, which stands elsewhere
        {"pawn_fits": (0.3, 0.87, 0.5, 0.66)},  # arms fits too loosely
        {"coin_fit": 0.87},  # as like a coin
        {"covered": True},  # its lines are hidden
    ],
)
def test_a_pawn_by_elimination_still_needs_its_own_evidence(change):
    moons = _pawn("e5", (0.3, 0.92, 0.4, 0.6))
    corner = _pawn("a1", (0.3, 0.87, 0.5, 0.88))
    for k, v in change.items():
        setattr(corner, k, v)
    assert _board(e5=moons, a1=corner)["a1"].kind == "unknown"


def test_elimination_settles_only_a_near_tie_and_is_at_most_half_sure():
    """Reviewer: b2 fits the moons pawn 0.90 and the arms pawn 0.86; with the moons pawn at
    e5 it was read arms at confidence 1.0. If e5 is the misread one, that makes one wrong
    cell two: a taken suit fitting better than min_margin leaves the cell unknown."""
    moons = _pawn("e5", (0.3, 0.92, 0.4, 0.6))
    clearly_moons = _pawn("b2", (0.3, 0.90, 0.5, 0.86))
    assert _board(e5=moons, b2=clearly_moons)["b2"].kind == "unknown"
    tie = _board(e5=moons, a1=_pawn("a1", (0.3, 0.87, 0.5, 0.88)))["a1"]
    assert tie.kind == "pawn" and 0 < tie.confidence <= 0.5


@pytest.mark.parametrize("similarity, want", [(0.8, "coin"), (0.72, "unknown")])
def test_a_coin_beside_a_hand_is_read_when_its_look_fits_at_three_quarters(similarity, want):
    """Mixed tune shot 179 g1: a suns coin beside a hand (its lines partly hidden, lit at
    0.88 of the typical cell) fitting its look at 0.82, leading by 0.28, facing clear."""
    coin = {**SHADED_COIN, "shaded": False, "similarity": similarity, "light_ratio": 0.88}
    assert decide(_cell(**coin), LEARNED).kind == want


def test_a_plain_cell_under_a_coloured_light_is_empty():
    """Mixed tune shot 16 c1-d3: plain tile under a yellow lamp's spot, 27-37 off the board's
    tile colour (max_empty_tint 25) but the colour of the tile around it in the cell, and no
    structure."""
    lamp = dict(tint=34.6, detail_ratio=0.85, energy_ratio=1.2, light_ratio=1.08,
                best=("pawn", "arms"), similarity=0.62, margin=0.2)  # fmt: skip
    assert decide(_cell(**lamp, local_tint=1.5), LEARNED).kind == "empty"
    assert decide(_cell(**lamp, local_tint=12.0), LEARNED).kind == "unknown"  # a hand's colour
    assert decide(_cell(**lamp), LEARNED).kind == "unknown"  # unmeasured
    # Piecepackr tune shot 29 g8: a hand over a coin, as plain in fine detail and the same
    # colour all over the cell, but with a hand's shading (structure 12.8 x the floor).
    shaded = {**lamp, "energy_ratio": 12.8, "local_tint": 1.5}
    assert decide(_cell(**shaded), LEARNED).kind == "unknown"
