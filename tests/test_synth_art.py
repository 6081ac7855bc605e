"""The piece arts vision was not developed on (``piecepackr``, ``acrylic``): only by name, drawn
as their docstrings say, deterministic, and a calibration photo in them still calibrates."""

from __future__ import annotations

import json

import numpy as np
import pytest

from piecebridge.synth import art as artmod
from piecebridge.synth.reflec import (
    Difficulty,
    calibration_sample,
    rig_for,
    sample,
)

NEW_ARTS = sorted(set(artmod.ART) - set(artmod.MIXED_ARTS))


def test_the_new_arts_are_never_drawn_at_random():
    assert NEW_ARTS == ["acrylic", "piecepackr"]
    drawn = {rig_for(split, i).art for split in ("tune", "test") for i in range(40)}
    assert drawn == set(artmod.MIXED_ARTS)


@pytest.mark.parametrize("art", NEW_ARTS)
def test_naming_an_art_leaves_the_rest_of_the_rig(art):
    # the split's images must not change: a named art draws the same random numbers
    mixed, named = rig_for("tune", 5), rig_for("tune", 5, art=art)
    assert named.art == art and mixed.art != art
    assert np.array_equal(mixed.layout.centers, named.layout.centers)
    assert np.array_equal(mixed.layout.angles, named.layout.angles)
    same = ("table", "table_seed", "tint", "lamp_offset_mm")
    assert [getattr(mixed, k) for k in same] == [getattr(named, k) for k in same]
    assert named.layout.thickness_mm == artmod.ART[art].tile_thickness_mm


def _ink_share(face: np.ndarray, colour) -> float:
    """Share of a coin face's inner disc within 40 of ``colour`` (per channel)."""
    n = face.shape[0]
    yy, xx = np.mgrid[0:n, 0:n]
    inner = np.hypot(xx - (n - 1) / 2, yy - (n - 1) / 2) < 0.4 * n
    near = np.abs(face.astype(int) - np.asarray(colour)).max(-1) < 40
    return float(near[inner].mean())


def test_piecepackr_coins_are_the_tiles_colour_with_their_own_symbols():
    pp, classic = artmod.ART["piecepackr"], artmod.ART["classic"]
    assert pp.coin_bgr == pp.tile_bgr  # only edge and shadow set a coin off its tile
    for suit in artmod.SUITS:
        face = artmod.coin_face(pp, suit)
        ink = _ink_share(face, pp.suit_bgr[suit])
        assert 0.08 < ink < 0.6, (suit, ink)  # a symbol, not a filled coin
        # another drawing than classic's symbol: the two inks share under 60 % of their area
        ours = np.abs(face.astype(int) - pp.suit_bgr[suit]).max(-1) < 40
        theirs = np.abs(artmod.coin_face(classic, suit).astype(int) - classic.suit_bgr[suit])
        theirs = theirs.max(-1) < 40
        overlap = (ours & theirs).sum() / (ours | theirs).sum()
        assert overlap < 0.6, (suit, overlap)


def test_acrylic_coins_are_coloured_with_a_white_symbol_and_a_bar():
    ac = artmod.ART["acrylic"]
    for suit in artmod.SUITS:
        face = artmod.coin_face(ac, suit)
        assert _ink_share(face, ac.suit_bgr[suit]) > 0.4  # the coin is the suit's colour
        assert 0.08 < _ink_share(face, (245, 245, 245)) < 0.5  # a white symbol on it
        n = face.shape[0]
        top = face[round(0.05 * n) : round(0.13 * n), n // 2 - 2 : n // 2 + 3]
        side = face[n // 2 - 2 : n // 2 + 3, round(0.05 * n) : round(0.13 * n)]
        assert top.min() > 200 and np.abs(side.astype(int) - ac.suit_bgr[suit]).max() < 40


@pytest.mark.parametrize("art", NEW_ARTS)
def test_render_is_deterministic_per_seed(art):
    a = sample("tune", 9, Difficulty.baseline(), art=art, image_size=(320, 180))
    b = sample("tune", 9, Difficulty.baseline(), art=art, image_size=(320, 180))
    c = sample("tune", 9, Difficulty.baseline(), image_size=(320, 180))
    assert np.array_equal(a.image, b.image) and a.truth == b.truth
    assert a.truth["synth"]["art"] == art and c.truth["synth"]["art"] != art
    assert a.truth["coins"] == c.truth["coins"]  # same position, other art


@pytest.mark.parametrize("art", ["piecepackr", "acrylic"])
def test_a_calibration_photo_in_the_new_art_calibrates_and_reads_back(art):
    from piecebridge.calibration.board import calibration_layout
    from piecebridge.vision.learn import learn_setup
    from piecebridge.vision.reader import BoardReader

    shot = calibration_sample("tune", 1, Difficulty.easy(), art=art, image_size=(1280, 720))
    setup, report = learn_setup(shot.image)
    assert report["read_back"] >= 24
    board = BoardReader(setup=setup).read(shot.image).board
    got = {c["cell"]: ("coin", c["suit"]) for c in board["coins"]}
    got.update({p["cell"]: ("pawn", p["suit"]) for p in board["pawns"]})
    assert got == calibration_layout(), (art, board["unknown"])
    assert {c["facing"] for c in board["coins"]} == {"north"}


def test_the_fixtures_command_renders_a_new_art(tmp_path):
    from piecebridge.cli import main

    out = ["--count", "1", "--size", "320x180", "--out", str(tmp_path), "--png"]
    assert main(["fixtures", "reflec", "--art", "piecepackr", *out]) == 0
    assert json.loads((tmp_path / "tune-00000.json").read_text())["synth"]["art"] == "piecepackr"
