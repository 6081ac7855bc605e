"""Piece art for the renderer: suit symbols, coin faces, tile faces, piece colours.

Eight styles.  The first three are the renderer's random mix (both splits draw from them, and
vision was developed on them); the other five are reached only with an explicit ``art=``, so
vision can be measured on art it was never developed on (piecepackr and acrylic have since been
tuned on; woodburned, printplay and checkered were added later, each measured before anything
was tuned on it):

* ``"classic"`` -- wooden tiles with thin black grid crosses; cream wooden coins with the
  suit symbol (sun, moon, crown, fleur-de-lis) and a dot at the top; glossy pawns in suit
  colours (suns red, moons black, crowns green, arms blue).
* ``"french"`` -- white card tiles with thick orange crosses; white coins with heart, spade,
  club and diamond in orange, purple, teal and sky blue and a small triangle pointing to the
  top; matte peg pawns in those colours.
* ``"ebony"`` -- dark walnut tiles with pale lines set in from the edges; glossy brass coins with
  the classic symbols and a triangle mark; glossy peg pawns.
* ``"piecepackr"`` -- drawn from piecepackr's own figures (``shared/data/piecepack-reference``):
  thick burlywood tiles with well-rounded corners and a black cross that stops short of the
  edges; coins of the *same* burlywood as the tiles (only their edge and shadow set them off),
  the suit symbol in the Okabe-Ito colours piecepackr uses (suns vermillion, moons black,
  crowns bluish green, arms blue) and a small dot above it; piecepackr's symbol shapes (a
  hollow sun with eight rays, a half-filled moon disc, a five-spiked crown with balls, a thin
  fleur-de-lis); matte round-topped pawns (a cylinder with a dome, as the ray-traced figure's).
* ``"acrylic"`` -- as laser-cut acrylic sets are made: every coin is a disc of its suit's
  saturated colour with the symbol engraved *white* (the reverse of every other style: the
  colour is the coin, not the symbol), and a white bar notch at the top rim instead of a dot
  or triangle; pale ice-blue tiles with thin, low-contrast white engraved lines running to
  the square-cut edges; glossy flat-topped cylinder pawns.  It breaks the assumptions the
  others share: a pale coin ground, a dark symbol, dark grid lines, a dome or head on a pawn.
* ``"woodburned"`` -- as hand-pyrographed (or laser-engraved) maple sets are made: pale, strongly
  grained maple tiles with the *whole* 2x2 grid burnt in dark brown (a frame 2.5 mm in from the
  edges as well as the cross), the burn leaving a faint scorched halo; maple coins with a burnt
  ring near the rim and the suit symbol burnt in *one* brown for every suit (a dark outline round
  a paler scorched fill), so suits differ by symbol shape only; a burnt caret (an open V) at the
  top; matte skittle pawns of oil-stained wood in muted suit colours (mahogany, ebonised, olive,
  slate blue).
* ``"printplay"`` -- as print-and-play sets are made (printed at home on matte card, glued to
  grey chipboard and cut out by hand): pale grey card tiles with a thin dark grey grid printed
  right to the cut edge (a sliver of the dark cut line left round each tile); coins on a pale
  tint of their suit's colour (rose, lavender, mint, sky) with the suit symbol printed only as
  a dark *outline* (no fill), a printed cut circle near the rim and a small arrow pointing to
  the top; the coin's cut side shows the grey chipboard.  Pawns are no turned wood at all but
  folded paper tents (:class:`piecebridge.synth.standee.Tent`): two steep slopes printed in the
  suit's colour with the outlined symbol in white.  Dice are plain white cubes with the symbol
  and numerals in the suit's colour.
* ``"checkered"`` -- as inlaid (marquetry) sets and piecepackr's checkered tile options draw a
  Piecepack that doubles as a chess board: the tiles' 2x2 grid is shown by *tone only*, two
  quadrants pale maple and two dark walnut, with no line anywhere (laid 4x4 the tiles make an
  8x8 checkerboard, unless a tile is laid a quarter turn off); coins of ebonised (near black)
  wood with a thick border ring inlaid in the suit's colour and the symbol in the same colour,
  the ring broken by a *gap* at the top as the directional mark (an absence, not a printed
  mark); moons are silver, not black; pawns are lacquered cones in the suit colours (no flat
  top, no head: from above a cone is a shaded disc about a coin's size); dice are black with
  numerals in the suit's colour.

>>> tex = coin_face(ART["classic"], "crowns", 64)
>>> tex.shape, tex.dtype
((64, 64, 3), dtype('uint8'))
>>> MIXED_ARTS, sorted(set(ART) - set(MIXED_ARTS))
(('classic', 'french', 'ebony'), ['acrylic', 'checkered', 'piecepackr', 'printplay', 'woodburned'])
>>> coin_ground(ART["acrylic"], "crowns") == ART["acrylic"].suit_bgr["crowns"]
True
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


# -- piecepackr's symbols (its default suit glyphs, as its figures draw them) ---------------


def pp_sun(img, cx, cy, n, color, bg) -> None:
    """A disc with eight light rays cut into it and a hollow ring at its heart."""
    r = n * 0.5
    _circle(img, (cx, cy), r, color)
    for k in range(8):
        a = math.pi * k / 4 - math.pi / 2
        side = math.radians(16)
        tip = (cx + 0.95 * r * math.cos(a), cy + 0.95 * r * math.sin(a))
        base = [
            (cx + 0.56 * r * math.cos(a + s), cy + 0.56 * r * math.sin(a + s))
            for s in (side, -side)
        ]
        _poly(img, [tip, *base], bg)
    _circle(img, (cx, cy), 0.42 * r, bg)


def pp_moon(img, cx, cy, n, color, bg) -> None:
    """A ring with its left half filled (piecepackr's moons glyph)."""
    r = n * 0.4
    _circle(img, (cx, cy), r, color)
    inner = round((r - n * 0.06) * _S)
    cv2.ellipse(img, _pt(cx, cy), (inner, inner), 0, -90, 90, bg, -1, cv2.LINE_AA, SHIFT)


def pp_crown(img, cx, cy, n, color, bg) -> None:
    """Five spikes with balls on a banded base."""
    base_top, base_bot = cy + n * 0.12, cy + n * 0.4
    _poly(img, [(cx - n * 0.3, base_top), (cx + n * 0.3, base_top), (cx + n * 0.3, base_bot),
                (cx - n * 0.3, base_bot)], color)  # fmt: skip
    for y in (cy + n * 0.2, cy + n * 0.32):  # the light bands across the base
        _poly(img, [(cx - n * 0.27, y), (cx + n * 0.27, y), (cx + n * 0.27, y + n * 0.025),
                    (cx - n * 0.27, y + n * 0.025)], bg)  # fmt: skip
    tips = ((-0.46, -0.12), (-0.25, -0.3), (0.0, -0.36), (0.25, -0.3), (0.46, -0.12))
    for k, (tx, ty) in enumerate(tips):
        bx = cx + n * (-0.24 + 0.12 * k)
        _poly(img, [(bx - n * 0.06, base_top + 1), (bx + n * 0.06, base_top + 1),
                    (cx + tx * n, cy + ty * n)], color)  # fmt: skip
        _circle(img, (cx + tx * n, cy + ty * n), n * 0.065, color)


def pp_fleur(img, cx, cy, n, color, bg) -> None:
    """A thin fleur-de-lis: a tall middle petal, side petals curling out and down, a band."""
    _poly(img, [(cx, cy - n * 0.5), (cx + n * 0.09, cy - n * 0.25), (cx + n * 0.05, cy + n * 0.12),
                (cx - n * 0.05, cy + n * 0.12), (cx - n * 0.09, cy - n * 0.25)], color)  # fmt: skip
    for sgn in (-1, 1):
        _ellipse(img, (cx + sgn * n * 0.22, cy - n * 0.13), (n * 0.07, n * 0.15), sgn * 55, color)
        _ellipse(img, (cx + sgn * n * 0.3, cy + n * 0.02), (n * 0.04, n * 0.08), sgn * 10, color)
        _ellipse(img, (cx + sgn * n * 0.1, cy + n * 0.3), (n * 0.04, n * 0.1), -sgn * 35, color)
    _poly(img, [(cx - n * 0.22, cy + n * 0.12), (cx + n * 0.22, cy + n * 0.12),
                (cx + n * 0.22, cy + n * 0.19), (cx - n * 0.22, cy + n * 0.19)], color)  # fmt: skip


Symbol = Callable[..., None]


@dataclass(frozen=True)
class PieceArt:
    """Colours (BGR 0-255) and symbols of one Piecepack design.

    ``mark`` is the directional mark drawn at the top of a coin's suit side: ``"dot"``,
    ``"triangle"``, ``"bar"`` (a notch in from the rim), ``"chevron"`` (an open V),
    ``"arrow"`` (a small head on a stem) or ``"gap"`` (a break at the top of the border ring
    ``coin_border`` draws: nothing is drawn there).  Pawn ``profile`` is ``(height_mm,
    radius_mm)`` from the table up; ``pawn_tent`` (``(width, depth, height)`` mm) makes the
    pawns folded paper tents instead.  ``coin_grounds`` gives each suit's coins their own
    colour (acrylic), ``ink_bgr`` one colour for every symbol (white
    engraving, or a burn).
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
    tile_corner_mm: float = 2.0
    tile_thickness_mm: float = 2.5
    coin_grounds: dict[str, BGR8] | None = None  # per-suit coin colour (None: coin_bgr)
    ink_bgr: BGR8 | None = None  # symbol and mark colour on coins (None: the suit colour)
    # burnt in (woodburned): a symbol is a dark outline round a paler scorched fill of this
    # colour, with a faint scorch halo round it (None: a solid symbol in the ink)
    burn_fill_bgr: BGR8 | None = None
    tile_frame_mm: float | None = None  # a line framing the tile's 2x2 grid, this far in
    tile_line_halo: float = 0.0  # darkening of the wood round burnt grid lines (0: none)
    # printed (printplay): the symbol only as an outline this share of the coin across (0: solid)
    symbol_outline: float = 0.0
    coin_core_bgr: BGR8 | None = None  # the cut side of a laminated coin (None: coin_edge_bgr)
    die_bgr: BGR8 | None = None  # plain dice of this colour inked in the suit's (None: suit dice)
    pawn_tent: tuple[float, float, float] | None = None  # folded paper pawns (None: turned)
    # checkered: the tile quadrants top-left and bottom-right in this colour, the others in
    # tile_bgr, and no grid line at all (None: the lines tile_line_* describe)
    tile_check_bgr: BGR8 | None = None
    # a border ring in the suit's colour this share of the coin across wide (0: none)
    coin_border: float = 0.0


_CLASSIC_PAWN = (
    (0.0, 7.2), (2.2, 7.2), (3.2, 6.0), (6.0, 4.6), (12.0, 3.6), (14.0, 4.3), (15.0, 3.9),
    (16.0, 4.6), (17.2, 5.3), (18.6, 5.6), (20.0, 5.3), (21.4, 4.5), (22.6, 3.1), (23.4, 1.4),
    (23.6, 0.0),
)  # fmt: skip
_PEG_PAWN = (
    (0.0, 6.5), (1.5, 6.5), (2.0, 6.0), (14.0, 4.2), (15.0, 3.4), (16.2, 4.6), (17.8, 5.2),
    (19.4, 5.0), (20.6, 4.2), (21.6, 2.6), (22.0, 0.0),
)  # fmt: skip

# A cylinder with a dome as wide as it (piecepackr's ray-traced pawns), from the table up.
_DOME = tuple(
    (round(17.2 + 6.2 * math.sin(t), 2), round(6.2 * math.cos(t), 2))
    for t in np.radians(np.linspace(-50, 90, 9))
)
_DOME_PAWN = ((0.0, 6.3), (1.0, 6.3), (11.5, 6.0), (12.3, 5.3), *_DOME)
_CYLINDER_PAWN = ((0.0, 6.0), (15.4, 6.0), (16.0, 5.5), (16.2, 0.0))
# A turned wooden skittle: a bellied body, a thin neck and a ball head, from the table up.
_BALL = tuple(
    (round(20.0 + 4.2 * math.sin(t), 2), round(4.2 * math.cos(t), 2))
    for t in np.radians(np.linspace(-45, 90, 8))
)
_SKITTLE_PAWN = ((0.0, 6.0), (1.2, 6.0), (1.6, 5.6), (5.0, 6.2), (9.0, 5.6), (13.5, 3.4),
                 (15.0, 2.9), (16.0, 3.0), *_BALL)  # fmt: skip

# A lacquered cone with a rounded tip (Pachisi-like pawns), from the table up.
_CONE_PAWN = ((0.0, 7.0), (0.8, 7.0), (19.6, 1.5), (20.4, 1.0), (20.9, 0.5), (21.0, 0.0))

#: Burnt wood: the dark of a pyrography pen's line and the paler brown of its shading.
_BURNT, _SCORCH = (22, 42, 72), (70, 115, 165)

#: Inkjet on matte card: the pawns' print colours and the coins' pale grounds (tints of them).
_PRINT = {"suns": (40, 58, 212), "moons": (62, 54, 56), "crowns": (62, 146, 46),
          "arms": (184, 106, 38)}  # fmt: skip
_TINT = {"suns": (196, 206, 246), "moons": (226, 210, 216), "crowns": (204, 234, 206),
         "arms": (244, 224, 196)}  # fmt: skip
_INK = (48, 44, 44)

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
        tile_thickness_mm=1.6,
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
    "piecepackr": PieceArt(
        name="piecepackr",
        # piecepackr's suit colours (Okabe-Ito): #D55E00, #000000, #009E73, #0072B2
        suit_bgr={
            "suns": (0, 94, 213),
            "moons": (24, 24, 24),
            "crowns": (115, 158, 0),
            "arms": (178, 114, 0),
        },
        symbols={"suns": pp_sun, "moons": pp_moon, "crowns": pp_crown, "arms": pp_fleur},
        coin_bgr=(135, 184, 222),  # burlywood, the very colour of the tiles
        coin_edge_bgr=(112, 158, 196),
        coin_rim_bgr=None,
        mark="dot",
        tile_bgr=(135, 184, 222),
        tile_line_bgr=(20, 20, 20),
        tile_line_mm=1.5,
        tile_line_margin_mm=4.0,
        tile_border_bgr=None,
        tile_grain=0.0,
        pawn_profile=_DOME_PAWN,
        pawn_gloss=0.2,
        coin_gloss=0.15,
        tile_gloss=0.15,
        tile_corner_mm=4.5,
        tile_thickness_mm=5.0,
    ),
    "acrylic": PieceArt(
        name="acrylic",
        suit_bgr={
            "suns": (30, 40, 215),
            "moons": (45, 28, 28),
            "crowns": (45, 150, 25),
            "arms": (190, 95, 15),
        },
        symbols={"suns": sun, "moons": moon, "crowns": crown, "arms": fleur},
        coin_bgr=(235, 235, 235),  # unused for coins (coin_grounds), kept for the value side
        coin_edge_bgr=(200, 200, 200),
        coin_rim_bgr=None,
        mark="bar",
        tile_bgr=(222, 200, 170),
        tile_line_bgr=(250, 250, 248),
        tile_line_mm=0.9,
        tile_line_margin_mm=0.0,
        tile_border_bgr=None,
        tile_grain=0.0,
        pawn_profile=_CYLINDER_PAWN,
        pawn_gloss=0.7,
        coin_gloss=0.7,
        tile_gloss=0.45,
        tile_corner_mm=0.8,
        tile_thickness_mm=3.0,
        coin_grounds={
            "suns": (30, 40, 215),
            "moons": (45, 28, 28),
            "crowns": (45, 150, 25),
            "arms": (190, 95, 15),
        },
        ink_bgr=(245, 245, 245),
    ),
    "woodburned": PieceArt(
        name="woodburned",
        # oil stains on the pawns: mahogany, ebonised, olive, slate blue (muted, not printed)
        suit_bgr={
            "suns": (38, 52, 138),
            "moons": (30, 34, 44),
            "crowns": (58, 104, 82),
            "arms": (112, 78, 52),
        },
        symbols={"suns": sun, "moons": moon, "crowns": crown, "arms": fleur},
        coin_bgr=(176, 212, 234),  # pale maple, a shade off the tiles (another board)
        coin_edge_bgr=(112, 150, 184),
        coin_rim_bgr=_BURNT,
        mark="chevron",
        tile_bgr=(170, 208, 232),
        tile_line_bgr=_BURNT,
        tile_line_mm=1.3,
        tile_line_margin_mm=2.5,
        tile_border_bgr=None,
        tile_grain=0.8,
        pawn_profile=_SKITTLE_PAWN,
        pawn_gloss=0.25,
        coin_gloss=0.15,
        tile_gloss=0.2,
        tile_corner_mm=1.0,
        tile_thickness_mm=4.0,
        ink_bgr=_BURNT,
        burn_fill_bgr=_SCORCH,
        tile_frame_mm=2.5,
        tile_line_halo=0.3,
    ),
    "printplay": PieceArt(
        name="printplay",
        suit_bgr=_PRINT,
        symbols={"suns": sun, "moons": moon, "crowns": crown, "arms": fleur},
        coin_bgr=(232, 232, 230),  # unused for coins (coin_grounds)
        coin_edge_bgr=(126, 140, 152),  # grey chipboard
        coin_rim_bgr=_INK,  # the printed cut circle, a little inside the cut
        mark="arrow",
        tile_bgr=(218, 220, 222),
        tile_line_bgr=(70, 68, 68),
        tile_line_mm=0.7,
        tile_line_margin_mm=0.0,
        tile_border_bgr=(90, 90, 90),
        tile_grain=0.0,
        pawn_profile=_PEG_PAWN,  # unused: the pawns are tents
        pawn_gloss=0.05,
        coin_gloss=0.1,
        tile_gloss=0.1,
        tile_corner_mm=0.4,
        tile_thickness_mm=2.0,
        coin_grounds=_TINT,
        ink_bgr=_INK,
        symbol_outline=0.035,
        coin_core_bgr=(126, 140, 152),
        die_bgr=(236, 236, 234),
        pawn_tent=(14.0, 11.0, 21.0),
    ),
    "checkered": PieceArt(
        name="checkered",
        # inlaid enamel on ebonised wood: vermilion, silver, green, blue (moons are no black)
        suit_bgr={
            "suns": (36, 64, 222),
            "moons": (200, 200, 196),
            "crowns": (64, 160, 48),
            "arms": (204, 120, 36),
        },
        symbols={"suns": sun, "moons": moon, "crowns": crown, "arms": fleur},
        coin_bgr=(38, 36, 36),  # ebonised wood
        coin_edge_bgr=(30, 30, 32),
        coin_rim_bgr=None,
        mark="gap",
        tile_bgr=(184, 214, 234),  # pale maple quadrants
        tile_line_bgr=(184, 214, 234),  # unused: no lines (tile_check_bgr)
        tile_line_mm=0.0,
        tile_line_margin_mm=0.0,
        tile_border_bgr=None,
        tile_grain=0.6,
        pawn_profile=_CONE_PAWN,
        pawn_gloss=0.45,
        coin_gloss=0.35,
        tile_gloss=0.3,
        tile_corner_mm=1.5,
        tile_thickness_mm=4.0,
        die_bgr=(34, 32, 32),
        tile_check_bgr=(50, 72, 106),  # dark walnut quadrants
        coin_border=0.09,
    ),
}

#: The arts a rig picks from at random (``reflec.make_rig``): both splits are drawn from these.
#: The others are only rendered when asked for by name, to measure vision on unseen art.
MIXED_ARTS = ("classic", "french", "ebony")


def coin_ground(art: PieceArt, suit: str) -> BGR8:
    """The colour of a ``suit`` coin's faces."""
    return art.coin_grounds[suit] if art.coin_grounds else art.coin_bgr


def coin_edge(art: PieceArt, suit: str) -> BGR8:
    """The colour of a ``suit`` coin's rim side (a coloured coin is coloured through)."""
    if art.coin_core_bgr is not None:
        return art.coin_core_bgr
    if art.coin_grounds:
        return tuple(round(v * 0.8) for v in art.coin_grounds[suit])  # type: ignore[return-value]
    return art.coin_edge_bgr


def coin_ink(art: PieceArt, suit: str) -> BGR8:
    """The colour of the symbol and mark on a ``suit`` coin."""
    return art.ink_bgr if art.ink_bgr is not None else art.suit_bgr[suit]


def _coin_blank(art: PieceArt, size: int, suit: str = "suns") -> np.ndarray:
    """Coin background with a little grain (wood, brass) or none (printed plastic)."""
    img = np.zeros((size, size, 3), np.uint8)
    img[:] = coin_ground(art, suit)
    if art.tile_grain > 0:
        rng = np.random.default_rng(size)  # the same grain for every coin of a set: cached look
        grain = cv2.resize(rng.standard_normal((3, size // 6)).astype(np.float32), (size, size))
        img = cv2.convertScaleAbs(img.astype(np.float32) * (1 + 0.05 * grain)[..., None])
    return img


def _burn(img: np.ndarray, mask: np.ndarray, art: PieceArt, halo_px: float) -> np.ndarray:
    """``img`` with ``mask`` (uint8) burnt in: a faint scorch round it, a paler fill inside a
    dark outline (a pen's outline and shading, as woodburned sets are drawn)."""
    m = mask.astype(np.float32) / 255
    k = max(3, round(halo_px * 2) | 1)
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    edge = np.clip(m - inner.astype(np.float32) / 255, 0, 1)[..., None]
    scorch = 0.25 * cv2.GaussianBlur(m, (0, 0), halo_px)[..., None]
    out = img.astype(np.float32) * (1 - scorch)
    out = out * (1 - m[..., None]) + np.float32(art.burn_fill_bgr) * m[..., None]
    out = out * (1 - edge) + np.float32(art.ink_bgr) * edge
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _outlined(img: np.ndarray, symbol: Symbol, at, n: float, col, width: float) -> None:
    """Draw ``symbol`` on ``img`` as an outline ``width`` px wide (printed line art): the ring
    between its mask and the mask shrunk by ``width``, anti-aliased."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    symbol(mask, at[0], at[1], n, 255, 0)
    k = max(3, round(2 * width) | 1)
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ring = (mask.astype(np.float32) - inner.astype(np.float32))[..., None] / 255
    out = img.astype(np.float32) * (1 - ring) + np.float32(col) * ring
    img[:] = np.clip(out + 0.5, 0, 255).astype(np.uint8)


def pawn_face(art: PieceArt, suit: str, size: int = 96) -> np.ndarray:
    """One printed slope of a folded paper pawn (``art.pawn_tent``): the suit's colour with
    the symbol outlined in white, the ridge at the top row (BGR uint8, width by slant)."""
    w, d, h = art.pawn_tent or (14.0, 11.0, 21.0)
    rows = round(size * math.hypot(h, d / 2) / w)
    img = np.zeros((rows, size, 3), np.uint8)
    img[:] = art.suit_bgr[suit]
    white = (238, 238, 238)
    cv2.rectangle(img, (2, 2), (size - 3, rows - 3), white, max(1, size // 40), cv2.LINE_AA)
    _outlined(img, art.symbols[suit], ((size - 1) / 2, rows * 0.45), size * 0.7, white,
              size * 0.05)  # fmt: skip
    return img


#: The break at the top of a ``"gap"`` coin's border ring, degrees of arc: about 5 mm of a
#: 16 mm ring, a gap plain from across the table yet well short of the symbol's width.
GAP_DEG = 36.0
#: Ebonised wood left outside a border ring (share of the coin across): the inlay is set in.
BORDER_LIP = 0.03


def _border_ring(img: np.ndarray, art: PieceArt, col, gap_deg: float) -> None:
    """Inlay a ring ``art.coin_border`` of the coin across wide just inside its edge, broken
    by ``gap_deg`` of arc centred on the top (0: whole)."""
    size = img.shape[0]
    c = (size - 1) / 2
    width = art.coin_border * size
    r = size * (0.5 - BORDER_LIP) - width / 2
    axes = (round(r * _S), round(r * _S))
    start, end = -90 + gap_deg / 2, 270 - gap_deg / 2  # cv2: degrees clockwise from +x
    cv2.ellipse(img, _pt(c, c), axes, 0, start, end, col, max(1, round(width)), cv2.LINE_AA,
                SHIFT)  # fmt: skip


def coin_face(art: PieceArt, suit: str, size: int = 128) -> np.ndarray:
    """Suit side of a coin, ``size`` px square across the diameter, top = up (BGR uint8)."""
    img = _coin_blank(art, size, suit)
    c = (size - 1) / 2
    col = coin_ink(art, suit)
    if art.coin_rim_bgr is not None:
        _circle(img, (c, c), size * 0.46, art.coin_rim_bgr, max(1, size // 48))
    if art.coin_border > 0:
        _border_ring(img, art, col, GAP_DEG if art.mark == "gap" else 0.0)
    if art.burn_fill_bgr is not None:
        mask = np.zeros((size, size), np.uint8)
        art.symbols[suit](mask, c, c + size * 0.05, size * 0.56, 255, 0)
        img = _burn(img, mask, art, size * 0.02)
    elif art.symbol_outline > 0:
        _outlined(img, art.symbols[suit], (c, c + size * 0.05), size * 0.56, col,
                  size * art.symbol_outline)  # fmt: skip
    else:
        art.symbols[suit](img, c, c + size * 0.05, size * 0.56, col, coin_ground(art, suit))
    if art.mark == "chevron":  # a caret burnt with the pen: an open V pointing to the top
        pts = np.array([_pt(c - size * 0.09, size * 0.18), _pt(c, size * 0.08),
                        _pt(c + size * 0.09, size * 0.18)], np.int32)  # fmt: skip
        cv2.polylines(img, [pts], False, col, max(2, round(size * 0.035)), cv2.LINE_AA, SHIFT)
    elif art.mark == "dot":
        _circle(img, (c, size * 0.12), size * 0.055, col)
    elif art.mark == "arrow":  # printed: a small head on a short stem, pointing to the top
        _poly(img, [(c, size * 0.07), (c + size * 0.065, size * 0.14),
                    (c - size * 0.065, size * 0.14)], col)  # fmt: skip
        w = size * 0.018
        _poly(img, [(c - w, size * 0.13), (c + w, size * 0.13), (c + w, size * 0.21),
                    (c - w, size * 0.21)], col)  # fmt: skip
    elif art.mark == "gap":  # the border ring's break at the top is the mark: nothing drawn
        pass
    elif art.mark == "bar":  # a notch cut in from the rim, engraved like the symbol
        w, y0, y1 = size * 0.035, size * 0.03, size * 0.15
        _poly(img, [(c - w, y0), (c + w, y0), (c + w, y1), (c - w, y1)], col)
    else:
        tri = [(c, size * 0.06), (c + size * 0.08, size * 0.17), (c - size * 0.08, size * 0.17)]
        _poly(img, tri,
              col)  # fmt: skip
    return img


def coin_value_face(art: PieceArt, suit: str, value: int, size: int = 128) -> np.ndarray:
    """Value side of a coin (a numeral; 0 = the null blank) for coins off the board."""
    img = _coin_blank(art, size, suit)
    c = (size - 1) / 2
    # printed sets print the numeral in the suit colour, engraved ones engrave it; wood: ink
    col = (
        coin_ink(art, suit)
        if art.name in ("french", "piecepackr") or art.ink_bgr is not None or art.coin_border > 0
        else (40, 40, 40)
    )
    if art.coin_border > 0:  # the inlaid ring goes round both sides, whole on this one
        _border_ring(img, art, col, 0.0)
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
    if art.die_bgr is not None:  # plain dice: the suit's colour is the ink
        bg, fg = art.die_bgr, art.suit_bgr[suit]
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
