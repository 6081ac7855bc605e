"""Read the pencil marks on a business-card board from a phone photo.

The pipeline, each step a function you can call on its own:

1. :func:`find_grids` — the grids themselves are the marker: a printed 10x10 grid
   is one connected web of dark lines with many cell-sized holes. Its outer frame
   gives a first quadrilateral.
2. :func:`refine_lattice` — the true cell lines: each of the 11+11 printed lines
   is found segment by segment and each axis's 11 lines are fitted together as
   one smooth family (so a curled card, lens distortion or a print that is not
   square with the card are all followed, and a pen stroke darker than a pale
   line is outvoted), giving the 11x11 line crossings in the photo.
3. :func:`orient_grids` — which way is up: the printed labels stand just outside
   the top and the left edge of each grid.
4. :func:`read_cells` — each cell, resampled from the crossings, is classified
   (:mod:`piecebridge.vision.card_cells`) into a mark and a shaded flag with a
   confidence; unsure cells go to ``unknown``.

:func:`read_card` runs it all and returns a :class:`CardReading`, whose
:meth:`CardReading.to_card1` is the ``card/1`` object of ``shared/spec/formats.md``.

>>> import numpy as np
>>> read_card(np.full((480, 640), 200, np.uint8))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
piecebridge.vision.card.CardError: no card found: no printed 10x10 grid in the photo ...
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from piecebridge.calibration.images import read_image_bytes, undecodable
from piecebridge.vision.card_layout import cell_name

from piecebridge.errors import UserError

#: rectified pixels per cell; cells are read and drawn at this size
CELL_PX = 32
#: rectified margin around a grid, in cells (wide enough for the printed labels)
MARGIN_CELLS = 1.5
#: working resolution for finding grids (long side, pixels)
DETECT_SIDE = 1000
#: Version of the grids this module cuts (finder, lattice, resampling). Caches of rectified
#: grids (the cell network's training data) carry it, so a change that moves the grids
#: makes them anew: 2 = lattice round 1 (half-pixel map, one line family per axis).
GRID_VERSION = 2


class CardError(UserError):
    """The photo cannot be read as a card (no card, grid cut off, too blurred)."""


@dataclass
class GridView:
    """One grid in a photo: its line crossings and its rectified image.

    ``lattice[i, j]`` is the photo position (x, y) of the crossing of horizontal
    line ``i`` (0 = top, above row 1) and vertical line ``j`` (0 = left, before
    column A), after :func:`orient_grids` has turned the grid upright.
    """

    lattice: np.ndarray
    rectified: np.ndarray | None = None
    sharpness_mm: float = 0.0
    side_ink: tuple[float, float, float, float] = (0, 0, 0, 0)

    @property
    def corners(self) -> np.ndarray:
        """Frame corners TL, TR, BR, BL in the photo."""
        lat = self.lattice
        return np.array([lat[0, 0], lat[0, 10], lat[10, 10], lat[10, 0]])

    @property
    def centre(self) -> np.ndarray:
        return self.lattice.reshape(-1, 2).mean(axis=0)


@dataclass
class CellReading:
    """What is in one cell, with the classifier's confidence (0..1) in that answer."""

    mark: str | None
    shaded: bool
    confidence: float


@dataclass
class GridReading:
    view: GridView
    cells: dict[str, CellReading]
    unknown: list[str]

    def to_json(self, with_confidence: bool = True) -> dict:
        out: dict = {"cells": {}}
        for name, c in sorted(self.cells.items(), key=lambda kv: _cell_order(kv[0])):
            if c.mark is None and not c.shaded:
                continue
            item: dict = {"mark": c.mark, "shaded": c.shaded}
            if with_confidence:
                item["confidence"] = round(c.confidence, 3)
            out["cells"][name] = item
        if self.unknown:
            out["unknown"] = sorted(self.unknown, key=_cell_order)
        return out


@dataclass
class CardReading:
    """Every grid read from one photo, listed left to right as printed upright."""

    grids: list[GridReading]
    image_shape: tuple[int, int]
    scale: float = 1.0  # working pixels per photo pixel
    timings: dict[str, float] = field(default_factory=dict)

    def to_card1(self, with_confidence: bool = True) -> dict:
        return {"format": "card/1", "grids": [g.to_json(with_confidence) for g in self.grids]}


def _cell_order(name: str) -> tuple[int, int]:
    return int(name[1:]), ord(name[0])


# ----------------------------------------------------------------------------- loading


# Fewer pixels than this across cannot hold two 10x10 grids of 2 px cells and their labels;
# the finder's resizing would fail on a photo a few pixels wide.
MIN_PHOTO_PX = 48


def load_photo(path: str | Path, min_side: int = 1600) -> tuple[np.ndarray, float]:
    """Decode a photo to greyscale, at half size when it is large (for speed).

    JPEG decoders can scale by 1/2 while decoding, which is much cheaper than
    decoding in full and resizing; a 12-megapixel photo still gives ~45 px per cell.
    Returns ``(grey, scale)`` where ``scale`` is decoded pixels per photo pixel.
    """
    return decode_photo(read_image_bytes(path), min_side, name=str(path))


