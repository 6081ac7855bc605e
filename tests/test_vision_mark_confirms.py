"""face21: a sure read of the learned mark (``cells._check_mark_shape``) that names the
look's own turn confirms the facing (``mark`` 1, as an agreeing blob read does), so a coin
whose look leads by under ``min_facing_margin``, or among turns its suit's look is alike
under (``cells._sure_rivals``), is named; the figures are tune shots' (with a setup)."""

from __future__ import annotations

import dataclasses

import numpy as np
from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks, decide, facing_sure


def _coin(**kw) -> CellDecision:
    """A measured suns coin in the open (tune printplay 11/0 a3: facing west, the look
    leading by 0.086, no blob read of the mark sure; the suit's mark learned)."""
    base = dict(
        cell="a3", kind="unknown", best=("coin", "suns"), facing="west", similarity=0.89,
        margin=0.19, energy_ratio=20.0, detail_ratio=20.0, tint=30.0, facing_margin=0.086,
        turn_leads=(0.171, 0.086, 0.231, 0.0),
    )  # fmt: skip
    base.update(kw)
    return CellDecision(**base)


def _looks(turn_alike: dict | None = None, shapes: tuple = ("suns",)) -> PieceLooks:
    looks = PieceLooks({}, {}, learned=True, mark_shapes=shapes, turn_alike=turn_alike or {})
    looks.extra["mark_shapes"] = (looks.turned_faces(), {"suns": np.zeros(1)})
    return looks


def _checked(
    monkeypatch, d: CellDecision, scores, looks: PieceLooks, by_hand: bool = False
) -> list[int]:
    """Run :func:`cells._check_mark_shape` on ``d`` with the learned mark scoring ``scores``
    (north, east, south, west), ``by_hand`` or not; returns the reads made (0 or 1)."""
    reads = []
    monkeypatch.setattr(cells, "mark_windows", lambda w, t: [w] * 4)
    monkeypatch.setattr(
        cells, "mark_scores", lambda w, t: reads.append(1) or np.asarray(scores, float)
    )
    cells._check_mark_shape(d, np.zeros(1), {"suns": np.zeros(1)}, looks, by_hand)
    return reads


def test_a_sure_learned_mark_naming_the_looks_turn_confirms_it(monkeypatch):
    looks = _looks()
    # Tune printplay 11/0 a3 (learned mark west, lead 0.156) and woodburned 22/0 e4 (a suns
    # coin facing south, the look 0.032 ahead, the mark south by 0.316): left unknown before.
    for d, scores in (
        (_coin(), (0.266, 0.346, 0.297, 0.502)),
        (_coin(facing="south", facing_margin=0.032, turn_leads=(0.153, 0.032, 0.0, 0.061),
               similarity=0.78, margin=0.076), (0.35, 0.222, 0.665, 0.287)),
    ):  # fmt: skip
        assert not facing_sure(d, looks)
        assert decide(dataclasses.replace(d), looks).kind == "unknown"
        assert _checked(monkeypatch, d, scores, looks) == [1]
        assert (d.mark, facing_sure(d, looks)) == (1, True)
        named = decide(d, looks)
        assert (named.kind, named.suit, named.facing) == ("coin", "suns", d.facing)


def test_it_confirms_a_turn_among_those_the_look_is_alike_under(monkeypatch):
    # Tune piecepackr 12/0 c5: an eight-rayed sun (alike 0.80-0.87 under every quarter turn)
    # facing north, the look 0.21 ahead of east and west (sure rivals), the mark north 0.33.
    looks = _looks({"suns": (0.799, 0.869, 0.798)})
    d = _coin(cell="c5", facing="north", facing_margin=0.207, turn_leads=(0.0, 0.209, 0.422, 0.207))
    assert cells._sure_rivals(d, looks) == {"east", "west"} and not facing_sure(d, looks)
    _checked(monkeypatch, d, (0.671, 0.23, 0.34, 0.26), looks)
    assert (d.facing, d.mark, facing_sure(d, looks)) == ("north", 1, True)


