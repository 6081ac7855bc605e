"""Per-cell classification details: the look disc, occlusion on art with short crosses,
the calibration read-back. Plain drawn boards (see test_vision_board), milliseconds each."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
from piecebridge.calibration.board import calibration_layout
from piecebridge.calibration.geometry import N, project
from piecebridge.vision.cells import PieceLooks, _unit, board_views, masked, similarities
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.occlusion import covered_cells, hidden_fraction
from piecebridge.vision.raster import CROP, FACE_CROP, FACE_PX
from piecebridge.vision.reader import BoardReader
from test_vision_board import POSITION, S, as_sets, draw_board

from piecebridge.errors import UserError


def test_similarities_equal_masked_cosine():
    rng = np.random.default_rng(3)
    crops = rng.normal(size=(5, 3, CROP, CROP, 3)).astype(np.float32) * 20
    crops[..., 0] += 100  # lightness far from zero: its mean must be removed
    T = _unit(masked(rng.normal(size=(7, CROP, CROP, 3)).astype(np.float32)).reshape(7, -1)).T
    want = _unit(masked(crops).reshape(5, 3, -1)) @ T
    assert np.allclose(similarities(crops, T), want, atol=1e-4)


def _rectified_board(px=40, margin=0.5, arm=0.8):
    """A rectified board, dark crosses whose arms cover ``arm`` of each tile half."""
    m = round(margin * px)
    size = 2 * m + N * px
    img = np.full((size, size), 200, np.uint8)
    for tj in range(4):
        for ti in range(4):
            cx, cy = m + (2 * ti + 1) * px, m + (2 * tj + 1) * px
            r = round(arm * px)
            cv2.line(img, (cx - r, cy), (cx + r, cy), 30, 3)
            cv2.line(img, (cx, cy - r), (cx, cy + r), 30, 3)
    return img


def test_crosses_short_of_the_tile_edge_are_not_a_hand():
    # The ends of the arms are not printed on this art: no cell is covered.
    img = _rectified_board(arm=0.7)
    assert not covered_cells(hidden_fraction(img, 40, 0.5)).any()


def test_hand_over_short_crosses_is_still_seen():
    img = _rectified_board(arm=0.7)
    cv2.circle(img, (20 + 100, 20 + 100), 70, 150, -1)  # a flat blob over the north-west
    covered = covered_cells(hidden_fraction(img, 40, 0.5)).reshape(N, N)
    assert covered[2, 2] and covered[1, 2] and covered[3, 3]
    assert not covered[6:, 6:].any()


def test_thick_printed_lines_do_not_make_empty_cells_unknown():
    # Thick lines (as on card-style art) reach into every cell; compared inside the look
    # disc, empty cells stay empty and pieces are still read.
    coins = [(c, s, "north") for c, (k, s) in calibration_layout().items() if k == "coin"]
    pawns = [(c, s) for c, (k, s) in calibration_layout().items() if k == "pawn"]
    cal, _ = draw_board(coins, pawns, seed=1, line=9)
    setup, _ = learn_setup(cal)
    img, _ = draw_board(**POSITION, seed=4, line=9)
    obs = BoardReader(setup=setup).read(img)
    assert obs.unknown == []
    assert as_sets(obs.board) == (set(POSITION["coins"]), set(POSITION["pawns"]))


def test_calibration_refuses_a_layout_that_does_not_read_back():
    # Extra coins on cells the layout keeps empty: a setup learned from this would be
    # taught a wrong picture of "empty", so calibration refuses it with one clear line.
    coins = [(c, s, "north") for c, (k, s) in calibration_layout().items() if k == "coin"]
    coins += [(f"{f}7", "suns", "north") for f in "abcdef"]
    pawns = [(c, s) for c, (k, s) in calibration_layout().items() if k == "pawn"]
    img, _ = draw_board(coins, pawns, seed=2)
    with pytest.raises(UserError, match=r"does not read back|does not show"):
        learn_setup(img)


def test_face_scores_equal_brute_force_over_shifts():
    from piecebridge.vision.facing import FACE_MASK, face_scores, fine_detail

    rng = np.random.default_rng(1)
    turned = rng.normal(size=(4, 36, 36, 3)).astype(np.float32)
    window = (rng.normal(size=(44, 44, 3)) * 10 + 50).astype(np.float32)
    scores, best = face_scores(window, turned)
    n, mask = 36 * 36, FACE_MASK
    want = []
    detail = fine_detail(window)  # facing compares fine detail, not shading
    for t in turned:
        t = fine_detail(t)
        tc = t * mask - (t * mask).reshape(n, 3).mean(axis=0)
        tc *= mask
        top = -2.0
        for dy in range(9):
            for dx in range(9):
                w = detail[dy : dy + 36, dx : dx + 36] * mask
                s1 = w.reshape(n, 3).sum(axis=0)
                w_norm = np.sqrt((w * w).sum() - (s1 * s1).sum() / n)
                top = max(top, float((w * tc).sum() / (w_norm * np.linalg.norm(tc))))
        want.append(top)
    assert np.allclose(scores, want, atol=1e-4)
    assert best.shape == (36, 36, 3)


def test_shading_that_does_not_turn_with_the_coin_is_not_read_as_north():
    # Every coin darker on its south side (a lamp to the north), in the calibration photo
    # (where all coins face north) and later: the shading must not be learned as "north".
    coins = [(c, s, "north") for c, (k, s) in calibration_layout().items() if k == "coin"]
    pawns = [(c, s) for c, (k, s) in calibration_layout().items() if k == "pawn"]
    cal, _ = draw_board(coins, pawns, seed=1, shade=0.45)
    setup, _ = learn_setup(cal)
    facings = ["east", "south", "west"] * 8
    turned = [(c, s, f) for (c, s, _), f in zip(coins, facings, strict=False)]
    img, _ = draw_board(turned, pawns, seed=6, shade=0.45)
    obs = BoardReader(setup=setup).read(img)
    coins_read, _ = as_sets(obs.board)
    assert coins_read == set(turned)


def _setup_and_position(seed=4):
    coins = [(c, s, "north") for c, (k, s) in calibration_layout().items() if k == "coin"]
    pawns = [(c, s) for c, (k, s) in calibration_layout().items() if k == "pawn"]
    setup, _ = learn_setup(draw_board(coins, pawns, seed=1)[0])
    img, M = draw_board(**POSITION, seed=seed)
    return setup, img, M


def test_a_soft_shadow_on_an_empty_cell_is_read_as_empty(monkeypatch):
    # A pawn's or a hand's shadow darkens a cell smoothly: it has no fine detail, so the
    # cell is empty (without the detail test it is busy enough to be left unknown, unless
    # round 18's per-pixel tile, a shadow allowed for, reads it, or round 24's against the
    # open cells' tile: both switched off below).
    from piecebridge.vision import cells

    setup, img, M = _setup_and_position()
    (x, y), r = project(M, np.array([[2.5, 2.5]]) * S)[0], 0.3 * 520 / 8  # ~65 px cells
    yy, xx = np.mgrid[: img.shape[0], : img.shape[1]]
    shade = 1 - 0.45 * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * r * r))
    img = (img * shade[..., None]).astype(np.uint8)  # over c6, which is empty
    obs = BoardReader(setup=setup).read(img)
    assert obs.unknown == []
    assert as_sets(obs.board) == (set(POSITION["coins"]), set(POSITION["pawns"]))
    setup.looks.detail_empty = 0.0
    assert "c6" not in BoardReader(setup=setup).read(img).unknown  # round 18's rule
    monkeypatch.setattr(cells, "HAND_EDGE_SHOWN", 2.0)  # nothing is shown empty so
    monkeypatch.setattr(cells, "OPEN_TILE_SHOWN", 2.0)
    assert "c6" in BoardReader(setup=setup).read(img).unknown


def test_mark_check_is_learned_per_suit_and_saved():
    # This art's coins carry one clear dot at the top: every suit's facing may be checked
    # against it. Under strong shading most calibration coins' dots no longer read as
    # north, and those suits are left to the learned look alone.
    setup, img, _ = _setup_and_position()
    assert setup.looks.marked == ("suns", "moons", "crowns", "arms")
    again = PieceLooks.from_json(setup.looks.to_json())
    assert again.marked == setup.looks.marked
    # Where each suit's dot sits (~0.28 of a cell out) and its size are learned and saved.
    assert set(setup.looks.mark_spots) == set(setup.looks.marked)
    assert all(0.2 * FACE_PX < r < 0.32 * FACE_PX for r, *_ in setup.looks.mark_spots.values())
    assert again.mark_spots == setup.looks.mark_spots
    older = setup.looks.to_json()
    del older["mark_spots"]  # a setup saved before spots were learned still loads
    assert PieceLooks.from_json(older).mark_spots == {}
    assert as_sets(BoardReader(setup=setup).read(img).board)[0] == set(POSITION["coins"])
    coins = [(c, s, "north") for c, (k, s) in calibration_layout().items() if k == "coin"]
    pawns = [(c, s) for c, (k, s) in calibration_layout().items() if k == "pawn"]
    shaded, _ = draw_board(coins, pawns, seed=1, shade=0.45)
    assert "crowns" not in learn_setup(shaded)[0].looks.marked


def test_coin_centre_is_where_its_look_fits_off_centre():
    # A coin pushed 0.2 cell off its cell's centre: the mark is looked for around the
    # centre where the suit's look (averaged over its turns) fits, found to a pixel or so.
    from piecebridge.vision.cells import board_views, look_centre
    from piecebridge.vision.raster import CELL_ORDER, FACE_PX, MARGIN

    setup, img, _ = _setup_and_position()
    rect = setup.pose.rectify(img, FACE_PX, MARGIN)
    i = CELL_ORDER.index("c4")  # a suns coin
    x0, y0 = round((MARGIN + i % N) * FACE_PX), round((MARGIN + i // N) * FACE_PX)
    cell = rect[y0 : y0 + FACE_PX, x0 : x0 + FACE_PX].copy()
    dx, dy = 8, -6  # FACE_PX pixels: 0.2 and 0.15 cell
    shifted = cv2.warpAffine(cell, np.float32([[1, 0, dx], [0, 1, dy]]), (FACE_PX, FACE_PX),
                             borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    rect[y0 : y0 + FACE_PX, x0 : x0 + FACE_PX] = shifted
    cx, cy = look_centre(board_views(rect), i, setup.looks, "suns")
    want_x = (MARGIN + i % N + 0.5) * FACE_PX - 0.5 + dx
    want_y = (MARGIN + i // N + 0.5) * FACE_PX - 0.5 + dy
    assert abs(cx - want_x) <= 1.5 and abs(cy - want_y) <= 1.5


def _measured(**kw):
    from piecebridge.vision.cells import CellDecision

    base = dict(cell="c3", kind="unknown", energy_ratio=10.0, detail_ratio=5.0, tint=2.0)
    return CellDecision(**{**base, **kw})


def test_hidden_lines_over_plain_tile_are_empty_over_a_hand_unknown():
    from piecebridge.vision.cells import decide

    looks = PieceLooks.default()
    plain = dict(covered=True, detail_ratio=1.0, shade_tint=1.0, light_ratio=0.8,
                 best=("pawn", "moons"))  # fmt: skip
    assert decide(_measured(**plain), looks).kind == "empty"  # a finger over the lines only
    assert decide(_measured(**{**plain, "shade_tint": 8.0}), looks).kind == "unknown"  # skin
    assert decide(_measured(**{**plain, "light_ratio": 0.3}), looks).kind == "unknown"  # dark
    assert decide(_measured(**{**plain, "detail_ratio": 4.0}), looks).kind == "unknown"  # edge


def test_a_lit_cell_beside_a_hand_is_judged_empty_as_an_open_one():
    from piecebridge.vision.cells import decide
    from piecebridge.vision.occlusion import lit_beside

    # The stand-ins' thresholds with a setup's textured-tile rule (without a setup a busy
    # cell unlike the stand-ins is no tile: test_without_a_setup_a_busy_cell_...).
    looks = dataclasses.replace(PieceLooks.default(), textured_max_similarity=0.5)
    # Beside a hand: a bit of fine detail (the hand's edge), the tile's colour, fully lit.
    cell = dict(covered=True, detail_ratio=3.0, shade_tint=1.4, light_ratio=1.05,
                energy_ratio=4.6, similarity=0.32, best=("pawn", "arms"))  # fmt: skip
    assert decide(_measured(**cell), looks).kind == "unknown"  # covered: as before
    assert decide(_measured(**cell, lit_beside=True), looks).kind == "empty"
    # A piece there: with the drawn stand-in looks still read only when plain, as under any
    # covered cell (their facing comes from the mark alone); with learned looks as in the open.
    coin = {**cell, "similarity": 0.8, "margin": 0.3, "best": ("coin", "suns"),
            "facing": "east", "facing_margin": 0.6}  # fmt: skip
    assert decide(_measured(**coin, lit_beside=True), looks).kind == "unknown"
    learned = dataclasses.replace(looks, learned=True)
    d = decide(_measured(**coin, lit_beside=True), learned)
    assert (d.kind, d.suit, d.facing) == ("coin", "suns", "east")
    assert decide(_measured(**coin), learned).kind == "unknown"  # not lit: covered
    # Only a cell partly hidden beside a mostly hidden one, and not in a shadow, is such.
    hidden = np.zeros(N * N)
    hidden[[27, 28, 29]] = 1.0, 0.25, 0.375
    light = np.ones(N * N)
    light[29] = 0.9
    assert np.flatnonzero(lit_beside(hidden, light)).tolist() == [28]


def test_a_plain_coin_under_hidden_lines_is_read_but_not_a_pawn():
    from piecebridge.vision.cells import decide

    looks = PieceLooks.default()
    coin = dict(covered=True, best=("coin", "suns"), similarity=0.9, margin=0.3,
                facing="east", facing_margin=0.6)  # fmt: skip
    d = decide(_measured(**coin), looks)
    assert (d.kind, d.suit, d.facing) == ("coin", "suns", "east")
    assert decide(_measured(**{**coin, "similarity": 0.8}), looks).kind == "unknown"
    pawn = {**coin, "best": ("pawn", "moons"), "facing": None}
    assert decide(_measured(**pawn), looks).kind == "unknown"


def test_leaning_pawn_needs_a_clear_lead_and_two_mark_reads_set_a_facing():
    import dataclasses

    from piecebridge.vision.cells import decide, facing_sure

    looks = dataclasses.replace(PieceLooks.default(), min_similarity=0.7)  # as learned
    pawn = dict(best=("pawn", "arms"), similarity=0.67, margin=0.2)
    assert (decide(_measured(**pawn), looks).kind, decide(_measured(**pawn), looks).suit) == (
        "pawn",
        "arms",
    )
    assert decide(_measured(**{**pawn, "margin": 0.1}), looks).kind == "unknown"
    weak = _measured(best=("coin", "suns"), facing="west", facing_margin=0.01)
    assert not facing_sure(weak, looks)
    weak.mark = 2  # the mark, read alike from two centres, set the facing
    assert facing_sure(weak, looks)
    weak.mark = -1
    assert not facing_sure(weak, looks)


def _disc_crop(colour, centre=(0.0, 0.0)):
    """A descriptor crop: a pawn-sized disc of relative Lab ``colour`` on plain tile."""
    r = np.arange(CROP) - (CROP - 1) / 2
    yy, xx = np.meshgrid(r, r, indexing="ij")
    crop = np.zeros((CROP, CROP, 3), np.float32)
    crop[np.hypot(yy - centre[0], xx - centre[1]) <= 6] = colour
    return crop


def test_a_pawn_whose_lean_fits_another_suit_is_named_by_its_colour():
    from piecebridge.vision.cells import CellDecision, _pawn_by_colour

    black, blue = (-60.0, 0.0, 0.0), (-45.0, 6.0, -40.0)
    looks = PieceLooks({}, {"moons": _disc_crop(black), "arms": _disc_crop(blue)})
    labels = [("coin", "suns", "north"), ("pawn", "moons", None), ("pawn", "arms", None)]
    sims = np.array([0.3, 0.87, 0.86])  # the black pawn's look fits a shade better
    d = CellDecision("h8", "unknown", similarity=0.87, margin=0.01, best=("pawn", "moons"))
    _pawn_by_colour(d, _disc_crop(blue, centre=(-2, 2)), sims, labels, looks)
    assert d.best == ("pawn", "arms") and d.similarity == pytest.approx(0.86)
    assert d.margin == pytest.approx(0.56)  # over the best coin look, not the other pawn
    # A colour halfway between the two names no suit: the looks decide as before.
    d = CellDecision("h8", "unknown", similarity=0.87, margin=0.01, best=("pawn", "moons"))
    _pawn_by_colour(d, _disc_crop((-52.0, 3.0, -20.0)), sims, labels, looks)
    assert (d.best, d.margin) == (("pawn", "moons"), 0.01)


def test_a_shadow_keeps_the_tile_colour_once_its_lightness_is_the_tiles():
    from piecebridge.vision.cells import CHROMA_WEIGHT, shade_tints

    def relative(bgr, tile_lab):
        lab = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
        return [lab[0], *((lab[1:] - tile_lab[1:]) * CHROMA_WEIGHT)]

    tile_bgr = np.array([120.0, 170.0, 215.0])  # light wood
    tile = cv2.cvtColor(np.uint8([[tile_bgr]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    # The tile under a hand's shadow (its light halved, in linear RGB), and skin as dark.
    linear = (tile_bgr / 255) ** 2.2
    shadow = 255 * (0.45 * linear) ** (1 / 2.2)
    cells = np.array([relative(shadow, tile), relative((95, 120, 150), tile)])
    assert abs(cells[0, 0] - cells[1, 0]) < 12  # alike in lightness
    plain_tint = np.linalg.norm(cells[:, 1:], axis=1)
    shade = shade_tints(cells, tile[1:], tile[0])
    assert plain_tint[0] > 9  # the shadow's own tint is far from the tile's ...
    assert shade[0] < 2.5 and shade[1] > 9  # ... but its shade is not; the skin's is


def _shaded_coin(quarter_turns: int, pad: int = 0) -> np.ndarray:
    """A coin's fine look (relative Lab): a diamond (the same upside down) with a small mark
    at its top, turned clockwise by quarter turns, under a rim lit on one side only (as a
    tilted camera and a lamp show it: the shading does not turn with the coin)."""
    from piecebridge.vision.raster import FACE_CROP

    n = FACE_CROP + 2 * pad
    c = (n - 1) / 2
    img = np.zeros((n, n), np.float32)
    diamond = np.array([[c, c - 9], [c + 5, c], [c, c + 9], [c - 5, c]], np.int32)
    mark = np.array([[c, c - 13], [c + 2, c - 10.5], [c - 2, c - 10.5]], np.int32)
    cv2.fillPoly(img, [diamond, mark], -60.0)
    img = np.rot90(img, -quarter_turns).copy()
    yy, xx = np.mgrid[:n, :n] - c
    r, theta = np.hypot(yy, xx), np.arctan2(yy, xx)
    img += np.where((r >= 13) & (r <= 15.5), -25 - 60 * np.cos(theta - 2.4), 0)
    out = np.zeros((n, n, 3), np.float32)
    out[..., 0] = cv2.GaussianBlur(img, (0, 0), 0.8)
    return out


def test_a_rim_shaded_on_one_side_does_not_pull_the_facing_to_the_calibrations_north():
    from piecebridge.vision.cells import round_rim
    from piecebridge.vision.facing import FACINGS, face_scores, turned_looks
    from piecebridge.vision.raster import FACE_SEARCH

    learned = _shaded_coin(0)  # the calibration's coins all face north
    south = _shaded_coin(2, FACE_SEARCH)
    raw = face_scores(south, np.asarray(turned_looks(learned)))[0]
    assert FACINGS[int(np.argmax(raw))] == "north"  # the shaded rim outweighs the mark
    rounded = face_scores(south, np.asarray(turned_looks(round_rim(learned))))[0]
    assert FACINGS[int(np.argmax(rounded))] == "south"
    first, second = np.sort(rounded)[::-1][:2]
    assert 1 - (1 - first) / (1 - second) > 0.5  # and clearly
    for k in (1, 3):  # east and west stay right
        window = _shaded_coin(k, FACE_SEARCH)
        scores = face_scores(window, np.asarray(turned_looks(round_rim(learned))))[0]
        assert int(np.argmax(scores)) == k


def test_the_mark_does_not_set_a_facing_beside_a_hand():
    from piecebridge.vision.cells import CellDecision, decide_all
    from piecebridge.vision.raster import CELL_ORDER

    looks = PieceLooks.default()

    def board(hand: bool) -> list:
        cells = [_measured(cell=c, detail_ratio=0.5, energy_ratio=0.5) for c in CELL_ORDER]
        i = CELL_ORDER.index("d4")
        cells[i] = _measured(cell="d4", best=("coin", "suns"), similarity=0.9, margin=0.3,
                             facing="west", facing_margin=0.01, mark=2)  # fmt: skip
        if hand:  # e4 is under a hand
            cells[CELL_ORDER.index("e4")] = CellDecision("e4", "unknown", covered=True)
        return decide_all(cells, looks)

    d4 = {d.cell: d for d in board(hand=False)}["d4"]
    assert (d4.kind, d4.facing) == ("coin", "west")  # two agreeing mark reads set it
    assert {d.cell: d for d in board(hand=True)}["d4"].kind == "unknown"


def test_a_pawn_named_by_colour_is_no_less_like_a_piece():
    from piecebridge.vision.cells import decide

    # Learned looks (without a setup a busy cell unlike the stand-ins is never a tile).
    looks = PieceLooks({}, {}, learned=True, empty_ratio=PieceLooks.default().empty_ratio)
    # The colour named moons, whose own look fits at 0.49; another suit's pawn fit 0.55.
    # (fine detail 4: a textured tile's, see PieceLooks.textured_max_detail)
    pawn = dict(best=("pawn", "moons"), similarity=0.49, margin=0.5, energy_ratio=4.0,
                detail_ratio=4.0)  # fmt: skip
    assert decide(_measured(**pawn), looks).kind == "empty"  # a busy cell unlike any piece
    assert decide(_measured(**pawn, likeness=0.55), looks).kind == "unknown"


def test_two_weak_mark_reads_that_lean_the_looks_way_agree(monkeypatch):
    import piecebridge.vision.cells as cells

    def check(rim, fit):
        monkeypatch.setattr(
            cells, "mark_facing", lambda views, i, centre=None, spot=None: fit if centre else rim
        )
        monkeypatch.setattr(cells, "look_centre", lambda *a: (0.0, 0.0))
        # No image: both reads stand (see cells._off_symbol_dropped).
        monkeypatch.setattr(cells, "_off_symbol_dropped", lambda v, i, c, rim, fit: (rim, fit))
        monkeypatch.setattr(cells, "round_symbol_centre", lambda v, c: None)  # nor symbol
        d = _measured(best=("coin", "arms"), facing="south", facing_margin=0.05)
        cells._check_mark(d, None, 0, PieceLooks.default())
        return d.mark

    assert check(("south", 0.35), ("south", 0.4)) == 1  # neither sure, both lean south
    assert check(("south", 0.35), (None, 0.0)) == 1  # one leans south, the other sees none
    assert check(("south", 0.35), ("north", 0.4)) == 0  # they lean apart: nothing known
    assert check(("south", 0.1), ("north", 0.1)) == 0  # too faint to lean
    assert check(("north", 0.35), (None, 0.0)) == 0  # leaning another way is no veto
    assert check(("north", 0.7), ("north", 0.65)) == 2  # sure and alike: they set it


def test_the_mark_chooses_among_the_turns_the_look_cannot_rule_out(monkeypatch):
    import piecebridge.vision.cells as cells

    def check(rim, fit, leads=(0.3, 0.01, 0.3, 0.0), facing_margin=0.01):
        monkeypatch.setattr(
            cells, "mark_facing", lambda views, i, centre=None, spot=None: fit if centre else rim
        )
        monkeypatch.setattr(cells, "look_centre", lambda *a: (0.0, 0.0))
        # No image: both reads stand (see cells._off_symbol_dropped).
        monkeypatch.setattr(cells, "_off_symbol_dropped", lambda v, i, c, rim, fit: (rim, fit))
        monkeypatch.setattr(cells, "round_symbol_centre", lambda v, c: None)  # nor symbol
        d = _measured(best=("coin", "arms"), facing="west", facing_margin=facing_margin)
        d.turn_leads = leads  # north, east, south, west
        cells._check_mark(d, None, 0, PieceLooks.default())
        return d.facing, d.mark

    # A diamond fits west and east alike, both well ahead of north and south.
    assert check(("east", 0.95), (None, 0.0)) == ("east", 2)  # one sure read picks east
    assert check(("east", 0.35), ("east", 0.4)) == ("east", 2)  # two leaning reads do too
    assert check(("west", 0.4), ("west", 0.5)) == ("west", 2)  # or confirm the look's turn
    # One weak read alone is no evidence (a rim speck seen from a centre a few px off).
    assert check(("east", 0.4), (None, 0.0)) == ("west", 0)
    assert check((None, 0.0), ("east", 0.4)) == ("west", 0)
    assert check(("west", 0.4), (None, 0.0)) == ("west", 1)  # it may still agree (MARK_AGREE)
    # A sure rim read agreeing with a look that leads by under the agreed margin: the
    # second read is made, and the two decide among the rivals.
    assert check(("west", 0.95), ("west", 0.9)) == ("west", 2)
    assert check(("west", 0.95), ("west", 0.9), facing_margin=0.05) == ("west", 1)
    assert check(("east", 0.95), ("north", 0.9)) == ("west", -1)  # sure reads disagree: in doubt
    assert check(("east", 0.4), ("west", 0.4)) == ("west", 0)  # leaning both ways
    assert check(("north", 0.95), (None, 0.0)) == ("west", -1)  # the look rules north out
    one_out = (0.02, 0.01, 0.3, 0.0)  # the look rules out south only
    assert check(("north", 0.95), (None, 0.0), leads=one_out) == ("north", 2)
    flat = (0.02, 0.01, 0.03, 0.0)  # no turn ruled out: maybe another suit's look
    assert check(("north", 0.95), (None, 0.0), leads=flat) == ("west", -1)
    assert check(("east", 0.95), (None, 0.0), facing_margin=0.7)[0] == "west"  # look is sure


def test_a_coin_laid_askew_is_read_again_with_its_looks_twisted():
    from piecebridge.vision.cells import CellDecision
    from piecebridge.vision.facing import read_facings, read_twisted, turned_looks

    # A coin look: a symbol like a broad arrowhead and a small mark at the top (north).
    n = FACE_CROP
    face = np.zeros((n, n, 3), np.float32)
    yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    face[(np.abs(xx) < 6 - yy / 2) & (yy > -6) & (yy < 7), 0] = 60.0
    face[(np.abs(xx) < 2) & (yy > -12) & (yy < -9), 0] = 60.0
    turned = {"suns": np.asarray(turned_looks(face))}
    # The coin faces east, laid 12 degrees askew, inside a slightly wider window.
    east = turned["suns"][1]
    M = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), 12.0, 1.0)
    window = cv2.copyMakeBorder(cv2.warpAffine(east, M, (n, n)), 4, 4, 4, 4, cv2.BORDER_CONSTANT)

    d = CellDecision("c3", "unknown", best=("coin", "suns"))
    scores = read_facings([(d, window)], turned)
    plain = d.facing_margin  # askew, the right turn leads by less
    read_twisted([(d, window)], turned, scores)
    assert d.facing == "east" and d.facing_margin > plain + 0.05


def test_face_scores_batch_takes_any_number_of_looks():
    from piecebridge.vision.facing import face_scores_batch

    # The twisted reads pass eight looks (two twists of four turns) with each window once:
    # the same scores as two calls of four.
    rng = np.random.default_rng(5)
    a, b = (rng.normal(size=(4, FACE_CROP, FACE_CROP, 3)).astype(np.float32) for _ in "ab")
    both = np.concatenate([a, b])
    w = [rng.normal(size=(FACE_CROP + 2 * e,) * 2 + (3,)).astype(np.float32) for e in (4, 12)]
    got = face_scores_batch(w, [both, both])
    want = np.concatenate([face_scores_batch(w, [a, a]), face_scores_batch(w, [b, b])], axis=1)
    assert got.shape == (2, 8) and np.allclose(got, want, atol=1e-5)


def test_a_learned_mark_spot_ignores_blobs_of_another_size():
    # A coin facing east with its dot, and a speck (a jewel, a bit of the rim line) on its
    # north side, farther out: unlearned, the farther blob is taken for the mark; with the
    # suit's learned dot size only the dot counts.
    from piecebridge.vision.facing import mark_blob

    c = 2.5 * FACE_PX
    img = np.full((5 * FACE_PX, 5 * FACE_PX, 3), (175, 205, 220), np.uint8)
    cv2.circle(img, (int(c), int(c)), int(0.38 * FACE_PX), (165, 195, 210), -1)
    cv2.circle(img, (int(c), int(c)), int(0.16 * FACE_PX), (40, 40, 160), -1)  # the symbol
    cv2.circle(img, (int(c + 11), int(c)), 2, (40, 40, 160), -1)  # the dot, east, ~13 px
    img[int(c) - 12 : int(c) - 10, int(c) : int(c) + 2] = (40, 40, 160)  # a 2x2 speck
    views = board_views(img)
    assert mark_blob(views, (c, c))[0] == "north"
    facing, lead, r, area, _ = mark_blob(views, (c, c), spot=(11.0, 13.0))
    assert facing == "east" and lead > 0.6 and abs(r - 11) < 1.5 and area < 20


def test_no_mark_read_for_a_coin_that_cannot_be_named():
    # Without a setup a coin fitting too loosely (or too close to another look) is unknown
    # whatever its facing, so its mark is not read; a covered cell's thresholds count too.
    from piecebridge.vision.cells import _could_be_sure

    looks = PieceLooks.default()  # 0.65 / 0.05 (covered: 0.85 / 0.15)
    assert _could_be_sure(_measured(similarity=0.7, margin=0.06), looks)
    assert not _could_be_sure(_measured(similarity=0.6, margin=0.5), looks)
    assert not _could_be_sure(_measured(similarity=0.9, margin=0.04), looks)
    looks.covered_piece_similarity = 0.55
    assert _could_be_sure(_measured(similarity=0.6, margin=0.5), looks)


def test_a_learned_mark_spot_ignores_a_rim_arc_of_the_marks_size():
    # A piece of the rim line (long along the rim) as far out and as big as the dot: the
    # learned spot's shape (the dot about as long as wide) leaves the arc out.
    from piecebridge.vision.facing import mark_blob

    c = 2.5 * FACE_PX
    img = np.full((5 * FACE_PX, 5 * FACE_PX, 3), (175, 205, 220), np.uint8)
    cv2.circle(img, (int(c), int(c)), int(0.38 * FACE_PX), (165, 195, 210), -1)
    cv2.circle(img, (int(c), int(c)), int(0.16 * FACE_PX), (40, 40, 160), -1)  # the symbol
    cv2.circle(img, (int(c + 11), int(c)), 2, (40, 40, 160), -1)  # the dot, east
    img[int(c) - 12 : int(c) - 10, int(c) - 3 : int(c) + 4] = (40, 40, 160)  # 7x2, north
    views = board_views(img)
    assert mark_blob(views, (c, c), spot=(11.0, 13.0))[0] == "north"  # size alone: the arc
    assert mark_blob(views, (c, c), spot=(11.0, 13.0, 1.0))[0] == "east"


def test_without_a_setup_a_busy_cell_unlike_the_stand_ins_is_no_tile():
    # Twelfth session, woodburned without a setup: its coins (symbols burnt in one brown)
    # are busy, but unlike the drawn stand-ins, and were read as textured tile, empty.
    from piecebridge.vision.cells import decide

    busy = dict(energy_ratio=1.5 * PieceLooks.default().empty_ratio, detail_ratio=3.0,
                similarity=0.3, best=("coin", "suns"), margin=0.0)  # fmt: skip
    assert decide(_measured(**busy), PieceLooks.default()).kind == "unknown"
    learned = PieceLooks({}, {}, learned=True, empty_ratio=PieceLooks.default().empty_ratio)
    assert decide(_measured(**busy), learned).kind == "empty"  # learned looks: a tile
