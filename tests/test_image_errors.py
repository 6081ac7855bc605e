"""Every command that opens a photo says the same one line for the same bad file."""

from __future__ import annotations

from pathlib import Path

import pytest

from piecebridge import cli


def _missing(folder: Path) -> Path:
    return folder / "missing.jpg"


def _folder(folder: Path) -> Path:
    (folder / "shots.jpg").mkdir()
    return folder / "shots.jpg"


def _empty(folder: Path) -> Path:
    (folder / "empty.jpg").write_bytes(b"")
    return folder / "empty.jpg"


def _garbage(folder: Path) -> Path:
    (folder / "junk.png").write_bytes(b"\x89PNG but not really an image\n" * 4)
    return folder / "junk.png"


BAD_FILES = {
    "no such file": _missing,
    "a folder, not an image file": _folder,
    "empty file": _empty,
    "not an image file or damaged": _garbage,
}

COMMANDS = {
    "see": lambda image, tmp: ["see", str(image)],
    "calibrate board": lambda image, tmp: [
        "calibrate",
        "board",
        str(image),
        "--out",
        str(tmp / "s.json"),
    ],
    "calibrate camera": lambda image, tmp: [
        "calibrate",
        "camera",
        str(image),
        "--pattern",
        "chessboard:9x6",
        "--square-mm",
        "25",
        "--out",
        str(tmp / "cam.yaml"),
        "--no-report",
    ],
    "score": lambda image, tmp: ["score", str(image)],
}


# A folder given to these is a batch, and score reads a path matching nothing as a glob.
BATCH_READINGS = {
    ("score", "no such file"),
    ("score", "a folder, not an image file"),
    ("calibrate camera", "a folder, not an image file"),
}


@pytest.mark.parametrize("why", BAD_FILES)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_bad_image_file_is_one_line_naming_it(tmp_path, capsys, command, why):
    image = BAD_FILES[why](tmp_path)
    if (command, why) in BATCH_READINGS:
        pytest.skip("this command takes a folder (or a glob) as a batch of photos")
    assert cli.main(COMMANDS[command](image, tmp_path)) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"piecebridge: error: cannot read image {image}: {why}"
