"""Deflector: layouts, movement, deflection, original grids, victory, variants."""

import pytest
from piecebridge.rules.bcg import deflector as D
from piecebridge.rules.bcg.common import BcgError, IllegalAction
from piecebridge.rules.bcg.grid import COL_MASK, DIAMOND, ROW_MASK, mask_cells, parse_cell
from piecebridge.rules.bcg.layouts import DEFLECTOR_LAYOUTS, deflector_layout
from piecebridge.rules.bcg.table import (
    Claim,
    Pass,
    TableOptions,
    access_masks,
    direction,
    evolve,
    node_counts,
)


def c(name):
    return parse_cell(name)


FAR = ["A10", "C10", "E10", "G10", "I10"]


def table(players=3, layout=None, nodes=None, defl=None, **opts):
    nodes = nodes or [FAR] * players
    defl = defl or [[] for _ in range(players)]
    k = max(len(d) for d in defl)
    pad = ["B10", "D10", "F10"]  # every player places the same number of Deflectors
    defl = [list(d) + pad[: k - len(d)] for d in defl]
    return D.new_game(
        players=players,
        layout=layout,
        nodes=[[c(x) for x in ns] for ns in nodes],
        deflectors=[[c(x) for x in ds] for ds in defl],
        options=TableOptions(deflectors=k, **opts),
    )


def play(state, *moves):
    events = []
    for m in moves:
        state, ev = D.apply(state, D.parse_action(state, m))
        events += ev
    return state, events


# --- layouts -------------------------------------------------------------------


def test_every_layout_is_connected_and_symmetric():
    for name, (n, access) in DEFLECTOR_LAYOUTS.items():
        lay = deflector_layout(n, access)
        assert lay.name == name
        for g in range(n):
            for h in lay.touching(g):
                assert g in lay.touching(h)
                assert lay.contact(g, h) and lay.contact(h, g)
        seen, todo = {0}, [0]
        while todo:
            for h in lay.touching(todo.pop()):
                if h not in seen:
                    seen.add(h)
                    todo.append(h)
        assert seen == set(range(n))


def test_layout_contacts_follow_the_rulebook():
    three = deflector_layout(3)
    assert three.contact(0, 1) == COL_MASK[9]  # your Column A meets J of the left player
    assert three.contact(0, 2) == COL_MASK[0]
    full4 = deflector_layout(4, "full")
    assert full4.contact(0, 2) == ROW_MASK[0]  # Row 1 to the grid across
    part4 = deflector_layout(4, "partial")
    assert [len(part4.touching(g)) for g in range(4)] == [2, 2, 2, 2]
    full5 = deflector_layout(5, "full")
    assert mask_cells(full5.contact(0, 1)) == [c(f"J{r}") for r in range(1, 6)]
    assert mask_cells(full5.contact(0, 2)) == [c(x) for x in ("F1", "G1", "H1", "I1", "J1")]
    part5 = deflector_layout(5, "partial")
    assert [len(part5.touching(g)) for g in range(5)] == [2] * 5
    assert part5.contact(4, 0) == COL_MASK[9]  # the two side-by-side grids


def test_rotated_row_one_pairs_mirror_columns():
    full4 = deflector_layout(4, "full")
    [(_, cells)] = [x for x in full4.across(0, 1 << c("A1")) if x[0] == 2]
    assert mask_cells(cells) == [c("J1")]


# --- movement --------------------------------------------------------------------


def test_first_moves_only_on_touching_edges_never_on_own_grid():
    s = table()
    masks = access_masks(s, 0)
    assert masks[0] == 0
    assert masks[1] == COL_MASK[9] and masks[2] == COL_MASK[0]
    with pytest.raises(IllegalAction, match="own original grid"):
        D.apply(s, Claim(0, c("E5")))
    with pytest.raises(IllegalAction, match="not next to"):
        D.apply(s, Claim(1, c("E5")))


def test_partial_access_cannot_reach_the_far_grid_directly():
    s = table(4, "4-partial")
    masks = access_masks(s, 0)
    assert masks[2] == 0 and masks[1] and masks[3]


