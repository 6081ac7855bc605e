"""Which pixels of a cell are a hand's: learned on each frame, from what hides the board's
lines and from the plain tile its open empty cells show.

A hand (an arm, a sleeve) over the board hides the printed lines under it; what shows there
instead is the hand itself, or the tile in its shadow. The colours seen where lines are
hidden that are not tile, lit or shaded, are this frame's hand model: no skin colour is
assumed (hands, gloves and renderers differ). A pixel near one of those colours, and not
plain tile lit or shaded, is the hand's.

>>> tile = np.array([[200.0, 0.0, 0.0]], np.float32)  # a grey tile (relative Lab)
>>> hand = np.array([[150.0, 30.0, 20.0], [100.0, 0.0, 0.0]], np.float32)  # skin; a shadow
>>> window = np.zeros((4, 4, 3), np.float32)
>>> window[..., 0] = 200.0
>>> window[:, 2:] = (148.0, 28.0, 22.0)  # a hand over the right half
>>> window[0, :2, 0] = 110.0  # the hand's shadow on the tile
>>> hand_pixels(window, hand, tile, (128.0, 128.0)).sum(axis=0).tolist()
[0, 0, 4, 4]
"""

from __future__ import annotations

import numpy as np

#: A pixel (relative Lab: 8-bit lightness, chroma weighted as the cells' looks are) within
#: this distance of a colour seen where a hand hides the lines is the hand's: twice the tile
#: test's tolerance (``cells.SEEN_TOLERANCE``), a hand is shaded and creased across its
#: width more than a flat tile is.
HAND_TOLERANCE = 18.0
#: A pixel is plain tile, lit or shaded, when its colour brought to a tile colour's lightness
#: (a shadow scales a*, b* as L* + 16, see ``cells.shade_tints``) lies within this of it ...
TILE_TOLERANCE = 9.0
#: ... and its lightness within these shares of it (``cells.PIXEL_TILE_LIGHT``).
TILE_LIGHT = (0.5, 1.15)
#: The chroma weight of relative Lab (``cells.CHROMA_WEIGHT``).
CHROMA = 1.5


def _chroma_per_light(colours: np.ndarray, tile_ab: tuple[float, float]) -> np.ndarray:
    """Absolute weighted chroma (a*, b*) over L* + 16 of relative Lab ``colours`` (n, 3):
    the same for a colour and its shadow."""
    ta, tb = (np.asarray(tile_ab, np.float32) - 128.0) * CHROMA
    k = colours[:, 0] / 2.55 + 16.0
    return np.stack([(colours[:, 1] + ta) / k, (colours[:, 2] + tb) / k], axis=1)


def tile_like(colours: np.ndarray, tile: np.ndarray, tile_ab: tuple[float, float]) -> np.ndarray:
    """Which relative Lab ``colours`` (n, 3) are one of the plain ``tile`` colours (m, 3), lit
    or shaded (``TILE_TOLERANCE``, ``TILE_LIGHT``); ``tile_ab``: the board's tile a*, b*
    (8-bit), which relative Lab is taken from."""
    if not len(colours) or not len(tile):
        return np.zeros(len(colours), bool)
    near = _chroma_per_light(colours, tile_ab)[:, None, :] - _chroma_per_light(tile, tile_ab)
    far = np.sqrt((near * near).sum(axis=-1)) * (tile[:, 0] / 2.55 + 16.0)
    ratio = colours[:, None, 0] / np.maximum(tile[None, :, 0], 1.0)
    return ((far < TILE_TOLERANCE) & (ratio >= TILE_LIGHT[0]) & (ratio <= TILE_LIGHT[1])).any(1)


def hand_pixels(
    window: np.ndarray, hidden: np.ndarray, tile: np.ndarray, tile_ab: tuple[float, float]
) -> np.ndarray:
    """Which pixels of a relative Lab ``window`` (h, w, 3) are a hand's: within
    ``HAND_TOLERANCE`` of a colour seen where lines are hidden (``hidden``, (n, 3)) that is
    not plain ``tile`` (:func:`tile_like`), and not plain tile themselves."""
    hand = np.asarray(hidden, np.float32)
    hand = hand[~tile_like(hand, tile, tile_ab)]
    px = window.reshape(-1, 3).astype(np.float32)
    if not len(hand):
        return np.zeros(window.shape[:2], bool)
    diff = px[:, None, :] - hand[None, :, :]
    near = (np.einsum("pkc,pkc->pk", diff, diff) < HAND_TOLERANCE**2).any(axis=1)
    return (near & ~tile_like(px, tile, tile_ab)).reshape(window.shape[:2])
