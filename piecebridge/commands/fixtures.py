"""``piecebridge fixtures reflec|card``: render test photos with their ground truth.

Photos come from the fixture renderer (:mod:`piecebridge.synth.reflec`): the tuning split and
the held-out test split draw from disjoint random streams, so the same ``--seed`` never gives a
test image to tuning.  Beside every ``NAME.jpg`` is ``NAME.json``: a ``reflec-board/1`` object
with an added ``"synth"`` member (board corners and cell centres in the image, cells under a
hand, difficulty levels, camera).  With ``--calibration`` each rig's ``reflec-calibration/1``
photo is written too, for vision with a board setup.

``fixtures card`` does the same for phone photos of Business Card Games boards
(:mod:`piecebridge.synth.card`): ``NAME.json`` beside each photo is its ``card/1`` truth.
``--style alt`` draws another hand and printed card (:mod:`piecebridge.synth.card_styles`),
which the card reader was not developed on.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from pathlib import Path

from piecebridge.cli import CommandTree

# Named here, not imported: the renderers pull in OpenCV, and every command's start would pay.
# tests/test_synth_cli.py holds these to piecebridge.synth.art.ART and card_styles.STYLES.
ARTS = (
    "classic", "french", "ebony", "piecepackr", "acrylic", "woodburned", "printplay", "checkered",
)  # fmt: skip
CARD_STYLES = ("classic", "alt")
CARD_SPLITS = ("tune", "test", "print", "print-tune")


def register(cli: CommandTree) -> None:
    p = cli.command(
        "reflec",
        group="fixtures",
        help="render synthetic Reflec board photos with ground truth (tuning or held-out split)",
    )
    p.add_argument("--split", choices=["tune", "test"], default="tune", help="which split")
    p.add_argument("--count", type=int, default=8, metavar="N", help="number of photos")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="first index in the split")
    p.add_argument("--out", metavar="DIR", required=True, help="folder to write into")
    p.add_argument(
        "--difficulty",
        default="realistic",
        metavar="D",
        help="realistic (a fresh mix per photo), easy, baseline, or FACTOR=LEVEL[,...] with "
        "factors tilt, lens, blur, light, occlusion, noise, glare, clutter and levels 0..1",
    )
    p.add_argument(
        "--art",
        choices=ARTS,
        help="piece art (default: the split's mix of classic, french and ebony; piecepackr, "
        "acrylic, woodburned, printplay and checkered are never in it: art vision was not "
        "developed on)",
    )
    p.add_argument("--size", default="1920x1080", metavar="WxH", help="image size in pixels")
    p.add_argument(
        "--calibration",
        action="store_true",
        help="also write each rig's calibration-layout photo (RIG-calibration.jpg)",
    )
    p.add_argument(
        "--negative",
        choices=["no-board", "cut-off"],
        help="write photos vision must reject instead: no board in view, or the board cut off",
    )
    p.add_argument("--quality", type=int, default=92, metavar="Q", help="JPEG quality to save")
    p.add_argument("--png", action="store_true", help="write lossless PNG instead of JPEG")
    p.add_argument("--json", action="store_true", help="print one JSON line per file written")
    p.set_defaults(handler=run)
    _register_card(cli)


def _register_card(cli: CommandTree) -> None:
    p = cli.command(
        "card",
        group="fixtures",
        help="render synthetic phone photos of pencilled business cards with ground truth",
    )
    p.add_argument(
        "--split",
        choices=CARD_SPLITS,
        default="tune",
        help="which split (print: photos of the board `piecebridge print card` draws, held "
        "out; print-tune: the same board from seeds of its own, for tuning)",
    )
    p.add_argument("--style", choices=CARD_STYLES, default="classic",
                   help="hand and printed card: classic, or alt (never developed on)")  # fmt: skip
    p.add_argument("--count", type=int, default=4, metavar="N", help="number of photos")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="first index in the split")
    p.add_argument("--out", metavar="DIR", required=True, help="folder to write into")
    p.add_argument("--size", default="2000x1500", metavar="WxH", help="image size in pixels")
    p.add_argument("--quality", type=int, default=92, metavar="Q", help="JPEG quality to save")
    p.add_argument("--json", action="store_true", help="print one JSON line per file written")
    p.set_defaults(handler=run_card)


def _size(text: str) -> tuple[int, int]:
    from piecebridge.errors import UserError

    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--size {text!r} is not WIDTHxHEIGHT (e.g. 1920x1080)") from None
    if not (64 <= w <= 8000 and 64 <= h <= 8000):
        raise UserError(f"--size {text!r} is out of range (64..8000 per side)")
    return w, h


def _card_size(text: str) -> tuple[int, int]:
    """A phone photo's size: up to 4096 px a side (12 MP is 4032x3024), between 1:2 and 2:1
    (the renderer lays a table under the camera's whole view, which a sliver of a frame would
    make enormous)."""
    from piecebridge.errors import UserError

    w, h = _size(text)
    if max(w, h) > 4096 or max(w, h) > 2 * min(w, h):
        raise UserError(f"--size {text!r}: card photos are up to 4096 px a side, 1:2 to 2:1")
    return w, h


def _check_common(args: argparse.Namespace) -> Path:
    """Validate the options every fixtures command shares; the output folder, made."""
    from piecebridge.errors import UserError

    if args.count < 1:
        raise UserError("--count must be at least 1")
    if args.seed < 0:
        raise UserError("--seed must not be negative")
    if not 1 <= args.quality <= 100:
        raise UserError("--quality must be 1..100")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    return out


def run_card(args: argparse.Namespace) -> int:
    import cv2

    from piecebridge.errors import UserError
    from piecebridge.outputs import write_image, write_text
    from piecebridge.synth import card

    size = _card_size(args.size)
    if args.split in card.PRINT_SPLITS and args.style != "classic":
        raise UserError(
            f"--split {args.split} photographs the printed board: no --style {args.style}"
        )
    out = _check_common(args)
    start = time.perf_counter()
    with _progress(args.count) as advance:
        for index in range(args.seed, args.seed + args.count):
            image, truth = card.split_photo(args.split, index, size, style=args.style)
            stem = out / f"{args.split}-{args.style}-{index:05d}"
            image_path, truth_path = f"{stem}.jpg", f"{stem}.json"
            # whole files only: a photo torn by Ctrl-C would pass for a fixture
            write_image(image_path, image, [cv2.IMWRITE_JPEG_QUALITY, args.quality])
            write_text(truth_path, json.dumps(truth, indent=1) + "\n")
            _report(args, (image_path, truth_path))
            advance()
    if not args.json:
        took = time.perf_counter() - start
        print(f"wrote {args.count} photos to {out} in {took:.1f} s")
    return 0


def run(args: argparse.Namespace) -> int:
    from piecebridge.errors import UserError
    from piecebridge.synth import reflec

    size = _size(args.size)
    out = _check_common(args)
    try:
        difficulty = reflec.Difficulty.parse(args.difficulty)
    except ValueError as e:
        raise UserError(str(e)) from None
    quality = 0 if args.png else args.quality
    rigs_done: set[int] = set()
    start = time.perf_counter()
    with _progress(args.count) as advance:
        for index in range(args.seed, args.seed + args.count):
            _render_one(args, reflec, out, index, size, difficulty, quality, rigs_done)
            advance()
    if not args.json:
        took = time.perf_counter() - start
        print(f"wrote {args.count} photos to {out} in {took:.1f} s")
    return 0


@contextlib.contextmanager
def _progress(total: int):
    """A progress bar on stderr (a terminal only: nothing in a pipe or a log); yields the
    function to call after each photo."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    console = Console(stderr=True)
    columns = ["rendering", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
    with Progress(
        *columns, console=console, transient=True, disable=not console.is_terminal
    ) as bar:
        task = bar.add_task("render", total=total)
        yield lambda: bar.advance(task)


def _render_one(args, reflec, out: Path, index: int, size, difficulty, quality, rigs_done) -> None:
    """Render and save photo ``index`` (and, first, its rig's calibration photo, once)."""
    if args.negative:
        shot = reflec.negative_sample(args.split, index, args.negative, image_size=size)
        stem = out / f"{args.split}-{args.negative}-{index:05d}"
        _report(args, reflec.save_shot(shot, str(stem), quality))
        return
    rig = index // reflec.SHOTS_PER_RIG
    if args.calibration and rig not in rigs_done:
        rigs_done.add(rig)
        cal = reflec.calibration_sample(args.split, rig, difficulty, art=args.art, image_size=size)
        stem = out / f"{args.split}-rig{rig:04d}-calibration"
        _report(args, reflec.save_shot(cal, str(stem), quality))
    shot = reflec.sample(args.split, index, difficulty, art=args.art, image_size=size)
    _report(args, reflec.save_shot(shot, str(out / f"{args.split}-{index:05d}"), quality))


def _report(args: argparse.Namespace, paths: tuple[str, str]) -> None:
    if args.json:
        print(json.dumps({"image": paths[0], "truth": paths[1]}))
