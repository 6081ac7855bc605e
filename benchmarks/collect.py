"""Assemble BENCHMARKS.md from the sections in benchmarks/results/.

    python benchmarks/collect.py

Each benchmark script's figures live in ``benchmarks/results/<area>.md`` (with the machine
and the command that produced them); this joins them in a fixed order under one header.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = [
    "current",
    "reflec",
    "bcg",
    "bcg_rotator",
    "synth",
    "vision_reflec",
    "vision_speed",
    "vision_locate",
    "card",
    "calibration",
    "display",
    "referee",
]
HEADER = """# Benchmarks

Accuracy and speed, measured by the scripts in `benchmarks/` — never by a timed test. Each
section names the machine, the date and the command that produced it. These machines are
shared and noisy, so speed is quoted as a ratio against a baseline timed in the same run.
Regenerate this file with `python benchmarks/collect.py` after re-running a benchmark.

"""


def main() -> None:
    results = ROOT / "benchmarks" / "results"
    names = [n for n in ORDER if (results / f"{n}.md").exists()]
    names += sorted(p.stem for p in results.glob("*.md") if p.stem not in ORDER)
    toc = "\n".join(f"- [{n}](#{_first_heading_anchor(results / f'{n}.md')})" for n in names)
    body = "\n\n".join(_section(results / f"{n}.md") for n in names)
    text = HEADER + "Sections:\n\n" + toc + "\n\n" + body + "\n"
    text = _pictures_from_root(text)
    (ROOT / "BENCHMARKS.md").write_text(text)
    print(f"wrote BENCHMARKS.md from {len(names)} sections")


def _pictures_from_root(text: str) -> str:
    """Pictures a results file names beside it (``](name.png)``) as seen from the root.

    >>> _pictures_from_root("![a](shot.png) ![b](https://x/y.png)")
    '![a](benchmarks/results/shot.png) ![b](https://x/y.png)'
    """
    return re.sub(r"\]\(([\w.-]+\.(?:png|jpg))\)", r"](benchmarks/results/\1)", text)


def _section(path: Path) -> str:
    """A results file as a level-2 section (a file that starts at level 1 is demoted)."""
    text = path.read_text().strip()
    if text.startswith("# "):
        text = "\n".join("#" + line if line.startswith("#") else line for line in text.split("\n"))
    return text


def _first_heading_anchor(path: Path) -> str:
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            keep = "".join(ch for ch in title if ch.isalnum() or ch in " -_")
            return keep.replace(" ", "-")
    return path.stem


if __name__ == "__main__":
    main()
