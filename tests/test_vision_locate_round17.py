"""Localisation round 17: a grid found a cell off the board is moved onto it, or refused.

Printplay tiles print a line round each tile as well as its cross, so a grid a cell off (a
strip of table taken in, a strip of tiles left beyond) fits as many crosses as the board:
a board read so misreads every cell. Its lines tell the two apart: on the board every cell
side shows a line, on the strip of table none (``_onto_the_board``, ``_strip_lines``). A
synthetic board on round 16's gingham of cell-wide squares stands in, and the tune printplay
calibration photo of rig 185 (found a cell north of its board before this round).
"""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import locate
from test_vision_locate_round16 import S  # pixels per cell of the synthetic board
from test_vision_locate_round16 import _photo as _gingham

X0 = Y0 = 3 * S  # the board's north-west corner: three cells of cloth round it


def _photo(phase: int) -> np.ndarray:
    """Round 16's red-and-white gingham of cell-wide squares (offset ``phase`` pixels from
    the board's lines), 14 x 14 cells, the board of pale card three cells in from the
    north-west, every cell side a thin dark line."""
    return _gingham(14 * S, 14 * S, X0, Y0, phase)


def _grid(sx: int, sy: int, crosses: int = 16) -> BoardPose:
    """The grid ``(sx, sy)`` cells off the synthetic board."""
    pose = BoardPose(np.array([[S, 0.0, X0 + sx * S], [0.0, S, Y0 + sy * S], [0.0, 0.0, 1.0]]))
    pose.crosses_found = crosses
    return pose


def _found(photo: np.ndarray, given: BoardPose, monkeypatch) -> BoardPose:
    """``find_board`` with its search giving ``given`` (as a fit a cell off would)."""
    monkeypatch.setattr(locate, "_search", lambda *args: given)
    return locate.find_board(photo)


@pytest.mark.parametrize("phase", [0, S // 2])
@pytest.mark.parametrize("shift", [(0, -1), (1, 0), (0, 1), (-1, 0), (1, 1)])
def test_a_grid_found_a_cell_off_is_moved_onto_the_board(shift, phase, monkeypatch):
    """A grid a cell off each way (and both ways at once) is found on the board: before
    this round it was taken where it was, every cell misread."""
    pose = _found(_photo(phase), _grid(*shift), monkeypatch)
    board = _grid(0, 0).corners
    assert np.abs(pose.corners - board).max() < 0.2 * S


@pytest.mark.parametrize("phase", [0, S // 2])
def test_a_grid_on_the_board_stays(phase, monkeypatch):
    """The grid on the board is not moved: a cell over shows fewer lines every way."""
    pose = _found(_photo(phase), _grid(0, 0), monkeypatch)
    assert np.abs(pose.corners - _grid(0, 0).corners).max() < 0.2 * S


SKIN = (120, 150, 200)


def test_a_board_with_its_edge_row_hidden_stays(monkeypatch):
    """A hand over the board's north row and edge (its lines hidden as a strip of table's
    would be): a cell south shows as few lines as in place, not ``CELL_OFF_LINES`` more,
    and the grid on the board is kept (neither moved nor refused)."""
    photo = _photo(0)
    photo[Y0 - S // 4 : Y0 + S + S // 4, X0 - S // 4 : X0 + 8 * S + S // 4] = SKIN
    pose = _found(photo, _grid(0, 0, crosses=12), monkeypatch)
    assert np.abs(pose.corners - _grid(0, 0).corners).max() < 0.2 * S


@pytest.mark.parametrize("hide", ["the refit", "the crosses"])
def test_a_cell_off_that_no_move_makes_good_is_refused(hide, monkeypatch):
    """Where the lines say "a cell off" and the grid a cell over does not fit (no refit,
    or fewer crosses than in place), the board is refused, not taken a cell off."""
    photo = _photo(0)
    if hide == "the refit":
        monkeypatch.setattr(locate, "refine_pose", lambda *args, **kwargs: None)
    else:
        monkeypatch.setattr(locate, "_no_fewer_crosses", lambda *args, **kwargs: False)
    with pytest.raises(locate.BoardNotFound, match="a cell off"):
        _found(photo, _grid(0, 1), monkeypatch)


def test_the_strip_taken_in_shows_more_lines_only_off_the_board():
    """``_strip_lines``: moved a cell south, the grid a cell north of the board takes in a
    row of tiles (``CELL_OFF_ACROSS`` more lines across it, ``CELL_OFF_LINES`` more in all)
    and leaves a row of cloth behind; every other move, and every move of the grid on the
    board, shows fewer."""
    photo = _photo(0)
    off = locate._strip_lines(photo, _grid(0, -1))
    assert off[0, 1][0] >= locate.CELL_OFF_ACROSS
    assert sum(off[0, 1]) >= locate.CELL_OFF_LINES
    assert all(sum(off[m]) < 0 for m in locate.CELL_MOVES if m != (0, 1))
    on = locate._strip_lines(photo, _grid(0, 0))
    assert all(across < 0 for across, _ in on.values())


WOOD, GRAIN = (40, 80, 140), (25, 55, 100)


def test_a_board_on_grained_wood_stays(monkeypatch):
    """Grain along the rows of a wooden table shows lines along a strip of table, not
    across it: the grid on the board (a hand over its north row) is kept (tune mixed rig 14
    shot 0: 7 more lines along a row of wood a cell south, 3 fewer across)."""
    photo = _photo(0)
    outside = np.ones(photo.shape[:2], bool)
    outside[Y0 : Y0 + 8 * S, X0 : X0 + 8 * S] = False
    photo[outside] = WOOD
    for y in range(S // 2, photo.shape[0], S // 2):  # a dark grain line every half cell
        row = photo[y : y + 2]
        row[outside[y : y + 2]] = GRAIN
    # A hand over the north row: a cell south takes in as few lines across as it leaves.
    photo[Y0 - S // 4 : Y0 + S + S // 4, X0 - S // 4 : X0 + 8 * S + S // 4] = SKIN
    pose = _found(photo, _grid(0, 0, crosses=12), monkeypatch)
    assert np.abs(pose.corners - _grid(0, 0).corners).max() < 0.2 * S


def test_a_printplay_calibration_photo_a_cell_off_is_found_on_its_board():
    """About 2 s: tune printplay rig 185's calibration photo (a blue gingham) was found a
    cell north of its board (13 crosses; the board 15), every corner 1.0 cell off."""
    from piecebridge.synth.reflec import Difficulty, calibration_sample

    cal = calibration_sample("tune", 185, Difficulty.parse("realistic"), art="printplay")
    pose = locate.find_board(cal.image, thorough=True)
    truth = np.array(cal.truth["synth"]["board_corners_px"], float)
    cell_px = np.linalg.norm(truth[1] - truth[0]) / 8
    assert np.linalg.norm(pose.corners - truth, axis=1).max() < 0.2 * cell_px
