"""Other hands and other printed cards, to measure the card reader on what it never saw.

:mod:`piecebridge.synth.card` is the renderer the reader was tuned and trained on:
one pencil model, one family of printed boards. This module draws the same game
(:func:`piecebridge.synth.card.random_contents`) with a different hand and a
different print, within what real players and printers do:

* **tools** (:class:`Tool`): a ballpoint (thin, constant width, blue or black ink,
  a blob where the ball lands, skips where it runs dry), a gel pen (darker,
  smoother), or a soft 2B–6B pencil (wide, grainy: graphite catches only on the
  raised fibres of the card, the same fibres for every stroke);
* **marks** drawn by another hand: an X in two strokes or in one with a loop, O's
  that stop short or run past their start, dots as a short dash or a tiny filled
  disc, slashes both ways, plus signs with unequal arms off the crossing,
  triangles with rounded corners pointing any way (*Rotator* points them in the
  direction of travel);
* **shading**: cross-hatching, a zig-zag scribble, a circular scribble or a solid
  fill, sometimes spilling a little into the next cell;
* **the printed card** (:class:`Design`): coloured or grey grid lines of another
  weight (with or without a heavier frame, sometimes a heavier line every five),
  other fonts for A–J and 1–10, labels sometimes printed in boxes of their own
  (an 11x11 ruled grid, header row and column tinted or not), a coloured card, the
  grids closer or further apart, a title, rounded corners.

Labels stay above the columns and left of the rows, reading upright, so the card
is a valid board whose orientation the labels tell. The ground truth is the
``card/1`` object plus ``"style"`` (the tools and design, for breaking results
down; a ``card/1`` consumer ignores unknown keys).

>>> import numpy as np
>>> card = render_styled_card(np.random.default_rng(1), px_per_mm=6)
>>> card.truth["format"], len(card.truth["grids"]), card.rgb.shape[:2] == card.alpha.shape
('card/1', 2, True)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import cv2
import numpy as np

from piecebridge.synth.card import (
    SPLITS,
    CardTexture,
    mark_twin,
    photograph_card,
    random_contents,
)
from piecebridge.vision.card_layout import COLUMNS, ROWS, CardLayout

#: style name -> a number mixed into every seed, so a style's photos never share a
#: random stream with ``classic`` (today's :func:`piecebridge.synth.card.split_photo`)
STYLES = {"alt": 71}

PEN_INKS = {  # what full ink coverage looks like on white (RGB, 0..1)
    "blue": (0.13, 0.2, 0.52),
    "black": (0.1, 0.1, 0.13),
    "gel": (0.05, 0.05, 0.07),
}


@dataclass(frozen=True)
class Tool:
    """A writing tool and the hand holding it.

    ``kind`` is ``"ballpoint"``, ``"gel"`` or ``"soft"`` (a 2B–6B pencil); ``rgb``
    the colour of full coverage; ``width_mm`` the line width; ``darkness`` the
    density at full pressure; ``tremor`` the hand's unsteadiness in cells.
    """

    kind: str
    rgb: tuple[float, float, float]
    width_mm: float
    darkness: float
    tremor: float

    @classmethod
    def random(cls, rng: np.random.Generator, kind: str | None = None) -> Tool:
        kind = kind or str(rng.choice(["ballpoint", "gel", "soft"], p=[0.4, 0.15, 0.45]))
        if kind == "ballpoint":
            ink = PEN_INKS["blue" if rng.random() < 0.6 else "black"]
            return cls(kind, ink, rng.uniform(0.22, 0.38), rng.uniform(0.8, 0.95), 0.012)
        if kind == "gel":
            return cls(kind, PEN_INKS["gel"], rng.uniform(0.3, 0.5), rng.uniform(0.9, 1.0), 0.01)
        grey = rng.uniform(0.18, 0.3)  # graphite: a cool dark grey
        rgb = (grey * 0.95, grey, grey * 1.08)
        return cls(kind, rgb, rng.uniform(0.45, 0.8), rng.uniform(0.65, 0.92), 0.02)

    @property
    def is_pen(self) -> bool:
        return is_pen_kind(self.kind)


def is_pen_kind(kind: str) -> bool:
    """Whether a :class:`Tool` of this ``kind`` lays ink (a pen) rather than graphite.

    >>> is_pen_kind("gel"), is_pen_kind("soft")
    (True, False)
    """
    return kind != "soft"


@dataclass(frozen=True)
class Design:
    """How the board is printed (beyond :class:`CardLayout`'s geometry)."""

    paper_rgb: tuple[float, float, float]
    line_rgb: tuple[float, float, float]
    label_rgb: tuple[float, float, float]
    line_mm: float
    frame_mm: float
    major_every: int  # 0, or 5: a heavier line every five cells
    boxed_labels: bool  # labels in header cells of their own (an 11x11 ruled grid)
    header_tint: tuple[float, float, float] | None
    font: int
    label_height_mm: float
    label_gap_mm: float
    label_weight: float  # stroke thickness as a fraction of the label height
    title: str
    title_y_mm: float
    corner_mm: float  # radius of the card's rounded corners (0: square)


_LINE_COLOURS = [
    (0.45, 0.45, 0.45),  # mid grey
    (0.62, 0.62, 0.62),  # light grey
    (0.2, 0.4, 0.75),  # blue
    (0.15, 0.5, 0.3),  # green
    (0.6, 0.25, 0.2),  # brick red
    (0.1, 0.1, 0.1),  # black, thin
]
_PAPERS = [
    (0.97, 0.97, 0.96),  # white
    (0.97, 0.94, 0.84),  # cream
    (0.86, 0.92, 0.97),  # pale blue
    (0.82, 0.71, 0.55),  # kraft
    (0.9, 0.9, 0.88),  # light grey
    (0.95, 0.88, 0.88),  # pale pink
]
_FONTS = [
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
    cv2.FONT_HERSHEY_COMPLEX | cv2.FONT_ITALIC,
    cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC,
]
_TITLES = ["REFLECTOR", "The Business Card Games", "GAME BOARD", "Doug Lynn's Card Game Board", ""]


def random_design(rng: np.random.Generator) -> tuple[CardLayout, Design]:
    """A printed board unlike :func:`piecebridge.synth.card.random_layout`'s: its
    geometry as a :class:`CardLayout` (what the truth's corners come from) and its look.
    """
    cell = rng.uniform(3.0, 3.7)
    g = 10 * cell
    boxed = rng.random() < 0.3
    label_h = rng.uniform(1.3, 2.3) if not boxed else cell * rng.uniform(0.45, 0.65)
    gap = rng.uniform(0.3, 1.2)
    room = cell if boxed else gap + 1.3 * label_h  # what the row labels need on the left
    between = rng.uniform(room + 1.0, room + 9.0)
    total = room + 2 * g + between
    while total > 88.9 - 3.0:  # keep both grids and their labels on the card
        between = max(room + 0.8, between - 1.0)
        total = room + 2 * g + between
        if between <= room + 0.8:
            break
    x0 = (88.9 - total) / 2 + rng.uniform(-0.3, 0.3) * (88.9 - 3 - total) / 2 + room
    top_room = cell if boxed else gap + label_h
    free = 50.8 - g - top_room
    y0 = top_room + rng.uniform(0.25, 0.6) * free
    colour = _LINE_COLOURS[int(rng.integers(len(_LINE_COLOURS)))]
    light = colour[0] > 0.55 and colour[1] > 0.55
    line = rng.uniform(0.08, 0.16) if colour == (0.1, 0.1, 0.1) else rng.uniform(0.12, 0.35)
    if light:
        line = max(line, 0.2)  # a pale line is printed bolder to be seen at all
    frame = line * (1.0 if rng.random() < 0.4 else rng.uniform(1.5, 3.0))
    labels_dark = rng.random() < 0.5
    label_rgb = (0.12, 0.12, 0.14) if labels_dark else tuple(min(c, 0.5) for c in colour)
    tint = None
    if boxed and rng.random() < 0.5:
        tint = tuple(float(c) for c in rng.uniform(0.72, 0.93, 3))
    below = 50.8 - (y0 + g)
    title = str(rng.choice(_TITLES)) if below > 4.5 else ""
    title_y = y0 + g + rng.uniform(0.55, 0.8) * below
    layout = CardLayout(
        cell_mm=cell,
        grid_origins=((x0, y0), (x0 + g + between, y0)),
        angle_deg=float(rng.normal(0, 0.6)),
        offset_mm=(float(rng.normal(0, 0.3)), float(rng.normal(0, 0.3))),
        line_mm=line,
        frame_mm=frame,
        label_height_mm=label_h,
        label_gap_mm=gap,
    )
    design = Design(
        paper_rgb=_PAPERS[int(rng.integers(len(_PAPERS)))],
        line_rgb=colour,
        label_rgb=label_rgb,
        line_mm=line,
        frame_mm=frame,
        major_every=5 if rng.random() < 0.2 else 0,
        boxed_labels=bool(boxed),
        header_tint=tint,
        font=int(_FONTS[int(rng.integers(len(_FONTS)))]),
        label_height_mm=label_h,
        label_gap_mm=gap,
        label_weight=rng.uniform(0.07, 0.14),
        title=title,
        title_y_mm=title_y,
        corner_mm=rng.uniform(2.0, 4.0) if rng.random() < 0.4 else 0.0,
    )
    return layout, design


# ----------------------------------------------------------------------------- print


def _text(
    cov: np.ndarray, text: str, centre, height_px: float, font: int, weight: float, right=False
):
    """Anti-aliased text (255 on uint8 ``cov``: OpenCV 5 draws text only on 8 bits) of
    a given cap height centred on ``centre`` (or right-aligned)."""
    (_, h), _ = cv2.getTextSize("A", font, 1.0, 1)
    scale = height_px / h
    thick = max(1, round(weight * height_px))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    x = centre[0] - (w if right else w / 2)
    org = (round(x), round(centre[1] + h / 2))
    cv2.putText(cov, text, org, font, scale, 255, thick, cv2.LINE_AA)


def print_board(layout: CardLayout, design: Design, px_per_mm: float) -> dict[str, np.ndarray]:
    """Ink coverage (float32, 0..1) of the print, one layer per ink: ``lines``,
    ``labels``, ``tint``; in card pixels, turned by the layout's tilt."""
    w, h = round(layout.width_mm * px_per_mm), round(layout.height_mm * px_per_mm)
    lines, tint = (np.zeros((h, w), np.float32) for _ in range(2))
    labels = np.zeros((h, w), np.uint8)
    s, shift = px_per_mm, 4

    def pt(x, y):
        return round(x * s * (1 << shift)), round(y * s * (1 << shift))

    def rule(a, b, mm):
        cv2.line(lines, pt(*a), pt(*b), 1.0, max(1, round(mm * s)), cv2.LINE_AA, shift)

    c = layout.cell_mm
    for gx, gy in layout.grid_origins:
        g = 10 * c
        head = c if design.boxed_labels else 0.0
        if design.header_tint is not None:
            cv2.rectangle(
                tint, pt(gx - head, gy - head), pt(gx + g, gy), 1.0, -1, cv2.LINE_AA, shift
            )
            cv2.rectangle(tint, pt(gx - head, gy), pt(gx, gy + g), 1.0, -1, cv2.LINE_AA, shift)
        for i in range(11):
            mm = design.frame_mm if i in (0, 10) else design.line_mm
            if design.major_every and i % design.major_every == 0:
                mm = max(mm, 1.8 * design.line_mm)
            rule((gx + i * c, gy - head), (gx + i * c, gy + g), mm)
            rule((gx - head, gy + i * c), (gx + g, gy + i * c), mm)
        if head:  # the header row's top edge and the header column's left edge
            rule((gx - head, gy - head), (gx + g, gy - head), design.line_mm)
            rule((gx - head, gy - head), (gx - head, gy + g), design.line_mm)
        lh = design.label_height_mm * s
        for k in range(10):
            mid = (gx + (k + 0.5) * c) * s
            if head:
                top = (mid, (gy - c / 2) * s)
                left = ((gx - c / 2) * s, (gy + (k + 0.5) * c) * s)
                right = False
            else:
                top = (mid, (gy - design.label_gap_mm - design.label_height_mm / 2) * s)
                left = ((gx - design.label_gap_mm) * s, (gy + (k + 0.5) * c) * s)
                right = True
            _text(labels, COLUMNS[k], top, lh, design.font, design.label_weight)
            _text(labels, ROWS[k], left, lh, design.font, design.label_weight, right=right)
    if design.title:
        centre = (layout.width_mm / 2 * s, design.title_y_mm * s)
        _text(labels, design.title, centre, 1.6 * s, design.font, 0.1)
    m = layout.transform().copy()
    m[:, 2] *= s
    return {
        k: cv2.warpAffine(v, m, (w, h), flags=cv2.INTER_LINEAR)
        for k, v in {"lines": lines, "labels": labels / np.float32(255), "tint": tint}.items()
    }


# ----------------------------------------------------------------------------- strokes


def _resample(ctrl: np.ndarray, step: float) -> np.ndarray:
    """Points every ``step`` (same units) along the polyline through ``ctrl``."""
    seg = np.linalg.norm(np.diff(ctrl, axis=0), axis=1)
    s = np.concatenate([[0], np.cumsum(seg)])
    t = np.linspace(0, s[-1], max(2, int(s[-1] / step) + 2))
    return np.stack([np.interp(t, s, ctrl[:, 0]), np.interp(t, s, ctrl[:, 1])], axis=1)


def _tremor(path: np.ndarray, amp: float, rng: np.random.Generator) -> np.ndarray:
    """A random walk smoothed along the path: the hand drifts, it does not oscillate."""
    n = len(path)
    walk = np.cumsum(rng.normal(0, 1, (n, 2)), axis=0)
    k = max(3, n // 4) | 1
    walk = cv2.GaussianBlur(walk.astype(np.float32), (1, k), 0).astype(np.float64)
    walk -= np.linspace(walk[0], walk[-1], n)  # anchored: the ends stay where aimed
    scale = np.abs(walk).max() + 1e-9
    return path + amp * walk / scale


def _chaikin(poly: np.ndarray, rounds: int, closed: bool, cut: float = 0.25) -> np.ndarray:
    """Corner cutting: a polygon drawn by a hand that rounds its corners (``cut``
    of each side goes into the curve, per round)."""
    for _ in range(rounds):
        p = np.vstack([poly, poly[:1]]) if closed else poly
        q = (1 - cut) * p[:-1] + cut * p[1:]
        r = cut * p[:-1] + (1 - cut) * p[1:]
        poly = np.stack([q, r], axis=1).reshape(-1, 2)
        if not closed:
            poly = np.vstack([p[:1], poly, p[-1:]])
    return poly


class _Sheet:
    """Ink density (0..1) of one tool on a patch of the card, drawn in cell units."""

    def __init__(self, shape, cell_px: float, origin_px: np.ndarray, px_per_mm: float):
        self.density = np.zeros(shape, np.float32)
        self.cell_px, self.origin, self.px_per_mm = cell_px, origin_px, px_per_mm

    def px(self, pts_cells: np.ndarray) -> np.ndarray:
        return pts_cells * self.cell_px + self.origin

    def draw(self, pts_cells, tool: Tool, rng, level: float = 1.0, width_mm: float | None = None):
        """One stroke along ``pts_cells``: a pen lays constant ink (a blob where it lands,
        gaps where the ball skips), a soft pencil follows the pressure."""
        pts = self.px(_resample(np.asarray(pts_cells, float), 0.03))
        n = len(pts)
        wmm = tool.width_mm if width_mm is None else width_mm
        layer = np.zeros_like(self.density)
        if tool.is_pen:
            value = np.full(n, tool.darkness * level)
            if tool.kind == "ballpoint" and rng.random() < 0.5:
                start = int(rng.integers(0, n))
                value[start : start + int(rng.integers(1, 4))] *= 0.35
            width = np.full(n, wmm * self.px_per_mm * rng.uniform(0.9, 1.1))
            p0 = tuple(np.round(pts[0]).astype(int))
            cv2.circle(layer, p0, max(1, round(width[0] * 0.7)), float(value[0]), -1, cv2.LINE_AA)
        else:
            t = np.linspace(0, 1, n)
            press = 0.55 + 0.45 * np.clip(np.minimum(t, 1 - t) * rng.uniform(4, 12), 0, 1)
            press *= 1 + 0.12 * np.cumsum(rng.normal(0, 0.2, n)) / math.sqrt(n)
            press = np.clip(press, 0.3, 1)
            value = tool.darkness * level * press
            width = wmm * self.px_per_mm * (0.55 + 0.45 * press)
        shift = 3
        for i in range(n - 1):
            a = tuple(np.round(pts[i] * (1 << shift)).astype(int))
            b = tuple(np.round(pts[i + 1] * (1 << shift)).astype(int))
            w = max(1, round(width[i]))
            cv2.line(layer, a, b, float(value[i]), w, cv2.LINE_AA, shift)
        self.add(layer)

    def add(self, layer: np.ndarray) -> None:
        self.density = 1 - (1 - self.density) * (1 - np.clip(layer, 0, 1))


def _rot(angle: float) -> np.ndarray:
    return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])


