"""The referee display: an Arduino Uno with an 8x8 WS2812B matrix, a status strip and buttons.

Referee-facing API (see :class:`Display` for details; nothing here ever blocks)::

    from piecebridge.display import open_display
    display = open_display(None)          # a board found by USB VID/PID, else the emulation
    display.show_board({"c4": "suns", "a1": "moons"})   # cells a1..h8 -> colour or suit
    display.show_board(reflec_cells(board_json))        # from a reflec-board/1 object
    display.show_laser(["a2", "a3", "b3"])              # animated beam over the board
    display.blink(["b3"], colour="red", cycles=3)       # illegal move / pieces removed
    display.status("crowns", tile_points=3, die=2)      # whose turn, points left
    display.on_button = lambda ev: print(ev.button)     # or display.get_event(timeout=0)
    display.close()

``open_display("sim")`` (the fallback when no board is attached) runs the same protocol
into an in-process emulation: ``display.render_text()`` / ``display.save_png(path)`` draw
it and ``display.simulate_press("north")`` presses a button; ``"simavr"`` runs the real
firmware in simavr; a path names a serial port.

Modules: :mod:`.protocol` (frames), :mod:`.link` (the host link), :mod:`.serial_port`
(pyserial, VID/PID discovery), :mod:`.sim` (``--display sim``: in-process emulation,
terminal and PNG rendering). Wire format: ``firmware/PROTOCOL.md``.
"""

from __future__ import annotations

from piecebridge.display.link import (
    BUTTON_NAMES,
    PALETTE,
    SUIT_COLOURS,
    ButtonEvent,
    Display,
    colour_index,
)
from piecebridge.display.serial_port import SerialTransport, find_ports
from piecebridge.display.sim import EmulatedDisplay, SimTransport, render_png, render_text
from piecebridge.errors import UserError

__all__ = [
    "BUTTON_NAMES",
    "DISPLAY_CHOICES",
    "PALETTE",
    "SUIT_COLOURS",
    "ButtonEvent",
    "Display",
    "EmulatedDisplay",
    "SerialTransport",
    "SimTransport",
    "colour_index",
    "find_ports",
    "open_display",
    "reflec_cells",
    "render_png",
    "render_text",
]


DISPLAY_CHOICES = ("auto", "sim", "simavr")


def reflec_cells(board: dict) -> dict[str, str]:
    """A ``reflec-board/1`` object as ``show_board`` cells: every coin and pawn in its suit.

    One LED per cell cannot show a coin's facing; pawns and coins share their suit colour
    (blink or a laser tell the rest).

    >>> reflec_cells({"format": "reflec-board/1", "coins": [{"cell": "c4", "suit": "suns",
    ...     "facing": "north"}], "pawns": [{"cell": "a1", "suit": "arms"}]})
    {'c4': 'suns', 'a1': 'arms'}
    """
    cells: dict[str, str] = {}
    for kind in ("coins", "pawns"):
        for item in board.get(kind, []):
            cells[item["cell"]] = item["suit"]
    return cells


def open_display(spec: str | None = None, **options: float) -> Display:
    """Start a display link and return the started :class:`Display` (call ``close()``).

    ``spec``:
      - ``None`` or ``"auto"``: the first board found by USB VID/PID; none attached: ``"sim"``;
      - ``"sim"``: the in-process emulation (``display.leds()``, ``render_text()``,
        ``save_png()``, ``simulate_press()`` work);
      - ``"simavr"``: the real firmware in the simavr harness (needs the firmware toolchain;
        read-back and presses work too);
      - anything else: a serial port path such as ``/dev/ttyACM0``.

    >>> with open_display("sim") as display:
    ...     display.show_board({"a1": "suns"})
    ...     display.wait_idle(2.0), display.leds()[0]
    (True, (64, 0, 0))
    """
    if spec in (None, "auto"):
        spec = None if find_ports() else "sim"
    if spec == "sim":
        device = EmulatedDisplay()
        display = Display(lambda: SimTransport(device), **options)
        display.sim_device = device  # type: ignore[attr-defined]
        display._read_leds = device.led_rgb
        display._press = device.press
    elif spec == "simavr":
        from piecebridge.display import simavr

        missing = simavr.toolchain_missing()
        if missing:
            raise UserError(f"--display simavr needs the firmware toolchain; missing: {missing}")
        simavr.build_firmware("uno", "sim")
        board = simavr.SimavrBoard(boot_ms=300)
        display = Display(lambda: SerialTransport(board.pty), **options)
        display.simavr_board = board  # type: ignore[attr-defined]

        def read_leds() -> list[tuple[int, int, int]] | None:
            frame = board.last_frame()
            return list(frame.rgb) if frame else None

        display._read_leds = read_leds
        display._press = lambda button: board.press(button)
        display._on_close.append(board.close)
    else:
        display = Display(lambda: SerialTransport(spec), **options)
    return display.start()
