"""Printable calibration targets at exact physical size (vector PDF or PNG with DPI).

The page carries the target, a line stating its size and a 50/100 mm scale bar,
so the user can check with a ruler that the printer did not scale the page::

    >>> from piecebridge.calibration.camera import parse_pattern
    >>> page = layout_page(parse_pattern("chessboard:9x6", 20), paper="a4")
    >>> page.paper_mm, len(page.black) > 30
    ((297.0, 210.0), True)
    >>> pdf_bytes(page)[:8]
    b'%PDF-1.4'
"""

from __future__ import annotations

import re
import struct
import zlib
from dataclasses import dataclass, field

import cv2
import numpy as np
from piecebridge.calibration.camera import Pattern

from piecebridge.errors import UserError

PAPERS_MM = {
    "a4": (210.0, 297.0),
    "a3": (297.0, 420.0),
    "a5": (148.0, 210.0),
    "letter": (215.9, 279.4),
    "legal": (215.9, 355.6),
    "tabloid": (279.4, 431.8),
}
#: Most printers cannot print closer to the edge than this.
PRINTER_MARGIN_MM = 6.0
#: Height of the text + scale bar block under the target.
CAPTION_MM = 24.0
MM_PER_PT = 25.4 / 72.0


@dataclass
class Page:
    """A page: black rectangles ``(x, y, w, h)`` in mm from the top-left, and captions."""

    paper_mm: tuple[float, float]
    black: list[tuple[float, float, float, float]] = field(default_factory=list)
    texts: list[tuple[float, float, float, str]] = field(default_factory=list)  # x, y, pt, text
    lines: list[tuple[float, float, float, float, float]] = field(default_factory=list)  # +width
    target_box: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)


def paper_size(name: str) -> tuple[float, float]:
    """``a4``, ``letter``, … or ``WxH`` in millimetres (portrait or landscape as given)."""
    key = name.strip().lower()
    if key in PAPERS_MM:
        return PAPERS_MM[key]
    match = re.fullmatch(r"(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(?:mm)?", key)
    if not match:
        raise UserError(f"unknown paper {name!r}: use {', '.join(PAPERS_MM)} or WxH in mm")
    return float(match.group(1)), float(match.group(2))


def squares_of(pattern: Pattern) -> tuple[int, int]:
    """Squares across and down: inner corners + 1 for a chessboard."""
    if pattern.kind == "chessboard":
        return pattern.cols + 1, pattern.rows + 1
    return pattern.cols, pattern.rows


def largest_square_mm(pattern: Pattern, paper: tuple[float, float]) -> float:
    """The largest whole-millimetre square for which the page layout fits ``paper``."""
    for square in range(int(max(paper)), 0, -1):
        if _orientations(pattern, float(square), paper):
            return float(square)
    return 0.0


def _orientations(
    pattern: Pattern, square: float, paper: tuple[float, float]
) -> list[tuple[float, float]]:
    """Page orientations on which the target with ``square`` mm squares fits."""
    across, down = squares_of(pattern)
    quiet = min(square, 15.0)  # white around the board helps the detectors
    need = (across * square + 2 * quiet, down * square + 2 * quiet + CAPTION_MM)
    return [
        o
        for o in (paper, paper[::-1])
        if need[0] <= o[0] - 2 * PRINTER_MARGIN_MM + 1e-9
        and need[1] <= o[1] - 2 * PRINTER_MARGIN_MM + 1e-9
    ]


def layout_page(pattern: Pattern, paper: str = "a4") -> Page:
    """Place the target, its size caption and a scale bar on the page.

    Raises UserError when the target does not fit, naming the largest square that does.
    """
    size = paper_size(paper)
    across, down = squares_of(pattern)
    board = (across * pattern.square_mm, down * pattern.square_mm)
    quiet = min(pattern.square_mm, 15.0)
    need_h = board[1] + 2 * quiet + CAPTION_MM
    fits = _orientations(pattern, pattern.square_mm, size)
    if not fits:
        best = largest_square_mm(pattern, size)
        raise UserError(
            f"a {pattern.describe()} target with {pattern.square_mm:g} mm squares is "
            f"{board[0]:g}x{board[1]:g} mm and does not fit on {paper} paper: "
            f"use --square-mm {best:g} or less, or a larger --paper"
        )
    # Prefer the orientation whose shape matches the board's.
    page_size = max(fits, key=lambda o: (o[0] >= o[1]) == (board[0] >= board[1]))
    page = Page((float(page_size[0]), float(page_size[1])))
    x0 = (page_size[0] - board[0]) / 2
    y0 = PRINTER_MARGIN_MM + quiet + max(0.0, (page_size[1] - 2 * PRINTER_MARGIN_MM - need_h) / 2)
    page.target_box = (x0, y0, board[0], board[1])
    if pattern.kind == "chessboard":
        _chessboard(page, x0, y0, across, down, pattern.square_mm)
    else:
        _charuco(page, x0, y0, pattern)
    _caption(page, pattern, x0, y0 + board[1] + quiet)
    return page


def _chessboard(page: Page, x0: float, y0: float, across: int, down: int, square: float) -> None:
    # OpenCV's convention: the top-left square is black.
    for row in range(down):
        for col in range(across):
            if (row + col) % 2 == 0:
                page.black.append((x0 + col * square, y0 + row * square, square, square))


