"""Actions: who may do what, at what cost, and what firing does."""

import pytest
from piecebridge.rules.reflec import (
    CoinsRemoved,
    Direction,
    Drop,
    EndTurn,
    Fire,
    GameOver,
    IllegalAction,
    LaserDestroyed,
    MoveCoin,
    MoveLaser,
    Options,
    PlayerEliminated,
    Spin,
    Suit,
    Swap,
    apply,
    legal_actions,
)
from piecebridge.rules.reflec.game import NeutralMove, SwapRecord
from reflec_support import board, cell, play_state

E, N, S, W = Direction.EAST, Direction.NORTH, Direction.SOUTH, Direction.WEST
THREE = "S M C"


def three_player(*items, current=0, **kw):
    return play_state(board("S a1", "M a8", "C h8", *items), players=THREE, current=current, **kw)


def moons_out(*items, **kw):
    """Three players, moons eliminated: moons coins are neutral."""
    return play_state(board("S a1", "C h8", *items), players=THREE, alive=(True, False, True), **kw)


# --- move ---------------------------------------------------------------------------


def test_move_own_coin_to_an_adjacent_open_cell_in_any_orientation():
    state, _ = apply(three_player("Sn d4"), MoveCoin(cell("d4"), cell("d5"), W))
    assert state.board.piece_at(cell("d5")).facing is W and state.board.is_open(cell("d4"))


@pytest.mark.parametrize("target", ["d6", "e5", "f4"])
def test_move_only_to_an_orthogonal_neighbour(target):
    with pytest.raises(IllegalAction, match="not next to"):
        apply(three_player("Sn d4"), MoveCoin(cell("d4"), cell(target), N))


def test_move_onto_an_occupied_cell_is_illegal():
    with pytest.raises(IllegalAction, match="not open"):
        apply(three_player("Sn d4", "Mn d5"), MoveCoin(cell("d4"), cell("d5"), N))


def test_move_another_players_coin_is_illegal():
    with pytest.raises(IllegalAction, match="belongs to another player"):
        apply(three_player("Mn d4"), MoveCoin(cell("d4"), cell("d5"), N))


def test_move_a_neutral_coin_is_legal():
    state, _ = apply(moons_out("Mn d4"), MoveCoin(cell("d4"), cell("d5"), N))
    assert state.neutral_moves == (NeutralMove(cell("d5"), 0, 5),)


def test_neutral_coin_moved_by_another_player_last_turn_is_locked():
    state = moons_out("Mn d4", current=2, neutral_moves=(NeutralMove(cell("d4"), 0, 4),))
    with pytest.raises(IllegalAction, match="moved by another player last turn"):
        apply(state, MoveCoin(cell("d4"), cell("d5"), N))
    assert not any(isinstance(a, MoveCoin) and a.source == cell("d4") for a in legal_actions(state))
    # spinning it is still allowed: the lock is on moving
    apply(state, Spin(cell("d4"), E))


def test_neutral_lock_does_not_bind_the_player_who_moved_it():
    state = moons_out("Mn d4", neutral_moves=(NeutralMove(cell("d4"), 0, 4),))
    apply(state, MoveCoin(cell("d4"), cell("d5"), N))


def test_neutral_lock_lasts_one_turn_by_default_and_longer_by_option():
    moved = (NeutralMove(cell("d4"), 0, 3),)  # two turns ago
    apply(moons_out("Mn d4", current=2, neutral_moves=moved), MoveCoin(cell("d4"), cell("d5"), N))
    longer = Options(neutral_lock="since_your_last_turn")
    state = moons_out(
        "Mn d4", current=2, neutral_moves=moved, options=longer, last_turn_of=(4, -1, 2)
    )
    with pytest.raises(IllegalAction, match="moved by another player"):
        apply(state, MoveCoin(cell("d4"), cell("d5"), N))


def test_a_locked_neutral_coin_stays_locked_wherever_it_was_moved_to():
    state = moons_out("Mn d4")
    state, _ = apply(state, MoveCoin(cell("d4"), cell("d5"), N))
    state, _ = apply(state, MoveCoin(cell("d5"), cell("d6"), N))
    assert [m.cell for m in state.neutral_moves] == [cell("d6")]


# --- laser -----------------------------------------------------------------------------


def test_move_your_laser_one_cell():
    state, _ = apply(three_player(), MoveLaser(cell("a1"), cell("b1")))
    assert state.board.pawn_cell(Suit.SUNS) == cell("b1")


def test_move_another_laser_is_illegal():
    with pytest.raises(IllegalAction, match="your laser is not on a8"):
        apply(three_player(), MoveLaser(cell("a8"), cell("a7")))


# --- spin -----------------------------------------------------------------------------------


def test_spin_turns_a_coin_in_place_for_one_point():
    state, _ = apply(three_player("Sn d4"), Spin(cell("d4"), S))
    assert state.board.piece_at(cell("d4")).facing is S and state.tile_points == 2