def test_later_moves_adjacent_and_across_seams():
    s, _ = play(table(), "1:J5")
    s, _ = play(s, "2:J5", "0:J5")  # players 1 and 2 move
    masks = access_masks(s, 0)
    assert mask_cells(masks[1]) == [c("J4"), c("I5"), c("J6")]
    with pytest.raises(IllegalAction):
        D.apply(s, Claim(1, c("J8")))


def test_cannot_claim_spaces_covered_by_own_nodes():
    s = table(nodes=[FAR, ["J5", "A1", "C1", "E1", "G1"], FAR])
    s, _ = play(s, "1:J5")  # player 0 captures player 1's Node J5
    assert s.grids[1].control[0] == 0
    s, _ = play(s, "2:J1", "0:J1")
    assert not (access_masks(s, 0)[1] & DIAMOND[c("J5")])


def test_pass_only_when_nothing_can_be_claimed():
    s = table()
    with pytest.raises(IllegalAction, match="pass"):
        D.apply(s, Pass())
    assert Pass() not in D.legal_actions(s)


# --- deflection ------------------------------------------------------------------


def test_direction_round_the_table():
    assert direction(3, 0, 1) == 1 and direction(3, 0, 2) == -1
    assert direction(4, 1, 3) == 1  # from directly across: clockwise
    assert direction(5, 0, 3) == -1 and direction(5, 0, 2) == 1


def test_deflector_diverts_to_the_next_board_in_the_direction_of_fire():
    s = table(defl=[["A5"], ["J5"], ["B5"]])
    s, events = play(s, "1:J5")
    assert [e.kind for e in events[:2]] == ["deflect", "claim"]
    assert s.grids[1].holder(c("J5")) is None
    assert (s.grids[1].spent >> c("J5")) & 1 and not s.grids[1].deflectors
    assert s.grids[2].holder(c("J5")) == 0  # shot went clockwise, claimed for the Shooter


def test_counter_clockwise_deflection():
    s = table(defl=[["A6"], ["B6"], ["A5"]])
    s, _ = play(s, "2:A5")  # grid 2 sits counter-clockwise of player 0
    assert s.grids[1].holder(c("A5")) == 0


def test_shot_back_on_shooters_board_goes_to_original_target_without_reflection():
    s = table(defl=[["A6"], ["J5"], ["J5"]], reflector=True)
    s, events = play(s, "1:J5")
    assert s.grids[0].holder(c("J5")) == 1  # the original Target claims it
    assert not any(e.kind == "reflect" for e in events)


def test_deflecting_again_from_shooters_board_shooter_keeps_final_space():
    s = table(defl=[["J5"], ["J5"], ["J5"]])
    s, _ = play(s, "1:J5")
    # 1:J5 -> 2:J5 -> 0:J5 (the Shooter's own Deflector) -> 1:J5 again, now spent
    assert s.grids[1].holder(c("J5")) == 0
    assert all(not g.deflectors for g in s.grids)


def test_captured_node_activates_deflectors_in_its_range():
    s = table(nodes=[FAR, ["J5", "A1", "C1", "E1", "G1"], FAR], defl=[["A9"], ["I5"], ["A8"]])
    s, events = play(s, "1:J5")
    assert [e.kind for e in events][:2] == ["capture", "activate"]
    assert not (s.grids[1].marked >> c("I5")) & 1  # the Deflector's space stays unclaimed
    assert s.grids[2].holder(c("I5")) == 0  # its shot hit the neighbour


# --- original grids, elimination, victory ------------------------------------------


def _capture_all(state, grid, player, keep=0):
    grids = list(state.grids)
    g = grids[grid]
    for i in range(len(g.nodes) - keep):
        g, _ = g.capture(i, player)
    grids[grid] = g
    return evolve(state, grids=tuple(grids))


