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


def _weak_arms_coin(facing: str = "east") -> CellDecision:
    """An arms coin (diamond: alike upside down) whose look picks east, 0.08 ahead of west
    and more of the others: the look cannot rule west out (``RIVAL_LEAD``)."""
    return CellDecision(
        "d5", "unknown", best=("coin", "arms"), facing=facing, facing_margin=0.08,
        turn_leads=(0.25, 0.0, 0.14, 0.08), similarity=0.8, margin=0.18, energy_ratio=9.0,
        detail_ratio=6.0,
    )  # fmt: skip


def _marks(monkeypatch, rim, fit):
    """The rim circle's mark read gives ``rim``, the look's centre's ``fit``."""
    import piecebridge.vision.cells as cells

    monkeypatch.setattr(
        cells, "mark_facing", lambda views, i, centre=None, spot=None: fit if centre else rim
    )
    monkeypatch.setattr(cells, "look_centre", lambda *a: (0.0, 0.0))
    # No image: both reads stand (see cells._off_symbol_dropped).
    monkeypatch.setattr(cells, "_off_symbol_dropped", lambda v, i, c, rim, fit: (rim, fit))
    monkeypatch.setattr(cells, "round_symbol_centre", lambda v, c: None)  # nor symbol


def _by_hand(d: CellDecision) -> CellDecision:
    """``d`` decided on d5 of a board of plain tile whose d4 a hand covers."""
    from piecebridge.vision.cells import decide_all
    from piecebridge.vision.raster import CELL_ORDER

    cells = [CellDecision(c, "unknown", detail_ratio=1.0, energy_ratio=1.0) for c in CELL_ORDER]
    cells[CELL_ORDER.index("d4")].covered = True
    cells[CELL_ORDER.index("d5")] = d
    return {c.cell: c for c in decide_all(cells, LEARNED)}["d5"]


@pytest.mark.parametrize("rim, want", [(("east", 0.9), "east"), (("west", 0.9), None)])
def test_by_a_hand_the_mark_may_confirm_the_looks_turn_but_not_pick_another(monkeypatch, rim, want):
    from piecebridge.vision.cells import _check_mark

    _marks(monkeypatch, rim, (None, 0.0))
    d = _weak_arms_coin()
    _check_mark(d, None, 0, LEARNED)
    assert d.facing == rim[0]  # in the open either read would set the facing
    assert decide(dataclasses.replace(d), LEARNED).kind == "coin"
    d = _by_hand(d)
    assert (d.kind, d.facing) == (("coin", want) if want else ("unknown", None))


def test_by_a_hand_two_leaning_mark_reads_naming_the_looks_turn_confirm_it(monkeypatch):
    """Two mark reads that lean (not sure) to the look's own turn count as confirming it
    beside a hand, as one sure read does (before round 9 they counted against it)."""
    from piecebridge.vision.cells import _check_mark

    _marks(monkeypatch, ("east", 0.45), ("east", 0.45))
    d = _weak_arms_coin()
    _check_mark(d, None, 0, LEARNED)
    d = _by_hand(d)
    assert (d.kind, d.facing) == ("coin", "east")


def test_a_sure_rim_read_agreeing_with_a_weak_look_is_checked_from_the_looks_centre(
    monkeypatch,
):
    """Piecepackr tune shot 11 f1: the rim circle, a few pixels off, takes a ray of the sun
    for the mark and agrees with the look's wrong north (lead 0.07); from the look's centre
    the mark reads south."""
    from piecebridge.vision.cells import _check_mark

    d = dataclasses.replace(_weak_arms_coin("north"), turn_leads=(0.0, 0.07, 0.12, 0.3))
    d.facing_margin = 0.07
    _marks(monkeypatch, ("north", 0.86), ("south", 0.98))
    _check_mark(d, None, 0, LEARNED)
    assert d.mark == -1 and decide(d, LEARNED).kind == "unknown"
    d = dataclasses.replace(d, mark=0, facing="north")
    _marks(monkeypatch, ("north", 0.86), (None, 0.0))  # nothing more from there: it stands
    _check_mark(d, None, 0, LEARNED)
    assert (d.facing, decide(d, LEARNED).kind) == ("north", "coin")


