"""The referee display: an Arduino Uno with an 8x8 WS2812B matrix, a status strip and buttons.

Referee-facing API (see :class:`Display` for details; nothing here ever blocks)::

    from piecebridge.display import open_display
    display = open_display(None)          # a board found by USB VID/PID, else the emulation
    display.show_board({"c4": "suns", "a1": "moons"})   # cells a1..h8 -> colour or suit
    display.show_laser(["a2", "a3", "b3"])              # animated beam over the board
    display.blink(["b3"], colour="red", cycles=3)       # illegal move / pieces removed
    display.status("crowns", tile_points=3, die=2)      # whose turn, points left
    display.on_button = lambda ev: print(ev.button)     # or display.get_event(timeout=0)
    display.close()

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

__all__ = [
    "BUTTON_NAMES",
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
    "render_png",
    "render_text",
]


def open_display(spec: str | None = None, **options: float) -> Display:
    """Start a display link. ``spec``: ``"sim"``, a serial port path, ``"auto"`` or None.

    ``None``/``"auto"``: the first attached board found by USB VID/PID; with none
    attached, the in-process emulation (its device is ``display.sim_device``).
    Returns a started :class:`Display`; call ``close()`` (or use ``with``) when done.
    """
    if spec in (None, "auto") and find_ports():
        spec = None
    elif spec in (None, "auto"):
        spec = "sim"
    if spec == "sim":
        device = EmulatedDisplay()
        display = Display(lambda: SimTransport(device), **options)
        display.sim_device = device  # type: ignore[attr-defined]
    else:
        display = Display(lambda: SerialTransport(spec), **options)
    return display.start()
