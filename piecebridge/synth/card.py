"""Business cards with pencil marks, drawn the way a hand draws them.

:func:`render_card` prints a business-card board (3.5 x 2 in, two 10x10 grids,
labels A–J and 1–10; the print slightly off-square with the card) and pencils a
game onto it: strokes of varying pressure and width, X and O of different sizes,
off-centre and crossing the cell lines, dots, slashes, plus signs, triangles,
hatched or smudged shading with marks on top, and erased marks that leave only a
faint smudge. Every x and plus stays what its label says: each of its strokes,
as drawn, lies within 15 degrees of its own class's directions, twice as near as
the other's (:data:`MAX_LEAN_DEG`). :func:`curl_card` bends it slightly and
:func:`photograph_card` hands it to the generic camera of
:mod:`piecebridge.synth.photo`.

The ground truth is a ``card/1`` object (``shared/spec/formats.md``). Photographed with
``seen=True`` (:func:`split_photo`, :func:`photograph_card`), each truth grid also holds
``"shading_seen"``: ``{cell: value}`` for its shaded cells, how much of the shading the
final photo shows (:func:`shading_seen`; under :data:`SEEN_VISIBLE` it is not in the
pixels). With ``marks_seen=True`` each grid also holds ``"mark_seen"``: ``{cell: value}``
for its cells with a mark, how much of the mark the photo shows (:func:`mark_seen`; under
:data:`MARK_VISIBLE` it is faint, not gone). Keys beside ``"cells"``: a ``card/1``
reader that does not know them ignores them.

>>> import numpy as np
>>> card = render_card(np.random.default_rng(1), px_per_mm=6)
>>> card.rgb.shape[:2] == card.alpha.shape
True
>>> card.truth["format"], len(card.truth["grids"])
('card/1', 2)
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from piecebridge.vision.card_layout import CardLayout, cell_name, draw_board

MARKS = ("dot", "x", "o", "slash", "plus", "triangle")
#: Raised whenever the same seed draws a different card, so that photos rendered and
#: cached by an older renderer are never mistaken for this one's (2: x and plus bounded
#: to :data:`MAX_LEAN_DEG`).
RENDER_VERSION = 2


@dataclass
class CardTexture:
    """A flat (or curled) card as seen from straight above, with its ground truth.

    ``rgb`` is the card face (uint8, HxWx3, RGB), ``alpha`` its silhouette (uint8),
    ``px_per_mm`` the scale, ``truth`` the ``card/1`` object and ``graphite`` the
    pencil density (0..1) used for glare.
    """

    rgb: np.ndarray
    alpha: np.ndarray
    px_per_mm: float
    layout: CardLayout
    truth: dict
    graphite: np.ndarray
    curl: Curl | None = None  # how the texture was bent (:func:`curl_card`), if it was
    #: the same face with every cell's shading left out (marks, print, paper, glare and
    #: curl as they are), when asked for (``render_card(..., unshaded=True)``): the twin
    #: whose photo tells how much of the shading survives (:func:`shading_seen`)
    unshaded_rgb: np.ndarray | None = None
    #: and with no pencil at all (print and paper only): where the paper's own noise is read
    #: (drawn with either kind of twin)
    paper_rgb: np.ndarray | None = None
    #: the same face four times, each without the marks of one class of cells
    #: (:func:`mark_twin`: no two cells of a class touch, not even at a corner), when asked
    #: for (``render_card(..., unmarked=True)``): the twins whose photos tell how much of
    #: each mark survives (:func:`mark_seen`)
    unmarked_rgb: tuple[np.ndarray, ...] | None = None


@dataclass(frozen=True)
class Pencil:
    """One player's pencil and hand: hardness (darkness), line width, steadiness."""

    darkness: float = 0.8  # graphite density at full pressure
    width_mm: float = 0.45
    wobble: float = 0.04  # hand tremor, in cells
    pressure: float = 0.85

    @classmethod
    def random(cls, rng: np.random.Generator) -> Pencil:
        return cls(
            darkness=rng.uniform(0.55, 0.95),
            width_mm=rng.uniform(0.25, 0.7),
            wobble=rng.uniform(0.005, 0.03),
            pressure=rng.uniform(0.65, 1.0),
        )


# ----------------------------------------------------------------------------- strokes


def _smooth_path(ctrl: np.ndarray, n: int) -> np.ndarray:
    """Sample ``n`` points along the polyline through ``ctrl`` (by arc length)."""
    seg = np.linalg.norm(np.diff(ctrl, axis=0), axis=1)
    s = np.concatenate([[0], np.cumsum(seg)])
    t = np.linspace(0, s[-1], n)
    return np.stack([np.interp(t, s, ctrl[:, 0]), np.interp(t, s, ctrl[:, 1])], axis=1)


def _wobble(path: np.ndarray, amp: float, rng: np.random.Generator) -> np.ndarray:
    """Low-frequency tremor: a hand never draws a straight line."""
    n = len(path)
    t = np.linspace(0, 1, n)
    out = path.copy()
    for axis in range(2):
        f = rng.uniform(0.3, 1.2)
        out[:, axis] += amp * np.sin(2 * math.pi * f * t + rng.uniform(0, 6.3))
    return out


def _hand(rng: np.random.Generator) -> tuple[float, float, float]:
    """How one stroke is pressed: ramp length (in and out), pressure wave frequency, phase."""
    ramp_len = rng.uniform(0.05, 0.25)
    return ramp_len, rng.uniform(0.5, 2), rng.uniform(0, 6)


class _Canvas:
    """Graphite density (0..1) in a patch; strokes are drawn in cell units."""

    def __init__(self, shape: tuple[int, int], cell_px: float, origin_px: np.ndarray):
        self.density = np.zeros(shape, np.float32)
        self.cell_px = cell_px
        self.origin = origin_px  # pixel position of cell-unit (0, 0)

    def stroke(self, pts_cells: np.ndarray, pencil: Pencil, rng, pressure=None, width=None):
        """Draw a stroke through ``pts_cells``; pressure ramps in and out like a real one."""
        self.stroke_with(pts_cells, pencil, _hand(rng), pressure, width)

    def stroke_with(self, pts_cells, pencil: Pencil, hand: tuple, pressure=None, width=None):
        """:meth:`stroke` with the hand's pressure ramp and wave already drawn (:func:`_hand`)."""
        pts = pts_cells * self.cell_px + self.origin
        n = len(pts)
        base = pencil.pressure if pressure is None else pressure
        t = np.linspace(0, 1, n)
        ramp_len, wave_f, wave_phase = hand
        ramp = np.clip(np.minimum(t, 1 - t) / ramp_len, 0.35, 1.0)
        wav = 1 + 0.15 * np.sin(2 * math.pi * wave_f * t + wave_phase)
        press = np.clip(base * ramp * wav, 0, 1)
        wmm = pencil.width_mm if width is None else width
        px_per_mm = self.cell_px / 3.5
        layer = np.zeros_like(self.density)
        shift = 3
        for i in range(n - 1):
            w = max(1, round(wmm * px_per_mm * (0.6 + 0.5 * press[i])))
            a = tuple(np.round(pts[i] * (1 << shift)).astype(int))
            b = tuple(np.round(pts[i + 1] * (1 << shift)).astype(int))
            cv2.line(layer, a, b, float(press[i] * pencil.darkness), w, cv2.LINE_AA, shift)
        self.add(layer)

    def add(self, layer: np.ndarray) -> None:
        # Graphite layers combine like transparencies: never darker than full density.
        np.multiply(1 - self.density, 1 - np.clip(layer, 0, 1), out=self.density)
        np.subtract(1, self.density, out=self.density)


