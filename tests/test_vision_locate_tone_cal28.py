"""The board finder on checkered boards without a setup, round 61 (issue #4): a board found
by tone a cell off, its tiles' gaps saying so, is moved onto the board where one way alone
holds (``locate._onto_the_gaps``); a board by tone on a cloth of squares whose edges fall
in line with its cells beyond its sides is no printed grid when its tiles show by tone
(``locate._tiles_show_by_tone``). Both were refused before (tune checkered shots, fresh
rigs 7600-7659: 7 of the 12 shots refused; none of the rest changed)."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.calibration.geometry import cell_centre
from piecebridge.vision import locate
from piecebridge.vision.reader import BoardReader

from piecebridge.synth.reflec import SHOTS_PER_RIG, sample


def _shot(rig: int, shot: int):
    return sample("tune", rig * SHOTS_PER_RIG + shot, art="checkered")


def _worst_cell_error(pose, truth: dict) -> float:
    """The largest distance (cells) of a cell centre of ``pose`` from the truth's."""
    centres = truth["synth"]["cell_centers_px"]
    names = sorted(centres)
    want = np.array([centres[c] for c in names])
    got = pose.to_image(np.array([cell_centre(c) for c in names]))
    return float(np.linalg.norm(want - got, axis=1).max() / pose.cell_size_px())


@pytest.mark.parametrize("rig, shot", [(7622, 1), (7607, 2)])
def test_a_board_by_tone_a_cell_off_is_moved_onto_the_board(rig, shot):
    """Tune checkered shots 7622/1 (a blue gingham round the board, the grid by tone a row
    north: gaps -13.8 along y) and 7607/2 (a column west, -4.5 along x): refused as maybe a
    cell off; moved the one way that fits more crosses, each cell within a tenth of a cell."""
    s = _shot(rig, shot)
    pose = locate.find_board(s.image)
    assert _worst_cell_error(pose, s.truth) < 0.15
    assert (locate._tile_gaps(s.image, pose) > locate.GAPS_OFF).all()


def test_a_board_by_tone_on_a_gingham_in_line_with_its_cells_is_no_printed_grid():
    """Tune checkered shot 7628/0: a green gingham's squares in line with 3-4 of the board's
    7 lines beyond every side; the grid by tone (in place, 16 tiles by tone) was refused as
    part of a larger printed grid, and the frame as "no 8x8 tile grid found"."""
    s = _shot(7628, 0)
    obs = BoardReader(setup=None).read(s.image)
    assert _worst_cell_error(obs.pose, s.truth) < 0.15
