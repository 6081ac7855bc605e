"""Calibration round 20: a calibration photo whose board the line searches fitted wrong (a grid
of half the cells' size over the block of coins, refused as a printed grid; a grid 5.5 cells
off, refused as a cell off) is learned on the board found from whole tiles
(``learn._learn_by_tiles``, ``locate.board_by_tiles``) when the whole layout reads back there
and on no grid a cell over; a shot's grid refused as printed gives way to that board too
(``locate._tiles_board``). Tune printplay calibration photos of rigs 3, 9 and 188 and shot
25/1, rendered from their seeds (a few seconds each)."""

from __future__ import annotations

import copy

import pytest
from piecebridge.vision import learn
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.locate import (
    FewCrosses,
    GridInDoubt,
    PrintedGrid,
    board_by_tiles,
    find_board,
)
from vision_support import corners_off, setup_off_by

from piecebridge.errors import UserError
from piecebridge.synth.reflec import Difficulty, calibration_sample, sample


def _printplay(rig: int):
    return calibration_sample("tune", rig, Difficulty.parse("realistic"), art="printplay")


@pytest.fixture(scope="module")
def rig3():
    return _printplay(3)


def test_a_half_size_grid_over_the_coins_gives_way_to_the_board_of_whole_tiles(rig3):
    """Rig 3: the finder fits 16 crosses of a grid half the cells' size over the coins and
    refuses it as part of a larger printed grid (the board's own lines run on beyond it);
    the tiles outline the board, where all 28 pieces read back."""
    with pytest.raises(PrintedGrid):
        find_board(rig3.image, thorough=True)
    setup, report = learn_setup(rig3.image)
    assert setup_off_by(setup, rig3.truth) < 0.2
    assert report["found_by_tiles"] and report["read_back"] == 28
    assert len(setup.to_json()["tile_color_lab"]) == 3  # measured on the frame: it saves


def test_a_grid_found_far_off_the_board_gives_way_to_the_board_of_whole_tiles():
    """Rig 188: the grid found lies 5.5 cells off, refused as maybe a cell off; learned on
    the tiles' board within a fifth of a cell."""
    cal = _printplay(188)
    setup, report = learn_setup(cal.image)
    assert setup_off_by(setup, cal.truth) < 0.2 and report["found_by_tiles"]


def test_the_tiles_board_is_not_taken_where_a_grid_a_cell_over_reads_the_layout_too():
    """Rig 9: the grid found runs past the frame a cell north (refused as cut off); the
    tiles' board lies in place, but the grid a cell south of it reads all 28 pieces back
    too: the refusal stands, in its own words (a retake costs less than a setup a cell
    off)."""
    with pytest.raises(UserError, match=r"^board cut off by the frame edge"):
        learn_setup(_printplay(9).image)


def test_the_tiles_board_at_the_grid_refused_is_not_judged_again(rig3, monkeypatch):
    """A refusal about the very place the tiles outline stands: its checks were made."""
    pose = board_by_tiles(rig3.image)
    assert pose is not None
    refusal = GridInDoubt("no board in view: the grid found is in doubt", pose)

    def refuse(frame, camera_calibration=None):
        raise refusal

    monkeypatch.setattr(learn, "_learn_found", refuse)
    with pytest.raises(GridInDoubt, match="is in doubt"):
        learn_setup(rig3.image)


def test_a_grid_too_weak_to_fit_gives_way_to_the_tiles_board_in_its_place(rig3, monkeypatch):
    """A grid of fewer crosses than ``FIT_CROSSES`` (the small frame's outline, refused by
    its lines alone: "0 of 16 tile crosses") was never judged by the layout: the tiles'
    board fitted in the same place is."""
    pose = board_by_tiles(rig3.image)
    weak = copy.copy(pose)
    weak.crosses_found = 0
    refusal = FewCrosses("no board in view: the grid seen shows 0 of the 16 tile crosses", weak)

    def refuse(frame, camera_calibration=None):
        raise refusal

    monkeypatch.setattr(learn, "_learn_found", refuse)
    setup, report = learn_setup(rig3.image)
    assert setup_off_by(setup, rig3.truth) < 0.2 and report["found_by_tiles"]


def test_a_board_cut_off_by_the_frame_stays_refused(rig3):
    """Rig 3's photo cropped through the board (its north-west three quarters): the tiles
    in view give no board to learn, and the refusal is the finder's, in one line."""
    corners = rig3.truth["synth"]["board_corners_px"]
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    x1 = int(min(xs) + 0.75 * (max(xs) - min(xs)))
    y1 = int(min(ys) + 0.75 * (max(ys) - min(ys)))
    with pytest.raises(UserError, match=r"^board cut off by the frame edge") as refused:
        learn_setup(rig3.image[:y1, :x1].copy())
    assert "\n" not in str(refused.value)


def test_a_shot_whose_grid_was_taken_for_a_printed_one_is_found_by_its_tiles():
    """Tune printplay shot 25/1 (no setup): the usual search fitted a grid of half the
    cells' size over the coins and refused it as a printed grid; the board of whole tiles,
    passing the finder's checks, is found in its place instead (a calibration photo's
    thorough search leaves that to the layout: the first test)."""
    shot = sample("tune", 25 * 4 + 1, Difficulty.parse("realistic"), art="printplay")
    assert corners_off(find_board(shot.image), shot.truth) < 0.1
