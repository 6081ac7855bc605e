"""Calibration round 17: a calibration photo whose grid is right is not refused as "a cell
off" where the board a cell over would take in a clearly non-tile table
(``learn._onto_table``, ``TABLE_FAR``), and a board found a cell off with no layout on it is
moved onto the layout (``learn._a_cell_over``). Tune printplay calibration photos of rigs 30
and 185, rendered from their seeds; tune acrylic rig 3's, its right grid moved a cell west,
must still be refused."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from piecebridge.calibration.geometry import N
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import learn
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.locate import find_board, shifted_pose

from piecebridge.synth.reflec import Difficulty, calibration_sample

S = 40  # pixels per cell of the synthetic board
TILE, DARK_WOOD, PALE_TABLE = (215, 222, 228), (40, 70, 110), (200, 212, 222)


def _board_on(table: tuple[int, int, int]) -> tuple[np.ndarray, BoardPose]:
    """An 8x8 board of plain pale card (cells S pixels) with 4 cells of ``table`` around,
    and its pose."""
    photo = np.zeros((16 * S, 16 * S, 3), np.uint8)
    photo[:] = table
    photo[4 * S : 12 * S, 4 * S : 12 * S] = TILE
    return photo, BoardPose(np.array([[S, 0.0, 4 * S], [0.0, S, 4 * S], [0.0, 0.0, 1.0]]))


def test_a_line_beside_the_board_is_clear_table_only_far_from_the_tiles_colour():
    """Dark wood beside the board is clearly table on every side (not the board's own
    cells); a pale table near the tiles' colour is not."""
    photo, pose = _board_on(DARK_WOOD)
    table = learn._clear_table(photo, pose)
    inside = np.zeros(table.shape, bool)
    inside[learn.RING : learn.RING + N, learn.RING : learn.RING + N] = True
    assert not table[inside].any()
    assert table[learn.RING : learn.RING + N, -1].all() and table[0, learn.RING : -learn.RING].all()
    photo, pose = _board_on(PALE_TABLE)
    assert not learn._clear_table(photo, pose).any()


def _corners_off(setup, truth: dict) -> float:
    """The largest distance (cells) of the setup's board corners from the true ones."""
    want = np.array(truth["synth"]["board_corners_px"], float)
    got = setup.pose.to_image(np.array([[0, 0], [N, 0], [N, N], [0, N]], float))
    cell = np.linalg.norm(want[1] - want[0]) / N
    return float(np.linalg.norm(got - want, axis=1).max() / cell)


def _printplay(rig: int):
    return calibration_sample("tune", rig, Difficulty.parse("realistic"), art="printplay")


def test_a_right_grid_is_not_refused_where_the_board_a_cell_over_would_take_in_table():
    """Tune printplay rig 30 (about 2 s): its pawns lean into column h, so the layout a
    cell east fit its busy cells as well and the photo was refused as "a cell off"; the
    board a cell east would take in a column of dark wood. Learned, its corners lie within
    a fifth of a cell of the true ones and the layout reads back whole."""
    cal = _printplay(30)
    setup, report = learn_setup(cal.image)
    assert _corners_off(setup, cal.truth) < 0.2
    assert report["read_back"] == 28


def test_a_grid_found_a_cell_off_with_no_layout_on_it_is_moved_onto_the_layout():
    """Tune printplay rig 185 (about 4 s): before localisation round 17 the grid found took
    a row of white gingham in and left the sun coins out (a cell north: no layout in any
    turn, refused). The board finder now finds it in place; given that grid a cell north,
    as it was, :func:`learn._a_cell_over` moves it a cell south onto the layout and learns
    it with its corners within a fifth of a cell."""
    cal = _printplay(185)
    setup, report = learn_setup(cal.image)
    assert _corners_off(setup, cal.truth) < 0.2 and "moved_cells" not in report
    found = find_board(cal.image, thorough=True)
    with pytest.raises(learn.LayoutNotSeen):
        learn._learn_from(cal.image, shifted_pose(found, 0, -1))
    setup, report = learn._a_cell_over(cal.image, shifted_pose(found, 0, -1))
    assert report["moved_cells"] == [0, 1]
    assert _corners_off(setup, cal.truth) < 0.2
    assert report["read_back"] == 28


@pytest.fixture(scope="module")
def acrylic3() -> np.ndarray:
    """Tune acrylic calibration photo of rig 3 (rendered, about 2 s)."""
    return calibration_sample("tune", 3, Difficulty.parse("realistic"), art="acrylic").image


@pytest.mark.parametrize("sx, sy", [(-1, 0), (-2, 0)])
def test_a_grid_a_cell_or_a_tile_off_is_still_refused_where_the_board_edge_looks_less_tile(
    acrylic3: np.ndarray, sx: int, sy: int
):
    """Tune acrylic rig 3's calibration photo (about 2 s), its right grid moved a cell and a
    tile west: the board's own east column, beyond the moved grid, lies 20.6 from the tiles'
    colour (more than ``TILE_LIKE``), but is no clear table, so the layout a cell east still
    refuses it."""
    photo = acrylic3
    _, pose, _, _ = learn._layout_turn(photo, find_board(photo, thorough=True))
    assert learn._cell_off(photo, pose) is None
    T = np.array([[1.0, 0.0, sx], [0.0, 1.0, sy], [0.0, 0.0, 1.0]])
    moved = replace(pose, H=pose.H @ T, tile_offsets=np.zeros((16, 2)), tile_angles=np.zeros(16))
    assert learn._cell_off(photo, moved) is not None


def _fake_moves(monkeypatch, crosses: dict, passes: set) -> BoardPose:
    """``learn._refit_moved`` and ``learn._learn_from`` stubbed: a move (sx, sy) fits
    ``crosses[(sx, sy)]`` crosses (12 unless said), and is learned when in ``passes``."""
    found = BoardPose(np.array([[S, 0.0, 4 * S], [0.0, S, 4 * S], [0.0, 0.0, 1.0]]))

    def refit(gray, pose, sx, sy):
        moved = replace(pose, H=pose.H @ np.array([[1, 0, sx], [0, 1, sy], [0, 0, 1.0]]))
        moved.crosses_found = crosses.get((sx, sy), 12)
        return moved

    def learn_from(frame, pose, doubt=None, camera_calibration=None):
        at = tuple(np.round((pose.H[:2, 2] - found.H[:2, 2]) / S).astype(int).tolist())
        if at not in passes:
            raise learn.LayoutNotSeen("no layout")
        return pose, {}

    monkeypatch.setattr(learn, "_refit_moved", refit)
    monkeypatch.setattr(learn, "_learn_from", learn_from)
    monkeypatch.setattr(learn, "check_in_frame", lambda pose, shape: None)
    return found


def test_a_board_is_moved_onto_the_layout_only_where_one_move_alone_passes(monkeypatch):
    """One move passing: taken, and said; two passing: neither (which is the board?);
    the one passing fitting fewer crosses than the grid found fitted alike: not taken."""
    photo = np.zeros((16 * S, 16 * S, 3), np.uint8)
    found = _fake_moves(monkeypatch, {}, {(0, 1)})
    assert learn._a_cell_over(photo, found)[1]["moved_cells"] == [0, 1]
    found = _fake_moves(monkeypatch, {}, {(0, 1), (1, 0)})
    assert learn._a_cell_over(photo, found) is None
    found = _fake_moves(monkeypatch, {(0, 0): 13}, {(0, 1)})
    assert learn._a_cell_over(photo, found) is None
