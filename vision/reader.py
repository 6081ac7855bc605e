"""Read Reflec positions from frames: locate (or keep) the board pose, classify the cells.

:class:`BoardReader` is the API the referee uses::

    reader = BoardReader(setup=BoardSetup.load("SETUP.json"))
    obs = reader.read(frame_bgr)
    obs.board      # reflec-board/1 dict, with "confidence" per item and "unknown"
    obs.moved      # the camera or board moved since the last frame: pose re-detected
    obs.motion     # mean change of the board since the previous frame (0..255 scale)

With a setup the pose is *locked*: each frame only checks that the tile crosses still sit
where the lock expects them (cheap) and re-detects the board when they do not. A board whose
tiles show their cells by tone has no line for that check to see: it is kept where it was,
not re-detected, when its setup's ``tone_print`` still shows in place
(:mod:`piecebridge.vision.tonelock`).

After a move, ``reader.read(frame, cells={"d4", "e4"})`` re-reads only those cells and keeps
the previous observation's reading of the others (see :meth:`BoardReader.read`).

>>> reader = BoardReader()
>>> reader.read(np.zeros((480, 640, 3), np.uint8))
Traceback (most recent call last):
...
piecebridge.vision.locate.BoardNotFound: no board in view: no 8x8 tile grid found
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from piecebridge.calibration.geometry import (
    CANONICAL_CORNERS,
    N,
    closest_turns,
    north_up_turns,
    project,
)
from piecebridge.calibration.images import read_image_bytes, undecodable
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision.cells import (
    BoardRefs,
    BoardViews,
    CellDecision,
    PieceLooks,
    board_refs,
    board_views,
    decide_all,
    measure,
    raw_crops,
    relative_lab,
)
from piecebridge.vision.locate import (
    BoardCutOff,
    check_in_frame,
    check_lock,
    find_board,
    refine_pose,
)
from piecebridge.vision.raster import CELL_ORDER, FACE_PX, MARGIN, PX
from piecebridge.vision.tonelock import in_place_by_tone

from piecebridge.errors import UserError

#: The reader's rules that decide under doubt say so with at most this confidence.
HALF_SURE = 0.5
#: Crosses further than this (cells) from the locked grid mean the camera or board moved.
MOVED_CELLS = 0.15
#: Crosses further than this but under MOVED_CELLS are followed silently (slow drift).
DRIFT_CELLS = 0.04


@dataclass
class Observation:
    """What one frame shows. ``board`` is a ``reflec-board/1`` dict (plain data)."""

    board: dict[str, Any]
    unknown: list[str]
    moved: bool
    pose: BoardPose
    decisions: list[CellDecision]
    crosses_visible: int = 0
    timings_ms: dict[str, float] = field(default_factory=dict)
    #: Cells measured in this frame: all 64 on a full read, the asked ones on a partial read.
    cells_read: tuple[str, ...] = tuple(CELL_ORDER)
    #: Why a partial read was asked for but the whole board was read ("" when it was not):
    #: "no previous observation" or "board moved".
    fallback: str = ""
    #: This frame's and the previous frame's small greys (None: no previous, or moved).
    motion_of: tuple[SmallGrey, SmallGrey] | None = field(default=None, repr=False)

    @property
    def motion(self) -> float:
        """Mean change (0..255) of the board's small grey since the previous frame; 0 when
        there was none or the board moved. Worked out when asked for: a read does not need
        it (its shrinking took a tenth of a still frame's read)."""
        if self.motion_of is None:
            return 0.0
        now, before = self.motion_of
        return float(np.abs(now.small - before.small).mean())

    @property
    def partial(self) -> bool:
        """True when only some cells were read from this frame (the rest kept)."""
        return len(self.cells_read) < len(CELL_ORDER)

    @property
    def occluded(self) -> bool:
        """True when part of the board could not be read (e.g. a hand over it)."""
        return bool(self.unknown)


def lines_dark(gray: np.ndarray, pose: BoardPose) -> np.ndarray:
    """The picture with the board's printed lines dark (inverted for light lines)."""
    return 255 - gray if pose.inverted else gray


def board_from_decisions(decisions: list[CellDecision]) -> dict[str, Any]:
    """The ``reflec-board/1`` dict (with confidences and ``unknown``) of cell decisions;
    cells read empty only under doubt (at most :data:`HALF_SURE`: a tile washed out by glare,
    a textured tile) are listed as ``unsure_empty`` when there are any."""
    coins, pawns, unknown, unsure_empty = [], [], [], []
    for d in decisions:
        conf = round(float(d.confidence), 3)
        if d.kind == "coin":
            coins.append({"cell": d.cell, "suit": d.suit, "facing": d.facing, "confidence": conf})
        elif d.kind == "pawn":
            pawns.append({"cell": d.cell, "suit": d.suit, "confidence": conf})
        elif d.kind == "unknown":
            unknown.append(d.cell)
        elif d.kind == "empty" and d.confidence <= HALF_SURE:
            unsure_empty.append(d.cell)
    board = {"format": "reflec-board/1", "coins": coins, "pawns": pawns, "unknown": sorted(unknown)}
    if unsure_empty:
        board["unsure_empty"] = sorted(unsure_empty)
    return board


class SmallGrey:
    """A rectified board's grey and, made on first use, its 54 x 54 shrink (int16) that
    :attr:`Observation.motion` compares; kept by the reader for the next frame's motion."""

    __slots__ = ("_gray", "_small")

    def __init__(self, gray: np.ndarray) -> None:
        self._gray: np.ndarray | None = gray
        self._small: np.ndarray | None = None

    @property
    def small(self) -> np.ndarray:
        """The grey shrunk to 54 x 54 (area mean), int16; the grey itself is then let go."""
        if self._small is None:
            small = cv2.resize(self._gray, (54, 54), interpolation=cv2.INTER_AREA)
            self._small, self._gray = small.astype(np.int16), None
        return self._small


class BoardReader:
    """Reads frames of one camera. Keeps the board pose between frames.

    ``setup`` is a :class:`piecebridge.calibration.board.BoardSetup` (or None for default
    colours and north = top of the image). ``camera_calibration`` is a camera YAML path, an
    undistorter (``__call__(frame)``, see :mod:`piecebridge.calibration.camera`) or None;
    frames are undistorted once each, with precomputed maps. A setup learned through a lens
    file (``calibrate board --camera-calibration``) is in undistorted pixels: without a lens
    here its pose would miss the board, so that raises UserError.
    """

    def __init__(self, setup: Any = None, camera_calibration: Any = None) -> None:
        self.setup = setup
        lens = getattr(setup, "camera_calibration", None)
        if lens and camera_calibration is None:
            raise UserError(
                f"the setup was learned through the lens file {lens}: "
                f"give it here too (--camera-calibration {lens})"
            )
        if isinstance(camera_calibration, str | os.PathLike):
            camera_calibration = load_undistorter(camera_calibration)
        self.undistort = camera_calibration
        self.looks = PieceLooks.of(setup.looks) if setup is not None else default_looks()
        self.pose: BoardPose | None = None if setup is None else setup.pose
        self._reference = None if setup is None else project(setup.pose.H, CANONICAL_CORNERS)
        self._tile_lab = None if setup is None else np.array(setup.tile_color_lab)
        self._previous: SmallGrey | None = None
        # Undecided measurements of the last observation, per cell (for partial reads).
        self._measured: dict[str, CellDecision] | None = None
        self._decisions: list[CellDecision] = []
        # Each cell's grey block when it was last measured (see change_blocks).
        self._blocks: np.ndarray | None = None
        self._seen = 0  # tile crosses seen by the last lock check
        # Tile colour and noise floors of the last read of many cells (see read()).
        self._refs: BoardRefs | None = None
        self._idle = 0  # frames since a cell was last measured

    # ------------------------------------------------------------------ pose

    def locate(self, frame: np.ndarray) -> BoardPose:
        """Find the board from scratch and orient it (setup's north, else top of image)."""
        inverted = None if self.setup is None else self.setup.pose.inverted
        pose = find_board(frame, self._tile_lab, inverted)
        if self._reference is not None:
            return pose.rotated(closest_turns(pose.H, self._reference))
        return pose.rotated(north_up_turns(pose.H))

    def _check_lock(self, gray: np.ndarray) -> tuple[str, int, np.ndarray | None]:
        """'ok', 'drift' or 'moved', crosses seen, and their rectified offsets.

        ``gray`` is the board rectified by the locked pose (FACE_PX, MARGIN).
        """
        return check_lock(gray, FACE_PX, MARGIN, MOVED_CELLS, DRIFT_CELLS)

    def _cut_off_unless_in_frame(self, shape: tuple[int, ...]) -> None:
        """Refuse as cut off (:func:`check_in_frame`) a pose whose board leaves the frame;
        the next read is then a full one."""
        try:
            check_in_frame(self.pose, shape)
        except BoardCutOff:
            self._measured = None
            raise

    # ------------------------------------------------------------------ frames

    def read(self, frame_bgr: np.ndarray, cells: Iterable[str] | str | None = None) -> Observation:
        """Observe one BGR frame. Raises BoardNotFound when no board can be found.

        ``cells`` (names such as ``{"d4", "e4"}``) asks for a *partial read*: only those
        cells are measured in this frame, with the locked pose; every other cell keeps its
        measurement from the previous observation. All cells are then decided together as
        in a full read (so the board-wide rules still hold: one pawn per suit, a pawn beside
        a covered cell must fit closely); a cell not asked for therefore keeps its previous
        decision unless such a rule now resolves differently. An asked cell's own values
        are those of a full read of this frame; which cells a hand covers is judged on this
        frame too, while the tile colour and noise floors it is measured against are kept
        from the last read of more than REFS_KEPT_MAX cells (see :meth:`_measure`).

        ``cells=CHANGED`` (the string ``"changed"``) is the same with the cells chosen by
        the reader: those whose rectified pixels (grey, the cell and 0.35 cell around
        it) changed beyond the frame's noise since that cell was last measured; for a camera
        stream, where most frames show the board as it was. When no cell changed, the board
        has not moved either (a bump moves the lines of every cell): such a frame skips the
        lock check too and keeps the previous decisions (``cells_read`` is empty). Cells
        left undecided (``unknown``) are read again with any other change, and after at
        most RETRY_UNKNOWN frames when nothing changes (sensor noise may settle them).

        A partial read becomes a full read, and says why in ``Observation.fallback``, when
        there is no previous observation (``"no previous observation"``) or when the lock
        check finds the camera or board moved (``"board moved"``; ``moved`` is True too).
        A slow drift is followed (the pose is refined) and the read stays partial.
        ``Observation.cells_read`` names the cells measured in this frame. ``cells=None``
        (the default) is a full read; an empty set re-reads no cell (lock check only; the
        decisions are then the previous observation's own objects).

        >>> reader = BoardReader()
        >>> reader.read(np.zeros((8, 8, 3), np.uint8), cells={"z9"})
        Traceback (most recent call last):
        ...
        ValueError: not a cell of the board: 'z9'
        """
        auto = isinstance(cells, str) and cells == CHANGED
        wanted = None if cells is None or auto else _cell_indices(cells)
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        frame = self.undistort(frame_bgr) if self.undistort is not None else frame_bgr
        moved = False
        fallback = ""
        located = self.pose is None
        if located:
            self.pose = self.locate(frame)
            timings["locate"] = (time.perf_counter() - t0) * 1e3
        rect, gray = self._rectify(frame)
        blocks = change_blocks(gray)
        stream = auto and self._measured is not None
        changed = self._changed(blocks) if stream else None
        retry = self._idle + 1 >= RETRY_UNKNOWN and stream and self._unknown().any()
        if stream and not (changed.any() or retry):
            # Nothing changed since each cell was measured, so neither did the board's place
            # (a bump moves the lines of every cell): no lock check, the decisions stand.
            self._idle += 1
            timings["pose"] = timings["total"] = (time.perf_counter() - t0) * 1e3
            return self._observation(gray, [], self._decisions, False, self._seen, timings, "")
        lab_hi = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
        if located:  # found in this very frame: nothing to check it against
            state, seen = "ok", self.pose.crosses_found
        elif stream and changed.sum() <= STILL_BOARD_CHANGED:
            # Most cells are as they were measured: the board has not moved either (a bump
            # or a drift of 0.03 cell moves the printed lines of every cell).
            state, seen = "ok", self._seen
        else:
            state, seen, _ = self._check_lock(lines_dark(lab_hi[..., 0], self.pose))
            if state in ("moved", "lost") and self._in_place_by_tone(frame):
                # The lock by lines sees no line on a board by tone: kept where its tiles and
                # edges still show the calibration's look (tonelock), not sought again.
                state = "ok"
        if state in ("moved", "lost"):
            self._measured = None  # if the board is not found, the next read is a full one
            self.pose = self.locate(frame)
            moved = True
            rect, gray = self._rectify(frame)
        elif state == "drift":
            frame_gray = lines_dark(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), self.pose)
            pose = refine_pose(frame_gray, self.pose, px_per_cell=32, search=0.25)
            if pose is not None:
                self.pose = pose
                rect, gray = self._rectify(frame)
        # A locked pose the lock check kept must still have the whole board in view: a frame
        # that cuts the board off can show its part in view where the lock puts it, crosses
        # and edges in place (tune crops of calibration photos and shots to a corner or a
        # side of the board, read with the rig's setup, were accepted as boards).
        self._cut_off_unless_in_frame(frame.shape)
        if state != "ok":  # the picture was made again with the new pose
            lab_hi = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
            blocks = change_blocks(gray)
        self._seen = seen
        timings["pose"] = (time.perf_counter() - t0) * 1e3
        if (auto or wanted is not None) and (moved or self._measured is None):
            fallback = "board moved" if moved else "no previous observation"
            auto, wanted = False, None
        if auto:
            if changed is None or state != "ok":
                changed = self._changed(blocks)
            wanted = np.flatnonzero(changed | self._unknown()).tolist()
        if wanted is None or wanted:
            self._idle = 0
            fresh = self._measure(rect, lab_hi, wanted)
            measured = dict(self._measured or {}) if wanted is not None else {}
            measured.update((d.cell, d) for d in fresh)
            self._measured = measured
            # decide() writes into what it decides: keep the measurements themselves clean.
            decisions = decide_all([_copy(measured[c]) for c in CELL_ORDER], self.looks)
            if wanted is None or self._blocks is None:
                self._blocks = blocks.copy()
            else:
                self._blocks[wanted] = blocks[wanted]  # compared with what was measured
            self._decisions = decisions
        else:  # nothing to re-read: the previous decisions stand
            fresh, decisions = [], self._decisions
        timings["total"] = (time.perf_counter() - t0) * 1e3
        return self._observation(gray, fresh, decisions, moved, seen, timings, fallback)

    def _in_place_by_tone(self, frame: np.ndarray) -> bool:
        """Whether the locked pose still shows the setup's board by tone in ``frame``
        (:func:`~piecebridge.vision.tonelock.in_place_by_tone`); False without a setup or a
        ``tone_print`` (a board with printed lines, a setup written before it)."""
        printed = getattr(self.setup, "tone_print", None)
        return printed is not None and in_place_by_tone(frame, self.pose, printed)

    def _observation(
        self,
        gray: np.ndarray,
        fresh: list[CellDecision],
        decisions: list[CellDecision],
        moved: bool,
        seen: int,
        timings: dict[str, float],
        fallback: str,
    ) -> Observation:
        """The Observation of a frame (``gray``: its rectified board) and its motion."""
        small = SmallGrey(gray)
        pair = None if self._previous is None or moved else (small, self._previous)
        self._previous = small
        board = board_from_decisions(decisions)
        return Observation(
            board=board,
            unknown=board["unknown"],
            moved=moved,
            pose=self.pose,
            decisions=decisions,
            motion_of=pair,
            crosses_visible=seen,
            timings_ms=timings,
            cells_read=tuple(d.cell for d in fresh),
            fallback=fallback,
        )

    def _rectify(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The board rectified by the current pose (FACE_PX, MARGIN), and its grey."""
        rect = self.pose.rectify(frame, FACE_PX, MARGIN)
        return rect, cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)

    def _measure(self, rect: np.ndarray, lab_hi: np.ndarray, wanted: list[int] | None) -> list:
        """Measurements of the ``wanted`` cells (None: all) of the rectified board.

        The board-wide references (tile colour, noise floors) are made from this frame when
        more than REFS_KEPT_MAX cells are read (a full read, a fallback, a changed light) and
        kept; a read of fewer cells measures against the kept ones and cuts only those cells'
        crops. Which cells a hand covers is judged on this frame either way.
        """
        inverted = self.pose.inverted
        if wanted is not None and len(wanted) <= REFS_KEPT_MAX and self._refs is not None:
            if _BOX_EXACT:
                views = partial_views(rect, lab_hi, self._refs, wanted)
            else:  # a raster whose cells do not start on whole pixels of both scales
                views = board_views(rect, lab_hi, self._refs, wanted)
            return measure(views, self.looks, inverted, cells=wanted, refs=self._refs)
        views = board_views(rect, lab_hi)
        refs = board_refs(views)
        self._refs = refs.kept()
        return measure(views, self.looks, inverted, cells=wanted, refs=refs)

    def _changed(self, blocks: np.ndarray) -> np.ndarray:
        """Cells (bool, 64) whose blocks changed since they were last measured."""
        occupied = np.array([d.kind != "empty" for d in self._decisions])
        return changed_cells(blocks, self._blocks, occupied)

    def _unknown(self) -> np.ndarray:
        """The undecided cells (bool, 64) of the last decisions (see ``cells=CHANGED``)."""
        return np.array([d.kind == "unknown" for d in self._decisions], bool)


def _copy(d: CellDecision) -> CellDecision:
    """A shallow copy (copy.copy of a dataclass takes ten times as long)."""
    out = object.__new__(CellDecision)
    out.__dict__.update(d.__dict__)
    return out


#: ``cells=CHANGED``: re-read the cells whose pixels changed since they were last measured.
CHANGED = "changed"
#: Change is looked for at this many px per cell (half of FACE_PX: noise averages out, a
#: coin's turned mark still covers pixels) ...
CHANGE_PX = 20
#: ... over each cell and this far beyond its sides (px at CHANGE_PX): 0.35 cell for a cell
#: that holds something (its coin's facing window and the wider search reach about there),
#: 0.1 cell for an empty one (its crops stay inside it; the printed lines beside it count).
CHANGE_REACH = 7
CHANGE_REACH_EMPTY = 2
#: A pixel changed when its grey level moved more than this many times the frame's noise
#: (a robust spread of all blocks' changes), and by at least CHANGE_LEVEL (0..255).
#: Rendered sensor noise (signal-dependent, sharpened, JPEG) moves a few pixels per cell by
#: up to 11 between frames; a coin turned in place moves tens of pixels by 70 or more.
CHANGE_NOISE = 5.0
CHANGE_LEVEL = 16
#: A "noise" (the blocks' median change) beyond this means most of the board changed: a
#: bumped camera or board, or another scene; every cell is then read (and the lock checked).
#: Rendered sensor noise measures 1.5 to 3.
CHANGE_MAX_NOISE = 6.0
#: A cell changed when at least this many of its pixels did.
CHANGE_PIXELS = 4
#: ``cells=CHANGED`` reads undecided cells again after at most this many frames.
RETRY_UNKNOWN = 10
#: A shift of the whole board's grey level beyond this (light, exposure) re-reads every cell.
CHANGE_GLOBAL = 12
#: ``cells=CHANGED`` skips the lock check when at most this many cells changed: the others
#: show the board where it was when they were measured.
STILL_BOARD_CHANGED = 16
#: A read of at most this many cells measures them against the tile colour and noise floors
#: kept from the last read of more cells; a read of more makes them from its own frame.
REFS_KEPT_MAX = 16


def change_blocks(gray: np.ndarray) -> np.ndarray:
    """Each cell's block (64, k, k) int16 at CHANGE_PX, CHANGE_REACH around it, of the
    board's grey rectified at FACE_PX with MARGIN (a new array)."""
    n = round((N + 2 * MARGIN) * CHANGE_PX)
    small = cv2.resize(gray, (n, n), interpolation=cv2.INTER_AREA).astype(np.int16)
    k = CHANGE_PX + 2 * CHANGE_REACH
    o = round(MARGIN * CHANGE_PX) - CHANGE_REACH
    windows = np.lib.stride_tricks.sliding_window_view(small[o:, o:], (k, k))
    return windows[: N * CHANGE_PX : CHANGE_PX, : N * CHANGE_PX : CHANGE_PX].reshape(N * N, k, k)


_COUNTED_SPAN = 1 << 16


def _median_int(a: np.ndarray) -> float:
    """``float(np.median(a))`` of whole numbers ``a`` (an integer array): the same value
    (the middle one, or the mean of the middle two), counted rather than sorted (the values
    of a change measure span a few hundred: a count is half a partition's time). Values
    spread wider than :data:`_COUNTED_SPAN` are sorted after all.

    >>> a = np.array([[7, -2, 3], [9, 0, 4]])
    >>> _median_int(a) == float(np.median(a)), _median_int(a[:, :1]), _median_int(a[0])
    (True, 8.0, 3.0)
    >>> _median_int(np.array([-30000, 30000], np.int16)), _median_int(np.array([0, 2**40]))
    (0.0, 549755813888.0)
    """
    flat = a.ravel().astype(np.int64, copy=False)
    lo = int(flat.min())
    if int(flat.max()) - lo > _COUNTED_SPAN:
        return float(np.median(flat))
    below = np.cumsum(np.bincount(flat - lo))  # how many values are at most lo + j
    k = flat.size // 2
    upper = float(np.searchsorted(below, k + 1)) + lo  # the (k + 1)-th smallest value
    if flat.size % 2:
        return upper
    return (float(np.searchsorted(below, k)) + lo + upper) / 2


def changed_cells(
    blocks: np.ndarray, reference: np.ndarray | None, occupied: np.ndarray | None = None
) -> np.ndarray:
    """Which cells (bool, 64) changed between their ``reference`` blocks and ``blocks``
    (see :func:`change_blocks`); all when there is no reference. Cells not ``occupied``
    (bool, 64; default all) were empty: only their own square counts (CHANGE_REACH_EMPTY).

    >>> rng = np.random.default_rng(0)
    >>> ref = rng.normal(120, 3, (64, 34, 34)).astype(np.int16)
    >>> now = ref + rng.normal(0, 3, ref.shape).astype(np.int16) + 5  # noise, a bit lighter
    >>> now[27, 10:13, 10:14] += 40  # a coin's mark moved in d5
    >>> np.flatnonzero(changed_cells(now, ref)).tolist()
    [27]
    """
    if reference is None:
        return np.ones(len(blocks), bool)
    diff = blocks - reference
    sample = diff[:, ::3, ::3].astype(np.int32)
    shift = _median_int(sample)
    if abs(shift) > CHANGE_GLOBAL:
        return np.ones(len(blocks), bool)
    # The median of |sample - shift| (a whole or half number each) from twice it, whole.
    noise = 1.4826 * (_median_int(np.abs(2 * sample - round(2 * shift))) / 2)
    if noise > CHANGE_MAX_NOISE:  # most of the board changed (a bump, a new scene)
        return np.ones(len(blocks), bool)
    level = max(CHANGE_LEVEL, CHANGE_NOISE * noise)
    # |diff - shift| > level, as whole-number bounds on diff (each possible difference
    # tested as written, in double; the still ones form one run): no float copy of diff.
    values = np.arange(-255, 256)
    still = values[np.abs(values - shift) <= level]
    moved = (diff < still[0]) | (diff > still[-1])
    wide = moved.sum(axis=(1, 2)) >= CHANGE_PIXELS
    if occupied is None:
        return wide
    a = CHANGE_REACH - CHANGE_REACH_EMPTY
    own = moved[:, a : moved.shape[1] - a, a : moved.shape[2] - a].sum(axis=(1, 2))
    return (own >= CHANGE_PIXELS) | (wide & occupied)


#: The boxes of :func:`partial_views` start on pixels that both rasters share.
_BOX_EXACT = (MARGIN * FACE_PX) % (FACE_PX // math.gcd(FACE_PX, PX)) == 0


def partial_views(
    rect: np.ndarray, lab_hi: np.ndarray, refs: BoardRefs, cells: list[int]
) -> BoardViews:
    """``board_views(rect, lab_hi, refs, cells)`` made from the part of the board around
    ``cells`` only: the box of those cells and one cell more each way is shrunk to PX,
    blurred and converted (the rest of the PX raster stays zero and is not read). The box
    starts on a whole cell and FACE_PX / PX is 5 / 3 with cells 40 px apart, so the area
    resize of the box equals that part of the whole board's; a cell's crops (shifts, fine
    detail, the wide search) reach half a cell beyond it and the blur 3 px, inside the box.

    >>> rng = np.random.default_rng(0)
    >>> rect = rng.integers(0, 255, (360, 360, 3), np.uint8)
    >>> lab = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
    >>> refs = BoardRefs(np.array([128.0, 128.0]), 1.0, 1.0, 1.0)
    >>> a = partial_views(rect, lab, refs, [9, 12])
    >>> b = board_views(rect, lab, refs, [9, 12])
    >>> bool(np.array_equal(a.crops[[9, 12]], b.crops[[9, 12]]))
    True
    """
    n_hi, n_lo = rect.shape[0], round((N + 2 * MARGIN) * PX)
    rows, cols = np.divmod(np.asarray(cells), N)
    box = []
    for lo, hi in ((rows.min(), rows.max()), (cols.min(), cols.max())):
        a = max(round((MARGIN + lo - 1) * FACE_PX), 0)
        b = min(round((MARGIN + hi + 2) * FACE_PX), n_hi)
        box.append((a, b, a * PX // FACE_PX, b * PX // FACE_PX))
    (y0, y1, v0, v1), (x0, x1, u0, u1) = box
    part = cv2.resize(rect[y0:y1, x0:x1], (u1 - u0, v1 - v0), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(part, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    rel_lo = np.zeros((n_lo, n_lo, 3), np.float32)
    rel_lo[v0:v1, u0:u1] = relative_lab(lab.astype(np.float32), refs.tile_ab)
    crops = raw_crops(rel_lo, refs.tile_ab, rel_lo, cells)
    return BoardViews(lab_hi, refs.tile_ab, crops, rel_lo, lab_hi[..., 0].copy())


def _cell_indices(cells: Iterable[str]) -> list[int]:
    """Indices into CELL_ORDER of cell names; a name not on the board is a ValueError."""
    if isinstance(cells, str):  # "d4" is one cell, not the cells "d" and "4"
        cells = [cells]
    index = {c: i for i, c in enumerate(CELL_ORDER)}
    out = set()
    for c in cells:
        if c not in index:
            raise ValueError(f"not a cell of the board: {c!r}")
        out.add(index[c])
    return sorted(out)


@functools.cache
def default_looks() -> PieceLooks:
    """:meth:`PieceLooks.default`, made once and shared by the readers without a setup
    (drawing the looks and their templates took a sixth of a read from scratch). Shared:
    never change it in place; ``dataclasses.replace`` it for other thresholds."""
    return PieceLooks.default()


def cell_polygons(pose: BoardPose) -> dict[str, np.ndarray]:
    """Image outline (4, 2) of every cell, for drawing."""
    from piecebridge.calibration.geometry import cell_index

    out = {}
    for name in [f"{f}{r}" for f in "abcdefgh" for r in range(1, 9)]:
        col, row = cell_index(name)
        y = 7 - row
        corners = np.array([[col, y], [col + 1, y], [col + 1, y + 1], [col, y + 1]], float)
        out[name] = pose.to_image(corners * 0.999 + 0.0005)
    return out


def load_frame(path: str | os.PathLike) -> np.ndarray:
    """Read a BGR image; a missing or unreadable file raises UserError (one line)."""
    image = cv2.imdecode(read_image_bytes(path), cv2.IMREAD_COLOR)
    if image is None:
        raise undecodable(path)
    return image


def load_undistorter(path: str | os.PathLike | None) -> Any:
    """Undistorter for a camera YAML (from :mod:`piecebridge.calibration.camera`), or None."""
    if not path:
        return None
    try:
        from piecebridge.calibration.camera import load_camera_calibration
    except ImportError:  # pragma: no cover - only while the camera module is missing
        raise UserError("camera calibration support is not installed") from None
    return load_camera_calibration(path).reading_undistorter()
