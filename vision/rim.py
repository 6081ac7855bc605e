"""A coin's rim: where a coin lies, its outline shows as a steep lightness step across the
circle of its radius, whatever its face's colour (its side band and contact shadow against
the tile). A one-colour coin whose face is the tile's own wood (woodburned) and whose
symbol is faint shows little else; plain tile shows no such circle.

Measured on cells' windows (``cells.hand_edge_window``: the look disc and a margin, relative
Lab at ``PX``), many at once: the steps are taken once over the stacked windows and read at
fixed places round circles a little larger and smaller than the coins' learned radius and a
little off the cell's middle (a coin is seldom centred).

>>> size = 28
>>> tile = np.full((1, size, size, 3), 200.0, np.float32)
>>> int(rims_shown(tile, 9.0)[0])  # plain tile
0
>>> yy, xx = np.mgrid[:size, :size] - (size - 1) / 2
>>> coin = tile.copy()
>>> coin[0, np.hypot(yy - 1, xx) < 9.0, 0] = 150.0  # a darker face, a pixel off the middle
>>> int(rims_shown(coin, 9.0)[0]) > 20
True
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

#: A place round a circle shows the rim where the lightness step along the radius (8-bit
#: L*, Sobel over 8) is at least RIM_STEEP and RIM_RADIAL times the step across it.
RIM_STEEP = 10.0
RIM_RADIAL = 2.0
#: Only places less than RIM_ARC (radians) from a diagonal are read (28 of RIM_POINTS): a
#: board's own pattern is square (its lines, and on woodburned a lighter square inside each
#: cell, 7 px from the middle, which a circle of the coin's radius crosses), and a step
#: along x or y is RIM_RADIAL times steeper along a radius than across it only within
#: atan(1 / 2) = 26.6 deg of that axis; the arcs keep more than 22.5 deg off it (what the
#: square still shows there is its corners). Helper wood28, fresh woodburned tune rigs
#: 7200-7249, the 8,922 empty cells read empty in the open against the 2,720 coins not
#: under a hand: the whole circle (rim27's 14 and 1.5) shows 27 places on the median
#: empty cell (that square, at 7.5 px), the coins 47; these arcs 6 (at most 14), the coins
#: 24 (99 % 13 or more).
RIM_ARC = np.pi / 8
#: Places round each circle; circles RIM_SHIFT pixels off the middle each way at most, and
#: radii RIM_RADII pixels about the learned one (a coin lies up to a pixel or two off its
#: cell's middle; the learned outline is the look's blurred step, about its middle).
RIM_POINTS = 64
RIM_SHIFT = 2
RIM_RADII = (-1.0, -0.5, 0.0, 0.5, 1.0)
#: No place further than this from the cell's middle (in x or in y) is read: the cell's
#: own printed lines lie at half a cell (12 px), and a circle reaching them shows their
#: steps as a rim.
RIM_REACH = 9.5
#: The learned radius is sought within these bounds (pixels at PX = 24; the renderer's
#: coin is 9.0): a looser search found 6.5 px, its floor, on one rig (rim27, rig 6232),
#: a step inside the face (the symbol's ring), not its outline.
RIM_RADIUS_RANGE = (7.5, 10.5)
_RADIUS_STEP = 0.25


def coin_rim_radius(faces: list[np.ndarray]) -> float:
    """The coins' outline radius (pixels) from their learned looks (each (s, s, >= 1)
    relative Lab, the coin in its middle): where the lightness steps most along the radius,
    summed over the looks, within RIM_RADIUS_RANGE; the range's middle without looks.

    >>> size = 20
    >>> yy, xx = np.mgrid[:size, :size] - (size - 1) / 2
    >>> look = np.full((size, size, 3), 200.0, np.float32)
    >>> look[np.hypot(yy, xx) < 8.6, 0] = 120.0
    >>> coin_rim_radius([look])
    8.5
    """
    radii = np.arange(RIM_RADIUS_RANGE[0], RIM_RADIUS_RANGE[1] + 1e-6, _RADIUS_STEP)
    if not faces:
        return float(np.median(radii))
    steps = np.zeros(len(radii))
    for look in faces:
        gx, gy = _steps(look[None, ..., 0])
        size = look.shape[0]
        for k, r in enumerate(radii):
            xi, yi, ux, uy, ok = _circles(float(r), size, 0, (0.0,), arcs=False)
            along = gx[0, yi, xi] * ux + gy[0, yi, xi] * uy
            steps[k] += np.abs(along[ok]).mean()
    return float(radii[int(np.argmax(steps))])


def _steps(light: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lightness steps (x, y) per pixel (Sobel over 8) of stacked windows (n, s, s): one
    Sobel over the windows laid one above another (their seams lie outside RIM_REACH)."""
    n, h, w = light.shape
    tall = np.ascontiguousarray(light, np.float32).reshape(n * h, w)
    gx = cv2.Sobel(tall, cv2.CV_32F, 1, 0, ksize=3, scale=1 / 8)
    gy = cv2.Sobel(tall, cv2.CV_32F, 0, 1, ksize=3, scale=1 / 8)
    return gx.reshape(n, h, w), gy.reshape(n, h, w)


