"""The renderer's ``mark_seen``: how much of each cell's mark the photo shows, measured
against twin photos without the mark (same card, light, camera and noise draws)."""

import numpy as np
import pytest

from piecebridge.synth import card as synth
from piecebridge.synth.card import render_card, split_photo

EVERY_CELL_X = [
    {f"{c}{r}": {"mark": "x", "shaded": False} for c in "ABCDEFGHIJ" for r in range(1, 11)}
]


def test_mark_seen_is_told_beside_the_same_photo():
    """``marks_seen=True`` draws the very same photo and truth, and gives every cell with
    a mark (and only those) how much of it the photo shows; marks on bare paper stand
    far above the paper's noise, marks on shading less far."""
    plain, truth = split_photo("tune", 7, (800, 600))
    img, seen = split_photo("tune", 7, (800, 600), seen=True, marks_seen=True)
    assert np.array_equal(plain, img)
    assert [g["cells"] for g in seen["grids"]] == [g["cells"] for g in truth["grids"]]
    on_paper, on_shading = [], []
    for grid in seen["grids"]:
        marked = {c for c, item in grid["cells"].items() if item["mark"]}
        assert set(grid["mark_seen"]) == marked
        assert "shading_seen" in grid  # both measures, side by side
        for cell, value in grid["mark_seen"].items():
            (on_shading if grid["cells"][cell]["shaded"] else on_paper).append(value)
    assert len(on_paper) > 20 and len(on_shading) > 5
    # A small photo (800 x 600): its marks show less than the 12 MP benchmark's, whose 1st
    # percentile MARK_VISIBLE is; each still stands well above the paper's noise.
    assert min(on_paper) > 3 and np.median(on_paper) > synth.MARK_VISIBLE
    assert np.median(on_shading) < np.median(on_paper)


def test_photographing_for_mark_seen_needs_the_twins():
    rng = np.random.default_rng(3)
    card = render_card(rng, px_per_mm=6)
    with pytest.raises(ValueError, match="unmarked=True"):
        synth.photograph_card(rng, image_size=(320, 240), card=card, marks_seen=True)


def _cell_centres_px(card, grid: int) -> np.ndarray:
    """The 100 cell centres of ``grid`` on the flat texture (px; row-major, A1 first)."""
    lay = card.layout
    rows, cols = np.divmod(np.arange(100), 10)
    mm = (np.stack([cols, rows], 1) + 0.5) * lay.cell_mm + lay.grid_origins[grid]
    mm = mm @ lay.transform()[:, :2].T + lay.transform()[:, 2]
    return mm * card.px_per_mm


