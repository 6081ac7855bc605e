"""The Piecepack Reflec table, photographed: 16 tiles laid 4x4, coins, pawns, dice, clutter.

A *rig* is what stays fixed between photos taken by one mounted camera (camera pose and lens,
table, piece art, how the tiles were laid, where the lamp is); a *shot* is one photo of a position
on that rig (light level, a hand, blur, noise...).  Every shot comes with its ground truth, a
``reflec-board/1`` dict with an added ``"synth"`` member (board corners and cell centres in the
image, cells covered by a hand, cells nobody could read in the pixels (:func:`hidden_truth`),
the difficulty levels, the camera).

Splits and seeds: ``sample("tune", i)`` and ``sample("test", i)`` draw from disjoint random
streams (keyed by the split), so tuning never sees a test image.  Shots ``i`` share rig
``i // SHOTS_PER_RIG``; ``calibration_sample(split, rig)`` photographs the ``reflec-calibration/1``
layout on that rig, for vision with a board setup.

>>> shot = sample("tune", 0, Difficulty.easy(), image_size=(480, 270))
>>> shot.image.shape, shot.truth["format"]
((270, 480, 3), 'reflec-board/1')
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from piecebridge.synth import art as artmod
from piecebridge.synth.photo import (
    BGR,
    Box,
    Camera,
    Capsule,
    Disc,
    Overlay,
    Photo,
    PhotoStyle,
    Revolved,
    ShadowBlob,
    Solid,
    make_hand,
    photograph,
)
from piecebridge.synth.standee import Tent

TILE_MM = 50.8  # Piecepack tiles are 2 inches square
CELL_MM = TILE_MM / 2
COIN_DIAMETER_MM = 19.05
COIN_THICKNESS_MM = 3.2
DIE_MM = 12.7
COLUMNS = "abcdefgh"
FACINGS = ("north", "east", "south", "west")
FACING_DEG = {"north": 0.0, "east": 90.0, "south": 180.0, "west": 270.0}
SUITS = artmod.SUITS
SPLIT_KEYS = {"tune": 7001, "test": 7002}
SHOTS_PER_RIG = 4
FACTORS = ("tilt", "lens", "blur", "light", "occlusion", "noise", "glare", "clutter")


# --------------------------------------------------------------------------------------------
# Positions
# --------------------------------------------------------------------------------------------


def parse_cell(cell: str) -> tuple[int, int]:
    """``"c4"`` -> ``(2, 3)`` (column index west->east, row index south->north)."""
    if (
        not isinstance(cell, str)
        or len(cell) != 2
        or cell[0] not in COLUMNS
        or cell[1] not in "12345678"
    ):
        raise ValueError(f"cell {cell!r} is not on the board (a1..h8)")
    return COLUMNS.index(cell[0]), int(cell[1]) - 1


def cell_name(col: int, row: int) -> str:
    return f"{COLUMNS[col]}{row + 1}"


ALL_CELLS = tuple(cell_name(c, r) for r in range(8) for c in range(8))


def validate_board(board: Mapping) -> dict:
    """Check a ``reflec-board/1`` dict and return a clean copy.

    Raises ``ValueError`` naming the offending item.
    """
    if board.get("format", "reflec-board/1") != "reflec-board/1":
        raise ValueError(f"format {board.get('format')!r} is not reflec-board/1")
    seen: dict[str, str] = {}
    coins, pawns = [], []
    for kind, items in (("coin", board.get("coins", [])), ("pawn", board.get("pawns", []))):
        for item in items:
            parse_cell(item.get("cell"))
            if item.get("suit") not in SUITS:
                raise ValueError(f"{kind} {item}: unknown suit {item.get('suit')!r}")
            if kind == "coin" and item.get("facing") not in FACINGS:
                raise ValueError(f"coin {item}: unknown facing {item.get('facing')!r}")
            if item["cell"] in seen:
                raise ValueError(
                    f"{kind} {item}: cell {item['cell']} already holds a {seen[item['cell']]}"
                )
            seen[item["cell"]] = kind
            if kind == "coin":
                coins.append({"cell": item["cell"], "suit": item["suit"], "facing": item["facing"]})
            else:
                pawns.append({"cell": item["cell"], "suit": item["suit"]})
    return {"format": "reflec-board/1", "coins": coins, "pawns": pawns}


def calibration_board() -> dict:
    """The ``reflec-calibration/1`` layout as a ``reflec-board/1`` dict (formats.md)."""
    coins = [
        {"cell": cell_name(c, r), "suit": suit, "facing": "north"}
        for r, suit in enumerate(SUITS)
        for c in range(6)
    ]
    pawns = [{"cell": cell_name(6, r), "suit": suit} for r, suit in enumerate(SUITS)]
    return {"format": "reflec-board/1", "coins": coins, "pawns": pawns}


def random_board(rng: np.random.Generator, max_coins: int = 24, max_pawns: int = 4) -> dict:
    """A legal-looking position: 2-4 players, each with a pawn and up to 6 coins of its suit.

    As in real games: after the drop round every player's 6 coins are down (a few lost to
    loops); during the drop round only some are; an eliminated player's pawn is gone but its
    coins stay on the board as neutral.  Pawns start in the corners and wander off.
    """
    players = [str(s) for s in rng.permutation(SUITS)[: int(rng.choice([2, 3, 4, 4]))]]
    out = int(rng.integers(1, len(players))) if rng.random() < 0.15 else 0  # eliminated
    alive = players[: max(0, min(len(players) - out, max_pawns))]
    cells = [str(c) for c in rng.permutation(ALL_CELLS)]
    corners = [c for c in ("a1", "h1", "h8", "a8") if rng.random() < 0.4]
    pawns = []
    for suit in alive:
        cell = corners.pop() if corners else cells[-1]
        cells.remove(cell)
        pawns.append({"cell": cell, "suit": suit})
    dropping = rng.random() < 0.3
    coins = []
    for suit in players:
        n = int(rng.integers(0, 7)) if dropping else 6 - int(rng.choice([0, 0, 0, 1, 1, 2, 3]))
        for _ in range(n):
            if len(coins) < max_coins:
                coins.append(
                    {"cell": cells.pop(), "suit": suit, "facing": str(rng.choice(FACINGS))}
                )
    return {"format": "reflec-board/1", "coins": coins, "pawns": pawns}


# --------------------------------------------------------------------------------------------
# Difficulty
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Difficulty:
    """Levels (0 = none, 1 = the hardest we render) of each named difficulty factor.

    * ``tilt`` 0-30° from vertical; ``lens`` radial distortion up to k1=-0.3;
    * ``blur`` defocus (sigma up to 2.2 px) and motion (up to 10 px);
    * ``light`` uneven, coloured light, exposure error, a phone shadow;
    * ``occlusion`` a hand/arm over the board (reaching deeper as the level rises);
    * ``noise`` sensor noise and JPEG quality (95 down to 45);
    * ``glare`` specular glare on glossy coins and tiles;
    * ``clutter`` dice, coins, tiles, a mug, a phone, paper beside the board.

    ``Difficulty.realistic()`` draws a fresh mix per rig/shot; ``Difficulty.sweep("blur", 0.8)``
    holds every factor at a mild baseline except one, so benchmarks can show weak spots.

    >>> Difficulty.sweep("tilt", 1.0).levels(np.random.default_rng(0))["tilt"]
    1.0
    """

    name: str = "realistic"
    fixed: tuple[tuple[str, float], ...] | None = None

    BASELINE = (
        ("tilt", 0.1), ("lens", 0.2), ("blur", 0.05), ("light", 0.15), ("occlusion", 0.0),
        ("noise", 0.15), ("glare", 0.1), ("clutter", 0.3),
    )  # fmt: skip

    @classmethod
    def realistic(cls) -> Difficulty:
        return cls("realistic", None)

    @classmethod
    def easy(cls) -> Difficulty:
        return cls("easy", tuple((f, 0.0) for f in FACTORS))

    @classmethod
    def baseline(cls) -> Difficulty:
        return cls("baseline", cls.BASELINE)

    @classmethod
    def sweep(cls, factor: str, level: float) -> Difficulty:
        if factor not in FACTORS:
            raise ValueError(f"unknown difficulty factor {factor!r} (one of {', '.join(FACTORS)})")
        levels = dict(cls.BASELINE)
        levels[factor] = float(level)
        return cls(f"{factor}={level:g}", tuple(levels.items()))

    @classmethod
    def parse(cls, text: str) -> Difficulty:
        """``"realistic"``, ``"easy"``, ``"baseline"`` or ``"FACTOR=LEVEL[,FACTOR=LEVEL...]"``."""
        if text in ("realistic", "easy", "baseline"):
            return getattr(cls, text)()
        levels = dict(cls.BASELINE)
        for part in text.split(","):
            name, _, value = part.partition("=")
            if name not in FACTORS or not value:
                raise ValueError(
                    f"bad difficulty {part!r}: use FACTOR=LEVEL with {', '.join(FACTORS)}"
                )
            try:
                level = float(value)
            except ValueError:
                level = -1.0
            if not 0.0 <= level <= 1.0:  # also rejects nan
                raise ValueError(f"bad difficulty {part!r}: the level must be a number 0..1")
            levels[name] = level
        return cls(text, tuple(levels.items()))

    @classmethod
    def sweeps(cls, levels: Sequence[float] = (0.0, 0.5, 1.0)) -> list[Difficulty]:
        """Every factor at each level (others at the baseline): a benchmark's weak-spot table.

        >>> [d.name for d in Difficulty.sweeps((1.0,))][:2]
        ['tilt=1', 'lens=1']
        """
        return [cls.sweep(f, lv) for f in FACTORS for lv in levels]

    def levels(self, rng: np.random.Generator) -> dict[str, float]:
        """Concrete levels for one rig+shot (draws the mix when realistic)."""
        if self.fixed is not None:
            return dict(self.fixed)
        u = rng.uniform
        return {
            "tilt": u(0, 0.6) if rng.random() < 0.8 else u(0.6, 1.0),
            "lens": u(0, 0.7),
            "blur": u(0, 0.25) if rng.random() < 0.75 else u(0.25, 0.7),
            "light": u(0.1, 0.8),
            "occlusion": u(0.3, 0.9) if rng.random() < 0.25 else 0.0,
            "noise": u(0.1, 0.7),
            "glare": u(0, 0.7),
            "clutter": u(0.2, 1.0),
        }


# --------------------------------------------------------------------------------------------
# Board layout (how the tiles were laid)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TileLayout:
    """Centres ``(4, 4, 2)`` mm and twists ``(4, 4)`` degrees of the 16 tiles.

    Tile ``[j, i]``: ``i`` west->east, ``j`` north->south.  North is ``-y`` in the world.
    """

    centers: np.ndarray
    angles: np.ndarray
    thickness_mm: float = 2.5

    def _tile_of(self, col: int, row: int) -> tuple[int, int, float, float]:
        i, qx = divmod(col, 2)
        j, qy = divmod(7 - row, 2)
        return j, i, (qx - 0.5) * CELL_MM, (qy - 0.5) * CELL_MM

    def tile_point(self, j: int, i: int, local: np.ndarray) -> np.ndarray:
        a = math.radians(self.angles[j, i])
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return np.asarray(local, float) @ rot.T + self.centers[j, i]

    def cell_center(self, cell: str) -> np.ndarray:
        """World ``(x, y)`` mm of a cell's centre on its (possibly twisted) tile."""
        j, i, ox, oy = self._tile_of(*parse_cell(cell))
        return self.tile_point(j, i, np.array([ox, oy]))

    def cell_points(self, cell: str, n: int = 5, inset: float = 0.1) -> np.ndarray:
        """``(n*n, 2)`` world points spread over a cell (for coverage tests)."""
        j, i, ox, oy = self._tile_of(*parse_cell(cell))
        g = (np.linspace(inset, 1 - inset, n) - 0.5) * CELL_MM
        gx, gy = np.meshgrid(g + ox, g + oy)
        return self.tile_point(j, i, np.column_stack([gx.ravel(), gy.ravel()]))

    def board_corners(self) -> np.ndarray:
        """Outer corners of the corner tiles, ``(4, 2)`` mm: NW (a8), NE (h8), SE (h1), SW (a1)."""
        h = TILE_MM / 2
        return np.array(
            [
                self.tile_point(0, 0, np.array([-h, -h])),
                self.tile_point(0, 3, np.array([h, -h])),
                self.tile_point(3, 3, np.array([h, h])),
                self.tile_point(3, 0, np.array([-h, h])),
            ]
        )

    def tile_corners(self, j: int, i: int, shrink_mm: float = 0.0) -> np.ndarray:
        h = TILE_MM / 2 - shrink_mm
        return self.tile_point(j, i, np.array([(-h, -h), (h, -h), (h, h), (-h, h)]))


