"""The referee loop: frames → vision → stable states → judge → display and terminal.

:class:`Referee` wires the parts; it never blocks on the display, keeps the game when the
camera, the board or the display goes away, and takes button presses from the display
(or typed commands from the terminal):

* a direction button aims the current player's laser (the path is shown in amber; with two
  lasers, the same direction again switches laser); ``end_turn`` then fires it;
* ``end_turn`` with nothing aimed ends the turn;
* ``end_turn`` twice while a change is flagged: the players confirm the referee's board
  (the camera misread those cells);
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
from dataclasses import dataclass, field
from typing import Any

from piecebridge.referee.judge import Event, Judge
from piecebridge.referee.sources import Frame, FrameSource
from piecebridge.referee.tracker import StableTracker, observation_board
from piecebridge.referee.view import DisplayPresenter, TerminalView
from piecebridge.rules import reflec as R

DIRECTIONS = ("north", "east", "south", "west")


@dataclass
class Stats:
    frames: int = 0
    read_ms: list[float] = field(default_factory=list)
    commits: int = 0
    latency_ms: list[float] = field(default_factory=list)  # commit frame in -> display call
    events: list[Event] = field(default_factory=list)
    camera_lost: int = 0
    moved: int = 0
    not_found: int = 0


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
        reuse_repeats: bool = True,
    ) -> None:
        self.judge = judge
        self.reader = reader
        self.display = display
        self.presenter = DisplayPresenter(display)
        self.view = view
        self.tracker = tracker or StableTracker()
        self.presser = presser
        self.log_observations = log_observations
        #: at most this many frames a second are read (a 30 fps camera needs no more for a
        #: 0.5 s hold, and the CPU stays under a core); 0 = every frame
        self.max_fps = max_fps
        #: a recording's repeated picture reuses the last reading (same image, same answer)
        self.reuse_repeats = reuse_repeats
        self._last_read_t: float | None = None
        self.stats = Stats()
        self.commands: queue.Queue[str] = queue.Queue()
        self.aim: tuple[str, int] | None = None
        self._camera_ok = True
        self._display_ok: bool | None = None
        self._board_seen = True
        self._last: tuple[dict, list[str]] | None = None
        self._relocked = False
        self._confirm_at: float | None = None
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
        start = time.monotonic()
        first_t: float | None = None
        for frame in source:
            if self.stopped:
                break
            if speed > 0 and not source.live:
                first_t = frame.t if first_t is None else first_t
                wait = (frame.t - first_t) / speed - (time.monotonic() - start)
                if wait > 0:
                    self._idle(wait)
            self.step(frame)
        return self.stats

    def _idle(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.poll(0.0)
            time.sleep(min(0.02, max(0.0, deadline - time.monotonic())))

    def step(self, frame: Frame) -> None:
        """Handle one frame (and scripted presses due before it)."""
        self.judge.frame = frame.index
        for button in frame.presses:
            self._press(button, frame.t)
        self.poll(frame.t)
        if frame.lost or frame.image is None:
            if self._camera_ok:
                self._camera_ok = False
                self.stats.camera_lost += 1
                self._say(Event("warn", "camera lost: retrying; the game is kept", t=frame.t))
            return
        if not self._camera_ok:
            self._camera_ok = True
            self.tracker.reset()
            self._say(Event("info", "camera back: watching the board again", t=frame.t))
        if (
            self.max_fps
            and self._last_read_t is not None
            and frame.t - self._last_read_t < 1.0 / self.max_fps - 1e-9
        ):
            return  # within the analysis rate: this frame is dropped
        self._last_read_t = frame.t
        arrived = time.perf_counter()
        self.stats.frames += 1
        if frame.repeat and self.reuse_repeats and self._last is not None:
            # The very same picture again: nothing new to read, and nothing moved.
            board, unknown, moved, motion = (*self._last, False, 0.0)
        else:
            try:
                obs = self.reader.read(frame.image)
            except Exception as error:  # BoardNotFound and friends: keep the game, say why
                self._last = None
                if self._board_seen:
                    self._board_seen = False
                    self.stats.not_found += 1
                    self._say(Event("warn", f"{error}: is the board in view?", t=frame.t))
                self.tracker.reset()
                return
            self.stats.read_ms.append((time.perf_counter() - arrived) * 1e3)
            board, unknown = observation_board(obs)
            moved, motion = obs.moved, obs.motion
            self._last = (board, unknown)
        if not self._board_seen:
            self._board_seen = True
            self._say(Event("info", "board found again", t=frame.t))
        if moved and self.stats.frames > 1:
            self.stats.moved += 1
            self._relocked = True
            self._say(Event("warn", "the camera or the board moved: re-locked on the board; "
                            "checking it still reads as before", t=frame.t))  # fmt: skip
        track = self.tracker.feed(board, unknown, frame.t, motion, moved)
        if track.commit is None:
            return
        commit = track.commit
        self.stats.commits += 1
        if self.log_observations and self.judge.log is not None:
            self.judge.log.observed(commit.board, frame.t, frame.index)
        before = self.presenter.commands
        events = self.judge.observe(commit.board, commit.unknown, frame.t)
        self._show(events)
        if self._relocked:
            self._relocked = False
            if not events and not self.judge.flag:
                self._say(Event("info", "re-locked: the board reads as before", t=frame.t))
        if self.presenter.commands > before:
            self.stats.latency_ms.append((self.presenter.last_command_at - arrived) * 1e3)

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
        # Press when the link is quiet: the firmware in simavr drops a press that comes
        # while a host frame is in flight (reported to the display's owner).
        self.display.wait_idle(1.0)
        self.presser(button)
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
            if self.judge.flag is not None:
                # twice within 5 s: the players confirm the referee's board (a misread)
                if self._confirm_at is not None and t - self._confirm_at <= 5.0:
                    self._confirm_at = None
                    return self.judge.confirm(t)
                self._confirm_at = t
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

    def _say(self, event: Event) -> None:
        self.stats.events.append(event)
        self.view.event(event)
