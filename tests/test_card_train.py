"""The cell network's training script (``benchmarks/card_train.py``): what it samples more."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import card_train
from piecebridge.vision import card_cells as cc


def test_dark_marked_cells_are_the_marks_on_dark_shading_only():
    rng = np.random.default_rng(5)
    scalars = rng.uniform(0, 0.2, (3, 100, cc.N_SCALARS)).astype(np.float32)
    mark = np.zeros((3, 100), np.int64)
    shaded = np.zeros((3, 100), np.float32)
    # grid 1, cell 7: an x on dark shading (the cell's median shading darkness, q50)
    mark[1, 7], shaded[1, 7], scalars[1, 7, 2] = 2, 1, 0.45
    # the same on light shading, and a dark shaded blank: not taken
    mark[1, 8], shaded[1, 8], scalars[1, 8, 2] = 2, 1, 0.1
    shaded[2, 3], scalars[2, 3, 2] = 1, 0.6
    # dark only in another statistic (q10, q90): not taken
    mark[0, 5], shaded[0, 5], scalars[0, 5, [0, 4]] = 3, 1, 0.9
    # a mark left out of the mark loss (-1) on dark shading: not taken
    mark[2, 9], shaded[2, 9], scalars[2, 9, 2] = -1, 1, 0.7
    # a mark on dark paper that is not shaded (a shadow): not taken
    mark[0, 1], scalars[0, 1, 2] = 1, 0.5
    # exactly at the boundary: taken
    mark[2, 50], shaded[2, 50], scalars[2, 50, 2] = 6, 1, card_train.DARK_SHADE
    data = {"scalars": scalars, "mark": mark, "shaded": shaded}
    assert card_train.dark_marked_cells(data).tolist() == [107, 250]


def test_faint_strokes_touch_only_the_stroke_map_of_shaded_cells():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = torch.rand(400, 2, 8, 8) + 0.1
    shaded = np.arange(400) % 2 == 0
    y = card_train.faint_strokes_on_shading(x, shaded, 0.5, rng)
    assert torch.equal(y[:, 0], x[:, 0])  # the darkness map as it was
    assert torch.equal(y[~torch.from_numpy(shaded)], x[~torch.from_numpy(shaded)])
    ratio = (y[:, 1] / x[:, 1]).flatten(1)
    assert torch.allclose(ratio, ratio[:, :1].expand_as(ratio))  # one factor a patch
    k = ratio[:, 0].numpy()
    lo, hi = card_train.FAINT_STROKES
    fainter = k < 1
    assert np.all(shaded[fainter]) and np.all((k[fainter] >= lo) & (k[fainter] <= hi))
    assert 70 < fainter.sum() < 130  # about half of the 200 shaded patches
    assert torch.equal(card_train.faint_strokes_on_shading(x, shaded, 0.0, rng), x)


def test_faint_strokes_fade_the_local_contrast_alike():
    """The third plane (local contrast) is linear in the stroke map: a fainter mark makes
    it fainter by the same factor, or the network learns patches no photo gives."""
    torch = pytest.importorskip("torch")
    x = torch.rand(50, 3, 8, 8) + 0.1
    shaded = np.ones(50, bool)
    y = card_train.faint_strokes_on_shading(x, shaded, 1.0, np.random.default_rng(4))
    assert torch.equal(y[:, 0], x[:, 0])
    assert torch.allclose(y[:, 2] / x[:, 2], y[:, 1] / x[:, 1])
    assert bool((y[:, 1] < x[:, 1]).all())


def test_val_curve_point_counts_wrong_unknown_and_exact_grids(monkeypatch):
    # two grids of 100 cells, all truly blank and unshaded; the network's readings faked
    pm = np.zeros((200, 7))
    pm[:, 0] = 1.0
    ps = np.zeros(200)
    pm[5] = [0.1, 0.9, 0, 0, 0, 0, 0]  # grid 0: a dot read surely where there is none: wrong
    ps[7] = 0.5  # grid 0: read unshaded (0.5 is not over 0.5) at confidence 0.5
    ps[150] = 0.6  # grid 1: shaded at 0.6 (confidence 0.6): wrong
    pm[160] = [0.4, 0.3, 0.3, 0, 0, 0, 0]  # grid 1: confidence 0.4 < 0.45: unknown
    monkeypatch.setattr(card_train, "predict", lambda net, val, m, s: (pm, ps))
    val = {"mark": np.zeros((2, 100), np.int64), "shaded": np.zeros((2, 100), np.float32)}
    assert card_train.val_curve_point(None, val, 0.0, 1.0) == (2, 1, 0)
    val["mark"][0, 5], ps[150], pm[160] = 1, 0.0, pm[0]  # every cell right now
    assert card_train.val_curve_point(None, val, 0.0, 1.0) == (0, 0, 2)
    # at 0.55 cell 7 (confidence 0.5) is unknown: grid 0 is no longer exact
    assert card_train.val_curve_point(None, val, 0.0, 1.0, t=0.55) == (0, 1, 1)


def test_many_alt_photos_get_a_short_distinct_cache_name():
    # the pen-shaded alt cards are single photos: ~100 spans would exceed a file name
    pen = [str(i) for i in range(1000, 1600, 6)]
    name = card_train.alt_cache_name(pen, (2000, 1500)) + card_train._planes_tag(4)
    assert len(name) < 120 and name.startswith("net_tune_alt_100spans_1000-1594_")
    assert card_train.alt_cache_name(pen[:-1], (2000, 1500)) != card_train.alt_cache_name(
        pen, (2000, 1500)
    )
    # a few spans stay written out, as the caches already on disk are named
    assert card_train.alt_cache_name(["60-202"], (2000, 1500)).startswith(
        "net_tune_alt_60-202_2000x1500_"
    )
