"""The Reflec game: setup, turn flow, action legality and effects.

The state is immutable; :func:`apply` returns a new state and the events that
happened. Rulings on unclear sentences are in ``rules/RULINGS.md``; those players
could disagree on are :class:`Options`.

>>> state = new_game(["suns", "moons", "crowns", "arms"])
>>> state.phase, state.current_suits
('drop', (<Suit.SUNS: 'suns'>,))
>>> state, events = apply(state, parse_action("place c4 suns north"))
>>> state.current_suits
(<Suit.MOONS: 'moons'>,)
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from piecebridge.rules.reflec.actions import (
    Action,
    Drop,
    EndTurn,
    Fire,
    MoveCoin,
    MoveLaser,
    Place,
    Spin,
    Swap,
    parse_action,
)
from piecebridge.rules.reflec.beam import Beam, trace
from piecebridge.rules.reflec.core import (
    CELL_NAMES,
    CELLS,
    COINS_PER_SUIT,
    DIRECTIONS,
    NEIGHBOURS,
    SUITS,
    Board,
    BoardError,
    Coin,
    Direction,
    Pawn,
    ReflecError,
    Suit,
    parse_cell,
)

__all__ = ["apply", "legal_actions", "new_game", "parse_action"]

Phase = Literal["drop", "play", "over"]
T = TypeVar("T")
DIE_MAX = 5
CORNERS_CLOCKWISE = tuple(parse_cell(c) for c in ("a1", "a8", "h8", "h1"))


class IllegalAction(ReflecError):
    """The action breaks a rule; ``str(error)`` says which, for a person."""


@dataclass(frozen=True, slots=True)
class Options:
    """Readings of the rulebook where players could reasonably disagree (see RULINGS.md).

    - ``tile_points``: ``"count"`` — each face-up action tile is one point (3 a turn, 4 with
      the 4 tile up); ``"face_values"`` — tiles are worth their numbers (6, or 10 with the 4).
    - ``two_player_lasers``: in a two-player game each player has 2 suits and 2 lasers, or 1.
    - ``two_player_corners``: with one laser each, ``"opposite"`` or ``"adjacent"`` corners.
    - ``spare_suits``: in a 3-player game the fourth suit's coins are ``"unused"`` or dropped
      as ``"neutral"`` coins during the Drop round.
    - ``neutral_lock``: a neutral coin moved by another player is locked for ``"previous_turn"``
      (the turn just before yours) or for every turn ``"since_your_last_turn"``.
    - ``own_swaps_undoable``: whether you may undo a swap you made earlier in the same turn.
    """

    tile_points: Literal["count", "face_values"] = "count"
    two_player_lasers: Literal[1, 2] = 2
    two_player_corners: Literal["opposite", "adjacent"] = "opposite"
    spare_suits: Literal["unused", "neutral"] = "unused"
    neutral_lock: Literal["previous_turn", "since_your_last_turn"] = "previous_turn"
    own_swaps_undoable: bool = False

    def turn_tile_points(self, with_four_tile: bool) -> int:
        if self.tile_points == "count":
            return 4 if with_four_tile else 3
        return 10 if with_four_tile else 6


@dataclass(frozen=True, slots=True)
class NeutralMove:
    """A neutral coin now on ``cell`` was moved by ``player`` during ``turn``."""

    cell: int
    player: int
    turn: int


@dataclass(frozen=True, slots=True)
class SwapRecord:
    """A swap of ``cells`` that left ``suits`` on them, by ``player`` during ``turn``."""

    cells: tuple[int, int]
    suits: tuple[Suit, Suit]
    player: int
    turn: int


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything that decides what may happen next.

    Players are numbered 0.. in turn order; ``players[i]`` are the suits player i
    controls (two each in the two-player, two-laser game).
    """

    players: tuple[tuple[Suit, ...], ...]
    board: Board
    options: Options = Options()
    phase: Phase = "drop"
    current: int = 0
    alive: tuple[bool, ...] = ()
    dice: tuple[int, ...] = ()
    tile_points: int = 0
    unplaced: tuple[int, ...] = (0, 0, 0, 0)  # per suit, Drop round
    pool: tuple[int, ...] = (0, 0, 0, 0)  # per suit, removed by laser fire
    turn: int = -1  # regular turns begun so far, minus one
    last_turn_of: tuple[int, ...] = ()  # turn number of each player's latest turn, -1: none
    neutral_moves: tuple[NeutralMove, ...] = ()
    swaps: tuple[SwapRecord, ...] = ()
    winner: int | None = None

    # --- derived -----------------------------------------------------------

    @property
    def current_suits(self) -> tuple[Suit, ...]:
        return self.players[self.current]

    @property
    def die(self) -> int:
        return self.dice[self.current]

    @property
    def points_left(self) -> int:
        """Tile points plus banked die points the current player can still spend."""
        return self.tile_points + self.die if self.phase == "play" else 0

    def owner_of(self, suit: Suit) -> int | None:
        """The living player who controls ``suit``; ``None`` if it is neutral."""
        for player, suits in enumerate(self.players):
            if suit in suits and self.alive[player]:
                return player
        return None

    def is_neutral(self, suit: Suit) -> bool:
        return self.owner_of(suit) is None

    def controls(self, suit: Suit) -> bool:
        """Whether the current player may move/spin a coin of ``suit`` (own or neutral)."""
        owner = self.owner_of(suit)
        return owner is None or owner == self.current

    def laser_cells(self, player: int | None = None) -> list[int]:
        suits = self.players[self.current if player is None else player]
        return [cell for cell, pawn in self.board.pawns() if pawn.suit in suits]

    def locked_neutral_cells(self) -> frozenset[int]:
        """Neutral coins the current player may not move (moved by another player lately)."""
        if self.options.neutral_lock == "previous_turn":
            since = self.turn - 1
        else:
            since = self.last_turn_of[self.current] + 1
        return frozenset(
            m.cell
            for m in self.neutral_moves
            if m.player != self.current and m.turn >= since and m.turn < self.turn
        )

    def living_players(self) -> list[int]:
        return [p for p, alive in enumerate(self.alive) if alive]


