"""Cell rules of round 15 (benchmarks/results/vision_reflec.md, eighth session): a coin under
a finger's tip or a hand's shadow fits a pawn's dark disc better than its own look; its coin
look, though loose (0.35 up) and up to 0.3 behind the pawn's, still names it when one turn
of its fine look leads clearly. Made-up measurements as on the tune split, milliseconds."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from piecebridge.vision.cells import (
    COIN_RIVAL_FIT,
    COIN_RIVAL_LEAD,
    COLOUR_PAWN_GAP,
    CellDecision,
    PieceLooks,
    _coin_rival,
    _features,
    decide,
)
from piecebridge.vision.facing import FACINGS
from test_vision_cells_round11 import _board, _pawn
from test_vision_cells_round12 import _read

LABELS = [("coin", s, f) for s in ("suns", "arms") for f in FACINGS] + [
    ("pawn", s, None) for s in ("suns", "arms")
]


def _sims(suns_coin: float, arms_coin: float, suns_pawn: float) -> np.ndarray:
    """Similarities to LABELS: each coin suit's best turn, and the pawns."""
    s = np.full(len(LABELS), 0.1, np.float32)
    s[0], s[4], s[8], s[9] = suns_coin, arms_coin, suns_pawn, 0.2
    return s


def _pawn_like(pawn_fit: float) -> CellDecision:
    return CellDecision("c3", "unknown", similarity=pawn_fit, margin=0.05, best=("pawn", "suns"))


@pytest.mark.parametrize("coin_fit, pawn_fit", [(0.53, 0.58), (0.45, 0.72), (0.36, 0.6)])
def test_a_loose_coin_look_behind_the_pawn_is_still_read(coin_fit, pawn_fit):
    d = _pawn_like(pawn_fit)
    c = _coin_rival(d, _sims(coin_fit, 0.2, pawn_fit), LABELS, PieceLooks({}, {}))
    assert c is not None and c.best == ("coin", "suns")
    assert c.similarity == pytest.approx(coin_fit) and c.margin == pytest.approx(coin_fit - 0.2)


@pytest.mark.parametrize("coin_fit, pawn_fit", [(0.33, 0.5), (0.45, 0.76), (0.6, 0.95)])
def test_too_loose_or_too_far_behind_is_not_read(coin_fit, pawn_fit):
    assert coin_fit < COIN_RIVAL_FIT or pawn_fit - coin_fit >= COIN_RIVAL_LEAD
    d = _pawn_like(pawn_fit)
    assert _coin_rival(d, _sims(coin_fit, 0.2, pawn_fit), LABELS, PieceLooks({}, {})) is None


def _under_a_finger(**coin) -> CellDecision:
    """Piecepackr tune shot 61 c3: a suns coin, a finger's tip at its top, read best as the
    suns pawn (0.58); its suns coin look 0.53, 0.34 ahead of other coin suits; its fine look
    leads one turn (north) by 0.73."""
    c = CellDecision("c3", "unknown", similarity=0.53, margin=0.34, best=("coin", "suns"),
                     facing="north", facing_margin=0.73, energy_ratio=14.9)  # fmt: skip
    d = _pawn("c3", (0.58, 0.08, 0.34, 0.19), as_coin=dataclasses.replace(c, **coin))
    d.margin, d.coin_fit = 0.05, 0.53
    return d


def test_a_coin_read_best_as_a_pawn_is_named_by_its_turn():
    d = _read(_under_a_finger())
    assert (d.kind, d.suit, d.facing) == ("coin", "suns", "north")
    assert 0 < d.confidence <= 0.5


@pytest.mark.parametrize(
    "change",
    [
        {"facing_margin": 0.14},  # as the nearest pawn or empty cell so read (0.136)
        {"similarity": 0.3},  # under COIN_RIVAL_FIT
        {"margin": 0.01},  # another coin suit fits as well
        {"mark": -1},  # the separate mark points elsewhere
    ],
)
def test_it_still_needs_its_own_clear_turn(change):
    assert _read(_under_a_finger(**change)).kind == "unknown"


def _held_by_its_own_pawn(**changes) -> CellDecision:
    """Acrylic tune shot 161 b7: a moons coin whose best look is the moons coin's (0.75), the
    moons pawn's 0.017 behind, the other coin suits 0.33 behind; its fine look leads one
    turn (east) by 0.84."""
    d = CellDecision("b7", "unknown", similarity=0.753, margin=0.017, suit_margin=0.329,
                     facing="east", facing_margin=0.84, energy_ratio=14.1, detail_ratio=13.2,
                     tint=10.0, best=("coin", "moons"))  # fmt: skip
    return dataclasses.replace(d, **changes)


LEARNED = PieceLooks({}, {}, learned=True)


def test_a_coin_held_back_only_by_its_own_pawn_is_named_by_its_turn():
    d = decide(_held_by_its_own_pawn(), LEARNED)
    assert (d.kind, d.suit, d.facing) == ("coin", "moons", "east")
    assert 0 < d.confidence <= 0.5


@pytest.mark.parametrize(
    "change",
    [
        {"suit_margin": -1.0},  # the nearest other look is another suit's
        {"suit_margin": 0.01},  # another coin suit fits nearly as well
        {"facing_margin": 0.11},  # as the nearest empty cell so held back (0.105)
        {"mark": -1},  # the separate mark points elsewhere
        {"covered": True},  # by a hand
        {"similarity": 0.3},  # too loose a fit
    ],
)
def test_the_own_pawn_rule_needs_all_of_it(change):
    assert decide(_held_by_its_own_pawn(**change), LEARNED).kind == "unknown"


