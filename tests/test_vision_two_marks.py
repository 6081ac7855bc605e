"""face22: a coin whose facing the look leaves undecided is named by two reads of its mark
made by different means that agree: the mark learned as a shape (``cells._check_mark_shape``,
sure) and a blob read of the separate mark (``cells._blob_reads``, sure), where the look
does not rule that turn out (``cells._two_marks_set``). The figures are tune shots' (with a
setup): piecepackr rig 71, whose suns' blob mark was not learned (one calibration coin of six
read) and whose eight-rayed sun is alike under every quarter turn."""

from __future__ import annotations

import dataclasses

import numpy as np
from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks, decide, facing_sure

#: Tune piecepackr 71's suns look, alike to itself under a quarter, half, three quarter turn.
RIG71_ALIKE = {"suns": (0.83, 0.79, 0.82)}
NONE = (None, 0.0)


def _coin(**kw) -> CellDecision:
    """Tune piecepackr 71/0 g6: a suns coin facing south in the open, the look naming east
    by 0.08 (south 0.09 behind), no blob read made (the suit not in ``marked``)."""
    base = dict(
        cell="g6", kind="unknown", best=("coin", "suns"), facing="east", similarity=0.82,
        margin=0.24, energy_ratio=20.0, detail_ratio=20.0, tint=30.0, facing_margin=0.08,
        turn_leads=(0.17, 0.0, 0.09, 0.08),
    )  # fmt: skip
    base.update(kw)
    return CellDecision(**base)


def _looks(turn_alike: dict | None = None) -> PieceLooks:
    looks = PieceLooks(
        {}, {}, learned=True, mark_shapes=("suns",), turn_alike=RIG71_ALIKE if turn_alike is None
        else turn_alike
    )  # fmt: skip
    looks.extra["mark_shapes"] = (looks.turned_faces(), {"suns": np.zeros(1)})
    return looks


def _checked(monkeypatch, d, scores, blobs, looks, by_hand=False) -> list[int]:
    """Run :func:`cells._check_mark_shape` on ``d``, the learned mark scoring ``scores``
    (north, east, south, west) and the blob reads ``blobs`` (rim's, fit's; None: not
    offered); returns the blob reads made."""
    made = []
    monkeypatch.setattr(cells, "mark_windows", lambda w, t: [w] * 4)
    monkeypatch.setattr(cells, "mark_scores", lambda w, t: np.asarray(scores, float))
    offer = None if blobs is None else (lambda: made.append(1) or blobs)
    cells._check_mark_shape(d, np.zeros(1), {"suns": np.zeros(1)}, looks, by_hand, offer)
    return made


#: Tune piecepackr 71/0 g6 (truth south): the learned mark names south by 0.25.
G6_SCORES = (0.53, 0.53, 0.78, 0.45)


def test_a_sure_learned_mark_and_a_sure_blob_read_agreeing_set_the_facing(monkeypatch):
    looks = _looks()
    cases = (
        # 71/0 g6: the rim circle's blob read south 0.82.
        (_coin(), G6_SCORES, (("south", 0.82), NONE), "south"),
        # 71/3 d4 (truth east): the look north by 0.13, the mark east by 0.22, the look fit's
        # blob read east 0.87.
        (_coin(cell="d4", facing="north", facing_margin=0.13, turn_leads=(0.0, 0.13, 0.31, 0.18)),
         (0.57, 0.80, 0.52, 0.46), (NONE, ("east", 0.87)), "east"),
        # 71/0 g2 (truth south): the look leads south by 0.22 (over MARK_OVERRULE_LEAD), but
        # the sun is alike under that turn (a sure rival): the marks may set it.
        (_coin(cell="g2", turn_leads=(0.08, 0.0, 0.22, 0.26), margin=0.55),
         (0.50, 0.61, 0.77, 0.49), (NONE, ("south", 0.98)), "south"),
    )  # fmt: skip
    for d, scores, blobs, truth in cases:
        assert not facing_sure(d, looks) and decide(dataclasses.replace(d), looks).kind == "unknown"
        assert _checked(monkeypatch, d, scores, blobs, looks) == [1]
        assert (d.facing, d.mark, facing_sure(d, looks)) == (truth, 2, True)
        named = decide(d, looks)
        assert (named.kind, named.suit, named.facing) == ("coin", "suns", truth)


