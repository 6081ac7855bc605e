"""The printed business-card board: two 10x10 grids with labels A–J and 1–10.

One description serves three users: ``piecebridge print card`` draws it to exact
physical size, the fixture renderer prints it (with random variations) before
pencilling, and the reader knows what to expect *roughly* (ten cells a side,
labels just outside the top and left edges). The reader never relies on the exact
millimetres, so a card printed by someone else still reads.

>>> layout = CardLayout()
>>> round(layout.width_mm, 1), round(layout.height_mm, 1)
(88.9, 50.8)
>>> img = draw_board(layout, px_per_mm=4)
>>> img.shape
(203, 356)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

COLUMNS = "ABCDEFGHIJ"
ROWS = tuple(str(n) for n in range(1, 11))
CELL_NAMES = tuple(f"{c}{r}" for r in ROWS for c in COLUMNS)  # row-major: A1, B1, ... J10


def cell_name(row: int, col: int) -> str:
    """Name of the cell at 0-based ``row`` (1..10 downwards) and ``col`` (A..J).

    >>> cell_name(2, 5)
    'F3'
    """
    return f"{COLUMNS[col]}{row + 1}"


def parse_cell(name: str) -> tuple[int, int]:
    """Inverse of :func:`cell_name`: ``'F3'`` -> ``(2, 5)``.

    >>> parse_cell("J10")
    (9, 9)
    """
    col = COLUMNS.index(name[0].upper())
    row = int(name[1:]) - 1
    if not 0 <= row < 10:
        raise ValueError(f"no such cell: {name!r}")
    return row, col


@dataclass(frozen=True)
class CardLayout:
    """Where things are printed on the card, in millimetres from the card's top-left.

    ``grid_origins`` are the top-left corners of each grid's outer frame when the
    labels read upright; ``angle_deg`` turns the whole print about the card centre
    (printing is not always square with the card).
    """

    width_mm: float = 88.9  # 3.5 in
    height_mm: float = 50.8  # 2 in
    cell_mm: float = 3.5
    grid_origins: tuple[tuple[float, float], ...] = ((6.0, 9.0), (47.5, 9.0))
    label_gap_mm: float = 0.6  # from the grid frame to the nearest edge of a label
    label_height_mm: float = 1.9
    line_mm: float = 0.18
    frame_mm: float = 0.3
    angle_deg: float = 0.0
    offset_mm: tuple[float, float] = (0.0, 0.0)
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    ink: int = 25  # grey level of the printing on white (255) paper
    caption: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def grid_mm(self) -> float:
        return 10 * self.cell_mm

    def transform(self) -> np.ndarray:
        """2x3 affine map from print millimetres to card millimetres (tilt + offset)."""
        cx, cy = self.width_mm / 2, self.height_mm / 2
        rot = cv2.getRotationMatrix2D((cx, cy), self.angle_deg, 1.0)
        rot[:, 2] += self.offset_mm
        return rot

    def grid_corners_mm(self, index: int) -> np.ndarray:
        """The 4 frame corners of grid ``index`` on the card (TL, TR, BR, BL), mm."""
        x, y = self.grid_origins[index]
        g = self.grid_mm
        pts = np.array([[x, y], [x + g, y], [x + g, y + g], [x, y + g]], float)
        return pts @ self.transform()[:, :2].T + self.transform()[:, 2]

    def cell_centre_mm(self, index: int, row: int, col: int) -> np.ndarray:
        """Centre of a cell on the card, millimetres."""
        x, y = self.grid_origins[index]
        p = np.array([x + (col + 0.5) * self.cell_mm, y + (row + 0.5) * self.cell_mm])
        return self.transform()[:, :2] @ p + self.transform()[:, 2]


def _put_centred(img, text, centre, height_px, font, ink, thickness, align="centre"):
    (w, h), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height_px / h
    (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    x = centre[0] - w / 2 if align == "centre" else centre[0] - w
    org = (round(x * 16), round((centre[1] + h / 2) * 16))
    # Draw at 16x sub-pixel precision, anti-aliased: labels look printed, not pixelated.
    cv2.putText(img, text, (org[0] // 16, org[1] // 16), font, scale, ink, thickness, cv2.LINE_AA)


def draw_board(layout: CardLayout, px_per_mm: float, paper: int = 255) -> np.ndarray:
    """Draw the printed side of the card as a grey image (uint8), paper white.

    The image is exactly ``width_mm x height_mm`` at ``px_per_mm``; lines and labels
    are drawn in print coordinates on a canvas then turned by the layout's tilt.
    """
    w = round(layout.width_mm * px_per_mm)
    h = round(layout.height_mm * px_per_mm)
    img = np.full((h, w), paper, np.uint8)
    s = px_per_mm
    shift = 4  # fixed-point bits for sub-pixel line placement

    def pt(x_mm: float, y_mm: float) -> tuple[int, int]:
        return round(x_mm * s * (1 << shift)), round(y_mm * s * (1 << shift))

    line_px = max(1, round(layout.line_mm * s))
    frame_px = max(1, round(layout.frame_mm * s))
    for gx, gy in layout.grid_origins:
        g = layout.grid_mm
        for i in range(11):
            t = frame_px if i in (0, 10) else line_px
            off = i * layout.cell_mm
            cv2.line(img, pt(gx + off, gy), pt(gx + off, gy + g), layout.ink, t, cv2.LINE_AA, shift)
            cv2.line(img, pt(gx, gy + off), pt(gx + g, gy + off), layout.ink, t, cv2.LINE_AA, shift)
        lh = layout.label_height_mm * s
        thick = max(1, round(0.09 * lh))
        for k in range(10):
            cx = (gx + (k + 0.5) * layout.cell_mm) * s
            cy = (gy - layout.label_gap_mm - layout.label_height_mm / 2) * s
            _put_centred(img, COLUMNS[k], (cx, cy), lh, layout.font, layout.ink, thick)
            rx = (gx - layout.label_gap_mm) * s
            ry = (gy + (k + 0.5) * layout.cell_mm) * s
            _put_centred(img, ROWS[k], (rx, ry), lh, layout.font, layout.ink, thick, "right")
    if layout.caption:
        _put_centred(
            img,
            layout.caption,
            (layout.width_mm / 2 * s, (layout.height_mm - 2.5) * s),
            1.2 * s,
            layout.font,
            layout.ink,
            max(1, round(0.15 * s)),
        )
    if layout.angle_deg or any(layout.offset_mm):
        cx, cy = layout.width_mm / 2 * s, layout.height_mm / 2 * s
        m = cv2.getRotationMatrix2D((cx, cy), layout.angle_deg, 1.0)
        m[:, 2] += np.asarray(layout.offset_mm) * s
        img = cv2.warpAffine(
            img,
            m,
            (w, h),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=paper,
        )
    return img