def draw_mark(sheet: _Sheet, mark: str, centre: np.ndarray, tool: Tool, rng) -> None:
    """Draw ``mark`` about ``centre`` (cell units) as this hand draws it."""
    c = centre + rng.normal(0, 0.06, 2)
    amp = tool.tremor

    def stroke(pts, rot=0.0, **kw):
        path = np.asarray(pts, float) @ _rot(rot).T + c
        sheet.draw(_tremor(_resample(path, 0.02), amp, rng), tool, rng, **kw)

    if mark == "dot":
        if rng.random() < 0.5:  # a short dash, the pen barely moved
            a, r = rng.uniform(0, math.pi), rng.uniform(0.05, 0.12)
            d = np.array([math.cos(a), math.sin(a)]) * r
            stroke([-d, d], width_mm=tool.width_mm * 1.2)
        else:  # a tiny filled disc
            r = rng.uniform(0.05, 0.1) * sheet.cell_px
            layer = np.zeros_like(sheet.density)
            cv2.circle(layer, tuple(np.round(sheet.px(c)).astype(int)), round(r), tool.darkness, -1)
            sheet.add(cv2.GaussianBlur(layer, (0, 0), 0.6))
    elif mark == "x":
        a, b = rng.uniform(0.22, 0.45), rng.uniform(0.22, 0.45)
        rot = rng.uniform(-0.2, 0.2)
        if rng.random() < 0.3:  # one stroke: down, a loop round the corner, up, down
            t = np.linspace(-0.5 * math.pi, 1.2 * math.pi, 12)
            loop = np.array([a, b]) + 0.09 * np.stack([np.cos(t) + 0.4, np.sin(t)], 1)
            lift = np.array([[a + 0.07, 0.0], [a, -b]])
            stroke(np.vstack([[[-a, -b]], loop, lift, [[-a, b]]]), rot)
        else:
            first = [[-a, -b], [a, b]] if rng.random() < 0.7 else [[a, b], [-a, -b]]
            stroke(first, rot)
            stroke([[a, -b], [-a, b]], rot)
    elif mark == "o":
        rx = rng.uniform(0.18, 0.42)
        ry = rx * rng.uniform(0.8, 1.2)
        t0 = rng.uniform(0, 2 * math.pi)
        span = 2 * math.pi * rng.uniform(0.72, 1.35)  # stops short or runs past its start
        t = np.linspace(t0, t0 + span, 48)
        shrink = np.linspace(1.0, rng.uniform(0.85, 1.1), len(t))
        stroke(np.stack([rx * shrink * np.cos(t), ry * shrink * np.sin(t)], 1), rng.uniform(0, 3))
    elif mark == "slash":
        h = rng.uniform(0.22, 0.5)
        sign = 1 if rng.random() < 0.5 else -1
        tilt = rng.uniform(0.75, 1.3)
        stroke([[-h * sign, h * tilt], [h * sign, -h * tilt]])
    elif mark == "plus":
        left, right, up, down = rng.uniform(0.15, 0.45, 4)
        rot = rng.uniform(-0.14, 0.14)
        off = rng.normal(0, 0.05, 2)
        stroke([[-left, off[1]], [right, off[1]]], rot)
        stroke([[off[0], -up], [off[0], down]], rot)
    elif mark == "triangle":
        h = rng.uniform(0.22, 0.42)
        tri = np.array([[0, -h], [h * 0.95, h * 0.7], [-h * 0.95, h * 0.7]]) * rng.uniform(
            0.85, 1.15, 2
        )
        tri = _chaikin(tri + rng.normal(0, 0.025, tri.shape), 2, True, rng.uniform(0.06, 0.15))
        start = int(rng.integers(len(tri)))
        path = np.roll(tri, -start, axis=0)
        path = np.vstack([path, path[: int(rng.integers(0, 3))]])  # may close past the start
        point = float(rng.choice([0, 0.5, 1, 1.5])) * math.pi  # points up, right, down, left
        stroke(path, point + rng.uniform(-0.12, 0.12))
    else:
        raise ValueError(mark)


