"""Round 30 of cell decisions (pawn suits): a dark pawn whose colour names no suit by its
lightness or its hue names the suit whose shade line its colour terms lie along (a dark blue
tent turned from the light is as dark as the black one and fits its look, but keeps its
blue, dimmed toward grey), when the look of that suit fits nearly as well as the best."""

from __future__ import annotations

import numpy as np
from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks
from vision_support import pawn_cell, read_tune_shot, wrong_cells

#: Tune printplay rig 49's learned pawn colours (lightness over the surround, a, b relative
#: to the tile; see ``pawn_colour``) and its grey.
RIG49 = {
    "suns": np.array([-114.8, 26.7, 9.3]),
    "moons": np.array([-112.6, -2.1, -5.7]),
    "crowns": np.array([-94.5, -16.4, 4.5]),
    "arms": np.array([-105.7, -2.4, -20.0]),
}
GREY49 = np.array([-6.0, -1.5])
#: 49/0 c2, the dark blue (arms) tent read black by its look (0.908 against 0.885): its
#: colour terms lie 0.75 from arms' shade line, 6.5 from moons'.
BLUE_TENT = np.array([-87.5, -4.8, -11.6])
#: Its per-suit pawn fits (``cells.SUITS`` order) and a suns coin's 0.4 (see ``pawn_cell``).
FITS49 = (0.524, 0.908, 0.575, 0.885)
LABELS = [("pawn", s, None) for s in cells.SUITS] + [("coin", "suns", "north")]


def _named(c: np.ndarray, fits=FITS49, colours=RIG49, grey=GREY49) -> str | None:
    d = CellDecision("c2", "unknown", best=("pawn", "moons"), similarity=max(fits))
    return cells._shade_line_suit(d, c, np.array([*fits, 0.4]), LABELS, colours, grey)


def test_a_dark_colour_along_a_suits_shade_line_names_that_suit():
    assert _named(BLUE_TENT) == "arms"


def test_a_light_colour_names_nothing():
    # The same colour terms on a light patch (a tile lit unevenly, a hand's edge).
    assert _named(np.array([-35.0, -4.8, -11.6])) is None


def test_a_colour_past_the_lines_grey_end_names_nothing():
    # Nearly colourless, 0.72 of the way from moons' colour terms toward grey: past the end
    # of its shade line, where every line ends near the others.
    c = np.array([-100.0, -5.64, -3.35])
    lines = sorted((cells.shade_line_distance(c, v, GREY49), s) for s, v in RIG49.items())
    assert lines[0][1] == "moons" and lines[0][0] < cells.SHADE_LINE_SHARE * lines[1][0]
    assert _named(c) is None


def test_the_nearest_line_must_lie_far_nearer_than_the_next():
    # Between arms' and moons' lines: 1.6 from arms', 2.9 from moons' (0.55).
    c = np.array([-90.0, -3.0, -8.5])
    near = sorted(cells.shade_line_distance(c, v, GREY49) for v in RIG49.values())
    assert near[0] > cells.SHADE_LINE_SHARE * near[1]
    assert _named(c) is None


def test_a_cell_that_fits_no_pawn_closely_names_nothing():
    # A dark shadow beside a hand fitting the pawn looks at 0.55 (tune printplay 1/2 h7).
    assert _named(BLUE_TENT, fits=(0.3, 0.55, 0.3, 0.54)) is None


def test_the_named_suits_look_must_fit_nearly_as_well_as_the_best():
    """Tune acrylic 57/1 d5: a black pawn whose colour terms lie on the dark blue pawn's
    shade line (2.3 from it, 9.2 from the black one's), its black look 0.25 ahead."""
    rig57 = {
        "suns": np.array([-92.4, 74.1, 54.2]),
        "moons": np.array([-145.0, 12.8, 0.7]),
        "crowns": np.array([-66.4, -47.5, 50.3]),
        "arms": np.array([-120.0, 6.3, -19.6]),
    }
    c, fits = np.array([-123.4, 10.4, -8.2]), (0.437, 0.923, 0.374, 0.676)
    assert _named(c, fits, rig57, np.array([10.5, 6.0])) is None
    assert _named(c, (0.437, 0.923, 0.374, 0.85), rig57, np.array([10.5, 6.0])) == "arms"


def test_the_colour_names_the_pawn_by_its_shade_line(monkeypatch):
    looks = PieceLooks({}, {}, learned=True)
    monkeypatch.setattr(PieceLooks, "pawn_colours", lambda self: RIG49)
    monkeypatch.setattr(cells, "pawn_colour", lambda crop: BLUE_TENT)
    crop = np.zeros((cells.CROP, cells.CROP, 3), np.float32)
    d, sims, labels = pawn_cell("moons", FITS49, "c2", margin=0.022)
    cells._pawn_by_colour(d, crop, sims, labels, looks, GREY49)
    assert (d.colour_named, d.colour_suit, d.best) == (True, "arms", ("pawn", "arms"))
    assert d.similarity == np.float32(0.885) and round(d.margin, 3) == 0.485
    # Without grey nothing is named and the look keeps its lead.
    d, sims, labels = pawn_cell("moons", FITS49, "c2", margin=0.022)
    cells._pawn_by_colour(d, crop, sims, labels, looks, None)
    assert (d.colour_named, d.best, d.margin) == (False, ("pawn", "moons"), 0.022)


def test_the_dark_blue_tent_is_not_read_as_the_black_one():
    """About 5 s: tune printplay 49/0 c2 (an arms pawn) is read as arms, and no cell of the
    shot is read wrong."""
    want, got, unknown = read_tune_shot(49, 49 * 4, "printplay")
    assert want["c2"] == ("pawn", "arms") and got.get("c2") == ("pawn", "arms")
    assert wrong_cells(want, got, unknown) == []
