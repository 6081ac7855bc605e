"""The card accuracy benchmark's judge (``benchmarks/card_accuracy.py``): strict and
'exact where visible'."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

card_accuracy = pytest.importorskip("card_accuracy")


def _truth(seen: dict | None) -> dict:
    grid = {
        "cells": {
            "C7": {"mark": None, "shaded": True},
            "D7": {"mark": "x", "shaded": True},
            "E7": {"mark": "o", "shaded": False},
        }
    }
    if seen is not None:
        grid["shading_seen"] = seen
    return {"grids": [grid]}


def _got(cells: dict, unknown=()) -> dict:
    return {"grids": [{"cells": cells, "unknown": list(unknown)}]}


RIGHT = {"C7": {"mark": None, "shaded": True}, "D7": {"mark": "x", "shaded": True}}
RIGHT |= {"E7": {"mark": "o", "shaded": False}}


def test_a_right_reading_is_exact_both_ways():
    r = card_accuracy.compare(_got(RIGHT), _truth({"C7": 0.3, "D7": 0.5}))
    assert (r["wrong"], r["unknown"], r["exact"], r["exact_seen"]) == (0, 0, 1, 1)
    assert (r["hidden"], r["hidden_bad"]) == (2, 0)


def test_shading_not_in_the_photo_is_judged_on_the_mark_only():
    seen = {"C7": 0.3, "D7": 0.5}  # neither cell's shading shows
    blank = dict(RIGHT, D7={"mark": "x", "shaded": False})
    del blank["C7"]  # C7 read blank, D7's x read unshaded: the marks are right
    r = card_accuracy.compare(_got(blank), _truth(seen))
    assert (r["wrong"], r["exact"], r["exact_seen"], r["hidden_bad"]) == (2, 0, 1, 2)
    assert r["confusions"] == {"None*->None": 1, "x*->x": 1}
    # the mark read wrong still counts, and so does an unknown
    wrong_mark = dict(blank, D7={"mark": "plus", "shaded": False})
    assert card_accuracy.compare(_got(wrong_mark), _truth(seen))["exact_seen"] == 0
    unsure = card_accuracy.compare(_got(blank, unknown=["E7"]), _truth(seen))
    assert (unsure["unknown"], unsure["exact_seen"]) == (1, 0)


def test_visible_shading_and_old_truths_are_judged_strictly():
    blank = {k: v for k, v in RIGHT.items() if k != "C7"}
    visible = card_accuracy.compare(_got(blank), _truth({"C7": 1.0, "D7": 9.0}))
    assert (visible["exact"], visible["exact_seen"], visible["hidden"]) == (0, 0, 0)
    old = card_accuracy.compare(_got(blank), _truth(None))
    assert (old["exact_seen"], old["seen_known"]) == (0, False)
    assert visible["seen_known"]
