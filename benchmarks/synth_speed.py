"""Speed of the fixture renderer on 1920x1080 Reflec photos.

Times ``piecebridge.synth.reflec.sample`` (realistic mix) per photo, split into the first photo
of a rig (draws the table and the 16 tiles) and later photos of the same rig (cached), plus
``photograph`` alone on a bare table.  The same-run baseline is the least any renderer of such a
photo must do: one ``cv2.remap`` of a 1080p frame from a table raster with precomputed maps and
one JPEG encode+decode.  Medians of wall time and of this process's CPU time (the machine is
shared; CPU time is the steadier figure).

    python benchmarks/synth_speed.py --photos 16 --out benchmarks/results/synth.md
"""

from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import subprocess
import sys
import time

import cv2
import numpy as np

from piecebridge.synth import reflec
from piecebridge.synth.photo import Camera, PhotoStyle, ground_maps, photograph


def _clock(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def _baseline(reps: int) -> tuple[float, float]:
    cam = Camera(image_size=(1920, 1080), focal_px=1400.0, target_mm=(300.0, 200.0), height_mm=450)
    world = np.random.default_rng(0).integers(0, 255, (1600, 2400, 3), dtype=np.uint8)
    mx, my = ground_maps(cam, 0.25)

    def once():
        img = cv2.remap(world, mx, my, cv2.INTER_LINEAR)
        cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1], 1)

    runs = [_clock(once) for _ in range(reps)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--photos", type=int, default=16)
    ap.add_argument("--out", default=None, help="write a Markdown section here")
    args = ap.parse_args()

    base_w, base_c = _baseline(9)
    cold, warm = [], []
    for i in range(args.photos):
        run = _clock(lambda i=i: reflec.sample("tune", 1000 + i))
        (cold if i % reflec.SHOTS_PER_RIG == 0 else warm).append(run)
    cam = Camera(image_size=(1920, 1080), focal_px=1400.0, target_mm=(300.0, 200.0), height_mm=450)
    world = np.full((1600, 2400, 3), 128, np.uint8)
    photograph(world, 0.25, cam, PhotoStyle(), np.random.default_rng(0))
    bare = [
        _clock(lambda: photograph(world, 0.25, cam, PhotoStyle(), np.random.default_rng(1)))
        for _ in range(9)
    ]

    def med(runs, k):
        return statistics.median(r[k] for r in runs)

    rows = [
        ("baseline: remap + JPEG encode/decode", base_w, base_c),
        ("`photograph` bare table, default style", med(bare, 0), med(bare, 1)),
        ("`sample` realistic, later photo of a rig", med(warm, 0), med(warm, 1)),
        ("`sample` realistic, first photo of a rig", med(cold, 0), med(cold, 1)),
    ]
    cpu = platform.processor() or ""
    try:
        cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        cpu = next(
            line.split(":", 1)[1].strip() for line in cpu.splitlines() if "Model name" in line
        )
    except (OSError, StopIteration):
        pass
    try:
        with open("/proc/loadavg") as f:
            load = f.read().split()[0]
    except OSError:
        load = "?"
    lines = [
        "## Fixture renderer speed (piecebridge.synth)",
        "",
        f"Date {datetime.date.today()}; `nproc` {subprocess.getoutput('nproc')}, {cpu}; "
        f"Python {sys.version.split()[0]}, numpy {np.__version__}, OpenCV {cv2.__version__}; "
        f"load average at the end {load} (shared machine).",
        "",
        f"Command: `python benchmarks/synth_speed.py --photos {args.photos}`; 1920x1080, "
        f"{len(warm)} cached-rig and {len(cold)} first-of-rig photos, medians.",
        "",
        "| what | wall ms | CPU ms | CPU vs baseline |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, w, c in rows:
        lines.append(f"| {name} | {w * 1000:.0f} | {c * 1000:.0f} | {c / base_c:.1f}x |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
