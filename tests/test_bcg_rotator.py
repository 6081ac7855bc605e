"""Rotator (Business Card Games, 1 player): every rule and ruling.

Positions are built in the frame of ``rotator_maps`` (x 0..9 left to right,
y 0..19 top to bottom, grid 1 on top): ``C(x, y)``.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from piecebridge.rules.bcg import grid as card_grid
from piecebridge.rules.bcg.common import BcgError, IllegalAction
from piecebridge.rules.bcg.rotator import (
    COLLAPSE_AGE,
    Action,
    RecordError,
    RotatorOptions,
    RotatorState,
    apply,
    bot_game,
    card_marks,
    check,
    from_json,
    invariant_problem,
    legal_actions,
    new_game,
    next_down,
    play,
    record_lines,
    render,
    replay,
    to_json,
    view,
    winners,
)
from piecebridge.rules.bcg.rotator_maps import (
    CELLS,
    FIXED_MAPS,
    HEIGHT,
    WIDTH,
    MapError,
    RotatorMap,
    cell_name,
    diamond,
    edge_cells,
    generate_map,
    index,
    open_columns,
    parse_cell,
    validate_map,
)

C = index
ALL = frozenset(range(CELLS))


def position(
    solid,
    at,
    *,
    down="south",
    turn=1,
    phase="drill",
    marks=None,
    start_grid=1,
    boost_left=10,
    options=None,
    layout="pinwheel",
    capture=None,
) -> RotatorState:
    """A hand-made position on a fixed map's Nodes with the given rock."""
    base = new_game(layout=layout, options=options)
    m = [0] * CELLS
    for cell, t in (marks or {}).items():
        m[cell] = t
    if m[at] == 0 and phase != "start":
        m[at] = turn
    state = replace(
        base,
        solid=frozenset(solid) - {c for c in range(CELLS) if m[c]},
        marks=tuple(m),
        turn=turn,
        phase=phase,
        position=at,
        down=down,
        start_grid=start_grid,
        boost_left=boost_left,
        capture=capture,
    )
    assert invariant_problem(state) is None, invariant_problem(state)
    return state


def kinds(events):
    return [e.kind for e in events]


def cells_of(event):
    return [parse_cell(d) for d in event.detail if isinstance(d, str) and ":" in d]


# ------------------------------------------------------------------ the board


def test_cell_names_round_trip_and_orientation():
    assert [parse_cell(cell_name(c)) for c in range(CELLS)] == list(range(CELLS))
    # The grids meet at Row 1; each Row 10 is a short edge; grid 1 is upside down.
    assert cell_name(C(0, 0)) == "1:J10" and cell_name(C(9, 0)) == "1:A10"
    assert cell_name(C(0, 9)) == "1:J1" and cell_name(C(0, 10)) == "2:A1"
    assert cell_name(C(9, 19)) == "2:J10"
    assert parse_cell(" 2:f3 ") == C(5, 12)


@pytest.mark.parametrize("bad", ["F3", "3:F3", "1:K1", "1:A11", "1:A0", "", "1:", "x:y"])
def test_bad_cell_names_are_refused(bad):
    with pytest.raises(MapError):
        parse_cell(bad)


