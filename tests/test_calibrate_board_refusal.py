"""`piecebridge calibrate board` refusing a photo whose layout does not read back says which
pieces failed, in its one line and in a picture beside where the setup would have gone.

Tune woodburned rig 8 (suits burnt in one brown): its moons coins stay undecided, so the
photo is refused; a user setting up a new camera had only "is the whole board in view and
the layout as specified?" when both were true, and no picture. Its looks learned since round
13 (coins aligned askew) read it back; here they are learned as before (shift only, blurred).
"""

from __future__ import annotations

import cv2
import pytest
from piecebridge.vision import learn
from piecebridge.vision.learn import LayoutNotReadBack, learn_setup, misreads

from piecebridge.cli import main
from piecebridge.synth.reflec import Difficulty, calibration_sample


@pytest.fixture(scope="module")
def refused_photo():
    return calibration_sample("tune", 8, Difficulty.realistic(), art="woodburned").image


@pytest.fixture(autouse=True)
def blurred_looks(monkeypatch):
    """One-ink suits' looks aligned by shift alone, as before round 13."""

    def plain(views, centres, middles=None):  # not centred on the cells' middles either
        return [(*c, 0.0) for c in learn._align(views, centres)]

    monkeypatch.setattr(learn, "_align_askew", plain)


def test_the_refusal_names_the_pieces_read_otherwise_and_keeps_the_setup(refused_photo):
    with pytest.raises(LayoutNotReadBack, match="does not read back") as refused:
        learn_setup(refused_photo)
    assert "read otherwise: 4 moons coins undecided, 2 moons" in str(refused.value)
    assert misreads(refused_photo, refused.value.setup) == (
        "4 moons coins undecided, 2 moons coins as suns coins"
    )


def test_the_command_draws_what_was_read_and_writes_no_setup(refused_photo, tmp_path, capsys):
    photo, out = tmp_path / "cal.png", tmp_path / "setup.json"
    cv2.imwrite(str(photo), refused_photo)
    assert main(["calibrate", "board", str(photo), "--out", str(out)]) == 1
    line = capsys.readouterr().err.strip()
    picture = tmp_path / "setup.refused.png"
    assert "\n" not in line and f"(what was read: {picture})" in line
    assert not out.exists() and not (tmp_path / "setup.png").exists()
    drawn = cv2.imread(str(picture))
    assert drawn is not None and drawn.shape == refused_photo.shape
    assert (drawn != refused_photo).any()  # the grid and the readings drawn on it
