"""Find the Reflec board in a photo: coarse outline, then a grid fit on the tile crosses.

Two stages, both tolerant of pieces and hands:

1. **Outline.** The tiles are the largest region of one colour near the middle of the view.
   A few candidate colours are tried (the most common colours of the frame and of its
   centre); each gives a mask whose biggest blob is reduced to a quadrilateral.
2. **Grid fit.** Each of the 16 tiles carries a printed cross splitting it into 2x2 cells.
   In the roughly rectified board each cross arm is found as the strongest dark ridge in
   its band; arms hidden by a piece are skipped. The surviving cross centres fit the board
   homography with RANSAC, twice (coarse, then fine). Tile gaps and twists only move single
   crosses, which the robust fit treats as noise.

>>> import numpy as np
>>> find_board(np.zeros((120, 160, 3), np.uint8))
Traceback (most recent call last):
...
piecebridge.vision.locate.BoardNotFound: no board in view: no tile-coloured region large enough
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from piecebridge.vision.geometry import (
    CANONICAL_CORNERS,
    N,
    cell_size_px,
    project,
    rectify,
    scale_homography,
)

from piecebridge.errors import UserError

WORK_WIDTH = 640  # outline search runs at this width: fast and smooth enough
CROSS_CENTRES = np.array(
    [[2 * i + 1, 2 * j + 1] for j in range(4) for i in range(4)], dtype=np.float64
)


class BoardNotFound(UserError):
    """No usable Reflec board in the image (absent, cut off, or unreadable grid)."""


@dataclass
class BoardFit:
    """A located board: homography (canonical cells -> image pixels) and evidence."""

    H: np.ndarray
    crosses_found: int  # tile crosses that supported the fit (of 16)
    residual: float  # median cross misfit, in cells
    tile_color_lab: np.ndarray = field(default_factory=lambda: np.zeros(3))
    cross_points: np.ndarray | None = None  # (16, 2) image points or NaN

    @property
    def corners(self) -> np.ndarray:
        """Image corners NW, NE, SE, SW."""
        return project(self.H, CANONICAL_CORNERS)


# --------------------------------------------------------------------------- outline


def _candidate_colours(lab: np.ndarray, max_candidates: int = 4) -> list[np.ndarray]:
    """Most common colours of the centre and of the whole frame (Lab, coarse bins)."""
    h, w = lab.shape[:2]
    regions = [lab[h // 4 : 3 * h // 4, w // 4 : 3 * w // 4], lab]
    found: list[np.ndarray] = []
    for region in regions:
        px = region.reshape(-1, 3).astype(np.int32)
        key = (px[:, 0] // 24) * 1024 + (px[:, 1] // 10) * 32 + (px[:, 2] // 10)
        keys, counts = np.unique(key, return_counts=True)
        for k in keys[np.argsort(counts)[::-1][:3]]:
            colour = px[key == k].mean(axis=0)
            if all(np.linalg.norm(colour - c) > 12 for c in found):
                found.append(colour)
    return found[:max_candidates]


def _quad_from_mask(mask: np.ndarray) -> np.ndarray | None:
    """Four corners of the biggest blob in ``mask``, or None if it is not board-like."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = stats[best, cv2.CC_STAT_AREA]
    if area < 0.02 * mask.size:
        return None
    contours, _ = cv2.findContours(
        (labels == best).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    perimeter = cv2.arcLength(hull, True)
    for eps in np.linspace(0.01, 0.1, 19):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            quad = approx.reshape(4, 2).astype(np.float64)
            if area / max(cv2.contourArea(quad.astype(np.float32)), 1.0) < 0.55:
                return None  # blob does not fill its outline: not a board
            return quad
        if len(approx) < 4:
            return None
    return None


def _order_quad(quad: np.ndarray) -> np.ndarray:
    """Order corners clockwise in the image starting from the top-left-most."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(quad.sum(axis=1)))
    return np.roll(quad, -start, axis=0)


def _outline_candidates(bgr: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """Board outlines (image pixels, ordered), the tile colour that produced each, and
    whether the outline's blob runs into the frame edge."""
    scale = WORK_WIDTH / bgr.shape[1]
    small = cv2.resize(bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    small = cv2.medianBlur(small, 5)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    k = max(3, round(small.shape[1] / 80) | 1)
    close_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    out = []
    for colour in _candidate_colours(lab):
        diff = lab - colour
        # Lightness varies with uneven light much more than hue does: weigh it down.
        dist = np.sqrt(0.15 * diff[..., 0] ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)
        mask = (dist < 14).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close_kernel)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, close_kernel)
        quad = _quad_from_mask(mask)
        if quad is not None:
            h, w = mask.shape
            at_edge = bool(
                quad[:, 0].min() < 2
                or quad[:, 1].min() < 2
                or quad[:, 0].max() > w - 3
                or quad[:, 1].max() > h - 3
            )
            out.append((_order_quad(quad) / scale, colour, at_edge))
    return out


