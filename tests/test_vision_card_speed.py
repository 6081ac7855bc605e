"""The card reader's batched network path (:meth:`CellNet.read_half`) reads what the plain
path reads: every network on the grid mirrored and turned, one reading at a time."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np
import pytest
from piecebridge.vision import card as vc
from piecebridge.vision import card_cells as cc

from piecebridge.synth.card import photograph_card, render_card

#: Random networks' probabilities agree to float rounding (the sums run in another order;
#: their activations are larger than a trained network's); a wrong turn or mirror is off
#: by a tenth or more.
TOL = 5e-5


def _random_member(rng: np.random.Generator, scalars: int = cc.N_SCALARS) -> dict:
    """A network of the reader's shape with random weights (not a trained one)."""
    chans = (2, *cc.NET_CHANNELS)
    a = {}
    for j in range(len(cc.NET_CHANNELS)):
        a[f"conv{j}_w"] = rng.normal(0, 0.4, (chans[j + 1], chans[j], 3, 3)).astype(np.float32)
        a[f"conv{j}_b"] = rng.normal(0, 0.1, chans[j + 1]).astype(np.float32)
    side = cc.PATCH_PX // 2 ** len(cc.NET_CHANNELS)
    features = cc.NET_CHANNELS[-1] * side * side
    a["fc1_w"] = rng.normal(0, 0.05, (features + scalars, cc.NET_HIDDEN)).astype(np.float32)
    a["fc1_b"] = rng.normal(0, 0.1, cc.NET_HIDDEN).astype(np.float32)
    a["fc2_w"] = rng.normal(0, 0.3, (cc.NET_HIDDEN, len(cc.MARK_CLASSES) + 1)).astype(np.float32)
    a["fc2_b"] = rng.normal(0, 0.1, len(cc.MARK_CLASSES) + 1).astype(np.float32)
    a["scalar_mean"] = rng.normal(0, 1, scalars).astype(np.float32)
    a["scalar_scale"] = rng.uniform(0.5, 2, scalars).astype(np.float32)
    return a


