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

from typing import Any, NamedTuple

import cv2
import numpy as np
from piecebridge.calibration.board import BoardSetup, calibration_layout
from piecebridge.calibration.geometry import N
from piecebridge.calibration.looks import SUITS
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision.cells import (
    CHROMA_WEIGHT,
    ENERGY_RADIUS,
    FINE_SUIT_LEAD,
    LOOK_MASK,
    MARK_SURE,
    BoardViews,
    CellDecision,
    PieceLooks,
    board_views,
    classify,
    decide_all,
    detail_ratios,
    disc_colours,
    energies,
    ink_alike,
    learned_detail_empty,
    measure,
)
from piecebridge.vision.debug import draw_decisions, draw_grid
from piecebridge.vision.facing import (
    FACE_MASK,
    FACINGS,
    MARK_SHIFT,
    coin_centre,
    fine_detail,
    learned_mark_read,
    mark_blob,
    mark_scores,
    mark_template,
    round_symbol_centre,
    turn_alikeness,
)
from piecebridge.vision.locate import (
    CELL_MOVES,
    ONE_TILE_ALONG,
    TONE_TILES,
    FewCrosses,
    GridCutOff,
    GridInDoubt,
    MaybeCellOff,
    board_by_tiles,
    boards_by_colour,
    boards_by_tone,
    check_in_frame,
    corner_gap,
    find_board,
    refine_by_tone,
    refine_pose,
    shifted_pose,
    tone_tiles_grey,
)
from piecebridge.vision.occlusion import boundary_cue
from piecebridge.vision.raster import (
    CELL_ORDER,
    CENTRE_SHIFT,
    CROP,
    FACE_CROP,
    FACE_PX,
    MARGIN,
    PX,
    disc,
)
from piecebridge.vision.tonelock import tone_print

from piecebridge.errors import UserError


def _layout_score(ratio: np.ndarray) -> float:
    """How well occupied/empty energies match the layout (higher is better)."""
    layout = calibration_layout()
    occ = np.array([c in layout for c in CELL_ORDER])
    lr = np.log(np.maximum(ratio, 1e-3))
    # Separation of the two groups in log energy, robust to a few outliers.
    return float(np.percentile(lr[occ], 20) - np.percentile(lr[~occ], 80))


def _coin_looks(
    views: BoardViews, cells: list[int], askew: bool = False, one_colour: bool = False
) -> tuple[np.ndarray, np.ndarray, list[tuple[float, float]]]:
    """A suit's coin look at PX (coarse) and FACE_PX (fine), and the coins' centres
    (FACE_PX pixels): each coin is cut out at its place in the consensus of the six
    (:func:`_align`; ``askew``: at its twist too, see :func:`_align_askew`), so the average
    is sharp, centred where the coins' rim circles agree (``one_colour``: as the coins lie
    about their cells' middles, see :func:`_one_colour`), and the grid lines beside a coin
    do not count."""
    middles = [_cell_middle(i) for i in cells]
    centres = []
    for i, middle in zip(cells, middles, strict=True):
        c = coin_centre(views, i)
        centres.append(middle if c is None else c)  # no rim found: from the cell's middle
    if askew:
        poses = _align_askew(views, centres, middles if one_colour else None)
    else:
        poses = [(*c, 0.0) for c in _align(views, centres)]
    fine = [_cut(views.rel_hi, (x, y), FACE_CROP, t) for x, y, t in poses]
    k = PX / FACE_PX
    coarse = []
    for x, y, _ in poses:
        at = (x * k - 0.5 * (1 - k), y * k - 0.5 * (1 - k))
        lo = cv2.getRectSubPix(views.rel_lo, (CROP, CROP), at)
        lo[..., 0] -= lo[..., 0].mean()
        coarse.append(lo)
    centres = [(x, y) for x, y, _ in poses]
    return np.mean(coarse, axis=0), np.median(fine, axis=0).astype(np.float32), centres


#: A board's tiles show two tones (inlaid quadrants) when the median step in lightness between
#: the calibration photo's orthogonally adjacent empty cells, |log| of the ratio of their
#: L* + 16 (as a shade scales it, see ``cells.shade_tints``), is at least this. Tune
#: calibration photos (rigs 0-24, every second): checkered 0.62-0.73; the six other arts
#: (one tone under uneven light) 0.002-0.051.
TWO_TONE_STEP = 0.25
#: A pixel of a pawn's crop is its tile (in shade or light: its colour that tone's scaled by
#: the pixel's lightness) when its colour terms lie within the first of these of that, and
#: is the pawn beyond the second (relative a, b as :func:`relative_lab` weighs them); the
#: shading factor, over the tile's, within ``TILE_SHADE``. Between: part of each (a blurred
#: outline). Rendered sensor noise moves a tile pixel's colour terms by a few units.
TILE_OFF = (6.0, 12.0)
TILE_SHADE = (0.4, 1.3)


def _lightness_scale(light: np.ndarray | float) -> np.ndarray | float:
    """L* + 16 of an 8-bit Lab lightness: the quantity a shade scales (see shade_tints)."""
    return np.asarray(light) / 2.55 + 16.0


def _pawns_on_tone(views: BoardViews, occupied: np.ndarray) -> dict[str, np.ndarray]:
    """Each suit's pawn look as it would show on the board's other tile tone (see
    ``LearnedLooks.pawns_on_tone``), where the calibration photo shows two (see
    ``TWO_TONE_STEP``), else {}: the pawn's crop with its tile (pixels of the tile's colour,
    shaded or lit, see :func:`_tile_weights`) recoloured to the other tone's colour at the
    same shading, as the pawn's empty neighbours of that tone show it in this photo."""
    colours = disc_colours(views.rel_lo).reshape(N, N, 3)
    scale = _lightness_scale(colours[..., 0])
    empty = ~occupied.reshape(N, N)
    steps = []
    for dy, dx in ((0, 1), (1, 0)):
        a, b = scale[: N - dy, : N - dx], scale[dy:, dx:]
        both = empty[: N - dy, : N - dx] & empty[dy:, dx:]
        steps.extend(np.abs(np.log(a[both] / b[both])).tolist())
    if not steps or float(np.median(steps)) < TWO_TONE_STEP:
        return {}
    out = {}
    for suit in SUITS:
        i = CELL_ORDER.index(f"g{SUITS.index(suit) + 1}")
        crop = _raw_crop(views.rel_lo, i)
        own = np.median(crop[~_LOOK_INSIDE], axis=0)
        row, col = divmod(i, N)
        other = [
            colours[y, x]
            for y, x in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= y < N
            and 0 <= x < N
            and empty[y, x]
            and abs(np.log(scale[y, x] / _lightness_scale(own[0]))) >= TWO_TONE_STEP
        ]
        if not other:
            continue
        look = _recoloured(crop, own, np.median(other, axis=0), views.tile_ab)
        look[..., 0] -= look[..., 0].mean()
        out[suit] = look.astype(np.float32)
    return out


_LOOK_INSIDE = LOOK_MASK[..., 0] > 0.5


