"""The lock check by tone (lock24, issue #4): a checkered board's look in the calibration photo
(``tonelock.tone_print``: each tile's checker orientation) tells, at a shot, a locked board in
place (a hand or pieces over some tiles) from one moved by a fraction of a cell, a cell or a tile
(``tonelock.in_place_by_tone``); the setup keeps it as an optional field; the reader keeps its
locked pose by it when the lock by lines (which sees no line on such a board) says "moved",
before any search from scratch (lock25: the search refused tune checkered rig 39's shots 1 and
3, a gingham cloth beside the board, and called every shot it found "moved")."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from piecebridge.calibration.board import BoardSetup
from piecebridge.calibration.geometry import CANONICAL_CORNERS
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import tonelock
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.reader import BoardReader
from vision_support import board_on_table

from piecebridge.errors import UserError
from piecebridge.synth.reflec import SHOTS_PER_RIG, Difficulty, calibration_sample, sample

MAPLE, WALNUT = 205, 80  # grey levels of the two tones
TABLE_BGR = (60, 110, 50)  # a green cloth
CELL = 48  # pixels per cell of the drawn board
CORNERS = np.float32([[300, 60], [700, 80], [730, 480], [270, 470]])


def _frame(board: np.ndarray, hand: bool = False) -> np.ndarray:
    """A 960x540 frame of a drawn 8x8 board (grey, 8 * CELL square) on a green table."""
    frame = board_on_table(board, CORNERS, TABLE_BGR)
    if hand:  # a skin-toned blob over the south-west tiles
        cv2.ellipse(frame, (330, 420), (90, 60), 20, 0, 360, (120, 150, 200), -1)
    rng = np.random.default_rng(4)
    noisy = frame.astype(np.float32) + rng.normal(0, 3, frame.shape)
    return cv2.GaussianBlur(np.clip(noisy, 0, 255).astype(np.uint8), (3, 3), 0.8)


def _checkered() -> np.ndarray:
    """Tiles (2x2 cells) of two tones, laid alternately one way and the other round."""
    cells = np.indices((8, 8)).sum(axis=0) % 2
    flip = np.kron(np.indices((4, 4)).sum(axis=0) % 2, np.ones((2, 2), int))
    board = np.kron(cells ^ flip, np.ones((CELL, CELL)))
    return np.where(board > 0, WALNUT, MAPLE).astype(np.uint8)


def _printed() -> np.ndarray:
    """One-tone tiles with printed dark lines between the cells."""
    board = np.full((8 * CELL, 8 * CELL), MAPLE, np.uint8)
    for k in range(9):
        cv2.line(board, (k * CELL, 0), (k * CELL, 8 * CELL), 40, 3)
        cv2.line(board, (0, k * CELL), (8 * CELL, k * CELL), 40, 3)
    return board


def _pose(dx: float = 0.0, dy: float = 0.0) -> BoardPose:
    """The drawn board's pose, moved by (dx, dy) cells on the board."""
    H = cv2.getPerspectiveTransform(np.float32(np.add(CANONICAL_CORNERS, (dx, dy))), CORNERS)
    return BoardPose(H.astype(np.float64))


@pytest.fixture(scope="module")
def printed():
    return tonelock.tone_print(_frame(_checkered()), _pose())


def test_a_checkered_board_records_each_tiles_orientation(printed):
    # tiles laid alternately either way round: the print says which
    want = [1 if (i + j) % 2 == 0 else -1 for j in range(4) for i in range(4)]
    assert printed["tiles"] == want
    assert printed["contrast"] > 0.8 * (MAPLE - WALNUT)


def test_a_board_with_printed_lines_gets_no_print():
    assert tonelock.tone_print(_frame(_printed()), _pose()) is None


@pytest.mark.parametrize("hand", [False, True])
def test_the_board_in_place_is_told_in_place(printed, hand):
    assert tonelock.in_place_by_tone(_frame(_checkered(), hand), _pose(), printed)


@pytest.mark.parametrize("dx, dy", [(0.3, 0), (0, -0.5), (1, 0), (0, 1), (2, 0), (0, -2)])
def test_a_board_moved_by_part_of_a_cell_a_cell_or_a_tile_is_not(printed, dx, dy):
    # the locked pose is where the board was; the frame shows it moved by (dx, dy) cells
    assert not tonelock.in_place_by_tone(_frame(_checkered()), _pose(dx, dy), printed)


def test_a_board_laid_all_one_way_moved_by_a_tile_is_not_in_place():
    # every tile alike: a tile's move shows the same orientations, the edges tell
    cells = np.indices((8, 8)).sum(axis=0) % 2
    board = np.where(np.kron(cells, np.ones((CELL, CELL))) > 0, WALNUT, MAPLE).astype(np.uint8)
    frame = _frame(board)
    alike = tonelock.tone_print(frame, _pose())
    assert alike is not None and len(set(alike["tiles"])) == 1
    assert tonelock.in_place_by_tone(frame, _pose(), alike)
    for dx, dy in ((2, 0), (-2, 0), (0, 2), (0, -2)):
        assert not tonelock.in_place_by_tone(frame, _pose(dx, dy), alike)


