"""The second opinion on shading (``vision/card_shading.py``) through ``classify_grid``:
synthetic grids, the networks' probabilities fixed, so only the opinion decides."""

from __future__ import annotations

import numpy as np
from piecebridge.vision import card_cells as cc
from piecebridge.vision import card_shading as cs

from tests.test_card_cells import CELL, SIZE, M, blank_grid, draw, lines_over

X = cc.MARK_CLASSES.index("x")
TARGET = 2 * 10 + 2  # C3, a marked cell with unshaded neighbours
SHADED_BLOCK = [r * 10 + c for r in range(6, 9) for c in range(6, 9)]  # read surely shaded


class FixedNet:
    """A classifier whose probabilities are given (``classify_grid`` needs only these)."""

    min_confidence = 0.45

    def __init__(self, pm: np.ndarray, ps: np.ndarray):
        self.pm, self.ps = pm, ps

    def predict_grid(self, rect):
        return self.pm.copy(), self.ps.copy()


def shade(img: np.ndarray, i: int, factor: float, inset: int = 2) -> None:
    """Darken cell ``i`` to ``factor`` of its paper, ``inset`` px short of its lines."""
    r, c = divmod(i, 10)
    y, x = M + r * CELL + inset, M + c * CELL + inset
    img[y : y + CELL - 2 * inset, x : x + CELL - 2 * inset] *= factor


def probabilities(ps_target: float = 0.3, mark: int = X) -> tuple[np.ndarray, np.ndarray]:
    """Blank and surely unshaded everywhere, the block surely shaded, TARGET doubted."""
    pm = np.full((100, len(cc.MARK_CLASSES)), 0.001, np.float32)
    pm[:, 0] = 0.99
    pm[TARGET] = 0.001
    pm[TARGET, mark] = 0.97
    ps = np.full(100, 0.01, np.float32)
    ps[SHADED_BLOCK] = 0.99
    ps[TARGET] = ps_target
    return pm, ps


