"""Reflec, the Piecepack laser-and-mirror game (seed 001), as a pure rules engine.

In the manner of python-chess: immutable values, pure functions.

>>> from piecebridge.rules import reflec
>>> state = reflec.new_game(["suns", "moons", "crowns"])
>>> state, events = reflec.apply(state, reflec.parse_action("place d4 suns east"))
>>> len(reflec.legal_actions(state)) > 0
True

Modules: :mod:`.core` (cells, suits, board), :mod:`.beam` (the laser),
:mod:`.actions` (actions and their notation), :mod:`.game` (rules),
:mod:`.record` (JSON state, JSONL records), :mod:`.explain` (what happened
between two observed boards).
"""

from piecebridge.rules.reflec.actions import (
    Action,
    Drop,
    EndTurn,
    Fire,
    MoveCoin,
    MoveLaser,
    NotationError,
    Place,
    Spin,
    Swap,
    parse_action,
)
from piecebridge.rules.reflec.beam import Beam, trace
from piecebridge.rules.reflec.core import (
    CELL_NAMES,
    DIRECTIONS,
    SUITS,
    Board,
    BoardError,
    Coin,
    Direction,
    Pawn,
    ReflecError,
    Suit,
    cell_name,
    parse_cell,
    render_text,
)
from piecebridge.rules.reflec.game import (
    CoinsRemoved,
    Event,
    Fired,
    GameOver,
    GameState,
    IllegalAction,
    LaserDestroyed,
    Options,
    PlayerEliminated,
    TurnStarted,
    apply,
    check,
    legal_actions,
    new_game,
    roll_turn_order,
)
from piecebridge.rules.reflec.record import (
    RecordError,
    game_from_header,
    record_header,
    replay,
    state_from_json,
    state_to_json,
)

__all__ = [
    "CELL_NAMES",
    "DIRECTIONS",
    "SUITS",
    "Action",
    "Beam",
    "Board",
    "BoardError",
    "Coin",
    "CoinsRemoved",
    "Direction",
    "Drop",
    "EndTurn",
    "Event",
    "Fire",
    "Fired",
    "GameOver",
    "GameState",
    "IllegalAction",
    "LaserDestroyed",
    "MoveCoin",
    "MoveLaser",
    "NotationError",
    "Options",
    "Pawn",
    "Place",
    "PlayerEliminated",
    "RecordError",
    "ReflecError",
    "Spin",
    "Suit",
    "Swap",
    "TurnStarted",
    "apply",
    "cell_name",
    "check",
    "game_from_header",
    "legal_actions",
    "new_game",
    "parse_action",
    "parse_cell",
    "record_header",
    "render_text",
    "replay",
    "roll_turn_order",
    "state_from_json",
    "state_to_json",
    "trace",
]
