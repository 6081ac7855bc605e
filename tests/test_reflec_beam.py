"""The laser beam of shared/spec/formats.md, corner cases included."""

from piecebridge.rules.reflec import Direction, trace
from reflec_support import board, cell, names


def fire(b, where: str, direction: str):
    return trace(b, cell(where), Direction.parse(direction))


def test_open_board_runs_to_the_edge():
    shot = fire(board("S a1"), "a1", "north")
    assert shot.end == "edge"
    assert names(shot.path) == ["a2", "a3", "a4", "a5", "a6", "a7", "a8"]


def test_pawn_on_the_edge_firing_outward_has_an_empty_path():
    shot = fire(board("S a1"), "a1", "west")
    assert shot.end == "edge" and shot.path == ()
    assert shot.to_json(board("S a1")) == {"path": [], "end": {"kind": "edge"}}


def test_coin_turns_the_beam_to_its_facing():
    b = board("S a1", "Me a3")
    shot = fire(b, "a1", "north")
    assert names(shot.path)[:4] == ["a2", "a3", "b3", "c3"]
    assert names(shot.path)[-1] == "h3"


def test_coin_facing_where_the_beam_came_from_sends_it_back():
    b = board("S a1", "Ms a4")
    shot = fire(b, "a1", "north")
    assert shot.end == "pawn" and shot.hit_cell == cell("a1")
    assert names(shot.path) == ["a2", "a3", "a4", "a3", "a2", "a1"]
    assert shot.to_json(b)["end"] == {"kind": "pawn", "cell": "a1", "suit": "suns"}


def test_beam_stops_at_the_first_pawn_it_reaches():
    b = board("S a1", "M a5", "C a7")
    shot = fire(b, "a1", "north")
    assert shot.end == "pawn" and names([shot.hit_cell]) == ["a5"]
    assert names(shot.path) == ["a2", "a3", "a4", "a5"]


def test_coin_at_the_edge_facing_out_ends_at_the_edge():
    b = board("S a1", "Sw a4")
    shot = fire(b, "a1", "north")
    assert shot.end == "edge" and names(shot.path) == ["a2", "a3", "a4"]


def test_loop_through_four_coins_removes_all_four():
    # c3 east -> f3 north -> f6 west -> c6 south -> c3 again
    b = board("S c1", "Ce c3", "Mn f3", "Aw f6", "Ss c6")
    shot = fire(b, "c1", "north")
    assert shot.end == "loop"
    assert names(shot.removed) == ["c3", "c6", "f3", "f6"]
    assert names(shot.path)[-1] == "c3"
    assert names(shot.path).count("c3") == 2


def test_loop_removes_only_coins_hit_from_the_first_repeated_one():
    # b3 (lead-in) turns the beam east into a loop d3 -> d5 -> f5 -> f3 -> d3
    b = board("S b1", "Se b3", "Mn d3", "Ce d5", "As f5", "Sw f3")
    shot = fire(b, "b1", "north")
    assert shot.end == "loop"
    assert names(shot.removed) == ["d3", "d5", "f3", "f5"]
    assert "b3" not in names(shot.removed)


def test_second_hit_from_another_side_is_still_a_loop():
    # the beam crosses d4's coin twice, arriving from different sides
    b = board("S d1", "Me d4", "Mn f4", "Mw f6", "Ms d6")
    shot = fire(b, "d1", "north")
    assert shot.end == "loop" and names(shot.path)[-1] == "d4"


def test_beam_path_crossing_an_empty_cell_twice_is_no_loop():
    b = board("S a2", "Mn c2", "Mw c4", "Ms b4", "Ce b1")
    shot = fire(b, "a2", "east")
    # a2 -> b2 -> c2 north -> c3 -> c4 west -> b4 south -> b3 -> b2 -> b1 east -> c1 ... h1
    assert shot.end == "edge"
    assert names(shot.path).count("b2") == 2


def test_shooting_a_neighbouring_pawn():
    b = board("S a1", "M b1")
    shot = fire(b, "a1", "east")
    assert shot.end == "pawn" and names(shot.path) == ["b1"]


def test_spec_json_shape_for_a_loop():
    b = board("S c1", "Ce c3", "Mn f3", "Aw f6", "Ss c6")
    result = fire(b, "c1", "north").to_json(b)
    assert result["end"] == {"kind": "loop", "removed": ["c3", "c6", "f3", "f6"]}
    assert result["path"][0] == "c2"
