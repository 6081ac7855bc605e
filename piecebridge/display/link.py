"""The host side of the display link: a background worker that keeps the display in sync.

:class:`Display` is what the referee uses. Every drawing call only records the wanted
picture and returns at once; a worker thread owns the port, does the HELLO/SYNC
handshake, sends what differs from what the display is known to show (one frame at a
time, each acknowledged before the next: ACK-paced, so the UART never overruns while the
firmware has interrupts off for the LEDs), re-sends on NACK or timeout, pings when idle,
and after any reset, unplug or reopen sends the whole picture again. Button presses
are taken at any time, also while pictures stream: each BUTTON is acknowledged with an
EVENT_ACK that queues ahead of the next picture frame, and re-sent copies are
recognised by their event seq (see ``firmware/PROTOCOL.md``).

>>> from piecebridge.display import open_display
>>> with open_display("sim") as display:
...     display.show_board({"a1": "suns", "h8": "arms"})
...     display.status("suns", tile_points=3, die=2)
...     display.wait_idle(2.0)
True
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from piecebridge.display import protocol as P

log = logging.getLogger(__name__)

# Palette index -> (name, RGB). Indices 1 red, 2 green, 4 white and 5 amber are also
# used by the firmware's status strip, so keep those colours.
PALETTE: tuple[tuple[str, tuple[int, int, int]], ...] = (
    ("off", (0, 0, 0)),
    ("red", (255, 0, 0)),
    ("green", (0, 200, 0)),
    ("blue", (0, 60, 255)),
    ("white", (255, 255, 255)),
    ("amber", (255, 150, 0)),
    ("orange", (255, 70, 0)),
    ("purple", (150, 0, 255)),
    ("cyan", (0, 220, 220)),
    ("magenta", (255, 0, 160)),
    ("pink", (255, 90, 130)),
    ("grey", (60, 60, 60)),
    ("yellow", (255, 230, 0)),
    ("laser", (255, 0, 40)),
    ("dim", (12, 12, 12)),
    ("lilac", (190, 150, 255)),
)
COLOUR_INDEX = {name: i for i, (name, _) in enumerate(PALETTE)}
# Suit names are accepted wherever a colour is (moons are black pieces: lilac on LEDs).
SUIT_COLOURS = {"suns": "red", "moons": "lilac", "crowns": "green", "arms": "blue"}
BUTTON_NAMES = P.BUTTONS


def colour_index(colour: str | int) -> int:
    """Palette index of a colour name, a suit name or an index.

    >>> colour_index("crowns"), colour_index("laser"), colour_index(3)
    (2, 13, 3)
    """
    if isinstance(colour, int):
        if not 0 <= colour < P.PALETTE_SIZE:
            raise ValueError(f"palette index {colour} out of range 0..15")
        return colour
    name = SUIT_COLOURS.get(colour.lower(), colour.lower())
    if name not in COLOUR_INDEX:
        raise ValueError(f"unknown colour {colour!r}; known: {', '.join(COLOUR_INDEX)}")
    return COLOUR_INDEX[name]


@dataclass(frozen=True)
class ButtonEvent:
    """A debounced button press on the display: ``button`` is one of BUTTON_NAMES."""

    button: str
    time: float


class Transport(Protocol):
    """A byte pipe to one display: a serial port or the in-process emulation."""

    def open(self) -> None: ...
    def close(self) -> None: ...
    def read(self) -> bytes: ...  # waits at most a few ms; b"" when nothing came
    def write(self, data: bytes) -> None: ...


@dataclass
class LinkStats:
    frames_sent: int = 0
    bytes_sent: int = 0
    retransmits: int = 0
    nacks: int = 0
    rx_errors: int = 0
    bytes_received: int = 0
    resyncs: int = 0
    reconnects: int = 0
    bytes_by_type: dict[int, int] = field(default_factory=dict)


# Order in which state channels are brought up to date (CLEAR first: it resets the rest).
_CHANNELS = ("palette", "brightness", "clear", "board", "status", "laser", "blink")
# A BUTTON copy this long after our EVENT_ACK for it means the EVENT_ACK was lost (an
# EVENT_ACK and its ACK take ~1.5 ms on the wire; the display re-sends every 100 ms).
_CROSSING = 0.03
# A SYNC unanswered this long is sent again; each repeat waits twice as long as the last.
SYNC_RESEND_S = 0.3
SYNC_RESEND_MAX_S = 2.4
# These are independent on the display and take turns: a board redrawn faster than the
# link carries it must not keep a laser (or status) from ever being sent.
_TAKE_TURNS = ("board", "status", "laser", "blink")
_FIRST = tuple(c for c in _CHANNELS if c not in _TAKE_TURNS)  # sent before any picture


@dataclass
class _Outgoing:
    channel: str | None
    token: object
    ftype: int
    payload: bytes
    seq: int = 0
    sent_at: float = 0.0
    tries: int = 0


class Display:
    """The referee display, driven without ever blocking the caller.

    Cells are Reflec names ``a1``..``h8`` (columns a-h west to east, rows 1-8 south to
    north); colours are names from :data:`PALETTE` (``off red green blue white amber
    orange purple cyan magenta pink grey yellow laser dim lilac``) or suit names
    (``suns moons crowns arms``). All drawing methods return immediately.

    Drawing:
        ``show_board(cells)``         whole matrix; unlisted cells go dark
        ``show_laser(path, ...)``     beam drawn cell by cell over the board; ``clear_laser()``
        ``blink(cells, ...)``         flash cells (illegal move, pieces removed); ``stop_blink()``
        ``status(player, tile_points, die)``   status strip
        ``brightness(level)``, ``clear()``
    Buttons (``north east south west end_turn``):
        ``on_button = fn`` (called in the link thread: keep it short), or
        ``get_event(timeout=0)`` / ``events()`` without blocking.
    Link:
        ``connected``, ``info`` (the HELLO), ``heartbeat``, ``stats``, ``wait_idle(timeout)``,
        ``reconnect()``, ``close()``; a lost port is reopened on its own.
    Emulation / simavr only:
        ``leds()``, ``render_text()``, ``save_png(path)``, ``simulate_press(button)``.

    >>> d = Display(open_transport=None)  # not started: calls only record the picture
    >>> d.show_board({"c4": "crowns", "d5": "laser"})
    >>> d.wanted_board()["c4"]
    'green'
    """

    def __init__(
        self,
        open_transport: Callable[[], Transport] | None,
        *,
        ack_timeout: float = 0.25,
        hello_wait: float = 2.5,
        ping_every: float = 1.0,
        dead_after: float = 3.5,
        max_tries: int = 8,
    ) -> None:
        self._open_transport = open_transport
        self.ack_timeout = ack_timeout
        self.hello_wait = hello_wait
        self.ping_every = ping_every
        self.dead_after = dead_after
        self.max_tries = max_tries
        self.on_button: Callable[[ButtonEvent], None] | None = None
        self.stats = LinkStats()
        self.info: P.Hello | None = None
        # Set when the display speaks another protocol version (it is then left alone).
        self.error: str | None = None
        self._port_error: str | None = None  # why the port last failed to open or died
        self.heartbeat: P.Heartbeat | None = None
        self._events: queue.Queue[ButtonEvent] = queue.Queue()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._reconnect = threading.Event()
        self._thread: threading.Thread | None = None
        self._synced = False
        # Wanted picture: channel -> (token, frame type, payload). A new token means
        # "send again" even if the payload is equal (replays a laser animation).
        self._wanted: dict[str, tuple[object, int, bytes]] = {}
        self._shown: dict[str, object] = {}  # channel -> token the display acknowledged
        self._last_sent: str | None = None  # for the turns of _TAKE_TURNS
        self._board_names: dict[str, str] = {}
        self._counter = 0
        # Event seq of the last button press delivered: kept across sessions (SYNC tells
        # the display), so a press whose EVENT_ACK was lost is not delivered twice.
        self._last_event_seq = 0
        self._transport: Transport | None = None
        # Set by open_display for the emulation and simavr: read the LEDs back, press buttons.
        self._read_leds: Callable[[], list[tuple[int, int, int]] | None] | None = None
        self._press: Callable[[str], None] | None = None
        self._on_close: list[Callable[[], None]] = []
        self._set("palette", P.PALETTE, P.palette_payload(0, [rgb for _, rgb in PALETTE]))
        self._set("brightness", P.BRIGHTNESS, bytes([64]))

    # ---- drawing API (never blocks) ----

    def show_board(self, cells: Mapping[str, str | int]) -> None:
        """Show the whole board: ``{"c4": "suns", ...}``; cells not listed are off."""
        indices = {cell: colour_index(colour) for cell, colour in cells.items()}
        payload = P.board_payload(indices)
        with self._lock:
            self._board_names = {
                P.cell_name(P.cell_index(c)): PALETTE[i][0] for c, i in indices.items()
            }
        self._set("board", P.BOARD, payload)

    def show_laser(
        self, path: Iterable[str], colour: str | int = "laser", step_ms: int = 40
    ) -> None:
        """Draw a laser beam over the board, one more cell every ``step_ms`` (0: at once).

        The beam stays until :meth:`clear_laser`, :meth:`clear` or the next laser.
        """
        self._set("laser", P.LASER, P.laser_payload(list(path), colour_index(colour), step_ms))

    def clear_laser(self) -> None:
        self._set("laser", P.LASER, P.laser_payload([], 0, 0))

    def blink(
        self,
        cells: Iterable[str],
        colour: str | int = "white",
        period_ms: int = 400,
        cycles: int = 3,
    ) -> None:
        """Flash ``cells`` in ``colour``; ``cycles=0`` blinks until :meth:`stop_blink`."""
        payload = P.blink_payload(list(cells), colour_index(colour), period_ms // 2, cycles)
        self._set("blink", P.BLINK, payload)

    def stop_blink(self) -> None:
        self._set("blink", P.BLINK, P.blink_payload([], 0, 100, 0))

    def status(self, player: str | int | None, tile_points: int, die: int) -> None:
        """Status strip: whose turn (a suit or colour; None = nobody), tile points 0-4, die 0-5."""
        colour = 0 if player is None else colour_index(player)
        self._set("status", P.STATUS, P.status_payload(colour, tile_points, die))

    def brightness(self, level: int) -> None:
        """Global brightness 0-255 (default 64: an 80-LED chain at full white draws ~4.8 A)."""
        self._set("brightness", P.BRIGHTNESS, bytes([max(0, min(255, int(level)))]))

    def clear(self) -> None:
        """Everything off: board, laser, blinking and status."""
        with self._lock:
            self._board_names = {}
            token = self._token()
            self._wanted["clear"] = (token, P.CLEAR, b"")
            self._wanted["board"] = (token, P.BOARD, bytes(32))
            self._wanted["status"] = (token, P.STATUS, bytes(3))
            self._wanted["laser"] = (token, P.LASER, bytes(3))
            self._wanted["blink"] = (token, P.BLINK, bytes([0, 1, 0]) + bytes(8))
            self._idle.clear()
        self._kick()

    def wanted_board(self) -> dict[str, str]:
        """The board last asked for, as cell -> palette colour name."""
        with self._lock:
            return dict(self._board_names)

    # ---- events ----

    def get_event(self, timeout: float | None = 0) -> ButtonEvent | None:
        """The next button press, or None (``timeout=0``: do not wait at all)."""
        try:
            if timeout == 0:
                return self._events.get_nowait()
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def events(self) -> list[ButtonEvent]:
        """All button presses received so far and not yet taken."""
        out = []
        while (event := self.get_event()) is not None:
            out.append(event)
        return out

    # ---- lifecycle ----

    @property
    def connected(self) -> bool:
        """True while a display is attached and in sync."""
        return self._synced

    def problem(self, waited: float | None = None) -> str:
        """Why no display is in sync, in words for a person ("" when one is); ``waited``:
        the seconds the caller gave it, said with "no display answered".

        >>> Display(open_transport=None).problem()
        'no display answered'
        """
        if self._synced:
            return ""
        if self.error is not None:
            return self.error
        if self.info is None and self.stats.bytes_received:
            return (
                f"something answers but not in the display protocol "
                f"({self.stats.bytes_received} bytes, {self.stats.rx_errors} bad frames, no "
                "HELLO): another device or baud rate, or no piecebridge firmware on it"
            )
        silent = "no display answered" + ("" if waited is None else f" within {waited:g} s")
        if self._port_error is not None:
            return f"{silent} ({self._port_error})"
        return silent

    def start(self) -> Display:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="display-link", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self._kick()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        while self._on_close:
            self._on_close.pop()()

    # ---- reading back (emulation and simavr only) ----

    def leds(self) -> list[tuple[int, int, int]] | None:
        """The 80 LED colours now shown (matrix a1..h8, then the strip), if readable.

        Available for ``--display sim`` and ``simavr``; None for a real board.
        """
        return self._read_leds() if self._read_leds is not None else None

    def render_text(self) -> str | None:
        """The current picture as ANSI-coloured text (north up), or None for a real board."""
        from piecebridge.display.sim import render_text

        leds = self.leds()
        return None if leds is None else render_text(leds)

    def save_png(self, path: str) -> bool:
        """Draw the current picture to ``path``; False for a real board (cannot read back)."""
        from piecebridge.display.sim import render_png

        leds = self.leds()
        if leds is None:
            return False
        render_png(leds, path)
        return True

    def simulate_press(self, button: str) -> None:
        """Press a button on the emulated or simulated display (tests, keyboard input)."""
        if button not in BUTTON_NAMES:
            raise ValueError(f"unknown button {button!r}; known: {', '.join(BUTTON_NAMES)}")
        if self._press is None:
            raise RuntimeError("only --display sim or simavr can simulate a button press")
        self._press(button)

    def reconnect(self) -> None:
        """Drop the port and open it again (what a USB unplug and replug amounts to)."""
        self._reconnect.set()
        self._kick()

    def __enter__(self) -> Display:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until the display acknowledged the whole wanted picture (tests, CLI)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._synced and self._idle.wait(timeout=0.01) and self._synced:
                with self._lock:
                    if self._pending_channel_locked() is None:
                        return True
            time.sleep(0.005)
        return False

    # ---- internals ----

    def _token(self) -> int:
        self._counter += 1
        return self._counter

    def _set(self, channel: str, ftype: int, payload: bytes) -> None:
        with self._lock:
            self._wanted[channel] = (self._token(), ftype, payload)
            self._idle.clear()
        self._kick()

    def _kick(self) -> None:
        # Wake the worker out of its port read so a new picture goes out at once.
        self._wake.set()
        transport = self._transport
        interrupt = getattr(transport, "interrupt", None)
        if interrupt is not None:
            interrupt()

    def _pending_channel_locked(self) -> str | None:
        def pending(channel: str) -> bool:
            wanted = self._wanted.get(channel)
            return wanted is not None and self._shown.get(channel) != wanted[0]

        for channel in _FIRST:
            if pending(channel):
                return channel
        start = _TAKE_TURNS.index(self._last_sent) + 1 if self._last_sent in _TAKE_TURNS else 0
        for k in range(len(_TAKE_TURNS)):
            channel = _TAKE_TURNS[(start + k) % len(_TAKE_TURNS)]
            if pending(channel):
                return channel
        return None

    def _next_outgoing(self) -> _Outgoing | None:
        with self._lock:
            channel = self._pending_channel_locked()
            if channel is None:
                self._idle.set()
                return None
            token, ftype, payload = self._wanted[channel]
            self._last_sent = channel
        return _Outgoing(channel, token, ftype, payload)

    def _after_clear_ack(self, clear_token: object) -> None:
        # The display blanked everything: channels equal to "blank" need nothing more.
        with self._lock:
            blank = {
                "board": bytes(32),
                "status": bytes(3),
                "laser": bytes(3),
                "blink": bytes([0, 1, 0]) + bytes(8),
            }
            for channel, payload in blank.items():
                wanted = self._wanted.get(channel)
                if wanted is None:
                    continue
                # Set by this clear(), or an empty laser/blink asked for later: both blank.
                same = wanted[0] == clear_token and wanted[2] == payload
                empty_overlay = channel in ("laser", "blink") and not any(wanted[2][3:])
                if same or empty_overlay:
                    self._shown[channel] = wanted[0]

    def _mark_all_unshown(self) -> None:
        with self._lock:
            self._shown.clear()
            # After a reset the display is blank already; a CLEAR is not needed,
            # and an animation is re-sent as its final picture.
            if "clear" in self._wanted:
                self._shown["clear"] = self._wanted["clear"][0]
            laser = self._wanted.get("laser")
            if laser is not None and len(laser[2]) >= 3:
                p = bytearray(laser[2])
                p[1] = 0
                self._wanted["laser"] = (laser[0], P.LASER, bytes(p))
            blink = self._wanted.get("blink")
            if blink is not None and blink[2][2] != 0:  # finite blinking is over by now
                self._wanted["blink"] = (blink[0], P.BLINK, bytes([0, 1, 0]) + bytes(8))
            self._idle.clear()

    # The worker: one session per opened transport, reopened until close().

    def _run(self) -> None:
        while not self._stop.is_set():
            transport = None
            try:
                if self._open_transport is None:
                    return
                transport = self._open_transport()
                transport.open()
                self._transport = transport
                _Session(self, transport).run()
            except Exception as error:  # a port vanishing raises many kinds of errors
                log.info("display link: %s", error)
                self._port_error = str(error) or type(error).__name__
            finally:
                self._synced = False
                self._transport = None
                if transport is not None:
                    with contextlib.suppress(Exception):
                        transport.close()
            if not self._stop.is_set():
                self.stats.reconnects += 1
                self._stop.wait(0.3)

    def _deliver(self, event: ButtonEvent) -> None:
        self._events.put(event)
        callback = self.on_button
        if callback is not None:
            try:
                callback(event)
            except Exception:
                log.exception("display on_button callback failed")


class _Session:
    """One opened port: handshake, then keep the display in sync until the link dies."""

    def __init__(self, display: Display, transport: Transport) -> None:
        self.d = display
        self.t = transport
        self.reader = P.FrameReader()
        self.seq = 0
        self.out: _Outgoing | None = None
        # Every SYNC sent on this port: on a slow line (or a simulation
        # slower than the clock) a reply can come after the next SYNC went out, and any of
        # them answers it; waiting for the newest alone could re-send forever.
        self.sync_seqs: set[int] = set()
        self.sync_sent = 0.0
        self.sync_every = SYNC_RESEND_S
        self.opened = time.monotonic()
        self.last_rx = self.opened
        self.last_tx = self.opened
        self.event_ack: int | None = None  # BUTTON seq to acknowledge when the link is free
        self.saw_hello = False

    def next_seq(self) -> int:
        self.seq = self.seq % 255 + 1  # 1..255; 0 marks unsequenced frames
        return self.seq

    def send(self, ftype: int, seq: int, payload: bytes = b"") -> None:
        data = P.encode_frame(ftype, seq, payload)
        self.t.write(data)
        stats = self.d.stats
        stats.frames_sent += 1
        stats.bytes_sent += len(data)
        stats.bytes_by_type[ftype] = stats.bytes_by_type.get(ftype, 0) + len(data)
        self.last_tx = time.monotonic()

    def send_sync(self) -> None:
        seq = self.next_seq()
        self.sync_seqs.add(seq)
        self.sync_sent = time.monotonic()
        self.event_ack = None  # SYNC tells the display the last event we got
        self.send(P.SYNC, seq, bytes([self.d._last_event_seq]))

    def resend_sync(self) -> None:
        """No reply yet: ask again, each time waiting twice as long (up to SYNC_RESEND_MAX_S)."""
        self.sync_every = min(2 * self.sync_every, SYNC_RESEND_MAX_S)
        self.send_sync()

    def run(self) -> None:
        d = self.d
        while not d._stop.is_set():
            if d._reconnect.is_set():
                d._reconnect.clear()
                raise ConnectionError("reconnect requested")
            data = self.t.read()
            now = time.monotonic()
            if data:
                d.stats.bytes_received += len(data)
                for frame in self.reader.feed(data):
                    self.last_rx = now
                    self.handle(frame, now)
            d.stats.rx_errors = self.reader.errors
            if now - self.last_rx > d.dead_after:
                raise ConnectionError("display silent: reconnecting")
            if not d._synced:
                # A freshly opened Uno is in its bootloader: wait for its HELLO, but
                # ask ourselves if none comes (no auto-reset, or the HELLO was lost).
                waited = now - self.opened
                if (self.saw_hello or waited > d.hello_wait) and (
                    now - self.sync_sent > self.sync_every
                ):
                    if self.sync_seqs:
                        self.resend_sync()
                    else:
                        self.send_sync()
                continue
            self.pump(now)

    def pump(self, now: float) -> None:
        d = self.d
        if self.out is not None and now - self.out.sent_at > d.ack_timeout:
            self.retransmit(now)
        if self.out is None and self.event_ack is not None:
            # Events first: the display holds back its next press until this one is acked.
            payload = bytes([self.event_ack])
            self.event_ack = None
            self.out = _Outgoing(None, None, P.EVENT_ACK, payload, self.next_seq())
            self.transmit(now)
        if self.out is None:
            self.out = d._next_outgoing()
            if self.out is not None:
                self.out.seq = self.next_seq()
                self.transmit(now)
            elif now - self.last_tx > d.ping_every:
                self.out = _Outgoing(None, None, P.PING, b"", self.next_seq())
                self.transmit(now)

    def transmit(self, now: float) -> None:
        assert self.out is not None
        self.out.sent_at = now
        self.out.tries += 1
        self.send(self.out.ftype, self.out.seq, self.out.payload)

    def retransmit(self, now: float) -> None:
        assert self.out is not None
        if self.out.tries >= self.d.max_tries:
            raise ConnectionError("display does not acknowledge: reconnecting")
        self.d.stats.retransmits += 1
        self.transmit(now)

    def handle(self, frame: P.Frame, now: float) -> None:
        d = self.d
        if frame.type == P.HELLO:
            try:
                hello = P.Hello.parse(frame.payload)
            except P.FrameError:
                # Another protocol's HELLO may have another length; its first byte is
                # the protocol in every version so far.
                proto = frame.payload[0] if frame.payload else "?"
                if proto == P.PROTO_VERSION:
                    self.refuse(f"the display sent a HELLO of {len(frame.payload)} bytes "
                                f"(protocol {P.PROTO_VERSION} has 8)")  # fmt: skip
                else:
                    self.refuse(f"the display firmware speaks protocol {proto}")
                return
            if hello.proto != P.PROTO_VERSION:
                d.info = hello
                self.refuse(f"display firmware {hello.fw_version} speaks protocol {hello.proto}")
                return
            if hello.reply and hello.echo_seq in self.sync_seqs:
                # The reply to a second SYNC that was in flight lands here too: everything
                # is sent again, a few frames more, never a picture the display lacks.
                self.sync_every = SYNC_RESEND_S
                d.info = hello
                d.error = None
                d._mark_all_unshown()
                self.out = None
                d._synced = True
                d._port_error = None  # a later silence is not explained by an old failure
                d._wake.set()
            elif not hello.reply:
                # The display (re)booted: everything it showed is gone.
                if d._synced:
                    d.stats.resyncs += 1
                d._synced = False
                self.saw_hello = True
                self.out = None
                self.sync_every = SYNC_RESEND_S
                self.send_sync()
        elif frame.type == P.ACK and frame.payload and self.out is not None:
            if frame.payload[0] == self.out.seq:
                self.acknowledged(self.out)
                self.out = None
                self.pump(now)
        elif frame.type == P.NACK and len(frame.payload) == 2:
            d.stats.nacks += 1
            seq, reason = frame.payload
            if reason == P.NACK_NOT_SYNCED:
                d._synced = False
                self.out = None
                self.send_sync()
            elif self.out is not None and reason == P.NACK_FRAME and now - self.out.sent_at > 0.002:
                self.retransmit(now)
            elif self.out is not None and seq == self.out.seq:
                # The display rejected our own frame: a bug here, not the line. Drop it.
                log.error("display rejected frame type %#x (reason %d)", self.out.ftype, reason)
                self.acknowledged(self.out)
                self.out = None
        elif frame.type == P.HEARTBEAT:
            with contextlib.suppress(P.FrameError):
                d.heartbeat = P.Heartbeat.parse(frame.payload)
        elif frame.type == P.BUTTON and len(frame.payload) == 1 and d._synced:
            # The display re-sends a press until acknowledged and numbers the next one
            # only after that: a seq equal to the last one is a copy of a press we have.
            if frame.seq != d._last_event_seq and frame.payload[0] < len(BUTTON_NAMES):
                d._last_event_seq = frame.seq
                d._deliver(ButtonEvent(BUTTON_NAMES[frame.payload[0]], time.time()))
            # Acknowledge (again, for a copy: our EVENT_ACK may be lost) as a command of its
            # own, after the frame in flight: never two host frames on the wire at once.
            out = self.out
            if out is not None and out.ftype == P.EVENT_ACK and out.payload[0] == frame.seq:
                # A copy while our EVENT_ACK for it is out: that (or its ACK) was lost,
                # unless they just crossed. Re-send now rather than after ack_timeout:
                # the display sends no other press until this one is acknowledged.
                if now - out.sent_at > _CROSSING:
                    self.retransmit(now)
            else:
                self.event_ack = frame.seq
            self.pump(now)

    def refuse(self, what: str) -> None:
        """Another protocol (an old firmware): do not sync, or events would be
        acknowledged in a way it does not understand. The display must be reflashed."""
        d = self.d
        if d.error is None:
            d.error = (
                f"{what}, this host {P.PROTO_VERSION}: flash firmware/piecebridge_display "
                "(see firmware/README.md, 'Build and flash')"
            )
            log.error("display link: %s", d.error)
        d._synced = False
        self.saw_hello = False
        self.sync_sent = float("inf")  # never SYNC this session

    def acknowledged(self, out: _Outgoing) -> None:
        d = self.d
        if out.channel is None:
            return
        with d._lock:
            d._shown[out.channel] = out.token
        if out.channel == "clear":
            d._after_clear_ack(out.token)
