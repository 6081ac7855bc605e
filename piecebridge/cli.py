"""The ``piecebridge`` command line.

Each module in :mod:`piecebridge.commands` adds its own subcommands through a
``register(cli: CommandTree)`` function, so a new command never touches this file.
Exit codes follow ``shared/spec/formats.md``: 0 success, 1 invalid input (one
line, no traceback), 2 usage error.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import select
import sys
from collections.abc import Callable, Sequence

from piecebridge import __version__, commands
from piecebridge.errors import UserError

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2

Handler = Callable[[argparse.Namespace], int | None]

#: Commands that read one photo or one frame at a time run OpenCV and BLAS on one thread:
#: on 2 cores under load (load average 9), the referee's reads took a median 187 ms with
#: the default pools against 48 ms pinned, `see` with a setup 366 against 149 ms
#: (benchmarks/referee_threads.py). Set a variable below, or OPENCV_FOR_THREADS_NUM, to
#: choose otherwise.
SINGLE_READ_COMMANDS = frozenset({"see", "referee"})
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

#: One line of help for each command group, whichever module makes the group first.
GROUP_HELP = {
    "calibrate": "teach a camera setup its lens (camera) and its board and pieces (board)",
    "cards": "the Business Card Games: new games, record checks, player views",
    "display": "the referee display: an Arduino LED matrix or its emulation",
    "fixtures": "render realistic test photos with their ground truth",
    "print": "printable card boards and calibration targets at exact physical size",
    "reflec": "Reflec rules: fire a laser, check a game record, show a position",
}


def _parse(text: str, kind: type[float] | type[int]) -> float | int:
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"expected {what}, not {text!r}") from None


def non_negative(text: str) -> float:
    """An argparse ``type`` for seconds, rates and the like: a number >= 0.

    >>> non_negative("0.5")
    0.5
    """
    value = _parse(text, float)
    if not value >= 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def positive(text: str) -> float:
    """An argparse ``type`` for a number that must be above 0 (a frame rate, a size).

    >>> positive("4")
    4.0
    """
    value = _parse(text, float)
    if not value > 0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse ``type`` for counts where 0 means "the default" (``--jobs 0``: all cores).

    >>> non_negative_int("0")
    0
    """
    value = _parse(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def positive_int(text: str) -> int:
    """An argparse ``type`` for counts that must be at least 1.

    >>> positive_int("3")
    3
    """
    value = _parse(text, int)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {text}")
    return value


class CommandTree:
    """The parser tree that command modules add to.

    ``cli.command("see", help=...)`` returns a parser for a top-level command;
    ``cli.command("board", group="calibrate", help=...)`` one under a group, the
    group being made on first use. Call ``parser.set_defaults(handler=fn)``.
    """

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._top = parser.add_subparsers(dest="command", metavar="COMMAND")
        self._groups: dict[str, argparse._SubParsersAction] = {}

    def group(self, name: str, help: str = "") -> argparse._SubParsersAction:
        if name not in self._groups:
            help = help or GROUP_HELP.get(name, "")
            parser = self._top.add_parser(name, help=help, description=help)
            parser.set_defaults(handler=lambda args, p=parser: _print_help(p))
            self._groups[name] = parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND")
        return self._groups[name]

    def command(
        self, name: str, *, group: str | None = None, help: str = ""
    ) -> argparse.ArgumentParser:
        sub = self._top if group is None else self.group(group)
        return sub.add_parser(name, help=help, description=help)


def _print_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="piecebridge",
        description="See a real game table, judge it by the rules, show the verdict.",
    )
    parser.add_argument("--version", action="version", version=f"piecebridge {__version__}")
    tree = CommandTree(parser)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(tree)
    return parser


def pin_threads(argv: Sequence[str]) -> bool:
    """One OpenCV and one BLAS thread when ``argv`` runs a single-read command.

    BLAS takes its thread count when numpy is first imported, so this runs before the
    parser (whose command modules import numpy); a variable the user set is kept.
    """
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in SINGLE_READ_COMMANDS:
        return False
    if "numpy" not in sys.modules:  # too late otherwise (an in-process caller): leave it
        for name in BLAS_THREAD_VARIABLES:
            os.environ.setdefault(name, "1")
    if "OPENCV_FOR_THREADS_NUM" not in os.environ:
        import cv2

        cv2.setNumThreads(1)
    return True


def quiet_libraries() -> None:
    """Keep OpenCV's and FFmpeg's own warnings off stderr: a camera that does not open
    printed three lines of backend chatter before our one-line error. The commands say
    what went wrong themselves; a variable the user set (to debug a camera) is kept."""
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET
    if "cv2" in sys.modules:  # imported already (an in-process caller): tell it directly
        import cv2

        if os.environ["OPENCV_LOG_LEVEL"] == "ERROR":
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)


def main(argv: Sequence[str] | None = None) -> int:
    quiet_libraries()
    pin_threads(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return handler(args) or EXIT_OK
    except UserError as error:
        print(f"piecebridge: error: {error}", file=sys.stderr)
        return EXIT_INVALID
    except json.JSONDecodeError as error:
        print(f"piecebridge: error: malformed JSON: {error}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("piecebridge: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError as error:
        if _stdout_closed():  # `piecebridge ... | head`: the reader has all it wanted
            _silence_stdout()
            return EXIT_OK
        # another pipe broke (a helper process, the display's simulator): say so
        print(f"piecebridge: error: {_os_message(error)}", file=sys.stderr)
        return EXIT_INVALID
    except OSError as error:  # a file that cannot be read or written: permissions, disk full
        print(f"piecebridge: error: {_os_message(error)}", file=sys.stderr)
        return EXIT_INVALID
    except Exception as error:  # a bug: one line for the user, the traceback kept for a report
        if os.environ.get("PIECEBRIDGE_DEBUG"):
            raise
        where = _save_traceback()
        what = (str(error).strip().splitlines() or [""])[-1][:200]
        kind = type(error).__qualname__
        if type(error).__module__ != "builtins":
            kind = f"{type(error).__module__}.{kind}"
        print(
            f"piecebridge: internal error (a bug): {kind}: {what}; "
            f"traceback in {where} (PIECEBRIDGE_DEBUG=1 shows it here)",
            file=sys.stderr,
        )
        return EXIT_INVALID


def _save_traceback() -> str:
    """Write the exception being handled to a file for a bug report; its path."""
    import tempfile
    import traceback

    try:
        fd, path = tempfile.mkstemp(prefix="piecebridge-error-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"piecebridge {__version__}: {' '.join(sys.argv)}\n")
            traceback.print_exc(file=handle)
        return path
    except OSError:
        return "(nowhere: the temporary folder is not writable)"


def _os_message(error: OSError) -> str:
    """One line for an OSError: the file it names, then why.

    >>> _os_message(PermissionError(13, "Permission denied", "photo.jpg"))
    'photo.jpg: Permission denied'
    >>> _os_message(BrokenPipeError(32, "Broken pipe"))
    'Broken pipe'
    """
    why = error.strerror or str(error)
    return f"{error.filename}: {why}" if error.filename else why


def _stdout_closed() -> bool:
    """True when stdout is a pipe whose reader has gone (POLLERR on its write end)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), 0)
        return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in poller.poll(0))
    except (AttributeError, OSError, ValueError):  # no poll (Windows) or no real stdout
        return True  # as before: a broken pipe was taken to be stdout's


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
