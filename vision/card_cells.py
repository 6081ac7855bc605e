"""Cell-by-cell reading of a rectified card grid: mark + shaded, with a confidence.

Input is a grid resampled by :func:`piecebridge.vision.card.remap_grid` (every
cell ``CELL_PX`` square, a margin around). What the network sees is chosen to
survive other pencils and other cameras (:func:`cell_maps`):

* darkness is measured *relative to the paper around the cell* (uneven light,
  shadows and exposure divide out);
* the pencil layer is split into a smooth part (shading: what a grey closing
  keeps) and a thin part (strokes), and the printed lines are bridged over, so a
  mark is seen the same whether it sits on shading or crosses a cell line;
* stroke darkness is normalised by the darkest strokes on the same grid, so a
  soft and a hard pencil look alike, while an erased ghost stays faint;
* a network may also read the stroke layer in excess of its own neighbourhood
  (:func:`local_contrast`, a third plane): the hatching of a dark fill is made of
  strokes too, and a mark is drawn darker than them;
* shading is also judged against the whole grid (a fitted light surface), which
  a patch cannot see, and against the paper ring around the grid carried across
  it (a phone shadow darkens the margin beyond the grid too; shading stops at
  the grid's lines).

A small convolutional network (:class:`CellNet`: three 3x3 convolutions over each
cell's patch at half resolution, then one hidden layer with the shading
statistics) gives ``mark`` (7 classes incl. none) and ``shaded``. It is trained
with PyTorch by ``benchmarks/card_train.py`` on the tuning split of the fixture
renderer, heavily augmented, and runs here in plain numpy and OpenCV. A model may
hold several such networks trained apart (other seeds), their probabilities
averaged (v8 held two; v9 one; v10 three: v9 and two networks that also learned the
alt-style hand and triangles pointing every way; v14, shipped, four: v13's three, which
read two, three and two input planes, and one that reads four); each is also read
over the grid's mirror image. Cells whose best answer is below the confidence
threshold are reported as unknown, not guessed. A grid's readings (every network,
mirrored and turned) run as one batch (:meth:`CellNet.read_half`): the network with its
kernels turned back reads the grid as it is, in one OpenCV dnn network written at first
use.

>>> rect = np.full((2 * 48 + 10 * CELL_PX,) * 2, 230, np.uint8)
>>> net = default_classifier()
>>> maps, scalars = cell_maps(rect, planes=net.planes)  # the planes its networks read
>>> maps.shape, scalars.shape
((4, 416, 416), (100, 34))
>>> probs, shaded = net.predict_maps(maps, scalars)
>>> MARK_CLASSES[int(probs[0].argmax())], bool(shaded[0] > 0.5)
(None, False)
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from piecebridge.vision import card_shading
from piecebridge.vision.card_layout import cell_name

CELL_PX = 32
MARGIN_CELLS = 1.5
MARK_CLASSES = (None, "dot", "x", "o", "slash", "plus", "triangle")
#: How surely a quarter-turned reading must name a triangle for a cell to take it
#: (:meth:`CellNet.triangles_any_way`); chosen on tuning photos: 0.7 and 0.9 let shaded
#: cells and x's read turned become triangles on our own cards.
TURNED_TRIANGLE = 0.97
N_SHADE = 10
PATCH_PX = 32  # a cell and half a cell around it, at half resolution
NET_CONTEXT = 8  # more half-resolution pixels around a patch the convolutions see
N_CELL_STATS = 24
N_SCALARS = N_CELL_STATS + N_SHADE
MODEL_PATH = Path(__file__).with_name("card_cells_model.npz")
NET_CHANNELS = (8, 16, 32)  # convolution widths, each followed by a 2x2 max-pool
NET_HIDDEN = 64
#: input planes a network may read (:func:`cell_maps`): v12 and before read two, v13's
#: network B4p3 three, v14's fourth network (N') four; one model may mix them (each
#: network reads the first planes of the model's maps)
KNOWN_PLANES = (2, 3, 4)
#: :func:`local_contrast`: the Gaussian window (cells) and the spread taken off with the mean
LOCAL_SIGMA_CELLS = 0.75
LOCAL_SPREAD = 0.5
#: :func:`shade_gained_strokes`: the least ``1 - shade / ref`` divided by, and the most gain
GAIN_FLOOR = 0.25
GAIN_MAX = 3.0
#: below this confidence a cell goes to ``unknown`` (tuned on the tuning split)
DEFAULT_MIN_CONFIDENCE = 0.6


# ----------------------------------------------------------------------------- layers


def _paper_blocks(img: np.ndarray) -> np.ndarray:
    """Block maxima (4x4) of the lightly smoothed image, where :func:`_paper` starts."""
    b = 4
    return cv2.dilate(cv2.blur(img, (5, 5)), np.ones((b, b), np.uint8))[b // 2 :: b, b // 2 :: b]


def _paper(img: np.ndarray, cells: float, cell: int, blocks: np.ndarray | None = None):
    """Paper brightness: the brightest smoothed value within a window of ``cells``.

    Worked out at a quarter of the resolution (block maxima): it is smooth anyway.
    ``blocks`` (:func:`_paper_blocks` of ``img``) saves redoing them for several windows.
    """
    h, w = img.shape
    b = 4
    small = _paper_blocks(img) if blocks is None else blocks
    k = max(3, int(cells * cell / b) | 1)
    small = cv2.dilate(small, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    small = cv2.GaussianBlur(small, (0, 0), max(0.5, cells * cell / 6 / b))
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def pencil_layers(rect: np.ndarray, cell: int = CELL_PX, margin: float = MARGIN_CELLS):
    """Split a rectified grid into ``(shade, strokes)`` densities (float32, 0..1).

    ``shade`` is the smooth darkening of each place against the brightest paper
    within three cells (pencil shading, but not light falloff); ``strokes`` the
    thin dark strokes on top, with the printed cell lines bridged over.
    """
    img = rect.astype(np.float32)
    smooth = _smooth(img, cell)
    shade = np.clip(1 - smooth / np.maximum(_paper(img, 3, cell), 1), 0, 1)
    return shade, _strokes(img, smooth, cell, margin)


def _smooth(img: np.ndarray, cell: int) -> np.ndarray:
    """Grey closing: removes lines and pencil strokes, keeps shading and light."""
    close_k = max(5, (cell // 3) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close_k, close_k))
    u8 = np.clip(img, 0, 255).astype(np.uint8)  # 8-bit morphology is several times faster
    return cv2.blur(cv2.morphologyEx(u8, cv2.MORPH_CLOSE, kernel), (3, 3)).astype(np.float32)


def _strokes(img, smooth, cell, margin) -> np.ndarray:
    m = round(margin * cell)
    strokes = np.clip(1 - img / np.maximum(smooth, 1), 0, 1)
    # Bridge the printed lines: copy across each line the lesser of its two sides, so
    # a pencil stroke crossing it stays continuous and the line itself vanishes.
    half = max(2, round(0.07 * cell))
    for i in range(11):
        p = m + i * cell
        lo, hi = p - half - 1, p + half + 1
        rows = np.minimum(strokes[lo], strokes[hi])
        strokes[lo + 1 : hi] = rows
        cols = np.minimum(strokes[:, lo], strokes[:, hi])
        strokes[:, lo + 1 : hi] = cols[:, None]
    return strokes


def _layers(rect: np.ndarray, cell: int, margin: float) -> dict:
    """The pencil layers every reader of a grid starts from (see :func:`pencil_layers`)."""
    img = rect.astype(np.float32)
    smooth = _smooth(img, cell)
    blocks = _paper_blocks(img)
    papers = {w: np.maximum(_paper(img, w, cell, blocks), 1) for w in (1.2, 3, 6)}
    shade = np.clip(1 - smooth / papers[3], 0, 1)
    strokes = _strokes(img, smooth, cell, margin)
    m = round(margin * cell)
    # Reference stroke strength: the darkest strokes on this grid (a soft and a hard
    # pencil then look alike; a faint erased ghost stays faint).
    core = np.sort(strokes[m : m + 10 * cell, m : m + 10 * cell], axis=None)
    ref = max(float(np.percentile(core, 99.7)), 0.15)
    norm = np.clip(strokes / ref, 0, 1.5)
    return {
        "img": img,
        "smooth": smooth,
        "papers": papers,
        "shade": shade,
        "norm": norm,
        "ref": ref,
        "m": m,
        "inset": round(0.12 * cell),
    }


def _blocks(a, m, cell, inset, n=10, start=None):
    """Per-cell pixel blocks (n*n, k) of ``a`` from ``start`` (default ``m``), inset."""
    start = m if start is None else start
    g = a[start : start + n * cell, start : start + n * cell].reshape(n, cell, n, cell)
    g = g[:, inset : cell - inset, :, inset : cell - inset]
    return g.transpose(0, 2, 1, 3).reshape(n * n, -1)


def _median_sorted(s: np.ndarray) -> np.ndarray:
    """``np.median(s, axis=-1)`` of rows already sorted, the same numbers, without the
    partition ``np.median`` runs again.

    >>> s = np.sort(np.array([[4.0, 1.0, 3.0, 2.0], [5.0, 0.0, 9.0, 7.0]], np.float32))
    >>> _median_sorted(s)
    array([2.5, 6. ], dtype=float32)
    """
    n = s.shape[-1]
    if n % 2:
        return s[..., n // 2]
    return (s[..., n // 2 - 1] + s[..., n // 2]) / 2


def _cell_stats(lay: dict, cell: int) -> np.ndarray:
    """Shading and stroke statistics per cell (100, ``N_CELL_STATS``)."""
    m, inset, shade, norm = lay["m"], lay["inset"], lay["shade"], lay["norm"]
    sh = _blocks(shade, m, cell, inset)
    st = _blocks(norm, m, cell, 0)
    # Order statistics of sorted rows: the same numbers (they depend only on the values),
    # and numpy's vectorised sort is several times faster than the partition they use.
    q = np.percentile(np.sort(sh, axis=1), (10, 25, 50, 75, 90), axis=1).T
    grid = slice(m, m + 10 * cell)  # only the cells: the same numbers at 60 % of the work
    other = [
        _median_sorted(
            np.sort(
                _blocks(
                    np.clip(1 - lay["smooth"][grid, grid] / lay["papers"][w][grid, grid], 0, 1),
                    0,
                    cell,
                    inset,
                )
            )
        )
        for w in (1.2, 6)
    ]
    # Texture: graphite is grainy, a shadow is smooth.
    img = lay["img"]
    hp = np.abs(img - cv2.GaussianBlur(img, (0, 0), 1.2)) / lay["papers"][3]
    texture = _blocks(hp, m, cell, inset).mean(1)
    # Context: the shading of the 8 neighbours (the ring outside the grid is paper).
    ext = _median_sorted(np.sort(_blocks(shade, m, cell, inset, 12, m - cell))).reshape(12, 12)
    ring = np.stack(
        [
            ext[1 + dy : 11 + dy, 1 + dx : 11 + dx]
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
            if dy or dx
        ],
        axis=-1,
    ).reshape(100, 8)
    ring = np.sort(ring, axis=1)
    return np.column_stack(
        [
            q,
            *other,
            texture,
            ring,
            sh.mean(1),
            st.mean(1),
            st.max(1),
            (st > 0.3).mean(1),
            (st > 0.6).mean(1),
            np.full(100, lay["ref"]),
            np.full(100, np.percentile(q[:, 2], 90)),
            np.full(100, np.percentile(q[:, 2], 10)),
        ]
    ).astype(np.float32)


def local_contrast(norm: np.ndarray, cell: int = CELL_PX) -> np.ndarray:
    """The stroke layer ``norm`` in excess of its own neighbourhood: ``norm - mean -
    LOCAL_SPREAD * std``, the mean and spread taken over a Gaussian window of
    ``LOCAL_SIGMA_CELLS`` cells, clipped to 0..1.5.

    The stroke layer is normalised by the grid's darkest strokes, and the hatching of a
    dark fill is itself made of strokes (up to half as dark as a mark on the tuning
    photos), so a mark on dark shading stands out from its own fill less than from
    paper. Here the fill's own strokes are taken away, the mark drawn darker than
    them stays. (The mean and the mean of squares are worked out at a quarter of the
    resolution: they are smooth.)

    >>> norm = np.zeros((128, 128), np.float32)
    >>> norm[:, ::4] = 0.45  # a fill's hatching: a quarter of the pixels
    >>> norm[62:64, 32:96] = 0.9  # a stroke drawn darker across it
    >>> lc = local_contrast(norm, 32)
    >>> # the hatching keeps half its strength, the stroke on it nearly three quarters
    >>> round(float(lc[20, 20] / norm[20, 20]), 1), round(float(lc[63, 62] / norm[63, 62]), 1)
    (0.5, 0.7)
    >>> float(local_contrast(np.zeros((64, 64), np.float32)).max())
    0.0
    """
    h, w = norm.shape
    small = (max(1, w // 4), max(1, h // 4))
    sigma = LOCAL_SIGMA_CELLS * cell / 4
    mean = cv2.GaussianBlur(cv2.resize(norm, small, interpolation=cv2.INTER_AREA), (0, 0), sigma)
    sq = cv2.GaussianBlur(
        cv2.resize(norm * norm, small, interpolation=cv2.INTER_AREA), (0, 0), sigma
    )
    std = np.sqrt(np.maximum(sq - mean * mean, 0))
    level = cv2.resize(mean + LOCAL_SPREAD * std, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(norm - level, 0, 1.5)


def shade_gained_strokes(norm: np.ndarray, shade: np.ndarray, ref: float) -> np.ndarray:
    """The stroke layer ``norm`` gained back where the pencil had little room to darken:
    ``norm * (1 - shade) / (1 - shade / ref)`` (the divisor at least :data:`GAIN_FLOOR`,
    the gain at most :data:`GAIN_MAX`), clipped to 0..1.5.

    A pencil darkens the paper by at most ``ref`` (the grid's darkest strokes, as a
    share of the paper); on a fill already ``shade`` dark, the same stroke stands only
    ``(ref - shade) / (1 - shade)`` above it, a share ``(1 - shade / ref) / (1 - shade)``
    of what it would on paper. The gain undoes that share: a mark drawn as dark as the
    pencil goes reads as strong on dark shading as on paper (the fill's hatching is
    gained alike).

    >>> norm = np.full((4, 4), 0.4, np.float32)
    >>> shade = np.zeros((4, 4), np.float32)
    >>> shade[2:] = 0.3  # a fill half as dark as the pencil: its strokes gain 0.7 / 0.5
    >>> g = shade_gained_strokes(norm, shade, ref=0.6)
    >>> round(float(g[0, 0]), 2), round(float(g[3, 3]), 2)
    (0.4, 0.56)
    """
    gain = (1 - shade) / np.maximum(1 - shade / ref, GAIN_FLOOR)
    return np.clip(norm * np.minimum(gain, GAIN_MAX), 0, 1.5).astype(np.float32)


def cell_maps(
    rect: np.ndarray, cell: int = CELL_PX, margin: float = MARGIN_CELLS, planes: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """What the cell network sees of a grid: ``(maps, scalars)``.

    ``maps`` (``planes``, H, W) float32 at the rectified resolution: the darkness
    against the paper within three cells (strokes, shading and printed lines: 0
    paper, 1 black), the stroke layer with the lines bridged over, normalised by the
    grid's darkest strokes (0..1.5), and with ``planes=3`` that layer in excess of its
    own neighbourhood (:func:`local_contrast`; only networks with three or more input
    planes read it), and with ``planes=4`` also the stroke layer gained by the shading
    under it (:func:`shade_gained_strokes`). ``scalars`` (100, ``N_SCALARS``): shading
    judged against the whole grid and per-cell statistics (:func:`_cell_stats`,
    :func:`_shade_context`), which a small patch cannot see.
    """
    if planes not in KNOWN_PLANES:
        raise ValueError(f"cell maps have {KNOWN_PLANES} planes, not {planes}")
    lay = _layers(rect, cell, margin)
    dark = np.clip(1 - lay["img"] / lay["papers"][3], 0, 1)
    extra = [local_contrast(lay["norm"], cell)] if planes >= 3 else []
    if planes >= 4:
        extra.append(shade_gained_strokes(lay["norm"], lay["shade"], lay["ref"]))
    maps = np.stack([dark, lay["norm"], *extra])
    ctx = _shade_context(lay["smooth"], lay["shade"], lay["m"], cell, lay["inset"])
    return maps, np.column_stack([_cell_stats(lay, cell), ctx])


def half_maps(maps: np.ndarray) -> np.ndarray:
    """:func:`cell_maps` maps at half resolution (2x2 means), what the network reads."""
    _, h, w = maps.shape
    # INTER_AREA at exactly 1/2 is the 2x2 mean, and far cheaper than a numpy reshape-mean
    return np.stack(
        [
            cv2.resize(
                m[: h // 2 * 2, : w // 2 * 2], (w // 2, h // 2), interpolation=cv2.INTER_AREA
            )
            for m in maps.astype(np.float32, copy=False)
        ]
    )


def _shade_context(smooth, shade, m: int, cell: int, inset: int) -> np.ndarray:
    """Shading judged against the whole grid, not just the nearby paper.

    Inside a shaded territory the brightest paper within a few cells is itself
    shaded, so a local reference says "blank". Here the light over the grid is a
    smooth surface fitted to the brighter cells (and the paper ring around the
    grid); a cell's darkness is its log-brightness below that surface, compared
    with the grid's own split between light and dark cells. The step across each
    printed line (shading stops at the cell lines, shadows and light do not) adds
    the local view.
    """
    n = 12
    g = smooth[m - cell : m + 11 * cell, m - cell : m + 11 * cell].reshape(n, cell, n, cell)
    g = g[:, inset : cell - inset, :, inset : cell - inset]
    # the closing already removed strokes and lines, so a mean is robust enough
    med = np.log(np.maximum(g.mean(axis=(1, 3)).ravel(), 1))
    yy, xx = np.divmod(np.arange(n * n), n)
    u, v = (xx - 5.5) / 6, (yy - 5.5) / 6
    a = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
    keep = np.ones(n * n, bool)
    coef = np.zeros(6)
    for _ in range(4):
        coef = np.linalg.lstsq(a[keep], med[keep], rcond=None)[0]
        res = med - a @ coef
        # the paper is the upper envelope: drop what lies clearly below the fit
        keep = res > np.percentile(res, 35) if _ == 0 else res > -0.06
        if keep.sum() < 12:
            keep = res >= np.percentile(res, 50)
    res = (med - a @ coef).reshape(n, n)
    inner = res[1:11, 1:11].ravel()
    med = med.reshape(n, n)
    ring = np.concatenate([med[0], med[-1], med[1:-1, 0], med[1:-1, -1]])
    lo, hi = np.percentile(inner, (10, 90))
    # the grid's own light/dark split (Otsu-like, on 2 clusters)
    t = float(np.median(inner))
    for _ in range(5):
        a0, a1 = inner[inner <= t], inner[inner > t]
        if len(a0) == 0 or len(a1) == 0:
            break
        t = 0.5 * (a0.mean() + a1.mean())
    # Step across each printed line: this cell's shade minus the strip beyond the line.
    q = max(2, cell // 4)
    core = shade[m : m + 10 * cell, m : m + 10 * cell].reshape(10, cell, 10, cell)
    cmean = core[:, inset : cell - inset, :, inset : cell - inset].mean(axis=(1, 3))
    steps = []
    integ = cv2.integral(shade.astype(np.float32), sdepth=cv2.CV_64F)
    base = m + np.arange(10) * cell
    for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        ys = base + (cell + 2 if dy > 0 else -q - 2 if dy < 0 else inset)
        xs = base + (cell + 2 if dx > 0 else -q - 2 if dx < 0 else inset)
        hy = q if dy else cell - 2 * inset
        hx = q if dx else cell - 2 * inset
        y0, x0 = ys[:, None], xs[None, :]
        box = integ[y0 + hy, x0 + hx] - integ[y0, x0 + hx] - integ[y0 + hy, x0] + integ[y0, x0]
        steps.append(cmean - box / (hy * hx))
    steps = np.stack(steps, -1).reshape(100, 4)
    return np.column_stack(
        [
            inner,
            inner - hi,
            inner - lo,
            inner - t,
            np.full(100, hi - lo),
            steps.min(1),
            steps.max(1),
            steps.mean(1),
            _below_ring(med),
            np.full(100, np.percentile(ring, 90) - np.percentile(ring, 10)),
        ]
    ).astype(np.float32)


def _below_ring(med: np.ndarray) -> np.ndarray:
    """Each inner cell's log-brightness below the paper ring around the grid, carried in
    across the grid by a Coons patch (the blend of the four sides' profiles).

    A phone shadow is large: it crosses the grid's edge and darkens the margin beyond
    it as much as the cells inside, however sharp its edge, where a quadratic light
    surface cannot bend that fast; shading stops at the grid's lines.

    Light falling off across the card (bilinear in log-brightness) is carried exactly; a
    shadow 0.3 deep over a quarter of the grid leaves at most a fifth of it:

    >>> yy, xx = np.mgrid[0:12, 0:12] / 11
    >>> float(np.abs(_below_ring(0.2 * xx - 0.1 * yy + 0.05 * xx * yy)).max()) < 1e-12
    True
    >>> shadow = np.where((yy > 0.5) & (xx > 0.5), -0.3, 0.0)
    >>> float(np.abs(_below_ring(shadow)).max()) < 0.07
    True
    """
    n = med.shape[0]
    t = np.arange(n) / (n - 1)
    u, v = t[None, :], t[:, None]
    left, right, top, bottom = med[:, :1], med[:, -1:], med[:1, :], med[-1:, :]
    corners = (1 - u) * (1 - v) * med[0, 0] + u * (1 - v) * med[0, -1]
    corners = corners + (1 - u) * v * med[-1, 0] + u * v * med[-1, -1]
    patch = (1 - u) * left + u * right + (1 - v) * top + v * bottom - corners
    return (med - patch)[1:-1, 1:-1].ravel()


# ----------------------------------------------------------------------------- model


def _pool2(y: np.ndarray) -> np.ndarray:
    """2x2 max-pool of (H, W, ...)."""
    return np.maximum(
        np.maximum(y[0::2, 0::2], y[1::2, 0::2]), np.maximum(y[0::2, 1::2], y[1::2, 1::2])
    )


def _bias_relu(y: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``max(y + b, 0)`` in place. Layers apply it after their max-pool, on a quarter of
    the values: adding a constant and rounding are monotone, so
    ``pool(relu(y + b)) == relu(pool(y) + b)`` exactly, float rounding included."""
    y += b
    return np.maximum(y, 0, out=y)


def _conv_planes(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 'same' convolution + ReLU + 2x2 max-pool of a few planes (C, H, W) -> (H, W, F).

    With two input planes OpenCV's filter2D per (output, input) pair is far
    cheaper than building im2col columns.
    """
    _, h, wd = x.shape
    planes = np.empty((w.shape[0], h // 2 * 2, wd // 2 * 2), np.float32)
    for f in range(w.shape[0]):
        acc = cv2.filter2D(x[0], -1, w[f, 0], borderType=cv2.BORDER_CONSTANT)
        for c in range(1, x.shape[0]):
            acc += cv2.filter2D(x[c], -1, w[f, c], borderType=cv2.BORDER_CONSTANT)
        planes[f] = acc[: h // 2 * 2, : wd // 2 * 2]
    pooled = np.maximum(
        np.maximum(planes[:, 0::2, 0::2], planes[:, 1::2, 0::2]),
        np.maximum(planes[:, 0::2, 1::2], planes[:, 1::2, 1::2]),
    )
    return _bias_relu(np.ascontiguousarray(pooled.transpose(1, 2, 0)), b)


def _conv_hwc(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 'same' convolution + ReLU + 2x2 max-pool, channels last (H, W, C) -> (H, W, F):
    im2col, then one matrix product."""
    h, wd, c = x.shape
    # The columns as one copy of a (H, W, C, 3, 3) window view, taken in (3, 3, C) order:
    # the same numbers as concatenating nine shifted copies, about three times faster.
    win = np.lib.stride_tricks.sliding_window_view(
        np.pad(x, ((1, 1), (1, 1), (0, 0))), (3, 3), axis=(0, 1)
    )
    cols = np.ascontiguousarray(win.transpose(0, 1, 3, 4, 2))
    y = cols.reshape(h * wd, 9 * c) @ w.transpose(2, 3, 1, 0).reshape(9 * c, -1)
    return _bias_relu(_pool2(y.reshape(h, wd, -1)), b)


def _predict_member(a: dict, half: np.ndarray, scalars: np.ndarray):
    """One network's ``(mark_probs, shaded_prob)`` for the 100 cells of a grid.

    The convolutions run once over the whole grid at half resolution; each
    cell then takes the pooled features over its patch (a cell and half a cell
    around). Training sees each patch with ``NET_CONTEXT`` pixels around it,
    enough that zero padding at a training crop's edge never reaches these
    features, so both give the same numbers.
    """
    k = 2 ** len(NET_CHANNELS)  # half-resolution pixels per feature
    lo, hi = _net_window()  # only the patches and their context: the margin adds nothing
    c = a["conv0_w"].shape[1]  # its input planes: the first ones of cell_maps
    x = _conv_planes(np.ascontiguousarray(half[:c, lo:hi, lo:hi]), a["conv0_w"], a["conv0_b"])
    for i in range(1, len(NET_CHANNELS)):
        x = _conv_hwc(x, a[f"conv{i}_w"], a[f"conv{i}_b"])
    side = PATCH_PX // k
    first = NET_CONTEXT // k
    step = CELL_PX // 2 // k
    win = np.lib.stride_tricks.sliding_window_view(x, (side, side), axis=(0, 1))
    idx = first + step * np.arange(10)
    # (10, 10, C, side, side): flattened per cell in PyTorch's (C, H, W) order
    h = win[idx[:, None], idx[None, :]].reshape(100, -1)
    # a model trained before inputs were added reads the first ones (new ones are appended)
    sc = _normalised_scalars(a, scalars)[:, : len(a["scalar_mean"])]
    h = np.maximum(np.concatenate([h, sc], 1) @ a["fc1_w"] + a["fc1_b"], 0)
    return _head(h @ a["fc2_w"] + a["fc2_b"])


def _head(out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network's last layer ``out`` (..., marks + 1) as ``(mark_probs, shaded_prob)``:
    a softmax over the marks, a logistic for the shading."""
    logits = out[..., :-1]
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    with np.errstate(over="ignore"):  # exp(-x) -> inf for a sure blank: 1 / inf is the exact 0
        shaded = 1 / (1 + np.exp(-out[..., -1]))
    return e / e.sum(axis=-1, keepdims=True), shaded


def _member_arrays(d, files) -> list[dict]:
    """The networks stored in one ``.npz``: plain names for one network, or the
    prefixes ``net0.``, ``net1.``... for an ensemble."""
    if "conv0_w" in files:
        return [{k: d[k] for k in files if k not in ("info", "min_confidence")}]
    members = []
    while f"net{len(members)}.conv0_w" in files:
        prefix = f"net{len(members)}."
        members.append({k[len(prefix) :]: d[k] for k in files if k.startswith(prefix)})
    return members


def learned_upright_triangles(member: dict) -> bool:
    """Whether a network learned triangles pointing up only (v9 and before: no
    ``upright_triangles`` array), so the grid is also read turned for it
    (:meth:`CellNet.triangles_any_way`). Networks trained with quarter turns say no."""
    return bool(member.get("upright_triangles", True))


#: Scalar inputs per cell of the models this reader can run: v8's 32 (before the paper
#: margin's two) and today's.
KNOWN_SCALAR_COUNTS = (32, N_SCALARS)


def _fits_inputs(member: dict) -> bool:
    """Whether a network reads one of the plane counts :func:`cell_maps` makes and its
    first dense layer takes the pooled features of one cell and one of the scalar counts
    this reader computes (its scalars are a prefix of today's)."""
    n = len(member["scalar_mean"])
    features = NET_CHANNELS[-1] * (PATCH_PX // 2 ** len(NET_CHANNELS)) ** 2
    planes_ok = member["conv0_w"].shape[1] in KNOWN_PLANES
    return planes_ok and n in KNOWN_SCALAR_COUNTS and member["fc1_w"].shape[0] == features + n


def _planes(members: list[dict]) -> int:
    """The input planes a model reads: the most any of its networks reads (a network of
    fewer reads the first ones: its kernels are zero on the rest, :meth:`_Reading.of`)."""
    return max(int(m["conv0_w"].shape[1]) for m in members)


def _average(outs: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The members' ``(mark_probs, shaded_prob)`` averaged (one member: its own)."""
    if len(outs) == 1:
        return outs[0]
    return np.mean([o[0] for o in outs], 0), np.mean([o[1] for o in outs], 0)


def _take_turned_triangles(pm: np.ndarray, turned: list[np.ndarray]) -> np.ndarray:
    """``pm`` where a turned reading (cells in the upright grid's order) names a triangle
    surely (``TURNED_TRIANGLE``) and more surely than the readings taken so far: that
    reading's marks (:meth:`CellNet.triangles_any_way`)."""
    tri = MARK_CLASSES.index("triangle")
    best = pm.copy()
    for pk in turned:
        take = (pk[:, tri] >= TURNED_TRIANGLE) & (pk[:, tri] > best[:, tri])
        best[take] = pk[take]
    return best


# ----------------------------------------------------------------------------- batched


def _net_window() -> tuple[int, int]:
    """``(lo, hi)``: the square of the half-resolution maps the convolutions run over
    (the patches and their context, :func:`_predict_member`)."""
    m = round(MARGIN_CELLS * CELL_PX)
    lo = (m - CELL_PX // 2) // 2 - NET_CONTEXT
    return lo, lo + 9 * CELL_PX // 2 + PATCH_PX + 2 * NET_CONTEXT


def _turns_are_exact(shape: tuple[int, ...]) -> bool:
    """Whether a grid's half maps of ``shape`` (C, H, W) read mirrored or turned give the
    network's window mirrored or turned: a square grid whose window stands in its middle,
    with every 2x2 max-pool and every cell's patch landing on one mirrored or turned
    (true of :func:`remap_grid`'s grids: 208 pixels, window 8..200, pools 192/96/48/24)."""
    _, h, w = shape
    lo, hi = _net_window()
    n, k = hi - lo, 2 ** len(NET_CHANNELS)
    side, first, step = PATCH_PX // k, NET_CONTEXT // k, CELL_PX // 2 // k
    return h == w and h - hi == lo and n % k == 0 and n // k - (first + 9 * step + side) == first


def _spatial(a: np.ndarray, flip: bool, turns: int) -> np.ndarray:
    """``a`` seen mirrored left to right (``flip``), then turned ``turns`` quarter turns
    counter-clockwise, over its last two axes (as :meth:`CellNet.predict_half_mirrored`
    and :meth:`CellNet.triangles_any_way` turn the maps)."""
    if flip:
        a = a[..., ::-1]
    return np.rot90(a, turns, axes=(-2, -1))


def _kernel_matrix(w: np.ndarray, flip: bool, turns: int) -> np.ndarray:
    """3x3 kernels (F, C, 3, 3) as an (F, 9C) matrix in (dy, dx, c) column order, undone by
    the reading's turn and mirror: correlating the grid seen mirrored or turned with ``w``
    is correlating the grid itself with these kernels and seeing the result so."""
    w = np.rot90(w, -turns, axes=(2, 3))
    if flip:
        w = w[..., ::-1]
    return np.ascontiguousarray(w.transpose(0, 2, 3, 1).reshape(w.shape[0], -1))


def _pool_columns(xp: np.ndarray, rows: int | None = None) -> np.ndarray:
    """im2col of zero-padded planes (C, H + 2, W + 2) for a 3x3 convolution, in chunks of
    ``rows`` pooled rows (default: one chunk): (chunks, 9C, 4 * rows * W/2), rows in
    (dy, dx, c) order, columns in (py, px, i, j) order for pixel (2i + py, 2j + px), so the
    2x2 max-pool after it is a maximum of four contiguous blocks (one copy of a strided
    view)."""
    c, hp, wp = xp.shape
    h, w = (hp - 2) // 2, (wp - 2) // 2
    rows = rows or h
    sc, sh, sw = xp.strides
    view = np.lib.stride_tricks.as_strided(
        xp,
        (h // rows, 3, 3, c, 2, 2, rows, w),
        (2 * rows * sh, sh, sw, sc, sh, sw, 2 * sh, 2 * sw),
        writeable=False,
    )
    return np.ascontiguousarray(view).reshape(h // rows, 9 * c, 4 * rows * w)


def _conv_relu(xp: np.ndarray, kernels: np.ndarray, b: np.ndarray, rows: int | None = None):
    """3x3 convolution, 2x2 max-pool, bias and ReLU of zero-padded planes (C, H + 2, W + 2)
    into zero-padded planes (F, H/2 + 2, W/2 + 2) (the bias after the pool, as
    :func:`_bias_relu` says). With ``rows``, a chunk of that many pooled rows at a time:
    the first layer's products (72 planes of 192x192 for nine readings) then stay in
    cache, which saves some 40 % of its time; the later layers gain nothing by it."""
    f = kernels.shape[0]
    h, w = (xp.shape[1] - 2) // 2, (xp.shape[2] - 2) // 2
    rows = rows or h
    out = np.zeros((f, h + 2, w + 2), np.float32)
    for i, cols in enumerate(_pool_columns(xp, rows)):
        y = (kernels @ cols).reshape(f, 4, -1)
        y = np.maximum(np.maximum(y[:, 0], y[:, 1]), np.maximum(y[:, 2], y[:, 3]), out=y[:, 0])
        y += b[:, None]
        np.maximum(y.reshape(f, rows, w), 0, out=out[:, 1 + i * rows : 1 + (i + 1) * rows, 1:-1])
    return out


def _fc_rows(member: dict, flip: bool, turns: int) -> np.ndarray:
    """The first dense layer (features + :data:`N_SCALARS`, hidden), its feature rows
    reordered so a patch taken from the grid as it is gives what the same patch seen
    mirrored or turned gives, and zero rows for scalars a member does not read."""
    k = 2 ** len(NET_CHANNELS)
    side = PATCH_PX // k
    index = _spatial(np.arange(NET_CHANNELS[-1] * side * side).reshape(-1, side, side), flip, turns)
    w = member["fc1_w"]
    rows = np.zeros((index.size + N_SCALARS, w.shape[1]), np.float32)
    rows[index.ravel()] = w[: index.size]
    rows[index.size : w.shape[0]] = w[index.size :]
    return rows


@dataclass
class _Reading:
    """One network reading the grid mirrored and turned, as :func:`_read_batched` runs it:
    the kernel matrices of its convolutions (:func:`_kernel_matrix`), their biases, and
    its dense layers (:func:`_fc_rows`)."""

    kernels: list[np.ndarray]
    biases: list[np.ndarray]
    fc1: np.ndarray
    fc1_b: np.ndarray
    fc2: np.ndarray
    fc2_b: np.ndarray
    member: int

    @classmethod
    def of(cls, members: list[dict], i: int, flip: bool, turns: int) -> _Reading:
        a = members[i]
        convs = [a[f"conv{j}_w"] for j in range(len(NET_CHANNELS))]
        extra = _planes(members) - convs[0].shape[1]
        if extra:  # every reading shares one input: zero kernels on the planes not read
            convs[0] = np.pad(convs[0], ((0, 0), (0, extra), (0, 0), (0, 0)))
        kernels = [_kernel_matrix(w, flip, turns) for w in convs]
        biases = [a[f"conv{j}_b"] for j in range(len(NET_CHANNELS))]
        fc1 = _fc_rows(a, flip, turns)
        return cls(kernels, biases, fc1, a["fc1_b"], a["fc2_w"], a["fc2_b"], i)


# ----------------------------------------------------------------------------- OpenCV dnn


def _onnx_conv_stack(
    layers: list[tuple[np.ndarray, np.ndarray, int]], side: int, dense: tuple | None = None
) -> bytes:
    """An ONNX model (serialised with the ``onnx`` package's helpers) of ``layers``
    ``(weights (F, C / groups, 3, 3), bias, groups)``, each a 3x3 'same' convolution, ReLU
    and 2x2 max-pool, over one (1, C, side, side) input ``x``; then ``dense`` ``(weights
    (F, C / groups, K, K), bias, groups, stride)``, a plain convolution (each cell's patch
    through the first dense layer)."""
    from onnx import TensorProto, helper, numpy_helper  # only the dnn path needs it

    nodes, weights, x = [], [], "x"

    def add(name: str, arr: np.ndarray) -> None:
        weights.append(numpy_helper.from_array(np.ascontiguousarray(arr, np.float32), name))

    for i, (w, b, groups) in enumerate(layers):
        add(f"w{i}", w)
        add(f"b{i}", b)
        nodes += [
            helper.make_node(
                "Conv", [x, f"w{i}", f"b{i}"], [f"c{i}"], kernel_shape=(3, 3),
                pads=(1, 1, 1, 1), strides=(1, 1), group=groups,
            ),
            helper.make_node("Relu", [f"c{i}"], [f"r{i}"]),
            helper.make_node("MaxPool", [f"r{i}"], [f"p{i}"], kernel_shape=(2, 2), strides=(2, 2)),
        ]  # fmt: skip
        x = f"p{i}"
    out = (1, layers[-1][0].shape[0], side >> len(layers), side >> len(layers))
    if dense is not None:
        w, b, groups, stride = dense
        add("wd", w)
        add("bd", b)
        nodes.append(
            helper.make_node(
                "Conv", [x, "wd", "bd"], ["dense"], kernel_shape=w.shape[2:],
                strides=(stride, stride), group=groups,
            )
        )  # fmt: skip
        x, n = "dense", (out[2] - w.shape[2]) // stride + 1
        out = (1, w.shape[0], n, n)
    inputs = [
        helper.make_tensor_value_info(
            "x", TensorProto.FLOAT, (1, layers[0][0].shape[1], side, side)
        )
    ]
    outputs = [helper.make_tensor_value_info(x, TensorProto.FLOAT, out)]
    graph = helper.make_graph(nodes, "cell_convolutions", inputs, outputs, weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    return model.SerializeToString()


def _patch_kernels(reading: _Reading) -> np.ndarray:
    """The first dense layer's feature rows of a reading as convolution kernels
    (hidden, C, start + side, start + side) over the last feature map: at stride ``step``
    they meet every cell's patch (the kernel's first rows and columns zero)."""
    k = 2 ** len(NET_CHANNELS)
    side, start = PATCH_PX // k, NET_CONTEXT // k
    c = NET_CHANNELS[-1]
    rows = reading.fc1[: c * side * side].reshape(c, side, side, -1).transpose(3, 0, 1, 2)
    out = np.zeros((rows.shape[0], c, start + side, start + side), np.float32)
    out[:, :, start:, start:] = rows
    return out


def _dnn_convolutions(readings: list[_Reading], side: int) -> _DnnNetwork | None:
    """Every reading's convolutions as one OpenCV dnn network over the (1, C, side, side)
    window (the first layers one convolution, the later ones grouped a reading a group),
    or ``None`` where this OpenCV cannot read it or the ``onnx`` package is missing.
    OpenCV's convolutions run some 35 % faster than :func:`_conv_relu`'s matrix products,
    to float rounding the same."""
    layers = []
    for j in range(len(NET_CHANNELS)):
        c = readings[0].kernels[0].shape[1] // 9 if j == 0 else NET_CHANNELS[j - 1]
        w = [r.kernels[j].reshape(-1, 3, 3, c).transpose(0, 3, 1, 2) for r in readings]
        layers.append(
            (
                np.concatenate(w),
                np.concatenate([r.biases[j] for r in readings]),
                1 if j == 0 else len(readings),
            )
        )
    dense = np.concatenate([_patch_kernels(r) for r in readings])
    step = CELL_PX // 2 // 2 ** len(NET_CHANNELS)
    dense = (dense, np.zeros(len(dense), np.float32), len(readings), step)
    return _dnn_network(_onnx_conv_stack, layers, side, dense)


def _dnn_network(write, *args) -> _DnnNetwork | None:
    """The ONNX model ``write(*args)`` as an OpenCV dnn network, or ``None`` where this
    OpenCV cannot read it or the ``onnx`` package is missing."""
    try:
        net = cv2.dnn.readNetFromONNX(np.frombuffer(write(*args), np.uint8))
    except ImportError:  # no onnx package: the numpy batch reads the same
        return None
    except (cv2.error, AttributeError):  # pragma: no cover - an OpenCV without dnn
        return None
    if net.empty():  # pragma: no cover
        return None
    with contextlib.suppress(cv2.error, AttributeError):
        net.enableWinograd(False)  # Winograd's transforms would round otherwise
    return _DnnNetwork(net)


@dataclass
class _DnnNetwork:
    """An OpenCV dnn network with a lock: a ``cv2.dnn.Net`` keeps its input and its
    buffers between ``setInput`` and ``forward``, so two threads sharing one classifier
    (:func:`default_classifier`) must not run it at once."""

    net: cv2.dnn.Net
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The network's output for the input ``x`` (1, C, side, side)."""
        with self.lock:
            self.net.setInput(x)
            return self.net.forward()


#: pooled rows of the first layer computed at a time (:func:`_conv_relu`)
_FIRST_LAYER_ROWS = 8


def _normalised_scalars(member: dict, scalars: np.ndarray) -> np.ndarray:
    """A member's scalar inputs (100, :data:`N_SCALARS`), normalised; zeros beyond its own."""
    n = len(member["scalar_mean"])
    out = np.zeros((len(scalars), N_SCALARS), np.float32)
    sc = scalars[:, :n].astype(np.float32) - member["scalar_mean"]
    sc /= member["scalar_scale"]
    out[:, :n] = sc
    return out


def _numpy_convolutions(readings: list[_Reading], x: np.ndarray) -> np.ndarray:
    """Every reading's convolutions (R, C, H, W) over the zero-padded window ``x``
    (C, side + 2, side + 2) in numpy: the first layers one matrix product."""
    kernels = np.concatenate([r.kernels[0] for r in readings])
    biases = np.concatenate([r.biases[0] for r in readings])
    half_side = (x.shape[1] - 2) // 2
    rows = _FIRST_LAYER_ROWS if half_side % _FIRST_LAYER_ROWS == 0 else None
    first = _conv_relu(x, kernels, biases, rows)
    first = first.reshape(len(readings), -1, half_side + 2, half_side + 2)
    out = []
    for r, reading in enumerate(readings):
        y = first[r]
        for j in range(1, len(NET_CHANNELS)):
            y = _conv_relu(y, reading.kernels[j], reading.biases[j])
        out.append(y[:, 1:-1, 1:-1])
    return np.stack(out)


def _read_batched(
    members: list[dict], readings: list[_Reading], half, scalars, dnn: _DnnNetwork | None = None
):
    """``(mark_probs, shaded_prob)`` of each reading (:class:`_Reading`: a member on the
    maps mirrored and turned), cells in the upright grid's order: what
    :func:`_predict_member` gives on the maps mirrored and turned, turned back.

    Each reading runs its network with the kernels turned back on the maps as they are
    (:func:`_kernel_matrix`; a 2x2 max-pool on even sides turns with the grid), and reads
    each cell's patch with its dense rows reordered (:func:`_fc_rows`). The first layers of
    all readings are one matrix product over the same columns (in chunks of rows), the
    dense layers one batch. ``dnn`` (:func:`_dnn_convolutions` of ``readings``) runs the
    convolutions instead. Requires :func:`_turns_are_exact`.
    """
    lo, hi = _net_window()
    n = hi - lo
    c = readings[0].kernels[0].shape[1] // 9  # the input planes read (:func:`_planes`)
    x = None
    if dnn is None:
        x = np.zeros((c, n + 2, n + 2), np.float32)
        x[:, 1:-1, 1:-1] = half[:c, lo:hi, lo:hi]
    k = 2 ** len(NET_CHANNELS)
    side, start, step = PATCH_PX // k, NET_CONTEXT // k, CELL_PX // 2 // k
    normalised = {i: _normalised_scalars(members[i], scalars) for i in {r.member for r in readings}}
    if dnn is not None:
        # the network ends in the dense layer's patch rows (:func:`_patch_kernels`): add
        # the scalars' rows and the bias
        out = dnn.forward(np.ascontiguousarray(half[None, :c, lo:hi, lo:hi]))
        h = out[0, :, :10, :10].reshape(len(readings), -1, 100).transpose(0, 2, 1)
        features = readings[0].fc1.shape[0] - N_SCALARS
        h = h + np.stack([normalised[r.member] @ r.fc1[features:] for r in readings])
    else:
        feats = _numpy_convolutions(readings, x)
        win = np.lib.stride_tricks.sliding_window_view(feats, (side, side), axis=(2, 3))
        idx = start + step * np.arange(10)
        # (R, C, 10, 10, side, side) -> per reading and cell in PyTorch's (C, H, W) order
        patches = win[:, :, idx[:, None], idx[None, :]].transpose(0, 2, 3, 1, 4, 5)
        patches = patches.reshape(len(readings), 100, -1)
        inputs = np.concatenate([patches, np.stack([normalised[r.member] for r in readings])], 2)
        h = inputs @ np.stack([r.fc1 for r in readings])
    h += np.stack([r.fc1_b for r in readings])[:, None]
    np.maximum(h, 0, out=h)
    out = h @ np.stack([r.fc2 for r in readings]) + np.stack([r.fc2_b for r in readings])[:, None]
    probs, shaded = _head(out)
    return [(probs[r], shaded[r]) for r in range(len(readings))]


@dataclass
class CellNet:
    """The cell network: three 3x3 convolutions (each ReLU + 2x2 max-pool) over a
    cell's patch, then one hidden layer that also sees the grid-level shading
    statistics, and two heads: mark (softmax over :data:`MARK_CLASSES`) and
    shaded (sigmoid). Trained with PyTorch by ``benchmarks/card_train.py``;
    run here in numpy and OpenCV (no PyTorch needed to read a card): a grid's readings
    one by one in numpy (:meth:`predict_half`, the plain path the training script
    uses), or all nine at once (:meth:`read_half`, what :meth:`predict_grid` reads
    with: their convolutions one OpenCV dnn network, ``use_dnn``, else a numpy batch),
    the same answers to float rounding.

    ``members`` holds the weights of one or more such networks, trained apart
    (other seeds); their probabilities are averaged (an ensemble errs less than
    either network, and its confidence is better calibrated).
    """

    members: list[dict]
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    info: dict | None = None
    #: run the convolutions with OpenCV's dnn module (:func:`_dnn_convolutions`)
    use_dnn: bool = field(default=True, repr=False, compare=False)
    #: :meth:`_reading`'s weights and the dnn networks, made from ``members`` on first use
    _readings: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def load(cls, path: Path | str) -> CellNet:
        with np.load(path, allow_pickle=False) as d:
            members = _member_arrays(d, d.files)
            conf = float(d["min_confidence"])
            info = json.loads(str(d["info"])) if "info" in d.files else None
        if not members or not all(_fits_inputs(m) for m in members):
            raise ValueError("card cell model does not match this version's inputs")
        return cls(members, conf, info)

    def save(self, path: Path | str) -> None:
        """Write the members (``net0.`` ... prefixes), threshold and info as ``.npz``."""
        arrays = {f"net{i}.{k}": v for i, m in enumerate(self.members) for k, v in m.items()}
        arrays["min_confidence"] = np.float32(self.min_confidence)
        arrays["info"] = np.array(json.dumps(self.info or {}))
        np.savez_compressed(path, **arrays)

    @property
    def planes(self) -> int:
        """The input planes of :func:`cell_maps` this model reads (:func:`_planes`)."""
        return _planes(self.members)

    def predict_maps(self, maps: np.ndarray, scalars: np.ndarray):
        """``(mark_probs (100, 7), shaded_prob (100,))`` from :func:`cell_maps`."""
        return self.predict_half(half_maps(maps), scalars)

    def predict_half(self, half: np.ndarray, scalars: np.ndarray):
        """:meth:`predict_maps` from the maps already at half resolution (:func:`half_maps`),
        averaged over the members."""
        self._check_planes(half)
        return _average([_predict_member(a, half, scalars) for a in self.members])

    def _check_planes(self, half: np.ndarray) -> None:
        """Refuse maps with fewer planes than the model reads (more are fine: each network
        reads the first ones), in words rather than a shape error deep in a convolution.

        >>> rng = np.random.default_rng(0)
        >>> w = rng.normal(size=(NET_CHANNELS[0], 3, 3, 3)).astype(np.float32)
        >>> CellNet([{"conv0_w": w}])._check_planes(np.zeros((2, 8, 8), np.float32))
        Traceback (most recent call last):
        ...
        ValueError: the cell model reads 3 input planes (cell_maps(planes=3)), got maps of 2
        """
        if half.ndim != 3 or half.shape[0] < self.planes:
            got = f"{half.shape[0]}" if half.ndim == 3 else f"shape {half.shape}"
            raise ValueError(
                f"the cell model reads {self.planes} input planes "
                f"(cell_maps(planes={self.planes})), got maps of {got}"
            )

    def predict_grid(
        self, rect: np.ndarray, mirror: bool = True, turned_triangles: bool | None = None
    ):
        """Probabilities for the 100 cells of a rectified grid.

        ``mirror`` averages them with the reading of the grid mirrored left to right
        (every class keeps its name in a mirror; the scalars are mirror-symmetric, so
        only the convolutions run twice): steadier answers, fewer unsure cells.
        ``turned_triangles`` (default: whether any member learned upright triangles only,
        :func:`learned_upright_triangles`) also reads the grid turned
        (:meth:`triangles_any_way`).
        """
        maps, scalars = cell_maps(rect, planes=self.planes)
        half = half_maps(maps)
        if turned_triangles is None:
            turned_triangles = any(map(learned_upright_triangles, self.members))
        if _turns_are_exact(half.shape):
            return self.read_half(half, scalars, mirror, turned_triangles)
        if not mirror:  # pragma: no cover - the grids of remap_grid always turn exactly
            return self.predict_half(half, scalars)
        pm, ps = self.predict_half_mirrored(half, scalars)
        if turned_triangles:
            pm = self.triangles_any_way(half, scalars, pm)
        return pm, ps

    def read_half(
        self, half: np.ndarray, scalars: np.ndarray, mirror: bool = True, turned: bool = True
    ):
        """:meth:`predict_grid` from the half-resolution maps, every reading in one batch.

        The same answers as :meth:`predict_half_mirrored` then :meth:`triangles_any_way`
        (``mirror=False``: :meth:`predict_half`) to float rounding, about twice as fast: a
        network reading the grid mirrored or turned is the network with its kernels mirrored
        or turned back reading the grid as it is (:func:`_read_batched`), so no reading
        copies the grid, and the first layer of all of them is one matrix product.
        """
        self._check_planes(half)
        readers = self._turned_readers() if mirror and turned else []
        plan = [(i, False, 0) for i in range(len(self.members))]
        if mirror:
            plan += [(i, True, 0) for i in range(len(self.members))]
        plan += [(i, False, k) for k in (1, 2, 3) for i in readers]
        readings = [self._reading(*p) for p in plan]
        key = ("batch", self.use_dnn, *plan)  # use_dnn may be set after a first read
        if key not in self._readings:
            lo, hi = _net_window()
            self._readings[key] = _dnn_convolutions(readings, hi - lo) if self.use_dnn else None
        outs = _read_batched(self.members, readings, half, scalars, self._readings[key])
        outs = dict(zip(plan, outs, strict=True))
        n = len(self.members)
        pm, ps = _average([outs[i, False, 0] for i in range(n)])
        if not mirror:
            return pm, ps
        pm2, ps2 = _average([outs[i, True, 0] for i in range(n)])
        pm, ps = 0.5 * (pm + pm2), 0.5 * (ps + ps2)
        if readers:
            pm = _take_turned_triangles(
                pm, [_average([outs[i, False, k] for i in readers])[0] for k in (1, 2, 3)]
            )
        return pm, ps

    def _reading(self, i: int, flip: bool, turns: int) -> _Reading:
        """Member ``i`` reading the grid mirrored and turned (:class:`_Reading`), made once."""
        key = (i, flip, turns)
        if key not in self._readings:
            self._readings[key] = _Reading.of(self.members, i, flip, turns)
        return self._readings[key]

    def _turned_readers(self) -> list[int]:
        """Indices of the members that read the grid turned (:meth:`triangles_any_way`)."""
        upright = [i for i, m in enumerate(self.members) if learned_upright_triangles(m)]
        if upright and len(upright) < len(self.members):
            return upright
        return list(range(len(self.members)))

    def triangles_any_way(self, half: np.ndarray, scalars: np.ndarray, pm: np.ndarray):
        """Mark probabilities ``pm`` with triangles that point left, right or down read too.

        The network learned upright triangles, but players point them the way of travel
        (*Rotator*). Every other class keeps its name under a quarter turn, and so do the
        scalars (order statistics, sorted rings, the steps' min/max/mean), so the grid
        turned a quarter, half or three quarters is read as well; where a turned reading
        names a triangle more surely (at least ``TURNED_TRIANGLE``) than the upright one,
        that cell takes the turned reading's marks. Shading stays as read upright.
        Only the members that learned upright triangles only read the turned grid (all,
        if none did): the others read triangles any way already.
        """
        readers = CellNet([self.members[i] for i in self._turned_readers()])
        grid = scalars.reshape(10, 10, -1)
        turned = []
        for k in (1, 2, 3):
            half_k = np.ascontiguousarray(np.rot90(half, k, axes=(1, 2)))
            pk, _ = readers.predict_half(half_k, np.rot90(grid, k).reshape(100, -1))
            turned.append(np.rot90(pk.reshape(10, 10, -1), -k).reshape(100, -1))
        return _take_turned_triangles(pm, turned)

    def predict_half_mirrored(self, half: np.ndarray, scalars: np.ndarray):
        """:meth:`predict_half` averaged with the reading of the grid mirrored left to right
        (what :meth:`predict_grid` returns; the training script chooses the threshold on it)."""
        pm, ps = self.predict_half(half, scalars)
        flipped = scalars.reshape(10, 10, -1)[:, ::-1].reshape(100, -1)
        pm2, ps2 = self.predict_half(half[:, :, ::-1], flipped)
        pm2 = pm2.reshape(10, 10, -1)[:, ::-1].reshape(100, -1)
        ps2 = ps2.reshape(10, 10)[:, ::-1].ravel()
        return 0.5 * (pm + pm2), 0.5 * (ps + ps2)


@functools.lru_cache(maxsize=1)
def default_classifier() -> CellNet:
    """The network shipped with piecebridge (``card_cells_model.npz``)."""
    return CellNet.load(MODEL_PATH)


# ----------------------------------------------------------------------------- reading


@dataclass
class _Cell:
    mark: str | None
    shaded: bool
    confidence: float


def _second_shading_opinion(rect: np.ndarray, pm: np.ndarray, ps: np.ndarray) -> np.ndarray:
    """``ps`` after :func:`piecebridge.vision.card_shading.second_opinion` (a doubted
    marked cell whose bare paper steps darker across its lines is turned shaded); the
    grid's layers are worked out again only when some cell is doubted."""
    if card_shading.candidates(pm, ps).size == 0:
        return ps
    return card_shading.second_opinion(_layers(rect, CELL_PX, MARGIN_CELLS), CELL_PX, pm, ps)


def classify_grid(rect: np.ndarray, clf: CellNet, min_confidence: float | None = None):
    """Read all 100 cells of an upright rectified grid.

    Returns ``(cells, unknown)``: ``cells`` maps every confidently read cell name
    to a :class:`piecebridge.vision.card.CellReading`; ``unknown`` lists the rest.
    """
    from piecebridge.vision.card import CellReading

    thr = clf.min_confidence if min_confidence is None else min_confidence
    pm, ps = clf.predict_grid(rect)
    ps = _second_shading_opinion(rect, pm, ps)
    cells: dict = {}
    unknown: list[str] = []
    for i in range(100):
        name = cell_name(i // 10, i % 10)
        k = int(pm[i].argmax())
        conf = float(pm[i, k]) * float(max(ps[i], 1 - ps[i]))
        if conf < thr:
            unknown.append(name)
            continue
        cells[name] = CellReading(MARK_CLASSES[k], bool(ps[i] > 0.5), conf)
    return cells, unknown


def truth_labels(truth_grid: dict) -> tuple[np.ndarray, np.ndarray]:
    """``(mark_index (100,), shaded (100,))`` from a ``card/1`` grid object."""
    mark = np.zeros(100, np.int64)
    shaded = np.zeros(100, np.float32)
    for name, item in truth_grid.get("cells", {}).items():
        r, c = int(name[1:]) - 1, "ABCDEFGHIJ".index(name[0])
        mark[r * 10 + c] = MARK_CLASSES.index(item.get("mark"))
        shaded[r * 10 + c] = float(bool(item.get("shaded")))
    return mark, shaded
