"""The Business Card Games by name, and JSONL game records that replay.

Every game module (``rotator``, ``reflector``, ``deflector``, ``defector``) offers the
same functions: ``new_game(players=, layout=, seed=, options=)``,
``legal_actions(state)``, ``apply(state, action) -> (state, events)``,
``parse_action(state, text)``, ``action_text(state, action)``, ``to_json``,
``from_json``, ``view(state, player)``, ``winners(state)`` and ``render``; plus
``GAME``, ``PLAYERS``, ``LAYOUTS`` and an options dataclass ``<Game>Options``.
A new game plugs in by adding its module path to :data:`GAMES`.

A record is one JSON object a line. The header names the game, its options and
seed and carries the starting state; each following line is one action::

    {"format": "bcg-record/1", "game": "reflector", "seed": 7, "players": 2,
     "layout": "standard", "options": {...}, "start": {...state...}}
    {"action": "E1", "player": 0}

>>> from piecebridge.rules.bcg import reflector
>>> s = reflector.new_game(seed=7)
>>> lines = record_lines(s, ["E1", "B1"], seed=7)
>>> replay(lines)[0].ply
2
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from piecebridge.rules import not_json
from piecebridge.rules.bcg.common import BcgError, options_from_json
from piecebridge.rules.bcg.table import TableState, acting_player

GAMES: dict[str, str] = {
    "rotator": "piecebridge.rules.bcg.rotator",
    "reflector": "piecebridge.rules.bcg.reflector",
    "deflector": "piecebridge.rules.bcg.deflector",
    "defector": "piecebridge.rules.bcg.defector",
}


class RecordError(BcgError):
    """A record that does not replay: ``line`` (1-based) and ``reason``."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def game_module(name: str) -> ModuleType:
    """The engine module of game ``name`` (case-insensitive)."""
    key = str(name).strip().lower()
    if key not in GAMES:
        raise BcgError(f"unknown game {name!r}: choose one of {', '.join(GAMES)}")
    try:
        return importlib.import_module(GAMES[key])
    except ModuleNotFoundError:
        raise BcgError(f"the {key} engine is not available in this build") from None


def options_class(module: ModuleType) -> type:
    return getattr(module, f"{module.GAME.capitalize()}Options")


def make_options(module: ModuleType, values: dict[str, Any] | None) -> Any:
    try:
        return options_from_json(options_class(module), values)
    except TypeError as error:
        raise BcgError(f"bad option: {error}") from None


def state_game(data: Any) -> ModuleType:
    """The module for a state (or record header) JSON object."""
    if not isinstance(data, dict) or "game" not in data:
        raise BcgError('not a Business Card Games state: no "game" member')
    return game_module(data["game"])


def record_lines(start: Any, actions: Iterable[Any], *, seed: int | None = None) -> list[str]:
    """A JSONL record of ``actions`` (objects or notation) played from ``start``."""
    module = module_of(start)
    start_json = module.to_json(start)
    header = {
        "format": "bcg-record/1",
        "game": module.GAME,
        "seed": seed,
        "players": start_json.get("players"),
        "layout": start_json.get("layout"),
        "options": start_json.get("options"),
        "start": start_json,
    }
    lines = [json.dumps(header, sort_keys=True)]
    state = start
    for action in actions:
        if isinstance(action, str):
            action = module.parse_action(state, action)
        item: dict[str, Any] = {"action": module.action_text(state, action)}
        if hasattr(state, "to_move"):
            item["player"] = acting(state)
        lines.append(json.dumps(item))
        state, _ = module.apply(state, action)
    return lines


def acting(state: Any) -> int:
    """The player who must act: the player to move, or in *Defector* the partner
    answering an alliance proposal."""
    if isinstance(state, TableState):
        return acting_player(state)
    return state.to_move


def module_of(state: Any) -> ModuleType:
    """The engine module a state object belongs to."""
    game = getattr(state, "game", None)
    if isinstance(game, str):
        return game_module(game)
    name = type(state).__name__
    if name.endswith("State") and name[: -len("State")].lower() in GAMES:
        return game_module(name[: -len("State")].lower())
    raise BcgError(f"not a Business Card Games state: {name}")


def start_from_header(header: dict[str, Any]) -> tuple[ModuleType, Any]:
    module = state_game(header)
    if "start" in header and header["start"] is not None:
        return module, module.from_json(header["start"])
    if "seed" not in header:
        raise BcgError('the header needs "start" (a state) or "seed"')
    options = make_options(module, header.get("options"))
    kwargs: dict[str, Any] = {"seed": header["seed"], "options": options}
    if header.get("players") is not None:
        kwargs["players"] = int(header["players"])
    if header.get("layout") is not None:
        kwargs["layout"] = header["layout"]
    return module, module.new_game(**kwargs)


def replay(lines: Iterable[str]) -> tuple[Any, int]:
    """Re-run a record; returns the final state and the number of actions.

    Raises :class:`RecordError` naming the first bad line and why.
    """
    module = state = None
    count = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(number, not_json(error)) from None
        try:
            if module is None:
                if not isinstance(item, dict):
                    raise BcgError("the first line must be the header object")
                module, state = start_from_header(item)
                continue
            if not isinstance(item, dict) or not isinstance(item.get("action"), str):
                raise BcgError('an action line is {"action": "..."}')
            who = item.get("player")
            if who is not None and hasattr(state, "to_move") and who != acting(state):
                raise BcgError(f"it is player {acting(state)}'s turn, not player {who}'s")
            action = module.parse_action(state, item["action"])
            state, _ = module.apply(state, action)
            count += 1
        except RecordError:
            raise
        except BcgError as error:
            raise RecordError(number, str(error)) from None
    if module is None:
        raise RecordError(1, "empty record: no header line")
    return state, count
