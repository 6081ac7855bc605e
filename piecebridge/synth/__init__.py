"""Fixture renderer: draw a table scene and photograph it like a real camera would.

Two layers:

* :mod:`piecebridge.synth.photo` -- a generic overhead camera (pose, OpenCV lens model, light,
  shadows, glare, blur, noise, JPEG) that photographs a flat top-down *world raster* with a known
  mm scale plus 3-D solids standing on it and a hand above it, and returns the exact image
  position of any world point.  Entry points: :class:`Camera`, :class:`PhotoStyle`,
  :func:`photograph` -> :class:`Photo`; solids :class:`Revolved` (pawn, mug), :class:`Disc`
  (coin), :class:`Box` (die, phone, tile); :class:`Overlay` (a finer raster lying on the
  table, e.g. a board); :func:`make_hand` -> list of :class:`Capsule`; :class:`ShadowBlob`.
* :mod:`piecebridge.synth.reflec` -- the Piecepack Reflec table (16 tiles, coins, pawns, dice,
  clutter) through that camera, with ``reflec-board/1`` ground truth.  Entry points:
  ``sample(split, index, difficulty)``, ``calibration_sample(split, rig)``,
  ``negative_sample(split, index, kind)``, ``rig_for`` + ``render_shot`` for scripted scenes,
  ``hand_reaching``, :class:`~piecebridge.synth.reflec.Difficulty`, ``save_shot``.
* :mod:`piecebridge.synth.art` -- piece designs (``classic``, ``french``, ``ebony``).

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
    make_hand,
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
    "make_hand",
    "photograph",
]
