"""Camera (lens) calibration: find a target, fit intrinsics, undistort frames.

The pieces, in the order a calibration uses them::

    >>> pattern = parse_pattern("chessboard:9x6", square_mm=25)
    >>> views = [detect_pattern(load_gray(p), pattern, name=p) for p in paths]  # doctest: +SKIP
    >>> fit = calibrate_views([v for v in views if v.found], (640, 480))  # doctest: +SKIP
    >>> fit.calibration.save("camera.yaml")  # doctest: +SKIP

and every later command::

    >>> undistort = load_camera_calibration("camera.yaml").undistorter()  # doctest: +SKIP
    >>> flat = undistort(frame)  # precomputed maps: one cv2.remap per frame  # doctest: +SKIP

``COLSxROWS`` counts inner corners for a chessboard, as ``cv2.findChessboardCorners``
does, and squares for a ChArUco board, as ``cv2.aruco.CharucoBoard`` does.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from piecebridge.calibration.images import read_image_bytes, undecodable

from piecebridge.errors import UserError

DEFAULT_DICTIONARY = "DICT_5X5_100"
#: ChArUco views with fewer interpolated corners are not used (OpenCV needs 4
#: for a homography; 6 keeps degenerate near-collinear sets out).
MIN_CHARUCO_CORNERS = 6
#: cornerSubPix half-window cap (OpenCV's customary 11) and its fraction of the
#: corner spacing: a window reaching the neighbouring corner biases the result.
MAX_SUBPIX_HALF_WINDOW = 11
SUBPIX_WINDOW_FRACTION = 0.4
_SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.001)
#: Chessboard detection on images larger than this (long side, px) runs on a
#: downscaled copy first; sub-pixel refinement then runs at full resolution.
DETECT_MAX_SIDE = 1600
#: How many found views are also tried with a one-larger chessboard (wrong --pattern).
LARGER_CHECKS = 3
#: Lens models. PINHOLE: OpenCV's pinhole camera with polynomial distortion (k1 k2 p1 p2
#: [k3 ...]), for ordinary and wide lenses. FISHEYE: OpenCV's fisheye model (equidistant
#: projection, theta_d = theta (1 + k1 theta^2 + ... + k4 theta^8)), for lenses whose view
#: reaches towards 180 degrees, where the pinhole model cannot follow.
PINHOLE = "pinhole"
FISHEYE = "fisheye"
LENS_MODELS = (PINHOLE, FISHEYE)
_FIT_CRITERIA = (cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 100, 1e-9)


# --------------------------------------------------------------------------- pattern


@dataclass(frozen=True)
class Pattern:
    """A calibration target.

    >>> p = parse_pattern("chessboard:9x6", square_mm=25)
    >>> p.corner_count, p.object_points().shape
    (54, (54, 3))
    """

    kind: str  # "chessboard" or "charuco"
    cols: int
    rows: int
    square_mm: float
    marker_mm: float | None = None
    dictionary: str = DEFAULT_DICTIONARY

    @property
    def corner_count(self) -> int:
        """How many corners a complete view shows."""
        if self.kind == "chessboard":
            return self.cols * self.rows
        return (self.cols - 1) * (self.rows - 1)

    def describe(self) -> str:
        """``chessboard:9x6`` style text, as given on the command line."""
        return f"{self.kind}:{self.cols}x{self.rows}"

    def describe_long(self) -> str:
        """A phrase for messages: what the user should see in the photos."""
        if self.kind == "chessboard":
            return f"a chessboard with {self.cols}x{self.rows} inner corners"
        return f"a ChArUco board of {self.cols}x{self.rows} squares ({self.dictionary})"

    def object_points(self) -> np.ndarray:
        """Chessboard corners in millimetres on the target plane, (N, 3) float32, row-major."""
        if self.kind != "chessboard":
            return self.charuco_board().getChessboardCorners().astype(np.float32)
        grid = np.mgrid[0 : self.cols, 0 : self.rows].T.reshape(-1, 2)
        points = np.zeros((self.cols * self.rows, 3), np.float32)
        points[:, :2] = grid * self.square_mm
        return points

    def charuco_board(self) -> cv2.aruco.CharucoBoard:
        """The OpenCV board object (ChArUco only), in millimetre units."""
        if self.kind != "charuco" or self.marker_mm is None:
            raise ValueError("not a ChArUco pattern")
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard(
            (self.cols, self.rows), self.square_mm, self.marker_mm, dictionary
        )


_PATTERN_RE = re.compile(r"^(chessboard|charuco):(\d+)[xX](\d+)$")


def parse_pattern(
    text: str,
    square_mm: float,
    marker_mm: float | None = None,
    dictionary: str = DEFAULT_DICTIONARY,
) -> Pattern:
    """Parse ``chessboard:COLSxROWS`` or ``charuco:COLSxROWS``; raise UserError if malformed.

    >>> parse_pattern("charuco:7x5", 40, 30).corner_count
    24
    """
    match = _PATTERN_RE.match(text.strip().lower())
    if not match:
        raise UserError(
            f"bad pattern {text!r}: expected chessboard:COLSxROWS or charuco:COLSxROWS, "
            "e.g. chessboard:9x6"
        )
    kind, cols, rows = match.group(1), int(match.group(2)), int(match.group(3))
    if not square_mm or square_mm <= 0:
        raise UserError(f"--square-mm must be positive, not {square_mm}")
    if kind == "chessboard":
        if cols < 2 or rows < 2:
            raise UserError(f"a chessboard needs at least 2x2 inner corners, not {cols}x{rows}")
        return Pattern(kind, cols, rows, float(square_mm))
    if cols < 3 or rows < 3:
        raise UserError(f"a ChArUco board needs at least 3x3 squares, not {cols}x{rows}")
    marker = float(marker_mm) if marker_mm else round(0.75 * square_mm, 3)
    if not 0 < marker < square_mm:
        raise UserError(f"--marker-mm ({marker}) must be smaller than --square-mm ({square_mm})")
    name = dictionary.upper()
    if not name.startswith("DICT_"):
        name = "DICT_" + name
    if not hasattr(cv2.aruco, name):
        raise UserError(f"unknown ArUco dictionary {dictionary!r} (e.g. DICT_5X5_100)")
    available = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)).bytesList.shape[0]
    needed = (cols * rows) // 2
    if available < needed:
        raise UserError(
            f"{name} has {available} markers but a {cols}x{rows} ChArUco board needs "
            f"{needed}: choose a larger dictionary"
        )
    return Pattern(kind, cols, rows, float(square_mm), marker, name)


# --------------------------------------------------------------------------- images


def load_gray(path: str | os.PathLike) -> np.ndarray:
    """Read an image as 8-bit grayscale; raise UserError if missing or unreadable.

    Uses ``np.fromfile`` + ``cv2.imdecode`` so non-ASCII paths work too.
    """
    return _load(path, cv2.IMREAD_GRAYSCALE)


def load_color(path: str | os.PathLike) -> np.ndarray:
    """Read an image as BGR; raise UserError if missing or unreadable."""
    return _load(path, cv2.IMREAD_COLOR)


def _load(path: str | os.PathLike, flags: int) -> np.ndarray:
    image = cv2.imdecode(read_image_bytes(path), flags)
    if image is None:
        raise undecodable(path)
    if image.dtype != np.uint8:
        image = cv2.convertScaleAbs(image, alpha=255.0 / max(1, int(image.max())))
    return image


# --------------------------------------------------------------------------- detection


@dataclass
class View:
    """One image's detection: where the target's corners are.

    ``image_points`` (N, 2) float32 pixels and ``object_points`` (N, 3) float32
    millimetres, in matching order; empty when ``found`` is False, in which case
    ``reason`` says why.
    """

    name: str
    image_size: tuple[int, int]  # (width, height)
    image_points: np.ndarray
    object_points: np.ndarray
    reason: str = ""

    @property
    def found(self) -> bool:
        return len(self.image_points) > 0


def detect_pattern(gray: np.ndarray, pattern: Pattern, name: str = "") -> View:
    """Find the target's corners with sub-pixel accuracy.

    >>> board = np.kron((np.indices((7, 10)).sum(0) % 2) * 255, np.ones((40, 40)))
    >>> view = detect_pattern(np.pad(board, 40, constant_values=255).astype(np.uint8),
    ...                       parse_pattern("chessboard:9x6", 25))
    >>> view.found, view.image_points.shape
    (True, (54, 2))
    """
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGR2GRAY)
    size = (gray.shape[1], gray.shape[0])
    if pattern.kind == "chessboard":
        corners = _find_chessboard(gray, pattern)
        if corners is None:
            return _missing(name, size, f"{pattern.describe_long()} not found")
        return View(name, size, corners, pattern.object_points())
    return _detect_charuco(gray, pattern, name, size)


def _missing(name: str, size: tuple[int, int], reason: str) -> View:
    return View(name, size, np.empty((0, 2), np.float32), np.empty((0, 3), np.float32), reason)


def _find_chessboard(gray: np.ndarray, pattern: Pattern) -> np.ndarray | None:
    """Classic detector (+ adaptive cornerSubPix), falling back to the SB detector."""
    shape = (pattern.cols, pattern.rows)
    scale = min(1.0, DETECT_MAX_SIDE / max(gray.shape))
    small = (
        gray
        if scale == 1.0
        else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    )
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK
    found, corners = cv2.findChessboardCorners(small, shape, flags=flags)
    if found:
        return refine_corners(gray, _upscale(corners, scale), pattern)
    # The sector-based detector copes with blur and uneven light; its corners
    # are already sub-pixel accurate.
    found, corners = cv2.findChessboardCornersSB(small, shape, flags=cv2.CALIB_CB_NORMALIZE_IMAGE)
    if not found:
        return None
    corners = _upscale(corners, scale)
    return corners if scale == 1.0 else refine_corners(gray, corners, pattern)


def _upscale(corners: np.ndarray, scale: float) -> np.ndarray:
    """Corners found on an image resized by ``scale``, in full-size pixel coordinates."""
    corners = np.asarray(corners, np.float32).reshape(-1, 2)
    return corners if scale == 1.0 else (corners + 0.5) / scale - 0.5  # pixel centres


def corner_spacing(corners: np.ndarray, pattern: Pattern) -> float:
    """Smallest distance in pixels between neighbouring chessboard corners."""
    grid = corners.reshape(pattern.rows, pattern.cols, 2)
    along = np.linalg.norm(np.diff(grid, axis=1), axis=2)
    across = np.linalg.norm(np.diff(grid, axis=0), axis=2)
    return float(min(along.min(), across.min()))


def refine_corners(gray: np.ndarray, corners: np.ndarray, pattern: Pattern) -> np.ndarray:
    """cornerSubPix with a window sized to the squares.

    OpenCV's customary 11 px half-window spans the neighbouring corner when the
    squares are small in the image (left02 of OpenCV's own samples: 22 px
    squares, per-view error 1.2 px instead of 0.2 px), so the half-window is at
    most 40% of the corner spacing.
    """
    spacing = corner_spacing(corners, pattern)
    half = int(np.clip(round(SUBPIX_WINDOW_FRACTION * spacing), 2, MAX_SUBPIX_HALF_WINDOW))
    refined = cv2.cornerSubPix(
        gray, corners.reshape(-1, 1, 2).astype(np.float32), (half, half), (-1, -1), _SUBPIX_CRITERIA
    )
    return np.asarray(refined, np.float32).reshape(-1, 2)


def _detect_charuco(gray: np.ndarray, pattern: Pattern, name: str, size: tuple[int, int]) -> View:
    board = pattern.charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, marker_corners, _ = detector.detectBoard(gray)
    count = 0 if ids is None else len(ids)
    if count < MIN_CHARUCO_CORNERS:
        markers = len(marker_corners) if marker_corners is not None else 0
        if markers == 0:
            return _missing(name, size, f"no {pattern.dictionary} markers found")
        return _missing(
            name,
            size,
            f"only {count} ChArUco corners found from {markers} markers "
            f"(need {MIN_CHARUCO_CORNERS}; check --pattern and --dictionary)",
        )
    ids = np.asarray(ids).reshape(-1)
    corners = np.asarray(corners, np.float32).reshape(-1, 2)
    object_points = board.getChessboardCorners()[ids].astype(np.float32)
    # Corners all on one line fix nothing about the lens.
    if _collinear(object_points):
        return _missing(name, size, f"the {count} ChArUco corners found lie on one line")
    return View(name, size, corners, object_points)


def _collinear(points: np.ndarray) -> bool:
    centred = points[:, :2] - points[:, :2].mean(axis=0)
    singular = np.linalg.svd(centred, compute_uv=False)
    return bool(singular[-1] < 1e-6 * max(singular[0], 1e-9))


# --------------------------------------------------------------------------- fitting


@dataclass(frozen=True)
class Rejection:
    """A view left out of the fit, and why (for the user)."""

    name: str
    reason: str


@dataclass
class CalibrationFit:
    """What :func:`calibrate_views` found: the calibration and the evidence for it."""

    calibration: CameraCalibration
    views: list[View]  # used in the final fit, in input order
    per_view_errors: np.ndarray  # RMS px per used view
    rvecs: list[np.ndarray]
    tvecs: list[np.ndarray]
    rejected: list[Rejection] = field(default_factory=list)
    std_intrinsics: np.ndarray | None = None  # fx fy cx cy k1 k2 p1 p2 k3 ... (1 sigma)


def calibrate_views(
    views: Sequence[View],
    image_size: tuple[int, int],
    *,
    flags: int = 0,
    reject_ratio: float = 3.0,
    reject_floor_px: float = 0.5,
    min_views: int = 3,
    model: str = PINHOLE,
) -> CalibrationFit:
    """Fit intrinsics to ``views``; drop views whose error is far above the rest and refit.

    ``model`` is the lens model (:data:`PINHOLE` or :data:`FISHEYE`); ``flags`` are
    ``cv2.calibrateCamera``'s (pinhole only).

    A view is rejected (one at a time, worst first) when its RMS reprojection
    error exceeds both ``reject_ratio`` times the median and ``reject_floor_px``
    (sub-half-pixel views are always good enough to keep). ``reject_ratio=0``
    keeps every view.

    Raises UserError when fewer than ``min_views`` usable views remain.
    """
    used = [v for v in views if v.found]
    if len(used) < min_views:
        raise UserError(
            f"only {len(used)} image(s) show the pattern; at least {min_views} are needed"
        )
    rejected: list[Rejection] = []
    while True:
        fit = _fit(used, image_size, flags, model)
        errors = fit.per_view_errors
        worst = int(np.argmax(errors))
        median = float(np.median(errors))
        too_high = errors[worst] > max(reject_ratio * median, reject_floor_px)
        if reject_ratio <= 0 or not too_high or len(used) <= min_views:
            fit.rejected = rejected
            return fit
        rejected.append(
            Rejection(
                used[worst].name,
                f"reprojection error {errors[worst]:.2f} px is {errors[worst] / median:.1f}x "
                f"the median {median:.2f} px",
            )
        )
        used = used[:worst] + used[worst + 1 :]


IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".pgm", ".ppm")


def expand_image_paths(items: Sequence[str | os.PathLike]) -> list[Path]:
    """Files as given; a folder stands for the images in it (sorted by name), except
    calibration report pictures (``*-report.png``)."""
    paths: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            # Our own report pictures ("<out>-report.png") may sit among the photos.
            inside = sorted(
                p
                for p in path.iterdir()
                if p.suffix.lower() in IMAGE_SUFFIXES and not p.name.endswith("-report.png")
            )
            if not inside:
                raise UserError(f"folder {path} holds no images")
            paths.extend(inside)
        else:
            paths.append(path)
    return paths


def detect_in_images(paths: Sequence[str | os.PathLike], pattern: Pattern) -> list[View]:
    """Load and detect every image; raise UserError for missing files, mixed sizes,
    or a chessboard that is visibly larger than ``pattern`` says.

    A file that is not an image (or is corrupt) becomes a view without the pattern whose
    ``reason`` says so: one bad photo among thirty should not stop a calibration. When no
    file at all is an image, the first one's error is raised. Images are processed on all
    cores (OpenCV releases the GIL); errors are reported for the first offending image in
    the given order.
    """
    paths = list(paths)
    for path in paths:  # a missing file is a typo on the command line: refuse at once
        if not Path(path).is_file():
            raise UserError(f"cannot read image {path}: no such file")

    def work(index: int) -> tuple[View, str | None]:
        try:
            gray = load_gray(paths[index])
        except UserError as error:
            return _unreadable(paths[index], error), None
        view = detect_pattern(gray, pattern, name=str(paths[index]))
        check = view.found and pattern.kind == "chessboard" and index < LARGER_CHECKS
        return view, larger_chessboard(gray, pattern) if check else None

    workers = max(1, min(len(paths), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(work, range(len(paths))))
    views = [view for view, _ in results if view.image_size != UNREAD]
    if not views:
        load_gray(paths[0])  # raises the first file's own error
    for view in views[1:]:
        if view.image_size != views[0].image_size:
            first = views[0]
            raise UserError(
                f"images differ in size: {first.name} is {first.image_size[0]}x"
                f"{first.image_size[1]} but {view.name} is {view.image_size[0]}x"
                f"{view.image_size[1]}; calibrate one camera mode at a time"
            )
    # The classic detector happily finds an 8x6 corner grid inside a 9x6 board, and a
    # sub-grid gives a plausible but mislabelled fit: refuse when most checked views show
    # a larger board.
    votes = [larger for view, larger in results[:LARGER_CHECKS] if view.found]
    larger = [v for v in votes if v]
    if larger and len(larger) * 2 > len(votes):
        raise UserError(
            f"the photos show a chessboard with at least {larger[0]} inner corners, not "
            f"{pattern.cols}x{pattern.rows}: fix --pattern (COLSxROWS counts inner corners)"
        )
    return [view for view, _ in results]


# The image size of a file that could not be read as an image.
UNREAD = (0, 0)


def _unreadable(path: str | os.PathLike, error: UserError) -> View:
    """A view of a file that is no image: nothing found, and the reason why."""
    empty = np.zeros((0, 2), np.float32)
    reason = str(error).split(": ", 1)[-1]  # "not an image file or damaged"
    return View(str(path), UNREAD, empty, np.zeros((0, 3), np.float32), reason)


def larger_chessboard(gray: np.ndarray, pattern: Pattern) -> str | None:
    """``"10x6"`` if a chessboard one corner wider or taller than ``pattern`` is in view."""
    scale = min(1.0, DETECT_MAX_SIDE / max(gray.shape))
    small = (
        gray
        if scale == 1.0
        else cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    )
    flags = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK  # quick: one threshold pass
    for cols, rows in ((pattern.cols + 1, pattern.rows), (pattern.cols, pattern.rows + 1)):
        if cv2.findChessboardCorners(small, (cols, rows), flags=flags)[0]:
            return f"{cols}x{rows}"
    return None


def calibrate_images(
    paths: Sequence[str | os.PathLike],
    pattern: Pattern,
    *,
    flags: int = 0,
    reject_ratio: float = 3.0,
) -> CalibrationFit:
    """The whole batch calibration: read, detect, fit, reject outliers, refit.

    Views without the pattern are listed first in ``fit.rejected``. Raises
    UserError (one line) when no image or too few show the target.
    """
    if not paths:
        raise UserError("no images given")
    views = detect_in_images(paths, pattern)
    return calibrate_detected(views, pattern, flags=flags, reject_ratio=reject_ratio)


def calibrate_detected(
    views: Sequence[View],
    pattern: Pattern,
    *,
    flags: int = 0,
    reject_ratio: float = 3.0,
    model: str = PINHOLE,
) -> CalibrationFit:
    """:func:`calibrate_views` with the pattern-not-found views reported as rejections."""
    found = [v for v in views if v.found]
    if not found:
        hint = (
            " (COLSxROWS counts inner corners, e.g. 9x6 for a 10x7-square board)"
            if pattern.kind == "chessboard"
            else " (COLSxROWS counts squares) and --dictionary"
        )
        raise UserError(
            f"none of the {len(views)} image(s) shows {pattern.describe_long()}: "
            f"check --pattern{hint}"
        )
    if len(found) < 3:
        raise UserError(
            f"only {len(found)} of {len(views)} image(s) show {pattern.describe_long()}; "
            "at least 3 are needed (check --pattern, or add photos)"
        )
    fit = calibrate_views(
        found, found[0].image_size, flags=flags, reject_ratio=reject_ratio, model=model
    )
    missing = [Rejection(v.name, v.reason) for v in views if not v.found]
    fit.rejected = missing + fit.rejected
    return fit


def reprojection_error(calibration: CameraCalibration, view: View) -> float:
    """RMS px of ``view`` under ``calibration`` with its own best pose (for rejected views)."""
    pose = calibration.solve_pnp(view.object_points, view.image_points)
    if pose is None:
        return float("nan")
    return _rms(calibration, view, *pose)


def _rms(calibration: CameraCalibration, view: View, rvec: np.ndarray, tvec: np.ndarray) -> float:
    residual = calibration.project(view.object_points, rvec, tvec) - view.image_points
    return float(np.sqrt((residual**2).sum(axis=1).mean()))


def _fit(
    views: list[View], image_size: tuple[int, int], flags: int, model: str = PINHOLE
) -> CalibrationFit:
    if model == FISHEYE:
        return _fit_fisheye(views, image_size, flags)
    object_points = [v.object_points.astype(np.float32) for v in views]
    image_points = [v.image_points.astype(np.float32) for v in views]
    try:
        rms, matrix, dist, rvecs, tvecs, std_in, _, per_view = cv2.calibrateCameraExtended(
            object_points, image_points, image_size, None, None, flags=flags
        )
    except cv2.error as error:
        raise UserError(f"calibration failed: {_cv_message(error)}") from None
    calibration = _fitted(matrix, dist, image_size, rms, PINHOLE)
    return CalibrationFit(
        calibration,
        list(views),
        np.asarray(per_view, float).reshape(-1),
        list(rvecs),
        list(tvecs),
        std_intrinsics=np.asarray(std_in, float).reshape(-1),
    )


def _fit_fisheye(views: list[View], image_size: tuple[int, int], flags: int) -> CalibrationFit:
    """:func:`_fit` with OpenCV's fisheye model (``cv2.fisheye.calibrate``; no skew, the
    views' poses refit at each step). The per-view errors are measured here: OpenCV gives
    only the overall RMS. The pinhole model's ``flags`` do not apply.

    Fitted in two steps: a pure equidistant lens (k1-k4 held at 0) from OpenCV's own start
    (focal max(w, h) / pi, centre mid-frame), then every coefficient from there. Fitted in
    one step from that start, the four coefficients and the focal length trade off and the
    fit may run away (a rendered 205 px fisheye, seven views: focal 86 px, rms 151 px; in
    two steps 202.7 px, rms 0.38 px, before any view is rejected).
    """
    if flags:
        raise UserError("the fisheye lens model takes none of the pinhole model's options")
    # cv2.fisheye wants each view as one row of points (1, N, 3) and (1, N, 2).
    object_points = [v.object_points.reshape(1, -1, 3).astype(np.float64) for v in views]
    image_points = [v.image_points.reshape(1, -1, 2).astype(np.float64) for v in views]
    fixed = cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3 | cv2.CALIB_FIX_K4
    common = cv2.CALIB_RECOMPUTE_EXTRINSIC | cv2.CALIB_FIX_SKEW
    matrix, dist = np.eye(3), np.zeros(4)
    try:
        for step in (common | fixed, common | cv2.CALIB_USE_INTRINSIC_GUESS):
            rms, matrix, dist, rvecs, tvecs = cv2.fisheye.calibrate(
                object_points,
                image_points,
                image_size,
                matrix,
                dist,
                flags=step,
                criteria=_FIT_CRITERIA,
            )
    except cv2.error as error:
        raise UserError(f"calibration failed: {_cv_message(error)}") from None
    calibration = _fitted(matrix, dist, image_size, rms, FISHEYE)
    rvecs = [np.asarray(r, np.float64).reshape(3, 1) for r in rvecs]
    tvecs = [np.asarray(t, np.float64).reshape(3, 1) for t in tvecs]
    errors = [_rms(calibration, v, r, t) for v, r, t in zip(views, rvecs, tvecs, strict=True)]
    return CalibrationFit(calibration, list(views), np.array(errors), rvecs, tvecs)


def _fitted(
    matrix: np.ndarray, dist: np.ndarray, image_size: tuple[int, int], rms: float, model: str
) -> CameraCalibration:
    """The calibration an OpenCV fit returned, or UserError when it diverged."""
    if not (np.all(np.isfinite(matrix)) and np.all(np.isfinite(dist))) or matrix[0, 0] <= 0:
        raise UserError("calibration failed: the fit diverged (views too similar or too few)")
    return CameraCalibration(
        np.asarray(matrix, np.float64),
        np.asarray(dist, np.float64).reshape(-1),
        (int(image_size[0]), int(image_size[1])),
        float(rms),
        model,
    )


def _cv_message(error: cv2.error) -> str:
    text = str(error).strip().splitlines()
    return text[-1] if text else "OpenCV error"


# --------------------------------------------------------------------------- result + file


@dataclass(frozen=True)
class CameraCalibration:
    """A camera's intrinsics: the content of the calibration YAML file.

    ``camera_matrix`` 3x3, ``dist_coeffs`` in OpenCV's order for the lens ``model``
    (:data:`PINHOLE`: k1 k2 p1 p2 [k3 ...]; :data:`FISHEYE`: k1 k2 k3 k4), ``image_size``
    (width, height) the calibration was made at, ``rms`` px. Every use of the lens model
    (projecting, posing, undistorting) goes through the methods below, so each command
    works with either model.

    >>> K = np.array([[500.0, 0, 320], [0, 500, 240], [0, 0, 1]])
    >>> cal = CameraCalibration(K, np.zeros(5), (640, 480), 0.2)
    >>> cal.scaled_to((1280, 960)).fx
    1000.0
    """

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    rms: float
    model: str = PINHOLE

    def __post_init__(self) -> None:
        if self.model not in LENS_MODELS:
            raise ValueError(f"unknown lens model {self.model!r}")

    @property
    def fisheye(self) -> bool:
        return self.model == FISHEYE

    @property
    def fx(self) -> float:
        return float(self.camera_matrix[0, 0])

    @property
    def fy(self) -> float:
        return float(self.camera_matrix[1, 1])

    @property
    def principal_point(self) -> tuple[float, float]:
        return float(self.camera_matrix[0, 2]), float(self.camera_matrix[1, 2])

    def scaled_to(self, size: tuple[int, int]) -> CameraCalibration:
        """The same lens at another resolution of the same aspect ratio (e.g. a video mode).

        Raises UserError when the aspect ratio differs: the sensor crop is then unknown.
        """
        width, height = self.image_size
        if (int(size[0]), int(size[1])) == (width, height):
            return self
        sx, sy = size[0] / width, size[1] / height
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise UserError(
                f"the frame is {size[0]}x{size[1]} but the camera calibration was made at "
                f"{width}x{height} (another aspect ratio): calibrate this camera mode"
            )
        # Pixel centres: x' + 0.5 = s (x + 0.5).
        matrix = self.camera_matrix.copy()
        matrix[0, 0] *= sx
        matrix[0, 1] *= sx
        matrix[1, 1] *= sy
        matrix[0, 2] = (matrix[0, 2] + 0.5) * sx - 0.5
        matrix[1, 2] = (matrix[1, 2] + 0.5) * sy - 0.5
        # The fisheye coefficients act on the angle, not on pixels: they stay.
        return CameraCalibration(
            matrix, self.dist_coeffs.copy(), (int(size[0]), int(size[1])), self.rms, self.model
        )

    # -- the lens model ----------------------------------------------------------------

    def project(self, object_points: np.ndarray, rvec: np.ndarray, tvec: np.ndarray) -> np.ndarray:
        """Image pixels (N, 2) of target points (N, 3) seen from pose ``rvec``, ``tvec``."""
        pts = np.asarray(object_points, np.float64).reshape(-1, 1, 3)
        rvec, tvec = np.asarray(rvec, np.float64), np.asarray(tvec, np.float64)
        if self.fisheye:
            out, _ = cv2.fisheye.projectPoints(
                pts, rvec, tvec, self.camera_matrix, self.dist_coeffs
            )
        else:
            out, _ = cv2.projectPoints(pts, rvec, tvec, self.camera_matrix, self.dist_coeffs)
        return np.asarray(out).reshape(-1, 2)

    def solve_pnp(
        self, object_points: np.ndarray, image_points: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The pose ``(rvec, tvec)`` of a target from its points, or None when none fits.

        A fisheye view is posed on its undistorted rays (a pinhole of unit focal length).
        """
        obj = np.asarray(object_points, np.float64).reshape(-1, 3)
        img = np.asarray(image_points, np.float64).reshape(-1, 1, 2)
        if self.fisheye:
            rays = cv2.fisheye.undistortPoints(
                img, self.camera_matrix, self.dist_coeffs, criteria=_FIT_CRITERIA
            )
            ok, rvec, tvec = cv2.solvePnP(obj, rays.reshape(-1, 2), np.eye(3), None)
        else:
            ok, rvec, tvec = cv2.solvePnP(
                obj, img.reshape(-1, 2), self.camera_matrix, self.dist_coeffs
            )
        return (rvec, tvec) if ok else None

    def undistort_pixels(self, points: np.ndarray, new_matrix: np.ndarray) -> np.ndarray:
        """Raw-image pixels (N, 2) -> pixels of the undistorted image of ``new_matrix``."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        K, D = self.camera_matrix, self.dist_coeffs
        if self.fisheye:
            out = cv2.fisheye.undistortPoints(pts, K, D, None, None, new_matrix, _FIT_CRITERIA)
        else:
            criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-9)
            out = cv2.undistortPoints(pts, K, D, None, None, new_matrix, criteria)
        return np.asarray(out).reshape(-1, 2)

    def distort_rays(self, rays: np.ndarray) -> np.ndarray:
        """Normalised rays (N, 2: x/z, y/z) -> raw-image pixels (N, 2)."""
        xy = np.asarray(rays, np.float64).reshape(-1, 2)
        if self.fisheye:
            out = cv2.fisheye.distortPoints(
                xy.reshape(-1, 1, 2), self.camera_matrix, self.dist_coeffs
            )
        else:
            rays3 = np.hstack([xy, np.ones((len(xy), 1))])
            out, _ = cv2.projectPoints(
                rays3, np.zeros(3), np.zeros(3), self.camera_matrix, self.dist_coeffs
            )
        return np.asarray(out).reshape(-1, 2)

    def new_camera_matrix(self, size: tuple[int, int], alpha: float | None) -> np.ndarray:
        """The pinhole camera matrix an undistorted frame of ``size`` is drawn with: the
        calibrated one (``alpha`` None), else from 0 (only valid pixels) to 1 (every
        source pixel), as ``cv2.getOptimalNewCameraMatrix`` (pinhole) or the ``balance``
        of ``cv2.fisheye.estimateNewCameraMatrixForUndistortRectify`` (fisheye)."""
        if alpha is None:
            return self.camera_matrix
        if self.fisheye:
            return cv2.fisheye.estimateNewCameraMatrixForUndistortRectify(
                self.camera_matrix, self.dist_coeffs, size, np.eye(3), balance=alpha
            )
        matrix, _ = cv2.getOptimalNewCameraMatrix(
            self.camera_matrix, self.dist_coeffs, size, alpha, size
        )
        return matrix

    def undistort_maps(
        self, new_matrix: np.ndarray, size: tuple[int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps (fixed point, CV_16SC2: about twice as fast as float maps)
        from the raw frame of ``size`` to its undistorted image with ``new_matrix``."""
        if self.fisheye:
            return cv2.fisheye.initUndistortRectifyMap(
                self.camera_matrix, self.dist_coeffs, np.eye(3), new_matrix, size, cv2.CV_16SC2
            )
        return cv2.initUndistortRectifyMap(
            self.camera_matrix, self.dist_coeffs, None, new_matrix, size, cv2.CV_16SC2
        )

    def undistorter(
        self, image_size: tuple[int, int] | None = None, alpha: float | None = None
    ) -> Undistorter:
        """An :class:`Undistorter` with maps for ``image_size`` (default: the calibrated size)."""
        return Undistorter(self, image_size, alpha=alpha)

    def reading_undistorter(self) -> Undistorter:
        """The undistorter of every command that reads photos (``see``, ``score``,
        ``calibrate board``, ``referee``), one for all, so a board setup learned by one fits
        the frames of another. A pinhole keeps every source pixel (alpha 1: undistorting must
        not push a board or card near the edge out of view); a fisheye keeps its centre at
        its own scale, as no rectilinear image holds its whole view (keeping every pixel of
        a 205 px fisheye on 640x480 would draw the board at a focal length of 25 px).

        >>> K = np.array([[500.0, 0, 319.5], [0, 500, 239.5], [0, 0, 1]])
        >>> lens = CameraCalibration(K, np.zeros(4), (640, 480), 0.3, FISHEYE)
        >>> lens.reading_undistorter().new_camera_matrix()[0, 0].item()
        500.0
        """
        return self.undistorter(alpha=None if self.fisheye else 1.0)

    def save(self, path: str | os.PathLike, extra: dict | None = None) -> None:
        """Write the spec's FileStorage YAML atomically (nothing is left on failure).

        ``extra`` adds scalars, strings, lists of strings or numpy arrays.
        """
        path = Path(path)
        if path.suffix.lower() not in (".yaml", ".yml"):
            raise UserError(f"the calibration file must end in .yaml or .yml, not {path.name!r}")
        directory = path.parent if str(path.parent) else Path(".")
        if not directory.is_dir():
            raise UserError(f"cannot write {path}: folder {directory} does not exist")
        handle, temp = tempfile.mkstemp(prefix=".camera-", suffix=".yaml", dir=directory)
        os.close(handle)
        os.chmod(temp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        try:
            storage = cv2.FileStorage(temp, cv2.FILE_STORAGE_WRITE)
            storage.write("camera_matrix", self.camera_matrix.astype(np.float64))
            storage.write(
                "distortion_coefficients", self.dist_coeffs.reshape(1, -1).astype(np.float64)
            )
            storage.write("image_width", int(self.image_size[0]))
            storage.write("image_height", int(self.image_size[1]))
            storage.write("rms", float(self.rms))
            storage.write("distortion_model", self.model)
            for key, value in (extra or {}).items():
                _write_node(storage, key, value)
            storage.release()
            os.replace(temp, path)
        finally:
            if os.path.exists(temp):
                os.unlink(temp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_node(storage: cv2.FileStorage, key: str, value: object) -> None:
    if isinstance(value, np.ndarray):
        storage.write(key, value)
    elif isinstance(value, bool | int):
        storage.write(key, int(value))
    elif isinstance(value, float | str):
        storage.write(key, value)
    elif isinstance(value, list | tuple):
        storage.startWriteStruct(key, cv2.FileNode_SEQ)
        for item in value:
            _write_node(storage, "", item)
        storage.endWriteStruct()
    else:
        raise TypeError(f"cannot store {key}={value!r}")


def load_camera_calibration(path: str | os.PathLike) -> CameraCalibration:
    """Read a calibration YAML written by ``piecebridge calibrate camera`` (or by OpenCV).

    Raises UserError naming the file and the problem when it is missing or malformed.
    """
    path = Path(path)
    if not path.is_file():
        raise UserError(f"cannot read camera calibration {path}: no such file")
    try:
        storage = cv2.FileStorage(str(path), cv2.FILE_STORAGE_READ)
    except (cv2.error, SystemError):  # OpenCV's parser error surfaces as either
        raise UserError(
            f"cannot read camera calibration {path}: not an OpenCV YAML/XML file"
        ) from None
    try:
        if not storage.isOpened():
            raise UserError(f"cannot read camera calibration {path}: not an OpenCV YAML/XML file")
        matrix = storage.getNode("camera_matrix").mat()
        dist = storage.getNode("distortion_coefficients").mat()
        width = storage.getNode("image_width").real()
        height = storage.getNode("image_height").real()
        rms_node = storage.getNode("rms")
        if rms_node.empty():
            rms_node = storage.getNode("avg_reprojection_error")
        rms = rms_node.real() if not rms_node.empty() else float("nan")
        model_node = storage.getNode("distortion_model")
        model = PINHOLE if model_node.empty() else model_node.string()
    except cv2.error:  # e.g. a top level that is not a mapping: getNode asserts
        raise UserError(
            f"cannot read camera calibration {path}: not an OpenCV YAML/XML file"
        ) from None
    finally:
        storage.release()
    problems = []
    if matrix is None or matrix.shape != (3, 3):
        problems.append("camera_matrix is missing or not 3x3")
    sizes = (4,) if model == FISHEYE else (4, 5, 8, 12, 14)
    if model not in LENS_MODELS:
        problems.append(f"distortion_model {model!r} is not one of {', '.join(LENS_MODELS)}")
    elif dist is None or dist.size not in sizes:
        problems.append("distortion_coefficients is missing or has a wrong length")
    if not width or not height or width <= 0 or height <= 0:
        problems.append("image_width/image_height missing")
    if problems:
        raise UserError(f"bad camera calibration {path}: {'; '.join(problems)}")
    matrix = np.asarray(matrix, np.float64)
    dist = np.asarray(dist, np.float64).reshape(-1)
    if not (np.all(np.isfinite(matrix)) and np.all(np.isfinite(dist))) or matrix[0, 0] <= 0:
        raise UserError(f"bad camera calibration {path}: non-finite or non-positive values")
    return CameraCalibration(matrix, dist, (int(width), int(height)), float(rms), model)


# --------------------------------------------------------------------------- undistortion


class Undistorter:
    """Undistort frames with maps computed once (:meth:`CameraCalibration.undistort_maps`).

    Each call is one ``cv2.remap``; frames of another size with the same aspect
    ratio get their own maps (made on first use and kept). ``alpha`` as in
    ``cv2.getOptimalNewCameraMatrix`` (0: only valid pixels, 1: all source
    pixels); ``None`` keeps the camera matrix, like ``cv2.undistort``.

    >>> K = np.array([[500.0, 0, 319.5], [0, 500, 239.5], [0, 0, 1]])
    >>> cal = CameraCalibration(K, np.array([-0.2, 0, 0, 0, 0]), (640, 480), 0.3)
    >>> undistort = cal.undistorter()
    >>> undistort(np.zeros((480, 640, 3), np.uint8)).shape
    (480, 640, 3)
    """

    def __init__(
        self,
        calibration: CameraCalibration,
        image_size: tuple[int, int] | None = None,
        *,
        alpha: float | None = None,
    ) -> None:
        self.calibration = calibration
        self.alpha = alpha
        self._maps: dict[
            tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray, CameraCalibration]
        ] = {}
        self._maps_for(image_size or calibration.image_size)

    @property
    def image_size(self) -> tuple[int, int]:
        """The size the maps were first made for."""
        return next(iter(self._maps))

    def new_camera_matrix(self, image_size: tuple[int, int] | None = None) -> np.ndarray:
        """The camera matrix of the undistorted image (a pinhole, no distortion)."""
        return self._maps_for(image_size or self.image_size)[2]

    def _maps_for(
        self, size: tuple[int, int]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, CameraCalibration]:
        size = (int(size[0]), int(size[1]))
        if size not in self._maps:
            cal = self.calibration.scaled_to(size)
            new_matrix = cal.new_camera_matrix(size, self.alpha)
            map1, map2 = cal.undistort_maps(new_matrix, size)
            self._maps[size] = (map1, map2, np.asarray(new_matrix, np.float64), cal)
        return self._maps[size]

    def __call__(self, image: np.ndarray, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
        """The undistorted frame (same size and type as ``image``)."""
        map1, map2, _, _ = self._maps_for((image.shape[1], image.shape[0]))
        return cv2.remap(image, map1, map2, interpolation, borderMode=cv2.BORDER_CONSTANT)

    def undistort_points(
        self, points: np.ndarray, image_size: tuple[int, int] | None = None
    ) -> np.ndarray:
        """Map raw-image pixel coordinates (N, 2) to undistorted-image pixel coordinates."""
        _, _, new_matrix, cal = self._maps_for(image_size or self.image_size)
        return cal.undistort_pixels(points, new_matrix)

    def distort_points(
        self, points: np.ndarray, image_size: tuple[int, int] | None = None
    ) -> np.ndarray:
        """Map undistorted-image pixel coordinates (N, 2) back to the raw image."""
        _, _, new_matrix, cal = self._maps_for(image_size or self.image_size)
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        rays = cv2.undistortPoints(pts, new_matrix, None).reshape(-1, 2)
        return cal.distort_rays(rays)


# --------------------------------------------------------------------------- CLI helpers


def add_camera_calibration_argument(parser: argparse.ArgumentParser) -> None:
    """Give a command the uniform ``--camera-calibration FILE.yaml`` option.

    Pair with :func:`undistorter_from_args` in the handler.
    """
    parser.add_argument(
        "--camera-calibration",
        metavar="FILE.yaml",
        default=None,
        help="lens calibration from `piecebridge calibrate camera`; frames are undistorted first",
    )


def undistorter_from_args(args: argparse.Namespace) -> Undistorter | None:
    """The :meth:`~CameraCalibration.reading_undistorter` for ``--camera-calibration``, or
    None when not given.

    Raises UserError (exit 1) for a missing or malformed file.
    """
    path = getattr(args, "camera_calibration", None)
    if not path:
        return None
    return load_camera_calibration(path).reading_undistorter()


def distortion_difference(
    found: CameraCalibration, truth: CameraCalibration, where: np.ndarray
) -> float:
    """Largest difference (px) between two lenses' undistortion at the pixels ``where`` (N, 2).

    Each lens undistorts into its own camera matrix (as :class:`Undistorter` does), so
    this compares the distortion itself, not the focal length. Coefficients trade off
    against each other (k3 against k2), so lenses are compared by what they do to pixels.
    """
    ours = found.undistort_pixels(where, found.camera_matrix)
    theirs = truth.undistort_pixels(where, truth.camera_matrix)
    return float(np.linalg.norm(ours - theirs, axis=1).max())


def pixels_inside(
    corner_sets: Sequence[np.ndarray], image_size: tuple[int, int], step: int = 20
) -> np.ndarray:
    """Grid pixels (N, 2) inside the hull of all ``corner_sets``: where the lens was observed."""
    points = np.concatenate([np.asarray(c, np.float32).reshape(-1, 2) for c in corner_sets])
    hull = cv2.convexHull(points)
    xs, ys = np.meshgrid(np.arange(0, image_size[0], step), np.arange(0, image_size[1], step))
    grid = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)
    inside = [cv2.pointPolygonTest(hull, (float(x), float(y)), False) >= 0 for x, y in grid]
    return grid[np.array(inside, bool)]


def focal_error(calibration: CameraCalibration, reference_fx: float) -> float:
    """Relative focal-length error, e.g. 0.004 for 0.4 %."""
    return abs(calibration.fx - reference_fx) / reference_fx


def board_tilt_degrees(rvec: np.ndarray) -> float:
    """Angle between the target's normal and the optical axis, in degrees."""
    rotation, _ = cv2.Rodrigues(np.asarray(rvec, np.float64))
    return math.degrees(math.acos(min(1.0, abs(float(rotation[2, 2])))))