def make_layout(
    rng: np.random.Generator,
    gap_mm: tuple[float, float] = (0.3, 2.5),
    twist_deg: float = 1.2,
    jitter_mm: float = 0.8,
    thickness_mm: float = 2.5,
) -> TileLayout:
    """Tiles laid by hand: gaps vary per row/column, each tile shifted and twisted a little."""
    gaps_x = rng.uniform(*gap_mm, size=3)
    gaps_y = rng.uniform(*gap_mm, size=3)
    xs = np.concatenate([[0], np.cumsum(TILE_MM + gaps_x)])
    ys = np.concatenate([[0], np.cumsum(TILE_MM + gaps_y)])
    xs -= xs.mean()
    ys -= ys.mean()
    centers = np.zeros((4, 4, 2))
    centers[..., 0] = xs[None, :]
    centers[..., 1] = ys[:, None]
    centers += rng.normal(0, jitter_mm / 2, size=(4, 4, 2))
    angles = np.clip(rng.normal(0, twist_deg / 2, size=(4, 4)), -twist_deg * 1.5, twist_deg * 1.5)
    return TileLayout(centers, angles, thickness_mm)


# --------------------------------------------------------------------------------------------
# Table, tiles
# --------------------------------------------------------------------------------------------

TABLES = ("wood", "dark-wood", "felt", "laminate", "cloth")


