"""The host link against the in-process emulation (same protocol as the firmware)."""

from __future__ import annotations

import random
import threading
import time

import pytest

from piecebridge.display import (
    Display,
    EmulatedDisplay,
    SimTransport,
    colour_index,
    open_display,
    reflec_cells,
)
from piecebridge.display import protocol as P

SUIT = {"suns": "red", "arms": "blue"}


class FaultyTransport(SimTransport):
    """The emulation behind a line that drops, flips and doubles bytes."""

    def __init__(self, device: EmulatedDisplay, rate: float, seed: int) -> None:
        super().__init__(device)
        self.rng = random.Random(seed)
        self.rate = rate
        self.faults = 0

    def _mangle(self, data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            roll = self.rng.random()
            if roll < self.rate:
                self.faults += 1
                continue
            if roll < 2 * self.rate:
                self.faults += 1
                byte ^= 1 << self.rng.randrange(8)
            out.append(byte)
            if self.rng.random() < self.rate:
                self.faults += 1
                out.append(byte)
        return bytes(out)

    def read(self) -> bytes:
        return self._mangle(super().read())

    def write(self, data: bytes) -> None:
        super().write(self._mangle(data))


def start(
    device: EmulatedDisplay | None = None, **options: float
) -> tuple[Display, EmulatedDisplay]:
    device = device or EmulatedDisplay()
    return Display(lambda: SimTransport(device), **options).start(), device


def cell_rgb(device: EmulatedDisplay, cell: str) -> tuple[int, int, int]:
    return device.led_rgb()[P.cell_index(cell)]


def scaled(name: str, level: int = 64) -> tuple[int, int, int]:
    from piecebridge.display import PALETTE

    r, g, b = PALETTE[colour_index(name)][1]
    return ((r * (level + 1)) >> 8, (g * (level + 1)) >> 8, (b * (level + 1)) >> 8)


def test_board_status_and_brightness_reach_the_device():
    display, device = start()
    try:
        display.show_board({"a1": "suns", "c4": "crowns"})
        display.status("arms", tile_points=2, die=5)
        display.brightness(255)
        assert display.wait_idle(3.0)
        leds = device.led_rgb()
    finally:
        display.close()
    assert leds[P.cell_index("a1")] == scaled("red", 255)
    assert leds[P.cell_index("c4")] == scaled("green", 255)
    assert leds[P.cell_index("d4")] == (0, 0, 0)
    strip = leds[64:]
    assert strip[:4] == [scaled("blue", 255)] * 4
    assert sum(1 for c in strip[4:8] if any(c)) == 2
    assert sum(1 for c in strip[8:13] if any(c)) == 5


def test_clear_then_draw_keeps_the_order_of_calls():
    display, device = start()
    try:
        display.show_board({"a1": "suns"})
        display.show_laser(["b1", "c1"], step_ms=0)
        display.clear()
        display.show_board({"h8": "arms"})
        assert display.wait_idle(3.0)
    finally:
        display.close()
    assert cell_rgb(device, "a1") == (0, 0, 0)
    assert cell_rgb(device, "b1") == (0, 0, 0)
    assert cell_rgb(device, "h8") == scaled("blue")


def test_calls_never_block_even_with_a_dead_port():
    hang = threading.Event()

    class Dead:
        def open(self) -> None:
            hang.wait(5)
            raise ConnectionError("gone")

    display = Display(lambda: Dead()).start()
    try:
        t0 = time.perf_counter()
        for i in range(200):
            display.show_board({P.cell_name(i % 64): "suns"})
            display.status("suns", i % 5, i % 6)
        display.show_laser(["a1", "a2"])
        display.blink(["a1"])
        assert display.get_event() is None
        took = time.perf_counter() - t0
    finally:
        hang.set()
        display.close()
    assert took < 0.2
    assert not display.connected


def test_rapid_updates_coalesce_and_the_last_one_wins():
    display, device = start()
    try:
        assert display.wait_idle(3.0)
        sent_before = display.stats.frames_sent
        for i in range(300):
            display.show_board({P.cell_name(i % 64): "amber"})
        assert display.wait_idle(3.0)
        sent = display.stats.frames_sent - sent_before
    finally:
        display.close()
    assert cell_rgb(device, P.cell_name(299 % 64)) == scaled("amber")
    assert sum(1 for c in device.led_rgb()[:64] if any(c)) == 1
    assert sent < 300


def test_button_presses_arrive_once_through_queue_and_callback():
    display, device = start()
    seen = []
    display.on_button = lambda event: seen.append(event.button)
    try:
        assert display.wait_idle(3.0)
        for name in ("west", "end_turn"):
            device.press(name)
        deadline = time.monotonic() + 3
        while len(seen) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)
        events = display.events()
    finally:
        display.close()
    assert seen == ["west", "end_turn"]
    assert [e.button for e in events] == ["west", "end_turn"]


