"""The board finder on a grid shown by tone, round 21 (issue #4, checkered tiles): a board
found by tone whose tile gaps run along its cells' middles is refused as maybe a cell off
(``locate._tile_gaps``, ``GAPS_OFF``: a hand over a row of corners placed a board a cell
off); a cloth of squares going on with the board's checker in its own colours is no part
of a larger checkerboard (``locate._checker_beyond``, ``CHECKER_ALIKE_LAB``); a
calibration's grid is moved a cell by its tones (``learn._refit_moved``,
``locate.refine_by_tone``)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import learn, locate

MAPLE, WALNUT = (150, 190, 215), (40, 60, 95)  # BGR of the two woods
SKIN = (120, 160, 210)
CELL = 40  # pixels per cell of the synthetic board
AT = 4  # cells of table round the board


def _inlaid(
    table: np.ndarray | None = None, gaps: bool = True, hand: bool = False
) -> tuple[np.ndarray, BoardPose]:
    """A 16x16-cell frame: an 8x8 checkered board of two woods (dark tile gaps every two
    cells when ``gaps``) on ``table`` (a 16x16 array of BGR cells; plain grey if None),
    a hand over its north row when ``hand``, and its pose."""
    cells = np.zeros((16, 16, 3), np.uint8)
    cells[:] = (120, 120, 120) if table is None else table
    parity = np.indices((8, 8)).sum(axis=0) % 2
    cells[AT : AT + 8, AT : AT + 8] = np.where(parity[..., None] == 1, WALNUT, MAPLE)
    frame = np.kron(cells, np.ones((CELL, CELL, 1), np.uint8))
    if gaps:
        for k in range(0, 9, 2):  # the tiles' gaps, a dark groove 3 px wide
            at = (AT + k) * CELL
            frame[AT * CELL : (AT + 8) * CELL, at - 1 : at + 2] = 20
            frame[at - 1 : at + 2, AT * CELL : (AT + 8) * CELL] = 20
    if hand:
        frame[AT * CELL - CELL // 2 : (AT + 1) * CELL, (AT - 1) * CELL : (AT + 9) * CELL] = SKIN
    noise = np.random.default_rng(0).normal(0, 2, frame.shape)
    frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
    pose = BoardPose(np.array([[CELL, 0.0, AT * CELL], [0.0, CELL, AT * CELL], [0, 0, 1.0]]))
    return frame, pose


def _moved(pose: BoardPose, sx: int, sy: int) -> BoardPose:
    return BoardPose(pose.H @ np.array([[1.0, 0, sx], [0, 1.0, sy], [0, 0, 1.0]]))


def test_tile_gaps_run_on_a_grids_even_lines_in_place_and_on_its_odd_lines_a_cell_off():
    frame, pose = _inlaid()
    assert (locate._tile_gaps(frame, pose) > locate.GAPS_OFF).all()
    east, south = (
        locate._tile_gaps(frame, _moved(pose, 1, 0)),
        locate._tile_gaps(frame, _moved(pose, 0, -1)),
    )
    assert east[0] < -locate.GAPS_OFF < east[1]  # off along x only
    assert south[1] < -locate.GAPS_OFF < south[0]


def test_a_board_without_gaps_is_no_grid_a_cell_off():
    frame, pose = _inlaid(gaps=False)  # an inlaid board of one piece: no gaps to tell by
    assert (np.abs(locate._tile_gaps(frame, _moved(pose, 1, 0))) < locate.GAPS_OFF).all()


def _by_tone_given(monkeypatch, frame: np.ndarray, pose: BoardPose, thorough: bool = False):
    monkeypatch.setattr(locate, "_find_board_checked", lambda *args: pose)
    return locate._by_tone(frame, None, None, thorough, locate.BoardNotFound("no grid"))


def test_a_board_found_by_tone_a_cell_off_is_refused_in_place_taken(monkeypatch):
    # a hand over the north row: the grid a cell south fits the corners seen as well, and
    # no checker shows beyond its north side (tune checkered shot 102/3)
    frame, pose = _inlaid(hand=True)
    assert _by_tone_given(monkeypatch, frame, pose) is pose
    off = _moved(pose, 0, 1)
    with pytest.raises(locate.MaybeCellOff) as refused:
        _by_tone_given(monkeypatch, frame, off)
    assert refused.value.pose is off
    # a calibration photo (thorough) is judged by its layout, which moves such a grid
    assert _by_tone_given(monkeypatch, frame, off, thorough=True) is off


def _gingham(colours: tuple) -> np.ndarray:
    """A table of squares a cell wide in two colours, in a checker."""
    parity = np.indices((16, 16)).sum(axis=0) % 2
    return np.where(parity[..., None] == 1, colours[1], colours[0]).astype(np.uint8)


def test_a_cloth_going_on_with_the_checker_in_other_colours_is_no_larger_checkerboard():
    # a blue-and-white gingham's squares, a cell wide, step as the board's woods do
    blue_white = ((235, 235, 235), (150, 70, 20))
    frame, pose = _inlaid(_gingham(blue_white), gaps=False)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    beyond = grey[(AT - 1) * CELL + CELL // 2, AT * CELL : (AT + 8) * CELL : CELL].astype(int)
    assert (np.abs(np.diff(beyond)) > 60).all()  # a checker beyond, by grey
    assert locate._checker_beyond(frame, pose).max() == 0
    # in the board's own woods (a larger checkerboard), it goes on
    frame, pose = _inlaid(_gingham((MAPLE, WALNUT)), gaps=False)
    assert (locate._checker_beyond(frame, pose) >= locate.CHECKER_ON).all()


def test_a_calibration_grid_by_tone_is_moved_a_cell_by_its_tones():
    frame, pose = _inlaid()
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    off = _moved(pose, 1, 0)  # a cell east: moved back west, fitted to its tones
    back = learn._refit_moved(grey, off, -1, 0)
    assert back is not None and back.crosses_found >= learn.FIT_CROSSES
    assert np.abs(back.corners - pose.corners).max() < 0.15 * CELL


def _corners_off(setup, truth: dict) -> float:
    """The largest distance (cells) of the setup's board corners from the true ones, under
    the quarter turn that fits best."""
    want = np.array(truth["synth"]["board_corners_px"], float)
    got = setup.pose.to_image(np.array([[0, 0], [8, 0], [8, 8], [0, 8]], float))
    cell = np.linalg.norm(want[1] - want[0]) / 8
    return (
        min(float(np.linalg.norm(np.roll(got, k, axis=0) - want, axis=1).max()) for k in range(4))
        / cell
    )


def test_a_checkered_calibration_grid_a_cell_off_on_a_gingham_is_learned_in_place():
    """Tune checkered calibration photo of rig 9: the corners' lattice took a row of a red
    gingham's corners in, the grid a cell off read 22 of 28 pieces back and was refused;
    moved a cell by its tones (the one move reading the layout back), it is learned in
    place."""
    from piecebridge.synth.reflec import Difficulty, calibration_sample

    cal = calibration_sample("tune", 9, Difficulty.parse("realistic"), art="checkered")
    photo, truth = cal.image, cal.truth
    with pytest.raises(learn.LayoutNotReadBack):
        learn._learn_from(photo, locate.find_board(photo, thorough=True))
    setup, report = learn.learn_setup(photo)
    assert report["moved_cells"] and report["read_back"] == 28
    assert _corners_off(setup, truth) < 0.3


def test_a_steep_view_of_the_corners_still_outlines_the_board():
    """Tune checkered shot 205/0 (a laminate table, a steep view): the walk over the 7x7
    corners stuck with three points each agreeing with it more often than not, and the
    frame gave no outline (the board not found); settled, it outlines the board."""
    from piecebridge.synth.reflec import SHOTS_PER_RIG, Difficulty, sample

    shot = sample("tune", 205 * SHOTS_PER_RIG, Difficulty.parse("realistic"), art="checkered")
    small, S = locate.downscale(shot.image)
    outlines = locate._saddle_outlines(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    truth = np.array(shot.truth["synth"]["board_corners_px"], float)
    truth_small = cv2.perspectiveTransform(truth.reshape(-1, 1, 2), S).reshape(-1, 2)
    cell = np.linalg.norm(truth_small[1] - truth_small[0]) / 8
    assert outlines
    gap = min(
        np.linalg.norm(np.roll(locate._order_quad(q), k, axis=0) - truth_small, axis=1).max()
        for q in outlines
        for k in range(4)
    )
    assert gap < 0.5 * cell
    pose = locate.find_board(shot.image)
    assert locate.corner_gap(pose, truth, np.max) < 0.3


def test_a_grid_by_tone_in_place_by_its_tile_gaps_is_not_moved_onto_a_cloth_by_its_steps():
    """Tune checkered calibration photo of rig 105: a gingham of cell-sized squares beside
    the board shows steps as its cells do, and the lines' move (``_onto_the_board``) took
    the grid found in place a cell onto it; the tiles' gaps say in place."""
    from piecebridge.synth.reflec import Difficulty, calibration_sample

    cal = calibration_sample("tune", 105, Difficulty.parse("realistic"), art="checkered")
    truth = np.array(cal.truth["synth"]["board_corners_px"], float)
    pose = locate.find_board(cal.image, thorough=True)
    assert locate.corner_gap(pose, truth, np.max) < 0.3


def test_a_calibration_photo_said_cut_off_by_the_lines_is_searched_by_tone():
    """Tune checkered calibration photo of rig 211: the board wholly in view on a grained
    wooden table, the search by lines fitted a grid 1.8 cells off and said it ran past the
    frame; a calibration (thorough) seeks the board by tone after that too, and learns it."""
    from piecebridge.synth.reflec import Difficulty, calibration_sample

    cal = calibration_sample("tune", 211, Difficulty.parse("realistic"), art="checkered")
    truth = np.array(cal.truth["synth"]["board_corners_px"], float)
    pose = locate.find_board(cal.image, thorough=True)
    assert locate.corner_gap(pose, truth, np.max) < 0.3
