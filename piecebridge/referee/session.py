"""Set up and run a refereeing session from command-line style options.

:func:`run_session` is what ``piecebridge referee`` calls; tests and benchmarks call it
too (with ``speed=0`` and ``display="sim"`` or ``"simavr"``).

>>> opts = SessionOptions(display="none", speed=0.0, quiet=True, png=None)
>>> opts.players
'suns,moons,crowns'
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from piecebridge.errors import UserError
from piecebridge.outputs import IMAGE_SUFFIXES, check_output
from piecebridge.referee.app import Referee, Stats
from piecebridge.referee.gamelog import GameLog, hold, read_log
from piecebridge.referee.judge import Judge
from piecebridge.referee.sources import FrameSource, RecordingSource, open_source
from piecebridge.referee.tracker import HOLD_FRAMES, HOLD_S, StableTracker
from piecebridge.referee.view import TerminalView
from piecebridge.rules import reflec as R


@dataclass
class SessionOptions:
    source: str | None = None
    setup: str | None = None
    camera_calibration: Any = None  # an undistorter, or None
    display: str = "sim"
    resume: str | None = None
    log: str | None = None
    players: str = "suns,moons,crowns"
    speed: float = 1.0
    hold: float = HOLD_S
    hold_frames: int = HOLD_FRAMES  # ...and this many still frames (both must be met)
    read_after: float = 0.15  # a change of many cells (a hand?) is read after this long
    partial_reads: bool = True  # read only the cells changed since they were last read
    live: bool = False
    quiet: bool = False
    png: str | None = ""  # "" = next to the log; None = no picture
    stop_after: int | None = None  # recordings: stop (crash) after this many frames
    fps: float = 4.0
    commands: bool = False
    observer: Any = None  # observer(referee, events) after each batch of events
    max_fps: float = 4.0  # vision reads per second at most (only still, changed views)


@dataclass
class SessionResult:
    judge: Judge
    stats: Stats
    log_path: Path
    png_path: Path | None
    leds: list[tuple[int, int, int]] | None
    seconds: float
    led_frames: list[Any] | None = None  # simavr: every latched LED frame of the firmware
    interrupted: bool = False  # stopped by Ctrl-C (the log is whole: --resume continues it)


def default_log_path() -> Path:
    folder = Path(tempfile.gettempdir()) / "piecebridge-referee"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"game-{stamp}.jsonl"
    n = 1
    while path.exists():  # two referees started in one second: never the same log
        n += 1
        path = folder / f"game-{stamp}-{n}.jsonl"
    return path


def _new_game(source: FrameSource, players: str) -> R.GameState:
    if isinstance(source, RecordingSource):
        return R.game_from_header(source.manifest["game"])
    names = [p.strip() for p in players.split(",") if p.strip()]
    try:
        return R.new_game([n.split("+") if "+" in n else n for n in names])
    except R.ReflecError as error:
        raise UserError(f"--players {players}: {error}") from None


def _reader(source: FrameSource, setup: str | None, undistort: Any) -> Any:
    from piecebridge.calibration.board import BoardSetup
    from piecebridge.vision.reader import BoardReader

    if setup is None and isinstance(source, RecordingSource):
        if source.calibration_path is not None:
            from piecebridge.vision.learn import learn_setup
            from piecebridge.vision.reader import load_frame

            # Learned in the pixels the frames are read in: undistorted first, as they are.
            frame = load_frame(source.calibration_path)
            learned, _ = learn_setup(frame if undistort is None else undistort(frame))
            return BoardReader(setup=learned, camera_calibration=undistort)
        if source.setup_path is not None:
            setup = str(source.setup_path)
    return BoardReader(
        setup=BoardSetup.load(setup) if setup else None, camera_calibration=undistort
    )


@contextlib.contextmanager
def open_referee_display(spec: str, console: Console):
    """(display, presser, led source) for ``sim``, ``simavr``, ``none``, ``auto`` or a port."""
    from piecebridge.display import Display, SerialTransport, open_display

    board = None
    if spec == "none":
        display = Display(open_transport=None)
        presser, leds = None, None
    elif spec == "simavr":
        from piecebridge.display import simavr

        missing = simavr.toolchain_missing()
        if missing:
            raise UserError(f"--display simavr needs the firmware toolchain: missing {missing}")
        simavr.build_firmware("uno", "sim")
        board = simavr.SimavrBoard(boot_ms=300)
        display = Display(lambda: SerialTransport(board.pty)).start()

        def presser(button: str) -> None:
            # Held 60 simulated ms; the next press waits until this one has passed the
            # debounce (simulated time), so the firmware queues the presses in script order.
            board.press(button, hold_ms=60)
            board.wait_ms(simavr.DEBOUNCE_MS + 5)

        def leds():
            frame = board.last_frame()
            return list(frame.rgb) if frame else None
    else:
        display = open_display(None if spec == "auto" else spec)
        device = getattr(display, "sim_device", None)
        presser = device.press if device is not None else None
        leds = device.led_rgb if device is not None else None
    try:
        deadline = time.monotonic() + 5.0
        while (
            spec != "none"
            and not display.connected
            and not getattr(display, "error", None)
            and time.monotonic() < deadline
        ):
            time.sleep(0.02)
        if spec != "none" and not display.connected:
            why = display.problem() if hasattr(display, "problem") else "no display answered"
            console.print(f"[yellow]! {escape(why)} ({escape(spec)}): refereeing in the terminal")
        yield display, presser, leds, board
    finally:
        display.close()
        if board is not None:
            board.close()


def run_session(opts: SessionOptions, console: Console | None = None) -> SessionResult:
    """Run a whole session; returns the judge, figures and where the log and picture went."""
    console = console or Console(highlight=False)
    if opts.png:  # a picture that cannot be written is refused now, not after the game
        check_output(opts.png, IMAGE_SUFFIXES, "image")
    source = open_source(opts.source, opts.fps)
    resumed = read_log(opts.resume) if opts.resume else None
    if resumed is not None and isinstance(source, RecordingSource) and resumed.frame is not None:
        source.start_at = resumed.frame + 1
    if isinstance(source, RecordingSource) and opts.stop_after is not None:
        source.stop_after = opts.stop_after
    reader = _reader(source, opts.setup, opts.camera_calibration)
    judge, log_path, held = _open_game(opts, source, resumed)
    view = TerminalView(console, live=opts.live, quiet=opts.quiet)
    started = time.monotonic()
    try:
        if not opts.quiet:
            what = "resuming " + str(log_path) if resumed else "new game"
            view.note(f"{source.description}; {what}; {judge.summary()}", "info")
        with open_referee_display(opts.display, console) as (display, presser, leds, board):
            referee = _referee(opts, judge, reader, display, view, presser)
            interrupted = False
            try:
                stats = referee.run(source, opts.speed)
            except KeyboardInterrupt:  # Ctrl-C: the usual way to stop a live game
                interrupted, stats = True, referee.stats  # every log line is whole already
            display.wait_idle(3.0)
            if board is not None:
                time.sleep(0.3)  # the firmware latches its last frame
            picture = leds() if leds is not None else None
            png = _write_png(picture, opts.png, log_path)
            led_frames = list(board.frames) if board is not None else None
    finally:
        view.close()
        source.close()
        if held is not None:
            held.close()
    seconds = time.monotonic() - started
    return SessionResult(
        judge, stats, log_path, png, picture, seconds, led_frames, interrupted=interrupted
    )


def _open_game(opts: SessionOptions, source: FrameSource, resumed: Any) -> tuple[Judge, Path, Any]:
    """The judge, its log's path and the lock held on the log: the resumed game's, or a new
    game's (``--log`` or the default path)."""
    if resumed is not None:
        log_path = Path(opts.resume)  # type: ignore[arg-type]
        held = hold(log_path)  # before a torn tail is cut: it may be another's line
        return Judge.resume(resumed, GameLog.reopen(log_path)), log_path, held
    log_path = Path(opts.log) if opts.log else default_log_path()
    game = _new_game(source, opts.players)
    judge = Judge(game, GameLog.create(log_path, game))
    return judge, log_path, hold(log_path)


def _referee(
    opts: SessionOptions, judge: Judge, reader: Any, display: Any, view: Any, presser: Any
) -> Referee:
    """The referee loop's object, with the session's tracker, observers and terminal input."""
    tracker = StableTracker(
        hold_s=opts.hold,
        hold_frames=opts.hold_frames,
        read_after=opts.read_after,
        partial=opts.partial_reads,
    )
    referee = Referee(judge, reader, display, view, tracker, presser, max_fps=opts.max_fps)
    if opts.observer is not None:
        referee.observers.append(opts.observer)
    if opts.commands:
        referee.start_terminal_input()
    return referee


def _write_png(leds: Any, where: str | None, log_path: Path) -> Path | None:
    if leds is None or where is None:
        return None
    from piecebridge.display import render_png

    path = Path(where) if where else log_path.with_suffix(".display.png")
    return render_png(leds, path)