def _raw_crop(rel_lo: np.ndarray, i: int) -> np.ndarray:
    """Cell ``i``'s centred crop (CROP, CROP, 3) of the relative Lab board at PX, its
    lightness as it is (not less its mean, as a descriptor crop's)."""
    o = round(MARGIN * PX) + (PX - CROP) // 2
    y, x = o + (i // N) * PX, o + (i % N) * PX
    return np.array(rel_lo[y : y + CROP, x : x + CROP], np.float32)


def _recoloured(
    crop: np.ndarray, own: np.ndarray, other: np.ndarray, tile_ab: np.ndarray
) -> np.ndarray:
    """``crop`` (relative Lab, lightness as it is) with its pixels of the tile colour ``own``
    (shaded or lit, see :func:`_tile_weights`) moved to the colour ``other`` at the same
    shading; the pawn's own pixels stay (a new array)."""
    s = _lightness_scale(crop[..., 0]) / _lightness_scale(own[0])
    base = np.asarray(tile_ab, np.float32) - 128.0
    own_ab = base + own[1:] / CHROMA_WEIGHT
    other_ab = base + other[1:] / CHROMA_WEIGHT
    w = _tile_weights(crop, s, own_ab, base)
    # The pawn's outline: pixels part pawn, part tile (blur, the render's anti-aliasing)
    # are tile by the share their colour terms lie from the pawn's toward the tile's, at
    # the shading of the tile beside them.
    tile = w > 0.5
    rim = cv2.dilate(tile.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool) & ~tile
    body = (w == 0) & ~rim & _LOOK_INSIDE
    if tile.any() and body.any():
        ab = base + crop[..., 1:] / CHROMA_WEIGHT
        pawn_ab = np.median(ab[body], axis=0)
        span = own_ab - pawn_ab
        share = ((ab - pawn_ab) @ span) / max(float(span @ span), 1e-6)
        w = np.where(rim, np.maximum(w, np.clip(share, 0.0, 1.0)), w)
        s = np.where(rim, float(np.median(s[tile])), s)
    delta = np.empty_like(crop)
    delta[..., 0] = (_lightness_scale(other[0]) - _lightness_scale(own[0])) * s * 2.55
    delta[..., 1:] = s[..., None] * (other_ab - own_ab) * CHROMA_WEIGHT
    return crop + w[..., None] * delta


def _tile_weights(
    crop: np.ndarray, s: np.ndarray, own_ab: np.ndarray, base: np.ndarray
) -> np.ndarray:
    """How much each pixel of ``crop`` is tile of the colour terms ``own_ab`` (absolute, 8-bit
    less 128) at its shading ``s`` (see ``TILE_OFF``, ``TILE_SHADE``): 1 tile, 0 piece."""
    ab = base + crop[..., 1:] / CHROMA_WEIGHT
    off = np.linalg.norm(ab - s[..., None] * own_ab, axis=-1) * CHROMA_WEIGHT
    lo, hi = TILE_OFF
    w = np.clip((hi - off) / (hi - lo), 0.0, 1.0)
    return np.where((s >= TILE_SHADE[0]) & (s <= TILE_SHADE[1]), w, 0.0)


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
            _, dx, dy = _fit(cv2.getRectSubPix(views.rel_hi, (size, size), c), ref)
            moved.append((c[0] + dx, c[1] + dy))
    return moved


#: Pixels (FACE_PX) a calibration coin may move to fit the others (see :func:`_align_askew`):
#: a hand lays a coin up to ~4 mm off its cell's middle now and then, and its rim circle may
#: snap onto a round symbol besides.
ASKEW_SHIFT = 8
#: The twists (degrees, as :func:`_cut` turns) a calibration coin is tried at to fit the others
#: (see :func:`_align_askew`); the best is refined between its neighbours. Hands lay coins a few
#: degrees askew, now and then 10 or more.
ALIGN_TWISTS = tuple(np.arange(-15.0, 15.5, 3.0))


def _align_askew(
    views: BoardViews,
    centres: list[tuple[float, float]],
    middles: list[tuple[float, float]] | None = None,
) -> list[tuple[float, float, float]]:
    """Each coin's (x, y, twist): where and at what twist (degrees, see :func:`_cut`) to cut
    it out so the six cut-outs fit each other (fine detail, inside the coin's disc, to a
    fraction of a pixel and of a degree): each first fitted to the coin that fits the
    others best, then twice to the median of the cut-outs so aligned.

    A rim circle (``coin_centre``) may snap onto a round symbol or a shadow and sit 2-4 px
    off, and a hand lays coins a few degrees askew: the median of six cut-outs as found
    blurs the symbol (tune woodburned calibration photos of rigs 8 and 17: a sun and a
    fleur-de-lis read as each other's, the layout refused). The look is then centred and
    turned as the six coins are on the median (their rim circles, their twists against the
    others): one misfound circle or one coin laid askew does not set it. The look is turned
    about its centre, its rim made round about it, and the mark is looked for from it.

    ``middles`` (the coins' cells' middles): the look is centred as the six coins lie about
    their cells' middles instead, where their rim circles cannot be trusted (see
    :func:`_one_colour`).
    """
    # The coin the others fit best (by shift alone, every pair: cheap) is the first reference.
    first = [_cut(views.rel_hi, c, FACE_CROP) for c in centres]
    wide = [_cut(views.rel_hi, c, FACE_CROP + 2 * ASKEW_SHIFT) for c in centres]
    fits = [sum(_fit(w, f)[0] for j, w in enumerate(wide) if j != i) for i, f in enumerate(first)]
    ref = first[int(np.argmax(fits))]
    for _ in range(3):  # to that coin, then twice to the median of the aligned cut-outs
        poses = [_pose(views.rel_hi, c, ref) for c in centres]
        ref = np.median([_cut(views.rel_hi, p[:2], FACE_CROP, p[2]) for p in poses], axis=0)
        ref = ref.astype(np.float32)
    # The six as the median of them sits: their rim circles' centres (or cells' middles), their
    # twists.
    moved = np.subtract([p[:2] for p in poses], centres if middles is None else middles)
    dx, dy = np.median(moved, axis=0)
    twist = float(np.median([p[2] for p in poses]))
    return [(x - dx, y - dy, t - twist) for x, y, t in poses]


def _cut(
    image: np.ndarray, centre: tuple[float, float], size: int, twist: float = 0.0
) -> np.ndarray:
    """The ``size`` square of ``image`` centred at ``centre`` (x, y; sub-pixel) and turned
    ``twist`` degrees: pixel ``v`` from the cut's middle is ``image``'s at ``centre + R v``,
    ``R`` the turn by ``twist``. Untwisted, it is ``cv2.getRectSubPix``'s cut.

    >>> img = np.arange(100, dtype=np.float32).reshape(10, 10)
    >>> bool(np.allclose(_cut(img, (4.5, 3.0), 4), cv2.getRectSubPix(img, (4, 4), (4.5, 3.0))))
    True
    >>> _cut(img, (4.0, 4.0), 3, 90.0)[0].tolist()  # its top row: the column east, downwards
    [35.0, 45.0, 55.0]
    """
    if twist == 0:  # warpAffine weighs its neighbours in 32nds of a pixel
        return cv2.getRectSubPix(image, (size, size), centre)
    a = np.radians(twist)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    mid = np.full(2, (size - 1) / 2)
    m = np.hstack([rot, (np.asarray(centre) - rot @ mid)[:, None]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    return cv2.warpAffine(image, m, (size, size), flags=flags, borderMode=cv2.BORDER_REPLICATE)


def _pose(
    image: np.ndarray, centre: tuple[float, float], ref: np.ndarray
) -> tuple[float, float, float]:
    """(x, y, twist) at which the cut (:func:`_cut`, FACE_CROP) of the coin near ``centre``
    fits ``ref`` best: within ``ASKEW_SHIFT`` of it, at the best of ``ALIGN_TWISTS`` refined
    by a parabola through its neighbours."""
    size = FACE_CROP + 2 * ASKEW_SHIFT
    fits = [_fit(_cut(image, centre, size, t), ref) for t in ALIGN_TWISTS]
    k = int(np.argmax([f[0] for f in fits]))
    twist = ALIGN_TWISTS[k]
    if 0 < k < len(fits) - 1:
        step = ALIGN_TWISTS[k + 1] - twist
        twist += step * _vertex(fits[k - 1][0], fits[k][0], fits[k + 1][0])
    _, dx, dy = _fit(_cut(image, centre, size, twist), ref)
    a = np.radians(twist)
    x = centre[0] + np.cos(a) * dx - np.sin(a) * dy
    y = centre[1] + np.sin(a) * dx + np.cos(a) * dy
    return float(x), float(y), float(twist)


def _vertex(a: float, b: float, c: float) -> float:
    """Where the parabola through (-1, a), (0, b), (1, c) peaks, within half a step."""
    d = a - 2 * b + c
    return 0.0 if d >= 0 else float(np.clip(0.5 * (a - c) / d, -0.5, 0.5))


def _fit(win: np.ndarray, ref: np.ndarray) -> tuple[float, float, float]:
    """(fit, dx, dy): ``ref``'s best normalised correlation within ``win`` (their fine
    detail inside the coin's disc) and where, sub-pixel (0 when centred), the peak refined
    by a parabola each way.

    >>> rng = np.random.default_rng(0)
    >>> ref = cv2.GaussianBlur(rng.normal(0, 20, (44, 44, 3)).astype(np.float32), (0, 0), 1.5)
    >>> win = cv2.getRectSubPix(ref, (44, 44), (21.5 - 2, 21.5 + 1))  # ref 2 px east, 1 north
    >>> [round(v) for v in _fit(win, ref[4:40, 4:40])]
    [1, 2, -1]
    """
    mask = np.repeat(FACE_MASK, 3, axis=2)  # the coin only, not the grid lines beside it
    r = cv2.matchTemplate(fine_detail(win), fine_detail(ref), cv2.TM_CCORR_NORMED, mask=mask)
    _, best, _, (bx, by) = cv2.minMaxLoc(r)
    h, w = r.shape
    fx = _vertex(r[by, bx - 1], r[by, bx], r[by, bx + 1]) if 0 < bx < w - 1 else 0.0
    fy = _vertex(r[by - 1, bx], r[by, bx], r[by + 1, bx]) if 0 < by < h - 1 else 0.0
    return float(best), bx + fx - (w - 1) / 2, by + fy - (h - 1) / 2


#: How near (relative a, b) every suit's coin ground must lie to every other's for the set
#: to be of one colour (:func:`_one_colour`). Tune calibration photos (round 15), the two
#: grounds farthest apart: woodburned 0-49 1.0-7.2 (four rigs over 5), printplay 0-49
#: 12.2-32.1 (the arts whose suits share one ink; the others are not aligned askew at all).
GROUND_ALIKE = 9.5


def _ground(look: np.ndarray) -> np.ndarray:
    """A coin look's ground colour (relative a, b): the median of its disc."""
    return np.median(look[LOOK_MASK[..., 0] > 0.5], axis=0)[1:]


def _one_colour(coins: dict[str, np.ndarray]) -> bool:
    """Whether every suit's coin (a look at PX, :func:`_coin_looks`) shows the same ground
    within ``GROUND_ALIKE``: a one-colour set (woodburned: every coin the same wood, every
    symbol burnt the same brown), told apart by the symbol's shape alone.

    There a rim circle (``coin_centre``) finds little to tell the rim from a round symbol
    burnt as dark: tune woodburned rig 30's arms rims sat 4-20 px off the coins, every one
    to the north, and the arms look, centred on them, lay about 5 px off its coins (its layout
    refused: 3 arms coins read back as suns). Such a look is centred as its coins lie about
    their cells' middles instead (:func:`_align_askew`): a hand lays them off every way, and
    the median of six lies nearer the coins' middle (tune woodburned rigs 25-34, each suit's
    look centre against its rig's other suits': 0.7 px off, the median, 2.6 at most; centred
    on the rim circles, 1.5 and 5.3).
    """
    grounds = [_ground(c) for c in coins.values()]
    return all(np.linalg.norm(a - b) <= GROUND_ALIKE for a in grounds for b in grounds)


#: Tile crosses a grid in doubt (:class:`GridInDoubt`) must fit for the layout's pieces to
#: decide (the least ``fit_pose`` fits from: a pose fitted on the full frame at all).
FIT_CROSSES = 6
#: How clearly the busy cells must form the calibration layout in its best turn
#: (:func:`_layout_score`) for a photo to be taken as the layout.
LAYOUT_SCORE = 0.3


def _views_and_ratios(frame_bgr: np.ndarray, pose: BoardPose) -> tuple[float, Any, np.ndarray]:
    """(layout score, views, energy ratios) of the board at ``pose``, north as it says."""
    views = board_views(pose.rectify(frame_bgr, FACE_PX, MARGIN))
    e = energies(views.crops)
    floor = max(float(np.median(np.sort(e)[:16])), 1.0)
    return _layout_score(e / floor), views, e / floor


def _layout_turn(frame_bgr: np.ndarray, found: BoardPose) -> tuple[float, Any, Any, np.ndarray]:
    """(layout score, pose, views, energy ratios) of the quarter turn of ``found`` in which
    the busy cells best form the calibration layout."""
    best = None
    for k in range(4):
        pose = found.rotated(k)
        score, views, ratio = _views_and_ratios(frame_bgr, pose)
        if best is None or score > best[0]:
            best = (score, pose, views, ratio)
    return best


def learn_setup(
    frame_bgr: np.ndarray, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]]:
    """Learn a :class:`BoardSetup` from a calibration-layout photo (already undistorted).

    Returns the setup and a report (``north_score``: layout separation in log energy;
    above ~1 is clear). Raises UserError when the board is missing or the layout is wrong,
    or when the grid found may sit a cell off (:func:`_cell_off`) unless the whole layout
    reads back on it and on no grid a cell over (:func:`_whole_here_only`). A grid the finder takes
    for part of a board cut off is still learned where the layout says the whole board is
    in view (:func:`_in_view_after_all`); one it doubts (:class:`GridInDoubt`: a printed
    grid, few crosses, or lines saying a cell off) where the layout shows on it in place.
    A photo so refused is learned on the board found from whole tiles, elsewhere, where the
    whole layout reads back there alone (:func:`_learn_by_tiles`), else on a board outlined
    by its grid's corners shown by tone, where the whole layout reads back at one such place
    alone (:func:`_learn_by_tone`); else on a board outlined by a region of one tile colour,
    where the whole layout reads back at one such place alone (:func:`_learn_by_colour`);
    else the refusal stands. A board whose tiles show their
    cells by tone gets its look recorded (``tone_print``, :func:`tonelock.tone_print
    <piecebridge.vision.tonelock.tone_print>`) for the lock check at later shots.
    """
    try:
        learned = _learn_found(frame_bgr, camera_calibration)
    except UserError as refusal:
        found = _learn_by_tiles(frame_bgr, refusal, camera_calibration)
        if found is None:
            found = _learn_by_tone(frame_bgr, refusal, camera_calibration)
        if found is None:
            found = _learn_by_colour(frame_bgr, refusal, camera_calibration)
        if found is None:
            raise
        learned = found
    # How a board by tone looked here: its lock check at a shot (lines show none on it).
    learned[0].tone_print = tone_print(frame_bgr, learned[0].pose)
    return learned


def _learn_found(
    frame_bgr: np.ndarray, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]]:
    """:func:`learn_setup` on the board :func:`find_board` gives (a thorough search)."""
    # One photo, read once: worth the thorough search (a cell off here spoils every read).
    doubt = None
    try:
        found = find_board(frame_bgr, thorough=True)
    except GridInDoubt as error:
        # Taken for a business card's grid (tune acrylic: a checked cloth beside tiles washed
        # out by glare), or fitting few crosses (glare over a third of the tiles), or its
        # lines saying a cell off where no move holds (:class:`MaybeCellOff`): a board in
        # place still shows the layout's pieces in place, where a card or a grid a cell off
        # cannot (the layout, its read-back and _cell_off decide). A fit needs FIT_CROSSES:
        # with fewer, the pose is the small frame's outline alone (a board cut off, at times).
        if error.pose.crosses_found < FIT_CROSSES:
            raise
        doubt, found = error, error.pose
    except GridCutOff as error:
        return _in_view_after_all(frame_bgr, error, camera_calibration)
    if isinstance(doubt, MaybeCellOff):
        return _in_place_after_all(frame_bgr, doubt, camera_calibration)
    try:
        return _learn_from(frame_bgr, found, doubt, camera_calibration)
    except (LayoutNotSeen, LayoutNotReadBack) as refusal:
        if isinstance(refusal, LayoutNotReadBack) and not _tiles_by_tone(frame_bgr, found):
            raise
        moved = _a_cell_over(frame_bgr, found, camera_calibration)
        if moved is None:
            raise
        return moved


def _tiles_by_tone(frame_bgr: np.ndarray, pose: BoardPose) -> bool:
    """Whether the board at ``pose`` shows its tiles' grid by tone (``TONE_TILES``): a
    board the finder sought by its steps in tone, with no lines to check a cell's shift by
    (the lattice parity is not asked of it), so the layout is the check. A grid a cell off
    beside a gingham of cell-sized squares reads part of the layout back, the rows of coins
    it still covers (tune checkered calibration photo of rig 9: 22 of 28, a column of coins
    beyond its side): the grid a cell over is tried as for a layout not seen
    (:func:`_a_cell_over`)."""
    return tone_tiles_grey(cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY), pose) >= TONE_TILES


