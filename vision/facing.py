"""Reading a coin's facing from its own markings.

The suit's learned look (facing north) is turned to each facing and correlated, inside the
coin's disc, with a window around the coin at every 1-px shift; the turn that also lines up the
directional markings wins. Without a learned look, the facing is where the coin's small
separate mark (a dot or a small triangle at the top of the suit side) sits.

>>> [np.rot90(np.arange(4).reshape(2, 2), FACING_ROT[f]).ravel().tolist() for f in FACINGS]
[[0, 1, 2, 3], [2, 0, 3, 1], [3, 2, 1, 0], [1, 3, 0, 2]]
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING

import cv2
import numpy as np
import scipy.fft as sfft
from piecebridge.calibration.geometry import N, median_colour
from piecebridge.vision.raster import (
    FACE_CROP,
    FACE_PX,
    FACE_SEARCH,
    MARGIN,
    OFFSETS,
    PX,
    disc,
)

if TYPE_CHECKING:
    from piecebridge.vision.cells import BoardViews, CellDecision

FACINGS = ("north", "east", "south", "west")
#: np.rot90 ``k`` turning a north-facing look into each facing (k=-1 is clockwise).
FACING_ROT = {"north": 0, "east": -1, "south": 2, "west": 1}


#: Only the coin itself is compared when reading facing (not the grid line beside it).
FACE_MASK = disc(FACE_CROP, 0.33 * FACE_PX)[..., None]
#: Rows (and columns) of zeros around the disc in FACE_MASK.
_DISC_BORDER = int(np.argmax(FACE_MASK[..., 0].any(axis=1)))


def coin_centre(views: BoardViews, i: int) -> tuple[float, float] | None:
    """Sub-pixel centre (FACE_PX rectified pixels) of the coin in cell ``i``, or None.

    The coin's rim is the strongest circle of a coin-like radius near the cell centre.
    """
    extra = round(0.2 * FACE_PX)
    x0 = round((MARGIN + i % N + 0.5) * FACE_PX - FACE_CROP / 2) - extra
    y0 = round((MARGIN + i // N + 0.5) * FACE_PX - FACE_CROP / 2) - extra
    size = FACE_CROP + 2 * extra
    # The window's lightness (the relative Lab of face_window keeps it as it is).
    win = views.lab_hi[y0 : y0 + size, x0 : x0 + size, 0].astype(np.float32)
    light = cv2.normalize(win, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    circles = cv2.HoughCircles(
        cv2.GaussianBlur(light, (0, 0), 1.0), cv2.HOUGH_GRADIENT, dp=1, minDist=FACE_PX,
        param1=80, param2=8, minRadius=round(0.28 * FACE_PX), maxRadius=round(0.47 * FACE_PX),
    )  # fmt: skip
    if circles is None:
        return None
    x, y, _ = circles[0, 0]
    return x0 + float(x), y0 + float(y)


def face_window(
    views: BoardViews,
    i: int,
    shift: int,
    extra: int = FACE_SEARCH,
    offset: tuple[float, float] | None = None,
) -> np.ndarray:
    """The FACE_PX window around cell ``i`` at coarse ``shift`` (index into the shifts) or
    at ``offset`` (dy, dx in PX pixels), ``extra`` pixels wider each way for the fine search."""
    dy, dx = OFFSETS[shift] if offset is None else offset
    k = FACE_PX / PX
    cx = (MARGIN + i % N + 0.5) * FACE_PX + dx * k
    cy = (MARGIN + i // N + 0.5) * FACE_PX + dy * k
    x0, y0 = round(cx - FACE_CROP / 2) - extra, round(cy - FACE_CROP / 2) - extra
    size = FACE_CROP + 2 * extra
    return views.rel_hi_window(y0, x0, size)


_PREPARED: dict[int, tuple[np.ndarray, list[tuple[np.ndarray, float]]]] = {}


def _prepared(turned: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """Per turn: the disc-masked, centred look (as matchTemplate wants it) and its norm.
    Kept per array (looks are made once per setup), holding the array so its id stays."""
    hit = _PREPARED.get(id(turned))
    if hit is not None and hit[0] is turned:
        return hit[1]
    c = turned.shape[1]
    n = c * c
    out = []
    for t in turned:
        tm = fine_detail(t) * FACE_MASK
        tc = tm - tm.reshape(n, 3).mean(axis=0)
        norm = float(np.sqrt((tc * tc).sum())) + 1e-6
        b = _DISC_BORDER  # zero outside the disc: correlate over its bounding box only
        out.append((np.ascontiguousarray((tc * FACE_MASK)[b : c - b, b : c - b], np.float32), norm))
    if len(_PREPARED) > 64:
        _PREPARED.clear()
    _PREPARED[id(turned)] = (turned, out)
    return out


#: Facing is read from the coin's fine detail: its look minus a blur of this sigma (FACE_PX
#: pixels). Light and shade across a coin (a darker rim on the side away from the lamp,
#: a glare patch) do not turn with the coin; in the calibration photo every coin faces
#: north, so without this the shading would be learned as "north".
FACE_DETAIL_SIGMA = 3.0


def fine_detail(a: np.ndarray) -> np.ndarray:
    """``a`` minus its Gaussian blur (float32, same shape)."""
    a = np.ascontiguousarray(a, np.float32)
    if FACE_DETAIL_SIGMA <= 0:
        return a
    return a - cv2.GaussianBlur(a, (0, 0), FACE_DETAIL_SIGMA, borderType=cv2.BORDER_REFLECT)


def face_scores(
    window: np.ndarray, turned: np.ndarray, turns: list[int] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Best normalised correlation, inside the coin disc, of each turned look (t, C, C, 3)
    over all shifts of ``window``, and the window that fits the best turn (C, C, 3).

    The symmetric parts (rim, symbol body) fit every turn about equally; the turn that also
    lines up the markings scores highest, however small its lead (see ``_read_facing``).
    Computed with correlations (no per-shift copies): for a look ``T`` centred over the
    whole square, ``<mask * W - mean, T> = <W, mask * T>`` since ``T`` sums to zero.
    """
    scores, at = _face_fit(window, turned, turns)
    y, x = at[int(np.argmax(scores))]
    c = turned.shape[1]
    return scores, window[y : y + c, x : x + c]