def test_spin_to_the_same_facing_is_no_spin():
    with pytest.raises(IllegalAction, match="already faces north"):
        apply(three_player("Sn d4"), Spin(cell("d4"), N))


def test_spin_of_another_players_coin_is_illegal():
    with pytest.raises(IllegalAction, match="another player"):
        apply(three_player("Cn d4"), Spin(cell("d4"), S))


# --- drop -----------------------------------------------------------------------------------


def test_drop_returns_a_removed_coin_for_two_points():
    state = three_player(pool=(1, 0, 0, 0))
    state, _ = apply(state, Drop(cell("e5"), Suit.SUNS, W))
    assert state.pool == (0, 0, 0, 0) and state.tile_points == 1
    assert state.board.piece_at(cell("e5")).suit is Suit.SUNS


def test_drop_needs_a_removed_coin_of_yours_or_a_neutral_one():
    with pytest.raises(IllegalAction, match="no suns coin has been removed"):
        apply(three_player(), Drop(cell("e5"), Suit.SUNS, W))
    with pytest.raises(IllegalAction, match="belong to another player"):
        apply(three_player(pool=(0, 1, 0, 0)), Drop(cell("e5"), Suit.MOONS, W))
    apply(moons_out(pool=(0, 1, 0, 0)), Drop(cell("e5"), Suit.MOONS, W))


def test_drop_on_an_occupied_cell_is_illegal():
    with pytest.raises(IllegalAction, match="not open"):
        apply(three_player(pool=(1, 0, 0, 0)), Drop(cell("a8"), Suit.SUNS, W))


# --- swap -----------------------------------------------------------------------------------


def test_swap_exchanges_coins_and_each_cell_keeps_its_orientation():
    state, _ = apply(three_player("Sn d4", "Me d5"), Swap(cell("d4"), cell("d5")))
    assert state.board.piece_at(cell("d4")).suit is Suit.MOONS
    assert state.board.piece_at(cell("d4")).facing is N
    assert state.board.piece_at(cell("d5")).suit is Suit.SUNS
    assert state.board.piece_at(cell("d5")).facing is E
    assert state.tile_points == 1


@pytest.mark.parametrize(
    ("a", "b", "legal"),
    [
        ("Sn", "Me", True),  # yours with another player's
        ("Mn", "Ce", True),  # neutral with another player's
        ("Sn", "Me", True),
        ("Mn", "Se", True),  # neutral with yours
        ("Mn", "Ae", True),  # two neutral coins of different suits
        ("Mn", "Me", False),  # one suit: nothing changes
        ("Cn", "Ae", False),  # neither yours nor neutral (arms is a live player here)
    ],
)
def test_swap_partners(a, b, legal):
    state = play_state(
        board("S a1", "C h8", "A h1", f"{a} d4", f"{b} d5"),
        players="S M C A",
        alive=(True, False, True, True),
    )
    if b == "Ae" and a == "Mn":
        state = play_state(state.board, players="S M C A", alive=(True, False, True, False))
    swap = Swap(cell("d4"), cell("d5"))
    if legal:
        apply(state, swap)
    else:
        with pytest.raises(IllegalAction):
            apply(state, swap)


def test_swap_two_of_your_own_suits_is_illegal_in_the_two_suit_game():
    state = play_state(board("S a1", "M a8", "C h8", "A h1", "Sn d4", "Ce d5"), players="SC MA")
    with pytest.raises(IllegalAction, match="both coins are yours"):
        apply(state, Swap(cell("d4"), cell("d5")))


def test_swap_needs_adjacent_coins():
    with pytest.raises(IllegalAction, match="not adjacent"):
        apply(three_player("Sn d4", "Me e5"), Swap(cell("d4"), cell("e5")))
    with pytest.raises(IllegalAction, match="no coin on d5"):
        apply(three_player("Sn d4"), Swap(cell("d4"), cell("d5")))


def test_no_swap_that_undoes_a_swap_made_since_your_last_turn():
    # moons swapped d4/d5 last turn (suns had been on d5, moons on d4)
    record = SwapRecord((cell("d4"), cell("d5")), (Suit.SUNS, Suit.MOONS), 1, 4)
    state = three_player("Sn d4", "Me d5", swaps=(record,), last_turn_of=(3, 4, 2))
    with pytest.raises(IllegalAction, match="would undo a swap"):
        apply(state, Swap(cell("d4"), cell("d5")))
    assert Swap(cell("d4"), cell("d5")) not in legal_actions(state)


def test_a_swap_from_before_your_last_turn_may_be_undone():
    record = SwapRecord((cell("d4"), cell("d5")), (Suit.SUNS, Suit.MOONS), 1, 2)
    state = three_player("Sn d4", "Me d5", swaps=(record,), last_turn_of=(3, 2, 4))
    apply(state, Swap(cell("d4"), cell("d5")))


