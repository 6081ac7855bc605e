"""Finding the display on USB and talking to it through pyserial."""

from __future__ import annotations

import contextlib

import serial
from serial.tools import list_ports

# USB VID:PID pairs of Uno boards and the usual clones' USB-serial chips.
KNOWN_BOARDS: dict[tuple[int, int], str] = {
    (0x2341, 0x0043): "Arduino Uno R3 (ATmega16U2)",
    (0x2341, 0x0001): "Arduino Uno (ATmega8U2)",
    (0x2341, 0x0243): "Genuino Uno",
    (0x2A03, 0x0043): "Arduino.org Uno",
    (0x1A86, 0x7523): "CH340 Uno clone",
    (0x0403, 0x6001): "FTDI FT232R",
    (0x10C4, 0xEA60): "CP210x",
}
BAUD = 115200


def find_ports() -> list[str]:
    """Serial devices whose USB VID/PID is a known Uno (or clone), best first.

    >>> isinstance(find_ports(), list)
    True
    """
    found = []
    for port in list_ports.comports():
        key = (port.vid, port.pid)
        if key in KNOWN_BOARDS:
            # Genuine Arduino IDs first: a CH340 may be something else.
            found.append((0 if port.vid in (0x2341, 0x2A03) else 1, port.device))
    return [device for _, device in sorted(found)]


class SerialTransport:
    """A :class:`~piecebridge.display.link.Transport` on a serial port.

    ``port=None`` looks the board up by VID/PID at every (re)open, so a replugged board
    that came back under another name is still found.
    """

    def __init__(self, port: str | None = None, read_timeout: float = 0.02) -> None:
        self.port = port
        self.read_timeout = read_timeout
        self._serial: serial.Serial | None = None

    def open(self) -> None:
        device = self.port
        if device is None:
            ports = find_ports()
            if not ports:
                raise ConnectionError("no display board attached")
            device = ports[0]
        # Opening raises DTR, which resets an Uno: its HELLO follows the bootloader.
        self._serial = serial.Serial(device, BAUD, timeout=self.read_timeout, write_timeout=1.0)

    def close(self) -> None:
        if self._serial is not None:
            self._serial.close()
            self._serial = None

    def read(self) -> bytes:
        s = self._serial
        if s is None:
            raise ConnectionError("port closed")
        waiting = s.in_waiting
        return s.read(max(1, min(waiting, 4096)))

    def write(self, data: bytes) -> None:
        if self._serial is None:
            raise ConnectionError("port closed")
        self._serial.write(data)

    def interrupt(self) -> None:
        """Wake the link thread out of its read. Called from the caller's thread, so the
        link thread may close the port (an unplug) at the same moment: then there is
        nothing to wake, and the error must not reach the referee.
        """
        s = self._serial
        if s is not None and hasattr(s, "cancel_read"):
            with contextlib.suppress(OSError, TypeError, ValueError):  # it closed under us
                s.cancel_read()
