"""The cell network's third and fourth input planes (:func:`card_cells.local_contrast`,
:func:`card_cells.shade_gained_strokes`): what they keep, and models whose networks read
two, three or four planes reading together."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from piecebridge.vision import card_cells as cc
from test_card_cells import CELL, SIZE, M, blank_grid, draw, lines_over
from test_vision_card_speed import TOL, _grid_inputs, _random_member

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


def _hatched_grid() -> np.ndarray:
    """A grid whose row 4 is hatched (a dark fill of thin diagonal strokes), with an x drawn
    darker than the hatching in cell (4, 3) and one on paper in cell (7, 3)."""
    img = blank_grid()
    y0, y1 = M + 4 * CELL, M + 5 * CELL
    yy, xx = np.mgrid[y0:y1, M : M + 10 * CELL]
    img[y0:y1, M : M + 10 * CELL] = np.where((xx + yy) % 5 < 2, 150.0, 230.0)
    img = lines_over(img)
    draw(img, 4, 3, "x", ink=60.0)
    draw(img, 7, 3, "x", ink=60.0)
    return img.astype(np.uint8)


def _cell_peak(plane: np.ndarray, row: int, col: int) -> float:
    inset = round(0.12 * CELL)
    y, x = M + row * CELL + inset, M + col * CELL + inset
    return float(np.percentile(plane[y : y + CELL - 2 * inset, x : x + CELL - 2 * inset], 98))


def test_three_planes_add_the_local_contrast_and_keep_the_first_two():
    img = _hatched_grid()
    two, scalars2 = cc.cell_maps(img)
    three, scalars3 = cc.cell_maps(img, planes=3)
    assert two.shape == (2, SIZE, SIZE) and three.shape == (3, SIZE, SIZE)
    np.testing.assert_array_equal(three[:2], two)
    np.testing.assert_array_equal(scalars3, scalars2)
    lc = three[2]
    assert lc.min() >= 0 and lc.max() <= 1.5
    np.testing.assert_array_equal(lc, cc.local_contrast(two[1]))
    # the hatching of the fill is in the stroke layer; in excess of its neighbourhood it
    # drops by more than the x drawn darker on it does
    hatch, on_fill = _cell_peak(two[1], 4, 7), _cell_peak(two[1], 4, 3)
    assert hatch > 0.3  # the fill's strokes are strokes
    ratio_hatch = _cell_peak(lc, 4, 7) / hatch
    ratio_mark = _cell_peak(lc, 4, 3) / on_fill
    assert ratio_hatch < 0.95 * ratio_mark
    # the x on paper keeps most of itself; a blank cell stays blank
    assert _cell_peak(lc, 7, 3) > 0.6 * _cell_peak(two[1], 7, 3)
    assert _cell_peak(lc, 1, 1) < 0.05


def _filled_grid() -> np.ndarray:
    """A grid whose row 4 is a smooth dark fill (35 % darker than the paper), with the same
    x drawn in cell (4, 3) on it and in cell (7, 3) on paper."""
    img = blank_grid()
    img[M + 4 * CELL : M + 5 * CELL, M : M + 10 * CELL] = 150.0
    img = lines_over(img)
    draw(img, 4, 3, "x", ink=60.0)
    draw(img, 7, 3, "x", ink=60.0)
    return img.astype(np.uint8)


def test_four_planes_add_the_strokes_gained_by_the_shading_under_them():
    img = _filled_grid()
    three, scalars3 = cc.cell_maps(img, planes=3)
    four, scalars4 = cc.cell_maps(img, planes=4)
    assert four.shape == (4, SIZE, SIZE)
    np.testing.assert_array_equal(four[:3], three)
    np.testing.assert_array_equal(scalars4, scalars3)
    gained = four[3]
    assert gained.min() >= 0 and gained.max() <= 1.5
    # on paper the stroke layer is kept; on the fill the same x, fainter in the stroke
    # layer, is gained back to nearly its strength on paper
    on_paper = _cell_peak(three[1], 7, 3)
    np.testing.assert_allclose(_cell_peak(gained, 7, 3), on_paper, atol=0.02)
    on_fill = _cell_peak(three[1], 4, 3)
    assert on_fill < 0.9 * on_paper
    assert abs(_cell_peak(gained, 4, 3) - on_paper) < 0.5 * (on_paper - on_fill)
    assert _cell_peak(gained, 4, 7) < 0.05 and _cell_peak(gained, 1, 1) < 0.05


def test_the_gain_grows_with_the_shading_and_stops_at_its_cap():
    norm = np.full((1, 5), 0.3, np.float32)
    shade = np.array([[0.0, 0.2, 0.4, 0.55, 0.9]], np.float32)
    g = cc.shade_gained_strokes(norm, shade, ref=0.6)[0] / 0.3
    assert g[0] == pytest.approx(1.0)
    assert np.all(np.diff(g[:4]) > 0)  # darker fill, more gain, up to the floor
    assert g[1] == pytest.approx(0.8 / (1 - 0.2 / 0.6), rel=1e-5)
    assert g[4] == pytest.approx(0.1 / cc.GAIN_FLOOR, rel=1e-5)  # the floor holds it
    assert cc.shade_gained_strokes(np.ones((1, 1), np.float32), shade[:, 3:4], 0.6).max() == 1.5


def test_the_gain_cap_binds_under_a_faint_pencil() -> None:
    """With a faint pencil (``ref`` 0.2) a fill at three quarters of it (0.15) would gain
    0.85 / GAIN_FLOOR = 3.4, over ``GAIN_MAX``: the cap, not the 1.5 clip, holds it (0.3 x
    3.4 = 1.02 stays under the clip)."""
    ref, shade = 0.2, 0.15
    uncapped = (1 - shade) / max(1 - shade / ref, cc.GAIN_FLOOR)
    assert uncapped > cc.GAIN_MAX and 0.3 * uncapped < 1.5  # the case binds the cap only
    norm = np.full((1, 1), 0.3, np.float32)
    g = cc.shade_gained_strokes(norm, np.full((1, 1), shade, np.float32), ref=ref)
    assert float(g[0, 0]) == pytest.approx(0.3 * cc.GAIN_MAX, rel=1e-5)


def test_cell_maps_refuse_plane_counts_no_network_reads():
    with pytest.raises(ValueError, match="planes"):
        cc.cell_maps(blank_grid().astype(np.uint8), planes=5)


@pytest.mark.parametrize("dnn", [False, True])
def test_maps_with_fewer_planes_than_the_model_reads_are_refused_in_words(dnn):
    """Two-plane maps given to a model with a three-plane network: a clear ValueError (the
    plain path read them silently without the third plane's kernels, the batched one
    failed in OpenCV); more planes than it reads are fine."""
    rng = np.random.default_rng(12)
    net = cc.CellNet([_random_member(rng), _three_plane_member(rng)], use_dnn=dnn)
    half, scalars = _grid_inputs(rng)
    for read in (
        lambda h: net.predict_half(h, scalars),
        lambda h: net.predict_half_mirrored(h, scalars),
        lambda h: net.read_half(h, scalars, True, True),
    ):
        with pytest.raises(ValueError, match="reads 3 input planes"):
            read(half)
    half4 = np.concatenate([half, np.zeros((2, *half.shape[1:]), np.float32)])
    pm, _ = net.read_half(half4, scalars, True, False)
    np.testing.assert_allclose(pm, net.read_half(half4[:3], scalars, True, False)[0], atol=TOL)


def _three_plane_member(rng: np.random.Generator) -> dict:
    a = _random_member(rng)
    a["conv0_w"] = rng.normal(0, 0.4, (cc.NET_CHANNELS[0], 3, 3, 3)).astype(np.float32)
    return a


@pytest.mark.parametrize("dnn", [False, True])
def test_two_and_three_plane_networks_read_together(dnn):
    """A model of a two-plane and a three-plane network reads in one batch (the two-plane
    one with zero kernels on the third plane) what each reads alone on its own planes."""
    rng = np.random.default_rng(11)
    two, three = _random_member(rng), _three_plane_member(rng)
    half, scalars = _grid_inputs(rng)
    half3 = np.concatenate([half, rng.uniform(0, 1.2, (1, *half.shape[1:])).astype(np.float32)])
    mixed = cc.CellNet([two, three], use_dnn=dnn)
    assert mixed.planes == 3 and cc.CellNet([two]).planes == 2
    pm, ps = mixed.read_half(half3, scalars, mirror=True, turned=False)
    alone = [
        cc.CellNet([two], use_dnn=False).read_half(half, scalars, True, False),
        cc.CellNet([three], use_dnn=False).read_half(half3, scalars, True, False),
    ]
    np.testing.assert_allclose(pm, (alone[0][0] + alone[1][0]) / 2, atol=TOL)
    np.testing.assert_allclose(ps, (alone[0][1] + alone[1][1]) / 2, atol=TOL)
    # the plain path (what training checks against) reads the same
    want = mixed.predict_half_mirrored(half3, scalars)
    np.testing.assert_allclose(pm, want[0], atol=TOL)
    # and the third plane matters to the three-plane network only
    changed = half3.copy()
    changed[2] += 0.5
    got_two = cc.CellNet([two], use_dnn=dnn).read_half(changed, scalars, True, False)
    np.testing.assert_allclose(got_two[0], alone[0][0], atol=TOL)
    got_three = cc.CellNet([three], use_dnn=dnn).read_half(changed, scalars, True, False)
    assert np.abs(got_three[0] - alone[1][0]).max() > 1e-3


def test_a_model_of_another_plane_count_is_refused(tmp_path):
    rng = np.random.default_rng(2)
    a = _random_member(rng)
    a["conv0_w"] = rng.normal(0, 0.4, (cc.NET_CHANNELS[0], 5, 3, 3)).astype(np.float32)
    path = tmp_path / "five.npz"
    cc.CellNet([a]).save(path)
    with pytest.raises(ValueError, match="inputs"):
        cc.CellNet.load(path)
    cc.CellNet([_three_plane_member(rng)]).save(path)
    assert cc.CellNet.load(path).planes == 3


def test_training_augments_and_builds_three_plane_networks():
    torch = pytest.importorskip("torch")
    import card_train

    rng = np.random.default_rng(4)
    maps = rng.integers(0, 256, (2, 3, SIZE, SIZE)).astype(np.uint8)
    crops = card_train.crops_of(maps, np.array([0, 1, 1]), np.array([0, 55, 99]))
    assert crops.shape == (3, 3, card_train.CROP, card_train.CROP)
    # each plane back in its own range: darkness 0..1, the stroke planes 0..1.5
    assert float(crops[:, 0].max()) <= 1 and float(crops[:, 2].max()) > 1.2
    x = card_train.augment(crops, rng, train=True, turns=0.3, sharpen=0.35)
    side = cc.PATCH_PX + 2 * cc.NET_CONTEXT
    assert x.shape == (3, 3, side, side)
    assert float(x[:, 0].max()) <= 1 and float(x[:, 1:].max()) <= 1.5 and float(x.min()) >= 0
    net = card_train.build_net(cc.N_SCALARS, planes=3)
    out = net(x, torch.zeros(3, cc.N_SCALARS))
    assert out.shape == (3, len(cc.MARK_CLASSES) + 1)
    assert net.conv[0].weight.shape[1] == 3


def test_a_stored_network_continues_in_training_exactly_as_it_was(tmp_path):
    """``card_train.net_from_member``: a model file's network (batch norm folded) made a
    training network with a third plane it does not hear yet, exported again, reads as the
    stored network did; with its batch norms frozen, training mode changes nothing but
    dropout."""
    torch = pytest.importorskip("torch")
    import card_train

    rng = np.random.default_rng(8)
    member = _random_member(rng)
    net, mean, scale = card_train.net_from_member(member, planes=3)
    np.testing.assert_array_equal(mean, member["scalar_mean"])
    assert float(net.conv[0].weight[:, 2].detach().abs().max()) == 0
    card_train.freeze_batch_norm(net)
    net.drop.p = 0.0
    x = torch.rand(4, 3, cc.PATCH_PX + 2 * cc.NET_CONTEXT, cc.PATCH_PX + 2 * cc.NET_CONTEXT)
    sc = torch.randn(4, cc.N_SCALARS)
    in_training = net(x, sc)
    net.eval()
    torch.testing.assert_close(net(x, sc), in_training)
    path = tmp_path / "continued.npz"
    card_train.export(net, mean, scale, 0.5, {}, path, upright_triangles=False)
    back = cc.CellNet.load(path)
    assert back.planes == 3
    half, scalars = _grid_inputs(rng)
    half3 = np.concatenate([half, rng.uniform(0, 1.2, (1, *half.shape[1:])).astype(np.float32)])
    want = cc.CellNet([member]).predict_half(half, scalars)
    got = back.predict_half(half3, scalars)
    np.testing.assert_allclose(got[0], want[0], atol=TOL)
    np.testing.assert_allclose(got[1], want[1], atol=TOL)


def test_the_shipped_model_mixes_two_three_and_four_plane_networks(tmp_path):
    """v14: v13's three networks (two, three and two input planes) and N', which reads
    four; the model reads four planes and each network the first ones it was trained on,
    so v14's reading is the mean of v13's networks on their planes and N' on all four
    (with v13's own weight of three in four), through the shipped batched path."""
    net = cc.default_classifier()
    assert net.info["model"] == "v14"
    assert net.planes == 4
    assert [m["conv0_w"].shape[1] for m in net.members] == [2, 3, 2, 4]
    assert net.min_confidence == pytest.approx(0.45)
    continued = net.info["members"][1]
    assert "third input plane" in continued["trained_on"]
    assert continued["continued_from"].endswith(":1")
    four = net.info["members"][3]
    assert "a fourth" in four["trained_on"] and four["continued_from"].endswith("runN4.pt")
    rng = np.random.default_rng(14)
    half, scalars = _grid_inputs(rng)
    extra = rng.uniform(0, 1.2, (2, *half.shape[1:])).astype(np.float32)
    half4 = np.concatenate([half, extra])
    pm, ps = net.read_half(half4, scalars, mirror=True, turned=False)
    v13 = cc.CellNet(net.members[:3], use_dnn=False).read_half(half4[:3], scalars, True, False)
    n4 = cc.CellNet(net.members[3:], use_dnn=False).read_half(half4, scalars, True, False)
    np.testing.assert_allclose(pm, (3 * v13[0] + n4[0]) / 4, atol=TOL)
    np.testing.assert_allclose(ps, (3 * v13[1] + n4[1]) / 4, atol=TOL)
    # the fourth plane reaches N' only, and does reach it
    changed = half4.copy()
    changed[3] += 0.5
    np.testing.assert_allclose(
        cc.CellNet(net.members[:3]).read_half(changed, scalars, True, False)[0], v13[0], atol=TOL
    )
    assert np.abs(net.read_half(changed, scalars, True, False)[0] - pm).max() > 1e-3
    # three-plane maps are refused in words, not read without N's fourth kernels
    with pytest.raises(ValueError, match="reads 4 input planes"):
        net.read_half(half4[:3], scalars, True, False)
    # and the file holds them all: saved and loaded back, the same model
    net.save(tmp_path / "v14.npz")
    back = cc.CellNet.load(tmp_path / "v14.npz")
    assert [m["conv0_w"].shape[1] for m in back.members] == [2, 3, 2, 4]
    assert cc.MODEL_PATH.stat().st_size < 1_000_000


def test_predicting_leaves_frozen_batch_norms_frozen():
    """``card_train.predict`` runs in eval mode and gives each module its mode back: a
    continued network's frozen batch norms must not learn again after a validation."""
    torch = pytest.importorskip("torch")
    import card_train

    rng = np.random.default_rng(9)
    net, mean, scale = card_train.net_from_member(_random_member(rng), planes=3)
    card_train.freeze_batch_norm(net)
    side = round((10 + 2 * cc.MARGIN_CELLS) * cc.CELL_PX)
    data = {
        "maps": rng.uniform(0, 1, (1, 3, side, side)).astype(np.float32),
        "scalars": rng.normal(size=(1, 100, cc.N_SCALARS)).astype(np.float32),
    }
    before = [m.training for m in net.modules()]
    marks, shaded = card_train.predict(net, data, mean, scale)
    assert marks.shape == (100, len(cc.MARK_CLASSES)) and shaded.shape == (100,)
    assert [m.training for m in net.modules()] == before
    assert any(not m.training for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d))


def test_a_run_continues_on_more_planes_than_it_read_and_refuses_fewer():
    """``card_train.load_init`` (``--init``): a two-plane run's weights in a three-plane
    network start with zero kernels on the third plane, so it reads as before; a
    three-plane run cannot continue on two planes (one line, no shape traceback)."""
    torch = pytest.importorskip("torch")
    import card_train

    torch.manual_seed(3)
    two = card_train.build_net(cc.N_SCALARS, planes=2).eval()
    three = card_train.build_net(cc.N_SCALARS, planes=3)
    card_train.load_init(three, {k: v.clone() for k, v in two.state_dict().items()})
    three.eval()
    side = cc.PATCH_PX + 2 * cc.NET_CONTEXT
    x, sc = torch.rand(4, 3, side, side), torch.randn(4, cc.N_SCALARS)
    torch.testing.assert_close(three(x, sc), two(x[:, :2], sc))
    with pytest.raises(SystemExit, match=r"--planes 2: run\.pt reads 3 planes"):
        card_train.load_init(card_train.build_net(cc.N_SCALARS, 2), three.state_dict(), "run.pt")