_STATE_FIELDS: tuple[str, ...] = tuple(GameState.__dataclass_fields__)


def evolve(state: GameState, **changes: object) -> GameState:
    """``dataclasses.replace`` without its per-call introspection (the search hot path)."""
    new = object.__new__(GameState)
    for name in _STATE_FIELDS:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(state, name))
    return new


def new_game(
    players: Sequence[str | Suit | Sequence[str | Suit]], options: Options | None = None
) -> GameState:
    """Set up a game. ``players`` in turn order: a suit each, or a list of suits each.

    In the two-player game with ``two_player_lasers == 2`` a player given one suit
    also takes the next unused suit. Pawns go to the corners clockwise from a1 in
    play order (both players' first lasers, then their second lasers).

    >>> state = new_game(["suns", "moons"])
    >>> state.players
    ((<Suit.SUNS: 'suns'>, <Suit.CROWNS: 'crowns'>), (<Suit.MOONS: 'moons'>, <Suit.ARMS: 'arms'>))
    >>> sorted(CELL_NAMES[c] for c, _ in state.board.pawns())
    ['a1', 'a8', 'h1', 'h8']
    """
    options = options or Options()
    suits = [tuple(_as_suits(p)) for p in players]
    if not 2 <= len(suits) <= 4:
        raise ReflecError(f"Reflec is for 2 to 4 players, not {len(suits)}")
    if len(suits) == 2 and options.two_player_lasers == 2:
        spare = [s for s in SUITS if all(s not in p for p in suits)]
        suits = [p if len(p) == 2 else (*p, spare.pop(0)) for p in suits]
    flat = [s for p in suits for s in p]
    if len(set(flat)) != len(flat):
        raise ReflecError("each suit belongs to one player only")
    if any(
        len(p) != (2 if len(suits) == 2 and options.two_player_lasers == 2 else 1) for p in suits
    ):
        raise ReflecError("each player has one suit (two in the two-player, two-laser game)")

    corners = list(CORNERS_CLOCKWISE)
    if (
        len(suits) == 2
        and options.two_player_lasers == 1
        and options.two_player_corners == "opposite"
    ):
        corners = [corners[0], corners[2]]
    laser_order = [p[i] for i in range(len(suits[0])) for p in suits]
    board = Board.from_pieces({corners[i]: Pawn(s) for i, s in enumerate(laser_order)})

    unplaced = [COINS_PER_SUIT if s in flat else 0 for s in SUITS]
    if len(suits) == 3 and options.spare_suits == "neutral":
        unplaced = [COINS_PER_SUIT] * 4
    n = len(suits)
    return GameState(
        players=tuple(suits),
        board=board,
        options=options,
        alive=(True,) * n,
        dice=(2,) * n,
        unplaced=tuple(unplaced),
        last_turn_of=(-1,) * n,
    )


