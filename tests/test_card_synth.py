"""The card fixture renderer: printed board, pencil marks, ground truth, splits."""

import numpy as np
from piecebridge.vision.card_layout import CardLayout, cell_name, draw_board, parse_cell

from piecebridge.synth.card import MARKS, random_contents, render_card, split_photo


def test_layout_size_and_names():
    layout = CardLayout()
    img = draw_board(layout, px_per_mm=10)
    assert img.shape == (508, 889)
    assert cell_name(0, 0) == "A1" and cell_name(9, 9) == "J10"
    assert all(parse_cell(cell_name(r, c)) == (r, c) for r in range(10) for c in range(10))


def test_board_lines_where_the_layout_says():
    layout = CardLayout()
    img = draw_board(layout, px_per_mm=10)
    x, y = layout.grid_origins[0]
    # Every vertical line of grid 1 is dark at mid-height; cell centres are paper.
    row = img[round((y + 4.5 * layout.cell_mm) * 10)]  # middle of row 5
    for i in range(11):
        assert row[round((x + i * layout.cell_mm) * 10)] < 128
    for i in range(10):
        assert row[round((x + (i + 0.5) * layout.cell_mm) * 10)] > 200


def test_truth_lists_drawn_cells_and_not_erased_ones():
    rng = np.random.default_rng(3)
    contents = [
        {
            "A1": {"mark": "x", "shaded": False},
            "B2": {"erased": True},
            "C3": {"mark": None, "shaded": True},
        },
        {"J10": {"mark": "triangle", "shaded": True}},
    ]
    card = render_card(rng, px_per_mm=8, contents=contents)
    assert card.truth["grids"][0]["cells"] == {
        "A1": {"mark": "x", "shaded": False},
        "C3": {"mark": None, "shaded": True},
    }
    assert card.truth["grids"][1]["cells"] == {"J10": {"mark": "triangle", "shaded": True}}
    # Pencil was put down where marks are, and only faintly where one was erased.
    layout = card.layout

    def density_at(g, name):
        r, c = parse_cell(name)
        x, y = layout.cell_centre_mm(g, r, c) * card.px_per_mm
        return card.graphite[int(y) - 6 : int(y) + 6, int(x) - 6 : int(x) + 6].max()

    assert density_at(0, "A1") > 0.3
    assert density_at(0, "B2") < 0.2
    assert density_at(0, "D4") == 0


def test_random_contents_cover_every_mark():
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(5):
        for grid in random_contents(rng):
            seen |= {c.get("mark") for c in grid.values()}
    assert set(MARKS) <= seen


def test_split_photos_are_reproducible():
    a, ta = split_photo("tune", 5, (480, 360))
    b, tb = split_photo("tune", 5, (480, 360))
    c, _ = split_photo("test", 5, (480, 360))
    assert np.array_equal(a, b) and ta == tb
    assert not np.array_equal(a, c)
    assert a.shape == (360, 480, 3)
    assert len(ta["corners_px"]) == 2
