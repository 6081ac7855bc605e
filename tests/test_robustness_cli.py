"""Bad input as a user meets it: one line on stderr, the spec's exit code, no traceback.

Each test here failed before the fix it names (the end-to-end robustness audit).
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from piecebridge import cli


def _main_with(monkeypatch, handler):
    """``cli.main`` with one command whose handler is ``handler``."""

    def parser():
        p = argparse.ArgumentParser(prog="piecebridge")
        p.set_defaults(handler=handler)
        return p

    monkeypatch.setattr(cli, "build_parser", parser)
    return cli.main([])


def test_a_broken_pipe_that_is_not_stdout_is_an_error_not_success(monkeypatch, capsys):
    # The simulated display's harness died mid-game: writing a button press to it raised
    # BrokenPipeError, which main took for `| head` closing stdout and exited 0, silently.
    def handler(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(cli, "_stdout_closed", lambda: False, raising=False)
    assert _main_with(monkeypatch, handler) == cli.EXIT_INVALID
    assert capsys.readouterr().err.strip() == "piecebridge: error: Broken pipe"


def test_an_unreadable_file_is_one_line_exit_1(monkeypatch, capsys):
    # `see` / `score` on a photo without read permission printed numpy's traceback.
    def handler(args):
        raise PermissionError(13, "Permission denied", "photo.jpg")

    assert _main_with(monkeypatch, handler) == cli.EXIT_INVALID
    err = capsys.readouterr().err
    assert err == "piecebridge: error: photo.jpg: Permission denied\n"


def test_output_folder_that_cannot_be_made_is_one_line(tmp_path):
    # `fixtures card --out /proc/nope` printed mkdir's traceback.
    blocker = tmp_path / "file"
    blocker.write_text("x")
    command = ["fixtures", "card", "--count", "1", "--out", str(blocker / "sub")]
    result = subprocess.run(
        [sys.executable, "-m", "piecebridge", *command],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="poll() on a pipe")
def test_stdout_closed_by_the_reader_is_still_a_quiet_success(tmp_path):
    # `piecebridge ... | head`: the reader left; that is no error.
    board = tmp_path / "board.json"
    board.write_text('{"format": "reflec-board/1", "coins": [], "pawns": []}')
    proc = subprocess.Popen(
        [sys.executable, "-m", "piecebridge", "reflec", "show", str(board)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # before the interpreter has even started: every write breaks
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0, err
    assert err == ""


def test_cards_show_names_the_file_with_malformed_json(tmp_path, capsys):
    # was "malformed JSON: Expecting value: line 2 column 1 (char 37)": which file?
    state = tmp_path / "state.json"
    state.write_text('{"game": "rotator",\n')
    assert cli.main(["cards", "show", str(state)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"piecebridge: error: {state}: malformed JSON at line 2")


@pytest.mark.parametrize("command", [["reflec", "fire"], ["cards", "show"]])
def test_an_empty_json_file_says_so(tmp_path, capsys, command):
    empty = tmp_path / "board.json"
    empty.write_text("")
    extra = ["--pawn", "suns", "--dir", "north"] if command[1] == "fire" else []
    assert cli.main([*command, str(empty), *extra]) == 1
    assert "empty file" in capsys.readouterr().err


@pytest.mark.parametrize(("command", "pinned"), [("see", "1 1"), ("score", "None 2+")])
def test_single_reads_run_opencv_and_blas_on_one_thread(command, pinned):
    # benchmarks/referee_threads.py: under load, reads 4x faster on one thread each
    code = (
        "import os, sys; from piecebridge import cli; cli.main([sys.argv[1], '/no/such']); "
        "import cv2; n = cv2.getNumThreads(); "
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), n if n == 1 else '2+')"
    )
    env = {k: v for k, v in os.environ.items() if k not in cli.BLAS_THREAD_VARIABLES}
    env.pop("OPENCV_FOR_THREADS_NUM", None)
    result = subprocess.run(
        [sys.executable, "-c", code, command], capture_output=True, text=True, env=env
    )
    if command == "score" and (os.cpu_count() or 1) < 2:
        pytest.skip("one core: OpenCV's default pool is one thread")
    assert result.stdout.split("\n")[0] == pinned, result.stderr


def test_a_video_that_does_not_open_is_one_line_without_backend_chatter(tmp_path):
    # was FFmpeg's "[mov,mp4,...] moov atom not found" (and OpenCV's [ WARN ] lines for a
    # camera) before the one-line error
    video = tmp_path / "clip.mp4"
    video.write_text("not a video")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCV_")}
    command = ["referee", str(video), "--display", "none", "--log", str(tmp_path / "g.jsonl")]
    result = subprocess.run(
        [sys.executable, "-m", "piecebridge", *command], capture_output=True, text=True, env=env
    )
    assert result.returncode == 1
    assert result.stderr == f"piecebridge: error: {video}: cannot open the video\n"


def test_a_bug_is_one_line_and_its_traceback_is_kept_for_a_report(monkeypatch, capsys):
    # `score` on a 1x1 PNG raised cv2.error inside the card reader: a traceback
    def handler(args):
        raise ValueError("first\nthe useful last line")

    monkeypatch.delenv("PIECEBRIDGE_DEBUG", raising=False)
    assert _main_with(monkeypatch, handler) == cli.EXIT_INVALID
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "internal error (a bug): ValueError: the useful last line" in err
    saved = err.split("traceback in ")[1].split(" ")[0]
    assert "Traceback" in Path(saved).read_text()
    os.unlink(saved)
    monkeypatch.setenv("PIECEBRIDGE_DEBUG", "1")
    with pytest.raises(ValueError):
        _main_with(monkeypatch, handler)
