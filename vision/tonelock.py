"""A lock check by tone for boards whose tiles show their cells by tone (checkered boards).

The reader's lock check (:func:`piecebridge.vision.locate.check_lock`) looks for printed lines;
a checkered board has none, so it says "moved" on almost every shot. Sought from scratch, the
board was reported moved at every such shot (a referee warns and forgets what it committed)
and some shots were refused though the board lay where the setup put it (tune checkered rigs
0-99: 14 of 400 shots). This module records, at calibration, how the board looked by tone
(:func:`tone_print`) and tells, at a shot, whether the locked pose still shows it in place
(:func:`in_place_by_tone`); the reader then keeps its lock:

- each tile's checker orientation (which of its two tones lies at its a1-side cell): a board
  moved by one cell shows every tile the other way round, or no checker at all;
- each side's edge row of cells alternating in tone with the recorded phase: a board moved by
  a tile (two cells) leaves one side's edge row over the table, and a bump by a fraction of a
  cell puts the samples across cell boundaries, where no alternation shows.

Cell tones are sampled near each cell's four corners, where a coin or pawn standing on the
cell's middle leaves the tile visible.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from piecebridge.calibration.pose import BoardPose

#: Cells of the board a side.
N = 8
#: Where in a cell (fraction of a cell from its north-west corner) the four tone samples lie:
#: near its corners, clear of a piece standing on its middle (a coin covers about 0.7 cell).
CORNER_AT = (0.15, 0.85)
#: Half-width (cells) of the little patch sampled round each corner point (3 x 3 points).
PATCH_HALF = 0.06
#: How clearly (fraction of the board's two-tone contrast) a tile's diagonal cells must both be
#: lighter (darker) than its other two cells for its checker orientation to count; and how
#: much two neighbouring cells of a side's edge row must differ to count as alternating. A
#: quarter leaves room for shading across a tile (tune checkered rigs 0-9: every tile of every
#: calibration photo cleared it).
CLEAR_FRACTION = 0.25
#: A board is fingerprinted only when at least 14 of its 16 tiles show their checker clearly
#: at calibration (a tile may lie partly off the photo: tune checkered rigs 1 and 80): a
#: board with printed lines on one-tone tiles shows none and keeps the lock check by lines.
PRINT_TILES = 14
#: Tiles that must show their recorded orientation at a shot (of 16): a hand or pieces hide
#: some (tune checkered still shots: 12-16 shown, e.g. rig 44 shot 3: 12); a bump by a
#: fraction of a cell shows at most 5 (loc24's bump frames, rigs 0-6).
MATCH_TILES = 10
#: Alternating neighbour pairs (of 7) each side's edge row must show at a shot: a board in
#: place shows 3-7 (a hand over a side hides some; tune checkered still shots); a board moved
#: by a tile shows 0-1 on the side it left, a bump by a fraction of a cell 0-2.
EDGE_PAIRS = 3


def _cell_tones(bgr: np.ndarray, pose: BoardPose) -> np.ndarray:
    """Grey tone of each cell (8 x 8, row = y south, column = x east): the median of its four
    corner patches' medians; NaN where a sample lies outside the photo."""
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    sub = np.linspace(-PATCH_HALF, PATCH_HALF, 3)
    jitter = np.stack(np.meshgrid(sub, sub), -1).reshape(-1, 2)
    corners = np.array([(x, y) for y in CORNER_AT for x in CORNER_AT])
    cells = np.array([(x, y) for y in range(N) for x in range(N)], float)
    pts = cells[:, None, None] + corners[None, :, None] + jitter[None, None]
    p = pose.to_image(pts.reshape(-1, 2)).astype(np.float32)
    h, w = grey.shape
    v = cv2.remap(grey, p[:, :1], p[:, 1:], cv2.INTER_LINEAR).ravel()
    inside = (p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)
    v = np.where(inside, v, np.nan).reshape(N * N, 4, len(jitter))
    with np.errstate(all="ignore"):
        return np.median(np.median(v, axis=2), axis=1).reshape(N, N)