def roll_turn_order(players: Sequence[T], rng: random.Random) -> list[T]:
    """Players in turn order by a roll of a six-sided die each, highest first;
    "Re-roll until ties are broken" among the tied players only.

    >>> roll_turn_order(["suns", "moons", "crowns"], random.Random(4))
    ['moons', 'suns', 'crowns']
    """
    if len(players) <= 1:
        return list(players)
    rolls: dict[int, list[T]] = {}
    for player in players:
        rolls.setdefault(rng.randint(1, 6), []).append(player)
    order: list[T] = []
    for value in sorted(rolls, reverse=True):
        tied = rolls[value]
        order += tied if len(tied) == 1 else roll_turn_order(tied, rng)
    return order


def _as_suits(player: str | Suit | Sequence[str | Suit]) -> list[Suit]:
    if isinstance(player, Suit):
        return [player]
    if isinstance(player, str):
        try:
            return [Suit.parse(player)]
        except BoardError as error:
            raise ReflecError(str(error)) from None
    return [s if isinstance(s, Suit) else Suit.parse(s) for s in player]


# --- events -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fired:
    suit: Suit  # the firing laser
    source: int
    direction: Direction
    beam: Beam


@dataclass(frozen=True, slots=True)
class CoinsRemoved:
    cells: tuple[int, ...]
    suits: tuple[Suit, ...]


@dataclass(frozen=True, slots=True)
class LaserDestroyed:
    cell: int
    suit: Suit


@dataclass(frozen=True, slots=True)
class PlayerEliminated:
    player: int
    suits: tuple[Suit, ...]  # now neutral


@dataclass(frozen=True, slots=True)
class TurnStarted:
    player: int
    die: int
    tile_points: int


@dataclass(frozen=True, slots=True)
class GameOver:
    winner: int


Event = Fired | CoinsRemoved | LaserDestroyed | PlayerEliminated | TurnStarted | GameOver


# --- legality -------------------------------------------------------------------


def check(state: GameState, action: Action) -> None:
    """Raise :class:`IllegalAction` with a reason if ``action`` is not legal now."""
    if state.phase == "over":
        raise IllegalAction("the game is over")
    if state.phase == "drop":
        if not isinstance(action, Place):
            raise IllegalAction(f"it is the Drop round: place a coin, not {action}")
        _check_place(state, action)
        return
    if isinstance(action, Place):
        raise IllegalAction("the Drop round is over: use 'drop' to return a removed coin")
    if isinstance(action, EndTurn):
        _check_end(state)
        return
    if action.cost > state.points_left:
        raise IllegalAction(_unaffordable(state, action))
    _CHECKS[type(action)](state, action)


def _unaffordable(state: GameState, action: Action) -> str:
    if state.tile_points == 0 and state.die == 0:
        return "the die is on null and the tiles are spent: no action point left to spend"
    return (
        f"{action} costs {action.cost} action points but only {state.points_left} are left "
        f"({state.tile_points} on the tiles, {state.die} on the die)"
    )


