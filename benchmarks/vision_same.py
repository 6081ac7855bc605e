"""Check that a speed change leaves every reading as it was: dump, then diff.

``dump`` reads the tune split (realistic, the split's mix of arts) the ways the reader is
used and writes one JSON line per read: the ``reflec-board/1`` board, the pose (homography,
lens, tile shifts and twists, each as ``repr`` so the last bit counts), every cell's
measured and decided fields, and what the read says of itself (moved, cells read,
fallback). Reads: each rig's calibration (the setup's pose), each shot with and without the
setup, a locked reader cycling the rig's shots (full reads and ``cells=CHANGED``), and for
the first ``--stream-rigs`` rigs a 12-frame camera stream read twice round with
``cells=CHANGED`` and with named cells. ``--art NAME`` reads rigs rendered in that piece
art instead (no streams). ``diff`` compares two dumps line by line.

Run the same command on the code before and after (e.g. a ``git worktree`` of each, each
imported through its own layout dir, see notes/HELPERS.md)::

    PYTHONPATH=/tmp/layA python benchmarks/vision_same.py dump /tmp/a.jsonl --cache DIR
    PYTHONPATH=/tmp/layB python benchmarks/vision_same.py dump /tmp/b.jsonl --cache DIR
    python benchmarks/vision_same.py diff /tmp/a.jsonl /tmp/b.jsonl

Uses the tune split only (never the held-out test split).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the speed figures: one core
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cv2
import numpy as np
import vision_reflec as vr
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.reader import CHANGED, BoardReader

from piecebridge.errors import UserError

NAMED = {"a1", "d4", "e5", "h8"}  # the cells a named stream read asks for


def _fields(d) -> str:
    """Every public non-array field of a cell decision, exactly (repr of plain values)."""
    out = {}
    for k, v in sorted(d.__dict__.items()):
        if k.startswith("_") or isinstance(v, np.ndarray):
            continue
        out[k] = v.item() if isinstance(v, np.generic) else v
    return repr(out)


def _record(tag: str, read, *args, **kwargs) -> dict:
    """The record of ``read(*args, **kwargs)`` (an Observation), or of its refusal."""
    try:
        obs = read(*args, **kwargs)
    except UserError as e:
        return {"tag": tag, "error": str(e)}
    p = obs.pose
    return {
        "tag": tag,
        "board": obs.board,
        "pose": [
            repr(a) for a in (p.H.tolist(), p.k, p.tile_offsets.tolist(), p.tile_angles.tolist())
        ]
        + [p.inverted],
        "cells": [_fields(d) for d in obs.decisions],
        "moved": obs.moved,
        "read": list(obs.cells_read),
        "fallback": obs.fallback,
    }


def dump(
    out_path: str,
    rigs: range,
    stream_rigs: int,
    cache: Path,
    art: str | None = None,
) -> int:
    cv2.setNumThreads(1)
    n = 0
    with open(out_path, "w") as out:

        def put(rec: dict) -> None:
            nonlocal n
            out.write(json.dumps(rec, default=repr) + "\n")
            n += 1

        for rig in rigs:
            cal, shots = vr.rig_images("tune", rig, "realistic", cache, art)
            try:
                setup, _ = learn_setup(cal)
                put({"tag": f"r{rig}-setup", "setup": repr(setup.pose.to_json())})
            except UserError as e:
                setup = None
                put({"tag": f"r{rig}-setup", "error": str(e)})
            for s, (img, _) in enumerate(shots):
                if setup is not None:
                    put(_record(f"r{rig}-s{s}-setup", BoardReader(setup=setup).read, img))
                put(_record(f"r{rig}-s{s}-nosetup", BoardReader().read, img))
            if setup is not None:
                full, changed = BoardReader(setup=setup), BoardReader(setup=setup)
                for k in range(6):
                    img = shots[k % len(shots)][0]
                    put(_record(f"r{rig}-cycle{k}-full", full.read, img))
                    put(_record(f"r{rig}-cycle{k}-changed", changed.read, img, CHANGED))
            print(f"rig {rig}: {n} reads so far", file=sys.stderr)
        # Streams are rendered in the split's own mix of arts only.
        for rig in range(stream_rigs) if art is None else ():
            cal, _ = vr.rig_images("tune", rig, "realistic", cache)
            setup, _ = learn_setup(cal)
            frames = vr.stream_frames(cache, split="tune", rig_index=rig, difficulty="realistic")
            stream, named = BoardReader(setup=setup), BoardReader(setup=setup)
            for turn in range(2):
                for k, (img, _) in enumerate(frames):
                    put(_record(f"stream{rig}-{turn}-{k}", stream.read, img, CHANGED))
                    put(_record(f"named{rig}-{turn}-{k}", named.read, img, cells=NAMED))
            print(f"stream of rig {rig}: {n} reads so far", file=sys.stderr)
    print(f"{n} records written to {out_path}")
    return 0


def diff(a_path: str, b_path: str, show: int = 10) -> int:
    with open(a_path) as fa, open(b_path) as fb:
        a, b = [json.loads(line) for line in fa], [json.loads(line) for line in fb]
    if [r["tag"] for r in a] != [r["tag"] for r in b]:
        print("the dumps read different things (rigs, streams): not comparable")
        return 1
    differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    for x, y in differ[:show]:
        keys = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
        print(f"{x['tag']}: {', '.join(keys)} differ")
        for c1, c2 in zip(x.get("cells", []), y.get("cells", []), strict=False):
            if c1 != c2:
                print(f"  {c1[:240]}\n  {c2[:240]}")
                break
    reads = sum(1 for r in a if "board" in r)
    cells = sum(len(r["cells"]) for r in a if "cells" in r)
    print(f"{len(a)} records ({reads} reads, {cells} cell decisions): {len(differ)} differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    d = sub.add_parser("dump", help="read the tune split, one JSON line per read")
    d.add_argument("out")
    d.add_argument("--rigs", type=int, default=35)
    d.add_argument("--first-rig", type=int, default=0)
    d.add_argument(
        "--art",
        choices=sorted(vr.ART),
        help="every rig in this piece art (no streams; default: the split's mix)",
    )
    d.add_argument("--stream-rigs", type=int, default=4)
    d.add_argument("--cache", default="~/.cache/piecebridge/vision_reflec")
    c = sub.add_parser("diff", help="compare two dumps (exit 1 if any read differs)")
    c.add_argument("a")
    c.add_argument("b")
    args = ap.parse_args(argv)
    if args.what == "dump":
        cache = Path(args.cache).expanduser()
        cache.mkdir(parents=True, exist_ok=True)
        rigs = range(args.first_rig, args.first_rig + args.rigs)
        return dump(args.out, rigs, args.stream_rigs, cache, args.art)
    return diff(args.a, args.b)


if __name__ == "__main__":
    raise SystemExit(main())
