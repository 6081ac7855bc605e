"""The reflec commands as a user (or another tool) runs them: output and exit codes."""

import json
import subprocess
import sys

import pytest

from piecebridge.cli import main

BOARD = {
    "format": "reflec-board/1",
    "coins": [
        {"cell": "a3", "suit": "moons", "facing": "east"},
        {"cell": "e3", "suit": "suns", "facing": "north"},
        {"cell": "e6", "suit": "crowns", "facing": "west"},
        {"cell": "b6", "suit": "arms", "facing": "south"},
    ],
    "pawns": [{"cell": "a1", "suit": "suns"}, {"cell": "b1", "suit": "moons"}],
}


@pytest.fixture
def board_file(tmp_path):
    path = tmp_path / "board.json"
    path.write_text(json.dumps(BOARD))
    return path


def run(*args):
    """The real console entry point in a subprocess: what a user sees."""
    return subprocess.run(
        [sys.executable, "-m", "piecebridge", *map(str, args)], capture_output=True, text=True
    )


def test_fire_prints_exactly_the_spec_object(board_file):
    result = run("reflec", "fire", board_file, "--pawn", "suns", "--dir", "north", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "path": [
            "a2",
            "a3",
            "b3",
            "c3",
            "d3",
            "e3",
            "e4",
            "e5",
            "e6",
            "d6",
            "c6",
            "b6",
            "b5",
            "b4",
            "b3",
            "b2",
            "b1",
        ],
        "end": {"kind": "pawn", "cell": "b1", "suit": "moons"},
    }


def test_fire_without_json_draws_the_board(board_file, capsys):
    assert main(["reflec", "fire", str(board_file), "--pawn", "suns", "--dir", "east"]) == 0
    out = capsys.readouterr().out
    assert "hits the moons laser on b1" in out and "[S]" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pawn", "hearts", "--dir", "north"], "'hearts' is not a suit"),
        (["--pawn", "crowns", "--dir", "north"], "no crowns laser"),
        (["--pawn", "suns", "--dir", "up"], "'up' is not a direction"),
    ],
)
def test_fire_bad_arguments_are_one_line_exit_1(board_file, args, message):
    result = run("reflec", "fire", board_file, *args, "--json")
    assert result.returncode == 1
    assert message in result.stderr and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "malformed JSON at line 1"),
        (
            json.dumps(
                {
                    "coins": [{"cell": "a1", "suit": "suns", "facing": "north"}],
                    "pawns": [{"cell": "a1", "suit": "moons"}],
                }
            ),
            "already holds",
        ),
        (
            json.dumps({"coins": [{"cell": "a1", "suit": "hearts", "facing": "north"}]}),
            "'hearts' is not a suit",
        ),
    ],
)
def test_fire_bad_board_files(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = run("reflec", "fire", path, "--pawn", "suns", "--dir", "north", "--json")
    assert result.returncode == 1 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_missing_file_and_usage_errors(tmp_path):
    result = run("reflec", "fire", tmp_path / "nope.json", "--pawn", "suns", "--dir", "north")
    assert result.returncode == 1 and "no such file" in result.stderr
    assert run("reflec", "fire").returncode == 2
    assert run("no-such-command").returncode == 2


def test_check_accepts_a_legal_record_and_names_the_first_illegal_line(tmp_path):
    header = {"format": "reflec-record/1", "players": [["suns"], ["moons"]]}
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(json.dumps(x) for x in [header, {"action": "place c4 suns north"}]))
    result = run("reflec", "check", good)
    assert result.returncode == 0 and "1 legal actions" in result.stdout
    bad = tmp_path / "bad.jsonl"
    lines = [header, {"action": "place c4 suns north"}, {"action": "place c4 moons east"}]
    bad.write_text("\n".join(json.dumps(x) for x in lines))
    result = run("reflec", "check", bad)
    assert result.returncode == 1
    assert "line 3: c4 is not open" in result.stderr


def test_check_refuses_an_unparseable_record(tmp_path):
    path = tmp_path / "junk.jsonl"
    path.write_text("this is not a record\n")
    result = run("reflec", "check", path)
    assert result.returncode == 1 and "line 1: not JSON" in result.stderr
    assert "at column 1)" in result.stderr  # where on the line, in words a person can use


def test_show_prints_text_and_writes_a_png(board_file, tmp_path, capsys):
    assert main(["reflec", "show", str(board_file), "--fire", "suns:north"]) == 0
    assert "*" in capsys.readouterr().out
    out = tmp_path / "diagram.png"
    assert main(["reflec", "show", str(board_file), "--fire", "suns:north", "--png", str(out)]) == 0
    import cv2

    image = cv2.imread(str(out))
    assert image is not None and image.shape[0] > 400
    # the beam is drawn in pure red somewhere on the picture
    red = (image[:, :, 2] > 200) & (image[:, :, 1] < 60) & (image[:, :, 0] < 60)
    assert red.sum() > 500


def test_show_bad_fire_spec(board_file):
    result = run("reflec", "show", board_file, "--fire", "suns")
    assert result.returncode == 1 and "SUIT:DIR" in result.stderr
