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
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from piecebridge.errors import UserError

RECORDINGS = Path(__file__).resolve().parents[2] / "fixtures" / "recordings"
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


class Frame:
    """One frame: ``t`` seconds since the source started; ``image`` BGR (None when lost).

    A source may hand over the *encoded* picture instead (``encoded``: the JPEG bytes of a
    camera's MJPEG stream or a recording's file): ``image`` then decodes it on first use,
    and :meth:`grey` decodes a reduced grey picture straight from the JPEG (libjpeg's DCT
    scaling, about a third of a full decode), which is all the motion check needs.
    ``arrived`` is the ``time.perf_counter()`` of the frame's arrival (latency figures).

    >>> Frame(0.0, np.zeros((8, 8, 3), np.uint8)).grey(2).shape
    (4, 4)
    """

    def __init__(
        self,
        t: float,
        image: np.ndarray | None = None,
        index: int = 0,
        lost: bool = False,
        presses: list[str] | None = None,
        encoded: np.ndarray | None = None,
        arrived: float | None = None,
    ) -> None:
        self.t = t
        self._image = image
        self.index = index
        self.lost = lost or (image is None and encoded is None)
        self.presses = list(presses or [])  # scripted button presses (recordings)
        self.encoded = encoded
        self.arrived = arrived

    @property
    def image(self) -> np.ndarray:
        """The picture in colour; :class:`UndecodableFrame` if its bytes are no picture."""
        if self._image is None and self.encoded is not None:
            self._image = _decode(self.encoded, cv2.IMREAD_COLOR)
        if self._image is None:
            raise UndecodableFrame(f"frame {self.index} is not a picture (corrupt or cut short)")
        return self._image

    def grey(self, reduction: int = 1) -> np.ndarray:
        """The picture in grey, ``reduction`` (1, 2, 4 or 8) times smaller each way."""
        if self._image is None and self.encoded is not None:
            flag = _REDUCED_GREY.get(reduction)
            if flag is not None:
                out = _decode(self.encoded, flag)
                if out is not None:
                    return out
        image = self.image
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        if reduction == 1:
            return grey
        h, w = grey.shape
        size = (-(-w // reduction), -(-h // reduction))  # rounded up, as libjpeg does
        return cv2.resize(grey, size, interpolation=cv2.INTER_AREA)


class UndecodableFrame(ValueError):
    """A frame whose bytes do not decode: the referee drops it and watches the next."""


def _decode(data: np.ndarray, flag: int) -> np.ndarray | None:
    if not data.size:
        return None
    try:
        return cv2.imdecode(data, flag)
    except cv2.error:
        return None


_REDUCED_GREY = {
    1: cv2.IMREAD_GRAYSCALE,
    2: cv2.IMREAD_REDUCED_GRAYSCALE_2,
    4: cv2.IMREAD_REDUCED_GRAYSCALE_4,
    8: cv2.IMREAD_REDUCED_GRAYSCALE_8,
}


def _is_jpeg(data: Any) -> bool:
    """A raw capture buffer holding one JPEG picture (FF D8 FF)."""
    return (
        isinstance(data, np.ndarray) and data.dtype == np.uint8 and data.ndim <= 2
        and data.size > 3 and data.reshape(-1)[:3].tolist() == [0xFF, 0xD8, 0xFF]
    )  # fmt: skip


def _raw_mode(cap: Any, camera: bool = False) -> bool:
    """Ask a capture for undecoded frames: OpenCV's FFmpeg backend (files, streams) takes
    ``CAP_PROP_FORMAT`` -1; a V4L2 camera takes MJPEG with ``CAP_PROP_CONVERT_RGB`` off
    (then each frame is the camera's JPEG buffer)."""
    try:
        if cap.set(cv2.CAP_PROP_FORMAT, -1):
            return True
        if camera:
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            return bool(cap.set(cv2.CAP_PROP_CONVERT_RGB, 0))
    except (AttributeError, cv2.error):
        pass
    return False


def _split(data: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(image, encoded) of what a capture's retrieve() gave."""
    if _is_jpeg(data):
        return None, data.reshape(-1)
    return data, None


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

    def _encoded(self, name: str) -> np.ndarray:
        # Repeated entries stand for a still scene: read each file once. The frames stay
        # encoded: the referee decodes a small grey copy of each and the full picture only
        # of the frames it reads.
        if name not in self._cache:
            self._cache = {name: _file_bytes(self.folder / name)}
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
            encoded = self._encoded(entry["file"])
            yield Frame(t, None, i, presses=due, encoded=encoded)


def _file_bytes(path: Path) -> np.ndarray:
    """The file's bytes; none if it cannot be read (the frame is then dropped, not fatal)."""
    try:
        return np.fromfile(str(path), dtype=np.uint8)
    except OSError:
        return np.zeros(0, np.uint8)


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
            yield Frame(i / self.fps, None, i, encoded=_file_bytes(path))


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
        # An MJPEG video's packets are JPEG pictures: keep them encoded (decoded on demand).
        self.raw = _raw_mode(self.cap)
        if self.raw:
            ok, data = self.cap.read()
            self.cap.release()
            self.cap = cv2.VideoCapture(self.path)
            if not (ok and _is_jpeg(data) and _raw_mode(self.cap)):
                self.cap.release()
                self.cap = cv2.VideoCapture(self.path)  # e.g. H.264: decoded frames
                self.raw = False

    def __iter__(self) -> Iterator[Frame]:
        i = 0
        while True:
            ok, data = self.cap.read()
            if not ok:
                return
            image, encoded = _split(data)
            yield Frame(i / self.fps, image, i, encoded=encoded, arrived=time.perf_counter())
            i += 1

    def close(self) -> None:
        self.cap.release()


class LiveSource(FrameSource):
    """A camera index or a stream URL, grabbed in a thread; reopened when it drops.

    Iterating yields the newest frame each time one arrives (older ones are dropped), or a
    ``lost`` frame about once a second while the device is away. An MJPEG camera or stream
    is asked for its frames undecoded (``CAP_PROP_FORMAT`` -1): the grabber thread then only
    copies bytes, and the referee decodes what it needs (see :class:`Frame`). A device that
    cannot (or hands over something that is not a JPEG) is reopened for decoded frames.
    """

    live = True

    def __init__(self, spec: int | str, retry_s: float = 1.0, opener=None) -> None:
        self.spec = spec
        self.kind = "camera" if isinstance(spec, int) else "stream"
        self.description = f"camera {spec}" if isinstance(spec, int) else f"stream {spec}"
        self.retry_s = retry_s
        self._open = opener or cv2.VideoCapture
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._count = 0
        self._lost = False
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        #: None: not known yet; True: frames come encoded; False: the device decodes them
        self.raw: bool | None = None
        cap = self._open(spec)
        if cap is None or not cap.isOpened():
            raise UserError(f"cannot open {self.description}")
        self._thread = threading.Thread(target=self._grab, args=(cap,), daemon=True)
        self._thread.start()

    def _reopen(self) -> Any:
        cap = self._open(self.spec)
        if cap is not None and not cap.isOpened():
            return None
        return cap

    def _grab(self, cap: Any) -> None:
        camera = isinstance(self.spec, int)
        asked = cap is not None and self.raw is not False and _raw_mode(cap, camera)
        while not self._stop.is_set():
            ok, data = False, None
            if cap is not None and cap.grab():
                ok, data = cap.retrieve()
            if ok and asked and not _is_jpeg(data) and getattr(data, "ndim", 0) != 3:
                # raw frames that are not JPEG (e.g. YUYV): let the device decode instead
                self.raw = False
                cap.release()
                cap, asked = self._reopen(), False
                continue
            if ok:
                if self.raw is None:
                    self.raw = asked
                image, encoded = _split(data)
                frame = Frame(
                    time.monotonic() - self._t0, image, encoded=encoded,
                    arrived=time.perf_counter(),
                )  # fmt: skip
                with self._cond:
                    self._count += 1
                    frame.index = self._count
                    self._latest = frame
                    self._lost = False
                    self._cond.notify_all()
                continue
            with self._cond:
                self._lost = True
                self._cond.notify_all()
            if cap is not None:
                cap.release()
            self._stop.wait(self.retry_s)
            cap = self._reopen()
            asked = cap is not None and self.raw is not False and _raw_mode(cap, camera)

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
                    frame = self._latest
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
