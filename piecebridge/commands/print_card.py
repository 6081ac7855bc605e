"""``piecebridge print card``: a printable business-card board at exact physical size.

The board is 3.5 x 2 in (88.9 x 50.8 mm) with two 10x10 grids labelled A–J and
1–10, as :mod:`piecebridge.vision.card_layout` describes. A PDF page is exactly
the card; a PNG carries its DPI so image programs print it at true size. Print at
100 % ("actual size"), not "fit to page".
"""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import numpy as np

from piecebridge.errors import UserError
from piecebridge.outputs import write_bytes
from piecebridge.vision.card_layout import CardLayout, draw_board

CAPTION = "piecebridge card board"


def render_print(dpi: float) -> tuple[np.ndarray, CardLayout]:
    """The board as a grey image at ``dpi`` (dots per inch) and its layout.

    >>> img, layout = render_print(300)
    >>> img.shape  # 2 x 3.5 inches at 300 dpi
    (600, 1050)
    """
    if not 50 <= dpi <= 2400:
        raise UserError(f"--dpi must be between 50 and 2400, not {dpi:g}")
    layout = CardLayout(caption=CAPTION)
    return draw_board(layout, px_per_mm=dpi / 25.4), layout


def write_card(out: Path, dpi: float) -> Path:
    """Write the board to ``out`` (``.pdf`` or ``.png``) and return the path."""
    from PIL import Image  # Pillow writes PDF pages and PNG DPI, which OpenCV cannot

    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise UserError(f"{out}: the output must end in .pdf or .png")
    img, layout = render_print(dpi)
    pil = Image.fromarray(img, mode="L")
    page = io.BytesIO()
    if suffix == ".pdf":
        # Page size = pixels / resolution inches: use the exact pixels-per-inch so the
        # page is 3.5 x 2 in even when the DPI does not divide the size evenly.
        res = img.shape[1] / (layout.width_mm / 25.4)
        pil.save(page, "PDF", resolution=res)
    else:
        pil.save(page, "PNG", dpi=(dpi, dpi))
    write_bytes(out, page.getvalue())  # whole or not at all; UserError when it cannot
    return out


def _run(args: argparse.Namespace) -> int:
    out = write_card(Path(args.out), args.dpi)
    print(f"wrote {out}: 3.5 x 2 in business-card board at {args.dpi:g} dpi; print at 100 %")
    return 0


def register(cli) -> None:
    p = cli.command(
        "card",
        group="print",
        help="draw a printable business-card board (two 10x10 grids) at exact size",
    )
    p.add_argument("--out", required=True, help="output file, .pdf or .png")
    p.add_argument("--dpi", type=float, default=600, help="resolution (default 600)")
    p.set_defaults(handler=_run)