#: How near (cells, every corner) the tiles' board lies to the grid a refusal was about for
#: :func:`_learn_by_tiles` to take it for that grid, already judged: fits of one place
#: differ by a tenth or two of a cell, a grid a cell off by one.
SAME_PLACE = 0.5


def _learn_by_tiles(
    frame_bgr: np.ndarray, refusal: UserError, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]] | None:
    """The setup learned on the board found from whole tiles (:func:`board_by_tiles`) where
    the board :func:`find_board` gave was refused (``refusal``), or None: when that board
    lies away from the grid refused (``SAME_PLACE``) and wholly in the frame, passes every
    check :func:`_learn_from` makes, and reads the whole layout back (:func:`_reads_back_whole`)
    there and on no grid a cell over (:func:`_whole_here_only`).

    The line searches can fit a grid that is not the board on a board in view: a grid of
    half the cells' size over the block of coins (tune printplay calibration photos of rigs
    3 and 186, refused as a printed grid), or 5.5 cells off (rig 188), or a cell north and
    past the frame (rig 9). The layout's 28 pieces read back whole on the tiles' board say
    where it lies as well as a grid found first would. The whole layout is asked for, as
    for any grid in doubt: a board found a cell off learns its looks from the very cells it
    reads back.

    Where the tiles' board lies at the grid refused, every stage of their search is tried
    (``every_stage``) before giving up: on a gingham the first stage's tile blobs can fit the
    very grid the finder gave, on the upper tiles alone (tune acrylic rig 1039: 2.6 cells
    off, 23 of 28 read back), where the nets of lines fit the board in place (0.05 cell).
    """
    pose = board_by_tiles(frame_bgr)
    refused = _refused_grid(refusal)
    if pose is not None and _at_grid(pose, refused):
        # The grid refused fitted again: every stage of the tiles' search, for another.
        pose = board_by_tiles(frame_bgr, every_stage=True)
    if pose is None or _at_grid(pose, refused):
        return None  # no other board, or the grid refused fitted again
    learned = _learned_whole_at(frame_bgr, pose, camera_calibration)
    if learned is None:
        return None
    setup, report = learned
    return setup, {**report, "found_by_tiles": True}


def _learned_whole_at(
    frame_bgr: np.ndarray, pose: BoardPose, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]] | None:
    """The setup learned at ``pose`` when it lies wholly in the frame, passes every check
    :func:`_learn_from` makes and reads the whole layout back (:func:`_reads_back_whole`)
    there and on no grid a cell over (:func:`_whole_here_only`); else None. The last word
    for a board found by a second search (:func:`_learn_by_tiles`, :func:`_learn_by_tone`)."""
    try:
        check_in_frame(pose, frame_bgr.shape)
        setup, report = _learn_from(frame_bgr, pose, None, camera_calibration)
    except UserError:
        return None
    if not (_reads_back_whole(report) and _whole_here_only(frame_bgr, pose, camera_calibration)):
        return None
    return setup, report


#: The most outlines of a grid by tone (:func:`boards_by_tone`) :func:`_learn_by_tone`
#: judges: a lattice of corners seen placed more ways is mostly not the board's (tune
#: checkered calibration photo of rig 134, a dark wood's grain: 20 placements, each 5-8
#: cells off); a board's corners under four rows of pieces give one to four.
MOST_TONE_BOARDS = 6


def _learn_by_tone(
    frame_bgr: np.ndarray, refusal: UserError, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]] | None:
    """The setup learned on a board outlined by the corners of its grid shown by tone
    (:func:`boards_by_tone`), or a grid a cell over from one (``MOVES``, fitted by its
    steps, :func:`_refit_moved`), where every other search was refused (``refusal``), or
    None: learned only where exactly one such place shows its tiles by tone
    (``TONE_TILES``), lies away from the grid refused and wholly in the frame, passes every
    check :func:`_learn_from` makes and reads the whole layout back there and on no grid a
    cell over (:func:`_whole_here_only`).

    The board finder takes one grid by tone and checks it: on a calibration photo its
    corners under the four rows of pieces fit several placements and the one taken may
    lie a cell or two off (tune checkered rigs 82, 124, 179); a gingham's squares beyond
    the board can pull the corners' lattice a cell off (66, 170) or make the grid in place
    look part of a larger one (39); a grid of lines refused as printed is never sought by
    tone at all (71, 138, 163). The layout, read back whole at one place alone, says where
    the board lies."""
    boards = boards_by_tone(frame_bgr)
    if not boards or len(boards) > MOST_TONE_BOARDS:
        return None
    places = _places_by_tone(frame_bgr, boards, _refused_grid(refusal))
    learned = [_learned_by_tone_at(frame_bgr, place, camera_calibration) for place in places]
    learned = [found for found in learned if found is not None]
    if len(learned) != 1:
        return None  # no place, or two reading the layout back: which is the board?
    setup, report = learned[0]
    return setup, {**report, "found_by_tone": True}


#: The most boards outlined by tile colour (:func:`boards_by_colour`) that
#: :func:`_learn_by_colour` judges: more is a frame of many tile-like regions, none the board.
MOST_COLOUR_BOARDS = 6


