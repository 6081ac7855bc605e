"""Cell rules of round 18 (benchmarks/results/vision_reflec.md, tenth session): a cell's
pixels are kept for the costly measurements of an undecided cell, made only once every
other rule has left it undecided (round 17's piece share, some 3 ms a cell, now also
with fewer medians); an undecided cell where what enters it from its edge (a hand, a
finger) is set aside, the rest is plain tile and every learned piece would show its marks
there is empty, at most half sure. Drawn windows and made-up measurements, milliseconds."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.vision import cells as cells_mod
from piecebridge.vision.cells import (
    _SEEN_DISC,
    CHROMA_WEIGHT,
    CROP,
    HAND_EDGE_SHOWN,
    HAND_EDGE_STRAYS,
    HAND_EDGE_WINDOW,
    SEEN_TOLERANCE,
    BoardRefs,
    N,
    PieceLooks,
    SeenLater,
    hand_edge_view,
    hand_edge_window,
    piece_share,
    raw_crops,
    tile_pixels,
    window_crops,
)
from piecebridge.vision.raster import CELL_ORDER, MARGIN, PX
from test_vision_cells import _measured as _cell
from test_vision_cells_round11 import _board
from test_vision_cells_round17 import FINGER_TIP

#: A cream tile (OpenCV 8-bit a, b) and its typical cell's lightness.
REFS = BoardRefs(np.array([130.0, 150.0]), 1.0, 1.0, 200.0)
#: Skin over it, relative to the tile's chroma and weighted (as the board's pixels are).
SKIN = (170.0, 25.0 * CHROMA_WEIGHT, 5.0 * CHROMA_WEIGHT)


def _looks() -> PieceLooks:
    """One coin whose symbol (dark) sits in the middle of its plain face."""
    face = np.zeros((CROP, CROP, 3), np.float32)
    face[7:13, 7:13, 0] = -80.0
    return PieceLooks({"suns": face}, {}, {})


def _window() -> np.ndarray:
    """Plain tile around a cell's look disc (see hand_edge_window)."""
    w = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW, 3), np.float32)
    w[..., 0] = REFS.light
    return w


class _Seen:
    """A stand-in for SeenLater: fixed measurements, and how often each was asked."""

    def __init__(self, view=(0, 1.0), share=-1.0):
        self.view, self.share, self.asked = view, share, []

    def hand_edge_view(self):
        self.asked.append("view")
        return self.view

    def piece_share(self):
        self.asked.append("share")
        return self.share


def test_a_finger_over_the_edge_of_an_empty_cell_leaves_the_coins_marks_in_view():
    """Round 17's tile share is 0.58 here (under its 0.5 floor with a wider finger): the
    finger's pixels are set aside, the coin's symbol would show where the tile is plain."""
    w = _window()
    w[:, 19:] = SKIN  # a finger from the right edge over a third of the window
    strays, shown = hand_edge_view(w, REFS, _looks())
    assert strays == 0 and shown >= HAND_EDGE_SHOWN


def test_a_finger_over_where_the_symbol_would_be_shows_too_little():
    """A coin whose symbol a finger covers looks like tile elsewhere (its plain face): the
    cell is not shown empty."""
    w = _window()
    w[:, 12:] = SKIN  # over the middle
    assert hand_edge_view(w, REFS, _looks())[1] < HAND_EDGE_SHOWN


def test_a_symbol_in_view_beside_a_finger_is_a_stray():
    w = _window()
    w[:, 21:] = SKIN
    w[10:18, 10:18, 0] = 90.0  # something dark in the middle, apart from the finger
    assert hand_edge_view(w, REFS, _looks())[0] > HAND_EDGE_STRAYS


