"""Coins whose symbol is alike under a turn (an eight-rayed sun under a quarter turn): the
calibration learns how alike each suit's look is to its own turns, and between turns it is
alike under only the separate mark decides a coin's facing. Drawn looks, milliseconds."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest
from piecebridge.calibration.board import BoardSetup
from piecebridge.vision.cells import (
    SUITS,
    TURN_ALIKE,
    CellDecision,
    PieceLooks,
    _alike_turns,
    _check_mark,
    decide,
)
from piecebridge.vision.facing import turn_alikeness
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.raster import FACE_CROP
from test_vision_board import layout_image

from piecebridge.errors import UserError

C = (FACE_CROP - 1) / 2
MARK = (11.0, 9.0)  # the dot's distance north of the centre and its area, as mark_blob learns


def _look(symbol: str) -> np.ndarray:
    """A coin look (relative Lab, facing north): a rim, a symbol, a dot at 11 px north."""
    yy, xx = np.mgrid[:FACE_CROP, :FACE_CROP] - C
    r, ang = np.hypot(yy, xx), np.degrees(np.arctan2(yy, xx)) % 45
    ink = np.abs(r - 15) < 0.7  # the rim line
    if symbol == "sun":  # a ring with eight rays: the same under a quarter turn
        ink |= (np.abs(r - 4.5) < 1) | ((r > 5) & (r < 8.5) & (np.abs(ang - 22.5) < 8))
    else:  # an arrow head pointing north: a different shape in every turn
        ink |= (yy > -7) & (yy < 5) & (np.abs(xx) < (yy + 7) / 2) & (yy - np.abs(xx) < 1)
    ink |= np.hypot(yy + MARK[0], xx) < 1.6  # the dot
    look = np.zeros((FACE_CROP, FACE_CROP, 3), np.float32)
    look[..., 0] = cv2.GaussianBlur(-50 * ink.astype(np.float32), (0, 0), 0.7)
    return look


def test_a_sun_is_alike_under_every_turn_an_arrow_under_none():
    sun = turn_alikeness(_look("sun"), MARK)
    assert min(sun) >= TURN_ALIKE
    assert max(turn_alikeness(_look("arrow"), MARK)) < TURN_ALIKE
    # The dot painted over: without the learned spot the dot itself tells turns apart.
    assert min(turn_alikeness(_look("sun"))) < min(sun)


def _coin(facing="east", leads=(0.6, 0.0, 0.5, 0.55), margin=0.5):
    """A suns coin whose look leads its best turn (east) by ``margin`` over its runner-up."""
    return CellDecision(
        "c3", "unknown", best=("coin", "suns"), facing=facing, facing_margin=margin,
        turn_leads=leads, similarity=0.9, margin=0.3, energy_ratio=10.0, detail_ratio=5.0,
    )  # fmt: skip


def test_the_look_does_not_decide_between_turns_it_is_alike_under():
    # The stand-ins with the facing lead they needed before DEFAULT_FACING_MARGIN (0.4):
    # the coin's lead of 0.5 is enough alone.
    looks = dataclasses.replace(PieceLooks.default(), min_facing_margin=0.4)
    d = _coin()
    _alike_turns(d, looks)  # nothing learned (an older setup): the look's lead stands
    assert d.facing_margin == 0.5 and decide(d, looks).kind == "coin"
    looks.turn_alike = {"suns": (0.95, 0.92, 0.95)}  # alike under every quarter turn
    d = _coin()
    _alike_turns(d, looks)
    assert d.turn_leads == (0.0,) * 4 and d.facing_margin < looks.min_facing_margin
    assert decide(d, looks).kind == "unknown"  # no mark read: never a guess
    d.mark = 1  # the mark agrees with the look's pick
    assert decide(d, looks).kind == "coin"
    looks.turn_alike = {"suns": (0.3, 0.95, 0.3)}  # alike upside down only
    d = _coin()
    _alike_turns(d, looks)
    assert d.turn_leads == (0.6, 0.0, 0.5, 0.0) and d.facing_margin < looks.min_facing_margin


@pytest.mark.parametrize(
    "rim, fit, want",
    [
        (("south", 0.9), (None, 0.0), ("south", 2)),  # one sure read picks the turn
        (("south", 0.9), ("south", 0.8), ("south", 2)),
        (("east", 0.9), (None, 0.0), ("east", 1)),  # or agrees with the look's pick
        (("south", 0.9), ("west", 0.9), ("east", 0)),  # sure reads disagree
        (("south", 0.4), (None, 0.0), ("east", 0)),  # one weak read: not sure
        ((None, 0.0), (None, 0.0), ("east", 0)),  # no mark seen
    ],
)
def test_the_mark_alone_sets_the_facing_of_a_coin_alike_in_every_turn(monkeypatch, rim, fit, want):
    import piecebridge.vision.cells as cells

    monkeypatch.setattr(
        cells, "mark_facing", lambda views, i, centre=None, spot=None: fit if centre else rim
    )
    monkeypatch.setattr(cells, "look_centre", lambda *a: (0.0, 0.0))
    # No image: both reads stand (see cells._off_symbol_dropped).
    monkeypatch.setattr(cells, "_off_symbol_dropped", lambda v, i, c, rim, fit: (rim, fit))
    monkeypatch.setattr(cells, "round_symbol_centre", lambda v, c: None)  # nor symbol
    looks = PieceLooks.default()
    looks.turn_alike = {"suns": (0.95, 0.92, 0.95)}
    d = _coin()
    _alike_turns(d, looks)
    _check_mark(d, None, 0, looks)
    assert (d.facing, d.mark) == want
    assert (decide(d, looks).kind == "coin") == (want[1] > 0)


def test_turn_alikeness_is_learned_saved_and_optional(tmp_path):
    setup = learn_setup(layout_image()[0])[0]
    looks = setup.looks
    assert set(looks.turn_alike) == set(SUITS)
    # The drawn coins' symbol is a plain disc: alike in every turn once the dot is painted
    # over, so their facing is the dot's (and read right, see test_vision_board).
    assert all(looks.alike_turns(s) == (1, 2, 3) for s in SUITS)
    path = tmp_path / "setup.json"
    setup.save(path)
    loaded = BoardSetup.load(path).looks.turn_alike
    assert set(loaded) == set(looks.turn_alike)
    for suit, alike in looks.turn_alike.items():  # (approx takes no nested dicts)
        assert tuple(loaded[suit]) == pytest.approx(tuple(alike))
    saved = json.loads(path.read_text())
    del saved["looks"]["turn_alike"]  # a setup saved before this was learned
    path.write_text(json.dumps(saved))
    assert BoardSetup.load(path).looks.turn_alike == {}
    for bad in ("north", {"suns": [0.5, 0.5]}, {"suns": [0.5, "x", 0.5]}):
        saved["looks"]["turn_alike"] = bad
        path.write_text(json.dumps(saved))
        with pytest.raises(UserError, match="is damaged"):
            BoardSetup.load(path)


def test_turn_alikeness_is_finite_when_it_can_tell_nothing():
    """A mark spot whose ring lies wholly outside the look is not painted over (no NaN that
    ``save`` would write and ``load`` refuse); a blank look is alike under every turn."""
    look = _look("arrow")
    vals = turn_alikeness(look, spot=(0.0, 1e5))  # the "mark" covers the whole look
    assert np.all(np.isfinite(vals))
    assert vals == pytest.approx(turn_alikeness(look))
    blank = np.zeros_like(look)
    assert turn_alikeness(blank) == (1.0, 1.0, 1.0)
    assert turn_alikeness(blank, spot=MARK) == (1.0, 1.0, 1.0)
    looks = PieceLooks({}, {}, turn_alike={"suns": turn_alikeness(blank)})
    assert looks.alike_turns("suns") == (1, 2, 3)  # the mark alone decides its facing


@pytest.mark.parametrize("margin, mark", [(0.235, -1), (0.29, -1), (0.31, 0), (0.5, 0)])
def test_disagreeing_sure_marks_leave_a_weak_look_undecided(monkeypatch, margin, mark):
    """Two sure reads of the mark that disagree (piecepackr tune shot 21 d4: south 0.94 and
    north 0.73 around a suns coin facing east, its look leading north by 0.235): the look
    alone decides only with ``MARK_CONFLICT_LEAD``; a suit with no learned alikeness."""
    import piecebridge.vision.cells as cells

    rim, fit = ("south", 0.94), ("north", 0.73)
    monkeypatch.setattr(
        cells, "mark_facing", lambda views, i, centre=None, spot=None: fit if centre else rim
    )
    monkeypatch.setattr(cells, "look_centre", lambda *a: (0.0, 0.0))
    # No image: both reads stand (see cells._off_symbol_dropped).
    monkeypatch.setattr(cells, "_off_symbol_dropped", lambda v, i, c, rim, fit: (rim, fit))
    monkeypatch.setattr(cells, "round_symbol_centre", lambda v, c: None)  # nor symbol
    looks = PieceLooks.default()
    looks.min_facing_margin = 0.15  # as learned looks have it (the drawn stand-ins want more)
    d = _coin("north", (0.0, margin + 0.01, margin + 0.07, margin), margin)
    _alike_turns(d, looks)
    _check_mark(d, None, 0, looks)
    assert (d.facing, d.mark) == ("north", mark)
    assert decide(d, looks).kind == ("coin" if mark == 0 else "unknown")
    assert pytest.approx(0.3) == cells.MARK_CONFLICT_LEAD