#: An x or a plus must read as what its label says: every stroke, as drawn (the hand's
#: tremor included), lies at least twice as near one of its own class's directions as
#: the other class's (horizontal/vertical for a plus, the diagonals for an x; the two are
#: 45 degrees apart, so within 15 degrees of its own against 30 of the other's).
MAX_LEAN_DEG = 15.0
#: the directions (degrees, modulo 90) the strokes of each four-armed mark follow
CROSS_DIRECTION = {"plus": 0.0, "x": 45.0}


def stroke_angle(path: np.ndarray) -> float:
    """Direction of a stroke (degrees, 0..180, y down): the principal axis of its points.

    >>> round(stroke_angle(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])), 6)
    45.0
    """
    d = path - path.mean(0)
    cov = d.T @ d
    return math.degrees(0.5 * math.atan2(2 * cov[0, 1], cov[0, 0] - cov[1, 1])) % 180


def lean_deg(angle: float, mark: str) -> float:
    """Signed angle (-45..45) from a stroke direction to the nearest direction of ``mark``'s
    class (:data:`CROSS_DIRECTION`): 0 is a perfect plus arm (or x arm), +-22.5 is halfway.

    >>> lean_deg(100.0, "plus"), lean_deg(100.0, "x")
    (10.0, -35.0)
    """
    return (angle - CROSS_DIRECTION[mark] + 45) % 90 - 45


def _draw_cross(canvas, mark: str, strokes: list, centre: np.ndarray, pencil: Pencil) -> None:
    """Draw the two strokes of an x or a plus (``(path, hand)`` each), first turned back
    about ``centre`` by the least angle that keeps every stroke within
    :data:`MAX_LEAN_DEG` of its class's directions: a plus turned towards 45 degrees
    would be an x to anyone reading the card, and its label would be wrong. The
    random draws are the same either way; only marks that leaned too far change.
    """
    leans = [lean_deg(stroke_angle(path), mark) for path, _ in strokes]
    # the turn t with every |lean + t| <= bound, nearest to 0 (feasible: the strokes of
    # one mark differ by far less than twice the bound)
    turn = min(max(0.0, -MAX_LEAN_DEG - min(leans)), MAX_LEAN_DEG - max(leans))
    r = math.radians(turn)
    rm = np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]])
    for path, hand in strokes:
        if turn:  # (a mark within the bound is drawn bit for bit as before)
            path = (path - centre) @ rm.T + centre
        canvas.stroke_with(path, pencil, hand)


def _draw_mark(canvas: _Canvas, mark: str, centre: np.ndarray, pencil: Pencil, rng) -> None:
    """Draw one mark centred near ``centre`` (cell units), off-centre and of random size."""
    c = centre + rng.normal(0, 0.07, 2)
    rot = rng.normal(0, 0.15)
    rm = np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])

    def seg(p, q, k=14):
        path = _smooth_path(np.array([p, q]) @ rm.T + c, k)
        return _wobble(path, pencil.wobble, rng)

    def pen(p, q):  # a stroke's path and its hand, drawn in the order stroke() draws them
        path = seg(p, q)
        return path, _hand(rng)

    if mark == "dot":
        r = rng.uniform(0.05, 0.14)
        turns = rng.integers(1, 4)
        t = np.linspace(0, 2 * math.pi * turns, 12 * turns)
        rr = r * np.linspace(0.3, 1, len(t))
        path = c + np.stack([rr * np.cos(t), rr * np.sin(t)], axis=1)
        canvas.stroke(
            path, pencil, rng, pressure=min(1, pencil.pressure * 1.1), width=pencil.width_mm * 1.3
        )
    elif mark == "x":
        h = rng.uniform(0.22, 0.55)
        hx = h * rng.uniform(0.8, 1.2)
        strokes = [pen((-hx, -h), (hx, h)), pen((hx, -h), (-hx, h))]
        _draw_cross(canvas, mark, strokes, c, pencil)
    elif mark == "slash":
        h = rng.uniform(0.25, 0.55)
        sign = 1 if rng.random() < 0.8 else -1
        canvas.stroke(seg((-h * sign, h), (h * sign, -h)), pencil, rng)
    elif mark == "plus":
        h = rng.uniform(0.22, 0.5)
        _draw_cross(canvas, mark, [pen((-h, 0), (h, 0)), pen((0, -h), (0, h))], c, pencil)
    elif mark == "o":
        rx = rng.uniform(0.18, 0.45)
        ry = rx * rng.uniform(0.75, 1.25)
        t0 = rng.uniform(0, 2 * math.pi)
        span = 2 * math.pi * rng.uniform(0.93, 1.15)
        t = np.linspace(t0, t0 + span, 40)
        path = np.stack([rx * np.cos(t), ry * np.sin(t)], axis=1) @ rm.T + c
        canvas.stroke(_wobble(path, pencil.wobble * 0.7, rng), pencil, rng)
    elif mark == "triangle":
        h = rng.uniform(0.25, 0.5)
        pts = np.array([(0, -h), (h * 0.95, h * 0.75), (-h * 0.95, h * 0.75), (0.03, -h * 1.05)])
        pts = pts + rng.normal(0, 0.03, pts.shape)
        path = _wobble(_smooth_path(pts @ rm.T + c, 36), pencil.wobble * 0.7, rng)
        canvas.stroke(path, pencil, rng)
    else:
        raise ValueError(mark)


