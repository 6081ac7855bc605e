"""The renderer tells a hand's shadow (``Photo.extras["shadow"]``) beside its mask: the truth a
hand mask is measured against (``benchmarks/hand_mask.py``)."""

from __future__ import annotations

import numpy as np

from piecebridge.synth.photo import Camera, PhotoStyle, make_hand, photograph

CAM = Camera(image_size=(480, 360), focal_px=450.0, target_mm=(0.0, 0.0), height_mm=300.0)
WORLD = np.full((500, 500, 3), 200, np.uint8)


def _photo(hand: bool):
    rng = np.random.default_rng(1)
    occluders = make_hand(rng, (0.0, 60.0), 90.0, height_mm=50.0) if hand else []
    return photograph(
        WORLD, 0.5, CAM, PhotoStyle.clean(), rng, world_origin_mm=(-125, -125),
        occluders=occluders,
    )  # fmt: skip


def test_a_hand_shadow_is_told_where_the_hand_is_not():
    photo = _photo(hand=True)
    shadow = photo.extras["shadow"]
    assert shadow.shape == photo.occlusion.shape
    assert shadow.max() > 0.2  # the hand casts a shadow on the table ...
    hand = photo.occlusion >= 0.99
    assert hand.any() and shadow[hand].max() < 0.01  # ... not on itself
    dark = (shadow > 0.2) & (photo.occlusion < 0.01)
    grey = photo.image[..., 1].astype(float)
    assert grey[dark].mean() < grey[(shadow < 0.01) & (photo.occlusion < 0.01)].mean() - 20


def test_no_shadow_is_told_without_a_hand():
    assert "shadow" not in _photo(hand=False).extras
