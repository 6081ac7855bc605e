"""The cheap look at every frame: how much each cell changed, on a small grey picture.

The vision read costs tens of milliseconds; a camera sends 30 frames a second. So every
frame is only decoded small and grey (a JPEG straight at 1/2, 1/4 or 1/8 size) and compared
cell by cell with earlier ones; the board is read only when the view has become still and
something changed since the last reading. :class:`CellWatch` keeps the cells' outlines
(from the board pose the vision locked on) as a label picture at the small size, so one
comparison is two ``bincount`` calls over the board's pixels (well under a millisecond).

A cell's change is the root mean square difference of its pixels (0-255 grey levels):
sensor noise gives about 1-3, a coin turned in place or a hand over the cell tens.

>>> import numpy as np
>>> square = {"a1": np.array([[0, 0], [8, 0], [8, 8], [0, 8]], float)}
>>> watch = CellWatch(px_per_cell=8)
>>> watch.set_cells(square, cell_px=8.0)
>>> a = np.zeros((16, 16), np.uint8); b = a.copy(); b[2:6, 2:6] = 80
>>> watch.change(a, b).round(1).tolist()[:1]
[45.7]
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

CELLS = [f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)]


class CellWatch:
    """Per-cell change between small grey pictures of one camera's frames.

    ``px_per_cell``: the cells' size wanted in the small picture (the reduction is the
    largest of 1, 2, 4, 8 keeping at least this); ``inset``: the part of each cell's width
    left out along its edges (printed lines, and the tolerance of a slightly off pose).
    """

    def __init__(self, px_per_cell: float = 12.0, inset: float = 0.12) -> None:
        self.px_per_cell = px_per_cell
        self.inset = inset
        self.reduction = 1
        self._outlines: dict[str, np.ndarray] | None = None
        self._shape: tuple[int, ...] | None = None
        self._index: np.ndarray | None = None
        self._labels: np.ndarray | None = None
        self._counts: np.ndarray | None = None

    @property
    def ready(self) -> bool:
        """True once the cells' outlines are known (after the first vision read)."""
        return self._outlines is not None

    def set_cells(self, outlines: dict[str, np.ndarray] | None, cell_px: float) -> None:
        """The cells' image outlines (cell name -> (4, 2) full-size pixels), or None."""
        self._outlines = outlines
        self._shape = None
        self.reduction = 1
        for r in (8, 4, 2):
            if cell_px / r >= self.px_per_cell:
                self.reduction = r
                break

    def small(self, frame: Any) -> np.ndarray:
        """The frame's small grey picture (``frame`` is a sources.Frame)."""
        return frame.grey(self.reduction)

    def _build(self, shape: tuple[int, ...]) -> None:
        assert self._outlines is not None
        labels = np.full(shape[:2], -1, np.int32)
        for name, outline in self._outlines.items():
            pts = np.asarray(outline, np.float64) / self.reduction
            centre = pts.mean(axis=0)
            pts = centre + (pts - centre) * (1.0 - 2 * self.inset)
            cv2.fillConvexPoly(labels, np.round(pts).astype(np.int32), CELLS.index(name))
        self._index = np.flatnonzero(labels >= 0)
        self._labels = labels.reshape(-1)[self._index]
        self._counts = np.maximum(np.bincount(self._labels, minlength=64), 1).astype(np.float64)
        self._shape = shape

    def change(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per cell (in :data:`CELLS` order) the RMS grey difference of ``a`` and ``b``."""
        if a.shape != b.shape:
            return np.full(64, np.inf)  # another size: everything counts as changed
        if self._shape != a.shape:
            self._build(a.shape)
        assert self._index is not None and self._labels is not None
        d = a.reshape(-1)[self._index].astype(np.float32) - b.reshape(-1)[self._index]
        sq = np.bincount(self._labels, weights=d * d, minlength=64)
        return np.sqrt(sq / self._counts)

    def merge(
        self, ref: np.ndarray | None, small: np.ndarray, cells: list[str] | None
    ) -> np.ndarray:
        """``ref`` with the pixels of ``cells`` taken from ``small`` (``cells`` None, or no
        ``ref`` of this size: all of ``small``): a picture of each cell as it was when last
        read, so a partial read is compared cell by cell with what it measured.
        """
        if cells is None or ref is None or ref.shape != small.shape:
            return small
        if self._shape != small.shape:
            self._build(small.shape)
        assert self._index is not None and self._labels is not None
        out = ref.copy()
        take = self._index[np.isin(self._labels, [CELLS.index(c) for c in cells])]
        out.reshape(-1)[take] = small.reshape(-1)[take]
        return out


def changed_cells(change: np.ndarray, threshold: float) -> list[str]:
    """Names of the cells whose change is above ``threshold``."""
    return [CELLS[i] for i in np.flatnonzero(change > threshold)]