def _shade(canvas: _Canvas, top_left: np.ndarray, pencil: Pencil, rng) -> None:
    """Fill one cell with pencil: hatching or a smudge, a little over or short of the lines."""
    level = rng.uniform(0.22, 0.5) * pencil.darkness / 0.8
    inset = rng.uniform(-0.08, 0.12, 4)  # left, top, right, bottom
    x0, y0 = top_left + inset[:2]
    x1, y1 = top_left + 1 - inset[2:]
    if rng.random() < 0.5:  # hatching
        ang = rng.uniform(0, math.pi)
        d = np.array([math.cos(ang), math.sin(ang)])
        nrm = np.array([-d[1], d[0]])
        spacing = rng.uniform(0.06, 0.13)
        centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        layer_canvas = _Canvas(canvas.density.shape, canvas.cell_px, canvas.origin)
        for k in np.arange(-0.8, 0.8, spacing):
            p = centre + nrm * k
            path = _wobble(_smooth_path(np.array([p - d, p + d]), 10), 0.015, rng)
            layer_canvas.stroke(path, pencil, rng, pressure=level, width=pencil.width_mm * 1.2)
        mask = np.zeros_like(canvas.density)
        poly = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) * canvas.cell_px + canvas.origin
        cv2.fillConvexPoly(mask, np.round(poly * 8).astype(np.int32), 1.0, cv2.LINE_AA, 3)
        canvas.add(layer_canvas.density * mask)
    else:  # smudged: rubbed with a finger, soft and uneven
        mask = np.zeros_like(canvas.density)
        poly = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) + rng.normal(0, 0.04, (4, 2))
        poly = poly * canvas.cell_px + canvas.origin
        cv2.fillConvexPoly(mask, np.round(poly * 8).astype(np.int32), 1.0, cv2.LINE_AA, 3)
        sigma = canvas.cell_px * rng.uniform(0.02, 0.08)
        mask = cv2.GaussianBlur(mask, (0, 0), sigma)
        noise = cv2.resize(
            rng.uniform(0.7, 1.2, (4, 4)).astype(np.float32),
            mask.shape[::-1],
            interpolation=cv2.INTER_CUBIC,
        )
        canvas.add(mask * level * noise)


def _erased(canvas: _Canvas, centre: np.ndarray, pencil: Pencil, rng) -> None:
    """A mark rubbed out: a faint, blurred ghost of it remains."""
    ghost = _Canvas(canvas.density.shape, canvas.cell_px, canvas.origin)
    _draw_mark(ghost, str(rng.choice(MARKS[1:])), centre, pencil, rng)
    sigma = canvas.cell_px * rng.uniform(0.03, 0.1)
    canvas.add(cv2.GaussianBlur(ghost.density, (0, 0), sigma) * rng.uniform(0.06, 0.16))


# ----------------------------------------------------------------------------- contents


def random_contents(rng: np.random.Generator, n_grids: int = 2) -> list[dict]:
    """Per-grid cell contents as drawn: ``{"F3": {"mark": "x", "shaded": True}}``.

    Each grid gets the game's look: two player symbols most of the time, node dots,
    diamond-shaped shaded territories, some other symbols, some erasures
    (``{"erased": True}``, which reads as blank).
    """
    grids = []
    for _ in range(n_grids):
        cells: dict[str, dict] = {}
        symbols = list(rng.choice(["x", "o", "slash", "plus", "triangle"], 2, replace=False))
        shaded = np.zeros((10, 10), bool)
        for _ in range(rng.integers(0, 4)):  # node territories: diamonds of radius 2
            r0, c0 = rng.integers(0, 10, 2)
            for r in range(10):
                for c in range(10):
                    if abs(r - r0) + abs(c - c0) <= 2 and rng.random() < 0.85:
                        shaded[r, c] = True
        shaded |= rng.random((10, 10)) < 0.06
        fill = rng.uniform(0.25, 0.7)
        for r in range(10):
            for c in range(10):
                u = rng.random()
                mark = None
                if u < fill:
                    v = rng.random()
                    if v < 0.55:
                        mark = symbols[int(rng.integers(0, 2))]
                    elif v < 0.7:
                        mark = "dot"
                    else:
                        mark = str(rng.choice(MARKS))
                if mark or shaded[r, c]:
                    cells[cell_name(r, c)] = {"mark": mark, "shaded": bool(shaded[r, c])}
                elif rng.random() < 0.04:
                    cells[cell_name(r, c)] = {"erased": True}
        grids.append(cells)
    return grids


def random_layout(rng: np.random.Generator) -> CardLayout:
    """A plausible print of the board: a little off-square, offset, other line weights."""
    base = CardLayout()
    fonts = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_PLAIN]
    cell = rng.uniform(3.3, 3.6)
    dy = rng.uniform(-0.5, 0.5)
    return replace(
        base,
        cell_mm=cell,
        grid_origins=((6.0, 9.0 + dy), (47.5 + (3.5 - cell) * 10 * 0.5, 9.0 + dy)),
        angle_deg=float(rng.normal(0, 0.8)),
        offset_mm=(float(rng.normal(0, 0.4)), float(rng.normal(0, 0.4))),
        line_mm=rng.uniform(0.1, 0.3),
        frame_mm=rng.uniform(0.15, 0.45),
        label_height_mm=rng.uniform(1.5, 2.2),
        label_gap_mm=rng.uniform(0.4, 0.9),
        font=int(rng.choice(fonts)),
        ink=int(rng.integers(10, 70)),
    )


# ----------------------------------------------------------------------------- card


