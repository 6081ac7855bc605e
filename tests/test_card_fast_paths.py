"""The card reader's fast paths give the same numbers as the plain numpy they replace
(the readings must not change when the reader gets faster)."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision import card
from piecebridge.vision import card_cells as cc


def _conv_reference(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 'same' convolution + bias + ReLU, then 2x2 max-pool: pad, nine shifted
    copies concatenated, one matrix product (the reader's earlier code)."""
    h, wd, c = x.shape
    xp = np.pad(x, ((1, 1), (1, 1), (0, 0)))
    cols = np.concatenate([xp[dy : dy + h, dx : dx + wd] for dy in range(3) for dx in range(3)], 2)
    y = cols.reshape(h * wd, 9 * c) @ w.transpose(2, 3, 1, 0).reshape(9 * c, -1)
    y += b
    np.maximum(y, 0, out=y)
    return cc._pool2(y.reshape(h, wd, -1))


@pytest.mark.parametrize(
    ("shape", "filters"), [((96, 96, 8), 16), ((48, 48, 16), 32), ((6, 4, 3), 5)]
)
def test_conv_hwc_is_bit_identical_to_pad_and_concatenate(shape, filters):
    rng = np.random.default_rng(shape[0])
    x = rng.normal(size=shape).astype(np.float32)
    w = rng.normal(size=(filters, shape[2], 3, 3)).astype(np.float32)
    b = rng.normal(size=filters).astype(np.float32)
    assert np.array_equal(cc._conv_hwc(x, w, b), _conv_reference(x, w, b))


def test_conv_planes_pools_before_the_bias_without_changing_a_bit():
    import cv2

    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 40, 36)).astype(np.float32)
    w = rng.normal(size=(8, 2, 3, 3)).astype(np.float32)
    b = rng.normal(size=8).astype(np.float32)
    ref = np.empty((40, 36, 8), np.float32)
    for f in range(8):
        ref[:, :, f] = sum(
            cv2.filter2D(x[c], -1, w[f, c], borderType=cv2.BORDER_CONSTANT) for c in range(2)
        )
    ref = cc._pool2(np.maximum(ref + b, 0))
    got = cc._conv_planes(x, w, b)
    assert got.shape == (20, 18, 8)
    assert np.array_equal(got, ref)


def test_median_last_matches_numpy_median():
    rng = np.random.default_rng(6)
    for n in (1, 2, 7, 320, 321):
        a = rng.random((3, 5, n)).astype(np.float32)
        assert np.array_equal(card._median_last(a), np.median(a, axis=-1))
