"""``piecebridge referee [SOURCE]``: watch a Reflec game, judge it, drive the referee display.

With no SOURCE it replays the bundled recording of a short scripted game on the simulated
display, so it runs on a laptop with nothing attached.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from piecebridge.calibration.camera import add_camera_calibration_argument, undistorter_from_args
from piecebridge.cli import non_negative, positive, positive_int
from piecebridge.errors import UserError
from piecebridge.referee.session import SessionOptions, run_session
from piecebridge.referee.tracker import HOLD_FRAMES, HOLD_S


def register(cli) -> None:
    p = cli.command(
        "referee",
        help="Watch a Reflec game through a camera, judge every action, drive the display "
        "(no SOURCE: replay the bundled demo game on the simulated display).",
    )
    p.add_argument(
        "source",
        nargs="?",
        metavar="SOURCE",
        help="camera number (0), video file, rtsp:// or http:// URL, folder of frames, or a "
        "recording folder; default: the bundled demo recording",
    )
    p.add_argument("--camera", type=int, metavar="N", help="camera number (same as SOURCE N)")
    p.add_argument(
        "--setup", metavar="SETUP.json", help="board setup (piecebridge calibrate board)"
    )
    add_camera_calibration_argument(p)
    p.add_argument(
        "--display",
        default=None,
        metavar="sim|simavr|auto|none|PORT",
        help="referee display: sim (emulated, default for recordings), simavr (the real "
        "firmware in simavr), auto (a board found by USB, else sim), none, or a serial port",
    )
    p.add_argument("--resume", metavar="LOG", help="continue the game recorded in LOG")
    p.add_argument("--log", metavar="LOG", help="game log to write (default: a new file in /tmp)")
    p.add_argument(
        "--players",
        default="suns,moons,crowns",
        help="suits in turn order, e.g. suns,moons (a new live game; recordings say their own)",
    )
    p.add_argument(
        "--speed",
        type=non_negative,
        default=None,
        help="replay speed of a recording (1 = real time, 0 = as fast as possible; default 2)",
    )
    p.add_argument(
        "--hold",
        type=non_negative,
        default=HOLD_S,
        help=f"seconds of stillness to commit a view (default {HOLD_S:g}; 0.5 = the "
        "cautious hold of earlier versions)",
    )
    p.add_argument(
        "--hold-frames",
        type=positive_int,
        default=HOLD_FRAMES,
        help=f"still frames needed as well as --hold seconds (default {HOLD_FRAMES}: at 30 "
        "fps a view still for 67 ms; a hand pausing for 2 frames is never a state)",
    )
    p.add_argument(
        "--read-after",
        type=non_negative,
        default=0.15,
        help="seconds of stillness before a change of many cells (a hand over the board?) is "
        "read; a moved piece (a few cells) is read on the first frame known still",
    )
    p.add_argument("--fps", type=positive, default=4.0, help="frame rate of a folder of frames")
    p.add_argument("--png", metavar="FILE.png", help="where to write the final display picture")
    p.add_argument("--live", action="store_true", help="a live panel instead of event lines")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    if args.camera is not None:
        if args.source is not None:
            raise UserError("give either SOURCE or --camera, not both")
        args.source = str(args.camera)
    if args.resume and args.log and Path(args.log).resolve() != Path(args.resume).resolve():
        # the resumed game goes on in its own log: a second one would be silently ignored
        raise UserError(f"--resume continues {args.resume} in place: leave out --log {args.log}")
    recording = args.source is None
    display = args.display or ("sim" if recording or _is_recording(args.source) else "auto")
    live_input = not recording and sys.stdin.isatty()
    opts = SessionOptions(
        source=args.source,
        setup=args.setup,
        camera_calibration=undistorter_from_args(args),
        display=display,
        resume=args.resume,
        log=args.log,
        players=args.players,
        speed=2.0 if args.speed is None else args.speed,
        hold=args.hold,
        hold_frames=args.hold_frames,
        read_after=args.read_after,
        live=args.live and sys.stdout.isatty(),
        quiet=args.quiet,
        png=args.png or "",
        fps=args.fps,
        commands=live_input,
    )
    if live_input and not args.quiet:
        console.print("[dim]type: aim DIR | fire [CELL] DIR | end | ok | quit  (then Enter)")
    result = run_session(opts, console)
    _summary(console, result)
    if result.interrupted:
        how = _resume_command(args, result.log_path)
        console.print(f"stopped by Ctrl-C; the game log is whole. Go on with: {how}")
        return 130  # as a shell reports SIGINT
    return 0


def _resume_command(args: argparse.Namespace, log_path) -> str:
    """The command line that continues this game.

    >>> ns = argparse.Namespace(source="0", setup="s.json", camera_calibration=None,
    ...                         display=None)
    >>> _resume_command(ns, "g.jsonl")
    'piecebridge referee 0 --setup s.json --resume g.jsonl'
    """
    import shlex

    words = ["piecebridge", "referee"]
    if args.source is not None:
        words.append(args.source)
    for flag, value in (
        ("--setup", args.setup),
        ("--camera-calibration", args.camera_calibration),
        ("--display", args.display),
    ):
        if value:
            words += [flag, value]
    words += ["--resume", str(log_path)]
    return shlex.join(words)


def _is_recording(source: str) -> bool:
    from pathlib import Path

    return (Path(source) / "recording.json").is_file()


def _summary(console: Console, result) -> None:
    from piecebridge.display import render_text

    judge, stats = result.judge, result.stats
    flags = sum(1 for e in stats.events if e.kind == "flagged")
    console.rule("summary")
    if result.leds:
        # from_ansi keeps the colours on a terminal and drops them in a pipe or a file
        console.print(Text.from_ansi(render_text(result.leds)), no_wrap=True, crop=False)
    console.print(
        f"{len(judge.actions)} actions logged, {flags} impossible change"
        f"{'' if flags == 1 else 's'} flagged; {stats.frames} frames watched, "
        f"{len(stats.read_ms)} read by the vision, in {result.seconds:.1f} s"
    )
    if stats.vision_errors:
        console.print(
            f"[yellow]the vision failed on {stats.vision_errors} read"
            f"{'' if stats.vision_errors == 1 else 's'} (a bug: the tracebacks are beside "
            "the game log, in its .errors.txt)[/]"
        )
    console.print(f"state: {judge.summary()}")
    console.print(
        f"game log: {result.log_path}  (replay it: piecebridge reflec check {result.log_path})"
    )
    if result.png_path:
        console.print(f"display picture: {result.png_path}")