@pytest.mark.parametrize(
    "named, likeness, want",
    [
        (True, 0.83, "pawn"),
        (False, -1.0, "unknown"),
        # the colour was read (``likeness`` set) but named no suit: the closer fit still
        # holds (round 10: the rule asked ``likeness >= 0``, which such a cell also has)
        (False, 0.83, "unknown"),
    ],
)
def test_by_a_hand_a_pawn_named_by_its_colour_needs_a_less_close_fit(named, likeness, want):
    """Mixed tune shot 95 a4 and b4: pawns beside a hand fitting at 0.83-0.84 whose colour
    named their suits (an arm or its shadow fits a dark pawn's shape, not a suit's colour)."""
    pawn = CellDecision(
        "d5", "unknown", best=("pawn", "moons"), similarity=0.83, margin=0.3,
        likeness=likeness, colour_named=named, energy_ratio=12.0, detail_ratio=6.0, tint=15.0,
    )  # fmt: skip
    d = _by_hand(pawn)
    assert d.kind == want and d.suit == ("moons" if named else None)


@pytest.mark.parametrize(
    "look, leads, rim, want",
    [
        # mixed tune shot 12 e2: an arms coin facing east, its look's pick west (0.18 over
        # east, 0.29 and 0.32 over the others); the rim's sure read says east. Round 9's
        # runner-up rule chose east; it no longer paid on tune once the coin looks were
        # centred (round 10 removed it): the two reads disagree, undecided
        ("west", (0.32, 0.18, 0.29, 0.0), ("east", 0.99), ("west", "unknown")),
        # a rim read naming another turn (south 0.34, west 0.25): in doubt, undecided
        ("north", (0.0, 0.45, 0.34, 0.25), ("south", 0.62), ("north", "unknown")),
        # shot 13 f3: the same with the look leading every turn by 0.3 (MARK_CONFLICT_LEAD):
        # one sure read against it is in doubt, and the look (right) keeps its facing
        ("north", (0.0, 0.45, 0.34, 0.30), ("south", 0.62), ("north", "coin")),
        # a weak read is not enough against a clear lead
        ("west", (0.32, 0.18, 0.29, 0.0), ("east", 0.5), ("west", "coin")),
    ],
)
def test_one_sure_mark_against_a_middling_or_a_clear_lead(monkeypatch, look, leads, rim, want):
    from piecebridge.vision.cells import _check_mark

    lead = sorted(leads)[1]
    d = dataclasses.replace(_weak_arms_coin(look), turn_leads=leads, facing_margin=lead)
    _marks(monkeypatch, rim, (None, 0.0))
    _check_mark(d, None, 0, LEARNED)
    assert (d.facing, decide(d, LEARNED).kind) == want


@pytest.mark.parametrize("alike, want", [((0.3, 0.8, 0.3), "west"), ((0.3, 0.3, 0.3), None)])
def test_a_sure_mark_may_choose_a_turn_the_suits_look_is_fairly_alike_under(
    monkeypatch, alike, want
):
    """Piecepackr tune shot 8 g2: a suns coin facing west (the eight-rayed sun is fairly
    alike under turns), its look picking east by 0.11-0.2; the mark read from the look's
    centre says west, sure. Whether the look may be overruled so is learned per suit
    (``turn_alike``)."""
    from piecebridge.vision.cells import _check_mark

    looks = dataclasses.replace(LEARNED, turn_alike={"suns": alike}, extra={})
    d = CellDecision(
        "g2", "unknown", best=("coin", "suns"), facing="east", facing_margin=0.107,
        turn_leads=(0.2, 0.0, 0.14, 0.107), similarity=0.8, margin=0.27, energy_ratio=9.0,
        detail_ratio=8.0,
    )  # fmt: skip
    _marks(monkeypatch, (None, 0.0), ("west", 0.965))
    _check_mark(d, None, 0, looks)
    d = decide(d, looks)
    assert (d.kind, d.facing) == (("coin", want) if want else ("unknown", None))
