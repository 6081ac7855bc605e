"""What each seat may see in a Business Card Games state: the tests' own oracle, written
from the rulebook independently of the engine's view code."""

from __future__ import annotations


def grids_of(state):
    """The grids of any game: Reflector calls them boards."""
    return state.boards if hasattr(state, "boards") else state.grids


def players_of(state):
    return 2 if hasattr(state, "boards") else state.players


def knows(state, player, owner):
    """May ``player`` see the private truth of a grid owned by ``owner``?"""
    if owner is None:
        return False
    if hasattr(state, "knows"):
        return bool((state.knows[player] >> owner) & 1)
    return owner == player
