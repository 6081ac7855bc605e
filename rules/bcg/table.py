"""The multi-grid table shared by *Deflector* (3-5 players) and *Defector* (6+).

Grids lie on a table (:mod:`piecebridge.rules.bcg.layouts`); grid ``i`` belongs to
the player in seat ``i`` (seats clockwise), centre grids of "The Island" belong to
nobody. A turn is one shot: the Shooter names a space, the grid's player answers
(Null, Owned, Node or Deflector), Deflectors divert the shot round the table.

Action notation: ``"<grid>:<cell>"`` such as ``"2:F3"`` (grid = seat number, or
the centre grid's number), ``"pass"`` when no claim is possible; *Defector* adds
``"propose <seat> [link <grid>:<cell>] [master <grid>:<cell>]"``, the partner's answer
``"accept"`` or ``"decline"``, and ``"desert"``.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from piecebridge.rules.bcg.common import BcgError, Event, IllegalAction, Result
from piecebridge.rules.bcg.grid import (
    GridError,
    GridState,
    cell_name,
    column,
    grow,
    mask_cells,
    parse_cell,
    random_deflectors,
    random_nodes,
    row,
    step_mask,
)
from piecebridge.rules.bcg.layouts import Layout, defector_layout, deflector_layout

# --- actions -----------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    grid: int
    cell: int

    def text(self) -> str:
        return f"{self.grid}:{cell_name(self.cell)}"


@dataclass(frozen=True)
class Pass:
    def text(self) -> str:
        return "pass"


@dataclass(frozen=True)
class Propose:
    """Propose an alliance to ``partner`` (who answers ``accept`` or ``decline``);
    ``link``/``master`` are Node spaces ``(grid, cell)`` offered as Link or Master Node.

    >>> Propose(3, link=(0, 23)).text()
    'propose 3 link 0:D3'
    """

    partner: int
    link: tuple[int, int] | None = None
    master: tuple[int, int] | None = None

    def text(self) -> str:
        out = f"propose {self.partner}"
        if self.link:
            out += f" link {self.link[0]}:{cell_name(self.link[1])}"
        if self.master:
            out += f" master {self.master[0]}:{cell_name(self.master[1])}"
        return out


@dataclass(frozen=True)
class Accept:
    """The proposed partner agrees: the alliance forms."""

    def text(self) -> str:
        return "accept"


@dataclass(frozen=True)
class Decline:
    """The proposed partner refuses: nothing changes, the proposer shoots."""

    def text(self) -> str:
        return "decline"


@dataclass(frozen=True)
class Desert:
    def text(self) -> str:
        return "desert"


Action = Claim | Pass | Propose | Accept | Decline | Desert


def _parse_ref(text: str) -> tuple[int, int]:
    try:
        g, c = text.split(":")
        return int(g), parse_cell(c)
    except (ValueError, GridError):
        raise IllegalAction(f"{text!r} is not <grid>:<cell>, e.g. 2:F3") from None


def parse_action_text(text: str) -> Action:
    """Parse the notation.

    >>> parse_action_text("2:F3"), parse_action_text("propose 3 link 0:C4").text()
    (Claim(grid=2, cell=25), 'propose 3 link 0:C4')
    """
    words = text.strip().split()
    if not words:
        raise IllegalAction("empty action")
    if words == ["pass"]:
        return Pass()
    if words == ["desert"]:
        return Desert()
    if words == ["accept"]:
        return Accept()
    if words == ["decline"]:
        return Decline()
    if words[0] == "propose":
        try:
            partner = int(words[1])
        except (IndexError, ValueError):
            raise IllegalAction("write 'propose <seat> [link G:CELL] [master G:CELL]'") from None
        opts: dict[str, tuple[int, int]] = {}
        rest = words[2:]
        if len(rest) % 2:
            raise IllegalAction("write 'propose <seat> [link G:CELL] [master G:CELL]'")
        for key, value in zip(rest[::2], rest[1::2], strict=True):
            if key not in ("link", "master") or key in opts:
                raise IllegalAction(f"unexpected {key!r} in a proposal")
            opts[key] = _parse_ref(value)
        return Propose(partner, opts.get("link"), opts.get("master"))
    if len(words) == 1 and ":" in words[0]:
        g, c = _parse_ref(words[0])
        return Claim(g, c)
    raise IllegalAction(f"{text!r} is not an action (e.g. '2:F3', 'pass')")


# --- alliances ---------------------------------------------------------------


@dataclass(frozen=True)
class Team:
    """Up to three players held together by a Link Node ``(grid, node index)``."""

    members: frozenset[int]
    link: tuple[int, int] | None


@dataclass(frozen=True)
class Alliance:
    teams: tuple[Team, ...]
    master: tuple[int, int] | None = None

    @property
    def members(self) -> frozenset[int]:
        out: frozenset[int] = frozenset()
        for t in self.teams:
            out |= t.members
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "teams": [
                {"members": sorted(t.members), "link": list(t.link) if t.link else None}
                for t in self.teams
            ],
            "master": list(self.master) if self.master else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Alliance:
        teams = tuple(
            Team(frozenset(t["members"]), tuple(t["link"]) if t["link"] else None)
            for t in data["teams"]
        )
        return cls(teams, tuple(data["master"]) if data.get("master") else None)


@dataclass(frozen=True)
class Proposal:
    """An alliance offered by ``proposer`` to ``partner``, awaiting the answer.
    ``link``/``master`` are ``(grid, node index)`` like :class:`Team`."""

    proposer: int
    partner: int
    link: tuple[int, int] | None = None
    master: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "from": self.proposer,
            "to": self.partner,
            "link": list(self.link) if self.link else None,
            "master": list(self.master) if self.master else None,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Proposal | None:
        if data is None:
            return None
        if not isinstance(data, dict):
            raise TypeError("'pending' must be an object or null")
        link, master = data.get("link"), data.get("master")
        return cls(
            int(data["from"]),
            int(data["to"]),
            (int(link[0]), int(link[1])) if link else None,
            (int(master[0]), int(master[1])) if master else None,
        )


# --- options and state ----------------------------------------------------------


@dataclass(frozen=True)
class TableOptions:
    """Rulings where players could disagree (rules/RULINGS.md, "Business Card Games").

    ``ricochet`` / ``reflector``: the Deflector variants. ``deluxe`` / ``safety``:
    the Defector variants "Business Card Deluxe Collection" and "Safety Among
    Friends". ``first_player``: seat of the youngest player. ``capture_takes_claimed``:
    a captured Node also takes spaces third players had claimed in its range.
    ``endgame_after_elimination``: the "surviving players control all Nodes" ending
    applies only once someone has been eliminated (otherwise the first turn
    would satisfy it). ``alliance_victory``: an alliance holding every Node wins
    together instead of disbanding. ``max_plies``: a safety net; the game is drawn
    when reached.
    """

    ricochet: bool = False
    reflector: bool = False
    deluxe: bool = False
    safety: bool = False
    deflectors: int = 20
    first_player: int = 0
    capture_takes_claimed: bool = False
    endgame_after_elimination: bool = True
    alliance_victory: bool = False
    max_plies: int = 4000

    def __post_init__(self) -> None:
        for name, f in self.__dataclass_fields__.items():
            value = getattr(self, name)
            if isinstance(f.default, bool) and not isinstance(value, bool):
                raise BcgError(f"option {name} must be true or false, not {value!r}")
            if type(f.default) is int and (type(value) is not int):
                raise BcgError(f"option {name} must be a whole number, not {value!r}")
        if not 0 <= self.deflectors <= 95:
            raise BcgError("option deflectors must be 0..95 (a grid has 100 spaces, 5 Nodes)")
        if self.max_plies < 1:
            raise BcgError("option max_plies must be at least 1")


@dataclass(frozen=True)
class TableState:
    game: str  # "deflector" or "defector"
    layout_name: str
    players: int
    grids: tuple[GridState, ...]
    to_move: int
    homes: tuple[int, ...]  # per player: bitmask of grids treated as original grids
    eliminated: tuple[bool, ...]
    ply: int = 0
    result: Result | None = None
    options: TableOptions = field(default_factory=TableOptions)
    alliances: tuple[Alliance, ...] = ()
    divided: frozenset[tuple[int, int]] = frozenset()
    knows: tuple[int, ...] = ()  # per player: bitmask of players whose secrets it knows
    diplomacy_done: bool = False
    pending: Proposal | None = None  # an alliance proposal awaiting its answer

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def layout(self) -> Layout:
        return layout_for(self.game, self.players, self.layout_name)


def evolve(state: TableState, **changes: Any) -> TableState:
    """A copy of ``state`` with ``changes`` (a fast ``dataclasses.replace``)."""
    unknown = set(changes) - set(TableState.__dataclass_fields__)
    if unknown:
        raise TypeError(f"TableState has no field(s) {sorted(unknown)}")
    new = object.__new__(TableState)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


@cache
def layout_for(game: str, players: int, name: str) -> Layout:
    try:
        if game == "deflector":
            access = "partial" if name.endswith("partial") else "full"
            return deflector_layout(players, access)
        return defector_layout(players, name)
    except ValueError as error:
        raise BcgError(str(error)) from None


DEFLECTOR_THRESHOLD = {3: 10, 4: 13, 5: 15}


def new_table(
    game: str,
    players: int,
    layout_name: str,
    seed: int,
    options: TableOptions,
    nodes: list[list[int]] | None = None,
    deflectors: list[list[int]] | None = None,
) -> TableState:
    lay = layout_for(game, players, layout_name)
    rng = random.Random(seed)
    grids = []
    for p in range(players):
        ns = nodes[p] if nodes is not None else random_nodes(rng)
        if len(ns) != 5:
            raise BcgError(f"player {p} must place exactly 5 Control Nodes")
        ds = (
            deflectors[p]
            if deflectors is not None
            else random_deflectors(rng, ns, options.deflectors)
        )
        if len(ds) != options.deflectors:
            raise BcgError(f"player {p} must place exactly {options.deflectors} Deflectors")
        try:
            grids.append(GridState.new(p, players, ns, ds))
        except GridError as error:
            raise BcgError(f"player {p}: {error}") from None
    for _ in range(lay.grids - players):
        grids.append(GridState.new(None, players))
    if not 0 <= options.first_player < players:
        raise BcgError(f"first_player must be a seat 0..{players - 1}")
    return TableState(
        game=game,
        layout_name=lay.name if game == "deflector" else layout_name,
        players=players,
        grids=tuple(grids),
        to_move=options.first_player,
        homes=tuple(1 << p for p in range(players)),
        eliminated=(False,) * players,
        options=options,
        knows=tuple(1 << p for p in range(players)),
    )


# --- alliances helpers ----------------------------------------------------------


def alliance_of(state: TableState, player: int) -> Alliance | None:
    for a in state.alliances:
        if player in a.members:
            return a
    return None


def allied(state: TableState, a: int, b: int) -> bool:
    al = alliance_of(state, a)
    return al is not None and b in al.members


# --- movement ----------------------------------------------------------------


def access_masks(state: TableState, player: int) -> list[int]:
    """Per grid, the spaces ``player`` may claim now."""
    lay = state.layout
    grids = state.grids
    homes = state.homes[player]
    avail = [0] * len(grids)
    for g, grid in enumerate(grids):
        held = grid.held[player]
        if not held:
            continue
        # own original grids: only spaces won back with an I.D. mark lead anywhere
        src = held & grid.marked if (homes >> g) & 1 else held
        if not src:
            continue
        if state.options.deluxe and grid.owner not in (None, player) and not (homes >> g) & 1:
            avail[g] |= step_mask(src, grid.rotation)  # only "down", towards the owner
        else:
            avail[g] |= grow(src)
        for h, m in lay.across(g, src):
            avail[h] |= m
    # first move onto a grid from an original grid: anywhere along the contact
    for h, grid in enumerate(grids):
        if (homes >> h) & 1 or grid.held[player]:
            continue
        for g in range(len(grids)):
            if (homes >> g) & 1:
                avail[h] |= lay.contact(g, h)
    for h, grid in enumerate(grids):
        if avail[h]:
            avail[h] &= ~grid.held[player] & ~grid.controlled_cover(player)
    return avail


def legal_claims(state: TableState) -> list[Claim]:
    if state.is_over:
        return []
    out = []
    for g, m in enumerate(access_masks(state, state.to_move)):
        out.extend(Claim(g, c) for c in mask_cells(m))
    return out


def check_claim(state: TableState, action: Claim) -> None:
    if not 0 <= action.grid < len(state.grids):
        raise IllegalAction(f"there is no grid {action.grid}")
    if not 0 <= action.cell < 100:
        raise IllegalAction("not a cell of the grid")
    p = state.to_move
    grid = state.grids[action.grid]
    where = f"{action.text()}"
    if (grid.held[p] >> action.cell) & 1:
        raise IllegalAction(f"{where} is already your territory")
    if (grid.controlled_cover(p) >> action.cell) & 1:
        raise IllegalAction(f"{where} is covered by a Node you control")
    if not (access_masks(state, p)[action.grid] >> action.cell) & 1:
        if (state.homes[p] >> action.grid) & 1:
            raise IllegalAction(
                f"{where}: you cannot claim on your own original grid except next to "
                "territory won back from outside"
            )
        if state.options.deluxe and grid.owner not in (None, p):
            raise IllegalAction(f"{where} is not directly below your territory on that board")
        raise IllegalAction(f"{where} is not next to your territory nor on a reachable edge")


# --- shots ---------------------------------------------------------------------


def direction(players: int, shooter: int, target: int) -> int:
    """+1 (clockwise) or -1: the way a deflected shot travels round the table.

    >>> direction(4, 0, 1), direction(4, 0, 3), direction(4, 0, 2), direction(3, 1, 0)
    (1, -1, 1, -1)
    """
    dist = (target - shooter) % players
    if dist == 0 or 2 * dist <= players:
        return 1
    return -1


def next_board(state: TableState, seat: int, d: int, shooter: int) -> int:
    """The neighbouring player grid in direction ``d``; with "Safety Among Friends"
    the Shooter's teammates are skipped."""
    n = state.players
    for k in range(1, n + 1):
        s = (seat + d * k) % n
        if not state.options.safety or s == shooter or not allied(state, shooter, s):
            return s
    return (seat + d) % n


