"""Localisation round 12: a board cut off by the frame edge says so.

The renderer's cut-off negatives (``negative_sample(split, i, "cut-off")``: the camera
moved until a good part of the board lies past the frame) were refused as "no board in
view" or read as a board where the part in view let a grid be fitted wrongly; each case
below was one of those on the tune split.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.calibration.geometry import N
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import locate
from piecebridge.vision.locate import BoardCutOff, find_board

from piecebridge.synth.reflec import negative_sample


@pytest.mark.parametrize("index", [11, 15])
def test_a_board_cut_off_fitted_as_a_weak_grid_is_cut_off(index):
    """Negative 11: grey fitted a grid of 0 crosses, refused as "no board in view"; 15:
    grey fitted one of 9 crosses three cells north of the board, over the table, and it
    was read as a board. The darkest channel's search saw the grid run past the frame."""
    with pytest.raises(BoardCutOff):
        find_board(negative_sample("tune", index, "cut-off").image)


def test_a_grid_whose_lines_run_on_to_the_frame_edge_is_cut_off():
    """Negative 21: a grid of 11 crosses three cells south of the board (the board's tile
    gaps taken for crosses, its south rows on the table) was read as a board; north of it
    the board's lines run on to the frame's top."""
    with pytest.raises(BoardCutOff):
        find_board(negative_sample("tune", 21, "cut-off").image)


def test_a_board_cut_off_where_grey_sees_no_grid_is_cut_off():
    """Negative 59: grey finds no grid and said so ("no 8x8 tile grid found"), though the
    darkest channel's search saw a grid run past the frame."""
    with pytest.raises(BoardCutOff):
        find_board(negative_sample("tune", 59, "cut-off").image)


#: The synthetic board: pixels per cell and where its north-west corner lies.
S, X0 = 40, 160


def _lined(rows: int, height: int) -> tuple[np.ndarray, BoardPose]:
    """Tile-coloured cells with dark lines on every side, ``rows`` rows of them from the
    board's north side (those past ``height`` are cut off by the frame), on a dark
    table; a camera's noise (a flat picture has no line prominence); the board's pose
    (the north 8x8)."""
    width = 2 * X0 + N * S
    photo = np.full((X0 + rows * S + X0, width, 3), (60, 70, 80), np.uint8)
    photo[X0 : X0 + rows * S, X0 : X0 + N * S] = (170, 200, 215)
    for k in range(1, N):
        photo[X0 : X0 + rows * S, X0 + k * S - 1 : X0 + k * S + 1] = 40
    for k in range(1, rows):
        photo[X0 + k * S - 1 : X0 + k * S + 1, X0 : X0 + N * S] = 40
    noise = np.random.default_rng(0).normal(0, 3, photo.shape)
    photo = np.clip(photo + noise, 0, 255).astype(np.uint8)[:height].copy()
    return photo, BoardPose(np.array([[S, 0.0, X0], [0.0, S, X0], [0.0, 0.0, 1.0]]))


def _runs_past(photo: np.ndarray, pose: BoardPose) -> bool:
    gray = pose.rectify(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), locate.PRINTED_PX, 0.5)
    ridge = locate._ridge_map(gray, locate.PRINTED_PX)
    beyond = locate.lines_beyond(ridge, locate.PRINTED_PX, 0.5)
    return locate._runs_past_frame(photo, pose, beyond)


@pytest.mark.parametrize(
    ("rows", "height", "past"),
    [
        (12, X0 + 8 * S + 60, True),  # the board runs on 1.5 cells to the frame's bottom
        (8, X0 + 8 * S + 60, False),  # table between the board and the frame's bottom
        (9, X0 + 8 * S + 120, False),  # a row more, then table: lines stop short of it
    ],
    ids=["to-the-frame", "table-beyond", "stops-short"],
)
def test_a_grid_runs_past_the_frame_only_where_its_lines_go_on_to_the_edge(rows, height, past):
    photo, pose = _lined(rows, height)
    assert _runs_past(photo, pose) is past


def test_lines_running_on_over_the_table_to_the_frame_edge_are_no_board_cut_off():
    """Tune acrylic calibration photo of rig 1209 (a board in view on a plank table): the
    planks' grain ran on beyond the north side to the frame's top, 4-6 of the 7 lines in
    every band, and the board was taken for one cut off. Beyond it lies table, not tile."""
    photo, pose = _lined(N, X0 + N * S + X0)
    for k in range(1, N):  # dark grain beyond the north side, in line with the grid's lines
        photo[: X0 - 2, X0 + k * S - 1 : X0 + k * S + 1] = 30
    top = X0 - 60  # the frame's top 1.5 cells north of the board
    photo = photo[top:].copy()
    pose = BoardPose(np.array([[S, 0.0, X0], [0.0, S, X0 - top], [0.0, 0.0, 1.0]]))
    gray = pose.rectify(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), locate.PRINTED_PX, 0.5)
    beyond = locate.lines_beyond(locate._ridge_map(gray, locate.PRINTED_PX), locate.PRINTED_PX, 0.5)
    assert beyond[0] >= locate.LINES_BEYOND  # the lines do run on beyond the north side
    assert _runs_past(photo, pose) is False


# ---------------------------------------------- in view: what the cut-off rules must leave


def test_a_board_in_view_whose_grey_search_fits_few_crosses_past_the_frame_is_found():
    """Tune acrylic rig 15 shot 0: a board in view that the other searches find with 14
    crosses; grey's search fitted 7 past the frame (``CUT_OFF_CROSSES`` 7 refused it as
    cut off)."""
    from piecebridge.synth.reflec import sample

    pose = find_board(sample("tune", 60, art="acrylic").image)
    assert pose.crosses_found >= 12


@pytest.mark.parametrize("index", [13, 24])
def test_a_business_card_in_view_is_not_called_a_board_cut_off(index):
    """Card tune photos 13 and 24 (classic, 2000x1500, in view): fits refined on the full
    frame from a square outline ran past the frame; noted as "cut off" (as the small frame's
    search notes it), they named the frame."""
    from piecebridge.errors import UserError
    from piecebridge.synth.card import split_photo

    photo, _ = split_photo("tune", index)
    with pytest.raises(UserError) as refused:
        find_board(photo)
    assert not isinstance(refused.value, BoardCutOff), str(refused.value)
