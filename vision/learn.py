"""Learning a board setup from one photo of the calibration layout.

The photo shows the ``reflec-calibration/1`` layout (``calibration_layout``): every coin
suit side up facing north in rows a-f, one pawn per suit in column g. :func:`learn_setup`
finds the board (a thorough search: one photo, read once), takes the one of its four turns
under which the occupied block matches the layout as north, cuts out each suit's look (the
median of its six coins aligned to each other; its one pawn), learns where each suit's
separate mark sits and which turns its look cannot tell apart, and reads the photo back
with what it learned before it trusts it. The result is a
:class:`~piecebridge.calibration.board.BoardSetup`, the plain data the rest of vision reads
frames with.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from piecebridge.calibration.board import BoardSetup, calibration_layout
from piecebridge.calibration.geometry import N
from piecebridge.calibration.looks import SUITS
from piecebridge.vision.cells import (
    CHROMA_WEIGHT,
    MARK_SURE,
    BoardViews,
    PieceLooks,
    board_views,
    classify,
    decide_all,
    energies,
    measure,
)
from piecebridge.vision.debug import draw_decisions, draw_grid
from piecebridge.vision.facing import (
    FACE_MASK,
    coin_centre,
    fine_detail,
    mark_blob,
    turn_alikeness,
)
from piecebridge.vision.locate import PrintedGrid, find_board
from piecebridge.vision.raster import CELL_ORDER, CENTRE_SHIFT, CROP, FACE_CROP, FACE_PX, MARGIN, PX

from piecebridge.errors import UserError


def _layout_score(ratio: np.ndarray) -> float:
    """How well occupied/empty energies match the layout (higher is better)."""
    layout = calibration_layout()
    occ = np.array([c in layout for c in CELL_ORDER])
    lr = np.log(np.maximum(ratio, 1e-3))
    # Separation of the two groups in log energy, robust to a few outliers.
    return float(np.percentile(lr[occ], 20) - np.percentile(lr[~occ], 80))


def _coin_looks(
    views: BoardViews, cells: list[int]
) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
    """A suit's coin look at PX (coarse) and FACE_PX (fine), and the coins' centres
    (FACE_PX pixels): each coin is cut out at its place in the consensus of the six
    (:func:`_align`), so the average is sharp, centred where the coins' rim circles agree,
    and the grid lines beside a coin do not count."""
    centres = []
    for i in cells:
        c = coin_centre(views, i)
        if c is None:  # no rim found: fall back to the cell centre
            c = ((MARGIN + i % N + 0.5) * FACE_PX, (MARGIN + i // N + 0.5) * FACE_PX)
        centres.append(c)
    centres = _align(views, centres)
    fine = [cv2.getRectSubPix(views.rel_hi, (FACE_CROP, FACE_CROP), c) for c in centres]
    k = PX / FACE_PX
    coarse = []
    for x, y in centres:
        at = (x * k - 0.5 * (1 - k), y * k - 0.5 * (1 - k))
        lo = cv2.getRectSubPix(views.rel_lo, (CROP, CROP), at)
        lo[..., 0] -= lo[..., 0].mean()
        coarse.append(lo)
    return np.mean(coarse, axis=0), np.median(fine, axis=0).astype(np.float32), centres


#: Pixels (FACE_PX) a calibration coin may move to fit the others (see :func:`_align`).
ALIGN_SHIFT = 4


def _align(views: BoardViews, centres: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The coins' centres moved so their cut-outs fit the median of all six cut-outs (fine
    detail, inside the coin's disc, to a fraction of a pixel): first the median of the
    cut-outs as found, then that of the aligned ones.

    A rim circle (``coin_centre``) may snap onto a round symbol or a shadow and sit 2-4 px
    off; the median of six cut-outs is centred where most of them agree, so one misfound
    circle does not set the look's centre (aligning to the first coin let it): the look is
    turned about its centre, its rim made round about it, and the mark is looked for from it.
    """
    size = FACE_CROP + 2 * ALIGN_SHIFT
    moved = centres
    for _ in range(2):  # against the median of the cut-outs as found, then as aligned
        cuts = [cv2.getRectSubPix(views.rel_hi, (FACE_CROP, FACE_CROP), c) for c in moved]
        ref = np.median(cuts, axis=0).astype(np.float32)
        moved = []
        for c in centres:
            dx, dy = _best_shift(cv2.getRectSubPix(views.rel_hi, (size, size), c), ref)
            moved.append((c[0] + dx, c[1] + dy))
    return moved