def _charuco(page: Page, x0: float, y0: float, pattern: Pattern) -> None:
    board = pattern.charuco_board()
    across, down = squares_of(pattern)
    square = pattern.square_mm
    marker_squares = set()
    dictionary = board.getDictionary()
    bits = dictionary.markerSize + 2  # marker bits plus a one-bit black border
    for marker_id, corners in zip(board.getIds().ravel(), board.getObjPoints(), strict=True):
        corners = np.asarray(corners).reshape(-1, 3)
        left, top = float(corners[:, 0].min()), float(corners[:, 1].min())
        marker_squares.add((int(left // square), int(top // square)))
        cells = cv2.aruco.generateImageMarker(dictionary, int(marker_id), bits)
        cell = pattern.marker_mm / bits
        for r in range(bits):
            for c in range(bits):
                if cells[r, c] < 128:
                    page.black.append((x0 + left + c * cell, y0 + top + r * cell, cell, cell))
    # Squares without a marker are the black ones (the layout, legacy or not, is OpenCV's).
    for row in range(down):
        for col in range(across):
            if (col, row) not in marker_squares:
                page.black.append((x0 + col * square, y0 + row * square, square, square))


def _caption(page: Page, pattern: Pattern, x0: float, y: float) -> None:
    what = (
        f"chessboard {pattern.cols}x{pattern.rows} inner corners"
        if pattern.kind == "chessboard"
        else f"ChArUco {pattern.cols}x{pattern.rows} squares, {pattern.dictionary}, "
        f"markers {pattern.marker_mm:g} mm"
    )
    page.texts.append((x0, y + 4, 9, f"{what}; squares {pattern.square_mm:g} mm"))
    argument = f"--pattern {pattern.describe()} --square-mm {pattern.square_mm:g}"
    if pattern.kind == "charuco":
        argument += f" --marker-mm {pattern.marker_mm:g} --dictionary {pattern.dictionary}"
    page.texts.append((x0, y + 8.5, 7, f"piecebridge calibrate camera ... {argument}"))
    bar = 100.0 if x0 + 100 <= page.paper_mm[0] - PRINTER_MARGIN_MM else 50.0
    bar_y = y + 15
    page.lines.append((x0, bar_y, x0 + bar, bar_y, 0.4))
    for tick in range(0, int(bar) + 1, 10):
        height = 3.0 if tick % 50 == 0 else 1.5
        page.lines.append((x0 + tick, bar_y - height, x0 + tick, bar_y, 0.3))
    page.texts.append(
        (x0, bar_y + 4.5, 7, f"this bar must measure {bar:g} mm: print at 100% (actual size)")
    )


# --------------------------------------------------------------------------- PDF


def pdf_bytes(page: Page) -> bytes:
    """A one-page vector PDF; 1 mm on the page is exactly 1 mm on paper at 100% scale."""
    width_pt, height_pt = (v / MM_PER_PT for v in page.paper_mm)
    ops = ["q", f"{1 / MM_PER_PT:.6f} 0 0 {-1 / MM_PER_PT:.6f} 0 {height_pt:.4f} cm", "0 g"]
    ops += [f"{x:.4f} {y:.4f} {w:.4f} {h:.4f} re" for x, y, w, h in page.black]
    ops.append("f")
    for x1, y1, x2, y2, stroke in page.lines:
        ops.append(f"{stroke:.3f} w {x1:.4f} {y1:.4f} m {x2:.4f} {y2:.4f} l S")
    ops.append("Q")
    for x, y, size, text in page.texts:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        escaped = escaped.encode("latin-1", "replace").decode("latin-1")
        ops.append(
            f"BT /F1 {size} Tf 1 0 0 1 {x / MM_PER_PT:.3f} {height_pt - y / MM_PER_PT:.3f} Tm "
            f"({escaped}) Tj ET"
        )
    content = zlib.compress("\n".join(ops).encode("latin-1"))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R /ViewerPreferences << /PrintScaling /None >> >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width_pt:.4f} {height_pt:.4f}] "
            "/Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
        ).encode(),
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content)
        + content
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


# --------------------------------------------------------------------------- PNG


def raster(page: Page, dpi: float) -> np.ndarray:
    """The page as an 8-bit grey image at ``dpi``; edges snap to the nearest pixel."""
    px = dpi / 25.4

    def at(v: float) -> int:
        return round(v * px)

    image = np.full((at(page.paper_mm[1]), at(page.paper_mm[0])), 255, np.uint8)
    for x, y, w, h in page.black:
        image[at(y) : at(y + h), at(x) : at(x + w)] = 0
    for x1, y1, x2, y2, stroke in page.lines:
        cv2.line(image, (at(x1), at(y1)), (at(x2), at(y2)), 0, max(1, at(stroke)))
    for x, y, size, text in page.texts:
        scale = size * MM_PER_PT * px / 30.0  # Hershey simplex is about 30 px tall at scale 1
        ascii_text = text.encode("ascii", "replace").decode()
        cv2.putText(
            image, ascii_text, (at(x), at(y)), cv2.FONT_HERSHEY_SIMPLEX, scale, 0, 1, cv2.LINE_AA
        )
    return image


def png_bytes(page: Page, dpi: float = 300.0) -> bytes:
    """PNG of the page with its resolution recorded (pHYs), so "actual size" prints true."""
    ok, data = cv2.imencode(".png", raster(page, dpi))
    if not ok:
        raise UserError("PNG encoding failed")
    data = bytes(data)
    per_metre = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_header = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:end_of_header] + chunk + data[end_of_header:]
