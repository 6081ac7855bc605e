"""A covered cell's coin that confirms its own look (benchmarks/results/vision_reflec.md,
"Seventh session: cell rules round 14"): with its symbol far ahead in one turn, the usual
kind/suit margin will do, at most half sure.
Measured values as on the tune split's covered coins; no image, instant."""

from __future__ import annotations

import dataclasses

import pytest
from piecebridge.vision.cells import (
    CLEAR_FACE_LEAD,
    CellDecision,
    PieceLooks,
    decide,
)

_DRAWN = PieceLooks.default()
#: Learned looks' thresholds (the class defaults, as a setup has them; the drawn stand-in
#: looks are tuned apart), with the drawn looks' pictures (decide uses none).
LOOKS = PieceLooks(_DRAWN.coins, _DRAWN.pawns, _DRAWN.faces, learned=True)


def _covered_coin(**changes) -> CellDecision:
    """A crowns coin beside a hand's edge (the lines around it hidden, not in its shadow):
    fits its look well, leads the other suits by 0.12 (under ``covered_piece_margin``), its
    symbol far ahead in its own turn (as mixed tune shot 306 e4)."""
    d = CellDecision(
        "e4",
        "unknown",
        similarity=0.83,
        energy_ratio=6.0,
        detail_ratio=6.0,
        margin=0.12,
        facing="south",
        facing_margin=0.84,
        turn_leads=(0.84, 0.85, 0.0, 0.85),
        tint=13.0,
        light_ratio=1.0,
        shade_tint=25.0,
        covered=True,
        best=("coin", "crowns"),
    )
    return dataclasses.replace(d, **changes)


def test_the_margins_are_those_the_rule_is_about():
    d = _covered_coin()
    assert LOOKS.min_margin <= d.margin < LOOKS.covered_piece_margin
    assert d.similarity >= LOOKS.covered_piece_similarity
    assert d.facing_margin >= max(CLEAR_FACE_LEAD, LOOKS.min_facing_margin)


@pytest.mark.parametrize(
    "changes",
    [
        {},  # the symbol leads in its own turn by far
        {"mark": 1},  # ... and the separate mark names that turn too
    ],
)
def test_a_confirmed_covered_coin_is_read_at_most_half_sure(changes):
    d = decide(_covered_coin(**changes), LOOKS)
    assert (d.kind, d.suit, d.facing) == ("coin", "crowns", "south")
    assert 0 < d.confidence <= 0.5


@pytest.mark.parametrize(
    "changes",
    [
        {"facing_margin": 0.2},  # a turn sure enough in the open, but not clear
        {"facing_margin": 0.2, "mark": 1},  # ... even with the mark agreeing
        {"mark": -1},  # the mark points elsewhere
        {"mark": 2, "facing_margin": 0.2},  # the facing set by the mark alone
        {"margin": 0.01},  # another suit's look nearly as close
        {"similarity": 0.72},  # the look fits loosely
    ],
)
def test_an_unconfirmed_covered_coin_stays_unknown(changes):
    assert decide(_covered_coin(**changes), LOOKS).kind == "unknown"


def test_the_drawn_stand_in_looks_keep_the_covered_cells_margin():
    # They model no art: a clear turn of a drawn look names no coin (as in the open).
    d = _covered_coin(similarity=0.9)
    assert d.similarity >= _DRAWN.covered_piece_similarity and d.margin >= _DRAWN.min_margin
    assert decide(d, _DRAWN).kind == "unknown"
    assert decide(_covered_coin(similarity=0.9), LOOKS).kind == "coin"


def test_a_covered_coin_far_ahead_of_other_suits_keeps_its_confidence():
    d = decide(_covered_coin(margin=0.2), LOOKS)
    assert d.kind == "coin" and d.confidence > 0.5


def test_a_coin_in_a_hands_shadow_is_still_decided_as_in_the_open():
    d = decide(_covered_coin(shaded=True), LOOKS)  # its lines show once the shadow is made up
    assert (d.kind, d.suit, d.facing) == ("coin", "crowns", "south") and d.confidence > 0.5
