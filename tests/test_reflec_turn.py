"""The turn: action tiles, the die, mandatory tile points."""

import pytest
from piecebridge.rules.reflec import (
    Direction,
    EndTurn,
    Fire,
    IllegalAction,
    MoveCoin,
    Options,
    Spin,
    TurnStarted,
    apply,
    legal_actions,
)
from reflec_support import board, cell, play_state

B = board("S a1", "M h8", "Sn c3", "Mn f6")


def spin(state, where="c3", facing="east"):
    return apply(state, Spin(cell(where), Direction.parse(facing)))[0]


def test_die_advances_null_to_ace_to_two_and_so_on():
    for die in range(5):
        state = play_state(B, tile_points=0, dice=(2, die))
        state, events = apply(state, EndTurn())
        assert state.current == 1 and state.die == die + 1 and state.tile_points == 3
        assert events == (TurnStarted(1, die + 1, 3),)


def test_at_five_the_four_tile_flips_instead():
    state, _ = apply(play_state(B, tile_points=0, dice=(2, 5)), EndTurn())
    assert state.die == 5 and state.tile_points == 4
    assert state.points_left == 9  # the rulebook's nine-point turn: three shots


def test_face_values_option_counts_tiles_by_their_numbers():
    options = Options(tile_points="face_values")
    state, _ = apply(play_state(B, tile_points=0, dice=(2, 1), options=options), EndTurn())
    assert state.tile_points == 6
    state, _ = apply(play_state(B, tile_points=0, dice=(2, 5), options=options), EndTurn())
    assert state.tile_points == 10


def test_tile_points_must_all_be_spent_before_the_turn_ends():
    state = play_state(B, tile_points=3, dice=(2, 2))
    with pytest.raises(IllegalAction, match="3 tile points still unspent"):
        apply(state, EndTurn())
    assert EndTurn() not in legal_actions(state)
    state = spin(spin(spin(state), facing="west"), facing="north")
    assert state.tile_points == 0 and state.die == 2
    assert EndTurn() in legal_actions(state)


def test_points_come_from_the_tiles_first_then_the_die():
    state = play_state(B, tile_points=1, dice=(4, 2))
    state, _ = apply(state, Fire(Direction.EAST))
    assert state.tile_points == 0 and state.die == 2


def test_die_points_may_be_left_unspent():
    state = play_state(B, tile_points=0, dice=(5, 2))
    assert EndTurn() in legal_actions(state)
    state, _ = apply(state, EndTurn())
    assert state.dice[0] == 5


def test_null_die_and_spent_tiles_allow_nothing_but_ending():
    state = play_state(B, tile_points=0, dice=(0, 2))
    with pytest.raises(IllegalAction, match="die is on null"):
        apply(state, Spin(cell("c3"), Direction.EAST))
    assert legal_actions(state) == [EndTurn()]


def test_an_action_dearer_than_the_points_left_is_refused():
    state = play_state(B, tile_points=1, dice=(1, 2))
    with pytest.raises(IllegalAction, match="costs 3 action points but only 2 are left"):
        apply(state, Fire(Direction.EAST))


def test_a_turn_with_no_legal_action_may_end_with_tile_points_left():
    # suns has no coin and its laser is boxed in by moons coins: nothing to spend points on
    boxed = board("S a1", "Mn a2", "Mn b1", "M h8")
    state = play_state(boxed, tile_points=2, dice=(0, 2))
    assert legal_actions(state) == [EndTurn()]
    state, _ = apply(state, EndTurn())
    assert state.current == 1


def test_eliminated_players_are_skipped():
    state = play_state(board("S a1", "M a8", "C h8"), players="S M C", tile_points=0)
    state = play_state(state.board, players="S M C", tile_points=0, alive=(True, False, True))
    state, _ = apply(state, EndTurn())
    assert state.current == 2


def test_moves_cost_one_point_and_may_repeat_on_one_coin():
    state = play_state(B, tile_points=3, dice=(0, 2))
    for a, b in (("c3", "c4"), ("c4", "c5"), ("c5", "d5")):
        state, _ = apply(state, MoveCoin(cell(a), cell(b), Direction.SOUTH))
    assert state.tile_points == 0
    assert state.board.piece_at(cell("d5")).facing is Direction.SOUTH
