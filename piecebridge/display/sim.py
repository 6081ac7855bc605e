"""``--display sim``: the display firmware's behaviour in-process, drawn in the terminal or a PNG.

:class:`EmulatedDisplay` speaks the same wire protocol as the Uno (it is a Python port of
``firmware/piecebridge_display/pb_core.c``): the host link sends it real frames through
:class:`SimTransport` and reads real ACK/HELLO/BUTTON frames back, so the main job runs
on a laptop with nothing attached, through the same code paths as with the board.

>>> device = EmulatedDisplay()
>>> from piecebridge.display import protocol as P
>>> board = bytes([0x10]) + bytes(31)  # a1 = palette 1 (red)
>>> device.receive(P.encode_frame(P.SYNC, 1) + P.encode_frame(P.BOARD, 2, board))
>>> device.led_rgb()[0]
(64, 0, 0)
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np

from piecebridge.display import protocol as P

DEFAULT_PALETTE = [
    (0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (255, 160, 0),
    (255, 60, 0), (160, 0, 255), (0, 255, 255), (255, 0, 255), (255, 80, 120), (40, 40, 40),
    (120, 120, 120), (255, 255, 0), (0, 120, 40), (20, 0, 60),
]  # fmt: skip


class EmulatedDisplay:
    """The firmware's state machine, byte for byte; time comes from :meth:`advance`."""

    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.RLock()
        self._out = bytearray()
        self._rx = P.FrameReader(max_len=P.MAX_PAYLOAD + 6)
        self._event_ring: list[int] = []
        self._event_seq = 0
        self._event_sent_at: float | None = None
        self.reset()

    # ---- the MCU ----

    def reset(self) -> None:
        """Power-on state, then the boot HELLO (as after the Uno's auto-reset)."""
        with self._lock:
            self.palette = [list(c) for c in DEFAULT_PALETTE]
            self.cells = [0] * P.MATRIX_LEDS
            self.brightness_level = 64
            self.laser: list[int] = []
            self.laser_colour = self.laser_step = self.laser_visible = 0
            self.laser_timer = 0.0
            self.blink_mask = [False] * P.MATRIX_LEDS
            self.blink_colour = self.blink_half = self.blink_cycles = 0
            self.blink_on = True
            self.blink_timer = 0.0
            self.status_colour = self.tile_points = self.die = 0
            self.synced = False
            self.last_seq = 0
            self._event_ring.clear()
            self._event_sent_at = None
            self._last_time = self._clock()
            self._hello_at = self._beat_at = self._boot_time = self._last_time
            self._send_hello(reply=False, echo=0)

    def receive(self, data: bytes) -> None:
        """Bytes from the host, as the UART would deliver them."""
        with self._lock:
            self.advance()
            before = self._rx.errors
            for frame in self._rx.feed(data):
                self._handle(frame)
            for _ in range(self._rx.errors - before):
                self._send(P.NACK, 0, bytes([0, P.NACK_FRAME]))

    def take_output(self) -> bytes:
        """Bytes the display has sent to the host since the last call."""
        with self._lock:
            self.advance()
            data, self._out = bytes(self._out), bytearray()
            return data

    def press(self, button: str) -> None:
        """A debounced press of ``north|east|south|west|end_turn``."""
        with self._lock:
            self._event_ring.append(P.BUTTONS.index(button))

    def advance(self) -> None:
        """Run animations, HELLO repeats and event retransmission up to now."""
        with self._lock:
            now = self._clock()
            dt_ms = (now - self._last_time) * 1000.0
            self._last_time = now
            self._tick(dt_ms)
            if not self.synced and now - self._hello_at >= 0.5:
                self._hello_at = now
                self._send_hello(reply=False, echo=0)
            if self.synced and now - self._beat_at >= 1.0:
                self._beat_at = now
                up = int(now - self._boot_time) & 0xFFFF
                self._send(P.HEARTBEAT, 0, bytes([up & 0xFF, up >> 8, 0, 0]))
            if self._event_ring and self.synced:
                if self._event_sent_at is None:
                    self._event_seq = self._event_seq % 255 + 1
                    self._event_sent_at = now - 1.0
                if now - self._event_sent_at >= 0.1:
                    self._event_sent_at = now
                    self._send(P.BUTTON, self._event_seq, bytes([self._event_ring[0]]))

    # ---- protocol (mirrors pb_handle) ----

    def _send(self, ftype: int, seq: int, payload: bytes) -> None:
        self._out += P.encode_frame(ftype, seq, payload)

    def _send_hello(self, reply: bool, echo: int) -> None:
        payload = bytes([P.PROTO_VERSION, 1, 1, P.LED_COUNT & 0xFF, P.LED_COUNT >> 8])
        self._send(P.HELLO, 0, payload + bytes([P.HELLO_REPLY if reply else 0, echo, 0]))

    def _handle(self, f: P.Frame) -> None:
        if f.type == P.SYNC:
            self.synced, self.last_seq = True, f.seq
            host_last = f.payload[0] if f.payload else 0
            self._event_acked(host_last)  # the host has it: only its EVENT_ACK was lost
            if self._event_sent_at is None:
                self._event_seq = host_last  # number on from the host's count
            self._send_hello(reply=True, echo=f.seq)
            return
        if not self.synced:
            self._send(P.NACK, 0, bytes([f.seq, P.NACK_NOT_SYNCED]))
            return
        if f.seq != 0 and f.seq == self.last_seq:
            self._send(P.ACK, 0, bytes([f.seq]))
            return
        error = self._apply(f.type, f.payload)
        if error:
            self._send(P.NACK, 0, bytes([f.seq, error]))
        else:
            self.last_seq = f.seq
            if f.type == P.EVENT_ACK:
                self._event_acked(f.payload[0])
            self._send(P.ACK, 0, bytes([f.seq]))

    def _event_acked(self, seq: int) -> None:
        # Only the head that went out under that seq (a late EVENT_ACK must not drop the next).
        if self._event_ring and self._event_sent_at is not None and seq == self._event_seq:
            self._event_ring.pop(0)
            self._event_sent_at = None

    def _apply(self, ftype: int, p: bytes) -> int:
        n = len(p)
        if ftype == P.PING:
            return 0 if n == 0 else P.NACK_PAYLOAD
        if ftype == P.EVENT_ACK:
            return 0 if n == 1 else P.NACK_PAYLOAD
        if ftype == P.PALETTE:
            if n < 2 or n != 2 + 3 * p[1] or p[0] + p[1] > P.PALETTE_SIZE:
                return P.NACK_PAYLOAD
            for i in range(p[1]):
                self.palette[p[0] + i] = list(p[2 + 3 * i : 5 + 3 * i])
        elif ftype == P.BOARD:
            if n != 32:
                return P.NACK_PAYLOAD
            self.cells = [(p[c >> 1] >> (0 if c & 1 else 4)) & 15 for c in range(P.MATRIX_LEDS)]
        elif ftype == P.LASER:
            if (
                n < 3
                or p[0] >= 16
                or p[2] > P.MAX_LASER
                or n != 3 + p[2]
                or max(p[3:], default=0) >= 64
            ):
                return P.NACK_PAYLOAD
            self.laser_colour, self.laser_step = p[0], p[1]
            self.laser = list(p[3:])
            self.laser_visible = len(self.laser) if p[1] == 0 or not self.laser else 1
            self.laser_timer = 0.0
        elif ftype == P.BLINK:
            if n != 11 or p[0] >= 16 or p[1] == 0:
                return P.NACK_PAYLOAD
            self.blink_colour, self.blink_half, self.blink_cycles = p[0], p[1], p[2]
            self.blink_mask = [bool(p[3 + (c >> 3)] & (1 << (c & 7))) for c in range(64)]
            self.blink_on, self.blink_timer = True, 0.0
        elif ftype == P.STATUS:
            if n != 3 or p[0] >= 16 or p[1] > 4 or p[2] > 5:
                return P.NACK_PAYLOAD
            self.status_colour, self.tile_points, self.die = p
        elif ftype == P.BRIGHTNESS:
            if n != 1:
                return P.NACK_PAYLOAD
            self.brightness_level = p[0]
        elif ftype == P.CLEAR:
            if n:
                return P.NACK_PAYLOAD
            self.cells = [0] * 64
            self.laser, self.laser_visible = [], 0
            self.blink_mask = [False] * 64
            self.status_colour = self.tile_points = self.die = 0
        else:
            return P.NACK_TYPE
        return 0

    def _tick(self, ms: float) -> None:
        if self.laser_visible < len(self.laser) and self.laser_step:
            self.laser_timer += ms
            step = self.laser_step * 4
            while self.laser_timer >= step and self.laser_visible < len(self.laser):
                self.laser_timer -= step
                self.laser_visible += 1
        if any(self.blink_mask):
            self.blink_timer += ms
            half = self.blink_half * 10
            while self.blink_timer >= half:
                self.blink_timer -= half
                self.blink_on = not self.blink_on
                if not self.blink_on and self.blink_cycles:
                    self.blink_cycles -= 1
                    if self.blink_cycles == 0:
                        self.blink_mask = [False] * 64
                        break

    # ---- the picture ----

    def led_rgb(self) -> list[tuple[int, int, int]]:
        """The 80 LED colours as the chain would show them (matrix a1..h8, then status)."""
        with self._lock:
            self.advance()
            colour = list(self.cells)
            for c in self.laser[: self.laser_visible]:
                colour[c] = self.laser_colour
            if self.blink_on:
                for c in range(64):
                    if self.blink_mask[c]:
                        colour[c] = self.blink_colour
            leds = [self._scaled(i) for i in colour]
            strip = [(0, 0, 0)] * P.STATUS_LEDS
            for i in range(4):
                if self.status_colour:
                    strip[i] = self._scaled(self.status_colour)
                if i < self.tile_points:
                    strip[4 + i] = self._scaled(5)
            for i in range(self.die):
                strip[8 + i] = self._scaled(4)
            strip[15] = self._scaled(2 if self.synced else 1)
            return leds + strip

    def _scaled(self, index: int) -> tuple[int, int, int]:
        scale = self.brightness_level + 1
        r, g, b = self.palette[index & 15]
        return ((r * scale) >> 8, (g * scale) >> 8, (b * scale) >> 8)