def test_the_suit_margin_is_measured_only_against_its_own_pawn():
    labels = [("coin", "moons", f) for f in FACINGS] + [
        ("coin", "arms", "north"),
        ("pawn", "moons", None),
        ("pawn", "arms", None),
    ]
    sims = np.array([0.75, 0.3, 0.2, 0.1, 0.42, 0.74, 0.2], np.float32)
    d = _features("b7", 9.0, 5.0, sims, labels)
    assert d.margin == pytest.approx(0.01) and d.suit_margin == pytest.approx(0.33)
    sims[4] = 0.745  # now another coin suit is the nearest: no suit margin
    assert _features("b7", 9.0, 5.0, sims, labels).suit_margin == -1.0


@pytest.mark.parametrize("fit, kind", [(0.4, "coin"), (0.3, "unknown")])
def test_a_loose_coin_look_of_its_own_has_the_same_floor(fit, kind):
    """Mixed tune shot 172 g8: a moons coin whose own look is best, but only at 0.40 (leading
    the other looks by 0.13); its fine look leads one turn (south) by 0.79."""
    d = CellDecision("g8", "unknown", similarity=fit, margin=0.126, facing="south",
                     facing_margin=0.79, energy_ratio=9.5, detail_ratio=9.9, tint=8.0,
                     best=("coin", "moons"))  # fmt: skip
    got = decide(d, LEARNED)
    assert got.kind == kind
    if kind == "coin":
        assert (got.suit, got.facing) == ("moons", "south") and 0 < got.confidence <= 0.5


def _dark_pawn(cell: str, fits, colour: str, coin_fit: float = 0.4) -> CellDecision:
    """An acrylic dark pawn whose look names one suit and whose colour leans to another (so
    ``_pawn_by_colour`` left its look no margin)."""
    d = _pawn(cell, fits, colour_suit=colour)
    d.margin, d.coin_fit = 0.0, coin_fit
    return d


def test_the_colour_names_the_pawn_when_the_looks_suit_is_placed():
    """Acrylic tune shot 18 e8: an arms pawn fitting the moons pawn's look (0.63) best and
    the arms pawn's at 0.47, its colour leaning to arms; the moons pawn stands at e7."""
    moons = _pawn("e7", (0.3, 0.92, 0.4, 0.6))
    got = _board(e7=moons, e8=_dark_pawn("e8", (0.3, 0.63, 0.0, 0.47), "arms"))
    assert (got["e8"].kind, got["e8"].suit) == ("pawn", "arms")
    assert 0 < got["e8"].confidence <= 0.5
    alone = _board(e8=_dark_pawn("e8", (0.3, 0.63, 0.0, 0.47), "arms"))
    assert alone["e8"].kind == "unknown"  # nothing placed: nothing settles it


def test_the_look_names_the_pawn_when_the_colours_suit_is_placed():
    """Acrylic tune shot 62 b6: an arms pawn fitting the arms look at 0.79, its colour
    leaning to moons, whose pawn stands at h8."""
    moons = _pawn("h8", (0.3, 0.92, 0.4, 0.6))
    got = _board(h8=moons, b6=_dark_pawn("b6", (0.14, 0.62, 0.23, 0.79), "moons"))
    assert (got["b6"].kind, got["b6"].suit) == ("pawn", "arms")


@pytest.mark.parametrize(
    "fits, colour",
    [
        ((0.3, 0.575, 0.0, 0.47), "arms"),  # too loose a pawn's shape (an empty cell: 0.575)
        ((0.1, 0.63, 0.0, 0.42), "arms"),  # the colour's suit's look fits too loosely
        ((0.2, 0.571, 0.0, 0.3), "crowns"),  # the colour's suit placed, the look too loose
    ],
)
def test_the_colour_rule_needs_a_pawn(fits, colour):
    placed = {"arms": "moons", "crowns": "crowns"}[colour]
    k = ("suns", "moons", "crowns", "arms").index(placed)
    other = tuple(0.95 if j == k else 0.3 for j in range(4))
    got = _board(e7=_pawn("e7", other), e8=_dark_pawn("e8", fits, colour, coin_fit=0.2))
    assert got["e7"].kind == "pawn" and got["e8"].kind == "unknown"


def test_a_cell_plainly_of_the_placed_suit_is_not_named_by_its_colour():
    """The placed pawn may be the misread one: a cell whose look is that suit's by far
    (arms 0.82, its colour's moons look 0.50) stays unknown rather than make two wrong
    pawns; within ``COLOUR_PAWN_GAP`` of the look it is named."""
    arms = _pawn("c3", (0.3, 0.6, 0.4, 0.92))
    far = _dark_pawn("f6", (0.2, 0.50, 0.1, 0.82), "moons", coin_fit=0.3)
    assert _board(c3=arms, f6=far)["f6"].kind == "unknown"
    near = _dark_pawn("f6", (0.2, 0.82 - COLOUR_PAWN_GAP + 0.02, 0.1, 0.82), "moons", coin_fit=0.3)
    got = _board(c3=arms, f6=near)["f6"]
    assert (got.kind, got.suit) == ("pawn", "moons")


def test_not_beside_a_hand():
    moons = _pawn("e7", (0.3, 0.92, 0.4, 0.6))
    hand = CellDecision("f8", "unknown", covered=True, detail_ratio=1.0, energy_ratio=1.0)
    got = _board(e7=moons, f8=hand, e8=_dark_pawn("e8", (0.3, 0.63, 0.0, 0.47), "arms"))
    assert got["e8"].kind == "unknown"
