"""Game states as JSON and games as JSONL records.

A record is one JSON object per line. The first line is the header::

    {"format": "reflec-record/1", "players": [["suns"], ["moons"]], "options": {...}}

Every later line with an ``"action"`` key holds one action in text notation
(``{"action": "move c4 d4 east"}``); other keys and other lines (a referee's
observations, timestamps) are kept for people and skipped by the replay.
Replaying a record always gives the same states: the engine has no randomness.

>>> lines = [record_header(new_game(["suns", "moons"])), {"action": "place c4 suns north"}]
>>> final = replay([json.dumps(line) for line in lines])[-1]
>>> final.board.to_json()["coins"]
[{'cell': 'c4', 'suit': 'suns', 'facing': 'north'}]
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any, get_args, get_type_hints

from piecebridge.rules import not_json
from piecebridge.rules.reflec.actions import NotationError, parse_action
from piecebridge.rules.reflec.core import (
    CELL_NAMES,
    SUITS,
    Board,
    ReflecError,
    Suit,
    parse_cell,
)
from piecebridge.rules.reflec.game import (
    GameState,
    IllegalAction,
    NeutralMove,
    Options,
    SwapRecord,
    apply,
    new_game,
)

STATE_FORMAT = "reflec-state/1"
RECORD_FORMAT = "reflec-record/1"


class RecordError(ReflecError):
    """A record or state file is malformed, or an action in it is illegal.

    ``line`` is the 1-based line number in the record (``None`` for a state).
    """

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line
        self.reason = message


# --- options ---------------------------------------------------------------------


def options_to_json(options: Options) -> dict[str, Any]:
    return dataclasses.asdict(options)


def options_from_json(data: Any) -> Options:
    if not isinstance(data, Mapping):
        raise RecordError("options must be a JSON object")
    hints = get_type_hints(Options)
    values = {}
    for key, value in data.items():
        if key not in hints:
            raise RecordError(f"unknown option {key!r} (known: {', '.join(hints)})")
        allowed = [True, False] if hints[key] is bool else list(get_args(hints[key]))
        if value not in allowed:
            raise RecordError(f"option {key!r} must be one of {allowed}, not {value!r}")
        values[key] = value
    return Options(**values)


# --- state -------------------------------------------------------------------------


def state_to_json(state: GameState) -> dict[str, Any]:
    """The full state as a JSON-ready object (format ``reflec-state/1``)."""
    return {
        "format": STATE_FORMAT,
        "players": [[s.value for s in suits] for suits in state.players],
        "options": options_to_json(state.options),
        "board": state.board.to_json(),
        "phase": state.phase,
        "current": state.current,
        "alive": list(state.alive),
        "dice": list(state.dice),
        "tile_points": state.tile_points,
        "unplaced": _per_suit(state.unplaced),
        "pool": _per_suit(state.pool),
        "turn": state.turn,
        "last_turn_of": list(state.last_turn_of),
        "neutral_moves": [
            {"cell": CELL_NAMES[m.cell], "player": m.player, "turn": m.turn}
            for m in state.neutral_moves
        ],
        "swaps": [
            {
                "cells": [CELL_NAMES[c] for c in s.cells],
                "suits": [x.value for x in s.suits],
                "player": s.player,
                "turn": s.turn,
            }
            for s in state.swaps
        ],
        "winner": state.winner,
    }


def state_from_json(data: Any) -> GameState:
    """Parse a ``reflec-state/1`` object; raises :class:`RecordError` naming the bad key."""
    if not isinstance(data, Mapping) or data.get("format") != STATE_FORMAT:
        raise RecordError(f"not a {STATE_FORMAT} object")
    try:
        players = tuple(tuple(Suit.parse(s) for s in p) for p in data["players"])
        return GameState(
            players=players,
            board=Board.from_json(data["board"]),
            options=options_from_json(data.get("options", {})),
            phase=_one_of(data["phase"], ("drop", "play", "over"), "phase"),
            current=int(data["current"]),
            alive=tuple(bool(a) for a in data["alive"]),
            dice=tuple(int(d) for d in data["dice"]),
            tile_points=int(data["tile_points"]),
            unplaced=_suit_counts(data["unplaced"]),
            pool=_suit_counts(data["pool"]),
            turn=int(data["turn"]),
            last_turn_of=tuple(int(t) for t in data["last_turn_of"]),
            neutral_moves=tuple(
                NeutralMove(parse_cell(m["cell"]), int(m["player"]), int(m["turn"]))
                for m in data["neutral_moves"]
            ),
            swaps=tuple(
                SwapRecord(
                    (parse_cell(s["cells"][0]), parse_cell(s["cells"][1])),
                    (Suit.parse(s["suits"][0]), Suit.parse(s["suits"][1])),
                    int(s["player"]),
                    int(s["turn"]),
                )
                for s in data["swaps"]
            ),
            winner=None if data.get("winner") is None else int(data["winner"]),
        )
    except KeyError as error:
        raise RecordError(f"state has no {error.args[0]!r}") from None
    except (TypeError, ValueError, IndexError) as error:
        if isinstance(error, ReflecError):
            raise
        raise RecordError(f"malformed state: {error}") from None


def _per_suit(counts: tuple[int, ...]) -> dict[str, int]:
    return {s.value: n for s, n in zip(SUITS, counts, strict=True)}


def _suit_counts(data: Mapping[str, int]) -> tuple[int, ...]:
    return tuple(int(data.get(s.value, 0)) for s in SUITS)


def _one_of(value: Any, allowed: tuple[str, ...], key: str) -> Any:
    if value not in allowed:
        raise RecordError(f"{key} must be one of {allowed}, not {value!r}")
    return value


# --- records ----------------------------------------------------------------------


def record_header(state: GameState) -> dict[str, Any]:
    """The first line of a record for a game that starts as ``state`` (a new game)."""
    return {
        "format": RECORD_FORMAT,
        "players": [[s.value for s in suits] for suits in state.players],
        "options": options_to_json(state.options),
    }


def game_from_header(header: Any) -> GameState:
    if not isinstance(header, Mapping) or header.get("format") != RECORD_FORMAT:
        raise RecordError(f"the first line is not a {RECORD_FORMAT} header", line=1)
    try:
        return new_game(header["players"], options_from_json(header.get("options", {})))
    except KeyError:
        raise RecordError("the header names no players", line=1) from None
    except ReflecError as error:
        raise RecordError(str(error), line=1) from None


def replay(lines: Iterable[str]) -> list[GameState]:
    """Every state of a record, the new game first; raises :class:`RecordError` at the
    first line that does not parse or whose action is illegal.
    """
    states: list[GameState] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(not_json(error), line=number) from None
        if not states:
            states.append(game_from_header(item))
            continue
        if not isinstance(item, Mapping):
            raise RecordError("each line must be a JSON object", line=number)
        if "action" not in item:
            continue
        try:
            action = parse_action(str(item["action"]))
            state, _ = apply(states[-1], action)
        except (NotationError, IllegalAction) as error:
            raise RecordError(str(error), line=number) from None
        states.append(state)
    if not states:
        raise RecordError("the record is empty")
    return states