def test_a_hands_shadow_over_the_tile_is_still_tile():
    """A shadow scales the tile's lightness and colour alike: tile; a grey piece there is
    not (the colour the shadowed tile keeps is missing)."""
    w = _window()
    tile = (REFS.tile_ab - 128.0) * CHROMA_WEIGHT
    scale = 0.7  # L* + 16 at 0.7 of the tile's
    w[:, :14, 0] = ((REFS.light / 2.55 + 16.0) * scale - 16.0) * 2.55
    w[:, :14, 1:] = tile * scale - tile  # relative to the tile's own chroma
    assert tile_pixels(w, REFS)[:, :14].all()
    grey = w[:1, :1].copy()
    grey[..., 1:] = -tile  # no colour at all
    assert not tile_pixels(grey, REFS).any()
    assert hand_edge_view(w, REFS, _looks()) == (0, 1.0)


def test_an_undecided_cell_shown_empty_beside_a_hand_is_empty_half_sure():
    """Unknown on the code before (no such rule)."""
    d = _cell(**FINGER_TIP, tile_share=0.3)
    d.seen_later = _Seen(view=(HAND_EDGE_STRAYS, 0.6))
    out = _board(c3=d)["c3"]
    assert out.kind == "empty" and out.confidence == pytest.approx(0.3)
    assert (out.strays, out.marks_in_view) == (HAND_EDGE_STRAYS, 0.6)


@pytest.mark.parametrize(
    "view, glared",
    [
        ((HAND_EDGE_STRAYS + 1, 0.9), False),  # something in the cell apart from the hand
        ((0, HAND_EDGE_SHOWN - 0.01), False),  # a piece's marks could hide under the hand
        ((0, 0.9), True),  # under glare: plain tile there is _plain_tile_in_glare's to say
    ],
)
def test_a_cell_not_shown_empty_stays_unknown(view, glared):
    d = _cell(**FINGER_TIP, tile_share=0.3, glared=glared)
    d.seen_later = _Seen(view=view)
    assert _board(c3=d)["c3"].kind == "unknown"


def test_the_costly_measurements_are_made_only_for_cells_left_undecided():
    """A pawn read in the open is never measured; an undecided cell is, once: its copies
    (a reader keeps the measurement and decides on copies, frame after frame) share it."""
    pawn = _cell(cell="e5", best=("pawn", "arms"), similarity=0.95, margin=0.4,
                 energy_ratio=15.0, detail_ratio=6.0, tint=20.0, tile_share=0.6)  # fmt: skip
    pawn.seen_later = _Seen()
    out = _board(e5=pawn)["e5"]
    assert out.kind == "pawn" and pawn.seen_later.asked == []
    later = SeenLater(_window(), REFS, _looks(), _cell(**FINGER_TIP, tile_share=0.8))
    finger = _cell(**FINGER_TIP, tile_share=0.8, seen_later=later)
    calls = []
    real = cells_mod.piece_share
    cells_mod.piece_share = lambda *a: calls.append(1) or real(*a)
    try:
        for _ in range(2):
            copy = _cell(**FINGER_TIP, tile_share=0.8, seen_later=finger.seen_later)
            assert _board(c3=copy)["c3"].kind == "empty"
    finally:
        cells_mod.piece_share = real
    # Shown empty beside a hand first (cheaper): round 17's share was never needed.
    assert calls == [] and later.view == (0, 1.0) and later.measured is not None


def test_round_17s_share_is_measured_once_when_needed():
    later = SeenLater(_window(), REFS, _looks(), _cell(**FINGER_TIP, tile_share=0.8))
    later.view = (HAND_EDGE_STRAYS + 1, 0.0)  # not shown empty beside a hand
    calls = []
    real = cells_mod.piece_share
    cells_mod.piece_share = lambda *a: calls.append(1) or real(*a)
    try:
        for _ in range(2):
            d = _cell(**FINGER_TIP, tile_share=0.8, seen_later=later)
            assert _board(c3=d)["c3"].kind == "unknown"  # the symbol's look explains most
    finally:
        cells_mod.piece_share = real
    assert calls == [1] and later.measured is None and later.share == pytest.approx(1 - 36 / 284)
    # A cell decide reads otherwise (here plain tile) is never measured so (round 17's gate).
    plain = SeenLater(_window(), REFS, _looks(), _cell(detail_ratio=1.0, energy_ratio=1.0))
    assert plain.piece_share() == -1.0


