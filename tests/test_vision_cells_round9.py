"""Cell rules of round 9 (benchmarks/results/vision_reflec.md): a loosely fitting coin look
named by a clear facing read. Decisions on made-up measurements, milliseconds."""

from __future__ import annotations

import dataclasses

import pytest
from piecebridge.vision.cells import (
    CLEAR_FACE_LEAD,
    CLEAR_FACE_SIMILARITY,
    CellDecision,
    PieceLooks,
    decide,
)

LEARNED = PieceLooks({}, {}, learned=True)


def _loose_coin(**changes) -> CellDecision:
    """A moons coin whose look fits at 0.62 (under ``min_similarity``) but whose facing read
    puts east ahead of every other turn by 0.5."""
    d = CellDecision(
        "g5", "unknown", best=("coin", "moons"), facing="east", facing_margin=0.5,
        turn_leads=(0.55, 0.0, 0.5, 0.6), similarity=0.62, margin=0.1, energy_ratio=9.0,
        detail_ratio=9.0, tint=5.0,
    )  # fmt: skip
    return dataclasses.replace(d, **changes)


def test_a_clear_facing_names_a_loosely_fitting_coin():
    assert LEARNED.min_similarity > _loose_coin().similarity  # the usual rule declines it
    d = decide(_loose_coin(), LEARNED)
    assert (d.kind, d.suit, d.facing) == ("coin", "moons", "east")
    assert 0 < d.confidence <= 1


@pytest.mark.parametrize(
    "changes",
    [
        {"facing_margin": CLEAR_FACE_LEAD - 0.05},  # the facing read is not clear
        {"similarity": CLEAR_FACE_SIMILARITY - 0.05},  # too loose a fit
        {"margin": 0.01},  # another suit fits about as well
        {"mark": -1},  # the separate mark points elsewhere
        {"mark": 2, "facing": "west"},  # the facing is the mark's, not the look's
        {"lit_beside": True},  # beside a hand
    ],
)
def test_without_every_condition_the_loose_coin_stays_unknown(changes):
    assert decide(_loose_coin(**changes), LEARNED).kind == "unknown"


def test_the_drawn_stand_ins_never_name_a_loose_coin_so():
    looks = dataclasses.replace(PieceLooks.default(), min_facing_margin=0.15)
    d = _loose_coin(similarity=looks.min_similarity - 0.03)
    assert decide(d, looks).kind == "unknown"


def _board_with_coin_by_hand(facing: str) -> list[CellDecision]:
    """64 measured cells: plain tile, a hand over d4 (covered), and beside it on d5 an arms
    coin whose look leads by only 0.12 (east) and whose two mark reads set ``facing``."""
    from piecebridge.vision.raster import CELL_ORDER

    cells = [CellDecision(c, "unknown", detail_ratio=1.0, energy_ratio=1.0) for c in CELL_ORDER]
    cells[CELL_ORDER.index("d4")].covered = True
    k = CELL_ORDER.index("d5")
    cells[k] = CellDecision(
        "d5", "unknown", best=("coin", "arms"), facing=facing, facing_margin=0.12, mark=2,
        turn_leads=(0.25, 0.0, 0.14, 0.12), similarity=0.8, margin=0.18, energy_ratio=9.0,
        detail_ratio=6.0,
    )  # fmt: skip
    return cells


def test_by_a_hand_a_mark_may_confirm_the_looks_pick_but_not_set_another():
    from piecebridge.vision.cells import decide_all

    d5 = {d.cell: d for d in decide_all(_board_with_coin_by_hand("east"), LEARNED)}["d5"]
    assert (d5.kind, d5.suit, d5.facing) == ("coin", "arms", "east")
    d5 = {d.cell: d for d in decide_all(_board_with_coin_by_hand("west"), LEARNED)}["d5"]
    assert d5.kind == "unknown"