def _best_shift(win: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """Sub-pixel (dx, dy) of ``ref`` within ``win`` (0 when centred): normalised
    correlation of their fine detail inside the coin's disc, the peak refined by a
    parabola each way.

    >>> rng = np.random.default_rng(0)
    >>> ref = cv2.GaussianBlur(rng.normal(0, 20, (44, 44, 3)).astype(np.float32), (0, 0), 1.5)
    >>> win = cv2.getRectSubPix(ref, (44, 44), (21.5 - 2, 21.5 + 1))  # ref 2 px east, 1 north
    >>> [round(v) for v in _best_shift(win, ref[4:40, 4:40])]
    [2, -1]
    """
    mask = np.repeat(FACE_MASK, 3, axis=2)  # the coin only, not the grid lines beside it
    r = cv2.matchTemplate(fine_detail(win), fine_detail(ref), cv2.TM_CCORR_NORMED, mask=mask)
    _, _, _, (bx, by) = cv2.minMaxLoc(r)
    h, w = r.shape

    def vertex(a: float, b: float, c: float) -> float:
        d = a - 2 * b + c
        return 0.0 if d >= 0 else float(np.clip(0.5 * (a - c) / d, -0.5, 0.5))

    fx = vertex(r[by, bx - 1], r[by, bx], r[by, bx + 1]) if 0 < bx < w - 1 else 0.0
    fy = vertex(r[by - 1, bx], r[by, bx], r[by + 1, bx]) if 0 < by < h - 1 else 0.0
    return bx + fx - (w - 1) / 2, by + fy - (h - 1) / 2


#: How clearly the busy cells must form the calibration layout in its best turn
#: (:func:`_layout_score`) for a photo to be taken as the layout.
LAYOUT_SCORE = 0.3


def _layout_turn(frame_bgr: np.ndarray, found) -> tuple[float, Any, Any, np.ndarray]:
    """(layout score, pose, views, energy ratios) of the quarter turn of ``found`` in which
    the busy cells best form the calibration layout."""
    best = None
    for k in range(4):
        pose = found.rotated(k)
        views = board_views(pose.rectify(frame_bgr, FACE_PX, MARGIN))
        e = energies(views.crops)
        floor = max(float(np.median(np.sort(e)[:16])), 1.0)
        score = _layout_score(e / floor)
        if best is None or score > best[0]:
            best = (score, pose, views, e / floor)
    return best


def learn_setup(
    frame_bgr: np.ndarray, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]]:
    """Learn a :class:`BoardSetup` from a calibration-layout photo (already undistorted).

    Returns the setup and a report (``north_score``: layout separation in log energy;
    above ~1 is clear). Raises UserError when the board is missing or the layout is wrong.
    """
    # One photo, read once: worth the thorough search (a cell off here spoils every read).
    printed = None
    try:
        found = find_board(frame_bgr, thorough=True)
    except PrintedGrid as error:
        # Taken for a business card's grid (tune acrylic: a checked cloth beside tiles washed
        # out by glare): a board still shows the layout's pieces where a card cannot.
        printed, found = error, error.pose
    score, pose, views, ratio = _layout_turn(frame_bgr, found)
    crops = views.crops
    if score < LAYOUT_SCORE and printed is not None:
        raise printed
    if score < LAYOUT_SCORE:
        raise UserError(
            "calibration photo does not show the reflec-calibration/1 layout "
            "(coins a1-f4, pawns g1-g4, rest empty)"
        )
    layout = calibration_layout()
    index = {c: i for i, c in enumerate(CELL_ORDER)}
    coins, pawns, faces, centres = {}, {}, {}, {}
    for suit in SUITS:
        cells = [c for c, (kind, s) in layout.items() if kind == "coin" and s == suit]
        coins[suit], faces[suit], centres[suit] = _coin_looks(views, [index[c] for c in cells])
        pawns[suit] = crops[index[f"g{SUITS.index(suit) + 1}"], CENTRE_SHIFT]
    occ = np.array([c in layout for c in CELL_ORDER])
    hi_empty = float(np.percentile(ratio[~occ], 95))
    lo_occ = float(np.min(ratio[occ]))
    # Threshold between the busiest empty cell and the quietest piece (a weighted geometric
    # mean, nearer the empty side: pieces lose contrast under glare and blur, tiles less),
    # kept within sane bounds so one odd cell cannot set it.
    empty_ratio = float(np.clip(max(hi_empty, 1.0) ** 0.65 * lo_occ**0.35, 1.8, 6.0))
    marked, spots = _marked(views, centres)
    looks = PieceLooks(
        coins,
        pawns,
        faces,
        empty_ratio=empty_ratio,
        learned=True,
        marked=marked,
        mark_spots=spots,
    )
    looks.turn_alike = _turn_alike(looks)
    h, w = frame_bgr.shape[:2]
    setup = BoardSetup(pose, (w, h), found.tile_color_lab, looks, camera_calibration)
    matched, washed, claimed = _read_back(views, setup)
    if (
        matched + min(washed, MAX_WASHED_OUT) < MIN_READ_BACK
        or matched < MIN_READ_BACK - MAX_WASHED_OUT
        or claimed > MAX_EMPTY_CLAIMED
    ):
        # A board found a row off, or a layout not as the spec says: a setup learned from
        # it would misread every later frame, so refuse it rather than mislead.
        raise UserError(
            f"calibration photo does not read back as the reflec-calibration/1 layout "
            f"({matched}/28 pieces found where expected, {washed} more under glare, "
            f"{claimed} pieces on empty cells); "
            "is the whole board in view and the layout as specified?"
        )
    report = {
        "north_score": round(score, 3),
        "crosses_found": found.crosses_found,
        "lens_k": round(found.k, 3),
        "empty_ratio": round(empty_ratio, 3),
        "busiest_empty": round(hi_empty, 3),
        "quietest_piece": round(lo_occ, 3),
        "read_back": matched,
        "washed_out": washed,
    }
    return setup, report


