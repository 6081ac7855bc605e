"""How far the renderer's x and plus marks lean from their class's directions.

    python benchmarks/card_marks.py --marks 600             # the renderer as it is
    python benchmarks/card_marks.py --marks 600 --bound 90  # no bound: the old renderer

Each mark is drawn alone by the renderer's own hand (random pencil, size, turn and
tremor) and measured from its pixels: every stroke's direction (principal axis of
its graphite) and its lean from the nearest direction of its class (horizontal /
vertical for a plus, the diagonals for an x; 22.5 degrees is halfway to the other
class), the mark's worst stroke kept; and the mark's 4-fold orientation (the
gradient directions of the whole mark, as a reader of the cell sees it).
``--bound 90`` switches ``synth.card.MAX_LEAN_DEG`` off, which draws every mark
bit for bit as the renderer before the bound did.
"""

from __future__ import annotations

import argparse
import math

import cv2
import numpy as np

from piecebridge.synth import card as synth

CELL_PX = 56.0  # the renderer's cell at 16 px/mm


class _Recorder(synth._Canvas):
    """A canvas that keeps each stroke's graphite apart."""

    def __init__(self, *args):
        super().__init__(*args)
        self.layers: list[np.ndarray] = []

    def add(self, layer: np.ndarray) -> None:
        self.layers.append(layer.copy())
        super().add(layer)


def principal_angle(layer: np.ndarray) -> float:
    """Direction (degrees, 0..180) of the principal axis of a density image."""
    yy, xx = np.nonzero(layer > 0)
    w = layer[yy, xx] / layer[yy, xx].sum()
    dx, dy = xx - w @ xx, yy - w @ yy
    cxx, cyy, cxy = w @ (dx * dx), w @ (dy * dy), w @ (dx * dy)
    return math.degrees(0.5 * math.atan2(2 * cxy, cxx - cyy)) % 180


def four_fold(density: np.ndarray) -> float:
    """4-fold orientation (degrees, 0..90) of a mark from its gradient directions."""
    gx = cv2.Sobel(density, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(density, cv2.CV_32F, 0, 1)
    z = ((gx**2 + gy**2) * np.exp(4j * np.arctan2(gy, gx))).sum()
    return math.degrees(np.angle(z)) / 4 % 90


def measure(mark: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(worst stroke lean, 4-fold lean)`` in degrees of ``n`` marks."""
    rng = np.random.default_rng(seed)
    strokes, whole = [], []
    side = int(3 * CELL_PX)
    for _ in range(n):
        canvas = _Recorder((side, side), CELL_PX, np.zeros(2))
        synth._draw_mark(canvas, mark, np.array([1.5, 1.5]), synth.Pencil.random(rng), rng)
        strokes.append(max(abs(synth.lean_deg(principal_angle(x), mark)) for x in canvas.layers))
        whole.append(abs(synth.lean_deg(four_fold(canvas.density), mark)))
    return np.array(strokes), np.array(whole)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--marks", type=int, default=600, help="marks of each class")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--bound", type=float, help="MAX_LEAN_DEG instead of the renderer's")
    a = ap.parse_args()
    if a.bound is not None:
        synth.MAX_LEAN_DEG = a.bound
    print(f"MAX_LEAN_DEG {synth.MAX_LEAN_DEG}; {a.marks} marks of each class, seed {a.seed}")
    print("| mark | measure | median | p90 | p99 | max | > 15 deg | > 20 deg | > 22.5 deg |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for mark in ("plus", "x"):
        for name, v in zip(("worst stroke", "4-fold"), measure(mark, a.marks, a.seed), strict=True):
            q = np.percentile(v, (50, 90, 99))
            share = [f"{(v > t).mean():.1%}" for t in (15, 20, 22.5)]
            print(
                f"| {mark} | {name} | {q[0]:.1f} | {q[1]:.1f} | {q[2]:.1f} | {v.max():.1f} | "
                + " | ".join(share)
                + " |"
            )


if __name__ == "__main__":
    main()
