"""Piece art for the renderer: suit symbols, coin faces, tile faces, piece colours.

Three styles, so vision can be tested on art it was not tuned on:

* ``"classic"`` -- wooden tiles with thin black grid crosses; cream wooden coins with the
  suit symbol (sun, moon, crown, fleur-de-lis) and a dot at the top; glossy pawns in suit
  colours (suns red, moons black, crowns green, arms blue).
* ``"french"`` -- white card tiles with thick orange crosses; white coins with heart, spade,
  club and diamond in orange, purple, teal and sky blue and a small triangle pointing to the
  top; matte peg pawns in those colours.
* ``"ebony"`` -- dark walnut tiles with pale lines set in from the edges; glossy brass coins with
  the classic symbols and a triangle mark; glossy peg pawns.

>>> tex = coin_face(ART["classic"], "crowns", 64)
>>> tex.shape, tex.dtype
((64, 64, 3), dtype('uint8'))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

SUITS = ("suns", "moons", "crowns", "arms")
SHIFT = 4  # cv2 drawing with 1/16 pixel precision
_S = 1 << SHIFT

BGR8 = tuple[int, int, int]


def _pt(x: float, y: float) -> tuple[int, int]:
    return round(x * _S), round(y * _S)


def _poly(img: np.ndarray, pts, color) -> None:
    arr = np.array([_pt(x, y) for x, y in pts], np.int32)
    cv2.fillPoly(img, [arr], color, cv2.LINE_AA, SHIFT)


def _circle(img: np.ndarray, c, r: float, color, thickness: int = -1) -> None:
    cv2.circle(img, _pt(*c), round(r * _S), color, thickness, cv2.LINE_AA, SHIFT)


def _ellipse(img: np.ndarray, c, axes, angle: float, color) -> None:
    cv2.ellipse(
        img, _pt(*c), (round(axes[0] * _S), round(axes[1] * _S)), angle, 0, 360, color, -1,
        cv2.LINE_AA, SHIFT,
    )  # fmt: skip


# -- symbols: draw centred at (cx, cy) with size n (about the symbol's height), top = -y -------


def sun(img, cx, cy, n, color, bg) -> None:
    rays = 10
    pts = []
    for i in range(2 * rays):
        a = math.pi * i / rays - math.pi / 2
        r = n * (0.48 if i % 2 == 0 else 0.3)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    _poly(img, pts, color)
    _circle(img, (cx, cy), n * 0.26, color)


def moon(img, cx, cy, n, color, bg) -> None:
    _circle(img, (cx, cy), n * 0.44, color)
    _circle(img, (cx + n * 0.2, cy - n * 0.1), n * 0.37, bg)


def crown(img, cx, cy, n, color, bg) -> None:
    w, top, mid, base = n * 0.5, cy - n * 0.42, cy - n * 0.05, cy + n * 0.3
    pts = [(cx - w, base), (cx - w, top + n * 0.1), (cx - w * 0.55, mid), (cx - w * 0.3, top),
           (cx, mid - n * 0.05), (cx + w * 0.3, top), (cx + w * 0.55, mid), (cx + w, top + n * 0.1),
           (cx + w, base)]  # fmt: skip
    _poly(img, pts, color)
    for x, y in ((cx - w, top + n * 0.1), (cx - w * 0.3, top), (cx + w * 0.3, top),
                 (cx + w, top + n * 0.1)):  # fmt: skip
        _circle(img, (x, y), n * 0.07, color)
    _poly(img, [(cx - w, base + n * 0.06), (cx + w, base + n * 0.06), (cx + w, base + n * 0.16),
                (cx - w, base + n * 0.16)], color)  # fmt: skip


def fleur(img, cx, cy, n, color, bg) -> None:
    # central petal pointing up
    _poly(img, [(cx, cy - n * 0.5), (cx + n * 0.13, cy - n * 0.22), (cx + n * 0.1, cy + n * 0.1),
                (cx - n * 0.1, cy + n * 0.1), (cx - n * 0.13, cy - n * 0.22)], color)  # fmt: skip
    for sgn in (-1, 1):
        _ellipse(img, (cx + sgn * n * 0.25, cy - n * 0.08), (n * 0.09, n * 0.22), sgn * 35, color)
        _ellipse(img, (cx + sgn * n * 0.17, cy + n * 0.32), (n * 0.07, n * 0.11), -sgn * 30, color)
    _poly(img, [(cx - n * 0.34, cy + n * 0.1), (cx + n * 0.34, cy + n * 0.1),
                (cx + n * 0.34, cy + n * 0.2), (cx - n * 0.34, cy + n * 0.2)], color)  # fmt: skip


def heart(img, cx, cy, n, color, bg) -> None:
    r = n * 0.24
    _circle(img, (cx - r * 0.95, cy - n * 0.14), r, color)
    _circle(img, (cx + r * 0.95, cy - n * 0.14), r, color)
    _poly(img, [(cx - n * 0.46, cy - n * 0.07), (cx + n * 0.46, cy - n * 0.07),
                (cx, cy + n * 0.46)], color)  # fmt: skip


def spade(img, cx, cy, n, color, bg) -> None:
    r = n * 0.22
    _circle(img, (cx - r * 0.95, cy + n * 0.1), r, color)
    _circle(img, (cx + r * 0.95, cy + n * 0.1), r, color)
    _poly(img, [(cx - n * 0.42, cy + n * 0.04), (cx + n * 0.42, cy + n * 0.04),
                (cx, cy - n * 0.48)], color)  # fmt: skip
    _poly(img, [(cx, cy + n * 0.1), (cx + n * 0.14, cy + n * 0.46), (cx - n * 0.14, cy + n * 0.46)],
          color)  # fmt: skip


def club(img, cx, cy, n, color, bg) -> None:
    r = n * 0.19
    _circle(img, (cx, cy - n * 0.26), r, color)
    _circle(img, (cx - n * 0.23, cy + n * 0.06), r, color)
    _circle(img, (cx + n * 0.23, cy + n * 0.06), r, color)
    stem = [(cx, cy - n * 0.05), (cx + n * 0.15, cy + n * 0.46), (cx - n * 0.15, cy + n * 0.46)]
    _poly(img, stem,
          color)  # fmt: skip


def diamond(img, cx, cy, n, color, bg) -> None:
    _poly(img, [(cx, cy - n * 0.5), (cx + n * 0.33, cy), (cx, cy + n * 0.5), (cx - n * 0.33, cy)],
          color)  # fmt: skip


Symbol = Callable[..., None]


@dataclass(frozen=True)
class PieceArt:
    """Colours (BGR 0-255) and symbols of one Piecepack design.

    ``mark`` is the directional mark drawn at the top of a coin's suit side: ``"dot"`` or
    ``"triangle"``.  Pawn ``profile`` is ``(height_mm, radius_mm)`` from the table up.
    """

    name: str
    suit_bgr: dict[str, BGR8]
    symbols: dict[str, Symbol]
    coin_bgr: BGR8
    coin_edge_bgr: BGR8
    coin_rim_bgr: BGR8 | None
    mark: str
    tile_bgr: BGR8
    tile_line_bgr: BGR8
    tile_line_mm: float
    tile_line_margin_mm: float
    tile_border_bgr: BGR8 | None
    tile_grain: float
    pawn_profile: tuple[tuple[float, float], ...]
    pawn_gloss: float
    coin_gloss: float
    tile_gloss: float


_CLASSIC_PAWN = (
    (0.0, 7.2), (2.2, 7.2), (3.2, 6.0), (6.0, 4.6), (12.0, 3.6), (14.0, 4.3), (15.0, 3.9),
    (16.0, 4.6), (17.2, 5.3), (18.6, 5.6), (20.0, 5.3), (21.4, 4.5), (22.6, 3.1), (23.4, 1.4),
    (23.6, 0.0),
)  # fmt: skip
_PEG_PAWN = (
    (0.0, 6.5), (1.5, 6.5), (2.0, 6.0), (14.0, 4.2), (15.0, 3.4), (16.2, 4.6), (17.8, 5.2),
    (19.4, 5.0), (20.6, 4.2), (21.6, 2.6), (22.0, 0.0),
)  # fmt: skip

ART: dict[str, PieceArt] = {
    "classic": PieceArt(
        name="classic",
        suit_bgr={
            "suns": (38, 38, 196),
            "moons": (32, 30, 30),
            "crowns": (52, 128, 36),
            "arms": (168, 82, 28),
        },
        symbols={"suns": sun, "moons": moon, "crowns": crown, "arms": fleur},
        coin_bgr=(168, 206, 228),
        coin_edge_bgr=(100, 150, 190),
        coin_rim_bgr=None,
        mark="dot",
        tile_bgr=(150, 192, 222),
        tile_line_bgr=(30, 30, 30),
        tile_line_mm=1.6,
        tile_line_margin_mm=3.0,
        tile_border_bgr=None,
        tile_grain=1.0,
        pawn_profile=_CLASSIC_PAWN,
        pawn_gloss=0.5,
        coin_gloss=0.5,
        tile_gloss=0.3,
    ),
    "french": PieceArt(
        name="french",
        suit_bgr={
            "suns": (0, 150, 230),
            "moons": (120, 40, 100),
            "crowns": (115, 158, 0),
            "arms": (233, 180, 86),
        },
        symbols={"suns": heart, "moons": spade, "crowns": club, "arms": diamond},
        coin_bgr=(238, 238, 236),
        coin_edge_bgr=(200, 200, 200),
        coin_rim_bgr=(170, 170, 170),
        mark="triangle",
        tile_bgr=(236, 238, 240),
        tile_line_bgr=(0, 159, 230),
        tile_line_mm=3.0,
        tile_line_margin_mm=0.0,
        tile_border_bgr=(180, 180, 180),
        tile_grain=0.0,
        pawn_profile=_PEG_PAWN,
        pawn_gloss=0.15,
        coin_gloss=0.3,
        tile_gloss=0.2,
    ),
    "ebony": PieceArt(
        name="ebony",
        suit_bgr={
            "suns": (30, 40, 190),
            "moons": (25, 25, 25),
            "crowns": (40, 110, 30),
            "arms": (140, 60, 20),
        },
        symbols={"suns": sun, "moons": moon, "crowns": crown, "arms": fleur},
        coin_bgr=(70, 165, 190),
        coin_edge_bgr=(40, 110, 140),
        coin_rim_bgr=(40, 120, 150),
        mark="triangle",
        tile_bgr=(45, 55, 70),
        tile_line_bgr=(200, 215, 225),
        tile_line_mm=2.2,
        tile_line_margin_mm=5.0,
        tile_border_bgr=None,
        tile_grain=0.6,
        pawn_profile=_PEG_PAWN,
        pawn_gloss=0.6,
        coin_gloss=0.7,
        tile_gloss=0.35,
    ),
}


def _coin_blank(art: PieceArt, size: int) -> np.ndarray:
    """Coin background with a little grain (wood, brass) or none (printed plastic)."""
    img = np.zeros((size, size, 3), np.uint8)
    img[:] = art.coin_bgr
    if art.tile_grain > 0:
        rng = np.random.default_rng(size)  # the same grain for every coin of a set: cached look
        grain = cv2.resize(rng.standard_normal((3, size // 6)).astype(np.float32), (size, size))
        img = cv2.convertScaleAbs(img.astype(np.float32) * (1 + 0.05 * grain)[..., None])
    return img


def coin_face(art: PieceArt, suit: str, size: int = 128) -> np.ndarray:
    """Suit side of a coin, ``size`` px square across the diameter, top = up (BGR uint8)."""
    img = _coin_blank(art, size)
    c = (size - 1) / 2
    col = art.suit_bgr[suit]
    if art.coin_rim_bgr is not None:
        _circle(img, (c, c), size * 0.46, art.coin_rim_bgr, max(1, size // 48))
    art.symbols[suit](img, c, c + size * 0.05, size * 0.56, col, art.coin_bgr)
    if art.mark == "dot":
        _circle(img, (c, size * 0.12), size * 0.055, col)
    else:
        tri = [(c, size * 0.06), (c + size * 0.08, size * 0.17), (c - size * 0.08, size * 0.17)]
        _poly(img, tri,
              col)  # fmt: skip
    return img


def coin_value_face(art: PieceArt, suit: str, value: int, size: int = 128) -> np.ndarray:
    """Value side of a coin (a numeral; 0 = the null blank) for coins off the board."""
    img = _coin_blank(art, size)
    c = (size - 1) / 2
    col = art.suit_bgr[suit] if art.name == "french" else (40, 40, 40)
    text = {0: "", 1: "A"}.get(value, str(value))
    if text:
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, size / 40, size // 20)
        cv2.putText(img, text, (round(c - tw / 2), round(c + th / 2)), cv2.FONT_HERSHEY_SIMPLEX,
                    size / 40, col, size // 20, cv2.LINE_AA)  # fmt: skip
    _circle(img, (c, size * 0.12), size * 0.05, col)
    return img


def die_face(art: PieceArt, suit: str, value: int, size: int = 64) -> np.ndarray:
    """Top of a suit die: a numeral (or the suit symbol for 0) on the die colour."""
    bg = art.suit_bgr[suit] if art.name != "french" else (240, 240, 240)
    fg = (240, 240, 240) if art.name != "french" else art.suit_bgr[suit]
    img = np.zeros((size, size, 3), np.uint8)
    img[:] = bg
    c = (size - 1) / 2
    if value == 0:
        art.symbols[suit](img, c, c, size * 0.6, fg, bg)
    else:
        text = "A" if value == 1 else str(value)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, size / 40, size // 16)
        cv2.putText(img, text, (round(c - tw / 2), round(c + th / 2)), cv2.FONT_HERSHEY_SIMPLEX,
                    size / 40, fg, size // 16, cv2.LINE_AA)  # fmt: skip
    return img
