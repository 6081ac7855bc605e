"""Speed of `piecebridge score` on 12-megapixel phone photos, against decoding alone.

    python benchmarks/card_speed.py --photos 4 --repeat 7

Single photo: median wall time of the whole read-and-score path (file -> card/1
with score) on one core (OpenCV and numpy's BLAS limited to one thread), next to the median of
``cv2.imdecode`` of the same JPEG bytes (full colour decode, what any reader pays)
measured in the same run. Batch: photos per second with 1 and with N processes.

``--compare MODEL`` times another cell model, ``--compare-rev REV`` the reader's code as it
was at a git revision, each interleaved with the working tree (same photos, same moments).
``--same-as REV`` checks instead that a faster reader reads every cell as REV's did.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

# One core means one BLAS thread too (the cell network's matrix products would otherwise
# spread over every core); set before numpy loads its BLAS.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from card_data import photo_path, style_photo_path, use_model  # noqa: E402
from piecebridge.vision import card, card_cells, card_shading  # noqa: E402

from piecebridge.commands.score import read_and_score, run_batch  # noqa: E402


@contextlib.contextmanager
def _reading_with(net):
    """Read with ``net`` for a while (the reader looks the shipped model up on each call)."""
    shipped = card_cells.default_classifier
    card_cells.default_classifier = lambda: net
    try:
        yield
    finally:
        card_cells.default_classifier = shipped


def _functions_at(rev: str, tmp: Path) -> list[tuple[object, str, object]]:
    """The reader's code as it was at git ``rev``: ``(owner, name, function)`` for every
    module-level function of its modules (``card``, ``card_cells`` and, where ``rev`` has
    it, ``card_shading``, which ``card_cells`` calls through the module at call time), and
    every method of their classes, loaded apart (module name ``<module>_at_rev``), that
    the working tree's modules also have."""
    repo = Path(__file__).resolve().parent.parent
    out = []
    modules = (
        (card, "vision/card.py", True),
        (card_cells, "vision/card_cells.py", True),
        (card_shading, "vision/card_shading.py", False),  # absent before the twenty-third session
    )
    for mod, rel, required in modules:
        shown = subprocess.run(
            ["git", "show", f"{rev}:{rel}"], cwd=repo, capture_output=True, text=True
        )
        if shown.returncode and not required:
            continue
        if shown.returncode:
            raise SystemExit(f"--compare-rev {rev}: no {rel} there ({shown.stderr.strip()})")
        src = shown.stdout
        name = f"{mod.__name__.rsplit('.', 1)[-1]}_at_rev"
        path = tmp / f"{name}.py"
        path.write_text(src)
        spec = importlib.util.spec_from_file_location(name, path)
        old = importlib.util.module_from_spec(spec)
        sys.modules[name] = old  # dataclasses look their module up
        spec.loader.exec_module(old)
        for k, v in vars(old).items():
            if isinstance(v, types.FunctionType) and v.__module__ == name:
                if k != "default_classifier" and hasattr(mod, k):
                    out.append((mod, k, v))
            elif (
                isinstance(v, type)
                and v.__module__ == name
                and isinstance(getattr(mod, k, None), type)
            ):
                # the methods too: an instance of today's class (the shipped model) must
                # read with the old code (CellNet.predict_grid)
                out += [
                    (getattr(mod, k), m, f)
                    for m, f in vars(v).items()
                    if isinstance(f, types.FunctionType)
                    and not m.startswith("__")  # not the dataclass's own __init__ etc.
                    and m in vars(getattr(mod, k))
                ]
    return out


@contextlib.contextmanager
def _reading_with_code(functions: list[tuple[object, str, object]]):
    """Read with other versions of the reader's functions and methods for a while (callers
    look them up on each call, so swapping them swaps the code)."""
    saved = [(owner, k, getattr(owner, k)) for owner, k, _ in functions]
    try:
        for owner, k, v in functions:
            setattr(owner, k, v)
        yield
    finally:
        for owner, k, v in saved:
            setattr(owner, k, v)


def _readings(path: Path) -> list | str:
    """Every grid's cells ``{name: (mark, shaded, confidence)}``, unknown list and lattice
    as the reader reads the photo now (or the ``CardError`` it raises)."""
    grey, _ = card.load_photo(path)
    try:
        grids = card.read_card(grey).grids
    except card.CardError as e:
        return str(e)
    return [
        (
            {k: (c.mark, c.shaded, c.confidence) for k, c in g.cells.items()},
            sorted(g.unknown),
            g.view.lattice,
        )
        for g in grids
    ]


