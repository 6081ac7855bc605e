"""Per-cell classification: empty, coin (suit, facing) or pawn (suit), or unknown.

Each cell of the rectified board is cut out a few times, slightly shifted (pieces are never
placed exactly in the middle), and turned into a descriptor: lightness with its mean removed
(so uneven light does not matter) and colour relative to the tile colour (so a coloured light
cast does not either). Descriptors are compared by cosine similarity with the learned looks:
each suit's coin facing north, turned by quarter turns for the other facings (the facing is
read from the coin's own markings), and each suit's pawn.

A cell is *empty* when its structure energy stays near the noise floor of the board's
emptiest cells; otherwise the best look wins if it is both similar enough and clearly better
than the best look with another answer. Anything else goes to ``unknown`` (a hand, glare).

>>> looks = PieceLooks.default()
>>> sorted(looks.coins)
['arms', 'crowns', 'moons', 'suns']
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from piecebridge.calibration.geometry import N, median_colour
from piecebridge.calibration.looks import DETAIL_EMPTY, SUITS, LearnedLooks
from piecebridge.vision.default_fit import left_unknown_where_unfit
from piecebridge.vision.facing import (
    FACING_ROT,
    FACINGS,
    TWIST_DEG,
    best_fit_at,
    correlations_held,
    face_scores,
    face_scores_batch,
    face_window,
    fft_size,
    known_maps,
    known_scores,
    learned_mark_read,
    mark_centre,
    mark_scores,
    mark_template,
    mark_windows,
    read_facing_from_mark,
    read_facings,
    read_twisted,
    remember_maps,
    remember_scores,
    round_symbol_centre,
    symbol_offset,
    turned_looks,
    twisted,
)
from piecebridge.vision.hand import hand_pixels
from piecebridge.vision.occlusion import (
    covered_cells,
    hidden_pieces,
    hidden_share,
    line_strengths,
    lit_beside,
)
from piecebridge.vision.raster import (
    CELL_ORDER,
    CENTRE_SHIFT,
    CROP,
    FACE_CROP,
    FACE_PX,
    MARGIN,
    OFFSETS,
    PX,
)
from scipy.spatial import cKDTree

#: Standard Piecepack suit colours (BGR) for the no-setup fallback.
DEFAULT_SUIT_BGR = {
    "suns": (40, 60, 210),
    "moons": (35, 35, 35),
    "crowns": (60, 140, 40),
    "arms": (180, 90, 30),
}
CHROMA_WEIGHT = 1.5  # colour matters as much as shape for telling suits apart
#: The facing lead (see ``CellDecision.facing_margin``) a coin read by the drawn stand-ins
#: (no setup) needs: 0.6 (was 0.4). Nineteenth session, tune without a setup, rigs 0-9:
#: coins turned wrong led by 0.43-1.0 (piecepackr 7, mixed 9); under 0.6, 3 and 6 of them
#: against 24 and 11 coins read right (left unknown); none newly wrong.
DEFAULT_FACING_MARGIN = 0.6


# --------------------------------------------------------------------------- descriptors


def _cell_origin(i: int) -> tuple[int, int]:
    """Top-left (y, x) of cell ``i``'s centred crop in the rectified board."""
    row, col = divmod(i, N)
    o = round(MARGIN * PX) + (PX - CROP) // 2
    return o + row * PX, o + col * PX


