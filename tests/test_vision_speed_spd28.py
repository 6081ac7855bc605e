"""Round spd28 (issue #4, speed): the from-scratch read's saddle responses and wide searches,
made faster, give the very same values as the forms they replace (kept here as references)."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from piecebridge.vision import cells, locate
from piecebridge.vision.raster import CROP, MARGIN, PX


def _saddle_response_reference(gray: np.ndarray, radius: float) -> np.ndarray:
    """The response as it was computed before (np.roll of the whole picture, sum())."""
    g = locate._saddle_blur(gray)
    n_ring = locate.SADDLE_RING
    angles = np.arange(n_ring) * 2 * np.pi / n_ring
    ring = [
        np.roll(g, (-round(radius * np.sin(a)), -round(radius * np.cos(a))), axis=(0, 1))
        for a in angles
    ]
    q = n_ring // 4
    alternate = sum(
        np.abs(ring[n] + ring[n + 2 * q] - ring[n + q] - ring[(n + 3 * q) % n_ring])
        for n in range(q)
    )
    opposite = sum(np.abs(ring[n] - ring[n + 2 * q]) for n in range(2 * q))
    spot = n_ring / 4 * np.abs(sum(ring) / n_ring - cv2.blur(g, (3, 3)))
    return alternate - opposite - spot


def _pictures() -> list[np.ndarray]:
    """A noisy picture, a checker of two tones with noise, and a flat one (small frames)."""
    rng = np.random.default_rng(28)
    noise = rng.integers(0, 256, (90, 160), dtype=np.uint8)
    checker = np.kron(np.indices((5, 8)).sum(axis=0) % 2, np.ones((18, 20))) * 150 + 40
    checker = np.clip(checker + rng.normal(0, 6, checker.shape), 0, 255).astype(np.uint8)
    return [noise, checker, np.full((40, 60), 128, np.uint8)]


@pytest.mark.parametrize("radius", locate.SADDLE_RADII)
def test_saddle_response_same_as_rolled_sums(radius: float) -> None:
    for gray in _pictures():
        got = locate._saddle_response(gray, radius)
        want = _saddle_response_reference(gray, radius)
        assert got.dtype == want.dtype == np.float32
        assert np.array_equal(got, want)


def test_ring_views_are_rolls() -> None:
    g = np.arange(30 * 40, dtype=np.float32).reshape(30, 40)
    angles = np.arange(locate.SADDLE_RING) * 2 * np.pi / locate.SADDLE_RING
    for radius in locate.SADDLE_RADII:
        for view, a in zip(locate._ring_views(g, radius), angles, strict=True):
            shift = (-round(radius * np.sin(a)), -round(radius * np.cos(a)))
            assert np.array_equal(view, np.roll(g, shift, axis=(0, 1)))


def _wide_search_reference(views, i: int, T: np.ndarray, columns: list[int]):
    """The wide search as it was computed before (every look's column, -1 filled)."""
    r = round(0.4 * PX)
    o = round(MARGIN * PX) + (PX - CROP) // 2
    y0, x0 = o + (i // 8) * PX - r, o + (i % 8) * PX - r
    win = np.ascontiguousarray(views.rel_lo[y0 : y0 + CROP + 2 * r, x0 : x0 + CROP + 2 * r])
    m = cells.LOOK_MASK[..., 0]
    m2 = m * m
    light = np.ascontiguousarray(win[..., 0])
    mean = cv2.matchTemplate(light, m, cv2.TM_CCORR) / m.sum()
    sum_l = cv2.matchTemplate(light, m2, cv2.TM_CCORR)
    sq = cv2.matchTemplate(win * win, np.repeat(m2[..., None], 3, axis=2), cv2.TM_CCORR)
    norm = np.sqrt(np.maximum(sq - 2 * mean * sum_l + mean * mean * m2.sum(), 1e-12))
    n = win.shape[0] - CROP + 1
    sims = np.full((n * n, T.shape[1]), -1.0, np.float32)
    tm, tl = cells._masked_looks(T, columns)
    crops = np.lib.stride_tricks.sliding_window_view(win, (CROP, CROP, 3))[:, :, 0]
    sims[:, columns] = (crops.reshape(n * n, -1) @ tm - mean.reshape(-1, 1) * tl) / norm.reshape(
        -1, 1
    )
    by, bx = divmod(int(np.argmax(sims.max(axis=1))), n)
    return sims.max(axis=0), (float(by - r), float(bx - r))


def test_wide_search_same_as_full_columns() -> None:
    rng = np.random.default_rng(5)
    side = round((8 + 2 * MARGIN) * PX)
    views = SimpleNamespace(rel_lo=rng.normal(0, 30, (side, side, 3)).astype(np.float32))
    T = rng.normal(0, 1, (CROP * CROP * 3, 12)).astype(np.float32)
    T /= np.linalg.norm(T, axis=0)
    for columns in ([0, 3, 4, 7], list(range(12)), [5]):
        for i in (0, 9, 27, 36, 63):
            got = cells._wide_search(views, i, T, columns)
            want = _wide_search_reference(views, i, T, columns)
            assert got[0].dtype == want[0].dtype
            assert np.array_equal(got[0], want[0]) and got[1] == want[1]


def test_wide_search_no_look_above_minus_one_takes_first_shift() -> None:
    """When every searched look's similarity is under the unsearched looks' -1 (a look
    opposite to the window everywhere), the first shift is taken, as before."""
    side = round((8 + 2 * MARGIN) * PX)
    rng = np.random.default_rng(7)
    views = SimpleNamespace(rel_lo=rng.normal(0, 30, (side, side, 3)).astype(np.float32))
    T = np.zeros((CROP * CROP * 3, 3), np.float32)
    T[:, 0] = 1.0
    got = cells._wide_search(views, 20, T, [0])
    want = _wide_search_reference(views, 20, T, [0])
    assert np.array_equal(got[0], want[0]) and got[1] == want[1]


def test_shifted_crops_as_sliding_windows() -> None:
    w = np.arange(24 * 24 * 3, dtype=np.float32).reshape(24, 24, 3)
    want = np.lib.stride_tricks.sliding_window_view(w, (CROP, CROP, 3))[:, :, 0].reshape(25, -1)
    assert np.array_equal(cells._shifted_crops(w, 5), want)