def shade(sheet: _Sheet, top_left: np.ndarray, tool: Tool, rng, kind: str | None = None) -> str:
    """Fill one cell; returns the kind used: ``crosshatch``, ``zigzag``, ``loops`` or
    ``solid``. The region may spill a little past one edge into the next cell."""
    kinds = ["crosshatch", "zigzag", "loops"] + ([] if tool.is_pen else ["solid"])
    kind = kind or str(rng.choice(kinds))
    inset = rng.uniform(0.02, 0.12, 4)
    if rng.random() < 0.3:  # a hurried hand runs over one edge
        inset[int(rng.integers(4))] = -rng.uniform(0.05, 0.2)
    x0, y0 = top_left + inset[:2]
    x1, y1 = top_left + 1 - inset[2:]
    level = 1.0 if tool.is_pen else rng.uniform(0.3, 0.6)
    width = tool.width_mm if tool.is_pen else tool.width_mm * 1.2
    if kind == "solid":
        mask = np.zeros_like(sheet.density)
        poly = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) + rng.normal(0, 0.03, (4, 2))
        cv2.fillConvexPoly(mask, np.round(sheet.px(poly) * 8).astype(np.int32), 1.0, cv2.LINE_AA, 3)
        mask = cv2.GaussianBlur(mask, (0, 0), 0.03 * sheet.cell_px)
        sheet.add(mask * tool.darkness * rng.uniform(0.45, 0.65))
        return kind
    if kind == "zigzag":  # back and forth across the cell in one stroke
        along_x = rng.random() < 0.5
        step = rng.uniform(0.07, 0.14) if not tool.is_pen else rng.uniform(0.12, 0.2)
        u = np.arange(0, 1 + 1e-9, step)
        v = np.where(np.arange(len(u)) % 2 == 0, 0.0, 1.0) + rng.normal(0, 0.04, len(u))
        if not along_x:
            u, v = v, u
        pu, pv = x0 + u * (x1 - x0), y0 + v * (y1 - y0)
        sheet.draw(np.stack([pu, pv], 1), tool, rng, level=level, width_mm=width)
        return kind
    if kind == "loops":  # a circular scribble wandering over the cell
        n = int(rng.integers(5, 9))
        r = rng.uniform(0.1, 0.18)
        t = np.linspace(0, 2 * math.pi * n, 40 * n)
        drift = np.linspace(0, 1, len(t))
        cx = (
            x0
            + r
            + (x1 - x0 - 2 * r) * (0.5 + 0.5 * np.sin(2 * math.pi * drift * rng.uniform(1, 2)))
        )
        cy = y0 + r + (y1 - y0 - 2 * r) * drift
        path = np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1)
        sheet.draw(path, tool, rng, level=level, width_mm=width)
        return kind
    # cross-hatching: two families of strokes, clipped where the hand stops at the lines
    layer = _Sheet(sheet.density.shape, sheet.cell_px, sheet.origin, sheet.px_per_mm)
    ang = rng.uniform(0, math.pi)
    spacing = rng.uniform(0.1, 0.17) if not tool.is_pen else rng.uniform(0.18, 0.28)
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    for a in (ang, ang + rng.uniform(1.2, 1.9)):
        d, nrm = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        for k in np.arange(-0.75, 0.75, spacing):
            p = centre + nrm * k
            layer.draw(np.array([p - 0.8 * d, p + 0.8 * d]), tool, rng, level=level, width_mm=width)
    mask = np.zeros_like(sheet.density)
    poly = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    cv2.fillConvexPoly(mask, np.round(sheet.px(poly) * 8).astype(np.int32), 1.0, cv2.LINE_AA, 3)
    sheet.add(layer.density * mask)
    return kind


