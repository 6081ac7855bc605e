"""Frames that hold a grid but no board: the search says so instead of reading one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from piecebridge.calibration.geometry import CANONICAL_CORNERS
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision.locate import (
    LINES_INSIDE_CELLS,
    PRINTED_PX,
    BoardNotFound,
    _lines_inside_cells,
    _part_of_a_larger_grid,
    _ridge_map,
    find_board,
)

from piecebridge.synth.card import split_photo
from piecebridge.synth.reflec import negative_sample

CARDS = Path(__file__).resolve().parents[1] / "fixtures" / "images" / "cards" / "tune"


def test_a_business_cards_grids_are_not_a_board():
    """Reviewer: card tune photo 90001 gave a board in a window across the card's two 10x10
    grids (lines running on east and west of it)."""
    with pytest.raises(BoardNotFound, match="larger printed grid"):
        find_board(cv2.imread(str(CARDS / "tune_90001.jpg")))


def _grid(cells: int, px: int = 40, margin: int = 60) -> np.ndarray:
    """A drawn grid of ``cells`` x ``cells`` cells of ``px`` pixels on a pale table, with a
    camera's noise (a flat margin reads as past the photo's edge)."""
    n = cells * px + 2 * margin
    img = np.full((n, n, 3), 215, np.uint8)
    for k in range(cells + 1):
        p = margin + k * px
        cv2.line(img, (p, margin), (p, n - margin), (60, 60, 60), 2)
        cv2.line(img, (margin, p), (n - margin, p), (60, 60, 60), 2)
    noise = np.random.default_rng(0).normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("cells, larger", [(8, False), (12, True)])
def test_a_grid_running_on_beyond_the_board_is_part_of_a_larger_one(cells, larger):
    img = _grid(cells)
    margin, px = 60, 40
    first = margin + (cells - 8) // 2 * px  # the middle 8x8 of the drawn grid
    quad = (CANONICAL_CORNERS * px + first).astype(np.float32)
    pose = BoardPose(cv2.getPerspectiveTransform(CANONICAL_CORNERS.astype(np.float32), quad))
    assert _part_of_a_larger_grid(img, pose) is larger


def test_a_finer_printed_grid_fitted_as_a_board_is_refused():
    """Reviewer: card tune photo 90002 was read as an empty board (a 10x10 grid fitted in
    the 8x8 window: the card's lines run through the board's cells)."""
    with pytest.raises(BoardNotFound, match="lines inside its cells"):
        find_board(cv2.imread(str(CARDS / "tune_90002.jpg")))


@pytest.mark.parametrize("cells, inside", [(8, False), (10, True), (12, True)])
def test_a_grid_finer_than_the_board_has_lines_inside_its_cells(cells, inside):
    """A drawn grid of ``cells`` x ``cells`` fitted as the 8x8 board (its whole outline):
    a board's own lines (8) pass; a finer grid's run through most cells."""
    margin, px = 60, 40
    img = _grid(cells, px, margin)
    quad = (CANONICAL_CORNERS * px * cells / 8 + margin).astype(np.float32)
    pose = BoardPose(cv2.getPerspectiveTransform(CANONICAL_CORNERS.astype(np.float32), quad))
    gray = cv2.cvtColor(pose.rectify(img, PRINTED_PX, 0.5), cv2.COLOR_BGR2GRAY)
    count = _lines_inside_cells(_ridge_map(gray, PRINTED_PX), PRINTED_PX, 0.5)
    assert (count >= LINES_INSIDE_CELLS) is inside


def test_a_photographed_business_card_in_another_style_is_no_board():
    """A tune card photo of the other hand and print (alt style), small: before the lines
    inside the cells were looked at, its grid was read as a board (13 crosses)."""
    img, _ = split_photo("tune", 1, (960, 540), style="alt")
    with pytest.raises(BoardNotFound, match="no board in view"):
        find_board(img)


def test_an_outline_without_tile_crosses_at_full_size_is_no_board():
    """Tune renderer negative 11 (a board cut off by the frame's edge) was read as a board
    whose full-frame fit had found no tile cross: the small frame's outline, unconfirmed."""
    shot = negative_sample("tune", 11, "cut-off")
    with pytest.raises(BoardNotFound, match=r"no board in view|cut off"):
        find_board(shot.image)
