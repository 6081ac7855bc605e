"""The Reflec benchmark's wrong-cell list: short by default, whole with ``--all-wrong``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from vision_reflec import Tally

TRUTH = {
    "coins": [{"cell": f"{f}1", "suit": "suns", "facing": "north"} for f in "abcdefgh"],
    "pawns": [],
    "synth": {"index": 7, "hidden_cells": []},
}
READ_EMPTY = {"coins": [], "pawns": [], "unknown": []}


def test_the_report_keeps_three_wrong_cells_a_shot_and_twelve_in_all():
    tally = Tally()
    for _ in range(5):
        tally.add(READ_EMPTY, TRUTH)
    assert tally.wrong == 40
    assert len(tally.examples) == 12
    assert tally.examples[:4] == [
        "7:a1 want ('coin', 'suns', 'north') got None",
        "7:b1 want ('coin', 'suns', 'north') got None",
        "7:c1 want ('coin', 'suns', 'north') got None",
        "7:a1 want ('coin', 'suns', 'north') got None",
    ]


def test_all_wrong_keeps_every_wrong_cell():
    tally = Tally(keep_examples=None)
    for _ in range(5):
        tally.add(READ_EMPTY, TRUTH)
    assert len(tally.examples) == tally.wrong == 40
