"""A calibration photo whose board the finder takes for part of a board cut off
(:class:`locate.GridCutOff`) is learned when its grid lies wholly in the frame and shows
and reads back the calibration layout in place (``learn._in_view_after_all``); otherwise
it stays refused as cut off. Tune printplay calibration photos of rigs 149 (in place, a row
of coins hiding its lines) and 9 (found a cell off both ways beside a gingham: not moved,
refused), rendered from their seeds; rig 149's photo cropped through its board must stay
refused."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from piecebridge.calibration.geometry import N
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import learn
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.locate import BoardCutOff, GridCutOff, find_board, shifted_pose

from piecebridge.synth.reflec import Difficulty, calibration_sample
from tests.vision_support import corners_off as _corners_off


@pytest.fixture(scope="module")
def rig149():
    """Tune printplay rig 149's calibration photo (rendered, about 2 s) and the grid the
    finder refuses as cut off there."""
    cal = calibration_sample("tune", 149, Difficulty.parse("realistic"), art="printplay")
    with pytest.raises(GridCutOff) as refused:
        find_board(cal.image, thorough=True)
    return cal, refused.value.pose


def test_a_board_in_view_taken_for_cut_off_is_learned_where_it_lies(rig149):
    """Rig 149: the frame's top a quarter cell beyond the board, the row of coins along the
    far side hiding its lines over pale laminate (the "row of table" arm of the cut-off
    check). The grid handed on is right, and the setup is learned there."""
    cal, pose = rig149
    assert _corners_off(pose, cal.truth) < 0.2
    setup, report = learn_setup(cal.image)
    assert _corners_off(setup.pose, cal.truth) < 0.2
    assert report["read_back"] == 28 and "moved_cells" not in report


def test_a_grid_a_cell_off_both_ways_taken_for_cut_off_stays_refused():
    """Rig 9 (about 4 s): the grid found lies a cell north (the finder moved it a cell east
    already) and is said cut off. A cell south it would show the layout, but a grid both
    said cut off and a cell off the layout is not moved (its shots read 5 cells of 256
    wrong with that setup): refused as cut off."""
    cal = calibration_sample("tune", 9, Difficulty.parse("realistic"), art="printplay")
    with pytest.raises(BoardCutOff):
        learn_setup(cal.image)


def _cropped(cal, pose: BoardPose, dy: int) -> tuple[np.ndarray, BoardPose]:
    """The photo with ``dy`` pixels cut off its top, and ``pose`` in it."""
    T = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, -dy], [0.0, 0.0, 1.0]])
    centre = (pose.centre[0], pose.centre[1] - dy)  # the lens's centre moves with the photo
    return np.ascontiguousarray(cal.image[dy:]), replace(pose, H=T @ pose.H, centre=centre)


def _refused_with(monkeypatch, pose: BoardPose) -> None:
    """``learn.find_board`` stubbed to refuse every photo as cut off at ``pose``."""

    def refuse(*args, **kwargs):
        raise GridCutOff("board cut off by the frame edge", pose)

    monkeypatch.setattr(learn, "find_board", refuse)


def test_a_grid_cut_off_by_the_frame_is_refused_though_it_shows_the_layout(rig149, monkeypatch):
    """Rig 149's photo with a cell cut off its top: the board's north-west corner lies half a
    cell past the frame. The right grid, said cut off there, shows the layout, but the
    board is not wholly in view: still refused as cut off."""
    cal, pose = rig149
    photo, there = _cropped(cal, pose, round(pose.cell_size_px()))
    assert _corners_off(there, cal.truth, round(pose.cell_size_px())) < 0.2
    _refused_with(monkeypatch, there)
    with pytest.raises(BoardCutOff, match="cut off"):
        learn_setup(photo)


def test_a_grid_a_row_off_a_board_cut_off_stays_refused_as_cut_off(rig149, monkeypatch):
    """Rig 149's photo with 1.5 cells cut off its top, the grid given a cell south of the
    board (in the frame, a row of table in it): no layout on it, and the one move onto the
    board leaves the frame, so the photo is refused as cut off (not as "no layout")."""
    cal, pose = rig149
    dy = round(1.5 * pose.cell_size_px())
    photo, there = _cropped(cal, pose, dy)
    middle = there.to_image(np.array([[N / 2, N / 2]]))[0]
    down = max(  # the cell move nearest straight down the photo
        ((0, 1), (1, 0), (0, -1), (-1, 0)),
        key=lambda m: float(there.to_image(np.array([[N / 2 + m[0], N / 2 + m[1]]]))[0, 1]),
    )
    a_row_off = shifted_pose(there, *down)
    assert there.to_image(np.array([[N / 2 + down[0], N / 2 + down[1]]]))[0, 1] > middle[1]
    a_row_off.k, a_row_off.centre, a_row_off.scale = there.k, there.centre, there.scale
    _refused_with(monkeypatch, a_row_off)
    with pytest.raises(BoardCutOff, match="cut off"):
        learn_setup(photo)
