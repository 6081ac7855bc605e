"""A calibration photo whose grid's lines say it may lie a cell off the board, where the
grid a cell over does not fit (``locate._onto_the_board``), is refused by the finder as
before, but as a :class:`locate.MaybeCellOff` carrying the grid: ``learn_setup`` learns it
in place when the whole layout reads back there (``learn._reads_back_whole``) and on no
grid a cell over (``learn._in_place_after_all``), and refuses it otherwise. A grid a cell
off can pass the usual read-back (the looks are learned on the very cells read back) and
``_cell_off``; it mostly reads back a piece or more short.

Tune acrylic calibration photo of rig 153, rendered from its seed (about 3 s): found in
place (16 crosses); its grid moved a cell east and fitted there is learned by the usual
checks 1.2 cells off (24 of 28 read back, 3 unsure as their own suit)."""

from __future__ import annotations

import cv2
import pytest
from piecebridge.calibration.pose import BoardPose
from piecebridge.vision import learn, locate
from piecebridge.vision.learn import _learn_from, _reads_back_whole, _refit_moved, learn_setup
from piecebridge.vision.locate import BoardNotFound, MaybeCellOff, find_board

from piecebridge.synth.reflec import Difficulty, calibration_sample
from tests.vision_support import corners_off as _corners_off


@pytest.fixture(scope="module")
def rig153():
    """Tune acrylic rig 153's calibration photo and the grid the finder finds there."""
    cal = calibration_sample("tune", 153, Difficulty.parse("realistic"), art="acrylic")
    return cal, find_board(cal.image, thorough=True)


def _doubted_at(monkeypatch, pose: BoardPose) -> None:
    """``learn.find_board`` stubbed to refuse every photo as "may lie a cell off" at ``pose``."""

    def refuse(*args, **kwargs):
        raise MaybeCellOff("no board in view: the grid found may lie a cell off the board", pose)

    monkeypatch.setattr(learn, "find_board", refuse)


def test_the_finder_refuses_a_doubted_grid_as_before_carrying_it(rig153, monkeypatch):
    """Lines saying "a cell off" and no move holding (``_onto_the_board`` stubbed to say
    so): the finder refuses, a ``BoardNotFound`` with the usual message for every caller,
    and hands on the grid as found (in place here)."""
    cal, _ = rig153
    monkeypatch.setattr(locate, "_onto_the_board", lambda bgr, pose: None)
    with pytest.raises(BoardNotFound, match="may lie a cell off the board") as refused:
        find_board(cal.image, thorough=True)
    assert isinstance(refused.value, MaybeCellOff)
    assert _corners_off(refused.value.pose, cal.truth) < 0.2


def test_a_doubted_grid_in_place_is_learned_there(rig153, monkeypatch):
    """The same refusal inside ``learn_setup``: the grid in place reads the whole layout
    back, and the setup is learned there."""
    cal, _ = rig153
    monkeypatch.setattr(locate, "_onto_the_board", lambda bgr, pose: None)
    setup, report = learn_setup(cal.image)
    assert _corners_off(setup.pose, cal.truth) < 0.2
    assert report["read_back"] + report["washed_out"] == 28


def test_a_doubted_grid_a_cell_off_is_refused(rig153, monkeypatch):
    """The grid moved a cell east and fitted there: the usual checks learn it 1.2 cells
    off; doubted, it reads back a piece or more short and is refused with the finder's own
    message (the board of whole tiles, tried after a refusal since round 20, taken away
    here). With it, the photo is learned on the tiles' board, in place."""
    cal, found = rig153
    gray = cv2.cvtColor(cal.image, cv2.COLOR_BGR2GRAY)
    east = _refit_moved(255 - gray if found.inverted else gray, found, 1, 0)
    east.tile_color_lab, east.inverted = found.tile_color_lab, found.inverted
    assert _corners_off(east, cal.truth) > 0.9
    setup, report = _learn_from(cal.image, east)  # undoubted: taken, a cell off
    assert _corners_off(setup.pose, cal.truth) > 0.9 and not _reads_back_whole(report)
    _doubted_at(monkeypatch, east)
    setup, report = learn_setup(cal.image)
    assert _corners_off(setup.pose, cal.truth) < 0.2 and report["found_by_tiles"]
    monkeypatch.setattr(learn, "board_by_tiles", lambda frame: None)
    monkeypatch.setattr(learn, "boards_by_colour", lambda frame: [])  # round 61's last try
    with pytest.raises(MaybeCellOff, match="may lie a cell off"):
        learn_setup(cal.image)
    # By its own read-back alone, were no grid a cell over to read the layout back whole.
    monkeypatch.setattr(learn, "_whole_here_only", lambda *args, **kwargs: True)
    with pytest.raises(MaybeCellOff, match="may lie a cell off"):
        learn_setup(cal.image)


def test_a_doubted_grid_with_too_few_crosses_is_refused(rig153, monkeypatch):
    """A grid fitting under ``FIT_CROSSES`` crosses is no fit to learn from, doubted or not."""
    cal, found = rig153
    few = BoardPose(found.H.copy())
    few.crosses_found = learn.FIT_CROSSES - 1
    _doubted_at(monkeypatch, few)
    with pytest.raises(MaybeCellOff):
        learn_setup(cal.image)


def test_a_doubted_grid_a_cell_off_reading_the_whole_layout_back_is_refused(monkeypatch):
    """Tune acrylic rig 204 (about 3 s): its grid moved a cell north and fitted there reads
    all 28 pieces back (the usual checks learn it a cell off). Doubted, it is refused: the
    grid a cell south of it, the board in place, reads the whole layout back as well. So is
    the grid in place, doubted (its grid a cell north reads back whole): a retake is asked."""
    cal = calibration_sample("tune", 204, Difficulty.parse("realistic"), art="acrylic")
    found = find_board(cal.image, thorough=True)
    assert _corners_off(found, cal.truth) < 0.2
    gray = cv2.cvtColor(cal.image, cv2.COLOR_BGR2GRAY)
    north = _refit_moved(255 - gray if found.inverted else gray, found, 0, -1)
    assert _corners_off(north, cal.truth) > 0.9
    setup, report = _learn_from(cal.image, north)
    assert _corners_off(setup.pose, cal.truth) > 0.9 and _reads_back_whole(report)
    for grid in (north, found):
        _doubted_at(monkeypatch, grid)
        with pytest.raises(MaybeCellOff):
            learn_setup(cal.image)


def test_a_grid_the_layout_doubts_a_cell_off_is_learned_where_only_it_reads_back_whole():
    """Tune printplay rig 133 (about 3 s), a gingham of the tiles' colour round the board:
    ``_cell_off`` finds the layout a cell south fitting its busy cells as well (the cloth
    counted as board), but the grid found reads all 28 pieces back and no grid a cell over
    reads the layout back at all: learned in place (before: refused, "may sit off")."""
    cal = calibration_sample("tune", 133, Difficulty.parse("realistic"), art="printplay")
    found = find_board(cal.image, thorough=True)
    assert learn._cell_off(cal.image, found) == "a cell south"
    setup, report = learn_setup(cal.image)
    assert _corners_off(setup.pose, cal.truth) < 0.2
    assert report["read_back"] == 28