def test_each_mark_twin_leaves_out_marks_no_two_of_which_touch():
    """Every cell of a grid full of x's: each mark is missing from exactly one of the four
    twins, and in no twin are two touching cells (side or corner) both missing: a
    neighbour's stroke crossing into a cell is in the photo and its twin alike. The rest
    of the card (the other grid, the print) is the same in every twin."""
    rng = np.random.default_rng(5)
    card = render_card(rng, px_per_mm=8, contents=[*EVERY_CELL_X, {}], glare=False, unmarked=True)
    centres = np.round(_cell_centres_px(card, 0)).astype(int)
    r = 2  # a few px about each centre: an x crosses there
    missing = np.zeros((4, 10, 10), bool)
    for k, twin in enumerate(card.unmarked_rgb):
        diff = np.abs(card.rgb.astype(int) - twin).sum(2)
        for i, (x, y) in enumerate(centres):
            missing[k, i // 10, i % 10] = diff[y - r : y + r + 1, x - r : x + r + 1].max() > 30
        # the second grid has no marks: the twin is the card there
        right = int(_cell_centres_px(card, 1)[:, 0].min())
        assert diff[:, right:].max() == 0
    assert (missing.sum(0) == 1).all()
    for k in range(4):
        rows, cols = np.nonzero(missing[k])
        for a in range(len(rows)):
            near = (np.abs(rows - rows[a]) <= 1) & (np.abs(cols - cols[a]) <= 1)
            assert near.sum() == 1, (k, rows[a], cols[a])


def _seen_at(exposure: float) -> np.ndarray:
    from piecebridge.synth.photo import PhotoStyle

    rng = np.random.default_rng(12)
    card = render_card(rng, px_per_mm=10, contents=[*EVERY_CELL_X, {}], glare=False, unmarked=True)
    style = PhotoStyle(exposure=exposure, noise_sigma=0.004, shot_noise=0.01)
    _, truth = synth.photograph_card(
        rng, image_size=(800, 600), card=card, difficulty=0, style=style, marks_seen=True
    )
    return np.array(list(truth["grids"][0]["mark_seen"].values()))


def test_marks_lost_in_the_dark_are_not_seen():
    """The same card of x's photographed at an ordinary exposure and at 1/100 of it: every
    mark stands above the cut-off in the first, and none reaches it in the second, where
    the whole card is a few grey levels from black."""
    ordinary, dark = _seen_at(1.0), _seen_at(0.01)
    assert len(ordinary) == 100
    assert ordinary.min() > synth.MARK_VISIBLE
    assert dark.max() < synth.MARK_VISIBLE


def test_mark_seen_is_the_strokes_darkening_over_the_papers_noise():
    """One stroke that halves the light, on bare paper and on a dark fill (30 % of the
    light): its core darkens the paper 100 levels and the fill 30, over the paper's noise
    (here below the floor of 2 levels, then 5.9 levels of grain); no stroke, nothing."""
    paper = np.full((60, 60, 3), 200, np.uint8)
    ink = np.zeros((60, 60), bool)
    ink[23:37, 10:50] = True  # 14 px wide: its core keeps nearly the full darkening

    def stroke_on(fill: float):
        under = (paper * fill).astype(np.uint8)
        over = under.copy()
        over[ink] //= 2
        return over, under

    quads = np.array([[[5, 5], [54, 5], [54, 54], [5, 54]]], float)
    on_paper = synth.mark_seen(*stroke_on(1.0), paper, quads)[0]
    on_fill = synth.mark_seen(*stroke_on(0.3), paper, quads)[0]
    assert on_paper == pytest.approx(100 / 2, rel=0.1)
    assert on_fill == pytest.approx(30 / 2, rel=0.1)
    grainy = paper.copy()
    grainy[::2] += 8  # a spread of 1.4826 x 4 = 5.9 levels
    assert synth.mark_seen(*stroke_on(1.0), grainy, quads)[0] == pytest.approx(100 / 5.93, rel=0.1)
    assert synth.mark_seen(paper, paper, paper, quads)[0] == 0


def _judge():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    return pytest.importorskip("card_accuracy")


def test_a_mark_not_in_the_photo_is_judged_on_the_shading_only():
    """The benchmark's 'exact where visible, faint marks excused': D7's x on shading shows
    0.4 x the paper's noise, so reading it blank (still shaded) leaves the grid exact
    that way, but neither strictly nor where visible (its shading shows, its mark is
    judged there); reading it unshaded, or an unknown, still counts; a visible mark (50)
    read blank counts; a truth without mark_seen is judged strictly."""
    judge = _judge()
    cells = {"D7": {"mark": "x", "shaded": True}, "E7": {"mark": "o", "shaded": False}}

    def truth(mark_seen):
        grid = {"cells": cells, "shading_seen": {"D7": 20.0}}
        if mark_seen is not None:
            grid["mark_seen"] = mark_seen
        return {"grids": [grid]}

    def got(d7, unknown=()):
        return {"grids": [{"cells": {"D7": d7, "E7": cells["E7"]}, "unknown": list(unknown)}]}

    blank = {"mark": None, "shaded": True}
    r = judge.compare(got(blank), truth({"D7": 0.4, "E7": 50.0}))
    assert (r["wrong"], r["exact"], r["exact_seen"], r["exact_seen_marks"]) == (1, 0, 0, 1)
    assert (r["marks_hidden"], r["marks_hidden_bad"], r["marks_known"]) == (1, 1, True)
    unshaded = judge.compare(got({"mark": None, "shaded": False}), truth({"D7": 0.4}))
    assert unshaded["exact_seen_marks"] == 0
    unsure = judge.compare(got(cells["D7"], unknown=["D7"]), truth({"D7": 0.4}))
    assert (unsure["unknown"], unsure["exact_seen_marks"]) == (1, 0)
    assert judge.compare(got(blank), truth({"D7": 50.0}))["exact_seen_marks"] == 0
    old = judge.compare(got(blank), truth(None))
    assert (old["exact_seen_marks"], old["marks_known"]) == (0, False)


def test_a_cell_hiding_mark_and_shading_does_not_count():
    judge = _judge()
    truth = {
        "grids": [
            {
                "cells": {"D7": {"mark": "x", "shaded": True}},
                "shading_seen": {"D7": 0.2},
                "mark_seen": {"D7": 0.3},
            }
        ]
    }
    r = judge.compare({"grids": [{"cells": {}}]}, truth)  # read as bare paper
    assert (r["wrong"], r["exact_seen"], r["exact_seen_marks"]) == (1, 0, 1)
    assert (r["hidden_bad"], r["marks_hidden_bad"]) == (1, 1)
