"""Notation, JSON state and JSONL records; properties over random legal play."""

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from piecebridge.rules.reflec import (
    Board,
    BoardError,
    NotationError,
    Options,
    RecordError,
    apply,
    legal_actions,
    new_game,
    parse_action,
    record_header,
    replay,
    state_from_json,
    state_to_json,
)

NOTATION = [
    "place c4 suns north",
    "move c4 d4 east",
    "laser a1 a2",
    "spin c4 west",
    "drop h5 arms south",
    "swap c4 d4",
    "fire north",
    "fire h8 west",
    "end",
]


@pytest.mark.parametrize("text", NOTATION)
def test_notation_round_trips(text):
    assert str(parse_action(text)) == text


@pytest.mark.parametrize(
    "text", ["", "jump c4", "move c4 d4", "move c4 z9 east", "spin c4 up", "fire", "end now"]
)
def test_bad_notation_is_refused_with_a_reason(text):
    with pytest.raises(NotationError):
        parse_action(text)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {
                "coins": [{"cell": "c4", "suit": "suns", "facing": "north"}],
                "pawns": [{"cell": "c4", "suit": "moons"}],
            },
            "pawns\\[0\\] on c4: that cell already holds the suns coin",
        ),
        (
            {"coins": [{"cell": "c9", "suit": "suns", "facing": "north"}]},
            "coins\\[0\\]: 'c9' is not a cell",
        ),
        (
            {"coins": [{"cell": "c4", "suit": "hearts", "facing": "north"}]},
            "coins\\[0\\]: 'hearts' is not a suit",
        ),
        (
            {"coins": [{"cell": "c4", "suit": "suns", "facing": "up"}]},
            "coins\\[0\\]: 'up' is not a direction",
        ),
        ({"coins": [{"cell": "c4", "suit": "suns"}]}, "coins\\[0\\] has no 'facing'"),
        (
            {"pawns": [{"cell": "a1", "suit": "suns"}, {"cell": "a2", "suit": "suns"}]},
            "two suns lasers",
        ),
        ({"format": "reflec-board/2"}, "not reflec-board/1"),
        ([], "must be a JSON object"),
    ],
)
def test_bad_boards_name_the_offending_item(data, message):
    with pytest.raises(BoardError, match=message):
        Board.from_json(data)


def test_vision_extras_are_ignored():
    data = {
        "format": "reflec-board/1",
        "coins": [{"cell": "c4", "suit": "suns", "facing": "north", "confidence": 0.9}],
        "pawns": [],
        "unknown": ["d5"],
    }
    assert Board.from_json(data).to_json()["coins"] == [
        {"cell": "c4", "suit": "suns", "facing": "north"}
    ]


def random_game(seed: int, players: int, max_actions: int = 400):
    """A random legal game: the record lines and every state."""
    rng = random.Random(seed)
    suits = ["suns", "moons", "crowns", "arms"][:players]
    options = Options(
        tile_points=rng.choice(["count", "face_values"]),
        two_player_lasers=rng.choice([1, 2]),
        spare_suits=rng.choice(["unused", "neutral"]),
        neutral_lock=rng.choice(["previous_turn", "since_your_last_turn"]),
    )
    state = new_game(suits, options)
    lines = [json.dumps(record_header(state))]
    states = [state]
    for _ in range(max_actions):
        actions = legal_actions(state)
        if not actions:
            break
        action = rng.choice(actions)
        state, _ = apply(state, action)
        lines.append(json.dumps({"action": str(action)}))
        states.append(state)
    return lines, states


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), players=st.sampled_from([2, 3, 4]))
def test_replaying_a_record_reproduces_every_state(seed, players):
    lines, states = random_game(seed, players, max_actions=150)
    assert replay(lines) == states


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([2, 3, 4]))
def test_state_json_round_trips(seed, players):
    _, states = random_game(seed, players, max_actions=150)
    for state in [*states[:: max(1, len(states) // 10)], states[-1]]:
        text = json.dumps(state_to_json(state))
        assert state_from_json(json.loads(text)) == state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.sampled_from([2, 3, 4]), pick=st.randoms())
def test_applying_any_legal_action_never_raises(seed, players, pick):
    _, states = random_game(seed, players, max_actions=120)
    state = pick.choice(states)
    for action in legal_actions(state):
        apply(state, action)


def test_replay_reports_the_line_of_the_first_illegal_action():
    state = new_game(["suns", "moons"])
    lines = [
        json.dumps(record_header(state)),
        json.dumps({"action": "place c4 suns north"}),
        json.dumps({"note": "observations are skipped"}),
        json.dumps({"action": "place c4 moons north"}),
    ]
    with pytest.raises(RecordError, match="line 4: c4 is not open") as caught:
        replay(lines)
    assert caught.value.line == 4


HEADER = '{"format": "reflec-record/1", "players": [["suns"], ["moons"]]}'


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([], "empty"),
        (["{"], "line 1: not JSON"),
        (['{"format": "other"}'], "line 1: the first line is not"),
        (['{"format": "reflec-record/1"}'], "names no players"),
        (['{"format": "reflec-record/1", "players": [["suns"], ["suns"]]}'], "one player only"),
        (
            [HEADER[:-1] + ', "options": {"x": 1}}'],
            "unknown option",
        ),
        (['{"format": "reflec-record/1", "players": [["suns"], ["moons"]]}', "[1]"], "line 2"),
        (
            [
                '{"format": "reflec-record/1", "players": [["suns"], ["moons"]]}',
                '{"action": "hop"}',
            ],
            "line 2: unknown action",
        ),
    ],
)
def test_malformed_records_are_refused(lines, message):
    with pytest.raises(RecordError, match=message):
        replay(lines)
