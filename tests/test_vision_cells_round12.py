"""Cell rules of round 12 (benchmarks/results/vision_reflec.md): a pawn has no facing, so a
pawn-like cell whose coin look lines up clearly in one turn is that coin; made-up
measurements, milliseconds."""

from __future__ import annotations

import dataclasses

import pytest
from piecebridge.vision.cells import CellDecision, PieceLooks, decide_all
from piecebridge.vision.raster import CELL_ORDER
from test_vision_cells_round11 import _pawn


def _coin_like() -> CellDecision:
    """Mixed tune shot 16 d1: an arms coin (a blue symbol on a pale face) whose best look is
    the arms pawn's (0.69, a blue disc), its own at 0.65 leading the other coin suits by
    0.1; one turn of its fine look leads the others by 0.5."""
    coin = CellDecision("d1", "unknown", similarity=0.65, margin=0.1, best=("coin", "arms"),
                        facing="east", facing_margin=0.5, energy_ratio=5.0)  # fmt: skip
    d = _pawn("d1", (0.2, 0.3, 0.35, 0.69), as_coin=coin)
    d.margin, d.coin_fit = 0.04, 0.65  # the pawn look leads the coin's by 0.04
    return d


def _read(d: CellDecision, learned: bool = True) -> CellDecision:
    plain = [CellDecision(c, "unknown", detail_ratio=1.0, energy_ratio=1.0) for c in CELL_ORDER]
    plain[CELL_ORDER.index(d.cell)] = d
    return decide_all(plain, PieceLooks({}, {}, learned=learned))[CELL_ORDER.index(d.cell)]


def test_a_coin_whose_look_lines_up_in_one_turn_is_no_pawn():
    d = _read(_coin_like())
    assert (d.kind, d.suit, d.facing) == ("coin", "arms", "east")
    assert 0 < d.confidence <= 0.5


@pytest.mark.parametrize(
    "change",
    [
        {"facing_margin": 0.1},  # as a pawn read with a coin look: no clear turn
        {"mark": -1},  # the separate mark points elsewhere
        {"mark": 2},  # the facing set by the mark alone, not by the look
        {"similarity": 0.3},  # its coin look fits too loosely (round 15: under 0.35)
        {"margin": 0.01},  # another coin suit fits as well
    ],
)
def test_the_coin_must_show_its_own_markings(change):
    d = _coin_like()
    d.as_coin = dataclasses.replace(d.as_coin, **change)
    assert _read(d).kind == "unknown"


@pytest.mark.parametrize("change", [{"covered": True}, {"shaded": True}])
def test_not_by_a_hand(change):
    """A hand's edge across a half-filled symbol lines up in one turn too."""
    d = _coin_like()
    for k, v in change.items():
        setattr(d, k, v)
    assert _read(d).kind == "unknown"


def test_not_with_the_drawn_stand_in_looks():
    assert _read(_coin_like(), learned=False).kind == "unknown"


def _by_a_hand(**kw) -> CellDecision:
    """Mixed tune shot 360 h8: a suns pawn whose lines a hand beside it hides, fitting the
    suns pawn look at 0.93 and leading every coin look by 0.48, its colour naming suns."""
    d = _pawn("h8", (0.93, 0.3, 0.4, 0.5), covered=True, colour_named=True, colour_suit="suns")
    d.margin, d.detail_ratio = 0.48, 7.7
    for k, v in kw.items():
        setattr(d, k, v)
    return d


def test_a_pawn_standing_by_a_hand_is_read_by_its_colour_and_look():
    d = _read(_by_a_hand())
    assert (d.kind, d.suit) == ("pawn", "suns") and 0 < d.confidence <= 0.5


@pytest.mark.parametrize(
    "change",
    [
        {"colour_named": False},  # a hand or a shadow can fit a dark pawn's look closely
        {"similarity": 0.8},  # too loose for a cell whose lines are hidden
        {"margin": 0.1},  # a coin look fits nearly as well
        {"detail_ratio": 1.5},  # smooth: a shadow, no piece's outline
    ],
)
def test_a_covered_pawn_needs_its_colour_a_close_fit_and_detail(change):
    assert _read(_by_a_hand(**change)).kind == "unknown"


def test_a_covered_pawn_of_a_suit_placed_elsewhere_stays_unknown():
    plain = [CellDecision(c, "unknown", detail_ratio=1.0, energy_ratio=1.0) for c in CELL_ORDER]
    plain[CELL_ORDER.index("h8")] = _by_a_hand()
    plain[CELL_ORDER.index("b2")] = _pawn("b2", (0.95, 0.3, 0.4, 0.5))  # the suns pawn, open
    got = {d.cell: d for d in decide_all(plain, PieceLooks({}, {}, learned=True))}
    assert (got["b2"].kind, got["b2"].suit) == ("pawn", "suns")
    assert got["h8"].kind == "unknown"
