"""The board finder on a grid shown by tone, no line (issue #4: inlaid, checkered tiles):
when the search by lines finds no board, the grid is sought by its steps in tone
(``locate._by_tone``: step maps for the crosses, the quadrants' corners for the outline)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.calibration.geometry import CANONICAL_CORNERS
from piecebridge.vision import locate
from vision_support import board_on_table

MAPLE, WALNUT = 205, 80  # grey levels of the two tones
TABLE_BGR = (60, 110, 50)  # a green cloth


#: Where :func:`_checkered_frame` lays the board in its 960x540 frame (tilted).
SMALL_CORNERS = ((300, 60), (700, 80), (730, 480), (270, 470))


def _checkered_frame(
    coins: bool = False,
    corners: tuple[tuple[int, int], ...] = SMALL_CORNERS,
    size: tuple[int, int] = (960, 540),
) -> tuple[np.ndarray, np.ndarray]:
    """A frame of ``size`` (width, height) holding an 8x8 board drawn by two tones only,
    laid on ``corners``, and those corners."""
    cell = 48
    board = np.kron((np.indices((8, 8)).sum(axis=0) % 2), np.ones((cell, cell)))
    board = np.where(board > 0, WALNUT, MAPLE).astype(np.uint8)
    if coins:  # dark discs with a light ring on a few cells, as pieces on the squares
        for cx, cy in ((0, 0), (3, 2), (5, 5), (6, 1), (2, 6), (7, 7)):
            centre = (int((cx + 0.5) * cell), int((cy + 0.5) * cell))
            cv2.circle(board, centre, int(0.4 * cell), 230, -1)
            cv2.circle(board, centre, int(0.33 * cell), 25, -1)
    corners = np.float32(corners)
    frame = board_on_table(board, corners, TABLE_BGR, size)
    rng = np.random.default_rng(4)
    noisy = frame.astype(np.float32) + rng.normal(0, 3, frame.shape)
    frame = cv2.GaussianBlur(np.clip(noisy, 0, 255).astype(np.uint8), (3, 3), 0.8)
    return frame, corners.astype(np.float64)


def _corner_error_cells(found: np.ndarray, truth: np.ndarray) -> float:
    cell = np.linalg.norm(np.roll(truth, -1, axis=0) - truth, axis=1).mean() / 8
    return (
        min(
            float(np.linalg.norm(np.roll(found, k, axis=0) - truth, axis=1).max()) for k in range(4)
        )
        / cell
    )


@pytest.mark.parametrize("coins", [False, True])
def test_a_board_drawn_by_tone_alone_is_found(coins):
    frame, truth = _checkered_frame(coins)
    pose = locate.find_board(frame)
    assert pose.crosses_found >= 12
    assert _corner_error_cells(pose.corners, truth) < 0.2


def test_the_search_by_lines_alone_finds_no_board_there(monkeypatch):
    # the fallback is what finds it: without it the frame is refused as before
    monkeypatch.setattr(locate, "TONE_AFTER", ())
    with pytest.raises(locate.BoardNotFound):
        locate.find_board(_checkered_frame()[0])


def test_the_quadrants_corners_outline_the_board_despite_pieces():
    frame, truth = _checkered_frame(coins=True)
    small, S = locate.downscale(frame)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    outlines = locate._saddle_outlines(grey)
    truth_small = cv2.perspectiveTransform(truth.reshape(-1, 1, 2), S).reshape(-1, 2)
    assert len(outlines) == 1
    assert _corner_error_cells(locate._order_quad(outlines[0]), truth_small) < 0.2


def test_a_step_map_has_a_ridge_on_a_step_and_the_black_hat_none():
    step = np.zeros((32, 32), np.uint8)
    step[:, 16:] = 200
    ridge = locate._ridge_map(step, 16)
    assert ridge[:, 4:28].max() == 0  # a step is no dark line
    token = locate._BY_TONE.set(True)
    try:
        steps = locate._ridge_map(step, 16)
    finally:
        locate._BY_TONE.reset(token)
    assert set(np.argmax(steps[4:28], axis=1).tolist()) <= {15, 16}


def test_a_board_of_lines_never_reaches_the_search_by_tone(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("searched by tone")

    monkeypatch.setattr(locate, "_by_tone", fail)
    assert locate.find_board(_lined_frame()[0]).crosses_found == 16  # found by its lines


def _lined_frame() -> tuple[np.ndarray, np.ndarray]:
    """A 960x540 frame of a board of dark lines on pale tiles (every cell side, one tone)."""
    frame = np.full((540, 960, 3), 200, np.uint8)
    corners = CANONICAL_CORNERS * 50 + (280, 70)
    for k in range(9):
        a, b = corners[0] + (50 * k, 0), corners[3] + (50 * k, 0)
        cv2.line(frame, tuple(map(int, a)), tuple(map(int, b)), (40, 40, 40), 2)
        a, b = corners[0] + (0, 50 * k), corners[1] + (0, 50 * k)
        cv2.line(frame, tuple(map(int, a)), tuple(map(int, b)), (40, 40, 40), 2)
    return frame, corners


def test_only_a_board_whose_tiles_show_by_tone_stands_when_found_by_tone():
    checkered, _ = _checkered_frame(coins=True)
    assert locate._tone_tiles(checkered, locate.find_board(checkered)) == 16
    lined, _ = _lined_frame()
    pose = locate.find_board(lined)
    assert locate._tone_tiles(lined, pose) == 0  # such a board, found by tone, is refused


def test_a_board_of_lines_found_by_tone_is_refused_as_the_lines_refused_it(monkeypatch):
    # the search by tone can fit a board of lines (each line is two steps) that the search
    # by lines refused as cut off (tune piecepackr and printplay rig 1 shot 0): it stays so
    lined, _ = _lined_frame()
    pose = locate.find_board(lined)
    checkered, _ = _checkered_frame()
    tone_pose = locate.find_board(checkered)
    monkeypatch.setattr(locate, "_find_board_checked", lambda *args: pose)
    refusal = locate.BoardCutOff("cut off")
    with pytest.raises(locate.BoardCutOff) as raised:
        locate._by_tone(lined, None, None, False, refusal)
    assert raised.value is refusal
    monkeypatch.setattr(locate, "_find_board_checked", lambda *args: tone_pose)
    assert locate._by_tone(checkered, None, None, False, refusal) is tone_pose  # tiles by tone


def test_a_frame_without_a_tone_grids_corners_is_not_searched_by_tone(monkeypatch):
    # the usual search by tone costs a frame without a board three times its refusal:
    # it runs only where the small frame shows a lattice of corners (a thorough one always)
    calls = []
    search = locate._find_board_checked
    monkeypatch.setattr(locate, "_find_board_checked", lambda *a: calls.append(1) or search(*a))
    table = np.full((540, 960, 3), 120, np.uint8)
    with pytest.raises(locate.BoardNotFound):
        locate.find_board(table)
    assert len(calls) == 1  # the search by lines only
    assert locate._saddles_seen(_checkered_frame()[0])
