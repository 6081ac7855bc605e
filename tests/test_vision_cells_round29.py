"""Round 29 of cell decisions (pawn suits on woodburned): a pawn whose colour names no suit is
not named by its look alone when its colour terms lie far from that suit's shade line and
nearer another's (a slate blue skittle turned from the light, as dark as the ebonised one
and fitting its look, is bluer than grey, where no shade of the ebonised one lies)."""

from __future__ import annotations

import numpy as np
from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks
from vision_support import pawn_cell, read_tune_shot, wrong_cells

#: Tune woodburned rig 9's learned pawn colours (lightness over the surround, a, b relative
#: to the tile; see ``pawn_colour``) and its grey (bluish: the tile is orange).
RIG9 = {
    "suns": np.array([-56.2, 9.4, -7.3]),
    "moons": np.array([-49.3, -2.1, -11.2]),
    "crowns": np.array([-61.7, -9.8, -5.8]),
    "arms": np.array([-32.8, -1.6, -20.7]),
}
GREY9 = np.array([3.0, -31.5])
#: 9/1 a1, the slate blue (arms) skittle in the corner, its look moons' by 0.022: 21.2 from
#: moons' shade line, 17.4 from arms'.
BLUE_IN_SHADE = np.array([-114.5, 0.6, -44.6])


def _looked(suit: str) -> CellDecision:
    d = CellDecision("a1", "unknown")
    d.best = ("pawn", suit)
    return d


def test_a_colour_far_off_the_looks_shade_line_rules_its_suit_out():
    assert cells._off_its_shade(_looked("moons"), BLUE_IN_SHADE, RIG9, GREY9)
    assert not cells._off_its_shade(_looked("arms"), BLUE_IN_SHADE, RIG9, GREY9)


def test_a_colour_near_the_looks_shade_line_rules_nothing_out():
    # The ebonised pawn's own colour terms, dimmed toward grey: on its own line.
    assert not cells._off_its_shade(_looked("moons"), np.array([-90.0, -1.0, -18.0]), RIG9, GREY9)


def test_the_colour_must_lie_far_from_the_looks_line():
    # Nearer arms' line than moons', but within OFF_SHADE_FAR of moons' line.
    c = np.array([-90.0, -1.0, -34.0])
    own = cells.shade_line_distance(c, RIG9["moons"], GREY9)
    assert cells.shade_line_distance(c, RIG9["arms"], GREY9) < cells.OFF_SHADE_SHARE * own
    assert own < cells.OFF_SHADE_FAR
    assert not cells._off_its_shade(_looked("moons"), c, RIG9, GREY9)


def test_another_suits_line_must_lie_nearer():
    # Far from every line alike (a reddish purple no suit has): not ruled out by another's.
    c = np.array([-90.0, 40.0, -40.0])
    own = cells.shade_line_distance(c, RIG9["moons"], GREY9)
    others = [cells.shade_line_distance(c, v, GREY9) for s, v in RIG9.items() if s != "moons"]
    assert own >= cells.OFF_SHADE_FAR and min(others) >= cells.OFF_SHADE_SHARE * own
    assert not cells._off_its_shade(_looked("moons"), c, RIG9, GREY9)


def test_no_grey_or_no_pawn_look_rules_nothing_out():
    assert not cells._off_its_shade(_looked("moons"), BLUE_IN_SHADE, RIG9, None)
    d = CellDecision("a1", "unknown")
    d.best = ("coin", "moons")
    assert not cells._off_its_shade(d, BLUE_IN_SHADE, RIG9, GREY9)


def test_the_look_alone_names_no_suit_its_colour_rules_out(monkeypatch):
    looks = PieceLooks({}, {}, learned=True)
    monkeypatch.setattr(PieceLooks, "pawn_colours", lambda self: RIG9)
    crop = np.zeros((cells.CROP, cells.CROP, 3), np.float32)
    monkeypatch.setattr(cells, "pawn_colour", lambda crop: BLUE_IN_SHADE)
    d, sims, labels = pawn_cell("moons", (0.795, 0.871, 0.762, 0.849), "a1", margin=0.022)
    cells._pawn_by_colour(d, crop, sims, labels, looks, GREY9)
    assert (d.colour_named, d.best, d.margin) == (False, ("pawn", "moons"), 0.0)
    # The ebonised pawn's own colour: it names moons by its shade line (round 30) ...
    monkeypatch.setattr(cells, "pawn_colour", lambda crop: np.array([-90.0, -1.0, -18.0]))
    d, sims, labels = pawn_cell("moons", (0.795, 0.871, 0.762, 0.849), "a1", margin=0.022)
    cells._pawn_by_colour(d, crop, sims, labels, looks, GREY9)
    assert (d.colour_named, d.best) == (True, ("pawn", "moons"))
    # ... and with that held back, the look keeps its lead.
    monkeypatch.setattr(cells, "_shade_line_suit", lambda *a: None)
    d, sims, labels = pawn_cell("moons", (0.795, 0.871, 0.762, 0.849), "a1", margin=0.022)
    cells._pawn_by_colour(d, crop, sims, labels, looks, GREY9)
    assert (d.best, d.margin) == (("pawn", "moons"), 0.022)


def test_the_slate_blue_skittle_in_the_corner_is_not_read_as_the_ebonised_one():
    """About 5 s: tune woodburned 9/1 a1 (an arms pawn) is no longer read as moons, and no
    cell of the shot is read wrong."""
    want, got, unknown = read_tune_shot(9, 9 * 4 + 1, "woodburned")
    assert want["a1"] == ("pawn", "arms") and got.get("a1") != ("pawn", "moons")
    assert wrong_cells(want, got, unknown) == []
