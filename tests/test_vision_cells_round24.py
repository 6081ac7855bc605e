"""Cell rules of round 24 (benchmarks/results/vision_reflec.md, fifteenth session): round
18's test of an undecided cell beside a hand (what enters it from its edge set aside, the
rest plain tile, every learned piece's marks in view) again, with the plain tile as this
frame's open empty cells show it for the board's typical colour and lightness (a board
whose tile the board-wide median misses). Drawn windows, made-up measurements, milliseconds."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision import cells as cells_mod
from piecebridge.vision.cells import (
    CHROMA_WEIGHT,
    CROP,
    HAND_EDGE_WINDOW,
    BoardRefs,
    CellDecision,
    PieceLooks,
    SeenLater,
    decide_all,
    hand_edge_view,
)
from piecebridge.vision.raster import CELL_ORDER
from test_vision_cells import _measured as _cell
from test_vision_cells_round17 import FINGER_TIP

#: The board-wide references: a cream tile (OpenCV 8-bit a, b), typical lightness 200 ...
REFS = BoardRefs(np.array([130.0, 150.0]), 1.0, 1.0, 200.0)
#: ... while the plain tile the open cells show is a lighter bluish white (relative Lab:
#: lightness, then a, b less the board's tile chroma, weighted), as on a board with broad
#: yellow lines (mixed tune shot 89 h5): out of :func:`tile_pixels`'s reach of REFS.
OPEN = (235.0, (128.0 - 130.0) * CHROMA_WEIGHT, (128.0 - 150.0) * CHROMA_WEIGHT)
#: Skin, relative to the board's tile chroma and weighted.
SKIN = (170.0, 25.0 * CHROMA_WEIGHT, 5.0 * CHROMA_WEIGHT)


def _looks() -> PieceLooks:
    """One coin whose symbol (dark) sits in the middle of its plain face."""
    face = np.zeros((CROP, CROP, 3), np.float32)
    face[7:13, 7:13, 0] = -80.0
    return PieceLooks({"suns": face}, {}, learned=True)


def _window(colour=OPEN) -> np.ndarray:
    """Plain tile around a cell's look disc (see hand_edge_window)."""
    w = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW, 3), np.float32)
    w[...] = colour
    return w


def _board(cell: CellDecision, open_cells: int = 63, colour=OPEN) -> CellDecision:
    """c3 as decided among ``open_cells`` plain cells in the open showing ``colour``
    (the others plain too, but with no pixels kept), with learned looks."""
    looks = _looks()
    plain = []
    for k, c in enumerate(CELL_ORDER):
        d = CellDecision(c, "unknown", detail_ratio=0.2, energy_ratio=1.0)
        if k < open_cells:
            d.seen_later = SeenLater(_window(colour), REFS, looks)
        plain.append(d)
    plain[CELL_ORDER.index("c3")] = cell
    return {d.cell: d for d in decide_all(plain, looks)}["c3"]


def _finger(window: np.ndarray) -> CellDecision:
    """A cell whose lines a finger hides, decided by no earlier rule (round 17's share not
    measured), with ``window`` its pixels."""
    return _cell(**FINGER_TIP, covered=True, seen_later=SeenLater(window, REFS, _looks()))


def test_the_board_wide_references_miss_this_tile():
    """Round 18's test alone: the open tile is no tile against REFS, so nothing shows."""
    w = _window()
    w[:, 19:] = SKIN
    assert hand_edge_view(w, REFS, _looks())[1] == 0.0


def test_a_finger_over_the_edge_of_an_empty_cell_is_empty_against_the_open_tile():
    """Unknown on the code before (round 18 weighed the board-wide tile only)."""
    w = _window()
    w[:, 19:] = SKIN  # a finger from the right edge over a third of the window
    got = _board(_finger(w))
    assert got.kind == "empty" and 0.25 <= got.confidence <= 0.5


def test_the_open_tile_is_the_median_cells_look():
    """A few cells decided empty in the open yet in a shadow do not move it."""
    looks = _looks()
    cells = [CellDecision(c, "empty") for c in CELL_ORDER[:12]]
    for k, d in enumerate(cells):
        shade = (120.0, 0.0, 0.0) if k < 3 else OPEN
        d.seen_later = SeenLater(_window(shade), REFS, looks)
    assert cells_mod.open_tile(cells) == pytest.approx(np.array(OPEN, np.float32))
    # covered or doubtful empty cells are no evidence of the open tile
    for d in cells[3:]:
        d.covered = True
    assert cells_mod.open_tile(cells) is None


@pytest.mark.parametrize(
    "part",
    [
        "middle",  # a finger over the middle: a coin's symbol could be under it
        "symbol",  # something in the middle apart from the finger
        "few",  # too few open cells to say what plain tile is here
    ],
)
def test_a_cell_not_shown_empty_stays_unknown(part):
    w = _window()
    w[:, 19:] = SKIN
    if part == "middle":
        w[:, 12:] = SKIN
    if part == "symbol":
        w[10:18, 10:18, 1] += 40.0  # a red symbol, as light as the tile (no steep step)
    got = _board(_finger(w), open_cells=5 if part == "few" else 63)
    assert got.kind == "unknown"


@pytest.mark.parametrize("flag", ["glared", "tile_cover", "cover_as_tile"])
def test_cells_round_18_stands_aside_for_are_left_alone(flag):
    """Under glare (plain tile there is _plain_tile_in_glare's), or where the lines are
    hidden by something of the tile's own colour: its "tile" may be that cover."""
    w = _window()
    w[:, 19:] = SKIN
    d = _finger(w)
    setattr(d, flag, 1.0 if flag == "cover_as_tile" else True)
    assert _board(d).kind == "unknown"


def test_a_cell_whose_lines_show_is_left_to_the_open_rules():
    """Printplay tune shot 190 d5: a crowns pawn (grey) leaning in from beside a hand, its
    lines in view, was shown empty against the open tile: only cells whose lines a hand
    hides are weighed."""
    w = _window()
    w[:, 19:] = SKIN
    d = _finger(w)
    d.covered = False
    assert _board(d).kind == "unknown"


def test_grey_ink_in_view_is_no_shadow():
    """Printplay tune shot 46 b8: a crowns coin's grey symbol on a white face passes the
    per-pixel test as tile in a shadow (its colour the tile's, darker); its edges are steep,
    a shadow's are not."""
    grey = (150.0, OPEN[1], OPEN[2])  # neutral, 0.64 of the open tile's lightness
    w = _window()
    w[:, 22:] = SKIN
    w[11:17, 11:17] = grey  # the coin's symbol where the look has it
    assert _board(_finger(w)).kind == "unknown"
    shade = _window()
    shade[:, 22:] = SKIN
    ramp = np.linspace(OPEN[0], 150.0, HAND_EDGE_WINDOW, dtype=np.float32)
    shade[..., 0] = ramp[None, :]  # a smooth shadow toward the hand, as dark
    shade[:, 22:] = SKIN
    assert _board(_finger(shade)).kind == "empty"