def render_card(
    rng: np.random.Generator,
    *,
    px_per_mm: float = 16,
    layout: CardLayout | None = None,
    contents: list[dict] | None = None,
    glare: bool | None = None,
    unshaded: bool = False,
    unmarked: bool = False,
) -> CardTexture:
    """Print a board and pencil a game onto it; returns the flat card and its truth.

    ``contents`` defaults to :func:`random_contents`; ``layout`` to
    :func:`random_layout`. Cells listed as ``{"erased": True}`` get a ghost mark
    and are blank in the truth. ``unshaded`` also draws the card's twin without its
    shading (``unshaded_rgb``); the card itself and the random draws stay the same.
    ``unmarked`` also draws its four twins without the marks of one cell class each
    (``unmarked_rgb``, :func:`mark_twin`), the rest as it is (shading, ghosts, glare).
    """
    layout = layout or random_layout(rng)
    contents = contents if contents is not None else random_contents(rng, len(layout.grid_origins))
    printed = draw_board(layout, px_per_mm).astype(np.float32) / 255
    h, w = printed.shape
    cell_px = layout.cell_mm * px_per_mm
    density = np.zeros((h, w), np.float32)
    bare = np.zeros((h, w), np.float32) if unshaded else None  # the twin: no shading
    # the mark twins: each without the marks of one class of cells (:func:`mark_twin`)
    nomark = [np.zeros((h, w), np.float32) for _ in range(4)] if unmarked else None
    pencils = [Pencil.random(rng), Pencil.random(rng)]
    truth_grids = []
    for g, cells in enumerate(contents):
        gx, gy = layout.grid_origins[g]
        truth: dict[str, dict] = {}
        # Draw in print coordinates, then turn with the print's tilt.
        for name, spec in sorted(cells.items()):
            col = "ABCDEFGHIJ".index(name[0])
            row = int(name[1:]) - 1
            # Each cell is drawn on a small patch (3x3 cells about it): marks may cross
            # the lines, and a full-card canvas per stroke would be needlessly slow.
            x0 = max(0, int((gx * px_per_mm) + (col - 1) * cell_px))
            y0 = max(0, int((gy * px_per_mm) + (row - 1) * cell_px))
            x1 = min(w, int((gx * px_per_mm) + (col + 2) * cell_px) + 1)
            y1 = min(h, int((gy * px_per_mm) + (row + 2) * cell_px) + 1)
            origin = np.array([gx, gy]) * px_per_mm - [x0, y0]
            canvas = _Canvas((y1 - y0, x1 - x0), cell_px, origin)
            tl = np.array([col, row], float)
            plain = canvas  # what the twin gets: the same unless the cell is shaded
            before_mark = None  # the cell as drawn up to its mark (for the mark twins)
            if spec.get("erased"):
                _erased(canvas, tl + 0.5, pencils[0], rng)
            else:
                if spec.get("shaded"):
                    _shade(canvas, tl, pencils[1], rng)
                    if bare is not None:
                        plain = _Canvas((y1 - y0, x1 - x0), cell_px, origin)
                if spec.get("mark"):
                    if nomark is not None:
                        before_mark = canvas.density.copy()
                    pencil = pencils[int(rng.integers(0, 2))]
                    if plain is not canvas:  # the same mark, from the same random draws
                        _draw_mark(plain, spec["mark"], tl + 0.5, pencil, copy.deepcopy(rng))
                    _draw_mark(canvas, spec["mark"], tl + 0.5, pencil, rng)
                truth[name] = {"mark": spec.get("mark"), "shaded": bool(spec.get("shaded"))}
            sub = density[y0:y1, x0:x1]
            sub[:] = 1 - (1 - sub) * (1 - canvas.density)
            if bare is not None:
                sub = bare[y0:y1, x0:x1]
                sub[:] = 1 - (1 - sub) * (1 - plain.density)
            if nomark is not None:  # the twin of this cell's class: all but its mark
                for k, twin_density in enumerate(nomark):
                    own = (
                        before_mark
                        if k == mark_twin(row, col) and before_mark is not None
                        else None
                    )
                    sub = twin_density[y0:y1, x0:x1]
                    sub[:] = 1 - (1 - sub) * (1 - (canvas.density if own is None else own))
        truth_grids.append({"cells": truth})
    if layout.angle_deg or any(layout.offset_mm):
        m = cv2.getRotationMatrix2D((w / 2, h / 2), layout.angle_deg, 1.0)
        m[:, 2] += np.asarray(layout.offset_mm) * px_per_mm  # same tilt as the print
        density = cv2.warpAffine(density, m, (w, h), flags=cv2.INTER_LINEAR)
        if bare is not None:
            bare = cv2.warpAffine(bare, m, (w, h), flags=cv2.INTER_LINEAR)
        if nomark is not None:
            nomark = [cv2.warpAffine(d, m, (w, h), flags=cv2.INTER_LINEAR) for d in nomark]
    # Paper tooth: graphite catches on the raised fibres, so strokes look grainy.
    tooth = rng.uniform(0.55, 1.0, (h, w)).astype(np.float32)
    tooth = cv2.GaussianBlur(tooth, (0, 0), 0.6)
    density *= np.clip(tooth * 1.25, 0, 1)
    if bare is not None:
        bare *= np.clip(tooth * 1.25, 0, 1)
    if nomark is not None:
        for d in nomark:
            d *= np.clip(tooth * 1.25, 0, 1)
    paper = np.array([rng.uniform(235, 252), rng.uniform(232, 250), rng.uniform(225, 248)])
    fibre = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 2.0)
    base = printed[..., None] * (paper / 255) * (1 + 0.015 * fibre[..., None])
    graphite_tint = np.array([0.93, 0.95, 1.0])  # graphite is a cool dark grey
    if glare is None:
        glare = rng.random() < 0.35
    pale = None
    if glare:  # graphite is shiny: under a light's reflection it turns pale
        cy, cx = rng.uniform(0, h), rng.uniform(0, w)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        lobe = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * (rng.uniform(0.1, 0.3) * w) ** 2))
        pale = 1 - rng.uniform(0.2, 0.55) * lobe

    def face(graphite: np.ndarray) -> np.ndarray:
        seen = graphite.copy() if pale is None else graphite * pale
        return np.clip(base * (1 - seen[..., None] * graphite_tint) * 255, 0, 255).astype(np.uint8)

    alpha = np.full((h, w), 255, np.uint8)
    truth = {"format": "card/1", "grids": truth_grids}
    twin = None if bare is None else face(bare)
    paper = None if bare is None and nomark is None else face(np.zeros((h, w), np.float32))
    return CardTexture(
        rgb=face(density),
        alpha=alpha,
        px_per_mm=px_per_mm,
        layout=layout,
        truth=truth,
        graphite=density,
        unshaded_rgb=twin,
        paper_rgb=paper,
        unmarked_rgb=None if nomark is None else tuple(face(d) for d in nomark),
    )


