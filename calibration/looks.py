"""What one calibration photo teaches about the pieces: each suit's learned looks.

:class:`LearnedLooks` is plain data (arrays and numbers) that crosses from calibration to
vision: each suit's coin facing north at two scales and its pawn, as descriptor crops (see
``piecebridge.vision.cells``), the energy above which a cell holds something, and what the
calibration coins showed about their separate marks and their symmetry. How to *use* them,
the decision thresholds and the templates built from them, is vision's
(``piecebridge.vision.cells.PieceLooks``); how to learn them from a photo is
``piecebridge.vision.learn``.

>>> looks = LearnedLooks({}, {}, marked=("suns",), mark_spots={"suns": (11.0, 9.5)})
>>> LearnedLooks.from_json(looks.to_json()).mark_spots
{'suns': (11.0, 9.5)}
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np

#: The four Piecepack suits, in the order of the calibration layout's rows.
SUITS = ("suns", "moons", "crowns", "arms")
#: The fine detail (over the board's noise floor of it) under which a tile-coloured cell is
#: empty, where no calibration photo lowered it (see ``LearnedLooks.detail_empty``; the drawn
#: stand-ins without a setup, and setups saved before it was learned).
DETAIL_EMPTY = 2.5
#: What shows a cell's boundary on a set's tiles (``LearnedLooks.boundary``): printed
#: ``lines`` (a ridge), or ``steps`` in tone alone (a tile's quadrants in two woods, no line).
#: Without a setup, and in setups saved before it was learned: printed lines.
BOUNDARIES = ("lines", "steps")


@dataclass
class LearnedLooks:
    """Each suit's coin (facing north) and pawn look, as learned from a calibration photo.

    ``coins``/``pawns``  descriptor crops at the coarse scale, per suit;
    ``faces``  the coin at the fine (facing) scale, north up;
    ``empty_ratio``  the energy, relative to the board's noise floor, above which a cell
      holds something;
    ``learned``  False for the drawn stand-in used without a setup;
    ``marked``  suits whose coins' separate mark reads reliably (the calibration coins read
      as north by it);
    ``mark_spots``  per marked suit, where its mark sits: (distance from the coin's centre,
      area[, elongation]) in fine-scale pixels;
    ``turn_alike``  per suit, how alike its look is to itself turned a quarter, a half and
      three quarters clockwise;
    ``mark_shapes``  suits whose calibration coins agree on a directional mark learned as a
      shape (what the look's top shows and its sides do not);
    ``detail_empty``  the fine detail, relative to the board's noise floor of it, under which
      a tile-coloured cell is empty (the calibration pieces' own detail lowers it);
    ``boundary``  what shows the cell boundaries in view on this set's tiles (one of
      ``BOUNDARIES``: printed lines, or steps in tone alone), for telling which cells
      something covers.
    ``pawns_on_tone``  per suit, its pawn look as it shows on the board's other tile tone,
      for a board whose tiles show two (inlaid quadrants): a pawn's look holds the tile
      around it, and a pale pawn is a light blob on the dark tone, a dark one on the pale
      tone; empty where the calibration photo shows one tone.
    """

    coins: dict[str, np.ndarray]
    pawns: dict[str, np.ndarray]
    faces: dict[str, np.ndarray] = field(default_factory=dict)
    empty_ratio: float = 2.5
    learned: bool = False
    marked: tuple[str, ...] = ()
    mark_spots: dict[str, tuple[float, ...]] = field(default_factory=dict)
    turn_alike: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    detail_empty: float = DETAIL_EMPTY
    mark_shapes: tuple[str, ...] = ()
    boundary: str = BOUNDARIES[0]
    pawns_on_tone: dict[str, np.ndarray] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """What was learned; decision thresholds stay in vision's code, so a better-tuned
        version also improves old setups."""
        return {
            "coins": {s: _encode(t) for s, t in self.coins.items()},
            "pawns": {s: _encode(t) for s, t in self.pawns.items()},
            "faces": {s: _encode(t) for s, t in self.faces.items()},
            "empty_ratio": self.empty_ratio,
            "learned": self.learned,
            "marked": list(self.marked),
            "mark_spots": {s: list(v) for s, v in self.mark_spots.items()},
            "turn_alike": {s: list(v) for s, v in self.turn_alike.items()},
            "detail_empty": self.detail_empty,
            "mark_shapes": list(self.mark_shapes),
            "boundary": self.boundary,
            "pawns_on_tone": {s: _encode(t) for s, t in self.pawns_on_tone.items()},
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Self:
        """The looks saved by :meth:`to_json` (older setups lack the later keys)."""
        return cls(
            coins={s: _decode(t) for s, t in d["coins"].items()},
            pawns={s: _decode(t) for s, t in d["pawns"].items()},
            faces={s: _decode(t) for s, t in d["faces"].items()},
            empty_ratio=float(d["empty_ratio"]),
            learned=bool(d.get("learned", True)),
            marked=tuple(d.get("marked", ())),
            mark_spots={s: _spot(v) for s, v in d.get("mark_spots", {}).items()},
            turn_alike={s: _alikeness(v) for s, v in d.get("turn_alike", {}).items()},
            detail_empty=float(d.get("detail_empty", DETAIL_EMPTY)),
            mark_shapes=tuple(str(x) for x in d.get("mark_shapes", ())),
            boundary=_boundary(d.get("boundary", BOUNDARIES[0])),
            pawns_on_tone={s: _decode(t) for s, t in d.get("pawns_on_tone", {}).items()},
        )


def _boundary(v: Any) -> str:
    """A saved ``boundary`` value: one of ``BOUNDARIES`` (ValueError otherwise)."""
    if v not in BOUNDARIES:
        raise ValueError(f"boundary must be one of {', '.join(BOUNDARIES)}, not {v!r}")
    return str(v)


def _encode(a: np.ndarray) -> dict[str, Any]:
    a = np.ascontiguousarray(a, dtype=np.float16)
    return {"shape": list(a.shape), "f16": base64.b64encode(a.tobytes()).decode("ascii")}


def _decode(d: dict[str, Any]) -> np.ndarray:
    raw = base64.b64decode(d["f16"])
    return np.frombuffer(raw, dtype=np.float16).reshape(d["shape"]).astype(np.float32)


def _alikeness(v: Any) -> tuple[float, float, float]:
    """A saved ``turn_alike`` value: three finite numbers (ValueError otherwise)."""
    out = tuple(float(x) for x in v)
    if len(out) != 3 or not all(np.isfinite(out)):
        raise ValueError(f"turn_alike needs three numbers, got {v!r}")
    return out


def _spot(v: Any) -> tuple[float, ...]:
    """A saved ``mark_spots`` value: (distance, area[, elongation]), finite, area above 0
    (ValueError otherwise: ``facing.mark_blob`` indexes it and sizes blobs by the area).

    >>> _spot([11, 9.5])
    (11.0, 9.5)
    >>> _spot([11, 0])
    Traceback (most recent call last):
    ...
    ValueError: mark_spots needs (distance, area[, elongation]), area > 0: [11, 0]
    """
    out = tuple(float(x) for x in v)
    if len(out) not in (2, 3) or not all(np.isfinite(out)) or out[1] <= 0:
        raise ValueError(f"mark_spots needs (distance, area[, elongation]), area > 0: {v!r}")
    return out
