"""Round 13 of learning looks (woodburned: suits in one brown, told apart by shape only):
calibration coins aligned by shift and twist before their median is the look, a fine-suit
near tie unsure in the read-back, and the ink and detail bars pinned as literal values."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.calibration import looks as calibration_looks
from piecebridge.calibration.geometry import N
from piecebridge.calibration.looks import LearnedLooks
from piecebridge.vision import cells, learn
from piecebridge.vision.cells import (
    CROP,
    CellDecision,
    PieceLooks,
    board_views,
    ink_alike,
    ink_colour,
    learned_detail_empty,
)
from piecebridge.vision.facing import FACE_MASK, fine_detail
from piecebridge.vision.raster import CELL_ORDER, FACE_CROP, FACE_PX, MARGIN

from piecebridge.synth.reflec import Difficulty, calibration_sample

S = 8  # drawing sub-pixel factor (cv2 shift 3)
JITTER = [(1.5, -1.0), (-2.0, 0.5), (0.0, 2.0), (2.5, 1.5), (-1.0, -2.0), (0.5, 0.0)]


def _board(
    twists: list[float], jitter: list[tuple[float, float]] = JITTER
) -> tuple[np.ndarray, list[int], list[tuple[float, float]]]:
    """A rectified board (FACE_PX a cell) with six coins on a1-f1, each off its cell's middle
    by its jitter (px) and turned by its twist (degrees): a pale disc, a dark rim line, and a dark
    L-shaped symbol with a dot beside it (alike in no turn). The image, cells, centres."""
    n = round((N + 2 * MARGIN) * FACE_PX)
    img = np.full((n, n, 3), (150, 190, 205), np.uint8)
    for k in range(N + 1):
        p = round((MARGIN + k) * FACE_PX)
        cv2.line(img, (p, 0), (p, n - 1), (120, 150, 165), 1)
        cv2.line(img, (0, p), (n - 1, p), (120, 150, 165), 1)
    cells_, centres = [], []
    for col, ((jx, jy), twist) in enumerate(zip(jitter, twists, strict=True)):
        i = CELL_ORDER.index(f"{'abcdef'[col]}1")
        cx = (MARGIN + i % N + 0.5) * FACE_PX + jx
        cy = (MARGIN + i // N + 0.5) * FACE_PX + jy
        cells_.append(i)
        centres.append((cx, cy))
        a = np.radians(twist)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

        def at(x: float, y: float, rot=rot, cx=cx, cy=cy) -> tuple[int, int]:
            v = rot @ np.array([x, y]) + (cx, cy)
            return round(v[0] * S), round(v[1] * S)

        r = round(0.375 * FACE_PX * S)
        cv2.circle(img, at(0, 0), r, (200, 225, 235), -1, cv2.LINE_AA, 3)
        cv2.circle(img, at(0, 0), r, (90, 110, 120), 1, cv2.LINE_AA, 3)
        ell = [at(-7, -6), at(-3, -6), at(-3, 4), at(7, 4), at(7, 8), at(-7, 8)]
        cv2.fillPoly(img, [np.array(ell, np.int32)], (60, 60, 160), cv2.LINE_AA, 3)
        cv2.circle(img, at(4, -9), round(1.5 * S), (60, 60, 160), -1, cv2.LINE_AA, 3)
    return img, cells_, centres


def _look_fit(twists: list[float], jitter: list[tuple[float, float]] = JITTER) -> float:
    """How closely the look learned askew (see ``learn._align_askew``) from six coins so laid
    fits a coin laid straight on its cell's middle (fine detail in the coin's disc)."""
    img, found, _ = _board(twists, jitter)
    _, look, _ = learn._coin_looks(board_views(img), found, askew=True)
    straight, _, centres = _board([0.0] * 6)
    want = cv2.getRectSubPix(board_views(straight).rel_hi, (FACE_CROP, FACE_CROP), centres[2])
    mask = np.repeat(FACE_MASK, 3, axis=2)
    fit = cv2.matchTemplate(fine_detail(look), fine_detail(want), cv2.TM_CCORR_NORMED, mask=mask)
    return float(fit[0, 0])


def test_coins_laid_askew_do_not_blur_the_look():
    """Six coins laid 12-14 degrees askew, either way: their look (the median of their
    cut-outs) fits a coin laid straight closely (0.985; the median of cut-outs aligned by
    shift alone blurs the symbol, as a fleur-de-lis on tune woodburned rigs 8 and 17; tried
    at twists up to 6 degrees only, 0.970)."""
    assert _look_fit([-14.0, -12.0, 13.0, 14.0, -13.0, 12.0]) > 0.978


def test_coins_laid_far_off_their_cells_middles_fit_each_other(monkeypatch):
    """Coins laid up to 6.5 px (FACE_PX) off their cells' middles, no rim circle found (each
    cut out from its cell's middle first): each is found where it lies (the look, centred
    where the six coins' median offset puts it, 0.73; searched 4 px each way only, 0.19)."""
    monkeypatch.setattr(learn, "coin_centre", lambda views, i: None)
    far = [(6.5, -1.0), (-6.0, 2.0), (0.0, 5.5), (2.5, 1.5), (-1.0, -6.0), (5.5, 0.0)]
    assert _look_fit([0.0] * 6, far) > 0.6


@pytest.mark.parametrize("rig", [8, 17])
def test_woodburned_layouts_refused_for_a_blurred_look_calibrate(rig):
    """Tune woodburned rigs 8 and 17 (about 3 s each to render and learn): their looks,
    blurred by coins laid askew, read 6 moons coins (rig 8) or 6 suns coins (rig 17) as
    another one-brown suit, and the layout was refused (23 and 22 of 28 read back)."""
    shot = calibration_sample("tune", rig, Difficulty.parse("realistic"), art="woodburned")
    _, report = learn.learn_setup(shot.image)
    assert report["read_back"] >= 27


