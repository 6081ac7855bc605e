"""A second opinion on ``shaded`` for a marked cell the networks call unshaded, unsurely.

Pencil shading fills a cell up to (or a little short of) its printed lines, so where a
shaded cell meets an unshaded one the bare paper steps darker across the line; a
shadow or uneven light changes smoothly and steps nowhere. For a marked cell whose
shading probability lies in ``[MIN_DOUBT, 0.5)``, the mark's strokes are masked out and
the paper left just inside each of its four lines is compared with the paper just across
the line, in the neighbour, wherever the networks read that neighbour surely unshaded
(its level is 0) or surely shaded (its level is 1). Each step is measured in this
grid's own contrast (the median bare paper of its surely shaded cells minus that of its
surely unshaded ones), never as an absolute grey level, so another renderer, pencil or
light scales it alike. When every one of at least ``MIN_SIDES`` sides puts the cell
above ``MIN_LEVEL``, the cell is turned shaded: its probability is mirrored about one
half, so its confidence (and whether it is unknown) stays the networks'.

A light fill steps less than ``MIN_LEVEL`` of the contrast on every side. Such a cell is
turned too when every side is above ``MIN_LEVEL_LIGHT`` and every side beside surely
unshaded paper (at least one) steps up by more than ``MIN_NOISE_STEPS`` times this
grid's own paper noise: the ``NOISE_PERCENTILE`` of the steps between pairs of
neighbouring cells both read surely unshaded (grain, shadows and light as they are in
this photo, so a grainy or unevenly lit photo asks a larger step).

Where the mark's strokes (or a neighbour's) cover the bands so that fewer than
``MIN_SIDES`` sides are measured, each covered band is replaced by its cell's bare paper
(the cell inset by ``BAND_INSET_PX``, away from the strokes) and the cell is judged
again on ``MIN_LEVEL`` (the light-fill test is not used there).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import cv2
import numpy as np

# Cells the opinion may turn: the networks' shading probability in [MIN_DOUBT, 0.5) and a
# mark read. Below 0.05 the networks are right often enough that on the alt tune style
# the opinion made cells wrong (0.02: one alt cell newly wrong, 0.005: three).
MIN_DOUBT = 0.05
# A neighbour is a reference when the networks read it surely: shading below SURE or
# above 1 - SURE.
SURE = 0.1
# Stroke layer (normalised to the grid's darkest strokes) above this is a stroke; grown by
# STROKE_GROW_PX so a stroke's soft edge is masked too (alt's wide grainy strokes leave
# half-dark pixels beside their cores: 0.3 grown 1 px turned alt cells wrongly).
STROKE_LEVEL = 0.2
STROKE_GROW_PX = 2
# The bands compared across each line: BAND_FROM_PX to BAND_TO_PX (exclusive) from the
# line, at 32 px a cell (the line itself is ~2 px each side; shading may stop up to 12 % of
# a cell, ~4 px, short of it), and BAND_INSET_PX short of the two crossing lines.
BAND_FROM_PX = 5
BAND_TO_PX = 11
BAND_INSET_PX = 5
# Fewest bare pixels for a band's median, and for a whole cell's (a cell's block is the
# cell inset by BAND_INSET_PX).
MIN_BAND_PX = 8
MIN_CELL_PX = 10
# At least MIN_REF_CELLS sure cells of each kind to measure the grid's contrast, and a
# contrast of at least MIN_CONTRAST (darkness against the paper) to divide by.
MIN_REF_CELLS = 3
MIN_CONTRAST = 0.05
# At least MIN_SIDES sides measured, and the cell's lowest level on them above MIN_LEVEL
# (0 = the unshaded paper, 1 = the shaded): on the tune sets every value in 0.15-0.45
# made no cell newly wrong on classic and print-tune; 0.3 is the middle.
MIN_SIDES = 2
MIN_LEVEL = 0.3
# A light fill: every side above MIN_LEVEL_LIGHT (of the contrast) and each step up from a
# surely unshaded neighbour above MIN_NOISE_STEPS times the NOISE_PERCENTILE of this grid's
# steps between two surely unshaded neighbours (at least MIN_NOISE_PAIRS pairs). On the
# tune sets 3 times the 90th percentile with levels 0.15-0.18 made no cell newly wrong on
# classic, print-tune or alt; 2 times turned an alt cell wrongly, 5 times turned almost
# nothing; a level of 0.12 turned a classic cell wrongly.
MIN_LEVEL_LIGHT = 0.15
MIN_NOISE_STEPS = 3.0
NOISE_PERCENTILE = 90
MIN_NOISE_PAIRS = 5
_SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))  # top, bottom, left, right


def candidates(pm: np.ndarray, ps: np.ndarray) -> np.ndarray:
    """Cells (indices) the opinion looks at: a mark read, shading doubted but below 0.5."""
    return np.flatnonzero((pm.argmax(1) > 0) & (ps >= MIN_DOUBT) & (ps < 0.5))


def bare_paper(lay: dict) -> np.ndarray:
    """Darkness against the paper (0..1) with every pencil stroke (grown) set to NaN."""
    d = np.clip(1 - lay["img"] / lay["papers"][3], 0, 1)
    k = 2 * STROKE_GROW_PX + 1
    strokes = cv2.dilate((lay["norm"] > STROKE_LEVEL).astype(np.uint8), np.ones((k, k), np.uint8))
    return np.where(strokes > 0, np.float32(np.nan), d.astype(np.float32))


def _median(a: np.ndarray, least: int) -> float:
    v = a[np.isfinite(a)]
    return float(np.median(v)) if v.size >= least else float("nan")


def cell_paper(bare: np.ndarray, m: int, cell: int, i: int) -> float:
    """Median bare paper of cell ``i`` inset by ``BAND_INSET_PX`` (NaN: too few pixels)."""
    y, x = m + (i // 10) * cell, m + (i % 10) * cell
    k = BAND_INSET_PX
    return _median(bare[y + k : y + cell - k, x + k : x + cell - k], MIN_CELL_PX)


def side_steps(bare: np.ndarray, m: int, cell: int, i: int, fill: bool = False) -> list[float]:
    """Per side (top, bottom, left, right): the median bare paper just inside cell ``i``
    minus that just across the line (NaN where a band has too few bare pixels).

    ``fill``: a band the strokes cover is replaced by its cell's bare paper
    (:func:`cell_paper`), for a side inside the grid.
    """
    y, x = m + (i // 10) * cell, m + (i % 10) * cell
    a, b, k = BAND_FROM_PX, BAND_TO_PX, BAND_INSET_PX
    along = slice(x + k, x + cell - k)
    down = slice(y + k, y + cell - k)
    pairs = (
        (bare[y + a : y + b, along], bare[y - b + 1 : y - a + 1, along]),
        (
            bare[y + cell - b + 1 : y + cell - a + 1, along],
            bare[y + cell + a : y + cell + b, along],
        ),
        (bare[down, x + a : x + b], bare[down, x - b + 1 : x - a + 1]),
        (bare[down, x + cell - b + 1 : x + cell - a + 1], bare[down, x + cell + a : x + cell + b]),
    )
    r, c = divmod(i, 10)
    out = []
    for (p, q), (dr, dc) in zip(pairs, _SIDES, strict=True):
        inside, across = _median(p, MIN_BAND_PX), _median(q, MIN_BAND_PX)
        if fill and 0 <= r + dr < 10 and 0 <= c + dc < 10:
            if not np.isfinite(inside):
                inside = cell_paper(bare, m, cell, i)
            if not np.isfinite(across):
                across = cell_paper(bare, m, cell, (r + dr) * 10 + c + dc)
        out.append(inside - across)
    return out


def grid_contrast(bare: np.ndarray, m: int, cell: int, ps: np.ndarray) -> float:
    """This grid's bare paper of surely shaded cells minus that of surely unshaded ones
    (NaN with fewer than ``MIN_REF_CELLS`` of either)."""
    levels = {}
    for name, cells in (("shaded", ps > 1 - SURE), ("unshaded", ps < SURE)):
        v = np.array([cell_paper(bare, m, cell, i) for i in np.flatnonzero(cells)])
        v = v[np.isfinite(v)]
        if v.size < MIN_REF_CELLS:
            return float("nan")
        levels[name] = float(np.median(v))
    return levels["shaded"] - levels["unshaded"]


def paper_noise(bare: np.ndarray, m: int, cell: int, ps: np.ndarray) -> float:
    """The ``NOISE_PERCENTILE`` of the absolute steps across the line between two
    neighbouring cells both read surely unshaded (NaN with fewer than
    ``MIN_NOISE_PAIRS`` pairs): how far this photo's bare paper steps with no fill."""
    steps = []
    for i in np.flatnonzero(ps < SURE):
        r, c = divmod(i, 10)
        below, right = side_steps(bare, m, cell, i)[1::2]
        for step, other in ((below, (r + 1, c)), (right, (r, c + 1))):
            if other[0] > 9 or other[1] > 9 or not ps[other[0] * 10 + other[1]] < SURE:
                continue
            if np.isfinite(step):
                steps.append(abs(step))
    if len(steps) < MIN_NOISE_PAIRS:
        return float("nan")
    return float(np.percentile(steps, NOISE_PERCENTILE))