def test_device_reset_mid_session_restores_everything():
    display, device = start()
    try:
        display.show_board({"e4": "moons"})
        display.status("moons", 1, 1)
        display.show_laser(["e5", "e6"], step_ms=200)
        assert display.wait_idle(3.0)
        device.reset()
        t0 = time.monotonic()
        # The host must first notice the reboot (a loaded machine may take longer than a
        # fixed pause): until then it is idle and in sync with the display it knew.
        while display.stats.resyncs == 0 and time.monotonic() - t0 < 2.0:
            time.sleep(0.005)
        assert display.wait_idle(2.0)
        took = time.monotonic() - t0
        leds = device.led_rgb()
    finally:
        display.close()
    assert took < 2.0
    assert display.stats.resyncs == 1
    assert leds[P.cell_index("e4")] == scaled("lilac")
    # The laser comes back as its finished picture, not re-animated.
    assert leds[P.cell_index("e6")] == scaled("laser")
    assert any(leds[64])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noisy_line_ends_in_the_right_state(seed):
    device = EmulatedDisplay()
    transport = FaultyTransport(device, rate=0.004, seed=seed)
    display = Display(lambda: transport, ack_timeout=0.05).start()
    rng = random.Random(seed)
    try:
        for _ in range(15):
            cells = {P.cell_name(rng.randrange(64)): rng.choice(["suns", "arms", "white"])}
            display.show_board(cells)
            assert display.wait_idle(10.0), display.stats
        leds = device.led_rgb()[:64]
    finally:
        display.close()
    assert transport.faults > 0
    expected = {P.cell_index(c): scaled(SUIT.get(v, v)) for c, v in cells.items()}
    assert {i: c for i, c in enumerate(leds) if any(c)} == expected


def test_unknown_colour_and_cell_raise_at_the_call():
    display = Display(open_transport=None)
    with pytest.raises(ValueError, match="unknown colour"):
        display.show_board({"a1": "chartreuse"})
    with pytest.raises(ValueError, match="Reflec cell"):
        display.show_board({"z9": "suns"})
    with pytest.raises(ValueError):
        display.status("suns", 7, 0)


def test_open_display_falls_back_to_the_emulation():
    with open_display("sim") as display:
        display.show_board({"b2": "crowns"})
        assert display.wait_idle(3.0)
        assert display.info is not None and display.info.led_count == 80
        assert display.sim_device.led_rgb()[P.cell_index("b2")] == scaled("green")


def test_sim_reads_back_draws_and_presses(tmp_path):
    with open_display("sim") as display:
        display.show_board({"a8": "arms"})
        assert display.wait_idle(3.0)
        assert display.leds()[P.cell_index("a8")] == scaled("blue")
        text = display.render_text()
        assert text.splitlines()[0].startswith("8 \x1b[38;2;0;59;255m")  # a8 first on top
        assert display.save_png(tmp_path / "board.png")
        display.simulate_press("end_turn")
        event = display.get_event(timeout=3.0)
        with pytest.raises(ValueError):
            display.simulate_press("up")
    assert event is not None and event.button == "end_turn"
    assert (tmp_path / "board.png").stat().st_size > 1000


def test_a_real_port_cannot_be_read_back():
    display = Display(open_transport=None)
    assert display.leds() is None and display.render_text() is None
    assert display.save_png("unused.png") is False
    with pytest.raises(RuntimeError):
        display.simulate_press("north")


def test_reflec_board_objects_map_to_suit_colours():
    board = {
        "format": "reflec-board/1",
        "coins": [{"cell": "c4", "suit": "crowns", "facing": "east"}],
        "pawns": [{"cell": "h1", "suit": "moons"}],
    }
    with open_display("sim") as display:
        display.show_board(reflec_cells(board))
        assert display.wait_idle(3.0)
        leds = display.leds()
    assert leds[P.cell_index("c4")] == scaled("green")
    assert leds[P.cell_index("h1")] == scaled("lilac")
    assert sum(1 for c in leds[:64] if any(c)) == 2