class SimTransport:
    """A :class:`~piecebridge.display.link.Transport` into an :class:`EmulatedDisplay`.

    Opening it resets the emulated MCU, as opening a real Uno's port does.
    """

    def __init__(self, device: EmulatedDisplay) -> None:
        self.device = device
        self._wake = threading.Event()

    def open(self) -> None:
        self.device.reset()

    def close(self) -> None:
        pass

    def read(self) -> bytes:
        data = self.device.take_output()
        if not data:
            self._wake.wait(0.01)
            self._wake.clear()
            data = self.device.take_output()
        return data

    def write(self, data: bytes) -> None:
        self.device.receive(data)

    def interrupt(self) -> None:
        self._wake.set()


# ---- drawing ----


def _visible(rgb: tuple[int, int, int], normalise: bool) -> tuple[int, int, int]:
    """Scale a lit LED to full intensity so a dimmed LED still reads as its colour on screen."""
    if not normalise or not any(rgb):
        return rgb
    gain = 255 / max(rgb)
    return tuple(min(255, int(v * gain)) for v in rgb)  # type: ignore[return-value]


def render_text(leds: list[tuple[int, int, int]], normalise: bool = True) -> str:
    """The matrix (north up) and status strip as 24-bit ANSI-coloured dots."""

    def dot(rgb: tuple[int, int, int]) -> str:
        if not any(rgb):
            return "\x1b[38;2;60;60;60m·\x1b[0m"
        r, g, b = _visible(rgb, normalise)
        return f"\x1b[38;2;{r};{g};{b}m●\x1b[0m"

    lines = []
    for row in range(7, -1, -1):
        cells = " ".join(dot(leds[row * 8 + col]) for col in range(8))
        lines.append(f"{row + 1} {cells}")
    lines.append("  " + " ".join("abcdefgh"))
    strip = leds[64:80]
    lines.append(
        "  "
        + " ".join(dot(c) for c in strip[:4])
        + "  "
        + " ".join(dot(c) for c in strip[4:8])
        + "  "
        + " ".join(dot(c) for c in strip[8:13])
        + "   "
        + dot(strip[15])
    )
    lines.append("  turn     tiles     die         link")
    return "\n".join(lines)


