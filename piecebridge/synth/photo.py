"""A generic overhead camera that photographs a drawn table scene like a real one would.

The scene is a flat *world raster* (a top-down BGR picture of the table at a known scale,
``mm_per_px``) plus optional 3-D solids standing on it (coins, pawns, dice, a mug) and occluders
above it (a hand or arm).  :func:`photograph` looks at it through a pinhole camera with OpenCV's
lens-distortion model and then degrades the picture: uneven coloured light, cast and soft shadows,
specular glare, defocus and motion blur, sensor noise, JPEG.

World frame (millimetres): ``x`` to the right of the raster, ``y`` down the raster, ``height`` up
from the table.  The raster pixel ``(col, row)`` is centred on the world point
``world_origin_mm + (col, row) * mm_per_px``.  Internally the OpenCV object frame is
``(x, y, -height)`` so that ``cv2.projectPoints`` with :attr:`Camera.rvec`, :attr:`Camera.tvec`,
:attr:`Camera.K` and :attr:`Camera.dist` gives the same pixels as :meth:`Camera.project`.

Example:

>>> import numpy as np
>>> world = np.full((400, 400, 3), 200, np.uint8)
>>> cam = Camera(image_size=(320, 240), focal_px=300.0, target_mm=(100.0, 100.0), height_mm=300.0)
>>> photo = photograph(world, 0.5, cam, PhotoStyle.clean(), np.random.default_rng(0))
>>> photo.image.shape
(240, 320, 3)
>>> photo.project([(100.0, 100.0)]).round(1).tolist()
[[159.5, 119.5]]
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

BGR = tuple[float, float, float]

# --------------------------------------------------------------------------------------------
# Camera
# --------------------------------------------------------------------------------------------


def _frozen(a: np.ndarray) -> np.ndarray:
    """Read-only array: camera properties are cached, so nobody may change them in place."""
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class Camera:
    """A pinhole camera with OpenCV distortion, placed above the table.

    Attributes (units in the names):
        image_size: ``(width, height)`` in pixels.
        focal_px: focal length in pixels (``fx``); ``aspect`` gives ``fy = fx * aspect``.
        principal_px: principal point ``(cx, cy)``; ``None`` = the image centre.
        dist_coeffs: OpenCV distortion ``(k1, k2, p1, p2, k3[, k4, k5, k6])``.
        target_mm: the table point ``(x, y)`` the optical axis passes through.
        height_mm: height of the camera centre above the table.
        tilt_deg: angle of the optical axis from vertical (0 = straight down).
        tilt_azimuth_deg: where the camera stands off from ``target_mm`` when tilted:
            0 = towards ``+y`` (bottom of the raster, "south" of an upright board), 90 = ``+x``.
        yaw_deg: rotation about the optical axis; 0 keeps image ``x`` along world ``x``,
            positive turns the image x-axis from ``+x`` towards ``+y``.

    >>> cam = Camera(image_size=(640, 480), focal_px=500.0, target_mm=(0.0, 0.0), height_mm=500.0)
    >>> cam.project([(0.0, 0.0), (100.0, 0.0)]).round(2).tolist()
    [[319.5, 239.5], [419.5, 239.5]]
    """

    image_size: tuple[int, int] = (1920, 1080)
    focal_px: float = 1400.0
    aspect: float = 1.0
    principal_px: tuple[float, float] | None = None
    dist_coeffs: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)
    target_mm: tuple[float, float] = (0.0, 0.0)
    height_mm: float = 500.0
    tilt_deg: float = 0.0
    tilt_azimuth_deg: float = 0.0
    yaw_deg: float = 0.0

    def __post_init__(self) -> None:
        # plain tuples of floats, so cameras hash (the lens grids and maps are cached by camera)
        for name in ("image_size", "principal_px", "dist_coeffs", "target_mm"):
            value = getattr(self, name)
            if value is not None:
                cast = int if name == "image_size" else float
                object.__setattr__(self, name, tuple(cast(v) for v in value))

    # -- intrinsics ---------------------------------------------------------------------------
    @functools.cached_property
    def K(self) -> np.ndarray:
        """3x3 camera matrix (float64)."""
        w, h = self.image_size
        cx, cy = self.principal_px if self.principal_px is not None else ((w - 1) / 2, (h - 1) / 2)
        return _frozen(
            np.array(
                [[self.focal_px, 0.0, cx], [0.0, self.focal_px * self.aspect, cy], [0.0, 0.0, 1.0]]
            )
        )

    @functools.cached_property
    def dist(self) -> np.ndarray:
        """Distortion coefficients as OpenCV wants them (float64, 5 or 8 values)."""
        d = list(self.dist_coeffs)
        d += [0.0] * ((5 if len(d) <= 5 else 8) - len(d))
        return _frozen(np.array(d, dtype=np.float64))

    # -- extrinsics ---------------------------------------------------------------------------
    @functools.cached_property
    def center_mm(self) -> np.ndarray:
        """Camera centre ``(x, y, height)`` in world millimetres."""
        off = self.height_mm * math.tan(math.radians(self.tilt_deg))
        az = math.radians(self.tilt_azimuth_deg)
        return _frozen(
            np.array(
                [
                    self.target_mm[0] + off * math.sin(az),
                    self.target_mm[1] + off * math.cos(az),
                    self.height_mm,
                ]
            )
        )

    @functools.cached_property
    def R(self) -> np.ndarray:
        """World-to-camera rotation (OpenCV object frame ``(x, y, -height)``)."""
        c = self.center_mm
        z = np.array([self.target_mm[0] - c[0], self.target_mm[1] - c[1], c[2]])
        z /= np.linalg.norm(z)
        yaw = math.radians(self.yaw_deg)
        ref = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        x = ref - ref.dot(z) * z
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        return _frozen(np.stack([x, y, z]))

    @functools.cached_property
    def tvec(self) -> np.ndarray:
        """Translation for ``cv2.projectPoints`` (object frame ``(x, y, -height)``)."""
        c = self.center_mm
        return _frozen(-self.R @ np.array([c[0], c[1], -c[2]]))

    @functools.cached_property
    def rvec(self) -> np.ndarray:
        """Rodrigues rotation vector for ``cv2.projectPoints``."""
        return _frozen(cv2.Rodrigues(np.array(self.R))[0].ravel())

    def replace(self, **changes: object) -> Camera:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    # -- projection ---------------------------------------------------------------------------
    def project(self, points_mm: Sequence | np.ndarray) -> np.ndarray:
        """Exact image position (pixels, float64 ``(N, 2)``) of world points.

        ``points_mm`` is ``(N, 2)`` table points or ``(N, 3)`` with a height in mm.
        Pixel ``(0, 0)`` is the centre of the top-left pixel (OpenCV convention).
        """
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, np.shape(points_mm)[-1])
        obj = np.zeros((len(pts), 3))
        obj[:, :2] = pts[:, :2]
        if pts.shape[1] > 2:
            obj[:, 2] = -pts[:, 2]
        if len(obj) == 0:
            return np.zeros((0, 2))
        img, _ = cv2.projectPoints(obj, self.rvec, self.tvec, self.K, self.dist)
        return img.reshape(-1, 2)

    def depth_mm(self, points_mm: Sequence | np.ndarray) -> np.ndarray:
        """Distance along the optical axis of world points (``(N,)``), for sizes in pixels."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, np.shape(points_mm)[-1])
        obj = np.zeros((len(pts), 3))
        obj[:, :2] = pts[:, :2]
        if pts.shape[1] > 2:
            obj[:, 2] = -pts[:, 2]
        return (obj @ self.R.T + self.tvec)[:, 2]

    @functools.cached_property
    def valid_radius(self) -> float:
        """Normalised radius up to which the lens model is one-to-one.

        Beyond it OpenCV's polynomial folds back, so a point far outside the view would land
        inside the image; geometry that reaches out there is clipped first
        (:meth:`clip_segment`).
        """
        r = np.linspace(1e-3, 3.0, 3000)
        xd, _ = _distort(r, np.zeros_like(r), np.array([*self.dist[:2], 0, 0, *self.dist[4:]]))
        bad = np.nonzero(np.diff(xd) <= 0)[0]
        return float(r[bad[0]] * 0.98) if len(bad) else 3.0

    def clip_segment(
        self, p0: Sequence[float], p1: Sequence[float]
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The part of a 3-D segment ``(x, y, height)`` the lens model projects faithfully
        (in front of the camera, inside :attr:`valid_radius`), or ``None``."""
        t = np.linspace(0.0, 1.0, 65)
        a, b = np.asarray(p0, float), np.asarray(p1, float)
        pts = a + (b - a) * t[:, None]
        obj = np.column_stack([pts[:, :2], -pts[:, 2]])
        cam = obj @ self.R.T + self.tvec
        z = cam[:, 2]
        ok = z > 1.0
        r = np.hypot(cam[:, 0], cam[:, 1]) / np.where(ok, z, 1.0)
        ok &= r < self.valid_radius
        if not ok.any():
            return None
        idx = np.nonzero(ok)[0]
        return pts[idx[0]], pts[idx[-1]]

    def pixel_to_table(self, pixels: Sequence | np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """World ``(x, y)`` seen at the given pixels on the plane ``height_mm`` above the table.

        Inverts the lens model iteratively (to ~1e-9 of a normalised unit), so
        ``cam.pixel_to_table(cam.project(p))`` returns ``p``.
        """
        px = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
        k = self.K
        xd = (px[:, 0] - k[0, 2]) / k[0, 0]
        yd = (px[:, 1] - k[1, 2]) / k[1, 1]
        xn, yn = _undistort(xd, yd, self.dist)
        return self._rays_to_plane(xn, yn, height_mm)

    def _rays_to_plane(self, xn: np.ndarray, yn: np.ndarray, height_mm: float) -> np.ndarray:
        r = self.R
        dx = r[0, 0] * xn + r[1, 0] * yn + r[2, 0]
        dy = r[0, 1] * xn + r[1, 1] * yn + r[2, 1]
        dz = r[0, 2] * xn + r[1, 2] * yn + r[2, 2]  # towards the table is +
        c = self.center_mm
        t = (c[2] - height_mm) / dz
        return np.stack([c[0] + t * dx, c[1] + t * dy], axis=-1)

    def footprint_mm(self, margin_px: int = 0) -> tuple[float, float, float, float]:
        """Bounding box ``(x0, y0, x1, y1)`` of the table area the image sees."""
        w, h = self.image_size
        s = np.linspace(0, 1, 25)
        xs = np.concatenate([s * (w - 1), np.full_like(s, w - 1), s * (w - 1), np.zeros_like(s)])
        ys = np.concatenate([np.zeros_like(s), s * (h - 1), np.full_like(s, h - 1), s * (h - 1)])
        xs = xs + np.sign(xs - (w - 1) / 2) * margin_px
        ys = ys + np.sign(ys - (h - 1) / 2) * margin_px
        pts = self.pixel_to_table(np.stack([xs, ys], axis=1))
        return (
            float(pts[:, 0].min()),
            float(pts[:, 1].min()),
            float(pts[:, 0].max()),
            float(pts[:, 1].max()),
        )

    def fitted(self, points_mm: Sequence | np.ndarray, fill: float = 0.8) -> Camera:
        """A copy whose height makes ``points_mm`` span ``fill`` of the image (tighter axis).

        >>> cam = Camera(image_size=(640, 480), focal_px=500.0).fitted([(-50, -50), (50, 50)], 0.5)
        >>> round(float(np.ptp(cam.project([(-50, -50), (50, 50)])[:, 1])))
        240
        """
        cam = self
        w, h = self.image_size
        for _ in range(8):
            p = cam.project(points_mm)
            ratio = max(np.ptp(p[:, 0]) / (fill * w), np.ptp(p[:, 1]) / (fill * h))
            cam = cam.replace(height_mm=cam.height_mm * float(ratio))
        return cam

    def mm_per_px_at(self, point_mm: Sequence[float]) -> float:
        """Approximate table size of one image pixel at a world point (for picking raster scale)."""
        p = np.asarray(point_mm, dtype=np.float64)
        q = self.project(p[:2] + np.array([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0)]))
        a, b = q[1] - q[0], q[2] - q[0]
        return 1.0 / math.sqrt(abs(a[0] * b[1] - a[1] * b[0]))


# --------------------------------------------------------------------------------------------
# Lens model helpers
# --------------------------------------------------------------------------------------------


def _distort(x: np.ndarray, y: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's forward lens model on normalised coordinates."""
    k1, k2, p1, p2, k3 = d[:5]
    k4, k5, k6 = d[5:8] if len(d) >= 8 else (0.0, 0.0, 0.0)
    r2 = x * x + y * y
    radial = (1 + r2 * (k1 + r2 * (k2 + r2 * k3))) / (1 + r2 * (k4 + r2 * (k5 + r2 * k6)))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return xd, yd


def _undistort(xd: np.ndarray, yd: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Invert :func:`_distort`: fixed-point start, then Newton with a numeric Jacobian."""
    x, y = xd.copy(), yd.copy()
    if not np.any(d):
        return x, y
    for _ in range(8):  # OpenCV-style fixed point gets close cheaply
        fx, fy = _distort(x, y, d)
        x, y = x - (fx - xd), y - (fy - yd)
    eps = 1e-7
    for _ in range(4):
        fx, fy = _distort(x, y, d)
        ex, ey = fx - xd, fy - yd
        ax, ay = _distort(x + eps, y, d)
        bx, by = _distort(x, y + eps, d)
        j11, j21 = (ax - fx) / eps, (ay - fy) / eps
        j12, j22 = (bx - fx) / eps, (by - fy) / eps
        det = j11 * j22 - j12 * j21
        x = x - (j22 * ex - j12 * ey) / det
        y = y - (-j21 * ex + j11 * ey) / det
    # pixels no ray reaches (beyond the polynomial's range) go far away instead of NaN
    bad = ~(np.isfinite(x) & np.isfinite(y))
    if bad.any():
        x, y = np.where(bad, 1e3 * np.sign(xd), x), np.where(bad, 1e3 * np.sign(yd), y)
    return x, y


def _interp_matrix(n: int, step: int) -> np.ndarray:
    """Dense (n, m) matrix that linearly interpolates samples taken every ``step`` pixels."""
    m = (n - 1) // step + 2
    pos = np.arange(n) / step
    i = np.floor(pos).astype(int)
    f = pos - i
    w = np.zeros((n, m), np.float64)
    w[np.arange(n), i] = 1 - f
    w[np.arange(n), i + 1] = f
    return w


@functools.lru_cache(maxsize=4)
def _normalized_grid(
    size: tuple[int, int], k: tuple[float, ...], dist: tuple[float, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Undistorted normalised coordinates of every pixel, ``(H, W)`` float32 each.

    The exact inverse is computed on an 8-pixel grid and interpolated: the field is smooth, so
    the interpolation error stays around a hundredth of a pixel even at k1 = -0.3 (tested).
    """
    w, h = size
    step = 8
    wx, wy = _interp_matrix(w, step), _interp_matrix(h, step)
    gx = np.arange(wx.shape[1]) * step
    gy = np.arange(wy.shape[1]) * step
    px, py = np.meshgrid(gx, gy)
    xd = (px - k[2]) / k[0]
    yd = (py - k[5]) / k[4]
    xn, yn = _undistort(xd.ravel(), yd.ravel(), np.asarray(dist))
    xn = (wy @ xn.reshape(px.shape) @ wx.T).astype(np.float32)
    yn = (wy @ yn.reshape(px.shape) @ wx.T).astype(np.float32)
    return xn, yn


def _camera_grid(cam: Camera) -> tuple[np.ndarray, np.ndarray]:
    return _normalized_grid(
        tuple(cam.image_size), tuple(cam.K.ravel().tolist()), tuple(cam.dist.tolist())
    )


_MAP_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def ground_maps(
    cam: Camera, mm_per_px: float, origin_mm: tuple[float, float] = (0.0, 0.0)
) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` maps from the image to a world raster of the table (plane height 0)."""
    key = (cam, float(mm_per_px), tuple(origin_mm))
    if key in _MAP_CACHE:
        return _MAP_CACHE[key]
    xn, yn = _camera_grid(cam)
    r = cam.R.astype(np.float32)
    c = cam.center_mm
    dz = r[0, 2] * xn + r[1, 2] * yn + r[2, 2]
    t = np.float32(c[2] / mm_per_px) / dz
    mx = (r[0, 0] * xn + r[1, 0] * yn + r[2, 0]) * t + np.float32((c[0] - origin_mm[0]) / mm_per_px)
    my = (r[0, 1] * xn + r[1, 1] * yn + r[2, 1]) * t + np.float32((c[1] - origin_mm[1]) / mm_per_px)
    if len(_MAP_CACHE) > 6:
        _MAP_CACHE.pop(next(iter(_MAP_CACHE)))
    _MAP_CACHE[key] = (mx, my)
    return mx, my


@dataclass(frozen=True)
class Overlay:
    """A flat BGRA raster lying on the table at ``height_mm`` (a board's tiles, a card).

    Drawn over the base world raster with its alpha; its own scale lets a small area (the board)
    be drawn finer than the whole table.  Pixel ``(0, 0)`` is centred on ``origin_mm``.
    """

    bgra: np.ndarray
    mm_per_px: float
    origin_mm: tuple[float, float]
    height_mm: float = 0.0
    gloss: float | None = None  # specular strength of its surface; None = the table's


def _draw_overlay(
    img: np.ndarray, gloss: np.ndarray, cam: Camera, ov: Overlay, mx, my, base_s, base_o
) -> None:
    h, w = img.shape[:2]
    oh, ow = ov.bgra.shape[:2]
    corners = np.array([(0, 0), (ow - 1, 0), (ow - 1, oh - 1), (0, oh - 1)], float)
    world = corners * ov.mm_per_px + ov.origin_mm
    p = cam.project(np.column_stack([world, np.full(4, ov.height_mm)]))
    x0, y0 = np.maximum(np.floor(p.min(0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(p.max(0)).astype(int) + 3, (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    c = cam.center_mm
    # a ray meets the plane at height h where its table point is scaled towards the camera foot
    k = np.float32(1 - ov.height_mm / c[2])
    fx = np.float32((c[0] - base_o[0]) / base_s)
    fy = np.float32((c[1] - base_o[1]) / base_s)
    sx = (fx + (mx[y0:y1, x0:x1] - fx) * k) * np.float32(base_s / ov.mm_per_px)
    sy = (fy + (my[y0:y1, x0:x1] - fy) * k) * np.float32(base_s / ov.mm_per_px)
    sx += np.float32((base_o[0] - ov.origin_mm[0]) / ov.mm_per_px)
    sy += np.float32((base_o[1] - ov.origin_mm[1]) / ov.mm_per_px)
    src = cv2.remap(ov.bgra, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = src[..., 3].astype(np.float32)
    a *= np.float32(1 / 255)
    rgb = np.multiply(src[..., :3], np.float32(1 / 255), dtype=np.float32)
    img[y0:y1, x0:x1] = cv2.blendLinear(rgb, img[y0:y1, x0:x1], a, 1 - a)
    if ov.gloss is not None:
        g = np.full_like(a, ov.gloss)
        gloss[y0:y1, x0:x1] = cv2.blendLinear(g, gloss[y0:y1, x0:x1], a, 1 - a)


# --------------------------------------------------------------------------------------------
# Solids standing on the table
# --------------------------------------------------------------------------------------------


@dataclass
class _Ctx:
    """Everything a solid needs to draw itself into the photo being made."""

    cam: Camera
    canvas: np.ndarray  # (H, W, 3) float32 BGR 0..1
    gloss: np.ndarray  # (H, W) float32 specular strength
    lamp: np.ndarray  # lamp position (x, y, height) mm
    xn: np.ndarray
    yn: np.ndarray

    def rays(self, x0: int, y0: int, x1: int, y1: int) -> tuple[np.ndarray, np.ndarray]:
        """Per-pixel slope ``(ax, ay)``: horizontal mm travelled per mm of descent."""
        xn = self.xn[y0:y1, x0:x1].ravel()
        yn = self.yn[y0:y1, x0:x1].ravel()
        r = self.cam.R.astype(np.float32)
        dx = r[0, 0] * xn + r[1, 0] * yn + r[2, 0]
        dy = r[0, 1] * xn + r[1, 1] * yn + r[2, 1]
        dz = r[0, 2] * xn + r[1, 2] * yn + r[2, 2]
        return dx / dz, dy / dz


class Solid:
    """Base class: a body standing on the table, ray-marched into the photo.

    Subclasses give the horizontal signed distance ``sd(lx, ly, z)`` (mm, negative inside) in
    coordinates relative to ``center_mm``, a surface normal and a colour.  Marching every pixel
    of the solid's bounding box down its camera ray finds the first surface hit, so tall pieces
    lean away from the image centre and hide what is behind them, as in a real photo.
    """

    center_mm: tuple[float, float]
    top_mm: float
    reach_mm: float  # max horizontal distance of the body from its centre
    gloss: float = 0.0
    shininess: float = 30.0
    step_mm: float = 0.5
    base_mm: float = 0.0  # height of the surface the solid stands on (a tile, a book)

    def sd(self, lx: np.ndarray, ly: np.ndarray, z: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def normal(self, lx: np.ndarray, ly: np.ndarray, z: np.ndarray, top: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def color(self, lx: np.ndarray, ly: np.ndarray, z: np.ndarray, top: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def outline_mm(self, n: int = 24) -> np.ndarray:
        """``(M, 3)`` points around the body (for bounding boxes and cast shadows)."""
        a = np.linspace(0, 2 * np.pi, n, endpoint=False)
        ring = np.stack([np.cos(a), np.sin(a)], 1) * self.reach_mm + self.center_mm
        out = []
        for z in (self.base_mm, (self.base_mm + self.top_mm) / 2, self.top_mm):
            out.append(np.column_stack([ring, np.full(n, z)]))
        return np.concatenate(out)

    def render(self, ctx: _Ctx) -> None:
        _render_solid(ctx, self)


def _render_solid(ctx: _Ctx, s: Solid) -> None:
    cam = ctx.cam
    w, h = cam.image_size
    pts = cam.project(s.outline_mm())
    x0, y0 = np.floor(pts.min(0)).astype(int) - 2
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    ax, ay = ctx.rays(x0, y0, x1, y1)
    c = cam.center_mm
    pix_mm = float(cam.depth_mm([(*s.center_mm, s.top_mm / 2)])[0]) / cam.focal_px
    # only rays that pass within the bounding cylinder need marching
    tx = c[0] + (c[2] - s.top_mm) * ax - s.center_mm[0]
    ty = c[1] + (c[2] - s.top_mm) * ay - s.center_mm[1]
    span = s.top_mm - s.base_mm
    dx, dy = ax * span, ay * span
    tt = np.clip(-(tx * dx + ty * dy) / np.maximum(dx * dx + dy * dy, 1e-12), 0, 1)
    near = np.hypot(tx + tt * dx, ty + tt * dy) <= s.reach_mm + 2 * pix_mm
    cand = np.nonzero(near)[0]
    if len(cand) == 0:
        return
    ax, ay = ax[cand], ay[cand]
    n = max(3, math.ceil(span / s.step_mm) + 1)
    zs = np.linspace(s.top_mm, s.base_mm, n, dtype=np.float32)[:, None]
    lx = np.float32(c[0] - s.center_mm[0]) + (np.float32(c[2]) - zs) * ax
    ly = np.float32(c[1] - s.center_mm[1]) + (np.float32(c[2]) - zs) * ay
    sd = s.sd(lx, ly, np.broadcast_to(zs, lx.shape))
    inside = sd <= 0
    hit = inside.any(0)
    k = np.where(hit, inside.argmax(0), sd.argmin(0))
    # anti-aliased coverage from how closely each ray passes the body
    alpha = np.clip(0.5 - sd.min(0) / pix_mm, 0.0, 1.0)
    sel = alpha > 0
    if not sel.any():
        return
    local = np.nonzero(sel)[0]
    idx = cand[local]
    k = k[local]
    z = zs[k, 0].copy()
    top = k == 0
    lo = np.where(k > 0, zs[np.maximum(k - 1, 0), 0], z)
    hi = z.copy()
    axs, ays = ax[local], ay[local]
    refine = hit[local] & ~top
    for _ in range(6):  # bisection between the last outside and first inside sample
        mid = (lo + hi) / 2
        mlx = c[0] + (c[2] - mid) * axs - s.center_mm[0]
        mly = c[1] + (c[2] - mid) * ays - s.center_mm[1]
        ins = s.sd(mlx, mly, mid) <= 0
        lo = np.where(refine & ~ins, mid, lo)
        hi = np.where(refine & ins, mid, hi)
    z = np.where(refine, hi, z)
    px = c[0] + (c[2] - z) * axs - s.center_mm[0]
    py = c[1] + (c[2] - z) * ays - s.center_mm[1]
    nrm = s.normal(px, py, z, top)
    col = s.color(px, py, z, top)
    # light: diffuse relative to a table facing up, so the flat top matches the table's exposure
    wp = np.column_stack([px + s.center_mm[0], py + s.center_mm[1], z])
    ldir = ctx.lamp - wp
    ldir /= np.linalg.norm(ldir, axis=1, keepdims=True)
    lam = np.clip((nrm * ldir).sum(1), 0, None)
    up = ldir[:, 2]
    shade = (0.35 + 0.65 * lam) / (0.35 + 0.65 * up)
    vdir = c - wp
    vdir /= np.linalg.norm(vdir, axis=1, keepdims=True)
    half = ldir + vdir
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    spec = s.gloss * np.clip((nrm * half).sum(1), 0, None) ** s.shininess
    # flat tops get their glare from the photo's glare field instead (set in gloss below)
    spec = np.where(top, 0.0, spec)
    rgb = col * shade[:, None] + spec[:, None] * 0.9
    a = alpha[local][:, None].astype(np.float32)
    region = ctx.canvas[y0:y1, x0:x1].reshape(-1, 3)
    region[idx] = region[idx] * (1 - a) + rgb.astype(np.float32) * a
    ctx.canvas[y0:y1, x0:x1] = region.reshape(y1 - y0, x1 - x0, 3)
    g = ctx.gloss[y0:y1, x0:x1].reshape(-1)
    g[idx] = g[idx] * (1 - a[:, 0]) + np.where(top, s.gloss, s.gloss * 0.2) * a[:, 0]
    ctx.gloss[y0:y1, x0:x1] = g.reshape(y1 - y0, x1 - x0)


def _sample_texture(tex: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Bilinear lookup of a float32 BGR texture at pixel coords ``(u, v)`` -> ``(N, 3)``."""
    if len(u) == 0:
        return np.zeros((0, 3), np.float32)
    n = len(u)
    cols = 1024  # remap wants both map sides below 32767
    rows = -(-n // cols)
    mx = np.zeros(rows * cols, np.float32)
    my = np.zeros(rows * cols, np.float32)
    mx[:n], my[:n] = u, v
    out = cv2.remap(
        tex, mx.reshape(rows, cols), my.reshape(rows, cols), cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )  # fmt: skip
    return out.reshape(-1, 3)[:n]


def _as_float_tex(tex: np.ndarray | None) -> np.ndarray | None:
    if tex is None:
        return None
    t = np.asarray(tex)
    return t.astype(np.float32) / 255.0 if t.dtype == np.uint8 else t.astype(np.float32)


@dataclass
class Revolved(Solid):
    """A body of revolution (coin, pawn, mug): radius ``profile`` as ``(height_mm, radius_mm)``.

    ``top_texture`` (BGR, square) is painted on the flat top, its up side pointing to
    ``top_angle_deg`` (0 = ``-y``/north, 90 = ``+x``/east, clockwise seen from above).

    >>> coin = Revolved((10.0, 10.0), [(0.0, 9.5), (3.0, 9.5)], (0.8, 0.8, 0.8))
    >>> coin.top_mm, coin.reach_mm
    (3.0, 9.5)
    """

    center_mm: tuple[float, float]
    profile: Sequence[tuple[float, float]]
    bgr: BGR
    top_texture: np.ndarray | None = None
    top_angle_deg: float = 0.0
    gloss: float = 0.2
    shininess: float = 30.0
    step_mm: float = 0.5
    base_mm: float = 0.0

    def __post_init__(self) -> None:
        prof = np.asarray(self.profile, dtype=np.float64)
        self._z, self._r = prof[:, 0] + self.base_mm, prof[:, 1]
        self._slope = np.diff(self._r) / np.maximum(np.diff(self._z), 1e-6)
        # radius lookup table (0.02 mm steps): much faster than np.interp per sample
        self._lut_dz = 0.02
        zz = np.arange(self._z[0], self._z[-1] + self._lut_dz, self._lut_dz)
        self._lut = np.append(np.interp(zz, self._z, self._r), -1.0).astype(np.float32)
        self.top_mm = float(self._z[-1])
        self.reach_mm = float(self._r.max())
        self._tex = _as_float_tex(self.top_texture)
        self._bgr = np.asarray(self.bgr, np.float32)

    def sd(self, lx, ly, z):
        i = np.rint((z - self._z[0]) * (1 / self._lut_dz)).astype(np.int32)
        i = np.where((i < 0) | (i >= len(self._lut) - 1), len(self._lut) - 1, i)
        r = self._lut[i]
        return np.where(r < 0, np.float32(1e9), np.hypot(lx, ly) - r)

    def normal(self, lx, ly, z, top):
        rho = np.maximum(np.hypot(lx, ly), 1e-9)
        seg = np.clip(np.searchsorted(self._z, z) - 1, 0, len(self._slope) - 1)
        dr = self._slope[seg]
        n = np.column_stack([lx / rho, ly / rho, -dr])
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        n[top] = (0.0, 0.0, 1.0)
        return n

    def color(self, lx, ly, z, top):
        col = np.broadcast_to(self._bgr, (len(lx), 3)).copy()
        if self._tex is not None and top.any():
            r_top = float(self._r[-1])
            a = math.radians(self.top_angle_deg)
            # coordinates along the texture's right and up directions
            right = lx[top] * math.cos(a) + ly[top] * math.sin(a)
            upv = lx[top] * math.sin(a) - ly[top] * math.cos(a)
            n = self._tex.shape[0]
            scale = n / (2 * r_top)
            col[top] = _sample_texture(
                self._tex, right * scale + (n - 1) / 2, -upv * scale + (n - 1) / 2
            )
        return col


def _render_prism(
    ctx: _Ctx,
    ring: np.ndarray,
    base: float,
    top: float,
    bgr: BGR,
    tex: np.ndarray,
    tex_alpha: np.ndarray,
    tex_corners_mm: np.ndarray,
    gloss: float,
) -> None:
    """Draw a vertical prism: side facets lit by the lamp, top = texture via a homography.

    ``ring`` is the outline ``(N, 2)`` (mm, convex); ``tex_corners_mm`` the world points of the
    texture's corners ``(-.5,-.5), (w-.5,-.5), (w-.5,h-.5), (-.5,h-.5)``.  Lens distortion
    across one small piece is far below a pixel, so one homography per top is enough.
    """
    cam = ctx.cam
    w, h = cam.image_size
    n = len(ring)
    bot_p = cam.project(np.column_stack([ring, np.full(n, base)]))
    top_p = cam.project(np.column_stack([ring, np.full(n, top)]))
    allp = np.concatenate([bot_p, top_p])
    x0, y0 = np.maximum(np.floor(allp.min(0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(allp.max(0)).astype(int) + 3, (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    off = np.array([x0, y0])
    bw, bh = x1 - x0, y1 - y0
    # side band: the hull gives the (anti-aliased) coverage, facets the lamp's shading
    edge = np.roll(ring, -1, axis=0) - ring
    normals = np.column_stack([edge[:, 1], -edge[:, 0], np.zeros(n)])
    normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-9)
    mid = np.column_stack([ring + edge / 2, np.full(n, (base + top) / 2)])
    outward = ((mid[:, :2] - ring.mean(0)) * normals[:, :2]).sum(1) >= 0
    normals[~outward] *= -1
    ldir = ctx.lamp - mid
    ldir /= np.linalg.norm(ldir, axis=1, keepdims=True)
    shade = (0.35 + 0.65 * np.clip((normals * ldir).sum(1), 0, None)) / (0.35 + 0.65 * ldir[:, 2])
    col = np.asarray(bgr, np.float32)
    side = np.empty((bh, bw, 3), np.float32)
    side[:] = col * float(np.median(shade))
    for k in range(n):
        q = np.array([bot_p[k], bot_p[(k + 1) % n], top_p[(k + 1) % n], top_p[k]]) - off
        cv2.fillConvexPoly(side, np.round(q * 16).astype(np.int32), (col * shade[k]).tolist(), 8, 4)
    cover = np.zeros((bh, bw), np.float32)
    hull = cv2.convexHull(np.round((allp - off) * 16).astype(np.int32))
    cv2.fillConvexPoly(cover, hull, 1.0, cv2.LINE_AA, 4)
    # top: texture warped by the homography of the top plane
    th, tw = tex.shape[:2]
    tc = np.array([(-0.5, -0.5), (tw - 0.5, -0.5), (tw - 0.5, th - 0.5), (-0.5, th - 0.5)])
    img_pts = cam.project(np.column_stack([tex_corners_mm, np.full(4, top)])) - off
    hm = cv2.getPerspectiveTransform(tc.astype(np.float32), img_pts.astype(np.float32))
    ttex = cv2.warpPerspective(tex, hm, (bw, bh), flags=cv2.INTER_LINEAR)
    ta = cv2.warpPerspective(tex_alpha, hm, (bw, bh), flags=cv2.INTER_LINEAR)
    # composite (premultiplied): top over side band, then the piece over the scene
    body = ttex * ta[..., None] + side * (cover * (1 - ta))[..., None]
    alpha = ta + cover * (1 - ta)
    reg = ctx.canvas[y0:y1, x0:x1]
    ctx.canvas[y0:y1, x0:x1] = reg * (1 - alpha)[..., None] + body
    g = ctx.gloss[y0:y1, x0:x1]
    ctx.gloss[y0:y1, x0:x1] = g * (1 - alpha) + np.float32(gloss) * ta


@functools.lru_cache(maxsize=16)
def _rounded_alpha(tw: int, th: int, radius_px: float) -> np.ndarray:
    """Anti-aliased rounded rectangle filling a ``tw`` x ``th`` texture (float32 0..1)."""
    yy, xx = np.mgrid[0:th, 0:tw].astype(np.float32)
    r = max(min(radius_px, tw / 2, th / 2), 0.5)
    qx = np.abs(xx - (tw - 1) / 2) - (tw / 2 - r)
    qy = np.abs(yy - (th - 1) / 2) - (th / 2 - r)
    d = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0) - r
    return np.clip(0.5 - d, 0, 1).astype(np.float32)


@functools.lru_cache(maxsize=8)
def _disc_alpha(n: int) -> np.ndarray:
    """Anti-aliased disc filling an ``n`` x ``n`` texture (float32 0..1)."""
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    c = (n - 1) / 2
    return np.clip(n / 2 - np.hypot(xx - c, yy - c) + 0.5, 0, 1)


@dataclass
class Disc(Solid):
    """A flat cylinder (a coin): fast path drawn with polygons and one perspective warp.

    Same look as a :class:`Revolved` coin at a fraction of the cost: the side band is drawn
    facet by facet with its own light, the top is its texture warped by the homography of the
    top plane (lens distortion across a coin is far below a pixel).  ``top_angle_deg`` as in
    :class:`Revolved`.
    """

    center_mm: tuple[float, float]
    radius_mm: float
    thickness_mm: float
    bgr: BGR
    top_texture: np.ndarray
    top_angle_deg: float = 0.0
    gloss: float = 0.3
    base_mm: float = 0.0

    def __post_init__(self) -> None:
        self.top_mm = self.base_mm + self.thickness_mm
        self.reach_mm = self.radius_mm
        self._tex = _as_float_tex(self.top_texture)

    def render(self, ctx: _Ctx) -> None:
        a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        ring = np.stack([np.cos(a), np.sin(a)], 1) * self.radius_mm + self.center_mm
        t = self._tex.shape[0]
        ang = math.radians(self.top_angle_deg)
        right = np.array([math.cos(ang), math.sin(ang)])
        upv = np.array([math.sin(ang), -math.cos(ang)])
        # texture extent corners (pixel edges) relative to the centre, in mm
        rel = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], float) * self.radius_mm
        corners = self.center_mm + rel[:, :1] * right - rel[:, 1:] * upv
        _render_prism(ctx, ring, self.base_mm, self.top_mm, self.bgr, self._tex,
                      _disc_alpha(t), corners, self.gloss)  # fmt: skip


@dataclass
class Box(Solid):
    """A box with rounded vertical edges (die, phone, tile stack, pencil).

    ``size_mm`` is ``(width, depth)`` before rotation by ``angle_deg`` (clockwise seen from
    above); ``top_texture`` covers the whole top, its up side towards ``-y`` at angle 0.
    """

    center_mm: tuple[float, float]
    size_mm: tuple[float, float]
    height_mm: float
    bgr: BGR
    angle_deg: float = 0.0
    corner_mm: float = 1.0
    top_texture: np.ndarray | None = None
    gloss: float = 0.1
    shininess: float = 30.0
    step_mm: float = 0.5
    base_mm: float = 0.0

    def __post_init__(self) -> None:
        self.top_mm = float(self.base_mm + self.height_mm)
        self.reach_mm = float(math.hypot(*self.size_mm) / 2)
        self._tex = _as_float_tex(self.top_texture)
        self._bgr = np.asarray(self.bgr, np.float32)
        a = math.radians(self.angle_deg)
        self._c, self._s = math.cos(a), math.sin(a)

    def _local(self, lx, ly):
        return lx * self._c + ly * self._s, -lx * self._s + ly * self._c

    def _world(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.column_stack(
            [
                u * self._c - v * self._s + self.center_mm[0],
                u * self._s + v * self._c + self.center_mm[1],
            ]
        )

    def render(self, ctx: _Ctx) -> None:
        """Fast path: facets and a warped top (the ray-marched path is kept for reference)."""
        hx, hy = self.size_mm[0] / 2, self.size_mm[1] / 2
        r = min(self.corner_mm, hx, hy)
        arc = np.linspace(0, np.pi / 2, 5)
        pts = []
        for (sx, sy), start in (((1, 1), 0.0), ((-1, 1), np.pi / 2), ((-1, -1), np.pi),
                                ((1, -1), 1.5 * np.pi)):  # fmt: skip
            cx, cy = sx * (hx - r), sy * (hy - r)
            for t in arc + start:
                pts.append((cx + r * math.cos(t), cy + r * math.sin(t)))
        pts = np.array(pts)
        ring = self._world(pts[:, 0], pts[:, 1])
        if self._tex is None:
            tex = np.empty((16, 16, 3), np.float32)
            tex[:] = self._bgr
        else:
            tex = self._tex
        th, tw = tex.shape[:2]
        alpha = _rounded_alpha(tw, th, r / self.size_mm[0] * tw)
        cu = np.array([-hx, hx, hx, -hx])
        cv = np.array([-hy, -hy, hy, hy])
        _render_prism(ctx, ring, self.base_mm, self.top_mm, self.bgr, tex, alpha,
                      self._world(cu, cv), self.gloss)  # fmt: skip

    def sd(self, lx, ly, z):
        u, v = self._local(lx, ly)
        r = min(self.corner_mm, min(self.size_mm) / 2)
        qx = np.abs(u) - self.size_mm[0] / 2 + r
        qy = np.abs(v) - self.size_mm[1] / 2 + r
        out = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
        return out + np.minimum(np.maximum(qx, qy), 0) - r

    def normal(self, lx, ly, z, top):
        u, v = self._local(lx, ly)
        r = min(self.corner_mm, min(self.size_mm) / 2)
        qx = np.maximum(np.abs(u) - self.size_mm[0] / 2 + r, 0) * np.sign(u)
        qy = np.maximum(np.abs(v) - self.size_mm[1] / 2 + r, 0) * np.sign(v)
        flat = (qx == 0) & (qy == 0)
        major_x = np.abs(u) / self.size_mm[0] > np.abs(v) / self.size_mm[1]
        qx = np.where(flat & major_x, np.sign(u), qx)
        qy = np.where(flat & ~major_x, np.sign(v), qy)
        nx = qx * self._c - qy * self._s
        ny = qx * self._s + qy * self._c
        n = np.column_stack([nx, ny, np.zeros_like(nx)])
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)
        n[top] = (0.0, 0.0, 1.0)
        return n

    def color(self, lx, ly, z, top):
        col = np.broadcast_to(self._bgr, (len(lx), 3)).copy()
        if self._tex is not None and top.any():
            u, v = self._local(lx[top], ly[top])
            th, tw = self._tex.shape[:2]
            col[top] = _sample_texture(
                self._tex,
                (u / self.size_mm[0] + 0.5) * tw - 0.5,
                (v / self.size_mm[1] + 0.5) * th - 0.5,
            )
        return col

    def outline_mm(self, n: int = 24) -> np.ndarray:
        hx, hy = self.size_mm[0] / 2, self.size_mm[1] / 2
        corners = np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
        rot = np.array([[self._c, -self._s], [self._s, self._c]])
        ring = corners @ rot.T + self.center_mm
        zs = (self.base_mm, self.top_mm)
        return np.concatenate([np.column_stack([ring, np.full(4, z)]) for z in zs])


# --------------------------------------------------------------------------------------------
# Occluders above the table (a hand, an arm)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Capsule:
    """A rounded limb segment between two 3-D points ``(x, y, height)`` mm.

    Hands and arms are lists of capsules (:func:`make_hand`); they are drawn over everything,
    cast a soft shadow, and are reported in :attr:`Photo.occlusion`.
    """

    p0: tuple[float, float, float]
    p1: tuple[float, float, float]
    radius_mm: float
    bgr: BGR
    radius1_mm: float | None = None  # radius at p1 if the limb tapers


def make_hand(
    rng: np.random.Generator,
    target_mm: tuple[float, float],
    from_angle_deg: float,
    height_mm: float = 60.0,
    skin_bgr: BGR | None = None,
    scale: float = 1.0,
) -> list[Capsule]:
    """A hand reaching to ``target_mm`` (fingertips) from direction ``from_angle_deg``.

    ``from_angle_deg`` is where the arm comes from, seen from the target: 0 = ``+y`` (south),
    90 = ``+x`` (east).  The forearm rises towards the image edge, as a real arm does; fingers
    have two joints and curl down towards the table by a random amount.

    >>> caps = make_hand(np.random.default_rng(0), (0.0, 0.0), 0.0)
    >>> len(caps) > 8
    True
    """
    skins = [(0.62, 0.72, 0.88), (0.45, 0.56, 0.76), (0.30, 0.40, 0.58), (0.70, 0.78, 0.92)]
    skin = skin_bgr or skins[int(rng.integers(len(skins)))]
    skin = tuple(float(np.clip(c * rng.uniform(0.92, 1.06), 0, 1)) for c in skin)
    knuckle = tuple(float(c * 0.93) for c in skin)
    a = math.radians(from_angle_deg)
    back = np.array([math.sin(a), math.cos(a)])  # from fingertips towards the wrist
    side = np.array([-back[1], back[0]])
    tip = np.asarray(target_mm, float)
    s = scale
    z = height_mm
    curl = rng.uniform(0.0, 0.5)
    reach = 1 - 0.25 * curl  # curled fingers end closer to the palm
    palm_c = tip + back * 112 * s * reach
    wrist = palm_c + back * 62 * s
    elbow = wrist + back * 260 * s
    caps: list[Capsule] = []
    sleeve = tuple(float(v) for v in rng.uniform(0.1, 0.7, 3))
    bare = rng.random() < 0.5
    arm_col = skin if bare else sleeve
    caps.append(Capsule((*elbow, z + 150 * s), (*wrist, z + 16 * s), 40 * s, arm_col, 29 * s))
    if not bare:  # the cuff
        caps.append(
            Capsule(
                (*(wrist + back * 30 * s), z + 22 * s),
                (*(wrist + back * 8 * s), z + 18 * s),
                33 * s,
                sleeve,
            )
        )
    caps.append(
        Capsule(
            (*(wrist + back * 6 * s), z + 16 * s),
            (*(palm_c + back * 20 * s), z + 10 * s),
            27 * s,
            skin,
            30 * s,
        )
    )
    # a broad, flat palm: two side lobes and a middle
    for off in (-15, 15):
        c0 = palm_c + back * 22 * s + side * off * s
        c1 = palm_c - back * 30 * s + side * off * 1.1 * s
        caps.append(Capsule((*c0, z + 9 * s), (*c1, z + 5 * s), 25 * s, skin, 23 * s))
    for i, off in enumerate((-27, -9, 9, 26)):
        length = (60, 72, 68, 54)[i] * s
        base = palm_c - back * 44 * s + side * off * 1.05 * s
        spread = rng.normal(0, 0.07) + off * 0.002
        direction = -back * math.cos(spread) + side * math.sin(spread)
        mid = base + direction * length * 0.55
        end = mid + direction * length * 0.45 * (1 - 0.6 * curl)
        zm, ze = z + 2 * s - 10 * s * curl, z - 4 * s - 18 * s * curl
        caps.append(Capsule((*base, z + 4 * s), (*mid, zm), 9.5 * s, knuckle, 8.5 * s))
        caps.append(Capsule((*mid, zm), (*end, max(ze, 3.0)), 8.5 * s, skin, 7.5 * s))
    thumb_side = 1 if rng.random() < 0.5 else -1
    tb = palm_c + side * thumb_side * 30 * s + back * 12 * s
    tm = tb + (-back * 0.5 + side * thumb_side * 0.85) * 32 * s
    te = tm + (-back * 0.9 + side * thumb_side * 0.3) * 30 * s
    caps.append(Capsule((*tb, z + 6 * s), (*tm, z + 2 * s), 13 * s, skin, 10.5 * s))
    caps.append(Capsule((*tm, z + 2 * s), (*te, z - 3 * s), 10.5 * s, skin, 9 * s))
    return caps


def _draw_capsules(
    canvas: np.ndarray, cam: Camera, caps: Sequence[Capsule], light_px: np.ndarray
) -> np.ndarray:
    """Draw shaded capsules (far end first) and return their coverage mask (float32)."""
    h, w = canvas.shape[:2]
    cover = np.zeros((h, w), np.float32)
    for cap in caps:
        seg = cam.clip_segment(cap.p0, cap.p1)
        if seg is None:
            continue
        ends = np.array(seg)
        full = np.asarray(cap.p1, float) - np.asarray(cap.p0, float)
        length = float(np.linalg.norm(full)) or 1.0
        ts = [float(np.linalg.norm(e - np.asarray(cap.p0, float))) / length for e in ends]
        depth = cam.depth_mm(ends)
        p = cam.project(ends)
        r1 = cap.radius_mm if cap.radius1_mm is None else cap.radius1_mm
        radii = np.array([cap.radius_mm + (r1 - cap.radius_mm) * t for t in ts])
        r = radii * cam.focal_px / depth
        x0 = int(max(np.floor((p[:, 0] - r).min()) - 2, 0))
        y0 = int(max(np.floor((p[:, 1] - r).min()) - 2, 0))
        x1 = int(min(np.ceil((p[:, 0] + r).max()) + 3, w))
        y1 = int(min(np.ceil((p[:, 1] + r).max()) + 3, h))
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d = p[1] - p[0]
        ll = float(d @ d) or 1e-9
        t = np.clip(((xx - p[0, 0]) * d[0] + (yy - p[0, 1]) * d[1]) / ll, 0, 1)
        cx = p[0, 0] + t * d[0]
        cy = p[0, 1] + t * d[1]
        rad = r[0] + t * (r[1] - r[0])
        ox, oy = xx - cx, yy - cy
        dist = np.sqrt(ox * ox + oy * oy)
        a = np.clip(rad + 0.5 - dist, 0, 1)
        s = np.clip(dist / rad, 0, 1)
        nz = np.sqrt(1 - s * s)
        side = (ox * light_px[0] + oy * light_px[1]) / np.maximum(dist, 1e-6) * s
        shade = 0.45 + 0.4 * nz + 0.25 * np.clip(side, -1, 1)
        col = np.asarray(cap.bgr, np.float32)[None, None, :] * shade[..., None]
        reg = canvas[y0:y1, x0:x1]
        canvas[y0:y1, x0:x1] = reg * (1 - a[..., None]) + col * a[..., None]
        cover[y0:y1, x0:x1] = np.maximum(cover[y0:y1, x0:x1], a)
    return cover


# --------------------------------------------------------------------------------------------
# Photo style: light, shadows, glare, optics, sensor
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShadowBlob:
    """A soft shadow on the scene from something out of view (the photographer's phone, a head).

    ``center_mm``/``size_mm`` on the table, ``softness_mm`` the blur sigma, ``strength`` 0..1.
    """

    center_mm: tuple[float, float]
    size_mm: tuple[float, float]
    angle_deg: float = 0.0
    strength: float = 0.35
    softness_mm: float = 25.0


@dataclass(frozen=True)
class PhotoStyle:
    """Everything about the photo except the camera pose; units in the names.

    Light: a lamp at ``lamp_offset_mm`` ``(dx, dy, height)`` from the camera target, coloured
    ``lamp_bgr``; ``ambient`` (0..1) is the share of light that does not come from it, tinted
    ``ambient_bgr``.  ``gradient`` adds a linear brightness ramp across the image (fraction,
    direction ``gradient_angle_deg``) and ``vignette`` darkens the corners by that fraction.

    >>> PhotoStyle.clean().noise_sigma
    0.0
    """

    lamp_offset_mm: tuple[float, float, float] = (-150.0, -250.0, 900.0)
    lamp_bgr: BGR = (0.92, 0.97, 1.0)
    lamp_size_mm: float = 120.0
    ambient: float = 0.45
    ambient_bgr: BGR = (1.0, 1.0, 1.0)
    gradient: float = 0.0
    gradient_angle_deg: float = 0.0
    vignette: float = 0.15
    flicker: float = 0.0  # mains-flicker bands of a rolling shutter under LED light (fraction)
    flicker_period_px: float = 120.0
    flicker_phase: float = 0.0
    exposure: float = 1.0
    white_balance_bgr: BGR = (1.0, 1.0, 1.0)
    cast_shadow_strength: float = 0.45
    shadows: tuple[ShadowBlob, ...] = ()
    glare: float = 0.0
    glare_radius_mm: float = 45.0
    glare_spots: tuple[tuple[float, float, float], ...] = ()  # (x, y, radius) mm, extra lights
    ground_gloss: float = 0.15
    defocus_sigma_px: float = 0.0
    motion_px: float = 0.0
    motion_angle_deg: float = 0.0
    hand_motion_px: float = 0.0  # the occluders alone move (a hand reaching in)
    hand_motion_angle_deg: float = 0.0
    noise_sigma: float = 0.006
    shot_noise: float = 0.02
    sharpen: float = 0.0  # phone-style unsharp mask after the noise (halos at edges)
    jpeg_quality: int | None = 92

    @classmethod
    def clean(cls) -> PhotoStyle:
        """No degradation at all: flat light, no noise, no JPEG (for geometry tests)."""
        return cls(
            ambient=1.0,
            vignette=0.0,
            cast_shadow_strength=0.0,
            ground_gloss=0.0,
            noise_sigma=0.0,
            shot_noise=0.0,
            jpeg_quality=None,
        )

    def replace(self, **changes: object) -> PhotoStyle:
        return dataclasses.replace(self, **changes)


# --------------------------------------------------------------------------------------------
# photograph
# --------------------------------------------------------------------------------------------


@dataclass
class Photo:
    """A rendered photo and its ground truth geometry.

    ``image`` is BGR uint8; ``occlusion`` is the float32 ``(H, W)`` coverage (0..1) of the
    occluders (hand/arm); :meth:`project` is the exact image position of world points.
    ``extras["specular"]`` (when there is glare) is the brightness glare added per pixel (0..);
    ``extras["shadow"]`` (when a hand or a shadow blob is drawn) the share (0..1) of the light
    its shadow takes from each pixel, where the hand itself is not.
    """

    image: np.ndarray
    camera: Camera
    occlusion: np.ndarray
    mm_per_px: float
    world_origin_mm: tuple[float, float] = (0.0, 0.0)
    extras: dict = field(default_factory=dict)

    def project(self, points_mm: Sequence | np.ndarray) -> np.ndarray:
        """Image pixels of ``(N, 2)`` table points or ``(N, 3)`` points with a height."""
        return self.camera.project(points_mm)

    def __iter__(self):
        """Unpack as ``image, project = photograph(...)``."""
        return iter((self.image, self.project))


def _blob_shadow_mask(
    cam: Camera,
    blobs: Sequence[ShadowBlob],
    caps: Sequence[Capsule],
    lamp: np.ndarray,
    lamp_size_mm: float,
    shape: tuple[int, int],
) -> np.ndarray:
    """Large soft shadows: out-of-view blobs and the hand's shadow, image space (0..1)."""
    h, w = shape
    out = np.zeros(shape, np.float32)
    px_mm = cam.mm_per_px_at(cam.target_mm)
    small = 4  # draw at quarter resolution: these shadows are soft anyway
    for b in blobs:
        m = np.zeros((h // small + 1, w // small + 1), np.float32)
        a = np.linspace(0, 2 * np.pi, 40, endpoint=False)
        ca, sa = math.cos(math.radians(b.angle_deg)), math.sin(math.radians(b.angle_deg))
        ex, ey = np.cos(a) * b.size_mm[0] / 2, np.sin(a) * b.size_mm[1] / 2
        ring = np.column_stack([ex * ca - ey * sa, ex * sa + ey * ca]) + b.center_mm
        poly = cam.project(ring) / small
        cv2.fillPoly(m, [np.round(poly * 4).astype(np.int32)], 1.0, cv2.LINE_AA, shift=2)
        m = cv2.GaussianBlur(m, (0, 0), max(b.softness_mm / px_mm / small, 0.5))
        m = cv2.resize(m, (w, h), interpolation=cv2.INTER_LINEAR)
        out = np.maximum(out, m * b.strength)
    if caps:
        m = np.zeros((h // small + 1, w // small + 1), np.float32)
        heights = []
        for cap in caps:
            ends = np.array([cap.p0, cap.p1], float)
            hgt = ends[:, 2:3]
            ground = ends[:, :2] - hgt * (lamp[:2] - ends[:, :2]) / np.maximum(lamp[2] - hgt, 1)
            seg = cam.clip_segment((*ground[0], 0.0), (*ground[1], 0.0))
            if seg is None:
                continue
            p = cam.project(np.array(seg)) / small
            r = cap.radius_mm / px_mm / small
            cv2.line(
                m,
                tuple(np.round(p[0]).astype(int)),
                tuple(np.round(p[1]).astype(int)),
                1.0,
                max(1, round(2 * r)),
                cv2.LINE_AA,
            )
            heights.append(float(hgt.mean()))
        pen = lamp_size_mm * float(np.median(heights)) / max(lamp[2] - np.median(heights), 1.0)
        m = cv2.GaussianBlur(m, (0, 0), max(pen / px_mm / small / 2, 1.0))
        m = cv2.resize(m, (w, h), interpolation=cv2.INTER_LINEAR)
        out = np.maximum(out, m * 0.55)
    return out


@functools.lru_cache(maxsize=8)
def _coarse_ground(cam: Camera, step: int) -> tuple[np.ndarray, ...]:
    """Pixel grid every ``step`` px and the table point each sees (cached per camera)."""
    w, h = cam.image_size
    gx = np.arange(0, w + step, step, dtype=np.float64)
    gy = np.arange(0, h + step, step, dtype=np.float64)
    px, py = np.meshgrid(gx, gy)
    ground = cam.pixel_to_table(np.column_stack([px.ravel(), py.ravel()]))
    return px, py, ground[:, 0].reshape(px.shape), ground[:, 1].reshape(px.shape)


def _light_field(
    cam: Camera, style: PhotoStyle, lamp: np.ndarray, rng_spots: Sequence, shape: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel light gain ``(H, W, 3)`` and specular glare field ``(H, W)``; smooth, so
    computed on a coarse grid and scaled up."""
    h, w = shape
    step = 16
    px, py, gxw, gyw = _coarse_ground(cam, step)
    gx, gy = px[0], py[:, 0]
    # lamp irradiance ~ cos(theta)/d^2, normalised at the camera target
    dx, dy = lamp[0] - gxw, lamp[1] - gyw
    d2 = dx * dx + dy * dy + lamp[2] ** 2
    irr = lamp[2] / d2**1.5
    t = np.asarray(cam.target_mm)
    irr0 = lamp[2] / ((lamp[0] - t[0]) ** 2 + (lamp[1] - t[1]) ** 2 + lamp[2] ** 2) ** 1.5
    irr = irr / irr0
    amb = style.ambient
    gain = (
        amb * np.asarray(style.ambient_bgr)[None, None, :]
        + (1 - amb) * irr[..., None] * np.asarray(style.lamp_bgr)[None, None, :]
    )
    # linear ramp (window light) and vignette
    ang = math.radians(style.gradient_angle_deg)
    ramp = ((px - w / 2) * math.cos(ang) + (py - h / 2) * math.sin(ang)) / (w / 2)
    gain *= (1 + style.gradient * np.clip(ramp, -1.5, 1.5))[..., None]
    rr = ((px - w / 2) ** 2 + (py - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    gain *= (1 - style.vignette * rr)[..., None]
    if style.flicker > 0:  # horizontal bands: rows are exposed at different times
        band = np.sin(2 * np.pi * py / style.flicker_period_px + style.flicker_phase)
        gain *= (1 + style.flicker * band)[..., None]
    gain *= style.exposure * np.asarray(style.white_balance_bgr)[None, None, :]
    # mirror point of the lamp on the table: where flat glossy things flash
    c = cam.center_mm
    g = (c[:2] * lamp[2] + lamp[:2] * c[2]) / (c[2] + lamp[2])
    spots = [(g[0], g[1], style.glare_radius_mm), *rng_spots]
    glare = np.zeros_like(px)
    for sx, sy, sr in spots:
        glare += np.exp(-((gxw - sx) ** 2 + (gyw - sy) ** 2) / (2 * sr * sr))
    gain = cv2.resize(gain.astype(np.float32), (len(gx) * step, len(gy) * step))
    glare = cv2.resize(glare.astype(np.float32), (len(gx) * step, len(gy) * step))
    # cv2.resize puts coarse sample i at (i + 0.5) * step - 0.5; shift to line up with gx = i*step
    off = step // 2
    return gain[off : off + h, off : off + w], glare[off : off + h, off : off + w]


def _add_noise(img: np.ndarray, style: PhotoStyle, rng: np.random.Generator) -> None:
    """Signal-dependent sensor noise, mostly in luminance as after demosaicing, in place.

    OpenCV's generator (seeded from ``rng``) is several times faster than numpy's here.
    """
    h, w = img.shape[:2]
    cv2.setRNGSeed(int(rng.integers(2**31 - 1)))
    lum = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    np.clip(lum, 0, 1, out=lum)
    sigma = np.sqrt(lum * np.float32(style.shot_noise**2) + np.float32(style.noise_sigma**2))
    n = np.empty((h, w), np.float32)
    cv2.randn(n, 0.0, 1.0)
    small = np.empty((h // 2 + 1, w // 2 + 1, 3), np.float32)
    cv2.randn(small, (0.0, 0.0, 0.0), (0.6, 0.6, 0.6))
    noise = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    # OpenCV's per-element ops on 3 channels are several times faster than numpy broadcasting
    cv2.add(noise, cv2.cvtColor(n, cv2.COLOR_GRAY2BGR), dst=noise)
    cv2.multiply(noise, cv2.cvtColor(sigma, cv2.COLOR_GRAY2BGR), dst=noise)
    cv2.add(img, noise, dst=img)


def _cast_shadow(
    img: np.ndarray, cam: Camera, s: Solid, lamp: np.ndarray, strength: float, lamp_size: float
) -> None:
    """Darken the table where the solid's shadow falls (soft, with a contact shadow), in place."""
    h, w = img.shape[:2]
    pts = s.outline_mm(16)
    hgt = pts[:, 2:3] - s.base_mm
    lift = np.maximum(lamp[2] - pts[:, 2:3], 1.0)
    ground = pts[:, :2] - hgt * (lamp[:2] - pts[:, :2]) / lift
    foot = pts[pts[:, 2] == pts[:, 2].min(), :2]
    c = np.asarray(s.center_mm)
    foot = c + (foot - c) * 1.06
    poly = cam.project(
        np.column_stack(
            [np.concatenate([ground, foot]), np.full(len(ground) + len(foot), s.base_mm)]
        )
    )
    px_mm = cam.mm_per_px_at((*s.center_mm, s.base_mm))
    pen = lamp_size * (s.top_mm - s.base_mm) / max(lamp[2] - s.top_mm, 1.0)
    sigma = max(0.8, (0.6 + pen / 2) / px_mm)
    pad = int(3 * sigma) + 2
    x0, y0 = np.maximum(np.floor(poly.min(0)).astype(int) - pad, 0)
    x1, y1 = np.minimum(np.ceil(poly.max(0)).astype(int) + pad, (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    m = np.zeros((y1 - y0, x1 - x0), np.float32)
    hull = cv2.convexHull(np.round((poly - (x0, y0)) * 4).astype(np.int32))
    cv2.fillConvexPoly(m, hull, 1.0, lineType=cv2.LINE_AA, shift=2)
    m = cv2.GaussianBlur(m, (0, 0), sigma)
    img[y0:y1, x0:x1] *= (1 - strength * m)[..., None]


def _motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    n = max(3, round(length) | 1)
    k = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * length / 2, math.sin(a) * length / 2
    cv2.line(
        k,
        (round((c - dx) * 16), round((c - dy) * 16)),
        (round((c + dx) * 16), round((c + dy) * 16)),
        1.0,
        1,
        cv2.LINE_AA,
        shift=4,
    )
    return k / k.sum()


def photograph(
    world_bgr: np.ndarray,
    mm_per_px: float,
    camera: Camera,
    style: PhotoStyle | None = None,
    rng: np.random.Generator | None = None,
    *,
    world_origin_mm: tuple[float, float] = (0.0, 0.0),
    overlays: Sequence[Overlay] = (),
    solids: Sequence[Solid] = (),
    occluders: Sequence[Capsule] = (),
) -> Photo:
    """Photograph a table scene.

    Args:
        world_bgr: top-down picture of the table (BGR uint8, or float32 in 0..1),
            ``mm_per_px`` millimetres per pixel, pixel ``(0, 0)`` centred on
            ``world_origin_mm``.  Parts of the view outside it repeat its edge (reflected),
            so draw it a little larger than the camera footprint.
        camera: pose and lens (:class:`Camera`).
        style: light and degradations (:class:`PhotoStyle`); default mild.
        rng: randomness for noise (and nothing else: the scene is decided by the caller).
        solids: 3-D bodies standing on the table (:class:`Revolved`, :class:`Box`).
        overlays: flat BGRA rasters on the table (:class:`Overlay`), drawn in order.
        occluders: capsules of a hand/arm above everything (:func:`make_hand`).

    Returns:
        :class:`Photo` (``image`` BGR uint8, ``project`` exact ground truth, ``occlusion``).
    """
    style = style or PhotoStyle()
    rng = rng if rng is not None else np.random.default_rng(0)
    w, h = camera.image_size
    mx, my = ground_maps(camera, mm_per_px, world_origin_mm)
    img = cv2.remap(world_bgr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)
    scale = 1 / 255 if world_bgr.dtype == np.uint8 else 1.0  # float rasters are 0..1
    img = np.multiply(img, np.float32(scale), dtype=np.float32)
    gloss = np.full((h, w), style.ground_gloss, np.float32)
    for ov in overlays:
        _draw_overlay(img, gloss, camera, ov, mx, my, mm_per_px, world_origin_mm)
    t = camera.target_mm
    lamp = np.array([t[0], t[1], 0.0]) + np.asarray(style.lamp_offset_mm, float)
    xn, yn = _camera_grid(camera)
    ctx = _Ctx(camera, img, gloss, lamp, xn, yn)

    if style.cast_shadow_strength > 0:
        for s in solids:
            _cast_shadow(img, camera, s, lamp, style.cast_shadow_strength, style.lamp_size_mm)
    # far-from-camera first: a tall piece then covers what stands behind it
    c = camera.center_mm
    for s in sorted(
        solids, key=lambda s: -math.hypot(s.center_mm[0] - c[0], s.center_mm[1] - c[1])
    ):
        s.render(ctx)

    gain, glare = _light_field(camera, style, lamp, style.glare_spots, (h, w))
    specular = None
    occlusion = np.zeros((h, w), np.float32)
    if style.shadows or occluders:
        dark = _blob_shadow_mask(camera, style.shadows, occluders, lamp, style.lamp_size_mm, (h, w))
        if occluders:
            lp = camera.project([tuple(lamp[:2])])[0] - np.array([w / 2, h / 2])
            lp /= max(np.linalg.norm(lp), 1e-6)
            # drawn premultiplied on its own layer, so a moving hand can blur by itself
            layer = np.zeros_like(img)
            occlusion = _draw_capsules(layer, camera, occluders, lp)
            if style.hand_motion_px > 0.5:
                k = _motion_kernel(style.hand_motion_px, style.hand_motion_angle_deg)
                layer = cv2.filter2D(layer, -1, k)
                occlusion = cv2.filter2D(occlusion, -1, k)
            cv2.multiply(img, cv2.cvtColor(1 - occlusion, cv2.COLOR_GRAY2BGR), dst=img)
            cv2.add(img, layer, dst=img)
            dark *= 1 - occlusion  # the hand is not in its own shadow
            gloss *= 1 - occlusion  # nor glossy like the board under it
        keep = 1 - dark
        gloss *= keep
        cv2.multiply(gain, cv2.cvtColor(keep, cv2.COLOR_GRAY2BGR), dst=gain)
    cv2.multiply(img, gain, dst=img)
    if style.glare > 0:
        specular = glare * gloss
        specular *= np.float32(style.glare)
        spec = cv2.cvtColor(specular, cv2.COLOR_GRAY2BGR)
        k = np.asarray(style.lamp_bgr, np.float32)
        cv2.add(img, cv2.multiply(spec, (*k.tolist(), 0.0)), dst=img)

    if style.defocus_sigma_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), style.defocus_sigma_px)
    if style.motion_px > 0.5:
        img = cv2.filter2D(img, -1, _motion_kernel(style.motion_px, style.motion_angle_deg))
    if style.noise_sigma > 0 or style.shot_noise > 0:
        _add_noise(img, style, rng)
    if style.sharpen > 0:
        soft = cv2.GaussianBlur(img, (0, 0), 1.4)
        img = cv2.addWeighted(img, 1 + style.sharpen, soft, -style.sharpen, 0)
    out = cv2.convertScaleAbs(cv2.max(img, 0.0), alpha=255.0)
    if style.jpeg_quality is not None:
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(style.jpeg_quality)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    extras = {} if specular is None else {"specular": specular}
    if style.shadows or occluders:  # the truth of a hand's shadow, for measuring hand masks
        extras["shadow"] = dark
    return Photo(out, camera, occlusion, mm_per_px, tuple(world_origin_mm), extras)
