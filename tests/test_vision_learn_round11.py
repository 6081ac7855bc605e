"""Calibration round 11: the reviewer's surviving mutations in ``vision/learn.py`` (which
cells around the board count as tile, ``TILE_LIKE``; the fewest crosses a grid in doubt
may have to be told by its layout, ``FIT_CROSSES``; a placement putting a piece off the
board cannot fit), and the upper bound of a plain tile pixel's lightness (``cells``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from piecebridge.calibration.board import calibration_layout
from piecebridge.calibration.geometry import N
from piecebridge.calibration.looks import SUITS
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import learn, locate
from piecebridge.vision.cells import CHROMA_WEIGHT, BoardRefs, CellDecision, tile_pixels
from piecebridge.vision.locate import FewCrosses, find_board
from piecebridge.vision.raster import CELL_ORDER
from vision_support import setup_off_by

from piecebridge.errors import UserError
from piecebridge.synth.reflec import Difficulty, calibration_sample

LOCATE = Path(__file__).resolve().parents[1] / "fixtures" / "images" / "locate"

#: The synthetic board: pixels per cell and where its north-west corner lies.
S, X0 = 40, 160
TILE_LAB = np.array([200.0, 128.0, 150.0])  # a cream tile (OpenCV's 8-bit Lab)


def _lab_to_bgr(lab: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[np.clip(lab, 0, 255)]]), cv2.COLOR_LAB2BGR)[0, 0]


def _distance(bgr: np.ndarray, other: np.ndarray) -> float:
    """Distance as ``_busy_map`` measures it (Lab, chroma weighted, lightness at half)."""
    lab = cv2.cvtColor(np.uint8([[bgr, other]]), cv2.COLOR_BGR2LAB)[0].astype(float)
    d = (lab[0] - lab[1]) * [0.5, CHROMA_WEIGHT, CHROMA_WEIGHT]
    return float(np.linalg.norm(d))


def _board_photo(table_lab: np.ndarray) -> tuple[np.ndarray, BoardPose]:
    """A plain tile-coloured board (8x8 cells of S px) on a plain table, and its pose."""
    size = 2 * X0 + N * S
    photo = np.empty((size, size, 3), np.uint8)
    photo[:] = _lab_to_bgr(table_lab)
    photo[X0 : X0 + N * S, X0 : X0 + N * S] = _lab_to_bgr(TILE_LAB)
    pose = BoardPose(np.array([[S, 0.0, X0], [0.0, S, X0], [0.0, 0.0, 1.0]]))
    return photo, pose


@pytest.mark.parametrize(
    "table_b, board",
    [(150 + 16 / CHROMA_WEIGHT, True), (150 + 30 / CHROMA_WEIGHT, False)],
    ids=["tile-like", "table"],
)
def test_cells_around_the_board_count_as_board_only_in_the_tile_colour(table_b, board):
    """``_busy_map`` takes a cell around the board as board when its corners show the
    tile's colour (TILE_LIKE): tune tiles' cells differ from the board's typical colour by
    2-16, tables by 35-45 (round 10). A table 30 away is no board, a cell 16 away is (a
    bound moved outside that range fails one of the two)."""
    photo, pose = _board_photo(np.array([200.0, 128.0, table_b]))
    far = _distance(photo[0, 0], photo[X0 + 1, X0 + 1])
    assert (far < 20) == board  # the colours are what the test says they are
    _, counted = learn._busy_map(photo, pose)
    inside = np.zeros_like(counted)
    inside[learn.RING : learn.RING + N, learn.RING : learn.RING + N] = True
    assert counted[inside].all()
    assert (counted[~inside] == board).all()


def _layout_busy(pieces: float) -> tuple[np.ndarray, np.ndarray]:
    """A busy map of the layout in place (busy ``pieces`` over the empty cells' 0.05) with a
    checked cloth west and south of the board, and the board's cells."""
    occ = np.array([c in calibration_layout() for c in CELL_ORDER]).reshape(N, N)
    busy = np.pad(np.where(occ, pieces, 0.05), learn.RING, constant_values=3.0)
    board = np.zeros(busy.shape, bool)
    board[learn.RING : learn.RING + N, learn.RING : learn.RING + N] = True
    return busy, board


#: The placements of CELL_SHIFTS that put some of the layout's pieces (columns a-g, rows
#: 1-4) off the board.
OFF_BOARD = {(-1, 0): "a cell west", (-2, 0): "a tile west", (0, 1): "a cell south"}


def test_a_placement_putting_a_piece_off_the_board_cannot_fit():
    """Pieces stand on tiles: the layout moved so that some of its pieces fall beyond the
    board's cells does not fit at all (-inf), however busy the table there."""
    busy, board = _layout_busy(pieces=1.0)
    assert learn._placement_fit(busy, 0, 0, board) > 0
    for sx, sy in OFF_BOARD:
        assert learn._placement_fit(busy, sx, sy, board) == -np.inf
    assert learn._placement_fit(busy, 1, 0, board) > -np.inf  # column h is board


def test_the_cell_off_check_never_names_a_placement_off_the_board(monkeypatch):
    """Even where the layout in place fits no better than the empty cells (glare washing it
    out), a placement that would put pieces on the table is not named: the check refuses a
    photo only for a placement on the board fitting as well."""
    busy, board = _layout_busy(pieces=0.0)
    assert learn._placement_fit(busy, 0, 0, board) < 0
    monkeypatch.setattr(learn, "_busy_map", lambda *a: (busy, board))
    monkeypatch.setattr(learn, "CELL_SHIFTS", OFF_BOARD)
    assert learn._cell_off(None, None) is None


@pytest.fixture(scope="module")
def r316() -> tuple[np.ndarray, BoardPose]:
    """Tune acrylic calibration photo of rig 316 and the board found in it (in place)."""
    photo = cv2.imread(str(LOCATE / "acrylic_tune_r316_cal.jpg"))
    return photo, find_board(photo, thorough=True)


@pytest.mark.parametrize("crosses", [5, 6])
def test_a_grid_in_doubt_is_told_by_its_layout_from_six_crosses(monkeypatch, r316, crosses):
    """A grid fitted on the full frame from 6 crosses or more (``FIT_CROSSES``: the least
    ``fit_pose`` fits from; tune acrylic glare=1 rig 7 calibrates with 7) goes on to the
    layout's pieces; with fewer, the pose is the small frame's outline alone, and the
    search's refusal stands unless the board of whole tiles reads the whole layout back
    (round 20, ``learn._learn_by_tiles``: here it lies in place)."""
    photo, found = r316
    pose = replace(found, crosses_found=crosses, tile_offsets=found.tile_offsets.copy())

    def doubt(*_a, **_k):
        raise FewCrosses("few crosses", pose)

    monkeypatch.setattr(learn, "find_board", doubt)
    if crosses < 6:
        _, report = learn.learn_setup(photo)
        assert report["found_by_tiles"]
        monkeypatch.setattr(learn, "board_by_tiles", lambda frame: None)
        monkeypatch.setattr(learn, "boards_by_colour", lambda frame: [])  # round 61's
        with pytest.raises(FewCrosses):
            learn.learn_setup(photo)
    else:
        _, report = learn.learn_setup(photo)
        assert report["read_back"] >= learn.MIN_READ_BACK


def test_a_pixel_much_lighter_than_the_tile_is_not_plain_tile():
    """``tile_pixels``: the tile lit a little more than the typical cell (uneven light,
    1.1 times) is plain tile; a neutral patch a quarter lighter is not (a white glove or a
    sheet over a cream tile, glare on a coin): it is something over the tile, whose colour
    merely comes close to the tile's once scaled to its lightness."""
    refs = BoardRefs(np.array([128.0, 150.0]), 1.0, 1.0, 180.0)
    lit = np.array([[[1.1 * 180.0, 0.0, 0.0], [1.25 * 180.0, 0.0, 0.0]]])
    assert tile_pixels(lit, refs).tolist() == [[True, False]]


def _lined_board(width: int) -> tuple[np.ndarray, BoardPose]:
    """A tile-coloured board with dark lines at every cell's edge on a dark table, in a
    frame ``width`` pixels wide (the board's east side flush with it at X0 + N S)."""
    photo, pose = _board_photo(np.array([60.0, 128.0, 128.0]))
    for k in range(1, N):
        photo[X0 : X0 + N * S, X0 + k * S - 1 : X0 + k * S + 1] = 40
        photo[X0 + k * S - 1 : X0 + k * S + 1, X0 : X0 + N * S] = 40
    return photo[:, :width].copy(), pose


def test_a_side_at_the_frame_edge_shows_no_tiles_beyond_it():
    """``_tiles_beyond`` (a board side with tile colour beyond it: tiles left out of a grid
    a tile off) counts only sides whose strip beyond lies in the frame: past the frame the
    rectification repeats the photo's edge, and a board reaching the edge showed its own
    tiles repeated beyond that side, as if the grid had left a column of tiles out."""
    photo, pose = _lined_board(X0 + N * S)  # the east side flush with the frame
    rect = pose.rectify(photo, locate.ONE_TILE_PX, 0.5)
    beyond = locate._tiles_beyond(rect, locate.ONE_TILE_PX, 0.5)
    assert beyond.tolist() == [False, True, False, False]  # east: the edge repeated
    assert locate._sides_seen(pose, photo.shape).tolist() == [True, False, True, True]
    assert locate._tiles_beyond_at(photo, pose, locate.ONE_TILE_PX) == 0
    whole, _ = _lined_board(2 * X0 + N * S)
    assert locate._sides_seen(pose, whole.shape).all()
    assert locate._tiles_beyond_at(whole, pose, locate.ONE_TILE_PX) == 0


def test_a_coin_laid_off_its_cell_middle_is_read_back_by_its_face():
    """Tune acrylic calibration photo of rig 49: the moons coin on e2 lies nearly half a
    cell west of its cell's middle. In its cell's window it reads as a dark piece at the
    window's edge, as the moons pawn leaning away does: the read-back took it for that
    pawn and missed it (27 of 28; such misses, with glare's, are what refuses a photo). Cut
    out where its rim is, its face is a moons coin's: read back 28."""
    shot = calibration_sample("tune", 49, Difficulty.realistic(), art="acrylic")
    _, report = learn.learn_setup(shot.image)
    assert report["read_back"] == 28
    assert report["read_by_face"] >= 1


def _agree_at(photo: np.ndarray, pose: BoardPose, sx: int) -> dict[str, bool]:
    """``_faces_agree`` with the grid at ``pose`` moved ``sx`` cells east."""
    moved = replace(pose, H=pose.H @ np.array([[1.0, 0, sx], [0, 1.0, 0], [0, 0, 1.0]]))
    moved.tile_offsets = pose.tile_offsets.copy()
    _, views, _ = learn._views_and_ratios(photo, moved)
    centres = {}
    for suit in SUITS:
        cells = [c for c, (k, s) in calibration_layout().items() if k == "coin" and s == suit]
        centres[suit] = learn._coin_looks(views, [CELL_ORDER.index(c) for c in cells])[2]
    return learn._faces_agree(views, centres)


def test_a_grid_a_column_off_reads_no_coin_by_its_face(r316):
    """With the grid a column east the layout's f column falls on the pawns, and a column
    west, its a column on the table beside the board: every suit's six then hold a piece
    without its coins' face, and no coin counts by its face (the other five are coins
    whose looks that grid spoilt: counted, they let it pass the read-back). In place, every
    suit's coins do."""
    photo, found = r316
    _, pose, _, _ = learn._layout_turn(photo, found)
    assert all(_agree_at(photo, pose, 0).values())
    assert not any(_agree_at(photo, pose, 1).values())
    assert not any(_agree_at(photo, pose, -1).values())


def test_coins_lying_off_their_cells_as_one_are_not_read_by_their_faces():
    """Tune acrylic calibration photo of rig 66 at the steepest tilt: the grid's two south
    rows of tiles were fitted 0.3-0.44 cell off, and the suns and moons coins lie that far
    off their cells' middles, all six alike. The cell reading misses six of them; their
    faces are their suits' all the same, but it is the grid that is off there, not the
    coins (FACE_GRID_OFF): the photo is refused, not learned with that grid."""
    shot = calibration_sample("tune", 66, Difficulty.parse("tilt=1"), art="acrylic")
    with pytest.raises(UserError, match="does not read back"):
        learn.learn_setup(shot.image)


def test_the_lattice_parity_does_not_move_a_board_onto_fewer_crosses():
    """Tune acrylic calibration photo of rig 834 (pale tiles with white lines on a pale
    laminate, glare over the west half): the board's full-frame fit was in place with all
    16 crosses, and the lattice parity, telling the white lines from the tile gaps by
    colour, moved it a cell north, where it fits 10 (a line meeting a tile gap): the photo
    was refused as not showing the layout. A move onto fewer crosses is not made."""
    shot = calibration_sample("tune", 834, Difficulty.realistic(), art="acrylic")
    setup, report = learn.learn_setup(shot.image)
    assert setup_off_by(setup, shot.truth) < 0.2
    assert report["crosses_found"] == 16
    assert report["read_back"] == 28


@pytest.mark.parametrize(
    ("here", "moved", "made"), [(12, 11, False), (12, 12, True), (12, 13, True), (None, 6, True)]
)
def test_the_parity_move_needs_no_fewer_crosses_than_in_place(monkeypatch, here, moved, made):
    # The rule's boundary: as many crosses moved as in place is a move made (the parity
    # decides then); one fewer is not; no fit in place leaves the parity to decide.
    fitted = None if here is None else SimpleNamespace(crosses_found=here)
    monkeypatch.setattr(locate, "refine_pose", lambda *a, **k: fitted)
    pose = SimpleNamespace(crosses_found=moved)
    assert locate._no_fewer_crosses(None, None, pose, 40, None) is made


def _read_back_with_faces(monkeypatch, size: tuple[int, int], own: bool) -> learn.ReadBack:
    """learn's read-back of the layout with every coin missed by the cell reading (left
    unknown, its best look a pawn: its own suit's if ``own``, else the next suit's) and
    every suit's faces agreeing, on a board of S px cells at X0 in a frame of ``size``."""
    layout = calibration_layout()
    decisions = []
    for cell in CELL_ORDER:
        want = layout.get(cell)
        if want is None:
            decisions.append(CellDecision(cell, "empty", best=("coin", "suns"), similarity=0.3))
        elif want[0] == "coin":
            suit = want[1] if own else SUITS[(SUITS.index(want[1]) + 1) % len(SUITS)]
            decisions.append(CellDecision(cell, "unknown", best=("pawn", suit), similarity=0.8))
        else:
            decisions.append(CellDecision(cell, "pawn", want[1], best=want, similarity=0.95))
    monkeypatch.setattr(learn, "measure", lambda *a, **k: None)
    monkeypatch.setattr(learn, "decide_all", lambda *a, **k: decisions)
    monkeypatch.setattr(learn, "_faces_agree", lambda *a: dict.fromkeys(layout, True))
    looks = SimpleNamespace(min_similarity=0.7)
    monkeypatch.setattr(learn.PieceLooks, "of", staticmethod(lambda _: looks))
    pose = BoardPose(np.array([[S, 0.0, X0], [0.0, S, X0], [0.0, 0.0, 1.0]]))
    setup = SimpleNamespace(looks=looks, pose=pose, image_size=size)
    return learn._read_back(None, setup, centres={})


def test_only_coins_in_the_frame_taken_for_their_own_suit_count_by_their_faces(monkeypatch):
    """A coin counts by its face only where the cell reading took it for a piece of its own
    suit (its pawn: the class the face check is for), and only where its cell's middle lies
    in the frame: past the frame the rectification repeats the photo's edge alike in every
    cell, which then agree as faces (tune piecepackr calibration photo of rig 39 with the
    grid a tile south: two rows of it read back by their "faces")."""
    whole = (2 * X0 + N * S, 2 * X0 + N * S)
    back = _read_back_with_faces(monkeypatch, whole, own=True)
    assert (back.matched, back.by_face) == (28, 24)
    cut = (2 * X0 + N * S, X0 + 6 * S + S // 4)  # rows 1 and 2 (the south ones) past it
    back = _read_back_with_faces(monkeypatch, cut, own=True)
    assert (back.matched, back.by_face) == (16, 12)
    back = _read_back_with_faces(monkeypatch, whole, own=False)
    assert (back.matched, back.by_face) == (4, 0)


def test_a_grid_a_cell_off_beside_a_glared_side_is_refused(monkeypatch):
    """Tune acrylic calibration photo of rig 2 at glare 0.7, the grid found a cell east:
    its setup read the layout back 21 of 28 with glare's allowance and was learned without
    a word. Glare over the west side lifts the real first column's corners 44 in
    lightness, off the typical tile's colour, so that line did not count as board and the
    layout a cell west (in place) could not be placed. Beside the grid, a line as the
    grid's own line by it, the tile lit more, is board: the check names the way back."""
    shot = calibration_sample("tune", 2, Difficulty.parse("glare=0.7"), art="acrylic")
    setup, _ = learn.learn_setup(shot.image)
    T = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    moved = replace(setup.pose, H=setup.pose.H @ T, tile_offsets=setup.pose.tile_offsets.copy())
    monkeypatch.setattr(learn, "find_board", lambda *a, **k: moved)
    monkeypatch.setattr(learn, "board_by_tiles", lambda frame: None)  # round 20's second try
    monkeypatch.setattr(learn, "boards_by_colour", lambda frame: [])  # round 61's last try
    with pytest.raises(UserError, match="a cell west"):
        learn.learn_setup(shot.image)


def test_a_grid_that_took_table_in_does_not_make_the_table_beside_it_board():
    """Beside a grid moved a cell east, off the board, its own last column is table: the
    line of table beyond it is as that column, but that column is no tile lit more (darker,
    another hue), so the table stays off the board; the real first column, west of the
    grid, is tile."""
    photo, pose = _board_photo(np.array([90.0, 140.0, 110.0]))
    moved = replace(pose, H=pose.H @ np.array([[1.0, 0, 1], [0, 1.0, 0], [0, 0, 1.0]]))
    _, counted = learn._busy_map(photo, moved)
    rows = slice(learn.RING, learn.RING + N)
    assert not counted[rows, learn.RING + N].any()  # table beyond the moved grid
    assert counted[rows, learn.RING - 1].all()  # the board's real first column
