"""Photos of a calibration target with known ground truth (for tests and benchmarks).

The target (chessboard or ChArUco) is drawn into a table raster and photographed
with :func:`piecebridge.synth.photo.photograph`, whose camera has known
intrinsics and OpenCV lens distortion, from random poses that put the target
all over the frame at various tilts::

    >>> from piecebridge.calibration.camera import parse_pattern
    >>> scene = TargetScene.of(parse_pattern("chessboard:9x6", 25))
    >>> lens = Camera(image_size=(640, 480), focal_px=600.0, dist_coeffs=(-0.2, 0.05, 0, 0, 0))
    >>> shots = scene.views(lens, 3, np.random.default_rng(0))
    >>> shots[0].image.shape, shots[0].corners.shape
    ((480, 640, 3), (54, 2))
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from piecebridge.calibration.camera import Pattern
from piecebridge.synth.photo import Camera, PhotoStyle, photograph

#: Raster resolution of the drawn target; the photos sample it at about 1 px per mm or
#: coarser, so 0.25 mm keeps every edge sharp to a fraction of an image pixel.
#: The known lens the synthetic calibration test and benchmark render with: a webcam-like
#: 640x480 camera with strong barrel distortion, so recovering it is a real check.
TEST_LENS = Camera(
    image_size=(640, 480),
    focal_px=620.0,
    aspect=1.0,
    principal_px=(326.0, 236.0),
    dist_coeffs=(-0.28, 0.09, 0.0008, -0.0005, 0.0),
)

MM_PER_PX = 0.25
TABLE_GREY = 110


@dataclass
class TargetShot:
    """One photo: ``image`` BGR uint8, ``corners`` the exact pixel positions (N, 2) of the
    pattern's corners in :meth:`Pattern.object_points` order, and the camera used."""

    image: np.ndarray
    corners: np.ndarray
    camera: Camera


