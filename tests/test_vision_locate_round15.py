"""Localisation round 15: a photo that cuts through the board says "cut off".

A crop of a tune photo to a corner or a side of the board (0.45-0.75 of it in view) was
found as a board: a grid inside the board's part in view (often of half the cells' size), or
the part in view with table beside it fitted as a whole; read with the rig's setup, the
locked pose stood on the part in view. Synthetic crops stand in for them here; the grid a
search would fit is given (``_search`` monkeypatched), so that each rule is what decides.
"""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import locate
from piecebridge.vision.locate import BoardCutOff, find_board
from piecebridge.vision.reader import BoardReader

S = 40  # pixels per cell of the synthetic boards
TILE, TABLE, LINE = (170, 200, 215), (60, 70, 80), 40


def _photo(h: int, w: int, board: tuple[int, int, int, int]) -> np.ndarray:
    """A dark table ``h`` x ``w`` with tile-coloured cells lined every ``S`` pixels over
    ``board`` (x0, y0, x1, y1; past the frame where it runs out), a camera's noise."""
    x0, y0, x1, y1 = board
    photo = np.full((h, w, 3), TABLE, np.float64)
    xa, ya = max(x0, 0), max(y0, 0)
    photo[ya:y1, xa:x1] = TILE
    for x in range(x0 + S, x1, S):
        photo[ya:y1, max(x - 1, 0) : max(x + 1, 0)] = LINE
    for y in range(y0 + S, y1, S):
        photo[max(y - 1, 0) : max(y + 1, 0), xa:x1] = LINE
    noise = np.random.default_rng(0).normal(0, 3, photo.shape)
    return np.clip(photo + noise, 0, 255).astype(np.uint8)


def _grid(x0: float, y0: float, cell: float, crosses: int) -> BoardPose:
    pose = BoardPose(np.array([[cell, 0.0, x0], [0.0, cell, y0], [0.0, 0.0, 1.0]]))
    pose.crosses_found = crosses
    return pose


def _found(monkeypatch: pytest.MonkeyPatch, photo: np.ndarray, pose: BoardPose) -> BoardPose:
    """:func:`find_board` of ``photo`` with its search finding ``pose``."""
    monkeypatch.setattr(locate, "_search", lambda *args: pose)
    return find_board(photo)


def test_a_grid_of_half_cells_inside_a_board_running_out_of_the_frame_is_cut_off(
    monkeypatch: pytest.MonkeyPatch,
):
    """The known case: a grid of half the cells' size over 2x2 tiles of a board whose north
    part lies past the frame's top, 1.5 cells (3 of the grid's) away. Every other line of
    the grid runs on (3 of 7 beyond north: not "the lines run past the frame"); the colour
    does, and the board's next row shows a cell out. The base took it for a printed grid."""
    photo = _photo(16 * S, 12 * S, (2 * S, -4 * S, 10 * S, 8 * S))
    pose = _grid(4 * S, 1.5 * S, S / 2, 15)
    with pytest.raises(BoardCutOff):
        _found(monkeypatch, photo, pose)


def test_the_part_in_view_with_table_beside_it_is_cut_off(monkeypatch: pytest.MonkeyPatch):
    """The frame's west edge cuts the board; the grid fitted takes in the four columns in
    view and four of table east of them: its east row of tiles shows no line and the
    table's colour inside and out, its west side lies at the frame's edge (its east side
    over four cells from the other edge: the table there is no board going on)."""
    photo = _photo(11 * S, 13 * S, (-4 * S, 60, 4 * S, 380))
    pose = _grid(0.0, 1.5 * S, S, 8)
    with pytest.raises(BoardCutOff):
        _found(monkeypatch, photo, pose)


def test_a_row_of_table_far_from_the_frame_edge_across_is_a_board_under_a_hand(
    monkeypatch: pytest.MonkeyPatch,
):
    """The same grid with two cells of table between its west side and the frame's edge:
    a board in view whose east row a hand (of the table's colour) hides is still found."""
    photo = _photo(11 * S, 15 * S, (-2 * S, 60, 6 * S, 380))
    photo[:, : 2 * S] = photo[:, 13 * S :]  # table west of the grid, not board
    pose = _grid(2 * S, 1.5 * S, S, 8)
    assert _found(monkeypatch, photo, pose) is pose


def test_a_bare_arm_out_to_the_frame_edge_is_no_board_going_on(monkeypatch: pytest.MonkeyPatch):
    """A board in view, an arm of the tiles' colour from its south side out to the frame's
    bottom under a cell away (tune mixed rig 0 shot 0: a hand, 1.5 cells): no line goes on."""
    photo = _photo(416, 12 * S, (2 * S, 60, 10 * S, 380))
    photo[int(7.5 * S) :, 4 * S : 8 * S] = TILE
    pose = _grid(2 * S, 1.5 * S, S, 12)
    assert _found(monkeypatch, photo, pose) is pose


def test_a_locked_board_that_leaves_the_frame_is_cut_off():
    """With a locked pose (a setup's), a frame that cuts the board off was read: the part in
    view sat where the lock put it, crosses and edges in place."""
    photo = _photo(11 * S, 12 * S, (2 * S, 60, 10 * S, 380))
    reader = BoardReader()
    reader.read(photo)  # found and locked
    with pytest.raises(BoardCutOff):
        reader.read(np.ascontiguousarray(photo[: int(7.5 * S)]))  # the south two rows cut off
    assert reader.read(photo).crosses_visible >= 12  # back in view: read again


def test_a_board_near_the_frame_edge_with_a_bare_row_on_a_table_alike_is_found(
    monkeypatch: pytest.MonkeyPatch,
):
    """A board in view, its north side 0.8 of a cell from the frame's top with table there
    (no line goes on), its south row of tiles' printed lines too faint to show and the table below
    of the tiles' colour (printplay tune 73/0 and 86/1: pale card on pale laminate, "cut
    off" at first): a row of table needs the board running on across from it."""
    y0 = int(0.8 * S)
    photo = _photo(12 * S, 12 * S, (2 * S, y0, 10 * S, y0 + 8 * S))
    photo[y0 + 6 * S + 2 :, 2 * S : 10 * S] = TILE  # the south row of tiles' lines unseen
    photo[y0 + 8 * S :] = TILE  # and the table below alike
    pose = _grid(2 * S, y0, S, 12)
    assert _found(monkeypatch, photo, pose) is pose
