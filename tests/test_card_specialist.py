"""The full-resolution specialist tried at the tenth session (``benchmarks/card_specialist.py``,
trained by ``card_train.py --specialist``; not shipped): it reads every cell as its own
full-resolution patch, changes only the cells it is gated on, and its file says what it
reads."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from piecebridge.vision import card_cells as cc
from test_card_cells import SIZE
from test_vision_card_speed import TOL

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from card_specialist import SPEC_CHANNELS, SPEC_CONTEXT, SPEC_PATCH_PX, Specialist

SIDE = SPEC_PATCH_PX + 2 * SPEC_CONTEXT  # what it reads of a cell in training


def _random_specialist(rng: np.random.Generator, planes: int = 3) -> Specialist:
    """A specialist of the reader's shape with random weights (not a trained one)."""
    chans = (planes, *SPEC_CHANNELS)
    a = {}
    for j in range(len(SPEC_CHANNELS)):
        a[f"conv{j}_w"] = rng.normal(0, 0.4, (chans[j + 1], chans[j], 3, 3)).astype(np.float32)
        a[f"conv{j}_b"] = rng.normal(0, 0.1, chans[j + 1]).astype(np.float32)
    side = SPEC_PATCH_PX // 2 ** len(SPEC_CHANNELS)
    features = SPEC_CHANNELS[-1] * side * side
    a["fc1_w"] = rng.normal(0, 0.05, (features + cc.N_SCALARS, cc.NET_HIDDEN)).astype(np.float32)
    a["fc1_b"] = rng.normal(0, 0.1, cc.NET_HIDDEN).astype(np.float32)
    a["fc2_w"] = rng.normal(0, 0.3, (cc.NET_HIDDEN, len(cc.MARK_CLASSES) + 1)).astype(np.float32)
    a["fc2_b"] = rng.normal(0, 0.1, len(cc.MARK_CLASSES) + 1).astype(np.float32)
    a["scalar_mean"] = rng.normal(0, 1, cc.N_SCALARS).astype(np.float32)
    a["scalar_scale"] = rng.uniform(0.5, 2, cc.N_SCALARS).astype(np.float32)
    return Specialist(a)


