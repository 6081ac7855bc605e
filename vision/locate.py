"""Find the Reflec board in a photo: outline candidates on a small frame, then a grid fit on
the tile crosses at full resolution; and the cheap check that a locked pose still fits.

1. **Candidates** (on the frame halved to under 720 px wide, :func:`downscale`). Each of the
   16 tiles carries a printed cross splitting it into 2x2 cells. Outlines come from the
   crosses seen as blobs on one lattice (colour-blind; every placement when a whole row is
   hidden), from the empty cells as bright squares, or from the biggest blob of each of the
   frame's most common colours.
2. **Check.** Each outline is fitted to the crosses (16 px per cell; each cross arm is the
   strongest dark ridge in its band, arms hidden by a piece are skipped) and scored by the
   crosses found, the board's outer edges where the grid puts them, and no tile colour
   beyond them. The search stops at a candidate whose grid rules out a one-tile shift;
   outlines that repeat an earlier fit are skipped.
3. **Refinement** of the best, once, on the full frame: the lens term, each tile's shift
   and twist (:func:`piecebridge.calibration.pose.fit_pose`). Tile gaps and twists only move
   single crosses, which the robust fit treats as noise.
4. **When that finds no board, or a weak one** (under ``WEAK_CROSSES`` crosses): the same
   on the frame's darkest channel, then (while no search found ``WEAK_CROSSES``) whole
   tiles seen as blobs (lines lighter than the tiles and too faint for the small frame),
   each such outline fitted on the full frame in both line polarities
   (:func:`_find_by_tiles`; tiles that do not fit the others' lattice, half under a hand,
   are left out; failing that, the tiles of a frame twice as wide, whose gaps cut them
   apart from a checked cloth's squares, and the nets of lines by their sides; last, the
   nets by any four of their longest sides, :func:`_net_side_subsets`). A board found at
   once costs nothing more.
5. **One tile over.** A board fitting 12 crosses or fewer may be a fit one tile off (it
   shares three rows of tiles with the board): it is fitted again in place and one tile
   over each way, and the fit finding the most crosses wins (:func:`_one_tile_over`).
6. **Printed grids.** A grid whose lines run on beyond two of its sides, or through its
   cells (a Piecepack tile's one cross leaves each cell without a line), or repeat at
   another pitch than its cells, is a printed grid such as a business card's, not a board
   (:func:`_printed_grid`); nor is a grid fitting under ``MIN_CROSSES`` tile crosses.

With a board setup the pose is locked; :func:`check_lock` tells from the rectified view
whether it still fits (a few milliseconds).

>>> import numpy as np
>>> find_board(np.zeros((120, 160, 3), np.uint8))
Traceback (most recent call last):
...
piecebridge.vision.locate.BoardNotFound: no board in view: no 8x8 tile grid found
"""

from __future__ import annotations

import contextvars
import functools
import itertools
from collections.abc import Callable, Iterator
from typing import Any, Literal

import cv2
import numpy as np
from piecebridge.calibration.geometry import (
    CANONICAL_CORNERS,
    N,
    median_colour,
    project,
)
from piecebridge.calibration.pose import CROSS_CENTRES, BoardPose, fit_pose

from piecebridge.errors import UserError

#: How a cross arm's ridge is taken along the arm (see :func:`find_crosses`).
Along = Literal["sum", "low"]

WORK_WIDTH = 480  # candidates are found and checked at about this width (see downscale)


class BoardNotFound(UserError):
    """No usable Reflec board in the image (absent, cut off, or unreadable grid)."""


class BoardCutOff(BoardNotFound):
    """A board runs off the frame's edge: it is there, but not all of it shows."""


class GridCutOff(BoardCutOff):
    """A grid was fitted, but its lines and colours beyond it say it is a part of a board the
    frame cuts off (:func:`_runs_past_frame`, :func:`_part_of_a_board_cut_off`): ``pose`` is
    where it was fitted, for a caller that can tell a board in view by other means (the
    calibration layout's pieces: :func:`piecebridge.vision.learn.learn_setup`)."""

    def __init__(self, message: str, pose: BoardPose) -> None:
        super().__init__(message)
        self.pose = pose


class GridInDoubt(BoardNotFound):
    """A grid was fitted but is not taken for a board by its lines alone: ``pose`` is where
    it was fitted, for a caller that can tell a board by other means (the calibration
    layout's pieces)."""

    def __init__(self, message: str, pose: BoardPose) -> None:
        super().__init__(message)
        self.pose = pose


class PrintedGrid(GridInDoubt):
    """The grid found looks printed (a business card's)."""


class FewCrosses(GridInDoubt):
    """The grid's full-frame fit found fewer than ``MIN_CROSSES`` tile crosses (glare or
    pieces over most of them, or a card's grid)."""


class MaybeCellOff(GridInDoubt):
    """The grid's lines say it may lie a cell off the board, and the grid a cell over does
    not fit (:func:`_onto_the_board`): ``pose`` is the grid as found, which a calibration
    photo's layout can still show in place (a cloth or a table pattern beside the board
    shows segments where a strip of table should show none)."""


#: Memo keys (:func:`_memo`) of what is no picture's alone (see :func:`_pictures`).
_NOT_PICTURES = (("by tone", False), ("by tone", True))

#: What one :func:`find_board` call makes of a frame more than once (its grey, its
#: downscaled copies), kept for that call only: per thread, and dropped when it returns.
_MEMO: contextvars.ContextVar[dict | None] = contextvars.ContextVar("locate_memo", default=None)


def _pictures(memo: dict | None) -> dict:
    """What ``memo`` made of the frame's pictures alone (its grey, its downscaled copies and
    what was found in them), the same whichever search asks: not what a search noted of its
    own course (a grid seen cut off) nor the search by tone's outcome. The search by tone
    starts from it (:func:`_search_by_tone`), and hands back what it made."""
    if memo is None:
        return {}
    return {k: v for k, v in memo.items() if isinstance(k, tuple) and k[0] not in _NOT_PICTURES}


def _memo(key: object, image: np.ndarray, make: Callable[[], object]) -> object:
    """``make()`` for ``image``, made once per :func:`find_board` call (every time outside
    one). The image itself is kept with it, so that its ``id`` names it for the call."""
    memo = _MEMO.get()
    if memo is None:
        return make()
    hit = memo.get((key, id(image)))
    if hit is None or hit[0] is not image:
        hit = memo[key, id(image)] = (image, make())
    return hit[1]


def _grey(bgr: np.ndarray) -> np.ndarray:
    """The frame's grey (made once per :func:`find_board` call; not to be written into)."""
    return _memo("grey", bgr, lambda: cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY))