@dataclass
class _Shot:
    state: TableState
    shooter: int
    grids: list[GridState]
    events: list[Event]
    rotate: set[int]


def fire(state: TableState, shooter: int, g: int, cell: int) -> tuple[list[GridState], list[Event]]:
    """Resolve a shot; returns the new grids and events (no turn bookkeeping)."""
    shot = _Shot(state, shooter, list(state.grids), [], set())
    first_target = state.grids[g].owner
    d = direction(state.players, shooter, first_target) if first_target is not None else 1
    queue: deque[tuple[int, int, int, int, int, bool]] = deque([(g, cell, shooter, d, 0, False)])
    while queue:
        h, c, claimant, d, depth, conceded = queue.popleft()
        grid = shot.grids[h]
        if not conceded and (grid.deflectors >> c) & 1:
            shot.grids[h] = grid.spend_deflector(c)
            shot.events.append(Event("deflect", claimant, h, c, grid.owner, "deflector"))
            shot.rotate.add(h)
            if state.options.ricochet:
                queue.extend(_ricochet(shot, h, c, claimant, d, depth, first_target))
            else:
                nxt = next_board(state, h, d, shooter)
                queue.append((nxt, c, claimant, d, depth + 1, False))
            continue
        who = claimant
        returned = depth > 0 and grid.owner == shooter and claimant == shooter
        if returned and first_target is not None:
            who = first_target  # back on the Shooter's board: the original Target claims it
        more, changed = _impact(shot, h, c, who, d, depth)
        queue.extend(more)
        if (
            state.options.reflector
            and changed
            and not conceded
            and not returned
            and who == shooter
            and grid.owner not in (None, shooter)
        ):
            # "Reflector Deflector": the Target gains the same space on the Shooter's board
            shot.events.append(Event("reflect", grid.owner, shooter, c, shooter))
            queue.append((shooter, c, grid.owner, 1, depth, True))
    if state.options.deluxe:
        for h in sorted(shot.rotate):
            if shot.grids[h].owner is not None:
                shot.grids[h] = shot.grids[h].rotated()
                shot.events.append(Event("rotate", None, h, None, shot.grids[h].owner))
    return shot.grids, shot.events