def decode_photo(data: np.ndarray, min_side: int = 1600, name: str = "image"):
    """:func:`load_photo` from bytes already in memory."""
    try:
        grey = cv2.imdecode(data, cv2.IMREAD_REDUCED_GRAYSCALE_2)
    except cv2.error:  # an image a pixel wide cannot be halved: decode it whole below
        grey = np.zeros((0, 0), np.uint8)
    scale = 0.5
    if grey is None:
        raise undecodable(name)
    if min(grey.shape) < min_side / 2 or max(grey.shape) < min_side:
        grey = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
        scale = 1.0
    if min(grey.shape) < MIN_PHOTO_PX:
        height, width = grey.shape
        raise UserError(f"{name}: {width}x{height} px is too small to hold a card")
    return grey, scale


# ----------------------------------------------------------------------------- find


def _order_clockwise(quad: np.ndarray) -> np.ndarray:
    """Corners in clockwise order (image y down), starting so the first edge points
    most nearly along +x. Parallel grids then get the same corner order."""
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]  # increasing angle = clockwise on screen
    best = max(range(4), key=lambda k: _unit(q[(k + 1) % 4] - q[k])[0])
    return np.roll(q, -best, axis=0)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / (np.linalg.norm(v) + 1e-9)


def _fit_quad(contour: np.ndarray) -> np.ndarray | None:
    """Four corners of a roughly quadrilateral outline, robust to marks poking out.

    A first polygon gives the corners; each side is then refitted to the outline
    points along its middle with a Huber line fit and the sides are intersected.
    """
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    approx = None
    for eps in (0.02, 0.03, 0.045, 0.06, 0.08):
        a = cv2.approxPolyDP(hull, eps * peri, True)
        if len(a) == 5 and eps == 0.02:
            approx = _cut_corner_quad(a.reshape(5, 2).astype(np.float64), hull)
            if approx is not None:
                break
        if len(a) == 4:
            approx = a.reshape(4, 2).astype(np.float64)
            break
    if approx is None:
        box = cv2.boxPoints(cv2.minAreaRect(contour))
        approx = box.astype(np.float64)
    pts = contour.reshape(-1, 2).astype(np.float64)
    lines = []
    for k in range(4):
        p, q = approx[k], approx[(k + 1) % 4]
        d = q - p
        length = np.linalg.norm(d)
        if length < 4:
            return None
        u = d / length
        n = np.array([-u[1], u[0]])
        rel = pts - p
        t = rel @ u / length
        dist = np.abs(rel @ n)
        sel = (t > 0.1) & (t < 0.9) & (dist < 0.04 * length + 2)
        if sel.sum() < 5:
            lines.append((p, u))
            continue
        vx, vy, x0, y0 = cv2.fitLine(pts[sel].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01)
        lines.append((np.array([x0[0], y0[0]]), np.array([vx[0], vy[0]])))
    corners = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        a = np.array([d1, -d2]).T
        if abs(np.linalg.det(a)) < 1e-6:
            return None
        s = np.linalg.solve(a, p2 - p1)
        corners.append(p1 + s[0] * d1)
    return np.array(corners)


def _cut_corner_quad(pent: np.ndarray, hull: np.ndarray) -> np.ndarray | None:
    """The quadrilateral of a web whose outline is a pentagon because one corner of
    the grid broke off it (a shadow or glare over thin lines): of the quads made by
    four of the five sides, each extended, that hold the whole hull, the one whose
    opposite sides are nearest parallel (a grid seen in perspective is nearly a
    parallelogram; a quad that keeps the cut as a side is skewed by tens of degrees).
    The cut is then dropped and its two neighbours meet where the corner is.
    ``None`` when no such quad is convex."""
    pts = hull.reshape(-1, 2).astype(np.float64)
    best, best_skew = None, np.inf
    for drop in range(5):
        sides = [(pent[k], pent[(k + 1) % 5]) for k in range(5) if k != drop]
        corners = []
        for k in range(4):
            (p1, q1), (p2, q2) = sides[k - 1], sides[k]
            d1, d2 = q1 - p1, q2 - p2
            a = np.array([d1, -d2]).T
            if abs(np.linalg.det(a)) < 1e-6 * np.linalg.norm(d1) * np.linalg.norm(d2):
                break
            corners.append(p1 + np.linalg.solve(a, p2 - p1)[0] * d1)
        if len(corners) < 4:
            continue
        quad = np.array(corners, np.float32)
        if not cv2.isContourConvex(quad):
            continue
        inside = [cv2.pointPolygonTest(quad, (float(x), float(y)), True) for x, y in pts]
        if min(inside) < -2.0:
            continue
        side = np.roll(quad, -1, axis=0) - quad
        ang = np.arctan2(side[:, 1], side[:, 0])
        skew = sum(abs(math.remainder(ang[k] - ang[k + 2], math.pi)) for k in (0, 1))
        if skew < best_skew:
            best, best_skew = quad.astype(np.float64), skew
    return best


@dataclass
class _Candidate:
    quad: np.ndarray
    holes: int
    touches_border: bool
    hole_area: float = 0.0  # median area of its cell-like holes (detection pixels)