def _downscaled(bgr: np.ndarray, work_width: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`downscale`, made once per :func:`find_board` call and work width."""
    return _memo(("small", work_width), bgr, lambda: downscale(bgr, work_width))


def _polarities(small: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The grey of a downscaled frame and its negative (lines dark in one of them), made
    once per :func:`find_board` call, so that the nets found in each are kept too."""

    def make() -> tuple[np.ndarray, np.ndarray]:
        gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        return gray, 255 - gray

    return _memo("polarities", small, make)


def _polarity(small: np.ndarray, inverted: bool) -> np.ndarray:
    """The grey of a downscaled frame with the printed lines dark (:func:`_polarities`)."""
    return _polarities(small)[int(inverted)]


def _cross_blobs_of(gray: np.ndarray) -> np.ndarray:
    """:func:`_cross_blobs`, made once per picture in a :func:`find_board` call (the search
    by tone asks them of the same pictures as grey's search by lines)."""
    return _memo("cross blobs", gray, lambda: _cross_blobs(gray))


def _cell_outlines_of(gray: np.ndarray) -> list[np.ndarray]:
    """:func:`_cell_outlines`, made once per picture in a :func:`find_board` call."""
    return _memo("cell outlines", gray, lambda: _cell_outlines(gray))


def _saddle_outlines_of(small: np.ndarray) -> list[np.ndarray]:
    """:func:`_saddle_outlines` of a downscaled frame's grey, made once per frame in a
    :func:`find_board` call: for either polarity of the lines, as a saddle is one in either
    (its quadrants alike and apart alike; on tune checkered and mixed rigs 0-24, 250
    frames, the points of the grey and of its negative were the same)."""
    gray = _polarities(small)[0]
    return _memo("saddle outlines", gray, lambda: _saddle_outlines(gray))


# --------------------------------------------------------------------------- outline


def lab_image(bgr: np.ndarray) -> np.ndarray:
    """Lab (float32) on OpenCV's 8-bit scale (L 0-255, a and b offset by 128).

    Converted through float32: OpenCV's 8-bit Lab path is several times slower.

    >>> lab_image(np.full((1, 1, 3), 255, np.uint8)).round().tolist()
    [[[255.0, 128.0, 128.0]]]
    """
    f = bgr.astype(np.float32)
    f *= np.float32(1 / 255)
    return cv2.transform(cv2.cvtColor(f, cv2.COLOR_BGR2LAB), _LAB_TO_8BIT)


_LAB_TO_8BIT = np.array([[2.55, 0, 0, 0], [0, 1, 0, 128], [0, 0, 1, 128]], np.float32)


def _candidate_colours(lab: np.ndarray, max_candidates: int = 4) -> list[np.ndarray]:
    """Most common colours of the centre and of the whole frame (Lab, coarse bins)."""
    h, w = lab.shape[:2]
    regions = [lab[h // 4 : 3 * h // 4 : 2, w // 4 : 3 * w // 4 : 2], lab[::2, ::2]]
    found: list[np.ndarray] = []
    for region in regions:
        px = region.reshape(-1, 3).astype(np.int32)
        key = (px[:, 0] // 24) * 1024 + (px[:, 1] // 10) * 32 + (px[:, 2] // 10)
        counts = np.bincount(key, minlength=11 * 1024)
        sums = None
        for k in _most_common(counts, 3):
            if counts[k] == 0:
                break
            if sums is None:  # each bin's channel sums, for the bins' means
                sums = [np.bincount(key, weights=px[:, c], minlength=len(counts)) for c in range(3)]
            # The mean of the bin's pixels (as px[key == k].mean(axis=0)): sums of whole
            # numbers in float64 are exact in any order, divided by the same count.
            colour = np.array([sums[0][k], sums[1][k], sums[2][k]]) / counts[k]
            if all(np.linalg.norm(colour - c) > 12 for c in found):
                found.append(colour)
    return found[:max_candidates]


def _most_common(counts: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` bins counted most, most first, as ``np.argsort(counts)[::-1][:k]`` orders
    them, but only those counted at all: sorting every bin of the 11 thousand colour bins,
    mostly empty, took 1.5-3 ms a region (numpy's sort of many equal keys), the bins
    counted about 0.1. When two of the ``k + 1`` largest counts tie, the full sort's own
    order of ties is kept.

    >>> c = np.array([5, 0, 9, 2, 7, 0, 1])
    >>> _most_common(c, 3).tolist(), np.argsort(c)[::-1][:3].tolist()
    ([2, 4, 0], [2, 4, 0])
    >>> _most_common(np.array([0, 3, 0]), 3).tolist()
    [1]
    """
    counted = np.flatnonzero(counts)
    top = counted[np.argsort(counts[counted], kind="stable")[::-1][: k + 1]]
    if len(np.unique(counts[top])) < len(top):
        top = np.argsort(counts)[::-1][: k + 1]
    return top[:k][counts[top[:k]] > 0]


def _components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(mask, connectivity=8)`` by Grana's block-based
    scan: the same labels in the same order as the default (Spaghetti, a faster-branching
    form of the same 2x2-block scan), yet about three times faster on these masks here.

    >>> m = np.zeros((6, 8), np.uint8); m[0, 5] = m[1, 1] = m[4:6, 2:4] = 1
    >>> n, labels, stats, _ = _components(m)
    >>> a = cv2.connectedComponentsWithStats(m, connectivity=8)
    >>> n == a[0] and np.array_equal(labels, a[1]) and np.array_equal(stats, a[2])
    True
    """
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)


def _quad_from_mask(mask: np.ndarray) -> np.ndarray | None:
    """Four corners of the biggest blob in ``mask``, or None if it is not board-like."""
    n, labels, stats, _ = _components(mask)
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


def _cross_blobs(small_gray: np.ndarray) -> np.ndarray:
    """Centres (n, 2) of blobs shaped like tile crosses: thin dark lines, square, sparse,
    the largest family of one size (crosses are all alike, clutter is not)."""
    bh = cv2.morphologyEx(
        small_gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (7, 7))
    )
    _, mask = cv2.threshold(bh, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    _, labels, stats, _ = _components(mask)
    w, h = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    area = stats[1:, cv2.CC_STAT_AREA]
    side = np.maximum(w, h)
    ok = (
        (side > small_gray.shape[0] / 40)
        & (w < 1.6 * h)
        & (h < 1.6 * w)
        & (area < 0.35 * w * h)
        & (area > 1.5 * side)
    )
    idx = np.flatnonzero(ok)
    if len(idx) < 6:
        return np.zeros((0, 2))
    sizes = side[idx].astype(float)
    counts = (np.abs(sizes[None, :] / sizes[:, None] - 1) < 0.3).sum(axis=1)  # per size
    idx = idx[np.abs(sizes / sizes[int(np.argmax(counts))] - 1) < 0.3]
    # Each blob's centre: its fullest column and row (the first, if tied); all blobs at once
    # from the mask's pixels (outside a blob's box its counts are 0, so the same as per box).
    ys, xs = np.nonzero(mask)
    slot = np.full(len(stats), -1)
    slot[idx + 1] = np.arange(len(idx))
    k = slot[labels[ys, xs]]
    sel = k >= 0
    k, xs, ys = k[sel], xs[sel], ys[sel]
    rows, cols = mask.shape
    per_col = np.bincount(k * cols + xs, minlength=len(idx) * cols).reshape(len(idx), cols)
    per_row = np.bincount(k * rows + ys, minlength=len(idx) * rows).reshape(len(idx), rows)
    return np.stack([per_col.argmax(axis=1), per_row.argmax(axis=1)], axis=1).astype(np.float64)


def _lattice_labels(
    pts: np.ndarray, max_index: int = 3, robust: bool = False, settle: bool = False
) -> np.ndarray | None:
    """Integer lattice indices (n, 2) of points on a grid (tile crosses, cells), by walking
    from neighbour to neighbour (each step one place along one of the two grid directions).
    None if the points do not form one lattice of at most ``max_index + 1`` a side.

    ``robust``: points that do not fit the others' lattice (a tile half under a hand, its
    blob's middle off its tile's; a card on the table one place beyond the board) are left
    out (label ``-1``) rather than spoiling it: each point whose steps to its neighbours
    disagree with the walk more often than they agree, and the points outside the window of
    ``max_index + 1`` a side holding the most. Unlabelled points are negative either way.
    ``settle`` (robust only): a walk that leaves out no more points, each of those left
    agreeing with it more often than not, stands though a few steps still disagree (a
    tone grid's 49 corners under a steep view: a step that skips a place over a piece
    rounds a place off at times; tune checkered shots 205/0 and 231/3, calibration photos
    111 and 227: no outline at all, the walk stuck with 2-3 such points).

    >>> g = np.array([[x, y] for y in range(3) for x in range(3)], float) * 10
    >>> _lattice_labels(np.vstack([g, [[30.0, 0.0]]]), 2) is None  # one place beyond
    True
    >>> _lattice_labels(np.vstack([g, [[30.0, 0.0]]]), 2, robust=True)[:, 0].tolist()
    [0, 1, 2, 0, 1, 2, 0, 1, 2, -1]
    """
    keep = np.arange(len(pts))
    for _ in range(3 if robust else 1):
        walk = _lattice_walk(pts[keep], robust)
        if walk is None:
            return None
        labels, flipped, agree, disagree = walk
        if not disagree.any():
            break
        if not robust:
            return None  # inconsistent walk: not one lattice
        left_out = (disagree > 0) & (disagree >= agree)
        if settle and not left_out.any():
            break  # settled: each point left agrees more often than not
        keep = keep[~left_out]
    else:
        return None
    found = labels[:, 0] >= 0
    if found.sum() < 6:
        return None
    labels[found] -= labels[found].min(axis=0)
    span = labels[found].max(axis=0)
    if span.max() > max_index:
        if not robust:
            return None
        labels, found = _best_window(labels, found, max_index)
        if found.sum() < 6:
            return None
    if flipped:
        labels = labels[:, ::-1].copy()
    out = np.full((len(pts), 2), -1, np.int64)
    out[keep] = np.where(found[:, None], labels, -1)
    return out


def _lattice_walk(
    pts: np.ndarray, seed_by_steps: bool = False
) -> tuple[np.ndarray, bool, np.ndarray, np.ndarray] | None:
    """The walk of :func:`_lattice_labels`: labels (n, 2) (-1 where the walk did not reach;
    on a conflict the first label stands), whether the lattice turns the other way from the
    canonical frame (then x and y swap), and per point how many of its steps to labelled
    neighbours agree and disagree with the labels. None if no lattice shows at all.

    The walk starts from the point nearest the points' median, or with ``seed_by_steps``
    from the point with the most whole steps to neighbours (the nearest the median of
    those): a blob off the lattice near the middle then cannot leave the walk alone."""
    n = len(pts)
    if n < 2:
        return None
    d = np.linalg.norm(pts[:, None] - pts[None], axis=-1)
    np.fill_diagonal(d, np.inf)
    spacing = float(np.median(d.min(axis=1)))
    ii, jj = np.nonzero(d < 1.4 * spacing)
    if len(ii) < 4:
        return None
    vecs = pts[jj] - pts[ii]
    ang = np.degrees(np.arctan2(vecs[:, 1], vecs[:, 0])) % 180
    hist = np.histogram(ang, bins=36, range=(0, 180))[0]
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    a1 = (np.argmax(hist) + 0.5) * 5
    far = np.abs(((np.arange(36) + 0.5) * 5 - a1 + 90) % 180 - 90) > 45
    a2 = (np.argmax(np.where(far, hist, -1)) + 0.5) * 5
    basis = []
    for a in (a1, a2):
        sel = np.abs((ang - a + 90) % 180 - 90) < 15
        unit = np.array([np.cos(np.radians(a)), np.sin(np.radians(a))])
        length = np.median(np.abs(vecs[sel] @ unit)) if sel.any() else spacing
        basis.append(unit * length)
    B = np.array(basis).T  # columns u, v
    if abs(np.linalg.det(B)) < 1e-6:
        return None
    Binv = np.linalg.inv(B)
    # Every neighbour step at once, in grid units; then a walk over plain integers.
    # With ``seed_by_steps`` (robust labelling) a step may also skip one place, so that
    # tiles on both sides of a row hidden under a hand or pieces still join one lattice.
    reach = 2 if seed_by_steps else 1
    pi, pj = np.nonzero(d < (0.6 + reach) * spacing)
    ab = (pts[pj] - pts[pi]) @ Binv.T
    step = np.round(ab)
    good = (np.abs(ab - step).max(axis=1) <= 0.3) & (np.abs(step).max(axis=1) <= reach)
    pi, pj, step = pi[good], pj[good], step[good].astype(np.int64)
    neighbours: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
    for i, j, sx, sy in zip(pi.tolist(), pj.tolist(), *step.T.tolist(), strict=True):
        neighbours[i].append((j, sx, sy))
    to_median = np.linalg.norm(pts - np.median(pts, axis=0), axis=1)
    if seed_by_steps:
        steps = np.bincount(pi, minlength=n)
        to_median = np.where(steps == steps.max(), to_median, np.inf)
    seed = int(np.argmin(to_median))
    # The walk over plain Python integers (numpy indexing per step costs more than the walk).
    found: dict[int, tuple[int, int]] = {seed: (0, 0)}
    stack = [seed]
    while stack:
        i = stack.pop()
        li, lj = found[i]
        for j, sx, sy in neighbours[i]:
            if j not in found:
                found[j] = (li + sx, lj + sy)
                stack.append(j)
    walked = np.zeros(n, bool)
    walked[list(found)] = True
    # Labels relative to the seed may be negative: keep them apart from "not reached".
    rel = np.zeros((n, 2), np.int64)
    rel[list(found)] = list(found.values())
    both = walked[pi] & walked[pj]
    fits = both & (rel[pj] - rel[pi] == step).all(axis=1)
    agree = np.bincount(pi[fits], minlength=n)
    disagree = np.bincount(pi[both & ~fits], minlength=n)
    low = rel[walked].min(axis=0)
    labels = np.where(walked[:, None], rel - low, -1)
    # The canonical frame turns clockwise from x to y (image y is down): no mirror.
    flipped = bool(B[0, 0] * B[1, 1] - B[1, 0] * B[0, 1] < 0)
    return labels, flipped, agree, disagree


def _best_window(
    labels: np.ndarray, found: np.ndarray, max_index: int
) -> tuple[np.ndarray, np.ndarray]:
    """The labels of the points in the ``max_index + 1`` square window of the lattice that
    holds the most of them (the first such), counted from that window's corner; the rest
    marked not found."""
    span = labels[found].max(axis=0)
    best, best_count = (0, 0), -1
    for oi in range(max(0, span[0] - max_index) + 1):
        for oj in range(max(0, span[1] - max_index) + 1):
            inside = found & ((labels - (oi, oj) >= 0) & (labels - (oi, oj) <= max_index)).all(1)
            if inside.sum() > best_count:
                best, best_count = (oi, oj), int(inside.sum())
    inside = found & ((labels - best >= 0) & (labels - best <= max_index)).all(axis=1)
    return np.where(inside[:, None], labels - best, -1), inside


def _cross_outlines(
    small_gray: np.ndarray, pts: np.ndarray | None = None, robust: bool = False
) -> list[np.ndarray]:
    """Board outlines (small-image pixels) from the tile crosses themselves (or ``pts``,
    points where they stand; ``robust`` as in :func:`_lattice_labels`).

    Colour-blind: works when the table has the tiles' colour, and when a hand hides some
    crosses. Where a whole row or column of crosses is hidden, every placement of the seen
    ones on the 4x4 grid is returned.
    """
    pts = _cross_blobs(small_gray) if pts is None else pts
    if len(pts) < 6:
        return []
    # Crosses sit at odd cell corners: canonical 1, 3, 5, 7 on each axis.
    labels = _lattice_labels(pts, robust=robust)
    return _placements(pts, labels, count=4, step=2.0, first=1.0)


def _placements(
    pts: np.ndarray, labels: np.ndarray | None, count: int, step: float, first: float
) -> list[np.ndarray]:
    """Board outlines for every way the labelled points fit on a ``count`` x ``count`` lattice
    whose point ``k`` stands at canonical ``first + step * k`` (in cells)."""
    if labels is None:
        return []
    found = labels[:, 0] >= 0
    pts, labels = pts[found], labels[found]
    span = labels.max(axis=0)
    out = []
    for oi in range(count - span[0]):
        for oj in range(count - span[1]):
            canon = (step * (labels + np.array([oi, oj])) + first).astype(np.float64)
            H, _ = cv2.findHomography(canon, pts, 0)
            if H is None:
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                quad = project(H, CANONICAL_CORNERS)
            if _proper_quad(quad):
                out.append(quad)
    return out


def _proper_quad(quad: np.ndarray) -> bool:
    """Whether four corners make a convex outline of some area (points fitted on a line, a
    lattice of one row or column, give corners at one place or at infinity).

    >>> _proper_quad(np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float))
    True
    >>> _proper_quad(np.array([[5, 5], [5, 5], [5, 5], [5, 5]], float))
    False
    """
    if not np.isfinite(quad).all() or np.abs(quad).max() > 1e6:
        return False
    q = quad.astype(np.float32).reshape(-1, 1, 2)
    return cv2.contourArea(q) >= 1.0 and cv2.isContourConvex(q)


def _cell_blobs(small_gray: np.ndarray) -> np.ndarray:
    """Centres (n, 2) of the bright, solid, square blobs of one size: empty cells, which
    the printed crosses and the gaps between tiles cut the board into."""
    # Brighter than the neighbourhood (about a cell and a half): light need not be even.
    block = max(11, round(small_gray.shape[0] / 12) | 1)
    mask = cv2.adaptiveThreshold(
        small_gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, -2
    )
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    _, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=4)
    w, h = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    area = stats[1:, cv2.CC_STAT_AREA]
    side = np.maximum(w, h)
    ok = (
        (side > small_gray.shape[0] / 60)
        & (side < small_gray.shape[0] / 5)
        & (w < 1.5 * h)
        & (h < 1.5 * w)
        & (area > 0.55 * w * h)
    )
    idx = np.flatnonzero(ok)
    if len(idx) < 12:
        return np.zeros((0, 2))
    sizes = side[idx].astype(float)
    counts = (np.abs(sizes[None, :] / sizes[:, None] - 1) < 0.3).sum(axis=1)  # per size
    idx = idx[np.abs(sizes / sizes[int(np.argmax(counts))] - 1) < 0.3]
    return cents[1:][idx].astype(np.float64)


def _cell_outlines(small_gray: np.ndarray) -> list[np.ndarray]:
    """Board outlines (small-image pixels) from the empty cells seen as bright squares;
    used when the crosses run into the tile gaps (then they are not separate blobs)."""
    pts = _cell_blobs(small_gray)
    if len(pts) < 12:
        return []
    # Cell centres: canonical 0.5, 1.5, ... 7.5 on each axis.
    labels = _lattice_labels(pts, max_index=7)
    return _placements(pts, labels, count=8, step=1.0, first=0.5)[:6]


def _tile_blobs(small_gray: np.ndarray, families: int = 3) -> list[np.ndarray]:
    """Centres (n, 2) of the solid square blobs at least about as bright as their
    neighbourhood (two tiles across), one array per family of one size (the biggest
    families first, at most ``families``): whole tiles, which the gaps between them (the
    table showing through, darker) cut apart, when the printed lines are lighter than the
    tiles and so do not cut them into cells (:func:`_cell_blobs`). A coin's engraving
    makes a family of its own, often bigger. The picture inverted gives tiles darker than
    the table."""
    h = small_gray.shape[0]
    block = max(11, round(h / 4) | 1)
    # A tile's middle is as bright as its neighbourhood, not brighter: "brighter than the
    # mean less a little" keeps it whole, where a gap or the table beside it falls below.
    mask = cv2.adaptiveThreshold(
        small_gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block, TILE_BELOW_MEAN
    )
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    _, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=4)
    w, h_ = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT]
    area = stats[1:, cv2.CC_STAT_AREA]
    side = np.maximum(w, h_)
    # A tile is a quarter of the board: never under a thirtieth of the frame's height
    # (a board that small has no readable cells) nor over a third (the board fills it);
    # coins on it leave holes (four coins: under half of it).
    ok = (side > h / 30) & (side < h / 3) & (w < 1.5 * h_) & (h_ < 1.5 * w) & (area > 0.4 * w * h_)
    idx = np.flatnonzero(ok)
    out: list[np.ndarray] = []
    while len(idx) >= 6 and len(out) < families:
        sizes = side[idx].astype(float)
        counts = (np.abs(sizes[None, :] / sizes[:, None] - 1) < 0.3).sum(axis=1)  # per size
        same = np.abs(sizes / sizes[int(np.argmax(counts))] - 1) < 0.3
        if same.sum() >= 6:
            out.append(cents[1:][idx[same]].astype(np.float64))
        idx = idx[~same]
    return out


#: How far below its neighbourhood's mean grey a pixel may be and still count as tile
#: (:func:`_tile_blobs`); a gap between tiles is darker by tens of levels.
TILE_BELOW_MEAN = 4


def _tile_outlines(small_gray: np.ndarray) -> tuple[list[np.ndarray], int]:
    """Board outlines (ordered, small-image pixels) from whole tiles seen as blobs, lighter
    than the table or darker (each tile's middle stands where a tile cross does), and how
    many families of tile-like blobs were seen (with or without an outline)."""
    out, families = [], 0
    for picture in (small_gray, 255 - small_gray):
        for pts in _tile_blobs(picture):
            families += 1
            out += [_order_quad(q) for q in _cross_outlines(picture, pts, robust=True)]
    return out, families


def _line_outlines(small_gray: np.ndarray) -> Iterator[np.ndarray]:
    """Board outlines (ordered, small-image pixels) from the printed lines and tile gaps: the
    biggest connected net of thin dark lines, its breaks (where a line fades under light or
    wear) closed at two widths, the wider only when asked for. Used when neither crosses
    nor cells stand out as blobs (crosses running into the gaps, a table the tiles'
    colour): the net ends where the tiles do, whatever the table looks like."""
    for hull in _line_nets(small_gray):
        quad = _quad_from_hull(hull)
        if quad is not None:
            yield _order_quad(quad)


def _line_nets(small_gray: np.ndarray) -> list[np.ndarray]:
    """Convex hulls of the biggest connected net of thin dark lines in ``small_gray``, its
    breaks closed at two widths (see :func:`_line_outlines`); made once per picture in a
    :func:`find_board` call (the later search stages look at the same nets again)."""
    return _memo("nets", small_gray, lambda: list(_find_line_nets(small_gray)))


def _find_line_nets(small_gray: np.ndarray) -> Iterator[np.ndarray]:
    bh = cv2.morphologyEx(
        small_gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))
    )
    _, lines = cv2.threshold(bh, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    d = max(3, round(small_gray.shape[1] / 160))
    for k in (d, 2 * d - 1):
        mask = cv2.dilate(lines, np.ones((k, k), np.uint8))
        n, labels, stats, _ = _components(mask)
        if n < 2:
            continue
        best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        x, y, w, h = stats[best, :4]
        if w * h < 0.02 * mask.size:
            continue
        box = (labels[y : y + h, x : x + w] == best).astype(np.uint8)
        yield _blob_hull(box) + np.array([x, y], np.int32)


def _net_side_outlines(gray: np.ndarray) -> list[np.ndarray]:
    """Board outlines (ordered) from the nets of :func:`_line_nets`, each taken by its hull's
    four longest sides (:func:`_quad_from_sides`), not by the hull's corners: lines that
    run to the tile edges, with no line along the board's edge, make a net whose hull has
    its corners cut off by about a cell (tune acrylic: outlines 0.9 cell off at a corner,
    too far for a fit; by the sides 0.1-0.2). Only outlines square under some camera to
    within ``NET_SQUARENESS`` are kept: the net of a frame without a board is clutter, or
    the frame's own outline (tune: 0.58), and each outline kept costs two full-frame fits."""
    quads = (_quad_from_sides(hull) for hull in _line_nets(gray))
    out = []
    for quad in (_order_quad(q) for q in quads if q is not None):
        H = cv2.getPerspectiveTransform(
            CANONICAL_CORNERS.astype(np.float32), quad.astype(np.float32)
        )
        if squareness(H, gray.shape) <= NET_SQUARENESS:
            out.append(quad)
    return out


def _net_side_subsets(gray: np.ndarray) -> list[np.ndarray]:
    """Board outlines (ordered) from the nets of :func:`_line_nets`, each taken by every
    four of its hull's ``NET_SIDES`` longest sides in turn (:func:`_quads_from_sides`), square
    under some camera to within ``NET_SQUARENESS``. The four longest sides are not always
    the board's: glare that washes out a corner tile's lines cuts a corner off the net with
    a long slanted side, a hand cuts a side short (tune acrylic: outlines 0.16-0.99 cell
    off where the four longest gave 1.3-1.9)."""
    out = []
    for hull in _line_nets(gray):
        for quad in _quads_from_sides(hull, NET_SIDES):
            H = cv2.getPerspectiveTransform(
                CANONICAL_CORNERS.astype(np.float32), quad.astype(np.float32)
            )
            if squareness(H, gray.shape) <= NET_SQUARENESS:
                out.append(quad)
    return out


def _quads_from_sides(hull: np.ndarray, most: int) -> list[np.ndarray]:
    """Every proper quadrilateral (ordered) of four of a convex hull's ``most`` longest sides
    (after the simplification of :func:`_quad_from_sides`), each side's line met by the
    next's round the hull; the four longest first.

    >>> octagon = np.array([[1, 0], [9, 0], [10, 1], [10, 9], [9, 10], [1, 10], [0, 9], [0, 1]])
    >>> quads = _quads_from_sides(octagon.reshape(-1, 1, 2).astype(np.int32), 5)
    >>> len(quads), (quads[0].round(6) + 0.0).tolist()
    (3, [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])
    """
    poly = cv2.approxPolyDP(hull, 0.01 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    poly = poly.astype(np.float64)
    n = len(poly)
    if n < 4:
        return []
    length = np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)
    ranked = np.argsort(-length, kind="stable")[:most]
    ends = np.hstack([poly, np.ones((n, 1))])
    out = []
    for chosen in itertools.combinations(ranked.tolist(), 4):
        lines = [np.cross(ends[i], ends[(i + 1) % n]) for i in sorted(chosen)]
        corners = [np.cross(lines[k - 1], lines[k]) for k in range(4)]
        if min(abs(c[2]) for c in corners) < 1e-9:
            continue
        quad = np.array([c[:2] / c[2] for c in corners])
        if _proper_quad(quad):
            out.append(_order_quad(quad))
    return out


def _quad_from_sides(hull: np.ndarray) -> np.ndarray | None:
    """The quadrilateral of a convex hull's four longest sides (after a light simplification),
    each side's line met by the next's; None when those do not make a proper quadrilateral.

    >>> octagon = np.array([[1, 0], [9, 0], [10, 1], [10, 9], [9, 10], [1, 10], [0, 9], [0, 1]])
    >>> (_quad_from_sides(octagon.reshape(-1, 1, 2).astype(np.int32)).round(6) + 0.0).tolist()
    [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]
    """
    poly = cv2.approxPolyDP(hull, 0.01 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    poly = poly.astype(np.float64)
    n = len(poly)
    if n < 4:
        return None
    length = np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)
    sides = np.sort(np.argsort(-length, kind="stable")[:4])  # in their order round the hull
    ends = np.hstack([poly, np.ones((n, 1))])
    lines = [np.cross(ends[i], ends[(i + 1) % n]) for i in sides]
    corners = [np.cross(lines[k - 1], lines[k]) for k in range(4)]
    if min(abs(c[2]) for c in corners) < 1e-9:
        return None
    quad = np.array([c[:2] / c[2] for c in corners])
    return quad if _proper_quad(quad) else None


def _blob_hull(blob: np.ndarray) -> np.ndarray:
    """``cv2.convexHull(cv2.findNonZero(blob))`` from each row's first and last pixel alone:
    a corner of the hull is the outermost pixel of its row (collinear points are left out
    either way), and those pixels keep findNonZero's order (row by row, left to right), on
    which the hull's first point depends. A net of lines over the frame: 80 ms -> 1 ms.

    >>> b = np.zeros((9, 12), np.uint8); b[1:8, 2] = b[4, 2:11] = b[2:7, 10] = 1
    >>> bool(np.array_equal(_blob_hull(b), cv2.convexHull(cv2.findNonZero(b))))
    True
    """
    rows = np.flatnonzero(blob.any(axis=1))
    inside = blob[rows] > 0
    first = inside.argmax(axis=1)
    last = blob.shape[1] - 1 - inside[:, ::-1].argmax(axis=1)
    pts = np.stack([first, rows, last, rows], axis=1).reshape(-1, 2)
    pts = pts[np.stack([np.ones(len(rows), bool), last > first], axis=1).ravel()]
    return cv2.convexHull(pts.astype(np.int32).reshape(-1, 1, 2))


def _quad_from_hull(hull: np.ndarray) -> np.ndarray | None:
    """Four corners approximating a convex hull, or None if it is no quadrilateral."""
    perimeter = cv2.arcLength(hull, True)
    for eps in np.linspace(0.01, 0.1, 19):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
        if len(approx) < 4:
            return None
    return None


def _outline_candidates(
    small: np.ndarray,
    small_gray: np.ndarray,
    preferred_lab: np.ndarray | None = None,
    cross_blobs: np.ndarray | None = None,
    cache: dict | None = None,
) -> Iterator[tuple[np.ndarray, Callable[[], np.ndarray], bool, str]]:
    """Board outlines (pixels of the downscaled ``small`` image, ordered), the tile colour
    that produced each (a function giving it: measured only when asked), whether the outline
    runs into the frame edge, and where it came from (``"crosses"`` as blobs, ``"cells"``,
    the net of ``"lines"``, ``"colour"``). Made lazily: the first is usually right.
    ``small_gray`` has the printed lines dark. ``preferred_lab``
    (the setup's tile colour) is tried first among the colours; ``cross_blobs`` are the
    :func:`_cross_blobs` of ``small_gray`` when already known; ``cache`` keeps what does not
    depend on the lines' polarity (the colour outlines) between calls for one frame."""
    cache = {} if cache is None else cache
    h, w = small.shape[:2]
    if _BY_TONE.get():  # a grid by tone: its quadrants' corners, as a checkerboard's
        for quad in _saddle_outlines_of(small):
            colour = functools.partial(_colour_inside, small, quad)
            yield _order_quad(quad), colour, _at_edge(quad, w, h), "saddles"
    lattice, kind = _cross_outlines(small_gray, cross_blobs), "crosses"
    if not lattice:
        lattice, kind = _cell_outlines_of(small_gray), "cells"
    # The tile colour inside an outline is measured only for outlines whose fit passes the
    # checks (a frame without a board tries a score of outlines, many over the whole frame).
    for quad in lattice:
        colour = functools.partial(_colour_inside, small, quad)
        yield _order_quad(quad), colour, _at_edge(quad, w, h), kind
    for lines in _line_outlines(small_gray):
        yield lines, functools.partial(_colour_inside, small, lines), _at_edge(lines, w, h), "lines"
    if "colour_quads" not in cache:
        # The whole frame in Lab only now: the crosses usually settle it before.
        lab = lab_image(cv2.medianBlur(small, 5))
        cache["colour_quads"] = _colour_outlines(lab, preferred_lab)
    for quad, colour in cache["colour_quads"]:
        yield quad, functools.partial(np.asarray, colour), _at_edge(quad, w, h), "colour"


#: Radii (pixels of the small frame) of the rings on which :func:`_saddles` compares the
#: four quadrants round a point: a tone grid's corner is a saddle at both, a coin's rim or
#: symbol beside a quadrant's corner at the smaller only (tune checkered shots, cells 19-29
#: px on the small frame: with the smaller alone, the points round each coin at half a cell
#: spoilt the lattice; with both, the 7x7 corners' outline fell within 0.4 cell of the true
#: board in 121 of 125 frames).
SADDLE_RADII = (5.0, 10.0)
#: Points round the ring (:func:`_saddles`): four to a quadrant.
SADDLE_RING = 16
#: Least response of a saddle point, as a share of the frame's 99.9th percentile: the
#: inlaid tiles' corners step by over a hundred grey levels, a gingham cloth's by a third of
#: that (tune checkered calibration photo of rig 0: 0.3 kept the cloth's corners too).
SADDLE_SHARE = 0.5
#: Side (pixels of the small frame) of the window in which a saddle point is the strongest:
#: under half of the smallest cell (about 20 px), over a coin's rim's points.
SADDLE_NMS = 9


def _saddle_response(
    gray: np.ndarray, radius: float, blurred: np.ndarray | None = None
) -> np.ndarray:
    """How much each pixel is the corner of four quadrants of two tones (an X-corner, as a
    checkerboard's), float32: on a ring of ``radius`` round it, the opposite quadrants alike
    and the neighbouring ones apart (the ChESS detector's sum, difference and mean
    responses: an edge through the point differs at opposite places, a corner of four
    quadrants alternates twice round the ring, a spot's ring differs from its middle).

    >>> board = np.kron([[0, 1], [1, 0]], np.ones((20, 20))).astype(np.uint8) * 200
    >>> r = _saddle_response(board, 5.0)
    >>> peak = np.unravel_index(np.argmax(r), r.shape)
    >>> bool(np.abs(np.subtract(peak, 20)).max() <= 1)  # at the corner, (20, 20)
    True
    """
    g = _saddle_blur(gray) if blurred is None else blurred  # made once for every radius
    ring = _ring_views(g, radius)
    q = SADDLE_RING // 4
    # The sums as ``sum(...)`` of whole arrays made them (each term's steps in the same
    # order, so the same float32 values), into a few buffers: the temporaries and np.roll's
    # copies took about two thirds of :func:`_saddles` (5.7 ms of a read from scratch).
    # |x - y| as cv2.absdiff (one pass, the same float32 value as np.abs(x - y)).
    term, alternate = np.empty_like(g), np.empty_like(g)
    for n in range(q):
        out = alternate if n == 0 else term
        np.add(ring[n], ring[n + 2 * q], out=out)
        out -= ring[n + q]
        cv2.absdiff(out, ring[(n + 3 * q) % SADDLE_RING], dst=out)
        if n:
            alternate += term
    opposite = np.empty_like(g)
    for n in range(2 * q):
        cv2.absdiff(ring[n], ring[n + 2 * q], dst=opposite if n == 0 else term)
        if n:
            opposite += term
    # A spot or a blob's rim: the ring's mean off the point's own neighbourhood.
    spot = ring[0].copy()
    for view in ring[1:]:
        spot += view
    spot /= SADDLE_RING
    cv2.absdiff(spot, cv2.blur(g, (3, 3)), dst=spot)
    spot *= SADDLE_RING / 4
    alternate -= opposite
    alternate -= spot
    return alternate


def _ring_views(g: np.ndarray, radius: float) -> list[np.ndarray]:
    """The picture shifted to each of ``SADDLE_RING`` points round a ring of ``radius``, as
    ``np.roll`` shifts it (wrapping round the edges), but as views into one padded copy.

    >>> g = np.arange(12, dtype=np.float32).reshape(3, 4)
    >>> views = _ring_views(g, 1.0)
    >>> a = np.arange(SADDLE_RING) * 2 * np.pi / SADDLE_RING
    >>> all(np.array_equal(v, np.roll(g, (-round(np.sin(t)), -round(np.cos(t))), axis=(0, 1)))
    ...     for v, t in zip(views, a))
    True
    """
    h, w = g.shape
    pad = int(np.ceil(radius))
    wrapped = np.pad(g, pad, mode="wrap")
    angles = np.arange(SADDLE_RING) * 2 * np.pi / SADDLE_RING
    views = []
    for a in angles:
        dy, dx = round(radius * np.sin(a)), round(radius * np.cos(a))
        views.append(wrapped[pad + dy : pad + dy + h, pad + dx : pad + dx + w])
    return views


def _saddle_blur(gray: np.ndarray) -> np.ndarray:
    """The picture :func:`_saddle_response` compares round each point (float32)."""
    return cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.0)


def _saddles(small_gray: np.ndarray) -> np.ndarray:
    """Points (n, 2) where four quadrants of two tones meet at every ring of
    ``SADDLE_RADII`` (:func:`_saddle_response`): a tone grid's cell corners."""
    g = _saddle_blur(small_gray)
    r = functools.reduce(np.minimum, (_saddle_response(small_gray, rad, g) for rad in SADDLE_RADII))
    least = max(SADDLE_SHARE * float(np.percentile(r, 99.9)), 1e-3)
    peak = (r == cv2.dilate(r, np.ones((SADDLE_NMS, SADDLE_NMS), np.uint8))) & (r > least)
    ys, xs = np.nonzero(peak)
    return np.stack([xs, ys], axis=1).astype(np.float64)


def _saddle_outlines(small_gray: np.ndarray) -> list[np.ndarray]:
    """Board outlines (small-frame pixels) from the 7x7 inner cell corners of a grid shown
    by tone (:func:`_saddles`), each placement when whole rows are hidden (as
    :func:`_cross_outlines` does with the 4x4 tile crosses)."""
    pts = _saddles(small_gray)
    if len(pts) < 6:
        return []
    labels = _lattice_labels(pts, max_index=N - 2, robust=True, settle=True)
    return _placements(pts, labels, count=N - 1, step=1.0, first=1.0)


def _colour_inside(small: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Colour of the tiles (Lab, 8-bit scale): the median of every other pixel inside ``quad``."""
    h, w = small.shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 1, [w, h])
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, np.round(quad - (x0, y0)).astype(np.int32), 1)
    inside = m[::2, ::2] > 0
    if not inside.any():
        return np.zeros(3)
    return median_colour(lab_image(small[y0:y1:2, x0:x1:2])[inside]).astype(np.float64)


def _at_edge(quad: np.ndarray, w: int, h: int) -> bool:
    return bool(
        quad[:, 0].min() < 2 or quad[:, 1].min() < 2 or quad[:, 0].max() > w - 3
        or quad[:, 1].max() > h - 3
    )  # fmt: skip


def _colour_region(lab: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """The pixels (0/1) of ``lab`` near ``colour`` (Lab distance under 14, lightness weighed
    down: it varies with uneven light much more than hue does)."""
    diff = cv2.subtract(lab, (*(float(v) for v in colour), 0.0))
    dist = cv2.transform(cv2.multiply(diff, diff), np.array([[0.15, 1.0, 1.0]], np.float32))
    return (dist < 14**2).astype(np.uint8)


def _colour_outlines(
    lab: np.ndarray, preferred_lab: np.ndarray | None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Outlines (ordered) of the biggest blob of each candidate tile colour, with the colour."""
    k = max(3, round(lab.shape[1] / 80) | 1)
    close_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    colours = _candidate_colours(lab)
    if preferred_lab is not None:
        colours.insert(0, np.asarray(preferred_lab, np.float32))
    out = []
    for colour in colours:
        mask = _colour_region(lab, colour)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close_kernel)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, close_kernel)
        quad = _quad_from_mask(mask)
        if quad is not None:
            out.append((_order_quad(quad), np.asarray(colour, np.float64)))
    return out


# --------------------------------------------------------------------------- grid fit


def _ridge_map(gray: np.ndarray, px_per_cell: int) -> np.ndarray:
    """Dark thin lines as bright ridges (black-hat), float32; in a search by tone
    (:func:`_by_tone`) the steps in tone instead (:func:`_step_map`)."""
    if _BY_TONE.get():
        return _step_map(gray)
    k = max(3, int(px_per_cell * 0.25) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    return cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel).astype(np.float32)


#: Whether the grid is sought by its steps in tone rather than by its lines: set only inside
#: :func:`_by_tone`, for one :func:`find_board` call, so every other search is as it was.
_BY_TONE: contextvars.ContextVar[bool] = contextvars.ContextVar("locate_by_tone", default=False)
#: Blur (pixels, Gaussian sigma) before a step map's gradient: the rendered and photographed
#: tone steps are a pixel or two wide at 16-48 px a cell; the blur keeps wood grain and
#: sensor noise from making ridges of their own (tune checkered calibration photos at the
#: true pose: 12-16 crosses of 16 with 1.0, 0-7 on the black-hat of either polarity).
STEP_SIGMA = 1.0


def _step_map(gray: np.ndarray) -> np.ndarray:
    """Steps in tone as bright ridges: the gradient's magnitude, float32. A grid drawn by
    tone alone (inlaid quadrants, a checkerboard: no line) shows a ridge along every side
    where two tones meet, as a printed line does in the black-hat (:func:`_ridge_map`); a
    step has no black-hat in either polarity.

    >>> step = np.zeros((9, 9), np.uint8); step[:, 5:] = 200
    >>> int(np.argmax(_step_map(step)[4]))  # the ridge on the step, between columns 4 and 5
    4
    """
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), STEP_SIGMA)
    return cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1))


_SMOOTH = np.array([0.054, 0.244, 0.403, 0.244, 0.054], np.float32)  # Gaussian, sigma 1


def _peaks(profiles: np.ndarray, interior: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Sub-pixel peak and prominence (peak over median, in MADs) of each row of ``profiles``.

    ``interior``: the peak is the highest local maximum inside the row, not at either end.
    An end is no peak: it is a slope running out of the searched window (a coin's rim or a
    tile's edge just beyond it), which would otherwise outweigh a fainter line inside. A
    row without a local maximum inside has prominence 0.

    >>> row = np.array([[0, 0, 0, 6, 0, 0, 0, 0, 8, 12, 16]], np.float32)
    >>> int(_peaks(row)[0][0]), int(_peaks(row, interior=True)[0][0])
    (10, 3)
    >>> float(_peaks(np.array([[1, 2, 3, 4, 5]], np.float32), interior=True)[1][0])
    0.0
    """
    p = profiles
    w = p.shape[1]
    padded = np.concatenate([p[:, :1], p[:, :1], p, p[:, -1:], p[:, -1:]], axis=1)  # edge pad
    p = _SMOOTH[0] * padded[:, :w]
    for k in range(1, 5):
        p += _SMOOTH[k] * padded[:, k : k + w]
    if interior:
        core = p[:, 1:-1]
        local = (core >= p[:, :-2]) & (core >= p[:, 2:])
        i = 1 + np.argmax(np.where(local, core, -np.inf), axis=1)
    else:
        i = np.argmax(p, axis=1)
    rows = np.arange(len(p))
    med = _row_median(p)
    mad = _row_median(np.abs(p - med[:, None])) + 1e-3
    left = p[rows, np.maximum(i - 1, 0)]
    right = p[rows, np.minimum(i + 1, p.shape[1] - 1)]
    centre = p[rows, i]
    denom = left - 2 * centre + right
    inside = (i > 0) & (i < p.shape[1] - 1) & (denom < 0)
    offset = np.where(inside, 0.5 * (left - right) / np.where(denom < 0, denom, -1), 0.0)
    prom = (centre - med) / mad
    if interior:
        prom = np.where((centre >= left) & (centre >= right), prom, 0.0)
    return i + offset, prom


def _row_median(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=1)``; for rows of odd length (every profile here: a peak is
    searched some pixels either way) the middle element alone, without np.median's cost.

    >>> _row_median(np.array([[3.0, 1.0, 2.0], [5.0, 9.0, 7.0]])).tolist()
    [2.0, 7.0]
    """
    n = a.shape[1]
    if n % 2 == 0:
        return np.median(a, axis=1)
    return np.partition(a, n // 2, axis=1)[:, n // 2]


def find_crosses(
    ridge: np.ndarray,
    px_per_cell: int,
    margin_cells: float,
    search: float = 0.5,
    along: Along = "sum",
) -> tuple[np.ndarray, np.ndarray]:
    """Locate the 16 tile crosses in a rectified ridge map.

    Each cross line is measured on both of its arms (the crossing itself is skipped); an arm
    counts when its ridge stands out, and two arms of one line must agree, else one of them
    caught a piece's edge. Returns rectified-pixel positions ``(16, 2)`` (NaN where not
    found) and each cross's twist in radians (clockwise in the picture; NaN when no line was
    seen on both arms). ``search`` is the half-width searched, in cells; the rectified
    margin must be at least ``search + 0.85 - 1`` cells. ``along`` is how each arm's ridge
    is taken along it: ``"sum"`` (:func:`_arm_profiles`), ``"low"``
    (:func:`_arm_profiles_low`: only a line running most of the arm counts, so a piece's
    rim or engraving beside a faint line cannot outweigh it), or ``"inside"``: as
    ``"low"``, and the line must peak inside the searched band (see :func:`_peaks`).
    """
    S, m = px_per_cell, margin_cells * px_per_cell
    half_arm = int(0.85 * S)
    inner = int(0.2 * S)
    sw = int(search * S)
    centres = np.round(CROSS_CENTRES * S + m).astype(int)
    xs, ys = centres[:4, 0], centres[::4, 1]  # cross 4 j + i at (xs[i], ys[j])
    profiles = {"sum": _arm_profiles, "low": _arm_profiles_low, "inside": _arm_profiles_low}
    profiles = profiles.get(along)
    if profiles is None:
        raise ValueError(f"along must be 'sum', 'low' or 'inside', not {along!r}")
    prof_x, prof_y = profiles(ridge, xs, ys, sw, half_arm, inner)
    # Row by row, one call for both. "inside": a line must peak inside the searched band
    # (an end is a slope running out of it: a coin's rim or a tile's edge beside a faint
    # line); otherwise a slope into an end counts, which draws a rough fit towards a line
    # just beyond the band.
    pos, prom = _peaks(np.concatenate([prof_x, prof_y]), interior=along == "inside")
    px, py, qx, qy = pos[:32], pos[32:], prom[:32], prom[32:]
    px, qx, py, qy = (a.reshape(16, 2) for a in (px, qx, py, qy))
    x = _combine_arms(px, qx > 4.0, 0.12 * S)
    y = _combine_arms(py, qy > 4.0, 0.12 * S)
    pts = np.stack([centres[:, 0] - sw + x, centres[:, 1] - sw + y], axis=1)
    # Twist: the two arms of a line sit (half_arm + inner) apart along it.
    gap = float(half_arm + inner)
    vx = np.where((qx > 4.0).all(axis=1), np.arctan2(px[:, 0] - px[:, 1], gap), np.nan)
    hy = np.where((qy > 4.0).all(axis=1), np.arctan2(py[:, 1] - py[:, 0], gap), np.nan)
    # Both lines of a cross turn together: trust a twist only when they agree.
    agree = np.abs(vx - hy) < 0.02
    twist = np.where(agree, (vx + hy) / 2, np.nan)
    twist[~np.isfinite(pts).all(axis=1)] = np.nan
    return pts, twist


def _arm_profiles(
    ridge: np.ndarray, xs: np.ndarray, ys: np.ndarray, sw: int, half_arm: int, inner: int
) -> tuple[np.ndarray, np.ndarray]:
    """The arm profiles of the 16 crosses at columns ``xs`` and rows ``ys`` (4 each; cross
    ``4 j + i`` at ``(xs[i], ys[j])``): (32, 2 sw + 1) across each vertical line (arm above,
    arm below) and across each horizontal one (left, right), the ridge summed along each arm
    from ``inner`` to ``half_arm`` pixels off the centre, at ``2 sw + 1`` places.

    Crosses of one row share their arms' rows: each band is summed once, across the whole
    width (8 sums a direction instead of 32; each column's sum is the same as before).

    >>> r = np.arange(400, dtype=np.float32).reshape(20, 20)
    >>> px, py = _arm_profiles(r, np.array([4, 8, 12, 16]), np.array([4, 8, 10, 14]), 1, 3, 1)
    >>> px[2 * 5].tolist() == r[5:7, 7:10].sum(axis=0).tolist()  # cross (1, 1), above
    True
    >>> py[2 * 6 + 1].tolist() == r[7:10, 13:15].sum(axis=1).tolist()  # cross (2, 1), right
    True
    """
    span = np.arange(-sw, sw + 1)
    cols, rows = xs[:, None] + span, ys[:, None] + span  # (4, 2 sw + 1)
    above = np.stack([ridge[y - half_arm : y - inner].sum(axis=0) for y in ys])  # (4, width)
    below = np.stack([ridge[y + inner : y + half_arm].sum(axis=0) for y in ys])
    left = np.stack([ridge[:, x - half_arm : x - inner].sum(axis=1) for x in xs])  # (4, height)
    right = np.stack([ridge[:, x + inner : x + half_arm].sum(axis=1) for x in xs])
    n = 2 * sw + 1
    prof_x = np.stack([above[:, cols], below[:, cols]], axis=2).reshape(32, n)  # [j, i, arm]
    prof_y = np.stack([left[:, rows], right[:, rows]], axis=2)  # [i, j, arm]
    return prof_x, prof_y.transpose(1, 0, 2, 3).reshape(32, n)


def _arm_profiles_low(
    ridge: np.ndarray, xs: np.ndarray, ys: np.ndarray, sw: int, half_arm: int, inner: int
) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`_arm_profiles`, but each place's ridge taken along the arm at its lower
    ``ARM_QUANTILE`` rather than summed: a printed line runs the arm's whole length, where
    a piece's edge, rim or engraved symbol crosses only a part of it, however strong.

    >>> r = np.zeros((20, 20), np.float32); r[:, 9] = 1.0; r[6, 7:10] = 50.0
    >>> px, _ = _arm_profiles_low(r, np.array([4, 8, 12, 16]), np.array([4, 8, 10, 14]), 1, 4, 1)
    >>> px[2 * 5].tolist()  # cross (1, 1), above: the line at +1, not the bright dot
    [0.0, 0.0, 1.0]
    """
    span = np.arange(-sw, sw + 1)
    cols, rows = xs[:, None] + span, ys[:, None] + span  # (4, 2 sw + 1)
    n, k = 2 * sw + 1, half_arm - inner
    kth = int(ARM_QUANTILE * (k - 1))

    def low(bands: np.ndarray) -> np.ndarray:  # (4, k, 4, n) -> (4, 4, n)
        return np.partition(bands, kth, axis=1)[:, kth]

    flat = cols.ravel()
    above = low(np.stack([ridge[y - half_arm : y - inner, flat] for y in ys]).reshape(4, k, 4, n))
    below = low(np.stack([ridge[y + inner : y + half_arm, flat] for y in ys]).reshape(4, k, 4, n))
    flat = rows.ravel()
    left = low(np.stack([ridge[flat, x - half_arm : x - inner].T for x in xs]).reshape(4, k, 4, n))
    right = low(np.stack([ridge[flat, x + inner : x + half_arm].T for x in xs]).reshape(4, k, 4, n))
    prof_x = np.stack([above, below], axis=2).reshape(32, n)  # [j, i, arm]
    prof_y = np.stack([left, right], axis=2)  # [i, j, arm]
    return prof_x, prof_y.transpose(1, 0, 2, 3).reshape(32, n)


#: The share of an arm along which a line must show (the lower quantile taken): 0.35, so a
#: piece may cover a third of an arm.
ARM_QUANTILE = 0.35


def _combine_arms(pos: np.ndarray, ok: np.ndarray, tolerance: float) -> np.ndarray:
    """Mean position of the valid arms of each line, NaN when none or when they disagree."""
    both = ok.all(axis=1)
    disagree = both & (np.abs(pos[:, 0] - pos[:, 1]) > tolerance)
    total = (pos * ok).sum(axis=1)
    count = ok.sum(axis=1)
    out = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    out[disagree] = np.nan
    return out


def measure_crosses(
    gray: np.ndarray, pose: BoardPose, px_per_cell: int, search: float, along: Along = "sum"
) -> tuple[np.ndarray, np.ndarray]:
    """Image positions (16, 2) of the tile crosses near where ``pose`` expects them (arms
    taken ``along`` as in :func:`find_crosses`)."""
    margin = 0.5
    rect = pose.rectify(gray, px_per_cell, margin)
    ridge = _ridge_map(rect, px_per_cell)
    pts, twist = find_crosses(ridge, px_per_cell, margin, search, along)
    ok = np.isfinite(pts).all(axis=1)  # both lines of the cross seen
    image_pts = np.full((16, 2), np.nan)
    if ok.any():
        # Rectified pixel -> canonical -> image, through the same pose (lens and tiles too).
        image_pts[ok] = _through(pose, pts[ok] / px_per_cell - margin, CROSS_CENTRES[ok])
    return image_pts, ok, twist


def _through(pose: BoardPose, canon: np.ndarray, home: np.ndarray) -> np.ndarray:
    """Map canonical points to the image using each point's home tile for the tile shift."""
    tile = np.clip(np.floor(home / 2.0), 0, 3).astype(int)
    off = pose.tile_offsets[tile[:, 1] * 4 + tile[:, 0]]
    return pose._distort(project(pose.H, canon) + off)


def refine_pose(
    gray: np.ndarray,
    pose: BoardPose,
    px_per_cell: int = 32,
    search: float = 0.5,
    fit_lens: bool = True,
    along: Along = "sum",
    min_seen: int = 0,
) -> BoardPose | None:
    """Fit the pose again to the tile crosses seen near its prediction (None if too few;
    ``along`` as in :func:`find_crosses`). None without fitting when fewer than
    ``min_seen`` crosses are seen: the fit keeps some of those seen, never more, so a
    caller that needs ``min_seen`` spares the fit (:func:`_one_tile_over`)."""
    image_pts, ok, twist = measure_crosses(gray, pose, px_per_cell, search, along)
    if ok.sum() < min_seen:
        return None
    h, w = gray.shape[:2]
    new = fit_pose(image_pts, ok, (w, h), pose.cell_size_px(), fit_lens)
    if new is not None:
        # Twists were measured in this pose's rectified frame: add them to its own. What all
        # tiles share is the board's turn, which the new homography already has (fitted to
        # the cross centres): only each tile's own twist about it is kept.
        seen = ~np.isnan(twist)
        angles = pose.tile_angles + np.where(seen, twist, 0.0)
        if seen.any():
            angles = np.where(seen, angles, np.median(angles[seen])) - np.median(angles[seen])
        new.tile_angles = np.clip(angles, -MAX_TWIST, MAX_TWIST)
        new.inverted, new.tile_color_lab = pose.inverted, pose.tile_color_lab
    return new


def check_in_frame(pose: BoardPose, shape: tuple[int, ...]) -> None:
    """Raise :class:`BoardCutOff` unless the whole board of ``pose`` lies in a frame of
    ``shape`` (:func:`_in_frame`)."""
    if not _in_frame(pose, shape):
        raise _cut_off(note=False)


def _cut_off(note: bool = True, pose: BoardPose | None = None) -> BoardCutOff:
    """The refusal of a board cut off by the frame edge (a :class:`GridCutOff` at ``pose``
    when a grid was fitted there), noted for the :func:`find_board` call it is raised in
    (:func:`_cut_off_seen`) when ``note``: the small frame's search
    (grey or the darkest channel, :func:`_find_small`) saw a grid of ``CUT_OFF_CROSSES``
    run past the frame. Not a fit refined on the full frame that ran past it
    (:func:`check_in_frame`): started from any square outline (tile blobs, nets of lines),
    such fits ran past the frame on business cards' photos (card tune photos classic 4, 13,
    14, 21, 24, 27 and 36 were "cut off" with them)."""
    memo = _MEMO.get()
    if note and memo is not None:
        memo.setdefault("cut off", True)
    message = "board cut off by the frame edge: move the camera so all 16 tiles show"
    return BoardCutOff(message) if pose is None else GridCutOff(message, pose)


def _cut_off_seen() -> bool:
    """Whether a search of this :func:`find_board` call saw a grid run past the frame."""
    memo = _MEMO.get()
    return memo is not None and "cut off" in memo


def _in_frame(pose: BoardPose, shape: tuple[int, ...]) -> bool:
    """Whether the whole board (every cell) of ``pose`` lies in a frame of ``shape``."""
    h, w = shape[:2]
    corners = pose.corners
    # A sliver of a corner tile beyond the frame is harmless (the corner cell's middle, where
    # its piece stands, is still in view); a missing part of a cell is not. The fitted
    # corners sit up to a tenth of a cell out (tile gaps, bevels), hence 0.4.
    pad = -0.4 * pose.cell_size_px()
    return not (
        corners[:, 0].min() < pad
        or corners[:, 1].min() < pad
        or corners[:, 0].max() > w - 1 - pad
        or corners[:, 1].max() > h - 1 - pad
    )


def squareness(H: np.ndarray, shape: tuple[int, ...]) -> float:
    """How far the board seen through ``H`` is from a square under some pinhole camera.

    For a square board, ``K^-1 H`` has two orthogonal columns of equal length for the true
    focal length ``f`` (principal point taken at the image centre). The best ``f`` over a wide
    range is tried; the result is ``|log(len1 / len2)| + |cos(angle)|`` (0 for a square).
    """
    h, w = shape[:2]
    T = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1]], float)
    Hc = T @ H
    f = np.geomspace(0.3 * w, 5 * w, 48)[:, None]  # every focal length at once
    r1 = np.concatenate([Hc[None, :2, 0] / f, np.broadcast_to(Hc[2, 0], (len(f), 1))], axis=1)
    r2 = np.concatenate([Hc[None, :2, 1] / f, np.broadcast_to(Hc[2, 1], (len(f), 1))], axis=1)
    n1, n2 = np.linalg.norm(r1, axis=1), np.linalg.norm(r2, axis=1)
    cost = np.abs(np.log(n1 / n2)) + np.abs((r1 * r2).sum(axis=1)) / (n1 * n2)
    return float(cost.min())


def corner_gap(
    pose: BoardPose, quad: np.ndarray, statistic: Callable[[np.ndarray], Any] = np.median
) -> float:
    """Distance (cells of ``pose``) between ``pose``'s corners and ``quad``'s (4, 2), paired
    under the quarter turn that fits best (north is not the finder's to say): the
    ``statistic`` of the four distances (median: an outline against its fit; ``np.max``:
    every corner near).

    >>> pose = BoardPose(np.diag([10.0, 10.0, 1.0]))  # 10 px a cell
    >>> quad = np.roll(pose.corners, 1, axis=0) + [5.0, 0.0]  # a quarter turn, 5 px east
    >>> corner_gap(pose, quad, np.max), corner_gap(pose, pose.corners)
    (0.5, 0.0)
    """
    fitted = pose.corners
    gaps = [statistic(np.linalg.norm(np.roll(fitted, k, axis=0) - quad, axis=1)) for k in range(4)]
    return float(min(gaps) / pose.cell_size_px())


def downscale(bgr: np.ndarray, work_width: int = WORK_WIDTH) -> tuple[np.ndarray, np.ndarray]:
    """The frame halved until it is under 1.5 x ``work_width`` wide, and the 3x3 matrix
    taking full-resolution pixels to its pixels. Halving (pixel areas averaged) is several
    times faster than one resize by an odd factor and keeps thin lines."""
    small = bgr
    while small.shape[1] >= 1.5 * work_width:
        h, w = small.shape[:2]
        small = cv2.resize(small, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    h, w = bgr.shape[:2]
    sh, sw = small.shape[:2]
    # Pixel centres: x_small + 0.5 = (x + 0.5) * sw / w.
    fx, fy = sw / w, sh / h
    S = np.array([[fx, 0, 0.5 * fx - 0.5], [0, fy, 0.5 * fy - 0.5], [0, 0, 1]], np.float64)
    return small, S


def scaled_pose(pose: BoardPose, S: np.ndarray) -> BoardPose:
    """The same board seen through pixel map ``S`` (a scaling, e.g. from :func:`downscale`):
    the homography and tile shifts move with it; the lens term is not kept."""
    out = BoardPose(S @ pose.H)
    out.tile_offsets = pose.tile_offsets * np.array([S[0, 0], S[1, 1]])
    out.tile_angles = pose.tile_angles.copy()
    out.crosses_found, out.residual = pose.crosses_found, pose.residual
    out.tile_color_lab, out.inverted = pose.tile_color_lab, pose.inverted
    return out


#: Most a fitted board may be from a square under some camera (:func:`squareness`, 0 for a
#: square): about a seventh longer one way, or eight degrees off a right angle. Real boards
#: are near 0 (the renderer's true corners, 250 tune frames up to 30 degrees of tilt: at
#: most 0.023); a part of a board fitted as the whole, 8 cells by 6, is log(8/6) = 0.29.
MAX_SQUARENESS = 0.15
#: Most a net's outline may be from a square under some camera to be fitted
#: (:func:`_net_side_outlines`): twice a board's, as the outline is rough (tune acrylic: the
#: outlines that led to the board 0.00-0.18; frames without a board 0.58).
NET_SQUARENESS = 2 * MAX_SQUARENESS
#: Sides of a net's hull whose every four make an outline when no tile search found a
#: board (:func:`_net_side_subsets`): 6 make 15 outlines a net.
NET_SIDES = 6
#: How near (cells) a board edge found by :func:`find_edges` must lie to where the grid puts
#: it to count as in place: fitted sides sit within a tenth of a cell (tile gaps, bevels),
#: a grid a cell off puts them 1.0 away (a step within the band searched, +-0.4, beyond
#: this is a coin's rim or a tile's shadow, not the board's edge).
EDGE_IN_PLACE = 0.15
#: Largest twist of a tile (radians, about 2.3°): hands lay tiles square to a degree or two;
#: a larger measured twist is a piece edge taken for a line.
MAX_TWIST = 0.04
#: Pixels per cell for the candidate fits on the downscaled frame.
SMALL_PX = 16
#: Refinements on the full frame: (most pixels per cell, half-width searched in cells).
FULL_STAGES = ((48, 0.4),)
#: How the full-frame refinement takes each cross arm (:func:`find_crosses`): "low", a line
#: running most of the arm, so that a faint light line beside a coin's white engraving
#: still wins (acrylic art); the candidate fits on the small frame keep "sum".
FULL_ALONG: Along = "low"
#: Inner grid lines (of 7) running on beyond one side that say a locked board moved: a still
#: board showed up to 3 (wood grain, a coin's rim, a pawn leaning out) on the tune split.
LINES_BEYOND = 4
#: Crosses a locked board must show, all within the drift, for two of its opposite sides
#: seen apart (one out, one in) to count as no move (:func:`check_lock`).
LOCK_SPREAD_CROSSES = 12
#: How :func:`check_lock` takes each cross line along its tile (:func:`_cross_line_peaks`).
LOCK_ALONG: Along = "low"
#: Pixels per cell of the view in which the lattice parity is checked (:func:`lattice_shift`).
PARITY_PX = 24
#: Tile crosses a failed fit must have found for the board to count as cut off by the frame
#: edge rather than absent (tune: fits on the table's colour region found 6; a board cut off
#: by a tile's width still shows 12). Not 7 (round 12): tune renderer cut-off negatives 39
#: and 44 (French boards, a third past the frame) fit 7 and would say "cut off", but so did
#: grey's search on tune acrylic shot 60 (rig 15 shot 0), a board in view that the other
#: searches find (14 crosses): grey's "cut off" ends a usual search.
CUT_OFF_CROSSES = 8


def find_board(
    bgr: np.ndarray,
    tile_color_lab: np.ndarray | None = None,
    inverted: bool | None = None,
    thorough: bool = False,
) -> BoardPose:
    """Locate the board from scratch. North is not decided here (see :mod:`geometry`).

    See :func:`_find_board`. When no board is found in the frame's grey, the search runs
    again on its darkest channel: lines in a light, saturated ink (yellow on white tiles)
    hardly differ from the tiles in grey but stand out there. The tile colour of a board
    found that way is measured on the frame itself.

    ``thorough`` (for a calibration photo, where time does not matter) searches the darkest
    channel even when grey found a board, and takes its board when it fits more tile crosses
    (as many: a smaller misfit) and lies within THOROUGH_CELLS of grey's (a red-and-white
    checked cloth can show a whole false grid in the darkest channel, far from the board).
    When neither finds a board, both are searched again on a frame twice as wide
    (``THOROUGH_WIDTH``), where thin faint lines are a pixel or two wide, not under one.
    A weak board in grey (under ``WEAK_CROSSES``) gives way to a board of the other searches
    fitting more crosses (:func:`_best_other`), thorough or not. A board fitting
    ``ONE_TILE_OFF_CROSSES`` crosses or fewer gives way to the board one tile over when
    that fits more (:func:`_one_tile_over`). A grid whose lines say it lies a cell off the
    board (a strip of table taken in, one of tiles left beyond) is moved onto it, or refused
    where the move does not hold (:func:`_onto_the_board`; :class:`MaybeCellOff`, carrying
    the grid for a caller that can tell its place by other means). A grid whose lines run on
    beyond two of its sides, or through its cells, or repeat at another pitch than its
    cells, is a printed grid (a business card's), not a board (:func:`_printed_grid`); nor
    is one whose full-frame fit found under ``MIN_CROSSES`` tile crosses. A frame refused by
    lines is searched by tone (:func:`_by_tone`); where grey finds no grid and the frame's
    corners outline tiles by tone, that search runs before the darkest channel's and the
    tiles' (and before grey's second polarity of the lines, where its first found no grid:
    :func:`_tone_first`), and a board it finds is taken at once. The search by tone starts
    from what the search by lines made of the frame's pictures (:func:`_pictures`).
    """
    token = _MEMO.set({}) if _MEMO.get() is None else None
    try:
        return _find_board_checked(bgr, tile_color_lab, inverted, thorough)
    except _FoundByTone as found:
        return found.pose
    except BoardNotFound as error:
        return _by_tone(bgr, tile_color_lab, inverted, thorough, error)
    finally:
        if token is not None:
            _MEMO.reset(token)


class _FoundByTone(Exception):
    """A board found by tone before the dearer searches by lines (:func:`_tone_first`),
    carried out of them to :func:`find_board`."""

    def __init__(self, pose: BoardPose) -> None:
        super().__init__("board found by tone")
        self.pose = pose


def _tone_first(bgr: np.ndarray, tile_color_lab: np.ndarray | None, inverted: bool | None) -> None:
    """Raise :class:`_FoundByTone` when the frame's corners outline tiles by tone
    (:func:`_tiles_by_tone_seen`) and the search by tone finds a board there that passes its
    checks (:func:`_tone_outcome`): called where grey's search by lines found no board,
    before the darkest channel's and the tiles' searches (three quarters of a checkered
    board's search from scratch, which they never find), and where grey's first polarity of
    the lines found no grid, before its second (:func:`_find_board`). A board by tone shows
    saddles, not lines. Only in a usual search (not thorough) of a :func:`find_board` call,
    not inside the search by tone itself; otherwise, and when the search by tone finds no
    board, the search by lines goes on as before (the outcome kept for :func:`_by_tone`)."""
    if _BY_TONE.get() or _MEMO.get() is None or not _tiles_by_tone_seen(bgr):
        return
    found = _tone_outcome(bgr, tile_color_lab, inverted, False)
    if isinstance(found, BoardPose):
        raise _FoundByTone(found)


#: The refusals of a search by lines after which the grid is sought by tone
#: (:func:`_by_tone`): no grid, too few crosses, or cut off where no grid was fitted (tune
#: checkered: 22, 2 and 1 of the 25 calibration photos, the board in view). Not a printed
#: grid, a grid a cell off or a fitted grid cut off: those saw a grid of lines, which a
#: board by tone does not show (and a calibration may still take it by its pieces).
TONE_AFTER = (BoardNotFound, BoardCutOff, FewCrosses)
#: ... and in a thorough search (a calibration photo, whose layout then judges the board
#: found), after a fitted grid cut off too: a wooden table's grain beside a board by tone
#: can fit a grid of lines run past the frame (tune checkered calibration photo of rig 211,
#: the board wholly in view, a grid 1.8 cells off said cut off; by tone, in place).
TONE_AFTER_THOROUGH = (*TONE_AFTER, GridCutOff)


def _by_tone(
    bgr: np.ndarray,
    tile_color_lab: np.ndarray | None,
    inverted: bool | None,
    thorough: bool,
    error: BoardNotFound,
) -> BoardPose:
    """The board sought again by its steps in tone (:func:`_step_map` for every ridge map of
    the search and its checks) after the search by lines refused the frame with ``error``;
    ``error`` is raised again when that finds none either, or when ``error`` is a refusal
    of a grid of lines (see ``TONE_AFTER``; ``TONE_AFTER_THOROUGH`` when ``thorough``).

    A board whose tiles show their 2x2 grid by two tones and no line (an inlaid set, a
    checkered board) gives the search by lines no cross to fit. Only a frame refused by
    lines is searched so: every board found by lines is found as it was; unless
    ``thorough``, only a frame showing a tone grid's corners (:func:`_saddles_seen`). A
    board found by tone must show its tiles by tone too (``TONE_TILES`` of them,
    :func:`_tone_tiles`): a board of lines the search by lines refused (cut off) stays
    refused."""
    after = TONE_AFTER_THOROUGH if thorough else TONE_AFTER
    if type(error) not in after or not (thorough or _saddles_seen(bgr)):
        raise error
    found = _tone_outcome(bgr, tile_color_lab, inverted, thorough)
    if found is None:
        raise error
    if isinstance(found, MaybeCellOff):
        raise found
    return found


def _tone_outcome(
    bgr: np.ndarray, tile_color_lab: np.ndarray | None, inverted: bool | None, thorough: bool
) -> BoardPose | MaybeCellOff | None:
    """What the search by tone makes of the frame (:func:`_by_tone`): the board, its
    refusal as a cell off, or None (no board, or one not showing its tiles by tone, or part
    of a larger checker). Made once per :func:`find_board` call: :func:`_tone_first` may
    have made it already, before the search by lines ended."""

    def make() -> BoardPose | MaybeCellOff | None:
        return _search_by_tone(bgr, tile_color_lab, inverted, thorough)

    return _memo(("by tone", thorough), bgr, make)


def _search_by_tone(
    bgr: np.ndarray, tile_color_lab: np.ndarray | None, inverted: bool | None, thorough: bool
) -> BoardPose | MaybeCellOff | None:
    """:func:`_tone_outcome`, made."""
    outer = _MEMO.get()
    inner = _pictures(outer)  # no "cut off" noted by the lines' search
    steps, memo = _BY_TONE.set(True), _MEMO.set(inner)
    try:
        pose = _find_board_checked(bgr, tile_color_lab, inverted, thorough)
    except BoardNotFound:
        return None
    finally:
        _MEMO.reset(memo)
        _BY_TONE.reset(steps)
        if outer is not None:
            outer.update(_pictures(inner))
    if _tone_tiles(bgr, pose) < TONE_TILES or _checker_beyond(bgr, pose).max() >= CHECKER_ON:
        return None
    if not thorough and _tile_gaps(bgr, pose).min() < -GAPS_OFF:
        moved = _onto_the_gaps(bgr, pose)
        if moved is not None:
            return moved
        return MaybeCellOff(
            "no board in view: the grid found may lie a cell off the board (its tiles' gaps "
            "run along a cell's middle); retake the photo with the whole board in view",
            pose,
        )
    return pose


#: Pixels per cell of the view in which :func:`_tile_gaps` measures the lines.
GAPS_PX = 24
#: How much darker (grey levels of a black-hat) thin lines may run along a board's odd
#: lines than along its even ones (:func:`_tile_gaps`) before a board found by tone counts
#: as a cell off (refused: :class:`MaybeCellOff`). Tune checkered rigs 0-24, 100-114 and
#: 200-239, 346 boards found in place: at least -0.9 on either axis; the five found a cell
#: off (shots 102/3 and 204/2, a hand over a row of corners; calibration photos 9, 24, 105):
#: -4.0 to -10.6 along the axis they were off.
GAPS_OFF = 2.0


def _tile_gaps(bgr: np.ndarray, pose: BoardPose) -> np.ndarray:
    """(along x, along y): how much darker the thin lines running along the board's even
    inner lines (2, 4, 6: the gaps between its tiles) are than those along its odd ones
    (1, 3, 5, 7: cell sides inside a tile), in grey levels of a black-hat (as
    :func:`_ridge_map`'s for lines), each line taken at its lower ``ARM_QUANTILE`` along
    the board (a piece covers a part of it). A board found by tone (:func:`_by_tone`) fits
    its cells' corners, which repeat every cell: a hand over a row of corners leaves two
    placements a cell apart fitting them alike (tune checkered shot 102/3); the tile gaps
    repeat every two cells, so a grid a cell off along an axis shows them on its odd
    lines there (negative), where a tone step alone shows next to none."""
    px, margin = GAPS_PX, 0.5
    gray = pose.rectify(_grey(bgr), px, margin)
    k = max(3, int(px * 0.25) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    hat = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, kernel).astype(np.float32)
    lo, hi = round(margin * px), round((margin + N) * px)
    out = []
    for lines in (hat, hat.T):  # vertical lines (columns), then horizontal ones
        strips = [lines[lo:hi, lo + i * px - 2 : lo + i * px + 3].max(axis=1) for i in range(1, N)]
        along = np.quantile(np.stack(strips), ARM_QUANTILE, axis=1)  # the 7 lines' at once
        out.append(float(np.mean(along[1::2]) - np.mean(along[0::2])))
    return np.array(out)


def _onto_the_gaps(bgr: np.ndarray, pose: BoardPose) -> BoardPose | None:
    """The board by tone a cell over from ``pose``, whose tiles' gaps say it lies a cell off
    (:func:`_tile_gaps` under ``-GAPS_OFF`` along an axis), or None where no one move holds:
    twice at most (a cell off both ways). Only on a frame so refused (no cost elsewhere).

    The gaps tell the axis, not the way: a grid a cell off either way shows them on its
    even lines. Each way is fitted again by tone; a way holds when it lies in the frame,
    square, its gaps in place on both axes (and clearly, over ``GAPS_OFF``, along the move),
    its tiles by tone (``TONE_TILES``) and no checker beyond. One way that holds is taken
    when it fits more crosses than the other way and no fewer than ``pose`` fitted again in
    place, and no fewer tiles by tone than the other: the way onto the board takes a row of
    tiles in, the other a second row of table (a gingham beside a checkered board shows
    steps and corners as tiles do: tune checkered shots 7622/1, 15 crosses and 16 tiles by
    tone onto the board against 12 and 12 away, 12 in place; 7607/2, 12 and 11 against 10
    and 10, 9 in place)."""
    gray = 255 - _grey(bgr) if pose.inverted else _grey(bgr)
    px = max(16, min(FULL_STAGES[-1][0], round(pose.cell_size_px())))
    for _ in range(2):
        gaps = _tile_gaps(bgr, pose)
        if gaps.min() >= -GAPS_OFF:
            return pose
        axis = int(np.argmin(gaps))
        here = refine_by_tone(gray, pose, px_per_cell=px, search=0.3, along=FULL_ALONG)
        ways = [_gaps_way(bgr, gray, pose, axis, sign, px) for sign in (-1, 1)]
        held = [w for w in ways if w is not None]
        if not held:
            return None
        best = max(held, key=lambda w: w.crosses_found)
        other = next((w for w in ways if w is not best), None)
        if other is not None and (
            other.crosses_found >= best.crosses_found
            or _tone_tiles(bgr, other) > _tone_tiles(bgr, best)
        ):
            return None  # both ways alike: the board's place stays in doubt
        if here is not None and best.crosses_found < here.crosses_found:
            return None
        pose = best
    return pose if _tile_gaps(bgr, pose).min() >= -GAPS_OFF else None


def _gaps_way(
    bgr: np.ndarray, gray: np.ndarray, pose: BoardPose, axis: int, sign: int, px: int
) -> BoardPose | None:
    """``pose`` moved a cell by ``sign`` along ``axis`` (0: x) and fitted again by tone, when
    it holds there (see :func:`_onto_the_gaps`), else None."""
    moved = shifted_pose(pose, sign * (axis == 0), sign * (axis == 1))
    moved.k, moved.centre, moved.scale = pose.k, pose.centre, pose.scale
    other = refine_by_tone(gray, moved, px_per_cell=px, search=0.3, along=FULL_ALONG)
    if (
        other is None
        or not _in_frame(other, gray.shape)
        or squareness(other.H, gray.shape) > MAX_SQUARENESS
    ):
        return None
    gaps = _tile_gaps(bgr, other)
    if gaps.min() < -GAPS_OFF or gaps[axis] <= GAPS_OFF:
        return None
    if _tone_tiles(bgr, other) < TONE_TILES or _checker_beyond(bgr, other).max() >= CHECKER_ON:
        return None
    other.tile_color_lab, other.inverted = pose.tile_color_lab, pose.inverted
    return other


def refine_by_tone(gray: np.ndarray, pose: BoardPose, **fit: Any) -> BoardPose | None:
    """:func:`refine_pose` (arguments ``fit``) with the grid's crosses sought as steps in
    tone (:func:`_step_map`, as in a search by tone, :func:`_by_tone`): for a caller that
    fits again a board whose tiles show their grid by tone and no line (a calibration's
    grid moved a cell, :func:`piecebridge.vision.learn._refit_moved`), where the ridges of
    lines find next to no cross."""
    token = _BY_TONE.set(True)
    try:
        return refine_pose(gray, pose, **fit)
    finally:
        _BY_TONE.reset(token)


def boards_by_tone(bgr: np.ndarray) -> list[BoardPose]:
    """Every board the corners of a grid shown by tone outline (:func:`_saddle_outlines`:
    each placement of the 7x7 inner corners seen, on the frame at ``WORK_WIDTH``), fitted
    on the full frame by its steps in tone (:func:`refine_by_tone`, as ``FULL_STAGES``),
    with no check made: a second opinion for a caller that judges each by other means (a
    calibration photo's layout, :func:`piecebridge.vision.learn._learn_by_tone`).

    A calibration photo's four rows of pieces hide half the corners, so the corners seen
    fit several placements, and the search takes the one fitting most crosses (tune
    checkered calibration photos of rigs 82 and 124: the first placement in place, 0.1
    cell, the one taken a cell and two cells off)."""
    small, S = _downscaled(bgr, WORK_WIDTH)
    gray = _grey(bgr)
    out = []
    for quad in _saddle_outlines(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)):
        H = cv2.getPerspectiveTransform(
            CANONICAL_CORNERS.astype(np.float32), _order_quad(quad).astype(np.float32)
        )
        pose = BoardPose(np.linalg.inv(S) @ H)
        for px_max, search in FULL_STAGES:
            px = max(SMALL_PX, min(px_max, round(pose.cell_size_px())))
            pose = refine_by_tone(gray, pose, px_per_cell=px, search=search) or pose
        out.append(_with_frame_colour(pose, bgr, WORK_WIDTH))
    return out


#: Closings (times the usual kernel of :func:`_colour_outlines`) of each candidate tile
#: colour's region that :func:`boards_by_colour` outlines: the layout's coins and the
#: lines of another colour cut the lower tiles' region into pieces at the usual closing
#: (tune acrylic calibration photo of rig 7602, pale blue tiles with white lines on a red
#: gingham: the biggest piece the upper half, its outline 3.5 cells off; closed at twice
#: the width, 2.6 cells off at a corner, fitted in place with 16 crosses).
COLOUR_CLOSINGS = (1, 2, 3, 4)


def boards_by_colour(bgr: np.ndarray) -> list[BoardPose]:
    """Every board fitted on the full frame (:func:`_fit_from_tiles`, both polarities of
    the lines, ``TILE_CROSSES`` at least) from the outline of a candidate tile colour's
    biggest region (:func:`_candidate_colours`) closed at each of ``COLOUR_CLOSINGS``,
    one per place (corners within ``SAME_COLOUR_BOARD`` cell), with no further check: a
    last opinion for a caller that judges each by other means (a calibration photo's
    layout, :func:`piecebridge.vision.learn._learn_by_colour`). Never on the usual path."""
    small, S = _downscaled(bgr, WORK_WIDTH)
    lab = lab_image(cv2.medianBlur(small, 5))
    k = max(3, round(lab.shape[1] / 80) | 1)
    opening = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    gray = _grey(bgr)
    out: list[BoardPose] = []
    for colour in _candidate_colours(lab):
        region = _colour_region(lab, colour)
        for times in COLOUR_CLOSINGS:
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k * times | 1,) * 2)
            closed = cv2.morphologyEx(region, cv2.MORPH_CLOSE, kernel)
            quad = _quad_from_mask(cv2.morphologyEx(closed, cv2.MORPH_OPEN, opening))
            if quad is None:
                continue
            H0 = cv2.getPerspectiveTransform(
                CANONICAL_CORNERS.astype(np.float32), _order_quad(quad).astype(np.float32)
            )
            for inverted in (False, True):
                start = BoardPose(H0)
                start.inverted = inverted
                pose = _fit_from_tiles(bgr, gray, start, S, small, WORK_WIDTH)
                if pose is None or any(
                    corner_gap(pose, o.corners, np.max) < SAME_COLOUR_BOARD for o in out
                ):
                    continue
                out.append(_with_frame_colour(pose, bgr, WORK_WIDTH))
    return out


#: Cells (every corner) within which two boards of :func:`boards_by_colour` are one.
SAME_COLOUR_BOARD = 0.3


def _saddles_seen(bgr: np.ndarray) -> bool:
    """Whether the small frame shows a lattice of a tone grid's corners (an outline of
    :func:`_saddle_outlines`): the usual search by tone runs only then, as a frame without
    a board is refused by lines three times as fast without it (``--speed``, mixed tune
    rigs 0-5, a table only: 40 -> 113 ms). Tune checkered: every one of 160 shots shows one;
    4 of 40 calibration photos (four rows of coins over the corners) do not, which a
    thorough search does not ask."""
    return bool(_frame_saddle_outlines(bgr))


def _frame_saddle_outlines(bgr: np.ndarray) -> list[np.ndarray]:
    """:func:`_saddle_outlines` of the frame's grey at ``WORK_WIDTH``, made once per
    :func:`find_board` call (asked by :func:`_tone_first`, then by :func:`_by_tone`)."""
    return _saddle_outlines_of(_downscaled(bgr, WORK_WIDTH)[0])


def _tiles_by_tone_seen(bgr: np.ndarray) -> bool:
    """Whether an outline of a tone grid's corners (:func:`_frame_saddle_outlines`, as it
    stands, not fitted) shows ``TONE_TILES`` tiles by tone (:func:`_tone_tiles`): the cue
    for :func:`_tone_first`. Not a check of a board (the search by tone checks its own): a
    board of lines shows saddles too (its lines' crossings, its pieces): with the saddles
    alone as the cue, the search by tone ran ahead on 68 of the 125 frames of tune acrylic
    rigs 0-24 and 28 of printplay's, finding none and costing 60-960 ms each (the full
    search 18.0 -> 40.9 s CPU on acrylic); their tiles are of one tone."""
    return bool(_memo("tiles by tone seen", bgr, lambda: _outline_over_tone_tiles(bgr)))


def _outline_over_tone_tiles(bgr: np.ndarray) -> bool:
    """:func:`_tiles_by_tone_seen`, made (once per :func:`find_board` call: it may be asked
    after grey's first polarity of the lines and again after its search)."""
    _, S = _downscaled(bgr, WORK_WIDTH)
    inverse = np.linalg.inv(S)
    for quad in _frame_saddle_outlines(bgr):
        H = cv2.getPerspectiveTransform(
            CANONICAL_CORNERS.astype(np.float32), _order_quad(quad).astype(np.float32)
        )
        if _tone_tiles(bgr, BoardPose(inverse @ H)) >= TONE_TILES:
            return True
    return False


#: Pairs of neighbouring cells (of 7) in the row just beyond a side of a board found by
#: tone that go on with its checker (:func:`_checker_beyond`) for the grid to be a part of
#: a larger checkerboard (a camera-calibration chessboard, 10 x 7 squares), not a board.
#: Tune checkered rigs 0-24 and 100-114, 199 boards found by tone: at most 5 on a side
#: (153 none); the chessboards of tests/test_vision_locate_round13.py (24-36 px squares):
#: 6-7 on the side the two more columns lie.
CHECKER_ON = 6
#: Lab distance (lightness at half weight) under which a cell beyond a side has the colour
#: of the board's cells of its parity (:func:`_checker_beyond`): a larger checkerboard goes
#: on in its own two colours (the camera chessboards of tests/test_vision_locate_round13.py:
#: under 1), a cloth of squares in its own (tune checkered rig 224 shots 1 and 3, a blue
#: gingham going on with the checker 6 of 7 pairs south of a board in view: 34-36, the
#: median of that side's cells).
CHECKER_ALIKE_LAB = 15.0


def _checker_beyond(bgr: np.ndarray, pose: BoardPose) -> np.ndarray:
    """Pairs of neighbouring cells (of 7) in the row just beyond each side of ``pose``
    (N, E, S, W) that go on with the board's checker: they differ by half the board's two
    tones apart or more, the other way round from the pair just inside, and each has the
    colour of the board's cells of its parity (``CHECKER_ALIKE_LAB``). Each cell's grey and
    colour are the medians of its middle. Beyond a board lies table (one tone, or a cloth's
    squares of another size or colour); beyond a part of a larger checkerboard, more of it."""
    px = TONE_PX
    view = pose.rectify(bgr, px, 1.0)[: (N + 2) * px, : (N + 2) * px]
    inset = round(0.2 * px)

    def middles(image: np.ndarray) -> np.ndarray:
        blocks = image.reshape(N + 2, px, N + 2, px, -1)
        return np.median(blocks[:, inset : px - inset, :, inset : px - inset], axis=(1, 3))

    cells = middles(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.float32)[..., None])[..., 0]
    lab = middles(lab_image(view))
    parity = np.indices((N + 2, N + 2)).sum(axis=0) % 2
    inner = np.zeros((N + 2, N + 2), bool)
    inner[1:-1, 1:-1] = True
    tones = [np.median(lab[inner & (parity == k)], axis=0) for k in (0, 1)]
    off = np.where(parity[..., None] == 0, lab - tones[0], lab - tones[1])
    alike = np.linalg.norm(off * (0.5, 1.0, 1.0), axis=2) < CHECKER_ALIKE_LAB
    board, board_parity = cells[1:-1, 1:-1], parity[1:-1, 1:-1]
    contrast = abs(float(np.median(board[board_parity == 0]) - np.median(board[board_parity == 1])))
    sides = [  # beyond each side (N, E, S, W), just inside it, whether beyond is alike
        (cells[0, 1:-1], cells[1, 1:-1], alike[0, 1:-1]),
        (cells[1:-1, -1], cells[1:-1, -2], alike[1:-1, -1]),
        (cells[-1, 1:-1], cells[-2, 1:-1], alike[-1, 1:-1]),
        (cells[1:-1, 0], cells[1:-1, 1], alike[1:-1, 0]),
    ]
    out = []
    for beyond, inside, same in sides:
        step_out, step_in = np.diff(beyond), np.diff(inside)
        goes_on = (np.abs(step_out) > contrast / 2) & (np.sign(step_out) == -np.sign(step_in))
        out.append(int((goes_on & same[1:] & same[:-1]).sum()))
    return np.array(out)


#: Tiles (of 16) that must show their 2x2 grid by tone (:func:`_tone_tiles`) for a board
#: found by tone to stand. Tune rigs 0-24: checkered boards found by tone 8-16 (125 frames,
#: 85 of them 16; a hand over some tiles); boards of lines (piecepackr and printplay rig 1
#: shot 0, refused by lines as cut off, found by tone in place) 0.
TONE_TILES = 6
#: How far (grey levels) a tile's two diagonals must differ to show its grid by tone, and
#: how many times more than the cells of one diagonal differ from each other
#: (:func:`_tone_tiles`): maple and walnut differ by over a hundred.
TONE_STEP = 20.0
TONE_CONTRAST = 3.0
#: Pixels per cell of the view in which :func:`_tone_tiles` measures the cells.
TONE_PX = 16
#: Cell pixels :func:`_tone_tiles` measures: those further than this from the cell's
#: middle (cells), round a coin or pawn standing on it.
TONE_RIM = 0.42


def _tone_tiles(bgr: np.ndarray, pose: BoardPose) -> int:
    """How many of the 16 tiles show their 2x2 grid by tone (:func:`tone_tiles_grey` of
    the frame's grey)."""
    return tone_tiles_grey(_grey(bgr), pose)


def tone_tiles_grey(grey_frame: np.ndarray, pose: BoardPose) -> int:
    """How many of the 16 tiles of ``pose`` show their 2x2 grid by tone in ``grey_frame``
    (either polarity): each diagonal's two cells alike, the diagonals apart
    (``TONE_STEP``, ``TONE_CONTRAST``), either way round (a tile laid a quarter turn over
    swaps them). Each cell's grey is the median of its pixels beyond ``TONE_RIM`` of its
    middle, where a piece standing on it leaves the tile in view."""
    px = TONE_PX
    grey = pose.rectify(grey_frame, px, 0.0).astype(np.float32)
    yy, xx = np.mgrid[0:px, 0:px] + 0.5 - px / 2
    rim = np.hypot(xx, yy) > TONE_RIM * px
    blocks = grey[: N * px, : N * px].reshape(N, px, N, px).transpose(0, 2, 1, 3)
    cells = np.median(blocks[:, :, rim], axis=2)  # (row, column)
    a, b = cells[0::2, 0::2], cells[0::2, 1::2]  # each tile: a b / c d
    c, d = cells[1::2, 0::2], cells[1::2, 1::2]
    apart = np.abs((a + d) - (b + c)) / 2
    within = (np.abs(a - d) + np.abs(b - c)) / 2
    return int(((apart > TONE_STEP) & (apart > TONE_CONTRAST * within)).sum())


def _find_board_checked(
    bgr: np.ndarray,
    tile_color_lab: np.ndarray | None,
    inverted: bool | None,
    thorough: bool,
) -> BoardPose:
    """:func:`find_board`'s search (:func:`_search`) and checks (its frame's memo set).

    When no board is found, or only a weak one (under ``WEAK_CROSSES``), and a search saw
    a grid run past the frame, the board is cut off: the part of it in view shows too
    little of the grid for a fit, or is fitted as a whole over the table beside it, and
    grey's refusal or weak board spoke for the frame (tune renderer cut-off negatives 9,
    11 and 19: weak boards of 0-7 crosses; 15: 9 crosses, the grid three cells north of the
    board; 59: no grid in grey, the darkest channel's ran past the frame). Tune boards in
    view found with such a search fit 10 crosses or more (round 12,
    ``benchmarks/results/vision_locate.md``).
    """
    try:
        pose = _search(bgr, tile_color_lab, inverted, thorough)
    except BoardCutOff:
        raise
    except BoardNotFound:
        if _cut_off_seen():
            raise _cut_off() from None
        raise
    if pose.crosses_found < WEAK_CROSSES and _cut_off_seen():
        raise _cut_off()
    try:
        return _checked(bgr, pose)
    except PrintedGrid:
        # A grid of half the cells' size over a block of coins runs on beyond its sides
        # on the board's own lines (tune printplay shots 25/1, 41/2, 51/2, 94/1, 227/2, all
        # boards in view): the tiles, seen whole, outline the board. A thorough search's
        # caller judges that board by the calibration layout itself.
        other = None if thorough else _tiles_board(bgr, inverted)
        if other is None:
            raise
        return other


def board_by_tiles(bgr: np.ndarray, every_stage: bool = False) -> BoardPose | None:
    """The board found from whole tiles alone (:func:`_find_by_tiles`, at ``WORK_WIDTH``,
    else at ``THOROUGH_WIDTH``) when it passes the checks :func:`find_board` makes of a grid
    its search found (:func:`_checked`), or None: a second opinion for a caller that
    refused the board :func:`find_board` gave (a calibration photo whose grid showed no
    layout).

    The line searches fit the grid on what is most like a grid of crosses, and a board's
    own pieces can be: tune printplay calibration photos of rigs 3 and 186, a grid of half
    the cells' size fitted over the block of coins (every other line of it on the board's,
    16 crosses) and refused as part of a larger printed grid; rig 188's fitted 5.5 cells
    off; rig 9's ran past the frame a cell north. The tiles, seen whole, outline the board
    itself (each within 0.11 cell). The wider frame is searched only when the usual one
    gives no board that passes (tiles whose gaps are under a pixel there). With
    ``every_stage``, every stage of :func:`_find_by_tiles` is searched, not only up to the
    first that finds a board (a third opinion, dearer: see there)."""
    token = _MEMO.set({})
    try:
        return _tiles_board(bgr, every_stage=every_stage)
    finally:
        _MEMO.reset(token)


def _tiles_board(
    bgr: np.ndarray, inverted: bool | None = None, every_stage: bool = False
) -> BoardPose | None:
    """:func:`board_by_tiles` in the memo of the :func:`find_board` call it is made in."""
    for width in (WORK_WIDTH, THOROUGH_WIDTH):
        try:
            found = _find_by_tiles(bgr, inverted, width, every_stage)
            pose = _with_frame_colour(found, bgr, width)
            return _checked(bgr, pose)
        except BoardNotFound:
            continue
    return None


def _checked(bgr: np.ndarray, pose: BoardPose) -> BoardPose:
    """``pose`` as :func:`find_board` takes a grid its search found (moved onto the board
    when its lines say a cell off, :func:`_onto_the_board`), or the refusal of it: too few
    tile crosses, a board cut off, a grid in doubt of lying a cell off, a printed grid."""
    if pose.crosses_found < MIN_CROSSES:
        raise FewCrosses(
            f"no board in view: the grid seen on the small frame shows {pose.crosses_found} "
            f"of the {len(CROSS_CENTRES)} tile crosses at full size "
            f"(at least {MIN_CROSSES} needed)",
            pose,
        )
    # A grid a cell off that no move makes good is refused, as "cut off" where it is.
    moved = _onto_the_board(bgr, pose)
    pose = moved or pose
    gray = pose.rectify(_grey(bgr), PRINTED_PX, 0.5)
    ridge = _ridge_map(255 - gray if pose.inverted else gray, PRINTED_PX)
    beyond = lines_beyond(ridge, PRINTED_PX, 0.5)
    if _runs_past_frame(bgr, pose, beyond) or _part_of_a_board_cut_off(bgr, pose, ridge, beyond):
        raise _cut_off(pose=pose)
    if moved is None:
        raise MaybeCellOff(
            "no board in view: the grid found may lie a cell off the board (its lines fit "
            "better a cell over, where it does not fit); retake the photo with the whole "
            "board and some table round it in view",
            pose,
        )
    why = _printed_grid(bgr, pose, (gray, ridge))
    if why and not (why == RUNS_ON and _tiles_show_by_tone(bgr, pose)):
        raise PrintedGrid(f"no board in view: the grid found {why}", pose)
    return pose


#: Tiles (of 16) showing their 2x2 grid by tone (:func:`_tone_tiles`) for which a grid
#: found by tone whose lines run on beyond its sides is a board after all
#: (:func:`_tiles_show_by_tone`). A printed grid's cells are of one tone (boards of lines:
#: 0 tiles by tone); tune checkered shots of rig 7628, a green gingham round a board wholly
#: in view, its squares' edges in line with 3-4 of the board's 7 lines beyond every side:
#: 16 tiles by tone, no checker beyond.
TONE_TILES_NOT_PRINTED = 12


def _tiles_show_by_tone(bgr: np.ndarray, pose: BoardPose) -> bool:
    """Whether ``pose``, a grid found by tone (:data:`_BY_TONE`) whose lines run on beyond
    its sides (:data:`RUNS_ON`), shows its tiles by tone all the same (``TONE_TILES_NOT_PRINTED``)
    and no larger checker beyond it (``CHECKER_ON``): a board by tone on a cloth of squares,
    whose edges beyond it can fall in line with its cells' (steps, where a printed grid's
    lines go on as lines). Never for a grid of lines (its cells show no tone)."""
    return bool(
        _BY_TONE.get()
        and _tone_tiles(bgr, pose) >= TONE_TILES_NOT_PRINTED
        and _checker_beyond(bgr, pose).max() < CHECKER_ON
    )


#: Pixels per cell of the view in which :func:`_strip_lines` counts line segments (at 24
#: a printplay line, 0.7 mm of a 25 mm cell, is under a pixel and often missed).
CELL_OVER_PX = 32
#: The single cell moves a grid found is checked against: N, E, S, W.
CELL_MOVES = ((0, -1), (1, 0), (0, 1), (-1, 0))
#: Segments of the lines crossing it that the strip of cells a move takes in must show more
#: than the strip it leaves behind (:func:`_strip_lines`) for the grid found to count as a
#: cell off the board: a strip of tiles shows a segment on every cell side, a strip of
#: table none. A wooden table's grain runs along a strip, not across it (tune mixed rig 14
#: shot 0, a board in place: 7 more along a row of wood a cell south, 3 fewer across).
#: Tune, every move of every grid found in place (printplay cloth crops in view, 985; full
#: frames of all arts, 1,735): at most 2 more; grids found a cell off along one axis (45 of
#: the crops): 3-8 more in 37 of them.
CELL_OFF_ACROSS = 3
#: ... and with the line just beyond the strip taken in against the side left behind, this
#: many more in all (tune in place: with 2 across at most 4, where grain along a strip with
#: none across gave up to 8; the 37 a cell off: 4-14, so 3 across with 1 along still counts).
CELL_OFF_LINES = 4


def _strip_lines(bgr: np.ndarray, pose: BoardPose) -> dict[tuple[int, int], tuple[int, int]]:
    """For each move of ``CELL_MOVES``, how many more line segments (:func:`line_segments`)
    the strip of cells it takes in shows than the strip it leaves behind: on the nine lines
    crossing the strip, and on the line along it, beyond the strip taken in against the
    side of the grid left behind (each of 8 segments).

    A board's every cell side that a printed line or a tile gap runs along shows one; a grid
    a cell off takes in a row or column of table, which shows none, and leaves one of tiles
    beyond, which does. Printplay tiles (a line round each tile and its cross) show a cross
    at every cell corner, so the crosses fit as well a cell off: these segments do not.
    """
    S, m = CELL_OVER_PX, 1.5
    gray = cv2.cvtColor(pose.rectify(bgr, S, m), cv2.COLOR_BGR2GRAY)
    if pose.inverted:
        gray = 255 - gray
    # [axis (vertical lines, horizontal), line + 1, cell + 1]: lines -1 to 9, cells -1 to 8
    runs = line_segments(_ridge_map(gray, S), S, m, range(-1, N + 2), cells=(-1, N + 1))
    gains = {}
    for sx, sy in CELL_MOVES:
        taken, left = (N, 0) if sx + sy > 0 else (-1, N - 1)  # the strips' cells
        beyond, side = (N + 1, 0) if sx + sy > 0 else (-1, N)  # lines along them
        crossing = runs[0 if sy else 1, 1 : N + 2]  # lines 0-8 across a row (column)
        along = runs[1 if sy else 0, :, 1 : N + 1]  # lines along it, over cells 0-7
        gains[sx, sy] = (
            int(crossing[:, taken + 1].sum() - crossing[:, left + 1].sum()),
            int(along[beyond + 1].sum() - along[side + 1].sum()),
        )
    return gains


def _onto_the_board(bgr: np.ndarray, pose: BoardPose) -> BoardPose | None:
    """``pose``, or the grid a cell over when its lines say ``pose`` is a cell off the board
    (:func:`_strip_lines`: ``CELL_OFF_ACROSS`` and ``CELL_OFF_LINES``) and, fitted again
    there, it fits no fewer crosses than ``pose`` fitted again in place (less
    ``MOVE_CROSSES_SLACK``) and lies in the frame; twice at most (a cell off both ways).
    None where the lines say "a cell off" and the move does not hold: the board is then
    refused (:func:`find_board`), as a board read a cell off misreads every cell, where a
    refusal only asks for another photo (held-out printplay rig 0 shot 2, moved a cell by a
    rule without this check: 24 cells wrong).
    """
    for _ in range(2):
        gains = _strip_lines(bgr, pose)
        move = max(CELL_MOVES, key=lambda m: sum(gains[m]))
        across, along = gains[move]
        if across < CELL_OFF_ACROSS or across + along < CELL_OFF_LINES:
            return pose
        if _BY_TONE.get() and _tile_gaps(bgr, pose)[0 if move[0] else 1] > GAPS_OFF:
            # Its tiles' gaps say in place along the move (a board by tone: a cloth of
            # squares beside it shows steps as its cells do; tune checkered calibration
            # photo of rig 105, moved a cell onto a gingham by its steps, gaps 5.7 in place
            # and -10.5 moved; the one grid found by tone moved so, of 400 frames).
            return pose
        gray = 255 - _grey(bgr) if pose.inverted else _grey(bgr)  # only when a move is tried
        moved = shifted_pose(pose, *move)
        moved.k, moved.centre, moved.scale = pose.k, pose.centre, pose.scale
        px = max(16, min(FULL_STAGES[-1][0], round(pose.cell_size_px())))
        other = refine_pose(gray, moved, px_per_cell=px, search=0.3, along=FULL_ALONG)
        holds = (
            other is not None
            and _in_frame(other, gray.shape)
            and squareness(other.H, gray.shape) <= MAX_SQUARENESS
            and _no_fewer_crosses(gray, pose, other, px, FULL_ALONG, MOVE_CROSSES_SLACK)
        )
        if not holds:
            return None
        other.tile_color_lab, other.inverted = pose.tile_color_lab, pose.inverted
        pose = other
    return pose


#: Pixels per cell of the view in which :func:`_runs_past_frame` follows lines outward.
PAST_FRAME_PX = 24
#: How far (cells) beyond a side :func:`_runs_past_frame` follows the lines before it gives
#: up (a board cut off with more than this of it beyond the grid found and in view would
#: have been found whole).
PAST_FRAME_CELLS = 4


def _runs_past_frame(bgr: np.ndarray, pose: BoardPose, beyond: np.ndarray) -> bool:
    """Whether the grid at ``pose`` runs on beyond a side out to the frame's edge, as a
    board's: on a side whose strip just beyond shows ``LINES_BEYOND`` of the seven inner
    lines going on (``beyond``: :func:`lines_beyond` of it, 0.05-0.45 cell out; N, E, S, W)
    and lies in the frame, and is tile-like as the strip just inside
    (:func:`_tiles_beyond`), every further band of half a cell outward shows as many, and
    each whole cell out a line along the side (:func:`rows_beyond`: the next row of cells),
    until a band reaches the frame's edge.

    The grid found is then a part of a board cut off by the frame: its lines go on past the
    grid to the edge of the photo (tune renderer cut-off negative 21: a grid three cells
    south of the board, 11 crosses, over the table, the board's lines going on north of it
    to the frame's top). Beyond a board in view lies table, and a business card's printed
    grid stops at the card's edge. A table's grain in line with the grid's lines, on a
    table of the tiles' colour, runs on too, but shows no rows of cells across it.

    Where the frame's edge comes within a cell, before any row could show (negative 21:
    under half a cell), the lines alone say "cut off" only for a grid fitting no more
    crosses than a board a tile off (``ONE_TILE_OFF_CROSSES``): the rest of a board whose
    part in view was fitted as a whole lies beyond it, and its grid is fitted partly on
    what is not board.
    """
    sides = (beyond >= LINES_BEYOND) & _sides_seen(pose, bgr.shape)
    if sides.any():
        # Tiles beyond, too: the strip just beyond is as the strip just inside (a plank
        # table's grain ran on beyond the north side of tune acrylic calibration photo of
        # rig 1209, a board in view, as lines).
        rect = pose.rectify(bgr, ONE_TILE_PX, 0.5)
        sides &= _tiles_beyond(rect, ONE_TILE_PX, 0.5)
    sides = np.flatnonzero(sides)
    if not len(sides):
        return False
    px, margin = PAST_FRAME_PX, PAST_FRAME_CELLS + 0.5
    gray = pose.rectify(_grey(bgr), px, margin)
    ridge = _ridge_map(255 - gray if pose.inverted else gray, px)
    h, w = bgr.shape[:2]
    along = np.linspace(1.0, 7.0, 7)

    def in_frame(side: int, out: float) -> bool:
        x, y = [(along, -out), (N + out, along), (along, N + out), (-out, along)][side]
        p = pose.to_image(np.stack(np.broadcast_arrays(x, y), -1))
        return bool(((p >= 0) & (p <= [w - 1, h - 1])).all())

    few = pose.crosses_found <= ONE_TILE_OFF_CROSSES
    for side in sides:
        rows = 0  # rows of cells seen beyond the side
        for k in range(1, 2 * PAST_FRAME_CELLS):  # band 0 (0.05-0.45 out) is ``beyond``
            out = 0.45 + 0.5 * k  # the band's outer limit, cells beyond the side
            if not in_frame(side, out):
                if rows or few:
                    return True  # the lines went on out to the frame's edge
                break
            if lines_beyond(ridge, px, margin, (out - 0.4, out))[side] < LINES_BEYOND:
                break  # they stop short of it: table beyond
            row = round(out)  # the whole cell this band ends at, if it does
            if k % 2 and in_frame(side, row + 0.1):  # the row in the frame (past it: flat)
                if not rows_beyond(ridge, px, margin, row)[side]:
                    break  # lines across, none along: grain, not a board's cells
                rows += 1
    return False


#: How far (cells) beyond a side the frame's edge may lie for :func:`_part_of_a_board_cut_off`
#: to follow the colour out to it (a board in view lies further in, or shows table first).
EDGE_CELLS = 4.0
#: Colour distance (Lab, lightness at half weight, as :func:`_tiles_beyond`) under which a
#: band beyond a side is alike to the strip just inside it.
ALIKE_LAB = 7.0
#: Inner grid lines (of 7) just beyond a side that show the board itself going on, with its
#: colour, out to the frame's edge (:func:`_part_of_a_board_cut_off`).
BOARD_LINES = 3
#: Share of the cross lines' cell-long segments in a row of tiles along a side under which
#: the row shows no board (:func:`_part_of_a_board_cut_off`): table, or a hand.
EMPTY_ROW = 0.2
#: Cells within which the frame's edge lies beyond the side across from a row of table for
#: the grid to be taken for a board cut off there (:func:`_part_of_a_board_cut_off`).
NEAR_EDGE_CELLS = 1.0


def _part_of_a_board_cut_off(
    bgr: np.ndarray, pose: BoardPose, ridge: np.ndarray, beyond: np.ndarray
) -> bool:
    """Whether the grid at ``pose`` is a part of a board that the frame cuts off, fitted as
    a whole board: ``ridge`` is its ridge map at ``PRINTED_PX`` with half a cell of margin,
    ``beyond`` the lines just beyond each side in it (:func:`lines_beyond`).

    A crop of a photo cutting through the board (tune calibration photos and shots cropped
    to a corner or a side, 0.45-0.75 of the board wide) was found as a board in two ways:

    - a grid inside the board's part in view (often of half the cells' size, every other
      line of it on the board's): beyond a side, out to the frame's edge within
      ``EDGE_CELLS``, the colour stays that just inside (``ALIKE_LAB``) and ``BOARD_LINES``
      of its lines go on (a hand or an arm out to the edge shows none), and where a whole
      cell out lies in the frame, a line along the side shows at one (the board's next
      rows; a table of the tiles' colour with grain in line with the grid shows none);
    - the board's part in view and table beside it: a row of tiles along one side shows few
      lines (``EMPTY_ROW``) and the colour just beyond it (table inside and out) while the
      frame's edge comes within ``NEAR_EDGE_CELLS`` of the side across, where the board
      runs out of the frame (its lines go on to the edge, ``BOARD_LINES``, unless the edge
      cuts that side within half a cell). A hand over a row is as bare, but the frame's edge
      lies far beyond the other side of a board in view, or shows no lines going on.

    Colours and rows are looked at only on the sides the cheap measures leave in question.
    """
    dist = _edge_distances(pose, bgr.shape)
    banded = dist >= 0.5  # half a cell out in the frame: a band to compare
    going_on = banded & (dist < EDGE_CELLS) & (beyond >= BOARD_LINES)
    # The board runs on across from a row of table: the frame cuts it at that side, or its
    # lines go on beyond it. A board in view near the frame's edge shows table there, and a
    # row of faint printed lines (printplay tune 73/0, 86/1) is no table.
    across = np.roll(dist, 2)
    runs_on = (across < 0.5) | (np.roll(beyond, 2) >= BOARD_LINES)
    table_row = banded & (_row_lines(ridge) <= EMPTY_ROW) & (across <= NEAR_EDGE_CELLS) & runs_on
    if not (going_on | table_row).any():
        return False
    px, margin = ONE_TILE_PX, EDGE_CELLS + 0.5
    rect = pose.rectify(bgr, px, margin)
    views = _sides_north(lab_image(rect))
    for side in np.flatnonzero(table_row):
        if _bands_alike(views[side], px, margin, 0.5)[0]:
            return True
    if not going_on.any():
        return False
    gray = _grey(rect)
    ridge_out = _ridge_map(255 - gray if pose.inverted else gray, px)
    for side in np.flatnonzero(going_on):
        if not all(_bands_alike(views[side], px, margin, dist[side])):
            continue
        outs = range(1, int(dist[side] - 0.25) + 1)  # whole cells out in the frame
        if not outs or any(rows_beyond(ridge_out, px, margin, float(k))[side] for k in outs):
            return True
    return False


def _edge_distances(pose: BoardPose, shape: tuple[int, ...]) -> np.ndarray:
    """How far (cells, in quarters, up to ``EDGE_CELLS``) the frame's edge lies beyond each
    side (N, E, S, W) of ``pose``, along its middle six cells."""
    h, w = shape[:2]
    along = np.linspace(1.0, 7.0, 7)
    outs = np.arange(0.25, EDGE_CELLS + 0.01, 0.25)
    a, o = np.meshgrid(along, outs)  # (outs, 7)
    dist = np.zeros(4)
    for side, (x, y) in enumerate([(a, -o), (N + o, a), (a, N + o), (-o, a)]):
        p = pose.to_image(np.stack([x, y], -1).reshape(-1, 2)).reshape(len(outs), 7, 2)
        inside = ((p >= 0) & (p <= [w - 1, h - 1])).all(axis=(1, 2))
        dist[side] = 0.25 * int(np.argmin(inside)) if not inside.all() else outs[-1]
    return dist


def _sides_north(view: np.ndarray) -> list[np.ndarray]:
    """A square rectified view turned so that each side (N, E, S, W) in turn is north."""
    return [np.rot90(view, k) for k in range(4)]


def _bands_alike(view: np.ndarray, px: int, margin: float, out: float) -> list[bool]:
    """Whether each band of half a cell beyond the north side of ``view`` (rectified at
    ``px`` per cell with ``margin`` cells, Lab), out to ``out`` cells, has the colour of
    the strip 0.1-0.4 cell inside it (``ALIKE_LAB``, lightness at half weight), along the
    middle six cells."""
    m, half = round(margin * px), px // 2
    lo, hi = m + px, m + 7 * px
    inside = median_colour(view[m + px // 10 : m + 2 * px // 5, lo:hi].reshape(-1, 3))
    alike = []
    for k in range(int(2 * out)):
        d = median_colour(view[m - (k + 1) * half : m - k * half, lo:hi].reshape(-1, 3)) - inside
        alike.append(bool(np.sqrt(0.25 * d[0] ** 2 + d[1] ** 2 + d[2] ** 2) < ALIKE_LAB))
    return alike


def _row_lines(ridge: np.ndarray) -> np.ndarray:
    """Share of the tile crosses' cell-long line segments that show a line in the row of
    tiles along each side (N, E, S, W): the four lines across the row, two cells each, and
    the cross line along it; ``ridge`` as :func:`_part_of_a_board_cut_off` takes it."""
    seg = line_segments(ridge, PRINTED_PX, 0.5, [1, 3, 5, 7])  # (2, 4 lines, 8 cells)
    across, along = (slice(0, 2), 0), (slice(6, 8), 3)
    shares = []
    for side in range(4):
        vertical = side in (0, 2)  # north and south rows: vertical lines run across them
        cells, line = across if side in (0, 3) else along
        a, b = (0, 1) if vertical else (1, 0)
        shares.append(np.concatenate([seg[a, :, cells].ravel(), seg[b, line]]).mean())
    return np.array(shares)


def _search(
    bgr: np.ndarray, tile_color_lab: np.ndarray | None, inverted: bool | None, thorough: bool
) -> BoardPose:
    """:func:`find_board`'s search (grey, then the other searches; on a frame twice as
    wide too when ``thorough``) and the board one tile over."""
    if not thorough:
        pose = _find_board_at(bgr, tile_color_lab, inverted, False, WORK_WIDTH)
    else:
        try:
            pose = _find_board_at(bgr, tile_color_lab, inverted, True, WORK_WIDTH)
        except BoardNotFound as error:
            if isinstance(error, BoardCutOff) or bgr.shape[1] < 1.5 * WORK_WIDTH:
                raise  # cut off, or a frame no wider than the work width: nothing more to see
            try:
                pose = _find_board_at(bgr, tile_color_lab, inverted, True, THOROUGH_WIDTH)
            except BoardCutOff as wider:
                # The wider frame saw the grid run past the frame edge (thin lines, a pixel
                # wide there, under one on the small frame): say so, not "no grid" (tune
                # acrylic calibration photos of rigs 302, 336 and 396, a row cut off).
                raise wider from None
            except BoardNotFound:
                raise error from None
    if pose.crosses_found <= ONE_TILE_OFF_CROSSES:
        pose = _one_tile_over(bgr, pose)
    return pose


#: Sides beyond which a board's grid lines may run on before it counts as part of a larger
#: grid (:func:`_part_of_a_larger_grid`).
LARGER_GRID_SIDES = 2
#: Lines through the board off its grid lines (both directions) that make a grid a printed
#: one (:func:`_lines_inside_cells`). Tune, with the three settings below: 1,149 boards found
#: from scratch (mixed rigs 0-99, acrylic 0-59, piecepackr 0-34; calibration photos also
#: searched thoroughly; not the two outlines of ``MIN_CROSSES``, 0.4 and 2.3 cells off)
#: showed at most 2; the 57 business-card photos read as boards before (classic and alt
#: style, 1280x720 to 2560x1440), 7 or more.
LINES_INSIDE_CELLS = 5
#: How strong a line off the grid lines must be to count, as a share of the median of the
#: cross lines' (:func:`_lines_inside_cells`): a card's lines are all of one ink; at 0.5 a
#: tune acrylic shot (white engraved lines, coins' white symbols) showed 11.
INSIDE_LINE_SHARE = 0.6
#: Rows of cells (of 8) in which a line off the grid lines must show
#: (:func:`_lines_inside_cells`): a card's line runs through all, a hand hides some.
LINE_ROWS = 5
#: How far (cells) from every cell side a line counts as off the grid lines
#: (:func:`_lines_inside_cells`): a board's own lines sit within a tenth of a cell of them.
OFF_GRID = 0.2
#: Tile crosses the full-frame fit must find for a grid to be a board: when it finds too
#: few, the small frame's outline stood unconfirmed (with 0). Tune: boards found from
#: scratch fitted 8 or more, but for two such outlines 0.4 and 2.3 cells off (mixed rig 80
#: shots 1 and 3, a board cut off by a corner, its other three frames refused as cut off);
#: a renderer cut-off negative (11) and a business card were read as boards that way.
#: Round 9 (was 4): 1,157 tune boards found from scratch (mixed 0-79, acrylic 0-49 shots
#: and 0-199 calibration photos, piecepackr 0-34 and 0-99) fitted 10 or more; business
#: cards' grids fitted as boards, 6-8 (card tune photos classic 53 and 96, alt 95 and 163).
MIN_CROSSES = 8
#: A grid whose lines repeat at another pitch than its cells, this many times more strongly
#: than at the cells' own, is a printed grid of other cells (:func:`_other_pitch`). Tune:
#: 1,157 boards found from scratch at most 0.98; business cards' 10x10 grids fitted in the
#: 8x8 window (card tune photos classic 148 and 166, alt 95, 149 and 163) 4.9-29.5.
OTHER_PITCH = 2.5
#: The pitches :func:`_other_pitch` looks at, in lines across the board: not its own (8)
#: nor a multiple of its tiles' (4, 12: crosses and tile gaps differ, so a board shows
#: those too); a card's 10 cells fitted across the 8 show at 10, give or take perspective.
OTHER_PITCHES = (6, 7, 9, 10, 11)


#: Where beyond a side (cells out) :func:`_goes_on_a_cell` looks for the grid going on.
CELL_OUT = (0.55, 0.95)
#: Lines of the seven seen there, on ``LARGER_GRID_SIDES`` sides, that make a grid part of
#: a larger printed one (:func:`_goes_on_a_cell`). Tune: of 1,306 boards found from
#: scratch (the sets of ``MIN_CROSSES`` and acrylic calibration photos 200-399) none showed
#: 4 on two sides (10 on one); 8x8 windows of business cards' grids (card tune photos
#: classic 45, 1132 and 1202, alt 15 and 41) 4-6 on two to four.
CELL_OUT_LINES = 4
#: Lines just beyond a side (:func:`lines_beyond`) on ``LARGER_GRID_SIDES`` sides for
#: :func:`_goes_on_a_cell` to look a cell out (cards above: 3-6; boards: 3 in 1,157).
NEAR_LINES = 3


#: Pixels per cell of the view in which a found grid is checked for a printed one
#: (:func:`_printed_grid`).
PRINTED_PX = 32


#: :func:`_printed_grid`'s answer for a grid whose lines run on beyond its sides.
RUNS_ON = "runs on beyond its sides (a larger printed grid, such as a business card's)"


def _printed_grid(
    bgr: np.ndarray, pose: BoardPose, view: tuple[np.ndarray, np.ndarray] | None = None
) -> str | None:
    """Why the grid at ``pose`` is a printed grid rather than a board (the end of a sentence
    "the grid found ..."), or None for a board: lines inside its cells
    (:func:`_lines_inside_cells`), running on beyond its sides
    (:func:`_part_of_a_larger_grid`) or repeating at another pitch than its cells
    (:func:`_other_pitch`). All are read in one view at ``PRINTED_PX`` (``view``: its grey
    and ridge map, as :func:`_part_of_a_larger_grid` takes them, when already made)."""
    if view is None:
        gray = pose.rectify(_grey(bgr), PRINTED_PX, 0.5)
        view = gray, _ridge_map(255 - gray if pose.inverted else gray, PRINTED_PX)
    gray, ridge = view
    if _part_of_a_larger_grid(bgr, pose, (gray, ridge)) or _goes_on_a_cell(bgr, pose, ridge):
        return RUNS_ON
    lows = _cell_lows(ridge, PRINTED_PX, 0.5)
    if _lines_inside_cells(ridge, PRINTED_PX, 0.5, lows) >= LINES_INSIDE_CELLS:
        return "has lines inside its cells (a finer printed grid, such as a business card's)"
    if _other_pitch(lows) >= OTHER_PITCH:
        return (
            "has lines at another pitch than its cells (a printed grid, such as a business card's)"
        )
    return None


def _part_of_a_larger_grid(
    bgr: np.ndarray, pose: BoardPose, view: tuple[np.ndarray, np.ndarray] | None = None
) -> bool:
    """Whether the grid at ``pose`` has lines running on beyond ``LARGER_GRID_SIDES`` of its
    sides or more (:func:`lines_beyond`, at ``PRINTED_PX`` a cell): beyond a board lies
    table. An 8x8 window of a business card's 10x10 grids did (reviewer: card tune photo
    90001, a window across the card's two grids, lines beyond east and west); tune boards
    found from scratch never did (99 mixed, 144 acrylic, 119 piecepackr frames: at most one
    side). ``view``: the board's grey view and its ridge map at ``PRINTED_PX`` with half a
    cell of margin, when already made."""
    px = PRINTED_PX
    if view is None:
        gray = cv2.cvtColor(pose.rectify(bgr, px, 0.5), cv2.COLOR_BGR2GRAY)
        view = gray, _ridge_map(255 - gray if pose.inverted else gray, px)
    gray, ridge = view
    beyond = lines_beyond(ridge, px, 0.5)
    if int((beyond >= LINES_BEYOND).sum()) < LARGER_GRID_SIDES:
        return False  # the usual answer, without looking for the photo's edge
    beyond = np.where(_past_frame(gray, px, 0.5), 0, beyond)
    return int((beyond >= LINES_BEYOND).sum()) >= LARGER_GRID_SIDES


def _goes_on_a_cell(bgr: np.ndarray, pose: BoardPose, ridge: np.ndarray) -> bool:
    """Whether the grid's lines run on a whole cell beyond ``LARGER_GRID_SIDES`` of its
    sides: ``CELL_OUT_LINES`` of the seven or more in the band 0.55-0.95 cell out, where
    the photo is (:func:`_past_frame`). Looked at only where the band just beyond
    (:func:`lines_beyond`, in ``ridge``: the view at ``PRINTED_PX`` with half a cell of
    margin) shows ``NEAR_LINES`` or more on as many sides.

    An 8x8 window of a business card's 10x10 grid has one or two rows of the card's cells
    beyond it on at least one side each way; the card's lettering and ink beside those can
    keep the band just beyond under ``LINES_BEYOND`` (:func:`_part_of_a_larger_grid`). A
    board's lines stop at its edge: a tile's bevel or shadow may carry a few a little way,
    never a cell on."""
    near = lines_beyond(ridge, PRINTED_PX, 0.5)
    if int((near >= NEAR_LINES).sum()) < LARGER_GRID_SIDES:
        return False
    px, margin = PRINTED_PX, 1.5
    gray = pose.rectify(_grey(bgr), px, margin)
    far = lines_beyond(_ridge_map(255 - gray if pose.inverted else gray, px), px, margin, CELL_OUT)
    far = np.where(_past_frame(gray, px, margin), 0, far)
    return int((far >= CELL_OUT_LINES).sum()) >= LARGER_GRID_SIDES


def _lines_inside_cells(
    ridge: np.ndarray, px_per_cell: int, margin_cells: float, lows: np.ndarray | None = None
) -> int:
    """How many printed lines run through the board off its grid lines (at least
    ``OFF_GRID`` cell from every cell side), as strong as the board's own lines, in a
    rectified ridge map (:func:`_ridge_map`); both directions counted.

    A Piecepack tile carries one cross splitting it into 2x2 cells: no line runs through a
    cell. A finer printed grid fitted as a board (a business card's 10x10 grid in the 8x8
    window: reviewer, card tune photo 90002) puts a line through most of them. A line
    counts at a place across the board where, in at least ``LINE_ROWS`` of the 8 rows of
    cells along it, the ridge taken along the cell at its lower ``ARM_QUANTILE`` (a line
    runs the cell's length; a coin's rim or symbol crosses a part of it) peaks at
    ``INSIDE_LINE_SHARE`` of the median of the tile crosses' lines taken alike or more.
    Pieces do not line up that way: a row of coins puts its rims at a different place in
    each cell, and a column of them holds at most 7.

    >>> r = np.zeros((288, 288), np.float32)
    >>> r[16:272, 16 + 32 * np.arange(9)] = 50.0  # the board's lines, every cell
    >>> _lines_inside_cells(r, 32, 0.5)
    0
    >>> r[16:272, 16 + 16 + 32 * np.arange(8)] = 50.0  # and a line through every cell
    >>> _lines_inside_cells(r, 32, 0.5)
    8
    """
    S = px_per_cell
    if lows is None:
        lows = _cell_lows(ridge, S, margin_cells)
    w = round(0.15 * S)
    across = np.arange(N * S) / S % 1.0
    off_grid = np.minimum(across, 1.0 - across)[1:-1] >= OFF_GRID
    profiles, crosses = [], []
    for low in lows:  # vertical lines, then horizontal ones
        crosses += [low[:, k * S - w : k * S + w + 1].max(axis=1) for k in (1, 3, 5, 7)]
        profiles.append(np.sort(low, axis=0)[N - LINE_ROWS])  # seen in LINE_ROWS rows
    strong = INSIDE_LINE_SHARE * float(np.median(np.concatenate(crosses)))
    if strong <= 0:
        return 0
    count = 0
    for p in profiles:
        peak = (p[1:-1] >= p[:-2]) & (p[1:-1] > p[2:]) & (p[1:-1] >= strong)
        count += int((peak & off_grid).sum())
    return count


def _cell_lows(ridge: np.ndarray, px_per_cell: int, margin_cells: float) -> np.ndarray:
    """Each row of cells' ridge taken along the cell at its lower ``ARM_QUANTILE``, clear
    of the crossing lines: ``(2, 8, 8 * px_per_cell)``, vertical lines (each row of cells,
    across the board), then horizontal ones (each column). A line running the cell's length
    keeps its ridge; a coin's rim or symbol, crossing a part of the cell, does not."""
    S, m = px_per_cell, round(margin_cells * px_per_cell)
    # Along the cell, clear of the crossing lines; every other pixel row is enough there.
    along = np.arange(round(0.15 * S), round(0.85 * S), 2)
    kth = int(ARM_QUANTILE * (len(along) - 1))
    board = ridge[m : m + N * S, m : m + N * S]
    return np.stack(
        [
            np.partition(view.reshape(N, S, N * S)[:, along], kth, axis=1)[:, kth]
            for view in (board, board.T)
        ]
    )


def _other_pitch(lows: np.ndarray) -> float:
    """How much more strongly a grid's lines repeat at another pitch (``OTHER_PITCHES``
    lines across the board) than at its cells' own (8), the weaker of the two directions;
    ``lows`` as :func:`_cell_lows` makes them.

    A board's lines (crosses and tile gaps) fall on every cell side; a business card's
    10x10 grid fitted in the 8x8 window puts ten lines across it. Where the fit bends its
    tiles onto the card's lines a line may leave its place from row to row, so that lines
    counted place by place (:func:`_lines_inside_cells`) miss it: the mean of the rows, as
    a spectrum across the board, still shows the card's pitch.

    >>> lows = np.zeros((2, 8, 256), np.float32)
    >>> lows[:, :, 32 * np.arange(9)[:-1]] = 50.0  # the board's lines, every cell
    >>> _other_pitch(lows) < 1.0
    True
    >>> lows[:] = 0.0
    >>> lows[:, :, np.round(25.6 * np.arange(10)).astype(int)] = 50.0  # ten lines across
    >>> _other_pitch(lows) > OTHER_PITCH
    True
    """
    ratios = []
    for low in lows:
        profile = low.mean(axis=0)
        profile = (profile - profile.mean()) * np.hanning(len(profile))
        power = np.abs(np.fft.rfft(profile)) ** 2
        ratios.append(power[list(OTHER_PITCHES)].max() / max(float(power[N]), 1e-9))
    return float(min(ratios))


def _find_board_at(
    bgr: np.ndarray,
    tile_color_lab: np.ndarray | None,
    inverted: bool | None,
    thorough: bool,
    work_width: int,
) -> BoardPose:
    """:func:`find_board` with candidates found on a frame about ``work_width`` wide."""
    try:
        pose = _find_board(bgr, tile_color_lab, inverted, work_width, tone_first=not thorough)
    except BoardNotFound as error:
        if bgr.ndim != 3 or min(bgr.shape[:2]) < 64:
            raise
        # "Cut off" too, in a thorough search: a grid seen running past the frame may be a
        # part of the board (a pale table's colour region out to the frame edge), where the
        # other searches find the whole board in view (tune acrylic calibration photo of rig
        # 63); a board truly cut off gives them none either, and is refused as cut off. Not
        # in the usual search: a camera being moved gives many frames cut off, and the other
        # searches cost three or four times the refusal (tune: 80-120 -> 270-540 ms).
        if isinstance(error, BoardCutOff) and not thorough:
            raise
        if not thorough:
            _tone_first(bgr, tile_color_lab, inverted)
        best = _best_other(bgr, inverted, work_width)
        if best is None:
            raise error from None
        return _with_frame_colour(best, bgr, work_width)
    # Square on the small frame, the board may be fitted out of square on the full one
    # (tune acrylic calibration photo of rig 542: the grid stretched over the empty half of
    # the board, rows half a cell high, 13 crosses, squareness 0.65; real boards at most
    # 0.023): any other search's board replaces it.
    askew = squareness(pose.H, bgr.shape) > MAX_SQUARENESS
    if pose.crosses_found < WEAK_CROSSES or askew:
        # A weak board (few crosses on the full frame: a fit on a coin's rims or engraving
        # may pass where a faint light line does not) gives way to another search's board
        # when that fits more crosses; a thorough search too.
        best = _best_other(bgr, inverted, work_width, -1 if askew else pose.crosses_found)
        if best is not None:
            return _with_frame_colour(best, bgr, work_width)
    if not thorough:
        return pose
    try:
        other = _find_board(_darkest_of(bgr), None, inverted, work_width)
    except BoardNotFound:
        return pose
    cell = np.linalg.norm(np.roll(pose.corners, -1, axis=0) - pose.corners, axis=1).mean() / N
    # North is not decided here: the two may list their corners a quarter turn apart.
    gap = min(np.abs(np.roll(other.corners, k, axis=0) - pose.corners).max() for k in range(4))
    near = gap < THOROUGH_CELLS * cell
    better = (other.crosses_found, -other.residual) > (pose.crosses_found, -pose.residual)
    if not (near and better):
        return pose
    if other.inverted != pose.inverted:  # the lines' polarity is grey's to say
        return pose
    other.tile_color_lab = pose.tile_color_lab
    return other


def _best_other(
    bgr: np.ndarray, inverted: bool | None, work_width: int, beat: int = -1
) -> BoardPose | None:
    """The board of the searches tried when grey finds none or a weak one, fitting more
    than ``beat`` crosses (None if none does): the darkest channel (lines in a light,
    saturated ink), then the tiles as blobs (:func:`_find_by_tiles`: lines too faint for
    the small frame), the second only while the first found nothing better than weak."""
    searches = (
        lambda: _find_board(_darkest_of(bgr), None, inverted, work_width),
        lambda: _find_by_tiles(bgr, inverted, work_width),
    )
    best = None
    for search in searches:
        try:
            pose = search()
        except BoardNotFound:
            continue
        if pose.crosses_found > beat:
            best, beat = pose, pose.crosses_found
        if beat >= WEAK_CROSSES:
            break
    return best


def _with_frame_colour(pose: BoardPose, bgr: np.ndarray, work_width: int) -> BoardPose:
    """``pose`` with the tile colour measured on the frame itself (a board found in the
    darkest channel: the colour its search saw is no colour)."""
    small, S = _downscaled(bgr, work_width)
    corners = cv2.perspectiveTransform(pose.corners.reshape(-1, 1, 2).astype(np.float64), S)
    pose.tile_color_lab = _colour_inside(small, corners.reshape(-1, 2))
    return pose


def _one_tile_over(bgr: np.ndarray, pose: BoardPose) -> BoardPose:
    """``pose``, or the board one tile over (two cells along one side) when that fits more
    crosses and lies wholly in the frame. Tiles repeat every two cells: a fit a tile off
    still finds the crosses of the three rows of tiles it shares with the board (12 at
    most), which can beat a board in place under a hand, or pass alone (tune acrylic
    calibration photos of rigs 39, 43 and 45: fits a tile off with 12, 9 and 12 crosses,
    the board in place 16, 14 and 15).

    ``pose`` is fitted again where it is, as the shifted ones are (a search of 0.3 cell,
    arms taken ``ONE_TILE_ALONG``): a shift must fit more crosses than that fit, measured
    alike (the searches count crosses in several ways: tune acrylic calibration photo of
    rig 24, a fit a tile off counted 12, fitted again 10, the board in place 13). That fit
    does not replace ``pose``: fitted again, tune acrylic shot 66 (tiles laid far apart)
    found 12 crosses 0.8 cell off where ``pose`` had 10 at 0.2. When that fit fails,
    ``pose`` stays (nothing measured alike to beat). Nor may a shift show more sides with
    the same colour inside and out (:func:`_tiles_beyond`) than that fit: moved off the
    board, it takes table in on one side and leaves tiles beyond the other."""
    gray = _grey(bgr)
    if pose.inverted:
        gray = 255 - gray
    px = max(16, min(FULL_STAGES[-1][0], round(pose.cell_size_px())))

    def fit(sx: int, sy: int, min_seen: int = 0) -> BoardPose | None:
        moved = shifted_pose(pose, sx, sy)
        moved.k, moved.centre, moved.scale = pose.k, pose.centre, pose.scale
        other = refine_pose(
            gray, moved, px_per_cell=px, search=0.3, along=ONE_TILE_ALONG, min_seen=min_seen
        )
        ok = (
            other is not None
            and _in_frame(other, gray.shape)
            and squareness(other.H, gray.shape) <= MAX_SQUARENESS
        )
        return other if ok else None

    in_place = fit(0, 0)
    if in_place is None:  # no yardstick measured alike: a shift cannot show it fits more
        return pose
    best, most = pose, in_place.crosses_found
    table_sides = None  # sides of in_place with table-like colour inside and out, if needed
    for sx, sy in ((2, 0), (-2, 0), (0, 2), (0, -2)):
        if most >= len(CROSS_CENTRES):
            break  # every cross fitted: no shift can fit more
        # A shift must fit more than the best so far: seeing no more, it is not fitted.
        other = fit(sx, sy, min_seen=most + 1)
        if other is None or other.crosses_found <= most:
            continue
        # Nor may it show more sides alike inside and out (ONE_TILE_PX): a shift off the
        # board puts a column of table inside it, and the tiles it left beyond it.
        if table_sides is None:
            table_sides = _tiles_beyond_at(bgr, in_place, ONE_TILE_PX)
        if _tiles_beyond_at(bgr, other, ONE_TILE_PX) > table_sides:
            continue
        best, most = other, other.crosses_found
    return best


#: A board found in grey fitting fewer tile crosses than this on the full frame is weak: the
#: darkest channel is searched too, as when grey finds none, and the tiles while neither
#: found this many (tune: the mixed arts' 139 boards found fit 9-16, 83 of them all 16; an
#: acrylic shot's false fit on its coins, 0). 10, not 8 (localisation round 8): tune
#: acrylic boards a cell or a tile off fitted 8 and 9 (rig 39 shot 1 in grey, rig 29 shot 2
#: in the darkest channel) where the tiles' board fits 16 and 15 in place; on tune acrylic,
#: mixed and piecepackr rigs 0-34/0-49 the six boards this changed all moved nearer the
#: truth but one calibration photo (0.19 -> 0.21 cell).
WEAK_CROSSES = 10
#: ``find_board(thorough=True)`` takes the darkest channel's board only this near (cells,
#: every corner) to the grey one's (tune split: it put 4 calibration boards in place that
#: grey had 0.2-1.3 cell off; a checked cloth gave a false grid 4.8 cells away).
THOROUGH_CELLS = 1.5
#: Work width of a thorough search's second try (a calibration photo in which no board was
#: found at ``WORK_WIDTH``: tune acrylic rig 9, white 0.9 mm lines on pale tiles).
THOROUGH_WIDTH = 2 * WORK_WIDTH


def _darkest_of(bgr: np.ndarray) -> np.ndarray:
    """:func:`_darkest`, made once per :func:`find_board` call."""
    return _memo("darkest", bgr, lambda: _darkest(bgr))


def _darkest(bgr: np.ndarray) -> np.ndarray:
    """The frame's darkest channel per pixel, as a 3-channel picture.

    >>> _darkest(np.array([[[5, 9, 7], [200, 100, 150]]], np.uint8))[..., 0].tolist()
    [[5, 100]]
    """
    # numpy's min over the last axis took 80 ms of a 1080p frame
    d = functools.reduce(cv2.min, cv2.split(bgr)[:3])  # [:3]: a BGRA frame's alpha is no colour
    return cv2.merge([d, d, d])


def _find_board(
    bgr: np.ndarray,
    tile_color_lab: np.ndarray | None = None,
    inverted: bool | None = None,
    work_width: int = WORK_WIDTH,
    tone_first: bool = False,
) -> BoardPose:
    """Locate the board from scratch in the frame's grey.

    Candidates are found and checked on a downscaled frame (:func:`downscale`); only the
    best is refined at full resolution, where the lens term and each tile's shift and twist
    are fitted. Tiles with dark lines are tried first, then light lines on dark tiles (the
    picture inverted); ``inverted`` fixes the choice (a setup knows it). With
    ``tone_first`` (grey's search of a usual :func:`find_board`), a first polarity that
    finds no grid (not "cut off") lets the search by tone go ahead (:func:`_tone_first`)
    before the second: a board by tone shows no grid in either (tune checkered, 124 of 125
    frames), and the second cost a third of grey's search there.
    Raises :class:`BoardNotFound` when no board is in view or it is cut off by the frame.
    """
    if bgr.ndim != 3 or min(bgr.shape[:2]) < 64:
        raise BoardNotFound("no board in view: image too small")
    small, S = _downscaled(bgr, work_width)
    px = round(SMALL_PX * work_width / WORK_WIDTH)  # a cell's pixels scale with the frame
    found: list[tuple[float, BoardPose, str]] = []
    errors: list[BoardNotFound] = []
    cache = _outline_cache(small, tile_color_lab)  # what both polarities share
    if inverted is None:
        # Try first the polarity whose printed crosses stand out as separate blobs.
        blobs = {inv: _cross_blobs_of(_polarity(small, inv)) for inv in (False, True)}
        order = (True, False) if len(blobs[True]) > len(blobs[False]) else (False, True)
    else:
        blobs, order = {}, (inverted,)
    for inv in order:
        try:
            score, pose, convincing, kind = _find_small(
                small, _polarity(small, inv), tile_color_lab, inv, blobs.get(inv), cache, px
            )
        except BoardNotFound as e:
            errors.append(e)
            if tone_first and inv == order[0] and not isinstance(e, BoardCutOff):
                _tone_first(bgr, tile_color_lab, inverted)
            continue
        found.append((score, pose, kind))
        if convincing:
            break
        if inv == order[0] and pose.crosses_found >= 8 and len(blobs.get(not inv, ())) < 6:
            break  # most of a grid here, and no sign of crosses of the other polarity
    if not found:
        # "cut off" says more than "not found"; the dark-line pass speaks first otherwise.
        raise next((e for e in errors if isinstance(e, BoardCutOff)), errors[0])
    _, best, kind = max(found, key=lambda spk: spk[0])
    # Crosses seen as separate blobs do not run into the tile gaps: no lattice to confuse.
    return _refine_full(bgr, best, S, check_parity=kind not in ("crosses", "saddles"))


def _outline_cache(small: np.ndarray, tile_color_lab: np.ndarray | None) -> dict:
    """What :func:`_outline_candidates` keeps of a downscaled frame for both polarities of
    the lines (the colour outlines), kept for the :func:`find_board` call too: the search by
    tone asks the same of the same frame as grey's search by lines. Per tile colour tried
    first (a setup's; none from scratch)."""
    colour = None if tile_color_lab is None else tuple(np.ravel(tile_color_lab).tolist())
    return _memo(("outline cache", colour), small, dict)


def _find_by_tiles(
    bgr: np.ndarray, inverted: bool | None, work_width: int, every_stage: bool = False
) -> BoardPose:
    """Locate the board from whole tiles seen as blobs (:func:`_tile_outlines`), failing
    that from the nets of printed lines (by their four longest sides, then by any four of
    their longest: see the stages below), each outline refined on the full frame at once:
    thin light lines on pale tiles (a tenth of a cell under a pixel wide on the small frame)
    are too faint for the small frame's fits.
    Both line polarities unless ``inverted`` says; the board fitting the most crosses wins,
    if it fits at least ``TILE_CROSSES``. Raises :class:`BoardNotFound` otherwise.

    With ``every_stage``, the later stages are searched even after an earlier one found a
    board, the most crosses winning still: tile blobs merged with a gingham's light squares
    can outline a board whose fit covers only its upper tiles, the lower ones' crosses under
    the layout's coins (tune acrylic calibration photo of rig 1039: 11 crosses, 2.6 cells
    off, past the frame), where the nets of lines on the wider frame fit the board in place
    (14 crosses, 0.10 cell)."""
    small, S = _downscaled(bgr, work_width)
    best: BoardPose | None = None
    tried: list[np.ndarray] = []
    # The tiles on the small frame first; failing that, on a frame twice as wide, where tile
    # gaps a pixel wide on the small frame cut the tiles apart from each other and from a
    # checked cloth's light squares beside them. Only when the small frame shows tile-like
    # blobs at all: a frame without a board seldom does (tune: 1 of 12), and each outline
    # costs two full-frame fits.
    # Then the nets of lines on the wider frame, outlined by their sides (pale tiles and a
    # cloth whose light squares are a cell or a tile wide: tune acrylic, the tiles do not
    # come apart as blobs at either width; the lines a pixel or two wide do show). Also
    # only when the small frame shows tile-like blobs (every tune acrylic board found this
    # way does; the nets cost a refused frame about a fifth more, 25-35 ms).
    # Last, when neither found a board, the nets' outlines by any four of their sides
    # (:func:`_net_subset_outlines`): a hand or glare cuts a net short of the board. Also
    # without tile-like blobs when a net on the small frame has a square outline (tune
    # acrylic rig 37 shot 1: a hand over a third of the board, no tile blobs; refused
    # no-board frames about a tenth dearer, tune negatives 57 -> 63 ms median).
    families = 0
    for stage in (1, 2, 3):
        if stage == 1:
            quads, families = _tile_outlines(_polarities(small)[0])
            near = [0.4] * len(quads)
        elif (best is not None and not every_stage) or bgr.shape[1] < 1.5 * work_width:
            break
        elif not families and stage == 2:
            continue
        elif not families and not _square_net(small):
            break
        elif stage == 2:
            larger, S2 = _downscaled(bgr, 2 * work_width)
            larger_gray, larger_negative = _polarities(larger)
            tiles = _tile_outlines(larger_gray)[0]
            nets = _net_side_outlines(larger_gray) + _net_side_outlines(larger_negative)
            # Every net outline is fitted: two nets may outline one board a few pixels apart,
            # one in reach of a fit and the other not (tune acrylic rig 39 shot 0: 0.05 cell).
            near = [0.4] * len(tiles) + [0.0] * len(nets)
            quads = [_through_scale(q, S @ np.linalg.inv(S2)) for q in tiles + nets]
        else:
            quads = _net_subset_outlines(bgr, S, work_width)
            near = [0.1] * len(quads)  # the four longest sides' outlines were fitted already
        best = _fit_outlines(bgr, quads, near, tried, inverted, work_width, best)
    if best is None:
        raise BoardNotFound("no board in view: no 8x8 tile grid found")
    return best


def _square_net(small: np.ndarray) -> bool:
    """Whether a net of lines on ``small`` has an outline square under some camera."""
    gray, negative = _polarities(small)
    return bool(_net_side_outlines(gray) or _net_side_outlines(negative))


def _fit_outlines(
    bgr: np.ndarray,
    quads: list[np.ndarray],
    near: list[float],
    tried: list[np.ndarray],
    inverted: bool | None,
    work_width: int,
    best: BoardPose | None,
) -> BoardPose | None:
    """``best`` or the board fitting more crosses (:func:`_fit_from_tiles`, both polarities
    unless ``inverted`` says) from each outline of ``quads`` (pixels of the frame about
    ``work_width`` wide) not within its ``near`` cells of one ``tried`` (which it joins)."""
    small, S = _downscaled(bgr, work_width)
    for quad, cells in zip(quads, near, strict=True):
        if _near_any(quad, tried, cells):
            continue
        tried.append(quad)
        H0 = cv2.getPerspectiveTransform(
            CANONICAL_CORNERS.astype(np.float32), quad.astype(np.float32)
        )
        for inv in (False, True) if inverted is None else (inverted,):
            start = BoardPose(H0)
            start.inverted = inv
            pose = _fit_from_tiles(bgr, _grey(bgr), start, S, small, work_width)
            if pose is not None and (best is None or pose.crosses_found > best.crosses_found):
                best = pose
    return best


def _net_subset_outlines(bgr: np.ndarray, S: np.ndarray, work_width: int) -> list[np.ndarray]:
    """The outlines of :func:`_net_side_subsets` on the frame ``work_width`` wide (``S``: its
    scaling) and on one twice as wide, both polarities, in the first one's pixels."""
    quads = []
    for scale in (1, 2):
        picture, Sk = _downscaled(bgr, scale * work_width)
        for lines_dark in _polarities(picture):
            outlines = _net_side_subsets(lines_dark)
            quads += [_through_scale(q, S @ np.linalg.inv(Sk)) for q in outlines]
    return quads


def _through_scale(quad: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``quad`` (4, 2) through the 3x3 pixel map ``M`` (a scaling between two frames)."""
    return cv2.perspectiveTransform(quad.reshape(-1, 1, 2).astype(np.float64), M).reshape(-1, 2)


def _fit_from_tiles(
    bgr: np.ndarray,
    gray: np.ndarray,
    start: BoardPose,
    S: np.ndarray,
    small: np.ndarray,
    work_width: int,
) -> BoardPose | None:
    """The board fitted on the full frame from ``start`` (small-frame pixels, its
    ``inverted`` saying the lines' polarity), if it passes the checks of a board found from
    tile blobs: ``TILE_CROSSES`` crosses, square under some camera, an outer edge in place."""
    lines_dark = 255 - gray if start.inverted else gray
    # No grid near the outline (the first fit of _refine_full finds under six crosses): no
    # board, without the rest of that refinement (a frame without a board: a checked
    # cloth's squares give such outlines).
    full = BoardPose(np.linalg.inv(S) @ start.H)
    px_max, search = FULL_STAGES[0]
    px = max(16, min(px_max, round(full.cell_size_px())))
    if refine_pose(lines_dark, full, px_per_cell=px, search=search, along=TILE_ALONG) is None:
        return None
    try:
        pose = _refine_full(bgr, start, S, along=TILE_ALONG)
    except BoardNotFound:  # cut off by the frame edge
        return None
    # Once more from there, as the small frame's fits do: a tile blob's outline may start
    # the fit a third of a cell off, where some crosses lie beyond its search.
    px = max(16, min(FULL_STAGES[-1][0], round(pose.cell_size_px())))
    again = refine_pose(lines_dark, pose, px_per_cell=px, search=0.3, along=TILE_ALONG)
    if again is not None and again.crosses_found >= pose.crosses_found:
        pose = again
    if pose.crosses_found < TILE_CROSSES or squareness(pose.H, bgr.shape) > MAX_SQUARENESS:
        return None
    # A board's outer edge (tile to table) must show where the grid puts it on one side at
    # least: a checked cloth's squares, tile-like blobs on a lattice, gave a grid 2.4 cells
    # off fitting 11 crosses (tune acrylic shot 37 at 1280x720), and no edge. Pale tiles on
    # a pale table make a faint step, so any step in place counts (TILE_EDGE_PROMINENCE).
    spx = round(SMALL_PX * work_width / WORK_WIDTH)  # a cell's pixels on the small frame
    rect = cv2.cvtColor(scaled_pose(pose, S).rectify(small, spx, 0.5), cv2.COLOR_BGR2GRAY)
    edges = find_edges(rect, spx, 0.5, TILE_EDGE_PROMINENCE)
    if not (np.abs(np.nan_to_num(edges, nan=1.0)) < EDGE_IN_PLACE).any():
        return None
    return pose


#: How the fits from tile blobs take the cross arms (:func:`find_crosses`): "inside", as a
#: slope at the search band's end (a coin's rim, its white engraving) is no line; on the
#: mixed arts' frames the band's ends help the other fits (a French board on a checked
#: cloth was fitted a cell off without them), so those keep "low".
TILE_ALONG: Along = "inside"
#: Tile crosses a board found from tile blobs must fit on the full frame (tune, acrylic:
#: outlines a tile off fitted up to 8, boards in place 9-16).
TILE_CROSSES = 10
#: A board fitting this many tile crosses or fewer may be a fit one tile off, which finds
#: those of the three rows of tiles it shares with the board (:func:`_one_tile_over`); 13
#: or more rules it out.
ONE_TILE_OFF_CROSSES = 12
#: How :func:`_one_tile_over` takes the cross arms: "inside" (a line must peak inside the
#: band): taken "low", a coin's rim at the band's end counted as a line put tune acrylic
#: shot 39 (rig 9) a tile off (in place 9 crosses, a tile over 10; "inside": 12 and 10).
ONE_TILE_ALONG: Along = "inside"
#: Pixels per cell of the view in which :func:`_one_tile_over` compares the sides of a fit
#: and its shift (:func:`_tiles_beyond`). Tune acrylic calibration photo of rig 316 (glare
#: washing the east column of tiles out): in place 10 crosses and no side alike inside and
#: out, a tile west (half on the dark felt) 11 and two such sides.
ONE_TILE_PX = 16
#: How far a board edge's step must stand out of its band (MADs, :func:`find_edges`) for a
#: board found from tile blobs: pale tiles on a pale table step by a few grey levels over a
#: blurred pixel or two (tune acrylic rigs 13 and 19 on grey tables: 1.3-1.9 on every side,
#: the usual 3 refused the boards in place).
TILE_EDGE_PROMINENCE = 1.0


def _refine_full(
    bgr: np.ndarray,
    small_pose: BoardPose,
    S: np.ndarray,
    check_parity: bool = True,
    along: Along = FULL_ALONG,
) -> BoardPose:
    """The pose found on the downscaled frame, refined on the full frame (lens, tiles), and
    moved by a whole cell where :func:`lattice_shift` says (``check_parity``); cross arms
    taken ``along`` as in :func:`find_crosses`."""
    gray = _grey(bgr)
    if small_pose.inverted:
        gray = 255 - gray
    # The homography alone first: a plain warp (fast), and the coarse tile shifts measured
    # on the small frame are re-measured here anyway.
    pose = BoardPose(np.linalg.inv(S) @ small_pose.H)
    for px_max, search in FULL_STAGES:
        px = max(16, min(px_max, round(pose.cell_size_px())))
        pose = refine_pose(gray, pose, px_per_cell=px, search=search, along=along) or pose
    # Where crosses and tile gaps both run edge to edge the fit may sit a cell off.
    sx, sy = lattice_shift(bgr, gray, pose, PARITY_PX) if check_parity else (0, 0)
    if sx or sy:
        moved = shifted_pose(pose, sx, sy)
        moved.k, moved.centre, moved.scale = pose.k, pose.centre, pose.scale
        other = refine_pose(gray, moved, px_per_cell=px, search=0.3, along=along)
        slack = MOVE_CROSSES_SLACK if _table_left_behind(bgr, pose, sx, sy) else 0
        if other is not None and _no_fewer_crosses(gray, pose, other, px, along, slack):
            pose = other
    pose.tile_color_lab, pose.inverted = small_pose.tile_color_lab, small_pose.inverted
    check_in_frame(pose, gray.shape)
    return pose


def _no_fewer_crosses(
    gray: np.ndarray, pose: BoardPose, moved: BoardPose, px: int, along: Along, slack: int = 0
) -> bool:
    """Whether ``moved`` (``pose`` moved a cell and fitted again there, search 0.3) fits at
    least as many tile crosses as ``pose`` fitted again in place the same way, less
    ``slack``.

    The lattice parity (:func:`lattice_shift`) tells ink from tile gaps by colour; pale
    tiles with white lines on a pale table under glare show both alike, and it moved boards
    in place a cell off: tune acrylic calibration photos of rigs 86, 753, 792, 834, 836
    and 881 (fitted again in place 12-16 crosses, 0.1-0.2 cell off; moved 6-11, 1.1-2.3
    cells off; 834 stayed so and was refused as not showing the layout; no piecepackr or
    mixed photo had a move proposed). A cell off, the fit finds crosses only where a
    printed line meets a tile gap: on tune, fewer than the board's own."""
    here = refine_pose(gray, pose, px_per_cell=px, search=0.3, along=along)
    return here is None or moved.crosses_found + slack >= here.crosses_found


#: Crosses fewer than in place that a grid moved a cell may fit and still be taken, when
#: the move leaves table behind and takes tiles in (:func:`_table_left_behind`). Printplay
#: tiles (a printed border round each tile as well as its cross) show a cross at every cell
#: corner, table or not: the grid a cell off fitted 15 and 14 crosses, moved onto the board
#: 14 and 13 (tune printplay calibration photos of rigs 7, on a green gingham, and 31).
MOVE_CROSSES_SLACK = 1
#: How much more of the strip of cells a move takes in (and of the grid's inner strips,
#: their median) than of the strip it leaves behind must have the tiles' colour
#: (:func:`_table_left_behind`): pieces cover up to half of a row of the calibration
#: layout's tiles; a table alike to the tiles shows all strips alike. Tune printplay rigs
#: 7 (a green-and-white gingham left behind: 0.39 of its pixels tile-like, the column taken
#: in 0.68, the inner ones 0.58) and 31 (a wooden table: 0.0, 0.28 with four coins, 0.55).
TILE_SHARE_GAIN = 0.15
#: Lab distance (lightness at half weight) to the tiles' median colour under which a pixel
#: is of the tiles' colour (:func:`_table_left_behind`).
TILE_ALIKE_LAB = 10.0


def _table_left_behind(bgr: np.ndarray, pose: BoardPose, sx: int, sy: int) -> bool:
    """Whether moving ``pose`` by ``(sx, sy)`` cells takes in strips of cells (a column for
    ``sx``, a row for ``sy``) clearly more of the tiles' colour than those it leaves behind,
    which are also clearly less so than the grid's inner strips (``TILE_SHARE_GAIN``; the
    tiles' colour: the median of the middle six by six cells).
    Moved off a board in place, a grid leaves tiles behind; moved onto a board from a cell
    off, it leaves a strip of table behind (the lattice parity's shift is then no guess)."""
    px, margin = ONE_TILE_PX, 1.5
    lab = lab_image(pose.rectify(bgr, px, margin))
    m = round(margin * px)
    tile = np.median(lab[m + px : m + 7 * px, m + px : m + 7 * px].reshape(-1, 3), axis=0)
    inset = round(0.15 * px)

    def tile_share(lo: int, hi: int, axis: int) -> float:
        a, b = m + lo * px + inset, m + hi * px - inset
        strip = lab[m : m + N * px, a:b] if axis == 0 else lab[a:b, m : m + N * px]
        d = np.linalg.norm((strip.reshape(-1, 3) - tile) * (0.5, 1, 1), axis=1)
        return float((d < TILE_ALIKE_LAB).mean())

    for shift, axis in ((sx, 0), (sy, 1)):
        if not shift:
            continue
        left, taken = ((0, 1), (N, N + 1)) if shift > 0 else ((N - 1, N), (-1, 0))
        # Against the strips inside too: on a table of the tiles' colour, a board in place
        # moved off takes in a strip as tile-like as its own, and leaves one as its others.
        inner = np.median([tile_share(k, k + 1, axis) for k in range(1, N - 1)])
        least = min(tile_share(*taken, axis), float(inner))
        if least - tile_share(*left, axis) < TILE_SHARE_GAIN:
            return False
    return True


def _find_small(
    small: np.ndarray,
    gray: np.ndarray,
    tile_color_lab: np.ndarray | None,
    inverted: bool,
    cross_blobs: np.ndarray | None = None,
    cache: dict | None = None,
    px_per_cell: int = SMALL_PX,
) -> tuple[float, BoardPose, bool, str]:
    """Best board pose (pixels of the downscaled frame), its score, whether it settles the
    polarity (no need to try the other), for dark or light printed lines (``gray``, the
    small frame's grey with the lines dark: negated when ``inverted``), and the kind of
    outline it came from (see :func:`_outline_candidates`)."""
    best: BoardPose | None = None
    best_kind = ""
    cut_off = seen_any = False
    best_score = -np.inf
    convincing = plausible = False
    px = px_per_cell
    candidates = _outline_candidates(small, gray, tile_color_lab, cross_blobs, cache)
    tried: list[np.ndarray] = []  # outlines tried and where their fits ended
    for quad, colour, at_edge, kind in candidates:
        seen_any = True
        if _near_any(quad, tried):
            continue  # the same board again: its fit would end where an earlier one did
        H0 = cv2.getPerspectiveTransform(
            CANONICAL_CORNERS.astype(np.float32), quad.astype(np.float32)
        )
        pose = refine_pose(gray, BoardPose(H0), px_per_cell=px, search=0.6, fit_lens=False)
        if pose is None and kind == "lines":
            # Lines every cell: a search of 0.6 cell may catch gap corners and crosses.
            pose = refine_pose(gray, BoardPose(H0), px_per_cell=px, search=0.4, fit_lens=False)
        if pose is None:
            # Not remembered: a fit from an outline a few pixels off may still succeed
            # (tune rig 9's calibration photo: two such outlines, the second one fits).
            continue
        tried.append(quad)
        pose = refine_pose(gray, pose, px_per_cell=px, search=0.3, fit_lens=False) or pose
        tried.append(pose.corners)
        # A failed fit says "cut off" only when a grid was truly seen (CUT_OFF_CROSSES) and
        # runs past the frame: a part of a board wholly in view, fitted from an outline that
        # takes in some table out to the frame edge, is no board cut off.
        grid_seen = (
            pose.crosses_found >= CUT_OFF_CROSSES
            and not _in_frame(pose, gray.shape)
            and _lines_at_frame_edge(gray, pose, px) >= LINES_AT_EDGE
        )
        # The grid must explain the whole outline; a partial board fits crosses and gaps
        # at the wrong scale.
        if corner_gap(pose, quad) > 1.5:
            cut_off = cut_off or (at_edge and grid_seen)
            continue
        # A part of a board can fit the grid at the wrong scale; a whole board is square.
        if squareness(pose.H, gray.shape) > MAX_SQUARENESS:
            cut_off = cut_off or (at_edge and grid_seen)
            continue
        if not _in_frame(pose, gray.shape):
            cut_off = cut_off or grid_seen
            continue
        pose.tile_color_lab = colour()
        pose.inverted = inverted
        # The board's outer edges settle which placement is right when a whole row of
        # crosses is hidden (the seen crosses then fit two placements equally well).
        rect = pose.rectify(small, px, 0.5)
        edges = find_edges(cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY), px, 0.5)
        edges_ok = int((np.abs(np.nan_to_num(edges, nan=1.0)) < EDGE_IN_PLACE).sum())
        # Tile gaps are edges too, so also: beyond a true edge lies table, not more tiles.
        tiles_beyond = int((_tiles_beyond(rect, px, 0.5) & _sides_seen(pose, small.shape)).sum())
        score = pose.crosses_found + 2 * edges_ok - 3 * tiles_beyond
        if score > best_score:
            best, best_score, best_kind = pose, score, kind
        # Enough of the grid to rule out a placement one tile off (that would leave a
        # whole row of four crosses unseen), or most of it with the board's edges agreeing
        # and nothing tile-like beyond: the remaining candidates could only tie.
        convincing = pose.crosses_found >= 13 or (
            tiles_beyond == 0
            and (
                (pose.crosses_found >= 10 and edges_ok >= 3)
                or (pose.crosses_found >= 8 and edges_ok == 4)
            )
        )
        # A board in this polarity for sure (the other need not be tried).
        plausible = plausible or (pose.crosses_found >= 8 and edges_ok >= 3 and tiles_beyond == 0)
        if convincing:
            break
    if not seen_any:
        raise BoardNotFound("no board in view: no tile-coloured region large enough")
    if best is None:
        if cut_off:
            raise _cut_off()
        raise BoardNotFound("no board in view: no 8x8 tile grid found")
    return float(best_score), best, convincing or plausible, best_kind


def line_segments(
    ridge: np.ndarray, px_per_cell: int, margin_cells: float, lines, cells=(0, N)
) -> np.ndarray:
    """Whether a line shows (1.0) or not (0.0) along each of the 8 cell-long segments of
    each grid line.

    ``ridge`` is a rectified ridge map (:func:`_ridge_map`); ``lines`` are grid-line indices
    (0 and 8 are the board's sides, odd ones the tile crosses, even ones tile gaps; indices
    beyond 0-8 look at the table). Returns ``(2, len(lines))``: vertical lines (x), then
    horizontal (y), ``(2, len(lines), cells)``. Each segment is the middle of a cell's side,
    where no crossing line interferes; a line counts there when its ridge peaks within 0.15
    cell of the grid line. ``cells`` (first, end) picks the cells along the lines (default
    the board's 8; cells beyond it lie on the table).

    >>> r = np.zeros((160, 160), np.float32)
    >>> r[:, 40] = r[40, :] = 50.0  # grid line 2 at 16 px per cell, margin 0.5 cell
    >>> line_segments(r, 16, 0.5, [1, 2, 3]).mean(axis=2).tolist()
    [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    """
    S, m = px_per_cell, round(margin_cells * px_per_cell)
    b = max(2, round(0.3 * S))
    a0, a1 = round(0.2 * S), round(0.8 * S)
    pos = m + np.asarray(lines) * S  # line positions in rectified pixels
    span = pos[:, None] + np.arange(-b, b + 1)  # (lines, band)
    c0, c1 = m + cells[0] * S, m + cells[1] * S
    n = cells[1] - cells[0]
    # Vertical lines: each cell row's middle rows summed -> (cells, width), then each band.
    segs_v = ridge[c0:c1].reshape(n, S, -1)[:, a0:a1].sum(axis=1)
    segs_h = ridge[:, c0:c1].reshape(-1, n, S)[:, :, a0:a1].sum(axis=2).T
    prof = np.concatenate([segs_v[:, span], segs_h[:, span]], axis=1)  # (n, 2*lines, band)
    prof = prof.transpose(1, 0, 2).reshape(-1, 2 * b + 1).astype(np.float32)
    peak, prom = _peaks(prof)
    seen = (prom > 4.0) & (np.abs(peak - b) <= 0.15 * S)
    return seen.reshape(2, len(pos), n).astype(np.float64)


def _line_colours(
    lab: np.ndarray, gray: np.ndarray, px_per_cell: int, margin_cells: float, lines
) -> np.ndarray:
    """Lab colour of each grid line along each of its 8 cell-long segments: the median over
    the segment of the darkest pixel within 0.15 cell of the line. ``(2, lines, 8, 3)``:
    vertical lines, then horizontal; ``lab`` and ``gray`` are the same rectified view."""
    S, m = px_per_cell, round(margin_cells * px_per_cell)
    b = max(1, round(0.15 * S))
    a0, a1 = round(0.2 * S), round(0.8 * S)
    span = (m + np.asarray(lines) * S)[:, None] + np.arange(-b, b + 1)  # (lines, band)
    out = []
    for g, c in ((gray, lab), (gray.T, lab.transpose(1, 0, 2))):
        g = g[m : m + N * S].reshape(N, S, -1)[:, a0:a1][:, :, span]  # (8, rows, lines, band)
        c = c[m : m + N * S].reshape(N, S, -1, 3)[:, a0:a1][:, :, span]
        j = g.argmin(axis=-1)[..., None, None]
        darkest = np.take_along_axis(c, j, axis=3)[:, :, :, 0]  # (8, rows, lines, 3)
        out.append(np.median(darkest, axis=1).transpose(1, 0, 2))  # (lines, 8, 3)
    return np.asarray(out)


def _table_colour(lab: np.ndarray, px_per_cell: int, margin_cells: float) -> np.ndarray:
    """Median Lab of a ring 0.3-1.2 cells outside the board in a rectified view."""
    S, m = px_per_cell, round(margin_cells * px_per_cell)
    a, b = round(0.3 * S), round(1.2 * S)
    n = N * S
    ring = [
        lab[m - b : m - a, m - a : m + n + a],
        lab[m + n + a : m + n + b, m - a : m + n + a],
        lab[m - a : m + n + a, m - b : m - a].transpose(1, 0, 2),
        lab[m - a : m + n + a, m + n + a : m + n + b].transpose(1, 0, 2),
    ]
    return np.median(np.concatenate([r.reshape(-1, 3) for r in ring]), axis=0)


def _lab_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Lab distance with lightness weighed half (light varies across a photo more than hue)."""
    return float(np.linalg.norm((np.asarray(a) - b) * (0.5, 1, 1)))


#: The odd grid lines must look this much more like the table than the even ones (Lab units)
#: for the grid to count as one cell off.
PARITY_MARGIN = 8.0
#: ... and the grid one cell one way must find this many more crosses than the other way.
CROSSES_MARGIN = 2
#: ... chosen first by what lies beyond its sides: one way must have this many fewer grid
#: lines running on beyond its worst side than the other way (of seven).
BEYOND_MARGIN = 3


def lattice_shift(
    bgr: np.ndarray, gray: np.ndarray, pose: BoardPose, px_per_cell: int = 16
) -> tuple[int, int]:
    """Whole-cell shift ``(sx, sy)`` (each -1, 0 or 1) that puts ``pose``'s grid on the board.

    When crosses and tile gaps both run edge to edge the line lattice repeats every cell,
    and a fit can land one cell off. ``gray`` has the printed lines dark. Two steps:

    * **parity**: the printed cross lines (odd grid lines) are ink; a tile gap (even lines)
      shows the table between the tiles. When the odd lines look clearly more like the
      table around the board than the even lines do, the grid is one cell off along that
      axis;
    * **direction**: of the grids one cell either way, the one beyond whose sides no grid
      line runs on (the other has a row of tiles beyond one side); failing that, the one
      finding more tile crosses (the other expects a row of them on the table).

    A shift that shows more sides alike inside and out than the grid as it is (table taken
    in, tiles left beyond) is not made (:func:`_unless_table_taken_in`).
    """
    S, m = px_per_cell, 2.0
    rect = pose.rectify(bgr, S, m)
    rgray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
    if pose.inverted:
        rgray = 255 - rgray  # lines dark, as in ``gray``
    lab = lab_image(rect)
    table = _table_colour(lab, S, m)
    seen = line_segments(_ridge_map(rgray, S), S, m, range(1, 8)) > 0
    cols = _line_colours(lab, rgray, S, m, range(1, 8))
    options = []
    for ax in range(2):
        odd, even = cols[ax, 0::2][seen[ax, 0::2]], cols[ax, 1::2][seen[ax, 1::2]]
        wrong = False
        if len(odd) >= 6 and len(even) >= 6:  # else unknown: keep the grid as it is
            d_odd = _lab_distance(np.median(odd, axis=0), table)
            d_even = _lab_distance(np.median(even, axis=0), table)
            wrong = d_odd < d_even - PARITY_MARGIN
        options.append((-1, 1) if wrong else (0,))
    if options == [(0,), (0,)]:
        return 0, 0
    # Beyond the right grid lies table, where no grid line goes on; one cell too far, the
    # lines run on through a row of tiles. Lines of the whole view, in cells -2 to 9.
    ridge = _ridge_map(rgray, S)
    runs = line_segments(ridge, S, m, range(0, 9), cells=(-2, N + 2))  # [ax, line, cell + 2]
    beyond = {}
    for sx in options[0]:
        for sy in options[1]:
            xs, ys = slice(sx + 1, sx + 8), slice(sy + 1, sy + 8)  # its inner lines
            beyond[sx, sy] = max(
                runs[0, xs, sy + 1].sum(), runs[0, xs, sy + 10].sum(),  # rows beyond N, S
                runs[1, ys, sx + 1].sum(), runs[1, ys, sx + 10].sum(),  # columns beyond W, E
            )  # fmt: skip
    ranked = sorted(beyond, key=beyond.get)
    if beyond[ranked[1]] - beyond[ranked[0]] >= BEYOND_MARGIN:
        return _unless_table_taken_in(bgr, pose, ranked[0])
    # No lines seen either way (pieces on the edge row): the grid finding more crosses.
    found = {}
    for sx, sy in beyond:
        _, ok, _ = measure_crosses(gray, shifted_pose(pose, sx, sy), S, 0.3)
        found[sx, sy] = int(ok.sum())
    ranked = sorted(found.values(), reverse=True)
    if ranked[0] - ranked[1] < CROSSES_MARGIN:
        return 0, 0  # the outline does not settle which way: leave it
    return _unless_table_taken_in(bgr, pose, max(found, key=found.get))


def _unless_table_taken_in(
    bgr: np.ndarray, pose: BoardPose, shift: tuple[int, int]
) -> tuple[int, int]:
    """``shift``, or ``(0, 0)`` when the grid moved by it shows more sides with the same
    colour just inside and out (:func:`_tiles_beyond`) than ``pose`` itself: moved off the
    board, a grid takes a column of table in on one side and leaves a column of tiles
    beyond the other. Tune acrylic calibration photo of rig 327 (pale blue tiles with white
    lines on a pale grey table): the parity read the board in place as a cell off, and a
    cell east (two such sides, in place none) fitted 10 crosses where in place fitted 13."""

    def moved_by(sx: int, sy: int) -> BoardPose:
        moved = shifted_pose(pose, sx, sy)
        moved.k, moved.centre, moved.scale = pose.k, pose.centre, pose.scale
        return moved

    def alike(moved: BoardPose) -> int:
        return _tiles_beyond_at(bgr, moved, ONE_TILE_PX)

    moved = moved_by(*shift)
    if not _in_frame(moved, bgr.shape):
        # Past the frame its sides show the photo's edge repeated, alike inside and out: a
        # board cut off is the frame check's to refuse (tune renderer cut-off negative 36:
        # vetoed, the part in view was taken for a board).
        return shift
    return (0, 0) if alike(moved) > alike(moved_by(0, 0)) else shift


def _side_strips(
    lab: np.ndarray, px_per_cell: int, margin_cells: float, sx: int, sy: int
) -> list[np.ndarray]:
    """The strips 0.15-0.85 cell beyond the four sides of the grid moved by ``(sx, sy)``
    cells, along its middle six cells, in a view rectified with ``margin_cells``."""
    S, m = px_per_cell, round(margin_cells * px_per_cell)
    x0, y0 = m + sx * S, m + sy * S
    x1, y1 = x0 + N * S, y0 + N * S
    a, b = round(0.15 * S), round(0.85 * S)
    return [
        lab[y0 - b : y0 - a, x0 + S : x1 - S],
        lab[y1 + a : y1 + b, x0 + S : x1 - S],
        lab[y0 + S : y1 - S, x0 - b : x0 - a],
        lab[y0 + S : y1 - S, x1 + a : x1 + b],
    ]


def shifted_pose(pose: BoardPose, sx: int, sy: int) -> BoardPose:
    """``pose`` moved by whole cells on the board (homography only; refit the rest)."""
    T = np.array([[1, 0, sx], [0, 1, sy], [0, 0, 1]], float)
    new = BoardPose(pose.H @ T)
    new.tile_color_lab, new.inverted = pose.tile_color_lab, pose.inverted
    return new


def _near_any(quad: np.ndarray, others: list[np.ndarray], cells: float = 0.4) -> bool:
    """Whether ``quad``'s corners lie within ``cells`` (median, any quarter turn) of those
    of one of ``others``."""
    if not others:
        return False
    cell = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1).mean() / N
    turns = np.stack([np.roll(np.asarray(others), k, axis=1) for k in range(4)], axis=1)
    gaps = np.median(np.linalg.norm(turns - quad, axis=-1), axis=-1)  # (others, turns)
    return bool(gaps.min() < cells * cell)


def _tiles_beyond(rect_bgr: np.ndarray, px: int, margin: float) -> np.ndarray:
    """Which board sides (N, E, S, W) have tile-like colour just beyond them.

    Compares a strip outside each side (0.1-0.4 cells out) with the strip just inside;
    when the table has the tiles' colour every side looks alike and all score the same.
    Past the frame the rectification repeats the photo's edge, so a board reaching the
    frame's edge shows its own tiles repeated beyond that side, tile-like though nothing
    there is seen: count only the sides seen (:func:`_sides_seen`, :func:`_tiles_beyond_at`).

    >>> rect = np.full((80, 80, 3), 200, np.uint8)  # 8 px per cell, 0.5 cell of margin
    >>> rect[:4] = 40  # dark table beyond the north side only
    >>> _tiles_beyond(rect, 8, 0.5).tolist()
    [False, True, True, True]
    """
    lab = lab_image(rect_bgr)
    m, n = round(margin * px), N * px
    a, b = round(0.1 * px), round(0.4 * px)
    lo, hi = m + px, m + 7 * px
    strips = [
        (lab[m - b : m - a, lo:hi], lab[m + a : m + b, lo:hi]),  # north
        (lab[lo:hi, m + n + a : m + n + b], lab[lo:hi, m + n - b : m + n - a]),  # east
        (lab[m + n + a : m + n + b, lo:hi], lab[m + n - b : m + n - a, lo:hi]),  # south
        (lab[lo:hi, m - b : m - a], lab[lo:hi, m + a : m + b]),  # west
    ]
    alike = []
    for outside, inside in strips:
        o = median_colour(outside.reshape(-1, 3))
        i = median_colour(inside.reshape(-1, 3))
        diff = o - i
        alike.append(bool(np.sqrt(0.25 * diff[0] ** 2 + diff[1] ** 2 + diff[2] ** 2) < 6.0))
    return np.array(alike)


def _sides_seen(pose: BoardPose, shape: tuple[int, ...]) -> np.ndarray:
    """Which sides of ``pose`` (N, E, S, W) have the strip :func:`_tiles_beyond` looks at
    beyond them wholly in a frame of ``shape``.

    >>> pose = BoardPose(np.array([[40.0, 0, 100], [0, 40.0, 20], [0, 0, 1]]))
    >>> _sides_seen(pose, (500, 425)).tolist()  # north 0.5 cells from the top, east flush
    [True, False, True, True]
    """
    h, w = shape[:2]
    along = np.linspace(1.0, 7.0, 7)
    out = np.full(7, -0.4)
    far = np.full(7, N + 0.4)
    sides = [(along, out), (far, along), (along, far), (out, along)]
    seen = []
    for x, y in sides:
        p = pose.to_image(np.stack([x, y], -1))
        seen.append(bool(((p >= 0) & (p <= [w - 1, h - 1])).all()))
    return np.array(seen)


def _tiles_beyond_at(image: np.ndarray, pose: BoardPose, px: int) -> int:
    """:func:`_tiles_beyond` of ``pose`` rectified from ``image`` at ``px`` per cell, over
    the sides whose strip beyond lies in the frame."""
    rect = pose.rectify(image, px, 0.5)
    return int((_tiles_beyond(rect, px, 0.5) & _sides_seen(pose, image.shape)).sum())


def find_edges(
    gray: np.ndarray, px_per_cell: int, margin_cells: float, min_prominence: float = 3.0
) -> np.ndarray:
    """Offset (cells, NaN if unclear) of each board side (N, E, S, W) in a rectified board.

    The board's outer edge is a step from tile to table; each side is measured as the
    strongest step across a band of +-0.4 cells, along the middle six cells of that side.
    It counts when it is a real step (a mean gradient over 40) standing out of the band by
    more than ``min_prominence`` (in MADs, see :func:`_peaks`).
    """
    S = px_per_cell
    m = round(margin_cells * S)
    band = int(0.4 * S)
    lo, hi = m + S, m + 7 * S
    far = m + N * S

    def step(rows: slice, cols: slice, dx: int, dy: int) -> np.ndarray:
        # Sobel on the band alone (one pixel of context each way), not the whole board.
        r0, c0 = rows.start - 1, cols.start - 1
        patch = gray[r0 : rows.stop + 1, c0 : cols.stop + 1].astype(np.float32)
        return np.abs(cv2.Sobel(patch, cv2.CV_32F, dx, dy, ksize=3))[1:-1, 1:-1]

    profiles = [
        step(slice(m - band, m + band + 1), slice(lo, hi), 0, 1).sum(axis=1),  # north
        step(slice(lo, hi), slice(far - band, far + band + 1), 1, 0).sum(axis=0),  # east
        step(slice(far - band, far + band + 1), slice(lo, hi), 0, 1).sum(axis=1),  # south
        step(slice(lo, hi), slice(m - band, m + band + 1), 1, 0).sum(axis=0),  # west
    ]
    profiles = np.asarray(profiles) / (hi - lo)  # mean gradient along the side
    pos, prom = _peaks(profiles)
    off = (pos - band) / S
    strong = (profiles.max(axis=1) > 40.0) & (prom > min_prominence)  # a tile/table step
    return np.where(strong, off, np.nan)


def lines_beyond(
    ridge: np.ndarray,
    px_per_cell: int,
    margin_cells: float,
    band: tuple[float, float] = (0.05, 0.45),
) -> np.ndarray:
    """How many of the board's seven inner grid lines run on beyond each side (N, E, S, W)
    of a rectified ridge map (:func:`_ridge_map`) with at least ``band[1]`` cell of margin,
    seen in the ``band`` of cells beyond the side.

    Beyond a board in place lies table, where no grid line goes on; a board bumped by a
    whole cell or two puts a row of tiles there, whose lines do.

    >>> r = np.zeros((160, 160), np.float32)
    >>> r[:, 24::16] = 50.0  # vertical lines every cell, into the margins (0.5 cell)
    >>> lines_beyond(r, 16, 0.5).astype(int).tolist()
    [7, 0, 7, 0]
    """
    S, m = px_per_cell, round(margin_cells * px_per_cell)
    n = N * S
    a, b = round(band[0] * S), round(band[1] * S)
    w = max(2, round(0.3 * S))
    span = (np.arange(1, N) * S + m)[:, None] + np.arange(-w, w + 1)  # (7 lines, band)
    strips = [
        ridge[m - b : m - a].sum(axis=0),  # north: vertical lines running up
        ridge[:, m + n + a : m + n + b].sum(axis=1),  # east: horizontal lines
        ridge[m + n + a : m + n + b].sum(axis=0),  # south
        ridge[:, m - b : m - a].sum(axis=1),  # west
    ]
    prof = np.stack([st[span] for st in strips]).reshape(-1, 2 * w + 1).astype(np.float32)
    peak, prom = _peaks(prof)
    seen = (prom > 4.0) & (np.abs(peak - w) <= 0.15 * S)
    return seen.reshape(4, N - 1).sum(axis=1)


def rows_beyond(ridge: np.ndarray, px_per_cell: int, margin_cells: float, out: float) -> np.ndarray:
    """Whether a line along each side (N, E, S, W) of a rectified ridge map
    (:func:`_ridge_map`) runs ``out`` cells beyond it, over the middle six cells of the side:
    the next row of a board's cells (printed lines and tile gaps lie on every cell side),
    where the grid runs on; not grain or lines running out from the board, which cross it.

    The ridge is taken along the side at its median, so that lines crossing the strip (the
    grid's own, running on) and pieces over a part of it do not make a line along it.

    >>> r = np.zeros((192, 192), np.float32)  # 16 px per cell, 2 cells of margin
    >>> r[::16] = 50.0  # lines along the rows, every cell out to the picture's edge
    >>> r[:, ::16] = 50.0  # lines across them
    >>> r[:, 161:] = 0.0  # east of the board: nothing
    >>> rows_beyond(r, 16, 2.0, 1.0).tolist(), rows_beyond(r, 16, 2.0, 1.5).tolist()
    ([True, False, True, True], [False, False, False, False])
    """
    S, m = px_per_cell, round(margin_cells * px_per_cell)
    n, c = N * S, round(out * S)
    w = max(2, round(0.45 * S))  # wide: a thick line (a French board's) is no outlier in 0.6
    lo, hi = m + S, m + 7 * S
    near, far = m - c, m + n + c  # where the line lies: before and after the board
    profiles = [
        np.median(ridge[near - w : near + w + 1, lo:hi], axis=1),  # north
        np.median(ridge[lo:hi, far - w : far + w + 1], axis=0),  # east
        np.median(ridge[far - w : far + w + 1, lo:hi], axis=1),  # south
        np.median(ridge[lo:hi, near - w : near + w + 1], axis=0),  # west
    ]
    peak, prom = _peaks(np.stack(profiles).astype(np.float32))
    return (prom > 4.0) & (np.abs(peak - w) <= 0.2 * S)


def _past_frame(gray: np.ndarray, px_per_cell: int, margin_cells: float) -> np.ndarray:
    """Which margins (N, E, S, W) of a rectified view lie mostly past the photo's edge.

    There the rectification repeats the photo's last row or column (``BORDER_REPLICATE``),
    so the printed lines seem to run on; rows next to each other are then all but equal,
    where a real table shows at least its sensor noise.
    """
    m, n = round(margin_cells * px_per_cell), N * px_per_cell
    g = gray.astype(np.float32)
    margins = (g[:m], g[:, m + n :].T, g[m + n :], g[:, :m].T)
    steps = [float(np.median(np.abs(np.diff(r, axis=0)).mean(axis=1))) for r in margins]
    return np.asarray(steps) < 0.5


def _cross_line_peaks(
    ridge: np.ndarray, px_per_cell: int, margin_px: int, sw: int, along: Along = "sum"
) -> tuple[np.ndarray, np.ndarray]:
    """Peak position (0..2 sw, ``sw`` where the lock puts it) and prominence of the two lines
    of each tile cross, each line's ridge taken over its whole tile, searched ``sw`` pixels
    each way: (32,) each, vertical lines of crosses 0..15 (4j + i) then horizontal ones.
    ``along`` is how the ridge is taken along the tile: ``"sum"``, or ``"low"``, its lower
    ``ARM_QUANTILE`` (a printed line runs the tile's whole length; a coin's rim or engraving
    crosses a part of it, however strong)."""
    S, m = px_per_cell, margin_px
    span = np.arange(-sw, sw + 1)
    centre = (np.arange(4) * 2 + 1) * S  # cross lines, x (columns) or y (rows), board pixels
    board = ridge[m : m + N * S, m : m + N * S]
    at = (centre[:, None] + span).ravel()  # the places looked at, 4 lines x (2 sw + 1)
    if along == "low":
        # Only the places looked at are partitioned (a quarter of the board's width).
        kth = int(ARM_QUANTILE * (2 * S - 1))
        cols = np.partition(board[:, at].reshape(4, 2 * S, -1), kth, axis=1)[:, kth]
        rows = np.partition(board[at].reshape(len(at), 4, 2 * S), kth, axis=2)[..., kth]
        prof_x = cols.reshape(16, -1)  # cross 4j + i: tile row j, line i
        prof_y = rows.reshape(4, -1, 4).transpose(0, 2, 1).reshape(16, -1)
        return _peaks(np.concatenate([prof_x, prof_y]).astype(np.float32))
    # Vertical lines: each tile row's band summed down its rows -> (4 rows, width).
    cols = board.reshape(4, 2 * S, N * S).sum(axis=1)
    prof_x = cols[:, centre[:, None] + span].reshape(16, -1)  # cross 4j + i
    # Horizontal lines: each tile column's band summed along -> (height, 4 columns).
    rows = board.reshape(N * S, 4, 2 * S).sum(axis=2)
    prof_y = rows[centre[:, None] + span].transpose(0, 2, 1).reshape(16, -1)
    return _peaks(np.concatenate([prof_x, prof_y]).astype(np.float32))


def _lines_shifted(ridge: np.ndarray, px_per_cell: int, margin_px: int, moved_cells: float) -> bool:
    """Whether grid lines show in most tiles (10 of 16) within 0.6 cell of each cross's two
    lines, all at one offset (within 0.1 cell) of more than ``moved_cells``.

    When the lock sees few crosses, a hand may hide them or the board may have slid by about
    half a cell, its lines falling between the places looked at; the lines beside those
    places tell the two apart (printed lines run every cell, so one within 0.6 cell shows).
    """
    S = px_per_cell
    sw = int(0.6 * S)
    pos, prom = _cross_line_peaks(ridge, S, margin_px, sw)
    ok = (prom[:16] > 4.0) & (prom[16:] > 4.0)
    if ok.sum() < 10:
        return False
    off = np.stack([pos[:16], pos[16:]], axis=1)[ok] - sw
    med = np.median(off, axis=0)
    agree = np.abs(off - med).max(axis=1) < 0.1 * S
    return bool(agree.sum() >= 10 and np.hypot(*med) > moved_cells * S)


def check_lock(
    gray: np.ndarray,
    px_per_cell: int,
    margin_cells: float,
    moved_cells: float = 0.15,
    drift_cells: float = 0.04,
    search: float = 0.3,
) -> tuple[str, int, np.ndarray | None]:
    """Whether a locked pose still fits: ``'ok'``, ``'drift'`` (follow it), ``'moved'`` (find
    the board again) or ``'lost'``; the crosses seen; their offsets (cells).

    ``gray`` is the board rectified by the locked pose (lines dark) at ``px_per_cell`` with
    ``margin_cells``. Each tile cross is measured as two line positions, each the peak of the
    line's ridge summed over its whole tile (a few array operations for all 16 tiles, where
    :func:`find_crosses` measures 64 arms one by one: two to three times faster). Crosses
    repeat every two cells and tile gaps look like lines too, so a bump by about a cell can
    still land on lines: the board's outer edges must stay put as well (:func:`find_edges`),
    and no row of grid lines may run on beyond a side (:func:`lines_beyond`).
    When a bump of about half a cell puts every line between the places looked at, few
    crosses show, as under a hand: the edges tell the two apart. A hand leaves a side of the
    board bare, where ``LINES_BEYOND`` of its lines show just inside: with none, the edges in
    place are a table's pattern (a checked cloth) where the board was, and it "moved".
    """
    S, m = px_per_cell, round(margin_cells * px_per_cell)
    ridge = _ridge_map(gray, S)
    sw = int(search * S)
    pos, prom = _cross_line_peaks(ridge, S, m, sw, LOCK_ALONG)
    seen_xy = prom > 4.0
    ok = seen_xy[:16] & seen_xy[16:]
    seen = int(ok.sum())
    edges = find_edges(gray, S, margin_cells)
    found = ~np.isnan(edges)
    off_sides = found & (np.abs(np.nan_to_num(edges)) > moved_cells)
    if ok.sum() >= LOCK_SPREAD_CROSSES:
        pos_ok = np.hypot(pos[:16] - sw, pos[16:] - sw)[ok] / S
        if np.median(pos_ok) <= drift_cells:
            # Every cross in place: a board that moved moves both sides of an axis one way;
            # two sides "off" apart (a shadow or a hand's edge beyond a tile, a bevel) are
            # no move unless their middle moved (tune acrylic rig 37: all 16 crosses within
            # 0.01 cell, east and west sides at +0.32 and -0.18).
            for a, b in ((0, 2), (1, 3)):
                if found[a] and found[b] and edges[a] * edges[b] < 0:
                    moved_pair = abs(edges[a] + edges[b]) / 2 > moved_cells
                    off_sides[a] = off_sides[b] = moved_pair
    edges_off = int(off_sides.sum())
    edges_bad = edges_off >= 2 or int((~found).sum()) >= 3
    # A bump by a whole cell or two lands lines on lines; beyond one side then lie tiles,
    # whose lines run on where the table has none.
    beyond = lines_beyond(ridge, S, margin_cells)
    if beyond.max() >= LINES_BEYOND:  # unless those margins lie past the photo's edge
        beyond = np.where(_past_frame(gray, S, margin_cells), 0, beyond)
    edges_bad = edges_bad or bool(beyond.max() >= LINES_BEYOND)
    if seen < 4:
        # Too few crosses to judge: a hand over the board if its edges are still in place,
        # else the board (or camera) moved half a cell or so: lines fall between the looks.
        if seen == 0 and not found.any():
            return "lost", seen, None
        # Lines at one common offset across most tiles: the board slid, no hand does that.
        if _lines_shifted(ridge, S, m, moved_cells):
            return "moved", seen, None
        # Both sides across one axis gone as well: the board slid along it (a hand big
        # enough to hide both leaves nothing to read anyway).
        across = (not found[0] and not found[2]) or (not found[1] and not found[3])
        if edges_bad or across:
            return "moved", seen, None
        # A hand hides the crosses, not the board's lines where they meet a side it leaves
        # bare: no side showing LINES_BEYOND of them just inside is no board in place, but
        # steps of a table's pattern where its edges were (tune cut-off negatives 36-39 and
        # 112-115, read with their rig's setup: a checked cloth's squares seen as two edges
        # in place, 0-2 crosses, 0-2 lines inside any side, were taken for a hand; every
        # cut-off negative 0-119 under 4 crosses showed at most 3).
        inside = lines_beyond(ridge, S, margin_cells, (-0.45, -0.05))
        return ("ok" if inside.max() >= LINES_BEYOND else "moved"), seen, None
    off = np.hypot(pos[:16] - sw, pos[16:] - sw)[ok] / S
    med = float(np.median(off))
    if med > moved_cells or edges_bad:
        return "moved", seen, off
    return ("drift" if med > drift_cells else "ok"), seen, off


#: Share of a grid's cell sides within a cell of the frame's edge that must show a line for
#: the grid to be a board running out of the frame (the reviewer, thirteenth session: tune
#: cut-off negatives 0-79 0.19-1.0; real photos of a 9x6 chessboard wholly in view, fitted
#: as a diagonal grid over its squares' corners, 0-0.12).
LINES_AT_EDGE = 0.15


def _lines_at_frame_edge(gray: np.ndarray, pose: BoardPose, px: int) -> float:
    """Share of the grid's cell-side segments within a cell of the frame's edge (and in the
    frame) that show a line: a board cut off by the frame shows its lines up to the edge."""
    ridge = _ridge_map(pose.rectify(gray, px, 0.5), px)
    seg = line_segments(ridge, px, 0.5, list(range(N + 1)))  # (2, 9, 8): x = k, y = k
    xv, yv = np.meshgrid(np.arange(N + 1.0), np.arange(N) + 0.5, indexing="ij")
    vertical = np.stack([xv, yv], -1).reshape(-1, 2)
    pts = np.concatenate([vertical, vertical[:, ::-1]])
    p = pose.to_image(pts)
    h, w = gray.shape[:2]
    edge = np.minimum.reduce([p[:, 0], p[:, 1], w - 1 - p[:, 0], h - 1 - p[:, 1]])
    near = (edge >= 0) & (edge < pose.cell_size_px())
    return float(seg.reshape(-1)[near].mean()) if near.any() else 0.0
