"""Lines washed out by glare are not lines hidden by a hand (benchmarks/results/
vision_reflec.md, "Lines washed out by glare are not a hand"): made-up measurements and
colours, milliseconds."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision.cells import CHROMA_WEIGHT, CellDecision, PieceLooks, decide, glare_tints

#: A pale bluish tile (OpenCV 8-bit Lab a, b): a* -8, b* -18.
TILE_AB = np.array([120.0, 110.0])


def _relative(a_star: float, b_star: float, light: float = 230.0) -> list[float]:
    """A cell's mean colour as ``disc_colours`` gives it (relative to the tile, weighted)."""
    tile = TILE_AB - 128.0
    return [light, (a_star - tile[0]) * CHROMA_WEIGHT, (b_star - tile[1]) * CHROMA_WEIGHT]


def test_glare_keeps_the_tiles_hue_and_a_hand_does_not():
    colours = np.array(
        [
            _relative(-8.0, -18.0),  # the tile itself
            _relative(-8.0 * 0.3, -18.0 * 0.3),  # paled toward white by glare
            _relative(0.0, 0.0),  # burnt white
            _relative(14.0, 17.0),  # skin
            _relative(-8.0, -30.0),  # a bluer piece: more of a hue than the tile has
        ]
    )
    tints = glare_tints(colours, TILE_AB)
    assert np.allclose(tints[:3], 0.0, atol=1e-6)
    assert tints[3] > 30 and tints[4] > 15


def _glared(**kw) -> CellDecision:
    """Acrylic tune: a plain empty cell in a glare spot, its printed lines washed out (so
    ``covered``), lighter than the board's typical cell, of the tile's hue paled."""
    d = CellDecision("d4", "unknown", covered=True, light_ratio=1.24, glare_tint=1.0,
                     tint=11.0, shade_tint=12.0, energy_ratio=1.2, detail_ratio=0.9,
                     similarity=0.3, margin=0.05, best=("coin", "suns"))  # fmt: skip
    for k, v in kw.items():
        setattr(d, k, v)
    return d


@pytest.mark.parametrize("learned", [True, False])
def test_a_plain_cell_in_glare_is_empty(learned):
    d = decide(_glared(), PieceLooks({}, {}, learned=learned))
    assert d.kind == "empty" and 0 < d.confidence <= 0.5


@pytest.mark.parametrize(
    "change",
    [
        {"light_ratio": 0.95},  # no lighter than the board: a hand shades what it covers
        {"glare_tint": 12.0},  # a hue of its own (a pale hand over a dark board)
        {"energy_ratio": 6.0},  # something is there (a coin under the glare, a hand's edge)
    ],
)
def test_a_hand_over_the_cell_stays_unknown(change):
    d = decide(_glared(**change), PieceLooks({}, {}, learned=True))
    assert d.kind == "unknown"
