"""Benchmark: how well the reader's hand masks match the renderer's hand, cell by cell.

The reader leaves many cells at a hand's edge unknown (cause ``covered``) although the renderer
calls them readable (under half hidden); its rules for such cells judge the part of the cell's
window (``cells.hand_edge_window``) that a hand mask leaves in view. This measures those masks
against the renderer's own: each shot with a hand is rendered again (its pixels must match the
cached ones), the renderer's hand coverage (``Photo.occlusion``) and the hand's shadow
(``Photo.extras["shadow"]``) are rectified with the reader's pose, and for every readable cell
with a hand over part of it (``cover_facts``: some hand, under half hidden) each mask is scored
in the cell's look disc:

* ``hand missed``: the share of the renderer's hand (coverage >= 0.5) the mask leaves in view
  (a hand taken for board: what a rule then judges is the hand); ``core``: the same for the
  hand's solid part (coverage >= 0.9, cells with at least 10 such pixels);
* ``tile taken`` (empty cells): the share of the board in view (coverage < 0.05) that the mask
  takes for the hand, in the hand's shadow (shadow >= 0.1) and lit;
* ``cells missing``: cells where the hand the mask leaves in view is at least a tenth of the disc;
* ``coin shows`` (cells of the class: unknown with cause ``covered``): cells where a coin's face
  (radius 9 px at ``PX``, every place up to 2 px off the middle) would show at least a fifth of
  itself beside the mask (hand27's "every coin shows a fifth"), by the truth's kind.

The masks: ``renderer`` (coverage >= 0.5, the reference), ``edge`` (``cells.edge_cover`` of
``cells.tile_pixels``: what the tile rules set aside) and ``hand`` (``hand.hand_pixels`` with the
frame's hidden-line colours and open tile, as ``cells._no_tile_under_a_hand``; ``hand+1``: it
dilated a pixel, for its soft edge).

    python benchmarks/hand_mask.py --split tune --first-rig 6300 --rigs 40 --cache /tmp/c
    python benchmarks/hand_mask.py ... --art woodburned       # or --hand-colour white

Tune split only for choosing anything (the held-out split is read by the lead).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from piecebridge.vision import cells as C
from piecebridge.vision.hand import hand_pixels
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.raster import CELL_ORDER, FACE_PX, MARGIN, PX
from piecebridge.vision.reader import BoardReader
from vision_reflec import HAND_COLOURS, _items, decline_cause, rig_images

from piecebridge.errors import UserError
from piecebridge.synth.reflec import Difficulty, sample

#: Renderer coverage at which a pixel is the hand's, and under which it is board.
HAND_AT, BOARD_BELOW, CORE_AT = 0.5, 0.05, 0.9
#: The hand's shadow takes at least this share of the light.
SHADOW_AT = 0.1
#: A coin's face radius (px at PX) and the share of it that must show (hand27's test).
COIN_RADIUS, COIN_SHOWN = 9.0, 0.2

Mask = Callable[[dict], np.ndarray]


def _coin_discs() -> list[np.ndarray]:
    """A coin's face at every place up to 2 px off the window's middle."""
    w = C.HAND_EDGE_WINDOW
    yy, xx = np.mgrid[:w, :w] - (w - 1) / 2
    return [np.hypot(yy - dy, xx - dx) <= COIN_RADIUS for dy in range(-2, 3) for dx in range(-2, 3)]


DISCS = _coin_discs()


def coin_shown(mask: np.ndarray) -> float:
    """The least share of a coin's face (over its places) that lies beside ``mask``."""
    return min(float(((~mask) & d).sum() / d.sum()) for d in DISCS)


def _edge(c: dict) -> np.ndarray:
    return C.edge_cover(C.tile_pixels(c["window"], c["refs"]))


def _hand(c: dict) -> np.ndarray:
    colours, tile = c["hand_colours"], c["open_px"]
    if colours is None or tile is None:
        return np.zeros(c["window"].shape[:2], bool)
    colours = colours[colours[:, 0] < C.GLARE_WHITE]  # glare's are no hand
    return hand_pixels(c["window"], colours, tile, tuple(c["refs"].tile_ab))


def _dilated(mask: Mask) -> Mask:
    return lambda c: cv2.dilate(mask(c).astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)


MASKS: dict[str, Mask] = {
    "renderer": lambda c: c["occ"] >= HAND_AT,
    "edge": _edge,
    "hand": _hand,
    "hand+1": _dilated(_hand),
}


def _rectified(image: np.ndarray, pose) -> np.ndarray:
    """A float image of the frame rectified as the reader's cells are (PX, MARGIN)."""
    n = round((8 + 2 * MARGIN) * PX)
    return cv2.resize(pose.rectify(image, FACE_PX, MARGIN), (n, n), interpolation=cv2.INTER_AREA)


def _window(board: np.ndarray, cell: str) -> np.ndarray:
    """A cell's ``hand_edge_window`` of a rectified board (any channels)."""
    y, x = C._cell_origin(CELL_ORDER.index(cell))
    r, w = C.HAND_EDGE_ROOM, C.HAND_EDGE_WINDOW
    return board[y - r : y - r + w, x - r : x - r + w]


