"""``piecebridge display demo|test``: drive the referee display (a board, simavr or the emulation).

``--display auto`` (default) uses a board found by USB VID/PID and falls back to the
in-process emulation; ``--display sim`` forces the emulation (drawn in the terminal);
``--display simavr`` runs the real firmware in the simavr harness (needs the firmware
toolchain, see firmware/README.md); ``--port PATH`` names a serial port.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections.abc import Iterator

from piecebridge.display import DISPLAY_CHOICES, Display, open_display
from piecebridge.errors import UserError
from piecebridge.outputs import IMAGE_SUFFIXES, check_output

# A short scripted Reflec turn: pawns in the corners, a few coins, one laser shot.
DEMO_BOARD = {
    "a1": "suns", "h1": "moons", "h8": "crowns", "a8": "arms",
    "c3": "suns", "d5": "moons", "f3": "crowns", "c6": "arms", "e6": "suns", "f5": "arms",
}  # fmt: skip
DEMO_SHOT = ["a2", "a3", "b3", "c3", "c4", "c5", "c6"]


@contextlib.contextmanager
def connect(args: argparse.Namespace) -> Iterator[Display]:
    """The started display, once it answered the handshake."""
    if args.png:  # refused before the show, not after it
        check_output(args.png, IMAGE_SUFFIXES, "image")
    display = open_display(args.port or args.display)
    try:
        deadline = time.monotonic() + args.timeout
        while not display.connected and not display.error and time.monotonic() < deadline:
            time.sleep(0.02)
        if not display.connected:
            raise UserError(f"{describe(args)}: {display.problem(args.timeout)}")
        yield display
    finally:
        display.close()


def describe(args: argparse.Namespace) -> str:
    return f"port {args.port}" if args.port else f"--display {args.display}"


def show(display: Display, args: argparse.Namespace, title: str) -> None:
    text = display.render_text()
    if text is not None and not args.quiet:
        print(f"\n{title}\n{text}", file=sys.stderr)


def _demo(args: argparse.Namespace) -> int:
    with connect(args) as display:
        display.on_button = lambda event: print(f"button: {event.button}", file=sys.stderr)
        steps = [
            ("board set up; suns to play", lambda: (display.show_board(DEMO_BOARD),
                                                    display.status("suns", 3, 2))),
            ("suns fire north from a1", lambda: display.show_laser(DEMO_SHOT, step_ms=60)),
            ("the beam hits the arms coin on c6", lambda: display.blink(["c6"], "white", 300, 3)),
            ("c6 removed; moons to play", lambda: (display.clear_laser(), display.stop_blink(),
                                                   display.show_board({k: v for k, v in
                                                                       DEMO_BOARD.items()
                                                                       if k != "c6"}),
                                                   display.status("moons", 3, 3))),
        ]  # fmt: skip
        for title, action in steps:
            action()
            if not display.wait_idle(5.0):
                why = display.problem() or "no acknowledgement within 5 s"
                raise UserError(f"the display stopped acknowledging: {why}")
            time.sleep(args.delay)
            show(display, args, title)
        finish(display, args)
    return 0


def _test(args: argparse.Namespace) -> int:
    with connect(args) as display:
        colours = ["suns", "moons", "crowns", "arms", "white", "amber", "purple", "cyan"]
        display.show_board({f"{c}{r}": colours[r - 1] for c in "abcdefgh" for r in range(1, 9)})
        display.show_laser([f"{c}4" for c in "abcdefgh"], step_ms=0)
        display.status("crowns", 4, 5)
        ok = display.wait_idle(5.0)
        show(display, args, "test pattern: one colour per row, a laser on row 4")
        finish(display, args)
        info = display.info
        report = {
            "display": describe(args),
            "acknowledged": ok,
            "protocol": info.proto if info else None,
            "firmware": info.fw_version if info else None,
            "leds": info.led_count if info else None,
            "frames_sent": display.stats.frames_sent,
            "bytes_sent": display.stats.bytes_sent,
            "retransmits": display.stats.retransmits,
        }
        print(
            json.dumps(report) if args.json else "\n".join(f"{k}: {v}" for k, v in report.items())
        )
    return 0 if ok else 1


def finish(display: Display, args: argparse.Namespace) -> None:
    if args.png:
        drawn = display.save_png(args.png)  # UserError when it cannot be written
        if not drawn:
            raise UserError(
                "--png needs --display sim or simavr (a real board cannot be read back)"
            )
        print(f"wrote {args.png}", file=sys.stderr)


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--display",
        default="auto",
        choices=DISPLAY_CHOICES,
        help="auto: a USB board, else the emulation (default); sim: emulation; "
        "simavr: the real firmware in simavr",
    )
    parser.add_argument("--port", help="serial port of the board (skips USB discovery)")
    parser.add_argument("--png", help="also draw the final picture to this PNG (sim/simavr)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for HELLO")
    parser.add_argument("--quiet", action="store_true", help="do not draw in the terminal")


def register(cli) -> None:
    demo = cli.command("demo", group="display", help="play a scripted Reflec turn on the display")
    _options(demo)
    demo.add_argument("--delay", type=float, default=0.8, help="seconds between steps")
    demo.set_defaults(handler=_demo)
    test = cli.command("test", group="display", help="show a test pattern and report the link")
    _options(test)
    test.add_argument("--json", action="store_true", help="print the report as JSON")
    test.set_defaults(handler=_test)