def same_readings(rev: str, photos: list[Path]) -> None:
    """Read ``photos`` with the working tree's code and with the code at git ``rev``
    (``--compare-rev``'s swap) and say whether every cell reads the same: mark, shading
    and the unknown lists equal, the largest confidence and lattice differences."""
    old = _functions_at(rev, Path(tempfile.mkdtemp()))
    cells = differ = 0
    conf = lattice = 0.0
    for p in photos:
        now = _readings(p)
        with _reading_with_code(old):
            then = _readings(p)
        if isinstance(now, str) or isinstance(then, str) or len(now) != len(then):
            differ += now != then
            continue
        for (c1, u1, l1), (c2, u2, l2) in zip(now, then, strict=True):
            lattice = max(lattice, float(np.abs(l1 - l2).max()))
            differ += u1 != u2 or c1.keys() != c2.keys()
            for k in c1.keys() & c2.keys():
                cells += 1
                differ += c1[k][:2] != c2[k][:2]
                conf = max(conf, abs(c1[k][2] - c2[k][2]))
    print(
        f"{len(photos)} photos, {cells} cells read: {differ} readings differ from {rev}'s; "
        f"largest confidence difference {conf:.2g}, lattice difference {lattice:.2g} px"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--photos", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--size", default="4000x3000")
    ap.add_argument(
        "--split",
        default="test",
        help="photos of this split (default test, as in BENCHMARKS.md; tune to time the "
        "photos choices are made on)",
    )
    ap.add_argument("--start", type=int, default=0, help="first photo's index in the split")
    ap.add_argument(
        "--batch",
        type=int,
        default=32,
        help="photos in the batch-scaling run (enough to amortise worker start-up; 0: none)",
    )
    ap.add_argument(
        "--model",
        help="cell model (.npz) instead of the shipped one (single-photo timing only: the "
        "batch's spawned workers load the shipped model, so the batch run is skipped)",
    )
    ap.add_argument(
        "--compare",
        help="also time this cell model (.npz), interleaved with the one read (same photos, "
        "same moments: a fair ratio on a busy machine)",
    )
    ap.add_argument(
        "--compare-rev",
        metavar="REV",
        help="also time the reader's code (vision/card.py, card_cells.py, card_shading.py) as "
        "it was at git revision REV, interleaved with the working tree's (same model)",
    )
    ap.add_argument(
        "--same-as",
        metavar="REV",
        help="instead of timing: check that the working tree reads every cell as the code "
        "at git revision REV does, on tune photos (classic 1100-1129 at 2000x1500, "
        "1100-1103 at --size, alt 0-15)",
    )
    a = ap.parse_args()
    if a.compare and a.compare_rev:
        ap.error("--compare and --compare-rev: one at a time")
    use_model(a.model)
    if a.same_as:
        cv2.setNumThreads(1)
        size = tuple(int(v) for v in a.size.split("x"))
        photos = [photo_path("tune", i, (2000, 1500)) for i in range(1100, 1130)]
        photos += [photo_path("tune", i, size) for i in range(1100, 1104)]
        photos += [style_photo_path("tune", i, (2000, 1500), "alt") for i in range(16)]
        same_readings(a.same_as, photos)
        return
    size = tuple(int(v) for v in a.size.split("x"))
    cv2.setNumThreads(1)
    paths = [photo_path(a.split, a.start + i, size) for i in range(a.photos)]
    score_t, decode_t, other_t = [], [], []
    other = None
    if a.compare:
        net = card_cells.CellNet.load(a.compare)
        other = functools.partial(_reading_with, net)
    elif a.compare_rev:
        old_code = _functions_at(a.compare_rev, Path(tempfile.mkdtemp()))
        other = functools.partial(_reading_with_code, old_code)
    for p in paths:
        data = np.fromfile(str(p), np.uint8)
        read_and_score(str(p))  # warm caches (model load, imports)
        for i in range(a.repeat):
            t0 = time.perf_counter()
            cv2.imdecode(data, cv2.IMREAD_COLOR)
            decode_t.append(time.perf_counter() - t0)
            # with --compare, the two models take turns going first (a pair shares the load)
            for first in ((True, False) if i % 2 else (False, True)) if other else (False,):
                with other() if first else contextlib.nullcontext():
                    t1 = time.perf_counter()
                    read_and_score(str(p))
                    (other_t if first else score_t).append(time.perf_counter() - t1)
    ms = statistics.median(score_t) * 1000
    base = statistics.median(decode_t) * 1000
    print(
        f"{len(paths)} photos {a.size} ({a.split} {a.start}-{a.start + a.photos - 1}), "
        f"{a.repeat} runs each, one core"
    )
    print(f"score median {ms:.0f} ms (p90 {np.percentile(score_t, 90) * 1000:.0f} ms)")
    print(f"cv2.imdecode (full colour) median {base:.0f} ms; ratio score/decode {ms / base:.2f}")
    if other is not None:
        oms = statistics.median(other_t) * 1000
        pairs = statistics.median(s / o for s, o in zip(score_t, other_t, strict=True))
        print(
            f"with {a.compare or 'the code at ' + a.compare_rev}, interleaved: median {oms:.0f} ms "
            f"(p90 {np.percentile(other_t, 90) * 1000:.0f} ms); median of paired ratios "
            f"(this one / that one) {pairs:.3f}"
        )
    if a.model or not a.batch:
        return
    cores = os.cpu_count() or 1
    batch = [str(photo_path(a.split, a.start + i, size)) for i in range(a.batch)]
    with tempfile.TemporaryDirectory() as tmp:
        rates = {}
        for jobs in sorted({1, cores}):
            t0 = time.perf_counter()
            run_batch(batch, None, None, None, jobs, Path(tmp) / f"r{jobs}", quiet=True)
            rates[jobs] = len(batch) / (time.perf_counter() - t0)
            print(f"batch of {len(batch)} with {jobs} process(es): {rates[jobs]:.2f} photos/s")
        if cores > 1:
            print(f"batch speed-up with {cores} processes: {rates[cores] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()
