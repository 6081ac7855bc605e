"""Live calibration: keep still, new views from a stream until the estimate settles.

The source is a webcam (``cv2.VideoCapture(N)``), a video file, or a folder of
frames (sorted by name), so the whole loop runs in tests without a camera::

    >>> live = LiveCalibrator(parse_pattern("chessboard:9x6", 25))  # doctest: +SKIP
    >>> for name, frame in open_frames(video="board.mp4"):  # doctest: +SKIP
    ...     if live.feed(name, frame).done:
    ...         break
    >>> fit = live.final_fit()  # doctest: +SKIP

A view is kept only when (a) the target is found, (b) it has stood still over
the last frames (no motion blur, the person is holding it deliberately) and
(c) it adds coverage: new cells of the frame, or a new tilt. The estimate is
*stable* once the last few refits agree within a tolerance.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from piecebridge.calibration.camera import (
    IMAGE_SUFFIXES,
    PINHOLE,
    CalibrationFit,
    CameraCalibration,
    Pattern,
    View,
    calibrate_views,
    detect_pattern,
)

from piecebridge.errors import UserError

#: Coverage cells across the frame for "does this view add anything".
GRID = (8, 6)


def open_frames(
    camera: int | None = None,
    video: str | os.PathLike | None = None,
    frames: str | os.PathLike | None = None,
    max_frames: int | None = None,
) -> Iterator[tuple[str, np.ndarray]]:
    """Yield ``(name, BGR frame)`` from exactly one source; UserError if it cannot be opened."""
    if frames is not None:
        folder = Path(frames)
        if not folder.is_dir():
            raise UserError(f"cannot read frames from {folder}: not a folder")
        paths = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not paths:
            raise UserError(f"folder {folder} holds no images")
        yield from _from_folder(paths[:max_frames] if max_frames else paths)
        return
    if video is not None and not Path(video).is_file():
        raise UserError(f"cannot read video {video}: no such file")
    capture = _quiet_capture(int(camera) if camera is not None else str(video))
    if not capture.isOpened():
        what = f"camera {camera}" if camera is not None else f"video {video}"
        raise UserError(f"cannot open {what}")
    try:
        index = 0
        while max_frames is None or index < max_frames:
            ok, frame = capture.read()
            if not ok:
                if index == 0:
                    raise UserError(f"no frames could be read from {video or f'camera {camera}'}")
                return
            yield f"frame{index:05d}", frame
            index += 1
    finally:
        capture.release()


def _quiet_capture(source: int | str) -> cv2.VideoCapture:
    """Open a capture without OpenCV's backend warnings (our own error line says it all)."""
    logging = cv2.utils.logging
    level = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_ERROR)
    try:
        return cv2.VideoCapture(source)
    finally:
        logging.setLogLevel(level)


def _from_folder(paths: list[Path]) -> Iterator[tuple[str, np.ndarray]]:
    from piecebridge.calibration.camera import load_color

    for path in paths:
        yield path.name, load_color(path)


@dataclass
class LiveEvent:
    """What happened to one frame, for the progress display."""

    kind: str  # "none" | "moving" | "redundant" | "kept"
    message: str
    done: bool = False
    view: View | None = None  # this frame's detection, when the target was found


