"""Per-cell classification: empty, coin (suit, facing) or pawn (suit), or unknown.

Each cell of the rectified board is cut out a few times, slightly shifted (pieces are never
placed exactly in the middle), and turned into a descriptor: lightness with its mean removed
(so uneven light does not matter) and colour relative to the tile colour (so a coloured light
cast does not either). Descriptors are compared by cosine similarity with the learned looks:
each suit's coin facing north, turned by quarter turns for the other facings (the facing is
read from the coin's own markings), and each suit's pawn.

A cell is *empty* when its structure energy stays near the noise floor of the board's
emptiest cells; otherwise the best look wins if it is both similar enough and clearly better
than the best look with another answer. Anything else goes to ``unknown`` (a hand, glare).

>>> looks = PieceLooks.default()
>>> sorted(looks.coins)
['arms', 'crowns', 'moons', 'suns']
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from piecebridge.vision.geometry import N, cell_name

SUITS = ("suns", "moons", "crowns", "arms")
FACINGS = ("north", "east", "south", "west")
#: np.rot90 ``k`` turning a north-facing look into each facing (k=-1 is clockwise).
FACING_ROT = {"north": 0, "east": -1, "south": 2, "west": 1}
#: Standard Piecepack suit colours (BGR) for the no-setup fallback.
DEFAULT_SUIT_BGR = {
    "suns": (40, 60, 210),
    "moons": (35, 35, 35),
    "crowns": (60, 140, 40),
    "arms": (180, 90, 30),
}

PX = 24  # rectified pixels per cell for classification
MARGIN = 0.5  # cells of rectified margin around the board (room for shifts)
CROP = 20  # descriptor window, pixels (0.83 cell: inside the grid lines)
SHIFTS = (-2, 0, 2)
FACING_SEARCH = 4  # pixels searched each way when reading a coin's facing
CHROMA_WEIGHT = 1.5  # colour matters as much as shape for telling suits apart


# --------------------------------------------------------------------------- descriptors


#: Cell names in the order of the descriptor rows (north-west first, row-major).
CELL_ORDER = [cell_name(col, row) for row in range(N - 1, -1, -1) for col in range(N)]
_CENTRE_SHIFT = len(SHIFTS) ** 2 // 2
_OFFSETS = [(dy, dx) for dy in SHIFTS for dx in SHIFTS]


def _cell_origin(i: int) -> tuple[int, int]:
    """Top-left (y, x) of cell ``i``'s centred crop in the rectified board."""
    row, col = divmod(i, N)
    o = round(MARGIN * PX) + (PX - CROP) // 2
    return o + row * PX, o + col * PX


