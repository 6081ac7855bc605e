"""Hidden printed lines (:mod:`piecebridge.vision.occlusion`): a hand hides them, a shadow
only dims them with their tile (cell rules round 11, moved here from
tests/test_vision_cells_round11.py when ``hidden_fractions``, used by that test alone, went)."""

from __future__ import annotations

import cv2
import numpy as np
from piecebridge.calibration.geometry import N
from piecebridge.vision.occlusion import boundary_cue, covered_cells, hidden_share, line_strengths
from test_vision_cells import _rectified_board


def _linear(srgb: np.ndarray) -> np.ndarray:
    v = srgb / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _srgb(linear: np.ndarray) -> np.ndarray:
    v = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)
    return np.clip(v * 255, 0, 255).astype(np.uint8)


def test_lines_in_a_deep_shadow_are_seen_once_the_light_is_made_up_for():
    """A shadow scales the light of a line and its tile alike (here a twentieth, the
    south-east quarter); a hand (a flat blob, light or dark) hides the lines."""
    light = _linear(_rectified_board().astype(np.float64))
    light[180:340, 180:340] *= 0.05  # cells e1-h4 (rows and columns 4-7) in shadow
    for hand in (150, 20):
        gray = _srgb(light)
        cv2.circle(gray, (120, 120), 70, hand, -1)  # over the north-west
        lab_l = cv2.cvtColor(cv2.cvtColor(gray, cv2.COLOR_GRAY2BGR), cv2.COLOR_BGR2LAB)[..., 0]
        # As cells.measure judges them: the line pieces' strengths, hidden as they look
        # and hidden relative to the light falling there.
        strengths = line_strengths(lab_l, 40, 0.5)
        seen = covered_cells(hidden_share(strengths, 40)).reshape(N, N)
        lit = covered_cells(hidden_share(strengths, 40, lab_l)).reshape(N, N)
        assert seen[5:, 5:].all()  # as the lines look, the shadow hides them
        assert not lit[5:, 5:].any()  # made up for, they show
        assert lit[2, 2] and lit[1, 2] and lit[3, 3]  # the hand still hides its cells


# Twenty-first session (occ21): a board drawn by tone alone, its boundaries learned.


