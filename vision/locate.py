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


def _arm_position(profile: np.ndarray) -> tuple[float, float]:
    """Sub-pixel peak of a 1-D ridge profile and its prominence (peak over median, in MADs)."""
    p = cv2.GaussianBlur(profile.reshape(1, -1), (0, 0), 1.0).ravel()
    i = int(np.argmax(p))
    med = float(np.median(p))
    mad = float(np.median(np.abs(p - med))) + 1e-3
    offset = 0.0
    if 0 < i < len(p) - 1:
        denom = p[i - 1] - 2 * p[i] + p[i + 1]
        if denom < 0:
            offset = 0.5 * (p[i - 1] - p[i + 1]) / denom
    return i + offset, (p[i] - med) / mad


def find_crosses(
    ridge: np.ndarray, px_per_cell: int, margin_cells: float, search: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """Locate the 16 tile crosses in a rectified ridge map.

    Returns rectified-pixel positions ``(16, 2)`` (NaN where not found) and the number
    of arms that supported each. ``search`` is the half-width searched, in cells.
    """
    S, m = px_per_cell, margin_cells * px_per_cell
    pts = np.full((16, 2), np.nan)
    support = np.zeros(16, int)
    half_arm = int(0.85 * S)
    inner = int(0.2 * S)  # skip the crossing itself, shared by both arms
    sw = int(search * S)
    h, w = ridge.shape
    for t, (cx, cy) in enumerate(CROSS_CENTRES * S + m):
        cx, cy = round(cx), round(cy)
        xs, ys = [], []
        x0, x1 = max(cx - sw, 0), min(cx + sw + 1, w)
        y0, y1 = max(cy - sw, 0), min(cy + sw + 1, h)
        for a, b in ((cy - half_arm, cy - inner), (cy + inner, cy + half_arm)):
            band = ridge[max(a, 0) : min(b, h), x0:x1]
            if band.size:
                pos, prom = _arm_position(band.sum(axis=0))
                if prom > 4.0:
                    xs.append(x0 + pos)
        for a, b in ((cx - half_arm, cx - inner), (cx + inner, cx + half_arm)):
            band = ridge[y0:y1, max(a, 0) : min(b, w)]
            if band.size:
                pos, prom = _arm_position(band.sum(axis=1))
                if prom > 4.0:
                    ys.append(y0 + pos)
        # Two arms of one line must agree, else one of them caught a piece's edge.
        if xs and ys:
            if len(xs) == 2 and abs(xs[0] - xs[1]) > 0.12 * S:
                xs = []
            if len(ys) == 2 and abs(ys[0] - ys[1]) > 0.12 * S:
                ys = []
        if xs and ys:
            pts[t] = (np.mean(xs), np.mean(ys))
            support[t] = len(xs) + len(ys)
    return pts, support


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
