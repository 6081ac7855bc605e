"""Shared helpers for the card benchmarks: cached split photos and their cell features.

Photos are rendered on demand by :func:`piecebridge.synth.card.split_photo` and
cached under ``out/card/`` (git-ignored) as JPEG + ``card/1`` JSON, so training,
tuning and benchmarking read the very same bytes a user's photo would be.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
from piecebridge.vision import card as vc
from piecebridge.vision import card_cells as cc

from piecebridge.errors import UserError
from piecebridge.synth.card import RENDER_VERSION, split_photo

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("PIECEBRIDGE_CARD_CACHE", ROOT / "out" / "card"))


def use_model(path: str | Path | None) -> None:
    """Read with the cell model at ``path`` instead of the shipped one (a baseline or a
    candidate); set before any photo is read, so worker processes inherit it."""
    if path:
        cc.MODEL_PATH = Path(path)
        cc.default_classifier.cache_clear()


def _cached(folder: Path, split: str, index: int, size, style: str, seen: bool) -> Path:
    """The cached JPEG of a split photo in ``folder``, rendered on first use (with each
    shaded cell's ``shading_seen`` in its truth when ``seen``); the truth is beside it."""
    path = folder / f"{split}_{index:05d}.jpg"
    if not (path.exists() and path.with_suffix(".json").exists()):
        folder.mkdir(parents=True, exist_ok=True)
        img, truth = split_photo(split, index, size, style=style, seen=seen)
        path.with_suffix(".json").write_text(json.dumps(truth))
        # The renderer already JPEG-compressed the photo; store it near-losslessly, and
        # atomically, so a parallel reader never sees half a file.
        tmp = path.with_suffix(f".{os.getpid()}.tmp.jpg")
        cv2.imwrite(str(tmp), img, [cv2.IMWRITE_JPEG_QUALITY, 97])
        os.replace(tmp, path)
    elif seen:
        add_seen(path, split, index, size, style)
    return path


def photo_path(split: str, index: int, size: tuple[int, int], seen: bool = False) -> Path:
    """Path of the cached JPEG (rendered on first use); the truth is beside it, with
    each shaded cell's ``shading_seen`` when ``seen`` (:func:`add_seen`)."""
    # the renderer's version in the name: an older renderer's photos are other photos
    folder = CACHE / f"{split}_r{RENDER_VERSION}_{size[0]}x{size[1]}"
    return _cached(folder, split, index, size, "classic", seen)


def load_truth(path: Path) -> dict:
    return json.loads(path.with_suffix(".json").read_text())


def match_views(views, truth: dict, scale: float) -> list[int] | None:
    """Index of the truth grid each read grid is (by the upright TL corner), or None
    when the orientation or the grid order is wrong."""
    out = []
    for i, v in enumerate(views):
        tl = v.corners[0] / scale
        d = [np.linalg.norm(tl - np.asarray(c[0])) for c in truth["corners_px"]]
        j = int(np.argmin(d))
        cell = np.linalg.norm(v.corners[1] - v.corners[0]) / scale / 10
        if d[j] > 0.5 * cell or j != i:
            return None
        out.append(j)
    return out


def _save(path: Path, **arrays) -> None:
    """``np.savez`` atomically: a parallel reader never sees half a file."""
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    np.savez(tmp, **arrays)
    os.replace(tmp, path)


def rects_of(path: Path) -> dict:
    """The reader's rectified grids of one photo with their truth labels, cached
    beside the photo (``.rects.g<GRID_VERSION>.npz``: grids cut by an older finder or
    lattice are not reused), so features can be re-extracted cheaply."""
    cache = path.with_suffix(f".rects.g{vc.GRID_VERSION}.npz")
    if cache.exists():
        d = np.load(cache, allow_pickle=False)
        if "error" in d:
            return {"path": str(path), "error": str(d["error"])}
        return {"path": str(path), "rects": d["rects"], "mark": d["mark"], "shaded": d["shaded"]}
    truth = load_truth(path)
    try:
        grey, scale = vc.load_photo(path)
        quads = vc.find_grids(grey)
        views = vc.orient_grids(grey, [vc.refine_lattice(grey, q) for q in quads])
    except UserError as e:
        _save(cache, error=str(e))
        return {"path": str(path), "error": str(e)}
    matched = match_views(views, truth, scale)
    if matched is None or len(views) != len(truth["grids"]):
        _save(cache, error="orientation/grid mismatch")
        return {"path": str(path), "error": "orientation/grid mismatch"}
    rects = np.stack([vc.remap_grid(grey, v.lattice) for v in views])
    labels = [cc.truth_labels(truth["grids"][j]) for j in matched]
    mark = np.stack([lab[0] for lab in labels])
    shaded = np.stack([lab[1] for lab in labels])
    _save(cache, rects=rects, mark=mark, shaded=shaded)
    return {"path": str(path), "rects": rects, "mark": mark, "shaded": shaded}


def has_seen(truth: dict) -> bool:
    """Whether a truth says how much of each shaded cell's shading its photo shows."""
    return all("shading_seen" in g for g in truth["grids"])


def add_seen(path: Path, split: str, index: int, size: tuple[int, int], style: str) -> None:
    """Give the truth beside a cached photo its ``shading_seen`` (rendered again with
    ``split_photo(..., seen=True)``, which draws the very same photo; checked against
    the cached one), unless it has it; the truth file is rewritten atomically."""
    if not has_seen(load_truth(path)):
        rewrite_truth(path, split_photo(split, index, size, style=style, seen=True))


def rewrite_truth(path: Path, rendered: tuple[np.ndarray, dict]) -> None:
    """Replace the truth beside the cached photo ``path`` with ``rendered`` (the photo drawn
    again and its fuller truth), atomically, after checking that the renderer still draws
    that photo and those cells."""
    img, seen = rendered
    truth = load_truth(path)
    cached = cv2.imread(str(path))
    if cached is None or np.abs(cached.astype(np.int16) - img).mean() > 2.0:
        raise RuntimeError(f"{path}: the renderer no longer draws this photo")
    if [g["cells"] for g in seen["grids"]] != [g["cells"] for g in truth["grids"]]:
        raise RuntimeError(f"{path}: the renderer no longer draws this truth")
    tmp = path.with_suffix(f".{os.getpid()}.tmp.json")
    tmp.write_text(json.dumps(seen))
    os.replace(tmp, path.with_suffix(".json"))


def style_photo_path(
    split: str, index: int, size: tuple[int, int], style: str, seen: bool = False
) -> Path:
    """:func:`photo_path` for a photo of another hand and card
    (:mod:`piecebridge.synth.card_styles`); ``"classic"`` is :func:`photo_path` itself.
    ``seen``: the truth also holds each shaded cell's ``shading_seen`` (:func:`add_seen`)."""
    if style == "classic":
        return photo_path(split, index, size, seen)
    return _cached(CACHE / f"{split}_{style}_{size[0]}x{size[1]}", split, index, size, style, seen)
