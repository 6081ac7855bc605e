"""`piecebridge fixtures reflec`: writes photos with ground truth; bad options exit 1 or 2."""

from __future__ import annotations

import json

import cv2
import pytest

from piecebridge.cli import main


def test_fixtures_command_writes_photos_truth_and_calibration(tmp_path, capsys):
    code = main(
        ["fixtures", "reflec", "--split", "test", "--count", "2", "--seed", "3", "--size",
         "320x180", "--calibration", "--out", str(tmp_path), "--json"]
    )  # fmt: skip
    assert code == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    names = sorted(p.name for p in tmp_path.iterdir())
    # index 3 is on rig 0, index 4 on rig 1: one calibration photo per rig touched
    assert names == [
        "test-00003.jpg", "test-00003.json", "test-00004.jpg", "test-00004.json",
        "test-rig0000-calibration.jpg", "test-rig0000-calibration.json",
        "test-rig0001-calibration.jpg", "test-rig0001-calibration.json",
    ]  # fmt: skip
    assert len(lines) == 4
    truth = json.loads((tmp_path / "test-00004.json").read_text())
    assert truth["format"] == "reflec-board/1" and truth["synth"]["split"] == "test"
    assert truth["synth"]["index"] == 4
    assert cv2.imread(str(tmp_path / "test-00004.jpg")).shape == (180, 320, 3)


def test_fixtures_command_negative_and_sweep(tmp_path):
    assert main(["fixtures", "reflec", "--negative", "no-board", "--count", "1", "--size",
                 "320x180", "--out", str(tmp_path), "--png"]) == 0  # fmt: skip
    assert (tmp_path / "tune-no-board-00000.png").exists()
    assert main(["fixtures", "reflec", "--difficulty", "blur=1", "--count", "1", "--size",
                 "320x180", "--out", str(tmp_path)]) == 0  # fmt: skip
    truth = json.loads((tmp_path / "tune-00000.json").read_text())
    assert truth["synth"]["levels"]["blur"] == 1.0


@pytest.mark.parametrize(
    "args",
    [
        ["--difficulty", "wobble=1"],
        ["--difficulty", "blur=3"],
        ["--size", "big"],
        ["--count", "0"],
        ["--quality", "500"],
    ],
)
def test_fixtures_command_rejects_bad_options(tmp_path, capsys, args):
    assert main(["fixtures", "reflec", "--out", str(tmp_path), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("piecebridge: error:") and len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())


def test_fixtures_command_usage_error_exits_2():
    with pytest.raises(SystemExit) as e:
        main(["fixtures", "reflec", "--split", "validation", "--out", "x"])
    assert e.value.code == 2


def test_fixtures_card_writes_the_split_photo_and_its_truth(tmp_path, capsys):
    from piecebridge.synth import card

    args = ["fixtures", "card", "--split", "test", "--style", "alt", "--seed", "2", "--count",
            "1", "--size", "400x300", "--out", str(tmp_path), "--json"]  # fmt: skip
    assert main(args) == 0
    written = json.loads(capsys.readouterr().out)
    assert written["image"].endswith("test-alt-00002.jpg")
    _, expected = card.split_photo("test", 2, (400, 300), style="alt")
    assert json.loads((tmp_path / "test-alt-00002.json").read_text()) == json.loads(
        json.dumps(expected)
    )
    assert cv2.imread(written["image"]).shape == (300, 400, 3)
    assert main(["fixtures", "card", "--count", "0", "--out", str(tmp_path)]) == 1


def test_fixtures_names_every_art_card_style_and_card_split():
    from piecebridge.commands import fixtures
    from piecebridge.synth.art import ART
    from piecebridge.synth.card import SPLITS
    from piecebridge.synth.card_styles import STYLES

    assert set(fixtures.ARTS) == set(ART)
    assert set(fixtures.CARD_STYLES) == {"classic", *STYLES}
    assert set(fixtures.CARD_SPLITS) == set(SPLITS)


@pytest.mark.parametrize("size", ["8000x64", "2000x64", "6000x4500"])
def test_fixtures_card_refuses_sizes_no_phone_takes(tmp_path, size):
    assert main(["fixtures", "card", "--size", size, "--out", str(tmp_path)]) == 1


@pytest.mark.parametrize("split", ["print", "print-tune"])
def test_fixtures_card_refuses_another_style_on_the_printed_board(tmp_path, split, capsys):
    """The print splits photograph `piecebridge print card`'s board: an alt card there would
    be scored as the printed board without being it."""
    args = ["fixtures", "card", "--split", split, "--style", "alt", "--count", "1"]
    assert main([*args, "--out", str(tmp_path)]) == 1
    assert "printed board" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