def side_levels(
    steps: list[float], ps: np.ndarray, i: int, contrast: float
) -> list[tuple[float, float | None]]:
    """Per side whose neighbour is read surely: the cell's level (0 for the unshaded
    paper, 1 for the shaded) and the raw step where that neighbour is unshaded (else
    None)."""
    r, c = divmod(i, 10)
    out: list[tuple[float, float | None]] = []
    for step, (dr, dc) in zip(steps, _SIDES, strict=True):
        rr, cc = r + dr, c + dc
        if not (0 <= rr < 10 and 0 <= cc < 10) or not np.isfinite(step):
            continue
        q = ps[rr * 10 + cc]
        if q < SURE:
            out.append((step / contrast, step))
        elif q > 1 - SURE:
            out.append((1 + step / contrast, None))
    return out


def light_fill(sides: list[tuple[float, float | None]], noise: float) -> bool:
    """A light fill: every side above ``MIN_LEVEL_LIGHT`` and every step up from surely
    unshaded paper (at least one) above ``MIN_NOISE_STEPS`` times the grid's noise."""
    ups = [step for _, step in sides if step is not None]
    return (
        len(sides) >= MIN_SIDES
        and bool(ups)
        and min(level for level, _ in sides) > MIN_LEVEL_LIGHT
        and min(ups) > MIN_NOISE_STEPS * noise
    )


