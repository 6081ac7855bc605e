"""Round 26 of cell decisions (pawn suits on printplay and woodburned): where a pawn's suit is
not clear, unknown rather than a wrong suit. A colour whose terms may be another suit's in
shade (on that suit's shade line toward grey) names no suit by its hue; a cell whose hue
leans to a free suit is named no other free suit by elimination."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks, hue_suit
from vision_support import read_tune_shot, wrong_cells

#: Tune printplay rig 49's learned pawn colours (lightness over the surround, a, b relative
#: to the tile; see ``pawn_colour``) and its grey: the four tents learned from their shaded
#: slopes, the black (moons) one's colour terms on the dark blue (arms) one's shade line.
RIG49 = {
    "suns": np.array([-114.8, 26.7, 9.3]),
    "moons": np.array([-112.6, -2.1, -5.7]),
    "crowns": np.array([-94.5, -16.4, 4.5]),
    "arms": np.array([-105.7, -2.4, -20.0]),
}
GREY49 = np.array([-6.0, 10.5])


def test_a_hue_another_suits_shade_could_give_names_no_suit():
    # 49/1 a8, the dark blue tent turned from the light: its colour terms lie 3.4 from the
    # black tent's and 0.3 from the dark blue one's shade line (it was read "moons").
    assert hue_suit(np.array([-86.9, -3.4, -8.8]), RIG49, GREY49) is None


@pytest.mark.parametrize(
    "colour, suit",
    [
        ((-100.0, -2.6, -22.0), "arms"),  # the dark blue tent's own colour terms
        ((-100.0, 25.0, 10.0), "suns"),  # a red tent in some shade
    ],
)
def test_a_hue_no_other_suits_shade_gives_still_names_its_suit(colour, suit):
    assert hue_suit(np.array(colour), RIG49, GREY49) == suit


def test_the_shade_line_holds_only_what_a_shade_reaches():
    # Beyond the suit's learned colour (away from grey) lies no shade of it.
    colours = {"moons": np.array([-100.0, 0.0, -30.0]), "arms": np.array([-100.0, 0.0, -20.0])}
    grey = np.array([0.0, 0.0])
    c = np.array([-90.0, 0.0, -32.0])  # nearest moons (2.0); arms' line ends at (0, -20)
    assert not cells._shade_of_another(c, (2.0, "moons"), colours, grey)
    assert cells._shade_of_another(np.array([-90.0, 0.0, -10.0]), (12.0, "moons"), colours, grey)
    # ... nor the part nearest grey, where every suit's shade line meets the others' (the
    # line weighed ends at (0, -8) at 0.6 of the way).
    assert not cells._shade_of_another(np.array([-90.0, 0.0, -2.0]), (3.5, "moons"), colours, grey)


def test_printplay_an_arms_tent_with_the_black_tents_hue_is_no_moons_pawn():
    """About 5 s. Tune printplay 49/1 (shot 197): the dark blue (arms) tent on a8, its colour
    terms on the arms shade line, was read as the moons pawn by hue; now unknown (since
    round 30 read as arms, by that shade line), and no cell of the shot is read wrong."""
    want, got, unknown = read_tune_shot(49, 197, "printplay")
    assert want["a8"] == ("pawn", "arms")
    assert "a8" in unknown or got.get("a8") == ("pawn", "arms")
    assert wrong_cells(want, got, unknown) == []


LEARNED = PieceLooks({}, {}, learned=True)
BUSY = dict(energy_ratio=9.0, detail_ratio=9.0)


def _placed(*cells_suits: tuple[str, str]) -> list[CellDecision]:
    return [CellDecision(c, "pawn", s, confidence=1.0) for c, s in cells_suits]


@pytest.mark.parametrize("hue, after", [("moons", "unknown"), ("arms", "pawn"), ("crowns", "pawn")])
def test_no_free_suit_by_elimination_where_the_hue_leans_to_another_free_suit(hue, after):
    # Tune woodburned 39/1 a8: the moons pawn leaning into the corner fits the free arms
    # pawn's look best (0.822; moons 0.678), its hue nearest moons, free too. A hue leaning to
    # the suit named, or to one placed elsewhere (crowns), does not hold it back.
    d = CellDecision("a8", "unknown", best=("pawn", "arms"), pawn_fits=(0.75, 0.678, 0.809, 0.822),
                     coin_fit=0.415, hue_near=hue, **BUSY)  # fmt: skip
    board = [*_placed(("h8", "crowns"), ("h1", "suns")), d]
    cells._pawns_by_elimination(board, np.zeros(len(board), bool), LEARNED)
    assert (d.kind, d.suit) == ((after, "arms") if after == "pawn" else (after, None))


@pytest.mark.parametrize("hue, after", [("moons", "unknown"), ("suns", "pawn")])
def test_no_free_suit_by_the_colours_suit_placed_where_the_hue_leans_to_another(hue, after):
    # Tune woodburned 26/0 g2: a crowns coin fit the suns pawn's look (0.706), its colour
    # leaning to crowns, placed elsewhere; its hue nearest moons, free.
    fits = (0.706, 0.606, 0.507, 0.534)
    d = CellDecision("g2", "unknown", best=("pawn", "suns"), similarity=0.706, pawn_fits=fits,
                     colour_suit="crowns", coin_fit=0.635, hue_near=hue, **BUSY)  # fmt: skip
    board = [*_placed(("h1", "crowns")), d]
    cells._pawns_by_their_colour(board, np.zeros(len(board), bool), LEARNED)
    assert d.kind == after


def test_woodburned_a_leaning_moons_pawn_is_not_named_arms_by_elimination():
    """About 5 s. Tune woodburned 39/1 (shot 157): the moons pawn on a8 was named arms by
    elimination; now unknown (since round 30 read as moons, by the shade line its colour
    terms lie along), and no cell of the shot is read wrong."""
    want, got, unknown = read_tune_shot(39, 157, "woodburned")
    assert want["a8"] == ("pawn", "moons")
    assert "a8" in unknown or got.get("a8") == ("pawn", "moons")
    assert wrong_cells(want, got, unknown) == []
