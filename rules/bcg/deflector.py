"""*Deflector*, the Business Card Game for 3-5 players (seeds 003 and 004).

Every player has one grid with five secret Control Nodes and twenty secret,
single-use Deflectors. Grids touch as the table layout says
(:mod:`piecebridge.rules.bcg.layouts`). The last player standing, or the first to
hold 10 / 13 / 15 Nodes (3 / 4 / 5 players), wins.

Layouts: ``3``, ``4-full``, ``4-partial``, ``5-full``, ``5-partial``. Variants
(options): ``ricochet=True`` ("Ricochet"), ``reflector=True`` ("Reflector
Deflector"). Notation: ``"<grid>:<cell>"`` (e.g. ``"1:J4"``) or ``"pass"``.

>>> s = new_game(players=3, seed=1)
>>> sorted({a.grid for a in legal_actions(s)})  # first moves onto both neighbours
[1, 2]
>>> s2, events = apply(s, parse_action(s, "1:J5"))
>>> s2.to_move
1
"""

from __future__ import annotations

from typing import Any

from piecebridge.rules.bcg.common import BcgError, Event, IllegalAction, Result
from piecebridge.rules.bcg.table import (
    DEFLECTOR_THRESHOLD,
    Action,
    Claim,
    Pass,
    TableOptions,
    TableState,
    check_claim,
    evolve,
    fire,
    legal_claims,
    new_table,
    next_player,
    node_counts,
    parse_action_text,
    render_table,
    table_from_json,
    table_to_json,
    table_view,
    update_homes,
    with_result,
)

GAME = "deflector"
PLAYERS = (3, 4, 5)
LAYOUTS = ("3", "4-full", "4-partial", "5-full", "5-partial")
DEFAULT_LAYOUT = {3: "3", 4: "4-full", 5: "5-full"}

DeflectorOptions = TableOptions


def new_game(
    *,
    players: int = 3,
    layout: str | None = None,
    seed: int = 0,
    options: TableOptions | None = None,
    nodes: list[list[int]] | None = None,
    deflectors: list[list[int]] | None = None,
) -> TableState:
    """A starting state; Nodes and Deflectors are drawn from ``seed`` unless given."""
    if players not in PLAYERS:
        raise BcgError("Deflector is a game for 3 to 5 players")
    layout = layout or DEFAULT_LAYOUT[players]
    if layout not in LAYOUTS or not layout.startswith(str(players)):
        good = [x for x in LAYOUTS if x.startswith(str(players))]
        raise BcgError(f"no layout {layout!r} for {players} players (choose {', '.join(good)})")
    options = options or TableOptions()
    if options.deluxe or options.safety:
        raise BcgError("'deluxe' and 'safety' are Defector variants")
    return new_table(GAME, players, layout, seed, options, nodes, deflectors)


def legal_actions(state: TableState) -> list[Action]:
    if state.is_over:
        return []
    return legal_claims(state) or [Pass()]


def apply(state: TableState, action: Action) -> tuple[TableState, list[Event]]:
    """Play one turn: a claim (with every deflection it causes) or a forced pass."""
    if state.is_over:
        raise IllegalAction("the game is over")
    shooter = state.to_move
    if isinstance(action, Pass):
        if legal_claims(state):
            raise IllegalAction("you may only pass when no space can be claimed")
        events = [Event("pass", shooter)]
        new = evolve(state, ply=state.ply + 1, to_move=next_player(state))
        return _finish(new, events, passed=True)
    if not isinstance(action, Claim):
        raise IllegalAction(f"{action.text()} is not a Deflector action")
    check_claim(state, action)
    grids, events = fire(state, shooter, action.grid, action.cell)
    new = evolve(state, grids=tuple(grids))
    homes, eliminated = update_homes(new, grids, events)
    eliminated = list(eliminated)
    for p in range(state.players):
        if not eliminated[p] and homes[p] == 0:
            eliminated[p] = True
            events.append(Event("eliminate", p))
    new = evolve(new, homes=homes, eliminated=tuple(eliminated), ply=state.ply + 1)
    new = evolve(new, to_move=next_player(new))
    return _finish(new, events, passed=False)


def _finish(state: TableState, events: list[Event], passed: bool) -> tuple[TableState, list[Event]]:
    return with_result(state, _result(state, passed), events), events


def _result(state: TableState, passed: bool) -> Result | None:
    counts = node_counts(state)
    threshold = DEFLECTOR_THRESHOLD[state.players]
    for p, c in enumerate(counts):
        if c >= threshold:
            return Result((p,), f"player {p} controls {c} Nodes (>= {threshold})")
    alive = [p for p in range(state.players) if not state.eliminated[p]]
    if len(alive) == 1:
        return Result((alive[0],), f"player {alive[0]} is the last player standing")
    opts = state.options
    total = sum(counts)
    if (not opts.endgame_after_elimination or len(alive) < state.players) and sum(
        counts[p] for p in alive
    ) == total:
        best = max(counts[p] for p in alive)
        leaders = [p for p in alive if counts[p] == best]
        if len(leaders) == 1:
            return Result(
                (leaders[0],), f"surviving players hold every Node; player {leaders[0]} has most"
            )
    if passed and all(not legal_claims(evolve(state, to_move=p)) for p in alive):
        return Result((), "no player can claim a space")
    if state.ply >= opts.max_plies:
        return Result((), f"move limit of {opts.max_plies} plies")
    return None


def parse_action(state: TableState, text: str) -> Action:
    return parse_action_text(text)


def action_text(state: TableState, action: Action) -> str:
    return action.text()


def to_json(state: TableState) -> dict[str, Any]:
    return table_to_json(state)


def from_json(data: dict[str, Any]) -> TableState:
    state = table_from_json(data, GAME, TableOptions)
    if state.pending is not None or state.alliances:
        raise BcgError("bad deflector state: Deflector has no alliances")
    return state


def view(state: TableState, player: int) -> dict[str, Any]:
    return table_view(state, player)


def winners(state: TableState) -> tuple[int, ...] | None:
    return state.result.winners if state.result else None


def render(state: TableState, player: int | None = None) -> str:
    return render_table(state, player)
