"""Defector: layouts, alliances, Link and Master Nodes, defection, victory, variants."""

import pytest
from piecebridge.rules.bcg import defector as F
from piecebridge.rules.bcg.common import BcgError, IllegalAction
from piecebridge.rules.bcg.grid import COL_MASK, ROW_MASK, parse_cell, step_mask
from piecebridge.rules.bcg.table import (
    Ally,
    Claim,
    Desert,
    TableOptions,
    access_masks,
    alliance_of,
    evolve,
)


def c(name):
    return parse_cell(name)


FAR = ["A10", "C10", "E10", "G10", "I10"]


def game(players=6, layout="full", nodes=None, defl=None, **opts):
    nodes = nodes or [FAR] * players
    defl = defl or [["J9"] for _ in range(players)]
    return F.new_game(
        players=players,
        layout=layout,
        nodes=[[c(x) for x in ns] for ns in nodes],
        deflectors=[[c(x) for x in ds] for ds in defl],
        options=TableOptions(deflectors=len(defl[0]), **opts),
    )


def act(state, *texts):
    for t in texts:
        state, _ = F.apply(state, F.parse_action(state, t))
    return state


def ally_pair(state, a, b, link="A10"):
    """Player ``a`` (to move) allies with ``b`` around ``a``'s Node ``link``."""
    assert state.to_move == a
    return act(state, f"ally {b} link {a}:{link}")


def next_turn(state):
    """The player to move claims some legal space (ends the turn)."""
    claims = [x for x in F.legal_actions(state) if isinstance(x, Claim)]
    state, _ = F.apply(state, claims[0])
    return state


def test_layouts_full_access_and_island():
    s = game()
    masks = access_masks(s, 0)
    assert masks[0] == 0 and all(masks[g] == ROW_MASK[0] for g in range(1, 6))
    island = game(layout="island")
    assert len(island.grids) == 8  # two empty centre grids
    assert island.grids[6].nodes == () and island.grids[6].owner is None
    m = access_masks(island, 0)
    assert [g for g, x in enumerate(m) if x] == [6]
    for p in range(6):
        assert all(g >= 6 for g in island.layout.touching(p))


def test_alliance_with_link_node_shares_secrets_and_keeps_the_turn():
    s = ally_pair(game(), 0, 1)
    al = alliance_of(s, 0)
    assert al.members == {0, 1} and al.teams[0].link == (0, 0)
    assert s.to_move == 0 and s.diplomacy_done
    assert F.view(s, 0)["grids"][1]["nodes"]  # ally's secret Nodes are visible
    assert "deflectors" in F.view(s, 1)["grids"][0]
    assert F.view(s, 2)["grids"][0]["nodes"] == {}
    with pytest.raises(IllegalAction, match="one alliance move"):
        F.apply(s, Ally(2, link=(0, c("C10"))))
    s = next_turn(s)
    assert s.to_move == 1 and not s.diplomacy_done


def test_ally_rules_for_link_and_master():
    s = game()
    with pytest.raises(IllegalAction, match="name a link"):
        F.apply(s, Ally(1))
    with pytest.raises(IllegalAction, match="one of you controls"):
        F.apply(s, Ally(1, link=(2, c("A10"))))
    with pytest.raises(IllegalAction, match="not a Control Node"):
        F.apply(s, Ally(1, link=(0, c("B10"))))
    s = next_turn(ally_pair(s, 0, 1))  # {0,1}
    s = next_turn(s)  # player 1 moves
    s = next_turn(act(s, "ally 1"))  # player 2 joins the team: three on one Link
    assert alliance_of(s, 2).members == {0, 1, 2} and len(alliance_of(s, 2).teams) == 1
    with pytest.raises(IllegalAction, match="name a master"):
        F.apply(s, Ally(0))
    with pytest.raises(IllegalAction, match="already a Link"):
        F.apply(s, Ally(0, master=(0, c("A10"))))
    s = next_turn(act(s, "ally 0 master 3:C10"))  # player 3: a Master Node holds four
    al = alliance_of(s, 3)
    assert al.members == {0, 1, 2, 3} and al.master == (3, 1)
    s = next_turn(act(s, "ally 3"))  # player 4 joins under the Master Node
    assert alliance_of(s, 4).members == {0, 1, 2, 3, 4}


def _capture(state, grid, index, player):
    grids = list(state.grids)
    grids[grid], _ = grids[grid].capture(index, player)
    return evolve(state, grids=tuple(grids))


def _after_shot(state):
    """Run the post-shot bookkeeping of a claim by the player to move."""
    return next_turn(state)


def test_link_captured_disbands_and_old_allies_never_reform():
    s = next_turn(ally_pair(game(), 0, 1))
    s = _capture(s, 0, 0, 4)  # an outsider takes the Link Node
    s = _after_shot(s)
    assert alliance_of(s, 0) is None and (0, 1) in s.divided
    s = act(s, *[])
    while s.to_move != 0:
        s = next_turn(s)
    with pytest.raises(IllegalAction, match="never re-form"):
        F.apply(s, Ally(1, link=(0, c("C10"))))


def test_master_captured_splits_into_link_teams():
    s = next_turn(ally_pair(game(), 0, 1))
    s = next_turn(s)
    s = next_turn(act(s, "ally 1"))  # {0,1,2}
    s = next_turn(act(s, "ally 0 master 3:C10"))  # + 3
    s = _after_shot(_capture(s, 3, 1, 5))  # player 5 takes the Master Node
    assert alliance_of(s, 0).members == {0, 1, 2}
    assert alliance_of(s, 3) is None
    assert (0, 3) in s.divided and (0, 1) not in s.divided


