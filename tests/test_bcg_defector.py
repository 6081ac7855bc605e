"""Defector: layouts, alliances, Link and Master Nodes, defection, victory, variants."""

import pytest
from piecebridge.rules.bcg import defector as F
from piecebridge.rules.bcg import deflector as D
from piecebridge.rules.bcg.common import BcgError, IllegalAction
from piecebridge.rules.bcg.grid import COL_MASK, ROW_MASK, parse_cell, step_mask
from piecebridge.rules.bcg.table import (
    Accept,
    Claim,
    Decline,
    Desert,
    Propose,
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


def agree(state, proposal):
    """The player to move proposes; the partner accepts."""
    return act(state, proposal, "accept")


def ally_pair(state, a, b, link="A10"):
    """Player ``a`` (to move) allies with ``b`` around ``a``'s Node ``link``."""
    assert state.to_move == a
    return agree(state, f"propose {b} link {a}:{link}")


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
        F.apply(s, Propose(2, link=(0, c("C10"))))
    s = next_turn(s)
    assert s.to_move == 1 and not s.diplomacy_done


def test_ally_rules_for_link_and_master():
    s = game()
    with pytest.raises(IllegalAction, match="name a link"):
        F.apply(s, Propose(1))
    with pytest.raises(IllegalAction, match="one of you controls"):
        F.apply(s, Propose(1, link=(2, c("A10"))))
    with pytest.raises(IllegalAction, match="not a Control Node"):
        F.apply(s, Propose(1, link=(0, c("B10"))))
    s = next_turn(ally_pair(s, 0, 1))  # {0,1}
    s = next_turn(s)  # player 1 moves
    s = next_turn(agree(s, "propose 1"))  # player 2 joins the team: three on one Link
    assert alliance_of(s, 2).members == {0, 1, 2} and len(alliance_of(s, 2).teams) == 1
    with pytest.raises(IllegalAction, match="name a master"):
        F.apply(s, Propose(0))
    with pytest.raises(IllegalAction, match="already a Link"):
        F.apply(s, Propose(0, master=(0, c("A10"))))
    s = next_turn(agree(s, "propose 0 master 3:C10"))  # player 3: a Master Node holds four
    al = alliance_of(s, 3)
    assert al.members == {0, 1, 2, 3} and al.master == (3, 1)
    s = next_turn(agree(s, "propose 3"))  # player 4 joins under the Master Node
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
        F.apply(s, Propose(1, link=(0, c("C10"))))


def test_master_captured_splits_into_link_teams():
    s = next_turn(ally_pair(game(), 0, 1))
    s = next_turn(s)
    s = next_turn(agree(s, "propose 1"))  # {0,1,2}
    s = next_turn(agree(s, "propose 0 master 3:C10"))  # + 3
    s = _after_shot(_capture(s, 3, 1, 5))  # player 5 takes the Master Node
    assert alliance_of(s, 0).members == {0, 1, 2}
    assert alliance_of(s, 3) is None
    assert (0, 3) in s.divided and (0, 1) not in s.divided


def test_link_under_master_captured_breaks_only_that_team():
    s = next_turn(ally_pair(game(), 0, 1))
    s = next_turn(s)
    s = next_turn(agree(s, "propose 1"))  # {0,1,2} on Link 0:A10
    s = next_turn(agree(s, "propose 0 master 3:C10"))
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
    # player 2 defects to player 4: leaves {2,3}, which dissolves
    s = next_turn(agree(s, "propose 4 link 4:A10"))
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


# --- alliance proposals: propose -> accept / decline -------------------------------


def test_a_proposal_waits_for_the_partners_answer():
    s = game()
    s, events = F.apply(s, Propose(1, link=(0, c("A10"))))
    assert [e.kind for e in events] == ["propose"]
    assert alliance_of(s, 0) is None  # nothing formed yet
    assert s.pending.proposer == 0 and s.pending.partner == 1 and s.pending.link == (0, 0)
    assert F.acting_player(s) == 1 and s.to_move == 0
    assert F.legal_actions(s) == [Accept(), Decline()]
    with pytest.raises(IllegalAction, match="must first accept or decline"):
        F.apply(s, Claim(1, c("E1")))  # the proposer cannot shoot before the answer
    with pytest.raises(IllegalAction, match="must first accept or decline"):
        F.apply(s, Desert())
    s, events = F.apply(s, Accept())
    assert alliance_of(s, 1).members == {0, 1} and s.pending is None
    assert "ally" in [e.kind for e in events]
    assert s.to_move == 0 and F.acting_player(s) == 0  # the proposer now shoots
    assert all(isinstance(a, Claim) for a in F.legal_actions(s))


def test_a_declined_proposal_changes_nothing_and_spends_the_alliance_move():
    s = game()
    s, _ = F.apply(s, Propose(1, link=(0, c("A10"))))
    s, events = F.apply(s, Decline())
    assert [e.kind for e in events] == ["decline"]
    assert s.alliances == () and s.pending is None and s.divided == frozenset()
    assert s.knows[0] == 1 and s.knows[1] == 2  # no secrets shared
    with pytest.raises(IllegalAction, match="one alliance move"):
        F.apply(s, Propose(2, link=(0, c("A10"))))  # one proposal a turn
    s = next_turn(s)
    assert s.to_move == 1
    s = agree(s, "propose 0 link 1:A10")  # asking again on a later turn is fine
    assert alliance_of(s, 0).members == {0, 1}


def test_answers_only_to_a_pending_proposal_and_only_at_the_start_of_a_turn():
    s = game()
    with pytest.raises(IllegalAction, match="no alliance proposal"):
        F.apply(s, Accept())
    with pytest.raises(IllegalAction, match="no alliance proposal"):
        F.apply(s, Decline())
    s = act(s, "propose 1 link 0:A10")
    with pytest.raises(IllegalAction, match="first answer"):
        F.check_propose(s, Propose(2, link=(0, c("A10"))))
    # once the player has shot, the turn is over: proposals belong to the next start
    s = next_turn(act(s, "decline"))
    assert s.to_move == 1 and not s.diplomacy_done and s.pending is None


def test_defection_happens_only_when_the_new_partner_accepts():
    s = next_turn(ally_pair(game(), 0, 1))  # {0,1}; player 1 to move
    s = next_turn(s)  # player 2
    s = next_turn(s)  # 3
    s = next_turn(s)  # 4
    s = next_turn(s)  # 5
    s = next_turn(s)  # 0
    assert s.to_move == 0
    declined = next_turn(act(s, "propose 2 link 0:C10", "decline"))  # 0 asks 2: refused
    assert alliance_of(declined, 0).members == {0, 1} and declined.divided == frozenset()
    defected = act(s, "propose 2 link 0:C10", "accept")
    assert alliance_of(defected, 0).members == {0, 2}
    assert alliance_of(defected, 1) is None and (0, 1) in defected.divided


def test_divided_players_can_never_propose_again():
    s = next_turn(ally_pair(game(), 0, 1))
    s = next_turn(act(s, "desert"))  # player 1 deserts: 0 and 1 are divided
    while s.to_move != 0:
        s = next_turn(s)
    with pytest.raises(IllegalAction, match="never re-form"):
        F.apply(s, Propose(1, link=(0, c("C10"))))
    assert not any(
        isinstance(a, Propose) and a.partner == 1 for a in F.diplomacy_actions(s)
    )  # nor is it offered as a legal action


def test_the_link_node_stays_secret_from_outsiders():
    s = act(game(), "propose 1 link 0:C10")
    assert F.view(s, 1)["pending"] == {"from": 0, "to": 1, "link": [0, 1], "master": None}
    assert F.view(s, 2)["pending"] == {"from": 0, "to": 1, "link": None, "master": None}
    s = act(s, "accept")
    assert F.view(s, 0)["alliances"][0]["teams"][0]["link"] == [0, 1]
    outsider = F.view(s, 3)["alliances"][0]
    assert outsider["teams"][0]["members"] == [0, 1] and outsider["teams"][0]["link"] is None
    assert "proposes" in F.render(act(game(), "propose 1 link 0:C10"))


def test_a_pending_proposal_survives_json_and_bad_ones_are_refused():
    s = act(game(), "propose 1 link 0:C10")
    data = F.to_json(s)
    assert F.from_json(data) == s
    data["pending"]["link"] = [0, 9]  # grid 0 has five Nodes: no Node 9
    with pytest.raises(BcgError, match="does not exist"):
        F.from_json(data)
    data["pending"] = {"from": 0, "to": 17, "link": None, "master": None}
    with pytest.raises(BcgError, match="no other seat"):
        F.from_json(data)


@pytest.mark.parametrize(
    ("pending", "reason"),
    [
        ("propose 1", "must be an object"),
        ({"from": 0, "to": 0, "link": [0, 0], "master": None}, "no other seat"),
        ({"from": 2, "to": 1, "link": [0, 0], "master": None}, "player to move"),
        ({"from": 0, "to": 1, "link": [3, 0], "master": None}, "could not be made"),
    ],
    ids=["not an object", "to oneself", "not the mover's", "a Node neither controls"],
)
def test_a_forged_pending_proposal_is_refused(pending, reason):
    data = F.to_json(act(game(), "propose 1 link 0:C10"))
    data["pending"] = pending
    with pytest.raises(BcgError, match=reason):
        F.from_json(data)


def test_deflector_states_hold_no_alliance_proposal():
    data = D.to_json(D.new_game(players=3, seed=1))
    data["pending"] = {"from": 0, "to": 1, "link": None, "master": None}
    data["diplomacy_done"] = True  # as it would be after a proposal, were there one
    with pytest.raises(BcgError, match="no alliances"):
        D.from_json(data)


# --- elimination and its two escapes; big alliances ---------------------------------


def test_a_player_holding_a_whole_other_grid_is_not_eliminated():
    s = game()
    for i in range(5):
        s = _capture(s, 3, i, 1)  # player 1 takes all five Nodes of grid 3
        s = _capture(s, 1, i, 4)  # and loses all of its own
    s = _after_shot(s)
    assert not s.eliminated[1] and s.homes[1] == 1 << 3  # grid 3 is now its original grid
    assert s.eliminated[3]  # grid 3's player had no escape


def test_an_allied_player_without_a_grid_falls_when_the_alliance_breaks():
    s = next_turn(ally_pair(game(), 0, 1))  # Link Node 0:A10
    for i in range(5):
        s = _capture(s, 1, i, 3)
    s = _after_shot(s)
    assert not s.eliminated[1]  # carried by the alliance
    s = _after_shot(_capture(s, 0, 0, 4))  # an outsider takes the Link Node
    assert alliance_of(s, 1) is None and s.eliminated[1]


def test_an_allied_player_who_takes_a_new_grid_survives_leaving():
    s = next_turn(ally_pair(game(), 0, 1))
    for i in range(5):
        s = _capture(s, 1, i, 3)
        s = _capture(s, 5, i, 1)  # ... but takes all of grid 5 while allied
    s = _after_shot(s)
    while s.to_move != 1:
        s = next_turn(s)
    s = act(s, "desert")
    assert not s.eliminated[1] and (s.homes[1] >> 5) & 1


def test_a_big_alliance_holding_every_node_splits_into_its_link_teams():
    s = next_turn(ally_pair(game(), 0, 1))
    s = next_turn(s)
    s = next_turn(agree(s, "propose 1"))  # {0,1,2} on Link 0:A10
    s = next_turn(agree(s, "propose 0 master 3:C10"))  # + 3 under a Master Node
    for g in (4, 5):
        for i in range(5):
            s = _capture(s, g, i, 0)
    s = _after_shot(s)
    assert s.result is None  # 20 of 30 for player 0 would win: keep below a majority
    assert alliance_of(s, 0).members == {0, 1, 2}  # the Link team survives
    assert alliance_of(s, 3) is None and (0, 3) in s.divided


def test_old_allies_cannot_meet_again_through_a_group():
    s = next_turn(ally_pair(game(), 0, 1))
    s = next_turn(act(s, "desert"))  # 1 deserts: 0 and 1 are divided
    s = next_turn(ally_pair(s, 2, 1, "C10"))  # 2 allies with 1
    while s.to_move != 0:
        s = next_turn(s)
    with pytest.raises(IllegalAction, match="player 1 were divided"):
        F.check_propose(s, Propose(2))


# --- the bots ---------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["full", "island"])
def test_greedy_bots_play_games_out(layout):
    """Greedy players reach a victory, not the safety net (the old bots traded one Row 1
    Node back and forth in 42 % of full-access games)."""
    import random

    from piecebridge.rules.bcg.bots import choose

    for seed in range(4):
        s = F.new_game(players=6, layout=layout, seed=seed)
        rng = random.Random(seed)
        while not s.is_over:
            s, _ = F.apply(s, choose(s, rng, "greedy"))
        assert s.ply < 1500 and s.result.winners, (seed, s.ply, s.result.reason)


def test_greedy_bot_answers_proposals_by_the_standings():
    import random

    from piecebridge.rules.bcg.bots import choose

    behind = _capture(game(), 0, 0, 3)  # player 3 leads with 6 Nodes, player 0 has 4
    s = act(behind, "propose 1 link 0:C10")
    assert choose(s, random.Random(0), "greedy") == Accept()
    leader = _capture(game(), 3, 0, 0)  # player 0 now leads with 6 Nodes
    s = act(leader, "propose 1 link 0:A10")
    assert choose(s, random.Random(0), "greedy") == Decline()
    answers = {choose(s, random.Random(k), "random") for k in range(20)}
    assert answers == {Accept(), Decline()}
