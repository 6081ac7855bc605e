"""The generic camera: exact projection ground truth, lens model, solids, degradations."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from piecebridge.synth.photo import (
    Box,
    Camera,
    PhotoStyle,
    Revolved,
    ShadowBlob,
    make_hand,
    photograph,
)

DISTORTED = Camera(
    image_size=(960, 540),
    focal_px=700.0,
    principal_px=(470.0, 275.0),
    dist_coeffs=(-0.28, 0.09, 0.0015, -0.001, 0.0),
    target_mm=(150.0, 100.0),
    height_mm=380.0,
    tilt_deg=24.0,
    tilt_azimuth_deg=35.0,
    yaw_deg=9.0,
)


def _dots_world(points_mm: np.ndarray, mm_per_px: float) -> np.ndarray:
    world = np.full((800, 1200, 3), 255, np.uint8)
    for x, y in points_mm:
        center = (round(x / mm_per_px * 16), round(y / mm_per_px * 16))
        cv2.circle(world, center, round(2.5 / mm_per_px * 16), (0, 0, 0), -1, cv2.LINE_AA, 4)
    return world


def _centroid(img: np.ndarray, at: np.ndarray, r: int = 14) -> np.ndarray:
    x, y = np.round(at).astype(int)
    win = 255.0 - img[y - r : y + r + 1, x - r : x + r + 1, 1].astype(float)
    yy, xx = np.mgrid[y - r : y + r + 1, x - r : x + r + 1]
    return np.array([(win * xx).sum(), (win * yy).sum()]) / win.sum()


def test_projection_is_exact_with_distortion_and_tilt():
    s = 0.25
    pts = np.array([(150, 100), (60, 40), (240, 160), (70, 170), (250, 30), (200, 110)], float)
    photo = photograph(_dots_world(pts, s), s, DISTORTED, PhotoStyle.clean())
    proj = photo.project(pts)
    inside = (proj > 20).all(1) & (proj[:, 0] < 940) & (proj[:, 1] < 520)
    assert inside.sum() >= 5
    for p in proj[inside]:
        # the drawn dot's centroid lands where project() says (perspective bias << 0.1 px)
        assert np.linalg.norm(_centroid(photo.image, p) - p) < 0.08


def test_project_matches_opencv_and_inverts():
    pts = np.array([(100.0, 80.0, 0.0), (180.0, 120.0, 25.0)])
    ocv = np.array(pts)
    ocv[:, 2] *= -1
    expect, _ = cv2.projectPoints(ocv, DISTORTED.rvec, DISTORTED.tvec, DISTORTED.K, DISTORTED.dist)
    np.testing.assert_allclose(DISTORTED.project(pts), expect.reshape(-1, 2), atol=1e-9)
    back = DISTORTED.pixel_to_table(DISTORTED.project(pts[:1]))
    np.testing.assert_allclose(back, pts[:1, :2], atol=1e-6)


def test_straight_down_camera_is_a_scaled_copy():
    cam = Camera(image_size=(400, 300), focal_px=500.0, target_mm=(50.0, 50.0), height_mm=250.0)
    # 500 px focal at 250 mm: 2 px per mm, centred on the target
    np.testing.assert_allclose(cam.project([(60.0, 45.0)]), [[199.5 + 20, 149.5 - 10]])


def test_tilted_camera_makes_the_far_side_smaller():
    cam = Camera(image_size=(640, 480), focal_px=600.0, height_mm=400.0, tilt_deg=25.0)
    near = cam.project([(-50.0, 50.0), (50.0, 50.0)])  # camera stands off towards +y
    far = cam.project([(-50.0, -50.0), (50.0, -50.0)])
    assert np.ptp(far[:, 0]) < np.ptp(near[:, 0]) * 0.95


def test_tall_piece_leans_away_from_image_centre():
    cam = Camera(image_size=(640, 480), focal_px=600.0, target_mm=(0.0, 0.0), height_mm=300.0)
    base, top = cam.project([(60.0, 0.0, 0.0), (60.0, 0.0, 25.0)])
    assert top[0] > base[0] + 5  # pieces right of centre lean further right


def test_pawn_covers_the_next_cell_outward():
    cam = Camera(image_size=(640, 480), focal_px=600.0, target_mm=(0.0, 0.0), height_mm=300.0)
    world = np.full((600, 600, 3), 230, np.uint8)
    pawn = Revolved((120.0, 0.0), [(0, 7), (3, 7), (14, 4), (19, 5.5), (24, 0)], (0.1, 0.1, 0.8))
    photo = photograph(
        world, 0.5, cam, PhotoStyle.clean(), world_origin_mm=(-150, -150), solids=[pawn]
    )
    red = (photo.image[..., 2].astype(int) - photo.image[..., 1]) > 60
    xs = np.nonzero(red)[1]
    base = cam.project([(120.0, 0.0)])[0]
    # 2 px/mm: the body reaches well beyond its 7 mm footprint, away from the image centre
    assert xs.max() > base[0] + 2 * (7 + 4)
    assert xs.min() > base[0] - 2 * 7 - 2


def test_box_top_texture_and_occluder_mask():
    cam = Camera(image_size=(480, 360), focal_px=450.0, target_mm=(0.0, 0.0), height_mm=300.0)
    world = np.full((500, 500, 3), 200, np.uint8)
    tex = np.zeros((32, 32, 3), np.uint8)
    tex[:16] = (0, 0, 255)  # top half red: the texture's up side is north (-y)
    die = Box((0.0, 0.0), (20.0, 20.0), 10.0, (0.5, 0.5, 0.5), top_texture=tex)
    rng = np.random.default_rng(1)
    hand = make_hand(rng, (0.0, 60.0), 90.0, height_mm=50.0)
    photo = photograph(
        world, 0.5, cam, PhotoStyle.clean(), rng, world_origin_mm=(-125, -125), solids=[die],
        occluders=hand,
    )  # fmt: skip
    north, south = cam.project([(0.0, -5.0, 10.0), (0.0, 5.0, 10.0)]).round().astype(int)
    assert photo.image[north[1], north[0], 2] > 200 and photo.image[north[1], north[0], 1] < 60
    assert photo.image[south[1], south[0], 2] < 60
    palm = cam.project([(100.0, 60.0, 55.0)])[0].round().astype(int)  # arm comes from +x
    assert photo.occlusion.max() == pytest.approx(1.0)
    assert photo.occlusion[palm[1], palm[0]] == pytest.approx(1.0)
    assert photo.occlusion[5, 5] == 0


def test_noise_is_deterministic_by_seed():
    world = np.full((300, 300, 3), 128, np.uint8)
    cam = Camera(image_size=(320, 240), focal_px=300.0, target_mm=(75.0, 75.0), height_mm=300.0)
    a = photograph(world, 0.5, cam, PhotoStyle(), np.random.default_rng(5)).image
    b = photograph(world, 0.5, cam, PhotoStyle(), np.random.default_rng(5)).image
    c = photograph(world, 0.5, cam, PhotoStyle(), np.random.default_rng(6)).image
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_pixel_grid_interpolation_is_accurate_under_strong_distortion():
    from piecebridge.synth.photo import _camera_grid, _distort

    cam = DISTORTED.replace(image_size=(1920, 1080), focal_px=1300.0, principal_px=None)
    xn, yn = _camera_grid(cam)
    k = cam.K
    ys, xs = np.mgrid[0:1080:37, 0:1920:41]
    # forward-distorting the interpolated inverse must land back on the pixel
    xd, yd = _distort(xn[ys, xs].astype(float), yn[ys, xs].astype(float), cam.dist)
    err = np.hypot(xd * k[0, 0] + k[0, 2] - xs, yd * k[1, 1] + k[1, 2] - ys)
    assert err.max() < 0.05


@pytest.mark.parametrize(
    "change",
    [
        {"defocus_sigma_px": 2.0},
        {"motion_px": 8.0, "motion_angle_deg": 30.0},
        {"noise_sigma": 0.03},
        {"jpeg_quality": 40},
        {"vignette": 0.4},
        {"gradient": 0.4},
        {"flicker": 0.08},
        {"glare": 1.0, "ground_gloss": 0.5},
        {"white_balance_bgr": (1.1, 1.0, 0.85)},
        {"sharpen": 0.8},
        {"shadows": (ShadowBlob((75.0, 75.0), (80.0, 50.0), strength=0.5),)},
    ],
)
def test_each_style_parameter_changes_the_photo(change):
    rng = np.random.default_rng(0)
    world = (rng.random((300, 300, 3)) * 120 + 60).astype(np.uint8)
    world = cv2.GaussianBlur(world, (0, 0), 2)
    cam = Camera(image_size=(320, 240), focal_px=300.0, target_mm=(75.0, 75.0), height_mm=300.0)
    base = PhotoStyle.clean()
    a = photograph(world, 0.5, cam, base, np.random.default_rng(1)).image.astype(float)
    b = photograph(world, 0.5, cam, base.replace(**change), np.random.default_rng(1)).image
    assert np.abs(a - b).mean() > 0.5, change