# ----------------------------------------------------------------------------- card


def _grain(rng: np.random.Generator, shape, px_per_mm: float) -> np.ndarray:
    """Where soft graphite sticks: the card's raised fibres (about 0.1 mm), the same
    fibres under every stroke, so overlapping strokes share their gaps."""
    g = rng.normal(0, 1, shape).astype(np.float32)
    g = cv2.GaussianBlur(g, (0, 0), 0.05 * px_per_mm)
    g /= g.std() + 1e-6
    return np.clip(0.8 + 0.22 * g, 0.3, 1.0)


def _add_to_twins(nomark, sheets, cls: int, own, box) -> None:
    """Lay one cell's players' sheets on each mark twin (``nomark[k][who]``, whole-card
    layers) at ``box`` (y0, y1, x0, x1): twin ``cls``, the one of this cell's class, gets
    the marking player's sheet as it was before its mark (``own``: who and that density;
    None when the cell has no mark)."""
    y0, y1, x0, x1 = box
    for k, twin in enumerate(nomark):
        for who, layer in enumerate(twin):
            drawn = sheets[who].density
            if k == cls and own is not None and own[0] == who:
                drawn = own[1]
            sub = layer[y0:y1, x0:x1]
            sub[:] = 1 - (1 - sub) * (1 - drawn)


