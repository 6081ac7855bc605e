"""*Defector*, the Business Card Game for 6 or more players (seed 003).

*Deflector* on a bigger table, plus alliances. Layouts: ``full`` ("Full Access":
every grid's Row 1 meets Row 1 of every other grid) and ``island`` ("The Island":
empty centre grids, player grids reach each other only through them).

At the start of a turn a player may make one diplomatic move, then shoots:

- ``propose Q link G:CELL`` — offer Q an alliance of two around a Link Node (a
  Control Node one of them controls);
- ``propose Q`` — offer to join Q's two-player team (a Link Node holds up to three);
- ``propose Q master G:CELL`` — offer to join Q's alliance of three, a Master Node
  now holding the group of four; ``propose Q`` joins an alliance that already has one;
- Q answers at once, ``accept`` (the alliance forms) or ``decline`` (nothing changes);
  either way the proposer then shoots. A player who is already allied and whose
  proposal is accepted *defects*; ``desert`` leaves an alliance.

Variants (options): ``deluxe=True`` ("The Business Card Deluxe Collection": moves on
another player's board go only "down", and each board hit turns 90 degrees
clockwise) and ``safety=True`` ("Safety Among Friends").

>>> s = new_game(players=6, seed=3)
>>> s1, _ = apply(s, parse_action(s, "propose 1 link 0:" + cell_name(s.grids[0].nodes[0])))
>>> acting_player(s1), [a.text() for a in legal_actions(s1)]
(1, ['accept', 'decline'])
>>> s2, _ = apply(s1, parse_action(s1, "accept"))
>>> sorted(alliance_of(s2, 0).members), s2.to_move
([0, 1], 0)
"""

from __future__ import annotations

from typing import Any

