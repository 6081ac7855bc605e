"""Reflector: reflection, movement, victory, tie-break, views, JSON, card scoring."""

import json
import random
from dataclasses import replace

import pytest
from piecebridge.rules.bcg import reflector as R
from piecebridge.rules.bcg.common import BcgError, IllegalAction
from piecebridge.rules.bcg.grid import DIAMOND, mask_cells, parse_cell


def c(name):
    return parse_cell(name)


def names(*cells):
    return [c(x) for x in cells]


def game(n0, n1, first=0):
    return R.new_game(nodes=[names(*n0), names(*n1)], options=R.ReflectorOptions(first))


FAR = ("F8", "J8", "A10", "E10", "J10")


def play_random(state, seed):
    rng = random.Random(seed)
    while not state.is_over:
        state, _ = R.apply(state, rng.choice(R.legal_actions(state)))
    return state


def test_first_move_anywhere_on_row_1_only():
    s = game(FAR, FAR)
    assert R.legal_actions(s) == list(range(10))
    with pytest.raises(IllegalAction, match="Row 1"):
        R.apply(s, c("A2"))


def test_later_moves_only_next_to_own_territory_on_enemy_board():
    s = game(FAR, FAR)
    s, _ = R.apply(s, c("C1"))  # player 0
    s, _ = R.apply(s, c("H1"))  # player 1 (first move, also Row 1)
    # player 0 also holds H1 on player 1's board: the reflection of player 1's move
    assert sorted(R.legal_actions(s)) == sorted(names("B1", "D1", "C2", "G1", "I1", "H2"))
    with pytest.raises(IllegalAction, match="not next to your territory"):
        R.apply(s, c("F1"))
    with pytest.raises(IllegalAction, match="already your territory"):
        R.apply(s, c("C1"))


def test_reflection_concedes_the_same_space():
    s = game(FAR, FAR)
    s, events = R.apply(s, c("F1"))
    assert s.boards[1].holder(c("F1")) == 0
    assert s.boards[0].holder(c("F1")) == 1  # conceded on the Shooter's own board
    assert [e.kind for e in events] == ["claim", "reflect", "claim"]
    assert events[0].answer == "null"
    assert s.to_move == 1


def test_owned_answer_shades_the_public_grid():
    s = game(FAR, ("C2", "J8", "A10", "E10", "J10"))
    s, events = R.apply(s, c("C1"))
    assert events[0].answer == "owned"
    assert (s.boards[1].shaded >> c("C1")) & 1
    assert (s.boards[1].marked >> c("C1")) & 1


def test_node_capture_takes_the_diamond_but_concedes_one_space():
    s = game(FAR, ("C1", "J5", "A10", "E10", "J10"))
    s, events = R.apply(s, c("C1"))
    assert events[0].kind == "capture"
    assert s.boards[1].held[0] == DIAMOND[c("C1")]
    assert s.boards[1].control[0] == 0
    assert s.boards[0].held[1] == 1 << c("C1")  # only the Node's space is conceded


def test_conceding_own_node_gives_the_target_its_whole_diamond():
    s = game(("C1", "J5", "A10", "E10", "J10"), FAR)
    s, events = R.apply(s, c("C1"))
    assert events[0].answer == "null"
    assert s.boards[0].control[0] == 1
    assert s.boards[0].held[1] == DIAMOND[c("C1")]


def test_overlap_retained_and_nodes_inside_revealed():
    s = game(FAR, ("C1", "D2", "J5", "A10", "J10"))
    s, _ = R.apply(s, c("C1"))
    b = s.boards[1]
    overlap = DIAMOND[c("C1")] & DIAMOND[c("D2")]
    assert b.held[1] & overlap == overlap & ~(1 << c("C1"))
    assert "D2" in R.view(s, 0)["grids"][1]["nodes"]
    assert "J5" not in R.view(s, 0)["grids"][1]["nodes"]


def test_reflection_onto_space_target_already_holds_is_a_noop():
    s = game(("C1", "J5", "A10", "E10", "J10"), ("C1", "J5", "A9", "E9", "J9"))
    s, _ = R.apply(s, c("D1"))  # P0 claims D1 -> P1 gains D1 on P0's board (in C1's range)
    before = s.boards[1].held[1]
    s, _ = R.apply(s, c("C1"))  # P1 takes P0's Node C1; P0 gains C1 (node) on P1's board
    assert s.boards[1].control[0] == 0
    assert s.boards[1].held[1] != before


def test_victory_when_all_nodes_captured():
    s = game(("A10", "B10", "C10", "D10", "E10"), ("A1", "B1", "C1", "D1", "E1"))
    for move in ("A1", "J1", "B1", "J2", "C1", "J3", "D1", "J4"):
        s, _ = R.apply(s, c(move))
    assert not s.is_over
    s, events = R.apply(s, c("E1"))
    assert s.result.winners == (0,)
    assert events[-1].kind == "win"
    assert R.legal_actions(s) == []
    with pytest.raises(IllegalAction, match="over"):
        R.apply(s, c("J5"))