def _tile_signs(tones: np.ndarray, clear: float) -> np.ndarray:
    """Each tile's checker orientation (4 x 4): +1 when its a1-side diagonal (its north-west
    and south-east cells) is lighter than its other two cells by ``clear``, -1 when darker,
    0 when neither (no checker shows, or a sample lies off the photo)."""
    t = tones.reshape(4, 2, 4, 2).transpose(0, 2, 1, 3)  # tile row, tile col, y, x
    diag = np.stack([t[..., 0, 0], t[..., 1, 1]])
    anti = np.stack([t[..., 0, 1], t[..., 1, 0]])
    with np.errstate(invalid="ignore"):
        up = diag.min(axis=0) - anti.max(axis=0) > clear
        down = anti.min(axis=0) - diag.max(axis=0) > clear
    return up.astype(int) - down.astype(int)


def _edge_pairs(tones: np.ndarray, phase: np.ndarray, clear: float) -> np.ndarray:
    """Alternating neighbour pairs along each side's edge row (north, south, west, east):
    pairs whose step in tone has the recorded checker's sign by more than ``clear``."""
    rows = (tones[0], tones[-1], tones[:, 0], tones[:, -1])
    signs = (phase[0], phase[-1], phase[:, 0], phase[:, -1])
    with np.errstate(invalid="ignore"):
        steps = [(r[1:] - r[:-1]) * s[1:] > clear for r, s in zip(rows, signs, strict=True)]
    return np.array([int(step.sum()) for step in steps])


def tone_print(bgr: np.ndarray, pose: BoardPose) -> dict[str, Any] | None:
    """The board's look by tone in the calibration photo, for :func:`in_place_by_tone`:
    ``tiles`` (16 checker orientations, row by row from the north-west tile; 0 for a tile
    not seen clearly) and ``contrast`` (grey levels between its two tones); None unless
    ``PRINT_TILES`` tiles show their checker clearly (not a board with printed lines)."""
    tones = _cell_tones(bgr, pose)
    t = tones.reshape(4, 2, 4, 2).transpose(0, 2, 1, 3)  # tile row, tile col, y, x
    steps = (t[..., 0, 0] + t[..., 1, 1] - t[..., 0, 1] - t[..., 1, 0]) / 2
    with np.errstate(all="ignore"):
        contrast = float(np.nanmedian(np.abs(steps)))  # tiles may lie either way round
    if not contrast > 0:
        return None
    signs = _tile_signs(tones, CLEAR_FRACTION * contrast)
    if int((signs != 0).sum()) < PRINT_TILES:
        return None
    return {"tiles": [int(s) for s in signs.ravel()], "contrast": round(contrast, 2)}


def in_place_by_tone(bgr: np.ndarray, pose: BoardPose, printed: dict[str, Any]) -> bool:
    """Whether the board recorded as ``printed`` (:func:`tone_print`) still lies at ``pose``
    in ``bgr``: no tile the other way round, at least ``MATCH_TILES`` tiles as recorded, and
    each side's edge row alternating in tone (``EDGE_PAIRS``)."""
    recorded = np.asarray(printed["tiles"], int).reshape(4, 4)  # 0: not seen, never matches
    clear = CLEAR_FRACTION * float(printed["contrast"])
    tones = _cell_tones(bgr, pose)
    signs = _tile_signs(tones, clear)
    seen = recorded != 0
    if (signs[seen] == -recorded[seen]).any() or int((signs == recorded)[seen].sum()) < MATCH_TILES:
        return False
    # The recorded checker's phase per cell: +1 where the lighter tone lies.
    tile_sign = np.kron(recorded, np.ones((2, 2), int))
    even = (np.add.outer(np.arange(N), np.arange(N)) % 2) == 0
    phase = np.where(even, tile_sign, -tile_sign)
    return bool(_edge_pairs(tones, phase, clear).min() >= EDGE_PAIRS)
