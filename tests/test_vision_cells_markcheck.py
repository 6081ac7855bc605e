"""The mark check's cheap path (``cells._only_confirms``, benchmarks/results/vision_speed.md,
eighth session): a coin whose learned look leads clearly skips the second mark read when the
rim's read is not sure, and must then be decided exactly as with both reads.

Every combination of the two reads (none, leaning, sure; each facing) over learned leads on
both sides of the thresholds, for suits alike and not alike under a turn, open and covered:
the decision with the skip equals the decision with both reads. No image, instant."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from piecebridge.vision import cells
from piecebridge.vision.cells import (
    MARK_CONFLICT_LEAD,
    MARK_SURE,
    CellDecision,
    PieceLooks,
    decide,
)
from piecebridge.vision.facing import FACINGS

_DRAWN = PieceLooks.default()
#: Learned looks' thresholds (the class defaults, as a setup has them); crowns is alike to
#: itself under a quarter turn (as piecepackr's suns), so a sure mark may choose that turn.
LOOKS = PieceLooks(
    _DRAWN.coins,
    _DRAWN.pawns,
    _DRAWN.faces,
    learned=True,
    turn_alike={"crowns": (0.8, 0.3, 0.3)},
)
READS = [(None, 0.0)] + [(f, lead) for f in FACINGS for lead in (0.4, 0.7)]
LEADS = (0.05, 0.12, 0.149, 0.15, 0.2, 0.25, 0.299, 0.3, 0.35, 0.45, 0.59)


def _coin(suit: str, lead: float, covered: bool) -> CellDecision:
    """A coin of ``suit`` read south with ``lead`` over its next turn (east), in full view or
    beside a hand (lines hidden, lit beside it), otherwise plainly that suit's coin."""
    return CellDecision(
        "e4",
        "unknown",
        similarity=0.83,
        energy_ratio=6.0,
        detail_ratio=6.0,
        margin=0.2,
        facing="south",
        facing_margin=lead,
        turn_leads=(lead + 0.2, lead, 0.0, lead + 0.1),
        tint=13.0,
        light_ratio=1.0,
        shade_tint=25.0,
        covered=covered,
        lit_beside=covered,
        best=("coin", suit),
    )


def _checked(monkeypatch, d: CellDecision, rim, fit, thorough: bool) -> tuple[CellDecision, int]:
    """``d`` after the mark check with these reads (the rim's, then the look centre's), and
    how many reads it made."""
    made = []

    def reads(views, i, centre=None, spot=None):
        made.append(centre)
        return rim if centre is None else fit

    monkeypatch.setattr(cells, "mark_facing", reads)
    monkeypatch.setattr(cells, "look_centre", lambda *a: (0.0, 0.0))
    # No image: two disagreeing sure reads both stand (the skip needs the rim's read
    # unsure, so the centres' offsets from the symbol never matter to it).
    monkeypatch.setattr(cells, "_off_symbol_dropped", lambda views, i, c, rim, fit: (rim, fit))
    monkeypatch.setattr(cells, "round_symbol_centre", lambda v, c: None)  # nor symbol
    d = dataclasses.replace(d)
    cells._check_mark(d, None, 0, LOOKS, thorough=thorough)
    return d, len(made)


def _verdict(d: CellDecision) -> tuple:
    d = decide(dataclasses.replace(d), LOOKS)
    return d.kind, d.suit, d.facing, d.confidence


@pytest.mark.parametrize("covered", [False, True])
@pytest.mark.parametrize("suit", ["arms", "crowns"])
def test_the_skip_decides_as_both_reads_do(monkeypatch, suit, covered):
    skipped = 0
    for lead, rim, fit in itertools.product(LEADS, READS, READS):
        d = _coin(suit, lead, covered)
        full, n_full = _checked(monkeypatch, d, rim, fit, thorough=True)
        cheap, n_cheap = _checked(monkeypatch, d, rim, fit, thorough=False)
        assert _verdict(cheap) == _verdict(full), (lead, rim, fit)
        assert cheap.facing == full.facing, (lead, rim, fit)
        skipped += n_cheap < n_full
    # The skip is taken (it is the point): every clear lead with a rim read that is not sure.
    clear = sum(lead >= MARK_CONFLICT_LEAD for lead in LEADS)
    unsure = sum(r[1] < MARK_SURE for r in READS)
    assert skipped == clear * unsure * len(READS)


def test_a_sure_rim_read_against_the_look_still_gets_its_second_read(monkeypatch):
    # Two sure reads that agree against a look leading their turn by 0.45 leave the facing
    # in doubt (round 28: by MARK_OVERRULE_LEAD and more the look rules that turn out) ...
    d = _coin("arms", 0.35, covered=False)
    cheap, n = _checked(monkeypatch, d, ("west", 0.9), ("west", 0.8), thorough=False)
    assert n == 2 and (cheap.facing, cheap.mark) == ("south", -1)
    # ... and overrule a look leading it by 0.15 (the facing becomes theirs).
    d = _coin("arms", 0.05, covered=False)
    cheap, n = _checked(monkeypatch, d, ("west", 0.9), ("west", 0.8), thorough=False)
    assert n == 2 and (cheap.facing, cheap.mark) == ("west", 2)