def test_link_is_ack_paced_one_command_in_flight():
    device = EmulatedDisplay()
    log: list[tuple[str, P.Frame]] = []

    class Spy(SimTransport):
        def __init__(self) -> None:
            super().__init__(device)
            self.host, self.dev = P.FrameReader(), P.FrameReader()

        def write(self, data: bytes) -> None:
            log.extend(("host", f) for f in self.host.feed(data))
            super().write(data)

        def read(self) -> bytes:
            data = super().read()
            log.extend(("dev", f) for f in self.dev.feed(data))
            return data

    display = Display(lambda: Spy()).start()
    try:
        for i in range(20):
            display.show_board({P.cell_name(i): "white"})
            display.status("suns", i % 5, i % 6)
            display.show_laser([P.cell_name(i), P.cell_name(i + 1)], step_ms=0)
            if i % 4 == 0:  # presses while pictures stream: their EVENT_ACKs queue too
                device.press(P.BUTTONS[i % 5])
            time.sleep(0.005)
        assert display.wait_idle(3.0)
        deadline = time.monotonic() + 2.0
        while len(got := display.events()) == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)
        got += display.events()
    finally:
        display.close()
    assert [e.button for e in got] == [P.BUTTONS[i % 5] for i in range(0, 20, 4)]
    assert any(who == "host" and f.type == P.EVENT_ACK and f.seq for who, f in log)
    in_flight = None
    for who, frame in log:
        if who == "host" and frame.seq and frame.type != P.SYNC:
            assert in_flight is None, "a command was sent before the previous one was ACKed"
            in_flight = frame.seq
        elif who == "dev" and frame.type == P.ACK and frame.payload[0] == in_flight:
            in_flight = None
    assert in_flight is None
    assert sum(1 for who, f in log if who == "host" and f.type == P.BOARD) >= 1


def test_boards_are_found_by_usb_vid_pid(monkeypatch):
    from types import SimpleNamespace

    from piecebridge.display import serial_port

    ports = [
        SimpleNamespace(device="/dev/ttyUSB0", vid=0x1A86, pid=0x7523),  # CH340 clone
        SimpleNamespace(device="/dev/ttyS0", vid=None, pid=None),
        SimpleNamespace(device="/dev/ttyACM0", vid=0x2341, pid=0x0043),  # Uno R3
        SimpleNamespace(device="/dev/ttyACM1", vid=0x046D, pid=0xC52B),  # a mouse receiver
    ]
    monkeypatch.setattr(serial_port.list_ports, "comports", lambda: ports)
    assert serial_port.find_ports() == ["/dev/ttyACM0", "/dev/ttyUSB0"]
    monkeypatch.setattr(serial_port.list_ports, "comports", lambda: ports[1:2])
    assert serial_port.find_ports() == []
    with open_display("auto") as display:  # nothing attached: the emulation
        assert hasattr(display, "sim_device")


class NoResetTransport(SimTransport):
    """A board without the auto-reset on open; can lose the host's EVENT_ACKs on the line."""

    def __init__(self, device: EmulatedDisplay) -> None:
        super().__init__(device)
        self.drop_event_acks = False

    def open(self) -> None:
        pass  # the display keeps its session state, its queued press and its event seq

    def write(self, data: bytes) -> None:
        frames = P.FrameReader().feed(data)
        if self.drop_event_acks and any(f.type == P.EVENT_ACK for f in frames):
            return
        super().write(data)


def test_a_press_whose_ack_was_lost_is_not_delivered_again_after_a_resync():
    device = EmulatedDisplay()
    transport = NoResetTransport(device)
    display = Display(lambda: transport, hello_wait=0.2).start()
    try:
        assert display.wait_idle(3.0)
        transport.drop_event_acks = True
        device.press("north")
        first = display.get_event(timeout=2.0)
        time.sleep(0.25)  # the display keeps re-sending it: its EVENT_ACK never arrives
        # A new session: SYNC tells the display which press the host has already got.
        display.reconnect()
        deadline = time.monotonic() + 3.0
        while display.stats.reconnects == 0 or not display.wait_idle(0.1):
            assert time.monotonic() < deadline, "no new session"
        transport.drop_event_acks = False
        time.sleep(0.4)
        again = display.events()
        device.press("east")  # and the next press is new, not taken for a copy
        second = display.get_event(timeout=2.0)
        time.sleep(0.3)
        rest = display.events()
    finally:
        display.close()
    assert first is not None and first.button == "north"
    assert again == []
    assert second is not None and second.button == "east"
    assert rest == []


