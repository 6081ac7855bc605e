"""Round 28 of cell decisions (coins' facings): a facing the learned look alone reads (the
separate mark not confirming it) is left unknown where that look cannot rule out a turn its
suit's symbol is fairly alike under (its lead floor stays
``PieceLooks.min_facing_margin``)."""

from __future__ import annotations

from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks, decide, facing_sure


def _coin(**kw) -> CellDecision:
    """A coin cell in the open, its look fitting closely and naming its suit clearly."""
    base = dict(
        cell="d4", kind="unknown", best=("coin", "suns"), facing="north", similarity=0.85,
        margin=0.3, energy_ratio=20.0, detail_ratio=20.0, tint=30.0, facing_margin=0.25,
        turn_leads=(0.0, 0.25, 0.45, 0.27),
    )  # fmt: skip
    base.update(kw)
    return CellDecision(**base)


def _looks(alike: tuple[float, float, float]) -> PieceLooks:
    """Learned looks whose suns coin is this alike to itself under each quarter turn."""
    return PieceLooks({}, {}, turn_alike={"suns": alike}, learned=True)


def test_an_unconfirmed_look_does_not_pick_among_turns_its_symbol_is_alike_under():
    # Tune piecepackr 71/0 f2: a suns coin (its look 0.79-0.83 alike under the turns, its
    # mark not learned) facing west read north, the look leading by 0.27 (shading).
    fair = _looks((0.83, 0.79, 0.82))
    assert not facing_sure(_coin(), fair)
    assert decide(_coin(), fair).kind == "unknown"
    # Not alike under the turns it leads by under MARK_CONFLICT_LEAD: the look decides.
    unlike = _looks((0.4, 0.3, 0.4))
    got = decide(_coin(), unlike)
    assert (got.kind, got.suit, got.facing) == ("coin", "suns", "north")
    # Leading those turns clearly, or confirmed by the mark, the look decides as well.
    assert facing_sure(_coin(facing_margin=0.31, turn_leads=(0.0, 0.31, 0.45, 0.31)), fair)
    assert facing_sure(_coin(mark=1), fair)
    assert not facing_sure(_coin(mark=-1), fair)


def _mark_checked(monkeypatch, d: CellDecision, rim, fit, looks: PieceLooks) -> CellDecision:
    """``d`` after the mark check with these reads (the rim circle's, the look centre's)."""
    monkeypatch.setattr(cells, "mark_facing", lambda v, i, c=None, spot=None: fit if c else rim)
    monkeypatch.setattr(cells, "look_centre", lambda *a: (1.0, 1.0))
    monkeypatch.setattr(cells, "_off_symbol_dropped", lambda v, i, c, rim, fit: (rim, fit))
    monkeypatch.setattr(cells, "_on_round_symbol", lambda v, i, c, rim, fit, spot=None: (rim, fit))
    monkeypatch.setattr(cells, "_symbol_leans", lambda *a, **k: False)  # no symbol in view
    cells._check_mark(d, None, 0, looks, thorough=True)
    return d


def test_the_mark_sets_no_turn_the_look_rules_out(monkeypatch):
    # Tune piecepackr 44/0 h6: a suns coin facing east, its look leading south by 0.26 (the
    # symbol 0.79 alike under that turn); one sure read from the look's centre named south.
    looks = _looks((0.79, 0.46, 0.81))
    d = _coin(facing="east", facing_margin=0.26, turn_leads=(0.32, 0.0, 0.26, 0.32))
    d = _mark_checked(monkeypatch, d, (None, 0.0), ("south", 0.73), looks)
    assert (d.facing, d.mark, facing_sure(d, looks)) == ("east", -1, False)
    # Led by under MARK_OVERRULE_LEAD, the sure read chooses that turn as before.
    d = _coin(facing="east", facing_margin=0.15, turn_leads=(0.32, 0.0, 0.15, 0.32))
    d = _mark_checked(monkeypatch, d, (None, 0.0), ("south", 0.73), looks)
    assert (d.facing, d.mark) == ("south", 2)
    # Woodburned 11/1 b5: both reads sure of the turn opposite a look leading it by 0.28.
    looks = _looks((0.56, 0.68, 0.56))
    d = _coin(facing="east", facing_margin=0.28, turn_leads=(0.29, 0.0, 0.36, 0.28))
    d = _mark_checked(monkeypatch, d, ("west", 0.76), ("west", 0.67), looks)
    assert (d.facing, d.mark, facing_sure(d, looks)) == ("east", -1, False)
    d = _coin(facing="east", facing_margin=0.15, turn_leads=(0.29, 0.0, 0.36, 0.15))
    d = _mark_checked(monkeypatch, d, ("west", 0.76), ("west", 0.67), looks)
    assert (d.facing, d.mark) == ("west", 2)