def _check_place(state: GameState, action: Place) -> None:
    if not state.board.is_open(action.cell):
        raise IllegalAction(f"{CELL_NAMES[action.cell]} is not open")
    if state.unplaced[_SUIT_INDEX[action.suit]] == 0:
        raise IllegalAction(f"no {action.suit.value} coin is left to place")
    if action.suit not in state.current_suits and not state.is_neutral(action.suit):
        raise IllegalAction(f"{action.suit.value} coins are not yours to place")


def _check_end(state: GameState) -> None:
    if state.tile_points == 0:
        return
    if any(not isinstance(a, EndTurn) for a in legal_actions(state)):
        raise IllegalAction(
            f"{state.tile_points} tile point{'s' if state.tile_points > 1 else ''} still unspent: "
            "all the tile points must be used"
        )


def _coin_you_control(state: GameState, cell: int, verb: str) -> Coin:
    piece = state.board.squares[cell]
    if type(piece) is not Coin:
        raise IllegalAction(f"there is no coin on {CELL_NAMES[cell]} to {verb}")
    if not state.controls(piece.suit):
        raise IllegalAction(
            f"the {piece.suit.value} coin on {CELL_NAMES[cell]} belongs to another player"
        )
    return piece


def _check_step(state: GameState, source: int, target: int, what: str) -> None:
    if target not in NEIGHBOURS[source]:
        raise IllegalAction(
            f"{CELL_NAMES[target]} is not next to {CELL_NAMES[source]}: {what} move one cell "
            "north, east, south or west"
        )
    if not state.board.is_open(target):
        raise IllegalAction(f"{CELL_NAMES[target]} is not open")


def _check_move_coin(state: GameState, action: MoveCoin) -> None:
    coin = _coin_you_control(state, action.source, "move")
    if state.is_neutral(coin.suit) and action.source in state.locked_neutral_cells():
        raise IllegalAction(
            f"the neutral coin on {CELL_NAMES[action.source]} was moved by another player last turn"
        )
    _check_step(state, action.source, action.target, "coins")


def _check_move_laser(state: GameState, action: MoveLaser) -> None:
    piece = state.board.squares[action.source]
    if type(piece) is not Pawn or piece.suit not in state.current_suits:
        raise IllegalAction(f"your laser is not on {CELL_NAMES[action.source]}")
    _check_step(state, action.source, action.target, "lasers")


def _check_spin(state: GameState, action: Spin) -> None:
    coin = _coin_you_control(state, action.cell, "spin")
    if coin.facing is action.facing:
        raise IllegalAction(
            f"the coin on {CELL_NAMES[action.cell]} already faces {action.facing.value}: "
            "a spin must turn it"
        )


def _check_drop(state: GameState, action: Drop) -> None:
    if state.pool[_SUIT_INDEX[action.suit]] == 0:
        raise IllegalAction(f"no {action.suit.value} coin has been removed by laser fire")
    if not state.controls(action.suit):
        raise IllegalAction(f"{action.suit.value} coins belong to another player")
    if not state.board.is_open(action.cell):
        raise IllegalAction(f"{CELL_NAMES[action.cell]} is not open")


def _check_swap(state: GameState, action: Swap) -> None:
    a, b = action.first, action.second
    coin_a, coin_b = state.board.squares[a], state.board.squares[b]
    for cell, coin in ((a, coin_a), (b, coin_b)):
        if type(coin) is not Coin:
            raise IllegalAction(f"there is no coin on {CELL_NAMES[cell]} to swap")
    assert isinstance(coin_a, Coin) and isinstance(coin_b, Coin)
    if b not in NEIGHBOURS[a]:
        raise IllegalAction(f"{CELL_NAMES[a]} and {CELL_NAMES[b]} are not adjacent")
    if coin_a.suit is coin_b.suit:
        raise IllegalAction("both coins are of one suit: swapping them changes nothing")
    kinds = {_control_kind(state, coin_a.suit), _control_kind(state, coin_b.suit)}
    if kinds == {"own"}:
        raise IllegalAction("both coins are yours: a swap needs another player's or a neutral coin")
    if "other" in kinds and len(kinds) == 1:
        raise IllegalAction("neither coin is yours or neutral")
    for record in _undoable_swaps(state):
        if record.cells == (a, b) and record.suits == (coin_a.suit, coin_b.suit):
            raise IllegalAction(
                f"swapping {CELL_NAMES[a]} and {CELL_NAMES[b]} would undo a swap made since "
                "you last took a turn"
            )


