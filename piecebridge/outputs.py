"""Writing output files whole or not at all, with one-line errors.

A picture or a setup is first written to a hidden file beside its target, then renamed
over it: a crash, a full disk or Ctrl-C mid-write leaves the old file (or none), never a
torn one. :func:`check_output` refuses a path that cannot be written *before* long work
(a refereed game, a batch) rather than after it.

>>> import tempfile, pathlib, numpy as np
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_image(folder / "a.png", np.zeros((4, 4, 3), np.uint8))
>>> sorted(p.name for p in folder.iterdir())
['a.png']
>>> write_image(folder / "a.txt", np.zeros((4, 4, 3), np.uint8))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
piecebridge.errors.UserError: cannot write .../a.txt: image file names end in .png, .jpg, ...
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from piecebridge.errors import UserError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def check_output(
    path: str | os.PathLike[str], suffixes: Iterable[str] | None = None, what: str = "file"
) -> Path:
    """``path`` as a Path if a file can be written there, else a :class:`UserError` naming why.

    ``suffixes`` (lower case, with the dot) are the endings allowed.
    """
    p = Path(path)
    if suffixes is not None:
        allowed = tuple(suffixes)
        if p.suffix.lower() not in allowed:
            ends = ", ".join(allowed[:2]) + (", ..." if len(allowed) > 2 else "")
            raise UserError(f"cannot write {p}: {what} file names end in {ends}")
    if p.is_dir():
        raise UserError(f"cannot write {p}: it is a folder")
    folder = p.parent
    if not folder.is_dir():
        raise UserError(f"cannot write {p}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {p}: folder {folder} is not writable")
    return p


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file beside it, fsync, rename).

    A symbolic link is followed (the file it names is replaced, the link kept), an existing
    file keeps its permissions, and a target that is no regular file (``/dev/stdout``, a
    pipe) is written in place: a rename would replace the device's name, not feed it.
    """
    p = Path(os.path.realpath(check_output(path)))
    if p.exists() and not p.is_file():
        _write_in_place(p, data)
        return
    mode = stat.S_IMODE(p.stat().st_mode) if p.exists() else None
    tmp = p.parent / f".{p.name}.{secrets.token_hex(4)}.part"
    try:
        # os.open applies the umask to 0o666, as open() does for a new file.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        raise UserError(f"cannot write {p}: {error.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, p)
    except OSError as error:
        raise UserError(f"cannot write {p}: {error.strerror}") from None
    finally:  # an error or Ctrl-C before the rename: no half file left behind
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _write_in_place(p: Path, data: bytes) -> None:
    try:
        with open(p, "wb") as handle:
            handle.write(data)
    except OSError as error:
        raise UserError(f"cannot write {p}: {error.strerror}") from None


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    write_bytes(path, text.encode("utf-8"))


def write_image(path: str | os.PathLike[str], image: Any, params: Sequence[int] = ()) -> None:
    """Encode ``image`` (OpenCV BGR or grey) by the file's suffix and write it atomically.

    An unknown suffix is a :class:`UserError` (OpenCV would raise its own error).
    """
    import cv2

    p = check_output(path, IMAGE_SUFFIXES, "image")
    try:
        ok, encoded = cv2.imencode(p.suffix.lower(), image, list(params))
    except cv2.error:
        ok = False
    if not ok:
        raise UserError(f"cannot write {p}: OpenCV cannot encode a {p.suffix} image here")
    write_bytes(p, encoded.tobytes())
