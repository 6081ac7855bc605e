"""Pictures that show why vision decided what it did (``--debug-dir``, calibration PNG).

>>> import numpy as np
>>> from piecebridge.calibration.geometry import scale_homography
>>> img = draw_grid(np.zeros((100, 100, 3), np.uint8), scale_homography(10, 1))
>>> img.shape
(100, 100, 3)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from piecebridge.calibration.geometry import N, cell_centre, project, scale_homography
from piecebridge.vision.cells import CellDecision

KIND_BGR = {"coin": (0, 200, 0), "pawn": (255, 128, 0), "unknown": (0, 0, 255)}
SUIT_LETTER = {"suns": "S", "moons": "M", "crowns": "C", "arms": "A"}
ARROW = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}


def _mapper(where: Any) -> Callable[[np.ndarray], np.ndarray]:
    """Canonical -> picture mapping of a BoardPose or a plain homography."""
    if hasattr(where, "to_image"):
        return where.to_image
    return lambda pts: project(where, np.asarray(pts, float))


def draw_grid(image: np.ndarray, where: Any, colour=(0, 255, 255)) -> np.ndarray:
    """Draw the 9x9 cell lines (``where``: BoardPose or homography) and mark north."""
    to_image = _mapper(where)
    out = image.copy()
    thick = max(1, round(image.shape[1] / 800))
    for i in range(N + 1):
        for line in (
            np.column_stack([np.full(33, i), np.linspace(0, N, 33)]),
            np.column_stack([np.linspace(0, N, 33), np.full(33, i)]),
        ):
            p = np.round(to_image(np.clip(line, 0.001, N - 0.001))).astype(np.int32)
            cv2.polylines(out, [p], False, colour, thick, cv2.LINE_AA)
    north = to_image(np.array([[N / 2, -0.4]]))[0]
    _label(out, "N", north, (0, 0, 255), 1.0 * thick)
    return out


def draw_decisions(image: np.ndarray, where: Any, decisions: list[CellDecision]) -> np.ndarray:
    """Write each non-empty cell's verdict (suit letter, facing arrow, confidence) on it."""
    to_image = _mapper(where)
    out = image.copy()
    ends = to_image(np.array([[3.0, 4.0], [4.0, 4.0]]))
    scale = max(0.35, float(np.linalg.norm(ends[1] - ends[0])) / 60)
    for d in decisions:
        if d.kind == "empty":
            continue
        x, y = cell_centre(d.cell)
        centre = to_image(np.array([[x, y]]))[0]
        colour = KIND_BGR[d.kind]
        if d.kind == "unknown":
            text = "?"
        else:
            text = SUIT_LETTER.get(d.suit or "", "?") + ("P" if d.kind == "pawn" else "")
        _label(out, text, (*centre, 0, -8 * scale), colour, 0.6 * scale)
        _label(out, f"{d.confidence:.2f}", (*centre, 0, 14 * scale), colour, 0.4 * scale)
        if d.kind == "coin" and d.facing:
            dx, dy = ARROW[d.facing]
            tip = to_image(np.array([[x + 0.4 * dx, y + 0.4 * dy]]))[0]
            cv2.arrowedLine(out, _pt(centre), _pt(tip), colour, max(1, round(scale)), cv2.LINE_AA)
    return out


def write_debug(
    directory: str | os.PathLike,
    frame: np.ndarray,
    pose: Any,
    decisions: list[CellDecision],
) -> list[Path]:
    """Write the frame with grid, the rectified board, and the per-cell decisions."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    px, margin = 64, 0.5
    rect = pose.rectify(frame, px, margin)
    A = scale_homography(px, margin)
    files = {
        "1-frame-grid.png": draw_decisions(draw_grid(frame, pose), pose, decisions),
        "2-rectified.png": rect,
        "3-rectified-grid.png": draw_grid(rect, A),
        "4-decisions.png": draw_decisions(draw_grid(rect, A, (200, 200, 200)), A, decisions),
    }
    written = []
    for name, img in files.items():
        cv2.imwrite(str(d / name), img)
        written.append(d / name)
    return written


def _pt(p: np.ndarray) -> tuple[int, int]:
    return round(float(p[0])), round(float(p[1]))


def _label(img: np.ndarray, text: str, at: np.ndarray, colour, scale: float) -> None:
    """Centred text with a dark outline, readable on any background."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, round(2 * scale))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (round(float(at[0]) - w / 2), round(float(at[1]) + h / 2))
    cv2.putText(img, text, org, font, scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, font, scale, colour, thick, cv2.LINE_AA)