def _checkered(coins: tuple[int, ...] = (), seed: int = 0) -> np.ndarray:
    """A rectified board (40 px a cell, half a cell of margin; lines dark) whose tiles show
    their 2x2 grid by tone alone, maple and walnut quadrants with the wood's grain, no line;
    ``coins`` (cell indices, row-major from the north-west): a coin with a dark rim close to
    the cell's edge (4 px), as the checkered art's are."""
    m, px = 20, 40
    size = 2 * m + N * px
    img = np.full((size, size), 120.0)
    for r in range(N):
        for c in range(N):
            tone = 205 if (r + c) % 2 == 0 else 95
            img[m + r * px : m + (r + 1) * px, m + c * px : m + (c + 1) * px] = tone
    img += cv2.blur(np.random.default_rng(seed).normal(0, 30, (size, size)), (9, 1))  # grain
    img = np.clip(img, 0, 255).astype(np.uint8)
    for i in coins:
        r, c = divmod(i, N)
        centre = (m + c * px + px // 2, m + r * px + px // 2)
        cv2.circle(img, centre, 16, 150, -1)
        cv2.circle(img, centre, 16, 30, 2)
    return img


COINS = tuple(range(0, N * N, 3))
EMPTY = np.array([i not in COINS for i in range(N * N)])


def test_a_board_drawn_by_tone_alone_learns_its_steps_and_is_not_covered():
    # Tune checkered: the coins' rims made the board's typical "line" strong, the grain beside
    # the quadrants' steps read as hidden lines, and empty cells with nothing over them as
    # covered (330 left unknown in 100 shots).
    img = _checkered(COINS)
    assert boundary_cue(img, 40, 0.5, EMPTY) == "steps"
    as_lines = covered_cells(hidden_share(line_strengths(img, 40, 0.5), 40))
    assert (as_lines & EMPTY).any()  # the old model: covered with nothing over them
    as_steps = covered_cells(hidden_share(line_strengths(img, 40, 0.5, "steps"), 40))
    assert not as_steps.any()


def test_a_hand_hides_the_steps_of_the_cells_it_covers():
    img = _checkered(COINS)
    cv2.circle(img, (120, 120), 70, 170, -1)  # a flat blob over the north-west
    covered = covered_cells(hidden_share(line_strengths(img, 40, 0.5, "steps"), 40))
    covered = covered.reshape(N, N)
    assert covered[2:4, 1:4].all() and covered[1, 2] and covered[1, 3]
    assert not covered[5:, :].any() and not covered[:, 5:].any()


def test_printed_lines_stay_the_boundary():
    # Dark crosses on a plain tile: no step beside the line (a centred line darkens both
    # sides alike), so the lines stay what is judged, as without a setup.
    assert boundary_cue(_rectified_board(), 40, 0.5, np.ones(N * N, bool)) == "lines"


def test_spread_fingers_hide_a_little_of_each_cell_in_a_patch():
    # Tune checkered 29 g8: fingers over g8-h7 hid 3 of 8 pieces of each, none mostly; g8,
    # under a hand, was read empty. On steps (nothing else dims them) such a patch is covered.
    hidden = np.zeros(N * N)
    hidden[[5, 6, 7, 13, 14, 15]] = 0.25, 0.375, 0.375, 0.375, 0.375, 0.375
    hidden[[40, 41]] = 0.25  # two partly hidden cells alone: a coin's rim, no hand
    assert not covered_cells(hidden).any()
    patch = covered_cells(hidden, patch=True)
    assert np.flatnonzero(patch).tolist() == [5, 6, 7, 13, 14, 15]


# Twenty-second session (occ22): light printed lines on a tile lit near white.


def _light_lines(bright: int = 246, line: int = 255) -> np.ndarray:
    """A board's Lab lightness (40 px a cell, half a cell of margin) whose crosses are
    lighter than its tiles (acrylic's white lines, 235 on 170), the south-east quarter lit
    near white (tile ``bright``, its lines ``line``, clipped: little step left)."""
    lines = _rectified_board() < 100  # where the dark crosses are drawn
    img = np.where(lines, 235, 170).astype(np.uint8)
    img[180:, 180:] = np.where(lines[180:, 180:], line, bright)
    return img


def test_light_lines_lit_near_white_are_seen_but_a_hand_still_hides_its_cells():
    # Tune acrylic 1500-1549 (200 shots): 38 empty cells with nothing over them read covered
    # as strong light lifted their tiles next to their white lines (15 so with this).
    for hand in (120, 215):  # skin, and a white glove still short of the lit tile's white
        lab_l = _light_lines()
        cv2.circle(lab_l, (120, 120), 70, hand, -1)  # over the north-west
        strengths = line_strengths(255 - lab_l, 40, 0.5)  # light lines: ridges of 255 - L
        plain = covered_cells(hidden_share(strengths, 40)).reshape(N, N)
        room = covered_cells(hidden_share(strengths, 40, white=lab_l)).reshape(N, N)
        assert plain[5:, 5:].all()  # as the lines look, the light hides them
        assert not room[5:, 5:].any()  # weighed against the room to white, they show
        assert room[2, 2] and room[1, 2] and room[3, 3]  # the hand still hides its cells
        assert (room == plain)[:4, :4].all()


def test_white_room_lifts_no_line_whose_tile_keeps_room():
    # A light line whose tile is lit brighter, but keeps more than WHITE_ROOM_KNEE of the
    # board's typical room to white, is judged as it shows (a white hand is that light).
    lab_l = _light_lines(bright=210, line=228)
    strengths = line_strengths(255 - lab_l, 40, 0.5)
    plain = hidden_share(strengths, 40)
    assert covered_cells(plain).reshape(N, N)[5:, 5:].all()
    assert np.array_equal(hidden_share(strengths, 40, white=lab_l), plain)


def test_measure_weighs_light_lines_against_the_room_to_white():
    # cells.measure of a board whose lines are lighter than its tiles (``light_lines``).
    from piecebridge.vision.cells import board_views, measure
    from piecebridge.vision.reader import default_looks

    rect = cv2.cvtColor(_light_lines(), cv2.COLOR_GRAY2BGR)
    covered = np.array([d.covered for d in measure(board_views(rect), default_looks(), True)])
    assert not covered.any()
