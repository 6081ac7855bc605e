"""Draw a card reading for people: each cell's answer on the rectified grids.

>>> import numpy as np
>>> from piecebridge.vision.card import CellReading, GridReading, GridView
>>> view = GridView(np.zeros((11, 11, 2)), rectified=np.full((416, 416), 200, np.uint8))
>>> img = annotate_grids([GridReading(view, {"A1": CellReading("x", True, 0.9)}, ["B1"])])
>>> img.shape[2]
3
"""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.vision.card import CELL_PX, MARGIN_CELLS, GridReading
from piecebridge.vision.card_layout import parse_cell

SHORT = {"dot": ".", "x": "X", "o": "O", "slash": "/", "plus": "+", "triangle": "^"}
SCALE = 2  # annotated cells are 64 px: room for a legible label


def _label(img, text, org, colour, size=0.55, thick=1):
    cv2.putText(
        img, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, (255, 255, 255), thick + 2, cv2.LINE_AA
    )
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, colour, thick, cv2.LINE_AA)


def annotate_grid(grid: GridReading, title: str = "") -> np.ndarray:
    """One rectified grid (BGR) with every read cell labelled and unknown cells in red.

    Shaded cells get a blue wash; the label is the mark (``.`` dot, ``X``, ``O``,
    ``/`` slash, ``+`` plus, ``^`` triangle) and the confidence in percent.
    """
    rect = grid.view.rectified
    img = cv2.cvtColor(rect, cv2.COLOR_GRAY2BGR)
    img = cv2.resize(img, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_LINEAR)
    cell = CELL_PX * SCALE
    m = round(MARGIN_CELLS * CELL_PX) * SCALE
    wash = img.copy()
    for name, c in grid.cells.items():
        r, col = parse_cell(name)
        x, y = m + col * cell, m + r * cell
        if c.shaded:
            cv2.rectangle(wash, (x + 2, y + 2), (x + cell - 3, y + cell - 3), (255, 140, 40), -1)
    img = cv2.addWeighted(wash, 0.35, img, 0.65, 0)
    for name, c in grid.cells.items():
        r, col = parse_cell(name)
        x, y = m + col * cell, m + r * cell
        if c.mark:
            colour = (20, 120, 20) if c.confidence >= 0.9 else (0, 140, 230)
            _label(img, SHORT[c.mark], (x + 4, y + 22), colour, 0.7, 2)
        if c.mark or c.shaded:
            _label(
                img,
                f"{round(100 * c.confidence)}",
                (x + cell - 26, y + cell - 6),
                (90, 90, 90),
                0.38,
            )
    for name in grid.unknown:
        r, col = parse_cell(name)
        x, y = m + col * cell, m + r * cell
        cv2.rectangle(img, (x + 2, y + 2), (x + cell - 3, y + cell - 3), (0, 0, 230), 2)
        _label(img, "?", (x + cell // 2 - 6, y + cell // 2 + 8), (0, 0, 230), 0.8, 2)
    if title:
        _label(img, title, (8, 22), (0, 0, 0), 0.6, 1)
    return img


def annotate_grids(grids: list[GridReading]) -> np.ndarray:
    """All grids side by side, in card order."""
    parts = [annotate_grid(g, f"grid {i + 1}") for i, g in enumerate(grids)]
    gap = np.full((parts[0].shape[0], 12, 3), 255, np.uint8)
    row = []
    for i, p in enumerate(parts):
        row += [gap, p] if i else [p]
    return np.hstack(row)


def draw_detection(
    photo_bgr: np.ndarray, grids: list[GridReading], scale: float = 1.0
) -> np.ndarray:
    """The photo with every found grid line drawn over it (for ``--debug-dir``)."""
    img = photo_bgr.copy()
    for i, g in enumerate(grids):
        lat = g.view.lattice / scale
        for k in range(11):
            for line in (lat[k], lat[:, k]):
                pts = np.round(line * 4).astype(np.int32)
                cv2.polylines(img, [pts], False, (0, 200, 255), 2, cv2.LINE_AA, shift=2)
        tl = tuple(np.round(lat[0, 0]).astype(int))
        cv2.circle(img, tl, 12, (0, 0, 255), 3, cv2.LINE_AA)
        _label(img, f"grid {i + 1} A1", (tl[0] + 14, tl[1] - 8), (0, 0, 255), 1.0, 2)
    return img
