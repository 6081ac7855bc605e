"""``piecebridge cards`` with GAME rotator: play, check, show, and bad input."""

import json

from piecebridge.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_play_ends_even_when_the_bot_could_survive_forever(capsys, tmp_path):
    record = tmp_path / "game.jsonl"
    # seed 6: the greedy bot finds a safe cycle; without a turn limit this never ended
    code, _, err = run(capsys, "cards", "play", "rotator", "--seed", "6", "--out", str(record))
    assert code == 0, err
    header = json.loads(record.read_text().splitlines()[0])
    assert header["game"] == "rotator" and header["options"]["turn_limit"] == 500
    code, out, _ = run(capsys, "cards", "check", str(record))
    assert code == 0 and "no winner" in out


def test_a_won_game_checks_and_shows(capsys, tmp_path):
    record = tmp_path / "game.jsonl"
    code, _, err = run(
        capsys,
        "cards",
        "play",
        "rotator",
        "--layout",
        "canyon",
        "--seed",
        "1",
        "--out",
        str(record),
    )
    assert code == 0, err
    code, out, _ = run(capsys, "cards", "check", str(record), "--json")
    final = json.loads(out)
    # seed 1 on canyon ends in a win (not the turn limit); who wins is the engine's business
    assert code == 0 and len(final["result"]["winners"]) == 1
    state = tmp_path / "final.json"
    state.write_text(out)
    code, out, _ = run(capsys, "cards", "show", str(state))
    assert code == 0 and "@" in out and "won" in out


def test_an_illegal_line_is_named(capsys, tmp_path):
    record = tmp_path / "game.jsonl"
    run(capsys, "cards", "play", "rotator", "--layout", "pinwheel", "--out", str(record))
    lines = record.read_text().splitlines()
    lines.insert(2, json.dumps({"action": "from 1:F5"}))
    record.write_text("\n".join(lines))
    code, _, err = run(capsys, "cards", "check", str(record))
    assert code == 1
    assert err.strip().count("\n") == 0 and "line 3" in err and "no Node was captured" in err


def test_bad_options_are_one_line(capsys):
    for option in ("edges=table", "board_edge=soft", "turn_limit=0", "colour=red"):
        code, _, err = run(capsys, "cards", "new", "rotator", "--option", option)
        assert code == 1 and err.strip().count("\n") == 0, option