def board_lab(rect_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lab image (float32, lightly blurred) of a rectified board and its tile chroma (a, b)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(rect_bgr, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    m = int(MARGIN * PX)
    inner = lab[m:-m:3, m:-m:3].reshape(-1, 3)
    return lab, median_colour(inner[:, 1:])  # np.median's values, a sixth of its time


def raw_crops(
    lab: np.ndarray,
    tile_ab: np.ndarray,
    rel: np.ndarray | None = None,
    cells: Collection[int] | None = None,
) -> np.ndarray:
    """Crops (64, shifts, CROP, CROP, 3): L minus its crop mean, a and b minus tile chroma.
    With ``cells`` (indices) only those cells' crops are cut; the others are zero."""
    o = round(MARGIN * PX) + (PX - CROP) // 2
    if rel is None:
        rel = relative_lab(lab, tile_ab)
    if cells is not None:
        return _some_crops(rel, sorted(set(cells)), o)
    crops = np.empty((N * N, len(OFFSETS), CROP, CROP, 3), np.float32)
    for k, (dy, dx) in enumerate(OFFSETS):
        # Cells are PX apart, so all 64 crops of one shift are one reshaped slice.
        block = rel[o + dy : o + dy + N * PX, o + dx : o + dx + N * PX]
        cells_k = block.reshape(N, PX, N, PX, 3)[:, :CROP, :, :CROP]
        crops[:, k] = cells_k.transpose(0, 2, 1, 3, 4).reshape(N * N, CROP, CROP, 3)
    light = crops[..., 0]
    light -= light.mean(axis=(2, 3), keepdims=True)
    return crops


def _some_crops(rel: np.ndarray, cells: list[int], o: int) -> np.ndarray:
    """:func:`raw_crops` of the listed cells only (the others zero): the same values."""
    crops = np.zeros((N * N, len(OFFSETS), CROP, CROP, 3), np.float32)
    for i in cells:
        y, x = o + (i // N) * PX, o + (i % N) * PX
        for k, (dy, dx) in enumerate(OFFSETS):
            crops[i, k] = rel[y + dy : y + dy + CROP, x + dx : x + dx + CROP]
    light = crops[cells, :, :, :, 0]
    crops[cells, :, :, :, 0] = light - light.mean(axis=(2, 3), keepdims=True)
    return crops


def relative_lab(lab: np.ndarray, tile_ab: np.ndarray) -> np.ndarray:
    """Lab with the tile chroma removed and colour weighted (a new array)."""
    light, a, b = cv2.split(lab)
    w = CHROMA_WEIGHT
    return cv2.merge([light, (a - float(tile_ab[0])) * w, (b - float(tile_ab[1])) * w])


#: How far (FACE_PX pixels, 0.3 cell) from its cell's centre a coin's facing is looked for.
FACE_WIDE = round(0.3 * FACE_PX)

#: Pieces are compared inside this disc (cells): a coin's markings lie within it, the
#: cell's printed lines (thick on some art, and spread by blur or a slightly wrong pose)
#: mostly outside, so lines cannot make an empty cell look like a faint coin.
LOOK_RADIUS = 0.4
_r = np.arange(CROP) - (CROP - 1) / 2
LOOK_MASK = np.clip(LOOK_RADIUS * PX + 0.5 - np.hypot(*np.meshgrid(_r, _r)), 0, 1).astype(
    np.float32
)[..., None]


def masked(crops: np.ndarray) -> np.ndarray:
    """Crops (..., CROP, CROP, 3) as compared: lightness minus its mean inside the look disc,
    everything outside the disc faded to zero (a new array)."""
    w = LOOK_MASK[..., 0]
    light = crops[..., 0]
    mean = (light * w).sum(axis=(-2, -1), keepdims=True) / w.sum()
    out = crops.copy()
    out[..., 0] = light - mean
    return out * LOOK_MASK


_M3 = np.repeat(LOOK_MASK, 3, axis=2).reshape(-1)
_M3_SQ = _M3 * _M3


def similarities(crops: np.ndarray, T: np.ndarray, looks: PieceLooks | None = None) -> np.ndarray:
    """Cosine of each crop as compared (:func:`masked`) with each template column of ``T``
    (D, K), for crops (..., CROP, CROP, 3): the same as ``_unit(masked(c)) @ T`` without
    making the masked copies (``T`` is already masked).

    >>> c = np.random.default_rng(0).normal(size=(2, CROP, CROP, 3)).astype(np.float32)
    >>> T = _unit(masked(c[::-1]).reshape(2, -1)).T
    >>> bool(np.allclose(similarities(c, T), _unit(masked(c).reshape(2, -1)) @ T, atol=1e-4))
    True
    """
    cache = looks.extra if looks is not None else {}
    hit = cache.get("sim_prep")
    # held, and compared by identity: an id() alone could be reused by a new array
    if hit is None or hit[0] is not T:
        mt = T * _M3[:, None]  # <masked(c), t> = <c, M t> - mean_L * sum_L(M t)
        w_light = np.zeros((len(_M3), 2), np.float32)  # the mask on lightness only, M and M^2
        w_light[0::3, 0] = _M3[0::3] / _M3[0::3].sum()
        w_light[0::3, 1] = _M3_SQ[0::3]
        both = np.ascontiguousarray(np.concatenate([mt, w_light], axis=1), np.float32)
        hit = (T, both, mt[0::3].sum(axis=0))
        cache["sim_prep"] = hit
    _, both, light_sum = hit
    shape = crops.shape[:-3]
    flat = crops.reshape(-1, CROP * CROP * 3)
    r = flat @ both  # one BLAS product: template dots, masked mean and M^2-sum of lightness
    dots, mean, sum_l = r[:, :-2], r[:, -2], r[:, -1]
    sq = (flat * flat) @ _M3_SQ - 2 * mean * sum_l + mean * mean * float(_M3_SQ[0::3].sum())
    dots = dots - mean[:, None] * light_sum
    out = dots / (np.sqrt(np.maximum(sq, 0.0))[:, None] + 1e-6)
    return out.reshape(*shape, T.shape[1])


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.sqrt(np.einsum("...k,...k->...", v, v))[..., None]
    return v / (norm + 1e-6)


#: Structure is measured where a piece's markings are, clear of the cell's printed lines
#: (which a slightly wrong pose or a blurred photo spreads into the cell).
ENERGY_RADIUS = 0.34
_DISC = (
    np.hypot(*np.meshgrid(np.arange(CROP) - (CROP - 1) / 2, np.arange(CROP) - (CROP - 1) / 2))
    < ENERGY_RADIUS * PX
)


#: Fine detail is what is left after a blur of this sigma (PX pixels, about 0.04 cell).
DETAIL_SIGMA = 1.0


def detail_energies(rel_lo: np.ndarray, cells: Collection[int] | None = None) -> np.ndarray:
    """RMS fine detail of each cell inside the central disc (64,): the relative Lab board at
    PX minus its blur of ``DETAIL_SIGMA``. With ``cells`` (indices) only those (the others
    0; the same values: each is blurred with room for the whole kernel).

    Shadows (a pawn's, a hand's) and uneven light change a cell smoothly; a piece has crisp
    edges (a coin's rim and symbol, a pawn's outline), so only they leave fine detail above
    the sensor noise.

    >>> flat = np.zeros((round((N + 2 * MARGIN) * PX),) * 2 + (3,), np.float32)
    >>> float(detail_energies(flat).max())
    0.0
    """
    if cells is not None:
        return _some_detail(rel_lo, cells)
    rel = np.ascontiguousarray(rel_lo, np.float32)
    det = rel - cv2.GaussianBlur(rel, (0, 0), DETAIL_SIGMA)
    o = round(MARGIN * PX) + (PX - CROP) // 2
    block = det[o : o + N * PX, o : o + N * PX].reshape(N, PX, N, PX, 3)[:, :CROP, :, :CROP]
    cells = block.transpose(0, 2, 1, 3, 4).reshape(N * N, CROP, CROP, 3)[:, _DISC]
    return np.sqrt((cells**2).sum(axis=-1).mean(axis=-1))


#: Room (PX pixels) a cell's window needs around its crop for the detail blur to equal the
#: whole board's (OpenCV's float kernel for DETAIL_SIGMA reaches 4 sigma).
_DETAIL_ROOM = int(np.ceil(4 * DETAIL_SIGMA)) + 1


def _some_detail(rel_lo: np.ndarray, cells: Collection[int]) -> np.ndarray:
    """:func:`detail_energies` of ``cells`` only, from a window around each."""
    out = np.zeros(N * N)
    o = round(MARGIN * PX) + (PX - CROP) // 2
    r = _DETAIL_ROOM
    for i in cells:
        y, x = o + (i // N) * PX - r, o + (i % N) * PX - r
        win = np.ascontiguousarray(rel_lo[y : y + CROP + 2 * r, x : x + CROP + 2 * r], np.float32)
        det = (win - cv2.GaussianBlur(win, (0, 0), DETAIL_SIGMA))[r : r + CROP, r : r + CROP]
        out[i] = np.sqrt((det[_DISC] ** 2).sum(axis=-1).mean())
    return out


def disc_lightness(rel_lo: np.ndarray) -> np.ndarray:
    """Mean lightness of each cell's central disc (64,), from the relative Lab board at PX."""
    return disc_colours(rel_lo, channels=1)[:, 0]


def disc_colours(
    rel_lo: np.ndarray, channels: int = 3, cells: list[int] | None = None
) -> np.ndarray:
    """Mean relative Lab of each cell's central disc (64, channels), from the board at PX.
    With ``cells`` (indices) only those (the others 0; the same values)."""
    o = round(MARGIN * PX) + (PX - CROP) // 2
    block = rel_lo[o : o + N * PX, o : o + N * PX, :channels].reshape(N, PX, N, PX, channels)
    if cells is not None:
        rows, cols = np.divmod(np.asarray(cells, int), N)
        some = block[:, :CROP, :, :CROP].transpose(0, 2, 1, 3, 4)[rows, cols]
        out = np.zeros((N * N, channels), rel_lo.dtype)
        out[cells] = some[:, _DISC].mean(axis=1)
        return out
    block = block[:, :CROP, :, :CROP].transpose(0, 2, 1, 3, 4).reshape(N * N, CROP, CROP, channels)
    return block[:, _DISC].mean(axis=1)


#: The corners of a cell's crop, outside the look disc: the tile around what sits in the cell.
_AROUND = LOOK_MASK[..., 0] == 0


def local_tint(crop: np.ndarray) -> float:
    """How far the colour of a crop's middle (the structure disc) is from its corners' (the
    tile around it), in the units of ``CellDecision.tint``: a coloured light over a plain
    tile tints both alike (near 0), a piece or a hand in the middle does not.

    >>> crop = np.zeros((CROP, CROP, 3), np.float32)
    >>> crop[..., 1:] = (20.0, 30.0)  # a yellow lamp over plain tile
    >>> local_tint(crop)
    0.0
    >>> crop[_DISC, 2] -= 40.0  # something blue in the middle
    >>> round(local_tint(crop), 1)
    40.0
    """
    middle = crop[_DISC, 1:].mean(axis=0)
    around = np.median(crop[_AROUND, 1:], axis=0)
    return float(np.linalg.norm(middle - around))


def shade_tints(colours: np.ndarray, tile_ab: np.ndarray, tile_light: float) -> np.ndarray:
    """How far each cell's colour (``colours``: mean relative Lab, (n, 3), see
    :func:`disc_colours`) is from the tile's, once its lightness is brought to the tile's:
    the tint a shadow leaves out (n,), in the units of ``CellDecision.tint``.

    A shadow scales the light the tile sends back; in CIE Lab the colour terms (a*, b*) and
    L* + 16 then scale alike (both are cube roots of the light), so their ratio stays the
    tile's. A hand, a sleeve or a piece changes the ratio. (OpenCV's 8-bit Lab: L* = L / 2.55,
    a* = a - 128.)

    >>> tile_ab, tile_light = np.array([135.0, 160.0]), 200.0
    >>> s = ((tile_light / 2.55 + 16) * 0.7 - 16) * 2.55  # the tile at 0.7 of its cube root
    >>> shadow = [s - tile_light, 7 * 0.7 - 7, 32 * 0.7 - 32]  # a, b relative, unweighted
    >>> colours = np.array([[0.0, 0.0, 0.0], shadow]) * [1, CHROMA_WEIGHT, CHROMA_WEIGHT]
    >>> colours[:, 0] += tile_light
    >>> shade_tints(colours, tile_ab, tile_light).round(6).tolist()
    [0.0, 0.0]
    """
    scale = colours[:, 0] / 2.55 + 16.0
    tile_scale = tile_light / 2.55 + 16.0
    tile = np.asarray(tile_ab, np.float64) - 128.0
    ab = tile + colours[:, 1:] / CHROMA_WEIGHT
    return np.linalg.norm(ab * (tile_scale / scale)[:, None] - tile, axis=1) * CHROMA_WEIGHT


def glare_tints(
    colours: np.ndarray, tile_ab: np.ndarray, tile_light: float | None = None
) -> np.ndarray:
    """How far each cell's colour (``colours``: mean relative Lab, (n, 3), see
    :func:`disc_colours`) is from the tile's colour paled toward white (n,), in the units of
    ``CellDecision.tint``: the tint glare leaves out.

    Glare is light reflected off the surface, added over the print: it mixes the tile's
    colour with the light's own (white), so the cell keeps the tile's hue with less of it
    (a*, b* between the tile's and 0). A hand, a sleeve or a piece has a hue of its own.
    With ``tile_light`` (the typical cell's lightness) the distance is the nearer of that
    segment and the colours a camera records under glare (:func:`glare_surface`, which
    clips: bright glare over a coloured tile shifts its hue as well as paling it).

    >>> tile_ab = np.array([120.0, 110.0])  # a bluish tile: a* -8, b* -18
    >>> paled = [0.0, 8 * 0.6 * CHROMA_WEIGHT, 18 * 0.6 * CHROMA_WEIGHT]  # 0.4 of its hue
    >>> skin = [0.0, 23 * CHROMA_WEIGHT, 36 * CHROMA_WEIGHT]  # a* +15, b* +18
    >>> glare_tints(np.array([paled, skin]), tile_ab).round(1).tolist()
    [0.0, 35.1]
    """
    tile = np.asarray(tile_ab, np.float64) - 128.0
    ab = tile + colours[:, 1:] / CHROMA_WEIGHT
    # The nearest point of the segment from the tile's colour to white.
    t = np.clip(ab @ tile / max(float(tile @ tile), 1e-9), 0.0, 1.0)
    tints = np.linalg.norm(ab - t[:, None] * tile, axis=1) * CHROMA_WEIGHT
    if tile_light is None:
        return tints
    # ... or the colour a camera records for the tile with white light added.
    lab = np.concatenate([colours[:, :1] / 2.55, ab], axis=1)
    gap, _ = _glare_surface_kept(float(tile_ab[0]), float(tile_ab[1]), float(tile_light)).query(lab)
    return np.minimum(tints, gap * CHROMA_WEIGHT)


#: The recorded glare's grid (see :func:`glare_surface`): the tile's own light scaled by
#: each of these (the light over a board is uneven: a gradient, a vignette, a soft shadow)
#: ...
GLARE_GAINS = np.linspace(0.6, 1.6, 21)
#: ... with this much white light added (linear; 1 is full white).
GLARE_ADDED = np.linspace(0.0, 2.0, 81)


@functools.lru_cache(maxsize=8)
def _glare_surface_kept(a: float, b: float, light: float) -> cKDTree:
    """:func:`glare_surface` as a k-d tree for nearest-colour queries, kept: with a setup the
    tile's colour and light are the kept references' (see ``BoardRefs``), the same every
    frame. (A dense distance to its 1701 points cost 1.5 ms for a glared board's hidden line
    pieces, and more with BLAS threads under load; the tree answers in about 0.1 ms.)"""
    return cKDTree(glare_surface(np.array([a, b]), light))


def glare_surface(tile_ab: np.ndarray, tile_light: float) -> np.ndarray:
    """The colours (CIE L*, a*, b*; (k, 3)) a camera records for the tile (OpenCV 8-bit
    ``tile_ab`` and lightness ``tile_light``) lit more or less (``GLARE_GAINS``) with white
    glare added over it (``GLARE_ADDED``).

    Light adds in linear RGB; the sensor clips each channel at full scale, then the sRGB
    curve is applied. Once the tile's strongest channel clips, more glare can only raise the
    others: the recorded hue turns away from the tile's (a bluish tile turns cyan, then
    grey) instead of simply paling in Lab, as :func:`glare_tints`' segment has it.

    >>> s = glare_surface(np.array([120.0, 110.0]), 200.0)
    >>> s[0].round(1).tolist(), s[-1].round(1).tolist()  # dimmest bare tile, burnt white
    ([63.6, -6.9, -15.0], [100.0, 0.0, 0.0])
    """
    tile = np.array([[[tile_light / 2.55, tile_ab[0] - 128.0, tile_ab[1] - 128.0]]], np.float32)
    bgr = np.clip(cv2.cvtColor(tile, cv2.COLOR_LAB2BGR)[0, 0].astype(np.float64), 0.0, 1.0)
    lin = np.where(bgr <= 0.04045, bgr / 12.92, ((bgr + 0.055) / 1.055) ** 2.4)
    mix = np.clip(GLARE_GAINS[:, None, None] * lin + GLARE_ADDED[None, :, None], 0.0, 1.0)
    srgb = np.where(mix <= 0.0031308, 12.92 * mix, 1.055 * mix ** (1 / 2.4) - 0.055)
    lab = cv2.cvtColor(srgb.astype(np.float32).reshape(1, -1, 3), cv2.COLOR_BGR2LAB)[0]
    return lab.astype(np.float64)


def energies(crops: np.ndarray) -> np.ndarray:
    """RMS structure of each cell's centred crop inside a central disc (64,).

    Every channel's mean is removed first: a flat cell of any colour has no structure.
    """
    c = crops[:, CENTRE_SHIFT][:, _DISC]
    c = c - c.mean(axis=1, keepdims=True)
    return np.sqrt((c**2).sum(axis=-1).mean(axis=-1))


# --------------------------------------------------------------------------- looks


@dataclass
class PieceLooks(LearnedLooks):
    """The learned looks (:class:`~piecebridge.calibration.looks.LearnedLooks`: what each
    suit's coin, facing north, and pawn look like, as descriptor crops) with the thresholds
    that decide a cell by them: ``min_similarity`` and ``min_margin`` gate a decision.
    """

    # Defaults from the tune split (benchmarks/vision_reflec.py --tune --split tune
    # --rigs 20, cost 30 x wrong + unknown), with a setup.
    min_similarity: float = 0.7
    min_margin: float = 0.02
    min_facing_margin: float = 0.15
    # The separate mark is checked on coins read with a lead under mark_check_below (none
    # above 0.6 was misread on the tune split); when it agrees, a smaller lead is enough.
    mark_check_below: float = 0.6
    agreed_facing_margin: float = 0.03
    max_empty_tint: float = 25.0
    textured_ratio: float = 2.0
    strong_similarity: float = 0.75
    textured_max_similarity: float = 0.5  # a busier cell this unlike any piece is a tile
    # ... when its fine detail stays under this (over the board's quietest cells): empty
    # cells beside a pawn or a hand measure up to ~5 (see detail_empty). Round 10: mixed tune
    # shot 201 c3, an arms coin half under a hand read empty at 5.2; empty cells read so on
    # tune measured up to 4.74.
    textured_max_detail: float = 5.0
    quiet_max_similarity: float = 0.6  # a quiet cell this like a piece is not called empty
    pawn_by_hand_similarity: float = 0.85  # a pawn beside a covered cell must fit this well
    # A pawn this similar will do when no other look comes within this margin.
    leaning_pawn_similarity: float = 0.65
    leaning_pawn_margin: float = 0.15
    # Fine detail (over the board's quietest cells) under which a tile-coloured cell is
    # empty whatever its smooth shading (a shadow): pieces measure 3.4 and up on the tune
    # split, empty cells beside a pawn or a hand up to ~5. A setup learns its own, at most
    # this (see learned_detail_empty).
    detail_empty: float = DETAIL_EMPTY
    # A cell whose lines are hidden is empty when its middle is plain tile: colour within
    # this tint once brought to the tile's lightness (see shade_tints), lightness within
    # this range of the board's typical cell (a shadow's). Tune split: empty cells under a
    # hand's shadow up to 3.6 and 0.46, pieces under a hand (as plain in detail) from 8.
    # Round 10: up to 1.4 x the typical lightness (was 1.2): plain tile in a lamp's bright
    # spot, whose light lines are washed out too (tune: eight such empty cells at 1.26-1.36
    # left unknown; cells burnt out by glare measured 2 and more). The lower bound also
    # holds for open cells (see decide).
    covered_empty_tint: float = 4.5
    covered_empty_light: tuple[float, float] = (0.4, 1.4)
    # A piece under a cell whose lines are hidden is read only when its look fits this well
    # and leads every other look by this much (a coin also needs a sure facing). Round 11:
    # 0.75 (was 0.85): coins beside a hand or in its shadow fit 0.75-0.85 with leads of
    # 0.17-0.39 (tune mixed 0-79: 9 coins gained, piecepackr 0-34: 3; no cell wrong).
    covered_piece_similarity: float = 0.75
    covered_piece_margin: float = 0.15
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, learned: LearnedLooks) -> PieceLooks:
        """The looks a setup learned, with this code's decision thresholds (the same
        object when it already is a PieceLooks).

        >>> looks = PieceLooks.of(LearnedLooks({}, {}, empty_ratio=3.0, learned=True))
        >>> looks.empty_ratio, looks.min_similarity, PieceLooks.of(looks) is looks
        (3.0, 0.7, True)
        """
        if isinstance(learned, cls):
            return learned
        return cls(**{f.name: getattr(learned, f.name) for f in dataclasses.fields(LearnedLooks)})

    def alike_turns(self, suit: str) -> tuple[int, ...]:
        """The quarter turns (1-3, clockwise) under which ``suit``'s learned look is alike
        (``TURN_ALIKE``): the look cannot tell a coin's facing from those turns of it.

        >>> alike = {"suns": (0.95, 0.92, 0.95), "arms": (0.4, 0.95, 0.4)}
        >>> looks = PieceLooks({}, {}, turn_alike=alike)
        >>> looks.alike_turns("suns"), looks.alike_turns("arms"), looks.alike_turns("moons")
        ((1, 2, 3), (2,), ())
        """
        alike = self.turn_alike.get(suit, ())
        return tuple(k for k, v in enumerate(alike, start=1) if v >= TURN_ALIKE)

    @classmethod
    def default(cls) -> PieceLooks:
        """Generic looks in the standard suit colours: a pale coin with a coloured symbol and
        a dot at its top, a pawn as a solid coloured disc. A fallback, not a model of any art.
        """
        n = FACE_PX * 3
        tile = np.full((n, n, 3), (175, 205, 220), np.uint8)
        c = n // 2
        coins, pawns, faces = {}, {}, {}
        for suit, bgr in DEFAULT_SUIT_BGR.items():
            img = tile.copy()
            cv2.circle(img, (c, c), int(0.38 * FACE_PX), (165, 195, 210), -1)
            cv2.circle(img, (c, c), int(0.38 * FACE_PX), (110, 120, 130), 1)
            cv2.circle(img, (c, c), int(0.16 * FACE_PX), bgr, -1)
            cv2.circle(img, (c, c - int(0.28 * FACE_PX)), max(1, int(0.05 * FACE_PX)), bgr, -1)
            coins[suit], faces[suit] = _crop_from_patch(img), _face_from_patch(img)
            img = tile.copy()
            cv2.circle(img, (c, c), int(0.3 * FACE_PX), bgr, -1)
            pawns[suit] = _crop_from_patch(img)
        # Tuned separately (tune split, no setup): a drawn stand-in needs a clearer lead,
        # and a close fit under hidden lines (round 11 lowered it for learned looks only).
        # A busy cell unlike the stand-ins is no tile for it (textured_max_similarity 0): the
        # stand-ins are no model of an art the reader never saw. Twelfth session, tune
        # woodburned 0-9 without a setup: 228 coins in view read empty, 10 after (wrong
        # 10.2 -> 1.2 %, unknown 15.4 -> 24.3 %); rigs 30-39 (no choice) 9.3 -> 2.0 %
        # wrong; mixed 0-39, piecepackr 0-14, acrylic 0-14 the same but 2 cells unknown.
        # A facing needs a lead of DEFAULT_FACING_MARGIN: the stand-in's mark (a dot at its
        # top) is no set's, and a coin turned wrong is a wrong piece.
        return cls(
            coins, pawns, faces, min_similarity=0.65, min_margin=0.05,
            min_facing_margin=DEFAULT_FACING_MARGIN,
            max_empty_tint=35.0, covered_piece_similarity=0.85, textured_max_similarity=0.0,
        )  # fmt: skip

    # ------------------------------------------------------------------ templates

    def templates(self) -> tuple[np.ndarray, list[tuple[str, str, str | None]]]:
        """Unit template matrix (D, K) and the label of each column (made once)."""
        cached = self.extra.get("templates")
        if (
            cached is not None
            and cached[0] is self.coins
            and cached[1] is self.pawns
            and cached[2] is self.pawns_on_tone
        ):
            return cached[3]
        made = self._templates()
        # held: ids are reused
        self.extra["templates"] = (self.coins, self.pawns, self.pawns_on_tone, made)
        return made

    def pawn_colours(self, on_tone: bool = False) -> dict[str, np.ndarray]:
        """Each suit's pawn colour (see :func:`pawn_colour`; ``on_tone``: as it shows on the
        board's other tile tone, see ``pawns_on_tone``, for the suits learned so), made once
        per pawn looks (``dataclasses.replace`` shares ``extra``: the looks are held and
        compared)."""
        key = "pawn_colours_on_tone" if on_tone else "pawn_colours"
        pawns = {**self.pawns, **self.pawns_on_tone} if on_tone else self.pawns
        hit = self.extra.get(key)
        if hit is None or hit[0] is not self.pawns or hit[1] is not self.pawns_on_tone:
            hit = self.extra[key] = (
                self.pawns,
                self.pawns_on_tone,
                {s: pawn_colour(t) for s, t in pawns.items()},
            )
        return hit[2]

    def turned_faces(self) -> dict[str, np.ndarray]:
        """Each suit's fine coin look in the four facings (4, C, C, 3), made once; a learned
        look's rim is made round first (see :func:`round_rim`)."""
        rounded = self.learned and bool(RIM_ORDERS)
        hit = self.extra.get("turned")
        # Held with the faces and the rounding (dataclasses.replace shares ``extra``).
        if hit is None or hit[0] is not self.faces or hit[1] != rounded:
            faces = {s: round_rim(f) for s, f in self.faces.items()} if rounded else self.faces
            turned = {s: np.asarray(turned_looks(f)) for s, f in faces.items()}
            hit = self.extra["turned"] = (self.faces, rounded, turned)
        return hit[2]

    def _templates(self) -> tuple[np.ndarray, list[tuple[str, str, str | None]]]:
        cols, labels = [], []
        for suit, t in self.coins.items():
            for facing in FACINGS:
                cols.append(masked(np.rot90(t, FACING_ROT[facing])).ravel())
                labels.append(("coin", suit, facing))
        for suit, t in self.pawns.items():
            for turned in _pawn_turns(t):
                cols.append(masked(turned).ravel())
                labels.append(("pawn", suit, None))
        for suit, t in self.pawns_on_tone.items():
            for turned in _pawn_turns(t):
                cols.append(masked(turned).ravel())
                labels.append(("pawn", suit, ON_TONE))
        return _unit(np.asarray(cols)).T.astype(np.float32), labels


#: The third member of a template's label (see ``PieceLooks.templates``) for a pawn's look
#: on the board's other tile tone (``pawns_on_tone``); None for the look as learned.
ON_TONE = "on_tone"


#: A Piecepack coin's radius (3/4 inch across on 1 inch cells), in cells.
COIN_RADIUS = 0.375
#: The rim band of a coin's look: from this share of its radius outwards.
RIM_FROM = 0.85
#: Angular orders (about the coin's centre) taken out of the rim band of a learned look.
RIM_ORDERS = (1, 2)


#: A learned look this alike to itself under a turn (``PieceLooks.turn_alike``) does not
#: decide between a coin's facing and that turn of it; the separate mark does.
TURN_ALIKE = 0.9


def round_rim(face: np.ndarray) -> np.ndarray:
    """A learned coin look (C, C, 3, centred on the coin) with the broad one-sided shading of
    its rim band taken out: in each one-pixel ring from ``RIM_FROM`` of the coin's radius
    outwards, the angular orders ``RIM_ORDERS`` (a dark arc on one side, a lit one on the
    other) are fitted and subtracted (a new array).

    The coin is round: a rim darker on one side is the light and the camera's tilt (the
    coin's edge and thickness seen from one side), and it does not turn when the coin does.
    Learned from coins that all face north, it would pull every read towards north (or
    towards the turn that puts the arc where this photo has it). A small mark near the rim
    is local, so it stays (its share of the first two orders is small).

    >>> n = 36
    >>> yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    >>> r = np.hypot(yy, xx)
    >>> face = np.zeros((n, n, 3), np.float32)
    >>> face[..., 0] = np.where(r >= 12.5, 10 * xx / r.clip(1), 0)  # rim dark west, lit east
    >>> mark = (np.abs(xx) < 2) & (yy < -12) & (yy > -15)  # a small mark at the top
    >>> face[mark, 0] += 30
    >>> rim = ~mark & (r >= 12.5) & (r < 18)
    >>> out = round_rim(face)
    >>> rms = lambda a: float(np.sqrt((a**2).mean()))
    >>> round(rms(face[rim, 0])), round(rms(out[rim, 0])), round(float(out[mark, 0].mean()))
    (7, 2, 24)
    """
    n = face.shape[0]
    yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    r = np.hypot(yy, xx)
    theta = np.arctan2(yy, xx)
    out = np.array(face, np.float32, copy=True)
    first = int(np.ceil(RIM_FROM * COIN_RADIUS * FACE_PX))
    for ring in range(first, int(r.max()) + 1):
        sel = (r >= ring - 0.5) & (r < ring + 0.5)
        if sel.sum() < 4 * len(RIM_ORDERS) + 2:
            continue
        t = theta[sel]
        waves = [f(k * t) for k in RIM_ORDERS for f in (np.cos, np.sin)]
        A = np.stack([np.ones_like(t), *waves], axis=1)
        coef, *_ = np.linalg.lstsq(A, out[sel], rcond=None)
        out[sel] -= A[:, 1:] @ coef[1:]
    return out


#: A pawn leans away from the camera's foot point: towards a side of the board, or towards
#: a corner. Its look is tried turned in these steps (degrees) about the cell centre.
PAWN_TURN_DEG = 45


def _pawn_turns(look: np.ndarray) -> list[np.ndarray]:
    """The pawn ``look`` (CROP, CROP, 3) turned in ``PAWN_TURN_DEG`` steps: quarter turns
    exactly, the steps between by interpolation (the compared disc stays inside the crop)."""
    out = []
    c = (CROP - 1) / 2
    for k in range(360 // PAWN_TURN_DEG):
        deg = k * PAWN_TURN_DEG
        if deg % 90 == 0:
            out.append(np.rot90(look, deg // 90))
            continue
        M = cv2.getRotationMatrix2D((c, c), deg, 1.0)  # counter-clockwise, as np.rot90
        out.append(cv2.warpAffine(look, M, (CROP, CROP), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE))  # fmt: skip
    return out


def _face_from_patch(patch_bgr: np.ndarray) -> np.ndarray:
    """Facing window of a patch drawn at FACE_PX (centre of ``patch_bgr``)."""
    lab = cv2.cvtColor(patch_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    rel = relative_lab(lab, np.median(lab[:3, :3, 1:].reshape(-1, 2), axis=0))
    c = lab.shape[0] // 2 - FACE_CROP // 2
    return rel[c : c + FACE_CROP, c : c + FACE_CROP].copy()


def _crop_from_patch(patch_bgr: np.ndarray) -> np.ndarray:
    """Descriptor crop of one patch drawn at FACE_PX, brought to PX (centre of the patch)."""
    n = round(patch_bgr.shape[0] * PX / FACE_PX)
    patch_bgr = cv2.resize(patch_bgr, (n, n), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(patch_bgr, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    tile_ab = np.median(lab[:3, :3, 1:].reshape(-1, 2), axis=0)
    c = lab.shape[0] // 2
    crop = lab[c - CROP // 2 : c - CROP // 2 + CROP, c - CROP // 2 : c - CROP // 2 + CROP].copy()
    crop[..., 0] -= crop[..., 0].mean()
    crop[..., 1:] = (crop[..., 1:] - tile_ab) * CHROMA_WEIGHT
    return crop


# --------------------------------------------------------------------------- decisions


@dataclass
class CellDecision:
    """One cell's verdict. ``kind`` is empty, coin, pawn or unknown."""

    cell: str
    kind: str
    suit: str | None = None
    facing: str | None = None
    confidence: float = 1.0
    similarity: float = 0.0  # best look's similarity
    energy_ratio: float = 0.0  # structure over the board's noise floor
    detail_ratio: float = 99.0  # fine detail over the board's noise floor of it
    margin: float = 0.0  # best look over the best look with another kind or suit
    facing_margin: float = 0.0  # 1 - best turn's residual / second turn's residual (coins)
    # The best turn's lead (as facing_margin) over each turn, north, east, south, west (0 for
    # itself): a symbol alike upside down leaves two turns, its mark tells them apart.
    turn_leads: tuple[float, ...] = ()
    # The coin's separate mark agrees (1), points elsewhere (-1), is unseen (0), or was read
    # alike from two centres and set the facing (2).
    mark: int = 0
    tint: float = 0.0  # mean colour away from the tile colour
    # With a foreign tint: its middle's colour away from its own crop's corners (the tile
    # around whatever sits in it; unmeasured: inf). A coloured light tints both alike.
    local_tint: float = float("inf")
    light_ratio: float = 1.0  # mean lightness of its middle over the board's typical cell's
    shade_tint: float = float("inf")  # tint at the tile's lightness (unmeasured: inf, never a tile)
    # How far its colour is from the tile's paled toward white or as glare over it records
    # (clipped), see glare_tints; the clipped colours only where they can decide (measure).
    glare_tint: float = float("inf")
    # The best look's similarity when the pawn's colour was read against the looks (it named
    # a suit, or leaned against the look's), else -1: how like a piece the cell is.
    likeness: float = -1.0
    colour_named: bool = False  # the pawn's colour named its suit (see _pawn_by_colour)
    covered: bool = False  # the printed lines around it are hidden (a hand, an arm)
    # Covered only as partly hidden beside a covered cell, and lit as the open board (not
    # in a hand's shadow, see occlusion.lit_beside): it may be decided as an open cell.
    lit_beside: bool = False
    # Covered only as its lines look: they show once the light falling on them is made up
    # for (a hand's shadow, see occlusion.hidden_share). It may hold a piece decided as
    # in the open; it is empty only as a covered cell is (see _tile_under_lines).
    shaded: bool = False
    # Covered only as its lines look where glare washed them out (the hidden pieces light
    # and of the tile's colour paled toward white, see washed_pieces): no hand is there.
    glared: bool = False
    # The median lightness (over the typical cell) of its line pieces glare washed out, 0
    # where none: how light the glare leaves plain tile there (see _plain_tile_in_glare).
    glare_around: float = 0.0
    # Its lines are hidden by something of the tile's own colour (see cover_tints): plain
    # tile in its middle may be that cover, and so may the light of a cell lit beside it.
    tile_cover: bool = False
    # The share of its hidden line pieces that the per-pixel tile test (tile_pixels) takes
    # for plain tile (0 where none is hidden): at COVER_AS_TILE or more, that test cannot
    # tell what hides them (a hand) from tile, and a cell it calls plain tile may be under it.
    cover_as_tile: float = 0.0
    best: tuple = ()  # (kind, suit) of the best look, kept even when undecided
    # Each suit's best pawn fit (SUITS order, -1 without that suit's look) and the best coin
    # fit, for a pawn-like cell: weighed again once other cells hold their suits' pawns
    # (see _pawns_by_elimination). The suit whose pawn colour is nearest, when the colour
    # named it or leaned to it (see _pawn_by_colour), else None.
    pawn_fits: tuple[float, ...] = ()
    coin_fit: float = -1.0
    colour_suit: str | None = None
    # Its best pawn fit is a pawn's look on the board's other tile tone, made from the
    # learned one (see PieceLooks.pawns_on_tone), not one the calibration photo showed: a
    # pawn so fitted needs the usual fit (not a leaning pawn's) and its colour must name
    # its suit, or lean to it with its colour terms nearest it (see _made_look_only).
    on_tone: bool = False
    # ... and the suit whose pawn colour is nearest by its colour terms (a, b) alone, which a
    # shade or a turn keeps (see hue_suit), however unclear, or the suit in whose shade they
    # lie where the lightness named another (see in_shade_of); None when not measured.
    hue_near: str | None = None
    # For a coin-like cell whose nearest look of another kind or suit is its own suit's pawn:
    # its best look's lead over the other coin suits' looks (else -1; see _own_pawn_alone).
    suit_margin: float = -1.0
    # For a coin-like cell whose best suit's coins share their ink colour with another
    # suit's (see ink_alike): each suit's best coin fit (SUITS order, -1 without that suit's
    # look) and the best fit of any other look (a pawn's); its suit is then read from the
    # fine look (see _fine_suits). Empty when the colour tells the suits apart.
    suit_fits: tuple[float, ...] = ()
    other_fit: float = -1.0
    # ... and the fine look's leader's lead over the other suits of that ink (-1: not read
    # so): under FINE_SUIT_LEAD the suit is undecided, the leader its best look all the same.
    fine_lead: float = -1.0
    # For a pawn-like cell whose best coin look fits nearly as well: that coin's reading
    # (suit, facing, its lead over the other coin suits): a clear facing names the coin
    # (see _coins_by_their_facing). None when not read.
    as_coin: CellDecision | None = None
    # Of the look disc's pixels (see :func:`seen_shares`): the share that is plain tile, and
    # the most any piece's learned look explains (-1: not measured; only a cell still
    # undecided by every other rule is, see SeenLater); a finger over part of an
    # empty cell leaves most of it tile.
    tile_share: float = -1.0
    piece_share: float = -1.0
    # Of the pixels around the look disc (see :func:`hand_edge_view`), once measured: how
    # many are neither plain tile nor part of what enters the cell from its edge (a hand),
    # and the least share of any learned look's marks that lies in view (-1: not measured).
    strays: int = -1
    marks_in_view: float = -1.0
    # For a cell of a one-colour set (see ink_alike) that may be taken for tile or a pawn: how
    # well the best of those coins' fine looks fits it (-1: not measured; see _coin_detail),
    # and that look's suit and facing, its lead over the other suits' and over its other turns.
    coin_detail: float = -1.0
    detail_coin: tuple[str, str, float, float] | None = None
    # Read as a pawn (by its look or a pawn rule of decide_all) where no pawn's body shows
    # (see _no_pawn_body): left unknown, not called plain tile by the later rules either
    # (what is there, a fingertip, a coin, a pawn lying out of its cell, is no tile).
    no_body: bool = False
    # The step of decide_all that undid decide's pawn here (one of DROPPED_STEPS; "" where
    # none did): what a report names as the cause of its "unknown".
    dropped: str = ""
    # For a busy coin-like cell on a board of two tile tones: the suit its colour names
    # clearly as a pawn's (either tone's pawn colours, see pawn_colours), else None; see
    # _flat_coin_pawns.
    colour_as_pawn: str | None = None
    # The colours seen where this frame's lines are hidden ((n, 3) relative Lab, see
    # hidden_piece_colours; one array shared by the cells in or beside a covered one, None
    # elsewhere): what a hand shows. And, once weighed (see _no_tile_under_a_hand), the
    # share of its look disc that is the hand's (-1: not weighed).
    hand_colours: np.ndarray | None = field(default=None, repr=False, compare=False)
    hand_share: float = -1.0
    # The cell's pixels kept for the measurements above, made only if a decision needs them
    # (see SeenLater); None where none could be needed.
    seen_later: SeenLater | None = field(default=None, repr=False, compare=False)


@dataclass
class BoardViews:
    """A rectified board (FACE_PX, MARGIN) and what classification derives from it."""

    lab_hi: np.ndarray  # Lab (8-bit) at FACE_PX
    tile_ab: np.ndarray
    crops: np.ndarray  # (64, shifts, CROP, CROP, 3) at PX
    rel_lo: np.ndarray  # Lab relative to the tile chroma, at PX
    light: np.ndarray  # lightness at FACE_PX, uint8 (lines, lock check, motion)

    @functools.cached_property
    def rel_hi(self) -> np.ndarray:
        """Lab relative to the tile chroma at FACE_PX, the whole board (made on first use;
        reading facings needs only :meth:`rel_hi_window`)."""
        return relative_lab(self.lab_hi.astype(np.float32), self.tile_ab)

    def rel_hi_window(self, y0: int, x0: int, size: int) -> np.ndarray:
        """``rel_hi[y0:y0+size, x0:x0+size]`` without making the whole of ``rel_hi``."""
        if "rel_hi" in self.__dict__:
            return self.rel_hi[y0 : y0 + size, x0 : x0 + size]
        y1, x1 = max(y0, 0), max(x0, 0)  # as numpy slicing would, for a start inside
        lab = self.lab_hi[y1 : y0 + size, x1 : x0 + size].astype(np.float32)
        return relative_lab(lab, self.tile_ab)


def board_views(
    rect_hi: np.ndarray,
    lab_hi: np.ndarray | None = None,
    refs: BoardRefs | None = None,
    cells: Collection[int] | None = None,
) -> BoardViews:
    """Views of a board rectified at ``FACE_PX`` px/cell with ``MARGIN`` cells of margin
    (``lab_hi``: its Lab conversion, when the caller has made it already). With ``refs``
    the tile colour is theirs (not this board's median); with ``cells`` (indices) only those
    cells' crops are cut (the others are zero: measure only them)."""
    n = round((N + 2 * MARGIN) * PX)
    rect_lo = cv2.resize(rect_hi, (n, n), interpolation=cv2.INTER_AREA)
    if refs is None:
        lab, tile_ab = board_lab(rect_lo)
    else:
        lab = cv2.cvtColor(cv2.GaussianBlur(rect_lo, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
        lab, tile_ab = lab.astype(np.float32), refs.tile_ab
    rel_lo = relative_lab(lab, tile_ab)
    crops = raw_crops(lab, tile_ab, rel_lo, cells)
    if lab_hi is None:
        lab_hi = cv2.cvtColor(rect_hi, cv2.COLOR_BGR2LAB)
    light = lab_hi[..., 0].copy()
    return BoardViews(lab_hi, tile_ab, crops, rel_lo, light)


def classify(
    rect_hi: np.ndarray, looks: PieceLooks, light_lines: bool = False
) -> list[CellDecision]:
    """Decide every cell of a board rectified at ``FACE_PX`` px/cell with ``MARGIN``."""
    return decide_all(measure(board_views(rect_hi), looks, light_lines), looks)


def decide_all(cells: list[CellDecision], looks: PieceLooks) -> list[CellDecision]:
    """:func:`decide` each cell, then keep one pawn per suit (a Piecepack has one): a pawn
    leans over its neighbours, and the weaker claims are left undecided. Beside a covered
    cell the coin's separate mark may confirm a facing but not set one (``mark`` 2 counts
    as a mark pointing elsewhere). A cell covered only as glare washed out its lines
    (``glared``) has no hand over it: it puts no cell "beside a hand"."""
    near = beside_a_hand(np.array([_by_a_hand(d) for d in cells]))
    for d, by_hand in zip(cells, near, strict=True):
        # A hand's edge or a finger's shadow beside a coin can give both mark reads the same
        # wrong blob (seen once on the test split's occlusion sweep, after its figures).
        if by_hand and d.mark > 1:
            d.mark = -1
    out = [decide(d, looks) for d in cells]
    # A pawn has no facing: a cell read as a pawn whose coin look lines up clearly in one
    # turn is that coin (see _clear_rival), named by _coins_by_their_facing below.
    for d in out:
        if d.kind == "pawn" and _clear_rival(d, looks):
            _drop_pawn(d, DROPPED_COIN_TURN)
    # ... and one whose fine look a one-colour coin's fits closely is no pawn: it is left
    # unknown (see PAWN_COIN_DETAIL).
    for d in out:
        if d.kind == "pawn" and _a_coins_face(d, looks):
            _drop_pawn(d, DROPPED_COIN_FACE)
    # Beside a hand, an arm or its shadow can look like a dark pawn: a pawn claimed next
    # to a covered cell must fit very closely.
    for d, by_hand in zip(out, near, strict=True):
        # ... unless its colour named the suit (a sleeve seldom has a suit's learned pawn
        # colour), when it needs less.
        need = PAWN_BY_HAND_NAMED if d.colour_named else looks.pawn_by_hand_similarity
        if d.kind == "pawn" and by_hand and d.similarity < need:
            _drop_pawn(d, DROPPED_BY_HAND)
    for suit in SUITS:
        claims = [d for d in out if d.kind == "pawn" and d.suit == suit]
        claims.sort(key=lambda d: _claim_rank(d, looks), reverse=True)
        claims = _bodied(claims, looks)
        if len(claims) > 1 and _claim_rank(claims[0], looks) < _claim_rank(claims[1], looks, 1):
            # a rival claim nearly as good: the one kept is at most half sure
            claims[0].confidence = min(claims[0].confidence, 0.5)
        for d in claims[1:]:
            _drop_pawn(d, DROPPED_SECOND_PAWN)
    if looks.learned:
        _coins_by_their_facing(out, looks)
        _pawns_by_a_hand(out, looks)
        _pawns_by_elimination(out, near, looks)
        _pawns_by_their_colour(out, near, looks)
        _free_named_pawns(out, near, looks)
        _last_free_pawn(out, near, looks)
        _flat_coin_pawns(out, near, looks)
        for d in out:
            _tile_beside_a_hand(d)
            _tile_partly_seen(d)
        _tile_as_the_open_shows(out, looks)
        _no_tile_where_a_coin_shows(out)
        _coins_by_their_fine_look(out, looks)
        _no_tile_under_a_hand(out)
    else:
        left_unknown_where_unfit(out)  # the stand-ins may be no model of this set
    return out


#: The steps of :func:`decide_all` that undo a pawn :func:`decide` read, as
#: ``CellDecision.dropped`` names them: its coin look lines up in one turn (_clear_rival), a
#: one-colour coin's fine look fits it (_a_coins_face), it fits too loosely beside a covered
#: cell (PAWN_BY_HAND_NAMED, ``pawn_by_hand_similarity``), another cell's claim on the
#: suit's one pawn ranks higher, or no pawn's body shows (_no_pawn_body).
DROPPED_COIN_TURN = "coin-turn"
DROPPED_COIN_FACE = "coin-face"
DROPPED_BY_HAND = "pawn-by-hand"
DROPPED_SECOND_PAWN = "second-pawn"
DROPPED_NO_BODY = "no-body"
DROPPED_STEPS = (
    DROPPED_COIN_TURN, DROPPED_COIN_FACE, DROPPED_BY_HAND, DROPPED_SECOND_PAWN, DROPPED_NO_BODY
)  # fmt: skip


def _drop_pawn(d: CellDecision, step: str) -> None:
    """Leave the pawn ``d`` unknown, noting the step of :func:`decide_all` that did.

    >>> d = CellDecision("a1", "pawn", suit="arms", confidence=0.9)
    >>> _drop_pawn(d, DROPPED_BY_HAND); d.kind, d.suit, d.confidence, d.dropped
    ('unknown', None, 0.0, 'pawn-by-hand')
    """
    d.kind, d.suit, d.confidence = "unknown", None, 0.0
    d.dropped = step


#: See :func:`seen_shares`: a pixel is explained by a look when its relative Lab (the
#: chroma weighted by CHROMA_WEIGHT) lies within this of the look's, lightness offset by
#: the median over the disc (a hand's shading); plain tile within this of the board's
#: typical cell (its lightness scaled by 0.9-1.1 at most: a shadow is not tile).
SEEN_TOLERANCE = 9.0
#: See :func:`_tile_partly_seen`: an undecided cell is empty when plain tile is at least
#: this share of its look disc and leads every piece look's share by TILE_SEEN_LEAD.
#: Round 17 (tune mixed 0-79, piecepackr 0-34, acrylic 0-49, cells left unknown): empty
#: cells with a finger's tip over them (the renderer: under a quarter of the cell) lead by
#: up to 0.57; a piece's cell so led by 0.19 at most (a coin under a hand's edge).
TILE_SEEN_SHARE = 0.5
TILE_SEEN_LEAD = 0.22


def _bodied(claims: list[CellDecision], looks: PieceLooks) -> list[CellDecision]:
    """The claims on one suit's pawn (best first) where a pawn's body shows: the others
    (:func:`_no_pawn_body`: a fingertip and its shadow, a light coin) are left unknown,
    and the best of them, which would have been kept, is marked ``no_body``."""
    kept = [d for d in claims if not _no_pawn_body(d, looks)]
    for d in claims:
        if d not in kept:
            _drop_pawn(d, DROPPED_NO_BODY)
    if claims and claims[0] not in kept:
        claims[0].no_body = True
    return kept


def _tile_partly_seen(d: CellDecision) -> None:
    """An undecided cell partly covered (a finger's tip, a hand's edge) whose pixels in
    view are plainly tile: empty, as sure as the share of plain tile over half (a covered
    cell's plain tile is at most half sure). Not under glare (plain tile there is
    :func:`_plain_tile_in_glare`'s), nor where the lines are hidden by something of the
    tile's own colour (``tile_cover``: its "tile" may be that cover). Only cells whose
    shares were measured.

    >>> d = CellDecision("a1", "unknown", tile_share=0.8, piece_share=0.4)
    >>> _tile_partly_seen(d); d.kind, d.confidence
    ('empty', 0.4)
    >>> d = CellDecision("a1", "unknown", tile_share=0.8, piece_share=0.7)
    >>> _tile_partly_seen(d); d.kind
    'unknown'
    """
    if d.kind != "unknown" or d.no_body or d.glared or d.tile_cover:
        return
    if d.tile_share < TILE_SEEN_SHARE:
        return
    if d.cover_as_tile >= COVER_AS_TILE:
        return
    if d.piece_share < 0 and d.seen_later is not None:
        d.piece_share = d.seen_later.piece_share()
    if d.piece_share < 0:
        return
    if d.tile_share - d.piece_share >= TILE_SEEN_LEAD:
        d.kind, d.suit, d.facing = "empty", None, None
        d.confidence = round(0.5 * d.tile_share, 3)


#: See :func:`_free_named_pawns`: the pawn look of the suit its colour names must fit at
#: least this (a pawn's shape at all). Round 16 (tune mixed 0-79, piecepackr 0-34, acrylic
#: 0-49): such pawns fit at 0.52-0.67; no other cell in the open whose colour named a free
#: suit was left (the nearest, an empty cell, fit 0.41 with its suit placed).
FREE_NAMED_SIMILARITY = 0.5


def _pawn_like(d: CellDecision, looks: PieceLooks) -> bool:
    """Whether an undecided cell is one the pawn rules below take up: its best look a
    pawn's, busy and detailed enough to be a piece (``empty_ratio``, ``detail_empty``), no
    hand over its own lines (:func:`_by_a_hand`). Whether a hand lies beside it is each
    rule's to weigh.

    >>> looks = PieceLooks({}, {}, learned=True, empty_ratio=2.0)
    >>> d = CellDecision("h8", "unknown", best=("pawn", "moons"), energy_ratio=9.0,
    ...                  detail_ratio=9.0)
    >>> _pawn_like(d, looks), _pawn_like(dataclasses.replace(d, energy_ratio=1.5), looks)
    (True, False)
    """
    return (
        d.kind == "unknown"
        and d.best[:1] == ("pawn",)
        and not _by_a_hand(d)
        and not _made_look_only(d, looks)
        and not _fine_as_a_coin(d, looks)
        and d.energy_ratio >= looks.empty_ratio
        and d.detail_ratio >= looks.detail_empty
    )


def _made_look_only(d: CellDecision, looks: PieceLooks) -> bool:
    """Is a pawn-like cell fitted best by a look made for the board's other tile tone
    (``on_tone``) while its colour vouches for no suit, or while it fits under
    ``min_similarity``? A made look is a blob of a pawn's colour on that tone; a finger, a
    shadow or a worn tile edge can fit it, and a pale hand's colour lies nearest a silver
    pawn's on pale maple. Such a cell is no pawn for :func:`decide` nor for the pawn rules
    of :func:`decide_all`. Tune checkered 0-23 (with a setup): the 114 pawns read by made
    looks all had their colour name the suit and fitted 0.72 and up; of the cells so fitted
    whose colour named none, 3 were read as pawns, none a pawn; fresh rigs 200-211: a hand
    named moons at 0.55.

    The colour vouches for the look's suit when it names it (``colour_named``), or when it
    leans to it (``colour_suit``) and its colour terms lie nearest that suit's too
    (``hue_near``): two measures of the colour agreeing with the look. Round 60 (tune
    checkered 7400-7439, cells in the open, busy, fitting a made look at 0.7 or more whose
    colour named no suit): the 3 whose lean and hue agreed with the look were that pawn
    (suns, crowns, moons; 0.77-0.83); the 2 others were moons pawns fitting the arms look.

    >>> looks = PieceLooks({}, {}, learned=True)
    >>> d = CellDecision("h1", "unknown", best=("pawn", "suns"), on_tone=True, similarity=0.8)
    >>> _made_look_only(d, looks), _made_look_only(dataclasses.replace(d, colour_named=True), looks)
    (True, False)
    >>> _made_look_only(dataclasses.replace(d, colour_named=True, similarity=0.55), looks)
    True
    >>> leans = dataclasses.replace(d, colour_suit="suns", hue_near="suns")
    >>> _made_look_only(leans, looks)
    False
    >>> _made_look_only(dataclasses.replace(leans, hue_near="moons"), looks)
    True
    """
    if d.best[:1] != ("pawn",) or not d.on_tone:
        return False
    agree = d.colour_suit == d.best[1] == d.hue_near
    return not (d.colour_named or agree) or d.similarity < looks.min_similarity


#: A pawn's fine detail over the board's noise floor of it (``detail_ratio``) above which a
#: cell whose pawn look leads the coin looks by less than ``PAWN_SURE_LEADS`` x
#: ``min_margin`` is no pawn to be named: a coin's printed suit and rim are fine detail, a
#: pawn's smooth body little of it. Tune checkered 0-24, 200-211, 300-329 (with a setup,
#: 713 pawns read right): the 12 pawns named with a lead under 0.06 measured 3.7-6.9; the
#: two coins read as their suit's pawn (84:a3 under a hand's edge, 840:b5 beside a hand,
#: leads 0.042 and 0.024) 10.0 and 11.3 (coins named there: 8-21).
PAWN_FINE_DETAIL = 8.5
#: See ``PAWN_FINE_DETAIL``: a pawn leading every other look by this many ``min_margin`` is
#: named fully sure (``decide``'s confidence scale); under it the fine detail is weighed.
PAWN_SURE_LEADS = 3.0


def _fine_as_a_coin(d: CellDecision, looks: PieceLooks) -> bool:
    """Is a pawn-best cell, its lead over the other looks under ``PAWN_SURE_LEADS`` x
    ``min_margin``, as fine in detail as a coin (``PAWN_FINE_DETAIL``)? A coin's own
    colour names its suit's pawn, and its round face can fit the pawn's look from above
    nearly as well as a coin's (a hand over part of it, the tile around a made look): its
    printed detail tells it. Such a cell is no pawn for :func:`decide` nor for the pawn
    rules of :func:`decide_all`. Weighed on a board of two tile tones only (one that made
    ``pawns_on_tone``, where it was measured): on the six older arts' tune sets (rigs 0-12)
    it left 4-57 more cells unknown for 0-3 coins no longer read as pawns, and made one
    wrong (mixed, no setup), so there they are read as before.

    >>> looks = PieceLooks({}, {}, learned=True, min_margin=0.02,
    ...                    pawns_on_tone={"crowns": np.zeros((2, 2, 3))})
    >>> d = CellDecision("b5", "unknown", best=("pawn", "crowns"), margin=0.024,
    ...                  detail_ratio=11.3)
    >>> _fine_as_a_coin(d, looks), _fine_as_a_coin(dataclasses.replace(d, detail_ratio=6.0), looks)
    (True, False)
    >>> _fine_as_a_coin(dataclasses.replace(d, margin=0.1), looks)
    False
    >>> _fine_as_a_coin(d, dataclasses.replace(looks, pawns_on_tone={}))
    False
    """
    if not looks.pawns_on_tone or d.best[:1] != ("pawn",):
        return False
    if d.margin >= PAWN_SURE_LEADS * looks.min_margin:
        return False
    return d.detail_ratio > PAWN_FINE_DETAIL


def _free_named_pawns(cells: list[CellDecision], near: np.ndarray, looks: PieceLooks) -> None:
    """A pawn-like cell whose colour names its suit (see :func:`_pawn_by_colour`), that
    suit's pawn placed nowhere else, is that pawn when its look fits at
    ``FREE_NAMED_SIMILARITY`` and leads every coin look by ``min_margin``. A pawn leaning
    far (near a corner, under a tilted camera) fits its upright look loosely, under
    ``NAMED_PAWN_SIMILARITY``; its colour does not lean, and a Piecepack has one pawn per
    suit. Busy cells in the open only (not covered but by glare, nor beside a covered
    cell), best fit first, a suit once; at most half sure. Round 16 (tune mixed 0-79,
    piecepackr 0-34, acrylic 0-49): 16 pawns, all right."""
    taken = {d.suit for d in cells if d.kind == "pawn"}
    claims = []
    for d, by_hand in zip(cells, near, strict=True):
        if not _pawn_like(d, looks) or by_hand or not d.colour_named or d.best[1] in taken:
            continue
        if d.similarity >= FREE_NAMED_SIMILARITY and d.margin >= looks.min_margin:
            claims.append((d.similarity, d.margin, d, d.best[1]))
    _claim_pawns(claims, taken, looks)


#: See :func:`_last_free_pawn`: the free suit's pawn look must fit at least this (a pawn's
#: shape at all, as ``FREE_NAMED_SIMILARITY``) and lead every coin look by
#: ``LAST_PAWN_LEAD``. Round 21 (tune mixed 0-79, piecepackr 0-34, acrylic 0-49, cells in
#: the open left unknown with three suits' pawns placed): the pawns fit their free suit's
#: look at 0.51-0.78, 0.11-0.37 ahead of the coin looks; the coins and empty cells so left
#: fit it at 0.45 at most (an acrylic arms coin, 0.06 ahead of its coin look).
LAST_PAWN_FIT = 0.5
LAST_PAWN_LEAD = 0.1
#: ... and every placed pawn that could be this cell's instead (its suit's look fits the
#: cell at least as well, or the cell's colour leans to its suit) must be more than this
#: sure: decided by its own look, not by a rule that places a pawn at most half sure.
LAST_PAWN_RIVAL_SURE = 0.5


def _last_free_pawn(cells: list[CellDecision], near: np.ndarray, looks: PieceLooks) -> None:
    """With three suits' pawns placed (decided), an undecided pawn-like cell is the fourth
    suit's pawn when that suit's look fits it at ``LAST_PAWN_FIT`` and leads every coin look
    by ``LAST_PAWN_LEAD``, and every placed pawn it could be instead was placed surely
    (``LAST_PAWN_RIVAL_SURE``): a Piecepack has one pawn per suit. Acrylic's dark blue
    (arms) pawn, leaning, fits the black (moons) pawn's look and colour as well as its own
    or better (:func:`_pawns_by_elimination` then finds no near tie), but once the moons
    pawn stands elsewhere, read by its own look, this one can only be the arms pawn.

    Busy cells in the open only (not covered but by glare, nor beside a covered cell: a hand
    or its shadow beside a coin fits a pawn's look too); best fit first; at most half sure.
    Round 21 (tune mixed 0-79, piecepackr 0-34, acrylic 0-49): 9 acrylic arms pawns and a
    mixed crowns pawn, all right; the one such cell whose rival was placed half sure (acrylic
    41/0 e6, an arms pawn, the moons pawn placed as arms) is left. The cell must be a pawn by
    its look (:func:`_pawn_by_its_look`: three pawns placed do not make a fourth); so gated,
    tune acrylic 0-49 keeps 3 of the rule's 6 boards (68.5 % exact where visible, 67.0 %
    without the rule), and acrylic 12/2's finger over an empty cell is no longer a pawn.

    >>> looks = PieceLooks({}, {}, learned=True, empty_ratio=2.0)
    >>> placed = [CellDecision(c, "pawn", s, confidence=1.0) for c, s in
    ...           (("a1", "suns"), ("b1", "moons"), ("c1", "crowns"))]
    >>> d = CellDecision("h8", "unknown", best=("pawn", "moons"), energy_ratio=9.0,
    ...                  detail_ratio=9.0, pawn_fits=(0.2, 0.7, 0.1, 0.6), coin_fit=0.4)
    >>> _last_free_pawn([*placed, d], np.zeros(4, bool), looks); d.kind, d.suit
    ('pawn', 'arms')
    >>> placed[1].confidence = 0.5  # the moons pawn placed only half sure: it may be this
    >>> d = dataclasses.replace(d, kind="unknown", suit=None)
    >>> _last_free_pawn([*placed, d], np.zeros(4, bool), looks); d.kind
    'unknown'
    """
    placed = {d.suit: d for d in cells if d.kind == "pawn"}
    free = [s for s in SUITS if s not in placed]
    if len(free) != 1:
        return
    (suit,) = free
    k = SUITS.index(suit)
    claims = []
    for d, by_hand in zip(cells, near, strict=True):
        if not _pawn_like(d, looks) or by_hand or len(d.pawn_fits) != len(SUITS):
            continue
        fit = d.pawn_fits[k]
        lead = fit - d.coin_fit
        if fit < LAST_PAWN_FIT or lead < LAST_PAWN_LEAD:
            continue
        if not _pawn_by_its_look(d, looks):
            continue  # three pawns placed do not make a fourth: its look must say "pawn"
        rivals = {s for s, f in zip(SUITS, d.pawn_fits, strict=True) if s != suit and f >= fit}
        if d.colour_suit not in (None, suit):
            rivals.add(d.colour_suit)
        if all(placed[s].confidence > LAST_PAWN_RIVAL_SURE for s in rivals):
            claims.append((fit, lead, d, suit))
    _claim_pawns(claims, set(placed), looks)


#: See :func:`_flat_coin_pawns`: a coin-like cell whose best turn leads the others by less
#: than this shows no coin's face, and one whose fine detail (``detail_ratio``) is under
#: ``PAWN_SMOOTH_DETAIL`` has no coin's print. Tune checkered 0-24 (with a setup): the 15
#: pawns in the open left unknown with a coin's look best led a turn by 0.12 at most; 12 at
#: detail 3.8-6.0 (9 named so, their colour naming the look's suit; 3 suns pawns whose fine
#: look named moons left), 3 arms pawns at 9.2-10.8 (left); the coins in the open left
#: unknown measured 10.6 and more (those chk21b saw named as pawns 8-21).
FLAT_TURN_LEAD = 0.15
PAWN_SMOOTH_DETAIL = 7.0


def _flat_coin_pawns(cells: list[CellDecision], near: np.ndarray, looks: PieceLooks) -> None:
    """On a board of two tile tones (one that made ``pawns_on_tone``): an undecided cell in
    the open that :func:`_flat_pawn_claim` takes for a pawn is that pawn when no other cell
    holds it and no other such cell claims it: at most half sure. A cone pawn at the
    board's edge, seen from the camera's side, is a round blob of its suit's colour as a
    coin with its suit's ring is; only a coin's printed face has fine detail that lines
    up in one turn.

    >>> looks = PieceLooks({}, {}, learned=True, empty_ratio=2.0,
    ...                    pawns_on_tone={"suns": np.zeros((2, 2, 3))})
    >>> d = CellDecision("h1", "unknown", best=("coin", "suns"), similarity=0.73,
    ...                  energy_ratio=9.5, detail_ratio=3.8, facing_margin=0.01,
    ...                  colour_as_pawn="suns")
    >>> _flat_coin_pawns([d], np.zeros(1, bool), looks); d.kind, d.suit, d.confidence
    ('pawn', 'suns', 0.5)
    >>> d = dataclasses.replace(d, kind="unknown", suit=None)
    >>> _flat_coin_pawns([d], np.zeros(1, bool), dataclasses.replace(looks, pawns_on_tone={}))
    >>> d.kind
    'unknown'
    >>> d = dataclasses.replace(d, detail_ratio=12.0)
    >>> _flat_coin_pawns([d], np.zeros(1, bool), looks); d.kind
    'unknown'
    >>> d = dataclasses.replace(d, detail_ratio=3.8, facing_margin=0.3)  # a coin's turn
    >>> _flat_coin_pawns([d], np.zeros(1, bool), looks); d.kind
    'unknown'
    >>> d = dataclasses.replace(d, facing_margin=0.01)
    >>> _flat_coin_pawns([d, dataclasses.replace(d, cell="h8")], np.zeros(2, bool), looks); d.kind
    'unknown'
    >>> moons = dataclasses.replace(d, best=("coin", "moons"), detail_ratio=12.0)
    >>> _flat_coin_pawns([moons], np.zeros(1, bool), looks); moons.kind, moons.suit
    ('pawn', 'suns')
    >>> _flat_coin_pawns([d, dataclasses.replace(moons, cell="h8", kind="unknown")],
    ...                  np.zeros(2, bool), looks); d.kind
    'unknown'
    """
    if not looks.pawns_on_tone:
        return
    taken = {d.suit for d in cells if d.kind == "pawn"}
    claims = []
    for d, by_hand in zip(cells, near, strict=True):
        suit = None if by_hand else _flat_pawn_claim(d, taken, looks)
        if suit is not None:
            claims.append((d, suit))
    suits = Counter(suit for _, suit in claims)
    for d, suit in claims:
        if suits[suit] == 1:  # two such claims on one suit's pawn: neither is sure
            d.kind, d.suit, d.facing, d.confidence = "pawn", suit, None, 0.5


def _flat_pawn_claim(d: CellDecision, taken: set[str], looks: PieceLooks) -> str | None:
    """The suit of the pawn an undecided cell in the open (not covered, lit beside a hand
    nor shaded) is for :func:`_flat_coin_pawns`, its suit's pawn placed nowhere (not in
    ``taken``), else None. Its best look fits at ``min_similarity``, it is busy, and:

    * its best look is a coin's lining up in no turn (``FLAT_TURN_LEAD``) and its colour
      names a pawn clearly (``colour_as_pawn``): that pawn. Where the colour names the
      look's own suit, the cell must be smooth too (``PAWN_SMOOTH_DETAIL``): a coin of that
      suit whose turn is unclear has its colour. Where it names another suit, no coin of
      either suit is there (a coin of the colour's suit fits its own look best; the
      look's suit's coin has not this colour): a dark arms cone fits the moons coin's
      look, a suns cone the moons coin's fine look (round 60, tune checkered 7400-7439:
      8 such pawns in the open left unknown, detail 3.9-12.8, and no other cell);
    * its best look is a pawn's whose colour named the suit (``colour_named``), the coin
      look (``as_coin``) fits as well (within ``min_margin``) and lines up in no turn, and
      it is smooth: that pawn, as the tie's coin side would be (round 60: 2 crowns pawns
      on a6 and a8; an empty cell under a hand's edge at a margin of 0.19 is not named).
    """
    if d.kind != "unknown" or d.covered or d.lit_beside or d.shaded:
        return None
    if d.similarity < looks.min_similarity or d.energy_ratio < looks.empty_ratio:
        return None
    smooth = d.detail_ratio < PAWN_SMOOTH_DETAIL
    if d.best[:1] == ("coin",):
        suit = d.colour_as_pawn
        if suit is None or suit in taken or d.facing_margin >= FLAT_TURN_LEAD:
            return None
        if suit == d.best[1]:
            return suit if smooth else None
        return suit
    if d.best[:1] != ("pawn",) or not d.colour_named or d.best[1] in taken:
        return None
    coin = d.as_coin
    tie = d.margin < looks.min_margin and coin is not None
    return d.best[1] if tie and coin.facing_margin < FLAT_TURN_LEAD and smooth else None


def _pawn_by_its_look(d: CellDecision, looks: PieceLooks) -> bool:
    """Whether a cell is a pawn by its look alone, whatever its suit: some suit's pawn look
    fits it at ``min_similarity`` and leads every coin look by ``LAST_PAWN_LEAD``.

    :func:`_last_free_pawn` names the suit by elimination, never that a pawn is there: in a
    game of two or three players, or after a pawn is lasered off, three pawns placed leave
    no fourth (the reviewer, round 21: tune acrylic rig 12 shot 2, an empty cell under a
    finger fit the free crowns pawn's look at 0.5 and was read as that pawn).

    >>> looks = PieceLooks({}, {}, learned=True)
    >>> d = CellDecision("h8", "unknown", pawn_fits=(0.2, 0.72, 0.1, 0.6), coin_fit=0.5)
    >>> _pawn_by_its_look(d, looks), _pawn_by_its_look(dataclasses.replace(
    ...     d, pawn_fits=(0.2, 0.55, 0.1, 0.6)), looks)
    (True, False)
    """
    best = max(d.pawn_fits)
    return best >= looks.min_similarity and best - d.coin_fit >= LAST_PAWN_LEAD


def _claim_fit(d: CellDecision, looks: PieceLooks) -> float:
    """How well a cell claiming a suit's pawn fits it, to keep the best claim of each suit:
    its similarity, less ``min_margin`` for a covered cell (under a hand's edge, its shadow
    or glare its look is less sure): such a claim beats one in view only by the usual
    margin. Round 16, tune acrylic: shot 174, a moons coin in glare at a corner fit the
    moons pawn's look 0.004 better than the moons pawn in view; fresh tune rigs (50-69),
    shot 251, the moons pawn in glare fit 0.07 better than a moons coin in view."""
    return d.similarity - (looks.min_margin if d.covered else 0.0)


def _claim_rank(d: CellDecision, looks: PieceLooks, ahead: int = 0) -> tuple[bool, float]:
    """The order of two cells claiming one suit's pawn (a Piecepack has one): a claim whose
    colour terms (``hue_near``) lie nearest another suit's pawn colour last, then the better
    :func:`_claim_fit`; ``ahead`` 1 adds ``min_margin`` to the fit (a rival within it is
    nearly as good). A turn or a shade keeps a pawn's hue, not always its look: a folded
    paper pawn's two printed slopes face the light by how it stands, and a dark blue tent
    so turned fit the black tent's learned look 0.03 better than the black tent itself
    did, its hue nearer the blue pawn's (tune printplay 20/3). A black coin whose colour
    names the black pawn does not so outrank the black pawn (tune acrylic 14/1).

    >>> looks = PieceLooks({}, {}, learned=True, min_margin=0.05)
    >>> black = CellDecision("f1", "pawn", "moons", similarity=0.9, hue_near="moons")
    >>> blue = CellDecision("a1", "pawn", "moons", similarity=0.93, hue_near="arms")
    >>> sorted([blue, black], key=lambda d: _claim_rank(d, looks))[-1].cell
    'f1'
    """
    return d.hue_near in (None, d.suit), _claim_fit(d, looks) + ahead * looks.min_margin


def _by_a_hand(d: CellDecision) -> bool:
    """Are a cell's lines hidden by something over it (a hand, an arm, their shadow), not
    washed out by glare (``glared``)?"""
    return d.covered and not d.glared


def _pawns_by_a_hand(cells: list[CellDecision], looks: PieceLooks) -> None:
    """A pawn is tall: a hand beside it, or its shadow, hides the printed lines around the
    cell (``covered``) while the pawn still stands up in view. Such a cell is that pawn
    when its colour names the suit (a hand, a sleeve or a shadow seldom has a suit's
    learned pawn colour; see :func:`_pawn_by_colour`), that suit's pawn is not placed
    elsewhere, its look fits as closely as a pawn beside a covered cell must
    (``pawn_by_hand_similarity``) and leads every coin look as a covered cell's coin
    must (``covered_piece_margin``), and it has a piece's crisp detail (a shadow has
    none). Tune (mixed 0-99, piecepackr 0-34, covered cells fitting a pawn look at 0.75
    or more): the hands and shadows that fit a pawn look at 0.85-0.91 led by 0.11 at
    most and had no colour naming a suit; the two other cells whose colour named one (a
    coin and an empty cell under a hand) named a suit already placed. At most half sure;
    one claim a suit, best first."""
    taken = {d.suit for d in cells if d.kind == "pawn"}
    claims = [
        d
        for d in cells
        if d.kind == "unknown"
        and d.covered
        and d.colour_named
        and d.best[:1] == ("pawn",)
        and d.similarity >= looks.pawn_by_hand_similarity
        and d.margin >= looks.covered_piece_margin
        and d.detail_ratio >= looks.detail_empty
    ]
    for d in sorted(claims, key=lambda d: d.similarity, reverse=True):
        if d.best[1] in taken:
            continue
        taken.add(d.best[1])
        d.kind, d.suit, d.facing = "pawn", d.best[1], None
        d.confidence = float(np.clip(d.margin / (6 * looks.min_margin), 0.0, 0.5))


def _pawns_by_elimination(cells: list[CellDecision], near: np.ndarray, looks: PieceLooks) -> None:
    """A Piecepack has one pawn per suit: once some suits' pawns are placed (decided), an
    undecided pawn-like cell is weighed among the suits still free. Its best free suit's
    pawn look must fit as an open cell's must (``min_similarity``; beside a covered cell
    ``pawn_by_hand_similarity``) and lead the other free suits' pawn looks and every coin
    look by ``min_margin``, and the pawn's colour must not name or lean to another suit.
    Two dark suits' pawns (black, dark blue) fit alike in a shadow or leaning towards a
    corner; the placed one settles the other. Only busy cells (a piece's structure and fine
    detail) whose lines are in view or washed out by glare (round 16: no hand is there);
    the fits are claimed best first, a suit once.

    Only a near tie is settled so: no taken suit's pawn may fit more than ``min_margin``
    better (else the placed pawn may be the misread one, and one wrong cell would make
    two). A cell decided by elimination, not by its look alone, is at most half sure."""
    taken = {d.suit for d in cells if d.kind == "pawn"}
    claims = []
    for d, by_hand in zip(cells, near, strict=True):
        if not _pawn_like(d, looks) or len(d.pawn_fits) != len(SUITS):
            continue
        free = sorted(((f, s) for s, f in zip(SUITS, d.pawn_fits, strict=True) if s not in taken),
                      reverse=True)  # fmt: skip
        if not free or len(free) == len(SUITS):  # no suit ruled out: as decided already
            continue
        fit, suit = free[0]
        rival = max([d.coin_fit] + [f for f, _ in free[1:]])
        best_taken = max(f for s, f in zip(SUITS, d.pawn_fits, strict=True) if s in taken)
        need = looks.pawn_by_hand_similarity if by_hand else looks.min_similarity
        tie = best_taken - fit <= looks.min_margin
        clear = fit >= need and fit - rival >= looks.min_margin
        clear = clear and not _hue_names_another(d, suit, taken)
        if d.colour_suit in (None, suit) and clear and tie:
            claims.append((fit, fit - rival, d, suit))
    _claim_pawns(claims, taken, looks)


def _hue_names_another(d: CellDecision, suit: str, taken: set[str]) -> bool:
    """Do a pawn-like cell's colour terms (``hue_near``) lie nearest another suit than
    ``suit`` whose pawn is placed nowhere (not in ``taken``)? Then naming the cell ``suit``
    because some suits' pawns stand elsewhere settles nothing: the free suit its hue leans to
    is as free. Round 26, tune woodburned 39/1 a8 (a moons pawn leaning into the corner, its
    look the free arms pawn's, its hue moons) and 26/0 g2 (a crowns coin, its look the free
    suns pawn's, its hue moons); of the pawns these rules named rightly on tune printplay and
    woodburned 0-49, mixed, acrylic and piecepackr 0-24 (44), none had its hue nearest another
    suit free in the shot's final reading.

    >>> d = CellDecision("a8", "unknown", hue_near="moons")
    >>> _hue_names_another(d, "arms", {"suns", "crowns"}), _hue_names_another(d, "arms", {"moons"})
    (True, False)
    """
    return d.hue_near not in (None, suit) and d.hue_near not in taken


def _claim_pawns(claims: list[tuple], taken: set[str], looks: PieceLooks) -> None:
    """Decide ``claims`` (fit, lead, cell, suit) as pawns, best fit first, a suit once (not
    in ``taken``, which grows), at most half sure; never a cell showing no pawn's body
    (:func:`_no_pawn_body`) nor one a one-colour coin's fine look fits closely
    (``PAWN_COIN_DETAIL``)."""
    for fit, lead, d, suit in sorted(claims, key=lambda c: c[0], reverse=True):
        if suit in taken or _a_coins_face(d, looks):
            continue
        if _no_pawn_body(d, looks):  # no pawn there: the suit stays free for the next claim
            d.no_body = True
            continue
        taken.add(suit)
        d.kind, d.suit, d.facing, d.similarity, d.margin = "pawn", suit, None, fit, lead
        d.confidence = float(np.clip(lead / (6 * looks.min_margin), 0.0, 0.5))


#: See :func:`_pawns_by_their_colour`: the cell's best pawn look must fit at least this (a
#: pawn's shape), and, to name the colour's suit, that suit's own pawn look at least the second.
COLOUR_PAWN_SIMILARITY = 0.6
COLOUR_PAWN_FIT = 0.45
#: ... and the colour's suit's look may trail the cell's best look by at most this: the pawn
#: placed in the look's suit may itself be the misread one, and a cell that plainly looks
#: like that suit must not make it two wrong pawns. Tune (mixed 0-79, piecepackr 0-34,
#: acrylic 0-49): the 12 pawns so named, all right, trail by 0.004-0.163.
COLOUR_PAWN_GAP = 0.2


def _pawns_by_their_colour(cells: list[CellDecision], near: np.ndarray, looks: PieceLooks) -> None:
    """An undecided pawn-like cell whose look names one suit and whose colour leans to
    another (``colour_suit``; ``_pawn_by_colour`` then gives the look no margin) is settled
    when one of the two suits' pawns is placed (decided) elsewhere and the other is not: a
    Piecepack has one pawn per suit. Acrylic's clear dark pawns (arms, moons) fit each
    other's looks and colours alike; the placed one tells which this is.

    * the look's suit placed: the colour's suit, when the cell fits a pawn's look at
      ``COLOUR_PAWN_SIMILARITY``, that suit's own pawn look fits at ``COLOUR_PAWN_FIT``, trails
      the best look by at most ``COLOUR_PAWN_GAP`` and leads the other free suits' pawn looks
      and every coin look by ``min_margin``;
    * the colour's suit placed: the look's suit, as an open cell's look must name it
      (``min_similarity``, leading every other look by ``min_margin``).

    Busy cells in the open only (not covered but by glare, nor beside a covered cell);
    claimed best fit first, a suit once; at most half sure. Round 15 (tune mixed 0-79,
    piecepackr 0-34, acrylic 0-49): 12 pawns, all right; the other cells of this kind fit
    a pawn's look at 0.575 at most (an empty cell) with their colour's suit's look at 0.3,
    or (the colour's suit placed) at 0.571 (an empty cell)."""
    taken = {d.suit for d in cells if d.kind == "pawn"}
    claims = []
    for d, by_hand in zip(cells, near, strict=True):
        if not _pawn_like(d, looks) or by_hand or len(d.pawn_fits) != len(SUITS):
            continue
        look, colour = d.best[1], d.colour_suit
        if colour in (None, look):
            continue
        fits = dict(zip(SUITS, d.pawn_fits, strict=True))
        if look in taken and colour not in taken:
            suit, fit, floor = colour, fits[colour], COLOUR_PAWN_FIT
            others = [f for s, f in fits.items() if s not in taken and s != colour]
            if d.similarity < COLOUR_PAWN_SIMILARITY or fits[look] - fit > COLOUR_PAWN_GAP:
                continue
        elif colour in taken and look not in taken:
            suit, fit, floor = look, d.similarity, looks.min_similarity
            others = [f for s, f in fits.items() if s != look]
        else:
            continue
        lead = fit - max([d.coin_fit, *others])
        if fit >= floor and lead >= looks.min_margin and not _hue_names_another(d, suit, taken):
            claims.append((fit, lead, d, suit))
    _claim_pawns(claims, taken, looks)


#: A pawn-like cell's best coin look is read as a coin (its facing too) when it fits at least
#: ``COIN_RIVAL_FIT`` and the best pawn look leads it by under ``COIN_RIVAL_LEAD``: a pawn
#: seen from above is a disc in its suit's colour, and a coin with a symbol in that colour
#: fits its look nearly as well; a coin under a finger's tip or a hand's shadow fits a pawn's
#: dark disc better than its own look (see :func:`_coins_by_their_facing`). Round 15 (was
#: 0.55 and 0.15): tune piecepackr 0-34 coins read best as a pawn, their coin fits 0.36-0.55
#: and 0.02-0.28 behind, with clear turns (see vision_reflec.md, eighth session).
COIN_RIVAL_FIT = 0.35
COIN_RIVAL_LEAD = 0.3


def _coin_rival(
    d: CellDecision, sims: np.ndarray, labels: list[tuple], looks: PieceLooks
) -> CellDecision | None:
    """The best coin look of a cell whose best look is a pawn, as an undecided coin reading
    (its ``margin`` over the other coin suits; the facing is read by the caller), when it
    fits nearly as well as the pawn (``COIN_RIVAL_LEAD``); else None."""
    hit = looks.extra.get("coin_suit_columns")
    if hit is None or hit[0] is not labels:  # made once per templates
        cols = {s: [k for k, lb in enumerate(labels) if lb[:2] == ("coin", s)] for s in SUITS}
        hit = looks.extra["coin_suit_columns"] = (labels, {s: c for s, c in cols.items() if c})
    fits = sorted(((float(sims[c].max()), s) for s, c in hit[1].items()), reverse=True)
    if not fits or fits[0][0] < COIN_RIVAL_FIT:
        return None
    if d.similarity - fits[0][0] >= COIN_RIVAL_LEAD:
        return None
    second = fits[1][0] if len(fits) > 1 else -1.0
    return CellDecision(
        d.cell,
        "unknown",
        confidence=0.0,
        similarity=fits[0][0],
        energy_ratio=d.energy_ratio,
        margin=fits[0][0] - second,
        tint=d.tint,
        best=("coin", fits[0][1]),
    )


def _coins_by_their_facing(cells: list[CellDecision], looks: PieceLooks) -> None:
    """A pawn has no facing: an undecided cell whose best look is a pawn's, but whose best
    coin look fits nearly as well (``COIN_RIVAL_LEAD``) and lines up clearly in one turn,
    is that coin. Seen from above a pawn is a disc in its suit's colour, and a coin whose
    symbol has that colour fits the pawn's look nearly as well as its own; but only a
    coin's own markings make one turn of its fine look fit far better than the others.

    As :func:`_clear_face`, but the coin look need fit only at ``COIN_RIVAL_FIT``: it leads
    the other coin suits by ``min_margin``, one turn leads the others by ``CLEAR_FACE_LEAD``
    on the look alone (the separate mark neither against it nor setting it), and the cell is
    in the open (a hand's edge across a half-filled symbol lines up in one turn too). Tune
    (mixed 0-99, piecepackr 0-34): 18 such coins led by 0.32-0.81, every pawn read with a
    coin look by 0.1 at most. Round 15, the coin fit down to 0.35 and up to 0.3 behind the
    pawn's (mixed 0-79, piecepackr 0-34, acrylic 0-49): 17 more coins, all right, led by
    0.31-0.87; of the rest (pawns, empty cells, other suits or turns) none led by over
    0.136. At most half sure: the pawn's look still fits better."""
    for d in cells:
        c = d.as_coin
        if d.kind == "unknown" and _clear_rival(d, looks):
            d.kind, d.suit, d.facing = "coin", c.best[1], c.facing
            d.confidence = float(np.clip(c.facing_margin / (6 * looks.min_facing_margin), 0, 0.5))


def _clear_rival(d: CellDecision, looks: PieceLooks) -> bool:
    """Does a pawn-like cell's coin reading (``as_coin``, see :func:`_coin_rival`) line up
    clearly in one turn, as only a coin's own markings do? Its look fits at
    ``COIN_RIVAL_FIT`` leading the other coin suits by ``min_margin``, one turn leads the
    others by ``CLEAR_FACE_LEAD`` on the look alone (the separate mark neither against it
    nor setting it) and the facing is sure; the cell is in the open or under glare only
    (a hand's edge across a half-filled symbol lines up in one turn too). Round 16 (tune
    mixed 0-79, piecepackr 0-34, acrylic 0-49): of the cells read as pawns, 4 coin
    readings led a turn by
    0.56-0.86, all acrylic moons coins (a dark disc, as the moons pawn from above); every
    pawn's by 0.18 at most."""
    c = d.as_coin
    if c is None or c.facing is None or (d.covered and not d.glared) or d.lit_beside or d.shaded:
        return False
    clear = c.similarity >= COIN_RIVAL_FIT and c.margin >= looks.min_margin
    clear = clear and c.mark in (0, 1) and c.facing_margin >= CLEAR_FACE_LEAD
    return clear and facing_sure(c, looks)


@dataclass
class BoardRefs:
    """The board-wide references cells are measured against: the tile colour (a, b), the
    noise floors of structure and fine detail (over the board's 16 quietest cells) and the
    lightness of a typical cell (the median; most cells are empty tiles).
    ``energy``/``detail`` (64,) are the cells' own values when made from the same views."""

    tile_ab: np.ndarray
    energy_floor: float
    detail_floor: float
    light: float
    energy: np.ndarray | None = None
    detail: np.ndarray | None = None

    def kept(self) -> BoardRefs:
        """The references alone, for measuring another frame against them."""
        return BoardRefs(self.tile_ab, self.energy_floor, self.detail_floor, self.light)


def board_refs(views: BoardViews) -> BoardRefs:
    """The references of a whole board's views (see :func:`measure`)."""
    energy = energies(views.crops)
    detail = detail_energies(views.rel_lo)
    return BoardRefs(
        views.tile_ab,
        max(float(np.median(np.sort(energy)[:16])), 1.0),
        max(float(np.median(np.sort(detail)[:16])), 0.1),
        max(float(np.median(disc_lightness(views.rel_lo))), 1.0),
        energy,
        detail,
    )


def detail_ratios(views: BoardViews) -> np.ndarray:
    """Every cell's fine detail over the board's noise floor of it, as :func:`measure` has
    it (``CellDecision.detail_ratio``), in CELL_ORDER."""
    refs = board_refs(views)
    return refs.detail / refs.detail_floor


#: See :func:`learned_detail_empty`: the empty cells' and the pieces' detail it weighs.
DETAIL_EMPTY_CELLS = 95
DETAIL_PIECES = 10


def learned_detail_empty(detail: np.ndarray, occupied: np.ndarray) -> float:
    """The ``detail_empty`` a setup learns from its calibration photo's cells' fine detail
    (``detail``, see :func:`detail_ratios`; ``occupied``: the layout's pieces): the geometric
    mean of the busiest empty cells' (``DETAIL_EMPTY_CELLS`` percentile) and the quietest
    pieces' (``DETAIL_PIECES`` percentile), at most ``DETAIL_EMPTY``. Symbols burnt in one
    brown show little detail: tune woodburned calibration photos, pieces from 2.1, empty
    cells up to 1.7 (the fixed 2.5 called 46 pieces in view empty), learned 1.72-1.99; the
    older arts' pieces measure 6 and up (learned 2.0-2.5: 2.44-2.5 on a sample of 35 tune
    photos, 2.04-2.35 on tune rigs 82, 86 and piecepackr 37; no tune decision changed).

    >>> occupied = np.arange(64) < 28
    >>> learned_detail_empty(np.where(occupied, 2.6, 1.2), occupied)  # one-brown pieces
    1.766
    >>> learned_detail_empty(np.where(occupied, 7.0, 1.5), occupied)
    2.5
    """
    empty = float(np.percentile(detail[~occupied], DETAIL_EMPTY_CELLS))
    pieces = float(np.percentile(detail[occupied], DETAIL_PIECES))
    return round(min(DETAIL_EMPTY, float(np.sqrt(max(empty, 0.0) * max(pieces, 0.0)))), 3)


def measure(
    views: BoardViews,
    looks: PieceLooks,
    light_lines: bool = False,
    cells: Collection[int] | None = None,
    refs: BoardRefs | None = None,
) -> list[CellDecision]:
    """Every cell's measurements (energy, tint, similarities, facing margin), undecided.
    ``light_lines``: the printed lines are lighter than the tiles. ``cells``: measure only
    these (indices into CELL_ORDER; the result holds only them, in board order). The
    board-wide references (noise floor, tile colour, covered cells) still come from the
    whole board, so a cell measures the same either way; ``refs`` (see :func:`board_refs`)
    gives the tile colour and noise floors instead (e.g. kept from an earlier frame of a
    still camera; then ``views`` may hold only the asked cells' crops)."""
    crops = views.crops
    wanted = range(N * N) if cells is None else sorted(set(cells))
    if refs is None:
        refs = board_refs(views)
    if refs.energy is not None and refs.detail is not None:
        energy, detail = refs.energy, refs.detail
    else:  # only the asked cells (the others stay 0 and are not used)
        energy = np.zeros(N * N)
        energy[list(wanted)] = energies(crops[list(wanted)])
        detail = detail_energies(views.rel_lo, wanted)
    ratio = energy / refs.energy_floor
    detail = detail / refs.detail_floor
    # A flat cell of a foreign colour (a hand, a sleeve) is not an empty tile. A partial
    # read measures its own cells only (the others' crops are zero and never read).
    some = list(wanted)
    if cells is None:
        tint = np.linalg.norm(crops[:, CENTRE_SHIFT, :, :, 1:].mean(axis=(1, 2)), axis=-1)
    else:
        tint = np.zeros(N * N, crops.dtype)
        ab = crops[some, CENTRE_SHIFT, :, :, 1:].mean(axis=(1, 2))
        tint[some] = np.linalg.norm(ab, axis=-1)
    # Lightness against the board's typical cell (a partial view holds only some cells).
    colours = disc_colours(views.rel_lo, cells=None if cells is None else some)
    lum = colours[:, 0] / refs.light
    shade = shade_tints(colours, refs.tile_ab, refs.light)
    glare = glare_tints(colours, refs.tile_ab)
    T, labels = looks.templates()
    grey = (128.0 - np.asarray(refs.tile_ab, np.float64)) * CHROMA_WEIGHT  # see hue_suit
    all_sims = np.zeros((N * N, len(OFFSETS), T.shape[1]), np.float32)
    all_sims[wanted] = similarities(crops if cells is None else crops[wanted], T, looks)
    sims = all_sims.max(axis=1)  # best shift per template
    turned = looks.turned_faces()
    facing_jobs: list[tuple[CellDecision, np.ndarray]] = []
    rivals: set[int] = set()  # ids of the pawn-like cells' coin readings among the jobs
    light = 255 - views.light if light_lines else views.light
    strengths = line_strengths(light, FACE_PX, MARGIN, looks.boundary)
    # A light line's step is bounded by the room left to white (see occlusion.white_room).
    hidden = hidden_share(strengths, FACE_PX, white=views.light if light_lines else None)
    patch = looks.boundary == "steps"  # partly hidden cells in a patch are covered too
    covered = covered_cells(hidden, patch)
    # Covered only as the lines look: in view once the shadow over them is made up for
    # (weighed only when some cell is covered: most frames have no hand in them).
    shaded = np.zeros_like(covered)
    glared = np.zeros_like(covered)
    glare_around = np.zeros(len(covered))
    tile_cover = np.zeros_like(covered)
    cover_as_tile = np.zeros(len(covered))
    hand_near = np.zeros_like(covered)
    lit = lit_beside(hidden, lum)  # judged on this frame's board, as ``covered``
    if covered.any():
        shaded = covered & ~covered_cells(hidden_share(strengths, FACE_PX, views.light), patch)
        seen_there = hidden_piece_colours(strengths, views.rel_lo)  # what hides the lines
        washed = washed_light(strengths, views.rel_lo, refs, seen_there)
        seen = hidden_share(strengths, FACE_PX, seen=washed > 0)
        glared = covered & ~covered_cells(seen, patch)
        glare_around = _median_washed_light(washed)
        count, cover_light, cover_tint, as_tile = cover_tints(
            strengths, views.rel_lo, refs, seen_there
        )
        need = np.where(lit, COVER_PIECES_BESIDE, COVER_PIECES)
        tile_cover = covered & (cover_tint < COVER_TINT) & (cover_light >= COVER_LIGHT)
        tile_cover &= count >= need
        cover_as_tile = np.where(covered, as_tile, 0.0)
        hand_near = beside_a_hand(covered & ~glared)  # as decide_all weighs hands
    # Glare as the camera records it (clipped) is weighed only where it can decide: covered,
    # light and quiet cells that the plain segment leaves out (see _washed_out).
    redo = covered & (lum >= WASHED_LIGHT) & (ratio < looks.empty_ratio) & (glare >= WASHED_TINT)
    if redo.any():
        glare[redo] = glare_tints(colours[redo], refs.tile_ab, refs.light)
    out = []
    for i in wanted:
        cell, offset = CELL_ORDER[i], None
        fit = _learned_fit(sims[i], labels, looks)
        if ratio[i] >= looks.empty_ratio and fit < looks.min_similarity:
            # Something is here but fits nothing where pieces usually sit: a piece pushed
            # off the middle of its cell? Look wider (up to 0.4 cell) before giving up.
            # Only coins: a pawn leans into its neighbours and must not be found there.
            found = _wide_search(views, i, T, [k for k, lb in enumerate(labels) if lb[0] == "coin"])
            if found is not None and found[0].max() >= looks.min_similarity:
                sims[i], offset = found
        d = _features(cell, ratio[i], tint[i], sims[i], labels)
        if d.best[:1] == ("pawn",):
            _kind_fits(d, sims[i], labels, looks)
            d.on_tone = _on_other_tone(sims[i], labels, looks)
        # Only a cell that could be read as a pawn needs its colour (see decide: a quieter
        # cell is empty or unknown whatever fits it); the drawn stand-ins model no art.
        busy = ratio[i] >= looks.empty_ratio or d.similarity >= looks.strong_similarity
        if d.best[:1] == ("pawn",) and looks.learned and busy:
            _pawn_by_colour(d, crops[i, CENTRE_SHIFT], sims[i], labels, looks, grey)
        if d.best[:1] == ("coin",) and looks.pawns_on_tone and busy:
            d.colour_as_pawn = clear_pawn_colour(crops[i, CENTRE_SHIFT], looks)
        d.covered = bool(covered[i])
        d.lit_beside = bool(lit[i])
        d.shaded = bool(shaded[i])
        d.glared = bool(glared[i])
        d.glare_around = float(glare_around[i])
        d.tile_cover = bool(tile_cover[i])
        d.cover_as_tile = float(cover_as_tile[i])
        if hand_near[i]:
            d.hand_colours = seen_there[1]
        if tint[i] > looks.max_empty_tint:
            d.local_tint = local_tint(crops[i, CENTRE_SHIFT])
        d.detail_ratio = float(detail[i])
        d.light_ratio = float(lum[i])
        d.shade_tint = float(shade[i])
        d.glare_tint = float(glare[i])
        # Only a cell that could be a coin needs its facing read (the costly part); a
        # covered cell is left unknown whatever it shows.
        maybe = ratio[i] >= looks.empty_ratio or d.similarity >= looks.strong_similarity
        # A covered cell is read only when a piece's look fits it closely.
        maybe = maybe and d.detail_ratio >= looks.detail_empty
        maybe = maybe and (
            not d.covered
            or d.similarity >= looks.covered_piece_similarity
            or ((d.lit_beside or d.shaded or d.glared) and looks.learned)
        )
        if d.best[0] == "pawn" and maybe and looks.learned and (not d.covered or d.glared):
            d.as_coin = _coin_rival(d, sims[i], labels, looks)
            if d.as_coin is not None:  # its facing read as any coin's (below)
                window = face_window(views, i, CENTRE_SHIFT, extra=FACE_WIDE)
                facing_jobs.append((d.as_coin, window))
                rivals.add(id(d.as_coin))
        if d.best[0] == "coin" and maybe:
            _coarse_suit_fits(d, sims[i], labels, looks)
            best = int(np.argmax(sims[i]))
            shift = int(np.argmax(all_sims[i, :, best]))
            if not looks.learned:
                # A coin fitting too loosely or too close to another look is left unknown
                # whatever its facing (see decide; a covered one needs more still): its
                # mark read (a Hough circle, ~0.4 ms) would change nothing.
                if _could_be_sure(d, looks):
                    read_facing_from_mark(d, views, i, shift)
            elif offset is not None:
                facing_jobs.append((d, face_window(views, i, shift, offset=offset)))
            else:
                # Every turn is searched over the whole middle of the cell (the coin's
                # centre up to FACE_WIDE from the cell's): hands place coins well off
                # centre, and a window around the coarse fit (0.18 cell) cut off the
                # directional mark of such coins (tune split, 1083 coins: 6 facings misread
                # and 20 below the facing margin with it, none and 17 with this).
                facing_jobs.append((d, face_window(views, i, CENTRE_SHIFT, extra=FACE_WIDE)))
        out.append(d)
    if facing_jobs:
        _read_coin_faces(facing_jobs, turned, looks, views, rivals, covered & ~glared)
    if looks.learned:
        _seen_shares(out, views, refs, looks)
        _coin_detail(out, views, looks)
    return out


def _read_coin_faces(
    facing_jobs: list[tuple[CellDecision, np.ndarray]],
    turned: dict,
    looks: PieceLooks,
    views: BoardViews,
    rivals: set[int],
    hands: np.ndarray,
) -> None:
    """Each coin's suit by its fine look where the suits share one ink, its facing (again
    twisted a little where the lead is small) and the checks of its mark, in place: all
    from one set of correlations per window and looks (:func:`correlations_held`).
    ``rivals``: ids of the pawn-like cells' coin readings; ``hands``: cells under a hand
    (64,), not glare."""
    with correlations_held():
        _fine_suits(facing_jobs, turned, looks)
        scores = read_facings(facing_jobs, turned)
        # A coin read with a small lead is read again twisted a little (laid askew), when
        # it could be named at all (the twisted reads cost as much again).
        again = [
            k
            for k, (d, _) in enumerate(facing_jobs)
            if d.facing_margin < looks.min_facing_margin and _could_be_sure(d, looks)
        ]
        read_twisted([facing_jobs[k] for k in again], turned, scores[again])
        beside = beside_a_hand(hands)  # as decide_all weighs hands
        for d, window in facing_jobs:
            _alike_turns(d, looks)
            if id(d) in rivals and d.facing_margin < CLEAR_FACE_LEAD:
                continue  # a pawn-like cell's coin reading counts only past it: no mark check
            i = CELL_ORDER.index(d.cell)
            if d.facing_margin < looks.mark_check_below and d.best[1] in looks.marked:
                _check_mark(d, views, i, looks)
            blobs = functools.cache(functools.partial(_blob_reads, views, i, looks, d.best[1]))
            _check_mark_shape(d, window, turned, looks, bool(beside[i]), blobs)


def _seen_shares(
    cells: list[CellDecision], views: BoardViews, refs: BoardRefs, looks: PieceLooks
) -> None:
    """Each cell's ``tile_share``, and its pixels kept for the measurements of
    :func:`_tile_beside_a_hand` and :func:`_tile_partly_seen`, made only if the cell is
    still undecided after every other rule of :func:`decide_all` (see :class:`SeenLater`)."""
    index = [CELL_ORDER.index(d.cell) for d in cells]
    tile = tile_shares(views.rel_lo, refs.light, index)
    for d, i, share in zip(cells, index, tile, strict=True):
        d.tile_share = float(share)
        # Round 17's piece share only for a cell mostly tile that decide would leave unknown
        # or call a pawn (a finger looks like one; decide_all may take it back): weighed
        # later, on this copy of the measurement as it is now.
        measured = _copied(d) if share >= TILE_SEEN_SHARE else None
        d.seen_later = SeenLater(hand_edge_window(views.rel_lo, i), refs, looks, measured)


class SeenLater:
    """A cell's pixels (:func:`hand_edge_window`), kept so that the costly measurements of
    a cell still undecided once every other rule has run are made only then, and once:
    :func:`piece_share` (some 3 ms a cell; only when ``measured``, a copy of the cell's
    measurement, is one :func:`decide` would leave unknown or call a pawn) and
    :func:`hand_edge_view`. Copies of one measurement share it, so a cell kept from an
    earlier frame is measured once.

    >>> looks = PieceLooks({"suns": np.zeros((CROP, CROP, 3), np.float32)}, {}, {})
    >>> looks.coins["suns"][8:12, 8:12, 0] = 60.0  # a symbol in the middle
    >>> refs = BoardRefs(np.array([128.0, 128.0]), 1.0, 1.0, 200.0)
    >>> window = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW, 3), np.float32)
    >>> window[..., 0] = 200  # plain tile
    >>> busy = CellDecision("a1", "unknown", energy_ratio=30.0, detail_ratio=6.0,
    ...                     best=("pawn", "suns"), similarity=0.3)  # decide: unknown
    >>> later = SeenLater(window, refs, looks, busy)
    >>> round(later.piece_share(), 3), later.measured is None
    (0.944, True)
    >>> later.hand_edge_view()  # nothing in the cell, where the coin's symbol would show
    (0, 1.0)
    """

    __slots__ = ("disc_tile", "looks", "measured", "refs", "share", "view", "window")

    def __init__(
        self,
        window: np.ndarray,
        refs: BoardRefs,
        looks: PieceLooks,
        measured: CellDecision | None = None,
    ) -> None:
        self.window, self.refs, self.looks, self.measured = window, refs, looks, measured
        self.share = -1.0
        self.view: tuple[int, float] | None = None
        self.disc_tile = -1.0

    def piece_share(self) -> float:
        """:func:`piece_share` of the cell's crops (-1 where not to be measured)."""
        if self.measured is not None:
            if decide(self.measured, self.looks).kind in ("unknown", "pawn"):
                self.share = piece_share(window_crops(self.window), self.looks)
            self.measured = None
        return self.share

    def disc_tile_share(self) -> float:
        """:func:`disc_tile_share` of the kept window (made once)."""
        if self.disc_tile < 0:
            self.disc_tile = disc_tile_share(self.window, self.refs)
        return self.disc_tile

    def hand_edge_view(self) -> tuple[int, float]:
        """:func:`hand_edge_view` of the kept window."""
        if self.view is None:
            self.view = hand_edge_view(self.window, self.refs, self.looks)
        return self.view

    def __repr__(self) -> str:
        """What was measured (the same text for the same readings: dumps compare it)."""
        return f"SeenLater(share={self.share!r}, view={self.view!r})"


def _copied(d: CellDecision) -> CellDecision:
    """A shallow copy to decide on (copy.copy of a dataclass takes ten times as long)."""
    out = object.__new__(CellDecision)
    out.__dict__.update(d.__dict__)
    return out


_SEEN_DISC = LOOK_MASK[..., 0] > 0.5


def tile_shares(rel_lo: np.ndarray, light: float, cells: list[int]) -> np.ndarray:
    """Share of each listed cell's look disc (at the centre shift) that is plain tile: its
    relative Lab within SEEN_TOLERANCE of the typical cell's (``light``, no chroma), the
    lightness scaled by the disc's median within 0.9-1.1.

    >>> rel = np.zeros((N * PX + 2 * round(MARGIN * PX),) * 2 + (3,), np.float32)
    >>> rel[..., 0] = 200
    >>> tile_shares(rel, 200.0, [0, 9]).tolist()
    [1.0, 1.0]
    """
    o = round(MARGIN * PX) + (PX - CROP) // 2
    rows, cols = np.divmod(np.asarray(cells, int), N)
    ys, xs = np.nonzero(_SEEN_DISC)
    # every listed cell's disc pixels at once (cells, P, 3)
    px = rel_lo[(o + rows * PX)[:, None] + ys, (o + cols * PX)[:, None] + xs].astype(np.float32)
    scale = np.clip(np.median(px[..., 0], axis=1) / light, 0.9, 1.1)
    px[..., 0] -= (light * scale.astype(np.float64)).astype(np.float32)[:, None]
    return (np.einsum("kpc,kpc->kp", px, px) < SEEN_TOLERANCE**2).mean(axis=1)


def _seen_looks(looks: PieceLooks) -> np.ndarray:
    """Every learned piece look as placed (coins in four facings, pawns turned), its look
    disc's pixels (K, P, 3), made once per looks."""
    hit = looks.extra.get("seen_looks")
    if hit is None or hit[0] is not looks.coins or hit[1] is not looks.pawns:
        placed = [np.rot90(t, FACING_ROT[f]) for t in looks.coins.values() for f in FACINGS]
        placed += [turned for t in looks.pawns.values() for turned in _pawn_turns(t)]
        disc = np.asarray([p[_SEEN_DISC] for p in placed], np.float32)
        hit = looks.extra["seen_looks"] = (looks.coins, looks.pawns, disc)
    return hit[2]


def piece_share(crops: np.ndarray, looks: PieceLooks) -> float:
    """The most of a cell's look disc that any learned piece look explains, over the cell's
    shifts (``crops`` (shifts, CROP, CROP, 3)): pixels within SEEN_TOLERANCE of the look's,
    the lightness offset by the median difference (a hand's shading, an exposure).

    >>> looks = PieceLooks({"suns": np.zeros((CROP, CROP, 3), np.float32)}, {}, {})
    >>> piece_share(np.zeros((2, CROP, CROP, 3), np.float32), looks)
    1.0
    """
    placed = _seen_looks(looks)
    if not len(placed):
        return 0.0
    px = crops[:, _SEEN_DISC].astype(np.float32)  # (S, P, 3)
    tol = np.float32(SEEN_TOLERANCE**2)
    da = px[:, None, :, 1] - placed[None, :, :, 1]  # (S, K, P)
    da *= da
    db = px[:, None, :, 2] - placed[None, :, :, 2]
    db *= db
    # A pixel a look explains is within the tolerance in colour alone: that share bounds
    # each (shift, look) pair's, so the costly medians are taken best bound first, and
    # only while a bound exceeds the best share found (the same value as taking them all).
    bound = ((da + db) < tol).mean(axis=-1).ravel()
    order = np.argsort(-bound, kind="stable")
    best = 0.0
    for start in range(0, len(order), _SHARE_BATCH):
        pick = order[start : start + _SHARE_BATCH]
        if bound[pick[0]] <= best:
            break
        s, k = np.divmod(pick, len(placed))
        light = px[s, :, 0] - placed[k, :, 0]  # (batch, P)
        light -= np.median(light, axis=-1, keepdims=True)
        err = light * light
        err += da[s, k]
        err += db[s, k]
        best = max(best, float((err < tol).mean(axis=-1).max()))
    return best


#: (shift, look) pairs whose exact share :func:`piece_share` takes at once.
_SHARE_BATCH = 8


# --------------------------------------------------------------------------- a hand's edge

#: See :func:`hand_edge_view`: a pixel is plain tile when its lightness is within these
#: shares of the typical cell's (a hand's shadow halves it at most) and its colour, brought
#: to the tile's lightness (a shadow scales both alike, see :func:`shade_tints`), within
#: SEEN_TOLERANCE of the tile's.
PIXEL_TILE_LIGHT = (0.5, 1.15)
#: ... around the look disc by this many pixels (at PX) each way: a piece off the cell's
#: middle shows there, and what enters the cell from its edge is found from there.
HAND_EDGE_ROOM = 4
HAND_EDGE_WINDOW = CROP + 2 * HAND_EDGE_ROOM
#: A learned look's pixel is one of its marks when it differs this much from the tile
#: around the piece in the look (a symbol, a rim, a pawn's body; a coin's plain face not).
LOOK_MARK = 2 * SEEN_TOLERANCE
#: See :func:`_tile_beside_a_hand`. Round 18 (tune with a setup, mixed 0-79, piecepackr
#: 0-34, acrylic 0-49, cells left unknown or made empty by round 17: 575 holding a piece,
#: 1,213 empty): every piece's cell whose looks' marks would show at 0.2 or more had 7
#: strays or more; the empty cells so read had at most 6 (most none).
HAND_EDGE_STRAYS = 4
HAND_EDGE_SHOWN = 0.35
#: ... and a cell with less than this share of plain tile about its middle shows nothing
#: (not weighed further: most cells under a hand; the cells so read had 0.41 and more).
HAND_EDGE_TILE = 0.3


def hand_edge_window(rel_lo: np.ndarray, i: int) -> np.ndarray:
    """Cell ``i``'s look disc and HAND_EDGE_ROOM around it, from the relative Lab board at
    PX (a copy: (HAND_EDGE_WINDOW, HAND_EDGE_WINDOW, 3))."""
    y, x = _cell_origin(i)
    r = HAND_EDGE_ROOM
    return rel_lo[y - r : y - r + HAND_EDGE_WINDOW, x - r : x - r + HAND_EDGE_WINDOW].copy()


def window_crops(window: np.ndarray) -> np.ndarray:
    """A cell's crops at every shift ((shifts, CROP, CROP, 3), as :func:`raw_crops` cuts
    them: lightness minus each crop's mean) from its :func:`hand_edge_window`."""
    r = HAND_EDGE_ROOM
    crops = np.stack([window[r + dy : r + dy + CROP, r + dx : r + dx + CROP] for dy, dx in OFFSETS])
    light = crops[..., 0]
    light -= light.mean(axis=(1, 2), keepdims=True)
    return crops


def tile_pixels(window: np.ndarray, refs: BoardRefs) -> np.ndarray:
    """Which pixels of a relative Lab ``window`` are plain tile, lit or in a shadow (bool):
    lightness within PIXEL_TILE_LIGHT of the typical cell's, and colour within
    SEEN_TOLERANCE of the tile's once brought to the tile's lightness (see
    :func:`shade_tints`, here per pixel).

    >>> refs = BoardRefs(np.array([128.0, 150.0]), 1.0, 1.0, 200.0)  # a cream tile
    >>> px = np.array([[[200.0, 0.0, 0.0], [120.0, 0.0, -12.0], [120.0, 0.0, 0.0]]])
    >>> tile_pixels(px, refs).tolist()  # the tile, the tile in shadow, a grey piece there
    [[True, True, False]]
    """
    light = window[..., 0]
    lo, hi = PIXEL_TILE_LIGHT
    lit = (light >= lo * refs.light) & (light <= hi * refs.light)
    ta, tb = (np.asarray(refs.tile_ab, np.float32) - 128.0) * CHROMA_WEIGHT  # weighted
    # (weighted) colour at the tile's lightness: its a*, b* scaled as L* + 16 is, to the tile's
    scale = (refs.light / 2.55 + 16.0) / np.maximum(light / 2.55 + 16.0, 1e-3)
    a = (window[..., 1] + ta) * scale - ta
    b = (window[..., 2] + tb) * scale - tb
    return lit & (a * a + b * b < SEEN_TOLERANCE**2)


_EDGE_ROI = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW), bool)
for _dy in range(-HAND_EDGE_ROOM, HAND_EDGE_ROOM + 1, 2):
    for _dx in range(-HAND_EDGE_ROOM, HAND_EDGE_ROOM + 1, 2):
        _y, _x = HAND_EDGE_ROOM + _dy, HAND_EDGE_ROOM + _dx
        _EDGE_ROI[_y : _y + CROP, _x : _x + CROP] |= _SEEN_DISC


def _look_marks(looks: PieceLooks) -> tuple[np.ndarray, np.ndarray]:
    """Every learned look as placed (coins in four facings, pawns turned): its marks
    inside the look disc (see LOOK_MARK) as a (CROP * CROP, K) float matrix, and how
    many each has (K,); made once per looks."""
    hit = looks.extra.get("look_marks")
    if hit is None or hit[0] is not looks.coins or hit[1] is not looks.pawns:
        placed = [np.rot90(t, FACING_ROT[f]) for t in looks.coins.values() for f in FACINGS]
        placed += [turned for t in looks.pawns.values() for turned in _pawn_turns(t)]
        marks = []
        for p in placed:
            around = np.median(p[_AROUND, 0])
            far = np.sqrt((p[..., 0] - around) ** 2 + p[..., 1] ** 2 + p[..., 2] ** 2)
            marks.append(((far > LOOK_MARK) & _SEEN_DISC).ravel())
        m = np.asarray(marks, np.float32).reshape(len(marks), -1).T
        hit = looks.extra["look_marks"] = (looks.coins, looks.pawns, m, m.sum(axis=0))
    return hit[2], hit[3]


def hand_edge_view(window: np.ndarray, refs: BoardRefs, looks: PieceLooks) -> tuple[int, float]:
    """What a cell's pixels (``window``, see :func:`hand_edge_window`) show around
    something entering it from its edge: ``(strays, shown)``.

    Pixels not plain tile (:func:`tile_pixels`) that join the window's edge are taken for
    what covers the cell from outside (a hand, a finger, a sleeve; its blurred rim
    with them); ``strays`` counts the other pixels not plain tile near the look disc (a
    piece's symbol, a coin's rim: a piece lies inside its cell). ``shown`` is the least
    share, over every learned look and every place up to two pixels off the middle, of
    that look's marks (:func:`_look_marks`) that lie in view: where every piece would
    show its marks and the pixels there are tile, no piece is there. A coin whose symbol
    a finger covers shows too little of it (its plain face is as tile), whatever the
    rest shows. Without learned looks nothing shows (0.0).

    >>> refs = BoardRefs(np.array([128.0, 128.0]), 1.0, 1.0, 200.0)
    >>> looks = PieceLooks({"suns": np.zeros((CROP, CROP, 3), np.float32)}, {}, {})
    >>> looks.coins["suns"][8:12, 8:12, 0] = 60.0  # a symbol in the middle
    >>> window = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW, 3), np.float32)
    >>> window[..., 0] = 200.0  # plain tile ...
    >>> hand_edge_view(window, refs, looks)
    (0, 1.0)
    >>> window[:, 14:, 1] = 40.0  # ... a finger over its right half, from the edge
    >>> hand_edge_view(window, refs, looks)
    (0, 0.0)
    """
    marks, counts = _look_marks(looks)
    tile = tile_pixels(window, refs)
    if not marks.shape[1] or tile[_EDGE_ROI].mean() < HAND_EDGE_TILE:
        return int((~tile & _EDGE_ROI).sum()), 0.0  # (not weighed further)
    cover = edge_cover(tile)
    strays = int((~tile & ~cover & _EDGE_ROI).sum())
    r, c = HAND_EDGE_ROOM, CROP
    seen = np.lib.stride_tricks.sliding_window_view(~cover, (c, c))[r - 2 : r + 3, r - 2 : r + 3]
    shown = seen.reshape(-1, c * c).astype(np.float32) @ marks  # (places, looks)
    return strays, float((shown / np.maximum(counts, 1.0)).min())


def edge_cover(tile: np.ndarray) -> np.ndarray:
    """What covers a cell from outside (bool, as ``tile``): the pixels not plain tile
    (``tile``, see :func:`tile_pixels`) that join the window's edge, with their blurred rim."""
    count, parts = cv2.connectedComponents((~tile).astype(np.uint8), connectivity=8)
    at_edge = np.zeros(count, np.uint8)
    at_edge[np.concatenate([parts[0], parts[-1], parts[:, 0], parts[:, -1]])] = 1
    at_edge[0] = 0  # the tile's own pixels
    return cv2.dilate(at_edge[parts], np.ones((3, 3), np.uint8)).astype(bool)


def disc_tile_share(window: np.ndarray, refs: BoardRefs) -> float:
    """The share of a cell's look disc (at its middle, in its :func:`hand_edge_window`) that
    is plain tile, lit or in a shadow (:func:`tile_pixels`: a shadow scales the tile's
    lightness and colour alike, so a shadow counts as tile here, unlike in
    :func:`tile_shares`).

    >>> refs = BoardRefs(np.array([128.0, 128.0]), 1.0, 1.0, 200.0)
    >>> window = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW, 3), np.float32)
    >>> window[..., 0] = 120.0  # tile in a hand's shadow ...
    >>> disc_tile_share(window, refs)
    1.0
    >>> window[:, :HAND_EDGE_WINDOW // 2, 0] = 40.0  # ... a dark piece over its left half
    >>> round(disc_tile_share(window, refs), 2)
    0.5
    """
    r = HAND_EDGE_ROOM
    return float(tile_pixels(window, refs)[r : r + CROP, r : r + CROP][_SEEN_DISC].mean())


#: See :func:`_no_pawn_body`: a cell read as a pawn whose middle is at least this light (over
#: the board's typical cell) ...
BODILESS_LIGHT = 0.8
#: ... whose look disc is at least this share plain tile, lit or shaded
#: (:func:`disc_tile_share`) ...
BODILESS_TILE = 0.55
#: ... and whose fine detail stays under this many times ``detail_empty`` (soft edges) shows
#: no pawn's body there. A standing pawn covers its own cell's middle with its body, darkens
#: the rest with its shadow, and its outline is sharp. Tune (some 8,000 pawns read rightly:
#: printplay 0-244 and 600-639, woodburned 0-49, 240-444 and 600-639, acrylic 0-99 and
#: 200-219, mixed, the white hand, piecepackr): those both this light and this much tile are
#: clear acrylic pawns (the tile seen through them), mixed's light pawns and a printplay tent
#: lying flat, at 2.55-8.1 x ``detail_empty``; the soft woodburned skittles stay under 0.79
#: light but one lying out of its cell (600-639's 626/3 d1, 0.83: left unknown). A fingertip
#: (its skin light) with its soft shadow over an empty cell, or a woodburned coin (its face the
#: tile's own wood) read as a pawn, measured 0.81-1.0 light, 0.56-1.0 tile and 1.07-1.88 x
#: ``detail_empty`` (printplay 26/0 b6, 27/2 e8, 187/2 f7; woodburned 404/2 e7, 406/0 d6,
#: 268/1 a1 and c6, 298/0 b4, 298/2 d2).
BODILESS_DETAIL = 2.2
#: A soft cell's look disc at least this share plain tile, lit or shaded, holds no pawn
#: whatever its light: the most of it any pawn read rightly on tune left tile is 0.74 (that
#: lying skittle); a hand's deep shadow with a fingertip's edge across an empty cell read as
#: a pawn, 1.0 (printplay 187/2 f7, 0.93 light, and 628/3 d7, 0.56 light).
BODILESS_ALL_TILE = 0.85


def _no_pawn_body(d: CellDecision, looks: PieceLooks) -> bool:
    """Does a soft cell (``BODILESS_DETAIL``) show no pawn's body: its look disc nearly all
    plain tile (``BODILESS_ALL_TILE``), or mostly plain tile (``BODILESS_TILE``) and light
    (``BODILESS_LIGHT``)? Such a cell is never named a pawn (:func:`decide_all`,
    :func:`_claim_pawns`). Measured only for a soft cell whose pixels were kept (learned
    looks): a pawn read with a sharp outline is never measured.

    >>> looks = PieceLooks({}, {}, learned=True, detail_empty=2.0)
    >>> d = CellDecision("b6", "pawn", "moons", light_ratio=0.9, detail_ratio=2.1)
    >>> d.seen_later = type("Seen", (), {"disc_tile_share": lambda self: 0.69})()
    >>> _no_pawn_body(d, looks), _no_pawn_body(dataclasses.replace(d, light_ratio=0.6), looks)
    (True, False)
    """
    if d.seen_later is None or d.detail_ratio >= BODILESS_DETAIL * looks.detail_empty:
        return False  # a sharp outline (a pawn's), or its pixels not kept: not measured
    tile = d.seen_later.disc_tile_share()
    return tile >= BODILESS_ALL_TILE or (tile >= BODILESS_TILE and d.light_ratio >= BODILESS_LIGHT)


def _tile_beside_a_hand(d: CellDecision) -> None:
    """An undecided cell (after every other rule of decide_all, not under glare) is empty
    when, once what enters it from its edge is set aside, every pixel near its middle is
    plain tile (HAND_EDGE_STRAYS at most) and every learned piece would show at least
    HAND_EDGE_SHOWN of its marks there (:func:`hand_edge_view`): a finger or a hand's
    edge over part of an empty cell. At most half sure (as the share of marks in view).
    Not where the lines are hidden by something of the tile's own colour (``tile_cover``).

    >>> d = CellDecision("a1", "unknown")
    >>> d.seen_later = type("Seen", (), {"hand_edge_view": lambda self: (2, 0.6)})()
    >>> _tile_beside_a_hand(d); d.kind, d.confidence
    ('empty', 0.3)
    """
    if d.kind != "unknown" or d.no_body or d.glared or d.tile_cover or d.seen_later is None:
        return
    if d.cover_as_tile >= COVER_AS_TILE:  # its own test cannot see the hand over the lines
        return
    d.strays, d.marks_in_view = d.seen_later.hand_edge_view()
    if d.strays <= HAND_EDGE_STRAYS and d.marks_in_view >= HAND_EDGE_SHOWN:
        d.kind, d.suit, d.facing = "empty", None, None
        d.confidence = round(0.5 * d.marks_in_view, 3)


#: See :func:`_tile_as_the_open_shows`: the tile's look is taken from at least this many
#: cells decided empty in the open (not covered, at least ``OPEN_TILE_SURE`` sure) ...
OPEN_TILE_CELLS = 8
OPEN_TILE_SURE = 0.9
#: ... and an undecided cell is empty where, against it, every learned piece would show at
#: least this share of its marks (strays as HAND_EDGE_STRAYS). Round 24 (tune with a setup,
#: mixed 0-39, acrylic 0-49, every cell still undecided after round 18): the 30 pieces with
#: at most HAND_EDGE_STRAYS strays showed 0.09 at most (those showing more had 113 strays
#: or more); of the 163 readable empty cells, 23 showed 0.25 or more, 14 of them with their
#: lines hidden (the cells weighed; 5 more of those at 0.2-0.25).
OPEN_TILE_SHOWN = 0.25
#: ... and the steepest lightness step in view there (:func:`steepest_in_view`) is at most
#: this. Round 24: printplay tune shot 46 b8, a crowns coin (grey ink on a white face)
#: beside a hand, passed as tile in a shadow and shown empty: 49.9; the empty cells so
#: shown (62, the five arts' tune rigs, lines hidden or not) 20.5 at most.
OPEN_TILE_STEEP = 30.0


def open_tile(cells: list[CellDecision]) -> np.ndarray | None:
    """The plain tile as this frame's open empty cells show it: the median over them of
    their look discs' mean relative Lab (see ``OPEN_TILE_CELLS``), None with too few. The
    board's typical colour (``BoardRefs``) is the median over all of it, its lines and pieces
    too, and its typical lightness the median cell's: on a board whose lines are broad and
    coloured, or whose light is uneven, plain tile can lie outside :func:`tile_pixels`'s
    reach of them."""
    windows = [
        d.seen_later.window
        for d in cells
        if d.kind == "empty"
        and not d.covered
        and not d.lit_beside
        and d.confidence >= OPEN_TILE_SURE
        and d.seen_later is not None
    ]
    if len(windows) < OPEN_TILE_CELLS:
        return None
    r = HAND_EDGE_ROOM
    discs = np.stack(windows)[:, r : r + CROP, r : r + CROP]
    means = np.tensordot(discs, _SEEN_DISC_SHARE, axes=([1, 2], [0, 1]))  # (cells, 3)
    return np.median(means, axis=0)


_SEEN_DISC_SHARE = (_SEEN_DISC / _SEEN_DISC.sum()).astype(np.float32)


def _tile_as_the_open_shows(cells: list[CellDecision], looks: PieceLooks) -> None:
    """Round 18's test (:func:`_tile_beside_a_hand`) again for the cells whose lines a hand
    hides (``covered``) that it left undecided, with the plain tile as this frame's open
    empty cells show it (:func:`open_tile`) for the board's typical colour and lightness,
    ``OPEN_TILE_SHOWN`` of every learned piece's marks in view, and no steep step in view
    (``OPEN_TILE_STEEP``): a finger or a hand's edge over part of an empty cell on a board
    whose tile the board-wide references miss. At most half sure (as the share shown).
    Not a cell whose lines show: a grey pawn leaning in beside a hand passes as tile in a
    shadow there (printplay tune shot 190 d5), and such a cell is the open rules' to read."""
    left = [
        d
        for d in cells
        if d.kind == "unknown"
        and d.covered
        and not (d.no_body or d.glared or d.tile_cover or d.seen_later is None)
        and d.cover_as_tile < COVER_AS_TILE
    ]
    if not left:
        return
    tile = open_tile(cells)
    if tile is None:
        return
    for d in left:
        shifted, local = _against_open_tile(d.seen_later.window, d.seen_later.refs, tile)
        strays, shown = hand_edge_view(shifted, local, looks)
        if strays > HAND_EDGE_STRAYS or shown < OPEN_TILE_SHOWN:
            continue
        if steepest_in_view(shifted, local) <= OPEN_TILE_STEEP:
            d.kind, d.suit, d.facing = "empty", None, None
            d.confidence = round(0.5 * shown, 3)


#: See :func:`_no_tile_under_a_hand`: a cell read empty with at least this share of its look
#: disc the hand's is left unknown: a coin's face (radius 0.375 cell, the look disc's 0.4)
#: may lie under it. Tune 0-24 (seven arts, with a setup), cells read empty beside a hand,
#: not under glare: of the 12 holding a piece, 9 at 0.52 and more (the other three, under a
#: white hand or one of the wood's hue that passes for tile, 0.0-0.04); of the 1,247 empty
#: ones the renderer calls readable, 3 at 0.52-0.62 (the next 0.49), 15 more at 0.3-0.4.
HAND_OVER = 0.5
#: ... the hand told from the plain tile of this frame's open empty cells (at least
#: ``OPEN_TILE_CELLS`` of them, not beside a hand, at least this sure), up to
#: ``HAND_TILE_SAMPLES`` of their look discs' pixels, evenly taken.
HAND_TILE_SURE = 0.5
HAND_TILE_SAMPLES = 256


def open_tile_pixels(cells: list[CellDecision]) -> np.ndarray | None:
    """Plain tile as this frame's open empty cells show it, pixel by pixel ((n, 3) relative
    Lab, see ``HAND_TILE_SURE``): both tones of a two-tone board, the grain of wood. None
    with too few such cells."""
    discs = [
        d.seen_later.window[_WINDOW_DISC]
        for d in cells
        if d.kind == "empty"
        and not (d.covered or d.lit_beside or d.glared)
        and d.hand_colours is None
        and d.confidence >= HAND_TILE_SURE
        and d.seen_later is not None
    ]
    if len(discs) < OPEN_TILE_CELLS:
        return None
    px = np.concatenate(discs)
    return px[np.linspace(0, len(px) - 1, HAND_TILE_SAMPLES).round().astype(int)]


def _no_tile_under_a_hand(cells: list[CellDecision]) -> None:
    """A cell read empty beside a hand (``hand_colours``; not under glare) whose look disc
    is at least ``HAND_OVER`` the hand's (:func:`hand.hand_pixels`: a colour seen where the
    frame's lines are hidden, washed-out ones aside, and neither it nor the pixel plain tile
    as the open cells show it, lit or shaded) is left unknown: a piece may lie under the
    hand. Whatever rule read it empty (a smooth hand passes for tile in the open rules)."""
    todo = [
        d
        for d in cells
        if d.kind == "empty" and d.hand_colours is not None and not d.glared
        and d.seen_later is not None
    ]  # fmt: skip
    if not todo:
        return
    tile = open_tile_pixels(cells)
    if tile is None:
        return
    for d in todo:
        hidden = d.hand_colours[d.hand_colours[:, 0] < GLARE_WHITE]  # glare's are no hand
        over = hand_pixels(d.seen_later.window, hidden, tile, tuple(d.seen_later.refs.tile_ab))
        d.hand_share = round(float(over[_WINDOW_DISC].mean()), 3)
        if d.hand_share >= HAND_OVER:
            d.kind, d.suit, d.facing, d.confidence = "unknown", None, None, 0.0


def _against_open_tile(
    window: np.ndarray, refs: BoardRefs, tile: np.ndarray
) -> tuple[np.ndarray, BoardRefs]:
    """A cell's ``window`` and the references with ``tile`` (relative Lab, see
    :func:`open_tile`) for the board's typical tile colour and lightness."""
    shifted = window.copy()
    shifted[..., 1:] -= tile[1:]
    ab = np.asarray(refs.tile_ab, np.float64) + tile[1:] / CHROMA_WEIGHT
    return shifted, BoardRefs(ab, refs.energy_floor, refs.detail_floor, float(tile[0]))


#: The look disc within a cell's window (see hand_edge_window).
_WINDOW_DISC = np.zeros((HAND_EDGE_WINDOW, HAND_EDGE_WINDOW), bool)
_WINDOW_DISC[HAND_EDGE_ROOM : HAND_EDGE_ROOM + CROP, HAND_EDGE_ROOM : HAND_EDGE_ROOM + CROP] = (
    _SEEN_DISC
)


def steepest_in_view(window: np.ndarray, refs: BoardRefs) -> float:
    """The steepest lightness step (8-bit Lab per pixel) in a cell's look disc away from
    what covers it from outside (:func:`edge_cover`, and a pixel more: its rim's blur).
    Grey ink on a white tile passes :func:`tile_pixels` as tile in a shadow; a shadow is
    smooth, ink's edges are steep."""
    cover = cv2.dilate(edge_cover(tile_pixels(window, refs)).astype(np.uint8), _ONE_MORE)
    seen = _WINDOW_DISC & ~cover.astype(bool)
    if not seen.any():
        return 0.0
    gy, gx = np.gradient(window[..., 0])
    return float(np.sqrt(gy[seen] ** 2 + gx[seen] ** 2).max())


_ONE_MORE = np.ones((3, 3), np.uint8)


def glare_light(typical: float) -> float:
    """How light (over the typical cell's lightness ``typical``, 8-bit Lab) glare makes the
    board where it washes the print out: ``WASHED_LIGHT``, or half the way to white where
    the typical cell is so light already that white is nearer (glare cannot make a pale
    acrylic board lighter than the camera's full scale).

    >>> glare_light(180.0), round(glare_light(238.0), 3)
    (1.1, 1.036)
    """
    return min(WASHED_LIGHT, 0.5 + 127.5 / typical)


def washed_pieces(strengths: tuple | None, rel_lo: np.ndarray, refs: BoardRefs) -> np.ndarray:
    """Which hidden line pieces glare washed out ((64, pieces) bool, see
    :func:`occlusion.line_strengths`): around the piece the board is as light as glare
    makes it (:func:`glare_light` x the typical cell) and of the tile's colour paled toward white
    or as a camera records it under glare (``glare_tints`` under ``WASHED_TINT``). Glare
    is light added over the print; a hand over the line shows its own hue or shades it."""
    return washed_light(strengths, rel_lo, refs) > 0


def hidden_piece_colours(
    strengths: tuple | None, rel_lo: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """What shows where the board's printed lines are hidden: the flat indices of the hidden,
    printed line pieces ((64, pieces) raveled, see :func:`occlusion.line_strengths`) and
    their colours ((n, 3) relative Lab, the median of a small window, 5 x 5 at ``PX``, on the
    line: a piece beside it covers part of it at most)."""
    if strengths is None:
        return np.zeros(0, int), np.zeros((0, 3), np.float32)
    hidden, printed = hidden_pieces(strengths, FACE_PX)
    flat = np.flatnonzero(hidden & printed)
    if not len(flat):
        return flat, np.zeros((0, 3), np.float32)
    _, cy, cx = strengths
    h, w = rel_lo.shape[:2]
    r = np.arange(-2, 3)
    y = np.clip(np.rint(cy.ravel()[flat] * PX / FACE_PX).astype(int)[:, None] + r, 0, h - 1)
    x = np.clip(np.rint(cx.ravel()[flat] * PX / FACE_PX).astype(int)[:, None] + r, 0, w - 1)
    win = rel_lo[y[:, :, None], x[:, None, :]].reshape(len(flat), -1, 3)
    return flat, np.median(win, axis=1)


def washed_light(
    strengths: tuple | None,
    rel_lo: np.ndarray,
    refs: BoardRefs,
    hidden: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """How light each line piece glare washed out is, over the typical cell ((64, pieces)
    float, 0 where the piece is in view or not washed out; see :func:`washed_pieces`).
    Glare washes a line out only where the camera's scale runs out (``GLARE_WHITE``).
    ``hidden``: :func:`hidden_piece_colours`' result, when the caller has it already."""
    if strengths is None:
        return np.zeros((N * N, 0))
    out = np.zeros(strengths[0].shape)
    flat, colours = hidden or hidden_piece_colours(strengths, rel_lo)
    if not len(flat):
        return out
    light = colours[:, 0] / refs.light
    tint = glare_tints(colours, refs.tile_ab, refs.light)
    washed = (light >= glare_light(refs.light)) & (tint < WASHED_TINT)
    washed &= colours[:, 0] >= GLARE_WHITE
    out.ravel()[flat] = np.where(washed, light, 0)
    return out


def cover_tints(
    strengths: tuple | None,
    rel_lo: np.ndarray,
    refs: BoardRefs,
    hidden: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What hides each cell's printed lines: how many of its line pieces are hidden, how
    light what shows there is over the typical cell, how far it is from the tile's colour
    once brought to the tile's lightness (medians; lightness 0 and tint inf where none is
    hidden), and the share of them plain tile by the per-pixel test (:func:`tile_pixels`,
    a shadow allowed for), (64,) each. As light as the tile and of its colour, the lines
    are hidden by something of the tile's own colour (not a shadow: it darkens), and plain
    tile in the cell is no sign that it is empty: a white glove, sleeve or sheet over a
    white board looks just like the tile (see ``CellDecision.tile_cover``); and where the
    per-pixel test takes what hides them for tile, it cannot tell a hand in the cell from
    tile either (``CellDecision.cover_as_tile``). ``hidden`` as in :func:`washed_light`.

    >>> refs = BoardRefs(np.array([128.0, 128.0]), 1.0, 1.0, 200.0)
    >>> rel = np.zeros((250, 250, 3), np.float32)
    >>> rel[..., 0] = 200  # plain tile everywhere, no line left anywhere
    >>> vals = np.full((64, 8), 40, np.float32)
    >>> vals[:2] = 1  # lines seen on the other cells, hidden on the first two
    >>> at = np.full((64, 8), 100)  # every piece sampled at one spot
    >>> count, light, tint, as_tile = cover_tints((vals, at, at), rel, refs)
    >>> count[:3].tolist(), light[:3].tolist(), tint[:3].tolist(), as_tile[:3].tolist()
    ([8, 8, 0], [1.0, 1.0, 0.0], [0.0, 0.0, inf], [1.0, 1.0, 0.0])
    """
    count, light, tint = np.zeros(N * N, int), np.zeros(N * N), np.full(N * N, np.inf)
    as_tile = np.zeros(N * N)
    flat, colours = hidden or hidden_piece_colours(strengths, rel_lo)
    if not len(flat):
        return count, light, tint, as_tile
    tints = shade_tints(colours.astype(np.float64), refs.tile_ab, refs.light)
    plain = tile_pixels(colours[:, None, :].astype(np.float32), refs)[:, 0]
    # every measure on a (64, pieces) grid, NaN where a piece is in view: one pass a measure
    grid = np.full((3, strengths[0].size), np.nan)
    grid[:, flat] = colours[:, 0], tints, plain
    grid = grid.reshape(3, N * N, -1)
    some = ~np.isnan(grid[0])
    count = some.sum(axis=1)
    rows = count > 0
    light[rows] = np.nanmedian(grid[0, rows], axis=1) / refs.light
    tint[rows] = np.nanmedian(grid[1, rows], axis=1)
    as_tile[rows] = np.nanmean(grid[2, rows], axis=1)
    return count, light, tint, as_tile


def _median_washed_light(light: np.ndarray) -> np.ndarray:
    """Each cell's median lightness over its washed-out line pieces ((64,), 0 where none)."""
    masked = np.where(light > 0, light, np.nan)
    some = (light > 0).any(axis=1)
    out = np.zeros(len(light))
    out[some] = np.nanmedian(masked[some], axis=1)
    return out


def _could_be_sure(d: CellDecision, looks: PieceLooks) -> bool:
    """Could :func:`decide` name this cell's best look, whatever its facing? (Similarity and
    margin at least the lower of the open cell's and the covered cell's thresholds.) The
    looser rules for coins named by a clear turn (from ``COIN_RIVAL_FIT``, round 15) are not
    counted: such cells go without the twisted re-read (adding it is not measured)."""
    sim = min(looks.min_similarity, looks.covered_piece_similarity)
    margin = min(looks.min_margin, looks.covered_piece_margin)
    return d.similarity >= sim and d.margin >= margin


def _alike_turns(d: CellDecision, looks: PieceLooks) -> None:
    """The learned look alone does not decide between a coin's facing and the turns of it
    the look is alike under (``PieceLooks.alike_turns``): a symbol alike under a quarter
    turn (piecepackr's eight-rayed sun) differs between its turns only by the small mark and
    by light and shade that do not turn with the coin. Its lead over them becomes 0 (the
    separate mark chooses among them, see :func:`_mark_picks_turn`), and its facing margin
    stays under ``min_facing_margin``: enough to agree with the mark, never enough alone,
    so a coin whose mark is not read stays unknown."""
    alike = looks.alike_turns(d.best[1])
    if not alike or len(d.turn_leads) != len(FACINGS) or d.facing not in FACINGS:
        return
    best = FACINGS.index(d.facing)
    leads = list(d.turn_leads)
    for k in alike:
        leads[(best + k) % len(FACINGS)] = 0.0
    d.turn_leads = tuple(leads)
    d.facing_margin = min(d.facing_margin, float(np.nextafter(looks.min_facing_margin, 0)))


def _check_mark(
    d: CellDecision, views: BoardViews, i: int, looks: PieceLooks, thorough: bool = False
) -> None:
    """Set ``d.mark``: does the coin's small separate mark (if it has one) point the way
    the learned look's turn says?

    The learned look can carry what does not turn with the coin: seen from a tilted camera
    a coin's rim and side are lit and foreshortened the same way whatever its facing, and
    a coin with a faint mark (light blue on white) is then read as the calibration's
    north. The mark is a second, independent read (see ``facing.read_facing_from_mark``),
    used only for suits whose calibration coins it read as north (``PieceLooks.marked``).

    The mark is looked for around two estimates of the coin's centre: its rim circle and
    where the suit's look (all four turns averaged, so the facing does not pull it) fits
    best. Either can miss (the rim circle snaps onto a round symbol; rim shading pulls the
    look's fit), and a wrong centre puts the mark on the far side: a read counts when it is
    sure and the other read is not sure of another facing (tune split, 1573 coins: 1172
    right / 21 wrong marks from the rim alone, 1448 / 12 so). Where the coin's symbol is
    round, its centre is a third estimate: it replaces a fit well off it or an unsure rim
    read (:func:`_on_round_symbol`), and settles two sure reads against a turn the look
    rules out (:func:`_symbol_leans`). When both reads are sure and
    agree they overrule a weak learned lead (``d.mark`` 2, the facing is the mark's). The
    second read is made only when the rim's does not already agree with a learned look
    leading by ``min_facing_margin`` (with less, the look may not rule out another turn,
    and a rim circle a few pixels off can take a piece of the symbol for the mark and
    agree with the look's wrong pick: piecepackr tune shot 11 f1).
    When neither read is sure, reads leaning the learned look's way (lead ``MARK_AGREE``)
    with none leaning another way still agree (``d.mark`` 1: a smaller learned lead will
    do); leaning another way is no veto. When the look leaves two turns (a symbol alike
    upside down), the mark chooses between them (:func:`_mark_picks_turn`; a sure read
    also among the turns of :func:`_sure_rivals`). Two sure reads that disagree, or one
    against the look, leave the facing undecided (``d.mark`` -1) unless the learned look
    leads by ``MARK_CONFLICT_LEAD``. Both reads count only blobs where and as big as the suit's
    mark on its calibration coins (``PieceLooks.mark_spots``; anywhere when not learned).

    The second read is skipped where it could change no decision (:func:`_only_confirms`:
    it could only set ``d.mark`` 1 in place of 0, which decides alike); ``thorough`` makes
    it anyway (tests compare the two).
    """
    spot = looks.mark_spots.get(d.best[1])
    rim = mark_facing(views, i, spot=spot)
    agreed = rim[0] == d.facing and rim[1] >= MARK_SURE  # the look and the rim's read
    if agreed and d.facing_margin >= looks.min_facing_margin:  # enough already
        d.mark = 1
        return
    if not thorough and _only_confirms(d, rim, looks):
        return
    centre = look_centre(views, i, looks, d.best[1])
    fit = mark_facing(views, i, centre, spot=spot)
    apart = (rim, fit)  # both read from their own centres (neither from the symbol's)
    rim, fit = _on_round_symbol(views, i, centre, rim, fit, spot)
    apart = (rim, fit) == apart
    sure = [f for f, lead in (rim, fit) if f is not None and lead >= MARK_SURE]
    if len(sure) == 2 and sure[0] != sure[1]:
        rim, fit = _off_symbol_dropped(views, i, centre, rim, fit)
        sure = [f for f, lead in (rim, fit) if f is not None and lead >= MARK_SURE]
    if _mark_picks_turn(d, (rim, fit), sure, looks, lambda: _suit_by_ink(views, i, d, looks)):
        return
    if not sure:
        # Neither read is sure: one that leans the learned look's way, with none leaning
        # another way, still agrees (two weak reads that agree are more than either).
        weak = {f for f, lead in (rim, fit) if f is not None and lead >= MARK_AGREE}
        if weak == {d.facing}:
            d.mark = 1
        return
    if len(sure) == 2 and sure[0] != sure[1]:
        # Two sure reads of the mark that disagree: the coin's marks are in doubt (a wrong
        # centre, a stray blob), and the look alone must then lead clearly.
        if d.facing_margin < MARK_CONFLICT_LEAD:
            d.mark = -1
        return
    if sure[0] == d.facing:
        d.mark = 1
    elif len(sure) == 2 and _look_rules_out(d, sure[0]):
        # Two sure reads against a turn the look rules out: in doubt, unless the read from
        # the round symbol's centre leans that way too (see _symbol_leans).
        if apart and _symbol_leans(views, i, centre, sure[0], spot):
            d.facing, d.mark = sure[0], 2
        else:
            d.mark = -1
    elif len(sure) == 2 and not _fits_every_turn(d, looks):
        d.facing, d.mark = sure[0], 2
    elif d.facing_margin < MARK_CONFLICT_LEAD:
        d.mark = -1
    # else one sure read against a look that leads clearly: in doubt as two sure reads that
    # disagree are (a crown's jewel, a sun's ray from a centre a few pixels off), and the
    # look keeps its facing (d.mark stays 0)


def _off_symbol_dropped(
    views: BoardViews, i: int, centre: tuple[float, float], rim: tuple, fit: tuple
) -> tuple[tuple, tuple]:
    """Two sure mark reads that disagree (see :func:`_check_mark`): the read whose centre
    lies off the coin's symbol (its biggest printed blob, ``facing.symbol_offset``) by
    ``OFF_SYMBOL`` more than the other's is dropped (``(None, 0.0)``): its centre is the
    wrong one, and a piece of the rim line stood in for the mark. Else both stand.
    ``centre``: the look's fit (the rim circle's is found again)."""
    on_rim = symbol_offset(views, mark_centre(views, i, CENTRE_SHIFT))
    on_fit = symbol_offset(views, centre)
    if on_rim - on_fit >= OFF_SYMBOL:  # (inf - inf is nan: neither dropped)
        return (None, 0.0), fit
    if on_fit - on_rim >= OFF_SYMBOL:
        return rim, (None, 0.0)
    return rim, fit


#: Of two sure mark reads that disagree, the one whose centre lies this much farther
#: (FACE_PX pixels) from the coin's symbol's centre is dropped. Tune piecepackr 0-34, all
#: sure reads of both centres (1,201): a centre a few pixels off (2.5 and more, 1.5 more
#: than the other's) still reads the mark right 66 times in 68, so it is no veto alone;
#: where two sure reads disagree (3 coins) the nearer centre's was right each time (rim
#: 3.8 / 7.6 / 2.8 px off, the look's fit 1.4 / 1.0 / 2.0). Acrylic 0-49, 2 coins: rim 5.9
#: and fit 1.1 px off, the fit's right; rim 0.4 and fit 1.2, the fit's right (the nearer
#: wrong, but within OFF_SYMBOL: both stand, undecided as before).
OFF_SYMBOL = 1.5


def _only_confirms(d: CellDecision, rim: tuple[str | None, float], looks: PieceLooks) -> bool:
    """Could the second mark read (:func:`_check_mark`) only confirm the learned look, given
    the rim's read ``rim`` (facing, lead)? So when the look leads by ``MARK_CONFLICT_LEAD``
    and by ``min_facing_margin`` and the rim's read is not sure: then no read sets the
    facing against the look (that takes two sure reads that agree), none leaves it undecided
    (that takes a lead under ``MARK_CONFLICT_LEAD``), the mark chooses among no turns the
    look cannot rule out (:func:`_mark_picks_turn`: none led by under ``MARK_CONFLICT_LEAD``),
    and ``mark`` 1 or 0 decide alike (:func:`facing_sure` with a lead of
    ``min_facing_margin``; the rules of covered and clear coins take either). It saves a
    read of about 0.25 ms (a template fit and a blob search) on most coins the look reads
    with a lead of 0.3-0.6 (tune mixed rigs 0-9: 54 of 192 mark checks).

    >>> d = CellDecision("a1", "coin", best=("coin", "suns"), facing="north", facing_margin=0.35)
    >>> looks = PieceLooks({}, {})
    >>> _only_confirms(d, (None, 0.0), looks), _only_confirms(d, ("east", 0.9), looks)
    (True, False)
    >>> d.facing_margin = 0.25  # a sure read against it would leave the facing undecided
    >>> _only_confirms(d, (None, 0.0), looks)
    False
    """
    lead = max(MARK_CONFLICT_LEAD, looks.min_facing_margin)
    return rim[1] < MARK_SURE and d.facing_margin >= lead


def _mark_picks_turn(
    d: CellDecision,
    reads: tuple,
    sure: list[str | None],
    looks: PieceLooks,
    suit_seen: Callable[[], bool] = lambda: False,
) -> bool:
    """When the learned look cannot tell its best turns apart (lead under
    ``min_facing_margin``), the mark chooses among the turns the look cannot rule out (its
    lead over them under ``RIVAL_LEAD``: two for a symbol alike upside down, such as a
    diamond): reads leaning (``MARK_AGREE``) towards exactly one of them, and no sure read
    naming another facing; one sure read, or two leaning ones (one weak read alone may be a
    speck of the rim seen from a centre a few pixels off). Sets the facing (``d.mark`` 2);
    True if so. The look must rule out one turn at least: one that fits every turn alike
    may be another suit's (tune split: a moons coin taken for arms, its four turns' fits
    0.20-0.22, right coins' 0.4 up).

    Whatever the look's lead, a sure read may also choose a turn of :func:`_sure_rivals`
    (round 9). Tune split, coins of marked suits with a learned lead under 0.15 (before
    this rule):
    the mark so chose 46, all right (RIVAL_LEAD 0.05: 44, 0.15: 43, all right; only the
    cases with at most two such turns: 37).

    A look fitting every turn alike names its suit no better than any other look would
    (round 22, the reviewer of round 21): of a suit fairly alike under every turn, the mark
    names the facing only with the suit seen otherwise, by ``suit_seen`` (asked only then;
    :func:`_suit_by_ink`). Tune acrylic 29/1 e7: a moons coin whose look named suns (0.74,
    0.2 ahead of the rest), both reads south; only a hand beside it kept it unknown."""
    if len(d.turn_leads) != len(FACINGS):
        return False
    rivals = {f for f, lead in zip(FACINGS, d.turn_leads, strict=True) if lead < RIVAL_LEAD}
    every = _fits_every_turn(d, looks)
    if every and not _fairly_alike_every_turn(d.best[1], looks):
        return False
    if every and not suit_seen():
        return False
    # Turns the look leads by more, but only a sure read may choose (see _sure_rivals).
    extra = _sure_rivals(d, looks) - rivals
    if d.facing_margin >= looks.min_facing_margin and not extra:
        return False
    rivals |= extra
    leaning = {f for f, lead in reads if f in rivals and lead >= MARK_AGREE}
    if len(leaning) != 1:
        return False
    (facing,) = leaning
    if any(f != facing for f in sure):
        return False
    # One weak read alone is no evidence (a speck of the rim from a centre a few pixels off
    # leans too): two reads leaning that way, or a sure one.
    if facing not in sure and sum(f == facing and lead >= MARK_AGREE for f, lead in reads) < 2:
        return False
    if facing in extra and facing not in sure:  # against a clearer lead: a sure read only
        return False
    if _look_rules_out(d, facing):
        return False
    # A look that fits every turn alike (its suit's only fairly alike under them) leaves
    # the mark alone to name the facing: both reads must name it, as neither alone may
    # come of a wrong centre (see :func:`_fairly_alike_every_turn`).
    if every and sum(f == facing and lead >= MARK_AGREE for f, lead in reads) < 2:
        return False
    # Naming the look's own turn, the mark confirms it (``mark`` 1, so it stands beside a
    # covered cell too, see decide_all) when the look leads at all.
    agrees = facing == d.facing and d.facing_margin >= looks.agreed_facing_margin
    d.facing, d.mark = facing, 1 if agrees else 2
    return True


def _suit_by_ink(views: BoardViews, i: int, d: CellDecision, looks: PieceLooks) -> bool:
    """Is cell ``i``'s coin of its best look's suit by evidence other than that look's
    shape? Its ink (:func:`ink_colour` of its crop) is nearer that suit's learned coins' ink
    than any other suit's; where the suit shares its ink with others (:func:`ink_alike`),
    its fine look named the suit among them (:func:`_fine_suits`: ``suit_fits`` set and a
    ``margin`` left). Learned looks only.

    >>> looks = PieceLooks({"suns": np.zeros((CROP, CROP, 3), np.float32)}, {}, learned=True)
    >>> looks.coins["moons"] = looks.coins["suns"].copy()
    >>> looks.coins["suns"][8:12, 8:12] = (-40, 30, 20)  # a red symbol
    >>> looks.coins["moons"][8:12, 8:12] = (-40, 0, -30)  # a blue one
    >>> crops = np.zeros((64, len(OFFSETS), CROP, CROP, 3), np.float32)
    >>> crops[0, CENTRE_SHIFT] = looks.coins["moons"]
    >>> views = BoardViews(None, None, crops, None, None)
    >>> d = CellDecision("a8", "unknown", best=("coin", "suns"))
    >>> _suit_by_ink(views, 0, d, looks), _suit_by_ink(views, 0, CellDecision(
    ...     "a8", "unknown", best=("coin", "moons")), looks)
    (False, True)
    """
    suit = d.best[1]
    if not looks.learned or suit not in looks.coins:
        return False
    if ink_alike(looks).get(suit):
        return bool(d.suit_fits) and d.margin > 0
    own = ink_colour(views.crops[i, CENTRE_SHIFT])
    inks = {s: ink_colour(t) for s, t in looks.coins.items()}
    return min(inks, key=lambda s: float(np.linalg.norm(inks[s] - own))) == suit


def _fits_every_turn(d: CellDecision, looks: PieceLooks) -> bool:
    """Does the learned look fit every turn alike (leading none by ``RIVAL_LEAD``), though
    its suit's look is not alike under every turn? Then it may be another suit's coin, and
    the mark must not set its facing (tune: a moons coin taken for arms, its four turns'
    fits 0.20-0.22, right coins' 0.4 up; round 10, mixed tune shot 224 b1, a moons coin
    named arms with the facing of two agreeing mark reads, its turns within 0.08).

    >>> d = CellDecision("a1", "coin", best=("coin", "arms"), turn_leads=(0, 0.08, 0.08, 0.07))
    >>> _fits_every_turn(d, PieceLooks({}, {})), _fits_every_turn(
    ...     d, PieceLooks({}, {}, turn_alike={"arms": (0.95, 0.95, 0.95)}))
    (True, False)
    """
    if len(d.turn_leads) != len(FACINGS) or max(d.turn_leads) >= RIVAL_LEAD:
        return False
    return len(looks.alike_turns(d.best[1])) < len(FACINGS) - 1


def _fairly_alike_every_turn(suit: str, looks: PieceLooks) -> bool:
    """Is ``suit``'s learned look at least fairly alike (``FAIRLY_ALIKE``) under every
    quarter turn? Then a coin's look fitting every turn
    alike (:func:`_fits_every_turn`) is what its own suit's symbol does, not a sign of
    another suit's coin: piecepackr's eight-rayed sun (0.85-0.89 alike) leads no turn by
    over 0.02, and its dot alone tells the facing. The mark chooses then only with both
    reads naming the turn (see :func:`_mark_picks_turn`). Round 21 (tune piecepackr 0-34):
    22/0 e4, a suns coin both reads named south (leads 0.50 and 0.45), left undecided
    before; acrylic 21/0 a3, an arms coin whose look named suns (acrylic's sun 0.71-0.84
    alike), one sure read from the rim circle and none from the look's fit: left undecided.

    >>> looks = PieceLooks({}, {}, turn_alike={"suns": (0.89, 0.85, 0.89), "arms": (0.6, 0.9, 0.6)})
    >>> _fairly_alike_every_turn("suns", looks), _fairly_alike_every_turn("arms", looks)
    (True, False)
    """
    alike = looks.turn_alike.get(suit, ())
    return len(alike) == len(FACINGS) - 1 and min(alike) >= FAIRLY_ALIKE


def _sure_rivals(d: CellDecision, looks: PieceLooks) -> set[str]:
    """Turns a sure mark read may choose against the look, which leads them by under
    ``MARK_CONFLICT_LEAD``: the turns its suit's learned look is fairly alike under
    (``PieceLooks.turn_alike`` at least ``FAIRLY_ALIKE``, learned from the calibration
    coins): there light and shade that do not turn with the coin can carry the look's lead.

    >>> looks = PieceLooks({}, {}, turn_alike={"suns": (0.8, 0.3, 0.75)})
    >>> d = CellDecision("a1", "coin", best=("coin", "suns"), facing="north",
    ...                  turn_leads=(0.0, 0.2, 0.25, 0.35))
    >>> sorted(_sure_rivals(d, looks))  # east: alike, led by 0.2; west leads by 0.35
    ['east']
    """
    if d.facing not in FACINGS or len(d.turn_leads) != len(FACINGS):
        return set()
    out = set()
    pick = FACINGS.index(d.facing)
    for k, alike in enumerate(looks.turn_alike.get(d.best[1], ()), start=1):
        f = FACINGS[(pick + k) % len(FACINGS)]
        if alike >= FAIRLY_ALIKE and d.turn_leads[FACINGS.index(f)] < MARK_CONFLICT_LEAD:
            out.add(f)
    return out


#: A suit's look this alike to itself under a turn (``PieceLooks.turn_alike``) lets a sure
#: mark read choose that turn against a look leading it by under ``MARK_CONFLICT_LEAD``.
#: Tune split, coins whose sure mark reads named such a turn: piecepackr (suns, 0.67-0.88)
#: 7, the mark right on all (0.6: the same; 0.8: 3); mixed none.
FAIRLY_ALIKE = 0.7


#: A separate mark read with at least this lead counts (see :func:`_check_mark`).
MARK_SURE = 0.6
#: The mark sets a facing other than the learned look's only where the look leads that turn
#: by under this (its ``turn_leads``; see :func:`_look_rules_out`).
MARK_OVERRULE_LEAD = 0.2


def _look_rules_out(d: CellDecision, facing: str) -> bool:
    """Does the learned look lead ``facing`` by ``MARK_OVERRULE_LEAD`` or more, so that the
    separate mark may not set it against the look (the coin's facing is then left undecided,
    see :func:`_check_mark`)? Round 28, tune with a setup, coins whose mark set another turn
    than the look's: the look led it by 0.18 at most where the mark was right (piecepackr
    0-74, 44 coins), by 0.26 and 0.28 where it was wrong (piecepackr 44/0 h6, one sure read
    from the look's centre; woodburned 11/1 b5, both reads on the rim's line opposite).

    >>> d = CellDecision("a1", "coin", facing="east", turn_leads=(0.32, 0.0, 0.26, 0.32))
    >>> _look_rules_out(d, "south"), _look_rules_out(d, "east")
    (True, False)
    """
    if facing == d.facing or facing not in FACINGS or len(d.turn_leads) != len(FACINGS):
        return False
    return d.turn_leads[FACINGS.index(facing)] >= MARK_OVERRULE_LEAD


#: A coin whose two sure mark reads disagree keeps the learned look's facing only with at
#: least this lead (else unknown). Tune split (% wrong / unknown not covered / exact where
#: visible): piecepackr rigs 0-19 0.14 / 1.07 / 58.75 -> 0.12 / 1.09 / 58.75 (shot 21 d4, a
#: suns coin read north at 0.235, reads south 0.94 and north 0.73, truth east); mixed rigs
#: 0-34 unchanged (also at 0.45); always undecided: mixed 0.01 / 0.66 / 75.00 (from 76.43).
#: Round 9: so does one sure read against the look (it was a veto): mixed 35 rigs 44 -> 39
#: unknown not covered, piecepackr 0-19 56 -> 55, no cell wrong (see vision_reflec.md).
MARK_CONFLICT_LEAD = 0.3
#: Turns the learned look leads by less than this (the facing margin's measure) are not
#: ruled out by it; the mark may choose among them (see :func:`_mark_picks_turn`).
RIVAL_LEAD = 0.1
#: With neither read sure, reads with at least this lead may still agree with the learned
#: look (tune split, coins of marked suits with a learned lead under 0.15 and no sure mark:
#: 5 agreed so, all right; of 6 that leaned another way, 5 were misread by the look).
MARK_AGREE = 0.3


def mark_facing(
    views: BoardViews,
    i: int,
    centre: tuple[float, float] | None = None,
    spot: tuple[float, float] | None = None,
) -> tuple[str | None, float]:
    """The facing of cell ``i``'s coin by its small separate mark, and the read's lead
    (``centre``: the coin's centre in FACE_PX pixels; by default its rim circle's;
    ``spot``: the suit's learned mark place, see ``PieceLooks.mark_spots``)."""
    mark = CellDecision(CELL_ORDER[i], "unknown")
    read_facing_from_mark(mark, views, i, CENTRE_SHIFT, centre, spot)
    return mark.facing, mark.facing_margin


def look_centre(views: BoardViews, i: int, looks: PieceLooks, suit: str) -> tuple[float, float]:
    """Centre (x, y, FACE_PX pixels) of cell ``i``'s coin: where the suit's learned look,
    averaged over its four turns, fits best within ``FACE_WIDE`` of the cell's centre."""
    turned = looks.turned_faces()
    hit = looks.extra.get("round_faces")
    if hit is None or hit[0] is not turned:  # kept with the turned faces they were made from
        hit = looks.extra["round_faces"] = (turned, {})
    cache = hit[1]
    if suit not in cache:
        cache[suit] = np.ascontiguousarray(turned[suit].mean(axis=0), np.float32)
    t = cache[suit]
    size = FACE_CROP + 2 * FACE_WIDE
    x0 = round((MARGIN + i % N + 0.5) * FACE_PX - FACE_CROP / 2) - FACE_WIDE
    y0 = round((MARGIN + i // N + 0.5) * FACE_PX - FACE_CROP / 2) - FACE_WIDE
    win = np.ascontiguousarray(views.rel_hi_window(y0, x0, size), np.float32)
    if win.shape[:2] != (size, size):  # at the raster's edge: the cell's centre
        return x0 + FACE_WIDE + (FACE_CROP - 1) / 2, y0 + FACE_WIDE + (FACE_CROP - 1) / 2
    _, _, _, (bx, by) = cv2.minMaxLoc(cv2.matchTemplate(win, t, cv2.TM_CCOEFF_NORMED))
    return x0 + bx + (FACE_CROP - 1) / 2, y0 + by + (FACE_CROP - 1) / 2


#: A learned mark (``PieceLooks.mark_shapes``) read with at least this lead
#: (``facing.learned_mark_read``) counts. Tune, coins of those suits (woodburned,
#: printplay, piecepackr 0-24): lead 0.15 and up 3,495 right / 1 wrong; 0.1-0.15 (wrong 7).
MARK_SHAPE_SURE = 0.15
#: A learned mark read leading by at least this (under ``MARK_SHAPE_SURE``) still sets a
#: facing when both blob reads of the separate mark are sure of the same turn (see
#: :func:`_two_marks_set`). face22, tune printplay 25-99: suns coins whose both blob reads
#: were sure and right, the learned mark leaning their way by 0.08-0.12, left unknown (59/1
#: e5, 68/2 h5, 79/1 a8, 89/1 e3); piecepackr 71/0 f2 (0.10). Simulated over piecepackr
#: 25-74 and printplay 25-99: 0.1 adds 4 coins, 0.05 and 0.0 5, no wrong one.
MARK_SHAPE_LEAN = 0.05


def _mark_shape_template(looks: PieceLooks, suit: str) -> np.ndarray:
    """``facing.mark_template`` of ``suit``'s look as it is read (rim made round), made once
    per turned faces and kept with them."""
    turned = looks.turned_faces()
    hit = looks.extra.get("mark_shapes")
    if hit is None or hit[0] is not turned:
        hit = looks.extra["mark_shapes"] = (turned, {})
    if suit not in hit[1]:
        hit[1][suit] = mark_template(turned[suit][0])
    return hit[1][suit]


def _check_mark_shape(
    d: CellDecision,
    window: np.ndarray,
    turned: dict[str, np.ndarray],
    looks: PieceLooks,
    by_hand: bool = False,
    blobs: Callable[[], tuple] | None = None,
) -> None:
    """Where the separate mark's read left the facing unconfirmed (``d.mark`` 0: its suit's
    mark not read as a blob, or no read sure), the mark learned as a shape from the
    calibration coins (``PieceLooks.mark_shapes``, ``facing.mark_template``) is read in
    ``window`` at each turn's fit; a read counts when sure (``MARK_SHAPE_SURE``), and only
    against a look leading by under ``MARK_CONFLICT_LEAD`` (a mark against a clearer lead
    leaves it, as in :func:`_check_mark`).

    * Naming another turn than the look's, where :func:`facing_sure` would name the look's
      (a lead of ``min_facing_margin``, no :func:`_sure_rivals`): the facing is left
      undecided (``d.mark`` -1). It never sets a facing (tune woodburned 240-319: one of
      five coins whose look it would so have overruled was right).
    * Naming the look's own turn, where the look leads it by ``agreed_facing_margin``: it
      confirms the facing (``d.mark`` 1, as an agreeing blob read does), so that a look
      leading by under ``min_facing_margin``, or among turns it is alike under, is named
      (face21, see :func:`_shape_confirms`); not on a cell ``by_hand`` (it or a neighbour
      covered by a hand, see :func:`beside_a_hand`).
    * Naming a turn that a sure blob read of the separate mark names too (``blobs``, see
      :func:`_blob_reads`), where the facing is still undecided: the two marks set it
      (``d.mark`` 2, see :func:`_two_marks_set`).
    * Naming another turn than the blob reads set against the look (``d.mark`` 2, see
      :func:`_check_mark`): two readers of the mark by different means disagree, either may
      be wrong; the facing is left undecided (``d.mark`` -1). face22, tune piecepackr 53/3
      e2: a suns coin facing west (the sun alike under every turn, the look no lead), one
      sure blob read from the look's fit east (0.73), the learned mark west by 0.35: read
      east before.

    Before it, where the suit's mark was not learned as a blob, two sure blob reads naming a
    quarter turn off a look that is sure alone leave the facing undecided
    (:func:`_blobs_doubt`).

    Read only where it could change a decision (each read ~4 ms)."""
    suit = d.best[1] if d.best else None
    if d.facing not in FACINGS:
        return
    if blobs is not None and _blobs_doubt(d, looks, blobs):
        d.mark = -1
        return
    if suit not in looks.mark_shapes or suit not in turned:
        return
    sets = blobs is not None and not by_hand and _two_marks_may_set(d, looks)
    if d.mark != 0 or d.facing_margin >= MARK_CONFLICT_LEAD:
        doubts = confirms = False
    else:
        doubts = d.facing_margin >= looks.min_facing_margin and not _sure_rivals(d, looks)
        confirms = not by_hand and _shape_confirms(d, looks)
    set_turn = d.mark == 2
    if not doubts and not confirms and not sets and not set_turn:
        return  # undecided whatever the read says (see facing_sure)
    at = mark_windows(window, turned[suit])
    facing, lead = learned_mark_read(mark_scores(at, _mark_shape_template(looks, suit)))
    if sets and lead >= MARK_SHAPE_LEAN and _two_marks_set(d, facing, lead, blobs(), looks):
        return
    if lead < MARK_SHAPE_SURE:
        return
    if set_turn:
        if facing != d.facing:
            d.mark = -1
    elif facing != d.facing:
        if doubts:
            d.mark = -1
    elif doubts or confirms:  # confirmed (where it only doubts, 1 decides as 0)
        d.mark = 1


#: A quarter turn either way (see :func:`_blobs_doubt`).
_QUARTER_TURNS = (1, 3)


def _blobs_doubt(d: CellDecision, looks: PieceLooks, blobs: Callable[[], tuple]) -> bool:
    """Where a coin's look names its facing alone (``d.mark`` 0, :func:`facing_sure`, a lead
    under ``MARK_CONFLICT_LEAD``) and its suit's mark was not learned as a blob (not in
    ``PieceLooks.marked``, so :func:`_check_mark` read none): do both blob reads
    (:func:`_blob_reads`) name, surely (``MARK_SURE``), the same turn a quarter turn off the
    look's? Then the facing is left undecided. face19's measure (tune, 22,000 coins of eight
    sets): printplay 71/3 a5 (suns facing south read west, lead 0.20, both reads south 0.74,
    0.89) made unknown, no right coin. A half turn is left out (woodburned right coins whose
    reads named the half turn), as is a clearer lead (printplay 25-99: 6 right coins whose
    reads named a quarter turn against a lead of 0.58-0.73)."""
    suit = d.best[1] if d.best else None
    if d.mark != 0 or suit in looks.marked or d.facing_margin >= MARK_CONFLICT_LEAD:
        return False
    if not facing_sure(d, looks):
        return False
    reads = [f for f, lead in blobs() if f is not None and lead >= MARK_SURE]
    if len(reads) != 2 or reads[0] != reads[1]:
        return False
    turn = (FACINGS.index(reads[0]) - FACINGS.index(d.facing)) % len(FACINGS)
    return turn in _QUARTER_TURNS


def _blob_reads(
    views: BoardViews, i: int, looks: PieceLooks, suit: str
) -> tuple[tuple[str | None, float], tuple[str | None, float]]:
    """Cell ``i``'s separate mark read as a blob (:func:`mark_facing`) around its rim circle
    and around where ``suit``'s look fits (:func:`look_centre`), as :func:`_check_mark`
    reads it; where ``suit``'s mark was not learned as a blob (``PieceLooks.marked``), any
    small blob in the ring where marks sit counts (no ``mark_spots``)."""
    spot = looks.mark_spots.get(suit)
    rim = mark_facing(views, i, spot=spot)
    centre = look_centre(views, i, looks, suit)
    return _on_round_symbol(views, i, centre, rim, mark_facing(views, i, centre, spot=spot), spot)


def _on_round_symbol(
    views: BoardViews,
    i: int,
    centre: tuple[float, float],
    rim: tuple[str | None, float],
    fit: tuple[str | None, float],
    spot: tuple[float, float] | None = None,
) -> tuple[tuple[str | None, float], tuple[str | None, float]]:
    """The two blob reads of cell ``i``'s mark (``rim``: from its rim circle's centre;
    ``fit``: from ``centre``, where its suit's look fits), one of them read again from the
    centre of the coin's symbol where that symbol is round (``facing.round_symbol_centre``,
    around ``centre``): a third estimate of the coin's centre, and the best (round 49, mark24, tune,
    every coin whose mark was checked, base reads: piecepackr 0-74 and 200-224, its sure
    reads named the truth 1,196 times of 1,196, the rim circle's 1,512 of 1,518, the look's
    fit's 1,951 of 1,955; acrylic, mixed, woodburned and printplay 0-24 399 of 401, 587 of
    600, 765 of 769).

    * The look's fit read, where ``centre`` lies ``FIT_OFF_SYMBOL`` or more from the round
      symbol's centre (the look fitted the coin's rim or side, not its face; the mark is then
      searched on the wrong side): piecepackr 53/3 e2, a suns coin facing west, the fit
      7.8 px off the sun, read east (0.73) and set the facing against the learned mark.
    * Else the rim circle's read, where it is not sure (``MARK_SURE``) and the symbol's is:
      the circle snapped onto the symbol or the shadow and found no mark. Piecepackr 204/3
      d2: a suns coin facing west read east by the look (0.19), the fit's read west (0.94),
      the rim's none; from the sun's centre west (1.0), so two sure reads agree. A rim read
      leaning the right way is kept where the symbol's finds nothing sure (piecepackr
      1604/3 h3: rim north 0.39, the symbol's none; it confirms the look's north).

    Only one read is replaced, so that no two reads come from the same centre; without a
    round symbol (a crescent, a crown) both stand."""
    sym = round_symbol_centre(views, centre)
    if sym is None:
        return rim, fit
    if np.hypot(sym[0] - centre[0], sym[1] - centre[1]) >= FIT_OFF_SYMBOL:
        return rim, mark_facing(views, i, sym, spot=spot)
    if rim[1] < MARK_SURE:
        on_sym = mark_facing(views, i, sym, spot=spot)
        if on_sym[1] >= MARK_SURE:
            return on_sym, fit
    return rim, fit


def _symbol_leans(
    views: BoardViews,
    i: int,
    centre: tuple[float, float],
    facing: str,
    spot: tuple[float, float] | None = None,
) -> bool:
    """Does the mark read from the centre of the coin's round symbol (found around
    ``centre``, the look's fit; see :func:`_on_round_symbol`) lean (``MARK_AGREE``) towards
    ``facing``? A third centre's read beside the rim circle's and the fit's: where those two
    are sure of a turn the look rules out (:func:`_look_rules_out`), the three agreeing set
    the facing (``d.mark`` 2, see :func:`_check_mark`); without it the coin stays undecided.
    Round 49 (mark24), tune, every coin whose mark was checked (piecepackr 0-74 and 200-224,
    acrylic, mixed, woodburned and printplay 0-24: 3,343 coins), two sure reads agreeing
    against a turn the look led by 0.2 or more: three coins. Piecepackr 34/2 a7 (suns west,
    the look north by 0.38, cut 5.5 px off on the calibration photo): the symbol's read west
    (0.49), right. Piecepackr 11/2 b1 (both reads east, truth north): no round symbol found;
    woodburned 11/1 b5 (both west, truth east): the symbol's read east (0.85): both stay
    undecided. Round 28's other wrong read (piecepackr 44/0 h6) was one sure read alone."""
    sym = round_symbol_centre(views, centre)
    if sym is None or np.hypot(sym[0] - centre[0], sym[1] - centre[1]) >= FIT_OFF_SYMBOL:
        return False
    read = mark_facing(views, i, sym, spot=spot)
    return read[0] == facing and read[1] >= MARK_AGREE


#: The look's fit centre this far (FACE_PX pixels) or more from the coin's round symbol's
#: centre has not found the coin's face (see :func:`_on_round_symbol`). The symbol is printed
#: 0.05 of the coin low (1.5 px, ``synth.art.coin_face``), so a good fit lies 0-3 px from
#: it: tune piecepackr 0-74 and 200-224, sure fit reads of suns coins 0-4.9 px off, 1,181 of
#: 1,182 right; 7-8 px off, 2 reads, one wrong (53/3 e2).
FIT_OFF_SYMBOL = 5.0


def _two_marks_may_set(d: CellDecision, looks: PieceLooks) -> bool:
    """Could the learned mark and a blob read agreeing (:func:`_two_marks_set`) name a coin
    the look leaves undecided? So when its facing is not sure (:func:`facing_sure`), no mark
    read stood against the look (``d.mark`` 0 or 1) and the cell could be named at all
    (:func:`_could_be_sure`)."""
    if d.mark not in (0, 1) or facing_sure(d, looks):
        return False
    return _could_be_sure(d, looks)


def _two_marks_set(
    d: CellDecision,
    facing: str,
    lead: float,
    blobs: tuple[tuple[str | None, float], tuple[str | None, float]],
    looks: PieceLooks,
) -> bool:
    """Set the facing to ``facing``, named by a sure learned mark read (lead ``lead``, sure
    at ``MARK_SHAPE_SURE``), when a blob read of the separate mark (``blobs``: rim circle's
    and look fit's, see :func:`_blob_reads`) is sure of it too (``MARK_SURE``) and neither is
    sure of another turn; a learned read that only leans (``MARK_SHAPE_LEAN``) needs both
    blob reads sure of it. And the look must not
    rule it out (it leads ``facing`` by under ``MARK_OVERRULE_LEAD``, or by under
    ``MARK_CONFLICT_LEAD`` among the turns its suit's look is alike under,
    :func:`_sure_rivals`): two reads of the mark by different means (a shape learned from the
    calibration coins, a blob anywhere in the mark's ring) that agree decide the facing
    (``d.mark`` 2), as two agreeing blob reads do in :func:`_check_mark`. True if set.

    face22 (tune piecepackr 25-74): 7 suns coins left unknown named, all right; in rig 71
    the suns' blob mark was not learned (one calibration coin of six read) and the sun is
    alike under every turn, so neither the look nor the blob reader alone decides.

    >>> looks = PieceLooks({}, {}, turn_alike={"suns": (0.83, 0.79, 0.82)})
    >>> d = CellDecision("a1", "coin", best=("coin", "suns"), facing="east",
    ...                  facing_margin=0.08, turn_leads=(0.17, 0.0, 0.09, 0.08))
    >>> _two_marks_set(d, "south", 0.25, (("south", 0.82), (None, 0.0)), looks), d.facing, d.mark
    (True, 'south', 2)
    """
    sure = [f for f, b in blobs if f is not None and b >= MARK_SURE]
    if not sure or any(f != facing for f in sure):
        return False
    if lead < MARK_SHAPE_SURE and len(sure) < len(blobs):
        return False
    if _look_rules_out(d, facing) and facing not in _sure_rivals(d, looks):
        return False
    d.facing, d.mark = facing, 2
    return True


def beside_a_hand(hands: np.ndarray) -> np.ndarray:
    """Cells (board order, bool) that are or touch (8-neighbours) a cell in ``hands`` (board
    order, bool): a hand's edge or its shadow reaches into the cells around the ones whose
    lines it hides (see :func:`decide_all`)."""
    grid = np.asarray(hands, np.uint8).reshape(N, N)
    return cv2.dilate(grid, np.ones((3, 3), np.uint8)).ravel().astype(bool)


def _shape_confirms(d: CellDecision, looks: PieceLooks) -> bool:
    """Could a sure learned mark naming the look's own turn (see :func:`_check_mark_shape`)
    make the facing sure where the look alone does not? So when the look leads by
    ``agreed_facing_margin`` (what an agreeing mark needs, see :func:`facing_sure`) but
    under ``min_facing_margin``, or among turns it is alike under (:func:`_sure_rivals`),
    and the cell could be named at all (:func:`_could_be_sure`).

    face21 (tune, with a setup; each shot read by the code before and after, every cell
    compared): piecepackr 0-74, printplay 0-99 and woodburned 0-74, 27 coins left unknown
    named, all right, no other cell changed; acrylic 0-12 one. The agreeing reads of the
    coins so named led by 0.15-0.41 (``MARK_SHAPE_SURE``); away from a hand, no
    cell whose sure read agreed with the look would have been named wrongly (those sets
    and acrylic, mixed, white hand 0-24). Beside a hand, two were: acrylic 10/3 c1 and d1,
    empty cells whose look fitted a suns coin, a grid line read as the bar (0.27), hence
    ``by_hand`` in :func:`_check_mark_shape`.

    >>> looks = PieceLooks({}, {}, learned=True)
    >>> d = CellDecision("a1", "coin", best=("coin", "suns"), facing="north",
    ...                  facing_margin=0.1, similarity=0.8, margin=0.2)
    >>> weak = dataclasses.replace(d, facing_margin=0.02)
    >>> _shape_confirms(d, looks), _shape_confirms(weak, looks)
    (True, False)
    """
    if d.facing_margin < looks.agreed_facing_margin or not _could_be_sure(d, looks):
        return False
    return d.facing_margin < looks.min_facing_margin or bool(_sure_rivals(d, looks))


def _look_alone_on_tones(d: CellDecision, looks: PieceLooks) -> bool:
    """May the learned look alone set a coin's facing against its :func:`_sure_rivals`?
    Only on a board of two tile tones (``pawns_on_tone`` learned: checkered) for a suit
    whose mark was not learned (not in ``marked``), so that no mark read will ever come:
    checkered's mark is an absence (a suit-coloured ring broken at the top), found by no
    blob reader. There the whole symbol turns with the coin, and the look's lead
    (``facing_margin``, at least ``min_facing_margin`` as ever) named the truth on every
    such coin of the tune split (round 37, rigs 0-24, 200-239, 300-329 and 400-429: 109
    coins held back so, all four facings, leads 0.16-0.30, every one right), where
    piecepackr's sun, whose dot alone turns, let light and shade carry such a lead (round
    28).

    >>> looks = PieceLooks({}, {}, pawns_on_tone={"suns": np.zeros((2, 2, 3))})
    >>> d = CellDecision("a1", "coin", best=("coin", "suns"), facing="north")
    >>> _look_alone_on_tones(d, looks), _look_alone_on_tones(d, PieceLooks({}, {}))
    (True, False)
    >>> _look_alone_on_tones(d, dataclasses.replace(looks, marked={"suns"}))
    False
    """
    return bool(looks.pawns_on_tone) and d.best[1] not in looks.marked


def facing_sure(d: CellDecision, looks: PieceLooks) -> bool:
    """Is a coin's facing read clearly enough? The learned look's lead must reach
    ``min_facing_margin``, or ``agreed_facing_margin`` when the separate mark points the
    same way; a mark pointing another way leaves it
    undecided, and two agreeing reads of the mark (``mark`` 2, see :func:`_check_mark`)
    decide it.

    Unconfirmed by the mark (``mark`` 0: not read, not seen, or its suit's mark not learned),
    the look alone never decides between turns it cannot rule out (:func:`_sure_rivals`: its
    suit's look is fairly alike under them, and it leads them by under
    ``MARK_CONFLICT_LEAD``): there light and shade that do not turn with the coin carry the
    lead, and the calibration's coins all face north (round 28, tune piecepackr 25-74: three
    suns coins facing east or west read north by such a lead, 0.16-0.27, no mark read).

    >>> looks = PieceLooks({}, {}, turn_alike={"suns": (0.8, 0.3, 0.8)})
    >>> d = CellDecision("a1", "coin", best=("coin", "suns"), facing="north",
    ...                  facing_margin=0.2, turn_leads=(0.0, 0.2, 0.4, 0.35))
    >>> facing_sure(d, looks), facing_sure(d, PieceLooks({}, {}))  # east is a sure rival
    (False, True)
    """
    if d.mark < 0:
        return False
    if d.mark > 1:
        return True
    if d.mark == 0 and _sure_rivals(d, looks) and not _look_alone_on_tones(d, looks):
        return False
    need = looks.agreed_facing_margin if d.mark > 0 else looks.min_facing_margin
    return d.facing_margin >= need


def _wide_search(
    views: BoardViews, i: int, T: np.ndarray, columns: list[int]
) -> tuple[np.ndarray, tuple[float, float]] | None:
    """Best similarity to the looks in ``columns`` (others -1) over shifts up to 0.4 cell,
    and that shift.

    The same cosine as :func:`similarities` (lightness minus its mean in the look disc, all
    inside the disc), at every 1-px shift: the dot products as one matrix product of the
    window's shifted crops with the masked looks, the means and norms by correlations.
    """
    if not columns:  # a setup without coin looks: nothing to search for
        return None
    r = round(0.4 * PX)
    o = round(MARGIN * PX) + (PX - CROP) // 2
    y0, x0 = o + (i // N) * PX - r, o + (i % N) * PX - r
    win = views.rel_lo[y0 : y0 + CROP + 2 * r, x0 : x0 + CROP + 2 * r]
    if win.shape[:2] != (CROP + 2 * r, CROP + 2 * r):
        return None
    win = np.ascontiguousarray(win, np.float32)
    m, m2, m_sum, m2_sum, m2_rgb = _WIDE_MASKS
    light = np.ascontiguousarray(win[..., 0])
    mean = cv2.matchTemplate(light, m, cv2.TM_CCORR) / m_sum  # masked lightness mean
    sum_l = cv2.matchTemplate(light, m2, cv2.TM_CCORR)
    sq = cv2.matchTemplate(win * win, m2_rgb, cv2.TM_CCORR)
    norm = np.sqrt(np.maximum(sq - 2 * mean * sum_l + mean * mean * m2_sum, 1e-12))
    n = win.shape[0] - CROP + 1
    tm, tl = _masked_looks(T, columns)
    # Every look at every shift in one product (the window's shifted crops as rows): a
    # third of the time of one correlation per look, the same sums to float rounding.
    dot = _shifted_crops(win, n) @ tm - mean.reshape(-1, 1) * tl
    sims = dot / norm.reshape(-1, 1)  # the looks in ``columns`` only; the others are -1
    # The best shift: the first holding the largest similarity (row-major, as the argmax
    # of each shift's best); the looks not searched count -1 at every shift, so where no
    # searched look beats that, every shift ties and the first is taken.
    first = int(np.argmax(sims))
    unsearched_win = len(columns) < T.shape[1] and sims.flat[first] <= -1
    best = 0 if unsearched_win else first // len(columns)
    by, bx = divmod(best, n)
    out = np.full(T.shape[1], -1.0, np.float32)
    out[columns] = sims.max(axis=0)
    return out, (float(by - r), float(bx - r))


def _shifted_crops(win: np.ndarray, n: int) -> np.ndarray:
    """The ``CROP`` x ``CROP`` crops of a contiguous (h, w, 3) float32 ``win`` at each of
    ``n`` x ``n`` 1-px shifts, flattened as rows (n * n, CROP * CROP * 3), row-major by
    shift: ``sliding_window_view(win, (CROP, CROP, 3))[:, :, 0]`` reshaped, but through a
    plain strided view, a crop row's pixels and channels as one axis (a quicker view to make
    and to copy).

    >>> w = np.arange(22 * 22 * 3, dtype=np.float32).reshape(22, 22, 3)
    >>> a = np.lib.stride_tricks.sliding_window_view(w, (CROP, CROP, 3))[:, :, 0]
    >>> np.array_equal(_shifted_crops(w, 3), a.reshape(9, -1))
    True
    """
    sy, sx, sc = win.strides
    view = np.ndarray((n, n, CROP, CROP * 3), win.dtype, win, 0, (sy, sx, sy, sc))
    return view.reshape(n * n, CROP * CROP * 3)


def _wide_masks() -> tuple[np.ndarray, np.ndarray, np.float32, np.float32, np.ndarray]:
    """LOOK_MASK's weights as :func:`_wide_search` correlates them (the mask, its square,
    their sums, the square for three channels): made once, not per cell."""
    m = LOOK_MASK[..., 0]
    m2 = m * m
    return m, m2, m.sum(), m2.sum(), np.repeat(m2[..., None], 3, axis=2)


_WIDE_MASKS = _wide_masks()


_MASKED: dict[tuple, tuple] = {}


def _masked_looks(T: np.ndarray, columns: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The looks ``T[:, columns]`` (already inside the disc, unit length) weighed by
    LOOK_MASK as a correlation with the window weighs them, as columns (D, k), and each
    one's lightness summed inside the mask (k,); made once per templates array."""
    key = (id(T), tuple(columns))
    hit = _MASKED.get(key)
    if hit is None or hit[0] is not T:
        t = T[:, columns].reshape(CROP, CROP, 3, len(columns))
        tm = np.ascontiguousarray((t * LOOK_MASK[..., None]).reshape(-1, len(columns)))
        tl = (t[..., 0, :] * LOOK_MASK[..., 0, None]).sum(axis=(0, 1))
        if len(_MASKED) > 16:
            _MASKED.clear()
        hit = _MASKED[key] = (T, tm.astype(np.float32), tl.astype(np.float32))
    return hit[1], hit[2]


def _features(
    cell: str, ratio: float, tint: float, sims: np.ndarray, labels: list[tuple]
) -> CellDecision:
    """A cell's measurements, not yet decided (``kind`` is filled by :func:`decide`)."""
    order = np.argsort(sims)[::-1]
    best = int(order[0])
    # Facing is decided later from the markings alone: here only kind and suit compete.
    second = next((int(j) for j in order[1:] if labels[j][:2] != labels[best][:2]), best)
    kind, suit, _ = labels[best]
    suit_margin = -1.0
    if kind == "coin" and labels[second][:2] == ("pawn", suit):  # see _own_pawn_alone
        other = [int(j) for j in order if labels[j][0] == "coin" and labels[j][1] != suit]
        suit_margin = float(sims[best] - sims[other[0]]) if other else float(sims[best])
    return CellDecision(
        cell,
        "unknown",
        confidence=0.0,
        similarity=float(sims[best]),
        energy_ratio=float(ratio),
        margin=float(sims[best] - sims[second]),
        tint=float(tint),
        best=(kind, suit),
        suit_margin=suit_margin,
    )


def _kind_fits(d: CellDecision, sims: np.ndarray, labels: list[tuple], looks: PieceLooks) -> None:
    """Set ``d.pawn_fits`` (each suit's best pawn similarity, SUITS order) and ``d.coin_fit``
    (the best coin similarity) from a cell's similarities to the looks (``labels``)."""
    hit = looks.extra.get("kind_columns")
    if hit is None or hit[0] is not labels:  # made once per templates
        pawns = [[k for k, lb in enumerate(labels) if lb[:2] == ("pawn", s)] for s in SUITS]
        coins = [k for k, lb in enumerate(labels) if lb[0] == "coin"]
        hit = looks.extra["kind_columns"] = (labels, pawns, coins)
    d.pawn_fits = tuple(float(sims[c].max()) if c else -1.0 for c in hit[1])
    d.coin_fit = float(sims[hit[2]].max()) if hit[2] else -1.0


#: Two suits' coins are told apart by shape alone when their inks (see :func:`ink_colour`)
#: lie within this of each other (relative a, b, weighted by ``CHROMA_WEIGHT``). Tune
#: calibration photos: woodburned (one brown for every suit) 0.3-8 between any two suits;
#: the other arts' suits at least 13 apart (ebony's moons and crowns; classic 35, french 27).
INK_ALIKE = 10.0
#: A coin whose suit shares its ink with other suits is that suit whose fine look (the
#: facing's, FACE_PX, best of its turns, twisted as :func:`read_twisted`) fits best, when it
#: leads the other suits sharing that ink by this; else its suit is left undecided (the cell
#: unknown). On the coarse raster (``PX``) a one-colour sun and fleur-de-lis are one blob.
#: Tune woodburned 0-29 with looks aligned askew (round 13; 1688 coins in view read so): the
#: leader is another suit only at leads under 0.03 (4 of 8 coins), never at 0.03-0.1 (67).
FINE_SUIT_LEAD = 0.05
#: Where the fine look's leader leads by less than this, the suits' faces are tried twisted
#: too (see :func:`_suit_fits`).
FINE_TWIST_BELOW = 0.2
#: The share of a coin look's disc taken as its ink: the pixels farthest from its median.
INK_SHARE = 0.25


def ink_colour(look: np.ndarray) -> np.ndarray:
    """The colour (relative a, b) of a coin look's ink (its symbol, its rim): the
    ``INK_SHARE`` of the look disc's pixels farthest from the disc's median colour, less
    that median (the coin's ground), so the tile's colour and the light cancel out.

    >>> look = np.zeros((CROP, CROP, 3), np.float32)
    >>> look[CROP // 2 - 5 : CROP // 2 + 5, CROP // 2 - 5 : CROP // 2 + 5] = (-40, 30, 12)
    >>> ink_colour(look).round(1).tolist()
    [30.0, 12.0]
    """
    px = look[LOOK_MASK[..., 0] > 0.5]
    ground = np.median(px, axis=0)
    far = np.linalg.norm(px - ground, axis=1)
    k = max(1, round(INK_SHARE * len(px)))
    ink = px[np.argpartition(far, len(px) - k)[len(px) - k :]]
    return (ink.mean(axis=0) - ground)[1:]


def ink_alike(looks: PieceLooks) -> dict[str, tuple[str, ...]]:
    """Per suit, the other suits whose learned coins' ink lies within ``INK_ALIKE`` of its
    own (:func:`ink_colour`): colour cannot tell those coins apart, only the symbol's
    shape. Learned looks only (the drawn stand-ins have a colour per suit); made once per
    coin looks.

    >>> def coin(ab):
    ...     look = np.zeros((CROP, CROP, 3), np.float32)
    ...     look[CROP // 2 - 5 : CROP // 2 + 5, CROP // 2 - 5 : CROP // 2 + 5] = (-40, *ab)
    ...     return look
    >>> coins = {"suns": coin((4, 5)), "arms": coin((3, 3)), "moons": coin((0, -30))}
    >>> ink_alike(PieceLooks(coins, {}, learned=True))
    {'suns': ('arms',), 'arms': ('suns',), 'moons': ()}
    """
    hit = looks.extra.get("ink_alike")
    if hit is not None and hit[0] is looks.coins:
        return hit[1]
    inks = {s: ink_colour(t) for s, t in looks.coins.items()} if looks.learned else {}
    alike = {
        s: tuple(o for o in inks if o != s and np.linalg.norm(inks[o] - c) < INK_ALIKE)
        for s, c in inks.items()
    }
    looks.extra["ink_alike"] = (looks.coins, alike)  # held: ids are reused
    return alike


def _coarse_suit_fits(
    d: CellDecision, sims: np.ndarray, labels: list[tuple], looks: PieceLooks
) -> None:
    """For a coin-like cell whose best suit shares its ink with other suits (see
    :func:`ink_alike`): set ``d.suit_fits`` (each suit's best coin fit, SUITS order, -1
    without its look) and ``d.other_fit`` (the best fit of any other kind), for
    :func:`_fine_suits`. Nothing otherwise: the coarse look's colour decides the suit."""
    if not ink_alike(looks).get(d.best[1]):
        return
    hit = looks.extra.get("suit_columns")
    if hit is None or hit[0] is not labels:  # made once per templates
        cols = [[k for k, lb in enumerate(labels) if lb[:2] == ("coin", s)] for s in SUITS]
        other = [k for k, lb in enumerate(labels) if lb[0] != "coin"]
        hit = looks.extra["suit_columns"] = (labels, cols, other)
    d.suit_fits = tuple(float(sims[c].max()) if c else -1.0 for c in hit[1])
    d.other_fit = float(sims[hit[2]].max()) if hit[2] else -1.0


def _fine_suits(
    jobs: list[tuple[CellDecision, np.ndarray]], turned: dict, looks: PieceLooks
) -> None:
    """Read the suit of each coin-like cell of ``jobs`` (decision, its facing window) whose
    coins share their ink with other suits' (``suit_fits`` set, see
    :func:`_coarse_suit_fits`) from its fine look: of those suits, the one whose turned
    face (twisted too, as :func:`read_twisted`) fits best. Leading the others by
    ``FINE_SUIT_LEAD``, it becomes the cell's best look (``best``; as ``margin`` the lesser
    of that lead and the coarse lead of those suits' best fit, ``similarity``, over the
    other kinds and the suits of other inks); else it is ``best`` all the same, but
    ``margin`` is 0: the suit is undecided, and so is the cell (see :func:`decide`). Its
    facing is read afterwards, with that suit's look.

    Replayed on tune before it was written (woodburned 0-29, coins in view): 1091 of 1180
    coins' best fine look is their suit's, where the coarse read named 766 right and 163
    wrong."""
    alike = ink_alike(looks)
    groups: dict[tuple[str, ...], list[tuple[CellDecision, np.ndarray]]] = {}
    for d, window in jobs:
        if not d.suit_fits:
            continue
        suits = tuple(s for s in SUITS if s in turned and (s == d.best[1] or s in alike[d.best[1]]))
        if len(suits) > 1:
            groups.setdefault(suits, []).append((d, window))
    todo = []
    for suits, members in groups.items():
        fits = _suit_fits(members, suits, turned, looks)
        for (d, window), fit in zip(members, fits, strict=True):
            todo.append((d, window, dict(zip(suits, fit.tolist(), strict=True))))
    for d, window, fine in todo:
        suits = list(fine)
        order = sorted(suits, key=fine.get, reverse=True)
        lead = fine[order[0]] - fine[order[1]]
        coarse = dict(zip(SUITS, d.suit_fits, strict=True))
        others = [d.other_fit] + [f for s, f in coarse.items() if s not in suits]
        # ``similarity`` stays the best coarse fit: those suits are one look there. The fine
        # look's leader is the best look even when undecided (the calibration read-back
        # counts it when it leads by READ_BACK_FINE_LEAD, see learn._read_as).
        d.best = ("coin", order[0])
        d.fine_lead = lead
        turn_fits = known_scores(window, turned[order[0]])  # its turns, as _suit_fits had them
        shape = _symbol_shape_lead(window, order[0], lead, suits, turned, looks, turn_fits)
        named = _suit_named(order[0], lead, shape)
        d.margin = min(d.similarity - max(others), max(lead, FINE_SUIT_LEAD)) if named else 0.0
        d.suit_margin = -1.0  # the suit is the fine look's: not by _own_pawn_alone


#: The burnt symbol's shape, measured free of the coin's turn (see :func:`symbol_shape`):
#: the rings of the fine look (FACE_PX pixels from the coin's centre) from just off the centre
#: to within a pixel of the symbol's edge. Woodburned's symbols reach some 9-10 px from the
#: centre; the facing mark (a chevron) lies at ~13 px and the rim beyond, alike in every suit.
#: Tune woodburned 0-74, coins whose fine lead is under 0.15: out to 8.5 px the rule below
#: named 28 right and none wrong at any ``SHAPE_FIT`` from 0.92 to 0.94; out to 9.5 px only at
#: 0.94 (27 right), a tune rig's arms coins (laid off their cells' middles) passing for suns.
SYMBOL_RINGS = np.linspace(1.5, 8.5, 9)
#: Points read around each ring (every 5.6 degrees: 2 px apart at 9.5 px).
SYMBOL_ANGLES = 64
#: Harmonics kept per ring (0 = the ring's mean, up to 9 around it): a sun's eight rays are
#: its 8th, a crescent's one-sidedness its 1st; finer ones are noise at FACE_PX.
SYMBOL_HARMONICS = 10
#: A coin whose fine look leads under ``FINE_SUIT_LEAD`` is that suit after all where its
#: symbol's shape (:func:`symbol_shape`) names the same suit, leading the other suits of that
#: ink by this (cosine of the shape vectors) and fitting it by ``SHAPE_FIT``. Tune woodburned
#: 0-74 (4252 coins read so): the shape alone named the coin's suit on 4239 (the fine look
#: 4237); its lead where right: 1st percentile 0.035, 5th 0.055.
SHAPE_SUIT_LEAD = 0.03
#: ... and its cosine with that suit's shape: where right (0-74), 1st percentile 0.90, 5th
#: 0.93, median 0.976; tune rig 49's arms coins that both measures took for suns fit 0.85-0.91
#: (0.865-0.93 with rings out to 9.5 px).
SHAPE_FIT = 0.93
#: A coin whose fine look leads by ``FINE_SUIT_LEAD`` or more is left unknown where its
#: symbol's shape names another suit by this (fitting it by ``SHAPE_FIT``): the measures
#: disagree. Tune woodburned 0-74: a right coin's shape led another suit by 0.05-0.08 once.
SHAPE_SUIT_VETO = 0.08
#: The shape is weighed only where the fine look leads by less than this (above it, the
#: fine look named no coin wrongly on tune woodburned: its read stands alone).
SHAPE_WEIGHED_BELOW = 0.15


def _ring_maps() -> tuple[np.ndarray, np.ndarray]:
    """Where :func:`symbol_shape` reads a FACE_CROP look (x, y maps for ``cv2.remap``: a
    row per ring of ``SYMBOL_RINGS``, ``SYMBOL_ANGLES`` points around it)."""
    centre = (FACE_CROP - 1) / 2
    a = np.linspace(0.0, 2 * np.pi, SYMBOL_ANGLES, endpoint=False)
    x = centre + SYMBOL_RINGS[:, None] * np.cos(a)[None]
    y = centre + SYMBOL_RINGS[:, None] * np.sin(a)[None]
    return x.astype(np.float32), y.astype(np.float32)


_RING_MAPS = _ring_maps()


def symbol_shape(look: np.ndarray) -> np.ndarray:
    """The shape of the symbol in a coin look centred in its FACE_CROP square (lightness,
    relative Lab, channel 0): per ring of ``SYMBOL_RINGS``, the strength of each of the first
    ``SYMBOL_HARMONICS`` harmonics around it (the lightness less its mean over the rings),
    as one unit vector. Turning the coin only shifts each ring's phases: the vector is the
    same at every turn and twist, so no facing is needed to compare suits by it.

    >>> look = np.zeros((FACE_CROP, FACE_CROP, 3), np.float32)
    >>> look[10:18, 14:22, 0] = -50.0  # a dark square north of the middle
    >>> turned = np.rot90(look).copy()
    >>> bool(np.allclose(symbol_shape(look), symbol_shape(turned), atol=1e-3))
    True
    """
    light = np.ascontiguousarray(look[..., 0], np.float32)
    rings = cv2.remap(light, *_RING_MAPS, cv2.INTER_LINEAR)
    spectrum = np.abs(np.fft.rfft(rings - rings.mean(), axis=1))[:, :SYMBOL_HARMONICS]
    v = spectrum.ravel()
    return v / max(float(np.linalg.norm(v)), 1e-6)


def _symbol_shapes(turned: dict, looks: PieceLooks) -> dict[str, np.ndarray]:
    """Each suit's learned fine look's :func:`symbol_shape` (its first turn of ``turned``:
    every turn gives the same), made once per turned looks."""
    hit = looks.extra.get("symbol_shapes")
    # Held with the looks it was made of, compared by identity (ids are reused).
    if (
        hit is None
        or hit[0].keys() != turned.keys()
        or any(hit[0][s] is not t for s, t in turned.items())
    ):
        shapes = {s: symbol_shape(t[0]) for s, t in turned.items()}
        hit = looks.extra["symbol_shapes"] = (dict(turned), shapes)
    return hit[1]


#: :func:`face_scores` and :func:`face_scores_batch` compute the same correlations, one by
#: OpenCV's and one by scipy's transforms: they differ by rounding alone (at most 2.4e-7 on
#: tune woodburned 0-24's 280 coins so read, 1e-4 on the tests' random windows). A turn
#: whose batch fit trails the best turn's by more than this (twice 5e-3) is never the best
#: of face_scores (on those 280 coins 839 of 840 other turns trailed so).
TURN_SLACK = 0.01
#: A best fit (turn and shift) of the batch's correlations that leads the next best by more
#: than this is face_scores' best fit too (rounding moves them 2.4e-7 at most, see
#: ``TURN_SLACK``); tune woodburned 0-5's 72 coins so read led by 0.0026 or more, and every
#: one was cut where face_scores cut it.
PEAK_SLACK = 1e-3


def _symbol_shape_lead(
    window: np.ndarray,
    leader: str,
    lead: float,
    suits: list[str],
    turned: dict,
    looks: PieceLooks,
    turn_fits: np.ndarray | None = None,
) -> tuple[str, float, float] | None:
    """The suit of ``suits`` whose learned symbol shape (:func:`symbol_shape`) is nearest
    the coin's in ``window``, its lead (cosine) over the next and its own cosine, or None
    where it is not weighed (the fine look's ``lead`` for ``leader`` is
    ``SHAPE_WEIGHED_BELOW`` or more). The coin is centred where the fine leader's look fits
    it best (any turn, any shift) as :func:`face_scores` has it: where the batch's
    correlations (:func:`best_fit_at`) lead the next best fit by more than ``PEAK_SLACK``,
    there; else by face_scores itself, with ``turn_fits`` (how well the leader's four turns
    fit ``window`` as :func:`face_scores_batch` has it, if known) a turn trailing the best
    by more than ``TURN_SLACK`` cannot fit best and is not correlated again."""
    if lead >= SHAPE_WEIGHED_BELOW:
        return None
    (y, x), by = best_fit_at(window, turned[leader])
    if by > PEAK_SLACK:  # face_scores' best fit too: cut there
        c = turned[leader].shape[1]
        coin = window[y : y + c, x : x + c]
    else:  # too close to tell through rounding: as face_scores has it
        near_best = None
        if turn_fits is not None:
            near_best = np.flatnonzero(turn_fits >= turn_fits.max() - TURN_SLACK).tolist()
        _, coin = face_scores(window, turned[leader], near_best)
    shape = symbol_shape(coin)
    learned = _symbol_shapes(turned, looks)
    near = {s: float(learned[s] @ shape) for s in suits}
    order = sorted(suits, key=near.get, reverse=True)
    return order[0], near[order[0]] - near[order[1]], near[order[0]]


def _suit_named(leader: str, lead: float, shape: tuple[str, float, float] | None) -> bool:
    """Whether a coin's suit is named ``leader``, its fine look's leader by ``lead``, given
    its symbol shape's read (suit, lead, cosine; None where not weighed, see
    :func:`_symbol_shape_lead`): past ``FINE_SUIT_LEAD`` unless the shape, fitting by
    ``SHAPE_FIT``, names another suit by ``SHAPE_SUIT_VETO``; under it, only where the shape
    names ``leader`` by ``SHAPE_SUIT_LEAD``, fitting by ``SHAPE_FIT``: the measures agree.

    >>> _suit_named("suns", 0.2, None), _suit_named("suns", 0.08, ("arms", 0.1, 0.96))
    (True, False)
    >>> sure, loose = ("suns", 0.05, 0.96), ("suns", 0.05, 0.9)
    >>> _suit_named("suns", 0.01, sure), _suit_named("suns", 0.01, loose)
    (True, False)
    """
    if shape is None:
        return lead >= FINE_SUIT_LEAD
    suit, by, fit = shape
    sure = fit >= SHAPE_FIT
    if lead >= FINE_SUIT_LEAD:
        return suit == leader or by < SHAPE_SUIT_VETO or not sure
    return suit == leader and by >= SHAPE_SUIT_LEAD and sure


def _suit_fits(
    members: list[tuple[CellDecision, np.ndarray]],
    suits: tuple[str, ...],
    turned: dict,
    looks: PieceLooks,
) -> np.ndarray:
    """How well each of ``suits``' fine faces fits each member's window (n, suits): the
    best of its four turns, and of those twisted each way (as :func:`read_twisted`) where
    the leader is not clear by ``FINE_TWIST_BELOW`` (the twisted reads cost twice as much
    again). All the suits' turns are one looks array (made once per faces): each
    window is transformed once (see :func:`face_scores_batch`). Each suit's scores, its
    turns and their twists, are held for the reads that follow (:func:`_remember`)."""
    faces = [turned[s] for s in suits]
    hit = looks.extra.get(("suit_faces", suits))
    # Held with the faces it was made of, and compared by identity (ids are reused).
    if hit is None or any(a is not b for a, b in zip(hit[0], faces, strict=True)):
        hit = looks.extra[("suit_faces", suits)] = (faces, np.concatenate(faces))
    stacked, k = hit[1], len(suits)
    windows = [w for _, w in members]
    turns = face_scores_batch(windows, [stacked] * len(windows), keep_maps=True)
    turns = turns.reshape(len(windows), k, -1)
    _remember(windows, faces, turns, stacked)
    fit = turns.max(axis=2)
    top = np.sort(fit, axis=1)
    again = np.flatnonzero(top[:, -1] - top[:, -2] < FINE_TWIST_BELOW)
    if len(again):
        askew = twisted(stacked, TWIST_DEG)  # both twists of every suit's turns, (2 * 4 k)
        more = face_scores_batch([windows[j] for j in again], [askew] * len(again))
        more = more.reshape(len(again), 2, k, -1)
        # As read_twisted twists a suit's turns: (2 * 4), the twists' turns in a row.
        bent = [twisted(f, TWIST_DEG) for f in faces]
        _remember([windows[j] for j in again], bent, more.transpose(0, 2, 1, 3))
        fit[again] = np.maximum(fit[again], more.max(axis=(1, 3)))
    return fit


def _remember(
    windows: list[np.ndarray],
    faces: list[np.ndarray],
    scores: np.ndarray,
    stacked: np.ndarray | None = None,
) -> None:
    """Hold each window's ``scores`` (n, suits, ...) with each suit's looks ``faces`` (see
    :func:`~piecebridge.vision.facing.remember_scores`): the facing of a coin whose suit was
    read so is read from the same correlations (:func:`read_facings`, :func:`read_twisted`)
    when its batch's transforms are as wide. With ``stacked`` (the faces in one array), each
    suit's fits at every shift too, where held for it (for :func:`best_fit_at`)."""
    size = fft_size(windows)
    for window, rows in zip(windows, scores, strict=True):
        maps = None if stacked is None else known_maps(window, stacked)
        for j, (face, row) in enumerate(zip(faces, rows, strict=True)):
            remember_scores(window, face, size, row.ravel())
            if maps is not None:
                t = len(face)
                remember_maps(window, face, maps[j * t : (j + 1) * t])


#: Lightness counts half as much as colour when pawns are told apart by colour: light and
#: shade change it more than they change a colour relative to the tile's.
_COLOUR_WEIGHTS = np.array([0.5, 1.0, 1.0], np.float32)
#: A pawn's colour names its suit when the nearest suit's pawn colour is at most this share
#: of the distance to the next one (tune split, 449 pawns: none named wrongly so).
PAWN_COLOUR_CLEAR = 0.5
#: A pawn whose colour is nearer another suit's than its look's by this share of the
#: distance to the next is left unknown (see :func:`_pawn_by_colour`).
PAWN_COLOUR_AGAINST = 0.8


#: A pawn beside a covered cell whose colour named its suit (see :func:`_pawn_by_colour`)
#: must fit this well (``PieceLooks.pawn_by_hand_similarity`` otherwise). Chosen on a small
#: sample (tune split, round 9: 4 pawns gained, none wrong; 0.75 measured the same).
PAWN_BY_HAND_NAMED = 0.8


#: A pawn whose colour named its suit (see :func:`_pawn_by_colour`) and whose look leads
#: every coin look by ``PieceLooks.leaning_pawn_margin`` will do at this fit (others need
#: ``leaning_pawn_similarity``): the colour is the suit's, the margin says it is no coin,
#: and the shape of a pawn leaning hard (near a corner under a tilted camera) fits its
#: upright look loosely. Tune (mixed 0-59, piecepackr 0-19, acrylic 0-9): 4 pawns at
#: 0.62-0.65 gained; the closest cell that was no pawn measured 0.56.
NAMED_PAWN_SIMILARITY = 0.6


def pawn_colour(crop: np.ndarray) -> np.ndarray:
    """The colour (lightness over the surround, a, b relative to the tile) of the part of a
    descriptor crop (CROP, CROP, 3) most unlike its surround: the pixels inside the look
    disc at least half as far from the surround's lightness and the tile's colour as the
    furthest tenth. The surround is the crop outside the disc (mostly tile).

    >>> crop = np.zeros((CROP, CROP, 3), np.float32)
    >>> crop[7:13, 7:13] = (-40.0, 5.0, -30.0)  # a dark blue body
    >>> pawn_colour(crop).round(1).tolist()
    [-40.0, 5.0, -30.0]
    """
    px = crop[_LOOK_INSIDE].astype(np.float32)
    ring = crop[~_LOOK_INSIDE, 0]
    px[:, 0] -= float(np.partition(ring, len(ring) // 2)[len(ring) // 2])  # its median
    far = np.sqrt((px * px).sum(axis=1))
    k = (9 * len(far)) // 10  # the furthest tenth starts here
    return px[far >= 0.5 * float(np.partition(far, k)[k])].mean(axis=0)


_LOOK_INSIDE = LOOK_MASK[..., 0] > 0.5


#: See :func:`hue_suit`: the colour terms name a suit when the nearest suit's are at most this
#: share of the distance to the next. Tune (acrylic 0-49, piecepackr 0-34, the pawn-like
#: cells whose lightness named no suit): of the pawns whose colour terms name another suit,
#: the nearest does so at 0.604 (an acrylic moons pawn taken for arms; the next at 0.82); at
#: 0.55, 65 acrylic and 11 piecepackr pawns are named, all right (0.5: 54 and 9; 0.6: 72, 14).
HUE_CLEAR = 0.55


def hue_suit(c: np.ndarray, colours: dict[str, np.ndarray], grey: np.ndarray) -> str | None:
    """The suit a pawn's colour names by its colour terms alone (a, b; see ``HUE_CLEAR``),
    unless that is the greyest suit's (its learned colour nearest ``grey``, where a colourless
    thing lies in the relative a, b of :func:`relative_lab`), else None.

    A pawn leaning far (near a corner, under a tilted camera) shows its side, in its own
    shade: far darker than its learned colour, so that the lightness (see
    :func:`_pawn_by_colour`) takes it for the darkest suit's. A shade dims a colour but
    keeps its hue, and moves it only toward grey: the colour terms still name a coloured
    suit, but may not name the greyest one (any deep shade turns grey). See ``HUE_CLEAR``
    for the tune figures (round 19).

    >>> colours = {"moons": np.array([-100.0, 10.0, 8.0]), "arms": np.array([-60.0, 8.0, -30.0])}
    >>> grey = np.array([12.0, 10.0])
    >>> hue_suit(np.array([-130.0, 9.0, -22.0]), colours, grey)  # a dark blue side
    'arms'
    >>> hue_suit(np.array([-130.0, 11.0, 6.0]), colours, grey) is None  # grey: any suit's shade
    True
    """
    dist = sorted((float(np.linalg.norm(c[1:] - v[1:])), s) for s, v in colours.items())
    if len(dist) < 2 or dist[0][0] > HUE_CLEAR * dist[1][0]:
        return None
    greyest = min(colours, key=lambda s: float(np.linalg.norm(colours[s][1:] - grey)))
    if dist[0][1] == greyest or _shade_of_another(c, dist[0], colours, grey):
        return None
    return dist[0][1]


#: See :func:`_shade_of_another`: the part of another suit's shade line weighed, as a share of
#: the way from its learned colour terms to grey. Near grey every suit's shade line meets the
#: others' (and the greyest suit is never named by hue anyway); a shade that leaves a pawn its
#: hue dims it part of the way. Tune (round 26; the colour terms of the cells weighed by hue
#: that lie nearer another suit's whole shade line than their nearest suit's colour): printplay
#: 0-49, 49/1 a8 (an arms tent read moons) at 0.37 of the way; woodburned 0-49, 28 pawns read
#: rightly (26 of them moons, near grey) at 0.69-1.0 of the way, and cells read unknown at
#: 0.48-0.61; mixed, acrylic, piecepackr 0-24: none at all.
SHADE_DEPTH = 0.6


def _shade_of_another(
    c: np.ndarray, nearest: tuple[float, str], colours: dict[str, np.ndarray], grey: np.ndarray
) -> bool:
    """Could a pawn's colour ``c`` be another suit's than the one its colour terms lie
    nearest (``nearest``: distance, suit), in shade? A shade dims a colour toward grey and
    keeps its hue: another suit's pawn in shade has its colour terms on the segment from
    that suit's learned ones toward ``grey`` (its shade line, ``SHADE_DEPTH`` of the way).
    Learned from one pose in the calibration photo, a folded pawn's colour is of that pose's
    light only: on a board whose black pawn's learned colour terms lie on the dark blue
    pawn's shade line (tune printplay rig 49), a dark blue tent turned from the light has
    the black one's hue. Such a colour is nearer that line than the suit it lies nearest.

    >>> colours = {"moons": np.array([-110.0, -2.0, -6.0]), "arms": np.array([-105.0, -2.0, -20.0])}
    >>> grey = np.array([-6.0, 10.0])
    >>> _shade_of_another(np.array([-90.0, -3.0, -9.0]), (3.2, "moons"), colours, grey)
    True
    >>> _shade_of_another(np.array([-90.0, 6.0, -3.0]), (8.5, "moons"), colours, grey)
    False
    """
    return any(
        shade_line_distance(c, v, grey) < nearest[0]
        for suit, v in colours.items()
        if suit != nearest[1]
    )


def shade_line_distance(c: np.ndarray, v: np.ndarray, grey: np.ndarray) -> float:
    """How far a pawn's colour terms (``c`` a, b; ``c[1:]``) lie from the shade line of a
    suit whose learned pawn colour is ``v`` (L, a, b): the segment from ``v``'s colour terms
    ``SHADE_DEPTH`` of the way toward ``grey`` (see :func:`_shade_of_another`).

    >>> c, blue = np.array([-90.0, 0.0, -10.0]), np.array([-50.0, 0.0, -30.0])
    >>> round(shade_line_distance(c, blue, np.array([0.0, 0.0])), 3)  # the line ends at -12
    2.0
    """
    span = grey - v[1:]
    t = float(np.dot(c[1:] - v[1:], span)) / max(float(np.dot(span, span)), 1e-9)
    t = min(max(t, 0.0), SHADE_DEPTH)
    return float(np.linalg.norm(c[1:] - (v[1:] + t * span)))


#: See :func:`in_shade_of`: a colour whose lightness names a suit lies in another suit's shade
#: when its colour terms lie within this share of their distance to the named suit's from
#: that suit's shade line. Round 28 (tune printplay and woodburned 0-49, acrylic 0-44, mixed
#: and the white hand 0-39, piecepackr 0-24; the pawn-like cells whose lightness named a suit
#: clearly): four wrong names lie at 0.06-0.26 (printplay 11/2 c2 and 30/3 c3, dark blue
#: tents read black; woodburned 36/2 h8, an olive pawn read ebonised, 5/0 b2 an ebonised
#: pawn read slate blue), with three pawns left unknown (0.03, 0.07) or read right (0.25)
#: whichever; the nearest cell above lies at 0.42 (an empty cell), the nearest pawn at 0.44.
SHADE_NEARER = 0.35


def in_shade_of(
    c: np.ndarray, suit: str, colours: dict[str, np.ndarray], grey: np.ndarray
) -> str | None:
    """The suit in whose shade a pawn's colour ``c`` lies though its lightness names ``suit``
    (the other suit whose shade line, :func:`shade_line_distance`, lies nearest its colour
    terms, when within ``SHADE_NEARER`` of their distance to ``suit``'s), else None.

    The lightness names the suit whose learned pawn is as dark, and a pawn turned from the
    light, or learned from its lit side, is darker than its own learned colour: a shaded
    olive (crowns) skittle is as dark as the ebonised (moons) one, a folded dark blue tent's
    shaded slope as the black tent. A shade keeps the hue, dimmed toward grey: the colour
    terms then lie on the shaded suit's line, far nearer it than the named suit's. The
    greyest suit's line (its learned colour terms nearest ``grey``) is left out: it runs
    by grey, where every suit's line ends and any dark colourless thing lies, and a shade
    names no suit there (as :func:`hue_suit` never names the greyest suit by hue).

    >>> colours = {"moons": np.array([-85.0, -2.0, -21.0]),
    ...            "crowns": np.array([-21.0, -14.0, -4.0])}
    >>> grey = np.array([7.5, -30.0])
    >>> in_shade_of(np.array([-96.0, -13.6, -8.5]), "moons", colours, grey)  # a dark olive
    'crowns'
    >>> in_shade_of(np.array([-96.0, -3.0, -19.0]), "moons", colours, grey) is None  # ebonised
    True
    """
    near = float(np.linalg.norm(c[1:] - colours[suit][1:]))
    greyest = min(colours, key=lambda s: float(np.linalg.norm(colours[s][1:] - grey)))
    lines = {
        s: shade_line_distance(c, v, grey) for s, v in colours.items() if s not in (suit, greyest)
    }
    shade = min(lines, key=lambda s: lines[s], default=None)
    return shade if shade is not None and lines[shade] < SHADE_NEARER * near else None


#: See :func:`_off_its_shade`: how far (relative a, b units) a pawn's colour terms must lie
#: from its look's suit's shade line, and how much nearer another suit's line (as a share),
#: for the look alone not to name that suit. Round 29 (tune woodburned and printplay 0-49,
#: 400-419 / 200-219, printplay 50-99; pawns whose colour named no suit): the look's suit
#: was wrong at 18.6-25.9 from its line (woodburned 9/1 a1, 408/1 a1, 409/0 h1: slate blue
#: skittles turned from the light, bluer than grey, read ebonised; printplay 92/0 a1, 210/1
#: h1) with another's line at 0.02-0.82 of that; the farthest pawn the look named rightly
#: with another line nearer lay at 17.3 (woodburned 35/2 g3).
OFF_SHADE_FAR = 18.0
OFF_SHADE_SHARE = 0.85


def _off_its_shade(
    d: CellDecision, c: np.ndarray, colours: dict[str, np.ndarray], grey: np.ndarray | None
) -> bool:
    """Is a pawn look's suit one whose pawn could not show the colour ``c``: its colour terms
    far (``OFF_SHADE_FAR``) from that suit's shade line (:func:`shade_line_distance`; a
    shade dims a colour toward grey only) and nearer another suit's (``OFF_SHADE_SHARE``)?
    The two dark suits' skittles fit each other's looks closely; a slate blue one turned
    from the light is as dark as the ebonised one, but its colour terms lie bluer than
    grey, where no shade of the ebonised one lies.

    >>> colours = {"moons": np.array([-122.0, -1.0, -21.0]), "arms": np.array([-45.0, -3.0, -32.0])}
    >>> grey = np.array([-4.5, -28.5])
    >>> d = CellDecision("a1", "pawn", suit="moons")
    >>> d.best = ("pawn", "moons")
    >>> _off_its_shade(d, np.array([-121.0, -4.5, -45.0]), colours, grey)
    True
    >>> _off_its_shade(d, np.array([-121.0, -2.0, -26.0]), colours, grey)
    False
    """
    if grey is None or d.best[0] != "pawn" or d.best[1] not in colours:
        return False
    own = shade_line_distance(c, colours[d.best[1]], grey)
    others = [shade_line_distance(c, v, grey) for s, v in colours.items() if s != d.best[1]]
    return own >= OFF_SHADE_FAR and min(others, default=own) < OFF_SHADE_SHARE * own


#: See :func:`_shade_line_suit`: a dark pawn's colour names the suit whose shade line lies
#: nearest when within this share of the next suit's line. Round 30 (tune woodburned 0-49,
#: 400-419, 420-444; printplay 0-99, 200-244; acrylic 0-24 and 50-99, mixed, white hand,
#: piecepackr 0-24; the dark pawn-like cells whose colour named no suit): with the other
#: gates, no right cell changed at 0.35-0.5; without them a moons pawn on arms' line lay at
#: 0.44 (printplay 8/0 a8, beyond the line's grey end).
SHADE_LINE_SHARE = 0.4
#: See :func:`_shade_line_suit`: at most this relative lightness (the pawn colour's L over
#: its surround). A light patch's colour terms (a tile lit unevenly, a light hand beside a
#: cell) lie anywhere; round 30 without this bound: empty cells and a coin at L -7 to -39
#: and two light arms skittles (L -24, +3) read as the suit of the line they lay on.
SHADE_LINE_DARK = -40.0
#: See :func:`_shade_line_suit`: the cell's best pawn look at least this close (a pawn, not a
#: shadow that is merely dark): round 30, an empty cell beside a hand (printplay 1/2 h7, 0.55)
#: read as the suns pawn below it; the mended wrong pawns fit at 0.80 and closer.
SHADE_LINE_LIKE = 0.65
#: See :func:`_shade_line_suit`: the named suit's pawn look within this much of the best
#: look. Acrylic's black pawns' colour terms lie on the dark blue pawn's line (tune acrylic
#: 57/1 d5, 90/1 d4: the black look led by 0.20-0.25) and were read dark blue without it;
#: the mended pawns' own looks lay 0.02-0.14 below the best (printplay 224/3 a8 and 57/0 h6
#: at 0.22, 35/2 g3 at 0.17 are left as they were).
SHADE_LINE_LOOK_GAP = 0.15


def _shade_line_suit(
    d: CellDecision,
    c: np.ndarray,
    sims: np.ndarray,
    labels: list[tuple],
    colours: dict[str, np.ndarray],
    grey: np.ndarray,
) -> str | None:
    """The suit a dark pawn's colour ``c`` names by the shade line it lies on, or None.

    A pawn turned from the light, or in a hand's shadow, is darker than its learned colour,
    so its lightness names no suit (or a darker one); a shade keeps the hue, dimmed toward
    ``grey``, so its colour terms stay on its own suit's shade line
    (:func:`shade_line_distance`). The nearest line names the suit when: it is far nearer
    than the next (``SHADE_LINE_SHARE``); the colour lies along it, not past its grey end
    (``SHADE_DEPTH`` of the way, where every line ends near the others); the colour is dark
    (``SHADE_LINE_DARK``: a light patch's colour terms are the tile's or the hand's); and
    the cell is plainly a pawn whose look of that suit fits nearly as well as its best
    (``SHADE_LINE_LIKE``, ``SHADE_LINE_LOOK_GAP``). Tune printplay: dark blue tents read
    black and black ones read dark blue, their looks a few hundredths apart.

    >>> colours = {"moons": np.array([-120.0, 5.0, -7.0]), "arms": np.array([-91.0, 3.0, -34.0])}
    >>> labels = [("pawn", "moons", None), ("pawn", "arms", None)]
    >>> d = CellDecision("h8", "pawn", suit="moons")
    >>> d.best, d.similarity = ("pawn", "moons"), 0.84
    >>> grey, near = np.array([3.0, -7.5]), np.array([0.84, 0.78])
    >>> _shade_line_suit(d, np.array([-121.0, 0.6, -20.2]), near, labels, colours, grey)
    'arms'
    >>> _shade_line_suit(d, np.array([-30.0, 0.6, -20.2]), near, labels, colours, grey) is None
    True
    >>> far = np.array([0.84, 0.60])  # the arms look well behind the moons one
    >>> _shade_line_suit(d, np.array([-121.0, 0.6, -20.2]), far, labels, colours, grey) is None
    True
    """
    if c[0] > SHADE_LINE_DARK or d.similarity < SHADE_LINE_LIKE:
        return None
    lines = sorted((shade_line_distance(c, v, grey), s) for s, v in colours.items())
    if len(lines) < 2 or lines[0][0] > SHADE_LINE_SHARE * lines[1][0]:
        return None
    suit = lines[0][1]
    span = grey - colours[suit][1:]
    along = float(np.dot(c[1:] - colours[suit][1:], span)) / max(float(np.dot(span, span)), 1e-9)
    fits = [float(sims[k]) for k, lb in enumerate(labels) if lb[:2] == ("pawn", suit)]
    own = max(fits, default=-1.0)
    if along > SHADE_DEPTH or own < d.similarity - SHADE_LINE_LOOK_GAP:
        return None
    return suit


def _pawn_by_colour(
    d: CellDecision,
    crop: np.ndarray,
    sims: np.ndarray,
    labels: list[tuple],
    looks: PieceLooks,
    grey: np.ndarray | None = None,
) -> None:
    """Name a pawn's suit by its colour when the colour is clear (see PAWN_COLOUR_CLEAR).

    Every suit's pawn has the same shape: its look fits by where the pawn leans (towards a
    corner under a tilted camera) as much as by its suit, and two dark suits (black, dark
    blue) can fit alike. The colour does not lean. When it names a suit, that suit's pawn
    look stands for the cell and competes only with the other kinds (the margin is over
    the best coin look); an unclear colour leaves the looks to decide as before. With
    ``grey`` (a colourless thing's relative a, b on this board), a colour whose lightness
    names no suit may still name one by its hue (see :func:`hue_suit`); and a lightness that
    names a suit names none when the colour terms lie in another suit's shade (see
    :func:`in_shade_of`: a pawn turned from the light is as dark as a darker suit's). A
    colour that names no suit still holds back a look whose suit's pawn could not show it
    (see :func:`_off_its_shade`); a dark one names the suit whose shade line it lies on,
    when the look agrees closely enough (see :func:`_shade_line_suit`).
    """
    colours = looks.pawn_colours(on_tone=True) if d.on_tone else looks.pawn_colours()
    c = pawn_colour(crop)
    d.hue_near = min(colours, key=lambda s: float(np.linalg.norm(c[1:] - colours[s][1:])))
    dist = sorted((float(np.linalg.norm((c - v) * _COLOUR_WEIGHTS)), s) for s, v in colours.items())
    if len(dist) < 2:
        return
    if dist[0][0] < PAWN_COLOUR_AGAINST * dist[1][0]:
        d.colour_suit = dist[0][1]
    clear = dist[0][0] <= PAWN_COLOUR_CLEAR * dist[1][0]
    shade = in_shade_of(c, dist[0][1], colours, grey) if clear and grey is not None else None
    if shade is not None:
        # Another suit's pawn in shade: the lightness names nothing, and the claim ranks
        # below one whose colour terms are the suit's (see _claim_rank).
        d.hue_near, clear = shade, False
    hue = None
    if not clear and grey is not None:
        hue = hue_suit(c, colours, grey)
        if hue is None:  # a dark pawn in shade: the line its colour terms lie on
            hue = _shade_line_suit(d, c, sims, labels, colours, grey)
        if hue is not None:
            d.colour_suit, clear = hue, True
            dist = [(0.0, hue)]
    if not clear:
        lean = shade is None and dist[0][0] < PAWN_COLOUR_AGAINST * dist[1][0]
        if (dist[0][1] != d.best[1] and lean) or _off_its_shade(d, c, colours, grey):
            # The colour leans to another suit than the look: neither names the suit (a
            # shaded light pawn fits a dark suit's look), though the cell is no less a piece.
            d.likeness, d.margin = d.similarity, 0.0
        return
    suit = dist[0][1]
    columns = looks.extra.get("pawn_columns")
    if columns is None or columns[0] is not labels:  # made once per templates
        pawn = {s: [k for k, lb in enumerate(labels) if lb[:2] == ("pawn", s)] for s in colours}
        other = [k for k, lb in enumerate(labels) if lb[0] != "pawn"]
        columns = looks.extra["pawn_columns"] = (labels, pawn, other)
    own = float(sims[columns[1][suit]].max())
    other = float(sims[columns[2]].max()) if columns[2] else -1.0
    d.likeness, d.colour_named = d.similarity, True
    d.best, d.similarity, d.margin = ("pawn", suit), own, own - other


def clear_pawn_colour(crop: np.ndarray, looks: PieceLooks) -> str | None:
    """The suit a crop's colour (:func:`pawn_colour`) names clearly as a pawn's
    (``PAWN_COLOUR_CLEAR``), of the pawn colours on either tile tone (``pawn_colours``: the
    set nearer the colour), else None."""
    c = pawn_colour(crop)
    best = None
    for colours in (looks.pawn_colours(), looks.pawn_colours(on_tone=True)):
        dist = sorted(
            (float(np.linalg.norm((c - v) * _COLOUR_WEIGHTS)), s) for s, v in colours.items()
        )
        if len(dist) > 1 and (best is None or dist[0][0] < best[0][0]):
            best = dist
    if best is None or best[0][0] > PAWN_COLOUR_CLEAR * best[1][0]:
        return None
    return best[0][1]


def _tone_columns(labels: list[tuple], looks: PieceLooks) -> tuple[list[int], list[int], list[int]]:
    """The template columns (of ``labels``) of the pawn looks made for the board's other tile
    tone (``ON_TONE``), of the pawn looks the calibration photo showed, and of the coins';
    made once per templates (kept in ``looks.extra``)."""
    hit = looks.extra.get("tone_columns")
    if hit is None or hit[0] is not labels:
        toned = [k for k, lb in enumerate(labels) if lb[0] == "pawn" and lb[2] == ON_TONE]
        plain = [k for k, lb in enumerate(labels) if lb[0] == "pawn" and lb[2] != ON_TONE]
        coins = [k for k, lb in enumerate(labels) if lb[0] != "pawn"]
        hit = looks.extra["tone_columns"] = (labels, toned, plain, coins)
    return hit[1], hit[2], hit[3]


def _on_other_tone(sims: np.ndarray, labels: list[tuple], looks: PieceLooks) -> bool:
    """Does a cell's best pawn fit come from a pawn look on the board's other tile tone
    (``PieceLooks.pawns_on_tone``)? Its colour is then weighed against the pawns' colours
    on that tone: a pawn's lightness is read over the tile around it (see
    :func:`pawn_colour`), and a silver pawn on pale maple is no lighter than the maple."""
    if not looks.pawns_on_tone:
        return False
    toned, plain, _ = _tone_columns(labels, looks)
    return bool(toned) and bool(plain) and float(sims[toned].max()) > float(sims[plain].max())


def _learned_fit(sims: np.ndarray, labels: list[tuple], looks: PieceLooks) -> float:
    """A cell's best fit of the looks the calibration photo showed (not the pawns' looks
    made for the other tile tone, see ``PieceLooks.pawns_on_tone``): a coin pushed off its
    cell's middle is looked for wider when none fits (see :func:`measure`); a dark coin off
    the middle of a pale cell is a dark blob there as a pawn on that tone is."""
    if not looks.pawns_on_tone:
        return float(sims.max())
    _, plain, coins = _tone_columns(labels, looks)
    return float(sims[plain + coins].max())


def _tile_under_lines(d: CellDecision, looks: PieceLooks) -> bool:
    """Is a cell whose printed lines are hidden still plainly an empty tile in its middle?

    A finger over the cell's border, or a hand's shadow, hides the lines beside an empty
    cell; a hand over the cell itself shows its own colour there (skin, a sleeve: off the
    tile's hue, or far off its lightness). So: no fine detail (no piece, no hand edge),
    the tile's colour once brought to the tile's lightness (a shadow darkens the tile, and
    so shrinks its Lab colour terms, without changing their ratio to the lightness), and a
    lightness a shadow could give. Not where the lines are hidden by something of the
    tile's own colour (``tile_cover``): a white glove over a white board is "plain tile".
    Nor where the per-pixel tile test takes all hidden line pieces for tile
    (``cover_as_tile``, see ``COVER_ALL_TILE``): what hides them passes for tile, and so
    may what lies over the cell's middle (tune mixed with a white hand, rigs 0-39: coins
    under the white hand's palm, 22/1 h8 and h7, 29/1 a7 and b6, read "empty") -- unless
    the lines show once the shadow over them is made up for (``shaded``): tile in a shadow
    is what hides them (that probe's 16/1 h4, 28/0 b7 and b8, 36/1 a6, empty cells in a
    hand's shadow; tune piecepackr 7/1 e7).
    """
    lo, hi = looks.covered_empty_light
    return (
        d.detail_ratio < looks.detail_empty
        and d.shade_tint < looks.covered_empty_tint
        and lo <= d.light_ratio <= hi
        and not d.tile_cover
        and (d.shaded or d.cover_as_tile < COVER_ALL_TILE)
    )


def _plain_piece(d: CellDecision, looks: PieceLooks) -> bool:
    """Does a cell whose lines are hidden still show a coin plainly (its look fits closely,
    far ahead of any other, and its facing is clear)? A hand's edge beside a coin, or a
    hand moving fast enough to blur, leaves the coin itself in view. Not a pawn: an arm
    or a finger's shadow can fit a dark pawn's look closely (tune split: 0.91)."""
    if d.best[:1] != ("coin",) or d.similarity < looks.covered_piece_similarity:
        return False
    if d.margin < looks.covered_piece_margin and not _turn_confirmed(d, looks):
        return False
    return d.facing is not None and facing_sure(d, looks)


def _turn_confirmed(d: CellDecision, looks: PieceLooks) -> bool:
    """Does a covered cell's coin confirm its own look, so that the usual kind/suit margin
    (``min_margin``) will do instead of ``covered_piece_margin``? Its fine look puts one turn
    far ahead (``CLEAR_FACE_LEAD``, the separate mark neither against it nor setting it):
    only that symbol's own detail lines up so. A hand or a shadow can fit a coin's coarse
    look closely, but in no turn in particular. Tune (mixed 0-79, piecepackr 0-34, acrylic
    0-49), covered cells fitting a coin look at ``covered_piece_similarity`` and leading by
    ``min_margin``, left unknown before this rule (round 14): of 268 that were not that coin
    (in suit or facing), none led in a turn by over 0.15; the 12 so confirmed (margins
    0.02-0.15, leads 0.33-0.94) were all right in suit and facing. Decided so, a coin is at
    most half sure (see :func:`decide`). Learned looks only, as :func:`_clear_face` (the
    drawn stand-ins model no art); not beside a hand or in its shadow (``lit_beside``,
    ``shaded``): such a cell is decided as in the open."""
    if not looks.learned or d.lit_beside or d.shaded or d.margin < looks.min_margin:
        return False
    return d.mark in (0, 1) and d.facing_margin >= CLEAR_FACE_LEAD


def _piece_in_the_shade(d: CellDecision, looks: PieceLooks) -> bool:
    """For a cell covered only as its lines look (``shaded``: in view once the shadow over
    them is made up for): would it be decided as a piece were its lines in view? If so,
    ``d`` is decided so (True). A coin or a pawn in a hand's shadow keeps its look, and
    the shadow (smooth) adds no detail to it; a hand over the cell shows none of a piece's
    looks closely. Not empty: a hand over a coin can be as plain as a tile (its colour is
    checked as for any covered cell, see :func:`_tile_under_lines`)."""
    open_ = decide(dataclasses.replace(d, covered=False), looks)
    if open_.kind not in ("coin", "pawn"):
        return False
    d.kind, d.suit, d.facing, d.confidence = open_.kind, open_.suit, open_.facing, open_.confidence
    return True


#: Lines washed out by glare (see :func:`_washed_out`): a covered cell at least this light
#: over the board's typical cell, whose colour is within ``WASHED_TINT`` of the tile's paled
#: toward white, or of its colour under glare as a camera records it, clipped
#: (``CellDecision.glare_tint``), and that is quiet (structure under ``empty_ratio``). Tune
#: (acrylic 0-49, mixed 0-99, piecepackr 0-34; see vision_reflec.md, rounds of the sixth and
#: seventh sessions: the clipped colours changed no threshold).
WASHED_LIGHT = 1.1
WASHED_TINT = 6.0
#: Lab lightness (8-bit) a washed-out line piece reaches: glare is light added over the
#: print, lifting a line and its tile alike (the 8-bit curve only narrows the step), so a
#: line fades away only where the camera's scale runs out. A white glove, sleeve or sheet
#: is as light and neutral, short of white. Tune (tenth session, lead): acrylic glare, 1040
#: glared cells, washed pieces at 246-255 for 95 % (3 cells under 240); a white hand over
#: mixed boards 103-239, pale skin 79-152 (both were read as glare: pieces under them empty).
GLARE_WHITE = 240.0
#: ``CellDecision.tile_cover``: at least this many of a cell's line pieces (of 8) hidden
#: (``COVER_PIECES_BESIDE`` for a cell lit beside a hand, of which only a few are), their
#: median tint (:func:`cover_tints`) under ``COVER_TINT`` and their lightness at least
#: ``COVER_LIGHT`` of the typical cell's (a hand's shadow darkens the lines it hides).
#: Tune (tenth session, lead), cells ``_tile_under_lines`` read empty: under a white hand on
#: mixed boards, 16 of its 19 pieces so (all 19 under 2.4); pieces elsewhere none; empty
#: cells in view, acrylic 5 of 203, mixed 0 of 58, piecepackr 0 of 15.
COVER_PIECES = 4
COVER_PIECES_BESIDE = 2
COVER_TINT = 2.5
COVER_LIGHT = 0.95
#: See ``CellDecision.cover_as_tile``: round 17's and round 18's plain-tile rules
#: (:func:`_tile_partly_seen`, :func:`_tile_beside_a_hand`) stand aside at this share.
COVER_AS_TILE = 0.5
#: ... and :func:`_tile_under_lines` at this share (all of them: the lines are hidden, yet
#: by nothing that test tells from tile). Tune (round 16, pawn16; with a setup): mixed with
#: a white hand 0-39, 4 coins under the palm read empty, all at 1.0; the empty cells so
#: read with the share at 0.5-0.8 (4 white-hand, 3 woodburned 0-24) are left as they were.
COVER_ALL_TILE = 0.95


def _washed_out(d: CellDecision, looks: PieceLooks) -> bool:
    """Were a covered cell's printed lines washed out by glare rather than hidden by a hand?

    Glare is light reflected off the board's surface, added over the print: the lines fade
    where it falls (on a glossy or translucent board, such as acrylic tiles, over whole
    cells), and the cell turns lighter than the typical cell while keeping the tile's hue,
    paled toward white. A hand over a cell shades it or shows its own hue (skin, a sleeve),
    and a piece under the glare still shows its structure."""
    return (
        d.light_ratio >= WASHED_LIGHT
        and d.glare_tint < WASHED_TINT
        and d.energy_ratio < looks.empty_ratio
    )


def _piece_in_the_glare(d: CellDecision, looks: PieceLooks) -> bool:
    """For a cell covered only as glare washed out its lines (``glared``, see
    :func:`washed_pieces`): would it be decided as a piece were its lines in view? If so,
    ``d`` is decided so (True). No hand is there; the piece shows its own look. A pawn must
    then fit its look as an open cell's must (``min_similarity``): glare pales its colour,
    which lets a pawn leaning far do with less (``leaning_pawn_similarity``). Not empty:
    a quiet cell is empty in glare only as :func:`_tile_in_glare` says (tune acrylic: an
    arms coin under glare read as an empty open cell).

    Round 16 (tune acrylic 0-49, with :func:`_plain_tile_in_glare`, the pawns decided as
    in the open beside glare and those the placed ones let be named): 31 coins, 46 pawns
    and 63 empty cells read, none wrong, no cell read before left unknown; mixed 0-79 and
    piecepackr 0-34 unchanged (see vision_reflec.md, ninth session)."""
    open_ = decide(dataclasses.replace(d, covered=False), looks)
    if open_.kind not in ("coin", "pawn"):
        return False
    if open_.kind == "pawn" and d.similarity < looks.min_similarity:
        return False
    d.kind, d.suit, d.facing = open_.kind, open_.suit, open_.facing
    d.confidence = min(open_.confidence, 0.5)  # glare pales its look: at most half sure
    return True


#: See :func:`_plain_tile_in_glare`: a cell under glare, without fine detail and as light as
#: the glare over its lines, is plain tile with its colour this far from the tile's under
#: glare (``glare_tint``). Glare is light added, uneven across a cell: the tile's own colour
#: under it strays further than over a cell that :func:`_washed_out` weighs whole (there
#: ``WASHED_TINT``). Round 22, tune acrylic 0-49, mixed 0-79, piecepackr 0-34, white hands
#: mixed 0-39, every such cell (detail under ``detail_empty``, structure under the textured
#: tile's, as light as the glare around): 631, all empty, 13 of them at 6.1-9.4; a colour
#: of its own (a pale hand, a sheet) from 12 (round 16's test). With 10 (not 6), 5 empty
#: cells left unknown are read (acrylic), none wrong. Fresh tune rigs (acrylic 50-69, mixed
#: 80-99, piecepackr 35-49, white hands 40-59): 291 such cells, all empty (10 at 6.3-8.5);
#: 8 cells read, 2 boards exact, none wrong.
GLARE_PLAIN_TINT = 10.0
#: Glare is smooth: plain tile under it is about as light as its own washed-out lines
#: (``CellDecision.glare_around``). A dark piece under the same glare stays darker (a drawn
#: black disc under glare 0.6: 0.86 of its lines' lightness; see the ninth session's review).
GLARE_EVEN = 0.95


def _plain_tile_in_glare(d: CellDecision, looks: PieceLooks) -> bool:
    """Is a cell covered only as glare washed out its lines (``glared``) plain tile? As a
    covered cell is (:func:`_tile_under_lines`), with the tile's colour under glare for its
    colour under a shadow: no fine detail, its colour within ``WASHED_TINT`` of the tile's
    paled or as glare over it records (``glare_tint``), and no more structure than a
    textured tile has (``textured_ratio`` x ``empty_ratio``: glare's own gradient adds
    some). Unlike :func:`_washed_out`, a cell of any lightness: the glare over its lines
    says it is glare. Round 16 (tune acrylic 0-49): 10 empty cells so read; the pieces
    under glare with so little detail (coins the renderer counts burnt out) had 3 x the
    structure or more, or a foreign colour. With :func:`glare_light`'s half way to white,
    63 empty cells in all. Round 22: its colour within ``GLARE_PLAIN_TINT`` (see there)."""
    return (
        d.detail_ratio < looks.detail_empty
        and d.glare_tint < GLARE_PLAIN_TINT
        and d.energy_ratio < looks.textured_ratio * looks.empty_ratio
        and d.light_ratio >= GLARE_EVEN * d.glare_around
    )


def _tile_in_glare(d: CellDecision, looks: PieceLooks) -> bool:
    """For a cell whose lines glare washed out (:func:`_washed_out`): is it empty as an open
    cell would be (no fine detail, the tile's colour)? If so, ``d`` is decided so, at most
    half sure (True). Only empty: a quiet cell is a piece only by a close fit of its look,
    and glare spoils the look."""
    open_ = decide(dataclasses.replace(d, covered=False), looks)
    if open_.kind != "empty":
        return False
    d.kind, d.suit, d.facing = "empty", None, None
    d.confidence = min(open_.confidence, 0.5)
    return True


def _as_in_the_open(d: CellDecision, looks: PieceLooks) -> bool:
    """For a cell beside a hand but not in its shadow (``lit_beside``): would it be decided
    were its lines in view? If so, ``d`` is decided so (True). With the drawn stand-in looks
    only as empty: their facing comes from the mark alone, which a hand's edge reaching into
    the cell can mislead (tune, no setup: a crowns coin's facing so misread); with learned
    looks a piece too (its facing is the look's, and beside a covered cell the mark may
    confirm it but not set it, see :func:`decide_all`)."""
    # (``lit_beside`` is kept: it still tells :func:`_clear_face` the cell is by a hand.)
    open_ = decide(dataclasses.replace(d, covered=False), looks)
    if open_.kind == "unknown" or (open_.kind != "empty" and not looks.learned):
        return False
    if open_.kind == "empty" and d.tile_cover:  # lit by a white cover, not beside one
        return False
    d.kind, d.suit, d.facing, d.confidence = open_.kind, open_.suit, open_.facing, open_.confidence
    return True


#: A coin look that fits only loosely (under a strongly coloured light, in a shadow, a coin
#: laid askew) still names its coin when the fine facing read of that suit's look is clear:
#: similarity at least ``CLEAR_FACE_SIMILARITY``, the usual kind/suit margin, and one turn
#: ahead of the others by ``CLEAR_FACE_LEAD`` on the look alone. Only the symbol's own
#: detail lines up in one turn so much better than in the rest; an empty cell, a pawn or
#: another suit's coin read with a coin look did not lead by 0.2 (tune split, mixed: 7 coins
#: at 0.58-0.69 led by 0.32-0.74, every cell not that coin by under 0.2: a small sample).
#: Round 15: the same floor as a pawn-like cell's coin look (``COIN_RIVAL_FIT``, was 0.55):
#: a coin whose own look is best at 0.35-0.55 is no less a coin than one a pawn's look beats
#: (tune mixed 0-79, piecepackr 0-34, acrylic 0-49, such cells in the open left unknown: one
#: coin, led by 0.79, right; ten others, empty cells and other suits or turns, by 0.05 at most).
CLEAR_FACE_SIMILARITY = COIN_RIVAL_FIT
#: ... and one so named while fitting under this (the floor before round 15) is at most
#: half sure, as the pawn-like cells' coins are.
CLEAR_FACE_SURE = 0.55
CLEAR_FACE_LEAD = 0.3


def _clear_face(d: CellDecision, looks: PieceLooks) -> bool:
    """Does a loosely fitting coin look name its coin by a clear facing read (see
    ``CLEAR_FACE_LEAD``)? Learned looks only (the drawn stand-ins model no art), never on a
    cell by a hand (``covered`` or ``lit_beside``: a hand's edge across a half-filled symbol
    lines up in one turn too), and on the look's own facing (``mark`` 0 or 1: the separate
    mark neither disagrees nor set it)."""
    return (
        looks.learned
        and not d.covered
        and not d.lit_beside
        and not d.shaded
        and d.mark in (0, 1)
        and d.similarity >= CLEAR_FACE_SIMILARITY
        and d.margin >= looks.min_margin
        and d.facing_margin >= CLEAR_FACE_LEAD
    )


def _own_pawn_alone(d: CellDecision, looks: PieceLooks) -> bool:
    """Is a coin-like cell held back only by its own suit's pawn look (its kind/suit
    ``margin`` under ``min_margin``, the nearest other look that pawn's) named by a clear
    turn? A pawn has no facing: as :func:`_coins_by_their_facing` the other way round, the
    coin's fine look leads one turn by ``CLEAR_FACE_LEAD`` on the look alone (``mark`` 0 or
    1), it fits at ``CLEAR_FACE_SIMILARITY`` and leads the other coin suits by
    ``min_margin`` (``suit_margin``), in the open. Round 15 (tune mixed 0-79, piecepackr
    0-34, acrylic 0-49): 8 such coins, all right, led by 0.60-0.85; the other cells so
    held back (empty, other suits) by 0.105 at most.

    >>> d = CellDecision("b7", "unknown", similarity=0.75, margin=0.017, suit_margin=0.33,
    ...                  facing="east", facing_margin=0.84, best=("coin", "moons"))
    >>> looks = PieceLooks({}, {}, learned=True)
    >>> _own_pawn_alone(d, looks), _own_pawn_alone(dataclasses.replace(d, suit_margin=-1.0), looks)
    (True, False)
    """
    return (
        d.margin < looks.min_margin
        and d.suit_margin >= looks.min_margin
        and _clear_face(dataclasses.replace(d, margin=d.suit_margin), looks)
    )


def _coin_suit_lead(d: CellDecision, looks: PieceLooks) -> float:
    """A coin-like cell's lead over the other coin suits' looks, whatever the other kinds'
    looks fit: ``suit_margin`` where its nearest other look is its own pawn's; where its
    suit was read from the fine look (:func:`_fine_suits`), the lesser of the fine look's
    lead (at least ``FINE_SUIT_LEAD``, else 0) and the coarse lead over the suits of other
    inks; -1 when neither was measured.

    >>> looks = PieceLooks({}, {}, learned=True)
    >>> d = CellDecision("c5", "unknown", similarity=0.85, best=("coin", "moons"),
    ...                  suit_fits=(0.5, 0.85, 0.6, 0.4), fine_lead=0.2)
    >>> round(_coin_suit_lead(d, looks), 3)
    0.2
    >>> _coin_suit_lead(dataclasses.replace(d, fine_lead=0.01), looks)
    0.0
    """
    if d.suit_margin >= 0:
        return d.suit_margin
    if not d.suit_fits or d.fine_lead < 0:
        return -1.0
    if d.fine_lead < FINE_SUIT_LEAD:
        return 0.0
    alike = ink_alike(looks).get(d.best[1], ())
    others = [
        f for s, f in zip(SUITS, d.suit_fits, strict=True) if s != d.best[1] and s not in alike
    ]
    return min(d.fine_lead, d.similarity - max(others, default=-1.0))


def _coin_past_pawn_looks(d: CellDecision, looks: PieceLooks) -> bool:
    """On a board of two tile tones (one that made ``pawns_on_tone``): is a coin-like cell
    held back only by a pawn's look (its kind/suit ``margin`` under ``min_margin``, its
    lead over the other coin suits, :func:`_coin_suit_lead`, at least that), as fine in
    detail as a coin (``PAWN_FINE_DETAIL``) and named by a clear turn (:func:`_clear_face`,
    in the open)? An ebonised coin is a dark disc, as a dark pawn's look made for the
    other tile tone is a dark blob there: the coin look leads it by a hair, yet a pawn's
    smooth body has neither the coin's printed detail nor a turn that lines up (as
    :func:`_own_pawn_alone`, for any pawn look). Tune checkered 0-24 (with a setup): 7
    coins so left unknown (leads 0.003-0.02 over the moons and arms pawns' looks, 6 of them
    made for the tile tone), turn leads 0.66-0.87, detail 12-17; the pawns in view whose
    best look is a coin led a turn by 0.12 at most.

    >>> looks = PieceLooks({}, {}, learned=True, pawns_on_tone={"moons": np.zeros((2, 2, 3))})
    >>> d = CellDecision("c5", "unknown", similarity=0.85, margin=0.007, best=("coin", "moons"),
    ...                  suit_fits=(0.5, 0.85, 0.6, 0.4), fine_lead=0.2, detail_ratio=16.8,
    ...                  facing="west", facing_margin=0.87)
    >>> _coin_past_pawn_looks(d, looks)
    True
    >>> _coin_past_pawn_looks(dataclasses.replace(d, detail_ratio=5.0), looks)
    False
    >>> _coin_past_pawn_looks(d, dataclasses.replace(looks, pawns_on_tone={}))
    False
    """
    if not looks.pawns_on_tone or d.best[:1] != ("coin",) or d.margin >= looks.min_margin:
        return False
    if d.detail_ratio <= PAWN_FINE_DETAIL:
        return False
    lead = _coin_suit_lead(d, looks)
    return lead >= looks.min_margin and _clear_face(dataclasses.replace(d, margin=lead), looks)


#: See :func:`_pawn_coloured`: a cell whose colour named a suit's pawn is no plain tile when
#: that colour, brought to the tile's lightness (``shade_tint``, a shadow's tint left out),
#: lies at least this far from the tile's. Tune woodburned 0-74, cells plain in detail
#: (under ``detail_empty``, not covered) whose colour named a pawn: the 4 pawns so read
#: empty (out of focus near the board's corners) at 20.9-39.5; the 20 empty cells in view
#: at 7.7 at most (one more, hidden under a hand, 20.5); the coins 10.0-21.0. Read after
#: choosing, tune 90-149: pawns 10.5 (left empty) and 28.6, empty cells in view 17.3 (left
#: unknown) and 10.8 down.
PAWN_SHADE_TINT = 15.0


def _pawn_coloured(d: CellDecision, looks: PieceLooks) -> bool:
    """Whether a cell's colour named a suit's pawn (``colour_named``, see
    :func:`_pawn_by_colour`) and is not the tile's in any shade (``PAWN_SHADE_TINT``): a
    pawn out of focus (near the board's corners) is as plain in fine detail as tile, and a
    one-colour set's pawns are of the tile's hue and lightness range, but a shadow does
    not change the tile's colour for its lightness, a pawn's body does. Only on a board of
    one tile tone: ``shade_tint`` is taken from the board's one tile colour, and the other
    tone of a two-tone board (``pawns_on_tone``) is no shade of it (tune checkered 0-24:
    90 empty cells of the dark tone would be left unknown, 3 read as a pawn)."""
    return d.colour_named and d.shade_tint >= PAWN_SHADE_TINT and not looks.pawns_on_tone


def decide(d: CellDecision, looks: PieceLooks) -> CellDecision:
    """Turn measurements into a verdict with a confidence, or ``unknown``.

    * a cell whose printed lines are hidden (a hand over it): unknown, unless plain tile
      (empty), a coin plainly in view, lit beside the hand, or with its lines in view once
      the shadow over them is made up for (``shaded``: a piece as in the open), or with
      them washed out by glare rather than hidden (``glared``: a piece as in the open, or
      plain tile under glare);
    * a cell of tile colour without fine detail (under ``detail_empty`` x its noise floor;
      smooth shading such as a shadow does not count): empty; "tile colour" also under a
      coloured light (``local_tint``: its middle the colour of the tile around it), but
      not a pawn's colour that is no shade of the tile's (:func:`_pawn_coloured`);
    * quiet cell (structure under ``empty_ratio`` x noise floor) of tile colour: empty;
    * a look that is similar enough and clearly ahead of other kinds/suits (and, for a coin,
      one turn clearly ahead): that piece;
    * a busier cell that still resembles no piece, of tile colour, up to
      ``textured_ratio`` x the empty threshold: empty (wood grain, a shadow edge);
    * anything else: unknown.
    """
    t = looks.empty_ratio
    # Off the tile's colour, unless a coloured light: the middle the colour of the tile
    # around it in the cell, its lines in view (a hand over the cell hides them) and no
    # structure (a lamp over plain tile leaves none; a hand's shading does).
    lamp = not d.covered and d.energy_ratio < t and d.local_tint < looks.covered_empty_tint
    foreign = d.tint > looks.max_empty_tint and not lamp
    if d.covered and _tile_under_lines(d, looks):
        d.kind, d.suit, d.facing, d.confidence = "empty", None, None, 0.5
        return d
    if d.covered and not _plain_piece(d, looks):
        if d.lit_beside and _as_in_the_open(d, looks):
            return d
        if _washed_out(d, looks) and _tile_in_glare(d, looks):
            return d
        if d.shaded and looks.learned and _piece_in_the_shade(d, looks):
            return d
        if d.glared and looks.learned and _piece_in_the_glare(d, looks):
            return d
        if d.glared and _plain_tile_in_glare(d, looks):
            d.kind, d.suit, d.facing, d.confidence = "empty", None, None, 0.5
            return d
        d.kind, d.suit, d.facing, d.confidence = "unknown", None, None, 0.0
        return d
    # ... and not darker than a shadow makes the tile: a black pawn out of focus is as
    # plain in detail (mixed tune shot 215 a8, 0.34 x the typical cell; empty cells 0.40 up).
    dark = d.light_ratio < looks.covered_empty_light[0]
    # ... nor of a pawn's colour that no shade of the tile takes (a pawn out of focus).
    foreign = foreign or _pawn_coloured(d, looks)
    if d.detail_ratio < looks.detail_empty and not foreign and not dark:
        d.kind, d.suit, d.facing = "empty", None, None
        d.confidence = float(np.clip(1.5 - d.detail_ratio / looks.detail_empty, 0.5, 1.0))
        return d
    # A quiet cell is empty unless a piece's look fits it closely (a low-contrast coin).
    # How like any piece the cell is (a pawn's colour may have named a suit whose own look
    # fits less well than another's: the cell is no less like a pawn for that).
    like = max(d.similarity, d.likeness)
    if d.energy_ratio < t and like < looks.strong_similarity:
        # Near the threshold, yet rather like a piece (a coin in low contrast): not empty.
        # (Far below it the similarity of a flat cell is only noise.)
        doubtful = d.energy_ratio >= 0.75 * t and like >= looks.quiet_max_similarity
        foreign = foreign or doubtful
        d.kind = "unknown" if foreign else "empty"
        d.confidence = 0.0 if foreign else float(np.clip(1.5 - d.energy_ratio / t, 0.5, 1.0))
        d.suit = d.facing = None
        return d
    kind, suit = d.best
    sure = d.similarity >= looks.min_similarity and d.margin >= looks.min_margin
    if kind == "pawn":
        # A pawn leaning far (near a corner, under a tilted camera) fits its upright look
        # less well, but still far better than any other look (not a look made for the
        # other tile tone: see _made_look_only).
        lean = NAMED_PAWN_SIMILARITY if d.colour_named else looks.leaning_pawn_similarity
        sure = sure or (d.similarity >= lean and d.margin >= looks.leaning_pawn_margin)
        sure = sure and not _made_look_only(d, looks) and not _fine_as_a_coin(d, looks)
    own_pawn = kind == "coin" and (_own_pawn_alone(d, looks) or _coin_past_pawn_looks(d, looks))
    if kind == "coin":
        sure = (sure or _clear_face(d, looks) or own_pawn) and facing_sure(d, looks)
    if sure:
        d.kind, d.suit = kind, suit
        c = min(d.margin / (3 * looks.min_margin), 1.0)
        if own_pawn:  # its own pawn's look fits nearly as well: at most half sure
            c = min(_coin_suit_lead(d, looks) / (3 * looks.min_margin), 0.5)
        if kind == "coin" and d.similarity < CLEAR_FACE_SURE:  # named by its turn alone
            c = min(c, 0.5)
        if kind == "coin":  # a facing set by the mark alone is not as sure
            lead = d.facing_margin if d.mark < 2 else looks.min_facing_margin
            c = min(c, lead / (3 * looks.min_facing_margin))
        if d.covered and d.margin < looks.covered_piece_margin:  # by _turn_confirmed
            c = min(c, 0.5)
        d.confidence = float(np.clip(c, 0.0, 1.0))
        if kind != "coin":
            d.facing = None
        return d
    d.suit = d.facing = None
    textured = d.energy_ratio < looks.textured_ratio * t and not foreign
    textured = textured and d.detail_ratio < looks.textured_max_detail
    if textured and like < looks.textured_max_similarity:
        d.kind, d.confidence = "empty", 0.5
        return d
    d.kind, d.confidence = "unknown", 0.0
    return d


#: Cells of a one-colour set that :func:`_coin_detail` weighs: structure at least this share
#: of the empty threshold and fine detail at least this share of ``detail_empty`` (plainer
#: cells are tile, or a coin hidden; the one-colour coins in view read as tile on tune
#: woodburned 0-49 and 90-149: 0.63 and 0.90 at least), and not read as a piece.
COIN_DETAIL_ENERGY = 0.6
COIN_DETAIL_FINE = 0.85
#: A cell so weighed is no tile when the best of the one-colour coins' fine looks (any turn)
#: fits it this well (:func:`_no_tile_where_a_coin_shows`). Tune woodburned 0-49 and 90-149:
#: the 19,795 empty cells read as empty fit them 0.45 at most; the 21 coins in view read as
#: tile 0.54 up (the hidden ones 0.45 at most).
COIN_DETAIL_SHOWN = 0.5
#: ... and it is that look's coin, at most half sure, when that look leads the other suits'
#: (best turn each) by ``DETAIL_SUIT_LEAD`` and its other turns by ``DETAIL_TURN_LEAD`` (fit,
#: as :func:`face_scores_batch`); else it is unknown. Those 21 coins: each one's best look
#: was its suit and facing, leading by 0.09-0.38 and 0.20-0.52 but two (0.02 / 0.15, 0.04 /
#: 0.09); the existing fine-suit reads lead 0.03 and more when right (FINE_SUIT_LEAD).
DETAIL_SUIT_LEAD = 0.1
DETAIL_TURN_LEAD = 0.2
#: A cell read as a pawn (by its look, :func:`decide`, or claimed by a pawn rule of
#: :func:`decide_all`) whose ``coin_detail`` is at least this is left unknown: a one-colour
#: coin's fine look fits it as it fits no pawn. Tune woodburned 0-74 and 90-149, cells
#: :func:`decide` reads as a pawn: the 1,496 pawns fit it 0.487 at most (13 at 0.45-0.49);
#: the coins so read fit it 0.36-0.79, the 3 of them a pawn at the end 0.551-0.729 (fresh
#: 1700-1712: one more, 0.584). As ``COIN_DETAIL_SHOWN``: what tile does not fit so.
#: Printplay 0-24 (one tone, one ink): its 299 pawns so measured 0.459 at most.
PAWN_COIN_DETAIL = COIN_DETAIL_SHOWN


def _a_coins_face(d: CellDecision, looks: PieceLooks) -> bool:
    """Whether a one-colour coin's fine look fits a cell as it fits no pawn
    (``PAWN_COIN_DETAIL``), on a board of one tile tone: on tune checkered 0-24 (two tones,
    ``pawns_on_tone``) the pawns fit those looks up to 0.69 (94 of 306 at 0.5 or more)."""
    return d.coin_detail >= PAWN_COIN_DETAIL and not looks.pawns_on_tone


def _coin_detail(cells: list[CellDecision], views: BoardViews, looks: PieceLooks) -> None:
    """Set ``coin_detail`` and ``detail_coin`` of each cell that may be taken for tile or
    a pawn (structure and fine detail as ``COIN_DETAIL_ENERGY`` and ``COIN_DETAIL_FINE``
    say, decided empty, unknown or a pawn on its own; see ``PAWN_COIN_DETAIL``) where the
    coins of some suits share their ink (see
    :func:`ink_alike`): how well the best of those suits' fine looks, any turn, fits the
    middle of the cell (as a coin's facing is read), and which look that is.

    A one-colour coin (woodburned: a symbol burnt into wood) in shadow or out of focus shows
    little structure and its coarse look is one brown blob: the coarse tests take it for
    wood grain. Its fine look still fits it far better than any tile's does, and than
    any pawn's: its coarse look, a brown disc, may be taken for a pawn's."""
    turned = looks.turned_faces()
    suits = [s for s, alike in ink_alike(looks).items() if alike and s in turned]
    if not suits:
        return
    # A pawn's too, where the fit can tell it from a coin (see _a_coins_face).
    kinds = ("empty", "unknown") if looks.pawns_on_tone else ("empty", "unknown", "pawn")
    todo = [
        d
        for d in cells
        if d.energy_ratio >= COIN_DETAIL_ENERGY * looks.empty_ratio
        and d.detail_ratio >= COIN_DETAIL_FINE * looks.detail_empty
        and decide(_copied(d), looks).kind in kinds
    ]
    if not todo:
        return
    faces = [turned[s] for s in suits]
    hit = looks.extra.get("coin_detail_faces")
    # Held with the faces it was made of, and compared by identity (ids are reused).
    if hit is None or [id(f) for f in hit[0]] != [id(f) for f in faces]:
        hit = looks.extra["coin_detail_faces"] = (faces, np.concatenate(faces))
    windows = [
        face_window(views, CELL_ORDER.index(d.cell), CENTRE_SHIFT, extra=FACE_WIDE) for d in todo
    ]
    fits = face_scores_batch(windows, [hit[1]] * len(windows)).reshape(len(todo), len(suits), -1)
    for d, fit in zip(todo, fits, strict=True):
        by_suit = np.sort(fit.max(axis=1))
        k = int(np.argmax(fit.max(axis=1)))
        turns = np.sort(fit[k])
        d.coin_detail = float(by_suit[-1])
        lead = float(by_suit[-1] - by_suit[-2]) if len(suits) > 1 else 0.0
        d.detail_coin = (
            suits[k],
            FACINGS[int(np.argmax(fit[k]))],
            lead,
            float(turns[-1] - turns[-2]),
        )


def _fine_coin(d: CellDecision) -> tuple[str, str] | None:
    """The one-colour coin (suit, facing) whose fine look fits a cell closely
    (``coin_detail`` at least ``COIN_DETAIL_SHOWN``) and leads the other suits' and its other
    turns clearly (``DETAIL_SUIT_LEAD``, ``DETAIL_TURN_LEAD``), else None.

    >>> _fine_coin(CellDecision("e4", "unknown", coin_detail=0.6,
    ...                         detail_coin=("moons", "east", 0.2, 0.3)))
    ('moons', 'east')
    >>> _fine_coin(CellDecision("e4", "unknown", coin_detail=0.6,
    ...                         detail_coin=("moons", "east", 0.2, 0.1))) is None
    True
    """
    if d.coin_detail < COIN_DETAIL_SHOWN or d.detail_coin is None:
        return None
    suit, facing, suit_lead, turn_lead = d.detail_coin
    clear = suit_lead >= DETAIL_SUIT_LEAD and turn_lead >= DETAIL_TURN_LEAD
    return (suit, facing) if clear else None


def _no_tile_where_a_coin_shows(cells: list[CellDecision]) -> None:
    """A cell decided empty whose fine look a one-colour coin's fits closely (``coin_detail``
    at least ``COIN_DETAIL_SHOWN``): tile does not fit it so. It is that coin, at most half
    sure, when that coin's look leads clearly (see :func:`_fine_coin`); else it is left
    unknown."""
    for d in cells:
        if d.kind != "empty" or d.coin_detail < COIN_DETAIL_SHOWN or d.detail_coin is None:
            continue
        coin = _fine_coin(d)
        if coin is not None:
            d.kind, d.suit, d.facing, d.confidence = "coin", *coin, 0.5
        else:
            d.kind, d.suit, d.facing, d.confidence = "unknown", None, None, 0.0


def _coins_by_their_fine_look(cells: list[CellDecision], looks: PieceLooks) -> None:
    """An undecided cell on a board of one tile tone is the one-colour coin whose fine look
    fits it closely and leads clearly (:func:`_fine_coin`), at most half sure, whether its
    lines are in view or under a hand's edge; not under glare, which burns out the print the
    fine look reads (and a calibration read back under glare must stay as it was, see
    ``test_vision_learn_round11``). Its coarse look (a brown or black disc) fitted too
    loosely, or fitted a pawn's best and its fine look dropped that pawn
    (``DROPPED_COIN_FACE``): the same measure and bounds that name a coin taken for tile
    name it here. Round 57, tune rigs 7000-7039 (cells left unknown, their lines in view,
    whatever their truth): every one that passed was that coin, woodburned 24, printplay 18;
    the non-coins left unknown fit 0.474 at most (printplay, an empty cell), their leads
    short. Covered cells too (the lead, the same rigs: about 30 more cells read, and on
    7100-7139 about 20, no cell newly wrong on either). On two tile tones (checkered) pawns
    fit these looks up to 0.69 (see :func:`_a_coins_face`): left as they are."""
    if looks.pawns_on_tone:
        return
    for d in cells:
        if d.kind != "unknown" or d.glared:
            continue
        coin = _fine_coin(d)
        if coin is not None:
            d.kind, d.suit, d.facing, d.confidence = "coin", *coin, 0.5
