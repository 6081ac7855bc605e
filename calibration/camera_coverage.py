"""Are the calibration photos good enough? Coverage of the frame and plain advice.

A lens model is only trustworthy where corners were seen: distortion is
strongest near the frame's edges and corners, and the focal length is only
pinned down by tilted views. :func:`assess` turns a fit into a coverage map and
sentences a person can act on.

>>> cov = Coverage.of([np.array([[10.0, 10], [300, 200]])], (640, 480))
>>> cov.thirds.tolist()
[[1, 0, 0], [0, 1, 0], [0, 0, 0]]
>>> "the right third of the frame has no corners: add views there" in advice_for(cov)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

#: Resolution of the coverage mask (cells across the frame's long side).
MASK_CELLS = 64
#: A third of the frame holding less than this share of all corners is "thin".
THIN_SHARE = 0.05
#: A frame corner cell (a ninth of the frame) with less than this share is "thin".
THIN_CORNER_SHARE = 0.01
#: Below this share of the frame inside some view's outline, ask for wider views.
GOOD_FRACTION = 0.6
GOOD_VIEW_COUNT = 10
GOOD_TILT_DEGREES = 20.0
HIGH_RMS_PX = 1.0
UNCERTAIN_FOCAL = 0.01

_SIDES = {
    "left": (slice(None), 0),
    "right": (slice(None), 2),
    "top": (0, slice(None)),
    "bottom": (2, slice(None)),
}
_CORNERS = {
    "top-left": (0, 0),
    "top-right": (0, 2),
    "bottom-left": (2, 0),
    "bottom-right": (2, 2),
}


@dataclass
class Coverage:
    """Where the target's corners fell in the frame.

    ``thirds`` counts corners in a 3x3 grid (rows top to bottom), ``mask`` is a
    low-resolution map of how many views' outlines cover each cell, and
    ``fraction`` is the share of the frame inside at least one view's outline.
    """

    image_size: tuple[int, int]
    thirds: np.ndarray
    mask: np.ndarray
    fraction: float
    total: int

    @classmethod
    def of(cls, corner_sets: Sequence[np.ndarray], image_size: tuple[int, int]) -> Coverage:
        """Coverage of the views whose image points are ``corner_sets`` ((N, 2) each)."""
        width, height = image_size
        scale = MASK_CELLS / max(width, height)
        mask_size = (max(1, round(width * scale)), max(1, round(height * scale)))
        mask = np.zeros((mask_size[1], mask_size[0]), np.int32)
        thirds = np.zeros((3, 3), np.int64)
        total = 0
        for points in corner_sets:
            points = np.asarray(points, np.float64).reshape(-1, 2)
            if len(points) == 0:
                continue
            total += len(points)
            cols = np.clip((points[:, 0] * 3 / width).astype(int), 0, 2)
            rows = np.clip((points[:, 1] * 3 / height).astype(int), 0, 2)
            np.add.at(thirds, (rows, cols), 1)
            hull = cv2.convexHull((points * scale).astype(np.float32)).astype(np.int32)
            outline = np.zeros_like(mask, np.uint8)
            cv2.fillConvexPoly(outline, hull, 1)
            mask += outline
        fraction = float((mask > 0).mean()) if total else 0.0
        return cls((int(width), int(height)), thirds, mask, fraction, total)

    def side_share(self, side: str) -> float:
        """Share of all corners in the ``left``/``right``/``top``/``bottom`` third."""
        return float(self.thirds[_SIDES[side]].sum() / max(1, self.total))


def advice_for(
    coverage: Coverage,
    *,
    views: int | None = None,
    rms: float | None = None,
    max_tilt_degrees: float | None = None,
    focal_uncertainty: float | None = None,
) -> list[str]:
    """Plain sentences saying what to add or fix; empty when the photos are good enough."""
    sentences = []
    flagged_sides = set()  # a corner cell on a flagged side needs no sentence of its own
    for side in _SIDES:
        share = coverage.side_share(side)
        if share == 0:
            flagged_sides.add(side)
            sentences.append(f"the {side} third of the frame has no corners: add views there")
        elif share < THIN_SHARE:
            flagged_sides.add(side)
            sentences.append(
                f"the {side} third of the frame has few corners ({share:.0%}): add views there"
            )
    for corner, cell in _CORNERS.items():
        if set(corner.split("-")) & flagged_sides:
            continue
        count = int(coverage.thirds[cell])
        if count == 0 or count < THIN_CORNER_SHARE * coverage.total:
            amount = "no corners" if count == 0 else f"only {count} corner" + "s" * (count > 1)
            sentences.append(
                f"the {corner} corner of the frame has {amount}: add views there "
                "(lens distortion is strongest in the corners)"
            )
    if coverage.total and coverage.fraction < GOOD_FRACTION:
        sentences.append(
            f"the target covered only {coverage.fraction:.0%} of the frame: "
            "add views that reach the edges"
        )
    if views is not None and views < GOOD_VIEW_COUNT:
        sentences.append(f"only {views} views were used: 10 to 20 varied views give a steadier fit")
    if max_tilt_degrees is not None and max_tilt_degrees < GOOD_TILT_DEGREES:
        sentences.append(
            "every view shows the target nearly face-on "
            f"(at most {max_tilt_degrees:.0f}° of tilt): "
            "tilt it 20-45° in some views so the focal length is pinned down"
        )
    if rms is not None and rms > HIGH_RMS_PX:
        sentences.append(
            f"the reprojection error is high ({rms:.2f} px): use a flat target, sharp photos "
            "and even light"
        )
    if focal_uncertainty is not None and focal_uncertainty > UNCERTAIN_FOCAL:
        sentences.append(
            f"the focal length is uncertain (±{focal_uncertainty:.1%}): add views at other "
            "distances and angles"
        )
    return sentences


def summary_sentence(coverage: Coverage, advice: Sequence[str]) -> str:
    """One line verdict, e.g. ``the photos are good enough: the target covered 78% ...``."""
    if advice:
        return "the photos could be better: " + "; ".join(advice)
    return f"the photos are good enough: the target covered {coverage.fraction:.0%} of the frame"