def _control_kind(state: GameState, suit: Suit) -> str:
    owner = state.owner_of(suit)
    return "neutral" if owner is None else ("own" if owner == state.current else "other")


def _undoable_swaps(state: GameState) -> Iterator[SwapRecord]:
    since = state.last_turn_of[state.current]
    for record in state.swaps:
        if record.turn <= since:
            continue
        if state.options.own_swaps_undoable and record.player == state.current:
            continue
        yield record


def _check_fire(state: GameState, action: Fire) -> None:
    _laser_for(state, action)


def _laser_for(state: GameState, action: Fire) -> int:
    lasers = state.laser_cells()
    if action.pawn is None:
        if len(lasers) != 1:
            raise IllegalAction("you have two lasers: name the one to fire (fire a1 north)")
        return lasers[0]
    if action.pawn not in lasers:
        raise IllegalAction(f"your laser is not on {CELL_NAMES[action.pawn]}")
    return action.pawn


_CHECKS = {
    MoveCoin: _check_move_coin,
    MoveLaser: _check_move_laser,
    Spin: _check_spin,
    Drop: _check_drop,
    Swap: _check_swap,
    Fire: _check_fire,
}
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}


# --- legal actions -------------------------------------------------------------------


def legal_actions(state: GameState) -> list[Action]:
    """Every legal action now, ``EndTurn`` included when the turn may end."""
    if state.phase == "over":
        return []
    if state.phase == "drop":
        return list(_placements(state))
    actions = [a for a in _candidate_actions(state) if a.cost <= state.points_left]
    if state.tile_points == 0 or not actions:
        actions.append(EndTurn())
    return actions


def _placements(state: GameState) -> Iterator[Place]:
    open_cells = [c for c in CELLS if state.board.squares[c] is None]
    for suit in SUITS:
        if state.unplaced[_SUIT_INDEX[suit]] and (
            suit in state.current_suits or state.is_neutral(suit)
        ):
            for cell in open_cells:
                for facing in DIRECTIONS:
                    yield Place(cell, suit, facing)


def _candidate_actions(state: GameState) -> Iterator[Action]:
    """Play-phase actions that pass every rule but the action-point budget."""
    squares = state.board.squares
    locked = state.locked_neutral_cells()
    for cell, coin in state.board.coins():
        if not state.controls(coin.suit):
            continue
        for facing in DIRECTIONS:
            if facing is not coin.facing:
                yield Spin(cell, facing)
        if not (cell in locked and state.is_neutral(coin.suit)):
            for target in NEIGHBOURS[cell]:
                if squares[target] is None:
                    for facing in DIRECTIONS:
                        yield MoveCoin(cell, target, facing)
        for other in NEIGHBOURS[cell]:
            if other > cell or not _controllable(state, squares[other]):
                swap = Swap(cell, other)
                if type(squares[other]) is Coin and _is_legal(state, swap):
                    yield swap
    lasers = state.laser_cells()
    for cell in lasers:
        for target in NEIGHBOURS[cell]:
            if squares[target] is None:
                yield MoveLaser(cell, target)
        for direction in DIRECTIONS:
            yield Fire(direction, None if len(lasers) == 1 else cell)
    for suit in SUITS:
        if state.pool[_SUIT_INDEX[suit]] and state.controls(suit):
            for cell in CELLS:
                if squares[cell] is None:
                    for facing in DIRECTIONS:
                        yield Drop(cell, suit, facing)


