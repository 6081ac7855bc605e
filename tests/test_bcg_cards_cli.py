"""``piecebridge cards``: new, check, show, play; bad input is one line and exit 1."""

import json

import pytest
from piecebridge.rules.bcg import deflector, reflector

from piecebridge.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("game", "extra"),
    [
        ("reflector", []),
        ("deflector", ["--players", "5", "--layout", "5-partial"]),
        ("defector", ["--players", "6", "--layout", "island"]),
        ("rotator", []),
    ],
)
def test_new_writes_a_state_that_loads(capsys, tmp_path, game, extra):
    out_file = tmp_path / "s.json"
    code, _, err = run(capsys, "cards", "new", game, "--seed", "4", *extra, "--out", str(out_file))
    assert code == 0, err
    data = json.loads(out_file.read_text())
    assert data["game"] == game
    code, out, _ = run(capsys, "cards", "show", str(out_file))
    assert code == 0 and out.strip()


def test_new_is_deterministic_and_takes_options(capsys):
    a = run(capsys, "cards", "new", "deflector", "--seed", "9", "--option", "ricochet=true")[1]
    b = run(capsys, "cards", "new", "deflector", "--seed", "9", "--option", "ricochet=true")[1]
    assert a == b and json.loads(a)["options"]["ricochet"] is True


def test_play_then_check(capsys, tmp_path):
    rec = tmp_path / "g.jsonl"
    code, _, err = run(capsys, "cards", "play", "reflector", "--seed", "2", "--out", str(rec))
    assert code == 0, err
    code, out, _ = run(capsys, "cards", "check", str(rec))
    assert code == 0 and out.startswith("ok:") and "won by player" in out
    code, out, _ = run(capsys, "cards", "check", str(rec), "--json")
    final = reflector.from_json(json.loads(out))
    assert final.is_over


def test_check_reports_first_illegal_line(capsys, tmp_path):
    s = deflector.new_game(players=3, seed=1)
    header = {"format": "bcg-record/1", "game": "deflector", "start": deflector.to_json(s)}
    lines = [json.dumps(header), json.dumps({"action": "1:J1"}), json.dumps({"action": "0:E5"})]
    rec = tmp_path / "bad.jsonl"
    rec.write_text("\n".join(lines))
    code, out, err = run(capsys, "cards", "check", str(rec))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "line 3" in err and "not next to your territory" in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["cards", "new", "chess"], "unknown game"),
        (["cards", "new", "reflector", "--players", "3"], "2 players"),
        (["cards", "new", "deflector", "--players", "4", "--layout", "3"], "no layout"),
        (["cards", "new", "reflector", "--option", "nope=1"], "unknown option"),
        (["cards", "new", "reflector", "--option", "noequals"], "KEY=VALUE"),
        (["cards", "show", "/nonexistent/state.json"], "cannot read"),
        (["cards", "new", "deflector", "--option", "max_plies=abc"], "whole number"),
        (["cards", "new", "deflector", "--option", "deflectors=-3"], "deflectors must be"),
        (["cards", "new", "defector", "--option", "deluxe=maybe"], "true or false"),
        (["cards", "new", "reflector", "--option", "first_player=true"], "first_player"),
        (["cards", "new", "defector", "--players", "5"], "6 or more"),
        (["cards", "play", "chess"], "unknown game"),
        (["cards", "check", "/nonexistent/game.jsonl"], "cannot read"),
    ],
)
def test_bad_input_one_line_exit_1(capsys, argv, needle):
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_check_and_show_bad_files(capsys, tmp_path):
    junk = tmp_path / "junk.jsonl"
    junk.write_text("{not json\n")
    code, _, err = run(capsys, "cards", "check", str(junk))
    assert code == 1 and "line 1" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert run(capsys, "cards", "check", str(empty))[0] == 1
    state = tmp_path / "s.json"
    state.write_text(json.dumps({"game": "reflector", "grids": []}))
    code, _, err = run(capsys, "cards", "show", str(state))
    assert code == 1 and "Reflector" in err


def test_show_as_player_hides_the_other_board(capsys, tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(reflector.to_json(reflector.new_game(seed=5))))
    _, whole, _ = run(capsys, "cards", "show", str(path))
    _, mine, _ = run(capsys, "cards", "show", str(path), "--as", "0")
    grid_rows = [line for line in whole.splitlines() if line[:2].strip().isdigit()]
    assert sum(row.count("N") for row in grid_rows) == 10
    mine_rows = [line for line in mine.splitlines() if line[:2].strip().isdigit()]
    right = [row[26:] for row in mine_rows]
    assert sum(r.count("N") + r.count(":") for r in right) == 0
    code, _, err = run(capsys, "cards", "show", str(path), "--as", "7")
    assert code == 1 and "players 0 and 1" in err


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d["grids"][0].update(held=[[]]),
        lambda d: d.update(to_move=5),
        lambda d: d["grids"][1].update(control=[0, 0, 0, 0, 9]),
        lambda d: d["grids"][0].update(nodes=["Z1"] * 5),
        lambda d: d.update(grids=d["grids"][:2]),
        lambda d: d["grids"][2].pop("held"),
    ],
)
def test_show_rejects_mangled_states(capsys, tmp_path, mutate):
    data = deflector.to_json(deflector.new_game(players=3, seed=2))
    mutate(data)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    code, _, err = run(capsys, "cards", "show", str(path))
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err


def _defector_record(tmp_path, answers):
    from piecebridge.rules.bcg import defector

    s = defector.new_game(players=6, seed=3)
    link = f"0:{defector.cell_name(s.grids[0].nodes[0])}"
    header = {"format": "bcg-record/1", "game": "defector", "start": defector.to_json(s)}
    lines = [json.dumps(header), json.dumps({"action": f"propose 1 link {link}", "player": 0})]
    lines += [json.dumps(a) for a in answers]
    rec = tmp_path / "d.jsonl"
    rec.write_text("\n".join(lines))
    return rec


def test_check_replays_an_alliance_proposal_answered_by_the_partner(capsys, tmp_path):
    rec = _defector_record(
        tmp_path, [{"action": "accept", "player": 1}, {"action": "1:E1", "player": 0}]
    )
    code, out, err = run(capsys, "cards", "check", str(rec), "--json")
    assert code == 0, err
    final = json.loads(out)
    assert final["alliances"][0]["teams"][0]["members"] == [0, 1] and final["to_move"] == 1


@pytest.mark.parametrize(
    ("answer", "needle"),
    [
        ({"action": "accept", "player": 0}, "player 1's turn"),  # the proposer cannot answer
        ({"action": "1:E1", "player": 1}, "accept or decline"),
        ({"action": "propose 2", "player": 1}, "accept or decline"),
    ],
)
def test_check_rejects_a_proposal_answered_wrongly(capsys, tmp_path, answer, needle):
    rec = _defector_record(tmp_path, [answer])
    code, out, err = run(capsys, "cards", "check", str(rec))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "line 3" in err and needle in err


def test_show_as_a_player_who_is_not_at_the_table(capsys, tmp_path):
    from piecebridge.rules.bcg import defector

    path = tmp_path / "d.json"
    path.write_text(json.dumps(defector.to_json(defector.new_game(players=6, seed=1))))
    code, _, err = run(capsys, "cards", "show", str(path), "--as", "9")
    assert code == 1 and err.count("\n") == 1 and "players 0..5" in err
    code, out, _ = run(capsys, "cards", "show", str(path), "--as", "2")
    assert code == 0 and "seen by player 2" in out