def _impact(
    shot: _Shot, h: int, c: int, who: int, d: int, depth: int
) -> tuple[list[tuple[int, int, int, int, int, bool]], bool]:
    grid = shot.grids[h]
    shot.rotate.add(h)
    if (grid.held[who] >> c) & 1 or (grid.controlled_cover(who) >> c) & 1:
        shot.events.append(Event("noop", who, h, c, grid.owner))
        return [], False
    idx = grid.node_index(c)
    if idx is None:
        holder = grid.holder(c)
        answer = "owned" if (grid.cover() >> c) & 1 else "null"
        shot.grids[h] = grid.claim(c, who)
        target = holder if holder is not None else grid.owner
        shot.events.append(Event("claim", who, h, c, target, answer))
        return [], True
    grid, rep = grid.capture(idx, who, take_claimed=shot.state.options.capture_takes_claimed)
    shot.grids[h] = grid
    shot.events.append(Event("capture", who, h, c, rep.previous, "node", (rep.taken.bit_count(),)))
    if rep.retained:
        shot.events.append(Event("retain", rep.previous, h, None, who))
    for n in mask_cells(rep.revealed & ~(1 << c)):
        shot.events.append(Event("reveal", None, h, n, grid.owner, "node"))
    more = []
    for dc in mask_cells(rep.activated):
        shot.events.append(Event("activate", who, h, dc, grid.owner, "deflector"))
        if shot.state.options.ricochet:
            more.extend(_ricochet(shot, h, dc, who, d, depth, grid.owner))
        else:
            nxt = next_board(shot.state, h, d, shot.shooter)
            more.append((nxt, dc, who, d, depth + 1, False))
    return more, True