@dataclass
class TargetScene:
    """A target lying on a grey table; ``origin_mm`` is the board's top-left corner."""

    pattern: Pattern
    raster: np.ndarray
    origin_mm: tuple[float, float]
    size_mm: tuple[float, float]

    @classmethod
    def of(cls, pattern: Pattern, margin_mm: float | None = None) -> TargetScene:
        """Draw ``pattern`` on white paper (``margin_mm`` wide) on a table."""
        squares = (
            (pattern.cols + 1, pattern.rows + 1)
            if pattern.kind == "chessboard"
            else (pattern.cols, pattern.rows)
        )
        size = (squares[0] * pattern.square_mm, squares[1] * pattern.square_mm)
        margin = pattern.square_mm if margin_mm is None else margin_mm
        table = 2 * margin + 3 * max(size)  # room to look past the board's edges
        # On the raster grid, so the drawn edges are exactly where corners_mm says.
        origin = tuple(round((table - s) / 2 / MM_PER_PX) * MM_PER_PX for s in size)
        n = round(table / MM_PER_PX)
        raster = np.full((n, n, 3), TABLE_GREY, np.uint8)
        paper = [round((o - margin) / MM_PER_PX) for o in origin]
        far = [round((o + s + margin) / MM_PER_PX) for o, s in zip(origin, size, strict=True)]
        raster[paper[1] : far[1], paper[0] : far[0]] = 245
        board = _board_image(pattern, squares)
        x0, y0 = (round(o / MM_PER_PX) for o in origin)
        raster[y0 : y0 + board.shape[0], x0 : x0 + board.shape[1]] = board[..., None]
        return cls(pattern, raster, origin, size)

    def corners_mm(self) -> np.ndarray:
        """Table positions (N, 2) of the pattern's corners, in object-point order."""
        points = self.pattern.object_points()[:, :2].astype(np.float64)
        if self.pattern.kind == "chessboard":
            points = points + self.pattern.square_mm  # first inner corner is one square in
        # Raster pixel (0, 0) is centred on the table origin, so a drawn edge at raster
        # index k lies at (k - 0.5) mm_per_px.
        return points + np.array(self.origin_mm) - 0.5 * MM_PER_PX

    def photograph(self, camera: Camera, style: PhotoStyle, rng: np.random.Generator) -> TargetShot:
        """Photograph the scene through ``camera``."""
        photo = photograph(self.raster, MM_PER_PX, camera, style, rng)
        return TargetShot(photo.image, photo.project(self.corners_mm()), camera)

    def views(
        self,
        lens: Camera,
        count: int,
        rng: np.random.Generator,
        *,
        style: PhotoStyle | None = None,
        max_tilt_deg: float = 40.0,
        fill: tuple[float, float] = (0.35, 0.6),
    ) -> list[TargetShot]:
        """``count`` photos through ``lens`` (its intrinsics) from random poses.

        The target's centre is placed all over the frame, tilted up to
        ``max_tilt_deg`` towards a random direction, filling a ``fill`` share of the
        frame's width; every corner stays inside the frame.
        """
        style = style or PhotoStyle.clean().replace(defocus_sigma_px=0.7)
        return [
            self.photograph(camera, style, rng)
            for camera in self.random_cameras(lens, count, rng, max_tilt_deg, fill)
        ]

    def random_cameras(
        self,
        lens: Camera,
        count: int,
        rng: np.random.Generator,
        max_tilt_deg: float = 40.0,
        fill: tuple[float, float] = (0.35, 0.6),
    ) -> Iterator[Camera]:
        """The poses :meth:`views` photographs from (``lens`` placed ``count`` times), one
        at a time: a caller drawing its photos' noise from ``rng`` in between gets the
        same photos as before this was split out of :meth:`views`."""
        made = 0
        while made < count:
            camera = self._random_camera(lens, rng, max_tilt_deg, fill)
            if camera is not None:
                made += 1
                yield camera

    def _random_camera(
        self, lens: Camera, rng: np.random.Generator, max_tilt: float, fill: tuple[float, float]
    ) -> Camera | None:
        width, height = lens.image_size
        centre = np.array(self.origin_mm) + np.array(self.size_mm) / 2
        share = rng.uniform(*fill)
        height_mm = lens.focal_px * self.size_mm[0] / (share * width)
        tilt = math.degrees(math.acos(rng.uniform(math.cos(math.radians(max_tilt)), 1.0)))
        # Aim the optical axis beside the board so the board lands off-centre in the frame.
        offset_px = rng.uniform(-0.5, 0.5, 2) * (1 - share) * np.array([width, height])
        yaw = rng.uniform(-180, 180)
        c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
        shift = -np.array(
            [c * offset_px[0] - s * offset_px[1], s * offset_px[0] + c * offset_px[1]]
        )
        camera = lens.replace(
            target_mm=tuple(centre + shift * height_mm / lens.focal_px),
            height_mm=height_mm,
            tilt_deg=tilt,
            tilt_azimuth_deg=rng.uniform(0, 360),
            yaw_deg=yaw,
        )
        corners = camera.project(self.corners_mm())
        margin = 0.02 * width
        inside = (
            (corners[:, 0] > margin).all()
            and (corners[:, 0] < width - 1 - margin).all()
            and (corners[:, 1] > margin).all()
            and (corners[:, 1] < height - 1 - margin).all()
        )
        return camera if inside and (camera.depth_mm(self.corners_mm()) > 0).all() else None


def _board_image(pattern: Pattern, squares: tuple[int, int]) -> np.ndarray:
    """The board (squares only, no margin) at MM_PER_PX, edges anti-aliased."""
    supersample = 4
    px_per_square = pattern.square_mm / MM_PER_PX * supersample
    if abs(px_per_square - round(px_per_square)) > 1e-6:
        raise ValueError(f"square size must be a multiple of {MM_PER_PX / supersample} mm")
    px = round(px_per_square)
    if pattern.kind == "chessboard":
        # OpenCV's convention: the top-left square is black.
        white = np.indices((squares[1], squares[0])).sum(axis=0) % 2 == 1
        big = np.where(np.kron(white, np.ones((px, px), bool)), 245, 20).astype(np.uint8)
    else:
        big = pattern.charuco_board().generateImage(
            (squares[0] * px, squares[1] * px), marginSize=0
        )
        big = np.where(big > 127, 245, 20).astype(np.uint8)
    return cv2.resize(
        big, None, fx=1 / supersample, fy=1 / supersample, interpolation=cv2.INTER_AREA
    )


def hand_held_video(
    scene: TargetScene,
    lens: Camera,
    poses: int,
    rng: np.random.Generator,
    *,
    hold: int = 3,
    moves: int = 1,
    style: PhotoStyle | None = None,
) -> list[tuple[np.ndarray, bool]]:
    """Frames of a person showing the target to a camera: ``poses`` random poses, each
    held still for ``hold`` frames, with ``moves`` motion-blurred frames between them.

    Returns ``(frame, still)`` pairs; ``still`` says whether the frame belongs to a hold.
    """
    style = style or PhotoStyle.clean().replace(defocus_sigma_px=0.7, noise_sigma=0.01)
    cameras: list[Camera] = []
    while len(cameras) < poses:
        camera = scene._random_camera(lens, rng, 40.0, (0.4, 0.65))
        if camera is not None:
            cameras.append(camera)
    frames: list[tuple[np.ndarray, bool]] = []
    for index, camera in enumerate(cameras):
        if index:
            previous = cameras[index - 1]
            for step in range(1, moves + 1):
                between = _blend(previous, camera, step / (moves + 1))
                blur = style.replace(motion_px=12.0, motion_angle_deg=float(rng.uniform(0, 180)))
                frames.append((scene.photograph(between, blur, rng).image, False))
        for _ in range(hold):
            frames.append((scene.photograph(camera, style, rng).image, True))
    return frames


