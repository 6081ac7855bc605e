"""Calibration round 23: a checkered calibration photo every search refused, the board in
view, is learned on a board outlined by its grid's corners shown by tone
(``locate.boards_by_tone``), or a grid a cell over from one, where the whole layout reads
back at exactly one such place (``learn._learn_by_tone``). Tune checkered calibration
photos of rigs 124 (the finder's grid by tone two cells off, its first placement of the
corners in place) and 71 (refused by lines as a printed grid, never sought by tone),
rendered from their seeds (a few seconds each)."""

from __future__ import annotations

import pytest
from piecebridge.vision import learn
from piecebridge.vision.learn import MOST_TONE_BOARDS, learn_setup
from piecebridge.vision.locate import PrintedGrid, boards_by_tone, find_board
from vision_support import corners_off, setup_off_by

from piecebridge.errors import UserError
from piecebridge.synth.reflec import Difficulty, calibration_sample


def _photo(rig: int):
    return calibration_sample("tune", rig, Difficulty.parse("realistic"), art="checkered")


@pytest.fixture(scope="module")
def rig124():
    return _photo(124)


@pytest.fixture(scope="module")
def rig71():
    return _photo(71)


def test_the_finder_takes_a_placement_two_cells_off_where_the_first_lies_in_place(rig124):
    """Rig 124: the corners under four rows of pieces fit four placements; the finder's
    grid lies cells off, one of the boards by tone in place."""
    assert corners_off(find_board(rig124.image, thorough=True), rig124.truth) > 1.0
    boards = boards_by_tone(rig124.image)
    assert 1 < len(boards) <= MOST_TONE_BOARDS
    assert min(corners_off(b, rig124.truth) for b in boards) < 0.2


def test_a_board_by_tone_reading_the_whole_layout_back_is_learned(rig124):
    setup, report = learn_setup(rig124.image)
    assert setup_off_by(setup, rig124.truth) < 0.2
    assert report["found_by_tone"] and report["read_back"] == 28


def test_a_grid_refused_as_printed_is_learned_by_tone(rig71):
    """Rig 71: the search by lines refuses a printed grid (a cell off), which the search by
    tone does not follow; the board by tone reads the layout back in place."""
    with pytest.raises(PrintedGrid):
        find_board(rig71.image, thorough=True)
    setup, report = learn_setup(rig71.image)
    assert setup_off_by(setup, rig71.truth) < 0.2
    assert report["found_by_tone"]


def test_more_than_one_place_reading_back_is_refused(rig124, monkeypatch):
    """Were every place by tone to read the layout back, none is taken: which is the board
    is then unknown (a retake costs less than a setup a cell off)."""
    monkeypatch.setattr(learn, "_learned_by_tone_at", lambda frame, pose, cal=None: (None, {}))
    refusal = UserError("refused")
    assert learn._learn_by_tone(rig124.image, refusal) is None


def test_a_lattice_placed_many_ways_is_not_judged(rig124, monkeypatch):
    """More boards by tone than ``MOST_TONE_BOARDS``: none is judged."""
    boards = boards_by_tone(rig124.image)
    many = [boards[0]] * (MOST_TONE_BOARDS + 1)
    monkeypatch.setattr(learn, "boards_by_tone", lambda frame: many)
    assert learn._learn_by_tone(rig124.image, UserError("refused")) is None


def test_a_grid_a_cell_over_from_every_board_by_tone_is_learned():
    """Tune checkered rig 66, on a blue gingham: the corners' lattice takes a row of the
    cloth's in, so every board by tone lies a cell off; the grid a cell over from it,
    fitted by its steps, reads the whole layout back in place."""
    rig66 = _photo(66)
    assert min(corners_off(b, rig66.truth) for b in boards_by_tone(rig66.image)) > 0.8
    setup, report = learn_setup(rig66.image)
    assert setup_off_by(setup, rig66.truth) < 0.2
    assert report["found_by_tone"]