@dataclass(frozen=True)
class Curl:
    """A card bent along one side, as seen from above: ``rise`` (px, per position along
    the bend) is the card's height over the table; a camera above and slightly to the side
    sees that height as a shift across the card (``tilt`` px per px of height) and
    foreshortening along it.

    An end of the card rises 50 px and is seen shifted 0.2 x 50 px across; the middle lies
    on the table:

    >>> curl = Curl(True, 50 * np.linspace(-1, 1, 101) ** 2, 0.2)
    >>> curl.bend(np.array([[0.0, 10.0], [50.0, 10.0]])).round(1).tolist()
    [[0.0, 20.0], [49.6, 10.0]]
    """

    along_x: bool
    rise: np.ndarray
    tilt: float

    @classmethod
    def draw(cls, shape: tuple[int, int], px_per_mm: float, amount_mm: float, rng) -> Curl:
        """A curl of a card texture of ``shape`` whose ends rise ``amount_mm``; which side
        bends and the tilt are drawn from ``rng`` (in that order)."""
        h, w = shape
        along_x = rng.random() < 0.6
        s = np.linspace(-1, 1, w if along_x else h)
        return cls(along_x, amount_mm * px_per_mm * s**2, rng.uniform(-0.35, 0.35))

    @property
    def slope(self) -> np.ndarray:
        return np.gradient(self.rise)

    def _source_along(self) -> np.ndarray:
        """For each position along the bent card, where it was on the flat card (the
        inverse of the arc length: the bend foreshortens the card)."""
        n = len(self.rise)
        arc = np.cumsum(np.sqrt(1 + self.slope**2))
        arc = (arc - arc[0]) / (arc[-1] - arc[0]) * (n - 1)
        return np.interp(np.arange(n), arc, np.arange(n))

    def maps(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps: each bent-card pixel's source on the flat card."""
        h, w = shape
        src_along = self._source_along().astype(np.float32)
        shift = self.tilt * self.rise
        if self.along_x:
            map_x = np.tile(src_along, (h, 1))
            map_y = np.tile(np.arange(h, dtype=np.float32)[:, None], (1, w)) - shift[None, :]
        else:
            map_y = np.tile(src_along[:, None], (1, w))
            map_x = np.tile(np.arange(w, dtype=np.float32), (h, 1)) - shift[:, None]
        return map_x.astype(np.float32), map_y.astype(np.float32)

    def bend(self, flat_px: np.ndarray) -> np.ndarray:
        """Where flat-card pixels (N, 2: x, y) lie on the bent card: the inverse of
        :meth:`maps`, for ground truth drawn on the flat card."""
        n = len(self.rise)
        a, b = (flat_px[:, 0], flat_px[:, 1]) if self.along_x else (flat_px[:, 1], flat_px[:, 0])
        out_a = np.interp(a, self._source_along(), np.arange(n))
        out_b = b + self.tilt * np.interp(out_a, np.arange(n), self.rise)
        return np.stack([out_a, out_b] if self.along_x else [out_b, out_a], axis=1)


def curl_card(card: CardTexture, rng: np.random.Generator, amount: float | None = None):
    """Bend the card slightly along its long side, as a card lying on a table does.

    Returns a new texture whose silhouette is no longer a rectangle (a cylinder
    seen from above: the middle sags, the ends foreshorten) with a soft shading
    gradient across the bend; its ``curl`` is the :class:`Curl` it was bent by.
    ``amount`` is the rise of the ends in mm.
    """
    amount = rng.uniform(0.0, 2.5) if amount is None else amount
    curl = Curl.draw(card.alpha.shape, card.px_per_mm, amount, rng)
    map_x, map_y = curl.maps(card.alpha.shape)
    rgb = cv2.remap(card.rgb, map_x, map_y, cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    alpha = cv2.remap(card.alpha, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
    graphite = cv2.remap(card.graphite, map_x, map_y, cv2.INTER_LINEAR, borderValue=0)
    slope = curl.slope
    light = 1 - 0.08 * rng.uniform(0, 1) * np.abs(slope) / (np.abs(slope).max() + 1e-6)
    light = light[None, :, None] if curl.along_x else light[:, None, None]
    rgb = np.clip(rgb * light, 0, 255).astype(np.uint8)
    twins = {}
    for name in ("unshaded_rgb", "paper_rgb"):
        twin = getattr(card, name)
        if twin is not None:  # bent and lit the same way
            twin = cv2.remap(twin, map_x, map_y, cv2.INTER_LINEAR, borderValue=(0, 0, 0))
            twins[name] = np.clip(twin * light, 0, 255).astype(np.uint8)
    if card.unmarked_rgb is not None:  # the mark twins too
        twins["unmarked_rgb"] = tuple(
            np.clip(
                cv2.remap(t, map_x, map_y, cv2.INTER_LINEAR, borderValue=(0, 0, 0)) * light, 0, 255
            ).astype(np.uint8)
            for t in card.unmarked_rgb
        )
    return replace(card, rgb=rgb, alpha=alpha, graphite=graphite, curl=curl, **twins)


# ----------------------------------------------------------------------------- photo


def _table_raster(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """A busy table top (BGR float 0..1): wood grain or cloth, with clutter on it."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    low = cv2.resize(rng.random((6, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    kind = rng.integers(0, 3)
    base = rng.uniform(0.15, 0.8, 3).astype(np.float32)
    if kind == 0:  # wood: warped stripes
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        grain = np.sin(u / rng.uniform(6, 25) + 8 * low) * 0.5 + 0.5
        tone = (
            (0.75 + 0.25 * grain)[..., None]
            * np.array([0.35, 0.55, 0.75], np.float32)
            * base.mean()
            * 1.6
        )
    elif kind == 1:  # checked cloth
        p = rng.uniform(40, 160)
        check = ((xx // p + yy // p) % 2).astype(np.float32)
        tone = base * (0.75 + 0.25 * check)[..., None]
    else:  # plain, mottled
        tone = base * (0.85 + 0.3 * low)[..., None]
    img = np.clip(tone, 0, 1).astype(np.float32)
    # Clutter: papers with printed lines, coloured things, coins, pens.
    for _ in range(rng.integers(3, 12)):
        c = (float(rng.uniform(0, w)), float(rng.uniform(0, h)))
        size = rng.uniform(0.05, 0.35) * min(h, w)
        col = tuple(float(v) for v in rng.uniform(0, 1, 3))
        shape_kind = rng.integers(0, 4)
        if shape_kind == 0:
            box = cv2.boxPoints((c, (size, size * rng.uniform(0.3, 1.5)), rng.uniform(0, 180)))
            cv2.fillConvexPoly(img, box.astype(np.int32), col, cv2.LINE_AA)
        elif shape_kind == 1:
            cv2.circle(img, (int(c[0]), int(c[1])), int(size / 4), col, -1, cv2.LINE_AA)
        elif shape_kind == 2:  # a sheet of paper with lines of print on it
            box = cv2.boxPoints((c, (size, size * 1.3), rng.uniform(0, 180)))
            cv2.fillConvexPoly(img, box.astype(np.int32), (0.9, 0.9, 0.9), cv2.LINE_AA)
            m = cv2.getRotationMatrix2D(c, rng.uniform(0, 180), 1.0)
            for k in range(int(size / 25)):
                y = c[1] - size / 2 + 25 * k
                p = np.array([[c[0] - size / 2.5, y, 1], [c[0] + size / 2.5, y, 1]]) @ m.T
                cv2.line(img, tuple(p[0].astype(int)), tuple(p[1].astype(int)), (0.2,) * 3, 3)
        else:
            p0 = np.array(c)
            d = rng.normal(0, 1, 2)
            p1 = p0 + d / np.linalg.norm(d) * size
            cv2.line(
                img, tuple(p0.astype(int)), tuple(p1.astype(int)), col, int(rng.integers(8, 30))
            )
    return img


def _compose_world(card: CardTexture, m_mm: np.ndarray, cam, rng, faces=None):
    """The table raster under the camera's whole view, with the card laid on it:
    ``(world, origin)``, or with ``faces`` (card faces, RGB) one world for each on the
    very same table: ``(worlds, origin)``."""
    ppm = card.px_per_mm
    x0, y0, x1, y1 = cam.footprint_mm(margin_px=8)
    ww, wh = int((x1 - x0) * ppm) + 2, int((y1 - y0) * ppm) + 2
    table = _table_raster(rng, (max(wh // 4, 8), max(ww // 4, 8)))
    world = cv2.resize((table * 255).astype(np.uint8), (ww, wh), interpolation=cv2.INTER_LINEAR)
    # Card texture -> world pixels: card px -> card-centred mm -> world px.
    ch, cw = card.alpha.shape
    m = m_mm.copy()
    m[:, :2] = m_mm[:, :2]  # rotation is scale-free; only the translation changes units
    m[:, 2] = (m_mm[:, 2] - [x0, y0]) * ppm
    corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], float) @ m[:, :2].T + m[:, 2]
    bx0, by0 = np.maximum(np.floor(corners.min(0)).astype(int) - 8, 0)
    bx1, by1 = np.minimum(np.ceil(corners.max(0)).astype(int) + 8, [ww, wh])
    m[:, 2] -= [bx0, by0]
    size = (int(bx1 - bx0), int(by1 - by0))
    alpha = cv2.warpAffine(card.alpha, m, size).astype(np.float32)[..., None] / 255
    table_region = world[by0:by1, bx0:bx1].astype(np.float32) / 255
    rim = cv2.GaussianBlur(alpha[..., 0], (0, 0), 0.4 * ppm)[..., None]
    table_region = table_region * (1 - 0.7 * np.clip(rim - alpha, 0, 1))  # the card's shadow
    worlds = []
    for rgb in [card.rgb] if faces is None else faces:
        out = world if faces is None else world.copy()
        face = cv2.warpAffine(rgb[..., ::-1], m, size).astype(np.float32) / 255
        region = table_region * (1 - alpha) + face * alpha
        out[by0:by1, bx0:bx1] = np.clip(region * 255, 0, 255).astype(np.uint8)
        worlds.append(out)
    return (worlds[0] if faces is None else worlds), (x0, y0)


def photograph_card(
    rng: np.random.Generator,
    *,
    image_size: tuple[int, int] = (2000, 1500),
    card: CardTexture | None = None,
    difficulty: float = 1.0,
    style=None,
    seen: bool = False,
    marks_seen: bool = False,
    marks_on_ground: bool = False,
):
    """Photograph a card lying on a busy table with a phone; returns ``(photo, truth)``.

    Any rotation, a perspective tilt, lens distortion, a slight curl, uneven light,
    the phone's shadow, glare, blur, noise and JPEG (scaled by ``difficulty`` 0..1).
    ``truth`` is the card's ``card/1`` object plus ``"corners_px"``: each grid's frame
    corners TL, TR, BR, BL in the photo as printed upright (before curl), for checks.
    With ``seen`` each grid also gets ``"shading_seen"``: for every shaded cell, how much
    its shading survives in this photo (:func:`shading_seen`; the card needs its
    ``unshaded_rgb`` twin, drawn when ``card`` is None). With ``marks_seen`` each grid gets
    ``"mark_seen"``: for every cell with a mark, how much of it this photo shows
    (:func:`mark_seen`; the card needs its ``unmarked_rgb`` twins, drawn when ``card`` is
    None), over the paper's noise, or with ``marks_on_ground`` over the noise of what lies
    under the mark (its twin without it: bare paper, or a fill whose strokes are as dark
    as the mark's, :func:`_grid_marks_seen`). The photo is the same either way.
    """
    from piecebridge.synth.photo import Camera, PhotoStyle, ShadowBlob, photograph

    card = card or render_card(rng, unshaded=seen, unmarked=marks_seen)
    if seen and (card.unshaded_rgb is None or card.paper_rgb is None):
        raise ValueError("shading_seen needs the card's twin: render_card(..., unshaded=True)")
    if marks_seen and (card.unmarked_rgb is None or card.paper_rgb is None):
        raise ValueError("mark_seen needs the card's twins: render_card(..., unmarked=True)")
    if difficulty > 0:
        card = curl_card(card, rng, amount=rng.uniform(0, 2.5 * difficulty))
    ppm = card.px_per_mm
    mm_per_px = 1 / ppm
    ch, cw = card.alpha.shape
    angle = rng.uniform(0, 360)
    # Card placement in world mm: centred on the origin, turned by ``angle``.
    m_mm = cv2.getRotationMatrix2D((cw / 2 * mm_per_px, ch / 2 * mm_per_px), angle, 1.0)
    m_mm[:, 2] -= [cw / 2 * mm_per_px, ch / 2 * mm_per_px]
    corners = []
    for g in range(len(card.layout.grid_origins)):
        pts = card.layout.grid_corners_mm(g)
        corners.append(pts @ m_mm[:, :2].T + m_mm[:, 2])
    card_c = np.zeros(2)
    cam = Camera(
        image_size=image_size,
        focal_px=image_size[0] * rng.uniform(0.75, 1.1),
        dist_coeffs=(rng.uniform(-0.12, 0.06) * difficulty, 0.0, 0.0, 0.0, 0.0),
        target_mm=tuple(card_c + rng.normal(0, 4, 2)),
        height_mm=300.0,
        tilt_deg=rng.uniform(0, 30) * difficulty,
        tilt_azimuth_deg=rng.uniform(0, 360),
        yaw_deg=rng.uniform(0, 360),
    )
    card_pts = np.concatenate(corners)
    fill = rng.uniform(0.45, 0.9)
    cam = cam.fitted(card_pts, fill=fill)
    # Keep every grid and its labels inside the frame (tilt and lens can push a corner
    # out); a deliberately cut-off card is made by cropping, not by accident.
    outer = np.concatenate([(c - c.mean(0)) * 1.25 + c.mean(0) for c in corners])
    for _ in range(10):
        p = cam.project(outer)
        w, h = image_size
        if p.min() >= 0.02 * w and (p[:, 0].max() <= 0.98 * w) and (p[:, 1].max() <= 0.98 * h):
            break
        fill *= 0.9
        cam = cam.fitted(card_pts, fill=fill)
    if seen or marks_seen:  # every twin on the very same table
        faces = [card.rgb, card.paper_rgb]
        faces += [card.unshaded_rgb] if seen else []
        faces += list(card.unmarked_rgb) if marks_seen else []
        (world_u8, *twin_u8), origin = _compose_world(card, m_mm, cam, rng, faces=faces)
    else:
        world_u8, origin = _compose_world(card, m_mm, cam, rng)
    if style is None:
        d = difficulty
        shadows = ()
        if rng.random() < 0.5 * d:  # the phone's shadow across part of the card
            off = rng.normal(0, 20, 2)
            shadows = (
                ShadowBlob(
                    tuple(card_c + off),
                    (rng.uniform(60, 140), rng.uniform(30, 70)),
                    rng.uniform(0, 180),
                    strength=rng.uniform(0.15, 0.45),
                    softness_mm=rng.uniform(3, 20),
                ),
            )
        px_per_mm_img = 1 / cam.mm_per_px_at(tuple(card_c))
        style = PhotoStyle(
            lamp_offset_mm=(rng.uniform(-300, 300), rng.uniform(-300, 300), rng.uniform(500, 1500)),
            ambient=rng.uniform(0.3, 0.8),
            gradient=rng.uniform(0, 0.3) * d,
            gradient_angle_deg=rng.uniform(0, 360),
            vignette=rng.uniform(0, 0.3),
            exposure=rng.uniform(0.8, 1.15),
            white_balance_bgr=tuple(rng.uniform(0.85, 1.1, 3)),
            shadows=shadows,
            glare=rng.uniform(0, 0.25) * d,
            ground_gloss=rng.uniform(0, 0.3),
            defocus_sigma_px=rng.uniform(0, 0.05) * px_per_mm_img * d,
            motion_px=rng.uniform(0, 0.1) * px_per_mm_img * d if rng.random() < 0.3 else 0,
            motion_angle_deg=rng.uniform(0, 180),
            noise_sigma=rng.uniform(0.002, 0.015) * d,
            shot_noise=rng.uniform(0.005, 0.03) * d,
            jpeg_quality=int(rng.integers(70, 96)),
        )
    # the twins get the very same noise
    twin_rng = copy.deepcopy(rng) if seen or marks_seen else None
    photo = photograph(world_u8, mm_per_px, cam, style, rng, world_origin_mm=origin)
    truth = dict(card.truth)
    truth["corners_px"] = [photo.project(c).round(1).tolist() for c in corners]
    if seen or marks_seen:
        paper, *twins = [
            photograph(w, mm_per_px, cam, style, copy.deepcopy(twin_rng), world_origin_mm=origin)
            for w in twin_u8
        ]
    if seen:
        unshaded, *twins = twins
        truth["grids"] = [
            {**grid, "shading_seen": _grid_seen(card, m_mm, photo, [unshaded, paper], g, grid)}
            for g, grid in enumerate(truth["grids"])
        ]
    if marks_seen:
        truth["grids"] = [
            {
                **grid,
                "mark_seen": _grid_marks_seen(
                    card, m_mm, photo, None if marks_on_ground else paper, twins, g, grid
                ),
            }
            for g, grid in enumerate(truth["grids"])
        ]
    return photo, truth


# ----------------------------------------------------------------------------- shading seen

#: :func:`shading_seen`: the part of a cell measured (its middle, this far in from each side,
#: in cells: clear of the printed lines and of shading that spills over from a neighbour)
SEEN_INSET = 0.2
#: the least paper noise divided by (grey levels, 0..255): where the paper is blown out
#: to white it has no noise left, and below two levels the photo's 8 bits and its JPEG,
#: not the paper, set what a reader can tell apart
SEEN_NOISE_FLOOR = 2.0
#: shading seen below this is not in the pixels: its mean darkening is less than the
#: paper's own noise there (``benchmarks/results/card.md``, twelfth session: crops of
#: cells on both sides)
SEEN_VISIBLE = 1.0


def cell_quads_px(card: CardTexture, m_mm: np.ndarray, project, grid: int, inset: float):
    """The 100 cells of ``grid`` in the photo, each shrunk by ``inset`` cells a side:
    ``(100, 4, 2)`` pixels (TL, TR, BR, BL; row-major, A1 first), through the print's
    tilt, the card's curl (:meth:`Curl.bend`), its place on the table (``m_mm``: card mm
    to table mm) and the camera (``project``: table mm to pixels)."""
    lay = card.layout
    gx, gy = lay.grid_origins[grid]
    u = np.array([[inset, inset], [1 - inset, inset], [1 - inset, 1 - inset], [inset, 1 - inset]])
    rows, cols = np.divmod(np.arange(100), 10)
    cells = (np.stack([cols, rows], 1)[:, None, :] + u[None]) * lay.cell_mm + (gx, gy)
    pts = cells.reshape(-1, 2) @ lay.transform()[:, :2].T + lay.transform()[:, 2]
    if card.curl is not None:
        pts = card.curl.bend(pts * card.px_per_mm) / card.px_per_mm
    pts = pts @ m_mm[:, :2].T + m_mm[:, 2]
    return np.asarray(project(pts), float).reshape(100, 4, 2)


def shading_seen(photo_bgr, unshaded_bgr, paper_bgr, quads: np.ndarray) -> np.ndarray:
    """How much shading survives in each quad of a photo: the mean darkening it causes
    there (the twin photo without the shading minus the photo, grey levels, over the
    whole quad: a mark on the shading hides the shading under it) over the paper's noise
    there (the robust spread, 1.4826 x the median absolute deviation, of the twin with no
    pencil at all, at least :data:`SEEN_NOISE_FLOOR`). The twins are the same card,
    light, camera and noise draws. 0: the shading is not in the pixels (blown out by
    light or glare, or too faint); 1: its darkening is as large as the paper's own noise.

    >>> paper = np.full((40, 40, 3), 200, np.uint8)
    >>> paper[::2] += 8  # paper grain: a spread of 1.4826 x 4 = 5.9 levels
    >>> unshaded = paper.copy()
    >>> unshaded[12:16, 10:30] = 60  # a stroke
    >>> photo = unshaded.copy()
    >>> photo[10:30, 10:30] -= 12  # shading twelve levels dark on one square
    >>> quads = np.array([[[10, 10], [29, 10], [29, 29], [10, 29]],
    ...                   [[0, 0], [9, 0], [9, 9], [0, 9]]], float)
    >>> shading_seen(photo, unshaded, paper, quads).round(2).tolist()
    [2.02, 0.0]
    """
    grey = [
        cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(np.float32)
        for im in (photo_bgr, unshaded_bgr, paper_bgr)
    ]
    out = np.zeros(len(quads))
    for i, q in enumerate(quads):
        photo, unshaded, paper = _in_quad(q, grey)
        if photo.size:
            out[i] = float(np.mean(unshaded - photo)) / _paper_noise(paper)
    return out


def _in_quad(quad: np.ndarray, images: list[np.ndarray]) -> list[np.ndarray]:
    """The pixels of each of ``images`` (all one size) inside ``quad`` (4 x 2, x y px)."""
    h, w = images[0].shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(quad.max(0)).astype(int) + 1, 1, [w, h])
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round((quad - (x0, y0)) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    inside = mask.astype(bool)
    return [im[y0:y1, x0:x1][inside] for im in images]


def _paper_noise(paper: np.ndarray) -> float:
    """The paper's noise: the robust spread (1.4826 x the median absolute deviation) of its
    grey levels, at least :data:`SEEN_NOISE_FLOOR`."""
    noise = 1.4826 * float(np.median(np.abs(paper - np.median(paper))))
    return max(noise, SEEN_NOISE_FLOOR)


def _grid_seen(card, m_mm, photo, twins, g: int, grid: dict) -> dict[str, float]:
    """``{cell: shading seen}`` for the shaded cells of one truth grid (``twins``: the
    photos of the card without shading and without pencil)."""
    shaded = [name for name, item in grid["cells"].items() if item.get("shaded")]
    if not shaded:
        return {}
    quads = cell_quads_px(card, m_mm, photo.project, g, SEEN_INSET)
    seen = shading_seen(photo.image, twins[0].image, twins[1].image, quads)
    index = {cell_name(i // 10, i % 10): i for i in range(100)}
    return {name: round(float(seen[index[name]]), 2) for name in sorted(shaded)}


# ----------------------------------------------------------------------------- mark seen

#: :func:`mark_seen`: the part of a cell measured (this far in from each side, in cells:
#: clear of the printed lines; a mark crossing out of its cell keeps its middle)
MARK_SEEN_INSET = 0.1
#: how much a mark's darkening is smoothed (px) before its peak is found: one JPEG block's
#: ringing on a single pixel is not a stroke
MARK_SEEN_SMOOTH = 1.0
#: a mark seen below this is faint: weaker in the photo than 99 % of the marks the reader
#: (v14) reads right on bare paper (classic tune 1100-1299, the 1st percentile rounded down
#: to 0.5; the rule was written down before the reader's failures were looked at,
#: out/card21/PLAN.md, but the value depends on what v14 reads right). Faint,
#: not gone: every mark the renderer draws darkens its photo by more than 2.5 x the
#: paper's noise, and the reader reads most marks under this right, on shading too.
MARK_VISIBLE = 8.5


def mark_twin(row: int, col: int) -> int:
    """Which of the four mark twins (``render_card(..., unmarked=True)``) leaves out the
    mark of the cell at ``row``, ``col`` (0-based): the cells of one class are two apart
    in both directions, so a twin keeps every neighbour's mark, and a neighbour's stroke
    crossing into the cell is in both the photo and its twin.

    >>> [mark_twin(r, c) for r, c in [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2)]]
    [0, 1, 2, 3, 0]
    """
    return 2 * (row % 2) + col % 2


def mark_seen(photo_bgr, unmarked_bgr, paper_bgr, quads: np.ndarray) -> np.ndarray:
    """How much of a mark survives in each quad of a photo: the darkening along its
    strokes (the twin photo without the mark minus the photo, grey levels, smoothed by
    :data:`MARK_SEEN_SMOOTH`; the mean over the stroke's core, where it is at least half
    its peak) over the paper's noise there (the robust spread, 1.4826 x the median
    absolute deviation, of the twin with no pencil at all, at least
    :data:`SEEN_NOISE_FLOOR`), as :func:`shading_seen` measures shading. The twins are
    the same card, light, camera and noise draws. 0: the mark is not in the pixels;
    a mark on shading keeps only the darkening the shading leaves it (graphite on
    graphite, a dark fill clipped to black).

    >>> paper = np.full((40, 40, 3), 200, np.uint8)
    >>> paper[::2] += 8  # paper grain: a spread of 1.4826 x 4 = 5.9 levels
    >>> photo = paper.copy()
    >>> photo[16:24, 5:35] -= 59  # a stroke 59 levels dark, 8 px wide, in the first quad
    >>> quads = np.array([[[0, 0], [39, 0], [39, 39], [0, 39]],
    ...                   [[0, 0], [9, 0], [9, 9], [0, 9]]], float)
    >>> mark_seen(photo, paper, paper, quads).round(1).tolist()
    [8.9, 0.0]
    """
    grey = [
        cv2.cvtColor(im, cv2.COLOR_BGR2GRAY).astype(np.float32)
        for im in (photo_bgr, unmarked_bgr, paper_bgr)
    ]
    dark = cv2.GaussianBlur(grey[1] - grey[0], (0, 0), MARK_SEEN_SMOOTH)
    out = np.zeros(len(quads))
    for i, q in enumerate(quads):
        d, paper = _in_quad(q, [dark, grey[2]])
        peak = float(d.max()) if d.size else 0.0
        if peak > 0:
            out[i] = float(d[d >= peak / 2].mean()) / _paper_noise(paper)
    return out


def _grid_marks_seen(card, m_mm, photo, paper, twins, g: int, grid: dict) -> dict[str, float]:
    """``{cell: mark seen}`` for the cells with a mark of one truth grid (``paper``: the
    photo of the card without pencil; ``twins``: of the four mark twins, :func:`mark_twin`).
    With ``paper`` None the noise is read on the ground under each mark, its twin without
    it: the same as the paper's on bare paper, but on a pen fill (full ink, strokes as
    dark and as narrow as a mark's) the fill's own texture, which a mark drawn on it
    must stand out from to be read (``card_styles``, ``benchmarks/results/card.md``)."""
    marked = [name for name, item in grid["cells"].items() if item.get("mark")]
    if not marked:
        return {}
    quads = cell_quads_px(card, m_mm, photo.project, g, MARK_SEEN_INSET)
    grounds = twins if paper is None else [paper] * len(twins)
    seen = [
        mark_seen(photo.image, t.image, u.image, quads) for t, u in zip(twins, grounds, strict=True)
    ]
    out = {}
    for name in sorted(marked):
        row, col = int(name[1:]) - 1, "ABCDEFGHIJ".index(name[0])
        out[name] = round(float(seen[mark_twin(row, col)][row * 10 + col]), 2)
    return out


# ----------------------------------------------------------------------------- splits

#: seed bases of the fixture splits: thresholds and the cell model are tuned only on
#: ``tune``; ``test`` is held out; ``print`` photographs the exact board of
#: ``piecebridge print card`` (held out too), and ``print-tune`` is its tuning
#: counterpart (the same board, seeds of its own), where print failures are studied.
SPLITS = {"tune": 1_000, "test": 5_000_000, "print": 9_000_000, "print-tune": 9_500_000}
#: the splits that photograph the printed board of ``piecebridge print card``
PRINT_SPLITS = ("print", "print-tune")


def split_photo(
    split: str,
    index: int,
    image_size: tuple[int, int] = (2000, 1500),
    style: str = "classic",
    seen: bool = False,
    marks_seen: bool = False,
):
    """Photo ``index`` of a named split: ``(bgr_image, truth)``, fully determined by
    ``(split, index, image_size, style)``. ``style`` other than ``"classic"`` (this
    module's hand and print) is another hand and card of
    :mod:`piecebridge.synth.card_styles`, from seeds of its own. ``seen`` adds to each
    truth grid how much of each shaded cell's shading the photo shows
    (``"shading_seen"``, :func:`shading_seen`); ``marks_seen`` how much of each mark it
    shows (``"mark_seen"``, :func:`mark_seen`; the classic style only). The photo is the
    same either way.

    >>> img, truth = split_photo("tune", 0, (640, 480))
    >>> img.shape, truth["format"]
    ((480, 640, 3), 'card/1')
    """
    if style != "classic":
        if split in PRINT_SPLITS:  # the printed board is the classic card's layout
            raise ValueError(f"the {split} split photographs the printed board: no style {style}")
        from piecebridge.synth import card_styles  # it builds on this module

        return card_styles.split_photo(split, index, image_size, style, seen, marks_seen)
    rng = np.random.default_rng([SPLITS[split], index])
    if split in PRINT_SPLITS:
        layout = CardLayout(caption="piecebridge card board")
        card = render_card(rng, layout=layout, unshaded=seen, unmarked=marks_seen)
    else:
        card = render_card(rng, unshaded=seen, unmarked=marks_seen)
    photo, truth = photograph_card(
        rng, image_size=image_size, card=card, seen=seen, marks_seen=marks_seen
    )
    return photo.image, truth
