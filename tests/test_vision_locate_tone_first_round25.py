"""Speed round 25 (issue #4): a board by tone is sought by tone as soon as grey's search by
lines finds none and the frame's corners outline tiles by tone (``locate._tone_first``),
before the darkest channel's and the tiles' searches, which never find such a board and
took three quarters of a checkered board's search from scratch (``--speed --art
checkered``: 173 -> 92 ms CPU). The board found is the one the old order found."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.vision import locate
from test_vision_locate_round13 import _chessboard_on_a_wall
from test_vision_locate_tone import _checkered_frame as checkered_frame
from test_vision_locate_tone import _corner_error_cells, _lined_frame


def _checkered_frame(coins: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``test_vision_locate_tone``'s two-tone board at a camera's size (1920x1080) with table
    all round, where grey's search by lines says "no grid" (as on the tune shots), not "cut
    off"; and its corners."""
    corners = ((600, 160), (1300, 190), (1340, 900), (560, 880))
    return checkered_frame(coins, corners, (1920, 1080))


def test_grey_finds_no_grid_there():
    # the frames below reach the point where the search by tone may go ahead
    token = locate._MEMO.set({})
    try:
        with pytest.raises(locate.BoardNotFound) as refused:
            locate._find_board(_checkered_frame()[0])
    finally:
        locate._MEMO.reset(token)
    assert type(refused.value) is locate.BoardNotFound


def _never(*args, **kwargs):
    raise AssertionError("searched")


@pytest.mark.parametrize("coins", [False, True])
def test_a_board_by_tone_is_found_before_the_darkest_channel_and_the_tiles(monkeypatch, coins):
    frame, truth = _checkered_frame(coins)
    monkeypatch.setattr(locate, "_best_other", _never)
    pose = locate.find_board(frame)
    assert pose.crosses_found >= 12
    assert _corner_error_cells(pose.corners, truth) < 0.2


@pytest.mark.parametrize("coins", [False, True])
def test_the_board_found_ahead_is_the_one_found_after_every_search_by_lines(monkeypatch, coins):
    frame, _ = _checkered_frame(coins)
    ahead = locate.find_board(frame)
    monkeypatch.setattr(locate, "_tiles_by_tone_seen", lambda bgr: False)  # the old order
    after = locate.find_board(frame)
    assert np.array_equal(ahead.corners, after.corners)
    assert ahead.crosses_found == after.crosses_found


def test_a_frame_searched_by_tone_ahead_and_refused_is_not_searched_by_tone_again(
    monkeypatch,
):
    # a camera chessboard: its corners outline tiles by tone, the search by tone refuses it
    # (a part of a larger checker), the lines go on and refuse it: one search by tone
    calls, others = [], []
    search, best_other = locate._search_by_tone, locate._best_other
    monkeypatch.setattr(locate, "_search_by_tone", lambda *a: calls.append(a[3]) or search(*a))
    monkeypatch.setattr(
        locate, "_best_other", lambda *a, **k: others.append(1) or best_other(*a, **k)
    )
    with pytest.raises(locate.BoardNotFound) as refused:
        locate.find_board(_chessboard_on_a_wall(square=40))
    assert type(refused.value) is locate.BoardNotFound  # in TONE_AFTER: _by_tone asked too
    assert calls == [False]
    assert others == [1]  # the search by lines went on as before


def _outline_small(frame: np.ndarray, corners: np.ndarray) -> list[np.ndarray]:
    """The board's true outline on ``frame``'s small frame, as a list of outlines."""
    _, S = locate.downscale(frame)
    return [cv2.perspectiveTransform(corners.reshape(-1, 1, 2), S).reshape(-1, 2)]


def test_only_an_outline_over_tiles_by_tone_sends_the_search_by_tone_ahead(monkeypatch):
    # a board of lines shows saddles where its lines cross (tune acrylic): its tiles are of
    # one tone, and the search by tone, which would find no board there, is not run ahead
    lined, lined_corners = _lined_frame()
    checkered, checkered_corners = _checkered_frame(coins=True)
    outlines = {
        id(lined): _outline_small(lined, lined_corners.astype(np.float64)),
        id(checkered): _outline_small(checkered, checkered_corners),
    }
    monkeypatch.setattr(locate, "_frame_saddle_outlines", lambda bgr: outlines[id(bgr)])
    assert locate._saddles_seen(lined)
    assert not locate._tiles_by_tone_seen(lined)
    assert locate._tiles_by_tone_seen(checkered)


def test_a_thorough_search_is_not_searched_by_tone_ahead(monkeypatch):
    # a calibration photo's search is thorough: its order is as it was
    calls = []
    search = locate._search_by_tone
    monkeypatch.setattr(locate, "_search_by_tone", lambda *a: calls.append(a[3]) or search(*a))
    locate.find_board(_checkered_frame()[0], thorough=True)
    assert calls == [True]
