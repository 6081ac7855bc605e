"""Round 28 of cell decisions (pawn suits on woodburned and printplay): a colour whose lightness
names a suit names none when its colour terms lie on another suit's shade line, far nearer it
than the named suit's (a pawn turned from the light is as dark as a darker suit's), and its
claim to the named suit then ranks below one whose colour terms are that suit's."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision import cells
from piecebridge.vision.cells import PieceLooks, in_shade_of
from vision_support import pawn_cell, read_tune_shot, wrong_cells

#: Tune woodburned rig 36's learned pawn colours (lightness over the surround, a, b relative
#: to the tile; see ``pawn_colour``) and its grey (a bluish point: the tile is orange).
RIG36 = {
    "suns": np.array([-43.1, 21.5, -2.0]),
    "moons": np.array([-85.3, -1.9, -20.7]),
    "crowns": np.array([-21.1, -14.1, -4.2]),
    "arms": np.array([-66.5, -6.2, -42.8]),
}
GREY36 = np.array([9.0, -37.5])
#: 36/2 h8, the olive (crowns) pawn leaning from the light: as dark as the ebonised (moons)
#: pawn (its lightness names moons, 17.9 against 38.0), its colour terms 4.3 from crowns'.
OLIVE_IN_SHADE = np.array([-96.5, -13.6, -8.5])


def test_a_colour_on_another_suits_shade_line_lies_in_its_shade():
    assert in_shade_of(OLIVE_IN_SHADE, "moons", RIG36, GREY36) == "crowns"


def test_a_colour_by_the_named_suits_own_terms_lies_in_no_shade():
    # The slate blue (arms) pawn's own colour terms, darker still: no other suit's line is
    # near. The ebonised (moons) pawn's own terms lie by the olive one's shade line (0.4
    # from it), yet nearer still to its own.
    assert in_shade_of(np.array([-90.0, -6.0, -42.5]), "arms", RIG36, GREY36) is None
    assert in_shade_of(np.array([-90.0, -2.0, -21.0]), "moons", RIG36, GREY36) is None


def test_the_shade_must_lie_far_nearer_than_the_named_suit():
    # Beyond crowns' learned terms (away from grey): nearer its line than moons' terms, but
    # not SHADE_NEARER of the way.
    c = np.array([-96.5, -30.0, 5.0])
    near = float(np.linalg.norm(c[1:] - RIG36["moons"][1:]))
    line = cells.shade_line_distance(c, RIG36["crowns"], GREY36)
    assert cells.SHADE_NEARER * near <= line < near
    assert in_shade_of(c, "moons", RIG36, GREY36) is None
    assert in_shade_of(np.array([-96.5, -20.0, 0.0]), "moons", RIG36, GREY36) == "crowns"


def test_the_greyest_suits_line_names_no_shade():
    # Tune woodburned 8/0 a8, an ebonised pawn with the slate blue (arms) pawn's hue: arms,
    # learned nearest this board's grey, is the greyest suit; its line runs by grey.
    colours = {
        "suns": np.array([-67.2, 17.5, 2.9]),
        "moons": np.array([-84.6, -2.5, -9.4]),
        "crowns": np.array([-42.4, -13.3, 2.1]),
        "arms": np.array([-23.3, -1.5, -20.2]),
    }
    grey = np.array([-4.5, -28.5])
    assert in_shade_of(np.array([-111.9, -0.6, -21.4]), "moons", colours, grey) is None


def test_a_pawn_in_another_suits_shade_is_not_named_by_its_lightness(monkeypatch):
    looks = PieceLooks({}, {}, learned=True)
    monkeypatch.setattr(PieceLooks, "pawn_colours", lambda self: RIG36)
    monkeypatch.setattr(cells, "pawn_colour", lambda crop: OLIVE_IN_SHADE)
    d, sims, labels = pawn_cell("crowns", (0.746, 0.846, 0.892, 0.744))
    crop = np.zeros((cells.CROP, cells.CROP, 3), np.float32)
    cells._pawn_by_colour(d, crop, sims, labels, looks, GREY36)
    # Named crowns by its hue (crowns is no greyest suit here), not moons by its lightness.
    assert (d.colour_named, d.best, d.hue_near) == (True, ("pawn", "crowns"), "crowns")
    # Without the shade the lightness names moons, as before round 28.
    monkeypatch.setattr(cells, "in_shade_of", lambda *a: None)
    d, sims, labels = pawn_cell("crowns", (0.746, 0.846, 0.892, 0.744))
    cells._pawn_by_colour(d, crop, sims, labels, looks, GREY36)
    assert d.best == ("pawn", "moons")


def test_a_colour_in_another_suits_shade_does_not_hold_the_look_back(monkeypatch):
    # With no hue or shade line (round 30) to name it (here held back), the look decides: a
    # colour in the look's suit's shade leans to the darker suit no more than it names it
    # (tune woodburned 5/0 a8, a crowns pawn, was left unknown so).
    looks = PieceLooks({}, {}, learned=True)
    monkeypatch.setattr(PieceLooks, "pawn_colours", lambda self: RIG36)
    monkeypatch.setattr(cells, "pawn_colour", lambda crop: OLIVE_IN_SHADE)
    monkeypatch.setattr(cells, "hue_suit", lambda *a: None)
    monkeypatch.setattr(cells, "_shade_line_suit", lambda *a: None)
    d, sims, labels = pawn_cell("crowns", (0.746, 0.846, 0.892, 0.744))
    d.margin = 0.046
    crop = np.zeros((cells.CROP, cells.CROP, 3), np.float32)
    cells._pawn_by_colour(d, crop, sims, labels, looks, GREY36)
    assert (d.colour_named, d.best, d.hue_near) == (False, ("pawn", "crowns"), "crowns")
    assert d.margin == 0.046


@pytest.mark.parametrize(
    "art, rig, shot, pawns",
    [
        # the olive pawn on h8 was read as the ebonised (moons) one
        ("woodburned", 36, 146, {"h8": "crowns"}),
        # the dark blue tent on c3, its shaded slope as dark as the black tent, was read as
        # the moons pawn over the black tent on f7, which was then named arms by elimination
        ("printplay", 30, 123, {"c3": "arms", "f7": "moons"}),
    ],
)
def test_a_pawn_in_the_shade_is_read_as_its_own_suit(art, rig, shot, pawns):
    """About 5 s each: the pawns named rightly, and no cell of the shot read wrong."""
    want, got, unknown = read_tune_shot(rig, shot, art)
    assert {c: got.get(c) for c in pawns} == {c: ("pawn", s) for c, s in pawns.items()}
    assert wrong_cells(want, got, unknown) == []