@dataclass
class LiveCalibrator:
    """Feed frames; it keeps good views and tells when the estimate is stable.

    ``still_px``: mean corner motion between consecutive frames, as a fraction of
    the frame diagonal, below which the target counts as still (held for
    ``still_frames`` frame pairs). ``stable_tolerance``: the relative change of
    fx, fy, cx, cy over the last ``stable_fits`` refits below which the
    estimate counts as settled.
    """

    pattern: Pattern
    min_views: int = 8
    max_views: int = 30
    still_fraction: float = 0.0015
    still_frames: int = 2
    min_new_cells: int = 2
    min_new_tilt_degrees: float = 12.0
    stable_tolerance: float = 0.005
    stable_fits: int = 3
    flags: int = 0
    model: str = PINHOLE
    views: list[View] = field(default_factory=list)
    frames: dict[str, np.ndarray] = field(default_factory=dict)
    estimates: list[np.ndarray] = field(default_factory=list)
    fit: CalibrationFit | None = None
    seen: int = 0
    _covered: np.ndarray | None = None
    _normals: list[np.ndarray] = field(default_factory=list)
    _previous: View | None = None
    _still_count: int = 0

    @property
    def stable(self) -> bool:
        """True once the last ``stable_fits`` estimates agree within the tolerance."""
        if len(self.views) < self.min_views or len(self.estimates) < self.stable_fits:
            return False
        recent = np.array(self.estimates[-self.stable_fits :])
        scale = recent[-1][0]  # cx, cy measured against the focal length
        spread = (recent.max(axis=0) - recent.min(axis=0)) / np.array([scale, scale, scale, scale])
        return bool(spread.max() < self.stable_tolerance)

    @property
    def coverage(self) -> float:
        """Share of the frame's coverage cells that kept views have touched."""
        return 0.0 if self._covered is None else float(self._covered.mean())

    def feed(self, name: str, frame: np.ndarray) -> LiveEvent:
        """Look at one frame; keep it as a view when it is still and adds coverage."""
        self.seen += 1
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        view = detect_pattern(gray, self.pattern, name=name)
        if not view.found:
            self._previous, self._still_count = None, 0
            return LiveEvent("none", f"{name}: no target")
        if self._covered is None:
            self._covered = np.zeros(GRID[::-1], bool)
        if not self._is_still(view):
            return LiveEvent("moving", f"{name}: target moving, hold it still", view=view)
        cells, normal = self._cells(view), self._normal(view)
        new_cells = int((cells & ~self._covered).sum())
        tilt_gain = min(
            (np.degrees(np.arccos(np.clip(abs(normal @ n), 0, 1))) for n in self._normals),
            default=180.0,
        )
        if new_cells < self.min_new_cells and tilt_gain < self.min_new_tilt_degrees:
            return LiveEvent(
                "redundant", f"{name}: nothing new here, move or tilt the target", view=view
            )
        self._keep(name, frame, view, cells, normal)
        done = self.stable or len(self.views) >= self.max_views
        return LiveEvent("kept", self._progress(name), done=done, view=view)

    def preview(self, frame: np.ndarray, event: LiveEvent) -> np.ndarray:
        """The frame with covered cells tinted, this frame's corners and the progress line.

        Corner colours: green kept, yellow moving, grey nothing new.
        """
        image = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        height, width = image.shape[:2]
        if self._covered is not None:
            tint = np.zeros_like(image)
            for row, col in zip(*np.nonzero(self._covered), strict=True):
                x0, x1 = col * width // GRID[0], (col + 1) * width // GRID[0]
                y0, y1 = row * height // GRID[1], (row + 1) * height // GRID[1]
                tint[y0:y1, x0:x1] = (0, 120, 0)
            image = cv2.addWeighted(image, 1.0, tint, 0.35, 0)
        colour = {"kept": (0, 220, 0), "moving": (0, 220, 220)}.get(event.kind, (160, 160, 160))
        if event.view is not None:
            for x, y in event.view.image_points:
                cv2.circle(image, (round(x), round(y)), max(2, width // 320), colour, -1)
        text = f"{len(self.views)}/{self.min_views} views, coverage {self.coverage:.0%}: "
        scale = max(0.4, width / 1600)
        cv2.rectangle(image, (0, 0), (width, round(28 * scale / 0.5)), (0, 0, 0), -1)
        line = (text + event.message).encode("ascii", "replace").decode()
        cv2.putText(image, line, (6, round(20 * scale / 0.5)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (255, 255, 255), 1, cv2.LINE_AA)  # fmt: skip
        return image

    def final_fit(self, reject_ratio: float = 3.0) -> CalibrationFit:
        """Calibrate from all kept views (with outlier rejection)."""
        if not self.views:
            raise UserError(
                f"no still view of {self.pattern.describe_long()} was seen in {self.seen} frames"
            )
        return calibrate_views(
            self.views,
            self.views[0].image_size,
            flags=self.flags,
            reject_ratio=reject_ratio,
            model=self.model,
        )

    def _is_still(self, view: View) -> bool:
        previous, self._previous = self._previous, view
        if (
            previous is None
            or len(previous.image_points) != len(view.image_points)
            or not np.array_equal(previous.object_points, view.object_points)
        ):
            self._still_count = 0
            return False
        motion = float(np.linalg.norm(view.image_points - previous.image_points, axis=1).mean())
        limit = self.still_fraction * float(np.hypot(*view.image_size))
        self._still_count = self._still_count + 1 if motion < limit else 0
        return self._still_count >= self.still_frames

    def _cells(self, view: View) -> np.ndarray:
        width, height = view.image_size
        cols = np.clip((view.image_points[:, 0] * GRID[0] / width).astype(int), 0, GRID[0] - 1)
        rows = np.clip((view.image_points[:, 1] * GRID[1] / height).astype(int), 0, GRID[1] - 1)
        cells = np.zeros(GRID[::-1], bool)
        cells[rows, cols] = True
        return cells

    def _normal(self, view: View) -> np.ndarray:
        """The target's normal in camera coordinates, from the current (or a guessed) lens."""
        if self.fit is not None:
            lens = self.fit.calibration
        else:
            width, height = view.image_size
            f = float(max(width, height))
            matrix = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]])
            lens = CameraCalibration(matrix, np.zeros(5), view.image_size, float("nan"))
        pose = lens.solve_pnp(view.object_points, view.image_points)
        if pose is None:
            return np.array([0.0, 0.0, 1.0])
        rotation, _ = cv2.Rodrigues(pose[0])
        return rotation[:, 2]

    def _keep(
        self, name: str, frame: np.ndarray, view: View, cells: np.ndarray, normal: np.ndarray
    ) -> None:
        self.views.append(view)
        self.frames[name] = frame
        self._covered |= cells
        self._normals.append(normal)
        if len(self.views) >= 3:
            try:
                self.fit = calibrate_views(
                    self.views, view.image_size, flags=self.flags, reject_ratio=0, model=self.model
                )
            except UserError:
                return
            cal = self.fit.calibration
            self.estimates.append(np.array([cal.fx, cal.fy, *cal.principal_point]))

    def _progress(self, name: str) -> str:
        text = f"{name}: kept view {len(self.views)}, coverage {self.coverage:.0%}"
        if self.fit is not None:
            cal = self.fit.calibration
            text += f", rms {cal.rms:.2f} px, fx {cal.fx:.1f}"
        if self.stable:
            text += " - estimate stable"
        elif len(self.views) < self.min_views:
            text += f" (need {self.min_views})"
        return text
