"""Reflec positions drawn as pictures: the board, its pieces and a laser beam.

>>> from piecebridge.rules.reflec import Board
>>> image = draw_board(Board.from_json({"pawns": [{"cell": "a1", "suit": "suns"}]}))
>>> image.shape
(560, 560, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from piecebridge.rules.reflec import Beam, Board, Coin, Direction, Pawn, Suit

CELL_PX = 60
MARGIN_PX = 40
SUIT_BGR = {
    Suit.SUNS: (40, 40, 210),
    Suit.MOONS: (40, 40, 40),
    Suit.CROWNS: (50, 150, 40),
    Suit.ARMS: (200, 110, 30),
}
NEUTRAL_BGR = (150, 150, 150)
BEAM_BGR = (0, 0, 255)
_ARROW = {
    Direction.NORTH: (0, -1),
    Direction.EAST: (1, 0),
    Direction.SOUTH: (0, 1),
    Direction.WEST: (-1, 0),
}


def cell_centre(cell: int) -> tuple[int, int]:
    """Pixel centre of a cell (north up)."""
    col, row = cell % 8, cell // 8
    return (
        MARGIN_PX + col * CELL_PX + CELL_PX // 2,
        MARGIN_PX + (7 - row) * CELL_PX + CELL_PX // 2,
    )


def draw_board(
    board: Board,
    beam: Beam | None = None,
    source: int | None = None,
    direction: Direction | None = None,
    neutral: Sequence[Suit] = (),
) -> np.ndarray:
    """A BGR image (uint8) of ``board``, north up; a ``beam`` fired from ``source``
    towards ``direction`` is drawn in red, with crosses on what it destroyed.
    """
    size = 2 * MARGIN_PX + 8 * CELL_PX
    image = np.full((size, size, 3), (235, 240, 245), np.uint8)
    _draw_grid(image)
    if beam is not None and source is not None and direction is not None:
        _draw_beam(image, board, beam, source, direction)
    for cell, piece in enumerate(board.squares):
        if piece is None:
            continue
        colour = NEUTRAL_BGR if piece.suit in neutral else SUIT_BGR[piece.suit]
        if isinstance(piece, Coin):
            _draw_coin(image, cell, piece, colour)
        elif isinstance(piece, Pawn):
            _draw_pawn(image, cell, colour)
    if beam is not None and beam.end == "loop":
        for cell in beam.removed:
            _draw_cross(image, cell)
    if beam is not None and beam.end == "pawn" and beam.hit_cell is not None:
        _draw_cross(image, beam.hit_cell)
    return image


def _draw_grid(image: np.ndarray) -> None:
    end = MARGIN_PX + 8 * CELL_PX
    for i in range(9):
        p = MARGIN_PX + i * CELL_PX
        thickness = 2 if i % 2 == 0 else 1  # tiles are 2x2 cells
        cv2.line(image, (p, MARGIN_PX), (p, end), (120, 120, 120), thickness, cv2.LINE_AA)
        cv2.line(image, (MARGIN_PX, p), (end, p), (120, 120, 120), thickness, cv2.LINE_AA)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for i in range(8):
        x = MARGIN_PX + i * CELL_PX + CELL_PX // 2 - 6
        cv2.putText(image, "abcdefgh"[i], (x, end + 26), font, 0.6, (60, 60, 60), 1, cv2.LINE_AA)
        y = MARGIN_PX + (7 - i) * CELL_PX + CELL_PX // 2 + 6
        cv2.putText(image, str(i + 1), (14, y), font, 0.6, (60, 60, 60), 1, cv2.LINE_AA)


def _draw_coin(image: np.ndarray, cell: int, coin: Coin, colour: tuple[int, int, int]) -> None:
    cx, cy = cell_centre(cell)
    radius = CELL_PX * 2 // 5
    cv2.circle(image, (cx, cy), radius, (250, 250, 250), -1, cv2.LINE_AA)
    cv2.circle(image, (cx, cy), radius, colour, 3, cv2.LINE_AA)
    dx, dy = _ARROW[coin.facing]
    tail = (cx - dx * radius * 6 // 10, cy - dy * radius * 6 // 10)
    tip = (cx + dx * radius * 8 // 10, cy + dy * radius * 8 // 10)
    cv2.arrowedLine(image, tail, tip, colour, 3, cv2.LINE_AA, tipLength=0.45)


def _draw_pawn(image: np.ndarray, cell: int, colour: tuple[int, int, int]) -> None:
    cx, cy = cell_centre(cell)
    half = CELL_PX * 3 // 10
    cv2.rectangle(image, (cx - half, cy - half), (cx + half, cy + half), colour, -1, cv2.LINE_AA)
    cv2.circle(image, (cx, cy), half // 2, (250, 250, 250), -1, cv2.LINE_AA)


def _draw_beam(
    image: np.ndarray, board: Board, beam: Beam, source: int, direction: Direction
) -> None:
    points = [cell_centre(source)] + [cell_centre(c) for c in beam.path]
    if beam.end == "edge":  # run the beam off the board in its last heading
        last = board.squares[beam.path[-1]] if beam.path else None
        if isinstance(last, Coin):
            dx, dy = _ARROW[last.facing]
        elif len(points) > 1:
            (x0, y0), (x1, y1) = points[-2], points[-1]
            dx, dy = int(np.sign(x1 - x0)), int(np.sign(y1 - y0))
        else:
            dx, dy = _ARROW[direction]
        x, y = points[-1]
        points.append((x + dx * CELL_PX * 7 // 10, y + dy * CELL_PX * 7 // 10))
    polyline = np.array(points, np.int32).reshape(-1, 1, 2)
    cv2.polylines(image, [polyline], False, BEAM_BGR, 4, cv2.LINE_AA)


def _draw_cross(image: np.ndarray, cell: int) -> None:
    cx, cy = cell_centre(cell)
    r = CELL_PX // 3
    cv2.line(image, (cx - r, cy - r), (cx + r, cy + r), BEAM_BGR, 4, cv2.LINE_AA)
    cv2.line(image, (cx - r, cy + r), (cx + r, cy - r), BEAM_BGR, 4, cv2.LINE_AA)