def _learn_by_colour(
    frame_bgr: np.ndarray, refusal: UserError, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]] | None:
    """The setup learned on a board outlined by a region of one tile colour closed over the
    layout's pieces (:func:`boards_by_colour`), where every other search was refused
    (``refusal``), or None: learned only where exactly one such board lies away from the
    grid refused and wholly in the frame, passes every check :func:`_learn_from` makes and
    reads the whole layout back there and on no grid a cell over (:func:`_whole_here_only`).

    Pale tiles with white lines on a gingham under glare (tune acrylic calibration photo of
    rig 7602): the lines' nets break where glare washes them out, the tiles do not come
    apart from the cloth's light squares as blobs, and the tile colour's region, cut into
    pieces by the layout's coins, outlines only the upper half; closed wider, it outlines
    the board. As for the other second searches, the layout read back whole at one place
    alone says the board lies there."""
    boards = boards_by_colour(frame_bgr)
    if not boards or len(boards) > MOST_COLOUR_BOARDS:
        return None
    refused = _refused_grid(refusal)
    learned = [
        _learned_whole_at(frame_bgr, board, camera_calibration)
        for board in boards
        if not _at_grid(board, refused)
    ]
    learned = [found for found in learned if found is not None]
    if len(learned) != 1:
        return None  # no place, or two reading the layout back: which is the board?
    setup, report = learned[0]
    return setup, {**report, "found_by_colour": True}


def _places_by_tone(
    frame_bgr: np.ndarray, boards: list[BoardPose], refused: BoardPose | None
) -> list[BoardPose]:
    """Each board of ``boards`` and each grid a cell over from it (``MOVES``), fitted again
    by its steps (:func:`_refit_moved`) to ``FIT_CROSSES`` at least, one of each place
    (``SAME_PLACE``), none at the grid ``refused`` (already judged)."""
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    places: list[BoardPose] = []
    for board in boards:
        for sx, sy in ((0, 0), *MOVES):
            moved = _refit_moved(gray, board, sx, sy)
            if moved is None or moved.crosses_found < FIT_CROSSES or _at_grid(moved, refused):
                continue
            if any(corner_gap(moved, p.corners, np.max) < SAME_PLACE for p in places):
                continue
            moved.tile_color_lab = board.tile_color_lab
            places.append(moved)
    return places


def _learned_by_tone_at(
    frame_bgr: np.ndarray, pose: BoardPose, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]] | None:
    """The setup :func:`_learn_by_tone` learns at ``pose``, or None (see there)."""
    if not _tiles_by_tone(frame_bgr, pose):
        return None
    return _learned_whole_at(frame_bgr, pose, camera_calibration)


def _at_grid(pose: BoardPose, refused: BoardPose | None) -> bool:
    """Whether ``pose`` lies at the grid ``refused`` (``SAME_PLACE``, every corner)."""
    return refused is not None and corner_gap(pose, refused.corners, np.max) < SAME_PLACE


def _refused_grid(refusal: UserError) -> BoardPose | None:
    """The grid a refusal of :func:`_learn_found` judged by its layout, where it names one:
    not a grid of too few crosses to be fitted (``FIT_CROSSES``: the small frame's outline,
    refused by its lines alone), where the tiles' board fitted in place is worth the look."""
    if isinstance(refusal, FewCrosses) and refusal.pose.crosses_found < FIT_CROSSES:
        return None
    if isinstance(refusal, (GridCutOff, GridInDoubt, LayoutNotSeen, GridMaySitOff)):
        return refusal.pose
    if isinstance(refusal, LayoutNotReadBack):
        return refusal.setup.pose
    return None


def _in_view_after_all(
    frame_bgr: np.ndarray, error: GridCutOff, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]]:
    """The setup learned from a grid the finder took for part of a board cut off
    (``error``), when the grid lies wholly in the frame (:func:`check_in_frame`) and shows
    and reads back the calibration layout with no grid a cell off fitting it as well
    (:func:`_learn_from`); else ``error`` itself.

    A board in view on a table of its tiles' colour can look cut off by its lines and
    colours: a row of the layout's coins hides its lines as a row of table would (tune
    printplay calibration photo of rig 149, the frame's edge a quarter cell beyond the far
    side). The layout tells them apart: a grid over a board's part in view and table shows
    it a row or column off, which reads back no layout. Not moved a cell over
    (:func:`_a_cell_over`): a grid both said cut off and a cell off the layout (rig 9, a
    cell off both ways beside a gingham) was learned right there, but its shots then read
    5 cells of 256 wrong, 20 times the target: a retaken calibration photo is the cheaper
    fault.
    """
    try:
        check_in_frame(error.pose, frame_bgr.shape)
        return _learn_from(frame_bgr, error.pose, None, camera_calibration)
    except UserError:
        raise error from None


def _in_place_after_all(
    frame_bgr: np.ndarray, doubt: MaybeCellOff, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]]:
    """The setup learned from a grid whose lines said it may lie a cell off the board
    (``doubt``, :class:`MaybeCellOff`), when the whole layout reads back on it
    (:func:`_reads_back_whole`, checked in :func:`_learn_from`) and on no grid a cell over
    (:func:`_refit_moved`, each of ``CELL_MOVES``); else ``doubt`` itself.

    The whole layout alone is not enough: tune acrylic calibration photo of rig 204, its
    grid moved a cell north and fitted there, read back all 28 pieces (its layout score
    0.46, the grid in place 2.0); the grid a cell south of it, in place, reads them all
    back too. Grids in place so doubted are learned on 97 of 97 fresh tune acrylic photos
    (rigs 100-149, 300-349) and 66 of 70 of five arts' (the rest refused, a grid a cell over
    reading back whole: a retake costs less than a setup a cell off; round 18 in
    ``benchmarks/results/vision_locate.md``).
    """
    learned = _learn_from(frame_bgr, doubt.pose, doubt, camera_calibration)
    if not _whole_here_only(frame_bgr, doubt.pose, camera_calibration):
        raise doubt
    return learned


def _whole_here_only(
    frame_bgr: np.ndarray, pose: BoardPose, camera_calibration: str | None = None
) -> bool:
    """Whether no grid a cell over from ``pose`` (:func:`_refit_moved`, each of
    ``CELL_MOVES``, fitting ``FIT_CROSSES``) reads the whole layout back
    (:func:`_whole_layout_at`)."""
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    if pose.inverted:
        gray = 255 - gray
    for sx, sy in CELL_MOVES:
        moved = _refit_moved(gray, pose, sx, sy)
        if moved is None or moved.crosses_found < FIT_CROSSES:
            continue
        if _whole_layout_at(frame_bgr, moved, camera_calibration):
            return False
    return True


def _whole_layout_at(
    frame_bgr: np.ndarray, pose: BoardPose, camera_calibration: str | None = None
) -> bool:
    """Whether the board at ``pose`` shows the layout in some quarter turn and reads it
    back whole there (:func:`_reads_back_whole`)."""
    score, turned, views, ratio = _layout_turn(frame_bgr, pose)
    if score < LAYOUT_SCORE:
        return False
    h, w = frame_bgr.shape[:2]
    _, report = _learn_at(views, ratio, turned, (w, h), pose.tile_color_lab, camera_calibration)
    return _reads_back_whole(report)


#: Where (cells east, south) :func:`_a_cell_over` looks for the layout about a board found
#: with none on it: a cell each way and each diagonal way.
MOVES = tuple((sx, sy) for sy in (-1, 0, 1) for sx in (-1, 0, 1) if sx or sy)
#: How far (cells) each fit of a moved grid looks for its crosses (:func:`_refit_moved`),
#: their arms taken as there too (``ONE_TILE_ALONG``): as the board finder's own move of a
#: grid a tile over, to keep it where it was put. (Arms taken whole, tune printplay rig 9's
#: grid moved onto its layout fit 10 crosses and sat 0.26 cell off; inside, 15 and 0.05.)
MOVE_SEARCH = 0.3
#: The most pixels per cell the crosses of a moved grid are measured at (the board finder's
#: full-size stage) and the fewest (small boards).
MOVE_PX = (16, 48)


def _refit_moved(gray: np.ndarray, found: BoardPose, sx: int, sy: int) -> BoardPose | None:
    """``found`` moved ``sx`` cells east and ``sy`` south, fitted to the crosses near it
    (``MOVE_SEARCH``) twice (the first fit from the plain moved homography, the second from
    that fit), or None when too few crosses are seen. The crosses of a board whose tiles
    show their grid by tone (``TONE_TILES``, :func:`tone_tiles_grey`: a checkered board,
    found by :func:`find_board`'s search by tone) are sought as steps in tone
    (:func:`refine_by_tone`): their lines' ridges give next to none, so no grid a cell over
    was ever fitted there (tune checkered calibration photos of rigs 24, 105: a grid a cell
    off, on a gingham of cell-sized squares, refused as showing no layout where the grid a
    cell over reads it all back)."""
    moved = shifted_pose(found, sx, sy)
    moved.k, moved.centre, moved.scale = found.k, found.centre, found.scale
    px = int(np.clip(round(found.cell_size_px()), *MOVE_PX))
    refine = refine_by_tone if tone_tiles_grey(gray, found) >= TONE_TILES else refine_pose
    for _ in range(2):
        moved = refine(gray, moved, px_per_cell=px, search=MOVE_SEARCH, along=ONE_TILE_ALONG)
        if moved is None:
            return None
    return moved


