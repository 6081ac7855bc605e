"""Finding the board: pose fitting, remap maps, the locked-pose check, and localisation on
rendered photos (the fixture renderer's tune split; the test split is for the benchmark,
benchmarks/vision_locate.py)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest
from piecebridge.calibration.geometry import (
    CANONICAL_CORNERS,
    N,
    cell_centre,
    closest_turns,
    project,
)
from piecebridge.calibration.pose import CROSS_CENTRES, BoardPose, fit_pose
from piecebridge.vision.locate import (
    BoardNotFound,
    _lines_shifted,
    _ridge_map,
    check_lock,
    downscale,
    find_board,
    lattice_shift,
    lines_beyond,
    refine_pose,
    scaled_pose,
    shifted_pose,
)

S = 60  # drawing pixels per cell


def flat_board(gap: int = 4) -> np.ndarray:
    """A plain board seen from above (4 px of table around it): 16 tiles with printed crosses
    at the tile centres, ``gap`` pixels of table between tiles."""
    W = 8 * S + 8
    img = np.full((W, W, 3), (40, 70, 50), np.uint8)  # table
    for j in range(4):
        for i in range(4):
            x0, y0 = 4 + 2 * S * i + gap // 2, 4 + 2 * S * j + gap // 2
            x1, y1 = 4 + 2 * S * (i + 1) - gap // 2 - 1, 4 + 2 * S * (j + 1) - gap // 2 - 1
            cv2.rectangle(img, (x0, y0), (x1, y1), (150, 190, 215), -1)
            cx, cy = 4 + 2 * S * i + S, 4 + 2 * S * j + S
            cv2.line(img, (cx, y0 + 6), (cx, y1 - 6), (25, 25, 25), 3)
            cv2.line(img, (x0 + 6, cy), (x1 - 6, cy), (25, 25, 25), 3)
    return img


def photo(H_canon_to_image: np.ndarray, size=(1280, 720), seed=0) -> np.ndarray:
    """The flat board through a homography (canonical cells -> image pixels), with noise."""
    flat = flat_board()
    # flat pixel -> canonical: (p - gap) / S, gap = 4
    A = np.array([[1 / S, 0, -4 / S], [0, 1 / S, -4 / S], [0, 0, 1]])
    img = np.full((size[1], size[0], 3), (40, 70, 50), np.uint8)
    img = cv2.warpPerspective(
        flat, H_canon_to_image @ A, size, dst=img, borderMode=cv2.BORDER_TRANSPARENT
    )
    img = cv2.GaussianBlur(img, (0, 0), 0.8)
    rng = np.random.default_rng(seed)
    return np.clip(img + rng.normal(0, 3, img.shape), 0, 255).astype(np.uint8)


def tilted_homography(size=(1280, 720)) -> np.ndarray:
    quad = np.array([[420, 110], [880, 140], [920, 620], [380, 600]], np.float32)
    return cv2.getPerspectiveTransform((CANONICAL_CORNERS).astype(np.float32), quad)


# --------------------------------------------------------------------------- pose


def test_remap_map_is_the_pose_mapping():
    rng = np.random.default_rng(3)
    pose = BoardPose(
        np.array([[90.0, 6, 400], [-4, 95, 120], [2e-4, 1e-4, 1]]),
        k=0.15,
        centre=(959.5, 539.5),
        scale=1101.0,
        tile_offsets=rng.normal(0, 1.5, (16, 2)),
        tile_angles=rng.normal(0, 0.015, 16),
    )
    px, margin = 20, 0.5
    size = round((N + 2 * margin) * px)
    mx, my = cv2.convertMaps(*pose._make_map(size, px, margin), cv2.CV_32FC1)
    u, v = np.meshgrid(np.arange(0, size, 7), np.arange(0, size, 7))
    canon = np.stack([u.ravel() / px - margin, v.ravel() / px - margin], axis=1)
    want = pose.to_image(canon)
    got = np.stack([mx[v.ravel(), u.ravel()], my[v.ravel(), u.ravel()]], axis=1)
    # CV_16SC2 maps keep 1/32 pixel.
    assert np.abs(got - want).max() < 0.1


def test_fit_pose_keeps_lens_and_drops_a_cross_on_a_piece_edge():
    truth = BoardPose(
        np.array([[95.0, 4, 560], [-3, 97, 150], [1e-5, 2e-5, 1]]),
        k=0.12,
        centre=(959.5, 539.5),
        scale=1101.0,
    )
    rng = np.random.default_rng(0)
    pts = truth.to_image(CROSS_CENTRES) + rng.normal(0, 0.3, (16, 2))
    pts[5] += (0.25 * 95, -0.1 * 95)  # a coin's edge taken for the cross
    pose = fit_pose(pts, np.ones(16, bool), (1920, 1080), 95.0)
    assert pose is not None
    assert pose.crosses_found == 15
    assert abs(pose.k - truth.k) < 0.04
    cells = np.array([[x + 0.5, y + 0.5] for y in range(8) for x in range(8)])
    err = np.linalg.norm(pose.to_image(cells) - truth.to_image(cells), axis=1).max()
    assert err < 0.03 * 95


def test_fit_pose_needs_six_crosses():
    pts = project(np.diag([90.0, 90.0, 1.0]), CROSS_CENTRES)
    found = np.zeros(16, bool)
    found[:5] = True
    assert fit_pose(pts, found, (1920, 1080), 90.0) is None


def test_downscaled_pose_maps_back_to_the_full_frame():
    frame = np.zeros((1080, 1920, 3), np.uint8)
    small, Smat = downscale(frame)
    assert small.shape[1] < 1.5 * 480 and small.shape[1] >= 480
    H = np.array([[100.0, 3, 500], [2, 98, 120], [1e-5, 0, 1]])
    pose = BoardPose(H)
    there_and_back = scaled_pose(scaled_pose(pose, Smat), np.linalg.inv(Smat))
    assert np.allclose(there_and_back.corners, pose.corners)
    # Pixel centres: full-frame pixel (1.5, 1.5) is the centre of small pixel (0, 0) at 1/4.
    assert np.allclose(project(Smat, np.array([[1.5, 1.5]])), [[0.0, 0.0]])


# --------------------------------------------------------------------------- finding


def test_find_board_under_perspective():
    H = tilted_homography()
    pose = find_board(photo(H))
    cell = np.linalg.norm(np.diff(project(H, CANONICAL_CORNERS), axis=0), axis=1).mean() / 8
    gaps = [np.abs(np.roll(pose.corners, k, axis=0) - project(H, CANONICAL_CORNERS)).max()
            for k in range(4)]  # fmt: skip
    assert min(gaps) < 0.15 * cell


def test_find_board_with_half_the_grid_covered():
    H = tilted_homography()
    img = photo(H)
    # Cover two whole rows of tiles' crosses (the southern half) with pale "coins".
    for y in (4.5, 5.5, 6.5, 7.5):
        for x in np.arange(0.5, 8, 1.0):
            cx, cy = project(H, np.array([[x, y]]))[0]
            cv2.circle(img, (int(cx), int(cy)), 24, (200, 215, 225), -1)
    pose = find_board(img)
    gaps = [np.abs(np.roll(pose.corners, k, axis=0) - project(H, CANONICAL_CORNERS)).max()
            for k in range(4)]  # fmt: skip
    assert min(gaps) < 0.15 * 60


def test_no_board_is_rejected_not_guessed():
    rng = np.random.default_rng(1)
    table = cv2.GaussianBlur(rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8), (0, 0), 6)
    with pytest.raises(BoardNotFound):
        find_board(table)


# --------------------------------------------------------------------------- locked pose


@pytest.mark.parametrize(
    ("shift_cells", "turn_deg", "state"),
    [(0.0, 0, "ok"), (0.09, 0, "drift"), (0.3, 0, "moved"),
     (0.5, 0, "moved"), (0.0, 3, "moved"), (1.0, 0, "moved"), (2.0, 0, "moved")],
)  # fmt: skip
def test_check_lock_tells_still_drifting_and_moved(shift_cells, turn_deg, state):
    H = tilted_homography()
    locked = BoardPose(H)
    # The board slid east (or turned about its middle): the lock looks at the old place.
    c, s = np.cos(np.radians(turn_deg)), np.sin(np.radians(turn_deg))
    R = np.array([[c, -s, 4 - 4 * c + 4 * s], [s, c, 4 - 4 * s - 4 * c], [0, 0, 1]])
    T = np.array([[1, 0, -shift_cells], [0, 1, 0], [0, 0, 1]])
    gray = cv2.cvtColor(photo(H @ T @ R), cv2.COLOR_BGR2GRAY)
    px, margin = 40, 0.5
    rect = locked.rectify(gray, px, margin)
    got, seen, _ = check_lock(rect, px, margin)
    assert got == state
    assert seen >= 12 or state == "moved"


def test_check_lock_reports_lost_on_a_blank_view():
    rect = np.full((360, 360), 128, np.uint8)
    assert check_lock(rect, 40, 0.5)[0] == "lost"


# --------------------------------------------------------------------------- rendered photos

reflec = pytest.importorskip("piecebridge.synth.reflec")
SIZE = (960, 540)


@functools.cache
def rendered(split_index: int, difficulty: str):
    return reflec.sample("tune", split_index, reflec.Difficulty.parse(difficulty), image_size=SIZE)


@pytest.mark.parametrize(
    ("index", "difficulty"),
    [(5, "occlusion=0.8"), (9, "tilt=1"), (2, "glare=1"), (6, "lens=1"), (1, "light=1")],
)
def test_find_board_on_rendered_photos(index, difficulty):
    shot = rendered(index, difficulty)
    synth = shot.truth["synth"]
    truth = np.array(synth["board_corners_px"])
    pose = find_board(shot.image)
    pose = pose.rotated(closest_turns(pose.H, truth))
    cell = np.linalg.norm(np.roll(truth, -1, axis=0) - truth, axis=1).mean() / 8
    # Where every cell the camera sees is (a hand may hide some: those need not be right).
    seen = [c for c in synth["cell_centers_px"] if c not in synth["occluded_cells"]]
    found = pose.to_image(np.array([cell_centre(c) for c in seen]))
    err = np.linalg.norm(found - np.array([synth["cell_centers_px"][c] for c in seen]), axis=1)
    assert err.max() < 0.12 * cell, f"{difficulty}: cell centre off by {err.max() / cell:.2f}"
    assert np.abs(pose.corners - truth).max() < 0.3 * cell


def test_lines_beyond_sees_tiles_past_a_side_and_ignores_the_photo_edge():
    H = tilted_homography()
    gray = cv2.cvtColor(photo(H), cv2.COLOR_BGR2GRAY)
    px, margin = 40, 0.5
    still = check_lock(BoardPose(H).rectify(gray, px, margin), px, margin)[0]
    # Locked one cell east of the board: its west margin shows the first tile column, whose
    # horizontal lines (crosses, gaps) run on; the grid lines themselves still fit.
    off = BoardPose(H @ np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1]], float))
    from piecebridge.vision.locate import _ridge_map

    rect = off.rectify(gray, px, margin)
    assert lines_beyond(_ridge_map(rect, px), px, margin)[3] >= 4
    assert (still, check_lock(rect, px, margin)[0]) == ("ok", "moved")
    # Past the photo's edge the rectification repeats the last row: lines seem to run on,
    # but that is no tile beyond the board.
    top = np.array([[1, 0, 0], [0, 1, -110], [0, 0, 1]], float)  # board touches the top edge
    rect = BoardPose(top @ H).rectify(cv2.warpAffine(gray, top[:2], gray.shape[::-1]), px, margin)
    assert check_lock(rect, px, margin)[0] in ("ok", "drift")


@functools.cache
def french_on_cloth(shot: int):
    """Tune rig 9: French art (crosses running into the tile gaps) on a checked cloth."""
    return reflec.sample("tune", 9 * reflec.SHOTS_PER_RIG + shot, image_size=(1280, 720))


def test_french_art_on_checked_cloth_is_found_in_place():
    shot = french_on_cloth(0)
    assert shot.truth["synth"]["art"] == "french" and shot.truth["synth"]["table"] == "cloth"
    truth = np.array(shot.truth["synth"]["board_corners_px"])
    cell = np.linalg.norm(np.roll(truth, -1, axis=0) - truth, axis=1).mean() / 8
    pose = find_board(shot.image)
    pose = pose.rotated(closest_turns(pose.H, truth))
    assert np.abs(pose.corners - truth).max() < 0.3 * cell


def test_light_ink_lines_are_found_in_the_darkest_channel():
    # Tune shot 58: French art, orange crosses on white card tiles; in grey the lines
    # hardly differ from the tiles and no grid was found.
    shot = reflec.sample("tune", 58, image_size=(1280, 720))
    assert shot.truth["synth"]["art"] == "french"
    truth = np.array(shot.truth["synth"]["board_corners_px"])
    cell = np.linalg.norm(np.roll(truth, -1, axis=0) - truth, axis=1).mean() / 8
    pose = find_board(shot.image)
    pose = pose.rotated(closest_turns(pose.H, truth))
    assert np.abs(pose.corners - truth).max() < 0.3 * cell
    # The tile colour is the frame's (white card), not the darkest channel's grey.
    assert pose.tile_color_lab[0] > 150 and abs(pose.tile_color_lab[1] - 128) < 15


def test_thorough_search_places_the_calibration_photo_on_a_checked_cloth():
    # Tune rig 9's calibration photo: in grey only 7 of 16 crosses fit a board stretched
    # a cell north into the cloth; the darkest channel's board fits more, near it.
    shot = reflec.calibration_sample(
        "tune", 9, reflec.Difficulty.parse("realistic"), image_size=(1280, 720)
    )
    truth = np.array(shot.truth["synth"]["board_corners_px"])
    cell = np.linalg.norm(np.roll(truth, -1, axis=0) - truth, axis=1).mean() / 8

    def corner_error(pose):
        pose = pose.rotated(closest_turns(pose.H, truth))
        return np.abs(pose.corners - truth).max() / cell

    quick = find_board(shot.image)
    thorough = find_board(shot.image, thorough=True)
    assert corner_error(thorough) < 0.3
    assert np.allclose(thorough.tile_color_lab, quick.tile_color_lab)  # grey's colour


@pytest.mark.parametrize(("sx", "sy"), [(1, 0), (0, -1), (-1, 1)])
def test_lattice_shift_undoes_a_whole_cell_slip(sx, sy):
    shot = french_on_cloth(0)
    truth = np.array(shot.truth["synth"]["board_corners_px"], np.float32)
    gray = cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY)
    H = cv2.getPerspectiveTransform(CANONICAL_CORNERS.astype(np.float32), truth)
    pose = refine_pose(gray, BoardPose(H), px_per_cell=24, search=0.3, fit_lens=False)
    assert lattice_shift(shot.image, gray, pose, 24) == (0, 0)
    # A fit that slipped a cell: lines on lines, the crosses on tile gaps.
    slipped = refine_pose(gray, shifted_pose(pose, sx, sy), px_per_cell=24, search=0.3)
    assert lattice_shift(shot.image, gray, slipped, 24) == (-sx, -sy)


def test_check_lock_tells_a_diagonal_slide_of_a_cell_or_so_from_a_hand():
    # Slid 0.9 cell east and 0.6 south, the lines fall between the places the lock looks
    # at and the board's edges land on lines: as few crosses show as under a hand, but the
    # lines are all there, shifted alike (the plain board of test_vision_board).
    from test_vision_board import POSITION, draw_board

    img, _ = draw_board(**POSITION)
    locked = find_board(img)
    gray = cv2.cvtColor(np.roll(img, (40, 60), axis=(0, 1)), cv2.COLOR_BGR2GRAY)
    rect = locked.rectify(gray, 40, 0.5)
    state, _, _ = check_lock(rect, 40, 0.5)
    assert state == "moved"
    # Taken along each tile at its lower third (LOCK_ALONG), some lines now show at the
    # searched band's end (0.3 cell off: moved); the lines shifted alike say so too, as
    # when too few crosses show.
    assert _lines_shifted(_ridge_map(rect, 40), 40, 20, 0.15)


def test_check_lock_keeps_the_lock_under_a_hand_over_most_crosses():
    H = tilted_homography()
    img = photo(H)
    # A skin-coloured arm over all but the north-west tile (its outer edges still show).
    for x0, y0 in ((2.0, 0.1), (0.1, 2.0)):
        quad = project(H, np.array([[x0, y0], [7.9, y0], [7.9, 7.9], [x0, 7.9]]))
        cv2.fillConvexPoly(img, quad.astype(np.int32), (120, 160, 220))
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    px, margin = 40, 0.5
    state, seen, _ = check_lock(BoardPose(H).rectify(gray, px, margin), px, margin)
    assert seen < 4  # the arm hides nearly every cross
    assert state == "ok"