#: A suit's separate mark is trusted when it reads at least half of its six
#: calibration coins as north, clearly (art whose symbol has small loose parts fails this).
MIN_MARKS_READ = 3


def _marked(
    views: BoardViews, centres: dict[str, list[tuple[float, float]]]
) -> tuple[tuple[str, ...], dict[str, tuple[float, float]]]:
    """Suits whose coins' small separate mark (see ``cells.mark_facing``) reads as north
    on at least ``MIN_MARKS_READ`` of their calibration coins (all face north there), and
    for each such suit where its mark sits: the median (distance from the coin's centre,
    area) of those reads (``PieceLooks.mark_spots``).

    ``centres``: per suit, its calibration coins' centres as the looks were cut out
    (:func:`_coin_looks`), so the mark is measured from the centre the look is read from;
    a rim circle snapped onto a round symbol would put the mark outside the searched ring."""
    out, spots = [], {}
    for suit in SUITS:
        reads = [mark_blob(views, c) for c in centres[suit]]
        north = [(r, a, e) for f, lead, r, a, e in reads if f == "north" and lead >= MARK_SURE]
        if len(north) >= MIN_MARKS_READ:
            out.append(suit)
            spots[suit] = tuple(float(v) for v in np.median(np.array(north), axis=0))
    return tuple(out), spots


