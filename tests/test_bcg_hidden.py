"""Hidden information, as properties over random legal play (hypothesis).

1. A player's view depends only on what that player may know: two states that agree
   on everything the player can see but differ in the secrets of other grids
   (unrevealed Node placements and controllers, unused Deflectors, silent holdings,
   other alliances' Link and Master Nodes) give the same view, and the same JSON.
2. No view ever contains another player's unrevealed Node, unused Deflector or
   silent holding, at any ply of random legal play.
"""

import json
import random

from bcg_views import grids_of, knows, players_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from piecebridge.rules.bcg import defector, deflector, reflector
from piecebridge.rules.bcg.bots import choose
from piecebridge.rules.bcg.grid import GridState, cell_name, cover_mask, mask_cells, parse_mask
from piecebridge.rules.bcg.table import Alliance, TableOptions, Team, evolve

SETUPS = [
    (reflector, 2, None, None),
    (deflector, 3, "3", TableOptions()),
    (deflector, 4, "4-partial", TableOptions(ricochet=True)),
    (deflector, 5, "5-full", TableOptions(reflector=True)),
    (defector, 6, "full", TableOptions()),
    (defector, 7, "island", TableOptions(safety=True)),
    (defector, 6, "full", TableOptions(deluxe=True)),
]
FAST = settings(max_examples=14, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def start(setup, seed):
    module, players, layout, options = setup
    if module is reflector:
        return module.new_game(seed=seed)
    return module.new_game(players=players, layout=layout, seed=seed, options=options)


def play(module, state, rng, plies, kind):
    for _ in range(plies):
        if state.is_over:
            break
        state, _ = module.apply(state, choose(state, rng, kind))
    return state


def reshuffle_secrets(grid, players, rng):
    """A grid with the same public face and different secrets: unrevealed Nodes
    moved (and given new controllers), new unused Deflectors, new silent holdings."""
    visible = grid.marked | grid.shaded
    public_cells = visible | grid.revealed | grid.spent
    free = [c for c in range(100) if not (public_cells >> c) & 1]
    rng.shuffle(free)
    nodes, control = list(grid.nodes), list(grid.control)
    for i, n in enumerate(grid.nodes):
        if not (grid.revealed >> n) & 1:
            nodes[i] = free.pop()
            control[i] = rng.randrange(players)
    deflectors = 0
    for c in free[: rng.randrange(len(free) + 1)]:
        deflectors |= 1 << c
    silent = [0] * players
    for c in mask_cells(cover_mask(tuple(nodes)) & ~visible):
        silent[rng.randrange(players)] |= 1 << c
    held = tuple((m & visible) | silent[p] for p, m in enumerate(grid.held))
    return GridState(
        owner=grid.owner,
        nodes=tuple(nodes),
        control=tuple(control),
        held=held,
        marked=grid.marked,
        shaded=grid.shaded,
        revealed=grid.revealed,
        deflectors=deflectors,
        spent=grid.spent,
        rotation=grid.rotation,
    )


def other_alliances_moved(state, player, rng):
    """Alliances ``player`` is not in get other Link and Master Nodes."""
    out = []
    for al in state.alliances:
        if player in al.members:
            out.append(al)
            continue
        teams = tuple(
            Team(t.members, (rng.randrange(len(state.grids)), rng.randrange(5)) if t.link else None)
            for t in al.teams
        )
        master = (rng.randrange(len(state.grids)), rng.randrange(5)) if al.master else None
        out.append(Alliance(teams, master))
    return tuple(out)


def twin(state, player, rng):
    """``state`` with every secret ``player`` may not know replaced."""
    n = players_of(state)
    grids = tuple(
        g if knows(state, player, g.owner) else reshuffle_secrets(g, n, rng)
        for g in grids_of(state)
    )
    if hasattr(state, "boards"):
        return type(state)(**{**state.__dict__, "boards": grids})
    return evolve(state, grids=grids, alliances=other_alliances_moved(state, player, rng))


@FAST
@given(
    which=st.integers(0, len(SETUPS) - 1),
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 150),
    kind=st.sampled_from(["random", "greedy"]),
    salt=st.integers(0, 10_000),
)
def test_a_view_does_not_change_when_hidden_information_does(which, seed, plies, kind, salt):
    module = SETUPS[which][0]
    state = play(module, start(SETUPS[which], seed), random.Random(seed), plies, kind)
    rng = random.Random(salt)
    for player in range(players_of(state)):
        other = twin(state, player, rng)
        seen, seen_twin = module.view(state, player), module.view(other, player)
        assert seen == seen_twin
        assert json.dumps(seen, sort_keys=True) == json.dumps(seen_twin, sort_keys=True)


def assert_no_leak(module, state):
    for player in range(players_of(state)):
        shown_all = json.loads(json.dumps(module.view(state, player)))
        for grid, shown in zip(grids_of(state), shown_all["grids"], strict=True):
            if knows(state, player, grid.owner):
                continue
            text = json.dumps(shown)
            for n in grid.nodes:
                if not (grid.revealed >> n) & 1:
                    # an unrevealed Node's cell never appears in that grid's view at all
                    assert f'"{cell_name(n)}"' not in text
            assert "deflectors" not in shown
            visible = grid.marked | grid.shaded
            assert all(parse_mask(cells) & ~visible == 0 for cells in shown["held"])
        for al, shown in zip(
            getattr(state, "alliances", ()), shown_all.get("alliances", ()), strict=True
        ):
            if player not in al.members:
                assert shown["master"] is None and all(t["link"] is None for t in shown["teams"])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.integers(0, len(SETUPS) - 1),
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["random", "greedy"]),
)
def test_no_view_ever_shows_another_players_secrets(which, seed, kind):
    module = SETUPS[which][0]
    state = start(SETUPS[which], seed)
    rng = random.Random(seed)
    assert_no_leak(module, state)
    for _ in range(60):
        if state.is_over:
            break
        state, _ = module.apply(state, choose(state, rng, kind))
        assert_no_leak(module, state)


def test_the_twin_really_differs_in_secrets():
    """The property above is not vacuous: the twin moves hidden Nodes."""
    state = play(deflector, start(SETUPS[1], 5), random.Random(5), 30, "random")
    other = twin(state, 0, random.Random(1))
    moved = [a.nodes != b.nodes for a, b in zip(state.grids[1:], other.grids[1:], strict=True)]
    assert any(moved) and state.grids[0] == other.grids[0]
    assert deflector.view(other, 0) == deflector.view(state, 0)
    assert deflector.view(other, 1) != deflector.view(state, 1)  # grid 1 is player 1's own
