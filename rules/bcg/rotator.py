"""*Rotator*, the one-player Business Card Game: drill through a tumbling world.

The board is ten columns by twenty rows (both grids of the card, see
:mod:`.rotator_maps`). Rock is the shaded diamonds of ten Control Nodes. You
start on the top row, "down" is always towards you, and the board turns 90°
clockwise after every turn. Each space you touch collapses into rock three
turns later; be inside it then and you lose. Reach Row 10 of the other grid
and you win.

A turn is the rulebook's four steps: **1 Fall** (through open spaces down to
the ground), **2 Collapse** (age the marks; spaces touched three turns ago turn
to rock), **3 Drill** (0 to 3 solid spaces straight down, the 2nd and 3rd paid
from a game budget of 10 Boost Spaces; drilling into a Control Node clears its
rock and lets the next turn start from any space it covers) and **4 Rotate**.
The engine runs the steps itself and stops where the player decides. Actions
in text notation (case-insensitive):

* ``start 1:F10`` -- the first move: a square on the top row, i.e. Row 10 of
  either grid (choosing the grid is choosing which short side faces you);
* ``drill N`` (``N`` = 1, 2 or 3) or ``skip`` (= ``drill 0``) -- Step 3;
* ``from 2:E5`` -- after a Node capture, the space the next turn starts from.

In the manner of python-chess:

>>> state = new_game(layout="pinwheel")
>>> state, events = apply(state, parse_action(state, "start 1:F10"))
>>> [action_text(state, a) for a in legal_actions(state)]
['skip', 'drill 1', 'drill 2', 'drill 3']
>>> state, events = apply(state, parse_action(state, "drill 1"))
>>> state.turn, state.down, [e.text() for e in events]
(2, 'east', ['drill player=0 1:F8 boost=0', 'rotate player=0 east', 'fall player=0 1:E8'])
>>> state, events = apply(state, "skip")
>>> state.down, cell_name(state.position), legal_actions(state)
('north', '1:E10', [Action(kind='drill', cell=None, depth=0)])
>>> try:
...     apply(state, "drill 1")
... except IllegalAction as error:
...     print(error)
space 1 of the drill is off the board (north of 1:E10)

Pure Python, no I/O. :func:`to_json` / :func:`from_json` round-trip a state;
:func:`replay` re-runs a JSONL record. Rulings on unclear sentences are in
``rules/RULINGS.md`` (Business Card Games, Rotator); those players could
disagree on are :class:`RotatorOptions`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from piecebridge.rules import not_json
from piecebridge.rules.bcg.common import (
    BcgError,
    Event,
    IllegalAction,
    Result,
    options_from_json,
)
from piecebridge.rules.bcg.rotator_maps import (
    CELL_NAMES,
    CELLS,
    EDGE_READINGS,
    FIXED_MAPS,
    MapError,
    RotatorMap,
    cell_name,
    edge_cells,
    generate_map,
    grid_of,
    index,
    on_board,
    parse_cell,
    xy,
)

GAME = "rotator"
PLAYERS = (1,)
#: ``--layout`` picks the map: ``random`` (from the seed) or a fixed map's name.
LAYOUTS = ("random", *FIXED_MAPS)

#: "Down" in the frame of :mod:`.rotator_maps` (grid 1 on top), as a step.
DIRECTIONS: dict[str, tuple[int, int]] = {
    "south": (0, 1),
    "east": (1, 0),
    "north": (0, -1),
    "west": (-1, 0),
}
PHASES = ("start", "drill", "relocate", "over")

#: Turns after its touch at which a space collapses in Step 2: one line per
#: turn, and "when a space is marked with two lines, it collapses on the next turn".
COLLAPSE_AGE = 3


class RecordError(BcgError):
    """A game record that does not replay: ``line`` (1-based) and ``reason``."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class RotatorOptions:
    """Rulings on which players could reasonably disagree (see RULINGS.md).

    ``boost_budget``   Boost Spaces for the whole game (rulebook: 10).
    ``boost_per_turn`` Boost Spaces one drill may add (rulebook: 2, so 3 spaces).
    ``edges``          what "edge" means for the Node buffer: ``"board"`` (the
                       10x20 board; default) or ``"grid"`` (each 10x10 grid).
    ``board_edge``     the map's rim is ``"floor"`` (you land on it; default) or
                       ``"fatal"`` (falling off the world loses).
    ``turn_limit``     ``None`` (default, as the rulebook) or a number of turns
                       after which the game is lost; for bots and timed play.
    """

    boost_budget: int = 10
    boost_per_turn: int = 2
    edges: str = "board"
    board_edge: str = "floor"
    turn_limit: int | None = None

    def __post_init__(self) -> None:
        if self.edges not in EDGE_READINGS:
            raise BcgError(f"edges must be one of {', '.join(EDGE_READINGS)}, not {self.edges!r}")
        if self.board_edge not in ("floor", "fatal"):
            raise BcgError(f"board_edge must be 'floor' or 'fatal', not {self.board_edge!r}")
        for name in ("boost_budget", "boost_per_turn"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise BcgError(f"{name} must be a whole number >= 0")
        limit = self.turn_limit
        if limit is not None and (not isinstance(limit, int) or limit < 1):
            raise BcgError("turn_limit must be a positive number of turns or null")


@dataclass(frozen=True)
class Action:
    """One decision: ``kind`` is ``"start"`` or ``"from"`` (with ``cell``) or ``"drill"``.

    >>> str(Action("drill", depth=2)), str(Action("drill")), str(Action("start", 0))
    ('drill 2', 'skip', 'start 1:J10')
    """

    kind: str
    cell: int | None = None
    depth: int = 0

    def __str__(self) -> str:
        if self.kind == "drill":
            return "skip" if self.depth == 0 else f"drill {self.depth}"
        return f"{self.kind} {cell_name(self.cell)}"  # type: ignore[arg-type]

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the text notation: ``start 1:F10``, ``from 2:E5``, ``drill 2``, ``skip``.

        >>> Action.parse("DRILL 3"), Action.parse("skip") == Action.parse("drill 0")
        (Action(kind='drill', cell=None, depth=3), True)
        """
        words = text.split() if isinstance(text, str) else []
        verb = words[0].lower() if words else ""
        if verb == "skip" and len(words) == 1:
            return cls("drill", depth=0)
        if verb == "drill" and len(words) == 2 and words[1].isdigit():
            return cls("drill", depth=int(words[1]))
        if verb in ("start", "from") and len(words) == 2:
            try:
                return cls(verb, parse_cell(words[1]))
            except MapError as error:
                raise IllegalAction(str(error)) from None
        raise IllegalAction(
            f"cannot read action {text!r}: expected start CELL, from CELL, drill N or skip"
        )


@dataclass(frozen=True)
class RotatorState:
    """A position. Build one with :func:`new_game`; change it only with :func:`apply`.

    ``marks[c]`` is the turn space ``c`` was touched (0: unmarked); a touched
    space is Open until it collapses back into rock, so no cell is both marked
    and in ``solid``. ``phase`` is the decision awaited: ``start``, ``drill``,
    ``relocate`` (after a capture; ``capture`` is the Node) or ``over``.
    ``down`` is gravity in the map's frame; ``start_grid`` the grid whose Row 10
    was the top row (the goal is Row 10 of the other).
    """

    map: RotatorMap
    options: RotatorOptions
    solid: frozenset[int]
    marks: tuple[int, ...]
    turn: int = 1
    phase: str = "start"
    position: int | None = None
    down: str = "south"
    start_grid: int | None = None
    boost_left: int = 10
    capture: int | None = None
    result: Result | None = None

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def target_grid(self) -> int | None:
        return None if self.start_grid is None else 3 - self.start_grid

    def age(self, cell: int) -> int | None:
        """Turns since ``cell`` was touched (its number of lines), or None if unmarked."""
        touched = self.marks[cell]
        return None if touched == 0 else self.turn - touched

    def captured_nodes(self) -> list[int]:
        """Nodes whose own space is open: captured and not yet collapsed back."""
        return [n for n in self.map.nodes if n not in self.solid]


def new_game(
    *,
    players: int = 1,
    layout: str | None = None,
    seed: int | str | None = 0,
    options: RotatorOptions | None = None,
    map: RotatorMap | None = None,  # the rulebook's word for the board
) -> RotatorState:
    """A fresh game. The board is ``map`` if given, else the fixed map named
    ``layout``, else (``layout`` None or ``"random"``) :func:`generate_map` of ``seed``.

    >>> new_game(seed=3) == new_game(seed=3)
    True
    >>> new_game(layout="canyon").map.name
    'canyon'
    """
    if players != 1:
        raise BcgError("Rotator is a game for exactly 1 player")
    options = options or RotatorOptions()
    if map is not None:
        rmap = map
    elif layout in (None, "random"):
        rmap = generate_map(seed, options.edges)
    elif layout in FIXED_MAPS:
        rmap = FIXED_MAPS[layout]
    else:
        raise BcgError(f"Rotator has no layout {layout!r}: choose one of {', '.join(LAYOUTS)}")
    if rmap.edges != options.edges:
        rmap = rmap.with_edges(options.edges)
    return RotatorState(
        map=rmap,
        options=options,
        solid=rmap.solid_cells(),
        marks=(0,) * CELLS,
        boost_left=options.boost_budget,
    )


# --------------------------------------------------------------------- legality


def _neighbour(cell: int, step: tuple[int, int]) -> int | None:
    x, y = xy(cell)
    if not on_board(x + step[0], y + step[1]):
        return None
    return index(x + step[0], y + step[1])


_BELOW = {d: tuple(_neighbour(c, v) for c in range(CELLS)) for d, v in DIRECTIONS.items()}


def below(cell: int, down: str) -> int | None:
    """The cell under ``cell`` when gravity is ``down``, or None past the rim.

    >>> below(0, "south"), below(0, "north")
    (10, None)
    """
    return _BELOW[down][cell]


def next_down(down: str) -> str:
    """Gravity after the board turns 90° clockwise: the board's east side comes
    towards you, so "down" turns counter-clockwise in the board's frame.

    >>> [next_down(d) for d in ("south", "east", "north", "west")]
    ['east', 'north', 'west', 'south']
    """
    dx, dy = DIRECTIONS[down]
    turned = (dy, -dx)
    return next(name for name, v in DIRECTIONS.items() if v == turned)


def max_drill(state: RotatorState) -> int:
    """The most spaces the player may drill now (0 if only skipping is legal)."""
    if state.phase != "drill":
        return 0
    limit = 1 + min(state.options.boost_per_turn, state.boost_left)
    depth, cell = 0, state.position
    nodes = set(state.map.nodes)
    while depth < limit:
        nxt = below(cell, state.down)  # type: ignore[arg-type]
        if nxt is None or nxt not in state.solid:
            break
        depth, cell = depth + 1, nxt
        if cell in nodes:  # drilling into a Node ends the movement
            break
    return depth


def legal_actions(state: RotatorState) -> list[Action]:
    """Every legal action, in a fixed order (empty once the game is over)."""
    if state.phase == "start":
        return [Action("start", c) for grid in (1, 2) for c in edge_cells(grid)]
    if state.phase == "relocate":
        territory = state.map.territory(state.capture)  # type: ignore[arg-type]
        return [Action("from", c) for c in sorted(territory) if c not in state.solid]
    if state.phase == "drill":
        return [Action("drill", depth=d) for d in range(max_drill(state) + 1)]
    return []


def check(state: RotatorState, action: Action) -> None:
    """Raise :class:`IllegalAction` naming the rule broken, or return None."""
    if state.is_over:
        raise IllegalAction(f"the game is over: {state.result.reason}")  # type: ignore[union-attr]
    checks = {"start": _check_start, "from": _check_from, "drill": _check_drill}
    if action.kind not in checks:
        raise IllegalAction(f"unknown action kind {action.kind!r}")
    checks[action.kind](state, action)


def _check_cell(action: Action) -> int:
    if not isinstance(action.cell, int) or not 0 <= action.cell < CELLS:
        raise IllegalAction(f"{action.kind} needs a cell of the 10x20 board")
    return action.cell


def _check_start(state: RotatorState, action: Action) -> None:
    if state.phase != "start":
        raise IllegalAction("the game has already started: start is the first move only")
    cell = _check_cell(action)
    if cell not in edge_cells(grid_of(cell)):
        raise IllegalAction(
            f"{cell_name(cell)} is not on the top row: start on Row 10 of either grid"
        )


def _check_from(state: RotatorState, action: Action) -> None:
    if state.phase == "start":
        raise IllegalAction("the first move is a start on the top row")
    if state.phase != "relocate":
        raise IllegalAction("no Node was captured last turn: there is nothing to move from")
    cell = _check_cell(action)
    node: int = state.capture  # type: ignore[assignment]
    if cell not in state.map.territory(node):
        raise IllegalAction(
            f"{cell_name(cell)} is not covered by the captured Node {cell_name(node)}"
        )
    if cell in state.solid:  # impossible by the rules; guards hand-edited states
        raise IllegalAction(f"{cell_name(cell)} is solid rock")


def _check_drill(state: RotatorState, action: Action) -> None:
    if state.phase == "start":
        raise IllegalAction("pick a start space on the top row first")
    if state.phase == "relocate":
        raise IllegalAction("you captured a Node: first choose a space it covers (from CELL)")
    depth, opts = action.depth, state.options
    if not isinstance(depth, int) or depth < 0:
        raise IllegalAction("the drill depth is a whole number of spaces, 0 to skip")
    if depth > 1 + opts.boost_per_turn:
        raise IllegalAction(
            f"at most {1 + opts.boost_per_turn} spaces a turn "
            f"(one standard space and {opts.boost_per_turn} Boost Spaces)"
        )
    if depth - 1 > state.boost_left:
        raise IllegalAction(
            f"drilling {depth} spaces needs {depth - 1} Boost Spaces; "
            f"only {state.boost_left} of {opts.boost_budget} left"
        )
    cell: int = state.position  # type: ignore[assignment]
    nodes = set(state.map.nodes)
    for i in range(1, depth + 1):
        nxt = below(cell, state.down)
        if nxt is None:
            raise IllegalAction(
                f"space {i} of the drill is off the board ({state.down} of {cell_name(cell)})"
            )
        if nxt not in state.solid:
            raise IllegalAction(
                f"{cell_name(nxt)} is open, not rock: a drill cuts only solid spaces "
                f"(you would fall there instead); drill {i - 1}"
            )
        if nxt in nodes and i < depth:
            raise IllegalAction(
                f"the drill stops at the Control Node on {cell_name(nxt)}: drill {i}"
            )
        cell = nxt


# ------------------------------------------------------------------- applying


def _ev(kind: str, cells: Iterable[int] = (), *extra: Any) -> Event:
    """Rotator events carry their cells as names in ``detail`` (10x20 names such
    as ``1:F9``; the shared ``Event.cell`` is for 10x10 grids)."""
    return Event(kind, player=0, detail=(*(CELL_NAMES[c] for c in cells), *extra))


class _Turn:
    """Mutable scratch space for one :func:`apply`, frozen back into a state."""

    def __init__(self, state: RotatorState) -> None:
        self.s = state
        self.solid = set(state.solid)
        self.marks = list(state.marks)
        self.position = state.position
        self.events: list[Event] = []
        self.result: Result | None = None
        grid = state.target_grid
        self.target = frozenset(edge_cells(grid)) if grid else frozenset()

    def touch(self, cell: int, turn: int) -> None:
        # "do not place fresh markings on a space that has already been marked"
        if self.marks[cell] == 0:
            self.marks[cell] = turn
        self.solid.discard(cell)

    def arrive(self, cell: int) -> bool:
        """Move onto ``cell``; True when that wins ("As soon as this is achieved")."""
        self.position = cell
        if cell in self.target and self.result is None:
            reason = f"reached {cell_name(cell)}, Row 10 of grid {grid_of(cell)}"
            self.result = Result((0,), reason)
        return self.result is not None

    def announce_win(self) -> None:
        self.events.append(_ev("win", (self.position,), self.result.reason))  # type: ignore

    def lose(self, reason: str) -> None:
        self.result = Result((), reason)
        self.events.append(_ev("lose", (self.position,), reason))  # type: ignore[arg-type]

    def fall(self, down: str, turn: int) -> None:
        """Fall through open spaces to the ground, marking the unmarked ones."""
        path: list[int] = []
        cell: int = self.position  # type: ignore[assignment]
        off_rim = False
        while True:
            nxt = below(cell, down)
            if nxt is None:
                off_rim = self.s.options.board_edge == "fatal"
                break
            if nxt in self.solid:
                break
            self.touch(nxt, turn)
            path.append(nxt)
            cell = nxt
            if self.arrive(cell):
                break
        if path:
            self.events.append(_ev("fall", path))
        if self.result is not None:
            self.announce_win()
        elif off_rim:
            self.lose(f"fell {down} off the board from {cell_name(cell)}")

    def collapse(self, turn: int) -> None:
        """Step 2: spaces touched ``COLLAPSE_AGE`` turns ago turn back into rock."""
        oldest = turn - COLLAPSE_AGE  # marks made in this turn or before collapse now
        if oldest < 1:
            return
        # Older marks collapsed in earlier turns (an invariant), so only marks of
        # exactly ``oldest`` are due; list.index finds them at C speed.
        gone, c = [], -1
        for _ in range(self.marks.count(oldest)):
            c = self.marks.index(oldest, c + 1)
            gone.append(c)
        for c in gone:
            self.marks[c] = 0
            self.solid.add(c)
        if gone:
            self.events.append(_ev("collapse", gone))
        if self.position in gone:
            self.lose(f"the space {cell_name(self.position)} collapsed with you inside")  # type: ignore

    def finish(self, **changes: Any) -> tuple[RotatorState, list[Event]]:
        if self.result is not None:
            changes["phase"] = "over"
            changes["capture"] = None
        state = replace(
            self.s,
            solid=frozenset(self.solid),
            marks=tuple(self.marks),
            position=self.position,
            result=self.result,
            **changes,
        )
        return state, self.events

    def begin_turn(self, turn: int, down: str, **changes: Any) -> tuple[RotatorState, list[Event]]:
        """Steps 1 (Fall) and 2 (Collapse) of ``turn``; then the drill is awaited."""
        self.fall(down, turn)
        if self.result is None:
            self.collapse(turn)
        return self.finish(turn=turn, down=down, phase="drill", **changes)


def apply(state: RotatorState, action: Action | str) -> tuple[RotatorState, list[Event]]:
    """Play ``action`` (an :class:`Action` or its text) and run the automatic
    steps up to the next decision. Returns the new state and what happened.

    Raises :class:`IllegalAction` (the state is immutable, so nothing changed).
    """
    if isinstance(action, str):
        action = Action.parse(action)
    check(state, action)
    t = _Turn(state)
    cell = action.cell
    if action.kind == "start":
        assert cell is not None
        start_grid = grid_of(cell)
        t.target = frozenset(edge_cells(3 - start_grid))
        t.touch(cell, state.turn)  # "Mark this starting space with a triangle"
        t.position = cell
        t.events.append(_ev("start", (cell,)))
        down = "south" if start_grid == 1 else "north"
        return t.begin_turn(state.turn, down, start_grid=start_grid, capture=None)
    if action.kind == "from":
        assert cell is not None
        t.events.append(_ev("relocate", (cell,)))
        if t.arrive(cell):  # a covered space on the goal row wins at once
            t.announce_win()
            return t.finish()
        return t.begin_turn(state.turn, state.down, capture=None)
    return _drill(t, action.depth)


def _drill(t: _Turn, depth: int) -> tuple[RotatorState, list[Event]]:
    state = t.s
    turn, down = state.turn, state.down
    captured = None
    path: list[int] = []
    for _ in range(depth):
        nxt = below(t.position, down)  # type: ignore[arg-type]
        assert nxt is not None
        t.touch(nxt, turn)  # "Erase the shading ... mark it with a triangle pointing down"
        path.append(nxt)
        if t.arrive(nxt):
            break
    boost_left = state.boost_left - max(len(path) - 1, 0)
    if path:
        t.events.append(_ev("drill", path, f"boost={max(len(path) - 1, 0)}"))
        if t.result is not None:
            t.announce_win()
        elif t.position in state.map.nodes:
            # "you clear out every Solid space covered by that Node"; no fall.
            captured = t.position
            cleared = sorted(c for c in state.map.territory(captured) if c in t.solid)
            for c in cleared:
                t.touch(c, turn)
            t.events.append(_ev("capture", (captured, *cleared)))
        else:
            t.fall(down, turn)  # "you will fall through those spaces"
    if t.result is not None:
        return t.finish(boost_left=boost_left)
    # Step 4: rotate; the next turn begins.
    new_down = next_down(down)
    t.events.append(_ev("rotate", (), new_down))
    limit = state.options.turn_limit
    if limit is not None and turn + 1 > limit:
        t.lose(f"turn limit of {limit} reached")
        return t.finish(turn=turn + 1, down=new_down, boost_left=boost_left)
    if captured is not None:
        return t.finish(
            turn=turn + 1, down=new_down, phase="relocate", capture=captured, boost_left=boost_left
        )
    return t.begin_turn(turn + 1, new_down, boost_left=boost_left)


# ------------------------------------------------------------ notation, JSON


def parse_action(state: RotatorState | None, text: str) -> Action:
    """The :class:`Action` written ``text`` (the state is not needed; kept for the
    shared engine signature). Raises :class:`IllegalAction` if unreadable."""
    return Action.parse(text)


def action_text(state: RotatorState | None, action: Action) -> str:
    return str(action)


def winners(state: RotatorState) -> tuple[int, ...] | None:
    """``(0,)`` once the player won, ``()`` once lost, None while playing."""
    return state.result.winners if state.result else None


def to_json(state: RotatorState) -> dict[str, Any]:
    """A JSON-ready dict (``bcg-state/1``, game ``rotator``)."""
    return {
        "format": "bcg-state/1",
        "game": GAME,
        "players": 1,
        "layout": _layout_name(state.map),
        "options": dict(state.options.__dict__),
        "map": state.map.to_json(),
        "turn": state.turn,
        "phase": state.phase,
        "position": None if state.position is None else cell_name(state.position),
        "down": state.down,
        "start_grid": state.start_grid,
        "boost_left": state.boost_left,
        "capture": None if state.capture is None else cell_name(state.capture),
        "result": state.result.to_json() if state.result else None,
        "solid": sorted(cell_name(c) for c in state.solid),
        "marks": {cell_name(c): t for c, t in enumerate(state.marks) if t},
    }


def _layout_name(rmap: RotatorMap) -> str:
    if rmap.name in FIXED_MAPS and FIXED_MAPS[rmap.name].nodes == rmap.nodes:
        return rmap.name
    return "random" if rmap.name.startswith("random") else "custom"


def from_json(data: Mapping[str, Any]) -> RotatorState:
    """The state :func:`to_json` wrote; :class:`BcgError` (one line) if it is not one."""
    if not isinstance(data, Mapping) or data.get("game") != GAME:
        got = data.get("game") if isinstance(data, Mapping) else type(data).__name__
        raise BcgError(f"not a Rotator state (game={got!r})")
    try:
        options = options_from_json(RotatorOptions, data.get("options"))
        rmap = RotatorMap.from_json(data["map"])
        marks = [0] * CELLS
        for name, turn in dict(data["marks"]).items():
            marks[parse_cell(name)] = _whole(turn, "mark turn")
        state = RotatorState(
            map=rmap,
            options=options,
            solid=frozenset(parse_cell(n) for n in data["solid"]),
            marks=tuple(marks),
            turn=_whole(data["turn"], "turn"),
            phase=str(data["phase"]),
            position=_cell_or_none(data.get("position")),
            down=str(data["down"]),
            start_grid=data.get("start_grid"),
            boost_left=_whole(data["boost_left"], "boost_left"),
            capture=_cell_or_none(data.get("capture")),
            result=Result.from_json(data.get("result")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        if isinstance(error, BcgError):
            raise BcgError(f"bad Rotator state: {error}") from None
        raise BcgError(f"bad Rotator state: missing or malformed {error}") from None
    problem = invariant_problem(state)
    if problem:
        raise BcgError(f"bad Rotator state: {problem}")
    return state


def _whole(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BcgError(f"{what} must be a whole number, not {value!r}")
    return value


def _cell_or_none(value: Any) -> int | None:
    return None if value is None else parse_cell(value)


def invariant_problem(state: RotatorState) -> str | None:
    """What is inconsistent in ``state`` (a sentence), or None. Every state
    :func:`apply` makes passes; self-play and :func:`from_json` check it."""
    if state.phase not in PHASES:
        return f"unknown phase {state.phase!r}"
    if state.down not in DIRECTIONS:
        return f"unknown direction {state.down!r}"
    if (state.phase == "over") != (state.result is not None):
        return "a finished game needs a result and phase 'over'"
    if not 0 <= state.boost_left <= state.options.boost_budget:
        return f"boost_left {state.boost_left} outside 0..{state.options.boost_budget}"
    bad = [c for c, t in enumerate(state.marks) if t and (c in state.solid or t > state.turn)]
    if bad:
        return f"{cell_name(bad[0])} is marked but solid, or marked in a future turn"
    # Before Step 2 (awaiting "from", or a game ended before it) marks may be a turn older.
    slack = state.phase in ("relocate", "over")
    if any(state.turn - t >= COLLAPSE_AGE + slack for t in state.marks if t):
        return "a mark is older than the collapse age"
    if state.phase == "start":
        if state.position is not None or any(state.marks) or state.turn != 1:
            return "a game that has not started has no position, marks or turns"
        return None
    if state.position is None or state.start_grid not in (1, 2):
        return "a started game needs a position and a start grid 1 or 2"
    if state.turn < 1:
        return "turns are counted from 1"
    if state.phase != "over" and not state.marks[state.position]:
        return f"the player's space {cell_name(state.position)} is not marked as touched"
    if (state.phase == "relocate") != (state.capture is not None):
        return "a captured Node is pending exactly in phase 'relocate'"
    if state.capture is not None and state.capture not in state.map.nodes:
        return f"{cell_name(state.capture)} is not a Node of this map"
    return None


def view(state: RotatorState, player: int = 0) -> dict[str, Any]:
    """What the (only) player sees: everything, Rotator has no hidden information."""
    if player != 0:
        raise BcgError("Rotator has one player, player 0")
    return {**to_json(state), "you": 0}


def record_lines(start: RotatorState, actions: Iterable[Action | str]) -> list[str]:
    """A JSONL game record: a header with the starting state, then one action a line.

    >>> s = new_game(layout="canyon")
    >>> lines = record_lines(s, ["start 1:E10", "skip"])
    >>> json.loads(lines[1]), replay(lines).turn
    ({'action': 'start 1:E10'}, 2)
    """
    header = {"format": "bcg-record/1", "game": GAME, "start": to_json(start)}
    out = [json.dumps(header, sort_keys=True)]
    out += [json.dumps({"action": str(a)}) for a in actions]
    return out


def replay(lines: Iterable[str]) -> RotatorState:
    """Re-run a record from :func:`record_lines`; the final state.

    Raises :class:`RecordError` with the (1-based) line of the first unreadable
    line or illegal action and the reason.
    """
    state: RotatorState | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(number, not_json(error)) from None
        try:
            if state is None:
                if not isinstance(item, dict) or "start" not in item:
                    raise BcgError('the first line is the header {"game": ..., "start": STATE}')
                state = from_json(item["start"])
                continue
            text = item.get("action") if isinstance(item, dict) else item
            if not isinstance(text, str):
                raise BcgError('an action line is {"action": "drill 1"}')
            state, _ = apply(state, Action.parse(text))
        except BcgError as error:
            raise RecordError(number, str(error)) from None
    if state is None:
        raise RecordError(1, "empty record: no header line")
    return state


# -------------------------------------------------------------------- display


def render(state: RotatorState, oriented: bool = True) -> str:
    """The board as text. ``#`` rock, ``N`` an uncaptured Node, ``.`` air, a digit
    the age (lines) of a marked space, ``@`` the player. ``oriented`` turns the
    board as it lies on the table now, with "down" towards the reader.

    >>> print(render(new_game(layout="pinwheel"), oriented=False).splitlines()[0])
    1:  J I H G F E D C B A
    """
    glyph = {}
    for c in range(CELLS):
        if c == state.position:
            glyph[c] = "@"
        elif c in state.solid:
            glyph[c] = "N" if c in state.map.nodes else "#"
        elif state.marks[c]:
            glyph[c] = str(min(state.turn - state.marks[c], 9))
        else:
            glyph[c] = "."
    rows = [[glyph[index(x, y)] for x in range(10)] for y in range(20)]
    turns = {"south": 0, "east": 1, "north": 2, "west": 3}[state.down] if oriented else 0
    for _ in range(turns):  # turn the picture clockwise once per board rotation
        rows = [list(r) for r in zip(*rows[::-1], strict=True)]
    lines = [" ".join(r) for r in rows]
    if not oriented:
        lines = [f"{'1:' if y < 10 else '2:'}  {line}" for y, line in enumerate(lines)]
        lines.insert(0, "1:  J I H G F E D C B A")
        lines.insert(11, "    ------------------- fold (Row 1 | Row 1)")
        lines.append("2:  A B C D E F G H I J")
    status = f"turn {state.turn}, {state.phase}, down={state.down}, boost left {state.boost_left}"
    if state.result:
        status += f" -- {'won' if state.result.winners else 'lost'}: {state.result.reason}"
    return "\n".join([*lines, status])


def card_marks(state: RotatorState) -> list[dict[str, Any]]:
    """The two grids as pencil marks on the card (``card/1`` ``grids``, grid 1 first).

    Rock is shaded, a Node carries its ``dot`` (shaded while it is rock), and a
    touched space a ``triangle`` (the card cannot show the age lines).

    >>> grids = card_marks(new_game(layout="pinwheel"))
    >>> grids[1]["cells"]["F5"], grids[1]["cells"]["F7"]
    ({'mark': 'dot', 'shaded': True}, {'mark': None, 'shaded': True})
    """
    grids: list[dict[str, Any]] = [{"cells": {}}, {"cells": {}}]
    nodes = set(state.map.nodes)
    for c in range(CELLS):
        shaded = c in state.solid
        mark = "dot" if c in nodes else "triangle" if state.marks[c] else None
        if mark or shaded:
            name = CELL_NAMES[c]
            grids[grid_of(c) - 1]["cells"][name[2:]] = {"mark": mark, "shaded": shaded}
    return grids


# ------------------------------------------------------------------------ bots


def random_bot(state: RotatorState, rng: random.Random) -> Action:
    """A uniformly random legal action."""
    return rng.choice(legal_actions(state))


def _progress(state: RotatorState) -> float:
    """How good a position looks: rows travelled towards the goal, minus danger."""
    if state.result is not None:
        return 1e6 if state.result.winners else -1e6
    _, y = xy(state.position)  # type: ignore[arg-type]
    travelled = y if state.start_grid == 1 else 19 - y
    score = travelled * 10.0 + state.boost_left * 0.5
    age = state.age(state.position)  # type: ignore[arg-type]
    if age is not None and age >= 2:
        score -= 15.0  # standing on a space about to collapse
    return score


def greedy_bot(state: RotatorState, rng: random.Random, depth: int = 3) -> Action:
    """The action with the best :func:`_progress` after looking ``depth`` decisions
    ahead (a win at once, a loss never if avoidable); ties broken by ``rng``."""

    def value(s: RotatorState, d: int) -> float:
        if d == 0 or s.result is not None:
            return _progress(s)
        return max(value(apply(s, a)[0], d - 1) for a in legal_actions(s))

    scored = [(value(apply(state, a)[0], depth - 1), a) for a in legal_actions(state)]
    best = max(v for v, _ in scored)
    return rng.choice([a for v, a in scored if v == best])


BOTS = {"random": random_bot, "greedy": greedy_bot}


#: Turns a bot game may last when the options set no ``turn_limit``.
BOT_TURN_LIMIT = 500


def bot_game(state: RotatorState, turn_limit: int = BOT_TURN_LIMIT) -> RotatorState:
    """``state`` with a turn limit if its options have none.

    A bot can survive forever (collapsed rock can be drilled again, so a safe
    cycle can exist), so games played out by bots need an end.

    >>> bot_game(new_game(seed=1)).options.turn_limit
    500
    """
    if state.options.turn_limit is not None:
        return state
    return replace(state, options=replace(state.options, turn_limit=turn_limit))


def play(
    state: RotatorState, bot: str = "random", seed: int = 0
) -> tuple[RotatorState, list[Action]]:
    """Play a game out with a bot (under :func:`bot_game`'s turn limit); the final
    state and the actions taken, which replay from ``bot_game(state)``."""
    rng = random.Random(seed)
    choose = BOTS[bot]
    state = bot_game(state)
    actions: list[Action] = []
    while not state.is_over:
        action = choose(state, rng)
        state, _ = apply(state, action)
        actions.append(action)
    return state, actions
