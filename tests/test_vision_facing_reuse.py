"""A one-ink coin's fine correlations made once a frame (woodburned's move read, wsp26).

Its suit is read from every alike suit's turned look (``cells._suit_fits``), its facing then
from its leader's (``read_facings``, ``read_twisted``), and its symbol's shape is cut where
the leader fits best (``cells._symbol_shape_lead``): the same correlations, computed again.
They are now held and taken up, which must give the very numbers computed afresh.
"""

from __future__ import annotations

import threading

import numpy as np
from piecebridge.vision import cells, facing
from piecebridge.vision.facing import (
    TWIST_DEG,
    best_fit_at,
    correlations_held,
    face_scores,
    face_scores_batch,
    fft_size,
    known_scores,
    read_facings,
    turned_looks,
    twisted,
)
from piecebridge.vision.raster import FACE_CROP
from test_vision_fine_suit import _coin_cell, _face, _one_brown_looks, _window


def _windows(rng: np.random.Generator, extras: tuple[int, ...]) -> list[np.ndarray]:
    size = lambda e: (FACE_CROP + 2 * e,) * 2 + (3,)  # noqa: E731
    return [(rng.normal(size=size(e)) * 20 + 30).astype(np.float32) for e in extras]


def test_a_windows_scores_are_the_same_numbers_alone_as_in_any_batch():
    rng = np.random.default_rng(7)
    faces = [rng.normal(size=(4, FACE_CROP, FACE_CROP, 3)).astype(np.float32) for _ in "abc"]
    stacked = np.concatenate(faces)
    windows = _windows(rng, (12, 4, 12, 7))  # sizes mixed, as a frame's coins
    size = fft_size(windows)
    batch = face_scores_batch(windows, [stacked] * 4).reshape(4, 3, 4)
    for i, w in enumerate(windows):  # outside correlations_held nothing is held: afresh
        for j, f in enumerate(faces):  # one suit's looks, one window: bit for bit
            assert np.array_equal(face_scores_batch([w], [f], size)[0], batch[i, j])
    # The twists of the stacked looks are each suit's twists, in the same order.
    bent = face_scores_batch(windows, [twisted(stacked, TWIST_DEG)] * 4).reshape(4, 2, 3, 4)
    for j, f in enumerate(faces):
        alone = face_scores_batch(windows, [twisted(f, TWIST_DEG)] * 4).reshape(4, 2, 4)
        assert np.array_equal(alone, bent[:, :, j])


def test_the_facing_of_a_coin_whose_suit_was_read_is_not_correlated_again(monkeypatch):
    looks = _one_brown_looks()
    turned = {s: np.asarray(turned_looks(_face(k))) for k, s in enumerate(("suns", "arms"))}
    jobs = [(_coin_cell("suns"), _window(_face(0))), (_coin_cell("arms"), _window(_face(1)))]
    counted = []
    made = facing._fit_maps
    with correlations_held():
        cells._fine_suits(jobs, turned, looks)
        assert [d.best for d, _ in jobs] == [("coin", "suns"), ("coin", "arms")]
        monkeypatch.setattr(facing, "_fit_maps", lambda *a: counted.append(a) or made(*a))
        held = read_facings(jobs, turned)
    assert counted == []  # every score was held by _suit_fits
    fresh = read_facings(jobs, turned)  # let go: correlated afresh
    assert len(counted) == 1 and np.array_equal(held, fresh)


def test_a_symbol_is_cut_where_the_leader_fits_best_as_face_scores_has_it(monkeypatch):
    looks = _one_brown_looks()
    face = _face(0)
    turned = {"suns": np.asarray(turned_looks(face)), "arms": np.asarray(turned_looks(_face(1)))}
    window = _window(np.rot90(face, -1).copy())  # the suns coin facing east
    suits = ["suns", "arms"]
    asked = []
    spy = lambda w, t, turns=None: asked.append(turns) or face_scores(w, t, turns)  # noqa: E731
    monkeypatch.setattr(cells, "face_scores", spy)
    _, coin = face_scores(window, turned["suns"])  # where it was cut before
    shape = cells.symbol_shape(coin)
    learned = cells._symbol_shapes(turned, looks)
    near = {s: float(learned[s] @ shape) for s in suits}
    want = ("suns", near["suns"] - near["arms"], near["suns"])
    # The batch's best fit leads clearly: cut there, face_scores not asked.
    assert cells._symbol_shape_lead(window, "suns", 0.05, suits, turned, looks) == want
    assert asked == []
    # Too close to tell (as if): face_scores, only the turns near the batch's best.
    monkeypatch.setattr(cells, "PEAK_SLACK", 2.0)
    fits = face_scores_batch([window], [turned["suns"]])[0]
    assert cells._symbol_shape_lead(window, "suns", 0.05, suits, turned, looks, fits) == want
    assert asked == [[1]]  # east alone is near the best (the others far behind)


def test_the_best_fit_of_the_batch_correlations_is_where_face_scores_cuts():
    rng = np.random.default_rng(11)
    looks = rng.normal(size=(4, FACE_CROP, FACE_CROP, 3)).astype(np.float32)
    for w in _windows(rng, (12, 4, 12)):
        w[12:48, 9:45] += looks[2][: w.shape[0] - 12, : w.shape[0] - 9] * 3  # a turn in view
        (y, x), by = best_fit_at(w, looks)
        _, cut = face_scores(w, looks)
        assert by > 0 and np.shares_memory(cut, w)
        assert np.array_equal(cut, w[y : y + FACE_CROP, x : x + FACE_CROP])


def test_correlations_are_held_only_within_their_scope_and_thread():
    rng = np.random.default_rng(3)
    looks = rng.normal(size=(4, FACE_CROP, FACE_CROP, 3)).astype(np.float32)
    (w,) = _windows(rng, (4,))
    face_scores_batch([w], [looks])
    assert known_scores(w, looks) is None  # outside any scope: nothing held
    seen_elsewhere = []
    with correlations_held():
        got = face_scores_batch([w], [looks], keep_maps=True)
        facing.remember_scores(w, looks, fft_size([w]), got[0])
        assert np.array_equal(known_scores(w, looks), got[0])
        other = threading.Thread(target=lambda: seen_elsewhere.append(known_scores(w, looks)))
        other.start()
        other.join()
    assert seen_elsewhere == [None]  # another thread reads its own frames
    assert known_scores(w, looks) is None  # let go on leaving