def test_diamond_is_the_manhattan_two_diamond():
    node = parse_cell("2:E5")
    cells = diamond(node)
    assert len(cells) == 13
    nx, ny = node % WIDTH, node // WIDTH
    assert all(abs(c % WIDTH - nx) + abs(c // WIDTH - ny) <= 2 for c in cells)
    # "5 spaces horizontally, 5 spaces vertically"
    assert sum(1 for c in cells if c // WIDTH == ny) == 5
    assert sum(1 for c in cells if c % WIDTH == nx) == 5


def test_diamond_reaches_across_the_fold_only_on_the_board_reading():
    node = parse_cell("2:E2")
    assert parse_cell("1:F1") in diamond(node, "board")  # two rows up, across the fold
    assert len(diamond(node, "board")) == 13
    clipped = diamond(node, "grid")
    assert len(clipped) == 12 and all(c >= CELLS // 2 for c in clipped)


def test_grid_reading_diamonds_match_the_shared_grid_module():
    for name in ("B2", "E5", "I9", "C8"):
        node = parse_cell(f"2:{name}")
        ours = {cell_name(c)[2:] for c in diamond(node, "grid")}
        shared = {card_grid.cell_name(c) for c in card_grid.diamond(card_grid.parse_cell(name))}
        assert ours == shared


def _nodes(text):
    return [parse_cell(n) for n in text.split()]


PINWHEEL = "1:I3 1:D2 1:H8 1:C7 1:F5 2:I3 2:D2 2:H8 2:C7 2:F5"


def test_map_rules_ten_nodes_five_each():
    validate_map(_nodes(PINWHEEL))
    with pytest.raises(MapError, match="10 Nodes"):
        validate_map(_nodes(PINWHEEL)[:9])
    six_top = PINWHEEL.replace("2:F5", "1:B9")  # 6 on grid 1
    with pytest.raises(MapError, match="grid 1 has 6 Nodes"):
        validate_map(_nodes(six_top))


def test_map_rules_no_overlap():
    with pytest.raises(MapError, match="overlap"):
        validate_map(_nodes(PINWHEEL.replace("1:F5", "1:F6")))  # 1:F6 is 3 from 1:H8


def test_map_rules_edge_buffer_board_reading():
    for edge_node in ("1:A5", "1:J5", "1:E10", "2:E10"):
        nodes = PINWHEEL.replace("1:F5" if edge_node[0] == "1" else "2:F5", edge_node)
        with pytest.raises(MapError, match="is on an edge of the board"):
            validate_map(_nodes(nodes))
    # The fold rows are not an edge of the 10x20 board...
    fold = "1:I3 1:D2 1:H8 1:C7 1:F5 2:I3 2:D2 2:H8 2:C7 2:E1"
    with pytest.raises(MapError, match="overlap"):  # ...but 2:E1 reaches 1:D2's diamond
        validate_map(_nodes(fold))
    fold_ok = next(
        m for m in map(generate_map, range(100)) if any(n // WIDTH in (9, 10) for n in m.nodes)
    )
    validate_map(fold_ok.nodes, "board")
    # ...while on the grid reading Row 1 is an edge of each grid.
    with pytest.raises(MapError, match="Row 1"):
        validate_map(fold_ok.nodes, "grid")


def test_fixed_maps_are_legal_on_both_readings_and_have_no_free_fall():
    assert len(FIXED_MAPS) >= 3
    for rmap in FIXED_MAPS.values():
        validate_map(rmap.nodes, "board")
        validate_map(rmap.nodes, "grid")
        assert open_columns(rmap) == []
        assert len(rmap.solid_cells()) == sum(len(rmap.territory(n)) for n in rmap.nodes)


def test_generated_maps_are_seeded_legal_and_varied():
    maps = [generate_map(seed) for seed in range(30)]
    assert generate_map(5) == maps[5]
    assert len({m.nodes for m in maps}) == 30
    for m in maps:
        validate_map(m.nodes, m.edges)
        assert open_columns(m) == []
    grid_map = generate_map(5, "grid")
    validate_map(grid_map.nodes, "grid")


def test_map_json_round_trip_and_errors():
    for rmap in FIXED_MAPS.values():
        assert RotatorMap.from_json(json.loads(json.dumps(rmap.to_json()))) == rmap
    for bad in ({}, {"nodes": "1:A1"}, {"nodes": [1, 2]}, {"nodes": ["1:C3"]}, []):
        with pytest.raises(MapError):
            RotatorMap.from_json(bad)


# ------------------------------------------------------------------ the start


def test_start_anywhere_on_the_top_row_of_either_grid():
    state = new_game(layout="pinwheel")
    starts = {a.cell for a in legal_actions(state)}
    assert starts == set(edge_cells(1)) | set(edge_cells(2))
    assert all(a.kind == "start" for a in legal_actions(state))
    with pytest.raises(IllegalAction, match="top row"):
        apply(state, "start 1:F9")
    with pytest.raises(IllegalAction, match="top row"):
        check(state, Action("from", C(4, 4)))
    with pytest.raises(IllegalAction, match="start space"):
        apply(state, "skip")


def test_start_marks_the_space_and_sets_gravity_towards_the_far_grid():
    state = new_game(layout="pinwheel")
    s1, events = apply(state, "start 1:F10")
    assert kinds(events)[0] == "start"
    assert s1.marks[parse_cell("1:F10")] == 1 and s1.start_grid == 1 and s1.down == "south"
    s2, _ = apply(state, "start 2:F10")
    assert s2.start_grid == 2 and s2.down == "north" and s2.target_grid == 1
    with pytest.raises(IllegalAction, match="already started"):
        apply(s1, "start 1:A10")


def test_start_on_rock_opens_the_start_space():
    state = new_game(layout="pinwheel")
    rock = next(c for c in edge_cells(1) if c in state.solid)
    s1, _ = apply(state, Action("start", rock))
    assert rock not in s1.solid and s1.marks[rock] == 1


# ----------------------------------------------------------------- Step 1 fall


def test_fall_marks_spaces_until_the_ground():
    solid = {C(4, 6)} | {C(x, y) for x in range(WIDTH) for y in range(HEIGHT) if x != 4}
    state = new_game(layout="pinwheel")
    state = replace(state, solid=frozenset(solid))
    s1, events = apply(state, Action("start", C(4, 0)))
    assert kinds(events) == ["start", "fall"]
    assert cells_of(events[1]) == [C(4, y) for y in range(1, 6)]
    assert s1.position == C(4, 5)
    assert all(s1.marks[C(4, y)] == 1 for y in range(6))


def test_the_board_rim_is_a_floor_by_default():
    state = position(set(), C(0, 5), down="east")  # nothing but air
    s, events = apply(state, "skip")  # gravity turns north: up the column to the rim
    assert kinds(events) == ["rotate", "fall"]
    assert s.position == C(0, 0) and not s.is_over and s.phase == "drill"
    assert [a.depth for a in legal_actions(s)] == [0]  # nothing to drill past the rim


def test_option_fatal_rim_loses_when_falling_off():
    opts = RotatorOptions(board_edge="fatal")
    state = position({C(0, 6)}, C(0, 5), down="east", options=opts)
    s1, events = apply(state, "skip")  # gravity turns north: up the column and off
    assert s1.is_over and winners(s1) == () and "off the board" in s1.result.reason
    assert kinds(events)[-1] == "lose"


# ------------------------------------------------------------- Step 2 collapse


def test_a_touched_space_collapses_in_the_third_turn_after():
    """ "After three turns, any space you contact turns back into solid rock";
    a space with two lines "collapses on the next turn"."""
    start = C(4, 0)
    state = replace(new_game(layout="pinwheel"), solid=ALL - {start})
    s, _ = apply(state, Action("start", start))
    ages = []
    for _ in range(2):
        s, events = apply(s, "skip")
        ages.append(s.age(start))
        assert "collapse" not in kinds(events) and not s.is_over
    assert ages == [1, 2]  # one line, then two
    s, events = apply(s, "skip")
    assert s.turn == 1 + COLLAPSE_AGE
    assert "collapse" in kinds(events) and start in cells_of(
        events[kinds(events).index("collapse")]
    )
    # "If you are within a space that collapses, the game ends."
    assert s.is_over and winners(s) == () and "collapsed" in s.result.reason
    assert start in s.solid and s.marks[start] == 0


def test_collapse_turns_air_into_rock_and_unmarks_it():
    shaft = {C(4, y) for y in range(6)}
    side = {C(5, 5), C(6, 5)}  # a pocket east of the shaft's bottom
    solid = ALL - shaft - side
    s = replace(new_game(layout="pinwheel"), solid=frozenset(solid))
    s, _ = apply(s, Action("start", C(4, 0)))  # turn 1: falls to (4,5)
    s, _ = apply(s, "skip")  # turn 2, down east: falls into the pocket
    assert s.position == C(6, 5)
    s, _ = apply(s, "skip")  # turn 3, down north: (6, 4) is rock, no fall
    # Drill into (6, 4), so that turn 4's westward gravity (rock at (5, 4))
    # does not drop her back into the old path.
    s, events = apply(s, "drill 1")
    assert s.turn == 4 and s.down == "west" and s.position == C(6, 4)
    assert not s.is_over
    assert shaft <= s.solid and all(s.marks[c] == 0 for c in shaft)  # air became rock
    assert sorted(cells_of(events[kinds(events).index("collapse")])) == sorted(shaft)
    assert s.age(C(6, 5)) == 2 and C(6, 5) not in s.solid  # turn 2's pocket: two lines
    assert s.age(C(6, 4)) == 1


def test_falling_back_into_an_old_path_and_collapsing_there_loses():
    """The rulebook's Loss example: the player falls back through an old path
    and lands within it; spaces collapse before any drilling, so she is trapped."""
    shaft = {C(4, y) for y in range(6)}
    s = replace(new_game(layout="pinwheel"), solid=frozenset(ALL - shaft))
    s, _ = apply(s, Action("start", C(4, 0)))  # turn 1: down the shaft
    s, _ = apply(s, "skip")  # turn 2: east, blocked
    s, events = apply(s, "skip")  # turn 3: north, back up through the old path
    assert s.position == C(4, 0) and kinds(events)[-1] == "fall"
    assert all(s.marks[c] == 1 for c in shaft)  # no fresh marks on a marked space
    assert s.age(C(4, 0)) == 2
    s, events = apply(s, "skip")  # turn 4: collapse before drilling
    assert s.is_over and winners(s) == ()


def test_spaces_fallen_through_this_turn_get_no_line():
    shaft = {C(4, y) for y in range(4)} | {C(5, 3), C(6, 3)}
    s = replace(new_game(layout="pinwheel"), solid=frozenset(ALL - shaft))
    s, _ = apply(s, Action("start", C(4, 0)))  # turn 1
    s, _ = apply(s, "skip")  # turn 2: falls east into (5,3), (6,3)
    assert s.age(C(5, 3)) == 0 and s.age(C(6, 3)) == 0  # just fallen through
    assert s.age(C(4, 1)) == 1  # last turn's trail has one line


# ------------------------------------------------------------------ Step 3 drill


def test_drill_one_space_then_fall_through_open_spaces_beneath():
    solid = ALL - {C(4, y) for y in range(3, 7)} - {C(4, 0)}
    solid |= {C(4, 2)}
    state = position(solid - {C(4, 0)}, C(4, 1), marks={C(4, 1): 1})
    s, events = apply(state, "drill 1")
    assert kinds(events)[:2] == ["drill", "fall"]
    assert cells_of(events[0]) == [C(4, 2)]
    assert cells_of(events[1]) == [C(4, y) for y in range(3, 7)]
    assert C(4, 2) not in s.solid and s.marks[C(4, 2)] == 1 and s.marks[C(4, 6)] == 1
    assert s.boost_left == 10  # a one-space drill costs no Boost Space


def test_drilling_can_be_skipped():
    state = position(ALL, C(4, 4))
    s, events = apply(state, "skip")
    assert kinds(events) == ["rotate"] and s.position == C(4, 4) and s.turn == 2


def test_boost_spaces_two_per_turn_ten_per_game():
    state = position(ALL, C(0, 0), down="south", layout="canyon")
    column_nodes = [n for n in state.map.nodes if n % WIDTH == 0]
    assert column_nodes == []  # column x=0 holds no Node on this map
    assert [a.depth for a in legal_actions(state)] == [0, 1, 2, 3]
    with pytest.raises(IllegalAction, match="at most 3 spaces"):
        apply(state, Action("drill", depth=4))
    s, events = apply(state, "drill 3")
    assert s.boost_left == 8 and "boost=2" in events[0].detail
    low = replace(state, boost_left=1)
    assert [a.depth for a in legal_actions(low)] == [0, 1, 2]
    with pytest.raises(IllegalAction, match="needs 2 Boost Spaces; only 1"):
        apply(low, "drill 3")
    empty = replace(state, boost_left=0)
    assert [a.depth for a in legal_actions(empty)] == [0, 1]


def test_the_ten_boost_spaces_last_the_whole_game():
    s = replace(new_game(layout="canyon"), solid=ALL)
    s, _ = apply(s, Action("start", C(0, 0)))
    used = []
    while s.boost_left:
        s = replace(s, down="south")  # keep drilling the same column
        s, _ = apply(s, "drill 3")
        used.append(s.boost_left)
    assert used == [8, 6, 4, 2, 0]
    assert max(a.depth for a in legal_actions(replace(s, down="south"))) == 1


def test_drill_cuts_only_rock_and_stays_on_the_board():
    state = position(ALL - {C(0, 6)}, C(0, 4))  # column x=0 holds no Node
    with pytest.raises(IllegalAction, match=r"open, not rock.*drill 1"):
        apply(state, "drill 2")
    edge = position(ALL, C(4, 18))
    with pytest.raises(IllegalAction, match="off the board"):
        apply(edge, "drill 2")
    assert [a.depth for a in legal_actions(edge)] == [0, 1]
    open_below = position(ALL - {C(0, 5)}, C(0, 4), turn=1)
    assert [a.depth for a in legal_actions(open_below)] == [0]


# ---------------------------------------------------------------- Node capture

NODE = parse_cell("1:F5")  # pinwheel Node at frame (4, 5)


def _capture_position(**kw):
    rmap = FIXED_MAPS["pinwheel"]
    solid = (ALL - {C(4, 2)}) if kw.pop("all_rock", True) else rmap.solid_cells()
    return position(solid, C(4, 2), **kw)


def test_drilling_into_a_node_clears_its_rock_and_stops():
    state = _capture_position()
    territory = state.map.territory(NODE)
    s, events = apply(state, "drill 3")  # (4,3), (4,4), then the Node (4,5)
    assert kinds(events)[:2] == ["drill", "capture"]
    assert s.position == NODE  # "the player doesn't fall through the newly-created open space"
    assert not (territory & s.solid)
    assert all(s.marks[c] == 1 for c in territory)  # marked like this turn's other spaces
    assert s.phase == "relocate" and s.capture == NODE and s.boost_left == 8
    assert C(4, 8) in s.solid  # rock outside the diamond untouched


def test_capture_only_marks_spaces_that_were_rock():
    territory = FIXED_MAPS["pinwheel"].territory(NODE)
    old = C(2, 5)  # touched earlier: open and aged
    state = _capture_position(turn=3, marks={old: 2})
    s, _ = apply(state, "drill 3")
    assert s.marks[old] == 2 and all(s.marks[c] == 3 for c in territory - {old})


def test_the_drill_stops_at_a_node():
    state = position(ALL - {C(4, 3)}, C(4, 3), marks={C(4, 3): 1})
    with pytest.raises(IllegalAction, match="stops at the Control Node on 1:F5: drill 2"):
        apply(state, "drill 3")
    assert max(a.depth for a in legal_actions(state)) == 2


def test_next_move_from_any_space_the_node_covers():
    state = _capture_position()
    s, _ = apply(state, "drill 3")
    territory = s.map.territory(NODE)
    assert {a.cell for a in legal_actions(s)} == set(territory)
    assert all(a.kind == "from" for a in legal_actions(s))
    with pytest.raises(IllegalAction, match="not covered by the captured Node 1:F5"):
        apply(s, Action("from", C(4, 9)))
    with pytest.raises(IllegalAction, match="choose a space it covers"):
        apply(s, "skip")
    # From the diamond's west tip (2,5), gravity is now east: fall through the cleared row.
    s2, events = apply(s, Action("from", C(2, 5)))
    assert kinds(events)[:2] == ["relocate", "fall"]
    assert s2.position == C(6, 5) and s2.phase == "drill"
    assert s2.marks[C(3, 5)] == 1  # no fresh marks on the cleared spaces


def test_from_is_only_after_a_capture():
    state = position(ALL, C(4, 4))
    with pytest.raises(IllegalAction, match="no Node was captured"):
        apply(state, Action("from", C(4, 4)))


def test_a_captured_node_collapses_and_returns_to_its_original_state():
    state = _capture_position()
    s, _ = apply(state, "drill 3")  # turn 1: capture
    territory = s.map.territory(NODE)
    assert NODE in s.captured_nodes()
    # Next turn, with the player moved to a fresh space far away:
    far = C(9, 12)
    marks = list(s.marks)
    marks[far] = 2
    s = replace(s, phase="drill", capture=None, position=far, turn=2, marks=tuple(marks))
    s, _ = apply(s, "skip")  # turn 3
    assert not (territory & s.solid)  # still open: two lines
    s, events = apply(s, "skip")  # turn 4: the Node's spaces collapse with the rest
    assert not s.is_over
    assert territory <= s.solid and NODE not in s.captured_nodes()
    assert set(territory) <= set(cells_of(events[kinds(events).index("collapse")]))


def test_a_recollapsed_node_can_be_captured_again():
    state = _capture_position()
    s, _ = apply(state, "drill 3")
    # Put the player back above the (collapsed) Node later in the game.
    territory = s.map.territory(NODE)
    later = position(ALL - {C(4, 2)}, C(4, 2), turn=9, boost_left=s.boost_left)
    assert territory <= later.solid
    s2, events = apply(later, "drill 3")
    assert "capture" in kinds(events) and s2.capture == NODE


# ----------------------------------------------------------------- Step 4 rotate


def test_down_turns_with_the_board_every_turn():
    assert [next_down(d) for d in ("south", "east", "north", "west")] == [
        "east",
        "north",
        "west",
        "south",
    ]
    s = replace(new_game(layout="pinwheel"), solid=ALL - {C(4, 0)})
    s, _ = apply(s, Action("start", C(4, 0)))
    seen = [s.down]
    for _ in range(2):
        s, events = apply(s, "skip")
        assert events[0].kind == "rotate" and events[0].detail[-1] == s.down
        seen.append(s.down)
    assert seen == ["south", "east", "north"]
    t = replace(new_game(layout="pinwheel"), solid=ALL - {C(4, 19)})
    t, _ = apply(t, Action("start", C(4, 19)))
    t, _ = apply(t, "skip")
    assert t.down == "west"  # from the other grid: north, then west


def test_oriented_rendering_puts_down_at_the_bottom():
    s = replace(new_game(layout="pinwheel"), solid=ALL - {C(4, 0)})
    s, _ = apply(s, Action("start", C(4, 0)))
    flat = render(s, oriented=False)
    assert flat.splitlines()[0].startswith("1:  J I H") and "@" in flat
    s, _ = apply(s, "skip")  # down = east: the picture is 20 wide, 10 tall
    rows = render(s).splitlines()[:-1]
    assert len(rows) == 10 and len(rows[0].split()) == 20
    # the frame's top-left (x=0, y=0) is now the top-right of the picture
    assert rows[0].split()[-1] in "#N"
    assert rows[4].split()[-1] == "@"  # (x=4, y=0) is row 4, rightmost column


# --------------------------------------------------------------------- victory


def test_falling_onto_row_10_of_the_other_grid_wins_at_once():
    s = replace(new_game(layout="pinwheel"), solid=frozenset())
    s1, events = apply(s, Action("start", C(2, 0)))
    assert kinds(events) == ["start", "fall", "win"]
    assert s1.is_over and winners(s1) == (0,) and s1.position == C(2, 19)
    assert "2:C10" in s1.result.reason
    with pytest.raises(IllegalAction, match="game is over"):
        apply(s1, "skip")
    assert legal_actions(s1) == []
    s2, _ = apply(s, Action("start", C(2, 19)))
    assert winners(s2) == (0,) and s2.position == C(2, 0)


def test_drilling_onto_row_10_wins():
    state = position(ALL, C(4, 17))
    s, events = apply(state, "drill 2")
    assert kinds(events) == ["drill", "win"] and winners(s) == (0,) and s.boost_left == 9


def test_reaching_the_start_row_again_is_not_a_win():
    state = position(frozenset(ALL - {C(4, y) for y in range(0, 3)}), C(4, 2), down="east")
    s, _ = apply(state, "skip")  # gravity north: up to the top row (1:F10)
    assert s.position == C(4, 0) and not s.is_over


def test_starting_the_next_move_on_the_goal_row_wins():
    node = parse_cell("2:H8")  # pinwheel Node at (7, 17); its diamond reaches 2:H10
    above = C(7, 15)
    state = position(ALL - {above}, above)
    s, events = apply(state, "drill 2")
    assert s.capture == node
    s2, events = apply(s, "from 2:H10")
    assert kinds(events) == ["relocate", "win"] and winners(s2) == (0,)


# ----------------------------------------------------------------- options


def test_options_are_validated_and_rejected_by_name():
    with pytest.raises(BcgError):
        RotatorOptions(edges="table")
    with pytest.raises(BcgError):
        RotatorOptions(board_edge="soft")
    with pytest.raises(BcgError):
        RotatorOptions(boost_budget=-1)
    with pytest.raises(BcgError):
        RotatorOptions(turn_limit=0)


def test_option_turn_limit_ends_the_game():
    s = replace(new_game(layout="pinwheel", options=RotatorOptions(turn_limit=2)), solid=ALL)
    s, _ = apply(s, Action("start", C(4, 0)))
    s, _ = apply(s, "skip")
    assert not s.is_over
    s, _ = apply(s, "skip")
    assert s.is_over and "turn limit" in s.result.reason


def test_option_boost_budget_and_per_turn():
    opts = RotatorOptions(boost_budget=3, boost_per_turn=1)
    s = replace(new_game(layout="canyon", options=opts), solid=ALL)
    s, _ = apply(s, Action("start", C(0, 0)))
    assert s.boost_left == 3 and max(a.depth for a in legal_actions(s)) == 2


def test_option_grid_edges_redraws_the_map():
    s = new_game(layout="pinwheel", options=RotatorOptions(edges="grid"))
    assert s.map.edges == "grid"
    board = new_game(layout="pinwheel")
    assert s.solid <= board.solid and s.solid != board.solid  # fold-crossing tips clipped


def test_new_game_layouts_and_errors():
    assert new_game(layout="terraces").map.name == "terraces"
    assert new_game(seed=4) == new_game(layout="random", seed=4)
    assert new_game(seed=4) != new_game(seed=5)
    with pytest.raises(BcgError, match="no layout"):
        new_game(layout="spiral")
    with pytest.raises(BcgError, match="1 player"):
        new_game(players=2)


# ------------------------------------------------------------- notation, JSON


@pytest.mark.parametrize(
    "text, action",
    [
        ("start 1:F10", Action("start", parse_cell("1:F10"))),
        ("FROM 2:e5", Action("from", parse_cell("2:E5"))),
        ("drill 2", Action("drill", depth=2)),
        ("skip", Action("drill", depth=0)),
        ("drill 0", Action("drill", depth=0)),
    ],
)
def test_notation(text, action):
    assert Action.parse(text) == action
    assert Action.parse(str(action)) == action


@pytest.mark.parametrize("text", ["", "jump", "drill", "drill two", "start", "start F10", "skip 1"])
def test_bad_notation_is_an_illegal_action_with_a_reason(text):
    with pytest.raises(IllegalAction, match=r"cannot read|bad cell"):
        Action.parse(text)


def test_state_json_round_trip():
    s = new_game(layout="pinwheel")
    for action in ["start 1:F10", "drill 1", "skip", "skip"]:
        s, _ = apply(s, action)
        data = json.loads(json.dumps(to_json(s)))
        assert from_json(data) == s
        assert data["game"] == "rotator" and data["format"] == "bcg-state/1"


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(game="reflector"), "not a Rotator state"),
        (lambda d: d.pop("turn"), "missing or malformed"),
        (lambda d: d.update(phase="dance"), "unknown phase"),
        (lambda d: d.update(position="1:Z1"), "bad cell"),
        (lambda d: d["marks"].update({"2:A1": -1}), "whole number"),
        (lambda d: d.update(solid=[*d["solid"], d["position"]]), "marked but solid"),
        (lambda d: d["options"].update(colour="red"), "unknown option"),
        (lambda d: d.update(boost_left=99), "boost_left"),
    ],
)
def test_bad_state_json_is_one_clear_error(mutate, message):
    s, _ = apply(new_game(layout="pinwheel"), "start 1:F10")
    data = to_json(s)
    mutate(data)
    with pytest.raises(BcgError, match=message) as info:
        from_json(data)
    assert "\n" not in str(info.value)


def test_view_shows_everything_to_the_only_player():
    s, _ = apply(new_game(seed=1), "start 1:A10")
    assert {k: v for k, v in view(s).items() if k != "you"} == to_json(s)
    with pytest.raises(BcgError):
        view(s, 1)


def test_record_replays_deterministically_and_reports_the_bad_line():
    start = bot_game(new_game(seed=11))
    final, actions = play(start, "random", seed=3)
    lines = record_lines(start, actions)
    assert replay(lines) == final
    assert replay(lines) == replay(list(lines))
    bad = [*lines[:3], json.dumps({"action": "from 1:A1"}), *lines[3:]]
    with pytest.raises(RecordError) as info:
        replay(bad)
    assert info.value.line == 4
    with pytest.raises(RecordError, match="line 2: not JSON"):
        replay([lines[0], "{oops"])
    with pytest.raises(RecordError, match="line 1"):
        replay(['{"action": "skip"}'])
    with pytest.raises(RecordError, match="empty record"):
        replay([])


# ----------------------------------------------------------------------- bots


def test_bots_play_complete_legal_games():
    wins = 0
    for seed in range(6):
        start = new_game(seed=seed, options=RotatorOptions(turn_limit=200))
        for bot in ("random", "greedy"):
            final, actions = play(start, bot, seed=seed)
            assert final.is_over and invariant_problem(final) is None
            assert replay(record_lines(start, actions)) == final
            wins += bool(winners(final)) and bot == "greedy"
    assert wins >= 2  # the greedy bot wins some of these boards


def test_card_marks_draw_the_pencil_marks_of_both_grids():
    s, _ = apply(new_game(layout="pinwheel"), "start 1:F10")
    grids = card_marks(s)
    cells = [(g, name, v) for g, grid in enumerate(grids, 1) for name, v in grid["cells"].items()]
    assert sum(v["shaded"] for _, _, v in cells) == len(s.solid)
    assert sum(v["mark"] == "dot" for _, _, v in cells) == 10
    triangles = {f"{g}:{name}" for g, name, v in cells if v["mark"] == "triangle"}
    assert triangles == {cell_name(c) for c in range(CELLS) if s.marks[c]}
    assert all(card_grid.parse_cell(name) >= 0 for _, name, _ in cells)  # 10x10 names


#: A winning line for each fixed map (found by the greedy bot): the maps are winnable,
#: and these full games pin the engine's behaviour end to end.
SOLUTIONS = {
    "pinwheel": "start 1:J10, drill 1, drill 3, drill 2, drill 1, drill 2, drill 1, drill 1, "
    "skip, drill 3, from 1:I1, drill 1, skip, skip, drill 1",
    "terraces": "start 1:J10, drill 2, drill 3, drill 1, drill 1, drill 1, drill 1, skip, skip, "
    "drill 1, skip, drill 2, drill 2, drill 3, drill 1, skip, skip, drill 3",
    "canyon": "start 2:F10, drill 3, drill 2, drill 1, drill 3",
    "bottleneck": "start 2:J10, drill 3, drill 2, drill 1, drill 2, drill 2, drill 2, drill 3, "
    "drill 2, drill 2, drill 1, drill 1, skip, drill 1",
}


@pytest.mark.parametrize("layout", sorted(SOLUTIONS))
def test_every_fixed_map_has_a_winning_line(layout):
    start = new_game(layout=layout)
    actions = SOLUTIONS[layout].split(", ")
    final = replay(record_lines(start, actions))
    assert winners(final) == (0,)
    assert final.position in edge_cells(final.target_grid)
    boosts = sum(max(Action.parse(a).depth - 1, 0) for a in actions)
    assert final.boost_left == 10 - boosts >= 0
    # one action short of the end, the game is still on
    assert not replay(record_lines(start, actions[:-1])).is_over


def test_docstring_examples_hold():
    import doctest

    from piecebridge.rules.bcg import rotator, rotator_maps

    for module in (rotator, rotator_maps):
        result = doctest.testmod(module)
        assert result.attempted > 5 and result.failed == 0, module.__name__


def test_bot_games_always_end():
    """Greedy survives forever on some maps (seed 6 is one): bot games get a turn limit."""
    assert new_game(seed=6).options.turn_limit is None
    assert bot_game(new_game(seed=6)).options.turn_limit == 500
    limited = new_game(seed=6, options=RotatorOptions(turn_limit=7))
    assert bot_game(limited) is limited
    final, _ = play(bot_game(new_game(seed=6), 60), "greedy", seed=6)
    assert final.is_over and final.turn == 61
    assert "turn limit of 60" in final.result.reason