def _a_cell_over(
    frame_bgr: np.ndarray, found: BoardPose, camera_calibration: str | None = None
) -> tuple[BoardSetup, dict[str, Any]] | None:
    """The setup learned with the board a cell over from ``found`` (``MOVES``), where
    ``found`` shows no calibration layout: when exactly one such grid, fitted to its crosses
    (:func:`_refit_moved`) with no fewer of them than ``found`` fitted alike and wholly in
    the frame, passes every check :func:`learn_setup` makes (the layout seen, read back,
    no grid a cell off fitting it as well); else None.

    A printplay board's pale card tiles on a white-and-red gingham, its white squares as
    big as a cell: the grid found took a row (and a column) of gingham in and left the
    board's row of sun coins out, so no layout showed in any turn (tune printplay
    calibration photos of rigs 9 and 185: a cell north-west and a cell north). The layout
    itself says which way the board lies: moved onto it, the grid reads all 28 pieces back.
    """
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    if found.inverted:
        gray = 255 - gray
    in_place = _refit_moved(gray, found, 0, 0)
    least = max(FIT_CROSSES, 0 if in_place is None else in_place.crosses_found)
    learned = []
    for sx, sy in MOVES:
        moved = _refit_moved(gray, found, sx, sy)
        if moved is None or moved.crosses_found < least:
            continue
        try:
            check_in_frame(moved, frame_bgr.shape)
            setup, report = _learn_from(frame_bgr, moved, None, camera_calibration)
        except UserError:
            continue
        learned.append((setup, {**report, "moved_cells": [sx, sy]}))
    return learned[0] if len(learned) == 1 else None


class LayoutNotSeen(UserError):
    """A calibration photo in which the board found (``pose``) shows no calibration layout
    in any quarter turn (:func:`_layout_score` under ``LAYOUT_SCORE``)."""

    def __init__(self, message: str, pose: BoardPose | None = None) -> None:
        super().__init__(message)
        self.pose = pose


class GridMaySitOff(UserError):
    """A calibration photo whose grid (``pose``) may sit a cell off: the layout a cell over
    fits its busy cells as well (:func:`_cell_off`)."""

    def __init__(self, message: str, pose: BoardPose) -> None:
        super().__init__(message)
        self.pose = pose


def _learn_from(
    frame_bgr: np.ndarray,
    found: BoardPose,
    doubt: GridInDoubt | None = None,
    camera_calibration: str | None = None,
) -> tuple[BoardSetup, dict[str, Any]]:
    """:func:`learn_setup` with the board ``found`` at that pose (``doubt``: the grid was
    in doubt, raised again when no layout shows on it)."""
    score, pose, views, ratio = _layout_turn(frame_bgr, found)
    if score < LAYOUT_SCORE and doubt is not None:
        raise doubt
    if score < LAYOUT_SCORE:
        raise LayoutNotSeen(
            "calibration photo does not show the reflec-calibration/1 layout "
            "(coins a1-f4, pawns g1-g4, rest empty)",
            found,
        )
    h, w = frame_bgr.shape[:2]
    setup, report = _learn_at(views, ratio, pose, (w, h), found.tile_color_lab, camera_calibration)
    matched, washed, claimed = report["read_back"], report["washed_out"], report["claimed"]
    unsure = report["unsure_own_suit"]
    if isinstance(doubt, MaybeCellOff) and not _reads_back_whole(report):
        # Its lines said a cell off: only the whole layout, read back in place, says not
        # (refused with the finder's own message: retake with table round the board).
        raise doubt
    if not _reads_back(report):
        # A board found a row off, or a layout not as the spec says: a setup learned from
        # it would misread every later frame, so refuse it rather than mislead.
        misread = misreads(frame_bgr, setup)
        raise LayoutNotReadBack(
            f"calibration photo does not read back as the reflec-calibration/1 layout "
            f"({matched}/28 pieces found where expected, {washed} more under glare, {unsure} "
            f"unsure as their own suit, {claimed} pieces on empty cells"
            + (f"; read otherwise: {misread}" if misread else "")
            + "); "
            + _retake_hint(report),
            setup,
        )
    off = _cell_off(frame_bgr, pose)
    if off is not None and not (
        _reads_back_whole(report) and _whole_here_only(frame_bgr, pose, camera_calibration)
    ):
        # Refused, not moved: a setup a cell off misreads every later frame without a word.
        # Learned only where the whole layout reads back, and on no grid a cell over.
        raise GridMaySitOff(
            f"calibration photo: the board's grid may sit off (a grid {off} fits the "
            "layout's pieces as well); retake it with the whole board in view",
            pose,
        )
    report = {
        "north_score": round(score, 3),
        "crosses_found": found.crosses_found,
        "lens_k": round(found.k, 3),
        **{k: v for k, v in report.items() if k != "claimed"},
    }
    return setup, report


class LayoutNotReadBack(UserError):
    """A calibration photo whose layout does not read back with what was learned from it;
    ``setup`` is the refused setup, for a picture of what was read (:func:`annotate`)."""

    def __init__(self, message: str, setup: BoardSetup) -> None:
        super().__init__(message)
        self.setup = setup


def misreads(frame_bgr: np.ndarray, setup: BoardSetup, most: int = 2) -> str:
    """The layout's pieces read otherwise with ``setup``, the ``most`` commonest confusions
    first, in words ("" when every piece reads as the layout says). What the refusal of a
    calibration photo names, so that a user sees which pieces failed: the picture
    :func:`annotate` draws shows the same reading."""
    from collections import Counter

    rect = setup.pose.rectify(frame_bgr, FACE_PX, MARGIN)
    decisions = classify(rect, PieceLooks.of(setup.looks), setup.pose.inverted)
    layout = calibration_layout()
    wrong: Counter[tuple[str, str]] = Counter()
    for d in decisions:
        want = layout.get(d.cell)
        if want is None or (d.kind, d.suit) == want:
            continue
        got = {"empty": "as no piece", "unknown": "undecided"}.get(d.kind, f"as {d.suit} {d.kind}s")
        wrong[(f"{want[1]} {want[0]}s", got)] += 1
    return ", ".join(f"{n} {what} {got}" for (what, got), n in wrong.most_common(most))


def _learn_at(
    views: BoardViews,
    ratio: np.ndarray,
    pose: BoardPose,
    size: tuple[int, int],
    tile_color_lab: np.ndarray | None,
    camera_calibration: str | None = None,
) -> tuple[BoardSetup, dict[str, Any]]:
    """The setup learned with the board at ``pose`` (north as it says), and a report of the
    photo read back with it (``read_back``, ``washed_out``, ``unsure_own_suit``, ``claimed``: see
    :func:`_read_back`)."""
    crops = views.crops
    layout = calibration_layout()
    index = {c: i for i, c in enumerate(CELL_ORDER)}
    coins, pawns, faces, centres = {}, {}, {}, {}
    cells = {s: [index[c] for c, (k, t) in layout.items() if k == "coin" and t == s] for s in SUITS}
    for suit in SUITS:
        coins[suit], faces[suit], centres[suit] = _coin_looks(views, cells[suit])
        pawns[suit] = crops[index[f"g{SUITS.index(suit) + 1}"], CENTRE_SHIFT]
    # Suits told apart by shape alone (one ink, see ink_alike) are learned again with each
    # coin turned to fit the others: a look blurred by coins laid askew reads as another
    # suit of that ink (tune woodburned rigs 8, 17: refused; 9, 11, 18, 23, 25: 2-6 arms
    # coins read back as suns). The other suits' colour tells them apart, and their reads
    # are tuned on looks aligned by shift alone (every suit learned so, round 13: tune
    # acrylic 0-49 4 cells newly wrong, mixed 0-79 and piecepackr 0-34 1 each).
    one_colour = _one_colour(coins)
    for suit, alike in ink_alike(PieceLooks(coins, pawns, learned=True)).items():
        if alike:
            coins[suit], faces[suit], centres[suit] = _coin_looks(
                views, cells[suit], askew=True, one_colour=one_colour
            )
    occ = np.array([c in layout for c in CELL_ORDER])
    hi_empty = float(np.percentile(ratio[~occ], 95))
    lo_occ = float(np.min(ratio[occ]))
    # Threshold between the busiest empty cell and the quietest piece (a weighted geometric
    # mean, nearer the empty side: pieces lose contrast under glare and blur, tiles less),
    # kept within sane bounds so one odd cell cannot set it.
    empty_ratio = float(np.clip(max(hi_empty, 1.0) ** 0.65 * lo_occ**0.35, 1.8, 6.0))
    shapes = _mark_shapes(views, centres)
    marked, spots = _marked(views, centres, shapes)
    looks = PieceLooks(
        coins,
        pawns,
        faces,
        empty_ratio=empty_ratio,
        learned=True,
        marked=marked,
        mark_spots=spots,
        mark_shapes=shapes,
        pawns_on_tone=_pawns_on_tone(views, occ),
    )
    looks.turn_alike = _turn_alike(looks)
    # What shows the tiles' cell boundaries (printed lines, tone steps): the read-back and
    # every later read judge covered cells by it.
    lines_dark = 255 - views.light if pose.inverted else views.light
    looks.boundary = boundary_cue(lines_dark, FACE_PX, MARGIN, ~occ)
    setup = BoardSetup(pose, size, tile_color_lab, looks, camera_calibration)
    back = _read_back(views, setup, centres)
    report = {
        "empty_ratio": round(empty_ratio, 3),
        "busiest_empty": round(hi_empty, 3),
        "quietest_piece": round(lo_occ, 3),
        "read_back": back.matched,
        "washed_out": back.washed,
        "unsure_own_suit": back.unsure,
        "read_by_face": back.by_face,
        "claimed": back.claimed,
        "misnamed": back.misnamed,
    }
    # Read back as the layout is checked (a grid found a cell off learns it from the wrong
    # cells), used from then on: burnt one-brown symbols show little detail.
    looks.detail_empty = learned_detail_empty(detail_ratios(views), occ)
    return setup, report