def _grid_inputs(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Half-resolution maps of a grid's size and its scalars, random (nothing symmetric)."""
    size = round((10 + 2 * cc.MARGIN_CELLS) * cc.CELL_PX) // 2
    half = rng.uniform(0, 1.2, (2, size, size)).astype(np.float32)
    return half, rng.normal(0, 1, (100, cc.N_SCALARS)).astype(np.float32)


def _dnn(readings: list) -> object:
    lo, hi = cc._net_window()
    net = cc._dnn_convolutions(readings, hi - lo)
    assert net is not None  # the OpenCV shipped reads the network it writes
    return net


@pytest.mark.parametrize("dnn", [False, True])
@pytest.mark.parametrize("flip", [False, True])
@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_a_reading_with_turned_kernels_is_the_network_on_the_turned_grid(flip, turns, dnn):
    """Kernels turned back on the grid as it is == the network on the grid turned, the
    answers turned back (every element of the square's symmetry group), with the
    convolutions in numpy and in OpenCV's dnn module."""
    rng = np.random.default_rng(10 * turns + flip)
    member = _random_member(rng)
    half, scalars = _grid_inputs(rng)
    assert cc._turns_are_exact(half.shape)
    readings = [cc._Reading.of([member], 0, flip, turns)]
    ((pm, ps),) = cc._read_batched(
        [member], readings, half, scalars, _dnn(readings) if dnn else None
    )
    seen = np.ascontiguousarray(cc._spatial(half, flip, turns))
    grid_scalars = cc._spatial(scalars.reshape(10, 10, -1).transpose(2, 0, 1), flip, turns)
    ref_m, ref_s = cc._predict_member(
        member, seen, grid_scalars.transpose(1, 2, 0).reshape(100, -1)
    )
    # back to the upright grid's cells: undo the turns, then the mirror
    ref_m = np.rot90(ref_m.reshape(10, 10, -1), -turns, axes=(0, 1))
    ref_s = np.rot90(ref_s.reshape(10, 10), -turns)
    if flip:
        ref_m, ref_s = ref_m[:, ::-1], ref_s[:, ::-1]
    np.testing.assert_allclose(pm, ref_m.reshape(100, -1), atol=TOL, rtol=0)
    np.testing.assert_allclose(ps, ref_s.ravel(), atol=TOL, rtol=0)


def _plain(net: cc.CellNet, half, scalars, mirror=True, turned=True):
    """The reading one network and one turn at a time (what the reader did before)."""
    if not mirror:
        return net.predict_half(half, scalars)
    pm, ps = net.predict_half_mirrored(half, scalars)
    return (net.triangles_any_way(half, scalars, pm) if turned else pm), ps


@pytest.mark.parametrize("dnn", [False, True])
@pytest.mark.parametrize("upright", [(True,), (True, False, False), (False, True), (True, True)])
@pytest.mark.parametrize(("mirror", "turned"), [(True, True), (True, False), (False, False)])
def test_batched_reading_is_the_plain_reading_for_any_ensemble(upright, mirror, turned, dnn):
    """One to three members, some or all read turned, older (32-scalar) members beside
    today's: the batch gives the plain path's probabilities (convolutions in numpy or in
    OpenCV's dnn module)."""
    rng = np.random.default_rng(len(upright) + 7 * mirror + 3 * turned)
    members = []
    for k, flag in enumerate(upright):
        m = _random_member(rng, scalars=32 if k == 1 else cc.N_SCALARS)
        m["upright_triangles"] = np.bool_(flag)
        members.append(m)
    net = cc.CellNet(members, use_dnn=dnn)
    half, scalars = _grid_inputs(rng)
    pm, ps = net.read_half(half, scalars, mirror, turned)
    networks = [v for k, v in net._readings.items() if k[0] == "batch"]
    assert len(networks) == 1 and (networks[0] is not None) == dnn
    ref_m, ref_s = _plain(net, half, scalars, mirror, turned)
    np.testing.assert_allclose(pm, ref_m, atol=TOL, rtol=0)
    np.testing.assert_allclose(ps, ref_s, atol=TOL, rtol=0)


def test_without_the_onnx_package_the_numpy_batch_reads_the_same(monkeypatch):
    """A missing ``onnx`` (an old install, ``--no-deps``) falls back to numpy, not a crash."""
    rng = np.random.default_rng(5)
    members = [_random_member(rng)]
    half, scalars = _grid_inputs(rng)
    want = cc.CellNet(members, use_dnn=False).read_half(half, scalars)
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    net = cc.CellNet(members)
    got = net.read_half(half, scalars)
    assert [v for k, v in net._readings.items() if k[0] == "batch"] == [None]
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_use_dnn_set_after_a_first_read_is_followed():
    rng = np.random.default_rng(6)
    net = cc.CellNet([_random_member(rng)])
    half, scalars = _grid_inputs(rng)
    net.read_half(half, scalars)
    net.use_dnn = False
    net.read_half(half, scalars)
    assert sorted(v is None for k, v in net._readings.items() if k[0] == "batch") == [False, True]


def test_threads_sharing_one_classifier_read_what_one_thread_reads():
    """One ``cv2.dnn.Net`` serves every thread of a process: its runs must not interleave."""
    rng = np.random.default_rng(7)
    net = cc.CellNet([_random_member(rng), _random_member(rng)])
    grids = [_grid_inputs(rng) for _ in range(4)]
    want = [net.read_half(h, s)[0] for h, s in grids]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda k: net.read_half(*grids[k % 4])[0], range(24)))
    for k, pm in enumerate(got):
        np.testing.assert_array_equal(pm, want[k % 4])


