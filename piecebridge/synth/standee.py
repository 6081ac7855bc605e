"""A folded paper pawn (print-and-play sets): a printed strip folded into an A-frame tent.

Print-and-play Piecepack sets make their pawns of paper: a strip printed with the suit on both
halves, folded in the middle and stood on the table as a little tent.  Seen from above it is
two steep printed slopes meeting at a ridge -- no round body, no head, no turned profile.

>>> import numpy as np
>>> face = np.zeros((40, 28, 3), np.uint8)
>>> tent = Tent((10.0, 10.0), 30.0, (14.0, 11.0, 20.0), face, (0.9, 0.9, 0.9), base_mm=2.0)
>>> tent.top_mm, round(tent.reach_mm, 2)
(22.0, 8.9)
>>> float(tent.sd(np.float32([0.0]), np.float32([0.0]), np.float32([10.0]))[0]) < 0
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from piecebridge.synth.photo import BGR, Solid, _as_float_tex, _sample_texture


@dataclass
class Tent(Solid):
    """An A-frame tent of paper standing on the table (or a tile at ``base_mm``).

    ``size_mm`` is ``(width along the ridge, depth across the feet, height)``.  Its two slopes
    face ``angle_deg`` and the opposite way (0 = ``-y``/north, clockwise seen from above); each
    slope shows ``face_texture`` (BGR, its top row at the ridge, read upright from in front of
    that slope).  ``inside_bgr`` (0..1) is the unprinted back of the paper seen at the open ends.
    """

    center_mm: tuple[float, float]
    angle_deg: float
    size_mm: tuple[float, float, float]
    face_texture: np.ndarray
    inside_bgr: BGR
    gloss: float = 0.05
    shininess: float = 20.0
    step_mm: float = 0.5
    base_mm: float = 0.0

    def __post_init__(self) -> None:
        w, d, h = self.size_mm
        self.top_mm = self.base_mm + h
        self.reach_mm = math.hypot(w / 2, d / 2)
        self._tex = _as_float_tex(self.face_texture)
        a = math.radians(self.angle_deg)
        self._ridge = np.array([math.cos(a), math.sin(a)], np.float32)  # along the ridge
        self._front = np.array([math.sin(a), -math.cos(a)], np.float32)  # the way a slope faces
        self._inside = np.asarray(self.inside_bgr, np.float32)

    def _uvh(self, lx, ly, z):
        """Along the ridge, across it (mm) and the share of the height, for local points."""
        u = lx * self._ridge[0] + ly * self._ridge[1]
        v = lx * self._front[0] + ly * self._front[1]
        h = (z - np.float32(self.base_mm)) / np.float32(self.size_mm[2])
        return u, v, h

    def sd(self, lx, ly, z):
        w, d, _ = self.size_mm
        u, v, h = self._uvh(lx, ly, z)
        out = np.maximum(np.abs(u) - np.float32(w / 2), np.abs(v) - np.float32(d / 2) * (1 - h))
        return np.where((h < 0) | (h > 1), np.float32(1e9), out)

    def _on_slope(self, lx, ly, z) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        w, d, _ = self.size_mm
        u, v, h = self._uvh(lx, ly, z)
        slope = np.abs(v) - d / 2 * (1 - h) >= np.abs(u) - w / 2
        return slope, u, v, h

    def normal(self, lx, ly, z, top):
        _, d, hgt = self.size_mm
        slope, u, v, _ = self._on_slope(lx, ly, z)
        sv = np.where(v >= 0, 1.0, -1.0)
        su = np.where(u >= 0, 1.0, -1.0)
        n = np.zeros((len(lx), 3))
        n[:, :2] = np.where(slope[:, None], sv[:, None] * self._front, su[:, None] * self._ridge)
        n[:, 2] = np.where(slope, d / 2 / hgt, 0.0)
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        return n

    def color(self, lx, ly, z, top):
        w, _, _ = self.size_mm
        slope, u, v, h = self._on_slope(lx, ly, z)
        col = np.broadcast_to(self._inside * 0.8, (len(lx), 3)).copy()
        if slope.any():
            th, tw = self._tex.shape[:2]
            # facing a slope, its viewer's right is -u on the front one and +u on the back one
            across = np.where(v >= 0, -u, u)[slope]
            col[slope] = _sample_texture(
                self._tex, (across / w + 0.5) * tw - 0.5, (1 - h[slope]) * th - 0.5
            )
        return col