def board_lab(rect_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lab image (float32, lightly blurred) of a rectified board and its tile chroma (a, b)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(rect_bgr, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    m = int(MARGIN * PX)
    inner = lab[m:-m:3, m:-m:3].reshape(-1, 3)
    return lab, np.median(inner[:, 1:], axis=0)


def raw_crops(lab: np.ndarray, tile_ab: np.ndarray, rel: np.ndarray | None = None) -> np.ndarray:
    """Crops (64, shifts, CROP, CROP, 3): L minus its crop mean, a and b minus tile chroma."""
    o = round(MARGIN * PX) + (PX - CROP) // 2
    if rel is None:
        rel = relative_lab(lab, tile_ab)
    crops = np.empty((N * N, len(_OFFSETS), CROP, CROP, 3), np.float32)
    for k, (dy, dx) in enumerate(_OFFSETS):
        # Cells are PX apart, so all 64 crops of one shift are one reshaped slice.
        block = rel[o + dy : o + dy + N * PX, o + dx : o + dx + N * PX]
        cells = block.reshape(N, PX, N, PX, 3)[:, :CROP, :, :CROP]
        crops[:, k] = cells.transpose(0, 2, 1, 3, 4).reshape(N * N, CROP, CROP, 3)
    light = crops[..., 0]
    light -= light.mean(axis=(2, 3), keepdims=True)
    return crops


def relative_lab(lab: np.ndarray, tile_ab: np.ndarray) -> np.ndarray:
    """Lab with the tile chroma removed and colour weighted (a new array)."""
    light, a, b = cv2.split(lab)
    w = CHROMA_WEIGHT
    return cv2.merge([light, (a - float(tile_ab[0])) * w, (b - float(tile_ab[1])) * w])


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.sqrt(np.einsum("...k,...k->...", v, v))[..., None]
    return v / (norm + 1e-6)


_DISC = (
    np.hypot(*np.meshgrid(np.arange(CROP) - (CROP - 1) / 2, np.arange(CROP) - (CROP - 1) / 2))
    < 0.42 * PX
)


def energies(crops: np.ndarray) -> np.ndarray:
    """RMS structure of each cell's centred crop inside a central disc (64,).

    Every channel's mean is removed first: a flat cell of any colour has no structure.
    """
    c = crops[:, _CENTRE_SHIFT][:, _DISC]
    c = c - c.mean(axis=1, keepdims=True)
    return np.sqrt((c**2).sum(axis=-1).mean(axis=-1))


# --------------------------------------------------------------------------- looks


def _encode(a: np.ndarray) -> dict[str, Any]:
    a = np.ascontiguousarray(a, dtype=np.float16)
    return {"shape": list(a.shape), "f16": base64.b64encode(a.tobytes()).decode("ascii")}


def _decode(d: dict[str, Any]) -> np.ndarray:
    raw = base64.b64decode(d["f16"])
    return np.frombuffer(raw, dtype=np.float16).reshape(d["shape"]).astype(np.float32)


@dataclass
class PieceLooks:
    """What each suit's coin (facing north) and pawn look like, as descriptor crops.

    ``empty_ratio`` is the energy, relative to the board's noise floor, above which a cell
    holds something; ``min_similarity`` and ``min_margin`` gate a decision.
    """

    coins: dict[str, np.ndarray]
    pawns: dict[str, np.ndarray]
    empty_ratio: float = 2.5
    min_similarity: float = 0.55
    min_margin: float = 0.04
    min_facing_margin: float = 0.015
    max_empty_tint: float = 12.0
    learned: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "coins": {s: _encode(t) for s, t in self.coins.items()},
            "pawns": {s: _encode(t) for s, t in self.pawns.items()},
            "empty_ratio": self.empty_ratio,
            "min_similarity": self.min_similarity,
            "min_margin": self.min_margin,
            "min_facing_margin": self.min_facing_margin,
            "max_empty_tint": self.max_empty_tint,
            "learned": self.learned,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PieceLooks:
        return cls(
            coins={s: _decode(t) for s, t in d["coins"].items()},
            pawns={s: _decode(t) for s, t in d["pawns"].items()},
            empty_ratio=float(d["empty_ratio"]),
            min_similarity=float(d["min_similarity"]),
            min_margin=float(d["min_margin"]),
            min_facing_margin=float(d.get("min_facing_margin", 0.015)),
            max_empty_tint=float(d.get("max_empty_tint", 12.0)),
            learned=bool(d.get("learned", True)),
        )

    @classmethod
    def default(cls) -> PieceLooks:
        """Generic looks in the standard suit colours: a pale coin with a coloured symbol and
        a dot at its top, a pawn as a solid coloured disc. A fallback, not a model of any art.
        """
        tile = np.full((PX * 3, PX * 3, 3), (175, 205, 220), np.uint8)
        c = (PX * 3) // 2
        coins, pawns = {}, {}
        for suit, bgr in DEFAULT_SUIT_BGR.items():
            img = tile.copy()
            cv2.circle(img, (c, c), int(0.38 * PX), (165, 195, 210), -1)
            cv2.circle(img, (c, c), int(0.38 * PX), (110, 120, 130), 1)
            cv2.circle(img, (c, c), int(0.16 * PX), bgr, -1)
            cv2.circle(img, (c, c - int(0.28 * PX)), max(1, int(0.05 * PX)), bgr, -1)
            coins[suit] = _crop_from_patch(img)
            img = tile.copy()
            cv2.circle(img, (c, c), int(0.3 * PX), bgr, -1)
            pawns[suit] = _crop_from_patch(img)
        return cls(coins=coins, pawns=pawns, min_similarity=0.45, min_margin=0.03)

    # ------------------------------------------------------------------ templates

    def templates(self) -> tuple[np.ndarray, list[tuple[str, str, str | None]]]:
        """Unit template matrix (D, K) and the label of each column."""
        cols, labels = [], []
        for suit, t in self.coins.items():
            for facing in FACINGS:
                cols.append(np.rot90(t, FACING_ROT[facing]).ravel())
                labels.append(("coin", suit, facing))
        for suit, t in self.pawns.items():
            for k in range(4):  # a pawn leans a different way on each side of the camera
                cols.append(np.rot90(t, k).ravel())
                labels.append(("pawn", suit, None))
        return _unit(np.asarray(cols)).T.astype(np.float32), labels


def _crop_from_patch(patch_bgr: np.ndarray) -> np.ndarray:
    """Descriptor crop of one cell-sized-plus-margin patch (centre of ``patch_bgr``)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(patch_bgr, (0, 0), 0.8), cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    tile_ab = np.median(lab[:3, :3, 1:].reshape(-1, 2), axis=0)
    c = lab.shape[0] // 2
    crop = lab[c - CROP // 2 : c - CROP // 2 + CROP, c - CROP // 2 : c - CROP // 2 + CROP].copy()
    crop[..., 0] -= crop[..., 0].mean()
    crop[..., 1:] = (crop[..., 1:] - tile_ab) * CHROMA_WEIGHT
    return crop


# --------------------------------------------------------------------------- decisions


@dataclass
class CellDecision:
    """One cell's verdict. ``kind`` is empty, coin, pawn or unknown."""

    cell: str
    kind: str
    suit: str | None = None
    facing: str | None = None
    confidence: float = 1.0
    similarity: float = 0.0
    energy_ratio: float = 0.0


def classify(rect_bgr: np.ndarray, looks: PieceLooks) -> list[CellDecision]:
    """Decide every cell of a rectified board (``PX`` px/cell, ``MARGIN`` margin)."""
    lab, tile_ab = board_lab(rect_bgr)
    rel = relative_lab(lab, tile_ab)
    crops = raw_crops(lab, tile_ab, rel)
    energy = energies(crops)
    floor = max(float(np.median(np.sort(energy)[:16])), 1.0)
    ratio = energy / floor
    # A flat cell of a foreign colour (a hand, a sleeve) is not an empty tile.
    tint = np.linalg.norm(crops[:, _CENTRE_SHIFT, :, :, 1:].mean(axis=(1, 2)), axis=-1)
    T, labels = looks.templates()
    desc = _unit(crops.reshape(crops.shape[0], crops.shape[1], -1))
    all_sims = desc @ T  # (64, shifts, K)
    sims = all_sims.max(axis=1)  # best shift per template
    out = []
    for i, cell in enumerate(CELL_ORDER):
        d = _decide(cell, ratio[i], sims[i], labels, looks)
        if d.kind == "empty" and tint[i] > looks.max_empty_tint:
            d.kind, d.confidence = "unknown", 0.0
        if d.kind == "coin":
            y, x = _cell_origin(i)
            r = FACING_SEARCH
            window = rel[y - r : y + CROP + r, x - r : x + CROP + r]
            _read_facing(d, window, looks.coins[d.suit], looks)
        out.append(d)
    return out


def _read_facing(
    d: CellDecision, window: np.ndarray, coin_look: np.ndarray, looks: PieceLooks
) -> None:
    """Set ``d.facing`` from the coin's own markings.

    The suit's look is matched in each of its four turns at every 1-px shift of a window
    around the cell; the symmetric parts (rim, symbol body) fit equally in all turns, so the
    turn that also lines up the directional markings wins.
    """
    scores = np.array(
        [cv2.matchTemplate(window, t, cv2.TM_CCOEFF_NORMED).max() for t in _turned(coin_look)]
    )
    order = np.argsort(scores)[::-1]
    d.facing = FACINGS[int(order[0])]
    margin = float(scores[order[0]] - scores[order[1]])
    d.confidence = float(min(d.confidence, np.clip(margin / (3 * looks.min_facing_margin), 0, 1)))
    if margin < looks.min_facing_margin:
        d.kind = "unknown"


def _turned(look: np.ndarray) -> list[np.ndarray]:
    """The look facing north, east, south, west (contiguous float32 for matchTemplate)."""
    return [np.ascontiguousarray(np.rot90(look, FACING_ROT[f]), np.float32) for f in FACINGS]


def _decide(
    cell: str,
    ratio: float,
    sims: np.ndarray,
    labels: list[tuple[str, str, str | None]],
    looks: PieceLooks,
) -> CellDecision:
    t = looks.empty_ratio
    if ratio < t:
        conf = float(np.clip((t - ratio) / (0.5 * t), 0.0, 1.0))
        kind = "empty" if ratio < 0.8 * t else "unknown"
        return CellDecision(cell, kind, confidence=max(conf, 0.5), energy_ratio=ratio)
    order = np.argsort(sims)[::-1]
    best = int(order[0])
    # Facing is decided later from the markings alone: here only kind and suit compete.
    second = next((int(j) for j in order[1:] if labels[j][:2] != labels[best][:2]), best)
    margin = float(sims[best] - sims[second])
    kind, suit, facing = labels[best]
    conf = float(np.clip(margin / (3 * looks.min_margin), 0.0, 1.0))
    if sims[best] < looks.min_similarity or margin < looks.min_margin or ratio < 1.1 * t:
        kind = "unknown"
    return CellDecision(cell, kind, suit, facing, conf, float(sims[best]), ratio)
