"""Shared checks for the card tests: find, refine and orient a photo's grids as
``piecebridge score`` does, and measure them against the renderer's truth."""

from __future__ import annotations

import numpy as np
from piecebridge.vision import card as vc


def oriented_corner_errors(grey: np.ndarray, truth: dict) -> list[float]:
    """Each grid's worst corner error in cells (its own cell size), after finding exactly
    two grids and orienting them: upright and in card order, so a grid turned or swapped
    shows as an error of cells, not a fraction of one."""
    quads = vc.find_grids(grey)
    assert len(quads) == 2
    views = vc.orient_grids(grey, [vc.refine_lattice(grey, q) for q in quads])
    errors = []
    for view, corners in zip(views, truth["corners_px"], strict=True):
        cell = np.linalg.norm(view.corners[1] - view.corners[0]) / 10
        errors.append(float(np.abs(view.corners - np.array(corners)).max() / cell))
    return errors
