"""Pawn24: a pawn that ``decide`` read and ``decide_all`` undid says which step undid it
(``CellDecision.dropped``), and the benchmark's cause of an unknown cell names that step: a
pawn beside a covered cell that fits too loosely is "pawn-by-hand", not "second-pawn"."""

from __future__ import annotations

import sys
from pathlib import Path

from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from vision_reflec import decline_cause

LOOKS = PieceLooks({}, {}, learned=True)


def _pawn(cell: str, similarity: float, suit: str = "moons") -> CellDecision:
    """A cell whose look names ``suit``'s pawn at ``similarity``, with a clear lead."""
    return CellDecision(cell, "unknown", similarity=similarity, margin=0.4, best=("pawn", suit),
                        energy_ratio=9.0, detail_ratio=6.0 * LOOKS.detail_empty,
                        light_ratio=0.5)  # fmt: skip


def _board(*placed: CellDecision, covered: str | None = None) -> dict[str, CellDecision]:
    """``placed`` among plain empty cells (quiet, no detail); ``covered``: a cell whose lines
    a hand hides. Decided by ``decide_all``, by cell."""
    given = {d.cell: d for d in placed}
    board = [
        given.get(c) or CellDecision(c, "unknown", energy_ratio=0.5, detail_ratio=0.5)
        for c in cells.CELL_ORDER
    ]
    for d in board:
        d.covered = d.cell == covered
    return {d.cell: d for d in cells.decide_all(board, LOOKS)}


def test_a_loose_pawn_beside_a_hand_is_dropped_by_the_hand_floor():
    assert LOOKS.pawn_by_hand_similarity > 0.75 >= LOOKS.min_similarity
    got = _board(_pawn("c3", 0.75), covered="c4")
    assert (got["c3"].kind, got["c3"].dropped) == ("unknown", cells.DROPPED_BY_HAND)
    assert decline_cause(got["c3"], LOOKS) == "pawn-by-hand"
    # in the open the same pawn is read, and nothing is noted
    got = _board(_pawn("c3", 0.75))
    assert (got["c3"].kind, got["c3"].suit, got["c3"].dropped) == ("pawn", "moons", "")


def test_the_weaker_claim_on_a_suits_pawn_is_a_second_pawn():
    got = _board(_pawn("c3", 0.9), _pawn("f6", 0.75))
    assert (got["c3"].kind, got["c3"].dropped) == ("pawn", "")
    assert (got["f6"].kind, got["f6"].dropped) == ("unknown", cells.DROPPED_SECOND_PAWN)
    assert decline_cause(got["f6"], LOOKS) == "second-pawn"


def test_a_cell_decide_declines_is_named_by_its_test_or_other():
    loose = _pawn("c3", LOOKS.min_similarity - 0.1)
    got = _board(loose)
    assert (got["c3"].kind, got["c3"].dropped) == ("unknown", "")
    assert decline_cause(got["c3"], LOOKS) == "sim"
    passed = CellDecision("c3", "unknown", similarity=0.9, margin=0.4, best=("pawn", "moons"),
                          energy_ratio=9.0)  # fmt: skip
    assert decline_cause(passed, LOOKS) == "other"


def test_every_step_has_its_own_name():
    assert len(set(cells.DROPPED_STEPS)) == len(cells.DROPPED_STEPS) == 5
    assert "" not in cells.DROPPED_STEPS
