"""Where frames come from: a camera, a video file, a stream URL, a folder, a recording.

Every source is an iterator of :class:`Frame` (``t`` in seconds, the image, or ``lost=True``
while a live camera or stream is away and being retried). Live sources (a camera, a URL)
grab in a thread and hand over only the newest frame, so a slow reader never falls behind
the table; files are read in order with their own timestamps.

>>> src = open_source(str(RECORDINGS / "demo"))
>>> src.kind, src.live
('recording', False)
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from piecebridge.errors import UserError

RECORDINGS = Path(__file__).resolve().parents[2] / "fixtures" / "recordings"
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


@dataclass
class Frame:
    """One frame: ``t`` seconds since the source started; ``image`` BGR or None when lost."""

    t: float
    image: np.ndarray | None
    index: int = 0
    lost: bool = False
    presses: list[str] = field(default_factory=list)  # scripted button presses (recordings)
    repeat: bool = False  # the very same picture as the frame before (a still recording)


class FrameSource:
    """Base: iterate for frames; ``close()`` when done."""

    kind = "source"
    live = False
    description = ""

    def __iter__(self) -> Iterator[Frame]:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        pass


class RecordingSource(FrameSource):
    """A ``piecebridge-recording/1`` folder: frames at their times, scripted presses.

    ``stop_after`` ends the replay early (a crash, in tests); ``start_at`` skips frames
    (a restart after a crash).
    """

    kind = "recording"

    def __init__(self, folder: str | Path, start_at: int = 0, stop_after: int | None = None):
        self.folder = Path(folder)
        path = self.folder / "recording.json"
        try:
            self.manifest: dict[str, Any] = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise UserError(f"{path}: not a readable recording ({error})") from None
        if self.manifest.get("format") != "piecebridge-recording/1":
            raise UserError(f"{path}: not a piecebridge-recording/1 manifest")
        self.frames = self.manifest["frames"]
        self.start_at = start_at
        self.stop_after = stop_after
        self.description = f"recording {self.folder} ({len(self.frames)} frames)"
        self._cache: dict[str, np.ndarray] = {}

    @property
    def setup_path(self) -> Path | None:
        name = self.manifest.get("setup")
        return self.folder / name if name else None

    @property
    def calibration_path(self) -> Path | None:
        """The recording's calibration-layout photo (its setup is learned from it)."""
        name = self.manifest.get("calibration")
        return self.folder / name if name else None

    def _image(self, name: str) -> np.ndarray:
        # Repeated entries stand for a still scene: decode each file once.
        if name not in self._cache:
            image = cv2.imread(str(self.folder / name))
            if image is None:
                raise UserError(f"{self.folder / name}: cannot read the frame")
            self._cache = {name: image}
        return self._cache[name]

    def __iter__(self) -> Iterator[Frame]:
        presses = sorted(self.manifest.get("presses", []), key=lambda p: p["t"])
        end = len(self.frames) if self.stop_after is None else self.stop_after
        # A press belongs to the first frame at or after it (before a restart: already done).
        before = float(self.frames[self.start_at - 1]["t"]) if self.start_at > 0 else -1.0
        for i in range(self.start_at, min(end, len(self.frames))):
            entry = self.frames[i]
            t = float(entry["t"])
            due = [p["button"] for p in presses if before < p["t"] <= t]
            before = t
            repeat = i > self.start_at and self.frames[i - 1]["file"] == entry["file"]
            yield Frame(t, self._image(entry["file"]), i, presses=due, repeat=repeat)


class FolderSource(FrameSource):
    """A folder of images, in name order, ``fps`` frames a second."""

    kind = "folder"

    def __init__(self, folder: str | Path, fps: float = 4.0):
        self.paths = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise UserError(f"{folder}: no images in the folder")
        self.fps = fps
        self.description = f"folder {folder} ({len(self.paths)} images at {fps:g} fps)"

    def __iter__(self) -> Iterator[Frame]:
        for i, path in enumerate(self.paths):
            image = cv2.imread(str(path))
            if image is None:
                continue
            yield Frame(i / self.fps, image, i)