def _noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth noise (float32, ~N(0,1)) by upscaling a small random grid."""
    small = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def draw_table(
    kind: str, shape: tuple[int, int], mm_per_px: float, rng: np.random.Generator
) -> np.ndarray:
    """A top-down table surface (BGR uint8) of ``shape`` pixels at ``mm_per_px``."""
    h, w = shape
    wmm, hmm = w * mm_per_px, h * mm_per_px
    if kind in ("wood", "dark-wood"):
        base = np.array((70, 120, 170) if kind == "wood" else (35, 55, 85), np.float32)
        vertical = rng.random() < 0.5
        # grain: fine stripes along one axis, slow variation along the other
        along = (
            (max(2, int(wmm / 300)), max(2, int(hmm / 3)))
            if not vertical
            else (max(2, int(wmm / 3)), max(2, int(hmm / 300)))
        )
        grain = _noise(rng, (h, w), along)
        blotch = _noise(rng, (h, w), (max(2, int(wmm / 80)), max(2, int(hmm / 80))))
        v = 1 + 0.10 * grain + 0.06 * blotch
        img = base[None, None, :] * v[..., None]
        # plank seams
        plank = rng.uniform(90, 180)
        for k in range(int((wmm if vertical else hmm) / plank) + 1):
            pos = int(k * plank / mm_per_px)
            if vertical:
                img[:, pos : pos + 2] *= 0.55
            else:
                img[pos : pos + 2] *= 0.55
    elif kind == "felt":
        base = np.array(
            rng.choice([(60, 110, 30), (110, 60, 30), (60, 60, 60), (40, 40, 110)]), np.float32
        )
        fine = rng.standard_normal((h, w)).astype(np.float32)
        fine = cv2.GaussianBlur(fine, (0, 0), 0.8)
        v = (
            1
            + 0.12 * fine
            + 0.05 * _noise(rng, (h, w), (max(2, int(wmm / 60)), max(2, int(hmm / 60))))
        )
        img = base[None, None, :] * v[..., None]
    elif kind == "laminate":
        base = np.array(rng.choice([(225, 225, 220), (190, 200, 205), (150, 150, 150)]), np.float32)
        speck = (rng.random((h, w)) < 0.01).astype(np.float32)
        v = (
            1
            + 0.03 * _noise(rng, (h, w), (max(2, int(wmm / 50)), max(2, int(hmm / 50))))
            - 0.25 * speck
        )
        img = base[None, None, :] * v[..., None]
    else:  # checked table cloth: a grid-like pattern right beside the board
        c1 = np.array(rng.choice([(60, 60, 190), (150, 90, 40), (60, 140, 60)]), np.float32)
        c2 = np.array((225, 230, 235), np.float32)
        period = rng.uniform(18, 40) / mm_per_px
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = ((xx // period) % 2).astype(np.float32)
        b = ((yy // period) % 2).astype(np.float32)
        mix = (a + b) / 2
        img = c2[None, None, :] * (1 - mix[..., None]) + c1[None, None, :] * mix[..., None]
        img *= (1 + 0.04 * rng.standard_normal((h, w)).astype(np.float32))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=4)
def _tile_frame(px: int, corner_mm: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """Edge darkening (worn bevel) and rounded-corner alpha (radius ``corner_mm``) of a
    ``px`` square tile."""
    mm = TILE_MM / px
    yy, xx = np.mgrid[0:px, 0:px]
    d = np.minimum(np.minimum(xx, px - 1 - xx), np.minimum(yy, px - 1 - yy)) * mm
    shade = (1 - 0.25 * np.clip(1 - d / 0.8, 0, 1)).astype(np.float32)
    alpha = np.zeros((px, px), np.uint8)
    r = corner_mm / mm
    cv2.rectangle(alpha, (round(r), 0), (round(px - 1 - r), px - 1), 255, -1)
    cv2.rectangle(alpha, (0, round(r)), (px - 1, round(px - 1 - r)), 255, -1)
    for cx, cy in ((r, r), (px - 1 - r, r), (r, px - 1 - r), (px - 1 - r, px - 1 - r)):
        cv2.circle(alpha, (round(cx * 16), round(cy * 16)), round(r * 16), 255, -1, cv2.LINE_AA, 4)
    return shade, alpha


def _tile_texture(art: artmod.PieceArt, px: int, rng: np.random.Generator) -> np.ndarray:
    """Grid side of one tile, ``px`` square, BGRA (alpha = rounded tile outline)."""
    mm = TILE_MM / px
    shade, alpha = _tile_frame(px, art.tile_corner_mm)
    if art.tile_grain > 0:
        along_x = rng.random() < 0.5  # grain runs one way or the other
        cells = (max(2, px // 40), 3) if along_x else (3, max(2, px // 40))
        fine_cells = (px // 3, 4) if along_x else (4, px // 3)
        v = 0.05 * _noise(rng, (px, px), cells) + 0.05 * _noise(rng, (px, px), fine_cells)
        v = 1 + art.tile_grain * v + rng.normal(0, 0.04)
    else:
        v = 1 + 0.01 * _noise(rng, (px, px), (6, 6))
    v *= shade
    if art.tile_check_bgr is not None:  # the grid by tone alone: no line to draw
        return np.dstack([_checkered(v, art), alpha])
    img = cv2.convertScaleAbs(v[..., None] * np.array(art.tile_bgr, np.float32))
    c = (px - 1) / 2
    half = art.tile_line_mm / 2 / mm
    m = art.tile_line_margin_mm / mm
    col = [int(v) for v in np.array(art.tile_line_bgr) * rng.uniform(0.9, 1.05)]
    s = 16
    lo, hi, a0, a1 = (
        round((c - half) * s),
        round((c + half) * s),
        round(m * s),
        round((px - 1 - m) * s),
    )
    if art.tile_frame_mm is not None or art.tile_line_halo > 0:
        img = _burnt_grid(img, art, (lo, hi, a0, a1), col, rng)
    else:
        cv2.rectangle(img, (lo, a0), (hi, a1), col, -1, cv2.LINE_AA, 4)
        cv2.rectangle(img, (a0, lo), (a1, hi), col, -1, cv2.LINE_AA, 4)
    if art.tile_border_bgr is not None:
        cv2.rectangle(img, (0, 0), (px - 1, px - 1), art.tile_border_bgr, max(1, round(0.4 / mm)))
    return np.dstack([img, alpha])


def _checkered(v: np.ndarray, art: artmod.PieceArt) -> np.ndarray:
    """A tile's 2x2 grid shown by tone (checkered art): the quadrants top-left and bottom-right
    in ``art.tile_check_bgr``, the others in ``art.tile_bgr``, each times the shading ``v``
    (grain, worn edges); the inlay's seams are anti-aliased, no line is drawn (BGR uint8)."""
    px = v.shape[0]
    c = (px - 1) / 2
    ramp = np.clip(np.arange(px, dtype=np.float32) - c + 0.5, 0, 1)  # 0 left/top, 1 right/bottom
    dark = ramp[:, None] * ramp[None, :] + (1 - ramp[:, None]) * (1 - ramp[None, :])
    col = dark[..., None] * np.float32(art.tile_check_bgr) + (1 - dark[..., None]) * np.float32(
        art.tile_bgr
    )
    return cv2.convertScaleAbs(v[..., None] * col)


def _burnt_grid(
    img: np.ndarray,
    art: artmod.PieceArt,
    cross: tuple[int, int, int, int],
    col: list[int],
    rng: np.random.Generator,
) -> np.ndarray:
    """The grid burnt into a tile (woodburned art): the cross ``(lo, hi, a0, a1)`` (1/16 px,
    as drawn for the other arts) and a frame ``tile_frame_mm`` in from the edges, darker where
    the pen dwelt, with a scorched halo round the lines."""
    px = img.shape[0]
    mm = TILE_MM / px
    lo, hi, a0, a1 = cross
    mask = np.zeros((px, px), np.uint8)
    if art.tile_frame_mm is not None:
        half = art.tile_line_mm / 2 / mm
        f0, f1 = art.tile_frame_mm / mm - half, px - 1 - art.tile_frame_mm / mm + half
        cv2.rectangle(mask, _px16(f0, f0), _px16(f1, f1), 255, -1, cv2.LINE_AA, 4)
        g0, g1 = f0 + 2 * half, f1 - 2 * half
        cv2.rectangle(mask, _px16(g0, g0), _px16(g1, g1), 0, -1, cv2.LINE_AA, 4)
    cv2.rectangle(mask, (lo, a0), (hi, a1), 255, -1, cv2.LINE_AA, 4)
    cv2.rectangle(mask, (a0, lo), (a1, hi), 255, -1, cv2.LINE_AA, 4)
    a = mask.astype(np.float32) / 255
    a *= np.clip(0.88 + 0.1 * _noise(rng, (px, px), (8, 8)), 0.6, 1.0)  # the pen's dwell
    halo = art.tile_line_halo * cv2.GaussianBlur(a, (0, 0), 0.5 / mm)
    out = img.astype(np.float32) * (1 - halo[..., None])
    out = out * (1 - a[..., None]) + np.float32(col) * a[..., None]
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _px16(x: float, y: float) -> tuple[int, int]:
    return round(x * 16), round(y * 16)


def _board_overlay(
    layout: TileLayout, art: artmod.PieceArt, rng: np.random.Generator, mm_per_px: float
) -> Overlay:
    """All 16 tiles drawn on one BGRA raster lying at the tiles' top height."""
    corners = np.concatenate([layout.tile_corners(j, i) for j in range(4) for i in range(4)])
    lo = corners.min(0) - 2.0
    hi = corners.max(0) + 2.0
    w, h = np.ceil((hi - lo) / mm_per_px).astype(int) + 1
    out = np.zeros((h, w, 4), np.uint8)
    tpx = round(TILE_MM / mm_per_px)
    for j in range(4):
        for i in range(4):
            tex = _tile_texture(art, tpx, rng)
            a = math.radians(layout.angles[j, i])
            # texture pixel -> overlay pixel
            cx, cy = (layout.centers[j, i] - lo) / mm_per_px
            k = (TILE_MM / tpx) / mm_per_px
            m = np.array(
                [
                    [k * math.cos(a), -k * math.sin(a), 0.0],
                    [k * math.sin(a), k * math.cos(a), 0.0],
                ]
            )
            t = (tpx - 1) / 2
            m[:, 2] = np.array([cx, cy]) - m[:, :2] @ np.array([t, t])
            x0 = max(int(cx - tpx * 0.75), 0)
            y0 = max(int(cy - tpx * 0.75), 0)
            x1 = min(int(cx + tpx * 0.75) + 1, w)
            y1 = min(int(cy + tpx * 0.75) + 1, h)
            m[:, 2] -= (x0, y0)
            patch = cv2.warpAffine(
                tex, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
            )
            a8 = patch[..., 3:4].astype(np.float32) / 255
            reg = out[y0:y1, x0:x1].astype(np.float32)
            blended = reg * (1 - a8) + patch.astype(np.float32) * a8
            blended[..., 3] = np.maximum(reg[..., 3], patch[..., 3])
            out[y0:y1, x0:x1] = blended.astype(np.uint8)
    return Overlay(
        out, mm_per_px, (float(lo[0]), float(lo[1])), layout.thickness_mm, art.tile_gloss
    )


