"""``piecebridge calibrate board IMAGE --out SETUP.json``: teach a camera the board.

The photo must show the ``reflec-calibration/1`` layout. Writes the setup and, beside it,
``SETUP.png`` with the grid, north and every learned piece marked; a photo whose layout does
not read back is refused, with ``SETUP.refused.png`` showing what was read.
"""

from __future__ import annotations

import argparse
import json

from piecebridge.cli import CommandTree


def register(cli: CommandTree) -> None:
    p = cli.command(
        "board",
        group="calibrate",
        help="learn board pose, north and piece looks from a photo of the calibration layout",
    )
    p.add_argument("image", metavar="IMAGE", help="photo of the reflec-calibration/1 layout")
    p.add_argument("--out", metavar="SETUP.json", required=True, help="setup file to write")
    p.add_argument(
        "--camera-calibration",
        metavar="FILE.yaml",
        help="lens calibration from `piecebridge calibrate camera`; the photo is undistorted first",
    )
    p.add_argument("--json", action="store_true", help="print what was learned as JSON")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from piecebridge.errors import UserError
    from piecebridge.outputs import check_output, write_image, write_text
    from piecebridge.vision.learn import LayoutNotReadBack, annotate, learn_setup
    from piecebridge.vision.reader import load_frame, load_undistorter

    out = check_output(args.out)  # refused before the photo is studied, not after
    png = check_output(out.with_suffix(".png"))
    if png == out:
        raise UserError(f"--out {out}: the picture goes beside the setup as {png}: use .json")
    undistort = load_undistorter(args.camera_calibration)
    frame = load_frame(args.image)
    if undistort is not None:
        frame = undistort(frame)
    try:
        setup, report = learn_setup(frame, camera_calibration=args.camera_calibration)
    except LayoutNotReadBack as refused:
        # A picture says which pieces failed: drawn beside where the setup would have gone.
        picture = out.with_suffix(".refused.png")
        write_image(picture, annotate(frame, refused.setup))
        raise UserError(f"{refused} (what was read: {picture})") from None
    # whole or not at all: a setup torn by Ctrl-C would be refused by every later `see`
    write_text(out, json.dumps(setup.to_json(), indent=1) + "\n")
    write_image(png, annotate(frame, setup))
    report["setup"] = str(out)
    report["picture"] = str(png)
    if args.json:
        print(json.dumps(report))
    else:
        print(f"wrote {out} and {png} ({_summary(report)})")
    return 0


def _summary(report: dict) -> str:
    """What the user should know of a learned setup, in a few words: how much of the grid
    and of the layout it saw (pieces glare washed out or read unsure were learned from all
    the same: worth a retake when many).

    >>> _summary({"crosses_found": 9, "read_back": 21, "washed_out": 6, "unsure_own_suit": 1})
    'tile crosses found: 9/16; layout read back 21/28, 6 under glare, 1 unsure'
    """
    text = f"tile crosses found: {report['crosses_found']}/16; "
    text += f"layout read back {report['read_back']}/28"
    if report.get("washed_out"):
        text += f", {report['washed_out']} under glare"
    if report.get("unsure_own_suit"):
        text += f", {report['unsure_own_suit']} unsure"
    return text