def _inked(face: np.ndarray, layers) -> np.ndarray:
    """``face`` (float RGB 0..1) under each ``(coverage, rgb)`` layer in turn, as uint8:
    inks filter the light, so each multiplies."""
    for cov, rgb in layers:
        face *= 1 - cov[..., None] * (1 - np.asarray(rgb, np.float32))
    return np.clip(face * 255, 0, 255).astype(np.uint8)


def render_styled_card(
    rng: np.random.Generator,
    style: str = "alt",
    *,
    px_per_mm: float = 16,
    contents: list[dict] | None = None,
    glare: bool | None = None,
    unshaded: bool = False,
    unmarked: bool = False,
) -> CardTexture:
    """Print a board of :func:`random_design` and mark a game on it with other tools.

    ``contents`` as in :func:`piecebridge.synth.card.render_card` (the game's look is
    the same; only the hand and the print differ). Pens cannot erase: their
    ``{"erased": True}`` cells stay blank. ``unshaded`` also gives the face without the
    shader's layer (``unshaded_rgb``), as ``render_card`` does; ``unmarked`` its four
    twins each without the marks of one class of cells (``unmarked_rgb``,
    :func:`~piecebridge.synth.card.mark_twin`), the fills and everything else as they
    are. The twins take no random draws: the card is the same either way.
    """
    if style not in STYLES:
        raise ValueError(f"unknown card style {style!r}; known: {sorted(STYLES)}")
    layout, design = random_design(rng)
    contents = contents if contents is not None else random_contents(rng, 2)
    ink = print_board(layout, design, px_per_mm)
    h, w = ink["lines"].shape
    cell_px = layout.cell_mm * px_per_mm
    players = [Tool.random(rng), Tool.random(rng)]
    shader = players[1] if rng.random() < 0.25 else Tool.random(rng, "soft")
    tools = [*players, shader]
    density = [np.zeros((h, w), np.float32) for _ in tools]
    # the mark twins: each holds the players' layers without the marks of one cell class
    nomark = [[np.zeros((h, w), np.float32) for _ in players] for _ in range(4)]
    nomark = nomark if unmarked else None
    truth_grids, shading_used = [], []
    for g, cells in enumerate(contents):
        gx, gy = layout.grid_origins[g]
        truth: dict[str, dict] = {}
        for name, spec in sorted(cells.items()):
            col, row = COLUMNS.index(name[0]), int(name[1:]) - 1
            x0 = max(0, int(gx * px_per_mm + (col - 1) * cell_px))
            y0 = max(0, int(gy * px_per_mm + (row - 1) * cell_px))
            x1 = min(w, int(gx * px_per_mm + (col + 2) * cell_px) + 1)
            y1 = min(h, int(gy * px_per_mm + (row + 2) * cell_px) + 1)
            origin = np.array([gx, gy]) * px_per_mm - [x0, y0]
            sheets = [_Sheet((y1 - y0, x1 - x0), cell_px, origin, px_per_mm) for _ in tools]
            tl = np.array([col, row], float)
            before_mark = None  # (who, the mark's sheet before it): for the mark twins
            if spec.get("erased"):
                who = int(rng.integers(0, 2))
                if not players[who].is_pen:  # a rubbed-out pencil mark: a faint ghost
                    ghost = _Sheet(sheets[who].density.shape, cell_px, origin, px_per_mm)
                    draw_mark(
                        ghost, str(rng.choice(["x", "o", "plus"])), tl + 0.5, players[who], rng
                    )
                    blur = cv2.GaussianBlur(ghost.density, (0, 0), cell_px * 0.06)
                    sheets[who].add(blur * rng.uniform(0.06, 0.15))
            else:
                if spec.get("shaded"):
                    shading_used.append(shade(sheets[2], tl, shader, rng))
                if spec.get("mark"):
                    who = int(rng.integers(0, 2))
                    before_mark = (who, sheets[who].density.copy())
                    draw_mark(sheets[who], spec["mark"], tl + 0.5, players[who], rng)
                truth[name] = {"mark": spec.get("mark"), "shaded": bool(spec.get("shaded"))}
            for d, sh in zip(density, sheets, strict=True):
                sub = d[y0:y1, x0:x1]
                sub[:] = 1 - (1 - sub) * (1 - sh.density)
            if nomark is not None:
                _add_to_twins(nomark, sheets, mark_twin(row, col), before_mark, (y0, y1, x0, x1))
        truth_grids.append({"cells": truth})
    m = layout.transform().copy()
    m[:, 2] *= px_per_mm  # the marks sit on the print, so they turn with it
    density = [cv2.warpAffine(d, m, (w, h), flags=cv2.INTER_LINEAR) for d in density]
    if nomark is not None:
        nomark = [[cv2.warpAffine(d, m, (w, h), flags=cv2.INTER_LINEAR) for d in t] for t in nomark]
    grain = _grain(rng, (h, w), px_per_mm)
    graphite = np.zeros((h, w), np.float32)
    for k, t in enumerate(tools):
        if not t.is_pen:
            density[k] *= grain
            graphite = 1 - (1 - graphite) * (1 - density[k])
            for twin in nomark if nomark is not None and k < len(players) else []:
                twin[k] *= grain
    if glare is None:
        glare = rng.random() < 0.3
    if glare and graphite.any():  # graphite turns pale under a lamp's reflection; ink does not
        cy, cx = rng.uniform(0, h), rng.uniform(0, w)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        lobe = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * (rng.uniform(0.1, 0.3) * w) ** 2))
        fade = 1 - rng.uniform(0.2, 0.5) * lobe
        for k, t in enumerate(tools):
            if not t.is_pen:
                density[k] *= fade
                for twin in nomark if nomark is not None and k < len(players) else []:
                    twin[k] *= fade
    fibre = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 2.0)
    face = np.empty((h, w, 3), np.float32)
    face[:] = np.asarray(design.paper_rgb, np.float32)
    face *= (1 + 0.015 * fibre)[..., None]
    layers = [(ink["tint"], design.header_tint or (1, 1, 1)), (ink["lines"], design.line_rgb)]
    layers += [(ink["labels"], design.label_rgb)]
    layers += [(d, t.rgb) for d, t in zip(density, tools, strict=True)]
    twins = {}
    if nomark is not None:  # the same paper and print under each twin's pencil and ink
        pens = [t.rgb for t in tools]
        twins["unmarked_rgb"] = tuple(
            _inked(face.copy(), layers[:3] + list(zip([*t, density[2]], pens, strict=True)))
            for t in nomark
        )
    for k, (cov, rgb) in enumerate(layers):  # inks filter the light: each multiplies
        if (unshaded or unmarked) and k == 3:  # the print done, no pencil yet
            twins["paper_rgb"] = np.clip(face * 255, 0, 255).astype(np.uint8)
        if unshaded and k == len(layers) - 1:  # the shader's layer (tools[2]) is the last
            twins["unshaded_rgb"] = np.clip(face * 255, 0, 255).astype(np.uint8)
        face *= 1 - cov[..., None] * (1 - np.asarray(rgb, np.float32))
    rgb_u8 = np.clip(face * 255, 0, 255).astype(np.uint8)
    alpha = np.full((h, w), 255, np.uint8)
    if design.corner_mm:
        r = round(design.corner_mm * px_per_mm)
        alpha[:] = 0
        cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
        cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
        for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
            cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    style_info = {
        "name": style,
        "tools": [t.kind for t in tools],
        "design": {k: v for k, v in asdict(design).items() if k != "font"},
        "shading": sorted(set(shading_used)),
    }
    truth = {"format": "card/1", "grids": truth_grids, "style": style_info}
    return CardTexture(rgb_u8, alpha, px_per_mm, layout, truth, graphite, **twins)


