"""Reading image files: one set of one-line errors for every command that opens a photo.

``piecebridge see``, ``score`` and ``calibrate`` all read images through here, so a user
who points any of them at the wrong file reads the same words:

    >>> read_image_bytes("no/such/photo.jpg")
    Traceback (most recent call last):
    ...
    piecebridge.errors.UserError: cannot read image no/such/photo.jpg: no such file

Decoding stays with the caller (the card reader decodes at half size, the board reader in
colour); :func:`undecodable` gives the one message for bytes that do not decode.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from piecebridge.errors import UserError

NOT_AN_IMAGE = "not an image file or damaged"


def read_image_bytes(path: str | os.PathLike) -> np.ndarray:
    """The bytes of the image file at ``path`` as a uint8 array, never empty.

    Raises UserError (one line, naming the file) when it is missing, a folder, empty or
    cannot be read. ``np.fromfile`` (not ``cv2.imread``) so non-ASCII paths work too.
    """
    p = Path(path)
    if p.is_dir():
        raise UserError(f"cannot read image {path}: a folder, not an image file")
    if not p.is_file():
        raise UserError(f"cannot read image {path}: no such file")
    try:
        data = np.fromfile(p, dtype=np.uint8)
    except OSError as error:
        raise UserError(f"cannot read image {path}: {error.strerror}") from None
    if data.size == 0:
        raise UserError(f"cannot read image {path}: empty file")
    return data


def undecodable(name: str | os.PathLike) -> UserError:
    """The error for an image file whose bytes do not decode."""
    return UserError(f"cannot read image {name}: {NOT_AN_IMAGE}")