def test_fully_captured_grid_becomes_original_grid_and_owner_is_eliminated():
    s = table(4, "4-partial")
    s = _capture_all(s, 1, 0)
    s, events = play(s, "3:A5")  # any legal move triggers the bookkeeping
    assert (s.homes[0] >> 1) & 1
    assert s.eliminated[1] and ("eliminate", 1) in [(e.kind, e.player) for e in events]
    assert access_masks(s, 0)[2] == COL_MASK[9]  # first move from the captured grid
    assert s.to_move == 2  # eliminated player 1 is skipped


def test_node_count_victory_thresholds():
    for players, need in ((3, 10), (4, 13), (5, 15)):
        s = table(players)
        for g in range(1, players):
            s = _capture_all(s, g, 0)
        counts = node_counts(s)
        assert counts[0] == 5 * players
        assert D._result(s, False).winners == (0,)
        assert need == {3: 10, 4: 13, 5: 15}[players]


def test_threshold_is_exact():
    s = _capture_all(table(3), 1, 0, keep=1)  # 9 Nodes
    assert D._result(s, False) is None
    s = _capture_all(table(3), 1, 0)  # 10 Nodes
    assert "10 Nodes" in D._result(s, False).reason


def test_surviving_players_holding_every_node_most_nodes_wins():
    s = table(4)
    s = _capture_all(s, 3, 1, keep=2)  # player 1 holds 3 of grid 3
    s = _capture_all(s, 3, 2, keep=0) if False else s
    grids = list(s.grids)
    g3 = grids[3]
    g3, _ = g3.capture(3, 2)
    g3, _ = g3.capture(4, 2)
    grids[3] = g3
    s = evolve(s, grids=tuple(grids), eliminated=(False, False, False, True), homes=(1, 2, 4, 0))
    assert node_counts(s) == [5, 8, 7, 0]
    assert D._result(s, False).winners == (1,)
    tie = evolve(s, grids=(s.grids[0], s.grids[1], s.grids[2], s.grids[3]))
    g3b = tie.grids[3]
    g3b, _ = g3b.capture(0, 2)
    tie = evolve(tie, grids=(*tie.grids[:3], g3b))
    assert node_counts(tie) == [5, 7, 8, 0]
    assert D._result(tie, False).winners == (2,)
    # before anyone is eliminated the ending does not apply (ruling)
    assert D._result(table(4), False) is None


def test_last_player_standing():
    s = evolve(table(3), eliminated=(False, True, True))
    assert D._result(s, False).winners == (0,)


# --- variants -----------------------------------------------------------------------


def test_ricochet_runs_along_the_row_to_a_node():
    s = table(
        nodes=[FAR, ["C5", "A1", "C1", "E1", "G1"], FAR],
        defl=[["A9"], ["J5"], ["A8"]],
        ricochet=True,
    )
    s, _ = play(s, "1:J5")
    assert s.grids[1].control[0] == 0  # the Node C5 along row 5 was captured
    assert s.grids[1].holder(c("J5")) is None


def test_ricochet_second_deflector_on_target_board_reverses():
    s = table(
        nodes=[["C5", "A10", "C10", "E10", "G10"], FAR, FAR],
        defl=[["A9"], ["J5", "F5"], ["A8"]],
        ricochet=True,
    )
    s, events = play(s, "1:J5")
    kinds = [e.kind for e in events]
    assert kinds.count("deflect") == 2
    # reversed at F5, the shot ran back through J5 onto grid 0 and hit the Node C5 there:
    # the Shooter's own board, so the original Target (player 1) takes it
    assert s.grids[0].control[0] == 1


def test_ricochet_all_the_way_round_captures_original_space():
    s = table(defl=[["A9"], ["J5"], ["A8"]], ricochet=True)
    s, _ = play(s, "1:J5")
    assert s.grids[1].holder(c("J5")) == 0


def test_reflector_deflector_concedes_same_space_on_shooters_board():
    s = table(nodes=[["J5", "A1", "C1", "E1", "G1"], FAR, FAR], reflector=True)
    s, events = play(s, "1:J5")
    assert s.grids[1].holder(c("J5")) == 0
    assert s.grids[0].control[0] == 1  # conceding a Node hands over its diamond
    assert s.grids[0].held[1] == DIAMOND[c("J5")]
    assert "reflect" in [e.kind for e in events]


