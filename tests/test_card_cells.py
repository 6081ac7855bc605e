"""Card cells: the network's inputs, its numpy inference, and what it reads off
marks drawn here (not by the fixture renderer it was trained on)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.vision import card_cells as cc

CELL = cc.CELL_PX
M = round(cc.MARGIN_CELLS * CELL)
SIZE = 2 * M + 10 * CELL
SHADE0 = cc.N_CELL_STATS  # first whole-grid shading column of the scalars


def blank_grid(paper: float = 230) -> np.ndarray:
    """A rectified grid: paper with printed lines every ``CELL`` pixels."""
    img = np.full((SIZE, SIZE), paper, np.float32)
    return lines_over(img)


def lines_over(img: np.ndarray) -> np.ndarray:
    """Print the lines (again) on top: shading does not cover the print."""
    for i in range(11):
        p = M + i * CELL
        img[p - 1 : p + 1, M : M + 10 * CELL] = 40
        img[M : M + 10 * CELL, p - 1 : p + 1] = 40
    return img


def draw(img, row, col, mark, size=0.33, offset=(0.0, 0.0), width=3, angle=0.0, ink=70.0):
    """A pencil-like mark drawn with OpenCV (another 'renderer' than the training one)."""
    cx = M + (col + 0.5 + offset[0]) * CELL
    cy = M + (row + 0.5 + offset[1]) * CELL
    h = size * CELL
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def pt(x, y):
        q = rot @ np.array([x, y]) + (cx, cy)
        return round(q[0] * 16), round(q[1] * 16)  # 4 fractional bits

    def line(p, q):
        cv2.line(img, pt(*p), pt(*q), ink, width, cv2.LINE_AA, shift=4)

    if mark == "x":
        line((-h, -h), (h, h))
        line((h, -h), (-h, h))
    elif mark == "plus":
        line((-h, 0), (h, 0))
        line((0, -h), (0, h))
    elif mark == "slash":
        line((-h, h), (h, -h))
    elif mark == "o":
        cv2.circle(img, pt(0, 0), round(h * 16), ink, width, cv2.LINE_AA, shift=4)
    elif mark == "dot":
        cv2.circle(img, pt(0, 0), round(0.12 * CELL * 16), ink, -1, cv2.LINE_AA, shift=4)
    elif mark == "triangle":
        corners = [(0, -h), (h, 0.8 * h), (-h, 0.8 * h)]
        for p, q in zip(corners, corners[1:] + corners[:1], strict=True):
            line(p, q)


@pytest.fixture(scope="module")
def net():
    return cc.default_classifier()


def test_shipped_model_is_the_network_small_and_trained_on_the_tuning_split(net):
    assert isinstance(net, cc.CellNet)
    assert cc.MODEL_PATH.stat().st_size < 2_000_000
    assert "tune split" in net.info["trained_on"]
    assert "tune split" in net.info["threshold_from"]
    assert 0 < net.min_confidence < 1
    # an ensemble says where each member came from
    assert len(net.info.get("members", [None])) == len(net.members)


def test_inputs_shapes_and_ranges():
    maps, scalars = cc.cell_maps(blank_grid().astype(np.uint8))
    assert maps.shape == (2, SIZE, SIZE)
    assert scalars.shape == (100, cc.N_SCALARS)
    assert np.isfinite(scalars).all()
    assert maps[0].min() >= 0 and maps[0].max() <= 1
    assert maps[1].min() >= 0 and maps[1].max() <= 1.5
    # the printed lines are in the darkness map but bridged out of the stroke map
    assert maps[0][M + 5 * CELL, M + 3 * CELL + 5] > 0.5
    assert maps[1][M + 5 * CELL, M + 3 * CELL + 5] < 0.1


def _conv_stack(a, x):
    x = cc._conv_planes(x, a["conv0_w"], a["conv0_b"])
    i = 1
    while f"conv{i}_w" in a:
        x = cc._conv_hwc(x, a[f"conv{i}_w"], a[f"conv{i}_b"])
        i += 1
    return x


def test_whole_grid_convolution_equals_each_cells_own_crop(net):
    """Training runs the convolutions on one crop per cell (the patch and
    NET_CONTEXT pixels around, zero-padded at its edge); reading runs them once
    over the whole grid. The features a cell uses must be the same."""
    rng = np.random.default_rng(1)
    img = blank_grid()
    for k, mark in enumerate(["x", "plus", "o", "dot", "slash", "triangle"]):
        draw(img, k, 9 - k, mark, offset=tuple(rng.uniform(-0.1, 0.1, 2)))
    half = cc.half_maps(cc.cell_maps(img.astype(np.uint8))[0])
    k = 2 ** len(cc.NET_CHANNELS)
    side, ctx = cc.PATCH_PX // k, cc.NET_CONTEXT // k
    for member in net.members:
        whole = _conv_stack(member, half)
        for r, c in [(0, 9), (2, 7), (5, 4), (9, 0), (4, 4)]:
            y0 = (M - CELL // 2) // 2 + r * CELL // 2 - cc.NET_CONTEXT
            x0 = (M - CELL // 2) // 2 + c * CELL // 2 - cc.NET_CONTEXT
            n = cc.PATCH_PX + 2 * cc.NET_CONTEXT
            own = _conv_stack(member, np.ascontiguousarray(half[:, y0 : y0 + n, x0 : x0 + n]))
            got = whole[y0 // k + ctx : y0 // k + ctx + side, x0 // k + ctx : x0 // k + ctx + side]
            np.testing.assert_allclose(own[ctx : ctx + side, ctx : ctx + side], got, atol=1e-5)


def test_marks_drawn_elsewhere_are_read_whatever_their_size_place_and_slant(net):
    """X and plus stay apart within +-10 degrees, small or large, off-centre."""
    rng = np.random.default_rng(5)
    img = blank_grid()
    want = {}
    marks = ["x", "plus", "o", "dot", "slash", "triangle"]
    cells = rng.permutation(100)[:60]
    for i, cell in enumerate(cells):
        mark = marks[i % len(marks)]
        r, c = divmod(int(cell), 10)
        draw(
            img,
            r,
            c,
            mark,
            size=rng.uniform(0.25, 0.38),
            offset=tuple(rng.uniform(-0.08, 0.08, 2)),
            width=int(rng.integers(2, 4)),
            angle=rng.uniform(-8, 8),
            ink=rng.uniform(50, 110),
        )
        want[int(cell)] = cc.MARK_CLASSES.index(mark)
    noisy = img + rng.normal(0, 3, img.shape)
    pm, ps = net.predict_grid(np.clip(noisy, 0, 255).astype(np.uint8))
    got = pm.argmax(1)
    wrong = [
        (cc.MARK_CLASSES[want.get(i, 0)], cc.MARK_CLASSES[got[i]])
        for i in range(100)
        if got[i] != want.get(i, 0)
    ]
    assert len(wrong) <= 1, wrong
    assert (ps < 0.5).all()


def test_shading_in_the_middle_of_a_territory_stays_dark_against_the_grid():
    """A 5x5 shaded block: its middle cell has no paper within 1.5 cells, so the
    local reference calls it blank; the whole-grid reference must not."""
    img = blank_grid()
    y0, x0 = M + 2 * CELL, M + 2 * CELL
    img[y0 : y0 + 5 * CELL, x0 : x0 + 5 * CELL] *= 0.7
    img = lines_over(img)
    _, scalars = cc.cell_maps(img.astype(np.uint8))
    middle, far = 4 * 10 + 4, 8 * 10 + 8
    assert scalars[middle, SHADE0] < -0.25  # log-brightness below the fitted paper
    assert abs(scalars[far, SHADE0]) < 0.05
    # the grid's light/dark split puts them on opposite sides
    assert scalars[middle, SHADE0 + 3] < 0 < scalars[far, SHADE0 + 3]


def test_shading_edge_shows_a_step_and_an_even_light_falloff_does_not():
    img = blank_grid()
    xx = np.arange(SIZE)[None, :]
    img *= (1 - 0.3 * xx / SIZE).astype(np.float32)  # light falls off across the grid
    y0, x0 = M + 5 * CELL, M + 5 * CELL
    img[y0 : y0 + CELL, x0 : x0 + CELL] *= 0.7  # one shaded cell, F6
    img = lines_over(img)
    _, scalars = cc.cell_maps(img.astype(np.uint8))
    step_min = SHADE0 + 5
    assert scalars[55, step_min] > 0.15
    assert abs(scalars[22, step_min]) < 0.05


def test_shaded_cells_under_uneven_light_are_read_shaded(net):
    img = blank_grid()
    xx = np.arange(SIZE)[None, :]
    img *= (1 - 0.25 * xx / SIZE).astype(np.float32)
    shaded = [11, 12, 21, 22, 57, 58, 67, 68, 93]
    rng = np.random.default_rng(2)
    for i in shaded:
        r, c = divmod(i, 10)
        y, x = M + r * CELL, M + c * CELL
        # hatching: thin diagonal strokes over a grey layer, inside the cell only
        hatch = np.full((CELL, CELL), 255 - rng.uniform(70, 90), np.float32)
        for t in range(-CELL, CELL, 3):
            cv2.line(hatch, (t, 0), (t + CELL, CELL), 150.0, 1, cv2.LINE_AA)
        img[y : y + CELL, x : x + CELL] = np.minimum(img[y : y + CELL, x : x + CELL], hatch)
    draw(img, 2, 2, "x")  # a mark on top of shading
    img = lines_over(np.clip(img, 0, 255))
    pm, ps = net.predict_grid(img.astype(np.uint8))
    assert sorted(np.flatnonzero(ps > 0.5).tolist()) == shaded
    assert cc.MARK_CLASSES[pm[22].argmax()] == "x"


def test_mirror_averaged_reading_is_the_same_for_a_mirrored_grid(net):
    """Reading averages the grid with its mirror image, so a mirrored grid (a slash
    still a slash, a triangle still a triangle) gets the same answers, cell for cell."""
    rng = np.random.default_rng(3)
    img = blank_grid()
    for mark in ["x", "plus", "o", "dot", "slash", "triangle"] * 3:
        r, c = divmod(int(rng.integers(0, 100)), 10)
        draw(img, r, c, mark, offset=tuple(rng.uniform(-0.08, 0.08, 2)), angle=rng.uniform(-8, 8))
    rect = np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)
    pm, ps = net.predict_grid(rect)
    pm2, ps2 = net.predict_grid(np.ascontiguousarray(rect[:, ::-1]))
    back = pm2.reshape(10, 10, -1)[:, ::-1].reshape(100, -1)
    assert np.abs(pm - back).max() < 0.05
    assert (pm.argmax(1) == back.argmax(1)).all()
    assert np.abs(ps - ps2.reshape(10, 10)[:, ::-1].ravel()).max() < 0.05


def test_ensemble_averages_its_members_and_survives_saving(net, tmp_path):
    """An ensemble's reading is the mean of its members' readings; a model file with
    ``net0.``, ``net1.`` prefixes loads back to the same numbers."""
    rng = np.random.default_rng(5)
    img = blank_grid()
    for k, mark in enumerate(["x", "plus", "o", "dot"]):
        draw(img, k, 2 * k, mark, angle=rng.uniform(-8, 8))
    maps, scalars = cc.cell_maps(img.astype(np.uint8))
    # a second member unlike the first: its mark logits shifted towards "dot"
    other = dict(net.members[0])
    other["fc2_b"] = other["fc2_b"] + np.eye(len(other["fc2_b"]), dtype=np.float32)[1] * 3
    single = [cc.CellNet([m]).predict_maps(maps, scalars) for m in (net.members[0], other)]
    pair = cc.CellNet([net.members[0], other], 0.7, {"trained_on": "test"})
    pm, ps = pair.predict_maps(maps, scalars)
    np.testing.assert_allclose(pm, (single[0][0] + single[1][0]) / 2, atol=1e-6)
    np.testing.assert_allclose(ps, (single[0][1] + single[1][1]) / 2, atol=1e-6)
    assert not np.allclose(single[0][0], single[1][0])
    pair.save(tmp_path / "pair.npz")
    back = cc.CellNet.load(tmp_path / "pair.npz")
    assert len(back.members) == 2 and back.min_confidence == pytest.approx(0.7)
    assert back.info == {"trained_on": "test"}
    np.testing.assert_allclose(back.predict_maps(maps, scalars)[0], pm, atol=1e-6)


def test_only_networks_that_learned_upright_triangles_read_the_grid_turned(
    net, tmp_path, monkeypatch
):
    """v9 and before learned upright triangles only (no flag in their file); a network
    trained with quarter turns says so, is saved with it, and is not read turned."""
    old = {k: v for k, v in net.members[0].items() if k != "upright_triangles"}
    turned = dict(old, upright_triangles=np.bool_(False))
    assert cc.learned_upright_triangles(old) and not cc.learned_upright_triangles(turned)
    cc.CellNet([old, turned]).save(tmp_path / "mixed.npz")
    back = cc.CellNet.load(tmp_path / "mixed.npz")
    assert [cc.learned_upright_triangles(m) for m in back.members] == [True, False]
    img = blank_grid()
    draw(img, 3, 4, "triangle", angle=90.0)
    maps, scalars = cc.cell_maps(img.astype(np.uint8))
    half_maps = cc.half_maps(maps)
    calls = []
    original = cc._predict_member

    def counting(a, half, sc):
        calls.append(cc.learned_upright_triangles(a))
        return original(a, half, sc)

    monkeypatch.setattr(cc, "_predict_member", counting)
    pm, _ = back.predict_half(half_maps, scalars)
    calls.clear()
    back.triangles_any_way(half_maps, scalars, pm)
    assert calls == [True, True, True]  # three turns, the upright-only network alone


@pytest.mark.parametrize("damage", ["fewer scalars", "unknown scalar count", "dense rows"])
def test_a_model_whose_inputs_do_not_fit_is_refused(net, tmp_path, damage):
    member = dict(net.members[0])
    if damage == "fewer scalars":  # a v8-sized member whose dense layer was not cut to match
        member["scalar_mean"] = member["scalar_mean"][:32]
        member["scalar_scale"] = member["scalar_scale"][:32]
    elif damage == "unknown scalar count":  # a 33-scalar model, cut consistently
        member["scalar_mean"] = member["scalar_mean"][:33]
        member["scalar_scale"] = member["scalar_scale"][:33]
        member["fc1_w"] = member["fc1_w"][:-1]
    else:
        member["fc1_w"] = member["fc1_w"][:-3]
    cc.CellNet([member]).save(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="does not match"):
        cc.CellNet.load(tmp_path / "bad.npz")


def test_triangles_pointing_any_way_are_read_as_triangles(net):
    """Rotator's players point triangles the way of travel: down, left and right too."""
    img = blank_grid()
    cells = {(1, 1): 180.0, (3, 4): 90.0, (6, 2): -90.0, (8, 7): 0.0}
    for (row, col), angle in cells.items():
        draw(img, row, col, "triangle", angle=angle)
    draw(img, 5, 5, "o")
    draw(img, 2, 8, "x")
    rect = img.astype(np.uint8)
    tri = cc.MARK_CLASSES.index("triangle")
    upright, _ = net.predict_grid(rect, turned_triangles=False)
    pm, _ = net.predict_grid(rect)
    read = {rc: cc.MARK_CLASSES[int(pm[rc[0] * 10 + rc[1]].argmax())] for rc in cells}
    assert set(read.values()) == {"triangle"}, read
    missed = [rc for rc in cells if upright[rc[0] * 10 + rc[1]].argmax() != tri]
    if all(map(cc.learned_upright_triangles, net.members)):  # upright ones miss some
        assert missed
    elif not any(map(cc.learned_upright_triangles, net.members)):  # learned every way
        assert not missed, missed
    # the o and the x stay what they are
    assert cc.MARK_CLASSES[int(pm[55].argmax())] == "o"
    assert cc.MARK_CLASSES[int(pm[28].argmax())] == "x"