# --------------------------------------------------------------------------------------------
# Rig and shot
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rig:
    """The fixed parts of a camera setup (see module doc)."""

    camera: Camera
    art: str
    layout: TileLayout
    table: str
    table_seed: int
    lamp_offset_mm: tuple[float, float, float]
    tint: float  # -1 cool daylight .. +1 warm lamp
    levels: dict = field(default_factory=dict)

    def replace(self, **changes: object) -> Rig:
        return dataclasses.replace(self, **changes)


@dataclass
class Shot:
    """One rendered photo: ``image`` (BGR uint8), ``truth`` (reflec-board/1 + ``"synth"``)."""

    image: np.ndarray
    truth: dict
    photo: Photo
    rig: Rig


def make_rig(
    rng: np.random.Generator,
    levels: Mapping[str, float],
    *,
    art: str | None = None,
    image_size: tuple[int, int] = (1920, 1080),
) -> Rig:
    """Draw a camera setup: lens from ``levels['lens']``, tilt from ``levels['tilt']``."""
    w, h = image_size
    hfov = math.radians(rng.uniform(55, 75))
    f = (w / 2) / math.tan(hfov / 2)
    lens = levels.get("lens", 0.0)
    k1 = -0.3 * lens * rng.uniform(0.7, 1.0)
    k2 = -0.3 * k1 * rng.uniform(0, 1)
    # a real lens of this field still shows every pixel: keep the image corner inside the
    # range of the distortion polynomial (wide, square frames get a milder lens)
    corner = math.hypot(w / 2, h / 2) / f
    r = np.linspace(0, 3, 600)
    while k1 < 0 and (r * (1 + k1 * r**2 + k2 * r**4)).max() < 1.1 * corner:
        k1, k2 = k1 * 0.8, k2 * 0.8
    dist = (k1, k2, *rng.normal(0, 0.0015 * lens, 2), 0.0)
    # the mix (artmod.MIXED_ARTS): half classic, 30% french, 20% ebony; the other arts only
    # when named, and the draw is made either way so a named art leaves the rest of the rig
    pick = rng.random()
    if art is not None and art not in artmod.ART:
        raise ValueError(f"unknown art {art!r} (one of {', '.join(artmod.ART)})")
    art_name = art or ("classic" if pick < 0.5 else "french" if pick < 0.8 else "ebony")
    layout = make_layout(rng, thickness_mm=artmod.ART[art_name].tile_thickness_mm)
    cam = Camera(
        image_size=image_size,
        focal_px=f,
        principal_px=(w / 2 - 0.5 + rng.normal(0, w / 200), h / 2 - 0.5 + rng.normal(0, h / 200)),
        dist_coeffs=tuple(float(v) for v in dist),
        target_mm=tuple(float(v) for v in rng.normal(0, 12, 2)),
        height_mm=500.0,
        tilt_deg=30.0 * levels.get("tilt", 0.0),
        tilt_azimuth_deg=float(rng.uniform(0, 360)),
        yaw_deg=float(np.clip(rng.normal(0, 5), -12, 12)),
    )
    fill = rng.uniform(0.62, 0.88)
    corners = layout.board_corners()
    cam = cam.fitted(np.column_stack([corners, np.full(4, layout.thickness_mm)]), fill)
    lamp_dir = rng.uniform(0, 2 * math.pi)
    lamp = (
        float(math.cos(lamp_dir) * rng.uniform(50, 600)),
        float(math.sin(lamp_dir) * rng.uniform(50, 600)),
        float(rng.uniform(500, 1400)),
    )
    return Rig(
        camera=cam,
        art=art_name,
        layout=layout,
        table=str(rng.choice(TABLES)),
        table_seed=int(rng.integers(2**31)),
        lamp_offset_mm=lamp,
        tint=float(rng.uniform(-1, 1)),
        levels=dict(levels),
    )


def _style(rig: Rig, levels: Mapping[str, float], rng: np.random.Generator) -> PhotoStyle:
    """Light and degradations of one shot from the factor levels.

    Every random number is drawn up front in a fixed order, so two shots that differ only in
    one factor's level differ only in that factor.
    """
    light, glare = levels.get("light", 0.0), levels.get("glare", 0.0)
    blur, noise = levels.get("blur", 0.0), levels.get("noise", 0.0)
    u = rng.random(12)
    shadow_at = rng.normal(0, 80, 2)
    wb_noise = rng.normal(0, 1, 3)
    spot_xy = rng.uniform(-100, 100, (4, 2))
    spot_r = rng.uniform(12, 35, 4)
    tint = rig.tint * light
    warm = (1 - 0.25 * max(tint, 0), 1 - 0.08 * abs(tint), 1 - 0.2 * max(-tint, 0))
    cool = (warm[2], warm[1], warm[0])
    t = np.asarray(rig.camera.target_mm)
    shadows: list[ShadowBlob] = []
    if u[0] < light:  # the photographer's phone or head between lamp and table
        shadows.append(
            ShadowBlob(
                tuple(float(v) for v in t + shadow_at),
                (80 + 140 * u[1], 60 + 100 * u[2]),
                180 * u[3],
                strength=float(0.15 + 0.4 * light * (0.5 + 0.5 * u[4])),
                softness_mm=15 + 25 * u[5],
            )
        )
    # reflections of other lights (a window, a ceiling lamp) somewhere on the board
    n_spots = 1 + int(u[6] * (1 + 2 * glare)) if glare > 0.15 else 0
    spots = tuple(
        (float(t[0] + spot_xy[k, 0]), float(t[1] + spot_xy[k, 1]), float(spot_r[k]))
        for k in range(min(n_spots, 4))
    )
    return PhotoStyle(
        lamp_offset_mm=rig.lamp_offset_mm,
        lamp_bgr=warm,
        ambient=float(np.clip(0.55 - 0.3 * light * (0.5 + 0.5 * u[7]), 0.2, 1)),
        ambient_bgr=cool,
        gradient=float(0.45 * light * (0.3 + 0.7 * u[8])),
        gradient_angle_deg=float(360 * u[9]),
        vignette=float(0.08 + 0.3 * light),
        flicker=float(0.06 * light) if u[8] < 0.3 else 0.0,
        flicker_period_px=float(rig.camera.image_size[1] / (4 + 8 * u[9])),
        flicker_phase=float(2 * np.pi * u[10]),
        exposure=float(np.clip(1 + 0.15 * light * wb_noise[0], 0.65, 1.3)),
        white_balance_bgr=tuple(float(1 + 0.06 * light * v) for v in np.roll(wb_noise, 1)),
        cast_shadow_strength=float(0.3 + 0.3 * light),
        shadows=tuple(shadows),
        glare=float(1.3 * glare),
        glare_radius_mm=float(25 + 35 * u[10]),
        glare_spots=spots,
        ground_gloss=float(0.05 + 0.15 * glare),
        defocus_sigma_px=float(2.2 * blur * (0.5 + 0.5 * u[11])),
        motion_px=float(10 * blur * (0.3 + 0.7 * u[2])) if u[3] < 0.5 else 0.0,
        motion_angle_deg=float(180 * u[4]),
        # a hand in the photo is often moving: blur it alone, along its arm
        hand_motion_px=float(25 * levels.get("occlusion", 0.0) * u[5] * (u[1] < 0.5)),
        hand_motion_angle_deg=float(180 * u[6]),
        sharpen=float(0.8 * noise * u[0]),
        noise_sigma=float(0.003 + 0.025 * noise),
        shot_noise=float(0.01 + 0.05 * noise),
        jpeg_quality=round(95 - 50 * noise),
    )