def _grid_candidates(small: np.ndarray) -> list[_Candidate]:
    """Connected webs of dark lines with many cell-like holes."""
    h, w = small.shape
    block = max(15, (min(h, w) // 40) | 1)
    ink = cv2.adaptiveThreshold(
        small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 6
    )
    # BBDT: the same labels as the default algorithm, its statistics in half the time
    n, labels, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(
        ink, 8, cv2.CV_32S, cv2.CCL_BBDT
    )
    out = []
    min_side = 0.06 * min(h, w)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if bw < min_side or bh < min_side or area < 100:
            continue
        mask = (labels[y : y + bh, x : x + bw] == i).astype(np.uint8)
        contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        if hier is None:
            continue
        outer = max((c for c, hh in zip(contours, hier[0], strict=True) if hh[3] < 0), key=len)
        filled = cv2.contourArea(outer)
        if filled < 0.02 * bw * bh * 10 or filled < 400:
            continue
        cell = filled / 100
        areas = [
            a
            for c, hh in zip(contours, hier[0], strict=True)
            if hh[3] >= 0 and 0.2 * cell < (a := cv2.contourArea(c)) < 2.0 * cell
        ]
        holes = len(areas)
        if holes < 25:
            continue
        quad = _fit_quad(outer + np.array([x, y]))
        if quad is None:
            continue
        touches = x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1
        out.append(_Candidate(_order_clockwise(quad), holes, touches, float(np.median(areas))))
    return out


def find_grids(grey: np.ndarray) -> list[np.ndarray]:
    """Frame quadrilaterals (4x2, photo pixels of ``grey``) of every whole grid.

    Raises :class:`CardError` when no grid is found or one runs off the photo.
    """
    h, w = grey.shape
    f = min(1.0, DETECT_SIDE / max(h, w))
    small = cv2.resize(grey, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else grey
    cands = _grid_candidates(small)
    whole = [c for c in cands if not c.touches_border]
    cut = [c for c in cands if c.touches_border]
    if whole and cut:
        # Only a web with cells the size of the whole grids' is a grid running off the
        # photo; a checked tablecloth or graph paper at the edge is not.
        ref = float(np.median([c.hole_area for c in whole]))
        cut = [c for c in cut if 0.6 * ref < c.hole_area < 1.6 * ref]
    if cut:
        raise CardError("a grid is cut off at the edge of the photo; step back and retake it")
    if not whole:
        raise CardError(
            "no card found: no printed 10x10 grid in the photo (is the card in view and in focus?)"
        )
    # A card has at most two grids; keep the two most grid-like of similar size.
    whole.sort(key=lambda c: -c.holes)
    quads = [c.quad / f for c in whole[:2]]
    if len(quads) == 2:
        a0, a1 = (cv2.contourArea(q.astype(np.float32)) for q in quads)
        if min(a0, a1) < 0.4 * max(a0, a1):
            quads = quads[:1] if a0 >= a1 else quads[1:]
    return [_without_label_cells(grey, q) for q in quads]


def _strip_cells(resp: np.ndarray, axis: int, side: int, step: float) -> np.ndarray:
    """Ink over the middle of each of the 11 cells of the outer column (``axis`` 0) or
    row (1) ``side`` (0 or 10) of an 11x11 web: mean response over the middle half
    of the cell each way, in order along the strip."""
    lo, hi = round((side + 0.25) * step), round((side + 0.75) * step)
    prof = (resp[:, lo:hi] if axis == 0 else resp[lo:hi, :].T).mean(axis=1)
    return np.array(
        [prof[round((k + 0.25) * step) : round((k + 0.75) * step)].mean() for k in range(11)]
    )


def _header_sides(resp: np.ndarray, step: float) -> tuple[int, int]:
    """Which outer column and row (0 or 10 each) of an 11x11 web are the label cells.

    The header row and column meet in a corner cell that holds nothing, and each of
    their other 10 cells holds a label; a game row or column has pencil marks in
    some cells and paper in others. Of the four corners, the one whose cell is
    paper while the cells along both its strips are all inked wins (all: the
    second-least inked of each strip's 10, one faint label allowed). Counting cells,
    not summing contrast, keeps a few bold X's from outweighing faint labels or
    labels on tinted header cells.

    >>> resp = np.zeros((264, 264), np.float32)
    >>> step = 263 / 11
    >>> for k in range(1, 11):  # a "label" in each header cell but the top-left one
    ...     a = round(k * step) + 8
    ...     resp[8:16, a : a + 8] = resp[a : a + 8, 8:16] = 0.5
    >>> resp[30:220, 240:250] = 0.5  # the right game column fully pencilled
    >>> _header_sides(resp, step)
    (0, 0)
    """
    cells = {(ax, sd): _strip_cells(resp, ax, sd, step) for ax in (0, 1) for sd in (0, 10)}

    def score(sx: int, sy: int) -> float:
        col, row = cells[(0, sx)], cells[(1, sy)]  # their shared corner: col[sy], row[sx]
        inked = min(np.sort(np.delete(col, sy))[1], np.sort(np.delete(row, sx))[1])
        return float(inked - col[sy])

    return max(((sx, sy) for sx in (0, 10) for sy in (0, 10)), key=lambda c: score(*c))


#: side of the square a frame is resampled to when its cells are counted
_COUNT_SIDE = 264


def _comb(profile: np.ndarray, n: int, reach: int = 2) -> float:
    """Mean of ``profile``'s peaks (each within ``reach``) where ``n + 1`` evenly spaced
    lines would cross it, leaving out the frame and the line next to it at each end:
    there 10 and 11 cells a side nearly coincide (and the frame is often heavier)."""
    pos = np.round(np.arange(2, n - 1) * (len(profile) - 1) / n).astype(int)
    idx = np.clip(pos[:, None] + np.arange(-reach, reach + 1), 0, len(profile) - 1)
    return float(profile[idx].max(axis=1).mean())


def _counts_eleven(profile: np.ndarray) -> bool:
    """Whether the ink ``profile`` across a web follows 12 evenly spaced lines (11 cells)
    clearly more than 11 (10 cells): its peaks at the 12 lines' places stand more than
    twice as far above the web's typical ink (the profile's median) as those at the 11
    lines' places do.

    Measured from the median, not from zero: pencil and pen between the lines (a heavily
    marked or pen-shaded card) raise both combs alike, and a 12-line web's comb of 11
    then came within twice the other (alt tune 223, 402 and one grid of 421: the header
    row and column left in, the grid read a cell off).

    >>> x = np.arange(264)
    >>> lines = lambda n: (np.min(np.abs(x[:, None] - np.linspace(0, 263, n + 1)), 1) < 2) * 0.6
    >>> bool(_counts_eleven(lines(11) + 0.02)), bool(_counts_eleven(lines(10) + 0.02))
    (True, False)
    >>> bool(_counts_eleven(lines(11) + 0.15 + 0.05 * np.sin(x * 10 * np.pi / 263) ** 2))
    True
    """
    base = float(np.median(profile))
    return _comb(profile, 11) - base > 2 * (_comb(profile, 10) - base) + 0.02


def _without_label_cells(grey: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The 10x10 playing grid inside ``quad`` when the labels are printed in ruled cells
    of their own (an 11x11 web: a header row and column), else ``quad`` unchanged.

    The outline of the web then frames 11 cells a side. The printed lines are counted
    (which of 11 or 12 evenly spaced lines the ink follows, on each axis); only when
    both axes count 12 (a header row and a header column) are the extra row and
    column dropped: the pair that looks like a header (:func:`_header_sides`).
    """
    n = _COUNT_SIDE
    square = np.array([[0, 0], [n - 1, 0], [n - 1, n - 1], [0, n - 1]], np.float32)
    hmat = cv2.getPerspectiveTransform(quad.astype(np.float32), square)
    resp = _ink_response(cv2.warpPerspective(grey, hmat, (n, n), flags=cv2.INTER_AREA), n // 11)
    profs = [_median_last(resp.T if axis == 0 else resp) for axis in (0, 1)]  # 0: x, 1: y
    # Column labels and row labels come together: boxed, they add a header row AND a
    # header column, 12 lines on both axes. Twelve on one axis only is a 10x10 grid
    # whose outline missed a corner (its lines then run unevenly), not label cells.
    if not all(_counts_eleven(p) for p in profs):
        return quad
    step = (n - 1) / 11
    bounds = [
        (step, n - 1.0) if side == 0 else (0.0, n - 1 - step) for side in _header_sides(resp, step)
    ]
    (x0, x1), (y0, y1) = bounds
    inner = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return cv2.perspectiveTransform(inner[None], np.linalg.inv(hmat))[0].astype(quad.dtype)


# ----------------------------------------------------------------------------- lattice


def _canonical_size(margin: float = MARGIN_CELLS, cell: int = CELL_PX) -> int:
    return round((10 + 2 * margin) * cell)


def _ink_response(img: np.ndarray, cell: int = CELL_PX) -> np.ndarray:
    """Darkness relative to the local paper (0 paper .. 1 black), float32.

    The paper is the grey closing (lines and strokes are thinner than the kernel)
    so uneven light and soft shadows divide out.
    """
    k = max(5, (cell // 3) | 1)
    bg = cv2.morphologyEx(img, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    kb = max(3, (cell // 4) | 1)
    bg = cv2.blur(cv2.blur(bg, (kb, kb)), (kb, kb))  # two box passes: a cheap soft blur
    # 1 - img / max(bg, 1), clipped: the same operations in place, no temporaries
    out = img.astype(np.float32)
    out /= np.maximum(bg, 1).astype(np.float32)
    np.subtract(1, out, out=out)
    return np.clip(out, 0, 1, out=out)


#: Degree across the lines of the smooth family the 11 lines of an axis are fitted as
#: (:func:`_line_family`; along each line it is 2). Chosen on tune photos (classic
#: 1100-1199, alt 0-59) among 1-4 against the renderer's true crossings: 3 and 4 let a
#: run of pen strokes pull the outer lines again, 1 cannot follow a curl's spacing.
FAMILY_DEGREE = 2


def _line_family(x: np.ndarray, y: np.ndarray, w: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """All lines of one axis fitted at once as one smooth family ``y(i, x)``, robustly.

    A printed grid is straight, evenly spaced lines; a photo bends and spaces them
    smoothly (perspective, curl, lens), so line ``i``'s offset at ``x`` is a low-degree
    polynomial in ``(i, x)``: quadratic along, :data:`FAMILY_DEGREE` across. Fitted to
    the segment positions of every line together, a stretch of line pulled onto a row
    of pen marks, dense pen shading or a label is outvoted by the other lines, where a
    fit per line followed it (a pale printed line loses to a black pen by darkness).
    Reweighting is Tukey's biweight, started from the lines' expected places
    ``ideal`` (lines, ), so even most of one line can be wrong.

    ``x`` (n,), ``y`` and ``w`` (lines, n); returns (lines, 3) quadratic coefficients
    per line in ``x``, highest power first (``np.polyval`` order).
    """
    da, di = 2, FAMILY_DEGREE
    n_lines, n = y.shape
    xc, half = x.mean(), max(np.ptp(x) / 2, 1.0)
    xs = (x - xc) / half
    ti = (np.arange(n_lines) - (n_lines - 1) / 2) / ((n_lines - 1) / 2)
    pa = xs[:, None] ** np.arange(da + 1)  # (n, da+1)
    pi = ti[:, None] ** np.arange(di + 1)  # (lines, di+1)
    design = (pi[:, None, :, None] * pa[None, :, None, :]).reshape(n_lines * n, -1)
    yv = y.ravel()
    wv = np.minimum(w, 2 * np.median(w)).ravel()  # a dark pen stroke is no surer a line
    pred = np.repeat(ideal, n).astype(np.float64)
    weighted = wv > 0
    ridge = np.eye(design.shape[1]) * 1e-9
    for _ in range(6):
        res = yv - pred
        scale = max(1.4826 * np.median(np.abs(res[weighted])), 0.5)
        u = res / (4.685 * scale)
        wt = wv * np.where(np.abs(u) < 1, (1 - u * u) ** 2, 0.0)
        dw = design.T * wt  # normal equations: a 9x9 solve, far cheaper than lstsq's SVD
        coef = np.linalg.solve(dw @ design + ridge, dw @ yv)
        pred = design @ coef
    # per line: coefficients of (1, xs, xs^2), then back to the original x
    per = pi @ coef.reshape(di + 1, da + 1)  # (lines, da+1), da == 2
    s = 1 / half
    c0, c1, c2 = per[:, 0], per[:, 1] * s, per[:, 2] * s * s
    return np.stack([c2, c1 - 2 * c2 * xc, c2 * xc * xc - c1 * xc + c0], axis=1)


def _follow_lines(resp: np.ndarray, axis: int, margin_px: float, cell: int, search: float):
    """Fit each of the 11 lines along ``axis`` (0: horizontal lines) as a quadratic.

    Every line is searched for in each of its 10 cell-long segments (the darkest
    offset within ``search`` cells; along the frame, where that is a label's bar,
    by the darkness of the segment's palest third); the segment positions of all
    11 lines are then fitted robustly as one smooth family (:func:`_line_family`).
    Returns (11, 3) polynomial coefficients giving the line's offset (rectified
    pixels) as a function of the coordinate along it.
    """
    r = resp if axis == 0 else resp.T  # rows of r are scanned for horizontal lines
    starts = np.round(margin_px + (np.arange(10) + 0.15) * cell).astype(int)
    width = round(0.7 * cell)
    s = round(search * cell)
    offs = np.arange(-s, s + 1)
    y0 = np.round(margin_px + np.arange(11) * cell).astype(int)
    rows = np.clip(y0[:, None] + offs[None, :], 0, r.shape[0] - 1)  # (11, 2s+1)
    # Running sums only over the rows searched and the columns the segments reach: each
    # row's sums are the same numbers, at a half to two thirds of the work.
    scanned, rows = np.unique(rows, return_inverse=True)
    rows = rows.reshape(11, -1)
    csum = np.cumsum(np.pad(r[scanned, : starts[-1] + width], ((0, 0), (1, 0))), axis=1)
    cols = (csum[:, starts + width] - csum[:, starts]) / width  # (rows, 10) segment means
    # The palest of each segment's three thirds: a printed line runs through all
    # three, the bar of a label printed just outside the frame does not, however dark
    # it is.
    third = width // 3
    cuts = starts[None, :] + third * np.arange(4)[:, None]  # (4, 10)
    palest = np.min([csum[:, cuts[j + 1]] - csum[:, cuts[j]] for j in range(3)], axis=0) / third
    xs = starts + width / 2
    prof = cols[rows]  # (11, 2s+1, 10)
    # A segment whose darkest offset is not dark along all its thirds is a label's
    # bar or a pen stroke across the line, not the line (a pale printed line can be
    # fainter than a pen): look for the line by the palest thirds there.
    pale = palest[rows]
    best = np.argmax(prof, axis=1)[:, None, :]
    at = np.take_along_axis(prof, best, 1)
    prof = np.where(np.take_along_axis(pale, best, 1) < 0.5 * at, pale, prof)
    k = np.argmax(prof, axis=1)  # (11, 10)
    kk = np.clip(k, 1, len(offs) - 2)
    li, ci = np.meshgrid(np.arange(11), np.arange(10), indexing="ij")
    p0, p1, p2 = prof[li, kk - 1, ci], prof[li, kk, ci], prof[li, kk + 1, ci]
    den = p0 - 2 * p1 + p2
    ok = (den < 0) & (k == kk)
    sub = np.where(ok, 0.5 * (p0 - p2) / np.where(ok, den, -1.0), 0.0)
    ys = y0[:, None] + offs[k] + sub
    wts = np.maximum(prof[li, k, ci] - np.median(prof, axis=1), 0) + 1e-6
    return _line_family(xs.astype(np.float64), ys, wts, y0.astype(np.float64))


def _crossings(hfits: np.ndarray, vfits: np.ndarray) -> np.ndarray:
    """Intersections of fitted horizontal and vertical lines (rectified pixels)."""
    h = np.asarray(hfits)[:, None, :]  # (11, 1, 3): y = h(x) for row line i
    v = np.asarray(vfits)[None, :, :]  # (1, 11, 3): x = v(y) for column line j

    def pv(c, t):
        return (c[..., 0] * t + c[..., 1]) * t + c[..., 2]

    x = pv(v, pv(h, np.zeros((11, 11))))
    for _ in range(4):
        y = pv(h, x)
        x = pv(v, y)
    return np.stack([x, pv(h, x)], axis=-1)


def refine_lattice(
    grey: np.ndarray, quad: np.ndarray, passes: int = 2, with_response: bool = False
):
    """The 11x11 printed line crossings (photo pixels) of the grid framed by ``quad``.

    ``quad`` is TL, TR, BR, BL in any rotation. Each pass resamples the grid through
    the current estimate and follows every printed line; the second pass starts
    from the crossings found by the first, so curl and lens bending are absorbed.
    """
    cell = CELL_PX
    m = MARGIN_CELLS * cell
    ideal = m + np.arange(11) * cell
    src = np.array(
        [[ideal[0], ideal[0]], [ideal[10], ideal[0]], [ideal[10], ideal[10]], [ideal[0], ideal[10]]]
    )
    hmat = cv2.getPerspectiveTransform(src.astype(np.float32), quad.astype(np.float32))
    gx, gy = np.meshgrid(ideal, ideal)
    lattice = cv2.perspectiveTransform(np.stack([gx, gy], -1).reshape(-1, 1, 2), hmat).reshape(
        11, 11, 2
    )
    search = 0.4
    for _ in range(passes):
        rect = remap_grid(grey, lattice, cell, MARGIN_CELLS)
        resp = _ink_response(rect, cell)
        hf = _follow_lines(resp, 0, m, cell, search)
        vf = _follow_lines(resp, 1, m, cell, search)
        cross = _crossings(hf, vf)
        lattice = _lattice_to_photo(lattice, cross, cell, m)
        search = 0.25
    # ``resp`` (ink of the last pass's resampling) is close enough to the final grid
    # for telling which way is up, which saves resampling again.
    return (lattice, resp) if with_response else lattice


def _lattice_to_photo(lattice: np.ndarray, pts: np.ndarray, cell: float, m: float) -> np.ndarray:
    """Map rectified positions back to the photo through the bilinear lattice map."""
    u = (pts[..., 0] - m) / cell
    v = (pts[..., 1] - m) / cell
    return _bilinear(lattice, u, v)


def _bilinear(lattice: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Photo position of lattice coordinates (u, v in cells, may lie outside 0..10)."""
    iu = np.clip(np.floor(u).astype(int), 0, 9)
    iv = np.clip(np.floor(v).astype(int), 0, 9)
    fu = (u - iu)[..., None]
    fv = (v - iv)[..., None]
    p00 = lattice[iv, iu]
    p01 = lattice[iv, iu + 1]
    p10 = lattice[iv + 1, iu]
    p11 = lattice[iv + 1, iu + 1]
    return (p00 * (1 - fu) + p01 * fu) * (1 - fv) + (p10 * (1 - fu) + p11 * fu) * fv


@functools.lru_cache(maxsize=8)
def _coarse_coords(size: int, cell: int, margin: float, step: int) -> tuple[np.ndarray, np.ndarray]:
    # One coarse sample before the first output pixel and enough after the last, so
    # no output pixel lies beyond the outer samples (cv2.resize would hold the edge
    # value there instead of carrying the map on).
    k = np.arange(-(-size // step) + 2) - 1
    # Coarse sample k stands for output pixel k*step + (step-1)/2: cv2.resize
    # (INTER_LINEAR) scaling by ``step`` reads input (x + 0.5) / step - 0.5 for output
    # pixel x. (At k*step + step/2, as before, every rectified pixel read the photo
    # half a pixel down and right of its place, and the lattice, fitted to the lines
    # seen through that map, came out half a rectified pixel, 1/64 cell, up and left.)
    c = (k * step + (step - 1) / 2 - margin * cell) / cell
    return np.meshgrid(c, c)


def _grid_map(lattice: np.ndarray, size: int, cell: int, margin: float, step: int = 8):
    """Photo position of every rectified pixel (float32 HxWx2), piecewise bilinear in
    the lattice: rectified pixel ``(x, y)`` is lattice point ``((x - m) / cell, (y - m)
    / cell)``, ``m = margin * cell``. Computed on a coarse grid and scaled up: the map
    is smooth, and this is ~20x cheaper than evaluating every pixel.

    >>> m = MARGIN_CELLS * CELL_PX
    >>> ideal = m + np.arange(11) * CELL_PX
    >>> identity = np.stack(np.meshgrid(ideal, ideal), -1)  # photo = rectified pixels
    >>> pos = _grid_map(identity, 416, CELL_PX, MARGIN_CELLS)
    >>> pos[100, 37].tolist(), pos[0, 415].tolist()
    ([37.0, 100.0], [415.0, 0.0])
    """
    return _grid_map_bounds(lattice, size, cell, margin, step)[0]


def _grid_map_bounds(lattice: np.ndarray, size: int, cell: int, margin: float, step: int = 8):
    """:func:`_grid_map` and ``(x0, y0, x1, y1)``: bounds of the photo positions it holds,
    taken from the coarse samples (every value of the map is a blend of them, so these
    bounds hold the map's own; they cost nothing, the map's ~3 ms)."""
    u, v = _coarse_coords(size, cell, margin, step)
    coarse = _bilinear(lattice, u, v).astype(np.float32)
    n = coarse.shape[0]
    full = cv2.resize(coarse, (n * step, n * step), interpolation=cv2.INTER_LINEAR)
    # contiguous: a strided crop makes every later pass over the map (the shift to the
    # blurred patch, cv2.remap) some 50 % slower
    pos = np.ascontiguousarray(full[step : step + size, step : step + size])
    cx, cy = coarse[..., 0], coarse[..., 1]
    return pos, (float(cx.min()), float(cy.min()), float(cx.max()), float(cy.max()))


def remap_grid(
    grey: np.ndarray, lattice: np.ndarray, cell: int = CELL_PX, margin: float = MARGIN_CELLS
) -> np.ndarray:
    """Resample the grid so every cell is ``cell`` pixels square, with ``margin`` cells
    around it (the margin is extrapolated from the outer cells)."""
    size = _canonical_size(margin, cell)
    pos, (lox, loy, hix, hiy) = _grid_map_bounds(lattice, size, cell, margin)
    # Downsampling a big photo cell to 32 px: pre-blur to limit aliasing.
    photo_cell = np.linalg.norm(lattice[0, 10] - lattice[0, 0]) / 10
    src = grey
    if photo_cell > 1.6 * cell:
        sigma = 0.4 * photo_cell / cell
        # The patch blurred: 4 pixels beyond the map's reach. The 8-bit blur is exact
        # integer arithmetic, so a pixel's blurred value is the same in any patch it stands
        # the kernel's radius or more inside, and taking an integer offset off a position
        # is exact. So where the kernel reaches 2 pixels at most (every pixel read stands 2
        # inside), the coarse samples' bounds (which hold the map's) give the same numbers
        # as the map's own bounds, whose min/max over each plane cost ~1 ms a call.
        if round(6 * sigma + 1) | 1 <= 5:  # OpenCV's kernel size for an 8-bit image
            bounds = lox, loy, hix, hiy
        else:
            px, py = pos[..., 0], pos[..., 1]
            bounds = px.min(), py.min(), px.max(), py.max()
        x0, y0 = max(math.floor(bounds[0]) - 4, 0), max(math.floor(bounds[1]) - 4, 0)
        x1, y1 = math.ceil(bounds[2]) + 4, math.ceil(bounds[3]) + 4
        src = cv2.GaussianBlur(grey[y0:y1, x0:x1], (0, 0), sigma)
        pos -= np.array([x0, y0], np.float32)  # in place: ``pos`` is the map's own copy
    # one two-channel map: OpenCV would copy each strided plane of it first
    return cv2.remap(src, pos, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


# ----------------------------------------------------------------------------- orientation


def _side_labels(resp: np.ndarray, cell: int = CELL_PX, margin: float = MARGIN_CELLS):
    """How much the strips just outside the top, right, bottom, left edges hold labels.

    A label stands over the middle of its column (or beside the middle of its row),
    with paper on both sides of it; so each cell's stretch of the strip is inked in
    its middle (0.3–0.7 cell) more than at its shoulders (0.08–0.2 cell from the
    lines, which are left out: labels printed in ruled boxes have lines there). Ink
    that runs evenly along the strip (the card's edge, the table, a shadow) cancels.
    """
    m = round(margin * cell)
    g = 10 * cell
    a, b = round(0.15 * cell), round(0.95 * cell)
    strips = (
        resp[m - b : m - a, m : m + g],
        resp[m : m + g, m + g + a : m + g + b].T,
        resp[m + g + a : m + g + b, m : m + g],
        resp[m : m + g, m - b : m - a].T,
    )
    mid = slice(round(0.3 * cell), round(0.7 * cell))
    lo, hi = round(0.08 * cell), round(0.2 * cell)
    out = []
    for s in strips:
        prof = s.mean(axis=0).reshape(10, cell)  # darkness, not a threshold: labels can be faint
        shoulders = np.concatenate([prof[:, lo:hi], prof[:, cell - hi : cell - lo]], axis=1)
        out.append(float(prof[:, mid].mean() - shoulders.mean()))
    return tuple(out)


def _rotate_lattice(lattice: np.ndarray, k: int) -> np.ndarray:
    """Turn the crossing array so that side ``k`` (0 top, 1 right, ...) becomes the top."""
    out = lattice
    for _ in range(k):
        # side 1 (right) to top: the array turns counter-clockwise
        out = np.rot90(out, 1)
    return out.copy()


def orient_grids(
    grey: np.ndarray, lattices: list[np.ndarray], responses: list[np.ndarray] | None = None
) -> list[GridView]:
    """Turn every grid so its labels read upright, and list them left to right.

    Labels are printed just outside the top and left edges, so of the four turns
    the right one has labels beyond top and left and none beyond bottom and right
    (:func:`_side_labels`: ink over each cell's middle, not just any ink, which the
    card's edge or the table just beyond a grid would give too).
    Grids on one card share the turn; two grids also stand side by side along
    their top edge, which settles near-ties.
    """

    def top_dir(lat):
        return _unit(lat[0, 10] - lat[0, 0])

    # Give every grid the same corner order as the first (parallel grids can get
    # different ones when the card stands near 45 degrees).
    turns = [0] + [
        max(
            range(4),
            key=lambda r, lat=lat: float(top_dir(_rotate_lattice(lat, r)) @ top_dir(lattices[0])),
        )
        for lat in lattices[1:]
    ]
    lattices = [_rotate_lattice(lat, t) for lat, t in zip(lattices, turns, strict=True)]
    sides = []
    for i, lat in enumerate(lattices):
        if responses is not None:
            resp = np.rot90(responses[i], turns[i])
        else:
            resp = _ink_response(remap_grid(grey, lat))
        sides.append(_side_labels(resp))
    sides_arr = np.array(sides)  # grids x (top, right, bottom, left)
    scores = []
    for k in range(4):
        t, r, b, l_ = (sides_arr[:, (k + s) % 4] for s in range(4))
        score = float((t + l_ - r - b).sum())
        if len(lattices) == 2:
            top_dir = _unit(
                _rotate_lattice(lattices[0], k)[0, 10] - _rotate_lattice(lattices[0], k)[0, 0]
            )
            between = _unit(lattices[1].reshape(-1, 2).mean(0) - lattices[0].reshape(-1, 2).mean(0))
            score += 0.5 * abs(float(top_dir @ between))
        scores.append(score)
    k = int(np.argmax(scores))
    views = [
        GridView(_rotate_lattice(lat, k), side_ink=tuple(s))
        for lat, s in zip(lattices, sides, strict=True)
    ]
    if len(views) == 2:
        right = _unit(views[0].lattice[0, 10] - views[0].lattice[0, 0])
        down = np.array([-right[1], right[0]])
        width = np.linalg.norm(views[0].lattice[0, 10] - views[0].lattice[0, 0])
        delta = views[1].centre - views[0].centre
        # Left to right; top to bottom only if they stand one above the other.
        axis = right if abs(float(delta @ right)) > 0.5 * width else down
        views.sort(key=lambda v: float(v.centre @ axis))
    return views


# ----------------------------------------------------------------------------- sharpness


def _median_last(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=-1)``, the same numbers, by a full sort: numpy's vectorised
    sort of many short rows is several times faster than the partition median uses.

    >>> _median_last(np.array([[4.0, 1.0, 3.0, 2.0], [5.0, 0.0, 9.0, 7.0]], np.float32))
    array([2.5, 6. ], dtype=float32)
    """
    n = a.shape[-1]
    s = np.sort(a, axis=-1)
    if n % 2:
        return s[..., n // 2]
    return (s[..., n // 2 - 1] + s[..., n // 2]) / 2


def line_width_mm(rect: np.ndarray, cell: int = CELL_PX, cell_mm: float = 3.5) -> float:
    """Apparent width (half-maximum, mm) of the printed inner lines in a rectified grid.

    Printed lines are 0.1–0.3 mm; a blurred photo spreads them. The mean profile
    across all inner lines is measured, so pencil marks barely move it.
    """
    resp = _ink_response(rect, cell)
    m = round(MARGIN_CELLS * cell)
    half = cell // 2
    ys = m + np.arange(1, 10) * cell
    across = np.arange(-half, half + 1)
    # Bands across the horizontal lines, then (from the transposed response, so every
    # median runs along contiguous rows) the vertical ones: (2, 9, 2 * half + 1, 10 cells)
    bands = np.stack([r[ys[:, None] + across, m : m + 10 * cell] for r in (resp, resp.T)])
    meds = _median_last(bands)
    # one profile per line, in the order horizontal 1, vertical 1, horizontal 2, ...
    p = np.mean(meds.transpose(1, 0, 2).reshape(18, -1), axis=0)
    p = p - np.median(np.concatenate([p[:3], p[-3:]]))
    peak = p[half - 2 : half + 3].max()
    if peak <= 0.02:
        return float("inf")
    # Full width at half maximum, with the crossings interpolated between pixels.
    k = half - 2 + int(np.argmax(p[half - 2 : half + 3]))
    lvl = peak / 2
    left = k
    while left > 0 and p[left - 1] >= lvl:
        left -= 1
    right = k
    while right < len(p) - 1 and p[right + 1] >= lvl:
        right += 1
    lo = left - 1 + (lvl - p[left - 1]) / (p[left] - p[left - 1] + 1e-9) if left > 0 else left
    hi = (
        right + (p[right] - lvl) / (p[right] - p[right + 1] + 1e-9) if right < len(p) - 1 else right
    )
    return float(hi - lo) * cell_mm / cell


# ----------------------------------------------------------------------------- reading


def read_card(
    grey: np.ndarray,
    *,
    classifier=None,
    max_line_mm: float = 0.75,
) -> CardReading:
    """Find, rectify, orient and read every grid in a greyscale photo.

    Raises :class:`CardError` (a :class:`UserError`) with one clear line when the
    photo has no card, a grid is cut off, or it is too blurred to read.
    """
    import time

    from piecebridge.vision import card_cells

    t0 = time.perf_counter()
    if grey.ndim == 3:
        grey = cv2.cvtColor(grey, cv2.COLOR_BGR2GRAY)
    quads = find_grids(grey)
    t1 = time.perf_counter()
    refined = [refine_lattice(grey, q, with_response=True) for q in quads]
    views = orient_grids(grey, [r[0] for r in refined], [r[1] for r in refined])
    t2 = time.perf_counter()
    clf = classifier or card_cells.default_classifier()
    grids = []
    for v in views:
        v.rectified = remap_grid(grey, v.lattice)
        v.sharpness_mm = line_width_mm(v.rectified)
        if v.sharpness_mm > max_line_mm:
            raise CardError(
                f"photo too blurred to read the card (printed lines look {v.sharpness_mm:.1f} mm "
                f"wide); hold the phone still and focus on the card"
            )
        cells, unknown = card_cells.classify_grid(v.rectified, clf)
        grids.append(GridReading(v, cells, unknown))
    t3 = time.perf_counter()
    timings = {"find": t1 - t0, "lattice": t2 - t1, "cells": t3 - t2}
    return CardReading(grids, grey.shape, timings=timings)


def cell_names() -> list[str]:
    """All 100 names, row-major (A1, B1, ..., J10)."""
    return [cell_name(r, c) for r in range(10) for c in range(10)]


def _angle_deg(v: np.ndarray) -> float:
    return math.degrees(math.atan2(v[1], v[0]))
