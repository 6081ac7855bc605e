"""The shared 10x10 grid of the Business Card Games."""

import pytest
from piecebridge.rules.bcg.grid import (
    DIAMOND,
    Answer,
    GridError,
    GridState,
    cell_name,
    diamond,
    diamond_xy,
    grow,
    mask_cells,
    mask_names,
    parse_cell,
    parse_mask,
    step_mask,
)


def c(name):
    return parse_cell(name)


def test_cell_names_round_trip_and_orientation():
    assert [cell_name(i) for i in (0, 9, 90, 99)] == ["A1", "J1", "A10", "J10"]
    for i in range(100):
        assert parse_cell(cell_name(i)) == i
    assert parse_cell(" f3 ") == c("F3")


@pytest.mark.parametrize("bad", ["K1", "A0", "A11", "", "F", "33", None])
def test_bad_cell_names_are_rejected(bad):
    with pytest.raises(GridError, match="not a cell"):
        parse_cell(bad)


def test_diamond_is_manhattan_two_clipped():
    assert len(diamond(c("E5"))) == 13
    assert sorted(cell_name(x) for x in diamond(c("A1"))) == sorted(
        ["A1", "B1", "C1", "A2", "B2", "A3"]
    )
    assert len(diamond(c("A5"))) == 9  # on an edge
    assert len(diamond(c("B2"))) == 11
    for node in range(100):
        for x in diamond(node):
            dist = abs(x % 10 - node % 10) + abs(x // 10 - node // 10)
            assert dist <= 2
        assert len(diamond(node)) == sum(
            1 for x in range(100) if abs(x % 10 - node % 10) + abs(x // 10 - node // 10) <= 2
        )


def test_diamond_xy_generic_board():
    assert len(diamond_xy(5, 10, 10, 20)) == 13
    assert (4, 10) in diamond_xy(5, 10, 10, 20)
    assert len(diamond_xy(9, 19, 10, 20)) == 6


def test_grow_and_step_do_not_wrap_rows():
    assert mask_names(grow(1 << c("J1"))) == ["I1", "J2"]
    assert mask_names(grow(1 << c("A10"))) == ["A9", "B10"]
    assert step_mask(1 << c("J4"), 1) == 0  # off column J, no wrap to A5
    assert mask_names(step_mask(1 << c("C4"), 0)) == ["C5"]
    assert mask_names(step_mask(1 << c("C4"), 2)) == ["C3"]
    assert mask_names(step_mask(1 << c("C4"), 3)) == ["B4"]


def test_answers_null_owned_node_deflector():
    g = GridState.new(1, 2, [c("C3"), c("E3")], deflectors=[c("J9")])
    assert g.answer(c("C3")) is Answer.NODE
    assert g.answer(c("C5")) is Answer.OWNED
    assert g.answer(c("H8")) is Answer.NULL
    assert g.answer(c("J9")) is Answer.DEFLECTOR
    assert g.held[1] == DIAMOND[c("C3")] | DIAMOND[c("E3")]


def test_setup_errors():
    with pytest.raises(GridError):
        GridState.new(0, 2, [c("C3"), c("C3")])
    with pytest.raises(GridError, match="Deflector"):
        GridState.new(0, 2, [c("C3")], deflectors=[c("C3")])


def test_capture_keeps_overlap_while_another_node_covers_it():
    g = GridState.new(1, 2, [c("C3"), c("E3")])
    # E3 is two steps from C3, so the Node space C3 lies in the overlap too: it
    # goes to the Shooter (the Node itself is captured), the rest is retained.
    overlap = DIAMOND[c("C3")] & DIAMOND[c("E3")] & ~(1 << c("C3"))
    g2, rep = g.capture(0, 0)
    assert g2.control == (0, 1)
    assert rep.taken == DIAMOND[c("C3")] & ~overlap
    assert rep.retained == overlap
    # Overlap stays the Target's, shaded but unmarked; the rest bears the Shooter's I.D.
    assert g2.held[1] & overlap == overlap
    assert g2.marked & overlap == 0
    assert g2.shaded & DIAMOND[c("C3")] == DIAMOND[c("C3")]
    # E3 lies inside C3's diamond: its position is revealed on the Public Grid.
    assert rep.revealed == (1 << c("C3")) | (1 << c("E3"))
    assert "E3" in g2.public()["nodes"]
    # Capturing E3 later gives the Shooter the former overlap as well.
    g3, rep3 = g2.capture(1, 0)
    assert g3.held[0] & overlap == overlap
    assert g3.held[1] == 0
    assert rep3.retained == 0


def test_capture_only_takes_what_the_previous_controller_held():
    g = GridState.new(1, 3, [c("E5")])
    g = g.claim(c("E6"), 2)  # a third player claimed an Owned space
    g2, _ = g.capture(0, 0)
    assert g2.holder(c("E6")) == 2
    g3, _ = g.capture(0, 0, take_claimed=True)
    assert g3.holder(c("E6")) == 0


def test_capture_activates_deflectors_in_range_without_marking_them():
    g = GridState.new(1, 2, [c("E5")], deflectors=[c("E6"), c("J10")])
    g2, rep = g.capture(0, 0)
    assert mask_cells(rep.activated) == [c("E6")]
    assert g2.deflectors == 1 << c("J10")
    assert (g2.spent >> c("E6")) & 1
    assert not (g2.marked >> c("E6")) & 1


def test_public_view_hides_nodes_deflectors_and_silent_holdings():
    g = GridState.new(1, 2, [c("C3"), c("H8")], deflectors=[c("A10")])
    pub = g.public()
    assert pub["nodes"] == {}
    assert "deflectors" not in pub
    assert pub["held"] == [[], []]
    g = g.claim(c("C4"), 0)
    pub = g.public()
    assert pub["held"][0] == ["C4"] and pub["shaded"] == ["C4"]
    assert g.private()["nodes"] == {"C3": 1, "H8": 1}


def test_grid_json_round_trip():
    g = GridState.new(1, 2, [c("C3"), c("E3")], deflectors=[c("J9")])
    g, _ = g.capture(0, 0)
    g = g.claim(c("J10"), 0)
    assert GridState.from_json(g.to_json()) == g
    assert parse_mask(["A1", "B1"]) == 3