def _retake_hint(report: dict[str, Any]) -> str:
    """What to change when a calibration photo does not read back (:func:`_reads_back`).

    >>> _retake_hint({"washed_out": 0, "misnamed": 3})
    'two suits looked alike: retake it with each coin face up and centred in its cell'
    """
    if report["washed_out"] >= MAX_WASHED_OUT:
        return "retake it with less glare on the board"
    if report.get("misnamed", 0) > MAX_MISNAMED:
        return "two suits looked alike: retake it with each coin face up and centred in its cell"
    return "is the whole board in view and the layout as specified?"


def _reads_back(report: dict[str, Any]) -> bool:
    """Whether a photo's read-back (:func:`_learn_at`'s report) is the layout's."""
    matched = report["read_back"]
    return (
        matched + min(report["washed_out"], MAX_WASHED_OUT) >= MIN_READ_BACK
        and matched >= MIN_READ_BACK - MAX_WASHED_OUT
        and report["claimed"] <= MAX_EMPTY_CLAIMED
        and report.get("misnamed", 0) <= MAX_MISNAMED
    )


def _reads_back_whole(report: dict[str, Any]) -> bool:
    """Whether a photo's read-back (:func:`_learn_at`'s report) found every piece of the
    layout where expected (or washed out by glare there), none unsure as its own suit: what
    a grid in doubt of lying a cell off (:class:`MaybeCellOff`, or :func:`_cell_off` naming
    a shift) must show to be learned in place, with no grid a cell over showing it too
    (:func:`_whole_here_only`).

    A grid a cell off can pass :func:`_reads_back`, the looks being learned on the very
    cells read back, and :func:`_cell_off`: tune acrylic calibration photos (rigs 15-49,
    150-199), the grid found moved a cell each way and fitted there, 12 of 332 were
    learned so, every one a piece or more short (22-27 read back, 0-2 under glare) and 11
    with pieces unsure as their own suit (1-4); the grids in place, 83 of 83 whole (28, or
    27 and 26 with the rest under glare), none unsure.

    >>> _reads_back_whole({"read_back": 27, "washed_out": 1, "unsure_own_suit": 0})
    True
    >>> _reads_back_whole({"read_back": 27, "washed_out": 0, "unsure_own_suit": 0})
    False
    >>> _reads_back_whole({"read_back": 28, "washed_out": 0, "unsure_own_suit": 1})
    False
    """
    whole = report["read_back"] + report["washed_out"] >= len(_LAYOUT)
    return whole and report["unsure_own_suit"] == 0


#: The calibration layout's pieces, cell -> (kind, suit).
_LAYOUT = calibration_layout()


#: Cells of table around the board that :func:`_busy_map` takes in: room for the layout moved
#: by a tile (two cells) each way.
RING = 2
#: The cells' central discs, as ``cells.energies`` takes them (clear of the printed lines).
_BUSY_DISC = disc(PX, ENERGY_RADIUS * PX) > 0
#: How near (Lab, lightness at half weight) the colour of a cell's corners must be to the
#: board's typical one for a cell around the board to count as tile (:func:`_busy_map`).
TILE_LIKE = 20.0
#: A cell's corners: beyond this radius (cells) from its centre, clear of a coin (0.375).
_CORNERS = ~(disc(PX, 0.45 * PX) > 0)


def _busy_map(frame_bgr: np.ndarray, pose: BoardPose) -> tuple[np.ndarray, np.ndarray]:
    """Log structure (as ``cells.energies``: RMS about the mean inside a central disc, Lab
    with chroma weighted) of every cell of the board at ``pose`` and of ``RING`` cells
    around it, (N + 2 RING) square, north-west first; and which of them are board: those of
    the board at ``pose``, and those around whose corners (where a piece seldom reaches)
    show the board's typical tile colour (``TILE_LIKE``)."""
    n = N + 2 * RING
    cells, tile = _ring_lab(frame_bgr, pose)
    inside = np.zeros((n, n), bool)
    inside[RING : RING + N, RING : RING + N] = True

    def tile_like(px: np.ndarray, inner: np.ndarray | None = None) -> bool:
        if _lab_far(_lab_off(px, tile)) < TILE_LIKE:
            return True
        # Beside the grid, a line as its neighbour inside the grid where that one is the
        # tile lit more (glare lifts lightness, keeps the hue): glare over a side washes
        # both alike (tune acrylic glare=0.7 rig 2, the grid a cell east: the real first
        # column 23.6 from the typical tile, 1.5 from the grid's own first column). A grid
        # that took table in has table as that neighbour, darker or of another hue.
        if inner is None:
            return False
        lit = _lab_off(inner, tile)
        return (
            lit[0] > 0
            and _lab_far(lit * [0, 1, 1]) < TILE_LIKE / 2
            and _lab_far(_lab_off(px, np.median(inner.reshape(-1, 3), axis=0))) < TILE_LIKE / 2
        )

    # A line of cells beside the board is tile when its corners are, taken together: a coin
    # or a pawn's lean, or a tile gap, may change one cell's (tune acrylic rig 106, a grid a
    # tile off); a cell beyond two sides at once is taken alone.
    board = inside.copy()
    beside = {RING - 1: RING, RING + N: RING + N - 1}  # ring line -> the grid's line by it
    for k in [*range(RING), *range(RING + N, n)]:
        near = beside.get(k)
        col_in = None if near is None else cells[RING : RING + N, near][:, _CORNERS]
        row_in = None if near is None else cells[near, RING : RING + N][:, _CORNERS]
        board[RING : RING + N, k] = tile_like(cells[RING : RING + N, k][:, _CORNERS], col_in)
        board[k, RING : RING + N] = tile_like(cells[k, RING : RING + N][:, _CORNERS], row_in)
        for j in [*range(RING), *range(RING + N, n)]:
            board[k, j] = tile_like(cells[k, j][_CORNERS])
    # Past the frame the rectification repeats the photo's edge, pieces and tiles included:
    # nothing there is seen (tune acrylic calibration photo of rig 1 at 1280x720, its south
    # row cut by the frame: the layout a cell south fit the repeated row).
    board &= _in_frame(frame_bgr, pose)
    cells = cells[:, :, _BUSY_DISC]
    cells -= cells.mean(axis=2, keepdims=True)
    busy = np.log(np.maximum(np.sqrt((cells**2).sum(axis=-1).mean(axis=-1)), 1.0))
    return busy, board


def _ring_lab(frame_bgr: np.ndarray, pose: BoardPose) -> tuple[np.ndarray, np.ndarray]:
    """The board at ``pose`` and ``RING`` cells around it rectified at ``PX``, slightly
    blurred, as Lab with chroma weighted, cell by cell ((N + 2 RING) square of PX x PX
    cells, north-west first), and the board's typical tile colour: the median of its
    cells' corners (``_CORNERS``, where a piece seldom reaches)."""
    n = N + 2 * RING
    rect = cv2.GaussianBlur(pose.rectify(frame_bgr, PX, RING), (0, 0), 0.8)
    lab = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 1:] *= CHROMA_WEIGHT
    cells = lab.reshape(n, PX, n, PX, 3).transpose(0, 2, 1, 3, 4)
    tile = np.median(cells[RING : RING + N, RING : RING + N][:, :, _CORNERS].reshape(-1, 3), axis=0)
    return cells, tile


