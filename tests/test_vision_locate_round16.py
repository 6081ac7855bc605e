"""Localisation round 16: the lattice check's move of a grid a cell off onto its board.

Printplay boards (pale card tiles with thin dark printed lines) print a cross at every cell
corner, so a grid fitted a cell off, a strip of table taken in, fits as many crosses as the
board itself: the move onto the board may fit one cross fewer where it leaves table behind
and takes tiles in (``MOVE_CROSSES_SLACK``, ``_table_left_behind``). A synthetic board on a
gingham or wood stands in, and tune printplay calibration photos of rigs 7 and 31.
"""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import locate

S = 40  # pixels per cell of the synthetic board
CARD, WHITE, RED, LINE = (215, 222, 228), (225, 230, 235), (60, 60, 190), 60


def _photo(h: int, w: int, x0: int, y0: int, phase: int) -> np.ndarray:
    """A red-and-white gingham of cell-wide squares (offset ``phase`` pixels from the
    board's lines), ``h`` x ``w``, with an 8x8 board of pale card at (``x0``, ``y0``),
    every cell side a thin dark line, and a camera's noise."""
    yy, xx = np.mgrid[0:h, 0:w]
    a, b = ((xx - x0 + phase) // S) % 2, ((yy - y0 + phase) // S) % 2
    mix = ((a + b) / 2.0)[..., None]
    photo = np.array(WHITE, float) * (1 - mix) + np.array(RED, float) * mix
    x1, y1 = x0 + 8 * S, y0 + 8 * S
    photo[y0:y1, x0:x1] = CARD
    for k in range(9):
        x, y = x0 + k * S, y0 + k * S
        photo[y0:y1, max(x - 1, x0) : min(x + 1, x1)] = LINE
        photo[max(y - 1, y0) : min(y + 1, y1), x0:x1] = LINE
    noise = np.random.default_rng(0).normal(0, 3, photo.shape)
    return np.clip(photo + noise, 0, 255).astype(np.uint8)


def _grid(x0: float, y0: float, crosses: int) -> BoardPose:
    pose = BoardPose(np.array([[S, 0.0, x0], [0.0, S, y0], [0.0, 0.0, 1.0]]))
    pose.crosses_found = crosses
    return pose


WOOD = (40, 80, 140)


def _on_wood(coins_west: bool) -> tuple[np.ndarray, int, int]:
    """The same board on a brown table (4 cells of it each side), coins (discs) on the
    southern half of its west column when ``coins_west``."""
    x0 = y0 = 4 * S
    photo = _photo(16 * S, 16 * S, x0, y0, 0)
    photo[:y0] = photo[y0 + 8 * S :] = WOOD
    photo[:, :x0] = photo[:, x0 + 8 * S :] = WOOD
    if coins_west:
        yy, xx = np.mgrid[0 : 16 * S, 0 : 16 * S]
        for row in range(4, 8):
            cx, cy = x0 + S // 2, y0 + row * S + S // 2
            photo[(xx - cx) ** 2 + (yy - cy) ** 2 < (0.4 * S) ** 2] = (150, 140, 120)
    return photo, x0, y0


@pytest.mark.parametrize("coins_west", [False, True])
def test_a_move_onto_the_board_leaves_table_behind_and_one_off_it_does_not(coins_west: bool):
    """A grid a cell east of the board (its east column on the table, the board's west column
    beyond it, coins on half its cells as in the calibration layout): moved a cell west, it
    takes tiles in and leaves table behind. The board in place moved either way takes table
    in and leaves tiles behind (tune printplay calibration photos of rigs 7 and 31)."""
    photo, x0, y0 = _on_wood(coins_west)
    assert locate._table_left_behind(photo, _grid(x0 + S, y0, 14), -1, 0)
    assert not locate._table_left_behind(photo, _grid(x0, y0, 14), -1, 0)
    assert not locate._table_left_behind(photo, _grid(x0, y0, 14), 1, 0)
    assert not locate._table_left_behind(photo, _grid(x0, y0, 14), 0, 1)


#: Tune printplay calibration photos whose grid was found a cell off (113 and 123 px): the
#: lattice check's move to the right grid fits one cross fewer (printplay prints a cross at
#: every cell corner, so the wrong grid's strip of table fits one too), allowed where the move
#: leaves a strip of table behind (``MOVE_CROSSES_SLACK``).
SLACK_RIGS = (7, 31)


@pytest.mark.parametrize("rig", SLACK_RIGS)
def test_a_printplay_calibration_a_cell_off_is_moved_onto_its_board(rig):
    """About 2 s each: the calibration is learned (it was refused: a cell off), and the pose's
    corners lie within a fifth of a cell of the board's true corners."""
    from piecebridge.vision.learn import learn_setup

    from piecebridge.synth.reflec import Difficulty, calibration_sample

    cal = calibration_sample("tune", rig, Difficulty.parse("realistic"), art="printplay")
    setup, _ = learn_setup(cal.image)
    truth = np.array(cal.truth["synth"]["board_corners_px"], float)
    found = setup.pose.to_image(np.array([[0, 0], [8, 0], [8, 8], [0, 8]], float))
    cell_px = np.linalg.norm(truth[1] - truth[0]) / 8
    assert np.linalg.norm(found - truth, axis=1).max() < 0.2 * cell_px