def test_link_under_master_captured_breaks_only_that_team():
    s = next_turn(ally_pair(game(), 0, 1))
    s = next_turn(s)
    s = next_turn(act(s, "ally 1"))  # {0,1,2} on Link 0:A10
    s = next_turn(act(s, "ally 0 master 3:C10"))
    s = _after_shot(_capture(s, 0, 0, 5))  # the Link Node falls, the Master holds
    al = alliance_of(s, 0)
    assert al.members == {0, 1, 2, 3}
    assert all(len(t.members) == 1 for t in al.teams)


def test_desertion_and_defection():
    s = next_turn(ally_pair(game(), 0, 1))
    s = next_turn(act(s, "desert"))  # player 1 deserts
    assert alliance_of(s, 0) is None and (0, 1) in s.divided
    s = next_turn(ally_pair(s, 2, 3, "C10"))  # {2,3}
    s = next_turn(s)  # 3
    s = next_turn(s)  # 4
    s = next_turn(s)  # 5
    s = next_turn(s)  # 0
    s = next_turn(s)  # 1
    s = act(s, "ally 4 link 4:A10") if False else s
    # player 2 defects to player 4: leaves {2,3}, which dissolves
    s = next_turn(act(s, "ally 4 link 4:A10"))
    assert alliance_of(s, 2).members == {2, 4}
    assert alliance_of(s, 3) is None and (2, 3) in s.divided
    # a defector keeps what it learnt, and its old ally keeps its secrets too
    assert (s.knows[2] >> 3) & 1 and (s.knows[3] >> 2) & 1
    with pytest.raises(IllegalAction, match="not in an alliance"):
        F.apply(s, Desert())


def test_elimination_is_deferred_while_allied():
    s = next_turn(ally_pair(game(), 0, 1, "A10"))
    for i in range(5):
        s = _capture(s, 1, i, 3)  # player 1 loses every Node of its grid
    s = _after_shot(s)
    assert not s.eliminated[1]
    while s.to_move != 1:
        s = next_turn(s)
    s, events = F.apply(s, Desert())
    assert s.eliminated[1] and "eliminate" in [e.kind for e in events]
    assert s.to_move == 2  # the eliminated player's turn ends


def test_majority_of_nodes_wins():
    s = game()
    for g in (1, 2, 3):
        for i in range(5):
            s = _capture(s, g, i, 0)
    s = _capture(s, 4, 0, 0)  # 21 of 30
    s = _after_shot(s)
    assert s.result.winners == (0,)


def test_alliance_holding_every_node_disbands_or_wins():
    base = next_turn(ally_pair(game(), 0, 1))
    s = base
    for g in (2, 3, 4, 5):
        for i in range(5):
            s = _capture(s, g, i, 0 if g < 4 else 1)
    # player 0: 15 of 30 -- not a majority; the alliance holds everything
    done = _after_shot(s)
    assert alliance_of(done, 0) is None
    assert (0, 1) in done.divided
    assert done.result is None  # two players hold every Node, 15 each: play on
    opt = evolve(s, options=TableOptions(deflectors=1, alliance_victory=True))
    won = _after_shot(opt)
    assert won.result.winners == (0, 1)


def test_fewer_than_four_holders_most_nodes_wins():
    s = game()
    for g, p in ((3, 0), (4, 1), (5, 2)):
        for i in range(5):
            s = _capture(s, g, i, p)
    s = _capture(s, 2, 0, 0)
    s = evolve(s, eliminated=(False, False, False, True, True, True))
    s = _after_shot(s)
    assert s.result.winners == (0,)


def test_safety_among_friends_skips_teammates():
    nodes = [FAR] * 6
    defl = [["A5"], ["J1"], ["J1"], ["J1"], ["A6"], ["A7"]]
    s = game(nodes=nodes, defl=defl, safety=True)
    s = ally_pair(s, 0, 2)
    s, _ = F.apply(s, Claim(1, c("J1")))
    # deflected clockwise from grid 1: grid 2 is an ally of the Shooter, skipped
    assert s.grids[2].holder(c("J1")) is None and (s.grids[2].deflectors >> c("J1")) & 1
    assert (s.grids[3].spent >> c("J1")) & 1  # grid 3's Deflector took the shot on
    assert s.grids[4].holder(c("J1")) == 0


def test_deluxe_moves_only_down_and_boards_rotate():
    s = game(deluxe=True)
    s, events = F.apply(s, Claim(1, c("E1")))
    assert s.grids[1].rotation == 1 and "rotate" in [e.kind for e in events]
    while s.to_move != 0:
        s = next_turn(s)
    g1 = s.grids[1]
    held = g1.held[0]
    m = access_masks(s, 0)[1]
    assert m == step_mask(held, g1.rotation) & ~held & ~g1.controlled_cover(0)
    with pytest.raises(IllegalAction, match="below"):
        F.apply(s, Claim(1, c("E2") if g1.rotation != 0 else c("D1")))


def test_bad_defector_setups():
    with pytest.raises(BcgError, match="6 or more"):
        F.new_game(players=5)
    with pytest.raises(BcgError, match="no layout"):
        F.new_game(players=6, layout="ring")
    assert COL_MASK[0]