def test_no_confirmation_without_a_sure_agreeing_read_or_a_lead_of_the_look(monkeypatch):
    agreeing = (0.266, 0.346, 0.297, 0.502)
    for d, scores, looks in (
        (_coin(facing_margin=0.02), agreeing, _looks()),  # the look under agreed_facing_margin
        (_coin(), (0.266, 0.346, 0.297, 0.40), _looks()),  # a lead of 0.054: not sure
        (_coin(), (0.266, 0.6, 0.297, 0.40), _looks()),  # sure of another turn: no veto here
        (_coin(), agreeing, _looks(shapes=("moons",))),  # the suit's mark not learned
        (_coin(similarity=0.6), agreeing, _looks()),  # the cell could not be named anyway
        (_coin(mark=-1), agreeing, _looks()),  # the blob reads already doubt it
    ):
        before = (d.facing, d.mark)
        _checked(monkeypatch, d, scores, looks)
        assert (d.facing, d.mark) == before, d
        assert not facing_sure(d, looks)


def test_no_confirmation_beside_a_hand(monkeypatch):
    # Tune acrylic 10/3 c1 and d1: empty cells beside (d1: under) a hand whose look fitted a
    # suns coin facing west (leads 0.13, 0.06); a grid line stood in for acrylic's bar, the
    # learned mark naming west by 0.27. Confirmed, both were read as suns coins.
    looks = _looks()
    scores = (0.1495, 0.1048, 0.175, 0.4423)
    for margin in (0.132, 0.062):
        d = _coin(cell="c1", facing_margin=margin, similarity=0.71)
        assert _checked(monkeypatch, d, scores, looks, by_hand=True) == []
        assert (d.mark, facing_sure(d, looks)) == (0, False)
        _checked(monkeypatch, d, scores, looks, by_hand=False)  # away from the hand
        assert (d.mark, facing_sure(d, looks)) == (1, True)
    # Beside a hand the doubt still stands (as before face21): the read is made for it.
    d = _coin(facing_margin=0.17)
    _checked(monkeypatch, d, (0.39, 0.32, 0.61, 0.33), looks, by_hand=True)
    assert (d.mark, facing_sure(d, looks)) == (-1, False)


def test_measure_tells_the_check_which_cells_are_beside_a_hand(monkeypatch):
    from piecebridge.calibration.board import calibration_layout
    from piecebridge.vision.learn import learn_setup
    from piecebridge.vision.reader import BoardReader
    from test_vision_board import POSITION, draw_board

    hands = np.zeros(64, bool)
    hands[cells.CELL_ORDER.index("d4")] = True
    around = {cells.CELL_ORDER[i] for i in np.flatnonzero(cells.beside_a_hand(hands))}
    assert around == {"c3", "c4", "c5", "d3", "d4", "d5", "e3", "e4", "e5"}
    # A hand over b5's lines (as occlusion.covered_cells finds it): of the drawn position's
    # coins c4 touches it, d5, e2 and b7 do not.
    coins = [(c, s, "north") for c, (k, s) in calibration_layout().items() if k == "coin"]
    pawns = [(c, s) for c, (k, s) in calibration_layout().items() if k == "pawn"]
    setup, _ = learn_setup(draw_board(coins, pawns, seed=1)[0])
    hand = np.zeros(64, bool)
    hand[cells.CELL_ORDER.index("b5")] = True
    monkeypatch.setattr(cells, "covered_cells", lambda *a, **k: hand.copy())
    seen = {}
    real = cells._check_mark_shape
    monkeypatch.setattr(
        cells,
        "_check_mark_shape",
        lambda d, w, t, lk, by, *a: seen.update({d.cell: by}) or real(d, w, t, lk, by, *a),
    )
    BoardReader(setup=setup).read(draw_board(**POSITION, seed=4)[0])
    assert {c: seen[c] for c in ("c4", "d5", "e2", "b7")} == {
        "c4": True, "d5": False, "e2": False, "b7": False
    }  # fmt: skip


def test_the_mark_is_read_only_where_it_can_change_the_decision(monkeypatch):
    # Each read costs ~4 ms: not for a look under agreed_facing_margin, a cell that could
    # not be named, nor a look leading by MARK_CONFLICT_LEAD.
    agreeing = (0.266, 0.346, 0.297, 0.502)
    for d in (_coin(facing_margin=0.02), _coin(similarity=0.5), _coin(facing_margin=0.3)):
        assert _checked(monkeypatch, d, agreeing, _looks()) == []
    assert _checked(monkeypatch, _coin(), agreeing, _looks()) == [1]
