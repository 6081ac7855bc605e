"""What shows a set's cell boundaries, learned from its calibration photo (twenty-first
session, occ21): checkered's tiles show their 2x2 grid by tone alone, the other sets by
printed lines (:func:`piecebridge.vision.occlusion.boundary_cue`); the setup keeps it."""

from __future__ import annotations

import dataclasses
import functools

import pytest
from piecebridge.calibration.looks import LearnedLooks
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.reader import BoardReader

from piecebridge.synth.reflec import Difficulty, calibration_sample, sample


@pytest.mark.parametrize(("art", "boundary"), [("checkered", "steps"), (None, "lines")])
def test_the_setup_learns_what_shows_the_boundaries(art, boundary):
    cal = calibration_sample("tune", 0, Difficulty.parse("realistic"), art=art)
    setup, _ = learn_setup(cal.image)
    assert setup.looks.boundary == boundary


def test_the_boundary_is_saved_and_older_setups_judge_lines():
    looks = LearnedLooks({}, {}, boundary="steps")
    saved = looks.to_json()
    assert LearnedLooks.from_json(saved).boundary == "steps"
    del saved["boundary"]  # a setup saved before it was learned
    assert LearnedLooks.from_json(saved).boundary == "lines"
    with pytest.raises(ValueError, match="boundary must be one of"):
        LearnedLooks.from_json({**saved, "boundary": "dots"})
    assert dataclasses.replace(looks, boundary="lines").boundary == "lines"


@functools.cache
def _read(rig: int, index: int) -> tuple:
    """Tune checkered shot ``index`` (a shot of rig ``rig``) and its read with the rig's setup."""
    diff = Difficulty.parse("realistic")
    setup, _ = learn_setup(calibration_sample("tune", rig, diff, art="checkered").image)
    shot = sample("tune", index, diff, art="checkered")
    return shot, BoardReader(setup=setup).read(shot.image)


def test_cells_with_nothing_over_them_are_not_covered_on_a_board_of_tones():
    # Shot 57, no hand in it: the printed lines judged on its tiles (none printed; the coins'
    # rims the typical line, the wood's grain the rest) left 42 of its cells covered.
    shot, obs = _read(14, 57)
    assert not shot.truth["synth"]["cover_facts"]
    assert not any(d.covered for d in obs.decisions)


def test_a_cell_under_spread_fingers_is_not_read_empty():
    # Shot 29: g8, 94 % under a finger, its boundaries partly in view between the fingers, as
    # its neighbours': covered as one of a patch of partly hidden cells (PATCH_CELLS).
    _, obs = _read(7, 29)
    g8 = next(d for d in obs.decisions if d.cell == "g8")
    assert g8.covered and g8.kind == "unknown"