def _turns(
    bare: np.ndarray,
    m: int,
    cell: int,
    i: int,
    ps: np.ndarray,
    contrast: float,
    noise: Callable[[], float],
) -> bool:
    """Whether doubted cell ``i`` is shading: a step above ``MIN_LEVEL`` on every measured
    side (sides the strokes cover filled from the cells' bare paper when fewer than
    ``MIN_SIDES`` are left), or a light fill. ``noise()`` gives the grid's paper noise."""
    sides = side_levels(side_steps(bare, m, cell, i), ps, i, contrast)
    # Filled only where too few sides are left: filling every cell changed card23's own
    # turns (tune classic +3 wrong); filled, truly unshaded tune cells reached 0.15 at most.
    if len(sides) < MIN_SIDES:
        sides = side_levels(side_steps(bare, m, cell, i, fill=True), ps, i, contrast)
        return len(sides) >= MIN_SIDES and min(level for level, _ in sides) > MIN_LEVEL
    lowest = min(level for level, _ in sides)
    if lowest > MIN_LEVEL:
        return True
    return lowest > MIN_LEVEL_LIGHT and light_fill(sides, noise())


def second_opinion(lay: dict, cell: int, pm: np.ndarray, ps: np.ndarray) -> np.ndarray:
    """``ps`` with the doubted marked cells the bare paper calls shaded (:func:`_turns`)
    mirrored to shaded.

    ``lay``: the grid's pencil layers (``card_cells._layers``); ``pm`` (100, marks) and
    ``ps`` (100,): the networks' probabilities. Never turns a cell unshaded.
    """
    out = ps.copy()
    todo = candidates(pm, ps)
    if todo.size == 0:
        return out
    bare, m = bare_paper(lay), lay["m"]
    contrast = grid_contrast(bare, m, cell, ps)
    if not contrast > MIN_CONTRAST:
        return out
    # Worked out once, and only for a cell the first test leaves.
    grid_noise = functools.cache(lambda: paper_noise(bare, m, cell, ps))
    for i in todo:
        if _turns(bare, m, cell, i, ps, contrast, grid_noise):
            out[i] = 1 - ps[i]
    return out