def test_a_cells_crops_are_cut_again_from_its_window_as_from_the_board():
    rng = np.random.default_rng(2)
    rel = rng.normal(0, 30, (N * PX + 2 * round(MARGIN * PX),) * 2 + (3,)).astype(np.float32)
    rel[..., 0] += 150.0
    i = CELL_ORDER.index("e4")
    want = raw_crops(rel, np.array([128.0, 128.0]), rel)[i]
    assert np.allclose(window_crops(hand_edge_window(rel, i)), want, atol=1e-4)


def _all_pairs_share(crops: np.ndarray, looks: PieceLooks) -> float:
    """Round 17's piece share, every (shift, look) pair's median taken."""
    placed = cells_mod._seen_looks(looks)
    px = crops[:, _SEEN_DISC].astype(np.float32)
    diff = px[:, None] - placed[None]
    diff[..., 0] -= np.median(diff[..., 0], axis=-1, keepdims=True)
    near = np.einsum("skpc,skpc->skp", diff, diff) < SEEN_TOLERANCE**2
    return float(near.mean(axis=-1).max())


def test_the_piece_share_takes_fewer_medians_for_the_same_value(monkeypatch):
    rng = np.random.default_rng(4)
    faces = {s: rng.normal(0, 25, (CROP, CROP, 3)).astype(np.float32) for s in ("suns", "arms")}
    looks = PieceLooks(faces, {}, {})
    crops = np.stack([faces["arms"] + rng.normal(0, 3, faces["arms"].shape)] * 9)
    crops[:4] = rng.normal(0, 25, crops[:4].shape)  # shifts that fit nothing
    want = _all_pairs_share(crops.astype(np.float32), looks)
    rows = []
    real = np.median

    def counted(a, *args, **kw):
        rows.append(a.size // a.shape[-1])
        return real(a, *args, **kw)

    monkeypatch.setattr(np, "median", counted)
    got = piece_share(crops.astype(np.float32), looks)
    assert got == want and want > 0.9
    assert sum(rows) < 9 * 8  # shifts x looks (two coins in four facings)


def test_kept_pixels_print_the_same_for_the_same_readings():
    """benchmarks/vision_same.py compares every cell field's repr between two runs: an
    object's address would differ every run."""
    a, b = (SeenLater(_window(), REFS, _looks()) for _ in range(2))
    a.hand_edge_view()
    b.hand_edge_view()
    assert repr(a) == repr(b) == "SeenLater(share=-1.0, view=(0, 1.0))"


def test_every_learned_look_must_show_its_marks_not_just_one():
    """``shown`` is the least share over the looks (the review of the tenth session: a
    mutation taking the most survived every test). A coin with a small middle symbol shows
    it all beside a finger on the right; a coin whose rim runs under the finger does not,
    and with both looks learned the cell shows only what the rim's coin would."""
    middle = np.zeros((CROP, CROP, 3), np.float32)
    middle[9:11, 9:11, 0] = -80.0
    rim = np.zeros((CROP, CROP, 3), np.float32)
    ring = np.zeros((CROP, CROP), np.uint8)
    cv2.circle(ring, (CROP // 2, CROP // 2), 8, 1, 1)
    rim[ring > 0, 0] = -80.0
    window = _window()
    window[:, 20:, 1] = 40.0  # a finger over the right edge
    _, alone = hand_edge_view(window, REFS, PieceLooks({"suns": middle}, {}, {}))
    _, rim_alone = hand_edge_view(window, REFS, PieceLooks({"moons": rim}, {}, {}))
    _, both = hand_edge_view(window, REFS, PieceLooks({"suns": middle, "moons": rim}, {}, {}))
    assert alone == 1.0 and rim_alone < 1.0
    assert both == rim_alone
