"""Which cells are covered by something big (a hand, an arm): the cell boundaries vanish.

Every tile's cross sits at a known place in the rectified board: printed lines, or (some art
draws its tiles' 2x2 grid by tone alone) steps between two tones. A coin sits inside its
cell and a pawn hides a short piece of a boundary at most, but a hand hides those of
several cells at once. Each cell is judged on the two cross-arm halves that border it,
sampled in short pieces; a piece is hidden when its cue (the ridge of a line, or the step
across it, as the set's calibration photo showed, see :func:`boundary_cue`) is much weaker
than the board's typical visible piece.

>>> import numpy as np
>>> hidden_fraction(np.full((400, 400), 200, np.uint8), 40, 0.5).shape
(64,)
"""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.calibration.geometry import N
from piecebridge.calibration.looks import BOUNDARIES

PIECES = 4  # samples along each half-arm next to a cell


def _samples(px: int, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """Sample windows (y0, y1, x0, x1) of every cell's bordering arm pieces, (64, 2*PIECES, 4),
    for cells in row-major order from the north-west."""
    m = round(margin * px)
    half = max(2, px // 12)
    out = np.zeros((N * N, 2 * PIECES, 4), int)
    for row in range(N):  # from the north
        for col in range(N):
            # The cross of this cell's tile runs along the cell side facing the tile centre.
            vx = m + (col + (1 if col % 2 == 0 else 0)) * px  # vertical arm x
            hy = m + (row + (1 if row % 2 == 0 else 0)) * px  # horizontal arm y
            y_top, x_left = m + row * px, m + col * px
            k = 0
            for p in range(PIECES):
                a = y_top + round((p + 0.5) * px / PIECES)
                out[row * N + col, k] = (a - px // 10, a + px // 10, vx - half, vx + half + 1)
                k += 1
            for p in range(PIECES):
                a = x_left + round((p + 0.5) * px / PIECES)
                out[row * N + col, k] = (hy - half, hy + half + 1, a - px // 10, a + px // 10)
                k += 1
    return out, np.array([m])


_CACHE: dict[tuple[int, float], tuple[np.ndarray, ...]] = {}


def _index(px: int, margin: float) -> tuple[np.ndarray, ...]:
    """Fancy-index arrays of every sample: centre rows/cols and the search offsets."""
    win = _samples(px, margin)[0]
    cy = (win[..., 0] + win[..., 1]) // 2
    cx = (win[..., 2] + win[..., 3]) // 2
    half = max(2, px // 12)
    off = np.arange(-half, half + 1)
    vertical = np.zeros(win.shape[:2], bool)
    vertical[:, :PIECES] = True
    return cy, cx, off, vertical


def hidden_fraction(gray: np.ndarray, px: int, margin: float) -> np.ndarray:
    """Share (0..1) of each cell's bordering cross-arm pieces that are hidden, (64,)."""
    return hidden_share(line_strengths(gray, px, margin), px)


def hidden_share(
    strengths: tuple | None,
    px: int,
    light: np.ndarray | None = None,
    seen: np.ndarray | None = None,
    white: np.ndarray | None = None,
) -> np.ndarray:
    """Share (0..1) of each cell's line pieces hidden (64,), from :func:`line_strengths`:
    much weaker than the board's typical piece, and printed. With ``light`` (the board's Lab
    lightness, 8-bit) each strength is first taken relative to the light falling there (see
    :func:`shade_scale`); with ``seen`` ((64, pieces) bool) those pieces count as in view
    however weak (washed out by glare, see :func:`hidden_pieces`); with ``white`` (the Lab
    lightness of a board whose printed lines are lighter than its tiles) each strength is
    taken relative to the room left between the tile and white (see :func:`white_room`).
    Nothing is hidden where no lines show at all (``None``)."""
    if strengths is None:
        return np.zeros(N * N)
    hidden, printed = hidden_pieces(strengths, px, light, white)
    if seen is not None:
        hidden = hidden & ~seen
    return (hidden & printed).sum(axis=1) / np.maximum(printed.sum(axis=1), 1)


def hidden_pieces(
    strengths: tuple,
    px: int,
    light: np.ndarray | None = None,
    white: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Which line pieces are hidden, and which are printed ((64, pieces) bool each), from
    :func:`line_strengths` (``light`` and ``white`` as in :func:`hidden_share`)."""
    vals, cy, cx = strengths
    if light is not None:
        vals = vals / shade_scale(light, cy, cx, px)
    typical = float(np.percentile(vals, 75))
    hidden = vals < 0.35 * typical
    # Some art stops its crosses short of the tile edge: a piece hidden on most cells of
    # the same kind (same place relative to its tile) is not printed, and is not judged.
    printed = ~_mostly(hidden)
    if white is not None:  # weighed against the typical piece as it shows, and as printed
        hidden &= vals / white_room(white, cy, cx, px) < 0.35 * typical
    return hidden, printed


def line_strengths(
    gray: np.ndarray, px: int, margin: float, cue: str = BOUNDARIES[0]
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Each cell's bordering boundary pieces' strength (64, pieces) and the pieces' centres
    (rows, columns); None when no boundary shows anywhere (nothing can be judged).

    ``cue`` (see :func:`boundary_cue`): ``lines``, the ridge of a printed line (dark on
    ``gray``); ``steps``, the step in tone across the boundary.
    """
    key = (px, margin)
    if key not in _CACHE:
        _CACHE[key] = _index(px, margin)
    index = _CACHE[key]
    vals = (_steps if cue == "steps" else _ridges)(gray, px, index)
    if float(np.percentile(vals, 75)) < NO_BOUNDARY:  # no boundary anywhere
        return None
    return vals, index[0], index[1]


#: A board whose typical boundary piece (75th percentile) is weaker than this (8-bit
#: lightness: a line's depth, or a step's) shows no boundary at all: nothing is judged.
NO_BOUNDARY = 8


def _ridges(gray: np.ndarray, px: int, index: tuple[np.ndarray, ...]) -> np.ndarray:
    """Each piece's printed-line ridge (64, pieces): the black-hat of ``gray`` (``index``:
    :func:`_index`'s)."""
    cy, cx, off, vertical = index
    k = max(3, round(px * 0.25) | 1)
    ridge = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, np.ones((k, k), np.uint8))
    length = max(3, px // 5)
    h, w = ridge.shape
    # Strongest ridge across each piece (the line may sit a pixel or two off), averaged
    # along the arm over ``length`` pixels; summed out to a tile's shift (see _along_arm).
    half = (len(off) - 1) // 2
    alone = max(half + 1, round(SHIFTED_ARM * px))
    wide = max(alone, round(SHIFTED_TILE * px))
    sums = _arm_sums(ridge, cy, cx, np.arange(-wide, wide + 1), length)
    if sums is not None:
        # cv2.blur's box mean at the samples alone: whole sums of 8-bit values and the
        # same division (double, then float32): the same values.
        vals = np.empty(cy.shape, np.float32)
        vals[:, :PIECES], vals[:, PIECES:] = (
            _along_arm(s, half, alone, partner) * (1.0 / length)
            for s, partner in zip(sums, _ARM_PARTNERS, strict=True)
        )
        return vals
    # A box reaching past the picture's edge (a small margin): blur it all (no shift).
    ridge = ridge.astype(np.float32)
    along_y = cv2.blur(ridge, (1, length))  # averaged along a vertical arm
    along_x = cv2.blur(ridge, (length, 1))
    v = along_y[cy[..., None], np.clip(cx[..., None] + off, 0, w - 1)].max(axis=-1)
    hz = along_x[np.clip(cy[..., None] + off, 0, h - 1), cx[..., None]].max(axis=-1)
    return np.where(vertical, v, hz)


#: The step across a boundary piece is the difference of the mean tone on its two sides,
#: sampled these shares of a cell from the boundary (3 and 6 px at FACE_PX 40; 3 px wide,
#: the boundary searched a pixel either way), the larger step kept: the far sides still
#: straddle the boundary of a tile laid off the raster (``SHIFTED_ARM``, 5 px), and the near
#: ones lie inside a coin's rim where a coin sits near the boundary. A printed line (some
#: 3 px wide, centred) darkens both sides alike: no step.
STEP_REACHES = (0.075, 0.15)


def _steps(gray: np.ndarray, px: int, index: tuple[np.ndarray, ...]) -> np.ndarray:
    """Each piece's step in tone across the boundary (64, pieces): the largest difference of
    the two sides' means (each over ``length`` pixels along the arm and ``2 band + 1``
    across it, at each of ``STEP_REACHES`` from the boundary) with the boundary within
    ``search`` pixels of the raster's."""
    cy, cx = index[:2]
    reaches = [max(2, round(r * px)) for r in STEP_REACHES]
    band = search = max(1, px // 40)
    far = search + max(reaches) + band
    length = max(3, px // 5)
    sums = _arm_sums(gray, cy, cx, np.arange(-far, far + 1), length)
    if sums is None:  # a box past the picture's edge: cv2.blur's (reflected) instead
        sums = _blurred_sums(gray, cy, cx, np.arange(-far, far + 1), length)
    vals = np.zeros(cy.shape, np.float32)
    width = 2 * band + 1
    for k, s in enumerate(sums):
        run = np.zeros((*s.shape[:-1], s.shape[-1] + 1))  # float64: whole sums stay exact
        np.cumsum(s, axis=-1, out=run[..., 1:])
        sides = run[..., width:] - run[..., :-width]  # band i centred on offset i - far + band
        piece = vals[:, k * PIECES : (k + 1) * PIECES]
        for reach in reaches:  # a boundary at offset o: sides centred on o -/+ reach
            lo = sides[..., far - band - reach - search : far - band - reach + search + 1]
            hi = sides[..., far - band + reach - search : far - band + reach + search + 1]
            np.maximum(piece, np.abs(hi - lo).max(axis=-1) / (width * length), out=piece)
    return vals


def _blurred_sums(
    gray: np.ndarray, cy: np.ndarray, cx: np.ndarray, off: np.ndarray, length: int
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_arm_sums` where a box reaches past the picture: from ``cv2.blur`` (its edge
    reflected), as sums over ``length`` (the same where no box reaches past it).

    >>> gray = np.random.default_rng(0).integers(0, 256, (360, 360)).astype(np.uint8)
    >>> cy, cx = _index(40, 0.5)[:2]
    >>> off = np.arange(-3, 4)
    >>> [bool(np.allclose(a, b)) for a, b in zip(
    ...     _blurred_sums(gray, cy, cx, off, 8), _arm_sums(gray, cy, cx, off, 8))]
    [True, True]
    """
    h, w = gray.shape
    img = gray.astype(np.float32) * length
    along_y, along_x = cv2.blur(img, (1, length)), cv2.blur(img, (length, 1))
    v = along_y[cy[:, :PIECES, None], np.clip(cx[:, :PIECES, None] + off, 0, w - 1)]
    hz = along_x[np.clip(cy[:, PIECES:, None] + off, 0, h - 1), cx[:, PIECES:, None]]
    return v, hz


def boundary_cue(gray: np.ndarray, px: int, margin: float, empty: np.ndarray) -> str:
    """What shows the cell boundaries on a set's tiles (see :func:`line_strengths`), from
    its calibration photo (``gray``: the rectified board, lines dark; ``empty``: (64,) bool,
    the layout's empty cells): ``steps`` where tone steps show the boundary plainly
    (``STEPS_APART``) and printed lines do not (``LINES_APART``), else ``lines`` (as without
    a setup). How far apart a cue stands: its weaker pieces on the empty cells' boundaries
    (``CUE_QUANTILES``) over the stronger ones of the same pieces moved half a cell, into the
    cells' middles, where no boundary is.
    """
    key = (px, margin)
    if key not in _CACHE:
        _CACHE[key] = _index(px, margin)
    cy, cx, off, vertical = _CACHE[key]
    half = px // 2  # each piece moved half a cell into its cell: across its arm
    middles = (cy - np.where(vertical, 0, half), cx - np.where(vertical, half, 0), off, vertical)
    apart = {}
    for cue, strengths in (("lines", _ridges), ("steps", _steps)):
        on = np.percentile(strengths(gray, px, (cy, cx, off, vertical))[empty], CUE_QUANTILES[0])
        off_ = np.percentile(strengths(gray, px, middles)[empty], CUE_QUANTILES[1])
        apart[cue] = float(on) / max(float(off_), 1.0)
    tone_alone = apart["steps"] >= STEPS_APART and apart["lines"] < LINES_APART
    return "steps" if tone_alone else "lines"


#: Percentiles (boundary pieces, middles) :func:`boundary_cue` compares ...
CUE_QUANTILES = (25, 90)
#: ... and how far apart they stand where the cue shows the boundary. Tune calibration photos
#: 0-24, printed lines: 2.0-4.3 x on mixed, 4.2-10.1 on printplay, 0.9-4.7 on acrylic (its
#: clear tiles), 0.5-0.8 on checkered (no line: its "ridges" are the wood's grain) ...
LINES_APART = 1.5
#: ... steps: 6.7-14.8 x on checkered; 0.3-1.6 on acrylic, 0.5-2.4 on printplay and 1.9-10.0 on
#: mixed (the near bands graze a printed line's edge: lines show there, and are kept).
STEPS_APART = 4.0


#: Lab lightness (8-bit) of black: L* = L / 2.55, and L* + 16 is the cube root of the light.
_L_BLACK = -16 * 2.55
#: Shadows deeper than this share of the board's typical light (in L* + 16, a cube root) are
#: not made up for: a dark sleeve is no shadow, and its faint texture must not count as lines.
SHADE_FLOOR = 0.7


def shade_scale(light: np.ndarray, cy: np.ndarray, cx: np.ndarray, px: int) -> np.ndarray:
    """How much light falls on each sample (``cy``, ``cx``) relative to the board's typical
    sample: the local mean Lab lightness as L* + 16, over its 75th percentile, kept within
    ``SHADE_FLOOR`` and 1 (a bright spot, glare, is light added over the print, not a
    brighter print: its lines are not made weaker than they look).

    A shadow scales the light a printed line and its tile send back alike; in CIE Lab both
    L* + 16 scale as its cube root, so a line's depth (tile minus line, L*) scales as the
    local L* + 16 does (as ``cells.shade_tints`` argues for colour).

    >>> light = np.full((40, 40), 200, np.uint8)
    >>> light[:, 20:28], light[:, 32:] = 160, 100  # a light shadow and a deep one
    >>> cy, cx = np.full((1, 4), 20), np.array([[5, 10, 24, 36]])
    >>> [round(float(v), 2) for v in shade_scale(light, cy, cx, 8)[0]]  # (160 + 40.8) / 240.8
    [1.0, 1.0, 0.83, 0.7]
    """
    k = max(3, px // 2 | 1)
    local = cv2.blur(light, (k, k))[cy, cx].astype(np.float32) - _L_BLACK
    typical = float(np.percentile(local, 75))
    return np.clip(local / typical, SHADE_FLOOR, 1.0)


#: A light line's room to white (see :func:`white_room`) is made up for only where it is
#: under ``WHITE_ROOM_KNEE`` of the board's typical room (the tile lit near white), and at
#: most down to ``WHITE_ROOM_FLOOR`` of it (a line there counts as seen once it shows
#: ``WHITE_ROOM_FLOOR`` of the strength the plain test asks). Tune (5th-95th percentiles),
#: pieces hidden under a hand (renderer's share at least 0.3) at 1.1-2.5 x the
#: typical room on acrylic 1500-1549 (skin is darker than the lit tile) and 0.66-2.0 x
#: with a white hand (acrylic 0-24); those of cells read covered with nothing over them
#: at 0.02-1.5 x, three in four under 0.31 x (glare and strong light). A white hand's
#: own pieces keep over the knee: the measure tells a lit tile from it by how near white
#: it is, and no more (a hand lit as white as glare reads as glare; a line washed fully
#: out stays hidden, for the glare rules of ``cells``). With the knee at 1 (every room weighed),
#: two coins under a white hand's palm (acrylic 0-24, 0:d3, 0:e3) read empty.
WHITE_ROOM_FLOOR = 0.3
WHITE_ROOM_KNEE = 0.5


def white_room(light: np.ndarray, cy: np.ndarray, cx: np.ndarray, px: int) -> np.ndarray:
    """How much room a light printed line has above its tile at each sample (``cy``,
    ``cx``), relative to the board's typical sample: white (8-bit 255) less the local mean
    Lab lightness, over ``WHITE_ROOM_KNEE`` of its median, kept within ``WHITE_ROOM_FLOOR``
    and 1.

    A line lighter than its tile (acrylic's white crosses on its pale clear tiles) can be
    no lighter than white: where strong light or glare lifts the tile near white, the line
    keeps less step over it however plainly it is printed, and would read hidden as under
    a hand. A hand over the lines shows skin or a sleeve, darker than the lit tile: its
    room stays over the knee, and its pieces are judged as they show.

    >>> light = np.full((40, 40), 200, np.uint8)
    >>> light[:, 20:28], light[:, 32:] = 245, 252  # tile lit near white, and nearer
    >>> cy, cx = np.full((1, 5), 20), np.array([[5, 10, 15, 24, 36]])
    >>> [round(float(v), 2) for v in white_room(light, cy, cx, 8)[0]]  # 10 / (0.5 x 55)
    [1.0, 1.0, 1.0, 0.36, 0.3]
    """
    room = 255.0 - _box_means(light, cy, cx, max(1, px // 4))
    typical = max(float(np.median(room)), 1.0) * WHITE_ROOM_KNEE
    return np.clip(room / typical, WHITE_ROOM_FLOOR, 1.0)


def _box_means(img: np.ndarray, cy: np.ndarray, cx: np.ndarray, r: int) -> np.ndarray:
    """Mean of ``img`` over the box ``r`` pixels each way around each sample (cut at the
    picture's edge), from its integral: a whole-picture blur costs several times as much.

    >>> img = np.arange(36, dtype=np.uint8).reshape(6, 6)
    >>> _box_means(img, np.array([[2, 0]]), np.array([[3, 0]]), 1).tolist()
    [[15.0, 3.5]]
    """
    key = (img.shape, r, cy.tobytes(), cx.tobytes())
    try:  # one lookup: another thread may clear the cache meanwhile
        corners, area = _BOXES[key]
    except KeyError:
        if len(_BOXES) >= 8:
            _BOXES.clear()
        h, w = img.shape
        y0, y1 = np.clip(cy - r, 0, h), np.clip(cy + r + 1, 0, h)
        x0, x1 = np.clip(cx - r, 0, w), np.clip(cx + r + 1, 0, w)
        # Flat indices into the integral ((h + 1) x (w + 1)): added, less, less, added.
        corners = np.stack([y1 * (w + 1) + x1, y0 * (w + 1) + x1, y1 * (w + 1) + x0,
                            y0 * (w + 1) + x0])  # fmt: skip
        corners, area = _BOXES[key] = corners, ((y1 - y0) * (x1 - x0)).astype(np.float32)
    c = cv2.integral(img).ravel()[corners]
    return (c[0] - c[1] - c[2] + c[3]) / area


_BOXES: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


#: A tile laid a little off the raster (hands lay tiles with small gaps and slight shifts)
#: puts its cross's arm up to this share of a cell (5 px at FACE_PX 40) from where the
#: raster has it: past the search across a piece (``px // 12`` each way), so that its cells
#: read as covered (their lines "hidden" by the tile itself). See :func:`_along_arm`.
SHIFTED_ARM = 0.125
#: A tile laid farther off, up to this share of a cell (8 px at FACE_PX 40), moves both
#: halves of its arm (its two cells along it) alike: a half-arm found that far out counts
#: only where the arm's other half is found there too (see :func:`_along_arm`). Tune
#: printplay 29 (all four shots): the south-west tiles' vertical arms 7-9 px east of the
#: raster, eight empty cells a shot read covered with nothing over them.
SHIFTED_TILE = 0.2
#: Two halves of one arm are one straight arm when found within this many pixels of each
#: other (a tile twisted by 1.8 degrees, the renderer's most, turns its arm 1.3 px over a cell).
ARM_HALVES_APART = 2
#: ... and as plainly: the weaker half's line at least this share of the stronger's (one
#: printed arm; a half under a hand shows no line, only texture found somewhere).
ARM_HALVES_LIKE = 0.5


def _along_arm(sums: np.ndarray, half: int, alone: int, partner: np.ndarray) -> np.ndarray:
    """Each piece's strongest ridge (64, PIECES) from its sums at offsets ``-w..w`` across
    the line (64, PIECES, 2w + 1): the strongest within ``half`` of where the raster has the
    line; or, where every piece of the half-arm has its strongest farther out and all at one
    offset (within a pixel), that one: within ``alone`` of the raster's line on its own, and
    farther out (``SHIFTED_TILE``) only where the arm's other half (the cell ``partner``
    names, (64,)) is found so too, within ``ARM_HALVES_APART`` of it. A tile laid off the
    raster moves its whole arm, and the arm stays straight; a hand's edge or shadow beside
    hidden lines seldom runs so. Round 21 (tune acrylic 0-49: 7 empty cells of shifted tiles
    no longer covered; mixed 0-79, with a white hand 0-39: the same, cell for cell;
    ``px // 8`` searched for every piece alone, the same 7 but 2 and 1 coins under a hand
    read empty); round 53 the whole arm farther out (see ``SHIFTED_TILE``).

    >>> s = np.zeros((64, PIECES, 15), np.int32)
    >>> s[0, :, 11] = 500  # cell 0's whole half-arm 4 px off, straight
    >>> s[1, :2, 11], s[1, 2:, 3] = 500, 500  # cell 1's two halves 8 px apart: no arm
    >>> s[2:4, :, 14] = 500  # cells 2 and 3: both halves of one arm 7 px off
    >>> s[4, :, 14] = 500  # cell 4: its half 7 px off, its arm's other half (5) not
    >>> s[:6, :, 7] = 100
    >>> pairs = np.arange(64) ^ 1  # 0 with 1, 2 with 3, ...
    >>> _along_arm(s, 3, 5, pairs)[:6, 0].tolist()
    [500, 100, 500, 500, 100, 100]
    """
    w = (sums.shape[-1] - 1) // 2
    own = _straight_arm(sums[..., w - alone : w + alone + 1], half)[0]
    straight, at = _straight_arm(sums, half)
    where = np.median(at, axis=1)
    halves = straight & straight[partner] & (np.abs(where - where[partner]) <= ARM_HALVES_APART)
    found = sums.max(axis=-1).mean(axis=1)  # each half's line, as strong as the other's
    weak, strong = np.minimum(found, found[partner]), np.maximum(found, found[partner])
    halves &= weak >= ARM_HALVES_LIKE * strong
    narrow = sums[..., w - half : w + half + 1].max(axis=-1)
    near = sums[..., w - alone : w + alone + 1].max(axis=-1)
    return np.where(halves[:, None], sums.max(axis=-1), np.where(own[:, None], near, narrow))


def _straight_arm(sums: np.ndarray, half: int) -> tuple[np.ndarray, np.ndarray]:
    """Whether each half-arm (64,) has its strongest farther than ``half`` from the middle
    of ``sums`` (64, PIECES, offsets) at every piece, all at one offset within a pixel; and
    each piece's strongest offset (64, PIECES)."""
    at = sums.argmax(axis=-1)
    steady = at.max(axis=1) - at.min(axis=1) <= 1
    return steady & (np.abs(at - (sums.shape[-1] - 1) // 2) > half).all(axis=1), at


def _partners() -> tuple[np.ndarray, np.ndarray]:
    """Each cell's (64, row-major) partner along its vertical arm (the other cell of its
    tile in its column) and along its horizontal arm (the other cell in its row)."""
    row, col = np.divmod(np.arange(N * N), N)
    return (row ^ 1) * N + col, row * N + (col ^ 1)


_ARM_PARTNERS = _partners()


def _arm_sums(
    ridge: np.ndarray, cy: np.ndarray, cx: np.ndarray, off: np.ndarray, length: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """Sums of ``ridge`` (8-bit) over ``length`` pixels along each arm piece's line, at each
    offset across it (as ``cv2.blur``'s box: ``length // 2`` before the pixel, the rest
    after): the vertical arms' pieces (the first PIECES of each cell) down the rows, the
    horizontal ones' along the columns, each (64, PIECES, offsets) int. None when a box
    would reach past the picture (cv2.blur reflects there)."""
    key = (ridge.shape, cy.tobytes(), cx.tobytes(), off.tobytes(), length)
    try:  # one lookup: another thread may clear the cache meanwhile
        index = _SUMS[key]
    except KeyError:
        if len(_SUMS) >= 8:
            _SUMS.clear()
        index = _SUMS[key] = _sum_index(ridge.shape, cy, cx, off, length)
    if index is None:
        return None
    out = []
    for by_row, used, hi, lo, where in index:
        lines = ridge[used] if by_row else np.ascontiguousarray(ridge[:, used].T)
        run = np.zeros((len(used), lines.shape[1] + 1), np.int32)  # running sums along each
        np.cumsum(lines, axis=1, dtype=np.int32, out=run[:, 1:])
        out.append(run[where, hi] - run[where, lo])
    return out[0], out[1]


_SUMS: dict[tuple, list | None] = {}


def _sum_index(
    shape: tuple[int, ...], cy: np.ndarray, cx: np.ndarray, off: np.ndarray, length: int
) -> list | None:
    """What :func:`_arm_sums` indexes with, per direction (made once per layout): whether
    the lines summed along are rows, which lines, the ends of each box and each sample's
    line."""
    h, w = shape
    a, b = length // 2, length - length // 2  # a box over y - a .. y + b - 1
    out = []
    for by_row, along, across, size, n_lines in (
        (False, cy[:, :PIECES], cx[:, :PIECES], h, w),  # vertical arms: down columns
        (True, cx[:, PIECES:], cy[:, PIECES:], w, h),  # horizontal arms: along rows
    ):
        if along.min() - a < 0 or along.max() + b > size:
            return None
        lines = np.clip(across[..., None] + off, 0, n_lines - 1)
        used, where = np.unique(lines, return_inverse=True)
        out.append((by_row, used, along[..., None] + b, along[..., None] - a,
                    where.reshape(lines.shape)))  # fmt: skip
    return out


def _mostly(hidden: np.ndarray) -> np.ndarray:
    """(64, pieces) bool: the piece is hidden on more than half the cells that sit at the
    same place in their tile (16 cells each; a hand rarely covers half of them)."""
    # Cell (2 i + a, 2 j + b) of tile (i, j) sits at place (a, b) of it: count each place's
    # hidden pieces over the 16 tiles (more than 8 of 16: the mean over more than half).
    by_place = hidden.reshape(N // 2, 2, N // 2, 2, -1)
    mostly = by_place.sum(axis=(0, 2), keepdims=True) > (N // 2) ** 2 // 2
    return np.broadcast_to(mostly, by_place.shape).reshape(hidden.shape)


#: A cell with at least this share of its bordering line pieces hidden is covered itself.
MOSTLY_HIDDEN = 0.5
#: ... and one with this share, beside a mostly hidden one, is covered too (a hand's edge).
PARTLY_HIDDEN = 0.25


#: On a board whose cell boundaries show as tone steps (see :func:`boundary_cue`), a partly
#: hidden cell among at least this many partly hidden cells (its 3 x 3 block, itself counted)
#: is covered too, beside no mostly hidden one: spread fingers over a tile hide a little of
#: each cell's boundary, the tile between them in view. Tune checkered 0-24 (steps, 91 boards):
#: 4 cells half or more under a hand so, 3 a quarter to a half, 2 under a hand's edge and no
#: cell with nothing over it (those partly hidden sit among at most 2 such); on printed lines
#: (mixed, acrylic 0-24) 14 cells with nothing over them would be.
PATCH_CELLS = 4


def covered_cells(hidden: np.ndarray, patch: bool = False) -> np.ndarray:
    """Cells (bool, 64) to leave undecided: mostly hidden, or partly hidden beside one that
    is; with ``patch`` (a board of tone steps), also partly hidden among ``PATCH_CELLS``."""
    grid = hidden.reshape(N, N)
    strong = grid >= MOSTLY_HIDDEN
    partly = grid >= PARTLY_HIDDEN
    near = cv2.dilate(strong.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    out = strong | (near & partly)
    if patch:
        block = np.ones((3, 3), np.float32)
        among = cv2.filter2D(partly.astype(np.uint8), -1, block, borderType=cv2.BORDER_CONSTANT)
        out |= partly & (among >= PATCH_CELLS)
    return out.ravel()


#: A partly hidden cell at least this light (over the board's typical cell) is not in a
#: hand's shadow. Tune split, 35 rigs, cells covered only as partly hidden beside a mostly
#: hidden one: pieces the renderer counts under a hand 0.48-0.92; empty cells it counts in
#: view 0.46-1.31 (12 left unknown, 8 of them at 1.0 or more).
LIT_BESIDE = 1.0


def lit_beside(hidden: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Cells (bool, 64) covered only as partly hidden (see :func:`covered_cells`) but lit
    at least as the board's typical cell (``light``: each cell's lightness over the typical
    cell's, (64,)): a hand over a cell shades it, while the line pieces hidden at a cell's
    edge can be a neighbour's (two cells of a tile share a cross arm). Such a cell may
    still be decided as an open one (see ``cells._as_in_the_open``).

    >>> hidden = np.zeros(64)
    >>> hidden[[27, 28]] = 1.0, 0.25  # d5 under a hand, e5 beside it with 2 of 8 hidden
    >>> light = np.ones(64)
    >>> np.flatnonzero(lit_beside(hidden, light)).tolist()
    [28]
    >>> light[28] = 0.7  # e5 in the hand's shadow
    >>> np.flatnonzero(lit_beside(hidden, light)).tolist()
    []
    """
    partly = covered_cells(hidden) & (hidden < MOSTLY_HIDDEN)
    return partly & (np.asarray(light) >= LIT_BESIDE)
