"""A coin's suit read from its fine look where the suits share one ink (cells._fine_suits).

woodburned burns every suit's symbol in one brown: on the coarse raster a sun and a
fleur-de-lis are one blob, and the colour that tells the other arts' suits apart is not there.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from piecebridge.calibration.looks import LearnedLooks
from piecebridge.vision.cells import (
    CROP,
    DETAIL_EMPTY,
    FACE_WIDE,
    FINE_SUIT_LEAD,
    CellDecision,
    PieceLooks,
    _fine_suits,
    decide,
    ink_alike,
)
from piecebridge.vision.facing import turned_looks
from piecebridge.vision.raster import FACE_CROP

from piecebridge.synth.reflec import Difficulty, calibration_sample


def _coin(ab: tuple[float, float]) -> np.ndarray:
    """A coarse coin look with a dark symbol of relative colour ``ab`` in its middle."""
    look = np.zeros((CROP, CROP, 3), np.float32)
    c = CROP // 2
    look[c - 5 : c + 5, c - 5 : c + 5] = (-40, *ab)
    return look


def _face(seed: int) -> np.ndarray:
    """A fine coin face (FACE_CROP) with detail of its own."""
    rng = np.random.default_rng(seed)
    face = rng.normal(0, 20, (FACE_CROP, FACE_CROP, 3)).astype(np.float32)
    return cv2.GaussianBlur(face, (0, 0), 1.0)


def _one_brown_looks() -> PieceLooks:
    """Learned looks whose suns and arms share one ink; moons and crowns have their own."""
    coins = {"suns": _coin((5, 6)), "arms": _coin((3, 3)), "moons": _coin((0, -30))}
    coins["crowns"] = _coin((-35, 8))
    return PieceLooks(coins, {}, learned=True)


def _window(face: np.ndarray) -> np.ndarray:
    """A facing window (as measure cuts it) with ``face`` in its middle, north up."""
    w = np.zeros((FACE_CROP + 2 * FACE_WIDE,) * 2 + (3,), np.float32)
    w[FACE_WIDE : FACE_WIDE + FACE_CROP, FACE_WIDE : FACE_WIDE + FACE_CROP] = face
    return w


def _coin_cell(best: str) -> CellDecision:
    """A coin-like cell in the open, its coarse best look ``best``'s coin, whose suits of one
    ink fit alike (suns 0.86, arms 0.85) well ahead of the rest (0.4)."""
    return CellDecision(
        "c3", "unknown", similarity=0.86, margin=0.01, energy_ratio=9.0, detail_ratio=9.0,
        best=("coin", best), suit_fits=(0.86, 0.4, 0.4, 0.85), other_fit=0.4,
    )  # fmt: skip


def test_suits_share_an_ink_only_when_their_colours_do():
    alike = ink_alike(_one_brown_looks())
    assert alike == {"suns": ("arms",), "arms": ("suns",), "moons": (), "crowns": ()}
    # The drawn stand-ins (no setup) have a colour per suit and are never read so.
    assert ink_alike(PieceLooks.default()) == {}


def test_the_fine_look_names_the_suit_the_coarse_one_missed():
    looks = _one_brown_looks()
    turned = {
        "suns": np.asarray(turned_looks(_face(1))),
        "arms": np.asarray(turned_looks(_face(2))),
    }
    d = _coin_cell("suns")  # coarse: suns by 0.01 over arms
    _fine_suits([(d, _window(_face(2)))], turned, looks)  # the coin is an arms coin
    assert d.best == ("coin", "arms")
    assert d.similarity == 0.86  # the suits' best coarse fit: one look there
    # Its margin: the fine lead, at most the coarse lead over the other kinds and inks.
    assert d.margin == pytest.approx(0.86 - 0.4)
    assert d.suit_margin == -1.0


def test_a_fine_look_that_fits_two_suits_alike_leaves_the_suit_undecided():
    looks = _one_brown_looks()
    face = _face(3)
    twin = face + np.float32(0.01) * _face(4)  # the two suits' faces nearly alike
    turned = {"suns": np.asarray(turned_looks(face)), "arms": np.asarray(turned_looks(twin))}
    d = _coin_cell("arms")  # the coarse look's best: arms; the fine look leans to suns
    d.facing, d.facing_margin = "north", 0.9
    _fine_suits([(d, _window(face))], turned, looks)
    assert d.margin == 0.0
    assert d.best == ("coin", "suns")  # undecided, the fine look's leader all the same
    assert decide(d, looks).kind == "unknown"
    # With the fine look leading (the same cell, the arms face unlike), it is read.
    d = _coin_cell("suns")
    d.facing, d.facing_margin = "north", 0.9
    turned["arms"] = np.asarray(turned_looks(_face(5)))
    _fine_suits([(d, _window(face))], turned, looks)
    assert d.margin >= FINE_SUIT_LEAD
    assert (decide(d, looks).kind, d.suit) == ("coin", "suns")


def test_a_coin_whose_ink_is_its_own_is_left_to_the_coarse_look():
    looks = _one_brown_looks()
    turned = {s: np.asarray(turned_looks(_face(k))) for k, s in enumerate(looks.coins)}
    d = _coin_cell("moons")
    d.suit_fits, d.margin = (), 0.3  # _coarse_suit_fits leaves a coin of its own ink so
    _fine_suits([(d, _window(_face(0)))], turned, looks)  # _face(0) is the suns face
    assert (d.best, d.margin) == (("coin", "moons"), 0.3)


@pytest.mark.parametrize("art, one_brown", [("woodburned", True), ("piecepackr", False)])
def test_a_setup_learns_which_suits_share_an_ink_and_how_little_detail_pieces_show(art, one_brown):
    from piecebridge.vision.learn import learn_setup

    shot = calibration_sample("tune", 1, Difficulty.easy(), art=art, image_size=(1280, 720))
    setup, _ = learn_setup(shot.image)
    looks = PieceLooks.of(setup.looks)
    alike = ink_alike(looks)
    if one_brown:  # every suit shares it with another (suns and arms at least)
        assert all(alike[s] for s in alike) and "arms" in alike["suns"]
        # Burnt symbols show little fine detail: a piece is not empty at 2.5 x the floor.
        assert 1.2 < looks.detail_empty < DETAIL_EMPTY
    else:
        assert not any(alike.values())
        assert looks.detail_empty == DETAIL_EMPTY
    # Saved and loaded with the setup (an older setup, without it, keeps DETAIL_EMPTY).
    saved = setup.looks.to_json()
    assert LearnedLooks.from_json(saved).detail_empty == looks.detail_empty
    del saved["detail_empty"]
    assert LearnedLooks.from_json(saved).detail_empty == DETAIL_EMPTY