def _lab_off(px: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """The median colour of pixels ``px`` (Lab, ..., 3) less ``ref``."""
    return np.median(px.reshape(-1, 3), axis=0) - ref


def _lab_far(d: np.ndarray) -> float:
    """A Lab difference's size as :func:`_busy_map` weighs it (lightness at half)."""
    return float(np.hypot(0.5 * d[0], np.hypot(d[1], d[2])))


#: How far (as :func:`_lab_far`) a line of cells beside the board must lie from the tiles' typical
#: colour to be clearly table (:func:`_clear_table`): twice ``TILE_LIKE``. Tune calibration
#: photos, a board's own edge column taken for table by ``TILE_LIKE``: 20.2-20.6 (acrylic rigs
#: 3, 44, the grid moved a cell or a tile off); a dark wood beside printplay tiles 55 (rig 30).
TABLE_FAR = 2 * TILE_LIKE


def _clear_table(frame_bgr: np.ndarray, pose: BoardPose) -> np.ndarray:
    """Which cells of a :func:`_busy_map` (the board at ``pose`` and ``RING`` cells around)
    are clearly table: in a line beside the board (a column or row of ``RING`` around, along
    the board's side) whose cells' corners, taken together, lie ``TABLE_FAR`` or more from
    the tiles' typical colour, and in the frame (past it the rectification repeats the
    photo's edge)."""
    n = N + 2 * RING
    cells, tile = _ring_lab(frame_bgr, pose)
    table = np.zeros((n, n), bool)
    side = slice(RING, RING + N)
    for k in [*range(RING), *range(RING + N, n)]:
        table[side, k] = _lab_far(_lab_off(cells[side, k][:, _CORNERS], tile)) >= TABLE_FAR
        table[k, side] = _lab_far(_lab_off(cells[k, side][:, _CORNERS], tile)) >= TABLE_FAR
    return table & _in_frame(frame_bgr, pose)


def _placement_fit(busy: np.ndarray, sx: int, sy: int, board: np.ndarray | None = None) -> float:
    """How busier the layout's cells are than the rest (mean log structure) with the layout
    placed ``sx`` cells east and ``sy`` south of the board on a :func:`_busy_map`, over its
    ``board`` cells (default all); -inf when that puts a piece off them. The layout's pieces
    stand on tiles: a table as busy as the pieces (a checked cloth) would make a placement
    onto it fit as well, and one half off the board is judged on the half left on it (tune
    acrylic calibration photo of rig 6 at the strongest glare: the layout a tile south fit
    its two rows left on the board better than in place, the glare washing the third out).

    >>> occ = np.array([c in calibration_layout() for c in CELL_ORDER]).reshape(N, N)
    >>> busy = np.pad(occ.astype(float), RING)
    >>> _placement_fit(busy, 0, 0), round(_placement_fit(busy, 1, 0), 3)  # 4 of 28 moved off
    (1.0, 0.823)
    """
    occ = np.array([c in calibration_layout() for c in CELL_ORDER]).reshape(N, N)
    want = np.zeros(busy.shape, bool)
    want[RING + sy : RING + sy + N, RING + sx : RING + sx + N] = occ
    counted = np.ones(busy.shape, bool) if board is None else board
    if (want & ~counted).any():
        return -np.inf  # pieces stand on tiles, not on the table
    return float(busy[want].mean() - busy[~want & counted].mean())


def _cell_off(frame_bgr: np.ndarray, pose: BoardPose) -> str | None:
    """Where (``"a cell east"`` ...: ``CELL_SHIFTS``) the layout placed off the board at
    ``pose`` fits its busy cells (:func:`_busy_map`) as well as in place or better, or None.

    A grid a cell off passes the read-back: the looks are learned on the very cells read
    back, so a grid a column east learns the pawns' looks from empty cells, which the empty
    cells then read back as (tune acrylic calibration photo of rig 327 at ``58a8258``: a
    setup a cell east read back 24 of 28). Nor do the board's cells alone tell: pawns seen
    at a slant lean into the empty column beside them, which then looks as busy as a pawn
    (tune piecepackr rig 30: the layout a cell east fits its 64 cells better). The tiles
    around do: a grid a column east leaves the layout's first column of coins beyond it.
    Placed on the same cells, in place against moved, tune calibration photos of the three
    arts fit best in place (``benchmarks/results/vision_locate.md``, round 10)."""
    busy, board = _busy_map(frame_bgr, pose)
    mine = _placement_fit(busy, 0, 0, board)
    table = None  # measured only for a placement that fits as well (seldom)
    for (sx, sy), name in CELL_SHIFTS.items():
        if _placement_fit(busy, sx, sy, board) < mine:
            continue
        if table is None:
            table = _clear_table(frame_bgr, pose)
        if not _onto_table(sx, sy, table):
            return name
    return None


def _in_frame(frame_bgr: np.ndarray, pose: BoardPose) -> np.ndarray:
    """Which cells of a :func:`_busy_map` (the board at ``pose`` and ``RING`` cells around)
    have their middle inside the frame: past it the rectification repeats the photo's edge,
    so nothing there is seen, tile or table."""
    n = N + 2 * RING
    h, w = frame_bgr.shape[:2]
    at = np.stack(np.meshgrid(np.arange(n), np.arange(n)), -1).reshape(-1, 2) - RING + 0.5
    x, y = pose.to_image(at).T
    return ((x >= 0) & (x < w) & (y >= 0) & (y < h)).reshape(n, n)


def _onto_table(sx: int, sy: int, table: np.ndarray) -> bool:
    """Whether the board moved ``sx`` cells east and ``sy`` south takes in cells of
    ``table`` (a :func:`_busy_map`'s cells that are clearly table: :func:`_clear_table`).

    Such a move is no board a cell over: the layout placed there may fit the busy cells as
    well (tune printplay calibration photo of rig 30: its pawns, seen at a slant, lean
    into column h, and the layout a cell east fit as well), but the board under it would
    take in a column of dark wood. The right grid moved a cell or a tile each way, on tune
    calibration photos of every art (587 photos, 4,696 moves), is never refused so.

    >>> table = np.zeros((N + 2 * RING,) * 2, bool)
    >>> table[:, -RING] = True  # a column of table a cell east of the board
    >>> _onto_table(1, 0, table), _onto_table(-1, 0, table), _onto_table(0, 0, table)
    (True, False, False)
    """
    block = np.zeros(table.shape, bool)
    block[RING + sy : RING + sy + N, RING + sx : RING + sx + N] = True
    return bool((block & table).any())


#: Grid shifts (canonical cells: x east, y south) that :func:`_cell_off` tries: a cell (the
#: lattice's parity) and a tile (the tiles repeat every two cells) each way.
CELL_SHIFTS = {
    (sx * n, sy * n): f"a {what} {side}"
    for n, what in ((1, "cell"), (2, "tile"))
    for (sx, sy), side in (
        ((1, 0), "east"),
        ((-1, 0), "west"),
        ((0, 1), "south"),
        ((0, -1), "north"),
    )
}


#: A suit's separate mark is trusted when it reads at least half of its six
#: calibration coins as north, clearly (art whose symbol has small loose parts fails this).
MIN_MARKS_READ = 3


def _marked(
    views: BoardViews,
    centres: dict[str, list[tuple[float, float]]],
    shapes: tuple[str, ...] = (),
) -> tuple[tuple[str, ...], dict[str, tuple[float, float]]]:
    """Suits whose coins' small separate mark (see ``cells.mark_facing``) reads as north
    on at least ``MIN_MARKS_READ`` of their calibration coins (all face north there), and
    for each such suit where its mark sits: the median (distance from the coin's centre,
    area) of those reads (``PieceLooks.mark_spots``).

    ``centres``: per suit, its calibration coins' centres as the looks were cut out
    (:func:`_coin_looks`), so the mark is measured from the centre the look is read from;
    a rim circle snapped onto a round symbol would put the mark outside the searched ring.
    Where that centre misses the mark and the symbol is round, the read is from the
    symbol's centre (:func:`_calibration_mark`), for suits whose mark is not learned as a
    shape (``shapes``, see :func:`_mark_shapes`): that mark is read from the look's centre
    as cut, and a blob mark learned beside it from another centre costs coins (tune
    piecepackr 71: its suns, turn-alike looks cut 2.3 px off, were read by the shape; their
    blob reads, right, were then vetoed by the look's wrong lead: 5 coins right -> unknown)."""
    out, spots = [], {}
    for suit in SUITS:
        recentre = suit not in shapes
        reads = [_calibration_mark(views, c, recentre) for c in centres[suit]]
        north = [(r, a, e) for f, lead, r, a, e in reads if f == "north" and lead >= MARK_SURE]
        if len(north) >= MIN_MARKS_READ:
            out.append(suit)
            spots[suit] = tuple(float(v) for v in np.median(np.array(north), axis=0))
    return tuple(out), spots


def _calibration_mark(
    views: BoardViews, c: tuple[float, float], recentre: bool = True
) -> tuple[str | None, float, float, float, float]:
    """``mark_blob`` of a calibration coin centred at ``c``; where it finds no sure mark and
    the coin's symbol is round, read again from the symbol's centre (``round_symbol_centre``).
    A look cut a few pixels off a sun's centre (tune piecepackr 71: 2.3 px, 34: 5.5 px) puts
    its dot past the searched ring, or clipped to a speck at the disc's edge, on five of six
    coins: the suit's mark went unlearned and its coins' facing unread in every shot."""
    read = mark_blob(views, c)
    if not recentre or (read[0] is not None and read[1] >= MARK_SURE):
        return read
    centre = round_symbol_centre(views, c)
    return read if centre is None else mark_blob(views, centre)


#: A suit's mark is learned as a shape (``facing.mark_template``) when every one of its
#: calibration coins, read with the template of the other five, names north by at least
#: this lead (``facing.learned_mark_read``): the coins agree on a mark. Tune, reads of coins
#: of the rigs' suits at a lead of 0.15 (woodburned, printplay, piecepackr 0-24): all six
#: north 3,495 right / 1 wrong; five of six 192 / 2.
MARK_SHAPE_AGREE = 0.0


def _mark_shapes(
    views: BoardViews, centres: dict[str, list[tuple[float, float]]]
) -> tuple[str, ...]:
    """Suits whose calibration coins agree on a directional mark, whatever its shape (a dot,
    a triangle, a bar, a chevron, an arrow): each coin, cut at its centre as the look was
    (see :func:`_marked`), read by the mark template (``facing.mark_template``) of the
    median of the other coins' cuts, names north by ``MARK_SHAPE_AGREE``. They all face
    north in the layout; where they do not agree, the look's top differs from its sides by
    what one coin shows (a scratch, glare), not by a mark (``PieceLooks.mark_shapes``)."""
    p = MARK_SHIFT
    out = []
    for suit in SUITS:
        cuts = [_cut(views.rel_hi, c, FACE_CROP + 2 * p) for c in centres[suit]]
        if len(cuts) < 2:
            continue
        agree = True
        for j, cut in enumerate(cuts):
            rest = np.median([c[p:-p, p:-p] for k, c in enumerate(cuts) if k != j], axis=0)
            facing, lead = learned_mark_read(mark_scores(cut, mark_template(rest)))
            if facing != FACINGS[0] or lead < MARK_SHAPE_AGREE:
                agree = False
                break
        if agree:
            out.append(suit)
    return tuple(out)


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
#: one. (Tune acrylic rig 398: glare over a third of the layout, 21 read back, 7 washed out;
#: the setup then reads its four shots with no wrong cell.)
#:
#: Pieces read unsure as their own suit (best look their own suit's, the other kind or
#: under the similarity bar: a dark coin seen as its dark pawn) are reported, not counted
#: (round 10): a grid a column or two off reads just that, as the layout's rows are its
#: suits (tune acrylic rig 106 with the grid a tile east: 20 read back and 4 such).
MAX_WASHED_OUT = 4
#: The most layout pieces the read-back may read, sure, as a piece of another suit. More
#: say the looks themselves confuse two suits, and every later frame would name them wrong
#: without a word: tune woodburned rig 30 (its arms coins' rim circles 8-13 px off, the
#: arms look blurred) read back 24 of 28 with 3 arms coins decided as suns, and then named
#: its arms coins suns in every shot (7 cells wrong in four shots). Every other tune
#: calibration photo read so (woodburned 0-49, mixed 0-39, acrylic 0-49, piecepackr 0-34,
#: printplay 0-29) reads none; one is let pass as a stray.
MAX_MISNAMED = 1


class ReadBack(NamedTuple):
    """The calibration photo read back with what was just learned from it
    (:func:`_read_back`; see ``MAX_WASHED_OUT``).

    >>> ReadBack(26, 1, 1, 0, 2).matched
    26
    """

    #: The layout's pieces read as the layout says (kind and suit).
    matched: int
    #: The layout's pieces glare washed out, read as no piece.
    washed: int
    #: The layout's pieces read unsure as their own suit (not counted).
    unsure: int
    #: Empty cells read as a piece.
    claimed: int
    #: Of ``matched``, the coins read by their faces (:func:`_faces_agree`).
    by_face: int
    #: The layout's pieces surely read as a piece of another suit (``MAX_MISNAMED``).
    misnamed: int = 0


def _read_back(
    views: BoardViews,
    setup: BoardSetup,
    centres: dict[str, list[tuple[float, float]]] | None = None,
) -> ReadBack:
    """The calibration photo itself read with what was just learned from it
    (:class:`ReadBack`: see ``MAX_WASHED_OUT``).

    ``centres`` (per suit, its coins' centres as :func:`_coin_looks` cut them out): a
    layout coin the cell reading takes for a piece of its own suit all the same, but not
    the coin (its pawn, or under the similarity bar), counts as read when its face at its
    own centre is its suit's (:func:`_faces_agree`) and its cell's middle lies in the
    frame: past it the rectification repeats the photo's edge, alike in every cell there
    (tune piecepackr calibration photo of rig 39 with the grid a tile south: two rows of
    the photo's edge repeated, read back 28 by their "faces")."""
    layout = calibration_layout()
    looks = PieceLooks.of(setup.looks)
    agree, seen = {}, {}
    if centres is not None:
        agree = _faces_agree(views, centres)
        seen = _cells_in_frame(setup.pose, setup.image_size)
    matched = washed = unsure = claimed = by_face = misnamed = 0
    for d in decide_all(measure(views, looks, setup.pose.inverted), looks):
        want = layout.get(d.cell)
        if want is None:
            claimed += d.kind in ("coin", "pawn")
            continue
        misnamed += _misnamed(d, want)
        how = _read_as(d, want, looks, agree.get(d.cell, False) and seen[d.cell])
        matched += how in ("read", "by face")
        by_face += how == "by face"
        washed += how == "washed out"
        unsure += how == "unsure"
    return ReadBack(matched, washed, unsure, claimed, by_face, misnamed)


#: A layout coin whose suit the fine look read (``CellDecision.fine_lead``, see
#: ``cells._fine_suits``) counts as read back only when that look's leader is its suit by
#: this lead, as a reading decides it; a nearer tie is reported unsure. Tune woodburned rigs
#: 9 and 11 (their looks blurred, round 12) read back 24 and 25 of 28 by three such guesses
#: each (leads 0.01-0.06, FINE_SUIT_LEAD 0.1 then); with aligned looks (round 13) the
#: closest own-suit lead on tune woodburned 0-29 is 0.003 (one coin), then 0.04-0.1 (5
#: coins), and all 30 read back.
READ_BACK_FINE_LEAD = FINE_SUIT_LEAD


def _misnamed(d: CellDecision, want: tuple[str, str]) -> bool:
    """Whether the read-back names the layout piece ``want`` (kind, suit) as another suit:
    decided so, or a coin of a suit sharing its ink whose fine look leads with another suit
    at any lead (``CellDecision.fine_lead``). Undecided in play, the latter still says the
    looks confuse two suits: tune woodburned rig 30 (its arms look blurred) read 3 arms coins
    as suns, decided at ``FINE_SUIT_LEAD`` 0.05 but not at 0.1 (the reviewer); counted so, it
    is refused at either.

    >>> d = CellDecision("a1", "unknown", best=("coin", "suns"), fine_lead=0.02)
    >>> _misnamed(d, ("coin", "arms")), _misnamed(d, ("coin", "suns"))
    (True, False)
    """
    if d.kind in ("coin", "pawn"):
        return d.suit != want[1]
    return d.fine_lead >= 0 and d.best[:1] == ("coin",) and d.best[1] != want[1]


def _read_as(d: CellDecision, want: tuple[str, str], looks: PieceLooks, by_face: bool) -> str:
    """How the read-back counts a layout piece ``want`` (kind, suit) read as ``d``: "read"
    (kind and suit its best look, fitting at ``min_similarity``; facing is what the setup is
    about to learn), "against" (surely no piece, or another suit), "by face" (its face at its
    own centre is its suit's, ``by_face``: see :func:`_faces_agree`), "washed out" (glare,
    see ``MAX_WASHED_OUT``) or "unsure" (its own suit's, but not by the bars above).

    >>> looks = PieceLooks({}, {}, learned=True)
    >>> d = CellDecision("a1", "unknown", similarity=0.9, best=("coin", "suns"), fine_lead=0.2)
    >>> _read_as(d, ("coin", "suns"), looks, by_face=False)
    'read'
    >>> d.fine_lead = 0.01  # the fine look's leader, by a near tie
    >>> _read_as(d, ("coin", "suns"), looks, by_face=True)
    'unsure'
    """
    tie = 0 <= d.fine_lead < READ_BACK_FINE_LEAD
    if d.best == want and d.similarity >= looks.min_similarity and not tie:
        return "read"
    if d.kind == "empty" and d.confidence > 0.5:
        return "against"
    if by_face and d.best[1:] == want[1:] and not tie:
        return "by face"
    if d.glared and d.kind in ("unknown", "empty"):
        return "washed out"
    # Its own suit (best is () when none fits).
    return "unsure" if d.best[1:] == want[1:] else "against"


def _cells_in_frame(pose: BoardPose, size: tuple[int, int]) -> dict[str, bool]:
    """Per cell (name), whether its middle at ``pose`` lies in a frame of ``size`` (w, h)."""
    at = np.array([((i % N) + 0.5, (i // N) + 0.5) for i in range(N * N)])
    x, y = pose.to_image(at).T
    inside = (x >= 0) & (x < size[0]) & (y >= 0) & (y < size[1])
    return dict(zip(CELL_ORDER, inside.tolist(), strict=True))


#: See :func:`_faces_agree`: the least normalised correlation (fine detail inside the coin
#: disc) of each of a suit's six calibration coins' cut-outs with the look of the other
#: five. Tune calibration photos (round 11; acrylic rigs 0-59, piecepackr and mixed 0-29,
#: 111 calibrated): the least of a suit's six is 0.5 or more for 94 % of suits (acrylic),
#: 86 % (piecepackr), 94 % (mixed); with the grid a column east or west, at most 0.41 (888
#: suits' rows: a pawn or empty tile among the six).
FACE_AGREE = 0.5
#: ... and the median distance (cells) of the six coins' centres from their cells' middles
#: must be at most this. Tune calibration photos (round 11): 0.14 at most in acrylic's
#: realistic mix (192 suits); tune acrylic tilt=1 rig 66, its south rows of tiles fitted
#: 0.3-0.44 cell off, 0.31 and 0.38 (the cell reading missed 6 coins there; counted by
#: their faces, that grid was learned).
FACE_GRID_OFF = 0.2


def _cell_middle(i: int) -> tuple[float, float]:
    """Cell ``i``'s middle in the rectified board at FACE_PX (as ``coin_centre`` measures)."""
    return ((MARGIN + i % N + 0.5) * FACE_PX, (MARGIN + i // N + 0.5) * FACE_PX)


def _faces_agree(
    views: BoardViews, centres: dict[str, list[tuple[float, float]]]
) -> dict[str, bool]:
    """Per layout coin (cell name), whether its suit's six coins' cut-outs at their own
    centres each fit the look of the other five (median, as :func:`_coin_looks` makes a
    look) by ``FACE_AGREE`` or more, and better than any other suit's look.

    A coin laid off its cell's middle reads, in its cell's window, as a piece at the
    window's edge, like a pawn leaning away from the camera: a dark coin was then taken for
    its own suit's pawn (tune acrylic calibration photos, round 10: 53 of 300 read pieces
    unsure as their own suit, nearly all moons coins taken for their pawn). Its face, cut
    out where its rim is, is its suit's all the same."""
    layout = calibration_layout()
    mask = np.repeat(FACE_MASK, 3, axis=2)
    cuts, faces, offs = {}, {}, {}
    for suit in SUITS:
        cells = [c for c, (kind, s) in layout.items() if kind == "coin" and s == suit]
        middles = [_cell_middle(CELL_ORDER.index(c)) for c in cells]
        offs[suit] = float(np.median(np.hypot(*(np.subtract(centres[suit], middles).T))) / FACE_PX)
        cut = [cv2.getRectSubPix(views.rel_hi, (FACE_CROP, FACE_CROP), c) for c in centres[suit]]
        cuts[suit] = list(zip(cells, cut, strict=True))
        faces[suit] = fine_detail(np.median(cut, axis=0).astype(np.float32))

    def fit(cut: np.ndarray, face: np.ndarray) -> float:
        return float(cv2.matchTemplate(cut, face, cv2.TM_CCORR_NORMED, mask=mask)[0, 0])

    agree = {}
    for suit in SUITS:
        fits = []
        for k, (_, cut) in enumerate(cuts[suit]):
            others = [c for j, (_, c) in enumerate(cuts[suit]) if j != k]
            own = fine_detail(np.median(others, axis=0).astype(np.float32))
            detail = fine_detail(cut)
            best_other = max(fit(detail, faces[s]) for s in SUITS if s != suit)
            fits.append(fit(detail, own) >= max(FACE_AGREE, best_other))
        # A suit's six coins all show its face, or none counts by it: a grid a column or a
        # row off puts a piece that is no coin, or empty tile, in every suit's six or a
        # whole suit's, and the rest are coins whose looks it spoilt (read back, these
        # counted, would let such a grid pass where the read-back refused it). Nor when
        # the six lie off their cells' middles as one: the grid is off there, not a coin.
        agree.update((cell, all(fits) and offs[suit] <= FACE_GRID_OFF) for cell, _ in cuts[suit])
    return agree


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