from piecebridge.rules.bcg.common import BcgError, Event, IllegalAction, Result
from piecebridge.rules.bcg.grid import cell_name
from piecebridge.rules.bcg.table import (
    Accept,
    Action,
    Alliance,
    Claim,
    Decline,
    Desert,
    Pass,
    Proposal,
    Propose,
    TableOptions,
    TableState,
    Team,
    acting_player,
    alliance_of,
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

GAME = "defector"
PLAYERS = tuple(range(6, 13))
LAYOUTS = ("full", "island")
DefectorOptions = TableOptions

__all__ = ["acting_player", "alliance_of", "cell_name"]


def new_game(
    *,
    players: int = 6,
    layout: str | None = None,
    seed: int = 0,
    options: TableOptions | None = None,
    nodes: list[list[int]] | None = None,
    deflectors: list[list[int]] | None = None,
) -> TableState:
    if players not in PLAYERS:
        raise BcgError(f"Defector is a game for 6 or more players (this engine: 6..{PLAYERS[-1]})")
    layout = layout or "full"
    if layout not in LAYOUTS:
        raise BcgError(f"Defector has no layout {layout!r} (choose full, island)")
    return new_table(GAME, players, layout, seed, options or TableOptions(), nodes, deflectors)


# --- node references ---------------------------------------------------------------


def _node_ref(state: TableState, ref: tuple[int, int]) -> tuple[int, int]:
    """(grid, cell) -> (grid, node index), or IllegalAction."""
    g, c = ref
    if not 0 <= g < len(state.grids):
        raise IllegalAction(f"there is no grid {g}")
    idx = state.grids[g].node_index(c)
    if idx is None:
        raise IllegalAction(f"{g}:{cell_name(c)} is not a Control Node")
    return g, idx


def _controller(state: TableState, ref: tuple[int, int]) -> int:
    return state.grids[ref[0]].control[ref[1]]


def _special_nodes(state: TableState) -> set[tuple[int, int]]:
    out = set()
    for a in state.alliances:
        if a.master:
            out.add(a.master)
        for t in a.teams:
            if t.link:
                out.add(t.link)
    return out


def _ref_text(state: TableState, ref: tuple[int, int]) -> str:
    return f"{ref[0]}:{cell_name(state.grids[ref[0]].nodes[ref[1]])}"


# --- alliances -----------------------------------------------------------------------


def _pairs_between(a: frozenset[int], b: frozenset[int]) -> set[tuple[int, int]]:
    return {(min(x, y), max(x, y)) for x in a for y in b if x != y}


def _remove(state: TableState, player: int, events: list[Event]) -> TableState:
    """``player`` leaves its alliance (desertion or defection)."""
    al = alliance_of(state, player)
    if al is None:
        return state
    rest = al.members - {player}
    teams = []
    for t in al.teams:
        members = t.members - {player}
        if members:
            teams.append(Team(members, t.link if len(members) > 1 else None))
    others = tuple(a for a in state.alliances if a is not al)
    divided = state.divided | _pairs_between(frozenset({player}), rest)
    new_alliances = _normalise(Alliance(tuple(teams), al.master))
    return evolve(state, alliances=others + new_alliances, divided=divided)


def _normalise(al: Alliance) -> tuple[Alliance, ...]:
    teams = tuple(t for t in al.teams if t.members)
    members = frozenset().union(*(t.members for t in teams)) if teams else frozenset()
    if len(members) < 2:
        return ()
    if len(teams) == 1:
        t = teams[0]
        return (Alliance((Team(t.members, t.link if len(t.members) > 1 else None),), None),)
    return (Alliance(teams, al.master),)


def _split(state: TableState, al: Alliance) -> tuple[TableState, list[Alliance]]:
    """Break ``al`` into its Link-Node teams (loners go solo); record divisions."""
    parts = [Alliance((t,), None) for t in al.teams if len(t.members) > 1 and t.link]
    kept = [p.members for p in parts]
    divided = set(state.divided)
    members = list(al.members)
    for i, x in enumerate(members):
        for y in members[i + 1 :]:
            if not any(x in k and y in k for k in kept):
                divided.add((min(x, y), max(x, y)))
    others = tuple(a for a in state.alliances if a is not al)
    return evolve(state, alliances=others + tuple(parts), divided=frozenset(divided)), parts


def _dissolve(state: TableState, al: Alliance) -> TableState:
    divided = set(state.divided) | _pairs_between(al.members, al.members)
    others = tuple(a for a in state.alliances if a is not al)
    return evolve(state, alliances=others, divided=frozenset(divided))


def check_propose(state: TableState, action: Propose) -> None:
    """Raise :class:`IllegalAction` unless the player to move may make this offer."""
    p, q = state.to_move, action.partner
    if state.pending is not None:
        raise IllegalAction(f"player {state.pending.partner} must first answer the proposal")
    if state.diplomacy_done:
        raise IllegalAction("only one alliance move at the start of a turn")
    if not 0 <= q < state.players or q == p:
        raise IllegalAction(f"there is no other player {q}")
    if state.eliminated[q]:
        raise IllegalAction(f"player {q} has been eliminated")
    mine, theirs = alliance_of(state, p), alliance_of(state, q)
    if mine is not None and mine is theirs:
        raise IllegalAction(f"you are already allied with player {q}")
    group = theirs.members if theirs else frozenset({q})
    for b in sorted(group):
        if (min(p, b), max(p, b)) in state.divided:
            raise IllegalAction(f"you and player {b} were divided: old alliances never re-form")
    special = _special_nodes(state)
    union = group | {p}

    def usable(ref: tuple[int, int] | None, role: str) -> None:
        if ref is None:
            raise IllegalAction(f"name a {role} Node: propose {q} {role} G:CELL")
        node = _node_ref(state, ref)
        if _controller(state, node) not in union:
            raise IllegalAction(f"the {role} Node must be a Control Node one of you controls")
        if node in special:
            raise IllegalAction(f"{_ref_text(state, node)} is already a Link or Master Node")

    if theirs is None:
        if action.master is not None:
            raise IllegalAction("two players ally around a Link Node, not a Master Node")
        usable(action.link, "link")
        if action.link is not None and _controller(state, _node_ref(state, action.link)) not in (
            p,
            q,
        ):
            raise IllegalAction("the Link Node must be controlled by one of the two allies")
        return
    if action.link is not None:
        raise IllegalAction(f"player {q}'s alliance already has its Link Node")
    if theirs.master is None and len(theirs.members) >= 3:
        usable(action.master, "master")
    elif action.master is not None:
        raise IllegalAction("a Master Node is chosen when an alliance grows to four")


def _proposal(state: TableState, action: Propose) -> Proposal:
    link = _node_ref(state, action.link) if action.link is not None else None
    master = _node_ref(state, action.master) if action.master is not None else None
    return Proposal(state.to_move, action.partner, link, master)


def _ally(state: TableState, offer: Proposal, events: list[Event]) -> TableState:
    """The accepted ``offer`` takes effect (the proposer defects if it was allied)."""
    p, q = offer.proposer, offer.partner
    if alliance_of(state, p) is not None:
        events.append(Event("desert", p, detail=("defects",)))
        state = _remove(state, p, events)
    theirs = alliance_of(state, q)
    others = tuple(a for a in state.alliances if a is not theirs)
    if theirs is None:
        new = Alliance((Team(frozenset({p, q}), offer.link),), None)
    elif theirs.master is None and len(theirs.members) < 3:
        team = theirs.teams[0]
        new = Alliance((Team(team.members | {p}, team.link),), None)
    else:
        master = theirs.master or offer.master
        new = Alliance((*theirs.teams, Team(frozenset({p}), None)), master)
    bits = sum(1 << m for m in new.members)
    knows = tuple(k | bits if i in new.members else k for i, k in enumerate(state.knows))
    events.append(Event("ally", p, target=q, detail=(sorted(new.members),)))
    return evolve(state, alliances=(*others, new), knows=knows)


def _break_captured(state: TableState, events: list[Event]) -> TableState:
    """Link and Master Nodes captured by outsiders break what they hold together."""
    changed = True
    while changed:
        changed = False
        for al in state.alliances:
            if al.master and _controller(state, al.master) not in al.members:
                events.append(Event("disband", None, detail=("master", sorted(al.members))))
                state, _ = _split(state, al)
                changed = True
                break
            for t in al.teams:
                if t.link and _controller(state, t.link) not in t.members:
                    events.append(Event("disband", None, detail=("link", sorted(t.members))))
                    if al.master and len(al.teams) > 1:
                        loners = tuple(Team(frozenset({m}), None) for m in sorted(t.members))
                        teams = tuple(x for x in al.teams if x is not t) + loners
                        others = tuple(a for a in state.alliances if a is not al)
                        state = evolve(state, alliances=(*others, Alliance(teams, al.master)))
                    else:
                        state = _dissolve(state, al)
                    changed = True
                    break
            if changed:
                break
    return state


# --- actions ---------------------------------------------------------------------


def diplomacy_actions(state: TableState) -> list[Action]:
    """Every legal alliance move for the player to move (none once one was made)."""
    if state.is_over or state.diplomacy_done or state.pending is not None:
        return []
    p = state.to_move
    out: list[Action] = []
    if alliance_of(state, p) is not None:
        out.append(Desert())
    for q in range(state.players):
        if q == p or state.eliminated[q]:
            continue
        theirs = alliance_of(state, q)
        candidates: list[Propose] = []
        union = (theirs.members if theirs else frozenset({q})) | {p}
        refs = [
            (g, grid.nodes[i])
            for g, grid in enumerate(state.grids)
            for i, c in enumerate(grid.control)
            if c in union
        ]
        if theirs is None:
            candidates = [Propose(q, link=r) for r in refs]
        elif theirs.master is None and len(theirs.members) >= 3:
            candidates = [Propose(q, master=r) for r in refs]
        else:
            candidates = [Propose(q)]
        for a in candidates:
            try:
                check_propose(state, a)
            except IllegalAction:
                continue
            out.append(a)
    return out


def legal_actions(state: TableState) -> list[Action]:
    """Every legal action of :func:`acting_player` (an answer while a proposal waits)."""
    if state.is_over:
        return []
    if state.pending is not None:
        return [Accept(), Decline()]
    return diplomacy_actions(state) + (legal_claims(state) or [Pass()])


def apply(state: TableState, action: Action) -> tuple[TableState, list[Event]]:
    if state.is_over:
        raise IllegalAction("the game is over")
    events: list[Event] = []
    p = state.to_move
    if state.pending is not None:
        return _answer(state, action, events)
    if isinstance(action, (Accept, Decline)):
        raise IllegalAction("there is no alliance proposal to answer")
    if isinstance(action, Propose):
        check_propose(state, action)
        offer = _proposal(state, action)
        events.append(Event("propose", p, target=action.partner))
        return evolve(state, pending=offer, diplomacy_done=True), events
    if isinstance(action, Desert):
        if state.diplomacy_done:
            raise IllegalAction("only one alliance move at the start of a turn")
        if alliance_of(state, p) is None:
            raise IllegalAction("you are not in an alliance")
        events.append(Event("desert", p))
        state = evolve(_remove(state, p, events), diplomacy_done=True)
        return _finish(state, events, passed=False, turn_over=False)
    if isinstance(action, Pass):
        if legal_claims(state):
            raise IllegalAction("you may only pass when no space can be claimed")
        events.append(Event("pass", p))
        return _finish(state, events, passed=True, turn_over=True)
    if not isinstance(action, Claim):
        raise IllegalAction("not a Defector action")
    check_claim(state, action)
    grids, more = fire(state, p, action.grid, action.cell)
    events.extend(more)
    state = evolve(state, grids=tuple(grids))
    homes, _ = update_homes(state, grids, events)
    state = _break_captured(evolve(state, homes=homes), events)
    return _finish(state, events, passed=False, turn_over=True)


def _answer(
    state: TableState, action: Action, events: list[Event]
) -> tuple[TableState, list[Event]]:
    """The proposed partner accepts or declines; the proposer's turn goes on."""
    offer = state.pending
    assert offer is not None
    if isinstance(action, Decline):
        events.append(Event("decline", offer.partner, target=offer.proposer))
        return evolve(state, pending=None), events
    if not isinstance(action, Accept):
        raise IllegalAction(
            f"player {offer.partner} must first accept or decline player {offer.proposer}'s "
            "proposal"
        )
    state = _ally(evolve(state, pending=None), offer, events)
    return _finish(state, events, passed=False, turn_over=False)


def _finish(
    state: TableState, events: list[Event], *, passed: bool, turn_over: bool
) -> tuple[TableState, list[Event]]:
    state = _eliminate(state, events)
    state, result = _victory(state, events, passed)
    if turn_over:
        state = evolve(state, ply=state.ply + 1, diplomacy_done=False)
        state = evolve(state, to_move=next_player(state))
        if result is None and state.ply >= state.options.max_plies:
            result = Result((), f"move limit of {state.options.max_plies} plies")
    elif state.eliminated[state.to_move]:
        state = evolve(state, diplomacy_done=False, to_move=next_player(state))
    return with_result(state, result, events), events


def _eliminate(state: TableState, events: list[Event]) -> TableState:
    """Without an original grid a player is out, unless an alliance carries it."""
    eliminated = list(state.eliminated)
    for p in range(state.players):
        if not eliminated[p] and state.homes[p] == 0 and alliance_of(state, p) is None:
            eliminated[p] = True
            events.append(Event("eliminate", p))
    return evolve(state, eliminated=tuple(eliminated))


def _victory(
    state: TableState, events: list[Event], passed: bool
) -> tuple[TableState, Result | None]:
    counts = node_counts(state)
    total = sum(counts)
    for p, c in enumerate(counts):
        if 2 * c > total:
            return state, Result((p,), f"player {p} controls {c} of {total} Nodes")
    for al in state.alliances:
        if sum(counts[m] for m in al.members) == total:
            if state.options.alliance_victory:
                return state, Result(tuple(sorted(al.members)), "the alliance controls every Node")
            events.append(Event("disband", None, detail=("victory", sorted(al.members))))
            if len(al.members) >= 4:
                state, _ = _split(state, al)
            else:
                state = _dissolve(state, al)
            state = _eliminate(state, events)
            break
    alive = [p for p in range(state.players) if not state.eliminated[p]]
    if len(alive) == 1:
        return state, Result((alive[0],), f"player {alive[0]} is the last player standing")
    holders = [p for p in range(state.players) if counts[p]]
    if len(holders) < 4 and all(not state.eliminated[p] for p in holders):
        best = max(counts)
        leaders = [p for p in holders if counts[p] == best]
        if len(leaders) == 1:
            return state, Result(
                (leaders[0],), f"fewer than four players hold every Node; {leaders[0]} has most"
            )
    if passed and all(
        not legal_claims(evolve(state, to_move=p, diplomacy_done=True)) for p in alive
    ):
        return state, Result((), "no player can claim a space")
    return state, None


# --- notation, JSON, views -------------------------------------------------------------


def parse_action(state: TableState, text: str) -> Action:
    return parse_action_text(text)


def action_text(state: TableState, action: Action) -> str:
    return action.text()


def to_json(state: TableState) -> dict[str, Any]:
    return table_to_json(state)


def from_json(data: dict[str, Any]) -> TableState:
    state = table_from_json(data, GAME, TableOptions)
    refs = [state.pending.link, state.pending.master] if state.pending else []
    for al in state.alliances:
        refs += [al.master] + [t.link for t in al.teams]
    for ref in refs:
        if ref is not None and not (
            0 <= ref[0] < len(state.grids) and 0 <= ref[1] < len(state.grids[ref[0]].nodes)
        ):
            raise BcgError(f"an alliance names a Node {ref} that does not exist")
    if state.pending is not None:
        _check_pending(state)
    return state


def _check_pending(state: TableState) -> None:
    """A loaded proposal must be one the proposer could have made on this turn."""
    offer = state.pending

    def as_cell(ref: tuple[int, int] | None) -> tuple[int, int] | None:
        return None if ref is None else (ref[0], state.grids[ref[0]].nodes[ref[1]])

    before = evolve(state, pending=None, diplomacy_done=False)
    try:
        check_propose(before, Propose(offer.partner, as_cell(offer.link), as_cell(offer.master)))
    except IllegalAction as error:
        raise BcgError(
            f"bad defector state: the pending proposal could not be made: {error}"
        ) from None


def view(state: TableState, player: int) -> dict[str, Any]:
    return table_view(state, player)


def winners(state: TableState) -> tuple[int, ...] | None:
    return state.result.winners if state.result else None


def render(state: TableState, player: int | None = None) -> str:
    return render_table(state, player)
