"""Benchmark: should a single read (``see``, the referee's read per frame) run OpenCV and BLAS
on one thread?

    python benchmarks/referee_threads.py --rounds 3

Each setting runs in its own fresh process (BLAS takes its thread count when numpy is
imported), the settings alternating round by round (ABAB...) so that the load of the shared
machine falls on both alike:

* ``default``: OpenCV's and OpenBLAS's own thread pools (one thread per core);
* ``opencv-1``: ``cv2.setNumThreads(1)`` only; ``blas-1``: ``OPENBLAS_NUM_THREADS=1`` (and
  ``OMP_NUM_THREADS``) only;
* ``pinned``: ``cv2.setNumThreads(1)`` and ``OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1``.

Measured per process: the referee's vision reads (``Stats.read_ms``: whole and partial
reads of the still, changed views) over the bundled recordings replayed as fast as
possible (display none), their wall time, and ``see``'s read of one photo (median of 5,
after one warm-up read; with and without a setup).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = ("demo", "illegal", "bump")
SETTINGS = {
    "default": {},
    "opencv-1": {"PB_CV_THREADS": "1"},
    "blas-1": {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    "pinned": {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PB_CV_THREADS": "1"},
}


def child() -> None:
    """One measurement in this process; prints a JSON line."""
    import cv2

    if os.environ.get("PB_CV_THREADS"):
        cv2.setNumThreads(int(os.environ["PB_CV_THREADS"]))
    from piecebridge.calibration.board import BoardSetup  # noqa: F401 (import cost outside)
    from piecebridge.vision.learn import learn_setup
    from piecebridge.vision.reader import BoardReader, load_frame

    from piecebridge.referee.session import SessionOptions, run_session
    from piecebridge.referee.sources import RECORDINGS as FOLDER

    out: dict = {"cv_threads": cv2.getNumThreads(), "reads_ms": [], "wall_s": 0.0}
    for name in RECORDINGS:
        log = Path(os.environ["PB_TMP"]) / f"{name}-{os.getpid()}.jsonl"
        opts = SessionOptions(
            source=str(FOLDER / name), display="none", speed=0.0, quiet=True, png=None,
            log=str(log),
        )  # fmt: skip
        t0 = time.perf_counter()
        result = run_session(opts)
        out["wall_s"] += time.perf_counter() - t0
        out["reads_ms"] += list(result.stats.read_ms)
    demo = FOLDER / "demo"
    photo = load_frame(demo / "f020.jpg")
    setup, _ = learn_setup(load_frame(demo / "calibration.jpg"))
    for key, reader in (("see_setup_ms", BoardReader(setup=setup)), ("see_ms", BoardReader())):
        reader.read(photo)  # warm-up (first-use costs)
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            BoardReader(setup=reader.setup).read(photo)
            times.append((time.perf_counter() - t0) * 1e3)
        out[key] = statistics.median(times)
    print(json.dumps(out))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child()
        return
    import tempfile

    sys.path.insert(0, str(Path(__file__).parent))
    from machine import describe

    results: dict[str, list[dict]] = {k: [] for k in SETTINGS}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for name, env in SETTINGS.items():
                full = {**os.environ, **env, "PB_TMP": tmp}
                line = subprocess.run(
                    [sys.executable, __file__, "--child"],
                    env=full, capture_output=True, text=True, check=True,
                ).stdout.strip().splitlines()[-1]  # fmt: skip
                results[name].append(json.loads(line))
                print(f"round {r + 1} {name}: {line[:160]}", file=sys.stderr)
    print(f"{args.rounds} rounds; " + describe())
    print(f"load average at the end: {os.getloadavg()}")
    print("| setting | vision reads | median read ms | p90 read ms | recordings wall s "
          "| see ms (setup) | see ms (no setup) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, runs in results.items():
        reads = sorted(x for run in runs for x in run["reads_ms"])
        p90 = reads[int(0.9 * (len(reads) - 1))]
        wall = statistics.median(run["wall_s"] for run in runs)
        see_s = statistics.median(run["see_setup_ms"] for run in runs)
        see = statistics.median(run["see_ms"] for run in runs)
        print(f"| {name} (cv2 {runs[0]['cv_threads']} threads) | {len(reads)} "
              f"| {statistics.median(reads):.1f} | {p90:.1f} | {wall:.2f} | {see_s:.1f} "
              f"| {see:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