def _blend(a: Camera, b: Camera, t: float) -> Camera:
    def mix(x: float, y: float) -> float:
        return (1 - t) * x + t * y

    return a.replace(
        target_mm=(mix(a.target_mm[0], b.target_mm[0]), mix(a.target_mm[1], b.target_mm[1])),
        height_mm=mix(a.height_mm, b.height_mm),
        tilt_deg=mix(a.tilt_deg, b.tilt_deg),
        tilt_azimuth_deg=mix(a.tilt_azimuth_deg, b.tilt_azimuth_deg),
        yaw_deg=mix(a.yaw_deg, b.yaw_deg),
    )


@dataclass(frozen=True)
class FisheyeLens:
    """A camera with OpenCV's fisheye model: ``theta_d = theta (1 + k1 theta^2 + ... +
    k4 theta^8)``, ``dist_coeffs = (k1, k2, k3, k4)``, principal point mid-frame.

    >>> lens = FisheyeLens((640, 480), 205.0, (0.03, -0.012, 0.004, -0.001))
    >>> lens.K[:2, 2].tolist(), lens.K[1, 1].item()
    ([319.5, 239.5], 205.0)
    """

    image_size: tuple[int, int]
    focal_px: float
    dist_coeffs: tuple[float, float, float, float]

    @property
    def K(self) -> np.ndarray:
        w, h = self.image_size
        return np.array(
            [[self.focal_px, 0, (w - 1) / 2], [0, self.focal_px, (h - 1) / 2], [0, 0, 1]]
        )

    @property
    def D(self) -> np.ndarray:
        return np.array(self.dist_coeffs, np.float64)


def fisheye_views(
    scene: TargetScene,
    lens: FisheyeLens,
    count: int,
    rng: np.random.Generator,
    *,
    style: PhotoStyle | None = None,
) -> list[TargetShot]:
    """``count`` photos of ``scene`` through a fisheye ``lens`` from random poses.

    Each pose is chosen as :meth:`TargetScene.views` chooses it for a distortion-free
    pinhole of the same focal length and twice the frame (so targets reach out to where
    the fisheye squeezes them), photographed by a pinhole of three times the frame (room
    for the target's margins), and looked at through the fisheye: every fisheye pixel takes
    the colour along its ray. The shot's ``camera`` is that pinhole (the pose); its
    ``corners`` are exact in the fisheye image.
    """
    style = style or PhotoStyle.clean().replace(defocus_sigma_px=0.7)
    w, h = lens.image_size
    placing = Camera(image_size=(3 * w // 2, 3 * h // 2), focal_px=lens.focal_px)
    shots = []
    for camera in scene.random_cameras(placing, count, rng):
        pinhole = scene.photograph(camera.replace(image_size=(3 * w, 3 * h)), style, rng)
        shots.append(_through_fisheye(pinhole, lens))
    return shots


def _through_fisheye(shot: TargetShot, lens: FisheyeLens) -> TargetShot:
    w, h = lens.image_size
    grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)), -1)
    criteria = (cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 100, 1e-12)
    rays = cv2.fisheye.undistortPoints(grid.reshape(-1, 1, 2), lens.K, lens.D, criteria=criteria)
    # Pixels whose ray does not map back (past the model's horizon) see nothing.
    back = cv2.fisheye.distortPoints(rays, lens.K, lens.D).reshape(h, w, 2)
    lost = np.linalg.norm(back - grid, axis=2) > 0.5
    f, (cx, cy) = shot.camera.focal_px, shot.camera.K[:2, 2]
    src = (rays.reshape(h, w, 2) * f + (cx, cy)).astype(np.float32)
    src[lost] = -1
    image = cv2.remap(shot.image, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    rays_at_corners = ((shot.corners - (cx, cy)) / f).reshape(-1, 1, 2)
    corners = cv2.fisheye.distortPoints(rays_at_corners, lens.K, lens.D).reshape(-1, 2)
    return TargetShot(image, corners, shot.camera)