def test_same_cell_last_nodes_double_loss_and_count_tiebreak():
    nodes = ("A1", "C1", "E1", "G1", "J10")
    found = 0
    for seed in range(30):
        s = play_random(game(nodes, nodes, first=seed % 2), seed)
        if "both lost" in s.result.reason or "true draw" in s.result.reason:
            found += 1
            counts = [R.spaces_controlled(s, p) for p in (0, 1)]
            if counts[0] == counts[1]:
                assert s.result.winners == ()
            else:
                assert s.result.winners == (0 if counts[0] > counts[1] else 1,)
    assert found >= 5


def test_true_draw_when_counts_equal():
    nodes = ("A1", "C1", "E1", "G1", "J10")
    s = play_random(game(nodes, nodes), 1)
    assert all(R.nodes_left(s, p) == 0 for p in (0, 1))
    # equalise the counts: the same lost spaces on both boards
    b0, b1 = s.boards
    b1 = replace(b1, held=(b0.held[1], b1.held[1]))
    s2 = replace(s, boards=(b0, b1), result=None)
    assert R._result(s2).winners == ()
    assert "true draw" in R._result(s2).reason


def test_random_games_end_and_keep_invariants():
    for seed in range(40):
        s = R.new_game(seed=seed)
        rng = random.Random(seed)
        while not s.is_over:
            for p in (0, 1):
                b = s.boards[p]
                assert b.held[0] & b.held[1] == 0
                assert b.held[p] & ~b.cover() == 0  # own board: only Node coverage
            s, _ = R.apply(s, rng.choice(R.legal_actions(s)))
        assert s.ply <= 100


def test_json_round_trip_and_views_hide_enemy_nodes():
    s = play_random(R.new_game(seed=3), 3)
    assert R.from_json(json.loads(json.dumps(R.to_json(s)))) == s
    mid = R.new_game(seed=5)
    for a in ("A1", "B1"):
        mid, _ = R.apply(mid, c(a))
    v = R.view(mid, 0)
    enemy = v["grids"][1]
    hidden = {n for n in mid.boards[1].nodes if not (mid.boards[1].revealed >> n) & 1}
    assert all(c(n) not in hidden for n in enemy["nodes"])
    assert "deflectors" not in enemy
    assert set(v["grids"][0]["nodes"]) == {R.cell_name(n) for n in mid.boards[0].nodes}


def test_bad_state_and_options():
    with pytest.raises(BcgError, match="Reflector"):
        R.from_json({"game": "deflector"})
    with pytest.raises(BcgError, match="unknown option"):
        R.from_json({**R.to_json(R.new_game()), "options": {"bogus": 1}})
    with pytest.raises(BcgError, match="exactly 5"):
        R.new_game(nodes=[[1, 2], [3, 4, 5, 6, 7]])
    with pytest.raises(BcgError, match="2 players"):
        R.new_game(players=3)


def test_first_player_from_seed_and_option():
    firsts = {R.new_game(seed=s).to_move for s in range(20)}
    assert firsts == {0, 1}
    assert R.new_game(seed=1, options=R.ReflectorOptions(first_player=1)).to_move == 1


def test_score_card_agrees_with_engine():
    for seed in range(25):
        s = play_random(R.new_game(seed=seed), seed)
        marks = R.card_marks(s)
        nodes = [[R.cell_name(n) for n in b.nodes] for b in s.boards]
        opts = R.ReflectorOptions(tiebreak_counts="marked")
        s_marked = replace(s, options=opts)
        score = R.score_card(marks, nodes=nodes)
        expected = R._result(s_marked)
        if expected.winners:
            assert score.status == "win" and score.winner == expected.winners[0]
        else:
            assert score.status == "true_draw"
        for k in (0, 1):
            assert (
                score.grids[k].counts.get("xo"[1 - k], 0)
                == (s.boards[k].marked & s.boards[k].held[1 - k]).bit_count()
            )
            assert len(score.grids[k].nodes_captured) == 5 - R.nodes_left(s, k)


def test_score_card_partial_and_unknown():
    s = R.new_game(seed=2)
    for a in ("A1", "B1", "A2"):
        s, _ = R.apply(s, c(a))
    marks = R.card_marks(s)
    nodes = [[R.cell_name(n) for n in b.nodes] for b in s.boards]
    assert R.score_card(marks, nodes=nodes).status == "in_progress"
    assert R.score_card(marks).status == "undetermined"
    out = R.score_card(marks, symbols=("x", "o")).to_json()
    b1 = s.boards[1]
    assert out["grids"][1]["counts"]["x"] == (b1.marked & b1.held[0]).bit_count() >= 2
    with pytest.raises(BcgError):
        R.score_card([marks[0]])
    with pytest.raises(BcgError, match="not a cell"):
        R.score_card([{"Z9": {"mark": "x"}}, {}])


def test_capture_reveals_only_nodes_in_range():
    s = game(FAR, ("C1", "J5", "A10", "E10", "J10"))
    s, _ = R.apply(s, c("C1"))
    assert mask_cells(s.boards[1].revealed) == [c("C1")]
