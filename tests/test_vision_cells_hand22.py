"""Cell rules of helper hand22 (benchmarks/results/vision_reflec.md, twenty-second session):
a cell's pixels split into a hand's and the rest, the hand learned on each frame from what
hides the board's lines and told from the plain tile its open empty cells show. A cell read
empty with a hand over half its look disc is left unknown (a piece may lie under it).
Drawn windows, made-up measurements, milliseconds."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision import hand
from piecebridge.vision.cells import (
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
#: ... while the plain tile the open cells show is a lighter neutral white (relative Lab:
#: lightness, then a, b less the board's tile chroma, weighted), out of the board-wide
#: tests' reach (as round 24's tests), and the same tile in a hand's shadow.
TILE = (235.0, (128.0 - 130.0) * CHROMA_WEIGHT, (128.0 - 150.0) * CHROMA_WEIGHT)
SHADOW = (120.0, TILE[1], TILE[2])
#: Skin and a white glare-washed patch (relative Lab, chroma weighted).
SKIN = (150.0, 25.0 * CHROMA_WEIGHT, -10.0 * CHROMA_WEIGHT)
WASHED = (252.0, 6.0, -20.0)
#: What shows where this frame's lines are hidden: skin (lit, and less lit), the tile in the
#: hand's shadow (no hand colour: it is tile, shaded), glare.
HIDDEN = np.array([SKIN, (130.0, SKIN[1], SKIN[2]), SHADOW, WASHED], np.float32)


def _looks() -> PieceLooks:
    """One coin whose symbol (dark) sits in the middle of its plain face."""
    face = np.zeros((CROP, CROP, 3), np.float32)
    face[7:13, 7:13, 0] = -80.0
    return PieceLooks({"suns": face}, {}, learned=True)


def _window(colour=TILE) -> np.ndarray:
    """Plain tile around a cell's look disc (see hand_edge_window)."""
    w = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW, 3), np.float32)
    w[...] = colour
    return w


def _board(cell: CellDecision, open_cells: int = 63) -> CellDecision:
    """c3 as decided among ``open_cells`` plain cells in the open, with learned looks."""
    looks = _looks()
    cell.seen_later = SeenLater(cell.seen_later, REFS, looks)  # its window, kept
    plain = []
    for k, c in enumerate(CELL_ORDER):
        d = CellDecision(c, "unknown", detail_ratio=0.2, energy_ratio=1.0)
        if k < open_cells:
            d.seen_later = SeenLater(_window(), REFS, looks)
        plain.append(d)
    plain[CELL_ORDER.index("c3")] = cell
    return {d.cell: d for d in decide_all(plain, looks)}["c3"]


def _plain(window: np.ndarray, **kw) -> CellDecision:
    """A quiet cell beside a hand that :func:`decide` reads empty (no fine detail, the
    tile's colour: a smooth hand passes so), ``window`` its pixels."""
    base = dict(detail_ratio=0.2, energy_ratio=1.0, tint=2.0, hand_colours=HIDDEN)
    d = CellDecision("c3", "unknown", **{**base, **kw})
    d.seen_later = window
    return d


def test_hand_pixels_are_the_hidden_lines_colours_apart_from_tile_lit_or_shaded():
    w = _window()
    w[:, 20:] = SKIN
    w[:4, :20] = SHADOW  # the hand's shadow on the tile
    tile = np.array([TILE], np.float32)
    got = hand.hand_pixels(w, HIDDEN, tile, (130.0, 150.0))
    assert got[:, 20:].all() and not got[:, :20].any()
    # the shadow is tile in a shadow, lit or not (its chroma scales with its lightness)
    assert hand.tile_like(np.array([SHADOW], np.float32), tile, (130.0, 150.0))[0]


def test_a_cell_read_empty_under_a_hand_is_unknown():
    """Tune shots: pieces under a hand read empty by the open rules (printplay 15 b3,
    checkered 50 d8, acrylic 15 a1 and a2...): the hand passes for plain tile there. Empty
    on the code before."""
    w = _window(SKIN)
    w[:, :8] = TILE  # the hand over all but the cell's left edge
    got = _board(_plain(w))
    assert got.kind == "unknown" and got.hand_share >= 0.5


@pytest.mark.parametrize("case", ["edge", "glared", "no hand", "washed", "few open cells"])
def test_a_cell_with_little_hand_or_no_hand_model_stays_empty(case):
    w = _window()
    w[:, 22:] = SKIN  # a hand over the cell's right edge only
    kw = {}
    if case != "edge":
        w[:, 8:] = WASHED if case == "washed" else SKIN
    if case == "glared":
        kw["glared"] = True  # glare is no hand: _plain_tile_in_glare's to weigh
    if case == "no hand":
        kw["hand_colours"] = None
    if case == "washed":  # white as glare washes lines out: no hand colour
        w[...] = WASHED
    got = _board(_plain(w, **kw), open_cells=5 if case == "few open cells" else 63)
    assert got.kind == "empty"


def test_hand_module_mirrors_the_cells_tile_test():
    """hand.py cannot import cells (cells imports it), so it mirrors three of cells' settings;
    they must stay equal or the hand split and the tile tests it stands beside disagree."""
    from piecebridge.vision import cells

    assert hand.CHROMA == cells.CHROMA_WEIGHT
    assert hand.TILE_TOLERANCE == cells.SEEN_TOLERANCE
    assert hand.TILE_LIGHT == cells.PIXEL_TILE_LIGHT