def _face_fit(
    window: np.ndarray, turned: np.ndarray, turns: list[int] | None = None
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """:func:`face_scores`'s scores, and where (row, column in ``window``) each turn's best
    fit starts."""
    c = turned.shape[1]
    n = c * c
    b = _DISC_BORDER
    detail = fine_detail(window)
    # Everything outside the disc is masked out: work on the disc's bounding box only.
    win = np.ascontiguousarray(detail[b : window.shape[0] - b, b : window.shape[1] - b], np.float32)
    m = np.ascontiguousarray(FACE_MASK[b : c - b, b : c - b, 0], np.float32)
    h = win.shape[0] - (c - 2 * b) + 1
    # Per shift and channel: sum and sum of squares of the window inside the disc.
    s1 = cv2.filter2D(win, -1, m, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT)[:h, :h]
    s2 = cv2.filter2D(win * win, -1, m, anchor=(0, 0), borderType=cv2.BORDER_CONSTANT)[:h, :h]
    w_norm = np.sqrt(np.maximum((s2 - s1 * s1 / n).sum(axis=-1), 1e-12))
    scores, at = [], []
    prepared = _prepared(turned)
    for tmpl, t_norm in prepared if turns is None else [prepared[k] for k in turns]:
        r = cv2.matchTemplate(win, tmpl, cv2.TM_CCORR) / (w_norm * t_norm)
        k = int(np.argmax(r))
        scores.append(float(r.flat[k]))
        at.append(divmod(k, h))
    return np.array(scores), at


def read_facings(jobs: list[tuple[CellDecision, np.ndarray]], turned: dict) -> np.ndarray:
    """:func:`_read_facing` for each (decision, window), all coins at once in the frequency
    domain (:func:`face_scores_batch`: a quarter of the time of one correlation per coin and
    turn; one batched product over gathered shift copies had cost 2.5x the correlations).
    Returns the scores (n, 4), for :func:`read_twisted`."""
    if not jobs:
        return np.zeros((0, len(FACINGS)), np.float32)
    scores = face_scores_batch([w for _, w in jobs], [turned[d.best[1]] for d, _ in jobs])
    for (d, _), s in zip(jobs, scores, strict=True):
        _set_facing(d, s)
    return scores


def read_twisted(
    jobs: list[tuple[CellDecision, np.ndarray]], turned: dict, scores: np.ndarray
) -> None:
    """Read the facing of each (decision, window) again with its looks twisted by
    ``TWIST_DEG`` each way (:func:`twisted`), each turn keeping its best score of those and
    of ``scores`` (the untwisted ones, see :func:`read_facings`): hands lay coins a little
    askew, and the fine detail the facing is read from fits a look a few degrees off only
    loosely, leaving the right turn a small lead."""
    if not jobs or not TWIST_DEG:
        return
    # Both twists of the four turns as eight looks: each window transformed once.
    looks = [twisted(turned[d.best[1]], TWIST_DEG) for d, _ in jobs]
    both = face_scores_batch([w for _, w in jobs], looks).reshape(len(jobs), 2, -1)
    best = np.maximum(np.asarray(scores), both.max(axis=1))
    for (d, _), s in zip(jobs, best, strict=True):
        _set_facing(d, s)


#: Coins read with a small lead are read again with their looks twisted this many degrees
#: each way (see :func:`read_twisted`). Tune split, 35 rigs, with setup (wrong / unknown not
#: covered / exact where visible, 140 shots): see benchmarks/results/vision_reflec.md, round 6.
TWIST_DEG = 10.0

_TWISTED: dict[tuple[int, float], tuple[np.ndarray, np.ndarray]] = {}


def twisted(turned: np.ndarray, deg: float) -> np.ndarray:
    """The turned looks (t, C, C, 3) each twisted ``-deg`` and then ``deg`` degrees
    (counter-clockwise) about the centre, (2 t, C, C, 3): a new array, made once per looks
    array and angle and kept (the spectra of :func:`face_scores_batch` are kept per array).

    >>> t = np.zeros((1, 9, 9, 3), np.float32)
    >>> t[0, 0:4, 4] = 1.0  # a line from the centre to the top
    >>> q = twisted(t, 90.0)[1, ..., 0]  # counter-clockwise: to the left
    >>> bool(q[4, 0:4].min() > 0.9 and q[0:4, 4].max() < 0.1)
    True
    """
    hit = _TWISTED.get((id(turned), deg))
    if hit is not None and hit[0] is turned:
        return hit[1]
    c = turned.shape[1]
    looks = []
    for a in (-deg, deg):
        M = cv2.getRotationMatrix2D(((c - 1) / 2, (c - 1) / 2), a, 1.0)
        looks += [cv2.warpAffine(t, M, (c, c), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE) for t in turned]  # fmt: skip
    out = np.ascontiguousarray(np.stack(looks), np.float32)
    if len(_TWISTED) > 32:
        _TWISTED.clear()
    _TWISTED[(id(turned), deg)] = (turned, out)
    return out


_SPECTRA: dict[tuple[int, int], tuple] = {}


def _spectra(turned: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Conjugate spectra (4, 3, size, size // 2 + 1) of the prepared turned looks (see
    :func:`_prepared`) zero-padded to ``size``, and their norms (4,); made once per look."""
    hit = _SPECTRA.get((id(turned), size))
    if hit is not None and hit[0] is turned:
        return hit[1], hit[2]
    prepared = _prepared(turned)
    k = prepared[0][0].shape[0]
    pad = np.zeros((len(prepared), 3, size, size), np.float32)
    for j, (tmpl, _) in enumerate(prepared):
        pad[j, :, :k, :k] = tmpl.transpose(2, 0, 1)
    spectra = np.conj(sfft.rfft2(pad))
    norms = np.array([n for _, n in prepared], np.float32)
    if len(_SPECTRA) > 64:
        _SPECTRA.clear()
    _SPECTRA[(id(turned), size)] = (turned, spectra, norms)
    return spectra, norms


def face_scores_batch(
    windows: list[np.ndarray],
    turned: list[np.ndarray],
    size: int | None = None,
    keep_maps: bool = False,
) -> np.ndarray:
    """``face_scores(w, t)[0]`` for each window and its suit's turned looks, (n, t): the
    same correlations, as products of spectra (scipy.fft, transforms over a few windows at
    a time: see :data:`LOOKS_PER_PASS`). Windows may differ in size; every looks array
    must hold the same number ``t`` of looks (the four turns, or more).

    The transforms are ``size`` wide (default :func:`fft_size` of ``windows``). A window's
    scores with a looks array at that size that :func:`remember_scores` holds are taken
    from there: they are the very numbers this would compute (each window's and each
    look's transforms are their own, whatever else is in the batch). ``keep_maps``: hold
    the fits at every shift of the windows correlated here (see :func:`best_fit_at`).

    >>> rng = np.random.default_rng(0)
    >>> t = rng.normal(size=(4, FACE_CROP, FACE_CROP, 3)).astype(np.float32)
    >>> w = [rng.normal(size=(FACE_CROP + 2 * e,) * 2 + (3,)).astype(np.float32) for e in (4, 6)]
    >>> got = face_scores_batch(w, [t, t])
    >>> bool(np.allclose(got, [face_scores(x, t)[0] for x in w], atol=1e-4))
    True
    """
    size = fft_size(windows) if size is None else size
    m = turned[0].shape[0]
    out = np.empty((len(windows), m), np.float32)
    todo = []
    for i, (w, t) in enumerate(zip(windows, turned, strict=True)):
        k = known_scores(w, t, size)
        if k is None:
            todo.append(i)
        else:
            out[i] = k
    step = max(1, LOOKS_PER_PASS // (m + 4))  # windows correlated in one pass
    for a in range(0, len(todo), step):
        part = todo[a : a + step]
        maps = _fit_maps([windows[i] for i in part], [turned[i] for i in part], size)
        out[part] = maps.reshape(*maps.shape[:2], -1).max(axis=2)
        for i, r in zip(part, maps, strict=True) if keep_maps else ():
            remember_maps(windows[i], turned[i], r)
    return out


#: :func:`face_scores_batch` correlates at most about this many looks (each window's looks
#: and its four disc sums) in one pass, so that the spectra's products and their inverse
#: transforms stay in the core's cache: three woodburned coins' 32 twisted looks at once
#: took 2.8 ms, one coin at a time 1.5 ms (the same numbers: each window's and each look's
#: transforms are their own); three coins' 16 looks at once 0.9 ms, one at a time 1.1.
LOOKS_PER_PASS = 64


def fft_size(windows: list[np.ndarray]) -> int:
    """The transform size :func:`face_scores_batch` uses for ``windows`` by default: the
    widest window's, less the zero border around the coin's disc, made fast for scipy.fft."""
    return sfft.next_fast_len(max(w.shape[0] for w in windows) - 2 * _DISC_BORDER, real=True)


@dataclasses.dataclass
class _Held:
    """What :func:`correlations_held` keeps of one frame's coins, each by the ids of its
    arrays, with the arrays themselves held (an id alone could be reused by a new array)."""

    #: (window id, looks id) -> (window, looks, {transform size: scores}): :func:`remember_scores`.
    scores: dict = dataclasses.field(default_factory=dict)
    #: (window id, looks id) -> (window, looks, fits at every shift): :func:`remember_maps`.
    maps: dict = dataclasses.field(default_factory=dict)
    #: (window id, transform size) -> (window, spectrum): :func:`_window_spectra`.
    spectra: dict = dataclasses.field(default_factory=dict)


#: The correlations held for the frame being read (:func:`correlations_held`), per thread
#: (and per asyncio task); None outside one frame's reading: nothing is held.
_HELD: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("facing_held", default=None)


@contextlib.contextmanager
def correlations_held() -> Iterator[None]:
    """Within it, correlations of coin windows with looks are held as they are made and taken
    up when asked again (:func:`remember_scores`, :func:`remember_maps`, each window's
    spectrum): a one-ink coin's suit, facing and symbol shape are read from one set of
    correlations (the very numbers: each window's and each look's transforms are their
    own). Everything held is let go on leaving, with the windows. Use it around one
    frame's reads; the arrays read inside must not change while in it.

    >>> w = np.ones((FACE_CROP, FACE_CROP, 3), np.float32)
    >>> t = np.ones((4, FACE_CROP, FACE_CROP, 3), np.float32)
    >>> with correlations_held():
    ...     remember_scores(w, t, 64, np.zeros(4))
    ...     known_scores(w, t, 64).tolist()
    [0.0, 0.0, 0.0, 0.0]
    >>> known_scores(w, t, 64) is None  # let go
    True
    """
    token = _HELD.set(_Held())
    try:
        yield
    finally:
        _HELD.reset(token)


def remember_scores(window: np.ndarray, turned: np.ndarray, size: int, scores: np.ndarray) -> None:
    """Hold ``scores``, :func:`face_scores_batch`'s for ``window`` with the looks ``turned``
    at transform ``size`` (e.g. a slice of the scores with a larger looks array that holds
    ``turned``'s looks), for a later batch that asks for them, while in
    :func:`correlations_held` (outside it, nothing is held)."""
    held = _HELD.get()
    if held is None:
        return
    key = (id(window), id(turned))
    hit = held.scores.get(key)
    if hit is None or hit[0] is not window or hit[1] is not turned:
        hit = held.scores[key] = (window, turned, {})
    hit[2][size] = np.array(scores, np.float32)


def known_scores(
    window: np.ndarray, turned: np.ndarray, size: int | None = None
) -> np.ndarray | None:
    """The scores :func:`remember_scores` holds for ``window`` and ``turned`` at ``size``
    (None: at any size, where rounding does not matter), or None."""
    held = _HELD.get()
    hit = None if held is None else held.scores.get((id(window), id(turned)))
    if hit is None or hit[0] is not window or hit[1] is not turned or not hit[2]:
        return None
    return next(iter(hit[2].values())) if size is None else hit[2].get(size)


def remember_maps(window: np.ndarray, turned: np.ndarray, maps: np.ndarray) -> None:
    """Hold ``maps``, the fits (looks, h, h) of ``turned`` at every shift over ``window`` as
    :func:`face_scores_batch` makes them (at any transform size), for :func:`best_fit_at`,
    while in :func:`correlations_held` (outside it, nothing is held)."""
    held = _HELD.get()
    if held is not None:
        held.maps[(id(window), id(turned))] = (window, turned, maps)


def known_maps(window: np.ndarray, turned: np.ndarray) -> np.ndarray | None:
    """The fits :func:`remember_maps` holds for ``window`` and ``turned``, or None."""
    held = _HELD.get()
    hit = None if held is None else held.maps.get((id(window), id(turned)))
    return None if hit is None or hit[0] is not window or hit[1] is not turned else hit[2]


def best_fit_at(window: np.ndarray, turned: np.ndarray) -> tuple[tuple[int, int], float]:
    """Where (row, column in ``window``) a look of ``turned`` fits ``window`` best, by
    :func:`face_scores_batch`'s correlations (those of :func:`face_scores`, but for
    rounding), and by how much that fit leads the next best (any look, any shift); from
    the fits :func:`remember_maps` holds, if it does."""
    r = known_maps(window, turned)
    if r is None:
        r = _fit_maps([window], [turned], fft_size([window]))[0]
    flat = r.ravel()
    k = int(np.argmax(flat))
    second = float(np.partition(flat, -2)[-2])
    y, x = divmod(k % (r.shape[1] * r.shape[2]), r.shape[2])
    return (y, x), float(flat[k]) - second


def _fit_maps(windows: list[np.ndarray], turned: list[np.ndarray], size: int) -> np.ndarray:
    """Each window's fit (normalised correlation inside the coin's disc) with each of its
    looks at every shift that keeps the disc inside it, (n, t, h, h) for the widest
    window's h shifts each way; -2 at the shifts a narrower window does not have."""
    c = turned[0].shape[1]
    k = c - 2 * _DISC_BORDER  # the prepared looks' size
    sizes = [w.shape[0] - 2 * _DISC_BORDER for w in windows]
    n = len(windows)
    spec = _window_spectra(windows, sizes, size)
    m = turned[0].shape[0]  # looks per window
    products = np.empty((n, m + 4, *spec.shape[2:]), spec.dtype)
    t_norm = np.empty((n, m), np.float32)
    # Windows of one suit together: no gathered copies of the looks' spectra.
    groups: dict[int, list[int]] = {}
    for i, t in enumerate(turned):
        groups.setdefault(id(t), []).append(i)
    for members in groups.values():
        t_spec, norms = _spectra(turned[members[0]], size)  # (m, 3, size, size // 2 + 1)
        w = spec[members, None]
        if len(members) == n:  # one looks array: the same sums, made in place
            out = products[:, :m]
            np.multiply(w[:, :, 0], t_spec[:, 0], out=out)
            out += w[:, :, 1] * t_spec[:, 1]
            out += w[:, :, 2] * t_spec[:, 2]
        else:
            products[members, :m] = w[:, :, 0] * t_spec[:, 0] + w[:, :, 1] * t_spec[:, 1]
            products[members, :m] += w[:, :, 2] * t_spec[:, 2]
        t_norm[members] = norms
    products[:, m:] = spec * _mask_spectrum(size)  # sums (3 channels), squares in the disc
    # Only shifts that keep the disc inside the window count: the first h of each axis.
    h = np.array(sizes) - k + 1
    top = int(h.max())
    # The inverse transform of those rows and columns only (irfft2 = ifft down, irfft across).
    corr = sfft.irfft(sfft.ifft(products, axis=-2)[..., :top, :], n=size, axis=-1)[..., :top]
    s1, s2 = corr[:, m : m + 3], corr[:, m + 3]
    w_norm = np.sqrt(np.maximum(s2 - (s1 * s1).sum(axis=1) / (c * c), 1e-12))
    r = corr[:, :m] / (w_norm[:, None] * t_norm[:, :, None, None])
    if (h < top).any():  # a narrower window: its shifts past its own h do not count
        valid = np.arange(top) < h[:, None]
        r = np.where((valid[:, :, None] & valid[:, None, :])[:, None], r, -2.0)
    return r


def _window_spectra(windows: list[np.ndarray], sizes: list[int], size: int) -> np.ndarray:
    """Spectra (n, 4, size, size // 2 + 1) of each window's fine detail (3 channels) and of
    the detail's squares summed over the channels, inside the disc's border (``sizes``:
    the windows' sizes less it) and zero-padded to ``size``: zeros beyond a window cannot
    reach its valid shifts. Each is made once per window and size in
    :func:`correlations_held`: a window's transform is its own, whatever else is in a batch."""
    b = _DISC_BORDER
    spec = np.empty((len(windows), 4, size, size // 2 + 1), np.complex64)
    held = _HELD.get()
    known = {} if held is None else held.spectra
    todo = []
    for i, w in enumerate(windows):
        hit = known.get((id(w), size))
        if hit is not None and hit[0] is w:
            spec[i] = hit[1]
        else:
            todo.append(i)
    if not todo:
        return spec
    stack = np.zeros((len(todo), 4, size, size), np.float32)
    by_size: dict[int, list[int]] = {}
    for j, i in enumerate(todo):
        by_size.setdefault(sizes[i], []).append(j)
    for s, members in by_size.items():  # windows of one size filled together
        detail = np.stack([fine_detail(windows[todo[j]])[b : b + s, b : b + s] for j in members])
        detail = detail.transpose(0, 3, 1, 2)
        stack[members, :3, :s, :s] = detail
        stack[members, 3, :s, :s] = np.einsum("nchw,nchw->nhw", detail, detail)
    fresh = sfft.rfft2(stack)
    spec[todo] = fresh
    for j, i in enumerate(todo) if held is not None else ():
        known[(id(windows[i]), size)] = (windows[i], fresh[j])
    return spec


def _mask_spectrum(size: int) -> np.ndarray:
    """Conjugate spectrum of the disc (its bounding box) zero-padded to ``size``."""
    hit = _SPECTRA.get((-1, size))
    if hit is None:
        b = _DISC_BORDER
        m = FACE_MASK[b : FACE_MASK.shape[0] - b, b : FACE_MASK.shape[1] - b, 0]
        pad = np.zeros((size, size), np.float32)
        pad[: m.shape[0], : m.shape[1]] = m
        hit = (None, np.conj(sfft.rfft2(pad)), None)
        _SPECTRA[(-1, size)] = hit
    return hit[1]


def _read_facing(d: CellDecision, window: np.ndarray, turned: np.ndarray) -> None:
    """Set ``d.facing`` from the coin's own markings.

    The suit's look is matched in each of its four turns at every 1-px shift of a window
    around the coin (inside the coin's disc only); the symmetric parts (rim, symbol body)
    fit equally in all turns, so the turn that also lines up the directional markings wins.
    (Matching only the part that turns with the coin, at the shift the shared part finds,
    was tried and misread 16 % of facings on the tune split instead of 2.5 %: each turn
    needs its own fine shift.)
    """
    _set_facing(d, face_scores(window, turned)[0])


def _set_facing(d: CellDecision, scores: np.ndarray) -> None:
    """The facing of the best-fitting turn, and its lead (see :func:`_read_facing`)."""
    order = np.argsort(scores)[::-1]
    d.facing = FACINGS[int(order[0])]
    # Compare what is left unexplained: the winner's residual as a share of the
    # runner-up's. Symbols that look alike in all turns leave tiny but telling residuals.
    d.facing_margin = float(1.0 - (1.0 - scores[order[0]]) / (1.0 - scores[order[1]] + 1e-6))
    # The same lead over every turn (0 for the best): which turns the look cannot rule out.
    d.turn_leads = tuple(float(1.0 - (1.0 - scores[order[0]]) / (1.0 - s + 1e-6)) for s in scores)


#: The patch a separate mark is looked for in (FACE_PX pixels), and the coin's disc in it.
_MARK_SIZE = 2 * round(0.36 * FACE_PX) + 1
_MARK_INSIDE = disc(_MARK_SIZE, 0.34 * FACE_PX).astype(bool)


def read_facing_from_mark(
    d: CellDecision,
    views: BoardViews,
    i: int,
    shift: int,
    centre: tuple[float, float] | None = None,
    spot: tuple[float, float] | None = None,
) -> None:
    """Without a learned look: the facing is where the coin's small separate mark sits (a
    dot or a small triangle at the top of the suit side, as on standard Piecepack coins).
    ``centre``: the coin's centre (FACE_PX pixels) when known; else its rim circle's.
    ``spot``: where the suit's mark sits and how big it is, learned from the calibration
    coins (see :func:`mark_blob`); only blobs there count."""
    facing, d.facing_margin = mark_blob(views, mark_centre(views, i, shift, centre), spot)[:2]
    if facing is not None:  # none found: the facing is left as it was, with no lead
        d.facing = facing


def mark_centre(
    views: BoardViews, i: int, shift: int, centre: tuple[float, float] | None = None
) -> tuple[float, float]:
    """``centre`` if given, else cell ``i``'s coin's rim circle centre, else the centre of
    its coarse fit at ``shift`` (FACE_PX pixels)."""
    c = coin_centre(views, i) if centre is None else centre
    if c is None:
        dy, dx = OFFSETS[shift]
        k = FACE_PX / PX
        c = ((MARGIN + i % N + 0.5) * FACE_PX + dx * k, (MARGIN + i // N + 0.5) * FACE_PX + dy * k)
    return c


#: A learned mark spot: blobs count within this distance (FACE_PX pixels) of the mark's
#: learned distance from the centre and this factor of its learned area. Tune split
#: (wrong / unknown not covered / exact where visible, 140 shots; no spot 1 / 77 / 98):
#: 0.08 and 2.5 give 1 / 76 / 99, as do 0.12 and 2.5 or 0.08 and 2; 0.06 and 2.5
#: 1 / 77 / 99; 0.06 and 4 1 / 79 / 97; 0.045 and 2.5 1 / 80 / 98; 0.03 and 2.5 3 / 76 / 97.
#: The size does the work: a rim line's arc or a symbol's loose part is bigger or smaller.
SPOT_RADIUS_TOL = 0.08 * FACE_PX
SPOT_AREA_FACTOR = 2.5
#: ... and up to this factor of the learned mark's extent along the rim over its extent
#: across it (a rim line's arc is long along the rim). Tune: 1.75 and 1.4 1 / 72 / 100;
#: 2.5 1 / 76 / 99; 1.2 2 / 74 / 98 (a suns coin's own triangle left out).
SPOT_ELONG_FACTOR = 1.75
#: A blob taken past the generic ring (only where nothing in it fits the learned spot, see
#: :func:`mark_blob`) reads with this share of its lead: never sure alone (``MARK_SURE``
#: 0.6 in ``cells``), at most leaning. Round 21 (the reviewer's point: a washed-out mark
#: leaves a rim speck as the only blob there): tune piecepackr 0-34, acrylic 0-49 and
#: mixed 0-79 decide every cell as at full lead.
PAST_RING_LEAD = 0.5


def mark_blob(
    views: BoardViews, c: tuple[float, float], spot: tuple[float, float] | None = None
) -> tuple[str | None, float, float, float]:
    """(facing, lead, distance from ``c``, area) of the small separate mark of the coin
    centred at ``c`` (FACE_PX pixels); (None, 0, 0, 0) when none is found. ``spot``: the
    suit's learned (distance, area) of its mark (calibration coins): only blobs that far
    out and about that big count, so a symbol's inner detail (a crown's jewels) or bits of
    the rim line are not taken for it."""
    none = (None, 0.0, 0.0, 0.0, 1.0)
    n, stats, off = _ink_blobs(views, c)
    if n < 3:  # a mark needs a symbol beside it
        return none
    area = stats[1:, cv2.CC_STAT_AREA].astype(float)
    off = off[1:]
    r = np.hypot(off[:, 0], off[:, 1])
    # Not the symbol (big), not specks of the rim (tiny, at the disc's edge).
    small = (area <= 0.15 * area.sum()) & (area >= 4)
    ring = (r >= 0.15 * FACE_PX) & (r <= 0.31 * FACE_PX)
    # Extent along the rim over extent across it (a rim line's arc is long along it).
    w = stats[1:, cv2.CC_STAT_WIDTH].astype(float)
    h = stats[1:, cv2.CC_STAT_HEIGHT].astype(float)
    sin, cos = np.abs(off[:, 0]) / (r + 1e-9), np.abs(off[:, 1]) / (r + 1e-9)
    elong = (sin * h + cos * w) / (sin * w + cos * h + 1e-9)  # 0 for a blob at the centre
    if spot is not None:
        small &= np.abs(r - spot[0]) <= SPOT_RADIUS_TOL
        small &= (area <= SPOT_AREA_FACTOR * spot[1]) & (area >= spot[1] / SPOT_AREA_FACTOR)
        if len(spot) > 2:
            small &= elong <= SPOT_ELONG_FACTOR * spot[2]
        # Past the generic ring only when nothing in it fits the learned spot: a mark
        # printed near the rim, seen from a centre a pixel off, lies past it (tune
        # piecepackr 13/2 e3 and 31/2 e8, acrylic 35/0 f6: 12.5-12.9 px, learned 11.4-12.2);
        # where the ring holds a blob, a rim line's piece past it must not outbid it.
        if (small & ring).any():
            small &= ring
    else:
        small &= ring
    if not small.any():
        return none
    j = int(np.argmax(np.where(small, r, -1)))
    ang = np.degrees(np.arctan2(off[j, 0], -off[j, 1])) % 360  # 0 = north, clockwise
    k = round(ang / 90) % 4
    # Lead: how squarely the mark points along a board axis, and that it stands alone.
    others = small.copy()
    others[j] = False
    # Another small blob about as far out (a symbol's loose petal) makes the mark doubtful.
    alone = 1.0 if not others.any() else float(np.clip(2 * (1 - r[others].max() / r[j]), 0, 1))
    lead = float((1 - abs((ang - 90 * k + 180) % 360 - 180) / 45) * alone)
    if not ring[j]:
        # Found past the generic ring (see above): a washed-out mark leaves the rim line's
        # specks there, as big and as far out as the learned spot. Half the lead: such a
        # read is never sure alone (MARK_SURE), only leaning; two that agree still count.
        lead *= PAST_RING_LEAD
    return FACINGS[k], lead, float(r[j]), float(area[j]), float(elong[j])


def _ink_blobs(views: BoardViews, c: tuple[float, float]) -> tuple[int, np.ndarray, np.ndarray]:
    """The blobs printed on the coin centred at ``c`` (FACE_PX pixels): what stands out
    from the disc's median colour, as ``cv2.connectedComponentsWithStats`` gives them (count,
    stats), and their centroids' offsets from ``c``."""
    size, inside = _MARK_SIZE, _MARK_INSIDE
    patch = _sub_pixel_patch(views, size, c)
    base = median_colour(patch[inside])
    ink = (_colour_distance(patch, base) > 30) & inside
    n, _, stats, cents = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    return n, stats, cents - (size - 1) / 2


def symbol_offset(views: BoardViews, c: tuple[float, float]) -> float:
    """How far (FACE_PX pixels) the biggest blob printed on the coin around ``c`` (its
    symbol) is centred from ``c``; inf when there is none. A mark read from a centre well
    off the symbol's may take a piece of the rim line for the mark."""
    n, stats, off = _ink_blobs(views, c)
    if n < 2:
        return float("inf")
    j = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return float(np.hypot(off[j, 0], off[j, 1]))


#: A symbol counts as round (a sun, a disc: its centroid is the coin's centre) when its
#: bounding box is within this many FACE_PX pixels of square and its centroid within this
#: many of the box's centre. A crescent's or a crown's centroid sits off its box's centre.
ROUND_SYMBOL_TOL = 1.5


def round_symbol_centre(views: BoardViews, c: tuple[float, float]) -> tuple[float, float] | None:
    """The centre (FACE_PX pixels) of the coin's symbol around ``c`` when it is round (see
    ``ROUND_SYMBOL_TOL``), else None: where a round symbol's coin is truly centred."""
    n, stats, off = _ink_blobs(views, c)
    if n < 2:
        return None
    j = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (float(v) for v in stats[j, :4])
    mid = (_MARK_SIZE - 1) / 2
    box_off = np.hypot(off[j, 0] - (x + (w - 1) / 2 - mid), off[j, 1] - (y + (h - 1) / 2 - mid))
    if abs(w - h) > ROUND_SYMBOL_TOL or box_off > ROUND_SYMBOL_TOL:
        return None
    return (c[0] + float(off[j, 0]), c[1] + float(off[j, 1]))


def _colour_distance(patch: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(patch - colour, axis=-1)`` for three channels, summed in the same
    order (the same values), without its general machinery.

    >>> p = np.random.default_rng(1).normal(size=(5, 5, 3)).astype(np.float32)
    >>> c = np.float32([0.1, -0.2, 0.3])
    >>> bool(np.array_equal(_colour_distance(p, c), np.linalg.norm(p - c, axis=-1)))
    True
    """
    d = patch - colour
    d *= d
    return np.sqrt(d[..., 0] + d[..., 1] + d[..., 2])


def _sub_pixel_patch(views: BoardViews, size: int, c: tuple[float, float]) -> np.ndarray:
    """``cv2.getRectSubPix(views.rel_hi, (size, size), c)`` from a window around ``c`` (a
    whole-board ``rel_hi`` costs more than the few patches a frame needs)."""
    x0, y0 = int(np.floor(c[0] - (size - 1) / 2)) - 1, int(np.floor(c[1] - (size - 1) / 2)) - 1
    n = size + 3
    h, w = views.lab_hi.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + n > w or y0 + n > h:  # at the raster's edge: as before
        return cv2.getRectSubPix(views.rel_hi, (size, size), c)
    window = np.ascontiguousarray(views.rel_hi_window(y0, x0, n))
    return cv2.getRectSubPix(window, (size, size), (c[0] - x0, c[1] - y0))


#: Pixels (FACE_PX) each way a turned look may shift to fit itself (see turn_alikeness).
TURN_SHIFT = FACE_SEARCH


def turn_alikeness(
    look: np.ndarray, spot: tuple[float, ...] | None = None
) -> tuple[float, float, float]:
    """How alike a coin's look (facing north, C x C x 3, centred on the coin) is to itself
    turned a quarter, a half and three quarters clockwise: :func:`face_scores` of the look
    against its own turns, each at its best shift (up to ``TURN_SHIFT``), as a coin is read.
    The separate mark (``spot``: its distance north of the centre and its area, as
    ``facing.mark_blob`` learns them) is first painted over with the coin around it: the
    mark is read on its own, so this says what the rest of the look can tell apart.

    A symbol alike under a quarter turn (an eight-rayed sun) is near 1 for every turn,
    one alike upside down (a bar, a diamond) near 1 for the half turn only. A look that
    does not fit itself (blank) is alike under every turn: it tells no facing.

    >>> n = 36
    >>> yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    >>> look = np.zeros((n, n, 3), np.float32)
    >>> look[(np.abs(xx) < 8) & (np.abs(yy) < 3), 0] = 40  # a bar across: alike upside down
    >>> look[(np.abs(xx) < 1.5) & (yy > -12.5) & (yy < -9.5), 0] = 40  # the mark, north
    >>> [round(v, 2) for v in turn_alikeness(look, spot=(11.0, 9.0))]
    [0.13, 1.0, 0.13]
    >>> [round(v, 2) for v in turn_alikeness(look)]  # the mark counted: less alike
    [0.12, 0.9, 0.12]
    >>> turn_alikeness(np.zeros((n, n, 3), np.float32))
    (1.0, 1.0, 1.0)
    """
    look = np.array(look, np.float32, copy=True)
    if spot is not None:
        c = (look.shape[0] - 1) / 2
        yy, xx = np.mgrid[: look.shape[0], : look.shape[1]] - c
        d = np.hypot(yy + spot[0], xx)
        inner = np.sqrt(spot[1] / np.pi) + 1.5  # the mark, blurred a little
        mark = d <= inner
        around = (d > inner) & (d <= inner + 2)
        if around.any():  # no ring inside the look (a spot too big or too far out): leave it
            look[mark] = np.median(look[around], axis=0)
    p = TURN_SHIFT
    window = cv2.copyMakeBorder(look, p, p, p, p, cv2.BORDER_REPLICATE)
    scores = face_scores(window, np.asarray(turned_looks(look)))[0]
    own = float(scores[0])
    if not np.isfinite(own) or own <= 0:  # the look does not even fit itself: it tells nothing
        return 1.0, 1.0, 1.0
    return float(scores[1] / own), float(scores[2] / own), float(scores[3] / own)


def turned_looks(look: np.ndarray) -> list[np.ndarray]:
    """The look facing north, east, south, west (contiguous float32 for matchTemplate)."""
    return [np.ascontiguousarray(np.rot90(look, FACING_ROT[f]), np.float32) for f in FACINGS]


#: The learned mark (see :func:`mark_template`) is read from finer detail than the look:
#: a coin's window minus a blur of this sigma (FACE_PX pixels). The marks are a few pixels
#: across (a dot of radius 1.7 px, a chevron's 1-px stroke); the lamp's shading is broad.
MARK_DETAIL_SIGMA = 2.0
#: Where a coin's directional mark is looked for, facing north: a sector of the coin from
#: this inner to this outer distance from its centre (FACE_PX pixels; the coin's radius is
#: 15) and this many degrees either side of north. Every art draws its mark at the top,
#: 8-14 px out (synth.art: dot, triangle, bar, chevron, arrow); the rim's edge (15 px), lit
#: on one side, is left out.
MARK_SECTOR = (6.0, 14.0, 40.0)
#: Pixels (FACE_PX) each way the learned mark may shift from the look's fit to fit itself
#: (the look's fit is pulled by the symbol, the mark is a few pixels across).
MARK_SHIFT = 2


def _sector(size: int) -> np.ndarray:
    """The mark's sector (``MARK_SECTOR``) of a ``size`` square centred on the coin, north
    up, as 0/1 (float32)."""
    yy, xx = np.mgrid[:size, :size] - (size - 1) / 2
    r = np.hypot(yy, xx)
    ang = np.degrees(np.abs(np.arctan2(xx, -yy)))  # 0 = north, either way
    inner, outer, half = MARK_SECTOR
    return ((r >= inner) & (r <= outer) & (ang <= half)).astype(np.float32)


_TOP = _sector(FACE_CROP)


def _mark_detail(a: np.ndarray) -> np.ndarray:
    """``a`` minus its Gaussian blur of ``MARK_DETAIL_SIGMA`` (float32, same shape)."""
    a = np.ascontiguousarray(a, np.float32)
    return a - cv2.GaussianBlur(a, (0, 0), MARK_DETAIL_SIGMA, borderType=cv2.BORDER_REFLECT)


def mark_template(look: np.ndarray) -> np.ndarray:
    """A suit's directional mark as its learned look (north up, FACE_CROP square, centred on
    the coin) shows it, whatever the mark's shape: the look's fine detail in the top sector
    (``MARK_SECTOR``) minus the mean of its three turned copies there, i.e. where the top
    differs from the sides and the bottom. A symbol's parts that its turns share (a sun's
    rays, a ring) cancel; the mark, drawn at the top only, stays.

    >>> n = FACE_CROP
    >>> yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    >>> look = np.zeros((n, n, 3), np.float32)
    >>> look[np.hypot(yy, xx) < 6, 0] = -40  # a round symbol: alike under every turn
    >>> t = mark_template(look)
    >>> float(np.abs(t).max()) < 1e-3  # no mark: nothing stays
    True
    >>> look[(np.abs(xx) < 1.5) & (yy > -12.5) & (yy < -9.5), 0] = -40  # a mark at the top
    >>> t = mark_template(look)
    >>> bool(t[..., 0].min() < -10), bool(np.abs(t[yy > 0]).max() == 0)  # only at the top
    (True, True)
    """
    d = _mark_detail(look)
    others = (np.rot90(d, 1) + np.rot90(d, 2) + np.rot90(d, 3)) / 3
    return np.ascontiguousarray((d - others) * _TOP[..., None], np.float32)


def mark_scores(window: np.ndarray | list[np.ndarray], template: np.ndarray) -> np.ndarray:
    """How well the learned mark (``template``, see :func:`mark_template`) fits ``window``
    (FACE_CROP + 2 ``MARK_SHIFT`` square, centred on the coin; or one such per facing, see
    :func:`mark_windows`) in each facing: normalised correlation of fine detail
    (``MARK_DETAIL_SIGMA``) inside the turned sector, the best of every shift up to
    ``MARK_SHIFT`` each way (4,).

    >>> n = FACE_CROP
    >>> yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    >>> look = np.zeros((n, n, 3), np.float32)
    >>> look[(np.abs(xx) < 1.5) & (yy > -12.5) & (yy < -9.5), 0] = -40  # a mark at the top
    >>> p = MARK_SHIFT
    >>> coin = cv2.copyMakeBorder(np.rot90(look, FACING_ROT["east"]), p, p, p, p,
    ...                           cv2.BORDER_REPLICATE)
    >>> FACINGS[int(np.argmax(mark_scores(coin, mark_template(look))))]
    'east'
    """
    p = MARK_SHIFT
    windows = window if isinstance(window, list) else [window] * len(FACINGS)
    out = np.full(len(FACINGS), -1.0)
    prepared = _prepared_marks(template)
    for j in range(len(FACINGS)):
        d = _mark_detail(windows[j])
        sq = np.ascontiguousarray((d * d).sum(axis=-1), np.float32)
        for tb, t_norm, mb, (y0, x0) in prepared[j]:
            y1, x1 = y0 + tb.shape[0] + 2 * p, x0 + tb.shape[1] + 2 * p
            num = cv2.matchTemplate(np.ascontiguousarray(d[y0:y1, x0:x1]), tb, cv2.TM_CCORR)
            den = cv2.matchTemplate(np.ascontiguousarray(sq[y0:y1, x0:x1]), mb, cv2.TM_CCORR)
            got = float((num / (t_norm * np.sqrt(np.maximum(den, 1e-12)))).max())
            out[j] = max(out[j], got)
    return out


_MARKS: dict[int, tuple[np.ndarray, list]] = {}


def _prepared_marks(template: np.ndarray) -> list[list[tuple]]:
    """Per facing, per twist (``MARK_TWISTS``): the turned, twisted template and sector cut
    to the sector's bounding box, the template's norm and the box's top-left corner; made
    once per template array (kept, holding the array so its id stays)."""
    hit = _MARKS.get(id(template))
    if hit is not None and hit[0] is template:
        return hit[1]
    out: list[list[tuple]] = [[] for _ in FACINGS]
    for t, m in _twisted_marks(template):
        for j, f in enumerate(FACINGS):
            tt, mm = np.rot90(t, FACING_ROT[f]), np.rot90(m, FACING_ROT[f])
            ys, xs = np.nonzero(mm)
            if not len(ys):
                continue
            y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
            tb = np.ascontiguousarray(tt[y0:y1, x0:x1], np.float32)
            t_norm = float(np.sqrt((tb * tb).sum()))
            if t_norm >= 1e-6:
                mb = np.ascontiguousarray(mm[y0:y1, x0:x1], np.float32)
                out[j].append((tb, t_norm, mb, (int(y0), int(x0))))
    if len(_MARKS) > 32:
        _MARKS.clear()
    _MARKS[id(template)] = (template, out)
    return out


#: The learned mark is also fitted twisted by these angles (degrees): a coin laid askew
#: turns its mark about the centre, and a mark a few pixels across fits itself a few
#: degrees off only loosely.
MARK_TWISTS = (0.0, -10.0, 10.0, -20.0, 20.0)


def _twisted_marks(template: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(template, sector) twisted by each of ``MARK_TWISTS`` about the centre."""
    c = template.shape[0]
    out = []
    for a in MARK_TWISTS:
        if a == 0:
            out.append((template, _TOP))
            continue
        M = cv2.getRotationMatrix2D(((c - 1) / 2, (c - 1) / 2), a, 1.0)
        t = cv2.warpAffine(template, M, (c, c), flags=cv2.INTER_LINEAR)
        m = (cv2.warpAffine(_TOP, M, (c, c), flags=cv2.INTER_LINEAR) > 0.5).astype(np.float32)
        out.append((t * m[..., None], m))
    return out


def mark_windows(window: np.ndarray, turned: np.ndarray) -> list[np.ndarray]:
    """Per facing, the FACE_CROP + 2 ``MARK_SHIFT`` square of ``window`` centred where the
    look's turn fits best (as :func:`face_scores` finds it: each turn its own shift), for
    :func:`mark_scores`; edge pixels repeated where it reaches past the window."""
    p = MARK_SHIFT
    _, at = _face_fit(window, turned)
    padded = cv2.copyMakeBorder(
        np.ascontiguousarray(window, np.float32), p, p, p, p, cv2.BORDER_REPLICATE
    )
    n = turned.shape[1] + 2 * p
    return [padded[y : y + n, x : x + n] for y, x in at]


def learned_mark_read(scores: np.ndarray) -> tuple[str, float]:
    """The facing :func:`mark_scores` names, and its lead: the best score less the next.

    >>> learned_mark_read(np.array([0.1, 0.7, 0.2, 0.3]))
    ('east', 0.4)
    """
    order = np.argsort(scores)[::-1]
    return FACINGS[int(order[0])], round(float(scores[order[0]] - scores[order[1]]), 6)
