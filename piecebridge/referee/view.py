"""What people see: the referee display (LED matrix, status strip) and the terminal.

:class:`DisplayPresenter` turns the judge's state and events into display calls (which
never block); :class:`TerminalView` prints one clear, coloured line per event, or with
``live=True`` keeps a rich live panel (board, whose turn, the latest events).

>>> from piecebridge.display import Display
>>> from piecebridge.rules import reflec
>>> from piecebridge.referee.judge import Judge
>>> display = Display(open_transport=None)   # not started: it only records the picture
>>> DisplayPresenter(display).refresh(Judge(reflec.new_game(["suns", "moons"])))
>>> display.wanted_board()["a1"]
'red'
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from piecebridge.referee.judge import Event, Judge

STYLE = {
    "accepted": "green",
    "flagged": "bold red",
    "cleared": "green",
    "fired": "bold magenta",
    "remove": "yellow",
    "removed": "green",
    "turn": "bold cyan",
    "eliminated": "bold yellow",
    "game_over": "bold green",
    "unsure": "dim yellow",
    "info": "white",
    "warn": "bold yellow",
    "aim": "magenta",
}
ICON = {
    "accepted": "✓",
    "flagged": "✗",
    "cleared": "✓",
    "fired": "⚡",
    "remove": "⌫",
    "removed": "✓",
    "turn": "▶",
    "eliminated": "☠",
    "game_over": "★",
    "unsure": "?",
    "info": "·",
    "warn": "!",
    "aim": "→",
}
SUIT_STYLE = {"suns": "red", "moons": "bright_black", "crowns": "green", "arms": "blue"}


class DisplayPresenter:
    """Keeps the referee display in step with the judge; each call returns at once."""

    def __init__(self, display: Any) -> None:
        self.display = display
        self.commands = 0  # display calls made (the latency benchmark counts them)
        self.last_command_at = 0.0
        self._times: deque[float] = deque(maxlen=32)  # perf_counter of the latest calls

    def _call(self, name: str, *args: Any, **kwargs: Any) -> None:
        getattr(self.display, name)(*args, **kwargs)
        self.commands += 1
        self.last_command_at = time.perf_counter()
        self._times.append(self.last_command_at)

    def first_command_after(self, count: int) -> float:
        """When the first display call after the ``count``-th was made (perf_counter)."""
        back = self.commands - count
        if back <= 0:
            return self.last_command_at
        return self._times[-min(back, len(self._times))]

    def refresh(self, judge: Judge) -> None:
        """Board and status strip from the judge's state."""
        self._call("show_board", judge.display_cells())
        s = judge.state
        if s.phase == "play":
            suit = s.current_suits[0].value
            self._call("status", suit, min(s.tile_points, 4), min(s.die, 5))
        elif s.phase == "drop":
            self._call("status", s.current_suits[0].value, 0, 0)
        else:
            winner = s.players[s.winner][0].value if s.winner is not None else None
            self._call("status", winner, 0, 0)

    def show(self, judge: Judge, events: list[Event]) -> None:
        """React to events: board, blinking, the beam."""
        kinds = {e.kind for e in events}
        if kinds - {"info", "unsure"}:
            self.refresh(judge)
        for e in events:
            if e.kind == "fired":
                self._call("show_laser", e.path, "laser", 60)
            elif e.kind == "accepted" or e.kind == "turn":
                self._call("clear_laser")
        self.blinks(judge)

    def blinks(self, judge: Judge) -> None:
        """The one blinking set: a flag (red) wins over pieces to remove (white)."""
        if judge.flag:
            self._call("blink", judge.flag.cells, "red", 500, 0)
        elif judge.removal:
            self._call("blink", judge.removal, "white", 400, 0)
        else:
            self._call("stop_blink")

    def aim(self, path: list[str]) -> None:
        self._call("show_laser", path, "amber", 0)

    def clear_aim(self) -> None:
        self._call("clear_laser")


class TerminalView:
    """One line per event (``live=False``), or a rich live panel (``live=True``)."""

    def __init__(self, console: Console | None = None, live: bool = False, quiet: bool = False):
        self.console = console or Console(highlight=False)
        self.quiet = quiet
        self.lines: deque[Text] = deque(maxlen=10)
        self.status = ""
        self.camera = ""
        self.board_text = ""
        self._live = Live(console=self.console, auto_refresh=False) if live else None
        if self._live is not None:
            self._live.start()

    def event(self, e: Event) -> None:
        line = Text()
        line.append(f"{e.t:7.2f}s ", style="dim")
        line.append(f"{ICON.get(e.kind, '·')} ", style=STYLE.get(e.kind, ""))
        line.append(e.text, style=STYLE.get(e.kind, ""))
        if e.cells and e.kind in ("flagged", "remove"):
            line.append(f"  [{' '.join(e.cells)}]", style="dim")
        self.lines.append(line)
        if self._live is not None:
            self._redraw()
        elif not self.quiet:
            self.console.print(line)

    def note(self, text: str, kind: str = "info", t: float = 0.0) -> None:
        self.event(Event(kind, text, t=t))

    def update(self, judge: Judge, camera: str, board_text: str = "") -> None:
        """The live panel's standing parts (ignored in line mode)."""
        self.status, self.camera, self.board_text = judge.summary(), camera, board_text
        if self._live is not None:
            self._redraw()

    def _redraw(self) -> None:
        assert self._live is not None
        table = Table.grid(padding=(0, 2))
        table.add_row(Text.from_ansi(self.board_text) if self.board_text else Text(""),
                      Group(Text(self.status, style="bold cyan"), Text(self.camera, style="dim"),
                            Text(""), *self.lines))  # fmt: skip
        self._live.update(Panel(table, title="piecebridge referee"), refresh=True)

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
