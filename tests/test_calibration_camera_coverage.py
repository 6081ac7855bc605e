"""Coverage map and the plain-sentence advice."""

from __future__ import annotations

import numpy as np
from piecebridge.calibration.camera_coverage import Coverage, advice_for, summary_sentence

SIZE = (600, 300)


def _grid(x0: float, x1: float, y0: float, y1: float) -> np.ndarray:
    xs, ys = np.meshgrid(np.linspace(x0, x1, 9), np.linspace(y0, y1, 6))
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def test_empty_left_third_is_named():
    cov = Coverage.of([_grid(250, 590, 10, 290), _grid(220, 580, 20, 280)], SIZE)
    advice = advice_for(cov)
    assert "the left third of the frame has no corners: add views there" in advice
    assert not any("right third" in a for a in advice)
    assert not any("top-left corner" in a for a in advice)  # already said by "left third"
    assert cov.thirds[:, 0].sum() == 0 and cov.thirds.sum() == cov.total == 108


def test_full_coverage_with_good_views_says_good_enough():
    sets = [_grid(5, 595, 5, 295)] * 12
    cov = Coverage.of(sets, SIZE)
    assert cov.fraction > 0.95
    advice = advice_for(cov, views=12, rms=0.3, max_tilt_degrees=35, focal_uncertainty=0.002)
    assert advice == []
    assert summary_sentence(cov, advice).startswith("the photos are good enough")


def test_thin_corner_few_views_flat_views_high_error():
    cov = Coverage.of([_grid(40, 560, 100, 290), _grid(5, 200, 5, 120)], SIZE)
    advice = advice_for(cov, views=2, rms=1.7, max_tilt_degrees=8, focal_uncertainty=0.03)
    text = " | ".join(advice)
    assert "top-right corner of the frame has no corners" in text
    assert "only 2 views" in text
    assert "face-on (at most 8° of tilt)" in text
    assert "reprojection error is high (1.70 px)" in text
    assert "focal length is uncertain (±3.0%)" in text
    assert summary_sentence(cov, advice).startswith("the photos could be better: ")
