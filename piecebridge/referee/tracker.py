"""Stable-state tracking: commit a board only when the view is still and unobstructed.

The reader's observations flicker: a hand covers cells (``unknown``), a piece in flight is
half on two cells, a low-confidence coin's facing wobbles between frames. The tracker keeps
a run of *quiet* frames (little motion, the pose not moved, few unknown cells) whose
confident readings agree, and commits the run's per-cell majority once it has lasted
``hold_s`` seconds and ``hold_frames`` frames. A commit carries the cells still unknown and
each item's confidence; the judge decides what to do with them.

>>> tracker = StableTracker(hold_s=0.5, hold_frames=3)
>>> board = {"coins": [{"cell": "c4", "suit": "suns", "facing": "north", "confidence": 0.9}],
...          "pawns": [], "unknown": []}
>>> [tracker.feed(board, [], t, motion=0.5).state for t in (0.0, 0.25, 0.5)]
['settling', 'settling', 'committed']
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

#: A cell reading: ("coin", suit, facing) or ("pawn", suit, "") ; None is an empty cell.
#: A coin whose suit is clear but whose facing is not reads ("coin", suit, "?").
Reading = tuple[str, str, str] | None
UNKNOWN = ("?", "", "")
#: An undecided cell this similar to a suit's coin is that coin with an unreadable facing,
#: not a hand (a hand looks like no piece at all).
COIN_SIMILARITY = 0.7


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
    cells, when the stillness began (``since``) and the frame time that completed it (``t``).
    """

    board: dict[str, Any]
    unknown: list[str]
    t: float
    since: float
    frames: int


@dataclass
class TrackState:
    """What one frame did: ``state`` is ``moving``, ``covered`` (a hand or too many unknown
    cells), ``moved`` (the camera/board pose jumped), ``settling``, ``still`` (no change
    since the last commit) or ``committed`` (then ``commit`` is set).
    """

    state: str
    commit: Commit | None = None
    unknown: list[str] = field(default_factory=list)


def readings(board: dict[str, Any], unknown: list[str]) -> dict[str, tuple[Reading, float]]:
    """Cell -> (reading, confidence) of one observation; empty cells are left out."""
    out: dict[str, tuple[Reading, float]] = {}
    for c in board.get("coins", []):
        out[c["cell"]] = (("coin", c["suit"], c["facing"]), float(c.get("confidence", 1.0)))
    for p in board.get("pawns", []):
        out[p["cell"]] = (("pawn", p["suit"], ""), float(p.get("confidence", 1.0)))
    for cell in unknown:
        out[cell] = (UNKNOWN, 0.0)
    return out


class StableTracker:
    """Turns a stream of observations into committed boards (see module docstring).

    ``max_motion``: mean grey change between frames (0-255) above which the view is moving.
    ``max_unknown``: more unknown cells than this is a hand over the board, never a state.
    ``min_confidence``: readings below it do not break a run (they flicker) and are
    outvoted by confident readings of the same cell.
    """

    def __init__(
        self,
        hold_s: float = 0.5,
        hold_frames: int = 3,
        max_motion: float = 6.0,
        max_unknown: int = 12,
        min_confidence: float = 0.5,
    ) -> None:
        self.hold_s = hold_s
        self.hold_frames = hold_frames
        self.max_motion = max_motion
        self.max_unknown = max_unknown
        self.min_confidence = min_confidence
        self._run: list[tuple[float, dict[str, tuple[Reading, float]]]] = []
        self._last_key: tuple | None = None

    def reset(self) -> None:
        """Forget the current run and the last commit (after the camera moved, a resume)."""
        self._run = []
        self._last_key = None

    def feed(
        self,
        board: dict[str, Any],
        unknown: list[str],
        t: float,
        motion: float = 0.0,
        moved: bool = False,
    ) -> TrackState:
        if moved:
            self._run = []
            return TrackState("moved", unknown=list(unknown))
        if motion > self.max_motion:
            self._run = []
            return TrackState("moving", unknown=list(unknown))
        if len(unknown) > self.max_unknown:
            self._run = []
            return TrackState("covered", unknown=list(unknown))
        cells = readings(board, unknown)
        if self._run and not self._agrees(self._run[-1][1], cells):
            self._run = []
        self._run.append((t, cells))
        if len(self._run) < self.hold_frames or t - self._run[0][0] < self.hold_s - 1e-9:
            return TrackState("settling", unknown=list(unknown))
        merged, still_unknown = self._merge()
        key = (tuple(sorted((c, r) for c, (r, _) in merged.items())), tuple(still_unknown))
        if key == self._last_key:
            return TrackState("still", unknown=still_unknown)
        self._last_key = key
        commit = Commit(
            board=_to_board(merged, still_unknown),
            unknown=still_unknown,
            t=t,
            since=self._run[0][0],
            frames=len(self._run),
        )
        return TrackState("committed", commit, still_unknown)

    def _agrees(self, a: dict, b: dict) -> bool:
        """Two frames show one board: every cell read confidently in both reads the same."""
        for cell in set(a) | set(b):
            ra, ca = a.get(cell, (None, 1.0))
            rb, cb = b.get(cell, (None, 1.0))
            if ra == rb or UNKNOWN in (ra, rb) or _same_coin(ra, rb):
                continue
            unsure = ca < self.min_confidence or cb < self.min_confidence
            same_kind = (ra is None) == (rb is None) and (ra is None or ra[0] == rb[0])
            if unsure and same_kind:
                continue  # a wobbling facing or suit: only a change of kind counts
            return False
        return True

    def _merge(self) -> tuple[dict[str, tuple[Reading, float]], list[str]]:
        """Per cell: the confidence-weighted majority reading over the run."""
        votes: dict[str, Counter] = {}
        best_conf: dict[tuple[str, Reading], float] = {}
        cells = {c for _, frame in self._run for c in frame}
        for _, frame in self._run:
            for cell in cells:
                reading, conf = frame.get(cell, (None, 1.0))
                if reading == UNKNOWN:
                    continue
                weight = 0.25 + conf  # an unsure reading still counts, less
                if reading is not None and reading[2] == "?":
                    weight = 0.1  # any readable facing of the coin outvotes it
                votes.setdefault(cell, Counter())[reading] += weight
                key = (cell, reading)
                best_conf[key] = max(best_conf.get(key, 0.0), conf)
        merged: dict[str, tuple[Reading, float]] = {}
        unknown = []
        for cell in sorted(cells):
            if cell not in votes:
                unknown.append(cell)
                continue
            reading, _ = votes[cell].most_common(1)[0]
            if reading is not None:
                merged[cell] = (reading, best_conf[(cell, reading)])
        return merged, unknown


def _same_coin(a: Reading, b: Reading) -> bool:
    """One coin, once with an unreadable facing."""
    return (
        a is not None and b is not None and a[:2] == b[:2] and a[0] == "coin"
        and "?" in (a[2], b[2])
    )  # fmt: skip


def _to_board(merged: dict[str, tuple[Reading, float]], unknown: list[str]) -> dict[str, Any]:
    coins, pawns = [], []
    for cell, (reading, conf) in sorted(merged.items()):
        assert reading is not None
        kind, suit, facing = reading
        if kind == "coin":
            coins.append({"cell": cell, "suit": suit, "facing": facing, "confidence": conf})
        elif kind == "pawn":
            pawns.append({"cell": cell, "suit": suit, "confidence": conf})
    return {"format": "reflec-board/1", "coins": coins, "pawns": pawns, "unknown": unknown}