def test_bad_setups():
    with pytest.raises(BcgError, match="3 to 5"):
        D.new_game(players=6)
    with pytest.raises(BcgError, match="no layout"):
        D.new_game(players=4, layout="5-full")
    with pytest.raises(BcgError, match="Defector"):
        D.new_game(players=3, options=TableOptions(safety=True))
    with pytest.raises(BcgError, match="Deflector"):
        D.new_game(
            players=3,
            nodes=[[0, 1, 2, 3, 4]] * 3,
            deflectors=[[4]] * 3,
            options=TableOptions(deflectors=1),
        )


# --- rulings and options not covered above ----------------------------------------


def _with_grid(state, g, grid):
    grids = list(state.grids)
    grids[g] = grid
    return evolve(state, grids=tuple(grids))


def test_twenty_single_use_deflectors_by_default():
    s = D.new_game(players=3, seed=1)
    for g in s.grids:
        assert g.deflectors.bit_count() == 20 and not g.deflectors & g.node_mask


def test_a_shot_on_a_space_its_claimant_already_holds_does_nothing():
    s = table(defl=[[], ["J5"], []])
    s = _with_grid(s, 2, s.grids[2].claim(c("J5"), 0))  # player 0 already holds 2:J5
    before = s.grids[2]
    s, events = play(s, "1:J5")  # deflected clockwise onto 2:J5
    assert [e.kind for e in events[:2]] == ["deflect", "noop"]
    assert (s.grids[1].spent >> c("J5")) & 1  # the Deflector stays used
    assert s.grids[2] == before and s.grids[1].holder(c("J5")) is None


def test_a_shot_on_ones_own_original_grid_deflects_clockwise():
    s = table(defl=[["A5"], [], []])
    s = _with_grid(s, 1, s.grids[1].claim(c("J5"), 0))  # a way back in from outside
    assert (access_masks(s, 0)[0] >> c("A5")) & 1
    s, events = play(s, "0:A5")
    assert events[0].kind == "deflect"
    assert s.grids[1].holder(c("A5")) == 0  # seat 1 is clockwise of seat 0
    assert s.grids[2].holder(c("A5")) is None


@pytest.mark.parametrize("take", [False, True])
def test_capture_takes_claimed_option(take):
    nodes = [FAR, ["E5", "A10", "C10", "G10", "I10"], FAR]
    s = table(nodes=nodes, capture_takes_claimed=take)
    g1 = s.grids[1].claim(c("E6"), 2).claim(c("D5"), 0)  # player 2 claimed E6 in the diamond
    s = _with_grid(s, 1, g1)
    s, _ = play(s, "1:E5")
    assert s.grids[1].control[0] == 0
    assert s.grids[1].holder(c("E6")) == (0 if take else 2)
    assert s.grids[1].holder(c("E4")) == 0  # the owner's own spaces go either way


def test_endgame_after_elimination_option():
    s = _capture_all(table(4), 3, 1, keep=4)  # player 1: 6 Nodes, nobody eliminated
    assert D._result(s, False) is None  # default: the ending waits for an elimination
    early = evolve(s, options=TableOptions(deflectors=0, endgame_after_elimination=False))
    assert D._result(early, False).winners == (1,)


def test_move_limit_is_a_draw():
    s = table(max_plies=2)
    s, _ = play(s, "1:J5")
    assert s.result is None
    s, events = play(s, D.legal_actions(s)[0].text())
    assert s.result.winners == () and "move limit" in s.result.reason
    assert events[-1].kind == "draw"


def test_a_space_bearing_another_players_mark_can_be_retaken():
    s = table()
    s = _with_grid(s, 1, s.grids[1].claim(c("J5"), 2))  # player 2 claimed 1:J5
    assert (access_masks(s, 0)[1] >> c("J5")) & 1
    s, events = play(s, "1:J5")
    assert s.grids[1].holder(c("J5")) == 0
    assert (events[0].kind, events[0].target) == ("claim", 2)