def render_png(leds: list[tuple[int, int, int]], path: str | Path, normalise: bool = True) -> Path:
    """Draw the matrix and the status strip as LEDs on a dark panel; returns the path."""
    import cv2  # OpenCV is a project dependency; imported late to keep the link light.

    cell, margin = 48, 24
    width = margin * 2 + cell * 8
    height = margin * 3 + cell * 8 + cell // 2
    img = np.full((height, width, 3), 18, np.uint8)
    for idx in range(64):
        row, col = divmod(idx, 8)
        cx = margin + col * cell + cell // 2
        cy = margin + (7 - row) * cell + cell // 2
        _led(img, cx, cy, cell // 2 - 6, leds[idx], normalise)
    small = cell // 2
    for i, rgb in enumerate(leds[64:80]):
        cx = margin + i * small + small // 2
        cy = margin * 2 + cell * 8 + small // 2
        _led(img, cx, cy, small // 2 - 3, rgb, normalise)
    from piecebridge.outputs import write_image

    out = Path(path)
    write_image(out, cv2.cvtColor(img, cv2.COLOR_RGB2BGR))  # UserError: cannot write it
    return out


def _led(img: np.ndarray, cx: int, cy: int, r: int, rgb: tuple[int, int, int], norm: bool) -> None:
    import cv2

    colour = _visible(rgb, norm) if any(rgb) else (40, 40, 40)
    cv2.circle(img, (cx, cy), r, tuple(int(v) for v in colour), -1, lineType=cv2.LINE_AA)
