"""Finding boards whose printed lines are lighter than the tiles and faint (the ``acrylic``
art: thin white engraved lines on pale tiles, saturated coins with white engraving)."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision.locate import BoardCutOff, BoardNotFound, find_board

from piecebridge.synth import reflec


@pytest.mark.parametrize("rig, size", [(7, (1280, 720)), (9, (960, 540))])
def test_a_board_wholly_in_view_is_never_called_cut_off(rig, size):
    # Tune acrylic calibration photos: a failed outline that took in some table out to the
    # frame edge (a partial grid, or the table's colour region) used to say "cut off".
    shot = reflec.calibration_sample(
        "tune", rig, reflec.Difficulty.parse("realistic"), art="acrylic", image_size=size
    )
    truth = np.array(shot.truth["synth"]["board_corners_px"])
    h, w = shot.image.shape[:2]
    assert truth.min() > 0 and truth[:, 0].max() < w and truth[:, 1].max() < h  # in view
    try:
        find_board(shot.image)
    except BoardCutOff as error:
        pytest.fail(f"a board wholly in view called cut off: {error}")
    except BoardNotFound:
        pass  # not found is a miss, not a false "cut off"
