"""The rectified board raster that cell reading works on.

A board is rectified with ``MARGIN`` cells of room around it (pieces lean and sit off-centre),
at ``PX`` pixels per cell for telling kinds and suits apart and at the finer ``FACE_PX`` for
reading a coin's facing. Cell ``i`` counts from the north-west corner, row by row.

>>> CELL_ORDER[0], CELL_ORDER[7], CELL_ORDER[63]
('a8', 'h8', 'h1')
>>> round((N + 2 * MARGIN) * FACE_PX)
360
"""

from __future__ import annotations

import functools

import numpy as np
from piecebridge.calibration.geometry import N, cell_name

PX = 24  # rectified pixels per cell for classification
MARGIN = 0.5  # cells of rectified margin around the board (room for shifts)
CROP = 20  # descriptor window, pixels (0.83 cell: inside the grid lines)
SHIFTS = (-2, 0, 2)  # crops are cut at these shifts (PX pixels) each way
FACE_PX = 40  # the facing is read at this finer scale
FACE_CROP = 36  # facing window, pixels at FACE_PX (0.9 cell)
FACE_SEARCH = 4  # pixels searched each way around the coin's coarse position

#: Cell names in the order of the descriptor rows (north-west first, row-major).
CELL_ORDER = [cell_name(col, row) for row in range(N - 1, -1, -1) for col in range(N)]
#: (dy, dx) of each crop shift, and the index of the unshifted one.
OFFSETS = [(dy, dx) for dy in SHIFTS for dx in SHIFTS]
CENTRE_SHIFT = len(SHIFTS) ** 2 // 2


@functools.cache
def disc(size: int, radius: float) -> np.ndarray:
    """A ``size`` x ``size`` float32 mask, 1 within ``radius`` pixels of the centre (made once
    per size and radius, and read-only: it is shared).

    >>> disc(5, 1.0).astype(int)[2].tolist()
    [0, 1, 1, 1, 0]
    """
    r = np.arange(size) - (size - 1) / 2
    mask = (np.hypot(*np.meshgrid(r, r)) <= radius).astype(np.float32)
    mask.flags.writeable = False
    return mask