def test_an_agreeing_pair_confirms_a_look_whose_lead_is_too_small_even_for_a_mark(monkeypatch):
    # Tune piecepackr 52/1 f1 (truth south): the blob mark learned and read south (0.95), the
    # look's lead 0.02 (under agreed_facing_margin: the sun's alike turns' leads are zeroed),
    # so the blob read's mark 1 was not enough; the learned mark names south by 0.40.
    looks = _looks({"suns": (0.86, 0.92, 0.86)})
    d = _coin(cell="f1", facing="south", facing_margin=0.02, turn_leads=(0.0, 0.02, 0.0, 0.09),
              mark=1, similarity=0.94, margin=0.35)  # fmt: skip
    assert not facing_sure(d, looks)
    _checked(monkeypatch, d, (0.15, 0.34, 0.74, 0.29), (NONE, ("south", 0.95)), looks)
    assert (d.facing, d.mark, facing_sure(d, looks)) == ("south", 2, True)


def test_a_leaning_learned_mark_sets_it_with_both_blob_reads_sure(monkeypatch):
    # Tune printplay 68/2 h5 (truth south): the look north by 0.08, both blob reads south
    # (0.96, the suit's blob mark not learned), the learned mark south by 0.11 only.
    looks = _looks({"suns": (0.36, 0.59, 0.38)})
    north = dict(cell="h5", facing="north", facing_margin=0.08, turn_leads=(0.0, 0.27, 0.08, 0.34))
    scores = (0.38, 0.23, 0.49, 0.31)
    d = _coin(**north)
    _checked(monkeypatch, d, scores, (("south", 0.96), ("south", 0.96)), looks)
    assert (d.facing, d.mark, facing_sure(d, looks)) == ("south", 2, True)
    for blobs, sc in (
        ((("south", 0.96), NONE), scores),  # one blob read sure: the lean is not enough
        ((("south", 0.96), ("south", 0.96)), (0.38, 0.23, 0.41, 0.31)),  # lead 0.03
    ):
        d = _coin(**north)
        _checked(monkeypatch, d, sc, blobs, looks)
        assert (d.facing, d.mark) == ("north", 0)


def test_no_facing_set_without_both_marks_sure_and_agreeing(monkeypatch):
    looks = _looks()
    south = (("south", 0.82), NONE)
    for d, scores, blobs, lk, by_hand in (
        (_coin(), G6_SCORES, (("south", 0.55), NONE), looks, False),  # blob under MARK_SURE
        (_coin(), G6_SCORES, (("south", 0.82), ("west", 0.7)), looks, False),  # a sure one against
        (_coin(), G6_SCORES, (("west", 0.82), NONE), looks, False),  # the blob names another
        (_coin(), (0.53, 0.53, 0.64, 0.45), south, looks, False),  # learned mark lead 0.11
        (_coin(), G6_SCORES, south, looks, True),  # beside a hand
        (_coin(), G6_SCORES, None, looks, False),  # no blob reads offered
        (_coin(mark=-1), G6_SCORES, south, looks, False),  # the blob reads were in doubt
        (_coin(similarity=0.6), G6_SCORES, south, looks, False),  # the cell can't be named
        # The look rules south out (leads it by 0.25) and the suit is not alike under turns.
        (_coin(turn_leads=(0.17, 0.0, 0.25, 0.08)), G6_SCORES, south, _looks({}), False),
    ):
        before = (d.facing, d.mark)
        _checked(monkeypatch, d, scores, blobs, lk, by_hand)
        assert (d.facing, d.mark) == before, d
        assert not facing_sure(d, lk)


def test_a_look_sure_alone_is_not_overruled_by_the_two_marks(monkeypatch):
    # The look leads east by 0.2 (no sure rivals): the learned mark naming south doubts it
    # (face20's rule, mark -1), the blob read is not asked.
    looks = _looks({})
    looks.marked = ("suns",)  # the blob mark learned (else _blobs_doubt reads it first)
    d = _coin(facing_margin=0.2, turn_leads=(0.25, 0.0, 0.2, 0.25))
    assert facing_sure(d, looks)
    assert _checked(monkeypatch, d, G6_SCORES, (("south", 0.82), NONE), looks) == []
    assert (d.facing, d.mark) == ("east", -1)