def _patch_reference(spec: Specialist, patch: np.ndarray, scalars: np.ndarray):
    """One cell read from its own (C, SIDE, SIDE) patch, written out plainly: zero-padded
    3x3 convolutions, ReLU, 2x2 max-pools, the features over the cell and half a cell
    around, the dense layers (what training computes, independent of the reader's code)."""
    a, x = spec.arrays, patch.astype(np.float64)
    for j in range(len(SPEC_CHANNELS)):
        w, b = a[f"conv{j}_w"].astype(np.float64), a[f"conv{j}_b"]
        p = np.pad(x, ((0, 0), (1, 1), (1, 1)))
        n = x.shape[1]
        y = np.zeros((len(w), n, n))
        for dy in range(3):
            for dx in range(3):
                y += np.einsum("fc,chw->fhw", w[:, :, dy, dx], p[:, dy : dy + n, dx : dx + n])
        y = np.maximum(y + b[:, None, None], 0)
        x = y.reshape(len(w), n // 2, 2, n // 2, 2).max(axis=(2, 4))
    k = 2 ** len(SPEC_CHANNELS)
    lo = SPEC_CONTEXT // k
    feats = x[:, lo : lo + SPEC_PATCH_PX // k, lo : lo + SPEC_PATCH_PX // k].ravel()
    sc = (scalars - a["scalar_mean"]) / a["scalar_scale"]
    h = np.maximum(np.concatenate([feats, sc]) @ a["fc1_w"] + a["fc1_b"], 0)
    out = h @ a["fc2_w"] + a["fc2_b"]
    e = np.exp(out[:-1] - out[:-1].max())
    return e / e.sum(), 1 / (1 + np.exp(-out[-1]))


def _patch(maps: np.ndarray, cell: int) -> np.ndarray:
    """A cell's full-resolution patch and context, as ``card_train`` cuts it."""
    r, c = divmod(cell, 10)
    m = round(cc.MARGIN_CELLS * cc.CELL_PX)
    y = m + r * cc.CELL_PX + cc.CELL_PX // 2 - SIDE // 2
    x = m + c * cc.CELL_PX + cc.CELL_PX // 2 - SIDE // 2
    return maps[:, y : y + SIDE, x : x + SIDE]


@pytest.mark.parametrize("dnn", [False, True])
def test_the_specialist_reads_each_cell_as_its_own_full_resolution_patch(dnn):
    rng = np.random.default_rng(21)
    spec = _random_specialist(rng)
    maps = rng.uniform(0, 1.2, (3, SIZE, SIZE)).astype(np.float32)
    scalars = rng.normal(0, 1, (100, cc.N_SCALARS)).astype(np.float32)
    pm, ps = spec.read(maps, scalars, use_dnn=dnn)
    assert pm.shape == (100, len(cc.MARK_CLASSES)) and ps.shape == (100,)
    for cell in (0, 9, 37, 90, 99):  # the corners touch the window's edge
        want_m, want_s = _patch_reference(spec, _patch(maps, cell), scalars[cell])
        np.testing.assert_allclose(pm[cell], want_m, atol=TOL)
        assert ps[cell] == pytest.approx(want_s, abs=TOL)
    # the full resolution counts: a change within one cell's pixels moves that cell
    changed = maps.copy()
    changed[1, 48 + 5 * cc.CELL_PX + 10, 48 + 3 * cc.CELL_PX + 7] += 1.0
    pm2, _ = spec.read(changed, scalars, use_dnn=dnn)
    assert np.abs(pm2[53] - pm[53]).max() > 0


def test_only_the_gated_cells_take_the_specialists_reading():
    spec = Specialist({}, gate=(0.3, 0.9), weights=(0.5, 0.0))
    pm = np.zeros((4, 7))
    pm[:, 0] = [0.99, 0.99, 0.8, 0.95]
    pm[:, 2] = 1 - pm[:, 0]
    ps = np.array([0.1, 0.6, 0.1, 0.31])
    spec_pm = np.zeros((4, 7))
    spec_pm[:, 5] = 1
    spec_ps = np.full(4, 0.9)
    got_m, got_s = spec.combine(pm, ps, spec_pm, spec_ps)
    np.testing.assert_array_equal(got_m[0], pm[0])  # sure and unshaded: not gated
    for cell in (1, 2, 3):  # shaded, unsure of its mark, shaded just over the gate
        np.testing.assert_allclose(got_m[cell], 0.5 * pm[cell] + 0.5 * spec_pm[cell])
    np.testing.assert_array_equal(got_s, ps)  # shading weight 0: as the networks read it
    spec.weights = (1.0, 0.5)
    got_m, got_s = spec.combine(pm, ps, spec_pm, spec_ps)
    np.testing.assert_array_equal(got_m[1], spec_pm[1])
    assert got_s[1] == pytest.approx(0.75) and got_s[0] == ps[0]


def test_a_specialist_file_says_what_it_reads(tmp_path):
    rng = np.random.default_rng(22)
    spec = _random_specialist(rng)
    spec.gate, spec.weights, spec.info = (0.25, 0.85), (1.0, 0.5), {"model": "t"}
    path = tmp_path / "spec.npz"
    np.savez_compressed(path, **spec.save_arrays())
    back = Specialist.load(path)
    assert back.gate == (0.25, 0.85) and back.weights == (1.0, 0.5)
    assert (back.cell_px, back.patch_px) == (cc.CELL_PX, 2 * cc.CELL_PX)
    assert back.context_px == SPEC_CONTEXT and back.planes == 3 and back.info == {"model": "t"}
    for k, v in spec.arrays.items():
        np.testing.assert_array_equal(back.arrays[k], v)
    cc.CellNet([]).save(tmp_path / "networks.npz")  # a cell model is no specialist
    with pytest.raises(ValueError, match="no specialist"):
        Specialist.load(tmp_path / "networks.npz")


def test_a_specialist_of_another_resolution_is_refused_in_words():
    rng = np.random.default_rng(23)
    spec = _random_specialist(rng)
    spec.cell_px = cc.CELL_PX // 2
    maps = np.zeros((3, SIZE, SIZE), np.float32)
    with pytest.raises(ValueError, match="px a cell"):
        spec.read(maps, np.zeros((100, cc.N_SCALARS), np.float32))


def test_training_cuts_the_specialists_patches_as_the_reader_reads_them():
    """``card_train.augment(full=True)`` unaugmented is the cell's full-resolution patch
    itself, and the PyTorch specialist exported reads as :meth:`Specialist.read`."""
    torch = pytest.importorskip("torch")
    import card_train

    rng = np.random.default_rng(25)
    maps_u8 = rng.integers(0, 256, (1, 3, SIZE, SIZE)).astype(np.uint8)
    cells = np.array([0, 44, 99])
    crops = card_train.crops_of(maps_u8, np.zeros(3, int), cells)
    x = card_train.augment(crops, None, False, full=True)
    maps = card_train.dequantise(torch.from_numpy(maps_u8))[0].numpy()
    for i, cell in enumerate(cells):
        # bilinear sampling at whole pixels, to float rounding of the sampling grid
        np.testing.assert_allclose(x[i].numpy(), _patch(maps, cell), atol=2e-5)
    net = card_train.build_specialist(cc.N_SCALARS, planes=3)
    for m in net.modules():  # batch norms with statistics of their own, to fold
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 2)
    net.eval()
    scalars = rng.normal(0, 1, (100, cc.N_SCALARS)).astype(np.float32)
    mean, scale = np.zeros(cc.N_SCALARS, np.float32), np.ones(cc.N_SCALARS, np.float32)
    spec = Specialist(card_train.folded_arrays(net, mean, scale))
    pm, ps = spec.read(maps, scalars, use_dnn=False)
    with torch.no_grad():
        out = net(x, torch.from_numpy(scalars[cells])).numpy()
    np.testing.assert_allclose(ps[cells], 1 / (1 + np.exp(-out[:, -1])), atol=TOL)
    e = np.exp(out[:, :-1] - out[:, :-1].max(1, keepdims=True))
    np.testing.assert_allclose(pm[cells], e / e.sum(1, keepdims=True), atol=TOL)
    # augmented patches keep the specialist's size and each plane's range
    x = card_train.augment(crops, rng, train=True, turns=0.3, sharpen=0.35, full=True)
    assert x.shape == (3, 3, SIDE, SIDE)
    assert float(x[:, 0].max()) <= 1 and float(x[:, 1:].max()) <= 1.5 and float(x.min()) >= 0
