"""Another hand and another printed card (piecebridge.synth.card_styles), and the reader on them."""

import cv2
import numpy as np
import pytest
from card_support import oriented_corner_errors
from piecebridge.vision.card_layout import parse_cell

from piecebridge.synth.card import photograph_card, split_photo
from piecebridge.synth.card_styles import (
    random_design,
    render_styled_card,
)

CONTENTS = [
    {
        "A1": {"mark": "x", "shaded": False},
        "C3": {"mark": None, "shaded": True},
        "D4": {"mark": "dot", "shaded": False},
        "E5": {"mark": "o", "shaded": True},
        "F6": {"mark": "slash", "shaded": False},
        "J10": {"mark": "triangle", "shaded": False},
    },
    {"B2": {"mark": "plus", "shaded": False}, "H7": {"mark": "triangle", "shaded": True}},
]


def test_same_seed_same_card_and_other_seeds_other_cards():
    a = render_styled_card(np.random.default_rng(5), px_per_mm=6)
    b = render_styled_card(np.random.default_rng(5), px_per_mm=6)
    c = render_styled_card(np.random.default_rng(6), px_per_mm=6)
    assert np.array_equal(a.rgb, b.rgb) and a.truth == b.truth
    assert not np.array_equal(a.rgb, c.rgb)
    assert a.truth["style"]["name"] == "alt"


def test_split_photos_are_their_own():
    # (the same alt photo twice is the determinism test above, at the card level)
    img, truth = split_photo("tune", 3, (400, 300), style="alt")
    classic, ctruth = split_photo("tune", 3, (400, 300))
    assert img.shape == classic.shape
    assert "style" in truth and "style" not in ctruth
    assert truth["grids"] != ctruth["grids"]  # another random stream, not a restyled copy
    with pytest.raises(ValueError, match="nonesuch"):
        split_photo("tune", 3, (400, 300), style="nonesuch")


def _cell_ink(card, g: int, name: str, blank) -> float:
    """Largest darkening (0..1) inside a cell's middle against the same card left blank."""
    r, c = parse_cell(name)
    x, y = card.layout.cell_centre_mm(g, r, c) * card.px_per_mm
    half = round(0.3 * card.layout.cell_mm * card.px_per_mm)
    win = (slice(round(y) - half, round(y) + half), slice(round(x) - half, round(x) + half))
    diff = blank.rgb[win].astype(np.float32).mean(2) - card.rgb[win].astype(np.float32).mean(2)
    return float(cv2.GaussianBlur(diff / 255, (0, 0), 1.5).max())


@pytest.mark.parametrize("seed", [0, 4, 11])
def test_truth_is_what_is_drawn(seed):
    card = render_styled_card(np.random.default_rng(seed), px_per_mm=10, contents=CONTENTS)
    blank = render_styled_card(np.random.default_rng(seed), px_per_mm=10, contents=[{}, {}])
    assert card.truth["grids"] == [{"cells": CONTENTS[0]}, {"cells": CONTENTS[1]}]
    assert np.array_equal(card.layout.grid_origins, blank.layout.grid_origins)
    for g, cells in enumerate(CONTENTS):
        for r in range(10):
            for c in range(10):
                name = f"{'ABCDEFGHIJ'[c]}{r + 1}"
                ink = _cell_ink(card, g, name, blank)
                if name in cells:
                    assert ink > 0.15, (seed, g, name, ink)
                elif all(abs(parse_cell(n)[0] - r) + abs(parse_cell(n)[1] - c) > 1 for n in cells):
                    # far from every drawn cell (a mark may cross into its neighbour)
                    assert ink < 0.06, (seed, g, name, ink)


def test_designs_vary_and_keep_labels_on_the_card():
    looks = set()
    for s in range(40):
        layout, design = random_design(np.random.default_rng(s))
        looks.add((design.boxed_labels, design.line_rgb, design.paper_rgb))
        (x0, y0), (x1, _) = layout.grid_origins
        room = layout.cell_mm if design.boxed_labels else design.label_gap_mm + 1.2
        assert x0 - room > 0 and x1 + 10 * layout.cell_mm < layout.width_mm
        assert x1 - (x0 + 10 * layout.cell_mm) > room  # the right grid's row labels fit
        assert y0 - room > 0 and y0 + 10 * layout.cell_mm < layout.height_mm
    assert len({b for b, _, _ in looks}) == 2 and len(looks) > 15


@pytest.mark.parametrize("seed", [2, 4])  # 2: labels in ruled, tinted cells; 4: plain labels
def test_reader_finds_and_orients_an_easy_photo(seed):
    rng = np.random.default_rng(seed)
    card = render_styled_card(rng, px_per_mm=12)
    assert card.truth["style"]["design"]["boxed_labels"] == (seed == 2)
    photo, truth = photograph_card(rng, image_size=(1600, 1200), card=card, difficulty=0.3)
    grey = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    assert max(oriented_corner_errors(grey, truth)) < 0.2