def test_a_small_photo_reads_the_same_on_the_fast_path_as_on_the_plain_one(monkeypatch):
    """A rendered photo read end to end with the shipped model: every cell's mark, shading
    and confidence as the plain path reads them."""
    rng = np.random.default_rng(3)
    photo, _ = photograph_card(
        rng, image_size=(1200, 900), card=render_card(rng, px_per_mm=10), difficulty=0.3
    )
    grey = cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)
    fast = vc.read_card(grey)
    net = cc.default_classifier()
    monkeypatch.setattr(
        cc.CellNet,
        "predict_grid",
        lambda self, rect, mirror=True, turned_triangles=None: _plain(
            self,
            *_maps(rect, self.planes),
            mirror,
            any(map(cc.learned_upright_triangles, self.members)),
        ),
    )
    plain = vc.read_card(grey, classifier=net)
    assert len(fast.grids) == len(plain.grids) == 2
    for f, p in zip(fast.grids, plain.grids, strict=True):
        assert sorted(f.unknown) == sorted(p.unknown)
        assert f.cells.keys() == p.cells.keys()
        for name, cell in f.cells.items():
            assert (cell.mark, cell.shaded) == (p.cells[name].mark, p.cells[name].shaded)
            assert cell.confidence == pytest.approx(p.cells[name].confidence, abs=1e-6)


def _maps(rect: np.ndarray, planes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    maps, scalars = cc.cell_maps(rect, planes=planes)
    return cc.half_maps(maps), scalars


@pytest.mark.parametrize("n", [1, 2, 7, 576, 577])
def test_median_of_sorted_rows_is_numpys_to_the_bit(n):
    rows = np.sort(np.random.default_rng(n).random((40, n)).astype(np.float32), axis=1)
    assert np.array_equal(cc._median_sorted(rows), np.median(rows, axis=1))


def test_grid_webs_are_labelled_as_the_default_algorithm_labels_them():
    """The finder's BBDT labelling: the same labels and statistics as OpenCV's default."""
    rng = np.random.default_rng(5)
    ink = ((rng.random((300, 400)) < 0.45) * 255).astype(np.uint8)
    fast = cv2.connectedComponentsWithStatsWithAlgorithm(ink, 8, cv2.CV_32S, cv2.CCL_BBDT)
    default = cv2.connectedComponentsWithStats(ink, connectivity=8)
    assert fast[0] == default[0] > 100
    for a, b in zip(fast[1:], default[1:], strict=True):
        assert np.array_equal(a, b)


def _remap_reference(grey: np.ndarray, lattice: np.ndarray) -> np.ndarray:
    """remap_grid as it was: the blurred patch bounded by the map's own min and max."""
    import math

    pos = vc._grid_map(lattice, vc._canonical_size(), vc.CELL_PX, vc.MARGIN_CELLS)
    photo_cell = np.linalg.norm(lattice[0, 10] - lattice[0, 0]) / 10
    src = grey
    if photo_cell > 1.6 * vc.CELL_PX:
        px, py = pos[..., 0], pos[..., 1]
        x0, y0 = max(math.floor(px.min()) - 4, 0), max(math.floor(py.min()) - 4, 0)
        x1, y1 = math.ceil(px.max()) + 4, math.ceil(py.max()) + 4
        src = cv2.GaussianBlur(grey[y0:y1, x0:x1], (0, 0), 0.4 * photo_cell / vc.CELL_PX)
        pos = pos - np.array([x0, y0], np.float32)
    return cv2.remap(
        src, pos[..., 0], pos[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def test_remap_grid_bounds_its_blurred_patch_without_changing_a_pixel():
    """Grids of 30-110 photo pixels a cell, turned any way: the resampled grid is the same
    to the bit as with the patch bounded by the map's own min and max."""
    rng = np.random.default_rng(8)
    grey = cv2.GaussianBlur((rng.random((1500, 1800)) * 255).astype(np.uint8), (0, 0), 1)
    # 51-60 px: blurred with a kernel of 5 (the patch bounded by the coarse samples)
    for cell in [*np.linspace(51.5, 59.5, 9), 30, 45, 70, 90, 110]:
        a = rng.uniform(0, 2 * np.pi)
        turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        grid = np.stack(np.meshgrid(np.arange(11), np.arange(11)), -1) - 5.0
        lattice = (grid * cell) @ turn.T + (900, 750) + rng.normal(0, 1, (11, 11, 2))
        assert np.array_equal(vc.remap_grid(grey, lattice), _remap_reference(grey, lattice))
