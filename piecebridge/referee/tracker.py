"""Stable-state tracking: commit a board only when the view is still and unobstructed.

Every frame gets the cheap look (:mod:`.motion`: a small grey picture, compared cell by
cell with the frame before); only a still view is read by the vision, and only when
something changed since the last reading. A *run* of still frames that has lasted
``hold_s`` seconds and ``hold_frames`` frames commits the reading (if it is not covered by
a hand and differs from the last commit). The board is read early in the run, so that at
the end of the hold the reading is ready and the commit costs no vision time at all: on the
first frame known still when only a few cells changed (a piece moved), after ``read_after``
seconds of stillness when many did (a hand pausing over the board is not worth a read, and
is never committed before that). The read is *partial*: only the cells
whose picture changed since they were last read are measured again (``read(cells)``; the
vision keeps its previous measurement of the others), so a move costs the read of a few
cells, not of the board.

* moving: some cell changed more than ``max_motion`` since the frame before — the run ends;
* a cell changed more than ``max_change`` since the frame that was read (a slow change, a
  piece nudged without a hand) — the reading is stale: the run restarts, the board is read
  again;
* a cell that did not change since the last commit's frame keeps the committed reading
  if that was sure (the vision's answer would be the same picture's answer): a committed
  board never flickers where nothing happened;
* more than ``max_unknown`` unknown cells is a hand over the board: never a state.

>>> import numpy as np
>>> class Still:  # a frame: always the same picture
...     def grey(self, reduction): return np.zeros((16, 16), np.uint8)
>>> tracker = StableTracker(hold_s=0.5, hold_frames=3)
>>> board = {"coins": [{"cell": "c4", "suit": "suns", "facing": "north", "confidence": 0.9}],
...          "pawns": [], "unknown": []}
>>> read = lambda cells: (board, [], False)
>>> [tracker.feed(t, Still(), read).state for t in (0.0, 0.25, 0.5)]
['settling', 'settling', 'committed']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from piecebridge.referee.motion import CELLS, CellWatch, changed_cells

#: The default hold: this long AND ``HOLD_FRAMES`` frames of a still view (at 30 fps the
#: frames rule: 3 frames = 67 ms; at the recordings' 4 fps 3 frames = 0.5 s). A hand or an
#: arm (more than ``quick_cells`` changed cells) is not even read before ``read_after``.
HOLD_S = 0.06
HOLD_FRAMES = 3

#: A cell reading: ("coin", suit, facing) or ("pawn", suit, "") ; None is an empty cell.
#: A coin whose suit is clear but whose facing is not reads ("coin", suit, "?").
Reading = tuple[str, str, str] | None
UNKNOWN = ("?", "", "")
#: A cell the view lists as ``unsure_empty`` (read empty only under doubt, e.g. glare washed
#: its printed lines out): like UNKNOWN, never kept from one commit to the next.
UNSURE_EMPTY = ("empty", "", "")
#: An undecided cell this similar to a suit's coin is that coin with an unreadable facing,
#: not a hand (a hand looks like no piece at all).
COIN_SIMILARITY = 0.7

#: what ``read(cells)`` gives the tracker: (reflec-board/1 dict of the whole board, unknown
#: cells, camera moved), optionally followed by the cells measured in this frame (None or
#: left out: the cells asked for, all of them when none were named)
ReadResult = tuple[Any, ...]


def observation_board(obs: Any) -> tuple[dict[str, Any], list[str]]:
    """The reader's board and truly unknown cells; coins it recognised but whose facing it
    could not tell are kept with ``"facing": "?"`` (they are not an obstruction).
    """
    board = dict(obs.board)
    coins = list(board.get("coins", []))
    unknown = set(obs.unknown)
    for d in getattr(obs, "decisions", []):
        if d.kind == "unknown" and d.suit and d.similarity >= COIN_SIMILARITY:
            coins.append({"cell": d.cell, "suit": d.suit, "facing": "?", "confidence": 0.0})
            unknown.discard(d.cell)
    board["coins"] = coins
    board["unknown"] = sorted(unknown)
    return board, sorted(unknown)


@dataclass
class Commit:
    """A still, unobstructed view: the board (reflec-board/1 with confidences), its unknown
    cells, when the stillness began (``since``), the frame time that completed it (``t``),
    and the cells whose reading was kept from the last commit (``reused``).
    """

    board: dict[str, Any]
    unknown: list[str]
    t: float
    since: float
    frames: int
    reused: list[str] = field(default_factory=list)


@dataclass
class TrackState:
    """What one frame did: ``state`` is ``moving``, ``covered`` (a hand or too many unknown
    cells), ``moved`` (the camera/board pose jumped), ``settling``, ``still`` (no change
    since the last commit) or ``committed`` (then ``commit`` is set). ``read`` is True when
    the vision read this frame.
    """

    state: str
    commit: Commit | None = None
    unknown: list[str] = field(default_factory=list)
    read: bool = False
    motion: float = 0.0


@dataclass
class _Reading:
    cells: dict[str, tuple[Reading, float]]
    unknown: list[str]
    small: np.ndarray | None
    t: float
    reused: list[str] = field(default_factory=list)


def readings(board: dict[str, Any], unknown: list[str]) -> dict[str, tuple[Reading, float]]:
    """Cell -> (reading, confidence) of one observation; empty cells are left out."""
    out: dict[str, tuple[Reading, float]] = {}
    for c in board.get("coins", []):
        out[c["cell"]] = (("coin", c["suit"], c["facing"]), float(c.get("confidence", 1.0)))
    for p in board.get("pawns", []):
        out[p["cell"]] = (("pawn", p["suit"], ""), float(p.get("confidence", 1.0)))
    for cell in board.get("unsure_empty", []):
        out[cell] = (UNSURE_EMPTY, 0.0)
    for cell in unknown:
        out[cell] = (UNKNOWN, 0.0)
    return out


class StableTracker:
    """Turns a stream of frames into committed boards (see the module docstring).

    ``max_motion`` and ``max_change`` are RMS grey differences of a cell (0-255 levels; see
    :mod:`.motion`); ``reuse``: keep the committed reading of cells unchanged since then;
    ``partial``: ask the vision to read only the cells that changed by more than
    ``read_change`` since they were last read (half of ``max_change``: a cell is re-read
    well before a change could go unnoticed; camera noise gives 2-3).
    """

    def __init__(
        self,
        hold_s: float = HOLD_S,
        hold_frames: int = HOLD_FRAMES,
        max_motion: float = 10.0,
        max_change: float = 10.0,
        max_unknown: int = 12,
        reuse: bool = True,
        watch: CellWatch | None = None,
        read_after: float = 0.15,
        partial: bool = True,
        read_change: float = 5.0,
        quick_cells: int = 4,
    ) -> None:
        self.hold_s = hold_s
        #: the board is read once the view has been still this long (a hand that pauses
        #: for a moment is not worth a read), well before the hold ends
        self.read_after = read_after
        #: ...unless only this many cells changed since they were last read (a piece
        #: moved, not a hand over the board): then it is read on the first frame known
        #: still. A change of more cells waits ``read_after`` even if the hold is shorter:
        #: a hand pausing over the board is neither read nor committed.
        self.quick_cells = quick_cells
        self.hold_frames = hold_frames
        self.max_motion = max_motion
        self.max_change = max_change
        self.max_unknown = max_unknown
        self.reuse = reuse
        self.partial = partial
        self.read_change = read_change
        self.watch = watch or CellWatch()
        #: each cell's small picture as it was when last read (what the vision holds)
        self._ref: np.ndarray | None = None
        self._prev: tuple[float, np.ndarray] | None = None
        self._run: tuple[float, int] | None = None  # (start time, frames)
        self._reading: _Reading | None = None
        self._committed: _Reading | None = None
        self._last_key: tuple | None = None

    def reset(self) -> None:
        """Forget the run, the reading and the last commit (camera back, board moved)."""
        self._prev = None
        self._run = None
        self._reading = None
        self._committed = None
        self._last_key = None
        self._ref = None

    def _small(self, frame: Any) -> np.ndarray | None:
        return self.watch.small(frame) if self.watch.ready else None

    def _changed(self, small: np.ndarray | None, other: np.ndarray | None) -> np.ndarray | None:
        if small is None or other is None:
            return None
        return self.watch.change(small, other)

    def feed(
        self,
        t: float,
        frame: Any,
        read: Callable[[list[str] | None], ReadResult | None] | None,
    ) -> TrackState:
        """One frame (anything with ``grey(reduction)``); ``read(cells)`` is called when the
        board must be read now (``cells``: the ones to measure, None for all) and returns
        ``(board, unknown, moved[, cells measured])``, or None when it cannot (the
        analysis rate, no board in view)."""
        small = self._small(frame)
        prev, self._prev = self._prev, (None if small is None else (t, small))
        change = self._changed(small, prev[1] if prev else None)
        motion = 0.0 if change is None else float(change.max())
        if motion > self.max_motion:
            self._run = None
            return TrackState("moving", motion=motion)
        if self._run is None:
            # the frame before is as still as this one: the run began with it
            self._run = (prev[0], 2) if prev is not None else (t, 1)
        else:
            self._run = (self._run[0], self._run[1] + 1)
        reading = self._reading
        blind = reading is not None and (small is None or reading.small is None)
        if reading is not None and not blind:
            since = self._changed(small, reading.small)
            if since is None or float(since.max()) > self.max_change:
                if reading.t >= self._run[0]:
                    self._run = (t, 1)  # changed slowly since read in this run: not still
                reading = self._reading = None
        did_read = False
        changed = self._to_read(small) if reading is None else None
        if reading is None and small is not None:
            # a pause of a moving hand? (one frame alone is not known to be still)
            quick = changed is not None and len(changed) <= self.quick_cells
            wait = 0.0 if quick else self.read_after
            if self._run[1] < 2 or t - self._run[0] < wait - 1e-9:
                return TrackState("settling", motion=motion)
        if reading is None or blind:
            # no reading yet, or no cheap look (no board outline yet): read the board
            cells = changed if self.partial else None
            got = read(cells) if read is not None else None
            if got is None:
                if reading is None:
                    return TrackState("settling", motion=motion)
            else:
                did_read = True
                board, unknown, moved = got[:3]
                measured = got[3] if len(got) > 3 and got[3] is not None else cells
                if moved:
                    # re-located and read with the new pose: the reading stands, but
                    # nothing committed before may be compared with or kept
                    self._committed = None
                    self._last_key = None
                small = small if small is not None else self._small(frame)
                if self._prev is None and small is not None:
                    self._prev = (t, small)
                if small is None:
                    self._ref = None
                else:
                    whole = moved or measured is None or len(measured) >= len(CELLS)
                    self._ref = self.watch.merge(self._ref, small, None if whole else measured)
                fresh = self._take(board, unknown, small, t)
                if reading is not None and _key(fresh) != _key(reading):
                    self._run = (t, 1)  # the blind re-read saw a change
                reading = self._reading = fresh
                if moved:
                    return TrackState("moved", unknown=list(unknown), read=True, motion=motion)
        assert reading is not None
        state = self._state(t, reading, did_read)
        state.motion = motion
        return state

    def _to_read(self, small: np.ndarray | None) -> list[str] | None:
        """The cells changed since they were last read (None: not known, read them all)."""
        if small is None or self._ref is None:
            return None
        return changed_cells(self.watch.change(small, self._ref), self.read_change)

    def _take(
        self, board: dict[str, Any], unknown: list[str], small: np.ndarray | None, t: float
    ) -> _Reading:
        cells = readings(board, unknown)
        reused: list[str] = []
        committed = self._committed
        if self.reuse and committed is not None:
            since = self._changed(small, committed.small)
            if since is not None:
                for i in np.flatnonzero(since <= self.max_change):
                    cell = CELLS[i]
                    old = committed.cells.get(cell)
                    if old is not None and (
                        old[0] in (UNKNOWN, UNSURE_EMPTY) or old[0][2] == "?" or old[1] < 0.5
                    ):
                        continue  # only a sure reading is worth keeping: read it afresh
                    reused.append(cell)
                    if old is not None:
                        cells[cell] = old
                    else:
                        cells.pop(cell, None)
        still_unknown = sorted(c for c, (r, _) in cells.items() if r == UNKNOWN)
        return _Reading(cells, still_unknown, small, t, reused)

    def _state(self, t: float, reading: _Reading, did_read: bool) -> TrackState:
        assert self._run is not None
        start, frames = self._run
        if len(reading.unknown) > self.max_unknown:
            return TrackState("covered", unknown=list(reading.unknown), read=did_read)
        if frames < self.hold_frames or t - start < self.hold_s - 1e-9:
            return TrackState("settling", unknown=list(reading.unknown), read=did_read)
        key = _key(reading)
        if key == self._last_key:
            self._committed = reading  # the same board: compare with the newer picture
            return TrackState("still", unknown=list(reading.unknown), read=did_read)
        self._last_key = key
        self._committed = reading
        commit = Commit(
            board=_to_board(reading.cells, reading.unknown),
            unknown=list(reading.unknown),
            t=t,
            since=start,
            frames=frames,
            reused=[c for c in reading.reused],
        )
        return TrackState("committed", commit, list(reading.unknown), read=did_read)


def _key(reading: _Reading) -> tuple:
    return tuple(sorted((c, r) for c, (r, _) in reading.cells.items()))


def _to_board(cells: dict[str, tuple[Reading, float]], unknown: list[str]) -> dict[str, Any]:
    coins, pawns, unsure_empty = [], [], []
    for cell, (reading, conf) in sorted(cells.items()):
        if reading is None or reading == UNKNOWN:
            continue
        kind, suit, facing = reading
        if kind == "coin":
            coins.append({"cell": cell, "suit": suit, "facing": facing, "confidence": conf})
        elif kind == "pawn":
            pawns.append({"cell": cell, "suit": suit, "confidence": conf})
        elif reading == UNSURE_EMPTY:
            unsure_empty.append(cell)
    board = {"format": "reflec-board/1", "coins": coins, "pawns": pawns, "unknown": unknown}
    if unsure_empty:
        board["unsure_empty"] = unsure_empty
    return board
