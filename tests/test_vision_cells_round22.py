"""Cell rules of round 22 (benchmarks/results/vision_reflec.md, thirteenth session): the mark
names the facing of a coin whose look fits every turn alike only with its suit seen by its
ink; and literal values for the learned ink and detail bars (the reviewer: ``INK_ALIKE`` 10 ->
20, ``INK_SHARE`` and the ``detail_empty`` percentiles survived mutation). Made-up looks
and measurements, milliseconds."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision.cells import (
    CENTRE_SHIFT,
    CROP,
    OFFSETS,
    BoardViews,
    CellDecision,
    PieceLooks,
    _check_mark,
    _mark_picks_turn,
    _suit_by_ink,
    decide,
)
from test_vision_cells_round9 import _marks

C = CROP // 2


def _coin_look(ink: tuple[float, float]) -> np.ndarray:
    """A coin look: plain ground, a 10 x 10 px symbol of chroma ``ink`` (relative a, b)."""
    look = np.zeros((CROP, CROP, 3), np.float32)
    look[C - 5 : C + 5, C - 5 : C + 5] = (-40, *ink)
    return look


# Acrylic: a light (red) sun fairly alike under every turn, a black moon.
SUN_INK, MOON_INK = (30.0, 20.0), (0.0, -30.0)


def _looks() -> PieceLooks:
    coins = {"suns": _coin_look(SUN_INK), "moons": _coin_look(MOON_INK)}
    return PieceLooks(coins, {}, learned=True, turn_alike={"suns": (0.75, 0.81, 0.75)})


def _views(ink: tuple[float, float]) -> BoardViews:
    """A board whose a8 (index 0) holds a coin of ``ink``, centred."""
    crops = np.zeros((64, len(OFFSETS), CROP, CROP, 3), np.float32)
    crops[0, CENTRE_SHIFT] = _coin_look(ink)
    return BoardViews(None, None, crops, None, None)


def _sun_look_everywhere() -> CellDecision:
    """Acrylic tune 29/1 e7 (as a8): a coin whose look named suns at 0.74, 0.2 ahead of
    every other look, fitting all four turns within 0.06."""
    return CellDecision(
        "a8", "unknown", best=("coin", "suns"), facing="east", facing_margin=0.019,
        turn_leads=(0.054, 0.0, 0.054, 0.019), similarity=0.74, margin=0.2,
        energy_ratio=10.0, detail_ratio=8.5, tint=16.7,
    )  # fmt: skip


def test_both_mark_reads_name_no_facing_of_a_coin_whose_ink_is_another_suits(monkeypatch):
    # Both reads south; the coin's ink is the moon's: the look that fits every turn alike
    # is no evidence of its suit, and the mark must not name the facing (two sure reads
    # against a look leading by under MARK_CONFLICT_LEAD leave it undecided).
    _marks(monkeypatch, ("south", 0.9), ("south", 0.85))
    d = _sun_look_everywhere()
    _check_mark(d, _views(MOON_INK), 0, _looks())
    assert (d.facing, d.mark) == ("east", -1)
    assert decide(d, _looks()).kind == "unknown"


def test_both_mark_reads_name_the_facing_of_a_coin_whose_ink_is_its_suits(monkeypatch):
    _marks(monkeypatch, ("south", 0.9), ("south", 0.85))
    d = _sun_look_everywhere()
    _check_mark(d, _views(SUN_INK), 0, _looks())
    assert (d.facing, d.mark) == ("south", 2)


def test_the_suit_is_asked_for_only_of_a_look_fitting_every_turn():
    asked = []

    def seen() -> bool:
        asked.append(1)
        return False

    d = _sun_look_everywhere()
    d.turn_leads = (0.3, 0.0, 0.054, 0.019)  # the look rules north out: the mark chooses
    assert _mark_picks_turn(d, (("south", 0.9), ("south", 0.85)), ["south"] * 2, _looks(), seen)
    assert d.facing == "south" and not asked


def test_suits_of_one_ink_are_seen_only_as_their_fine_look_named_them():
    looks = PieceLooks(
        {"suns": _coin_look((30.0, 20.0)), "arms": _coin_look((31.0, 21.0))}, {}, learned=True
    )
    named = CellDecision("a8", "unknown", best=("coin", "arms"), margin=0.12,
                         suit_fits=(0.8, -1.0, -1.0, 0.82))  # fmt: skip
    undecided = CellDecision("a8", "unknown", best=("coin", "arms"), margin=0.0,
                             suit_fits=(0.8, -1.0, -1.0, 0.82))  # fmt: skip
    views = _views((30.0, 20.0))
    assert _suit_by_ink(views, 0, named, looks)
    assert not _suit_by_ink(views, 0, undecided, looks)


# ------------------------------------------------------------- plain tile under glare


#: Acrylic tune 2/1 c4: an empty cell under glare that washed its lines out, as light as
#: the glare over them (1.32, around 1.34), no fine detail, little structure; its colour
#: 8.7 from the tile's under glare (uneven glare across the cell).
GLARED = dict(cell="c4", kind="unknown", covered=True, glared=True, best=("coin", "crowns"),
              similarity=0.39, margin=0.2, detail_ratio=0.9, energy_ratio=0.3, tint=8.2,
              light_ratio=1.32, glare_around=1.34, shade_tint=20.0)  # fmt: skip


@pytest.mark.parametrize("tint, want", [(8.7, "empty"), (9.9, "empty"), (10.5, "unknown")])
def test_plain_tile_under_uneven_glare_is_empty(tint, want):
    looks = PieceLooks({}, {}, learned=True, empty_ratio=2.5)
    d = decide(CellDecision(**GLARED, glare_tint=tint), looks)
    assert d.kind == want