def _ricochet(
    shot: _Shot, h0: int, c0: int, claimant: int, d: int, depth: int, first_target: int | None
) -> list[tuple[int, int, int, int, int, bool]]:
    """ "Ricochet": the shot runs along the row (clockwise = towards Column A, then the
    next board in from Column J) until it meets a Deflector or a Node."""
    state = shot.state
    r = row(c0)
    h, x = h0, column(c0)
    own_board = h0
    seen = {(h0, c0, d)}
    limit = 10 * state.players * 4 + 40
    for _ in range(limit):
        x -= d
        if x < 0 or x > 9:
            h = next_board(state, h, d, shot.shooter)
            x = 9 if d == 1 else 0
        c = (r - 1) * 10 + x
        if (h, c, d) in seen:
            # all the way round without meeting anything: the original space is taken
            return [(h0, c0, claimant, d, depth + 1, True)]
        seen.add((h, c, d))
        grid = shot.grids[h]
        if (grid.deflectors >> c) & 1:
            shot.grids[h] = grid.spend_deflector(c)
            shot.events.append(Event("deflect", claimant, h, c, grid.owner, "deflector"))
            shot.rotate.add(h)
            if h == own_board:
                d = -d  # a second Deflector on the Target's own board reverses the shot
            continue
        idx = grid.node_index(c)
        taker = claimant
        if grid.owner == shot.shooter and claimant == shot.shooter and first_target is not None:
            taker = first_target  # on the Shooter's own board the original Target claims
        if idx is not None and grid.control[idx] != taker:
            return [(h, c, claimant, d, depth + 1, False)]
    return [(h0, c0, claimant, d, depth + 1, True)]


