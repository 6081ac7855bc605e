"""A camera's board setup: where the board lies, which side is north, how the pieces look.

A setup is learned from one photo of the ``reflec-calibration/1`` layout
(``shared/spec/formats.md``): all 24 coins suit side up facing north, suns on a1-f1, moons
a2-f2, crowns a3-f3, arms a4-f4; pawns suns g1, moons g2, crowns g3, arms g4; everything else
empty. The occupied 7x4 block is not symmetric under quarter turns, so it fixes which side of
the board is north. Learning it means seeing the photo, so that is vision's
(``piecebridge.vision.learn``); this module says what a setup is and reads and writes its file.

The result is a :class:`BoardSetup`, saved as JSON with ``"format": "piecebridge-setup/1"``:

``image_size``  [w, h] of the calibration photo;
``pose``  where the board lies: ``homography`` (3x3, canonical board cells, x east and
  y south over 0..8, -> ideal image pixels), ``radial_k``/``centre``/``radius`` (lens bend,
  division model), ``tile_offsets`` (16 x 2 pixels, each tile's own shift);
``tile_color_lab``  the tile colour (OpenCV 8-bit Lab), to find the board again;
``looks``  each suit's learned coin (facing north) and pawn descriptors and the empty
  threshold (:class:`~piecebridge.calibration.looks.LearnedLooks`);
``camera_calibration``  the lens file used, if any (frames are undistorted first);
``tone_print``  optional (absent in setups written before it, and for boards with printed
  lines): a board by tone's look in the calibration photo, ``tiles`` (16 checker
  orientations, +1/-1, 0 for a tile not seen, row by row from the north-west tile) and
  ``contrast`` (grey levels between its two tones), which tells a locked board in place
  from one moved (``piecebridge.vision.tonelock``).

>>> layout = calibration_layout()
>>> layout["g1"], layout["a4"], layout.get("h8")
(('pawn', 'suns'), ('coin', 'arms'), None)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from piecebridge.calibration.looks import SUITS, LearnedLooks
from piecebridge.calibration.pose import BoardPose

from piecebridge.errors import UserError

SETUP_FORMAT = "piecebridge-setup/1"


def calibration_layout() -> dict[str, tuple[str, str]]:
    """Cell -> (kind, suit) of the ``reflec-calibration/1`` layout."""
    layout = {}
    for row, suit in enumerate(SUITS, start=1):
        for f in "abcdef":
            layout[f"{f}{row}"] = ("coin", suit)
        layout[f"g{row}"] = ("pawn", suit)
    return layout


@dataclass
class BoardSetup:
    """A camera's board pose and piece looks (see module docstring for the JSON)."""

    pose: BoardPose
    image_size: tuple[int, int]
    tile_color_lab: np.ndarray
    looks: LearnedLooks
    camera_calibration: str | None = None
    tone_print: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {
            "format": SETUP_FORMAT,
            "image_size": list(self.image_size),
            "pose": self.pose.to_json(),
            "tile_color_lab": [float(v) for v in self.tile_color_lab],
            "looks": self.looks.to_json(),
            "camera_calibration": self.camera_calibration,
        }
        if self.tone_print is not None:  # optional: setups without it still load
            out["tone_print"] = self.tone_print
        return out

    def save(self, path: str | os.PathLike) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> BoardSetup:
        """Read a SETUP.json; a missing, malformed or foreign file raises UserError."""
        try:
            d = json.loads(Path(path).read_text())
        except OSError as e:
            raise UserError(f"cannot read setup {path}: {e.strerror}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise UserError(f"setup {path} is not JSON: {e}") from None
        if not isinstance(d, dict) or d.get("format") != SETUP_FORMAT:
            raise UserError(f"setup {path} is not a {SETUP_FORMAT} file")
        readers = {
            "pose": BoardPose.from_json,
            "image_size": lambda v: (int(v[0]), int(v[1])),
            "tile_color_lab": lambda v: np.asarray(v, dtype=np.float64),
            "looks": LearnedLooks.from_json,
        }
        fields: dict[str, Any] = {}
        for key, read in readers.items():
            if key not in d:
                raise UserError(f"setup {path} is damaged: it has no {key!r}")
            try:
                fields[key] = read(d[key])
            except KeyError as e:
                raise UserError(f"setup {path} is damaged: its {key!r} has no {e}") from None
            except ValueError as e:  # ours say what is wrong ("must be a finite 3x3 matrix")
                raise UserError(f"setup {path} is damaged: its {key!r}: {e}") from None
            except (TypeError, IndexError, AttributeError):  # Python's would not help a user
                raise UserError(f"setup {path} is damaged: its {key!r} is malformed") from None
        printed = d.get("tone_print")
        if printed is not None and not _is_tone_print(printed):
            raise UserError(f"setup {path} is damaged: its 'tone_print' is malformed")
        return cls(**fields, camera_calibration=d.get("camera_calibration"), tone_print=printed)


def _is_tone_print(value: Any) -> bool:
    """Whether ``value`` is a setup's ``tone_print``: 16 tile signs (+1/0/-1), a contrast."""
    if not isinstance(value, dict):
        return False
    tiles, contrast = value.get("tiles"), value.get("contrast")
    return (
        isinstance(tiles, list)
        and len(tiles) == 16
        and all(t in (1, 0, -1) and isinstance(t, int) for t in tiles)
        and isinstance(contrast, (int, float))
        and np.isfinite(contrast)
        and contrast > 0
    )