def _turn_alike(looks: PieceLooks) -> dict[str, tuple[float, float, float]]:
    """Per suit, how alike its learned coin look (as it is read: rim made round, see
    ``PieceLooks.turned_faces``) is to itself turned a quarter, a half and three quarters,
    with its separate mark painted over where it was learned to sit (``facing.turn_alikeness``).
    All calibration coins face north, so this is the one place to learn which turns the
    look alone cannot tell apart (``PieceLooks.alike_turns``)."""
    turned = looks.turned_faces()
    return {s: turn_alikeness(t[0], looks.mark_spots.get(s)) for s, t in turned.items()}


#: The learned setup must read at least this many of the layout's 28 pieces back as the
#: right kind and suit (unknown allowed for the rest), and no more than
#: MAX_EMPTY_CLAIMED pieces on the 36 empty cells.
MIN_READ_BACK = 24
MAX_EMPTY_CLAIMED = 2
#: ... counting up to this many layout pieces that glare washed out (their cell ``glared``:
#: its lines washed out, not hidden) and that are read as no piece at all (unknown, or empty
#: only half sure) as not against it: glare hides a piece's look, it does not show another
#: one. A board placed a cell off reads pieces where the layout has none, or other pieces.
#: (Tune acrylic rig 398: glare over a third of the layout, 21 read back, 7 washed out; the
#: setup then reads its four shots with no wrong cell.)
MAX_WASHED_OUT = 4


def _read_back(views: BoardViews, setup: BoardSetup) -> tuple[int, int, int]:
    """(pieces read as the layout says, the layout's pieces washed out by glare and read as
    no piece, empty cells read as a piece) of the calibration photo itself, read with what
    was just learned from it."""
    layout = calibration_layout()
    looks = PieceLooks.of(setup.looks)
    matched = washed = claimed = 0
    for d in decide_all(measure(views, looks, setup.pose.inverted), looks):
        want = layout.get(d.cell)
        if want is None:
            claimed += d.kind in ("coin", "pawn")
        elif d.best == want and d.similarity >= looks.min_similarity:
            matched += 1  # kind and suit only: facing is what the setup is about to learn
        else:
            unsure = d.kind == "unknown" or (d.kind == "empty" and d.confidence <= 0.5)
            washed += d.glared and unsure
    return matched, washed, claimed


def annotate(frame_bgr: np.ndarray, setup: BoardSetup) -> np.ndarray:
    """The calibration photo with the grid, north, and each cell read back with the setup.

    A strip on the left shows each suit's learned coin (facing north) and pawn, enlarged.
    """
    rect = setup.pose.rectify(frame_bgr, FACE_PX, MARGIN)
    decisions = classify(rect, PieceLooks.of(setup.looks), setup.pose.inverted)
    out = draw_decisions(draw_grid(frame_bgr, setup.pose), setup.pose, decisions)
    tile = max(48, frame_bgr.shape[0] // 10)
    for i, suit in enumerate(SUITS):
        for j, look in enumerate((setup.looks.coins[suit], setup.looks.pawns[suit])):
            img = _look_to_bgr(look, setup)
            y, x = 10 + i * (tile + 6), 10 + j * (tile + 6)
            if y + tile <= out.shape[0] and x + tile <= out.shape[1]:
                out[y : y + tile, x : x + tile] = cv2.resize(
                    img, (tile, tile), interpolation=cv2.INTER_NEAREST
                )
    return out


def _look_to_bgr(look: np.ndarray, setup: BoardSetup) -> np.ndarray:
    """A descriptor crop back to a viewable BGR patch (mean lightness restored)."""
    lab = look.astype(np.float32).copy()
    lab[..., 0] += float(setup.tile_color_lab[0])
    lab[..., 1:] = lab[..., 1:] / CHROMA_WEIGHT + np.asarray(setup.tile_color_lab[1:], np.float32)
    return cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8), cv2.COLOR_LAB2BGR)
