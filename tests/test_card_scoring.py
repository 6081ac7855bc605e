"""Reflector scoring from card/1 readings: who owns which grid, Nodes, result."""

import pytest
from piecebridge.rules.bcg.reflector import diamond_names

from piecebridge.errors import UserError
from piecebridge.scoring import ScoreOptions, assign_boards, infer_captured, score_card1


def grid(**cells):
    """grid(A1="x", B2="x*") -> a card/1 grid; a trailing * means shaded."""
    out = {}
    for name, mark in cells.items():
        shaded = mark.endswith("*")
        mark = mark.rstrip("*") or None
        out[name] = {"mark": mark, "shaded": shaded}
    return {"cells": out}


def captured_node(g: dict, cell: str, symbol: str) -> None:
    """Draw a captured Node as the Target does: the diamond shaded, marked with the symbol."""
    for n in diamond_names(cell):
        g["cells"][n] = {"mark": symbol, "shaded": True}


def test_owner_is_inferred_from_the_opponents_symbols():
    # Left grid covered in o: it is the board of the x player.
    card = {"grids": [grid(A1="o", B1="o", C1="x"), grid(D4="x", E4="x")]}
    owners, symbols, how = assign_boards(card["grids"], ScoreOptions())
    assert symbols == ("x", "o")
    assert owners == (0, 1)
    assert "inferred" in how
    s = score_card1(card)
    assert s["grids"][0]["board_of"] == "x"
    assert s["grids"][0]["counts"] == {"o": 2, "x": 1}
    assert s["grids"][1]["board_of"] == "o"


def test_options_override_symbols_and_owners():
    card = {"grids": [grid(A1="o"), grid(D4="x")]}
    s = score_card1(card, ScoreOptions(symbols=("o", "x"), owners=(1, 0)))
    assert s["symbols"] == ["o", "x"]
    assert [g["player"] for g in s["grids"]] == [1, 0]
    assert s["grids"][0]["board_of"] == "x"


def test_inferred_capture_needs_the_whole_diamond_shaded():
    g = grid()
    captured_node(g, "E5", "x")
    assert infer_captured(g, "x") == ["E5"]
    g["cells"]["E7"]["shaded"] = False  # one space of the diamond not shaded
    assert infer_captured(g, "x") == []


def test_all_nodes_captured_on_one_board_wins_for_the_other_player():
    lost = grid()
    for c in ("A1", "J1", "E5", "A10", "J10"):
        captured_node(lost, c, "x")
    other = grid(B2="o", C3="o")
    # Left grid bears x: the o player's board, and all five of o's Nodes are taken.
    s = score_card1({"grids": [lost, other]})
    assert s["status"] == "win"
    assert s["winner_symbol"] == "x"
    assert sorted(s["grids"][0]["nodes_captured"]) == sorted(["A1", "J1", "E5", "A10", "J10"])


def test_both_boards_lost_goes_to_the_space_count_then_true_draw():
    a, b = grid(), grid()
    for c in ("A1", "J1", "E5", "A10", "J10"):
        captured_node(a, c, "x")
        captured_node(b, c, "o")
    s = score_card1({"grids": [a, b]})
    assert s["status"] == "true_draw"
    b["cells"]["F1"] = {"mark": "o", "shaded": False}
    s = score_card1({"grids": [a, b]})
    assert s["status"] == "win" and s["winner_symbol"] == "o"


def test_game_in_progress_and_given_nodes():
    card = {"grids": [grid(A1="o", B1="o"), grid(A1="x")]}
    assert score_card1(card)["status"] == "in_progress"
    nodes = (["A1", "B1", "C1", "D1", "E1"], ["J10", "J9", "J8", "J7", "J6"])
    s = score_card1(card, ScoreOptions(nodes=nodes))
    assert s["status"] == "in_progress"
    assert s["grids"][0]["nodes_captured"] == ["A1", "B1"]


def test_one_grid_is_reported_not_scored():
    s = score_card1({"grids": [grid(A1="x")]})
    assert s["status"] == "undetermined"
    assert s["grids"][0]["counts"] == {"x": 1}


def test_bad_options_are_user_errors():
    card = {"grids": [grid(A1="o"), grid(D4="x")]}
    with pytest.raises(UserError):
        score_card1(card, ScoreOptions(symbols=("x", "x")))
    with pytest.raises(UserError):
        score_card1(card, ScoreOptions(game="chess"))
