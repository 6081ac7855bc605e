"""Cell rules of round 17 (benchmarks/results/vision_reflec.md, ninth session): a cell
partly covered (a finger's tip, a hand's edge) whose pixels in view are plainly tile is
empty, at most half sure; the share of tile and of the best piece look are measured on the
look disc's pixels, against the looks learned from the calibration photo. Made-up
measurements and drawn crops, milliseconds."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision.cells import (
    _SEEN_DISC,
    CROP,
    TILE_SEEN_LEAD,
    TILE_SEEN_SHARE,
    N,
    PieceLooks,
    piece_share,
    tile_shares,
)
from piecebridge.vision.raster import CELL_ORDER, MARGIN, PX
from test_vision_cells import _measured as _cell
from test_vision_cells_round11 import _board

#: Mixed tune shot 9 h6 (round 16's "covered, the renderer in view"): a finger's shadow over
#: an empty cell's lines, fitting the arms pawn's look 0.76.
FINGER_SHADOW = dict(covered=True, shaded=True, best=("pawn", "arms"), similarity=0.76,
                     margin=0.25, detail_ratio=0.9, energy_ratio=1.0, light_ratio=0.46)  # fmt: skip
#: Mixed tune shot 196 c1: a finger's tip in the open over an empty cell, the arms pawn's
#: look 0.56 (too loose for a pawn, too busy for empty).
FINGER_TIP = dict(best=("pawn", "arms"), similarity=0.56, margin=0.33, energy_ratio=18.3,
                  detail_ratio=6.1, tint=12.4, light_ratio=1.0)  # fmt: skip


@pytest.mark.parametrize("cell", [FINGER_SHADOW, FINGER_TIP])
def test_a_cell_mostly_plain_tile_in_view_is_empty_half_sure(cell):
    """Unknown on the code before (it weighed the whole disc's look only)."""
    out = _board(c3=_cell(**cell, tile_share=0.8, piece_share=0.4))["c3"]
    assert out.kind == "empty" and out.confidence == pytest.approx(0.4)
    # Not measured (decided otherwise when measured): left as it was.
    assert _board(c3=_cell(**cell, tile_share=0.8))["c3"].kind == "unknown"


@pytest.mark.parametrize(
    "tile, piece, glared",
    [
        (TILE_SEEN_SHARE - 0.01, 0.0, False),  # mostly hidden: too little seen
        (0.8, 0.8 - TILE_SEEN_LEAD + 0.01, False),  # a piece's look explains nearly as much
        (0.8, 0.3, True),  # under glare: plain tile is _plain_tile_in_glare's to say
    ],
)
def test_a_cell_not_plainly_tile_in_view_stays_unknown(tile, piece, glared):
    d = _cell(**FINGER_TIP, tile_share=tile, piece_share=piece, glared=glared)
    assert _board(c3=d)["c3"].kind == "unknown"


def test_a_decided_cell_keeps_its_reading():
    """The rule names undecided cells only: a coin read in view stays that coin."""
    coin = _cell(best=("coin", "suns"), similarity=0.9, margin=0.3, facing="north",
                 facing_margin=0.6, tile_share=0.9, piece_share=0.1)  # fmt: skip
    out = _board(c3=coin)["c3"]
    assert (out.kind, out.suit, out.facing) == ("coin", "suns", "north")


def _rel_board(light: float = 200.0) -> np.ndarray:
    """A relative Lab board at PX (lightness ``light``, the tile's chroma), margins too."""
    rel = np.zeros((N * PX + 2 * round(MARGIN * PX),) * 2 + (3,), np.float32)
    rel[..., 0] = light
    return rel


def _disc_origin(cell: str) -> tuple[int, int]:
    i = CELL_ORDER.index(cell)
    o = round(MARGIN * PX) + (PX - CROP) // 2
    return o + (i // N) * PX, o + (i % N) * PX


def test_tile_share_is_the_plain_part_of_the_disc():
    rel = _rel_board()
    y, x = _disc_origin("c3")
    # A finger's tip (dark, skin-coloured) over the disc's top fifth or so.
    rel[y : y + CROP // 4, x : x + CROP, 0] = 120.0
    rel[y : y + CROP // 4, x : x + CROP, 1] = 20.0
    finger = _SEEN_DISC[: CROP // 4].sum() / _SEEN_DISC.sum()
    cells = [CELL_ORDER.index("c3"), CELL_ORDER.index("d4")]
    share, plain = tile_shares(rel, 200.0, cells)
    assert share == pytest.approx(1 - finger, abs=0.01) and plain == 1.0


def test_a_shadow_over_a_cell_is_no_plain_tile():
    """Tile under a hand's shadow (0.7 x the typical cell): scaled by 0.9 at most, not tile
    (a shaded cell is :func:`_tile_under_lines`'s); a lamp (1.05 x) still is."""
    assert tile_shares(_rel_board(140.0), 200.0, [0]).tolist() == [0.0]
    assert tile_shares(_rel_board(210.0), 200.0, [0]).tolist() == [1.0]


def test_piece_share_counts_the_pixels_a_learned_look_explains():
    rng = np.random.default_rng(1)
    look = rng.normal(0, 30, (CROP, CROP, 3)).astype(np.float32)
    looks = PieceLooks({"suns": look}, {}, {}, learned=True)
    crop = np.rot90(look, 1).copy() + np.float32([15.0, 0, 0])  # turned, in a hand's light
    crop[CROP // 2 :, :, :] = 0.0  # half of it under a finger (tile-flat here)
    half = _SEEN_DISC[CROP // 2 :].sum() / _SEEN_DISC.sum()
    got = piece_share(np.stack([np.zeros_like(crop), crop]), looks)
    assert got == pytest.approx(1 - half, abs=0.03)
    # Another look explains next to nothing of it.
    other = PieceLooks({"suns": rng.normal(0, 30, (CROP, CROP, 3)).astype(np.float32)}, {}, {})
    assert piece_share(crop[None], other) < 0.2