def _piece_rng(rig: Rig, cell: str, suit: str, kind: int) -> np.random.Generator:
    """Where exactly a piece sits in its cell: fixed per rig, cell and piece, so a piece that
    is not touched stays put from one shot to the next (as in a recording)."""
    return np.random.default_rng([rig.table_seed, ALL_CELLS.index(cell), SUITS.index(suit), kind])


def _pieces(
    board: Mapping, rig: Rig
) -> tuple[list[Solid], dict[str, tuple[float, float, float, float]]]:
    """Coins and pawns as solids, and each piece's ``(x, y, base, top)`` mm by cell (in the
    order of the solids).

    A board item may carry ``"offset_mm": [dx, dy]`` (from the cell centre), ``"lift_mm"``
    (held above the board) and ``"turn_deg"`` (extra clockwise turn) to show a piece being
    moved; these are rendering hints, not part of ``reflec-board/1``.
    """
    art = artmod.ART[rig.art]
    lay = rig.layout
    solids: list[Solid] = []
    where: dict[str, tuple[float, float, float, float]] = {}
    faces = {s: artmod.coin_face(art, s) for s in SUITS}
    for kind, items in ((0, board.get("coins", [])), (1, board.get("pawns", []))):
        for item in items:
            cell, suit = item["cell"], item["suit"]
            rng = _piece_rng(rig, cell, suit, kind)
            # hands place pieces roughly: mostly near the centre, now and then well off it
            sloppy = rng.random() < 0.12
            jitter = rng.normal(0, 1.0, 2) + (rng.normal(0, 2.5, 2) if sloppy else 0.0)
            twist = rng.normal(0, 3.0) + (rng.normal(0, 7.0) if sloppy else 0.0)
            c = lay.cell_center(cell) + jitter + np.asarray(item.get("offset_mm", (0, 0)), float)
            base = lay.thickness_mm + float(item.get("lift_mm", 0.0))
            j, i, _, _ = lay._tile_of(*parse_cell(cell))
            turn = float(lay.angles[j, i]) + twist + float(item.get("turn_deg", 0.0))
            if kind == 0:
                solid = Disc(
                    tuple(c), COIN_DIAMETER_MM / 2, COIN_THICKNESS_MM,
                    tuple(np.asarray(artmod.coin_edge(art, suit)) / 255), faces[suit],
                    FACING_DEG[item["facing"]] + turn, gloss=art.coin_gloss, base_mm=base,
                )  # fmt: skip
            elif art.pawn_tent is not None:  # a folded paper pawn, set down square-ish
                solid = Tent(
                    tuple(c), turn + 90.0 * int(rng.integers(2)) + float(rng.normal(0, 12)),
                    art.pawn_tent, artmod.pawn_face(art, suit), (0.9, 0.9, 0.9),
                    gloss=art.pawn_gloss, step_mm=0.5, base_mm=base,
                )  # fmt: skip
            else:
                solid = Revolved(
                    tuple(c), art.pawn_profile, np.asarray(art.suit_bgr[suit]) / 255,
                    gloss=art.pawn_gloss, shininess=25.0, step_mm=0.7, base_mm=base,
                )  # fmt: skip
            where[cell] = (float(c[0]), float(c[1]), base, solid.top_mm)
            solids.append(solid)
    return solids, where