def test_undoing_your_own_swap_in_the_same_turn_depends_on_the_option():
    state = three_player("Sn d4", "Me d5", tile_points=4)
    state, _ = apply(state, Swap(cell("d4"), cell("d5")))
    with pytest.raises(IllegalAction, match="would undo"):
        apply(state, Swap(cell("d4"), cell("d5")))
    lenient = three_player(
        "Sn d4", "Me d5", tile_points=4, options=Options(own_swaps_undoable=True)
    )
    lenient, _ = apply(lenient, Swap(cell("d4"), cell("d5")))
    apply(lenient, Swap(cell("d4"), cell("d5")))


# --- fire ---------------------------------------------------------------------------------------


def test_fire_costs_three_and_a_wasted_shot_changes_nothing_else():
    state = three_player()
    after, events = apply(state, Fire(E))
    assert after.board == state.board and after.tile_points == 0
    assert events[0].beam.end == "edge"


def test_hitting_a_pawn_eliminates_its_player_and_neutralises_its_coins():
    state = three_player("Mn d4")
    after, events = apply(state, Fire(N))
    kinds = [type(e) for e in events]
    assert LaserDestroyed in kinds and PlayerEliminated in kinds
    assert after.alive == (True, False, True)
    assert after.is_neutral(Suit.MOONS)
    assert after.board.pawn_cell(Suit.MOONS) is None
    apply(after, MoveCoin(cell("d4"), cell("d5"), N))  # moons coins are now free for all


def test_last_player_standing_wins():
    state = play_state(board("S a1", "M a8"), players="S M", options=Options(two_player_lasers=1))
    after, events = apply(state, Fire(N))
    assert after.phase == "over" and after.winner == 0
    assert isinstance(events[-1], GameOver)
    assert legal_actions(after) == []
    with pytest.raises(IllegalAction, match="game is over"):
        apply(after, EndTurn())


def test_two_player_game_second_laser_keeps_the_player_in():
    b = board("S a1", "M a8", "C h8", "A h1", "Mn d4")
    state = play_state(b, players="SC MA", tile_points=4, dice=(5, 2))
    after, events = apply(state, Fire(N, cell("a1")))
    assert [type(e) for e in events][1:] == [LaserDestroyed]
    assert after.alive == (True, True) and not after.is_neutral(Suit.MOONS)
    with pytest.raises(IllegalAction, match="belongs to another player"):
        apply(after, MoveCoin(cell("d4"), cell("d5"), N))
    # the second hit ends it
    after, events = apply(after, Fire(S, cell("h8")))
    assert events[-1] == GameOver(0)


def test_two_lasers_must_be_named_when_firing():
    state = play_state(board("S a1", "M a8", "C h8", "A h1"), players="SC MA")
    with pytest.raises(IllegalAction, match="name the one to fire"):
        apply(state, Fire(N))
    with pytest.raises(IllegalAction, match="your laser is not on a8"):
        apply(state, Fire(N, cell("a8")))


def test_shooting_yourself_eliminates_you_and_ends_your_turn():
    state = three_player("Ms a4", tile_points=3, dice=(5, 2, 2))
    after, _ = apply(state, Fire(N))
    assert after.alive == (False, True, True)
    assert after.current == 1 and after.is_neutral(Suit.SUNS)


def test_a_loop_removes_its_coins_to_the_pool():
    b = board("S c1", "M a8", "C h8", "Ce c3", "Mn f3", "Cw f6", "Ss c6")
    state = play_state(b, players=THREE)
    after, events = apply(state, Fire(N))
    removed = next(e for e in events if isinstance(e, CoinsRemoved))
    assert sorted(removed.suits, key=lambda s: s.value) == [
        Suit.CROWNS,
        Suit.CROWNS,
        Suit.MOONS,
        Suit.SUNS,
    ]
    assert after.pool == (1, 1, 2, 0)
    assert sum(1 for _ in after.board.coins()) == 0
    # the shooter may drop its own coin back
    after, _ = apply(
        play_state(after.board, players=THREE, pool=after.pool, tile_points=2),
        Drop(cell("d4"), Suit.SUNS, N),
    )


def test_removed_neutral_coins_lose_their_lock():
    b = board("S c1", "C h8", "Ce c3", "Mn f3", "Cw f6", "Ms c6")
    state = play_state(
        b, players=THREE, alive=(True, False, True), neutral_moves=(NeutralMove(cell("f3"), 2, 4),)
    )
    after, _ = apply(state, Fire(N))
    assert after.neutral_moves == ()


def test_legal_actions_are_all_applicable_and_nothing_else_is():
    state = moons_out("Mn d4", "Se d5", "Cw e4", pool=(0, 1, 0, 0), tile_points=3, dice=(2, 0, 2))
    legal = legal_actions(state)
    for action in legal:
        apply(state, action)
    kinds = {type(a).__name__ for a in legal}
    assert kinds == {"MoveCoin", "MoveLaser", "Spin", "Drop", "Swap", "Fire"}
