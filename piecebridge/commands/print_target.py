"""``piecebridge print chessboard|charuco``: a calibration target at exact physical size.

::

    piecebridge print chessboard 9x6 --square-mm 25 --out chessboard.pdf
    piecebridge print charuco 11x8 --square-mm 20 --marker-mm 15 --out charuco.png --dpi 300

The page states the target's size and carries a scale bar, so the user can check
with a ruler that the printer did not scale it. Pass the same ``--pattern`` and
sizes to ``piecebridge calibrate camera`` (the page prints the exact arguments).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from piecebridge.calibration.camera import DEFAULT_DICTIONARY, parse_pattern
from piecebridge.calibration.camera_target import (
    largest_square_mm,
    layout_page,
    paper_size,
    pdf_bytes,
    png_bytes,
)
from piecebridge.errors import UserError
from piecebridge.outputs import write_bytes


def register(cli) -> None:
    chessboard = cli.command(
        "chessboard", group="print", help="print a chessboard calibration target (PDF or PNG)"
    )
    chessboard.add_argument("size", metavar="COLSxROWS", help="inner corners, e.g. 9x6")
    _common(chessboard)
    chessboard.set_defaults(handler=run, kind="chessboard")
    charuco = cli.command(
        "charuco", group="print", help="print a ChArUco calibration target (PDF or PNG)"
    )
    charuco.add_argument("size", metavar="COLSxROWS", help="squares, e.g. 11x8")
    _common(charuco)
    charuco.add_argument(
        "--marker-mm", type=float, help="marker side in mm (default 0.75 x square)"
    )
    charuco.add_argument("--dictionary", default=DEFAULT_DICTIONARY, help="ArUco dictionary")
    charuco.set_defaults(handler=run, kind="charuco")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--square-mm", type=float, help="square side in mm (default: the largest that fits)"
    )
    parser.add_argument(
        "--paper", default="a4", help="a4, a3, a5, letter, legal, tabloid or WxH mm"
    )
    parser.add_argument("--dpi", type=float, default=300.0, help="PNG resolution (default 300)")
    parser.add_argument("--out", required=True, metavar="FILE.pdf|png", help="file to write")


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise UserError(f"--out must end in .pdf or .png, not {out.name!r}")
    if not 30 <= args.dpi <= 2400:
        raise UserError(f"--dpi {args.dpi:g} is outside 30-2400")
    text = f"{args.kind}:{args.size}"
    square = args.square_mm
    if square is None:
        probe = parse_pattern(text, 10.0, getattr(args, "marker_mm", None) and 7.5)
        square = largest_square_mm(probe, paper_size(args.paper))
        if square < 1:
            raise UserError(f"a {text} target does not fit on {args.paper} paper")
    marker = getattr(args, "marker_mm", None)
    pattern = parse_pattern(text, square, marker, getattr(args, "dictionary", DEFAULT_DICTIONARY))
    page = layout_page(pattern, args.paper)
    data = pdf_bytes(page) if suffix == ".pdf" else png_bytes(page, args.dpi)
    write_bytes(out, data)  # whole or not at all
    width, height = page.target_box[2:]
    print(
        f"wrote {out}: {pattern.describe()} with {pattern.square_mm:g} mm squares "
        f"({width:g}x{height:g} mm) on {page.paper_mm[0]:g}x{page.paper_mm[1]:g} mm paper; "
        "print at 100% and check the scale bar"
    )
    return 0
