"""The link on a bad line, through the real firmware in simavr.

Faults are injected by the harness on the wire itself (both directions), resets and
port reopening are done to the simulated MCU and pty, and the UART overrun of a real
ATmega328P (2 bytes kept while interrupts are off for the LEDs) is modelled.
"""

from __future__ import annotations

import random
import time

import pytest
import serial

from piecebridge.display import Display, EmulatedDisplay, SerialTransport, SimTransport, simavr
from piecebridge.display import protocol as P

pytestmark = pytest.mark.firmware
COLOURS = ["suns", "moons", "crowns", "arms", "white", "amber", "laser", "off"]


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    simavr.require_or_skip()
    simavr.build_firmware("uno", "sim")


@pytest.fixture
def board():
    with simavr.SimavrBoard(boot_ms=300) as b:
        yield b


def random_board(rng: random.Random) -> dict[str, str]:
    cells = rng.sample([P.cell_name(i) for i in range(64)], 12)
    return {c: rng.choice(COLOURS) for c in cells}


def matrix_for(cells: dict[str, str]) -> tuple:
    device = EmulatedDisplay(clock=lambda: 0.0)
    display = Display(lambda: SimTransport(device))
    display.show_board(cells)
    display.start()
    assert display.wait_idle(3.0)
    display.close()
    return tuple(device.led_rgb()[:64])


def test_corrupted_dropped_duplicated_bytes_never_show_a_wrong_picture(board):
    rng = random.Random(7)
    boards = [random_board(rng) for _ in range(16)]
    allowed = {tuple([(0, 0, 0)] * 64)} | {matrix_for(b) for b in boards}
    display = Display(lambda: SerialTransport(board.pty), ack_timeout=0.1).start()
    try:
        assert display.wait_idle(5.0)
        # 0.5 % of bytes dropped, 0.5 % bit-flipped, 0.5 % doubled, both directions: about
        # one frame in three is damaged.
        board.fault(5000, 5000, 5000, seed=11)
        for cells in boards:
            display.show_board(cells)
            assert display.wait_idle(10.0), f"stuck: {display.stats}"
        board.fault(0, 0, 0)
        stats = board.stats()
        final = board.wait_frame(lambda f: f.rgb[:64] == matrix_for(boards[-1]), 5.0)
    finally:
        display.close()
    assert stats["dropped"] + stats["corrupted"] + stats["duplicated"] > 0, "no fault happened"
    assert display.stats.retransmits + display.stats.nacks > 0
    assert final is not None, "the last board never showed"
    shown = [f.rgb[:64] for f in board.frames]
    wrong = [i for i, m in enumerate(shown) if m not in allowed]
    assert not wrong, f"{len(wrong)} LED frames showed a picture nobody asked for"


def test_mcu_reset_mid_session_resyncs_within_two_seconds(board):
    cells = {"c3": "crowns", "f6": "arms"}
    display = Display(lambda: SerialTransport(board.pty)).start()
    try:
        display.show_board(cells)
        display.status("arms", 2, 4)
        assert display.wait_idle(5.0)
        mark = board.wait_index(lambda f: any(f.cell("f6")) and any(f.rgb[64]), 5.0)
        before = board.frames[mark]
        t0 = time.monotonic()
        reset = board.reset(hold_ms=500)  # external reset: the bootloader waits ~0.5 s
        blank = board.wait_index(lambda f: not any(f.cell("c3")), 5.0, mark)
        assert blank is not None, "the reset did not blank the LEDs"
        restored = board.wait_frame(lambda f: f.rgb == before.rgb, 5.0, blank)
        wall = time.monotonic() - t0
    finally:
        display.close()
    assert restored is not None, "display state was not re-sent after the reset"
    # On a real board: the bootloader's 0.5 s (the harness waits it out on the clock, the
    # simulation stopped), then the boot and the handshake. Those count in simulated time,
    # which runs at most at real time, waiting for the host too. (Usually 0.55-0.75 wall
    # seconds, 0.04-0.06 of them simulated; a busy host once stretched it to 2.2.)
    # (simavr's cycle counter runs on through a reset; one that restarted would fake a 0)
    assert restored.cycle > int(reset["cycle"])
    took = 0.5 + (restored.cycle - int(reset["cycle"])) / simavr.F_CPU
    assert took < 2.0, f"resync took {took:.2f} s ({wall:.2f} s on the wall clock)"
    assert display.stats.resyncs >= 1  # on the display's boot HELLO, not a timeout


def test_port_closed_and_reopened_restores_the_display(board):
    display = Display(lambda: SerialTransport(board.pty)).start()
    try:
        display.show_board({"e4": "suns"})
        assert display.wait_idle(5.0)
        before = board.wait_frame(lambda f: any(f.cell("e4")), 5.0)
        mark = len(board.log)
        display.reconnect()  # the host side goes away and comes back, like a replug
        time.sleep(0.1)
        display.show_board({"e4": "suns", "e5": "moons"})  # the game goes on meanwhile
        assert display.wait_idle(5.0)
        after = board.wait_frame(lambda f: any(f.cell("e5")), 5.0)
    finally:
        display.close()
    events = [m["ev"] for m in board.log[mark:]]
    assert "close" in events and "open" in events and "reset" in events, events
    assert after is not None and after.cell("e4") == before.cell("e4")
    assert display.stats.reconnects >= 1