def test_suits_of_their_own_ink_keep_looks_aligned_by_shift_alone(monkeypatch):
    """piecepackr's suits each have their own colour: no coin is turned to fit the others
    (the colour arts' reads are tuned on looks aligned by shift alone)."""

    def turned(*args):
        raise AssertionError("a suit of its own ink aligned askew")

    monkeypatch.setattr(learn, "_align_askew", turned)
    shot = calibration_sample(
        "tune", 1, Difficulty.easy(), art="piecepackr", image_size=(1280, 720)
    )
    _, report = learn.learn_setup(shot.image)
    assert report["read_back"] == 28


def _coin_read(fine_lead: float) -> CellDecision:
    """A layout suns coin whose best look is the suns coin, fitting well."""
    return CellDecision("a1", "unknown", similarity=0.9, best=("coin", "suns"), fine_lead=fine_lead)


@pytest.mark.parametrize(
    "lead, by_face, how",
    [
        (0.06, False, "read"),
        (0.04, False, "unsure"),
        (0.04, True, "unsure"),  # nor by its face: the suits' faces fit it alike
        (-1.0, False, "read"),  # a suit read from its colour, not by the fine look
    ],
)
def test_a_fine_suit_near_tie_is_unsure_in_the_read_back(lead, by_face, how):
    """A layout coin whose suit the fine look leads by under 0.05 (as a reading decides it)
    is its suit by a guess: tune woodburned rigs 9 and 11 read back 24 and 25 of 28 so,
    three of each such guesses (round 12)."""
    looks = PieceLooks({}, {}, learned=True)
    assert learn._read_as(_coin_read(lead), ("coin", "suns"), looks, by_face) == how


def _coin(ab: tuple[float, float]) -> np.ndarray:
    look = np.zeros((CROP, CROP, 3), np.float32)
    c = CROP // 2
    look[c - 5 : c + 5, c - 5 : c + 5] = (-40, *ab)
    return look


def test_inks_9_apart_are_alike_11_apart_are_not():
    coins = {"suns": _coin((20, 0)), "arms": _coin((29, 0)), "moons": _coin((40, 0))}
    coins["crowns"] = _coin((-30, 30))
    alike = ink_alike(PieceLooks(coins, {}, learned=True))
    assert alike == {"suns": ("arms",), "arms": ("suns",), "moons": (), "crowns": ()}


def test_the_ink_is_the_farthest_quarter_of_the_disc():
    """36 pixels of strong ink (a 30), 64 of weak ink (a 10) around them on a ground of 0:
    the farthest quarter of the disc's 284 pixels (71) is the 36 strong and 35 weak ones."""
    look = np.zeros((CROP, CROP, 3), np.float32)
    c = CROP // 2
    look[c - 5 : c + 5, c - 5 : c + 5] = (-20, 10, 0)
    look[c - 3 : c + 3, c - 3 : c + 3] = (-40, 30, 0)
    assert int((cells.LOOK_MASK[..., 0] > 0.5).sum()) == 284
    assert ink_colour(look)[0] == pytest.approx((36 * 30 + 35 * 10) / 71, abs=0.05)


def test_detail_empty_weighs_the_busiest_empty_cells_and_the_quietest_pieces():
    """The 95th percentile of the 36 empty cells' detail (1.0-1.7, a ramp: 1.665) and the
    10th of the 28 pieces' (2.0-4.7: 2.27), their geometric mean."""
    occupied = np.arange(64) < 28
    j = np.arange(64)
    detail = np.where(occupied, 2.0 + 0.1 * j, 1.0 + 0.02 * (j - 28))
    assert learned_detail_empty(detail, occupied) == 1.944


def test_detail_empty_is_2_5_where_none_was_learned_and_set_in_one_place():
    assert PieceLooks.default().detail_empty == 2.5
    saved = LearnedLooks({}, {}).to_json()
    del saved["detail_empty"]  # a setup saved before it was learned
    assert LearnedLooks.from_json(saved).detail_empty == 2.5
    assert cells.DETAIL_EMPTY is calibration_looks.DETAIL_EMPTY


@pytest.mark.parametrize("lead, decided", [(0.06, True), (0.04, False)])
def test_a_fine_suit_lead_of_0_05_decides_the_suit(monkeypatch, lead, decided):
    """Tune woodburned 0-29 with looks aligned askew: the fine look's leader was another
    suit only at leads under 0.03, never at 0.03-0.1 (67 coins)."""
    looks = PieceLooks({"suns": _coin((5, 6)), "arms": _coin((3, 3))}, {}, learned=True)
    turned = {"suns": np.zeros((4, 2, 2, 3)), "arms": np.zeros((4, 2, 2, 3))}  # not read
    monkeypatch.setattr(cells, "_suit_fits", lambda members, *a: np.array([[0.8, 0.8 - lead]]))
    # The fine look alone: no symbol shape read (wood22's second measure, its own tests).
    monkeypatch.setattr(cells, "_symbol_shape_lead", lambda *a: None)
    d = CellDecision(
        "c3", "unknown", similarity=0.86, best=("coin", "arms"), suit_fits=(0.86, -1, -1, 0.85)
    )
    cells._fine_suits([(d, np.zeros((2, 2, 3)))], turned, looks)
    assert d.best == ("coin", "suns") and d.fine_lead == pytest.approx(lead)
    assert (d.margin > 0) == decided
