"""Fast paths of the board reader: the partial read (re-read only the cells a move touched).

These use the plain drawn board of test_vision_board.py (milliseconds per frame).
"""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.calibration.board import learn_setup
from piecebridge.vision.reader import BoardReader
from test_vision_board import as_sets, draw_board, layout_image

BEFORE = dict(
    coins=[("c4", "suns", "north"), ("d5", "arms", "east"), ("e2", "moons", "west")],
    pawns=[("a1", "suns"), ("h8", "moons")],
)
# c4's coin moved to c5 and turned; the moons pawn moved h8 -> g7.
AFTER = dict(
    coins=[("c5", "suns", "south"), ("d5", "arms", "east"), ("e2", "moons", "west")],
    pawns=[("a1", "suns"), ("g7", "moons")],
)
CHANGED = {"c4", "c5", "h8", "g7"}


@pytest.fixture(scope="module")
def setup():
    return learn_setup(layout_image()[0])[0]


def frames(seed=3):
    return draw_board(**BEFORE, seed=seed)[0], draw_board(**AFTER, seed=seed + 1)[0]


def summary(obs):
    return {d.cell: (d.kind, d.suit, d.facing, round(d.confidence, 6)) for d in obs.decisions}


def test_partial_read_of_the_changed_cells_equals_a_full_read(setup):
    before, after = frames()
    reader = BoardReader(setup=setup)
    first = reader.read(before)
    assert as_sets(first.board) == (set(BEFORE["coins"]), set(BEFORE["pawns"]))
    part = reader.read(after, cells=CHANGED)
    full = BoardReader(setup=setup).read(after)
    assert part.partial and not full.partial
    assert set(part.cells_read) == CHANGED and part.fallback == ""
    assert as_sets(part.board) == (set(AFTER["coins"]), set(AFTER["pawns"]))
    assert summary(part) == summary(full)
    assert part.board == full.board


def test_cells_not_asked_for_keep_the_previous_decision(setup):
    before, after = frames()
    reader = BoardReader(setup=setup)
    first = summary(reader.read(before))
    # Ask only for cells that did not change: the moved coin and pawn are not seen.
    part = reader.read(after, cells=["a1", "d5"])
    assert part.cells_read == ("d5", "a1")  # board order, north-west first
    assert summary(part) == first
    assert as_sets(part.board) == (set(BEFORE["coins"]), set(BEFORE["pawns"]))
    # A later partial read builds on the partial one: now c4 and c5 are looked at.
    again = reader.read(after, cells={"c4", "c5"})
    coins, pawns = as_sets(again.board)
    assert coins == set(AFTER["coins"])
    assert pawns == set(BEFORE["pawns"])  # h8 and g7 still not re-read


def test_partial_read_without_a_previous_observation_reads_everything(setup):
    _, after = frames()
    obs = BoardReader(setup=setup).read(after, cells={"c5"})
    assert obs.fallback == "no previous observation"
    assert not obs.partial and len(obs.cells_read) == 64
    assert as_sets(obs.board) == (set(AFTER["coins"]), set(AFTER["pawns"]))


def test_partial_read_after_the_board_moved_reads_everything(setup):
    before, after = frames()
    reader = BoardReader(setup=setup)
    reader.read(before)
    obs = reader.read(np.roll(after, (40, 60), axis=(0, 1)), cells={"c5"})
    assert obs.moved and obs.fallback == "board moved" and not obs.partial
    assert as_sets(obs.board) == (set(AFTER["coins"]), set(AFTER["pawns"]))


def test_empty_cell_set_keeps_every_decision_and_bad_names_are_refused(setup):
    before, after = frames()
    reader = BoardReader(setup=setup)
    first = summary(reader.read(before))
    obs = reader.read(after, cells=set())
    assert obs.cells_read == () and summary(obs) == first
    with pytest.raises(ValueError, match="i9"):
        reader.read(after, cells={"d4", "i9"})
    assert reader.read(after, cells="c5").cells_read == ("c5",)  # one name, not letters