def test_uart_overrun_is_modelled_and_the_ack_paced_link_survives_it(board):
    # A host that streams frames without waiting loses bytes while the LEDs are sent...
    port = serial.Serial(board.pty, 115200, timeout=0.05)
    try:
        reader = P.FrameReader()
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and not any(
            f.type == P.HELLO for f in reader.feed(port.read(64))
        ):
            pass
        port.write(P.encode_frame(P.SYNC, 1))
        port.write(P.encode_frame(P.LASER, 2, P.laser_payload(["a1"] * 100, 13, step_ms=4)))
        time.sleep(0.1)
        port.write(b"".join(P.encode_frame(P.PING, 3 + i) for i in range(40)))
        # Time for all 41 frames to be fed and answered, in simulated time (a wall-clock
        # pause on a slowed simulation would read too few ACKs whatever the model did).
        assert board.wait_ms(300)
        acks = [f for f in reader.feed(port.read(4096)) if f.type == P.ACK]
    finally:
        port.close()
    overruns = board.stats()["overrun"]
    assert overruns > 0, "no byte was lost to overrun: the model is not working"
    assert len(acks) < 41, "every streamed frame got through despite the overrun"  # 1 + 40

    # ... while the ACK-paced link keeps a 250-frames-per-second animation and still wins.
    display = Display(lambda: SerialTransport(board.pty)).start()
    try:
        display.show_laser([P.cell_name(i % 64) for i in range(100)], step_ms=4)
        rng = random.Random(3)
        boards = [random_board(rng) for _ in range(8)]
        for cells in boards:
            display.show_board(cells)
            assert display.wait_idle(10.0)
        display.clear_laser()
        assert display.wait_idle(5.0)
        final = board.wait_frame(lambda f: f.rgb[:64] == matrix_for(boards[-1]), 5.0)
    finally:
        display.close()
    assert final is not None, "the last board never showed"


def test_random_frames_and_garbage_do_not_wedge_the_real_firmware(board):
    # The host-compiled fuzzer covers millions of frames; this sends a few thousand
    # through the AVR build itself (8-bit ints, real stack) and checks it still works.
    rng = random.Random(5)
    types = [P.SYNC, P.PING, P.PALETTE, P.BOARD, P.LASER, P.BLINK, P.STATUS, P.BRIGHTNESS,
             P.CLEAR, P.EVENT_ACK, 0x00, 0x7F, 0xFF]  # fmt: skip
    chunks = []
    for _ in range(250):
        if rng.random() < 0.3:
            chunks.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))))
        else:
            payload = bytes(rng.randrange(256) for _ in range(rng.randrange(0, P.MAX_PAYLOAD)))
            chunks.append(P.encode_frame(rng.choice(types), rng.randrange(256), payload))
    port = serial.Serial(board.pty, 115200, timeout=0.05)
    try:
        # Past the bootloader pause that opening the port began (bytes sent in it vanish).
        assert board.wait_log(lambda m: m.get("ev") == "reset", 5.0) is not None
        data = b"".join(chunks)
        rx_before = board.stats()["rx"]
        # Keep the port open until the harness has fed it all to the UART: 115200 baud in
        # simulated time (a busy host runs the simulation at a quarter of real time).
        deadline = board.cycle() + 3 * len(data) * simavr.BYTE_CYCLES
        port.write(data)
        while (fed := board.stats()["rx"] - rx_before) < len(data) and board.cycle() < deadline:
            time.sleep(0.1)
    finally:
        port.close()
    assert fed >= len(data), f"only {fed} of {len(data)} bytes reached the UART"
    display = Display(lambda: SerialTransport(board.pty)).start()
    try:
        display.show_board({"b7": "crowns"})
        assert display.wait_idle(10.0), "the firmware no longer answers"
        frame = board.wait_frame(lambda f: any(f.cell("b7")), 5.0)
    finally:
        display.close()
    assert frame is not None and frame.bad_timing == 0
    assert not [m for m in board.log if m.get("ev") == "halt"], "the simulated MCU crashed"


def test_usb_unplug_and_replug_does_not_lose_the_game(tmp_path):
    link = tmp_path / "ttyACM0"  # like a udev symlink: the pty behind it changes
    with simavr.SimavrBoard(boot_ms=300, link=link) as board:
        display = Display(lambda: SerialTransport(str(link))).start()
        try:
            display.show_board({"d1": "suns"})
            assert display.wait_idle(5.0)
            board.unplug(600)
            t0 = time.perf_counter()
            display.show_board({"d1": "suns", "d2": "crowns"})  # the referee carries on
            display.status("crowns", 3, 1)
            assert time.perf_counter() - t0 < 0.05, "drawing blocked while unplugged"
            # The host notices (well before the replug at 600 ms, whatever its scheduling).
            while display.connected and time.perf_counter() - t0 < 0.5:
                time.sleep(0.005)
            assert not display.connected
            assert display.wait_idle(8.0), "never came back after the replug"
            frame = board.wait_frame(lambda f: any(f.cell("d2")) and any(f.rgb[64]), 5.0)
        finally:
            display.close()
    events = [m["ev"] for m in board.log]
    assert "unplug" in events and "replug" in events  # the kernel may reuse the pts number
    assert frame is not None and any(frame.cell("d1"))
    assert display.stats.reconnects >= 1
