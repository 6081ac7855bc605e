"""A full-resolution specialist for the card cell reader: tried at the tenth session, not
shipped (``benchmarks/results/card.md``).

The reader's networks (:class:`piecebridge.vision.card_cells.CellNet`) read the maps at
half resolution (16 pixels a cell), where a pencil stroke and the hatching of a fill are
both a pixel or two wide. :class:`Specialist` reads the full-resolution maps of
:func:`~piecebridge.vision.card_cells.cell_maps` and is weighed into the networks'
probabilities on the cells they may read wrong. It is trained by
``benchmarks/card_train.py --specialist``; this module reads what that writes (in numpy and
OpenCV's dnn, as the reader would), so a specialist run can be measured on the tuning
photos:

    from card_specialist import Specialist
    spec = Specialist.load("out/card17/spec1.npz")
    maps, scalars = cell_maps(rect, planes=spec.planes)
    pm, ps = spec.combine(pm, ps, *spec.read(maps, scalars))   # pm, ps: CellNet.predict_grid
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from piecebridge.vision.card_cells import (
    CELL_PX,
    MARGIN_CELLS,
    _conv_hwc,
    _conv_planes,
    _dnn_network,
    _DnnNetwork,
    _head,
    _normalised_scalars,
    _onnx_conv_stack,
)

#: what a specialist reads: a cell and half a cell around at ``CELL_PX`` pixels a cell,
#: ``SPEC_CONTEXT`` more pixels around it its convolutions see in training, and its
#: convolution widths (each followed by a 2x2 max-pool)
SPEC_PATCH_PX = 2 * CELL_PX
SPEC_CONTEXT = 16
SPEC_CHANNELS = (8, 16, 32, 32)


@dataclass
class Specialist:
    """A network that reads some cells again at full resolution.

    The reader's networks read the maps at half resolution (16 pixels a cell), where a
    pencil stroke and the hatching of a fill are both a pixel or two wide. The
    specialist reads the maps as ``cell_maps`` makes them (``cell_px`` pixels a cell):
    3x3 convolutions (each ReLU + 2x2 max-pool) over the grid once, each cell's features
    over its ``patch_px`` square (the cell and half a cell around), then one hidden layer
    with the cell's scalars and the mark and shading heads, as the reader's networks.
    It is trained on the cells the ensemble may read wrong, so only those take its
    reading (:meth:`combine`): the *gated* cells, read shaded at over ``gate[0]`` or with
    their best mark under ``gate[1]``; there the mark probabilities become
    ``(1 - weights[0]) * ensemble + weights[0] * specialist`` and the shaded probability
    likewise with ``weights[1]``.

    Stored as ``spec.`` arrays (:meth:`save_arrays`): the weights (batch norm folded in),
    and what it reads: ``cell_px``, ``patch_px``, ``context_px`` (pixels around the patch
    its convolutions see in training: enough that the padding at a patch's edge never
    reaches the features it keeps, so the whole grid read at once gives the same numbers),
    the gate and the weights.
    """

    arrays: dict
    cell_px: int = CELL_PX
    patch_px: int = SPEC_PATCH_PX
    context_px: int = SPEC_CONTEXT
    gate: tuple[float, float] = (0.3, 0.9)
    weights: tuple[float, float] = (0.5, 0.0)
    #: how it was trained (``spec.info``, JSON)
    info: dict | None = None
    _dnn: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    KEYS = ("cell_px", "patch_px", "context_px", "gate", "weights")

    @classmethod
    def from_npz(cls, d, files) -> Specialist | None:
        """The specialist stored in an opened ``.npz`` (``spec.`` arrays), or ``None``."""
        if "spec.conv0_w" not in files:
            return None
        names = [k[5:] for k in files if k.startswith("spec.") and k != "spec.info"]
        arrays = {k: d[f"spec.{k}"] for k in names if k not in cls.KEYS}
        kw = {k: d[f"spec.{k}"] for k in cls.KEYS if k in names}
        kw = {k: tuple(map(float, v)) if v.ndim else int(v) for k, v in kw.items()}
        info = json.loads(str(d["spec.info"])) if "spec.info" in files else None
        return cls(arrays, **kw, info=info)

    @classmethod
    def load(cls, path: Path | str) -> Specialist:
        """The specialist of a training run's file (``spec.`` arrays)."""
        with np.load(path, allow_pickle=False) as d:
            spec = cls.from_npz(d, d.files)
        if spec is None:
            raise ValueError(f"{path} holds no specialist (spec. arrays)")
        return spec

    def save_arrays(self) -> dict:
        """The ``spec.`` arrays :meth:`from_npz` reads."""
        out = {f"spec.{k}": v for k, v in self.arrays.items()}
        out.update({f"spec.{k}": np.asarray(getattr(self, k)) for k in self.KEYS})
        if self.info is not None:
            out["spec.info"] = np.array(json.dumps(self.info))
        return out

    @property
    def planes(self) -> int:
        """The input planes of ``cell_maps`` it reads (the first ones)."""
        return int(self.arrays["conv0_w"].shape[1])

    @property
    def layers(self) -> int:
        """Its convolutions (each halves the side)."""
        return sum(1 for k in self.arrays if k.startswith("conv") and k.endswith("_w"))

    def window(self, maps_side: int) -> tuple[int, int]:
        """``(lo, hi)``: the square of the maps its convolutions run over: every cell's
        patch and its context, for maps of side ``maps_side`` at ``cell_px`` a cell."""
        k = 2**self.layers
        if self.cell_px != CELL_PX or any(
            v % k for v in (self.cell_px, self.patch_px, self.context_px)
        ):
            raise ValueError(
                f"the specialist reads {self.cell_px} px a cell, patches of {self.patch_px} "
                f"and {self.context_px} px around; the maps have {CELL_PX} px a cell and "
                f"its pools need multiples of {k}"
            )
        m = round(MARGIN_CELLS * self.cell_px)
        lo = m - (self.patch_px - self.cell_px) // 2 - self.context_px
        hi = lo + 9 * self.cell_px + self.patch_px + 2 * self.context_px
        if lo < 0 or hi > maps_side:
            raise ValueError(f"the specialist's window {lo}..{hi} leaves maps of {maps_side}")
        return lo, hi

    def read(self, maps: np.ndarray, scalars: np.ndarray, use_dnn: bool = True):
        """Its ``(mark_probs (100, 7), shaded_prob (100,))`` from ``cell_maps``'s full-
        resolution maps (at least :attr:`planes` of them) and scalars."""
        a = self.arrays
        lo, hi = self.window(maps.shape[-1])
        x = np.ascontiguousarray(maps[: self.planes, lo:hi, lo:hi], np.float32)
        k = 2**self.layers
        side, first, step = self.patch_px // k, self.context_px // k, self.cell_px // k
        c = a[f"conv{self.layers - 1}_w"].shape[0]
        features = c * side * side
        dnn = self._network(hi - lo) if use_dnn else None
        if dnn is not None:
            h = dnn.forward(x[None])[0, :, :10, :10].reshape(-1, 100).T
        else:
            y = _conv_planes(x, a["conv0_w"], a["conv0_b"])
            for i in range(1, self.layers):
                y = _conv_hwc(y, a[f"conv{i}_w"], a[f"conv{i}_b"])
            win = np.lib.stride_tricks.sliding_window_view(y, (side, side), axis=(0, 1))
            idx = first + step * np.arange(10)
            h = win[idx[:, None], idx[None, :]].reshape(100, -1) @ a["fc1_w"][:features]
        sc = _normalised_scalars(a, scalars)[:, : len(a["scalar_mean"])]
        h = np.maximum(h + sc @ a["fc1_w"][features:] + a["fc1_b"], 0)
        return _head(h @ a["fc2_w"] + a["fc2_b"])

    def _network(self, side: int) -> _DnnNetwork | None:
        """Its convolutions and the first dense layer's feature rows as one OpenCV dnn
        network over the (1, C, side, side) window, made once (``None``: numpy reads)."""
        if side not in self._dnn:
            a, n = self.arrays, self.layers
            k = 2**n
            side_k, first = self.patch_px // k, self.context_px // k
            c = a[f"conv{n - 1}_w"].shape[0]
            rows = a["fc1_w"][: c * side_k * side_k].reshape(c, side_k, side_k, -1)
            dense = np.zeros((rows.shape[-1], c, first + side_k, first + side_k), np.float32)
            dense[:, :, first:, first:] = rows.transpose(3, 0, 1, 2)
            layers = [(a[f"conv{i}_w"], a[f"conv{i}_b"], 1) for i in range(n)]
            spec = (dense, np.zeros(len(dense), np.float32), 1, self.cell_px // k)
            self._dnn[side] = _dnn_network(_onnx_conv_stack, layers, side, spec)
        return self._dnn[side]

    def combine(self, pm, ps, spec_pm, spec_ps):
        """The ensemble's ``(pm, ps)`` with the gated cells' taken partly from the
        specialist's (:class:`Specialist`)."""
        gate = (ps > self.gate[0]) | (pm.max(1) < self.gate[1])
        wm, ws = self.weights
        pm, ps = pm.copy(), ps.copy()
        pm[gate] = (1 - wm) * pm[gate] + wm * spec_pm[gate]
        ps[gate] = (1 - ws) * ps[gate] + ws * spec_ps[gate]
        return pm, ps
