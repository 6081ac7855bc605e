"""The referee loop: frames → vision → stable states → judge → display and terminal.

:class:`Referee` wires the parts; it never blocks on the display, keeps the game when the
camera, the board or the display goes away, and takes button presses from the display
(or typed commands from the terminal):

* a direction button aims the current player's laser (the path is shown in amber; with two
  lasers, the same direction again switches laser); ``end_turn`` then fires it;
* ``end_turn`` with nothing aimed ends the turn;
* ``end_turn`` twice within 5 s while a change is flagged: the players confirm the
  referee's board (the camera misread those cells); both presses must be over the same
  flag (a press over an older flag, or one before the view changed, does not count);
* terminal lines: ``fire east``, ``fire a1 east``, ``aim east``, ``end``, ``ok`` (confirm),
  ``quit``.

>>> from piecebridge.rules import reflec
>>> ref = Referee.for_test(reflec.new_game(["suns", "moons"]))
>>> [e.kind for e in ref.button("end_turn", 0.0)]
['info']
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from piecebridge.errors import UserError
from piecebridge.referee.judge import Event, Judge
from piecebridge.referee.motion import CELLS
from piecebridge.referee.sources import Frame, FrameSource, UndecodableFrame
from piecebridge.referee.tracker import StableTracker, observation_board
from piecebridge.referee.view import DisplayPresenter, TerminalView
from piecebridge.rules import reflec as R
from piecebridge.vision.default_fit import UNFIT_NOTE, stand_ins_unfit

DIRECTIONS = ("north", "east", "south", "west")
#: the second end-turn press confirming a flagged view must come within this many seconds
CONFIRM_S = 5.0
#: tracebacks of unexpected vision failures kept beside the game log (a bug that repeats
#: every frame would otherwise grow the file without end; the count is in the summary)
MAX_TRACEBACKS = 20


@dataclass
class Stats:
    frames: int = 0  # frames looked at (the cheap per-cell motion check)
    read_ms: list[float] = field(default_factory=list)  # vision reads (wall ms each)
    #: the cheap look of each frame (the latest ones: a live session runs for hours)
    look_ms: deque[float] = field(default_factory=lambda: deque(maxlen=10_000))
    commits: int = 0
    #: frame completing the stillness hold arrives -> first display command (ms)
    latency_ms: list[float] = field(default_factory=list)
    #: the same commits: how long before the commit the board had become still (s)
    hold_s: list[float] = field(default_factory=list)
    #: the same commits: first still frame -> first display command (ms); the literal
    #: target of issue 8 (frame times in real seconds: a live source or a 1x replay)
    still_ms: list[float] = field(default_factory=list)
    #: the same commits: wall ms of the vision reads since the view became still
    hold_read_ms: list[float] = field(default_factory=list)
    reused_cells: int = 0  # cells whose committed reading was kept (unchanged since)
    cells_read: list[int] = field(default_factory=list)  # cells measured, per vision read
    events: list[Event] = field(default_factory=list)
    camera_lost: int = 0
    moved: int = 0
    not_found: int = 0
    vision_errors: int = 0  # reads that raised something other than a UserError (bugs)
    dropped: int = 0  # frames whose bytes did not decode (skipped)


class Referee:
    """One game being refereed. ``presser(button)`` injects scripted presses (recordings)."""

    def __init__(
        self,
        judge: Judge,
        reader: Any,
        display: Any,
        view: TerminalView,
        tracker: StableTracker | None = None,
        presser: Any = None,
        log_observations: bool = True,
        max_fps: float = 4.0,
    ) -> None:
        self.judge = judge
        self.reader = reader
        self.display = display
        self.presenter = DisplayPresenter(display)
        self.view = view
        self.tracker = tracker or StableTracker()
        self.presser = presser
        self.log_observations = log_observations
        #: at most this many vision reads a second (the tracker reads only a still board
        #: that changed, so this bounds the worst case: a hand resting but fidgeting)
        self.max_fps = max_fps
        self._last_read_t: float | None = None
        self._pose: Any = None
        self._failed = False  # this frame's read found no board
        self._dropping = False  # the frame before did not decode either
        self._still_read_ms = 0.0
        self.stats = Stats()
        self.commands: queue.Queue[str] = queue.Queue()
        self.aim: tuple[str, int] | None = None
        self._camera_ok = True
        self._display_ok: bool | None = None
        self._board_seen = True
        self._vision_failing = False  # the last read raised an unexpected error (said once)
        self._unfit_said = False  # the stand-in looks fit none of the set's coins (said once)
        self._relocked = False
        #: (time, flag) of a first end-turn press over a flagged view: the second press
        #: confirms only that same flag (a newer flag needs its own two presses)
        self._confirm: tuple[float, Any] | None = None
        self.stopped = False
        #: called with each batch of events after the display was told (tests, benchmarks)
        self.observers: list[Any] = []
        self.presenter.refresh(judge)
        self.presenter.blinks(judge)

    @classmethod
    def for_test(cls, state: R.GameState) -> Referee:
        from piecebridge.display import Display

        return cls(Judge(state), None, Display(open_transport=None), TerminalView(quiet=True))

    # ---- the loop ----

    def run(self, source: FrameSource, speed: float = 0.0) -> Stats:
        """Referee every frame of ``source``; ``speed`` 1.0 paces a recording in real time."""
        start = time.perf_counter()
        first_t: float | None = None
        for frame in source:
            if self.stopped:
                break
            if speed > 0 and not source.live:
                first_t = frame.t if first_t is None else first_t
                # like a camera: the frame arrives at its time, busy referee or not
                due = start + (frame.t - first_t) / speed
                frame.arrived = frame.arrived or due
                wait = due - time.perf_counter()
                if wait > 0:
                    self._idle(wait, frame.t, speed)
            self.step(frame)
        return self.stats

    def _idle(self, seconds: float, until_t: float, speed: float) -> None:
        """Wait for a recording's next frame (due at game time ``until_t``), taking buttons
        and commands meanwhile at the game time they came (a press logged at t=0 would
        misplace it in the log and in the double-press window)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.poll(until_t - left * speed)
            time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))

    def step(self, frame: Frame) -> None:
        """Handle one frame (and scripted presses due before it)."""
        self.judge.frame = frame.index
        for button in frame.presses:
            self._press(button, frame.t)
        self.poll(frame.t)
        if frame.lost:
            if self._camera_ok:
                self._camera_ok = False
                self.stats.camera_lost += 1
                self._say(Event("warn", "camera lost: retrying; the game is kept", t=frame.t))
            return
        if not self._camera_ok:
            self._camera_ok = True
            self.tracker.reset()
            self._say(Event("info", "camera back: watching the board again", t=frame.t))
        arrived = frame.arrived if frame.arrived is not None else time.perf_counter()
        self.stats.frames += 1
        reads, t0 = len(self.stats.read_ms), time.perf_counter()
        self._failed = False
        try:
            track = self.tracker.feed(frame.t, frame, lambda cells: self._read(frame, cells))
        except UndecodableFrame as error:  # a torn camera buffer or a corrupt file: skip it
            self.stats.dropped += 1
            if not self._dropping:  # once per run of bad frames
                self._say(Event("warn", f"{error}: skipped", t=frame.t))
            self._dropping = True
            return
        self._dropping = False
        read_ms = sum(self.stats.read_ms[reads:])
        self.stats.look_ms.append((time.perf_counter() - t0) * 1e3 - read_ms)
        # vision time spent since the view became still (for the latency's breakdown)
        self._still_read_ms = 0.0 if track.state == "moving" else self._still_read_ms + read_ms
        if self._failed:
            self.tracker.reset()  # no board in view: nothing read before may commit now
            return
        if track.state == "moved" and self.stats.commits:
            self.stats.moved += 1
            self._relocked = True
            self._say(Event("warn", "the camera or the board moved: re-locked on the board; "
                            "checking it still reads as before", t=frame.t))  # fmt: skip
        if track.commit is None:
            return
        commit = track.commit
        self.stats.commits += 1
        self.stats.reused_cells += len(commit.reused)
        before = self.presenter.commands
        events = self.judge.observe(commit.board, commit.unknown, frame.t)
        self._show(events)
        if self.log_observations and self.judge.log is not None:
            # after the display: the view is for people and --resume, and a crash before
            # this line only makes a resumed referee look at the board again
            self.judge.log.observed(commit.board, frame.t, frame.index)
        if self._relocked:
            self._relocked = False
            if not events and not self.judge.flag:
                self._say(Event("info", "re-locked: the board reads as before", t=frame.t))
        if self.presenter.commands > before:
            first = self.presenter.first_command_after(before)
            self.stats.latency_ms.append((first - arrived) * 1e3)
            self.stats.hold_s.append(commit.t - commit.since)
            self.stats.still_ms.append((first - arrived + commit.t - commit.since) * 1e3)
            self.stats.hold_read_ms.append(self._still_read_ms)

    def _read(
        self, frame: Frame, cells: list[str] | None = None
    ) -> tuple[dict, list[str], bool, list[str] | None] | None:
        """The vision's reading of ``frame`` (the tracker asks only for still frames; with
        ``cells``, only those are measured and the reader keeps its reading of the others),
        or None when the analysis rate is used up, no board is in view or the vision
        failed."""
        if (
            self.max_fps
            and self._last_read_t is not None
            and frame.t - self._last_read_t < 1.0 / self.max_fps - 1e-9
        ):
            return None
        self._last_read_t = frame.t
        image = frame.image  # UndecodableFrame goes up to step(): a dropped frame, not "no board"
        t0 = time.perf_counter()
        try:
            obs = self.reader.read(image) if cells is None else self.reader.read(image, cells=cells)
        except UserError as error:  # BoardNotFound and friends: keep the game, say why
            self._vision_failing = False
            if self._board_seen:
                self._board_seen = False
                self.stats.not_found += 1
                self._say(Event("warn", f"{error}: is the board in view?", t=frame.t))
            self._forget_view()
            return None
        except Exception as error:  # a bug in the vision: keep the game, but never call it
            self._vision_error(error, frame)  # "no board", which would hide it
            self._forget_view()
            return None
        self.stats.read_ms.append((time.perf_counter() - t0) * 1e3)
        self._vision_failing = False
        if not self._board_seen:
            self._board_seen = True
            self._say(Event("info", "board found again", t=frame.t))
        pose = getattr(self.reader, "pose", None)
        if pose is not self._pose:
            self._pose = pose
            size = (image.shape[1], image.shape[0])
            self.tracker.watch.set_cells(*_cell_outlines(pose, self.reader, size))
        self._say_if_unfit(obs, frame.t)
        self.stats.cells_read.append(len(getattr(obs, "cells_read", CELLS)))
        board, unknown = observation_board(obs)
        measured = getattr(obs, "cells_read", None)
        return board, unknown, bool(obs.moved), None if measured is None else list(measured)

    def _say_if_unfit(self, obs: Any, t: float) -> None:
        """Once a session: without a setup, the stand-in looks fit none of this set's coins
        (its pieces are left unknown, so no move will be seen): say how to teach it the set."""
        if self._unfit_said or not hasattr(self.reader, "looks"):
            return
        if stand_ins_unfit(self.reader.looks, getattr(obs, "decisions", [])):
            self._unfit_said = True
            self._say(Event("warn", f"{UNFIT_NOTE} (then --setup)", t=t))

    def poll(self, t: float) -> None:
        """Display buttons, terminal commands, display connection changes."""
        while (event := self.display.get_event(0)) is not None:
            self._show(self.button(event.button, t))
        while True:
            try:
                line = self.commands.get_nowait()
            except queue.Empty:
                break
            self._show(self.command(line, t))
        connected = bool(getattr(self.display, "connected", True))
        if connected != self._display_ok:
            if self._display_ok is not None:
                text = ("display back: picture resent" if connected else
                        "display unplugged: refereeing goes on in the terminal")  # fmt: skip
                self._say(Event("info" if connected else "warn", text, t=t))
            self._display_ok = connected

    def _press(self, button: str, t: float) -> None:
        """A scripted press: through the display when it can take one, else directly."""
        if self.presser is None:
            self._show(self.button(button, t))
            return
        try:
            self.presser(button)
        except (OSError, ValueError):  # the display (or its simulator) vanished mid-game:
            self._show(self.button(button, t))  # the press is the recording's, not its
            return
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            event = self.display.get_event(timeout=0.05)
            if event is not None:
                self._show(self.button(event.button, t))
                return
        self._say(Event("warn", f"the display did not report the {button} press", t=t))

    # ---- input ----

    def button(self, name: str, t: float) -> list[Event]:
        if name in DIRECTIONS:
            return self._aim(name, t)
        if name == "end_turn":
            flag = self.judge.flag
            if flag is not None:
                # twice within 5 s over the same flag: the players confirm the referee's
                # board (a misread); the first press was for the flag then shown
                first = self._confirm
                if first is not None and first[1] == flag and t - first[0] <= CONFIRM_S:
                    self._confirm = None
                    return self.judge.confirm(t)
                self._confirm = (t, flag)
                return [Event("info", "press end turn again to confirm the referee's board "
                              "(the camera misread), or put the board right", t=t)]  # fmt: skip
            if self.aim is not None:
                direction, laser = self.aim
                self.aim = None
                self.presenter.clear_aim()
                lasers = self.judge.state.laser_cells()
                pawn = R.cell_name(laser) if len(lasers) > 1 else None
                return self.judge.fire(direction, pawn, t)
            return self.judge.end_turn(t)
        return [Event("info", f"button {name} does nothing here", t=t)]

    def _aim(self, direction: str, t: float) -> list[Event]:
        why = self.judge.can_act()
        if why:
            return [Event("info", f"cannot aim: {why}", t=t)]
        lasers = self.judge.state.laser_cells()
        if not lasers:
            return [Event("info", "no laser left to fire", t=t)]
        laser = lasers[0]
        if self.aim is not None and self.aim[0] == direction and len(lasers) > 1:
            laser = lasers[(lasers.index(self.aim[1]) + 1) % len(lasers)]
        self.aim = (direction, laser)
        beam = R.trace(self.judge.state.board, laser, R.Direction.parse(direction))
        path = [R.cell_name(c) for c in beam.path]
        self.presenter.aim(path)
        return [Event("aim", f"aiming {direction} from {R.cell_name(laser)}: "
                      "press end turn to fire", path=path, t=t)]  # fmt: skip

    def command(self, line: str, t: float) -> list[Event]:
        """A typed command: ``fire [CELL] DIR``, ``aim DIR``, ``end``, ``quit``."""
        words = line.strip().lower().split()
        if not words:
            return []
        if words[0] == "quit":
            self.stopped = True
            return [Event("info", "stopping (the log can be resumed)", t=t)]
        if words[0] == "end":
            return self.judge.end_turn(t)
        if words[0] in ("ok", "confirm"):
            return self.judge.confirm(t)
        if words[0] == "aim" and len(words) == 2 and words[1] in DIRECTIONS:
            return self._aim(words[1], t)
        if words[0] == "fire" and len(words) in (2, 3) and words[-1] in DIRECTIONS:
            self.aim = None
            return self.judge.fire(words[-1], words[1] if len(words) == 3 else None, t)
        return [Event("info", f"unknown command {line.strip()!r} (fire DIR, end, ok, quit)", t=t)]

    def start_terminal_input(self) -> None:
        """Read typed commands from stdin in a thread (only for a terminal)."""

        def read() -> None:
            for line in sys.stdin:
                self.commands.put(line)

        threading.Thread(target=read, name="referee-stdin", daemon=True).start()

    # ---- output ----

    def _show(self, events: list[Event]) -> None:
        if not events:
            return
        self.presenter.show(self.judge, events)
        for e in events:
            self._say(e)
        for observer in self.observers:
            observer(self, events)
        self.view.update(self.judge, "")

    def _forget_view(self) -> None:
        """After a failed read: no cell outlines, no pose; the next read is a whole one."""
        self.tracker.watch.set_cells(None, 0.0)
        self._pose = None
        self._failed = True

    def _vision_error(self, error: Exception, frame: Frame) -> None:
        """Say an unexpected vision failure once (not per frame) and keep its traceback
        beside the game log, where a bug report can pick it up."""
        self.stats.vision_errors += 1
        where = ""
        log = self.judge.log
        if log is not None and self.stats.vision_errors <= MAX_TRACEBACKS:
            path = log.path.with_name(log.path.name + ".errors.txt")
            try:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(f"frame {frame.index} (t={frame.t:.3f} s):\n")
                    handle.write("".join(traceback.format_exception(error)) + "\n")
                where = f"; traceback in {path}"
            except OSError:  # a full disc or a locked file must not stop the game either
                pass
        if not self._vision_failing:
            text = f"vision failed ({type(error).__name__}: {error}){where}; reading again"
            self._say(Event("warn", text, t=frame.t))
        self._vision_failing = True

    def _say(self, event: Event) -> None:
        self.stats.events.append(event)
        self.view.event(event)


def _cell_outlines(
    pose: Any, reader: Any, size: tuple[int, int]
) -> tuple[dict[str, Any] | None, float]:
    """The cells' outlines in the raw frame (``size`` = width, height) for the cheap look,
    or (None, 0) when no pose is known.

    With a camera calibration the pose is in undistorted pixels while the cheap look sees
    the raw frame: the outlines' corners are mapped back through the lens.
    """
    if pose is None:
        return None, 0.0
    from piecebridge.vision.reader import cell_polygons

    outlines = cell_polygons(pose)
    undistort = getattr(reader, "undistort", None)
    if undistort is not None:
        distort = getattr(undistort, "distort_points", None)
        if distort is None:
            return None, 0.0  # an undistorter that cannot map back: read instead of looking
        outlines = {c: distort(o, size) for c, o in outlines.items()}
    return outlines, float(pose.cell_size_px())
