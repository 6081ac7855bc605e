"""Board geometry: canonical board coordinates, homographies and rectification.

The canonical board frame measures in cells: x runs west to east over ``[0, 8]``,
y runs north to south over ``[0, 8]`` (so a rectified image has north up). Cell
``a1`` is the south-west cell, centred at ``(0.5, 7.5)``.

A *board homography* ``H`` maps canonical points to image pixels.

>>> import numpy as np
>>> cell_centre("a1")
(0.5, 7.5)
>>> H = scale_homography(100.0)
>>> project(H, np.array([[0.5, 7.5]])).round(1).tolist()
[[50.0, 750.0]]
"""

from __future__ import annotations

import cv2
import numpy as np

FILES = "abcdefgh"
N = 8  # cells per side

#: Canonical corners in the order north-west, north-east, south-east, south-west.
CANONICAL_CORNERS = np.array([[0, 0], [N, 0], [N, N], [0, N]], dtype=np.float64)


def cell_name(col: int, row: int) -> str:
    """Name of the cell in column ``col`` (0 = a) and row ``row`` (0 = rank 1).

    >>> cell_name(2, 3)
    'c4'
    """
    return f"{FILES[col]}{row + 1}"


def cell_index(name: str) -> tuple[int, int]:
    """``(col, row)`` of a cell name, both from 0.

    >>> cell_index("h8")
    (7, 7)
    """
    return FILES.index(name[0]), int(name[1:]) - 1


def cell_centre(name: str) -> tuple[float, float]:
    """Canonical centre of a cell (x east, y south, in cells)."""
    col, row = cell_index(name)
    return col + 0.5, N - 1 - row + 0.5


def all_cells() -> list[str]:
    """All 64 cell names, row-major from the north-west (``a8``) as in a rectified image."""
    return [cell_name(c, r) for r in range(N - 1, -1, -1) for c in range(N)]


def scale_homography(px_per_cell: float, margin_cells: float = 0.0) -> np.ndarray:
    """Canonical -> rectified-image pixels at ``px_per_cell`` with a margin."""
    s, m = px_per_cell, margin_cells * px_per_cell
    return np.array([[s, 0, m], [0, s, m], [0, 0, 1]], dtype=np.float64)


def median_colour(px: np.ndarray) -> np.ndarray:
    """``np.median(px, axis=0)`` of pixels ``px`` (n, channels): the same values, each
    channel partitioned as one contiguous row (a fraction of np.median's time on the few
    hundred to few thousand pixels of a patch; no NaN check: pixels are finite). ``px``
    must hold at least one pixel.

    >>> px = np.random.default_rng(0).normal(size=(577, 3)).astype(np.float32)
    >>> [bool(np.array_equal(median_colour(p), np.median(p, axis=0))) for p in (px, px[1:])]
    [True, True]
    >>> median_colour(np.array([[200, 10], [100, 250]], np.uint8)).tolist()
    [150.0, 130.0]
    """
    n = len(px)
    if px.dtype.kind != "f":  # integers: the mean of the middle two must not wrap round
        px = px.astype(np.float64)
    rows = np.ascontiguousarray(px.T)
    k = n // 2
    if n % 2:
        return np.partition(rows, k, axis=1)[:, k]
    part = np.partition(rows, k, axis=1)
    below = part[:, :k].max(axis=1)  # the k-th smallest: the largest of those before it
    return (below + part[:, k]) / 2  # as np.median: the mean of the middle two


def project(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to ``(n, 2)`` points."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    hom = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return hom[:, :2] / hom[:, 2:3]


def rectify(
    image: np.ndarray,
    H: np.ndarray,
    px_per_cell: int,
    margin_cells: float = 0.0,
    interpolation: int = cv2.INTER_LINEAR,
) -> np.ndarray:
    """Warp the board to a north-up square image of ``px_per_cell`` pixels per cell."""
    A = scale_homography(px_per_cell, margin_cells)
    size = round((N + 2 * margin_cells) * px_per_cell)
    M = A @ np.linalg.inv(H)
    return cv2.warpPerspective(
        image, M, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE
    )


def rotate_canonical(H: np.ndarray, quarter_turns: int) -> np.ndarray:
    """The same physical board with north moved ``quarter_turns`` x 90° clockwise.

    Returns ``H'`` such that the canonical frame of ``H'`` is the canonical frame of ``H``
    turned; used to choose which physical side is north.
    """
    k = quarter_turns % 4
    # Rotation of the canonical square about its centre by -90° * k (clockwise in image).
    c, s = [(1, 0), (0, 1), (-1, 0), (0, -1)][k]
    R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float64)
    T = np.array([[1, 0, N / 2], [0, 1, N / 2], [0, 0, 1]], dtype=np.float64)
    Ti = np.array([[1, 0, -N / 2], [0, 1, -N / 2], [0, 0, 1]], dtype=np.float64)
    return H @ T @ R @ Ti


def north_up_turns(H: np.ndarray) -> int:
    """Quarter turns making the board side nearest the top of the image north (spec default)."""
    ys = [project(rotate_canonical(H, k), np.array([[N / 2, 0.0]]))[0, 1] for k in range(4)]
    return int(np.argmin(ys))


def north_up(H: np.ndarray) -> np.ndarray:
    """``H`` turned so that the side nearest the top of the image is north."""
    return rotate_canonical(H, north_up_turns(H))


def closest_turns(H: np.ndarray, reference_corners: np.ndarray) -> int:
    """Quarter turns bringing ``H``'s corners nearest to ``reference_corners`` (NW, NE, SE, SW)."""
    costs = [
        np.linalg.norm(project(rotate_canonical(H, k), CANONICAL_CORNERS) - reference_corners)
        for k in range(4)
    ]
    return int(np.argmin(costs))


def cell_size_px(H: np.ndarray) -> float:
    """Mean side of a cell in image pixels (from the board outline)."""
    c = project(H, CANONICAL_CORNERS)
    sides = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
    return float(sides.mean() / N)