def _controllable(state: GameState, piece: object) -> bool:
    return type(piece) is Coin and state.controls(piece.suit)


def _is_legal(state: GameState, action: Action) -> bool:
    try:
        _CHECKS[type(action)](state, action)
    except IllegalAction:
        return False
    return True


# --- effects ------------------------------------------------------------------------


def apply(state: GameState, action: Action) -> tuple[GameState, tuple[Event, ...]]:
    """Check ``action`` and return the state after it with the events it caused.

    Raises :class:`IllegalAction` (the state is unchanged) if it is not legal.
    """
    check(state, action)
    events: list[Event] = []
    if isinstance(action, Place):
        state = _do_place(state, action, events)
    elif isinstance(action, EndTurn):
        state = _start_next_turn(state, events)
    else:
        state = _spend(state, action.cost)
        state = _EFFECTS[type(action)](state, action, events)
    return state, tuple(events)


def _spend(state: GameState, cost: int) -> GameState:
    """Spend from the tiles first: tile points must be used anyway, the die need not."""
    from_tiles = min(cost, state.tile_points)
    dice = list(state.dice)
    dice[state.current] -= cost - from_tiles
    return evolve(state, tile_points=state.tile_points - from_tiles, dice=tuple(dice))


def _do_place(state: GameState, action: Place, events: list[Event]) -> GameState:
    unplaced = list(state.unplaced)
    unplaced[_SUIT_INDEX[action.suit]] -= 1
    board = state.board.with_pieces({action.cell: Coin(action.suit, action.facing)})
    state = evolve(state, board=board, unplaced=tuple(unplaced))
    if not any(unplaced):
        state = evolve(state, phase="play", current=len(state.players) - 1)
        return _start_next_turn(state, events)
    for offset in range(1, len(state.players) + 1):
        player = (state.current + offset) % len(state.players)
        if _has_coin_to_place(state, player):
            return evolve(state, current=player)
    raise AssertionError("coins left to place but nobody can place them")


def _has_coin_to_place(state: GameState, player: int) -> bool:
    return any(
        n and (suit in state.players[player] or state.is_neutral(suit))
        for suit, n in zip(SUITS, state.unplaced, strict=True)
    )


def _start_next_turn(state: GameState, events: list[Event]) -> GameState:
    n = len(state.players)
    player = next(
        (state.current + k) % n for k in range(1, n + 1) if state.alive[(state.current + k) % n]
    )
    turn = state.turn + 1
    dice = list(state.dice)
    four_tile = dice[player] == DIE_MAX
    if not four_tile:
        dice[player] += 1
    last_turn_of = list(state.last_turn_of)
    if 0 <= state.current < n and state.phase == "play" and state.turn >= 0:
        last_turn_of[state.current] = state.turn
    keep_from = turn - n  # older records can no longer lock or forbid anything
    state = evolve(
        state,
        current=player,
        turn=turn,
        dice=tuple(dice),
        tile_points=state.options.turn_tile_points(four_tile),
        last_turn_of=tuple(last_turn_of),
        neutral_moves=tuple(m for m in state.neutral_moves if m.turn >= keep_from),
        swaps=tuple(s for s in state.swaps if s.turn >= keep_from),
    )
    events.append(TurnStarted(player, dice[player], state.tile_points))
    return state


def _do_move_coin(state: GameState, action: MoveCoin, events: list[Event]) -> GameState:
    coin = state.board.squares[action.source]
    assert isinstance(coin, Coin)
    board = state.board.with_pieces(
        {action.source: None, action.target: Coin(coin.suit, action.facing)}
    )
    moves = tuple(m for m in state.neutral_moves if m.cell != action.source)
    if state.is_neutral(coin.suit):
        moves += (NeutralMove(action.target, state.current, state.turn),)
    return evolve(state, board=board, neutral_moves=moves)


def _do_move_laser(state: GameState, action: MoveLaser, events: list[Event]) -> GameState:
    pawn = state.board.squares[action.source]
    board = state.board.with_pieces({action.source: None, action.target: pawn})
    return evolve(state, board=board)