@functools.lru_cache(maxsize=64)
def _circles(
    r: float,
    size: int,
    shifts: int = RIM_SHIFT,
    radii: tuple[float, ...] = RIM_RADII,
    arcs: bool = True,
) -> tuple[np.ndarray, ...]:
    """Every circle's places ((circles, places) each: of RIM_POINTS round it, those on the
    diagonal arcs with ``arcs``, see RIM_ARC) of radius ``r`` plus each of ``radii``, about
    each place up to ``shifts`` pixels off the middle of a ``size`` square: pixel columns,
    rows, the radius's direction (x, y), and which lie within RIM_REACH of the middle (the
    others are not read)."""
    a = np.linspace(0, 2 * np.pi, RIM_POINTS, endpoint=False)
    if arcs:
        a = a[np.abs(a % (np.pi / 2) - np.pi / 4) < RIM_ARC - 1e-9]
    ux, uy = np.cos(a), np.sin(a)
    mid = (size - 1) / 2
    rows = []
    for dy in range(-shifts, shifts + 1):
        for dx in range(-shifts, shifts + 1):
            for dr in radii:
                rows.append((mid + dx + (r + dr) * ux, mid + dy + (r + dr) * uy))
    x = np.array([p[0] for p in rows])
    y = np.array([p[1] for p in rows])
    ok = (np.abs(x - mid) <= RIM_REACH) & (np.abs(y - mid) <= RIM_REACH)
    xi = np.clip(np.round(x).astype(np.intp), 0, size - 1)
    yi = np.clip(np.round(y).astype(np.intp), 0, size - 1)
    shape = x.shape
    return (
        xi,
        yi,
        np.broadcast_to(ux, shape).astype(np.float32),
        np.broadcast_to(uy, shape).astype(np.float32),
        ok,
    )


@functools.lru_cache(maxsize=64)
def _places(r: float, size: int) -> tuple[np.ndarray, ...]:
    """The distinct (pixel, direction) places that :func:`_circles` reads (circles overlap:
    a third as many as they hold): flat pixel index, the radius's direction (x, y), and
    each circle's places as indices into them ((circles, places); a place out of reach
    points one past the last, which is never steep)."""
    xi, yi, ux, uy, ok = _circles(r, size)
    turn = np.broadcast_to(np.arange(xi.shape[1]), xi.shape)
    key = ((yi * size + xi) * xi.shape[1] + turn)[ok]
    keys, where = np.unique(key, return_inverse=True)
    held = np.full(xi.shape, len(keys), np.intp)
    held[ok] = where
    one = _order(where)
    return keys // xi.shape[1], ux[ok][one], uy[ok][one], held


def _order(where: np.ndarray) -> np.ndarray:
    """For each distinct place (``where``: each read place's distinct index), one read place."""
    out = np.zeros(where.max(initial=-1) + 1, np.intp)
    out[where] = np.arange(len(where))
    return out


def rims_shown(windows: np.ndarray, radius: float) -> np.ndarray:
    """For each window ((n, s, s, 3) relative Lab, a cell's middle at the windows' middle):
    the most places on the diagonal arcs (RIM_ARC), over circles of about a coin's
    ``radius`` (RIM_RADII) up to RIM_SHIFT pixels off the middle, where the rim shows
    (RIM_STEEP, RIM_RADIAL); (n,) ints (at most 28 at RIM_POINTS = 64)."""
    windows = np.asarray(windows)
    if not len(windows):
        return np.zeros(0, np.intp)
    gx, gy = _steps(windows[..., 0])
    r = round(radius / _RADIUS_STEP) * _RADIUS_STEP
    pixel, ux, uy, held = _places(r, windows.shape[1])
    sx, sy = gx.reshape(len(windows), -1)[:, pixel], gy.reshape(len(windows), -1)[:, pixel]
    along = np.abs(sx * ux + sy * uy)
    across = np.abs(sy * ux - sx * uy)
    steep = np.zeros((len(windows), len(pixel) + 1), bool)
    steep[:, :-1] = (along >= RIM_STEEP) & (along >= RIM_RADIAL * across)
    return steep[:, held].sum(axis=2).max(axis=1)