def shot_cells(args: argparse.Namespace, idx: int, image: np.ndarray, truth: dict, reader, obs):
    """The readable cells with a hand over part of them, as dicts for the masks."""
    colour = HAND_COLOURS[args.hand_colour] if args.hand_colour else None
    shot = sample(args.split, idx, Difficulty.realistic(), art=args.art, hand_colour=colour)
    if shot.image.shape != image.shape or np.abs(shot.image.astype(int) - image).max():
        raise RuntimeError(f"shot {idx}: the renderer no longer draws the cached photo")
    occ = shot.photo.occlusion
    shadow = shot.photo.extras.get("shadow", np.zeros_like(occ))
    truth_maps = _rectified(
        np.dstack([occ, shadow, np.zeros_like(occ)]).astype(np.float32), obs.pose
    )
    open_px = C.open_tile_pixels(obs.decisions)
    want, facts = _items(truth), truth["synth"].get("cover_facts", {})
    out = []
    for d in obs.decisions:
        f = facts.get(d.cell, {})
        if not (f.get("hand", 0) > 0 and f.get("hidden", 0) < 0.5) or d.seen_later is None:
            continue
        maps = _window(truth_maps, d.cell)
        cause = decline_cause(d, reader.looks) if d.kind == "unknown" else ""
        out.append({
            "kind": want.get(d.cell, ("empty",))[0], "class": cause == "covered",
            "window": d.seen_later.window, "refs": d.seen_later.refs,
            "hand_colours": d.hand_colours, "open_px": open_px,
            "occ": maps[..., 0], "shadow": maps[..., 1],
        })  # fmt: skip
    return out


def score(c: dict, mask: np.ndarray) -> dict:
    """One cell's scores for one mask (see the module's docstring)."""
    disc = C._WINDOW_DISC
    hand, core = (c["occ"] >= HAND_AT) & disc, (c["occ"] >= CORE_AT) & disc
    board = (c["occ"] < BOARD_BELOW) & disc
    shade = board & (c["shadow"] >= SHADOW_AT)
    missed = hand & ~mask
    out = {
        "missed": missed.sum() / max(hand.sum(), 1),
        "core": (core & ~mask).sum() / core.sum() if core.sum() >= 10 else np.nan,
        "bad": missed.sum() >= 0.1 * disc.sum(),
        "shown": coin_shown(mask) >= COIN_SHOWN,
        "shade": np.nan, "lit": np.nan,
    }  # fmt: skip
    if c["kind"] == "empty":
        lit = board & ~shade
        out["shade"] = (mask & shade).sum() / shade.sum() if shade.any() else np.nan
        out["lit"] = (mask & lit).sum() / lit.sum() if lit.any() else np.nan
    return out


def table(cells: list[dict], name: str) -> list[str]:
    """Markdown rows: one per mask."""
    lines = []
    cls = [c for c in cells if c["class"]]
    for m, fn in MASKS.items():
        s = [score(c, fn(c)) for c in cells]
        sc = [score(c, fn(c)) for c in cls]
        mean = lambda k, rows: np.nanmean([r[k] for r in rows]) if rows else np.nan  # noqa: E731
        shows = {
            k: f"{sum(r['shown'] for r, c in zip(sc, cls, strict=True) if c['kind'] == k)}"
            f"/{sum(c['kind'] == k for c in cls)}"
            for k in ("empty", "coin", "pawn")
        }
        lines.append(
            f"| {name} | {m} | {len(cells)} | {mean('missed', s):.3f} ({mean('core', s):.3f}) | "
            f"{mean('shade', s):.3f} / {mean('lit', s):.3f} | {sum(r['bad'] for r in s)} | "
            f"{len(cls)} | {mean('missed', sc):.3f} | {sum(r['bad'] for r in sc)} | "
            f"{shows['empty']} / {shows['coin']} / {shows['pawn']} |"
        )
    return lines


HEADER = (
    "| set | mask | readable hand-edge cells | hand missed (core) | empties: tile taken, "
    "shadowed / lit | cells missing >= 0.1 of the disc | class cells | class: hand missed | "
    "class: cells missing | class: a coin shows a fifth (empty / coin / pawn) |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default="~/.cache/piecebridge/vision_reflec")
    ap.add_argument("--first-rig", type=int, default=0)
    ap.add_argument("--rigs", type=int, default=40)
    ap.add_argument("--split", default="tune", choices=["tune", "test"], help="tune to choose")
    ap.add_argument("--art", help="every rig in this piece art (default: the split's mix)")
    ap.add_argument("--hand-colour", choices=sorted(HAND_COLOURS), help="every hand so")
    ap.add_argument("--name", default="", help="the set's name in the table")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    cache = Path(args.cache).expanduser()
    cells: list[dict] = []
    for rig in range(args.first_rig, args.first_rig + args.rigs):
        cal, shots = rig_images(args.split, rig, "realistic", cache, args.art, args.hand_colour)
        try:
            setup, _ = learn_setup(cal)
        except UserError:
            continue
        for image, truth in shots:
            facts = truth["synth"].get("cover_facts", {})
            if not any(f.get("hand", 0) > 0 for f in facts.values()):
                continue  # no hand over the board
            reader = BoardReader(setup=setup)
            try:
                obs = reader.read(image)
            except UserError:
                continue
            if obs.board is None:
                continue
            cells += shot_cells(args, truth["synth"]["index"], image, truth, reader, obs)
        print(f"  rig {rig}: {len(cells)} cells", file=sys.stderr)
    print(HEADER)
    print("\n".join(table(cells, args.name or args.art or "mix")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