def _do_spin(state: GameState, action: Spin, events: list[Event]) -> GameState:
    coin = state.board.squares[action.cell]
    assert isinstance(coin, Coin)
    return evolve(
        state, board=state.board.with_pieces({action.cell: Coin(coin.suit, action.facing)})
    )


def _do_drop(state: GameState, action: Drop, events: list[Event]) -> GameState:
    pool = list(state.pool)
    pool[_SUIT_INDEX[action.suit]] -= 1
    board = state.board.with_pieces({action.cell: Coin(action.suit, action.facing)})
    return evolve(state, board=board, pool=tuple(pool))


def _do_swap(state: GameState, action: Swap, events: list[Event]) -> GameState:
    a, b = action.first, action.second
    coin_a, coin_b = state.board.squares[a], state.board.squares[b]
    assert isinstance(coin_a, Coin) and isinstance(coin_b, Coin)
    board = state.board.with_pieces(
        {a: Coin(coin_b.suit, coin_a.facing), b: Coin(coin_a.suit, coin_b.facing)}
    )
    moved = {a: b, b: a}  # a tracked neutral coin travels with the swap
    moves = tuple(
        NeutralMove(moved.get(m.cell, m.cell), m.player, m.turn) for m in state.neutral_moves
    )
    record = SwapRecord((a, b), (coin_b.suit, coin_a.suit), state.current, state.turn)
    return evolve(state, board=board, neutral_moves=moves, swaps=(*state.swaps, record))


def _do_fire(state: GameState, action: Fire, events: list[Event]) -> GameState:
    source = _laser_for(state, action)
    shooter = state.board.squares[source]
    assert isinstance(shooter, Pawn)
    beam = trace(state.board, source, action.direction)
    events.append(Fired(shooter.suit, source, action.direction, beam))
    if beam.end == "loop":
        return _remove_loop(state, beam.removed, events)
    if beam.end == "pawn":
        assert beam.hit_cell is not None
        return _destroy_laser(state, beam.hit_cell, events)
    return state


def _remove_loop(state: GameState, cells: tuple[int, ...], events: list[Event]) -> GameState:
    pool = list(state.pool)
    suits = []
    for cell in cells:
        coin = state.board.squares[cell]
        assert isinstance(coin, Coin)
        pool[_SUIT_INDEX[coin.suit]] += 1
        suits.append(coin.suit)
    events.append(CoinsRemoved(cells, tuple(suits)))
    board = state.board.with_pieces(dict.fromkeys(cells))
    gone = set(cells)
    return evolve(
        state,
        board=board,
        pool=tuple(pool),
        neutral_moves=tuple(m for m in state.neutral_moves if m.cell not in gone),
    )


def _destroy_laser(state: GameState, cell: int, events: list[Event]) -> GameState:
    pawn = state.board.squares[cell]
    assert isinstance(pawn, Pawn)
    events.append(LaserDestroyed(cell, pawn.suit))
    state = evolve(state, board=state.board.with_pieces({cell: None}))
    victim = next(p for p, suits in enumerate(state.players) if pawn.suit in suits)
    if state.laser_cells(victim):
        return state  # two-player game: the second laser fights on, nothing turns neutral
    alive = list(state.alive)
    alive[victim] = False
    state = evolve(state, alive=tuple(alive))
    events.append(PlayerEliminated(victim, state.players[victim]))
    living = state.living_players()
    if len(living) == 1:
        events.append(GameOver(living[0]))
        return evolve(state, phase="over", winner=living[0], tile_points=0)
    if victim == state.current:
        return _start_next_turn(state, events)  # a player who shot himself is out at once
    return state


_EFFECTS = {
    MoveCoin: _do_move_coin,
    MoveLaser: _do_move_laser,
    Spin: _do_spin,
    Drop: _do_drop,
    Swap: _do_swap,
    Fire: _do_fire,
}
