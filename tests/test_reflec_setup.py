"""Setup and the Drop round."""

import pytest
from piecebridge.rules.reflec import (
    CELL_NAMES,
    Direction,
    EndTurn,
    IllegalAction,
    MoveCoin,
    Options,
    Place,
    ReflecError,
    Suit,
    apply,
    legal_actions,
    new_game,
)
from reflec_support import cell, names


def pawn_corners(state):
    return {pawn.suit.value: CELL_NAMES[c] for c, pawn in state.board.pawns()}


def test_four_players_pawns_clockwise_from_a1_in_play_order():
    state = new_game(["crowns", "suns", "arms", "moons"])
    assert pawn_corners(state) == {"crowns": "a1", "suns": "a8", "arms": "h8", "moons": "h1"}


def test_three_players_take_three_corners_clockwise():
    state = new_game(["suns", "moons", "crowns"])
    assert pawn_corners(state) == {"suns": "a1", "moons": "a8", "crowns": "h8"}


def test_two_players_two_lasers_each_alternate_round_the_corners():
    state = new_game(["suns", "moons"])
    assert state.players == ((Suit.SUNS, Suit.CROWNS), (Suit.MOONS, Suit.ARMS))
    assert pawn_corners(state) == {"suns": "a1", "moons": "a8", "crowns": "h8", "arms": "h1"}


@pytest.mark.parametrize(("corners", "expected"), [("opposite", "h8"), ("adjacent", "a8")])
def test_two_players_one_laser_corner_option(corners, expected):
    state = new_game(["suns", "moons"], Options(two_player_lasers=1, two_player_corners=corners))
    assert pawn_corners(state) == {"suns": "a1", "moons": expected}
    assert sum(state.unplaced) == 12


def test_dice_start_at_two_and_drop_round_comes_first():
    state = new_game(["suns", "moons", "crowns", "arms"])
    assert state.dice == (2, 2, 2, 2)
    assert state.phase == "drop" and state.current == 0
    assert sum(state.unplaced) == 24


@pytest.mark.parametrize("players", [["suns"], ["suns"] * 5, ["suns", "suns"], ["suns", "hearts"]])
def test_bad_player_lists_are_refused(players):
    with pytest.raises(ReflecError):
        new_game(players)


def drop_all(state, cells):
    cells = iter(c for c in cells if state.board.is_open(cell(c)))
    while state.phase == "drop":
        mine = [s for s in Suit if state.unplaced[list(Suit).index(s)]]
        suit = next((s for s in mine if s in state.current_suits), mine[0])
        state, events = apply(state, Place(cell(next(cells)), suit, Direction.EAST))
    return state, events


ALL_CELLS = [f"{f}{r}" for r in range(2, 8) for f in "bcdefg"]


def test_drop_round_places_every_coin_in_turn_order_then_play_begins_with_the_first():
    state = new_game(["suns", "moons", "crowns"])
    state, _ = apply(state, Place(cell("c4"), Suit.SUNS, Direction.NORTH))
    assert state.current == 1
    state, events = drop_all(state, ALL_CELLS)
    assert state.phase == "play" and state.current == 0
    assert sum(1 for _ in state.board.coins()) == 18
    # the first regular turn: die 2 -> 3, three tile points
    assert state.die == 3 and state.tile_points == 3
    assert events[-1].player == 0


def test_two_player_drop_round_uses_all_24_coins():
    state, _ = drop_all(new_game(["suns", "moons"]), ALL_CELLS)
    assert sum(1 for _ in state.board.coins()) == 24


def test_three_players_spare_suit_option_drops_neutral_coins():
    state = new_game(["suns", "moons", "crowns"], Options(spare_suits="neutral"))
    assert sum(state.unplaced) == 24
    state, _ = drop_all(state, ALL_CELLS)
    assert sum(1 for _, c in state.board.coins() if c.suit is Suit.ARMS) == 6
    assert state.is_neutral(Suit.ARMS)


def test_placing_anothers_coin_or_on_an_occupied_cell_is_illegal():
    state = new_game(["suns", "moons"])
    with pytest.raises(IllegalAction, match="not yours"):
        apply(state, Place(cell("c4"), Suit.MOONS, Direction.NORTH))
    with pytest.raises(IllegalAction, match="not open"):
        apply(state, Place(cell("a1"), Suit.SUNS, Direction.NORTH))


def test_only_placements_are_legal_in_the_drop_round():
    state = new_game(["suns", "moons", "crowns", "arms"])
    actions = legal_actions(state)
    assert actions and all(isinstance(a, Place) for a in actions)
    assert len(actions) == 60 * 4  # 60 open cells, 4 facings, one suit
    with pytest.raises(IllegalAction, match="Drop round"):
        apply(state, EndTurn())
    with pytest.raises(IllegalAction):
        apply(state, MoveCoin(cell("c4"), cell("c5"), Direction.EAST))


def test_any_facing_may_be_chosen_when_placing():
    state = new_game(["suns", "moons"])
    facings = {a.facing for a in legal_actions(state) if names([a.cell]) == ["d4"]}
    assert facings == set(Direction)


def test_roll_for_turn_order_rerolls_only_the_ties():
    import random

    from piecebridge.rules.reflec import roll_turn_order

    orders = {
        tuple(roll_turn_order(["suns", "moons", "crowns"], random.Random(s))) for s in range(200)
    }
    assert len(orders) == 6  # every order happens
    assert all(sorted(o) == ["crowns", "moons", "suns"] for o in orders)