class VideoFileSource(FrameSource):
    """A video file, every frame, timed by its own clock."""

    kind = "video"

    def __init__(self, path: str | Path):
        self.path = str(path)
        self.cap = cv2.VideoCapture(self.path)
        if not self.cap.isOpened():
            raise UserError(f"{path}: cannot open the video")
        fps = self.cap.get(cv2.CAP_PROP_FPS) or 30.0
        self.fps = fps if fps > 0 else 30.0
        self.description = f"video {path} ({self.fps:g} fps)"

    def __iter__(self) -> Iterator[Frame]:
        i = 0
        while True:
            ok, image = self.cap.read()
            if not ok:
                return
            yield Frame(i / self.fps, image, i)
            i += 1

    def close(self) -> None:
        self.cap.release()


class LiveSource(FrameSource):
    """A camera index or a stream URL, grabbed in a thread; reopened when it drops.

    Iterating yields the newest frame each time one arrives (older ones are dropped), or a
    ``lost`` frame about once a second while the device is away.
    """

    live = True

    def __init__(
        self, spec: int | str, retry_s: float = 1.0, opener=None, max_fps: float = 0.0
    ) -> None:
        self.spec = spec
        self.kind = "camera" if isinstance(spec, int) else "stream"
        self.description = f"camera {spec}" if isinstance(spec, int) else f"stream {spec}"
        self.retry_s = retry_s
        #: frames decoded per second at most (0: all). The rest are only grabbed, which for
        #: a camera skips the JPEG decode: the costliest thing after vision itself.
        self.max_fps = max_fps
        self._open = opener or cv2.VideoCapture
        self._cond = threading.Condition()
        self._latest: tuple[float, np.ndarray] | None = None
        self._count = 0
        self._lost = False
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        cap = self._open(spec)
        if cap is None or not cap.isOpened():
            raise UserError(f"cannot open {self.description}")
        self._thread = threading.Thread(target=self._grab, args=(cap,), daemon=True)
        self._thread.start()

    def _grab(self, cap: Any) -> None:
        last = -1e9
        while not self._stop.is_set():
            ok, image = False, None
            if cap is not None and cap.grab():
                now = time.monotonic()
                if self.max_fps and now - last < 1.0 / self.max_fps:
                    continue  # grabbed (the device's queue stays fresh), not decoded
                last = now
                ok, image = cap.retrieve()
            if ok:
                with self._cond:
                    self._latest = (time.monotonic() - self._t0, image)
                    self._count += 1
                    self._lost = False
                    self._cond.notify_all()
                continue
            with self._cond:
                self._lost = True
                self._cond.notify_all()
            if cap is not None:
                cap.release()
            self._stop.wait(self.retry_s)
            cap = self._open(self.spec)
            if cap is not None and not cap.isOpened():
                cap = None

    def __iter__(self) -> Iterator[Frame]:
        seen = 0
        while not self._stop.is_set():
            with self._cond:
                self._cond.wait_for(
                    lambda seen=seen: self._count != seen or self._lost or self._stop.is_set(),
                    timeout=self.retry_s,
                )
                if self._count != seen and self._latest is not None:
                    seen = self._count
                    t, image = self._latest
                    frame = Frame(t, image, seen)
                elif self._lost:
                    frame = Frame(time.monotonic() - self._t0, None, seen, lost=True)
                else:
                    continue
            yield frame

    def close(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        self._thread.join(timeout=3.0)


def open_source(spec: str | None, fps: float = 4.0) -> FrameSource:
    """The source for ``spec``: None (the bundled demo recording), a camera number, a URL,
    a recording or image folder, or a video file.
    """
    if spec is None:
        return RecordingSource(RECORDINGS / "demo")
    if re.fullmatch(r"\d+", spec):
        return LiveSource(int(spec))
    if re.match(r"^[a-z][a-z0-9+.-]*://", spec, re.I):
        return LiveSource(spec)
    path = Path(spec)
    if path.is_dir():
        if (path / "recording.json").is_file():
            return RecordingSource(path)
        return FolderSource(path, fps)
    if path.is_file():
        return VideoFileSource(path)
    raise UserError(f"{spec}: no such camera, stream, folder or video file")