# --- status: original grids, elimination, victory --------------------------------


def update_homes(
    state: TableState, grids: list[GridState], events: list[Event]
) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    """Grids whose every Node one player controls become that player's original
    grid; a grid stops being one when the player controls none of its Nodes."""
    homes = list(state.homes)
    for h, grid in enumerate(grids):
        if not grid.nodes:
            continue
        control = grid.control
        first = control[0]
        if all(c == first for c in control) and not (homes[first] >> h) & 1:
            homes[first] |= 1 << h
            events.append(Event("home", first, h))
        bit = 1 << h
        for p in range(state.players):
            if homes[p] & bit and p not in control:
                homes[p] &= ~bit
    return tuple(homes), state.eliminated


def node_counts(state: TableState) -> list[int]:
    counts = [0] * state.players
    for grid in state.grids:
        for c in grid.control:
            counts[c] += 1
    return counts


def next_player(state: TableState) -> int:
    n = state.players
    for k in range(1, n + 1):
        p = (state.to_move + k) % n
        if not state.eliminated[p]:
            return p
    return state.to_move


# --- JSON and views ----------------------------------------------------------------


def table_to_json(state: TableState) -> dict[str, Any]:
    return {
        "format": "bcg-state/1",
        "game": state.game,
        "players": state.players,
        "layout": state.layout_name,
        "options": state.options.__dict__.copy(),
        "to_move": state.to_move,
        "ply": state.ply,
        "result": state.result.to_json() if state.result else None,
        "homes": [[g for g in range(len(state.grids)) if (m >> g) & 1] for m in state.homes],
        "eliminated": list(state.eliminated),
        "alliances": [a.to_json() for a in state.alliances],
        "divided": sorted([list(p) for p in state.divided]),
        "knows": [[q for q in range(state.players) if (m >> q) & 1] for m in state.knows],
        "diplomacy_done": state.diplomacy_done,
        "pending": state.pending.to_json() if state.pending else None,
        "grids": [g.to_json() for g in state.grids],
    }


