"""``piecebridge see IMAGE``: read a Reflec position from an overhead photo.

Prints a ``reflec-board/1`` object (``--json``) or a small diagram. With ``--setup`` the
board pose and piece looks come from ``piecebridge calibrate board``; without, the board is
found from scratch, north is the side nearest the top of the image and the pieces are read
with the standard Piecepack colours.
"""

from __future__ import annotations

import argparse
import json
import sys

from piecebridge.cli import CommandTree


def register(cli: CommandTree) -> None:
    p = cli.command("see", help="read a Reflec position from an overhead photo")
    p.add_argument("image", metavar="IMAGE", help="photo of the board (PNG, JPEG, ...)")
    p.add_argument("--setup", metavar="SETUP.json", help="board setup from `calibrate board`")
    p.add_argument("--json", action="store_true", help="print reflec-board/1 JSON")
    p.add_argument("--debug-dir", metavar="DIR", help="write intermediate pictures here")
    p.add_argument(
        "--camera-calibration",
        metavar="FILE.yaml",
        help="lens calibration from `piecebridge calibrate camera`; the photo is undistorted first",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from piecebridge.calibration.board import BoardSetup
    from piecebridge.vision.default_fit import UNFIT_NOTE, stand_ins_unfit
    from piecebridge.vision.reader import BoardReader, load_frame, load_undistorter

    _check_debug_dir(args.debug_dir)
    setup = BoardSetup.load(args.setup) if args.setup else None
    undistort = load_undistorter(args.camera_calibration)
    frame = load_frame(args.image)
    reader = BoardReader(setup=setup, camera_calibration=undistort)
    obs = reader.read(frame)
    if stand_ins_unfit(reader.looks, obs.decisions):
        print(f"piecebridge: note: {UNFIT_NOTE}", file=sys.stderr)
    if args.debug_dir:
        from piecebridge.vision.debug import write_debug

        shown = undistort(frame) if undistort is not None else frame
        write_debug(args.debug_dir, shown, obs.pose, obs.decisions)
    if args.json:
        print(json.dumps(obs.board))
    else:
        print(diagram(obs.board))
    return 0


def _check_debug_dir(folder: str | None) -> None:
    """Refuse a --debug-dir that names a file before the photo is read, not after."""
    from pathlib import Path

    from piecebridge.errors import UserError

    if folder and Path(folder).exists() and not Path(folder).is_dir():
        raise UserError(f"--debug-dir {folder}: a file of that name is in the way")


def diagram(board: dict) -> str:
    """A text picture of a reflec-board/1 dict: north up, ``?`` for unknown cells, ``.?``
    for cells read empty only under doubt (``unsure_empty``).

    Coins show suit letter and facing arrow (``S^``), pawns the suit letter and ``P``.

    >>> print(diagram({"coins": [{"cell": "a8", "suit": "suns", "facing": "east"}],
    ...                "pawns": [], "unknown": ["h1"], "unsure_empty": ["b8"]}).splitlines()[0])
    8 S> .? .  .  .  .  .  .
    """
    arrows = {"north": "^", "east": ">", "south": "v", "west": "<"}
    cells: dict[str, str] = {}
    for c in board.get("coins", []):
        cells[c["cell"]] = c["suit"][0].upper() + arrows[c["facing"]]
    for p in board.get("pawns", []):
        cells[p["cell"]] = p["suit"][0].upper() + "P"
    for u in board.get("unknown", []):
        cells[u] = "? "
    for u in board.get("unsure_empty", []):
        cells[u] = ".?"
    lines = []
    for row in range(8, 0, -1):
        line = " ".join(cells.get(f"{f}{row}", ". ") for f in "abcdefgh")
        lines.append(f"{row} {line}".rstrip())
    lines.append("  " + "  ".join("abcdefgh"))
    return "\n".join(lines)
