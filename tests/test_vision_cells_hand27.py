"""Cell rule of helper hand27 (benchmarks/results/vision_reflec.md, round 56): an undecided
cell whose lines a hand hides is empty where, against the plain tile this frame's open empty
cells show, every coin would show a fifth of its face beside the hand (and a pawn a little
of its body, or every suit's pawn stands elsewhere). Drawn windows, made-up measurements,
milliseconds."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision import cells
from piecebridge.vision.cells import (
    _SEEN_DISC,
    CHROMA_WEIGHT,
    CROP,
    HAND_EDGE_WINDOW,
    BoardRefs,
    CellDecision,
    PieceLooks,
    SeenLater,
    decide_all,
)
from piecebridge.vision.raster import CELL_ORDER

#: The board-wide references: a cream tile (OpenCV 8-bit a, b), typical lightness 200 ...
REFS = BoardRefs(np.array([130.0, 150.0]), 1.0, 1.0, 200.0)
#: ... while the tile the open cells show is a lighter neutral white (relative Lab), out of
#: the board-wide tile tests' reach (round 18's), as on a board the references miss.
TILE = (235.0, (128.0 - 130.0) * CHROMA_WEIGHT, (128.0 - 150.0) * CHROMA_WEIGHT)
#: Skin, and what shows where the frame's lines are hidden (skin lit and less lit).
SKIN = (150.0, 25.0 * CHROMA_WEIGHT, -10.0 * CHROMA_WEIGHT)
HIDDEN = np.array([SKIN, (130.0, SKIN[1], SKIN[2])], np.float32)


def _looks() -> PieceLooks:
    """A coin whose face differs from the tile over the whole look disc (a symbol in its
    middle) and a pawn, smaller, standing in the middle."""
    face = np.zeros((CROP, CROP, 3), np.float32)
    face[_SEEN_DISC] = (-60.0, 30.0, 0.0)
    face[7:13, 7:13, 0] = -120.0
    pawn = np.zeros((CROP, CROP, 3), np.float32)
    yy, xx = np.mgrid[:CROP, :CROP]
    pawn[(yy - 9.5) ** 2 + (xx - 9.5) ** 2 <= 16] = (-100.0, 0.0, 40.0)
    return PieceLooks({"suns": face}, {"suns": pawn}, learned=True)


def _window(hand_from: int = 15) -> np.ndarray:
    """Plain tile around a cell's look disc, a hand over it from column ``hand_from`` on
    (15: a little less than half the look disc, past the cell's middle)."""
    w = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW, 3), np.float32)
    w[...] = TILE
    w[:, hand_from:] = SKIN
    return w


def _covered(window: np.ndarray, **kw) -> CellDecision:
    """c3, its lines hidden, that :func:`decide` leaves unknown (no tile colour measured)."""
    d = CellDecision("c3", "unknown", covered=True, **{"hand_colours": HIDDEN, **kw})
    d.seen_later = window
    return d


def _board(cell: CellDecision, coin_window: np.ndarray | None = None) -> CellDecision:
    """c3 decided among 62 plain cells in the open and, on a8, a coin decided in the open
    (its pixels ``coin_window``; none: that cell plain too)."""
    looks = _looks()
    cell.seen_later = SeenLater(cell.seen_later, REFS, looks)
    out = []
    for c in CELL_ORDER:
        d = CellDecision(c, "unknown", detail_ratio=0.2, energy_ratio=1.0)
        d.seen_later = SeenLater(_window(HAND_EDGE_WINDOW), REFS, looks)
        out.append(d)
    if coin_window is not None:
        coin = CellDecision(
            "a8", "unknown", best=("coin", "suns"), similarity=0.95, margin=0.5,
            facing="north", facing_margin=0.9, mark=1, energy_ratio=30.0, detail_ratio=9.0,
        )  # fmt: skip
        coin.seen_later = SeenLater(coin_window, REFS, looks)
        out[CELL_ORDER.index("a8")] = coin
    out[CELL_ORDER.index("c3")] = cell
    return {d.cell: d for d in decide_all(out, looks)}


def test_plain_tile_beside_a_hand_over_the_middle_is_empty():
    """Tune mixed 6000-6039: empty cells a hand leaves a third to two thirds in view, its
    edge past their middle, where a pawn would hide (round 24's test asks a quarter of every
    look, pawns too, in view): unknown on the code before."""
    got = _board(_covered(_window()))["c3"]
    assert got.kind == "empty" and 0.0 < got.confidence <= 0.5


@pytest.mark.parametrize("case", ["coin beside the hand", "hand over most", "hand as tile"])
def test_what_may_hide_a_coin_stays_unknown(case):
    w = _window()
    kw = {}
    if case == "coin beside the hand":  # a coin's face shows left of the hand, joined to it
        w[4:24, 6:15] = (TILE[0] - 60.0, TILE[1] + 30.0, TILE[2])
    if case == "hand over most":  # a coin may lie under it with a sliver in view
        w = _window(9)
    if case == "hand as tile":  # what hides the lines passes for the open tile
        kw["hand_colours"] = np.array([TILE], np.float32)
    assert _board(_covered(w, **kw))["c3"].kind == "unknown"


def test_not_where_the_open_coins_pass_for_tile():
    """A coin's face of the tile's own wood (woodburned) passes for tile beside a hand too:
    where the frame's coins decided in the open do, the rule stands aside."""
    board = _board(_covered(_window()), coin_window=_window(HAND_EDGE_WINDOW))
    assert board["a8"].kind == "coin" and board["c3"].kind == "unknown"
    board = _board(_covered(_window()), coin_window=_window(0))  # a coin unlike the tile
    assert board["a8"].kind == "coin" and board["c3"].kind == "empty"


def test_marks_in_view_are_the_hand_edge_views_shares():
    looks = _looks()
    marks, counts = cells._look_marks(looks)
    cover = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW), bool)
    assert np.allclose(cells.marks_in_view(cover, marks, counts), 1.0)
    cover[:, 14:] = True  # the right half: half the coin's face, at the middle
    shown = cells.marks_in_view(cover, marks, counts)
    assert shown.shape == (25, marks.shape[1]) and 0.2 < shown[12, 0] < 0.8