def table_from_json(data: dict[str, Any], game: str, options_cls: type) -> TableState:
    from piecebridge.rules.bcg.common import options_from_json

    if data.get("game") != game:
        raise BcgError(f"not a {game} state (game={data.get('game')!r})")
    try:
        players = int(data["players"])
        grids = tuple(GridState.from_json(g) for g in data["grids"])
        state = TableState(
            game=game,
            layout_name=str(data["layout"]),
            players=players,
            grids=grids,
            to_move=int(data["to_move"]),
            homes=tuple(sum(1 << g for g in gs) for gs in data["homes"]),
            eliminated=tuple(bool(e) for e in data["eliminated"]),
            ply=int(data.get("ply", 0)),
            result=Result.from_json(data.get("result")),
            options=options_from_json(options_cls, data.get("options")),
            alliances=tuple(Alliance.from_json(a) for a in data.get("alliances", [])),
            divided=frozenset(tuple(sorted(p)) for p in data.get("divided", [])),
            knows=tuple(sum(1 << q for q in qs) for qs in data["knows"]),
            diplomacy_done=bool(data.get("diplomacy_done", False)),
            pending=Proposal.from_json(data.get("pending")),
        )
    except (KeyError, TypeError, ValueError, IndexError, GridError) as error:
        raise BcgError(f"bad {game} state: {error}") from None
    if len(state.grids) != state.layout.grids:
        raise BcgError(f"layout {state.layout_name} needs {state.layout.grids} grids")
    n = state.players
    if not 0 <= state.to_move < n or len(state.homes) != n or len(state.eliminated) != n:
        raise BcgError(f"bad {game} state: to_move, homes and eliminated must fit {n} players")
    if len(state.knows) != n:
        raise BcgError(f"bad {game} state: 'knows' must list {n} players")
    pend = state.pending
    if pend is not None and (pend.proposer != state.to_move or not state.diplomacy_done):
        raise BcgError(f"bad {game} state: a pending proposal is the move of the player to move")
    if pend is not None and not (0 <= pend.partner < n and pend.partner != pend.proposer):
        raise BcgError(f"bad {game} state: the pending proposal names no other seat in 0..{n - 1}")
    for g, grid in enumerate(state.grids):
        try:
            grid.check(n)
        except GridError as error:
            raise BcgError(f"bad {game} state: grid {g}: {error}") from None
    return state


def table_view(state: TableState, player: int) -> dict[str, Any]:
    """What ``player`` may know: its own grid and those of players whose secrets it
    shares (allies, past and present) in full, every other grid as its Public Grid."""
    know = state.knows[player]
    out = table_to_json(state)
    del out["format"]
    out["you"] = player
    out["grids"] = [
        g.private() if g.owner is not None and (know >> g.owner) & 1 else g.public()
        for g in state.grids
    ]
    # Which Control Node serves as a Link or Master Node is the allies' secret
    # ("marked off on Private grids"): outsiders see who is allied, not where.
    for shown, al in zip(out["alliances"], state.alliances, strict=True):
        if player not in al.members:
            shown["master"] = None
            for team in shown["teams"]:
                team["link"] = None
    pend = state.pending
    if pend is not None and player not in (pend.proposer, pend.partner):
        out["pending"] = {**out["pending"], "link": None, "master": None}
    return out


def acting_player(state: TableState) -> int:
    """Who must act now: the proposed partner while a proposal awaits its answer,
    otherwise the player to move."""
    return state.pending.partner if state.pending is not None else state.to_move


def with_result(state: TableState, result: Result | None, events: list[Event]) -> TableState:
    if result is None:
        return state
    events.append(Event("win" if result.winners else "draw", None, detail=(result.reason,)))
    return evolve(state, result=result)


def render_table(state: TableState, player: int | None = None) -> str:
    """Every grid as text: the whole truth, or what ``player`` may see."""
    from piecebridge.rules.bcg.render import render_view

    if player is None:
        v = table_view(state, 0)
        v["grids"] = [g.private() for g in state.grids]
        v["you"] = None
    else:
        if not 0 <= player < state.players:
            raise BcgError(f"there are players 0..{state.players - 1}")
        v = table_view(state, player)
    return render_view(v)
