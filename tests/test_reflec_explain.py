"""explain(): the cheapest legal sequences between two observed boards."""

import pytest
from piecebridge.rules.reflec import Coin, Direction, Pawn, Suit
from piecebridge.rules.reflec.explain import explain, lower_bound
from piecebridge.rules.reflec.game import NeutralMove
from reflec_support import board, cell, play_state

E, N, S, W = Direction.EAST, Direction.NORTH, Direction.SOUTH, Direction.WEST
BASE = ("S a1", "M a8", "C h8", "Sn d4", "Sn e4", "Mn d5", "Cn f2")


def state_of(*items, **kw):
    kw.setdefault("players", "S M C")
    return play_state(board(*items), **kw)


def changed(state, changes):
    return state.board.with_pieces({cell(k): v for k, v in changes.items()})


def texts(result):
    return [[str(a) for a in seq] for seq in result.sequences]


def test_unchanged_board_costs_nothing():
    state = state_of(*BASE)
    result = explain(state.board, state.board, state)
    assert result.found and result.cost == 0 and result.sequences == ((),)


def test_a_coin_moved_two_cells_costs_two_moves_along_an_open_path():
    state = state_of(*BASE)
    after = changed(state, {"d4": None, "c3": Coin(Suit.SUNS, W)})
    result = explain(state.board, after, state)
    assert result.cost == 2
    for seq in texts(result):
        assert seq[-1].endswith("c3 west") and len(seq) == 2


def test_a_spin_is_found():
    state = state_of(*BASE)
    result = explain(state.board, changed(state, {"e4": Coin(Suit.SUNS, S)}), state)
    assert texts(result) == [["spin e4 south"]]


def test_a_swap_with_another_players_coin_is_found():
    state = state_of(*BASE)
    after = changed(state, {"d4": Coin(Suit.MOONS, N), "d5": Coin(Suit.SUNS, N)})
    result = explain(state.board, after, state)
    assert texts(result) == [["swap d4 d5"]]


def test_a_drop_is_found_when_a_coin_was_removed():
    state = state_of(*BASE, pool=(1, 0, 0, 0))
    result = explain(state.board, changed(state, {"g6": Coin(Suit.SUNS, E)}), state)
    assert texts(result) == [["drop g6 suns east"]]


def test_a_laser_move_and_coin_moves_together():
    state = state_of(*BASE, tile_points=3, dice=(3, 2, 2))
    after = changed(
        state,
        {
            "a1": None,
            "b1": Pawn(Suit.SUNS),
            "d4": None,
            "d3": Coin(Suit.SUNS, E),
            "e4": Coin(Suit.SUNS, W),
        },
    )
    result = explain(state.board, after, state)
    assert result.cost == 3
    assert sorted(texts(result)[0]) == ["laser a1 b1", "move d4 d3 east", "spin e4 west"]


def test_a_blocked_path_costs_a_detour():
    # e4 must go to e6 but e5 is blocked by a moons coin: e4-f4-f5-f6-e6 (4) is the way
    state = state_of(*BASE, "Mn e5", tile_points=4, dice=(2, 2, 2))
    after = changed(state, {"e4": None, "e6": Coin(Suit.SUNS, N)})
    result = explain(state.board, after, state)
    assert result.cost == 4


def test_an_unchanged_coin_that_must_step_aside_is_found():
    # b1's coin must reach d1 but c1's identical coin blocks the walled corridor:
    # c1 -> d1 then b1 -> c1 leaves c1 looking unchanged (cost 2).
    items = ("S h1", "M h8", "C a8", "Sn b1", "Sn c1", "Cn a2", "Cn b2", "Cn c2", "Cn d2")
    state = play_state(board(*items), players="S M C", tile_points=3, dice=(2, 2, 2))
    after = state.board.with_pieces({cell("b1"): None, cell("d1"): Coin(Suit.SUNS, N)})
    result = explain(state.board, after, state)
    assert result.cost == 2
    assert ["move c1 d1 north", "move b1 c1 north"] in texts(result)


def test_another_players_coin_that_moved_is_flagged():
    state = state_of(*BASE)
    after = changed(state, {"d5": None, "d6": Coin(Suit.MOONS, N)})
    result = explain(state.board, after, state)
    assert not result.found
    assert "moons coin on d5 belongs to another player" in result.reason
    assert cell("d5") in result.cells


def test_too_far_for_the_points_left_says_so_in_one_sentence():
    state = state_of(*BASE, tile_points=1, dice=(0, 2, 2))
    after = changed(state, {"d4": None, "d2": Coin(Suit.SUNS, N)})
    result = explain(state.board, after, state)
    assert not result.found
    assert result.reason == (
        "the suns coin on d4 moved two cells to d2 but only one action point was left"
    )
    assert set(result.cells) == {cell("d4"), cell("d2")}


def test_a_vanished_coin_or_laser_is_flagged():
    state = state_of(*BASE)
    result = explain(state.board, changed(state, {"d4": None}), state)
    assert "disappeared from d4" in result.reason and result.cells == (cell("d4"),)
    result = explain(state.board, changed(state, {"a8": None}), state)
    assert "moons laser on a8 is gone" in result.reason


def test_another_players_laser_moving_is_flagged():
    state = state_of(*BASE)
    result = explain(state.board, changed(state, {"a8": None, "a7": Pawn(Suit.MOONS)}), state)
    assert result.reason == "the moons laser moved from a8 to a7, but it is suns's turn"


def test_a_new_coin_without_a_removed_one_is_flagged():
    state = state_of(*BASE)
    result = explain(state.board, changed(state, {"g6": Coin(Suit.SUNS, E)}), state)
    assert "than can be dropped" in result.reason and result.cells == (cell("g6"),)


def test_locked_neutral_coin_cannot_be_explained_as_moved():
    state = play_state(
        board("S a1", "C h8", "Mn d5"),
        players="S M C",
        alive=(True, False, True),
        neutral_moves=(NeutralMove(cell("d5"), 2, 4),),
    )
    after = changed(state, {"d5": None, "d6": Coin(Suit.MOONS, N)})
    result = explain(state.board, after, state)
    assert not result.found


@pytest.mark.parametrize("cost", [1, 2, 3, 4, 5, 6])
def test_lower_bound_never_exceeds_the_true_cost(cost):
    state = state_of(*BASE, tile_points=3, dice=(5, 2, 2))
    target = ["d3", "d2", "d1", "c1", "b1", "g1"][cost - 1]  # Manhattan distance = cost
    after = changed(state, {"d4": None, target: Coin(Suit.SUNS, N)})
    result = explain(state.board, after, state)
    assert result.cost == cost
    assert lower_bound(state.board, after, state) <= cost