def test_a_learned_mark_against_a_turn_one_blob_read_set_leaves_it_undecided(monkeypatch):
    # Tune piecepackr 53/3 e2 (truth west): the sun alike under every turn, the look no lead;
    # one sure blob read from the look's fit named east (0.73), setting it (mark 2); the
    # learned mark names west by 0.35. Read east before.
    looks = _looks({"suns": (0.93, 0.90, 0.93)})
    looks.marked = ("suns",)
    d = _coin(cell="e2", facing_margin=0.15, turn_leads=(0.0, 0.0, 0.0, 0.0), mark=2)
    assert facing_sure(d, looks)
    _checked(monkeypatch, d, (0.24, 0.34, 0.16, 0.68), None, looks)
    assert (d.facing, d.mark, facing_sure(d, looks)) == ("east", -1, False)
    agreeing = _coin(cell="e2", facing_margin=0.15, turn_leads=(0.0,) * 4, mark=2)
    _checked(monkeypatch, agreeing, (0.24, 0.68, 0.16, 0.34), None, looks)  # names east
    assert (agreeing.mark, facing_sure(agreeing, looks)) == (2, True)
    unsure = _coin(cell="e2", facing_margin=0.15, turn_leads=(0.0,) * 4, mark=2)
    _checked(monkeypatch, unsure, (0.24, 0.34, 0.16, 0.45), None, looks)  # west by 0.11
    assert unsure.mark == 2


def test_two_sure_blob_reads_a_quarter_turn_off_a_look_alone_doubt_it(monkeypatch):
    # Tune printplay 71/3 a5 (truth south): the suit's blob mark not learned, the look west
    # by 0.20 (sure alone), both blob reads south (0.74, 0.89), the learned mark south by
    # 0.07 only. Read west before (face19's measure).
    looks = _looks({})
    blobs = (("south", 0.74), ("south", 0.89))
    west = dict(facing="west", facing_margin=0.2, turn_leads=(0.26, 0.2, 0.23, 0.0))
    scores = (0.30, 0.55, 0.62, 0.47)
    d = _coin(cell="a5", **west)
    assert facing_sure(d, looks)
    assert _checked(monkeypatch, d, scores, blobs, looks) == [1]
    assert (d.facing, d.mark, facing_sure(d, looks)) == ("west", -1, False)
    for d, lk, b in (
        (_coin(cell="a5", **west), looks, (("east", 0.74), ("east", 0.89))),  # a half turn
        (_coin(cell="a5", **west), looks, (("south", 0.74), ("south", 0.5))),  # one sure
        (_coin(cell="a5", **west), looks, (("south", 0.74), ("north", 0.89))),  # disagree
        (_coin(cell="a5", **{**west, "facing_margin": 0.3}), looks, blobs),  # a clear lead
    ):
        _checked(monkeypatch, d, scores, b, lk)
        assert d.mark == 0, d
    learned = _looks({})
    learned.marked = ("suns",)  # its blob reads were made by _check_mark already
    d = _coin(cell="a5", **west)
    assert _checked(monkeypatch, d, scores, blobs, learned) == []
    assert d.mark == 0


def test_measure_offers_the_blob_reads_of_each_coin(monkeypatch):
    from piecebridge.calibration.board import calibration_layout
    from piecebridge.vision.learn import learn_setup
    from piecebridge.vision.reader import BoardReader
    from test_vision_board import POSITION, draw_board

    coins = [(c, s, "north") for c, (k, s) in calibration_layout().items() if k == "coin"]
    pawns = [(c, s) for c, (k, s) in calibration_layout().items() if k == "pawn"]
    setup, _ = learn_setup(draw_board(coins, pawns, seed=1)[0])
    offered = {}
    real = cells._check_mark_shape
    monkeypatch.setattr(
        cells,
        "_check_mark_shape",
        lambda d, w, t, lk, by, blobs=None: (
            offered.update({d.cell: blobs}) or real(d, w, t, lk, by, blobs)
        ),
    )
    BoardReader(setup=setup).read(draw_board(**POSITION, seed=4)[0])
    assert offered and all(callable(b) for b in offered.values())
    reads = [b() for b in offered.values()]
    assert all(len(r) == 2 and all(len(x) == 2 for x in r) for r in reads)
    assert any(f is not None for r in reads for f, _ in r)  # the drawn coins' marks are read
