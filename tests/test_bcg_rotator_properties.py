"""Rotator property tests (hypothesis): random games on random and fixed maps."""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st
from piecebridge.rules.bcg.common import IllegalAction
from piecebridge.rules.bcg.rotator import (
    COLLAPSE_AGE,
    DIRECTIONS,
    LAYOUTS,
    Action,
    RotatorOptions,
    apply,
    check,
    from_json,
    invariant_problem,
    legal_actions,
    new_game,
    next_down,
    record_lines,
    replay,
    to_json,
)
from piecebridge.rules.bcg.rotator_maps import CELLS, WIDTH, parse_cell

games = st.fixed_dictionaries(
    {
        "layout": st.sampled_from(LAYOUTS),
        "seed": st.integers(0, 10**6),
        "edges": st.sampled_from(["board", "grid"]),
        "board_edge": st.sampled_from(["floor", "fatal"]),
        "choices": st.lists(st.integers(0, 10**6), min_size=1, max_size=60),
    }
)

CANDIDATES = [
    *(Action(kind, c) for kind in ("start", "from") for c in range(CELLS)),
    *(Action("drill", depth=d) for d in range(5)),
]


def play_out(game):
    opts = RotatorOptions(edges=game["edges"], board_edge=game["board_edge"])
    state = new_game(layout=game["layout"], seed=game["seed"], options=opts)
    history = [(state, None, [])]
    for choice in game["choices"]:
        actions = legal_actions(state)
        if not actions:
            break
        action = actions[choice % len(actions)]
        state, events = apply(state, action)
        history.append((state, action, events))
    return history


def _cells(event):
    return [parse_cell(d) for d in event.detail if isinstance(d, str) and ":" in d]


@settings(max_examples=40, deadline=None)
@given(games)
def test_legal_actions_are_exactly_the_actions_that_pass_check(game):
    for state, _, _ in play_out(game)[::4]:
        legal = set(legal_actions(state))
        for action in CANDIDATES:
            try:
                check(state, action)
            except IllegalAction as error:
                assert action not in legal
                assert str(error) and "\n" not in str(error)
            else:
                assert action in legal, action


@settings(max_examples=60, deadline=None)
@given(games)
def test_every_state_keeps_the_invariants_and_round_trips(game):
    history = play_out(game)
    first = history[0][0]
    for state, _, _ in history:
        assert invariant_problem(state) is None
        assert from_json(json.loads(json.dumps(to_json(state)))) == state
        assert not (state.solid & {c for c in range(CELLS) if state.marks[c]})
        if state.phase == "drill":  # after Step 2 no mark is three turns old
            assert all(state.turn - t < COLLAPSE_AGE for t in state.marks if t)
        # "down" has turned once per turn since the start
        if state.start_grid is not None and state.phase != "start":
            down = "south" if state.start_grid == 1 else "north"
            for _ in range(state.turn - 1):
                down = next_down(down)
            assert state.down == down
    assert first.boost_left == first.options.boost_budget


@settings(max_examples=60, deadline=None)
@given(games)
def test_each_step_changes_the_board_only_as_its_events_say(game):
    history = play_out(game)
    for (before, _, _), (after, action, events) in itertools.pairwise(history):
        opened = before.solid - after.solid
        closed = after.solid - before.solid
        moved = set()
        collapsed = set()
        for e in events:
            if e.kind in ("start", "drill", "capture"):
                moved |= set(_cells(e))
            if e.kind == "collapse":
                collapsed |= set(_cells(e))
        assert opened <= moved  # rock only opens by start, drill or capture
        assert closed <= collapsed  # and only comes back by collapse
        # boosts: spent only by drilling, at most the per-turn cap
        spent = before.boost_left - after.boost_left
        assert 0 <= spent <= before.options.boost_per_turn
        if action.kind != "drill":
            assert spent == 0
        # every fall and drill goes straight along the gravity of its moment
        down = before.down if action.kind == "drill" else after.down
        for e in events:
            if e.kind == "rotate":
                down = e.detail[-1]
            if e.kind in ("fall", "drill"):
                dx, dy = DIRECTIONS[down]
                steps = itertools.pairwise(_cells(e))
                assert all(b - a == dy * WIDTH + dx for a, b in steps)
        if after.result is not None:
            assert events[-1].kind in ("win", "lose")


@settings(max_examples=30, deadline=None)
@given(games)
def test_a_record_replays_to_the_same_state(game):
    history = play_out(game)
    start = history[0][0]
    actions = [a for _, a, _ in history[1:]]
    assert replay(record_lines(start, actions)) == history[-1][0]
    # and text notation reads back to the same actions
    assert [Action.parse(str(a)) for a in actions] == actions
