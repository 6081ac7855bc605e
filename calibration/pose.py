"""Where the board lies in the image: homography, lens bend and each tile's own offset.

A plain homography is not enough for real tables: lenses bend straight lines (up to a few
percent of the frame) and hands lay tiles a millimetre or two off the grid. A
:class:`BoardPose` maps canonical board points (cells, x east, y south) to image pixels in
three steps: the homography ``H`` to an ideal (undistorted) image; a per-tile shift, measured
at that tile's cross; and one radial distortion term (division model) about the image centre.

All three are fitted to the 16 tile crosses (:func:`fit_pose`), which is over-determined
(32 equations, 8 + 1 unknowns before the per-tile shifts take up what is left).

>>> pose = BoardPose(np.diag([100.0, 100.0, 1.0]), k=0.0, centre=(400.0, 400.0))
>>> pose.to_image(np.array([[1.0, 2.0]])).round(1).tolist()
[[100.0, 200.0]]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import cv2
import numpy as np
from piecebridge.calibration.geometry import N, project, rotate_canonical

#: Canonical centres of the 16 tile crosses, tile (i east, j south) at index 4 * j + i.
CROSS_CENTRES = np.array(
    [[2 * i + 1, 2 * j + 1] for j in range(4) for i in range(4)], dtype=np.float64
)
K_GRID = np.linspace(-0.48, 0.48, 9)  # radial terms tried first (division model)
#: A cross further than this (cells) from the fitted grid is not trusted: tiles laid by hand
#: sit a millimetre or two (under 0.1 cell) off, a piece edge taken for a line further.
KEEP_CELLS = 0.1


@dataclass
class BoardPose:
    """Canonical board cells -> image pixels (see module docstring)."""

    H: np.ndarray
    k: float = 0.0
    centre: tuple[float, float] = (0.0, 0.0)
    scale: float = 1000.0  # radius normalising the distortion term (half the diagonal)
    tile_offsets: np.ndarray = field(default_factory=lambda: np.zeros((16, 2)))
    tile_angles: np.ndarray = field(default_factory=lambda: np.zeros(16))  # radians
    crosses_found: int = 0
    residual: float = 0.0  # median cross misfit after the fit, in cells
    tile_color_lab: np.ndarray | None = None  # the tile colour the outline was found with
    inverted: bool = False  # the printed lines are lighter than the tiles

    # ---------------------------------------------------------------- mapping

    def _distort(self, u: np.ndarray) -> np.ndarray:
        """Ideal -> image pixels (inverse of the division model, by fixed-point steps)."""
        if self.k == 0.0:
            return u
        c = np.asarray(self.centre)
        du = (u - c) / self.scale
        d = du.copy()
        for _ in range(6):
            r2 = (d**2).sum(axis=-1, keepdims=True)
            d = du / (1.0 + self.k * r2)
        return c + d * self.scale

    def undistort_points(self, x: np.ndarray) -> np.ndarray:
        """Image -> ideal pixels."""
        c = np.asarray(self.centre)
        d = (np.asarray(x, np.float64) - c) / self.scale
        r2 = (d**2).sum(axis=-1, keepdims=True)
        return c + d * (1.0 + self.k * r2) * self.scale

    def _offset_at(self, pts: np.ndarray) -> np.ndarray:
        tile = np.clip(np.floor(pts / 2.0), 0, 3).astype(int)
        return self.tile_offsets[tile[..., 1] * 4 + tile[..., 0]]

    def _twisted(self, pts: np.ndarray) -> np.ndarray:
        """Canonical points moved with their tile's twist about the tile's cross."""
        if not self.tile_angles.any():
            return pts
        tile = np.clip(np.floor(pts / 2.0), 0, 3).astype(int)
        t = tile[..., 1] * 4 + tile[..., 0]
        c = CROSS_CENTRES[t]
        a = self.tile_angles[t]
        d = pts - c
        cos, sin = np.cos(a), np.sin(a)
        return c + np.stack(
            [cos * d[..., 0] - sin * d[..., 1], sin * d[..., 0] + cos * d[..., 1]], -1
        )

    def to_image(self, pts: np.ndarray) -> np.ndarray:
        """Canonical points (n, 2) -> image pixels (n, 2)."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        return self._distort(project(self.H, self._twisted(pts)) + self._offset_at(pts))

    def cell_size_px(self) -> float:
        c = self.corners
        return float(np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1).mean() / N)

    @property
    def corners(self) -> np.ndarray:
        """Image corners NW, NE, SE, SW (a copy).

        Kept until the pose changes: a board search asks for them (and the cell size) of
        one pose many times, and each mapping is some fifty small numpy steps."""
        key = (
            self.H.tobytes(), self.k, self.centre, self.scale,
            self.tile_offsets.tobytes(), self.tile_angles.tobytes(),
        )  # fmt: skip
        hit = self.__dict__.get("_corners")
        if hit is None or hit[0] != key:
            hit = (key, self.to_image(np.array([[0, 0], [N, 0], [N, N], [0, N]], float)))
            self.__dict__["_corners"] = hit
        return hit[1].copy()

    # ---------------------------------------------------------------- rectifying

    @cached_property
    def _maps(self) -> dict[tuple[int, float], tuple[np.ndarray, np.ndarray]]:
        return {}

    def rectify(self, image: np.ndarray, px_per_cell: int, margin_cells: float = 0.0) -> np.ndarray:
        """The board north-up at ``px_per_cell``; the map is made once per pose and size."""
        size = round((N + 2 * margin_cells) * px_per_cell)
        if self.k == 0.0 and not self.tile_offsets.any() and not self.tile_angles.any():
            # A plain homography: warp directly, no map to build.
            A = np.array(
                [[px_per_cell, 0, margin_cells * px_per_cell],
                 [0, px_per_cell, margin_cells * px_per_cell], [0, 0, 1]], float
            )  # fmt: skip
            return cv2.warpPerspective(
                image, A @ np.linalg.inv(self.H), (size, size), flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )  # fmt: skip
        key = (px_per_cell, margin_cells)
        if key not in self._maps:
            self._maps[key] = self._make_map(size, px_per_cell, margin_cells)
        m1, m2 = self._maps[key]
        return cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def _make_map(self, size: int, px: int, margin: float) -> tuple[np.ndarray, np.ndarray]:
        """remap() maps for the rectified board.

        Inside one tile the pose is a plain homography (the tile's twist about its cross,
        the board homography, the tile's shift), so each tile's block of the map is one
        projective map (``cv2.perspectiveTransform`` of the block's pixel grid, kept per
        size: :func:`_grid_blocks`), then bent by the lens term (:meth:`_lens`).
        """
        tiles = self._tile_matrices()
        if self.k == 0.0:
            xy = np.empty((size, size, 2), np.float32)
            for t, (y0, y1, x0, x1, pts) in _grid_blocks(size, px, margin):
                xy[y0:y1, x0:x1] = cv2.perspectiveTransform(pts, tiles[t]).reshape(y1 - y0, -1, 2)
            return cv2.convertMaps(xy, None, cv2.CV_16SC2)
        ux, uy = np.empty((size, size), np.float32), np.empty((size, size), np.float32)
        for t, (y0, y1, x0, x1, pts) in _grid_blocks(size, px, margin):
            bx, by = cv2.split(cv2.perspectiveTransform(pts, tiles[t]).reshape(y1 - y0, -1, 2))
            self._lens(bx, by)  # tile by tile: small blocks stay in the cache
            ux[y0:y1, x0:x1], uy[y0:y1, x0:x1] = bx, by
        return cv2.convertMaps(ux, uy, cv2.CV_16SC2)

    def _lens(self, ux: np.ndarray, uy: np.ndarray) -> None:
        """Ideal -> image pixels, in place (float32 maps), under the division model,
        radially: the image radius is f times the ideal one with f + q f^3 = 1, q = k r^2
        (two Newton steps; |q| < 0.5). A few buffers are reused."""
        cx, cy = np.float32(self.centre[0]), np.float32(self.centre[1])
        ux -= cx  # dx, dy
        uy -= cy
        q = ux * ux
        t = uy * uy
        q += t
        q *= np.float32(self.k / self.scale**2)
        f = 1.0 + q
        np.divide(1.0, f, out=f)
        f2, step, q3 = np.empty_like(f), np.empty_like(f), 3.0 * q
        for _ in range(2):
            # f -= (f + q f2 f - 1) / (1 + 3 q f2), each product in that order.
            np.multiply(f, f, out=f2)
            np.multiply(q, f2, out=step)
            step *= f
            step += f
            step -= 1.0
            np.multiply(q3, f2, out=t)
            t += 1.0
            step /= t
            f -= step
        ux *= f
        ux += cx
        uy *= f
        uy += cy

    def _tile_matrices(self) -> np.ndarray:
        """Canonical -> ideal image homography within each tile (16, 3, 3): the tile's twist
        about its cross, the board's ``H``, the tile's shift."""
        c, s = np.cos(self.tile_angles), np.sin(self.tile_angles)
        cx, cy = CROSS_CENTRES[:, 0], CROSS_CENTRES[:, 1]
        R = np.zeros((16, 3, 3))
        R[:, 0, 0], R[:, 0, 1], R[:, 0, 2] = c, -s, cx - c * cx + s * cy
        R[:, 1, 0], R[:, 1, 1], R[:, 1, 2] = s, c, cy - s * cx - c * cy
        R[:, 2, 2] = 1.0
        T = np.zeros((16, 3, 3))
        T[:, 0, 0] = T[:, 1, 1] = T[:, 2, 2] = 1.0
        T[:, :2, 2] = self.tile_offsets
        return T @ self.H @ R

    # ---------------------------------------------------------------- turning, saving

    def rotated(self, quarter_turns: int) -> BoardPose:
        turned = self._rotated(quarter_turns)
        turned.inverted, turned.tile_color_lab = self.inverted, self.tile_color_lab
        return turned

    def _rotated(self, quarter_turns: int) -> BoardPose:
        """The same board with north moved by quarter turns (see ``geometry.rotate_canonical``)."""
        H = rotate_canonical(self.H, quarter_turns)
        # Where each new cross centre sits in the old canonical frame.
        old = project(H, CROSS_CENTRES)
        old_canon = project(np.linalg.inv(self.H), old)
        idx = [int(np.argmin(np.linalg.norm(CROSS_CENTRES - p, axis=1))) for p in old_canon]
        return BoardPose(
            H,
            self.k,
            self.centre,
            self.scale,
            self.tile_offsets[idx].copy(),
            self.tile_angles[idx].copy(),
            self.crosses_found,
            self.residual,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "homography": self.H.tolist(),
            "radial_k": self.k,
            "centre": list(self.centre),
            "radius": self.scale,
            "tile_offsets": self.tile_offsets.round(3).tolist(),
            "tile_angles": self.tile_angles.round(5).tolist(),
            "light_lines": self.inverted,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> BoardPose:
        H = np.asarray(d["homography"], np.float64)
        if H.shape != (3, 3) or not np.all(np.isfinite(H)):
            raise ValueError("homography must be a finite 3x3 matrix")
        offsets = np.asarray(d.get("tile_offsets", np.zeros((16, 2))), np.float64)
        if offsets.shape != (16, 2):
            raise ValueError("tile_offsets must be 16 x 2")
        angles = np.asarray(d.get("tile_angles", np.zeros(16)), np.float64)
        if angles.shape != (16,):
            raise ValueError("tile_angles must have 16 values")
        pose = cls(
            H,
            float(d.get("radial_k", 0.0)),
            (float(d["centre"][0]), float(d["centre"][1])),
            float(d.get("radius", 1000.0)),
            offsets,
            angles,
        )
        pose.inverted = bool(d.get("light_lines", False))
        return pose


_GRIDS: dict[tuple[int, int, float], list] = {}


def _grid_blocks(
    size: int, px: int, margin: float
) -> list[tuple[int, tuple[int, int, int, int, np.ndarray]]]:
    """Per tile of a rectified board ``size`` pixels wide (``px`` per cell, ``margin``
    cells around): ``(tile, (y0, y1, x0, x1, points))``, the points being its pixels'
    canonical coordinates (n, 1, 2) float32, made once per size. The points are the
    float32 grid the map always used."""
    key = (size, px, margin)
    blocks = _GRIDS.get(key)  # one lookup: another thread may clear the cache meanwhile
    if blocks is None:
        if len(_GRIDS) >= 12:  # a few sizes are in use at a time (8 bytes a pixel each)
            _GRIDS.clear()
        g = np.arange(size, dtype=np.float32) / px - margin
        tile_of = np.clip(np.floor(g / 2), 0, 3).astype(int)  # tile column (or row) of a pixel
        starts = [int(np.searchsorted(tile_of, t)) for t in range(4)] + [size]
        blocks = []
        for j in range(4):
            y0, y1 = starts[j], starts[j + 1]
            for i in range(4):
                x0, x1 = starts[i], starts[i + 1]
                if y1 <= y0 or x1 <= x0:
                    continue
                pts = np.empty((y1 - y0, x1 - x0, 2), np.float32)
                pts[..., 0], pts[..., 1] = g[None, x0:x1], g[y0:y1, None]
                blocks.append((4 * j + i, (y0, y1, x0, x1, pts.reshape(-1, 1, 2))))
        _GRIDS[key] = blocks
    return blocks


def _homographies(P: np.ndarray, U: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares homographies taking ``P`` (n, 2) to each ``U[i]`` (m, n, 2), all at once
    (normalised direct linear transform, one batched eigen-solve of the 9x9 normal
    matrices). Returns ``H`` (m, 3, 3) and which of them are usable (not degenerate)."""
    m, n = U.shape[:2]

    def normaliser(pts: np.ndarray) -> np.ndarray:  # (..., n, 2) -> (..., 3, 3)
        c = pts.mean(axis=-2)
        d = np.sqrt(((pts - c[..., None, :]) ** 2).sum(axis=-1)).mean(axis=-1)
        s = np.sqrt(2) / np.maximum(d, 1e-12)
        T = np.zeros((*s.shape, 3, 3))
        T[..., 0, 0] = T[..., 1, 1] = s
        T[..., 0, 2], T[..., 1, 2] = -s * c[..., 0], -s * c[..., 1]
        T[..., 2, 2] = 1.0
        return T

    Tp, Tu = normaliser(P), normaliser(U)
    a = P @ Tp[:2, :2].T + Tp[:2, 2]
    b = U * Tu[:, None, [0, 1], [0, 1]] + Tu[:, None, :2, 2]
    A = np.zeros((m, 2 * n, 9))
    A[:, 0::2, 0:2], A[:, 0::2, 2] = a, 1.0
    A[:, 0::2, 6:8], A[:, 0::2, 8] = -b[..., :1] * a, -b[..., 0]
    A[:, 1::2, 3:5], A[:, 1::2, 5] = a, 1.0
    A[:, 1::2, 6:8], A[:, 1::2, 8] = -b[..., 1:] * a, -b[..., 1]
    w, v = np.linalg.eigh(np.swapaxes(A, 1, 2) @ A)
    h = v[:, :, 0].reshape(m, 3, 3)
    Tu_inv = np.zeros_like(Tu)
    Tu_inv[:, 0, 0] = Tu_inv[:, 1, 1] = 1.0 / Tu[:, 0, 0]
    Tu_inv[:, :2, 2] = -Tu[:, :2, 2] / Tu[:, :1, 0]
    Tu_inv[:, 2, 2] = 1.0
    H = Tu_inv @ h @ Tp
    ok = (w[:, 1] > 1e-12 * np.maximum(w[:, -1], 1e-300)) & (np.abs(H[:, 2, 2]) > 1e-12)
    H = H / np.where(ok, H[:, 2, 2], 1.0)[:, None, None]
    return H, ok


def fit_pose(
    image_pts: np.ndarray,
    found: np.ndarray,
    image_size: tuple[int, int],
    cell_px: float,
    fit_lens: bool = True,
) -> BoardPose | None:
    """Fit a :class:`BoardPose` to tile-cross image points (16, 2) where ``found``.

    The radial term is chosen on a grid (cheap and free of local minima) by a truncated-
    quadratic cost, so a cross caught on a piece edge cannot pull the lens; RANSAC then drops
    wild points under that bend, and the choice is made again without them. It is fitted
    only from ten crosses around the whole board (else it trades with perspective and bends
    the board's far side) and kept only when it explains a tenth of the misfit. Crosses the
    chosen model misses by more than ``KEEP_CELLS`` are dropped; the tiles' own shifts take
    what is left.
    """
    w, h = image_size
    centre = ((w - 1) / 2.0, (h - 1) / 2.0)
    scale = float(np.hypot(w, h) / 2.0)
    P, X = CROSS_CENTRES[found], image_pts[found]
    idx = np.flatnonzero(found)
    if len(P) < 6:
        return None
    cap = (0.08 * cell_px) ** 2

    def trials(ks: np.ndarray, sel: np.ndarray | None = None) -> list[tuple]:
        """(robust cost, k, H, undistorted points, squared misfits) for each k."""
        ks = np.atleast_1d(np.asarray(ks, np.float64))
        c = np.asarray(centre)
        d = (X - c) / scale
        r2 = (d**2).sum(axis=1)[None, :, None]
        U = c + d[None] * (1.0 + ks[:, None, None] * r2) * scale  # (m, n, 2)
        Hs, ok = _homographies(P if sel is None else P[sel], U if sel is None else U[:, sel])
        # Every H applied to every canonical point at once.
        q = np.einsum("mij,nj->mni", Hs, np.hstack([P, np.ones((len(P), 1))]))
        e2 = ((q[..., :2] / q[..., 2:3] - U) ** 2).sum(axis=-1)  # (m, n)
        cost = np.minimum(e2, cap).sum(axis=1)
        return [(float(cost[i]), float(ks[i]), Hs[i], U[i], e2[i]) for i in np.flatnonzero(ok)]

    # The bend is only measurable from crosses around the whole board: from one half (a
    # calibration layout covers the other) it would be extrapolated wildly.
    tiles = np.stack([idx % 4, idx // 4], axis=1)
    around = all(0 in tiles[:, a] and 3 in tiles[:, a] for a in (0, 1))
    lens = fit_lens and len(P) >= 10 and around
    grid = K_GRID if lens else np.zeros(1)
    coarse = trials(grid)
    if not coarse:
        return None
    best = min(coarse, key=lambda t: t[0])
    # Wild points (a piece edge half a cell off) out by RANSAC, under that bend (a strong
    # lens bends the corner crosses further than a plain homography's threshold). At most
    # 16 points, mostly good: a few hundred samples are plenty.
    _, inl = cv2.findHomography(
        P, best[3], cv2.RANSAC, ransacReprojThreshold=0.15 * cell_px, maxIters=300,
        confidence=0.99,
    )  # fmt: skip
    if inl is None or inl.sum() < 6:
        return None
    inl = inl.ravel().astype(bool)
    if not inl.all():
        P, X, idx = P[inl], X[inl], idx[inl]
        coarse = trials(grid)
        if not coarse:
            return None
        best = min(coarse, key=lambda t: t[0])
    if lens:  # then a finer look around the best coarse value
        step = K_GRID[1] - K_GRID[0]
        fine = trials(best[1] + np.linspace(-step, step, 9))
        best = min([best, *fine], key=lambda t: t[0])
        flat = [t for t in coarse if t[1] == 0.0]
        if flat and best[0] > 0.9 * flat[0][0]:
            best = flat[0]  # a bend that explains this little is noise
    # Keep the crosses the chosen model explains; fit the homography to them alone.
    keep = best[4] < (KEEP_CELLS * cell_px) ** 2
    if keep.sum() < 6:
        return None
    if not keep.all():
        refit = trials(np.array([best[1]]), keep)
        best = refit[0] if refit else best
    _, k, H, U, _ = best
    P, U, idx = P[keep], U[keep], idx[keep]
    pose = BoardPose(H, float(k), centre, scale)
    resid = U - project(H, P)
    offsets = np.zeros((16, 2))
    offsets[idx] = resid
    # Tiles whose cross was hidden borrow the mean shift of those seen (usually ~0).
    missing = np.ones(16, bool)
    missing[idx] = False
    missing = np.flatnonzero(missing)
    if len(missing):
        offsets[missing] = np.median(resid, axis=0)
    pose.tile_offsets = offsets
    pose.crosses_found = len(idx)
    pose.residual = float(np.median(np.linalg.norm(resid, axis=1)) / cell_px)
    return pose