def _label_texture(bgr: tuple[int, int, int], text: str, ink=(30, 30, 30)) -> np.ndarray:
    """A square texture with one centred label (the 4-3-2-1 tiles)."""
    tex = np.zeros((128, 128, 3), np.uint8)
    tex[:] = bgr
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 2.4, 6)
    org = ((128 - tw) // 2, (128 + th) // 2)
    cv2.putText(tex, text, org, cv2.FONT_HERSHEY_SIMPLEX, 2.4, ink, 6, cv2.LINE_AA)
    return tex


def _clutter_item(
    kind: str, p: np.ndarray, art: artmod.PieceArt, suit: str, rng: np.random.Generator
) -> Solid:
    """One thing that lies beside a board, at ``p`` (mm)."""
    at = (float(p[0]), float(p[1]))
    if kind == "die":
        tex = artmod.die_face(art, suit, int(rng.integers(0, 6)))
        col = np.asarray(art.suit_bgr[suit] if art.name != "french" else (235, 235, 235)) / 255
        if art.die_bgr is not None:
            col = np.asarray(art.die_bgr) / 255
        return Box(at, (DIE_MM, DIE_MM), DIE_MM, tuple(col), float(rng.uniform(0, 90)), 1.5, tex,
                   gloss=0.3)  # fmt: skip
    if kind == "tile":  # one of the 4-3-2-1 action-point tiles
        v = int(rng.integers(1, 5))
        tex = _label_texture(art.tile_bgr, "A" if v == 1 else str(v))
        col = tuple(np.asarray(art.tile_bgr) / 300)
        return Box(at, (TILE_MM, TILE_MM), 2.5, col, float(rng.uniform(-20, 20)), 2.0, tex,
                   gloss=0.1)  # fmt: skip
    if kind == "coin":  # a spare coin, value side up
        tex = artmod.coin_value_face(art, suit, int(rng.integers(0, 6)))
        edge = tuple(np.asarray(artmod.coin_edge(art, suit)) / 255)
        return Disc(at, COIN_DIAMETER_MM / 2, COIN_THICKNESS_MM, edge, tex,
                    float(rng.uniform(0, 360)), gloss=art.coin_gloss)  # fmt: skip
    if kind == "pencil":
        return Box(at, (150, 7), 7, (0.1, 0.75, 0.95), float(rng.uniform(0, 180)), 3.0, gloss=0.2)
    if kind == "mug":  # tall: near the frame edge it leans far out, as in a real photo
        mug = tuple(int(v) for v in rng.integers(40, 230, 3))
        tex = np.zeros((128, 128, 3), np.uint8)
        tex[:] = mug
        cv2.circle(tex, (64, 64), 54, (20, 40, 60), -1, cv2.LINE_AA)
        return Revolved(at, [(0, 33), (3, 36), (90, 40), (95, 40)], tuple(np.asarray(mug) / 255),
                        tex, gloss=0.5, step_mm=10.0)  # fmt: skip
    # a phone, screen up
    tex = np.full((160, 80, 3), 25, np.uint8)
    tex[6:-6, 4:-4] = (45, 35, 30)
    return Box(at, (72, 150), 8, (0.15, 0.15, 0.17), float(rng.uniform(0, 180)), 8.0, tex,
               gloss=0.6)  # fmt: skip


_CLUTTER_RADIUS = {"die": 10, "tile": 37, "coin": 11, "pencil": 50, "mug": 45, "phone": 80}


def _clutter(
    rig: Rig, level: float, rng: np.random.Generator, board_suits: Sequence[str]
) -> list[Solid]:
    """Things beside the board: dice, the 4-3-2-1 tiles, spare coins, a mug, phone, pencil."""
    art = artmod.ART[rig.art]
    corners = rig.layout.board_corners()
    lo, hi = corners.min(0), corners.max(0)
    placed: list[tuple[np.ndarray, float]] = []

    def spot(radius: float) -> np.ndarray | None:
        """A free place 12-90 mm off a board edge, or None."""
        for _ in range(30):
            side = int(rng.integers(4))
            dist = rng.uniform(12, 90) + radius
            if side in (0, 2):
                x = rng.uniform(lo[0] - 60, hi[0] + 60)
                y = lo[1] - dist if side == 0 else hi[1] + dist
            else:
                y = rng.uniform(lo[1] - 60, hi[1] + 60)
                x = lo[0] - dist if side == 3 else hi[0] + dist
            p = np.array([x, y])
            if all(np.linalg.norm(p - q) > radius + r + 4 for q, r in placed):
                placed.append((p, radius))
                return p
        return None

    kinds = ["die", "die", "tile", "coin", "coin", "pencil", "mug", "phone", "tile", "die"]
    solids: list[Solid] = []
    for kind in list(rng.permutation(kinds))[: round(level * 8)]:
        suit = str(rng.choice(board_suits or SUITS))
        p = spot(_CLUTTER_RADIUS[str(kind)])
        if p is not None:
            solids.append(_clutter_item(str(kind), p, art, suit, rng))
    return solids


@dataclass(frozen=True)
class HandPose:
    """Where a hand is: fingertips over ``target_mm`` at ``height_mm``, the arm coming from
    ``from_angle_deg`` (0 = south/``+y``, 90 = east/``+x``); ``seed`` fixes its look."""

    target_mm: tuple[float, float]
    from_angle_deg: float
    height_mm: float = 60.0
    scale: float = 1.0
    seed: int = 0

    def capsules(self) -> list[Capsule]:
        rng = np.random.default_rng(self.seed)
        return make_hand(rng, self.target_mm, self.from_angle_deg, self.height_mm, scale=self.scale)


def hand_reaching(
    rig: Rig,
    cell: str,
    progress: float = 1.0,
    from_angle_deg: float = 180.0,
    height_mm: float = 40.0,
    seed: int = 0,
) -> HandPose:
    """A hand on its way to ``cell``: ``progress`` 0 = still outside the photo, 1 = fingertips
    on the cell.  For recordings: step ``progress`` over frames to make a hand come and go.

    >>> rig = rig_for("tune", 0, image_size=(320, 180))
    >>> hand_reaching(rig, "d4", 1.0).target_mm == tuple(rig.layout.cell_center("d4"))
    True
    """
    a = math.radians(from_angle_deg)
    back = np.array([math.sin(a), math.cos(a)])
    goal = rig.layout.cell_center(cell)
    x0, y0, x1, y1 = rig.camera.footprint_mm()
    out = float(np.hypot(x1 - x0, y1 - y0))  # far enough to be out of view
    p = float(np.clip(progress, 0.0, 1.0))
    target = goal + back * out * (1 - p)
    lift = height_mm + 80.0 * (1 - p)
    return HandPose((float(target[0]), float(target[1])), from_angle_deg, lift, 1.0, seed)


def _hand(rig: Rig, level: float, rng: np.random.Generator) -> list[Capsule]:
    """A hand reaching over the board from a random side, deeper as ``level`` rises."""
    if level <= 0:
        return []
    from_deg = float(rng.uniform(0, 360))
    a = math.radians(from_deg)
    back = np.array([math.sin(a), math.cos(a)])
    # fingertips at a distance from the board centre that shrinks with the level
    reach = 130 * (1 - level) * rng.uniform(0.7, 1.1)
    target = np.asarray(rig.layout.centers.mean((0, 1))) + back * reach + rng.normal(0, 20, 2)
    height = float(rng.uniform(15, 110))
    return make_hand(
        rng, tuple(target), from_deg, height_mm=height, scale=float(rng.uniform(0.9, 1.1))
    )


_SCENE_CACHE: dict[tuple, tuple] = {}


def _rig_scene(
    rig: Rig,
) -> tuple[np.ndarray, np.ndarray, float, tuple[float, float], Overlay]:
    """Table raster and tile overlay of a rig; cached, since every shot of a rig shares them."""
    lay = rig.layout
    key = (rig.camera, rig.art, rig.table, rig.table_seed, lay.centers.tobytes(),
           lay.angles.tobytes(), lay.thickness_mm)  # fmt: skip
    if key in _SCENE_CACHE:
        return _SCENE_CACHE[key]
    art = artmod.ART[rig.art]
    cam = rig.camera
    # raster scales: the board finer than one image pixel, the table coarser where it is far
    board_scale = max(0.05, cam.mm_per_px_at(cam.target_mm) * 0.7)
    x0, y0, x1, y1 = cam.footprint_mm(margin_px=8)
    c = lay.centers.mean((0, 1))
    x0, y0 = max(x0, c[0] - 1200), max(y0, c[1] - 1200)
    x1, y1 = min(x1, c[0] + 1200), min(y1, c[1] + 1200)
    table_scale = max(board_scale * 1.5, math.sqrt((x1 - x0) * (y1 - y0) / 1.5e6))
    tw, th = int((x1 - x0) / table_scale) + 2, int((y1 - y0) / table_scale) + 2
    plain = draw_table(rig.table, (th, tw), table_scale, np.random.default_rng(rig.table_seed))
    board_ov = _board_overlay(lay, art, np.random.default_rng(rig.table_seed + 1), board_scale)
    # tile sides at table level show below the raised tops where the camera sees them
    world = plain.copy()
    side = (np.asarray(art.tile_bgr, np.float32) * 0.55).tolist()
    for j in range(4):
        for i in range(4):
            poly = (lay.tile_corners(j, i, 0.3) - (x0, y0)) / table_scale
            cv2.fillConvexPoly(world, np.round(poly * 16).astype(np.int32), side, cv2.LINE_AA, 4)
    if len(_SCENE_CACHE) >= 2:
        _SCENE_CACHE.pop(next(iter(_SCENE_CACHE)))
    _SCENE_CACHE[key] = (world, plain, table_scale, (x0, y0), board_ov)
    return _SCENE_CACHE[key]


def render_shot(
    board: Mapping,
    rig: Rig,
    levels: Mapping[str, float],
    rng: np.random.Generator,
    *,
    noise_rng: np.random.Generator | None = None,
    hand: bool | HandPose | Sequence[Capsule] | None = None,
    hand_colour: BGR | None = None,
    board_in_view: bool = True,
) -> Shot:
    """Photograph ``board`` (reflec-board/1) on ``rig`` with the given difficulty levels.

    ``hand``: ``None`` = as the occlusion level says, ``False``/``True`` = none/a random one,
    a :class:`HandPose` (see :func:`hand_reaching`) or explicit capsules. ``hand_colour``
    (BGR, 0-1) paints the whole hand and sleeve one colour, a glove or a white sleeve; the
    hand's shape and everything else stay as without it.
    ``board_in_view=False`` leaves the tiles and pieces off the table (a negative photo).
    Pieces in ``board`` may carry rendering hints (see :func:`_pieces`).
    """
    clean = validate_board(board)
    cam = rig.camera
    # separate streams, so changing one factor's level leaves the rest of the photo alone
    style_rng, _, hand_rng = rng.spawn(3)
    style = _style(rig, levels, style_rng)
    world, plain, table_scale, origin, board_ov = _rig_scene(rig)
    pieces, where = _pieces(board, rig) if board_in_view else ([], {})
    by_cell = dict(zip(where, pieces, strict=True))
    suits = sorted({p["suit"] for p in clean["pawns"]})
    clutter = _clutter(
        rig, levels.get("clutter", 0.0), np.random.default_rng(rig.table_seed + 2), suits
    )
    if isinstance(hand, HandPose):
        caps = hand.capsules()
    elif hand is not None and not isinstance(hand, bool):
        caps = list(hand)
    else:
        want = levels.get("occlusion", 0.0) > 0 if hand is None else hand
        caps = _hand(rig, max(levels.get("occlusion", 0.0), 0.3), hand_rng) if want else []
    if hand_colour is not None:
        caps = [dataclasses.replace(c, bgr=tuple(hand_colour)) for c in caps]
    photo = photograph(
        world if board_in_view else plain,
        table_scale,
        cam,
        style,
        noise_rng if noise_rng is not None else rng,
        world_origin_mm=origin,
        overlays=[board_ov] if board_in_view else (),
        solids=[*pieces, *clutter],
        occluders=caps,
    )
    truth = dict(clean)
    truth["synth"] = _synth_truth(photo, rig, levels, where)
    truth["synth"].update(hidden_truth(photo, rig, by_cell))
    truth["synth"]["board_in_view"] = board_in_view
    return Shot(photo.image, truth, photo, rig)


def _synth_truth(
    photo: Photo, rig: Rig, levels: Mapping[str, float], where: Mapping[str, tuple]
) -> dict:
    """The ``"synth"`` member: geometry in the image and the cells nobody could read."""
    lay = rig.layout
    t = lay.thickness_mm
    corners = photo.project(np.column_stack([lay.board_corners(), np.full(4, t)]))
    grid = np.concatenate([lay.cell_points(c) for c in ALL_CELLS])  # 25 points per cell
    centers = photo.project(
        np.column_stack([np.array([lay.cell_center(c) for c in ALL_CELLS]), np.full(64, t)])
    )
    h, w = photo.occlusion.shape
    p = photo.project(np.column_stack([grid, np.full(len(grid), t)]))
    inside = (p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)
    xi = np.clip(np.round(p[:, 0]).astype(int), 0, w - 1)
    yi = np.clip(np.round(p[:, 1]).astype(int), 0, h - 1)
    # a hand over a quarter of the cell, or glare adding 0.4 of full white on 40% of it
    cover = np.where(inside, photo.occlusion[yi, xi], 0.0).reshape(64, -1).mean(1)
    spec = photo.extras.get("specular")
    glared = spec[yi, xi] >= 0.4 if spec is not None else np.zeros(len(xi), bool)
    burnt = np.where(inside, glared, False).reshape(64, -1).mean(1)
    occluded = [c for c, v in zip(ALL_CELLS, cover, strict=True) if v >= 0.25]
    washed = [c for c, v in zip(ALL_CELLS, burnt, strict=True) if v >= 0.4 and c not in occluded]
    centers = dict(zip(ALL_CELLS, centers, strict=True))
    cam = photo.camera
    return {
        "art": rig.art,
        "table": rig.table,
        "levels": {k: round(float(v), 4) for k, v in levels.items()},
        "image_size": list(cam.image_size),
        "board_corners_px": [[round(float(v), 3) for v in p] for p in corners],
        "cell_centers_px": {c: [round(float(v), 3) for v in p] for c, p in centers.items()},
        "occluded_cells": occluded,
        "washed_out_cells": washed,
        # image position of each piece's base centre and top centre (pawns lean: they differ)
        "pieces_px": {
            cell: {
                "base": [round(float(v), 3) for v in photo.project([(x, y, b)])[0]],
                "top": [round(float(v), 3) for v in photo.project([(x, y, t)])[0]],
            }
            for cell, (x, y, b, t) in where.items()
        },
        "camera": {
            "camera_matrix": cam.K.round(6).tolist(),
            "distortion_coefficients": cam.dist.round(8).tolist(),
            "rvec": cam.rvec.round(8).tolist(),
            "tvec": cam.tvec.round(6).tolist(),
            "tilt_deg": round(cam.tilt_deg, 3),
            "tile_top_mm": t,
        },
    }


#: A point of a piece's face or of a cell is hidden where the hand covers at least this much of
#: its pixel (the hand's edge is anti-aliased and may be motion-blurred) ...
HAND_OPAQUE = 0.5
#: ... or where glare alone adds full white (even the darkest ink is then white), or where it
#: falls outside the frame. Not the 0.4 of ``washed_out_cells``: on crops of every coin that
#: rule called washed out in mixed tune shots 0-159, suit, symbol and facing mark all still
#: show under glare of 0.4-0.8 (benchmarks/results/vision_reflec.md).
GLARE_BURNT = 1.0
#: A cell with a piece is hidden (declining to read it is right) when at least this share of
#: what identifies the piece is: a coin's top face, a pawn's body seen from above. Set before
#: looking at any reader output, then checked on crops of cells either side of it.
HIDDEN_FACE = 0.5
#: An empty cell is hidden when at least this share of its own area (its lines, its plain
#: face) is: what tells it empty is that nothing stands on what shows.
HIDDEN_MARK = 0.5
#: The rule's name, told in each truth beside ``hidden_cells``: a truth told under other
#: constants is out of date (the benchmark then tells it again).
HIDDEN_RULE = f"face{HIDDEN_FACE}-mark{HIDDEN_MARK}-hand{HAND_OPAQUE}-glare{GLARE_BURNT}"


def face_points(solid: Solid, step_mm: float = 0.8) -> np.ndarray:
    """``(N, 3)`` world points of what identifies a piece: over a grid of its footprint, the
    highest point of its body (a coin's top face; a pawn's head, shoulders and skirt).

    >>> coin = Disc((0.0, 0.0), 9.5, 3.2, (0.5, 0.5, 0.5), np.zeros((8, 8, 3), np.uint8))
    >>> p = face_points(coin)
    >>> bool((np.hypot(p[:, 0], p[:, 1]) <= 9.5).all()), sorted(set(p[:, 2].tolist()))
    (True, [3.2])
    """
    r = solid.reach_mm
    g = np.arange(-r, r + 1e-6, step_mm)
    gx, gy = (a.ravel().astype(np.float32) for a in np.meshgrid(g - g.mean(), g - g.mean()))
    if isinstance(solid, Disc):  # a flat cylinder: its top, all of it
        keep = np.hypot(gx, gy) <= solid.radius_mm
        z = np.full(int(keep.sum()), solid.top_mm)
        return np.column_stack([gx[keep] + solid.center_mm[0], gy[keep] + solid.center_mm[1], z])
    zs = np.linspace(solid.top_mm, solid.base_mm, 80, dtype=np.float32)[:, None]
    inside = solid.sd(gx[None, :], gy[None, :], np.broadcast_to(zs, (len(zs), len(gx)))) <= 0
    hit = inside.any(0)
    z = zs[inside.argmax(0), 0][hit]
    return np.column_stack([gx[hit] + solid.center_mm[0], gy[hit] + solid.center_mm[1], z])


def cover_facts(photo: Photo, points: Mapping[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """Per cell, the share of its points (``(N, 3)`` mm) under the hand (``"hand"``), burnt
    by glare (``"glare"``) and hidden either way or out of the frame (``"hidden"``)."""
    h, w = photo.occlusion.shape
    spec = photo.extras.get("specular")
    out = {}
    for cell, pts in points.items():
        p = photo.project(np.asarray(pts, float))
        seen = np.isfinite(p).all(1)
        seen &= (p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)
        xi = np.clip(np.round(np.nan_to_num(p[:, 0])).astype(int), 0, w - 1)
        yi = np.clip(np.round(np.nan_to_num(p[:, 1])).astype(int), 0, h - 1)
        hand = seen & (photo.occlusion[yi, xi] >= HAND_OPAQUE)
        glare = seen & (spec[yi, xi] >= GLARE_BURNT) if spec is not None else np.zeros_like(seen)
        hidden = ~seen | hand | glare
        out[cell] = {"hand": hand.mean(), "glare": glare.mean(), "hidden": hidden.mean()}
    return {c: {k: float(v) for k, v in f.items()} for c, f in out.items()}


def hidden_cells(
    facts: Mapping[str, Mapping[str, float]], pieces: set[str] | Sequence[str]
) -> list[str]:
    """Cells nobody could read: a piece's cell with :data:`HIDDEN_FACE` of its face hidden,
    an empty cell with :data:`HIDDEN_MARK` of its area hidden.

    >>> hidden_cells({"a1": {"hidden": 0.6}, "b1": {"hidden": 0.4}, "c1": {"hidden": 0.6}}, ["c1"])
    ['a1', 'c1']
    """
    cut = lambda c: HIDDEN_FACE if c in pieces else HIDDEN_MARK  # noqa: E731
    return [c for c in ALL_CELLS if facts.get(c, {}).get("hidden", 0.0) >= cut(c)]


def _cell_face(layout: TileLayout, cell: str) -> np.ndarray:
    """``(N, 3)`` world points spread over an empty cell's face, on the tile's top."""
    xy = layout.cell_points(cell)
    return np.column_stack([xy, np.full(len(xy), layout.thickness_mm)])


def hidden_truth(photo: Photo, rig: Rig, solids: Mapping[str, Solid]) -> dict:
    """The ``"synth"`` members that say which cells are readable in the pixels:
    ``"cover_facts"`` (:func:`cover_facts` of each piece's face or empty cell's area, cells
    with anything hidden only, rounded), ``"hidden_cells"`` (:func:`hidden_cells`) and
    ``"hidden_rule"`` (:data:`HIDDEN_RULE`)."""
    points = {
        c: face_points(solids[c]) if c in solids else _cell_face(rig.layout, c) for c in ALL_CELLS
    }
    facts = cover_facts(photo, points)
    shown = {
        c: {k: round(v, 3) for k, v in f.items()}
        for c, f in facts.items()
        if f["hidden"] > 0 or f["hand"] > 0
    }
    return {
        "cover_facts": shown,
        "hidden_cells": hidden_cells(facts, set(solids)),
        "hidden_rule": HIDDEN_RULE,
    }


# --------------------------------------------------------------------------------------------
# Splits
# --------------------------------------------------------------------------------------------


def _rngs(split: str, rig_index: int, shot: int) -> dict[str, np.random.Generator]:
    if split not in SPLIT_KEYS:
        raise ValueError(f"unknown split {split!r} (tune or test)")
    k = SPLIT_KEYS[split]
    g = np.random.default_rng
    return {
        "rig": g([k, rig_index, 0]),
        "rig_levels": g([k, rig_index, 0, 1]),
        "shot": g([k, rig_index, 1 + shot]),
        "shot_levels": g([k, rig_index, 1 + shot, 1]),
        "noise": g([k, rig_index, 1 + shot, 2]),
        "position": g([k, rig_index, 1 + shot, 3]),
    }


RIG_FACTORS = ("tilt", "lens", "clutter")


def rig_for(
    split: str,
    rig_index: int,
    difficulty: Difficulty | None = None,
    *,
    art: str | None = None,
    image_size: tuple[int, int] = (1920, 1080),
    turn_deg: float = 0.0,
) -> Rig:
    """The rig shared by shots ``rig_index * SHOTS_PER_RIG ...`` of a split.

    ``turn_deg`` turns the camera about its axis by that much more (180 = the board seen
    upside down, north at the bottom: only a board setup can tell), keeping the framing.
    """
    difficulty = difficulty or Difficulty.realistic()
    r = _rngs(split, rig_index, 0)
    levels = difficulty.levels(r["rig_levels"])
    rig_levels = {f: levels[f] for f in RIG_FACTORS}
    rig = make_rig(r["rig"], rig_levels, art=art, image_size=image_size)
    if turn_deg:
        cam = rig.camera
        corners = np.column_stack([rig.layout.board_corners(), np.full(4, rig.layout.thickness_mm)])
        p = cam.project(corners)
        w, h = cam.image_size
        fill = max(np.ptp(p[:, 0]) / w, np.ptp(p[:, 1]) / h)
        turned = cam.replace(yaw_deg=cam.yaw_deg + float(turn_deg))
        rig = rig.replace(camera=turned.fitted(corners, fill))
    return rig


def sample(
    split: str,
    index: int,
    difficulty: Difficulty | None = None,
    *,
    board: Mapping | None = None,
    art: str | None = None,
    image_size: tuple[int, int] = (1920, 1080),
    turn_deg: float = 0.0,
    hand_colour: BGR | None = None,
) -> Shot:
    """Shot ``index`` of a split (deterministic).  ``board`` overrides the random position;
    ``art`` and ``turn_deg`` as in :func:`rig_for`; ``hand_colour`` as in :func:`render_shot`
    (the same shot, its hand in that colour)."""
    difficulty = difficulty or Difficulty.realistic()
    rig_index, shot = divmod(index, SHOTS_PER_RIG)
    rig = rig_for(split, rig_index, difficulty, art=art, image_size=image_size, turn_deg=turn_deg)
    r = _rngs(split, rig_index, shot)
    levels = difficulty.levels(r["shot_levels"])
    levels.update(rig.levels)
    pos = dict(board) if board is not None else random_board(r["position"])
    shot_ = render_shot(pos, rig, levels, r["shot"], noise_rng=r["noise"], hand_colour=hand_colour)
    shot_.truth["synth"].update(
        {"split": split, "index": index, "rig": rig_index, "difficulty": difficulty.name}
    )
    return shot_


def calibration_sample(
    split: str,
    rig_index: int,
    difficulty: Difficulty | None = None,
    *,
    art: str | None = None,
    image_size: tuple[int, int] = (1920, 1080),
    turn_deg: float = 0.0,
) -> Shot:
    """The ``reflec-calibration/1`` layout photographed on a rig, taken with care: no hand,
    little blur; light and noise as the rig's usual."""
    difficulty = difficulty or Difficulty.realistic()
    rig = rig_for(split, rig_index, difficulty, art=art, image_size=image_size, turn_deg=turn_deg)
    r = _rngs(split, rig_index, 10_000)
    levels = difficulty.levels(r["shot_levels"])
    levels.update(rig.levels)
    levels.update(occlusion=0.0, blur=min(levels["blur"], 0.1))
    shot = render_shot(calibration_board(), rig, levels, r["shot"], noise_rng=r["noise"])
    shot.truth["synth"].update(
        {"split": split, "rig": rig_index, "calibration": True, "difficulty": difficulty.name}
    )
    return shot


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------


def _jsonable(obj):
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def save_shot(shot: Shot, stem: str, jpeg_quality: int = 92) -> tuple[str, str]:
    """Write ``STEM.jpg`` (or ``.png`` if ``jpeg_quality`` is 0) and ``STEM.json`` (truth).

    The photo already went through the camera's own JPEG; saving adds one more generation
    at a high quality, as a phone's gallery export would.
    """
    import json

    if jpeg_quality:
        image_path = f"{stem}.jpg"
        ok = cv2.imwrite(image_path, shot.image, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
    else:
        image_path = f"{stem}.png"
        ok = cv2.imwrite(image_path, shot.image)
    if not ok:
        raise OSError(f"cannot write {image_path}")
    truth_path = f"{stem}.json"
    with open(truth_path, "w", encoding="utf-8") as f:
        json.dump(_jsonable(shot.truth), f, indent=1)
        f.write("\n")
    return image_path, truth_path


NEGATIVE_KINDS = ("no-board", "cut-off")


def negative_sample(
    split: str,
    index: int,
    kind: str = "no-board",
    *,
    image_size: tuple[int, int] = (1920, 1080),
) -> Shot:
    """A photo vision must reject: ``"no-board"`` (the table and clutter only) or
    ``"cut-off"`` (the camera moved so that part of the board is outside the frame).

    ``truth["synth"]["board_in_view"]`` is False for the first; for the second
    ``truth["synth"]["cells_in_view"]`` lists the cells whose centre is inside the image.
    """
    if kind not in NEGATIVE_KINDS:
        raise ValueError(f"unknown negative kind {kind!r} ({', '.join(NEGATIVE_KINDS)})")
    difficulty = Difficulty.baseline()
    rig_index, shot = divmod(index, SHOTS_PER_RIG)
    rig = rig_for(split, rig_index, difficulty, image_size=image_size)
    r = _rngs(split, rig_index, 20_000 + shot)
    levels = difficulty.levels(r["shot_levels"])
    board = random_board(r["position"])
    if kind == "no-board":
        shot_ = render_shot(
            board, rig, levels, r["shot"], noise_rng=r["noise"], board_in_view=False
        )
        shot_.truth["coins"], shot_.truth["pawns"] = [], []
    else:
        cam = rig.camera
        w, h = cam.image_size
        a = float(r["rig"].uniform(0, 2 * math.pi))
        direction = np.array([math.cos(a), math.sin(a)])
        corners = np.column_stack([rig.layout.board_corners(), np.full(4, rig.layout.thickness_mm)])
        for step in range(1, 200):  # slide the view until a good part of the board is cut off
            moved = cam.replace(target_mm=tuple(np.asarray(cam.target_mm) + direction * 4.0 * step))
            p = moved.project(corners)
            outside = np.maximum.reduce([-p[:, 0], p[:, 0] - (w - 1), -p[:, 1], p[:, 1] - (h - 1)])
            if outside.max() > 0.3 * np.ptp(p[:, 1]):
                break
        rig = rig.replace(camera=moved)
        shot_ = render_shot(board, rig, levels, r["shot"], noise_rng=r["noise"])
        centers = shot_.truth["synth"]["cell_centers_px"]
        shot_.truth["synth"]["cells_in_view"] = [
            c for c, (x, y) in centers.items() if 0 <= x < w and 0 <= y < h
        ]
    shot_.truth["synth"].update({"split": split, "index": index, "negative": kind})
    return shot_
