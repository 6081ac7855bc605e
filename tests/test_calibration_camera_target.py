"""Printable targets: exact size, detectable, valid PDF/PNG, clear errors."""

from __future__ import annotations

import re
import struct
import zlib

import cv2
import numpy as np
import pytest
from piecebridge.calibration.camera import detect_pattern, parse_pattern
from piecebridge.calibration.camera_target import layout_page, pdf_bytes, png_bytes, raster

from piecebridge.cli import main
from piecebridge.errors import UserError


def _pdf_rectangles(data: bytes) -> tuple[list[float], list[tuple[float, ...]]]:
    media = [float(v) for v in re.search(rb"/MediaBox \[([^\]]+)\]", data).group(1).split()]
    start = data.index(b"stream\n") + len(b"stream\n")
    stream = zlib.decompress(data[start : data.index(b"\nendstream")]).decode("latin-1")
    rects = [tuple(map(float, m)) for m in re.findall(r"(\S+) (\S+) (\S+) (\S+) re", stream)]
    return media, rects


def test_pdf_is_exact_size_and_well_formed():
    pattern = parse_pattern("chessboard:9x6", 20)
    data = pdf_bytes(layout_page(pattern, "a4"))
    media, rects = _pdf_rectangles(data)
    # A4 landscape in points: 297 x 210 mm at 72/25.4 pt per mm.
    assert media[2:] == pytest.approx([297 / 25.4 * 72, 210 / 25.4 * 72], abs=0.01)
    assert len(rects) == 35  # half of 10x7 squares are black
    assert {(w, h) for _, _, w, h in rects} == {(20.0, 20.0)}  # mm, under a mm->pt matrix
    assert b"squares 20 mm" in zlib.decompress(
        data[data.index(b"stream\n") + 7 : data.index(b"\nendstream")]
    )
    # Every xref offset points at its object.
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    offsets = [int(line[:10]) for line in data[xref:].split(b"\n")[3:8]]
    for number, offset in enumerate(offsets, start=1):
        assert data[offset:].startswith(b"%d 0 obj" % number)


@pytest.mark.parametrize(
    ("text", "square", "marker"), [("chessboard:9x6", 20, None), ("charuco:8x6", 24, 18)]
)
def test_printed_png_is_detected_at_the_stated_scale(text, square, marker):
    pattern = parse_pattern(text, square, marker)
    dpi = 100.0
    image = raster(layout_page(pattern, "a4"), dpi)
    view = detect_pattern(image, pattern)
    assert view.found and len(view.image_points) == pattern.corner_count
    px_per_mm = dpi / 25.4
    spacing = np.linalg.norm(np.diff(view.image_points[:2], axis=0))
    assert spacing == pytest.approx(square * px_per_mm, rel=0.02)


def test_png_records_its_dpi(tmp_path):
    data = png_bytes(layout_page(parse_pattern("chessboard:4x3", 20), "a5"), dpi=150)
    at = data.index(b"pHYs")
    per_metre_x, per_metre_y, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert unit == 1 and per_metre_x == per_metre_y == round(150 / 0.0254)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert image.shape == (round(148 / 25.4 * 150), round(210 / 25.4 * 150))  # A5 landscape


def test_print_command_writes_and_refuses_too_large(tmp_path, capsys):
    out = tmp_path / "board.pdf"
    assert main(["print", "chessboard", "9x6", "--square-mm", "20", "--out", str(out)]) == 0
    assert out.read_bytes().startswith(b"%PDF")
    assert "20 mm squares" in capsys.readouterr().out
    big = tmp_path / "big.pdf"
    assert main(["print", "chessboard", "9x6", "--square-mm", "40", "--out", str(big)]) == 1
    err = capsys.readouterr().err
    assert "does not fit" in err and "--square-mm" in err and not big.exists()
    auto = tmp_path / "auto.png"
    assert main(["print", "charuco", "5x4", "--out", str(auto), "--paper", "letter"]) == 0
    assert cv2.imread(str(auto)) is not None


def test_bad_paper_and_suffix():
    with pytest.raises(UserError, match="paper"):
        layout_page(parse_pattern("chessboard:9x6", 10), "b7")
    assert main(["print", "chessboard", "9x6", "--out", "x.svg"]) == 1
