"""Helpers for the vision tests: how far a learned setup or pose lies from the renderer's truth."""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.calibration.geometry import N, cell_centre
from piecebridge.calibration.pose import BoardPose


def board_on_table(
    board: np.ndarray, corners: np.ndarray, table_bgr: tuple[int, int, int], size=(960, 540)
) -> np.ndarray:
    """A BGR frame of ``size`` (width, height): the grey square ``board`` image warped onto
    ``corners`` (north-west first, clockwise, pixels) over a plain table of ``table_bgr``."""
    side = board.shape[0]
    src = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    H = cv2.getPerspectiveTransform(src, np.float32(corners))
    frame = np.empty((size[1], size[0], 3), np.uint8)
    frame[:] = table_bgr
    mask = cv2.warpPerspective(np.ones_like(board), H, size)
    warped = cv2.warpPerspective(board, H, size, flags=cv2.INTER_AREA)
    return np.where((mask > 0)[..., None], cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR), frame)


def setup_off_by(setup, truth: dict) -> float:
    """Largest distance (cells) of the setup's cell centres from the renderer's."""
    synth = truth["synth"]
    corners = np.array(synth["board_corners_px"])
    cell = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1).mean() / 8
    centres = synth["cell_centers_px"]
    got = setup.pose.to_image(np.array([cell_centre(c) for c in centres]))
    return float(np.linalg.norm(got - np.array(list(centres.values())), axis=1).max() / cell)


def corners_off(pose: BoardPose, truth: dict, dy: float = 0.0) -> float:
    """The largest distance (cells) of ``pose``'s board corners from the true ones (the
    photo cropped ``dy`` pixels at its top), in the quarter turn nearest them."""
    want = np.array(truth["synth"]["board_corners_px"], float) - [0.0, dy]
    got = pose.to_image(np.array([[0, 0], [N, 0], [N, N], [0, N]], float))
    cell = np.linalg.norm(want[1] - want[0]) / N
    return min(
        float(np.linalg.norm(np.roll(got, k, axis=0) - want, axis=1).max() / cell) for k in range(4)
    )


def read_tune_shot(rig: int, shot: int, art: str) -> tuple[dict, dict, set]:
    """Tune ``shot`` of ``art`` read with the setup learned from ``rig``'s calibration photo
    (realistic difficulty): the truth, the reading (cell -> ("coin", suit, facing) or
    ("pawn", suit)) and the cells read unknown."""
    from piecebridge.vision.learn import learn_setup
    from piecebridge.vision.reader import BoardReader

    from piecebridge.synth.reflec import Difficulty, calibration_sample, sample

    diff = Difficulty.parse("realistic")
    setup, _ = learn_setup(calibration_sample("tune", rig, diff, art=art).image)
    s = sample("tune", shot, diff, art=art)
    board = BoardReader(setup=setup).read(s.image).board
    return _pieces(s.truth), _pieces(board), set(board["unknown"])


def check_tune_shot(rig: int, shot: int, art: str, read: str | None, unknown: str | None) -> None:
    """Read tune ``shot`` of ``art`` (see :func:`read_tune_shot`) and check that cell ``read``
    is read as the truth says, cell ``unknown`` is left unknown (either may be None), and no
    cell is wrong."""
    want, got, left = read_tune_shot(rig, shot, art)
    if read:
        assert got.get(read) == want[read]
    if unknown:
        assert unknown in left
    assert wrong_cells(want, got, left) == []


def _pieces(board: dict) -> dict:
    """A ``reflec-board/1`` object's pieces by cell."""
    got = {c["cell"]: ("coin", c["suit"], c["facing"]) for c in board["coins"]}
    got.update({p["cell"]: ("pawn", p["suit"]) for p in board["pawns"]})
    return got


def wrong_cells(want: dict, got: dict, unknown: set) -> list[str]:
    """The cells read, not unknown, otherwise than the truth says."""
    from piecebridge.vision.cells import CELL_ORDER

    return [c for c in CELL_ORDER if c not in unknown and got.get(c) != want.get(c)]


def pawn_cell(suit: str, fits: tuple[float, ...], cell: str = "h8", **kw):
    """A pawn-like cell whose best look is ``suit``'s with per-suit pawn fits ``fits`` (in
    ``cells.SUITS`` order), and the looks' similarities and labels (a suns coin last, 0.4):
    ``(CellDecision, sims, labels)``; ``kw`` sets more of the decision."""
    from piecebridge.vision import cells

    labels = [("pawn", s, None) for s in cells.SUITS] + [("coin", "suns", "north")]
    sims = np.array([*fits, 0.4], np.float32)
    d = cells.CellDecision(cell, "unknown", similarity=max(fits), best=("pawn", suit),
                           energy_ratio=9.0, detail_ratio=9.0, **kw)  # fmt: skip
    return d, sims, labels
