"""Fixture renderer: draw a table scene and photograph it like a real camera would.

Two layers:

* :mod:`piecebridge.synth.photo` -- a generic overhead camera (pose, lens distortion, light,
  shadows, glare, blur, noise, JPEG) that photographs a flat top-down *world raster* with a known
  mm scale plus 3-D solids standing on it, and returns the exact image position of any world point.
* :mod:`piecebridge.synth.reflec` -- the Piecepack Reflec board (16 tiles, coins, pawns, dice,
  clutter) rendered through that camera, with ``reflec-board/1`` ground truth.

World coordinates everywhere are millimetres: ``x`` to the right of the world raster, ``y`` down
the raster (so "north" of a board drawn upright is ``-y``) and ``height`` above the table.

>>> from piecebridge.synth import Camera
>>> cam = Camera(image_size=(640, 480), focal_px=500.0, target_mm=(100.0, 100.0), height_mm=400.0)
>>> [round(float(v), 3) for v in cam.project([(100.0, 100.0)])[0]]
[319.5, 239.5]
"""

from piecebridge.synth.photo import (
    Box,
    Camera,
    Capsule,
    Disc,
    Overlay,
    Photo,
    PhotoStyle,
    Revolved,
    ShadowBlob,
    photograph,
)

__all__ = [
    "Box",
    "Camera",
    "Capsule",
    "Disc",
    "Overlay",
    "Photo",
    "PhotoStyle",
    "Revolved",
    "ShadowBlob",
    "photograph",
]
