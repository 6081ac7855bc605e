"""Speed round 26 (issue #4): a checkered board from scratch. The search by tone starts
from what grey's search by lines made of the frame (its downscaled copy and greys, the
saddles, the cross blobs, the cell and colour outlines) instead of making it all again, and
goes ahead as soon as grey's first polarity of the lines finds no grid, before the second
(``--speed --art checkered``: 95-99 -> 59-62 ms CPU). The board found is the one the old
order found; a board of lines is searched as before."""

from __future__ import annotations

import numpy as np
import pytest
from piecebridge.vision import locate
from test_vision_locate_tone import _lined_frame
from test_vision_locate_tone_first_round25 import _checkered_frame


def _counted(monkeypatch, name: str) -> list[bool]:
    """Calls of ``locate.<name>`` from now on, each noted as made in a search by tone."""
    calls: list[bool] = []
    fn = getattr(locate, name)

    def counted(*args, **kwargs):
        calls.append(locate._BY_TONE.get())
        return fn(*args, **kwargs)

    monkeypatch.setattr(locate, name, counted)
    return calls


@pytest.mark.parametrize("coins", [False, True])
def test_the_saddles_are_made_once_for_the_cue_and_the_search_by_tone(monkeypatch, coins):
    frame, _ = _checkered_frame(coins)
    calls = _counted(monkeypatch, "_saddle_outlines")
    locate.find_board(frame)
    assert calls == [False]  # the cue's; the search by tone took them from the memo


def test_the_search_by_tone_takes_the_downscaled_frame_and_blobs_made_by_grey(monkeypatch):
    frame, _ = _checkered_frame()
    downscales = _counted(monkeypatch, "downscale")
    blobs = _counted(monkeypatch, "_cross_blobs")
    locate.find_board(frame)
    assert downscales == [False]
    assert blobs == [False, False]  # one per polarity, by grey's search only


def test_grey_second_polarity_is_not_searched_when_the_first_finds_no_grid(monkeypatch):
    frame, truth = _checkered_frame(coins=True)
    calls = _counted(monkeypatch, "_find_small")
    pose = locate.find_board(frame)
    assert calls.count(False) == 1  # grey's first polarity only
    assert np.abs(pose.corners - truth).max() < 0.2 * 700 / 8


@pytest.mark.parametrize("coins", [False, True])
def test_the_board_found_is_the_one_the_old_order_found(monkeypatch, coins):
    frame, _ = _checkered_frame(coins)
    ahead = locate.find_board(frame)
    # the old order: every search by lines first, then a search by tone of its own
    monkeypatch.setattr(locate, "_tiles_by_tone_seen", lambda bgr: False)
    monkeypatch.setattr(locate, "_pictures", lambda memo: {})
    after = locate.find_board(frame)
    assert np.array_equal(ahead.corners, after.corners)
    assert ahead.crosses_found == after.crosses_found


def test_a_board_of_lines_is_searched_as_before(monkeypatch):
    # grey's first polarity finds it: no cue, no saddle, no second polarity
    frame, _ = _lined_frame()
    saddles = _counted(monkeypatch, "_saddle_outlines")
    cue = _counted(monkeypatch, "_tiles_by_tone_seen")
    pose = locate.find_board(frame)
    assert pose.crosses_found >= 12
    assert saddles == [] and cue == []


def test_the_search_by_tone_notes_no_cut_off_from_the_lines_search():
    # what a search noted of its own course stays out of the other's memo
    memo = {"cut off": True, (("by tone", False), 1): None, ("grey", 2): "kept"}
    assert locate._pictures(memo) == {("grey", 2): "kept"}
    assert locate._pictures(None) == {}


def test_the_most_common_colour_bins_are_those_the_full_sort_gives():
    rng = np.random.default_rng(26)
    for trial in range(300):
        counts = np.zeros(11 * 1024, np.int64)
        filled = rng.integers(0, len(counts), rng.integers(0, 40))
        counts[filled] = rng.integers(1, 6 if trial % 3 == 0 else 5000, len(filled))  # ties too
        full = np.argsort(counts)[::-1][:3]
        assert locate._most_common(counts, 3).tolist() == full[counts[full] > 0].tolist()