def _setup_json(tmp_path) -> dict:
    """A saved checkered setup's JSON (tune checkered rig 2's calibration)."""
    cal = calibration_sample("tune", 2, Difficulty.parse("realistic"), art="checkered")
    setup = learn_setup(cal.image)[0]
    assert setup.tone_print is not None
    setup.save(tmp_path / "s.json")
    return json.loads((tmp_path / "s.json").read_text())


def test_the_print_is_an_optional_field_of_the_setup(tmp_path):
    d = _setup_json(tmp_path)
    assert BoardSetup.load(tmp_path / "s.json").tone_print == d["tone_print"]
    del d["tone_print"]  # a setup written before it still loads
    (tmp_path / "old.json").write_text(json.dumps(d))
    assert BoardSetup.load(tmp_path / "old.json").tone_print is None
    d["tone_print"] = {"tiles": [2] * 16, "contrast": 100}
    (tmp_path / "bad.json").write_text(json.dumps(d))
    with pytest.raises(UserError, match="tone_print"):
        BoardSetup.load(tmp_path / "bad.json")


def test_a_checkered_shot_the_search_refuses_keeps_the_locked_board():
    # tune checkered rig 39 shot 1: the lock by lines says "moved" (no line), the search from
    # scratch refuses it (a gingham cloth's squares go on beside the board); the board lies
    # where the setup put it (0.08 cell)
    diff = Difficulty.parse("realistic")
    setup = learn_setup(calibration_sample("tune", 39, diff, art="checkered").image)[0]
    shot = sample("tune", 39 * SHOTS_PER_RIG + 1, diff, art="checkered")
    obs = BoardReader(setup=setup).read(shot.image)
    assert obs.pose is setup.pose or np.allclose(obs.pose.H, setup.pose.H)
    want = {(c["cell"], c["suit"]) for c in shot.truth["coins"]}
    got = {(c["cell"], c["suit"]) for c in obs.board["coins"]}
    unknown = set(obs.board.get("unknown", []))
    assert {w for w in want if w[0] not in unknown} <= got


def test_a_board_hidden_but_for_its_edge_rows_is_not_vouched_for(printed):
    # its edge rows still alternate in place, but no tile shows its checker: too little seen
    board = _checkered()
    board[CELL : 7 * CELL, CELL : 7 * CELL] = 150
    assert not tonelock.in_place_by_tone(_frame(board), _pose(), printed)


def test_a_board_with_a_tile_the_other_way_round_is_not_the_recorded_one(printed):
    board = _checkered()
    tile = board[2 * CELL : 4 * CELL, 2 * CELL : 4 * CELL]
    board[2 * CELL : 4 * CELL, 2 * CELL : 4 * CELL] = np.where(tile == MAPLE, WALNUT, MAPLE)
    assert not tonelock.in_place_by_tone(_frame(board), _pose(), printed)


@pytest.fixture(scope="module")
def rig_22() -> tuple[BoardSetup, np.ndarray]:
    """Tune checkered rig 22's setup and its shot 0 (index 88)."""
    diff = Difficulty.parse("realistic")
    setup = learn_setup(calibration_sample("tune", 22, diff, art="checkered").image)[0]
    return setup, sample("tune", 22 * SHOTS_PER_RIG, diff, art="checkered").image


def test_a_checkered_board_in_place_keeps_its_lock_and_is_not_called_moved(rig_22):
    # the lock by lines sees no line and says "moved"; the search from scratch would find the
    # board (0.03 cell from the setup's pose, 4 px at a corner) and report it moved
    setup, image = rig_22
    obs = BoardReader(setup=setup).read(image)
    assert not obs.moved and obs.fallback == ""
    assert np.allclose(obs.pose.H, setup.pose.H)


def test_a_checkered_board_moved_by_a_tile_is_sought_again(rig_22):
    setup, image = rig_22
    step = setup.pose.to_image(np.array([[2.5, 4.0]])) - setup.pose.to_image(np.array([[0.5, 4.0]]))
    centre = setup.pose.to_image(np.array([[4.0, 4.0]]))[0]
    toward = np.sign(np.array(image.shape[1::-1]) / 2 - centre)[0]  # keep the board in frame
    shift = np.float32([[1, 0, toward * abs(step[0, 0])], [0, 1, 0]])
    moved = cv2.warpAffine(image, shift, image.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    obs = BoardReader(setup=setup).read(moved)
    assert obs.moved
    off = obs.pose.to_image(np.array([[4.0, 4.0]]))[0] - centre
    assert abs(off[0] - shift[0, 2]) < 0.25 * abs(step[0, 0])