def pen_shaded(truth: dict) -> bool:
    """Whether the card of this truth was shaded with a pen (``tools[2]``). A pen fill is
    full ink (:func:`shade`), its strokes as dark and as narrow as a mark's: a mark drawn
    on it darkens nothing where the fill's ink is and looks like more fill elsewhere, so
    its ``mark_seen`` is read against the fill's texture, not the paper's noise. A
    pencil fill is a translucent grey the mark darkens further, read as the classic
    style's marks on shading are, against the paper's noise.

    >>> pen_shaded({"style": {"tools": ["soft", "gel", "gel"]}})
    True
    """
    return is_pen_kind(truth["style"]["tools"][2])


def split_photo(
    split: str,
    index: int,
    image_size=(2000, 1500),
    style: str = "alt",
    seen: bool = False,
    marks_seen: bool = False,
):
    """Photo ``index`` of a split in ``style``: ``(bgr_image, truth)``, determined by
    ``(split, index, image_size, style)``; never the random stream of a ``classic`` photo.
    ``seen`` adds each shaded cell's ``shading_seen`` to the truth, ``marks_seen`` each
    mark's ``mark_seen``, as :func:`piecebridge.synth.card.split_photo` does; on a
    pen-shaded card (:func:`pen_shaded`) over the noise of the ground under the mark
    (``marks_on_ground``: the paper's on bare paper, the fill's own texture on a pen fill).
    The photo is the same either way.

    >>> img, truth = split_photo("tune", 0, (640, 480))
    >>> img.shape, truth["style"]["name"]
    ((480, 640, 3), 'alt')
    """
    if style not in STYLES or split not in SPLITS:
        raise ValueError(f"no card photo of style {style!r} in split {split!r}")
    rng = np.random.default_rng([SPLITS[split], index, STYLES[style]])
    card = render_styled_card(rng, style, unshaded=seen, unmarked=marks_seen)
    photo, truth = photograph_card(
        rng,
        image_size=image_size,
        card=card,
        seen=seen,
        marks_seen=marks_seen,
        marks_on_ground=pen_shaded(card.truth),
    )
    return photo.image, truth
