"""The card fixture renderer: printed board, pencil marks, ground truth, splits."""

import numpy as np
import pytest
from piecebridge.vision.card_layout import CardLayout, cell_name, draw_board, parse_cell

from piecebridge.synth import card as synth
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


def test_print_tune_photographs_the_printed_board(monkeypatch):
    """The print board's tuning twin: the board of ``piecebridge print card``, other seeds."""
    layouts = []
    real = synth.render_card

    def spy(rng, *args, **kwargs):
        layouts.append(kwargs.get("layout"))
        return real(rng, *args, **kwargs)

    monkeypatch.setattr(synth, "render_card", spy)
    tuned, _ = split_photo("print-tune", 2, (320, 240))
    held, _ = split_photo("print", 2, (320, 240))
    assert layouts[0] is not None and layouts[0] == layouts[1]
    assert not np.array_equal(tuned, held)


def _drawn_leans(mark: str, n: int, seed: int, monkeypatch=None):
    """Per mark: the leans (degrees, from its class's directions) of its strokes as drawn,
    both of the stroke paths and of their pixels (principal axis of the graphite)."""
    paths, pixels = [], []

    class Recorder(synth._Canvas):
        def stroke_with(self, pts_cells, pencil, hand, pressure=None, width=None):
            before = self.density.copy()
            super().stroke_with(pts_cells, pencil, hand, pressure, width)
            layer = self.density - before
            yy, xx = np.nonzero(layer > 0)
            w = layer[yy, xx]
            pts = np.column_stack([xx, yy]).astype(float)
            pts = (pts - np.average(pts, axis=0, weights=w)) * np.sqrt(w / w.sum())[:, None]
            angle = np.degrees(
                0.5 * np.arctan2(2 * pts[:, 0] @ pts[:, 1], (pts**2).sum(0) @ [1, -1])
            )
            self.leans.append(
                (synth.lean_deg(synth.stroke_angle(pts_cells), mark), synth.lean_deg(angle, mark))
            )

    rng = np.random.default_rng(seed)
    for _ in range(n):
        canvas = Recorder((168, 168), 56.0, np.zeros(2))
        canvas.leans = []
        synth._draw_mark(canvas, mark, np.array([1.5, 1.5]), synth.Pencil.random(rng), rng)
        assert len(canvas.leans) == 2
        paths.append(max(abs(a) for a, _ in canvas.leans))
        pixels.append(max(abs(b) for _, b in canvas.leans))
    return np.array(paths), np.array(pixels)


@pytest.mark.parametrize("mark", ["plus", "x"])
def test_x_and_plus_strokes_stay_nearer_their_own_class(mark, monkeypatch):
    # Every stroke of a plus within 15 degrees of horizontal/vertical, of an x within 15
    # of a diagonal (twice as near its own class as the other: 22.5 is halfway), as drawn
    # with the hand's tremor; the pixels agree to a few degrees, never near halfway.
    bound = synth.MAX_LEAN_DEG
    assert bound == 15
    paths, pixels = _drawn_leans(mark, 150, seed=4)
    assert paths.max() <= bound + 1e-9
    assert pixels.max() < 20
    # The same draws without the bound lean further: the bound does the work.
    monkeypatch.setattr(synth, "MAX_LEAN_DEG", 90.0)
    free, _ = _drawn_leans(mark, 150, seed=4)
    assert (free > bound).mean() > 0.05
    assert np.array_equal(paths[free <= bound], free[free <= bound])  # the others untouched


@pytest.mark.parametrize("style", ["classic", "alt"])
def test_shading_seen_is_told_beside_the_same_photo(style):
    """``seen=True`` draws the very same photo and truth, and gives every shaded cell
    (and only those) how much of its shading the photo shows; in an ordinary photo most
    shading stands well above the paper's noise."""
    plain, truth = split_photo("tune", 7, (800, 600), style)
    img, seen = split_photo("tune", 7, (800, 600), style, seen=True)
    assert np.array_equal(plain, img)
    assert [g["cells"] for g in seen["grids"]] == [g["cells"] for g in truth["grids"]]
    values = []
    for grid in seen["grids"]:
        shaded = {c for c, item in grid["cells"].items() if item["shaded"]}
        assert set(grid["shading_seen"]) == shaded
        values += grid["shading_seen"].values()
    assert len(values) > 10
    assert np.median(values) > 2 * synth.SEEN_VISIBLE


def test_shading_blown_out_by_the_light_is_not_seen():
    """The same card photographed with three times the exposure: the paper and the light
    shading clip to white, and their shading_seen falls below SEEN_VISIBLE; at the
    ordinary exposure the same cells show it."""
    from piecebridge.synth.photo import PhotoStyle

    contents = [{f"{c}{r}": {"mark": None, "shaded": True} for c in "BCDE" for r in (2, 3)}, {}]

    def seen(exposure: float) -> np.ndarray:
        rng = np.random.default_rng(12)
        card = render_card(rng, px_per_mm=10, contents=contents, glare=False, unshaded=True)
        style = PhotoStyle(exposure=exposure, noise_sigma=0.004, shot_noise=0.01)
        _, truth = synth.photograph_card(
            rng, image_size=(800, 600), card=card, difficulty=0, style=style, seen=True
        )
        return np.array(list(truth["grids"][0]["shading_seen"].values()))

    ordinary, blown = seen(1.0), seen(3.0)
    assert len(ordinary) == 8
    assert ordinary.min() > synth.SEEN_VISIBLE
    assert blown.max() < synth.SEEN_VISIBLE


def test_photographing_for_shading_seen_needs_the_twin():
    rng = np.random.default_rng(3)
    card = render_card(rng, px_per_mm=6)
    with pytest.raises(ValueError, match="unshaded=True"):
        synth.photograph_card(rng, image_size=(320, 240), card=card, seen=True)