def grid(target_factor: float = 0.85, block_factor: float = 0.7, mark: str | None = "x"):
    """A grid with light falling off across it, the shaded block, and TARGET shaded
    lightly (``target_factor`` of its paper; 1: not shaded) under ``mark``."""
    img = blank_grid()
    img *= (1 - 0.2 * np.arange(SIZE)[None, :] / SIZE).astype(np.float32)
    for i in SHADED_BLOCK:
        shade(img, i, block_factor)
    shade(img, TARGET, target_factor)
    if mark:
        draw(img, TARGET // 10, TARGET % 10, mark, ink=60.0)
    return lines_over(np.clip(img, 0, 255)).astype(np.uint8)


def read(img: np.ndarray, ps_target: float = 0.3, mark: int = X):
    cells, unknown = cc.classify_grid(img, FixedNet(*probabilities(ps_target, mark)))
    return cells, unknown


def test_a_mark_on_light_shading_is_turned_shaded_with_the_networks_confidence():
    cells, _ = read(grid())
    assert cells["C3"].mark == "x" and cells["C3"].shaded
    assert abs(cells["C3"].confidence - 0.97 * 0.7) < 1e-6  # mirrored: the same confidence
    assert not cells["B3"].shaded and cells["G7"].shaded  # nothing else moves


def test_the_same_mark_on_bare_paper_stays_unshaded():
    cells, _ = read(grid(target_factor=1.0))
    assert not cells["C3"].shaded


def test_a_heavy_mark_on_bare_paper_stays_unshaded():
    """Its strokes fill much of the bands by the lines: only the paper they leave counts."""
    img = grid(target_factor=1.0, mark=None)
    draw(img, 2, 2, "o", size=0.4, width=4, ink=60.0)
    draw(img, 2, 2, "x", size=0.45, width=4, ink=60.0)
    cells, _ = read(img)
    assert not cells["C3"].shaded


def test_a_soft_shadow_over_the_cell_is_not_shading():
    """A phone's shadow darkens the cell more than its lit neighbours, but smoothly:
    no step at the lines, so the cell stays unshaded (its darkness alone would not)."""
    img = grid(target_factor=1.0).astype(np.float32)
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    centre = M + 2.5 * CELL
    r = np.hypot(yy - centre, xx - centre) / (2.5 * CELL)
    img *= (1 - 0.25 * np.clip(1 - r, 0, 1)).astype(np.float32)
    cells, _ = read(lines_over(img).astype(np.uint8))
    assert not cells["C3"].shaded


def test_the_step_is_measured_in_the_grids_own_contrast():
    """The same light shading is shading beside a light block, not beside a dark one."""
    light, _ = read(grid(target_factor=0.93, block_factor=0.82))  # ~0.39 of the contrast
    dark, _ = read(grid(target_factor=0.93, block_factor=0.25))  # ~0.09: below both levels
    assert light["C3"].shaded and not dark["C3"].shaded


def test_a_cell_inside_a_shaded_territory_is_levelled_against_its_shaded_neighbours():
    """Neighbours read surely shaded are references too (level 1): a marked cell inside
    the block, as dark as the block, with no unshaded neighbour, is turned shaded."""
    img = grid(target_factor=1.0)
    pm, ps = probabilities()
    inner = 7 * 10 + 7
    draw(img, 7, 7, "x", ink=60.0)
    pm[inner], ps[inner] = pm[TARGET], 0.3
    cells, _ = cc.classify_grid(img, FixedNet(pm, ps))
    assert cells["H8"].shaded


def test_blank_cells_sure_readings_and_the_surest_doubts_are_left_alone():
    img = grid()
    assert not read(img, mark=0)[0]["C3"].shaded  # a blank: not this opinion's business
    assert not read(img, ps_target=0.03)[0]["C3"].shaded  # below MIN_DOUBT
    assert read(img, ps_target=0.6)[0]["C3"].shaded  # already shaded: unchanged


def test_no_doubted_cell_skips_the_layers(monkeypatch):
    called = []
    monkeypatch.setattr(cc, "_layers", lambda *a: called.append(a))
    pm, ps = probabilities(ps_target=0.01)
    cc.classify_grid(grid(), FixedNet(pm, ps))
    assert not called
    assert cs.candidates(pm, ps).size == 0


def _hard_shadow_above_c3() -> np.ndarray:
    """A shadow with a hard edge lying on C3's top line: a step on that side only."""
    img = grid(target_factor=1.0).astype(np.float32)
    img[M + 2 * CELL :] *= 0.75
    return lines_over(img).astype(np.uint8)


def test_a_step_on_one_side_alone_is_not_shading():
    """Every side measured must step (the lowest level counts), and one side is too few."""
    img = _hard_shadow_above_c3()
    for doubted in (["B3", "D3"], ["B3", "D3", "C4"]):  # sure: C2 + C4, then C2 alone
        pm, ps = probabilities()
        for name in doubted:
            ps[(int(name[1:]) - 1) * 10 + "ABCDEFGHIJ".index(name[0])] = 0.3
        cells, _ = cc.classify_grid(img, FixedNet(pm, ps))
        assert not cells["C3"].shaded, doubted


def _uneven_paper(img: np.ndarray, spread: float = 0.12, seed: int = 3) -> np.ndarray:
    """Every cell away from TARGET and the block lit by its own share of ``spread``
    (0.12: -6..+6 %): this photo's
    bare paper steps from cell to cell (uneven print or light) with no fill anywhere."""
    keep = {TARGET, TARGET - 10, TARGET + 10, TARGET - 1, TARGET + 1, *SHADED_BLOCK}
    rng = np.random.default_rng(seed)
    out = img.astype(np.float32)
    for i in range(100):
        if i not in keep:
            shade(out, i, float(1 + spread * (rng.random() - 0.5)), inset=1)
    return lines_over(np.clip(out, 0, 255)).astype(np.uint8)


def test_a_light_fill_under_a_mark_is_turned_shaded_on_even_paper():
    """A fill at ~0.24 of the grid's contrast on every side (below MIN_LEVEL) stepping
    far above this grid's paper noise is shading; at ~0.1 (below MIN_LEVEL_LIGHT) not."""
    cells, _ = read(grid(target_factor=0.93))
    assert cells["C3"].shaded
    assert abs(cells["C3"].confidence - 0.97 * 0.7) < 1e-6
    assert not read(grid(target_factor=0.97))[0]["C3"].shaded


def test_a_light_fill_on_paper_that_steps_as_much_elsewhere_stays_unshaded():
    """The same light fill where this photo's bare paper steps by as much between
    unshaded cells: its step is not told from the paper's own noise."""
    assert not read(_uneven_paper(grid(target_factor=0.93)))[0]["C3"].shaded
    # paper noise about half the fill's step: still too near it (MIN_NOISE_STEPS)
    assert not read(_uneven_paper(grid(target_factor=0.93), spread=0.06))[0]["C3"].shaded
    assert read(_uneven_paper(grid(target_factor=0.85)))[0]["C3"].shaded  # MIN_LEVEL: still


def test_a_light_fill_needs_a_step_up_from_unshaded_paper():
    """A marked cell inside the shaded block, much lighter than it (~0.24 of the contrast
    on every side) and with no unshaded neighbour, stays unshaded."""
    img = grid(target_factor=1.0).astype(np.float32)
    inner = 7 * 10 + 7
    shade(img, inner, 0.93 / 0.7)
    img = lines_over(np.clip(img, 0, 255)).astype(np.uint8)
    draw(img, 7, 7, "x", ink=60.0)
    pm, ps = probabilities()
    pm[inner], ps[inner] = pm[TARGET], 0.3
    cells, _ = cc.classify_grid(img, FixedNet(pm, ps))
    assert not cells["H8"].shaded


def test_the_paper_noise_is_the_steps_between_surely_unshaded_neighbours():
    def noise_of(img: np.ndarray, ps: np.ndarray) -> tuple[float, np.ndarray, int]:
        lay = cc._layers(img, cc.CELL_PX, cc.MARGIN_CELLS)
        bare = cs.bare_paper(lay)
        return cs.paper_noise(bare, lay["m"], cc.CELL_PX, ps), bare, lay["m"]

    ps = probabilities()[1]
    noise, bare, m = noise_of(_uneven_paper(grid()), ps)
    even = noise_of(grid(), ps)[0]
    assert 0.03 < noise < 0.15 and even < 0.01
    ps[:] = 0.99  # no pair of surely unshaded neighbours: no noise
    assert np.isnan(cs.paper_noise(bare, m, cc.CELL_PX, ps))


def _ring(target_factor: float) -> np.ndarray:
    """TARGET under an o whose strokes cover every band by its lines (none measured)."""
    img = grid(target_factor=target_factor, mark=None)
    draw(img, 2, 2, "o", size=0.3, width=3, ink=60.0)
    return img


def test_sides_the_strokes_cover_are_measured_from_the_cells_bare_paper():
    """An o over every band: the paper inside it against the neighbours' bands steps as
    much as shading does, so the cell is turned; on bare paper it is not."""
    cells, _ = read(_ring(0.85), mark=cc.MARK_CLASSES.index("o"))
    assert cells["C3"].mark == "o" and cells["C3"].shaded
    assert not read(_ring(1.0), mark=cc.MARK_CLASSES.index("o"))[0]["C3"].shaded


def test_a_neighbours_band_the_strokes_cover_is_measured_from_its_bare_paper():
    """Rings in TARGET and in its four (unshaded) neighbours: every band on both sides of
    every line is covered, each cell's own bare paper stands in for it."""
    img = _ring(0.85)
    for r, c in ((1, 2), (3, 2), (2, 1), (2, 3)):
        draw(img, r, c, "o", size=0.3, width=3, ink=60.0)
    cells, _ = read(img, mark=cc.MARK_CLASSES.index("o"))
    assert cells["C3"].shaded