# --------------------------------------------------------------------------- grid fit


def _ridge_map(gray: np.ndarray, px_per_cell: int) -> np.ndarray:
    """Dark thin lines as bright ridges (black-hat), float32."""
    k = max(3, int(px_per_cell * 0.25) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    return cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel).astype(np.float32)


_SMOOTH = np.array([0.054, 0.244, 0.403, 0.244, 0.054], np.float32)  # Gaussian, sigma 1


def _peaks(profiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sub-pixel peak and prominence (peak over median, in MADs) of each row of ``profiles``."""
    p = profiles
    padded = np.pad(p, ((0, 0), (2, 2)), mode="edge")
    p = sum(_SMOOTH[k] * padded[:, k : k + p.shape[1]] for k in range(5))
    i = np.argmax(p, axis=1)
    rows = np.arange(len(p))
    med = np.median(p, axis=1)
    mad = np.median(np.abs(p - med[:, None]), axis=1) + 1e-3
    left = p[rows, np.maximum(i - 1, 0)]
    right = p[rows, np.minimum(i + 1, p.shape[1] - 1)]
    centre = p[rows, i]
    denom = left - 2 * centre + right
    inside = (i > 0) & (i < p.shape[1] - 1) & (denom < 0)
    offset = np.where(inside, 0.5 * (left - right) / np.where(denom < 0, denom, -1), 0.0)
    return i + offset, (centre - med) / mad


def find_crosses(
    ridge: np.ndarray, px_per_cell: int, margin_cells: float, search: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """Locate the 16 tile crosses in a rectified ridge map.

    Each cross line is measured on both of its arms (the crossing itself is skipped); an arm
    counts when its ridge stands out, and two arms of one line must agree, else one of them
    caught a piece's edge. Returns rectified-pixel positions ``(16, 2)`` (NaN where not
    found) and the number of arms that supported each. ``search`` is the half-width searched,
    in cells; the rectified margin must be at least ``search + 0.85 - 1`` cells.
    """
    S, m = px_per_cell, margin_cells * px_per_cell
    half_arm = int(0.85 * S)
    inner = int(0.2 * S)
    sw = int(search * S)
    centres = np.round(CROSS_CENTRES * S + m).astype(int)
    prof_x, prof_y = [], []  # per cross: two arm profiles across the vertical / horizontal line
    for cx, cy in centres:
        cols = ridge[:, cx - sw : cx + sw + 1]
        prof_x.append(cols[cy - half_arm : cy - inner].sum(axis=0))
        prof_x.append(cols[cy + inner : cy + half_arm].sum(axis=0))
        rows = ridge[cy - sw : cy + sw + 1]
        prof_y.append(rows[:, cx - half_arm : cx - inner].sum(axis=1))
        prof_y.append(rows[:, cx + inner : cx + half_arm].sum(axis=1))
    px, qx = _peaks(np.asarray(prof_x))
    py, qy = _peaks(np.asarray(prof_y))
    px, qx, py, qy = (a.reshape(16, 2) for a in (px, qx, py, qy))
    x = _combine_arms(px, qx > 4.0, 0.12 * S)
    y = _combine_arms(py, qy > 4.0, 0.12 * S)
    pts = np.stack([centres[:, 0] - sw + x, centres[:, 1] - sw + y], axis=1)
    support = ((qx > 4.0).sum(axis=1) + (qy > 4.0).sum(axis=1)) * ~np.isnan(pts[:, 0])
    return pts, support


def _combine_arms(pos: np.ndarray, ok: np.ndarray, tolerance: float) -> np.ndarray:
    """Mean position of the valid arms of each line, NaN when none or when they disagree."""
    both = ok.all(axis=1)
    disagree = both & (np.abs(pos[:, 0] - pos[:, 1]) > tolerance)
    total = (pos * ok).sum(axis=1)
    count = ok.sum(axis=1)
    out = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    out[disagree] = np.nan
    return out


def refine_homography(
    gray: np.ndarray,
    H: np.ndarray,
    px_per_cell: int = 32,
    search: float = 0.5,
    min_crosses: int = 6,
) -> BoardFit | None:
    """Fit ``H`` (canonical -> image) to the tile crosses seen near its prediction."""
    margin = 0.5
    rect = rectify(gray, H, px_per_cell, margin)
    ridge = _ridge_map(rect, px_per_cell)
    pts, _support = find_crosses(ridge, px_per_cell, margin, search)
    ok = ~np.isnan(pts[:, 0])
    if ok.sum() < min_crosses:
        return None
    A = scale_homography(px_per_cell, margin)
    image_pts = project(H @ np.linalg.inv(A), pts[ok])
    cell_px = cell_size_px(H)
    H_new, inliers = cv2.findHomography(
        CROSS_CENTRES[ok], image_pts, cv2.RANSAC, ransacReprojThreshold=0.12 * cell_px
    )
    if H_new is None or inliers is None or inliers.sum() < min_crosses:
        return None
    inl = inliers.ravel().astype(bool)
    resid = np.linalg.norm(project(H_new, CROSS_CENTRES[ok][inl]) - image_pts[inl], axis=1)
    all_pts = np.full((16, 2), np.nan)
    idx = np.flatnonzero(ok)[inl]
    all_pts[idx] = image_pts[inl]
    return BoardFit(
        H=H_new,
        crosses_found=int(inl.sum()),
        residual=float(np.median(resid) / cell_px),
        cross_points=all_pts,
    )


def _check_in_frame(H: np.ndarray, shape: tuple[int, ...]) -> None:
    h, w = shape[:2]
    corners = project(H, CANONICAL_CORNERS)
    pad = 0.15 * cell_size_px(H)  # the board's outer rim beyond the outer cells
    if (
        corners[:, 0].min() < pad
        or corners[:, 1].min() < pad
        or corners[:, 0].max() > w - 1 - pad
        or corners[:, 1].max() > h - 1 - pad
    ):
        raise BoardNotFound("board cut off by the frame edge: move the camera so all 16 tiles show")


def _corner_gap(H: np.ndarray, quad: np.ndarray) -> float:
    """Median distance (cells) between the fitted board's corners and an outline's corners."""
    fitted = project(H, CANONICAL_CORNERS)
    gaps = [np.median(np.linalg.norm(np.roll(fitted, k, axis=0) - quad, axis=1)) for k in range(4)]
    return float(min(gaps) / cell_size_px(H))


def find_board(bgr: np.ndarray, tile_color_lab: np.ndarray | None = None) -> BoardFit:
    """Locate the board from scratch. North is not decided here (see :mod:`geometry`).

    Raises :class:`BoardNotFound` when no board is in view or it is cut off by the frame.
    """
    if bgr.ndim != 3 or min(bgr.shape[:2]) < 64:
        raise BoardNotFound("no board in view: image too small")
    candidates = _outline_candidates(bgr)
    if tile_color_lab is not None:
        candidates.sort(key=lambda qc: float(np.linalg.norm(qc[1] - tile_color_lab)))
    if not candidates:
        raise BoardNotFound("no board in view: no tile-coloured region large enough")
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    best: BoardFit | None = None
    cut_off = False
    for quad, colour, at_edge in candidates:
        H0 = cv2.getPerspectiveTransform(
            CANONICAL_CORNERS.astype(np.float32), quad.astype(np.float32)
        )
        fit = refine_homography(gray, H0, px_per_cell=24, search=0.6)
        if fit is None:
            continue
        fit = refine_homography(gray, fit.H, px_per_cell=48, search=0.25) or fit
        # The grid must explain the whole outline; a partial board fits crosses and gaps
        # at the wrong scale.
        if _corner_gap(fit.H, quad) > 0.6:
            cut_off = cut_off or at_edge
            continue
        if at_edge:
            cut_off = True
            continue
        fit.tile_color_lab = colour
        if best is None or fit.crosses_found > best.crosses_found:
            best = fit
        if best.crosses_found >= 12:
            break
    if best is None:
        if cut_off:
            raise BoardNotFound(
                "board cut off by the frame edge: move the camera so all 16 tiles show"
            )
        raise BoardNotFound("no board in view: no 8x8 tile grid found")
    _check_in_frame(best.H, bgr.shape)
    return best


def find_edges(gray: np.ndarray, px_per_cell: int, margin_cells: float) -> np.ndarray:
    """Offset (cells, NaN if unclear) of each board side (N, E, S, W) in a rectified board.

    The board's outer edge is a step from tile to table; each side is measured as the
    strongest step across a band of +-0.4 cells, along the middle six cells of that side.
    """
    S = px_per_cell
    m = round(margin_cells * S)
    band = int(0.4 * S)
    g = gray.astype(np.float32)
    gy = np.abs(cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3))
    gx = np.abs(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3))
    lo, hi = m + S, m + 7 * S
    far = m + N * S
    profiles = [
        gy[m - band : m + band + 1, lo:hi].sum(axis=1),  # north
        gx[lo:hi, far - band : far + band + 1].sum(axis=0),  # east
        gy[far - band : far + band + 1, lo:hi].sum(axis=1),  # south
        gx[lo:hi, m - band : m + band + 1].sum(axis=0),  # west
    ]
    profiles = np.asarray(profiles) / (hi - lo)  # mean gradient along the side
    pos, prom = _peaks(profiles)
    off = (pos - band) / S
    strong = (profiles.max(axis=1) > 40.0) & (prom > 3.0)  # a real tile/table step
    return np.where(strong, off, np.nan)