def test_a_display_speaking_another_protocol_is_left_alone():
    class OldFirmware(EmulatedDisplay):
        def _send_hello(self, reply: bool, echo: int) -> None:
            payload = bytes([1, 1, 0, P.LED_COUNT & 0xFF, P.LED_COUNT >> 8])
            self._send(P.HELLO, 0, payload + bytes([P.HELLO_REPLY if reply else 0, echo, 0]))

    display, device = start(OldFirmware())
    try:
        display.show_board({"a1": "suns"})
        assert not display.wait_idle(1.0)
        # The refusal follows the HELLO, which a loaded machine may read later than that.
        deadline = time.monotonic() + 3.0
        while display.error is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not display.connected
        assert display.error is not None and "protocol 1" in display.error
        assert display.problem() == display.error and "flash" in display.problem()
        assert not device.synced, "the host must not SYNC a firmware it cannot talk to"
    finally:
        display.close()


def test_a_hello_of_another_protocol_and_length_is_named_not_dropped():
    class OlderFirmware(EmulatedDisplay):
        def _send_hello(self, reply: bool, echo: int) -> None:
            self._send(P.HELLO, 0, bytes([1, 0, 9, P.LED_COUNT & 0xFF, P.LED_COUNT >> 8]))

    display, device = start(OlderFirmware(), hello_wait=0.2)
    try:
        deadline = time.monotonic() + 3.0
        while display.error is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not display.connected and not device.synced
        assert display.problem().startswith("the display firmware speaks protocol 1, this host 2")
    finally:
        display.close()


class Chatter(SimTransport):
    """Something on the port that talks, but not in frames (another device, baud rate)."""

    def read(self) -> bytes:
        time.sleep(0.01)
        return bytes(range(40, 120))

    def write(self, data: bytes) -> None:
        pass


def test_a_port_that_talks_without_frames_is_told_apart_from_silence():
    display = Display(lambda: Chatter(EmulatedDisplay())).start()
    try:
        deadline = time.monotonic() + 3.0
        while not display.stats.bytes_received and time.monotonic() < deadline:
            time.sleep(0.01)
        assert display.problem().startswith("something answers but not in the display protocol")
    finally:
        display.close()


class Silence(Chatter):
    def read(self) -> bytes:
        time.sleep(0.01)
        return b""


def test_a_silent_port_is_no_display():
    display = Display(lambda: Silence(EmulatedDisplay()), hello_wait=0.1).start()
    try:
        # Nothing can come back; wait until the link has tried (a loaded machine may be slow).
        deadline = time.monotonic() + 5.0
        while display.stats.frames_sent == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.15)  # past hello_wait since the first try
        assert display.stats.frames_sent > 0 and display.problem() == "no display answered"
    finally:
        display.close()


class SlowLine(SimTransport):
    """The emulation behind a line whose every reply arrives ``delay`` seconds late, longer
    than the host waits before it sends its SYNC again (a busy simulation, a slow bridge)."""

    def __init__(self, device: EmulatedDisplay, delay: float) -> None:
        super().__init__(device)
        self.delay = delay
        self.in_flight: list[tuple[float, bytes]] = []
        self.syncs = 0

    def read(self) -> bytes:
        data = super().read()
        now = time.monotonic()
        if data:
            self.in_flight.append((now + self.delay, data))
        due = [d for t, d in self.in_flight if t <= now]
        self.in_flight = [(t, d) for t, d in self.in_flight if t > now]
        return b"".join(due)

    def write(self, data: bytes) -> None:
        self.syncs += sum(f.type == P.SYNC for f in P.FrameReader().feed(data))
        super().write(data)


def test_a_reply_slower_than_the_sync_resend_still_syncs():
    from piecebridge.display.link import SYNC_RESEND_S

    device = EmulatedDisplay()
    line = SlowLine(device, delay=SYNC_RESEND_S * 1.7)
    display = Display(lambda: line, hello_wait=0.05, ack_timeout=2.0).start()
    try:
        display.show_board({"d4": "suns"})
        assert display.wait_idle(6.0), "never synced: each reply answered an older SYNC"
        assert cell_rgb(device, "d4") == scaled("red")
    finally:
        display.close()
    assert display.stats.resyncs == 0
    assert 2 <= line.syncs <= 4  # it asked again, but backed off instead of flooding
