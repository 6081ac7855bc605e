"""Round 49 (mark24): a coin's separate mark read again from its round symbol's centre
(``cells._on_round_symbol``), where the look's fit lies off the symbol or the rim circle
found no sure mark: tune piecepackr 53/3 e2 and 204/3 d2, suns coins left unknown for
"mark" (two reads of the mark from wrong centres in conflict)."""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.vision import cells, facing
from piecebridge.vision.cells import (
    FIT_OFF_SYMBOL,
    MARK_SURE,
    CellDecision,
    PieceLooks,
    board_views,
)
from piecebridge.vision.facing import round_symbol_centre
from piecebridge.vision.raster import FACE_PX, MARGIN

INK = (40, 40, 160)
#: Where the dot sits, from the coin's centre (x, y pixels), for each facing.
DOT = {"north": (0, -11), "east": (11, 0), "south": (0, 11), "west": (-11, 0)}


def _board(facing: str | None = "west", round_symbol: bool = True) -> tuple:
    """A board raster (FACE_PX pixels a cell) with a coin in a8's place (cell 0), a round
    symbol (else a crescent) at its centre and its dot towards ``facing`` (None: no dot);
    its views and the coin's centre."""
    cx = cy = int((MARGIN + 0.5) * FACE_PX)
    img = np.full((4 * FACE_PX, 4 * FACE_PX, 3), (175, 205, 220), np.uint8)
    cv2.circle(img, (cx, cy), int(0.38 * FACE_PX), (120, 150, 165), -1)
    r = int(0.16 * FACE_PX)
    cv2.circle(img, (cx, cy), r, INK, -1)
    if not round_symbol:  # a crescent: its centroid lies off its box's centre
        cv2.circle(img, (cx + r // 2, cy), r, (120, 150, 165), -1)
    if facing is not None:
        dx, dy = DOT[facing]
        cv2.circle(img, (cx + dx, cy + dy), 2, INK, -1)
    return board_views(img), (float(cx), float(cy))


def test_the_symbol_found_from_a_centre_off_it():
    views, (cx, cy) = _board()
    got = round_symbol_centre(views, (cx + 5.0, cy + 3.0))
    assert got is not None and np.hypot(got[0] - cx, got[1] - cy) < 1.0


def test_a_fit_off_the_round_symbol_reads_the_mark_from_the_symbol():
    # 53/3 e2: the look's fit 7.8 px off the sun read east (0.73); the dot is west.
    views, (cx, cy) = _board("west")
    off = (cx + 5.0, cy + 3.0)  # 5.8 px off: past FIT_OFF_SYMBOL
    assert np.hypot(5.0, 3.0) >= FIT_OFF_SYMBOL
    rim = ("north", 0.9)  # sure: it stands (only one read is replaced)
    got_rim, got_fit = cells._on_round_symbol(views, 0, off, rim, ("east", 0.73))
    assert got_rim == rim and got_fit[0] == "west" and got_fit[1] >= MARK_SURE


def test_a_centred_fit_stands_and_an_unsure_rim_read_is_read_again():
    # 204/3 d2: the rim circle found no mark; the fit's read (west) stood alone against
    # the look. From the symbol's centre, west too: two sure reads.
    views, (cx, cy) = _board("west")
    fit = ("west", 0.94)
    got_rim, got_fit = cells._on_round_symbol(views, 0, (cx + 1.0, cy - 1.0), (None, 0.0), fit)
    assert got_fit == fit and got_rim[0] == "west" and got_rim[1] >= MARK_SURE
    sure_rim = ("south", 0.7)
    assert cells._on_round_symbol(views, 0, (cx, cy), sure_rim, fit) == (sure_rim, fit)


def test_a_leaning_rim_read_stands_where_the_symbol_finds_no_sure_mark():
    # 1604/3 h3: the rim circle's read leaned north (0.39), confirming the look's north;
    # from the sun's centre no mark was found: the leaning read stays.
    views, (cx, cy) = _board(None)
    reads = (("north", 0.39), ("south", 0.29))
    assert cells._on_round_symbol(views, 0, (cx, cy), *reads) == reads


def test_without_a_round_symbol_both_reads_stand():
    views, (cx, cy) = _board("west", round_symbol=False)
    assert round_symbol_centre(views, (cx, cy)) is None
    reads = ((None, 0.0), ("east", 0.73))
    assert cells._on_round_symbol(views, 0, (cx + 5.0, cy + 3.0), *reads) == reads


def _coin(facing: str, margin: float, leads: tuple) -> CellDecision:
    return CellDecision(
        "a8", "unknown", facing=facing, facing_margin=margin, best=("coin", "suns"),
        turn_leads=leads,
    )  # fmt: skip


def test_a_weak_look_against_two_agreeing_reads_takes_their_facing(monkeypatch):
    # 204/3 d2: the look east by 0.19 (west led by 0.19: not ruled out), the fit west
    # (0.94), the rim none: left unknown for "mark" before; the sun's centre reads west.
    views, (cx, cy) = _board("west")
    monkeypatch.setattr(cells, "look_centre", lambda *a: (cx + 1.0, cy))
    monkeypatch.setattr(facing, "coin_centre", lambda *a: (cx + 9.0, cy + 9.0))  # no mark
    d = _coin("east", 0.186, (0.2, 0.0, 0.2, 0.19))
    looks = PieceLooks({}, {}, learned=True)
    cells._check_mark(d, views, 0, looks)
    assert (d.facing, d.mark) == ("west", 2)
    assert cells._blob_reads(views, 0, looks, "suns")[0][0] == "west"


def test_a_fit_off_the_symbol_no_longer_sets_the_facing(monkeypatch):
    # 53/3 e2: a look alike under every turn (no lead), the fit 5.8 px off the sun on
    # its east side: it read the rim's line east and set the facing (mark 2), which the
    # learned mark (west) then doubted. Read from the sun: west, as the learned mark.
    views, (cx, cy) = _board("west")
    monkeypatch.setattr(cells, "look_centre", lambda *a: (cx + 5.0, cy + 3.0))
    monkeypatch.setattr(facing, "coin_centre", lambda *a: (cx + 9.0, cy + 9.0))
    looks = PieceLooks({}, {}, learned=True, turn_alike={"suns": (0.85, 0.84, 0.85)})
    d = _coin("west", 0.15, (0.0, 0.0, 0.0, 0.0))
    real = cells.mark_facing

    def wrong_from_the_fit(views, i, centre=None, spot=None):
        if centre == (cx + 5.0, cy + 3.0):
            return ("east", 0.73)  # the rim's line from the wrong centre
        return real(views, i, centre, spot)

    monkeypatch.setattr(cells, "mark_facing", wrong_from_the_fit)
    cells._check_mark(d, views, 0, looks)
    assert d.facing == "west" and d.mark != -1


def _two_sure_west(monkeypatch, views, centre) -> CellDecision:
    """34/2 a7: a suns coin whose look names north, leading west by 0.38 (so ruling it
    out), both blob reads sure of west; ``d`` after the mark check."""
    real = cells.mark_facing

    def reads(views, i, c=None, spot=None):
        if c is None:
            return ("west", 1.0)  # the rim circle's
        return ("west", 0.88) if c == centre else real(views, i, c, spot)

    monkeypatch.setattr(cells, "mark_facing", reads)
    monkeypatch.setattr(cells, "look_centre", lambda *a: centre)
    d = _coin("north", 0.376, (0.0, 0.42, 0.43, 0.38))
    cells._check_mark(d, views, 0, PieceLooks({}, {}, learned=True))
    return d


def test_two_sure_reads_and_the_symbols_set_a_turn_the_look_rules_out(monkeypatch):
    views, (cx, cy) = _board("west")
    d = _two_sure_west(monkeypatch, views, (cx + 1.0, cy + 1.0))
    assert (d.facing, d.mark) == ("west", 2)


def test_two_sure_reads_the_symbols_read_against_stay_in_doubt(monkeypatch):
    # Woodburned 11/1 b5: both reads on the rim's line west, the sun's centre read east.
    views, (cx, cy) = _board("east")
    d = _two_sure_west(monkeypatch, views, (cx + 1.0, cy + 1.0))
    assert (d.facing, d.mark) == ("north", -1)
    views, (cx, cy) = _board("west", round_symbol=False)  # 11/2 b1: no round symbol
    d = _two_sure_west(monkeypatch, views, (cx + 1.0, cy + 1.0))
    assert (d.facing, d.mark) == ("north", -1)
