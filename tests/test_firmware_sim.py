"""End to end through the real compiled firmware running in simavr (firmware/sim/pbsim).

Host link (pyserial on the harness pty) -> firmware -> WS2812 waveform decoded from
cycle-accurate edges -> LED colours; harness button pins -> firmware -> host events.
The expected colours come from the Python emulation fed the same commands, so firmware
and ``--display sim`` are also checked against each other.
"""

from __future__ import annotations

import itertools
import time

import pytest

from piecebridge.display import (
    Display,
    EmulatedDisplay,
    SerialTransport,
    SimTransport,
    open_display,
    simavr,
)

pytestmark = pytest.mark.firmware

BOARD = {"a1": "suns", "b2": "moons", "c4": "crowns", "h8": "arms", "e5": "laser"}


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    simavr.require_or_skip()
    simavr.build_firmware("uno", "sim")


@pytest.fixture
def board():
    with simavr.SimavrBoard(boot_ms=300) as b:
        yield b


def connect(board: simavr.SimavrBoard, **options: float) -> Display:
    return Display(lambda: SerialTransport(board.pty), **options).start()


def expected_leds(setup) -> tuple[tuple[int, int, int], ...]:
    """What the Python emulation shows after the same API calls (animations finished)."""
    device = EmulatedDisplay(clock=lambda: 0.0)
    display = Display(lambda: SimTransport(device))
    setup(display)
    display.start()
    assert display.wait_idle(3.0)
    display.close()
    return tuple(device.led_rgb())


def test_board_update_reaches_the_leds_exactly(board):
    def setup(d: Display) -> None:
        d.show_board(BOARD)
        d.status("crowns", tile_points=3, die=2)

    display = connect(board)
    try:
        setup(display)
        assert display.wait_idle(5.0), "display never acknowledged"
        assert display.info is not None and display.info.led_count == 80
        expected = expected_leds(setup)
        frame = board.wait_frame(lambda f: f.rgb == expected, 5.0)
    finally:
        display.close()
    assert frame is not None, "the board and status strip never showed as emulated"
    assert len(frame.rgb) == 80 and frame.extra_bits == 0
    assert frame.bad_timing == 0, "WS2812 bit timing out of datasheet tolerance"
    assert frame.cell("a1") == (64, 0, 0)  # red at brightness 64/256
    assert frame.cell("d4") == (0, 0, 0)


def test_hello_only_after_the_reset_that_opening_the_port_causes(board):
    opened = time.monotonic()
    display = connect(board)
    try:
        display.show_board({"a1": "white"})
        assert display.wait_idle(5.0)
        took = time.monotonic() - opened
    finally:
        display.close()
    events = [m["ev"] for m in board.log]
    assert events[:2] == ["open", "reset"], events
    assert took >= 0.3, "the host must not be served before the bootloader pause ends"


def test_laser_animates_cell_by_cell_then_stays(board):
    path = ["a2", "a3", "b3", "c3", "c4"]
    display = connect(board)
    try:
        display.show_board({"a1": "suns"})
        assert display.wait_idle(5.0)
        start = board.wait_index(lambda f: any(f.cell("a1")), 5.0) + 1
        display.show_laser(path, colour="laser", step_ms=40)
        assert display.wait_idle(5.0)
        full = board.wait_frame(lambda f: all(any(f.cell(c)) for c in path), 5.0, start)
    finally:
        display.close()
    assert full is not None, "the whole beam never showed"
    lit_counts = [sum(1 for c in path if any(f.cell(c))) for f in board.frames[start:]]
    assert lit_counts[0] == 1, "the first animation frame shows only the first cell"
    assert lit_counts == sorted(lit_counts), "cells appear in order and stay"
    assert set(lit_counts) == {1, 2, 3, 4, 5}
    # 40 ms per step (10 units of 4 ms) in simulated cycles, +- a frame time.
    firsts: dict[int, simavr.LedFrame] = {}
    for f, n in zip(board.frames[start:], lit_counts, strict=True):
        firsts.setdefault(n, f)
    steps = [firsts[n] for n in sorted(firsts)]
    gaps = [b.cycle - a.cycle for a, b in itertools.pairwise(steps)]
    assert all(0.035 * simavr.F_CPU < g < 0.045 * simavr.F_CPU for g in gaps), gaps


def test_blink_toggles_and_stops_after_its_cycles(board):
    white, green = (64, 64, 64), (0, 50, 0)

    def toggles(seen: list) -> int:
        return sum(1 for a, b in itertools.pairwise(seen) if a != b)

    display = connect(board)
    try:
        display.show_board({"d4": "green"})
        assert display.wait_idle(5.0)
        start = board.wait_index(lambda f: f.cell("d4") == green, 5.0) + 1
        display.blink(["d4"], colour="white", period_ms=100, cycles=2)
        assert display.wait_idle(5.0)
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            if toggles([f.cell("d4") for f in board.frames[start:]]) >= 3:
                break
            time.sleep(0.05)
        # It must stay put once its two cycles are over: three more half periods of
        # simulated time (a wall-clock sleep gives a slowed simulation less).
        assert board.wait_ms(150)
    finally:
        display.close()
    seen = [f.cell("d4") for f in board.frames[start:]]
    assert seen[0] == white and seen[-1] == green
    assert toggles(seen) == 3, seen  # white, green, white, green: two cycles then stop


def test_button_press_becomes_a_host_event_once(board):
    display = connect(board)
    try:
        assert display.wait_idle(5.0)
        got = []
        for name in ("north", "end_turn", "west"):
            board.press(name, hold_ms=60)
            event = display.get_event(timeout=3.0)
            got.append(event.button if event else None)
        # A BUTTON the display re-sends (every 100 simulated ms until acknowledged) must
        # not become a second event: give it the time of a re-send, in simulated time.
        assert board.wait_ms(150)
        time.sleep(0.05)  # and the host the moment to take one that just came
        assert display.events() == []
    finally:
        display.close()
    assert got == ["north", "end_turn", "west"]


def test_one_button_pressed_twice_back_to_back_is_two_events(board):
    # The harness presses a button only once its last press is released and debounced, in
    # simulated time: a caller's wall-clock pause between two presses (the referee's) is
    # too short for a simulation a busy host slows down, and the second press was lost.
    display = connect(board)
    try:
        assert display.wait_idle(5.0)
        first = int(board.press("north", hold_ms=60)["cycle"])
        second = int(board.press("north", hold_ms=60)["cycle"])
        got = [display.get_event(timeout=3.0) for _ in range(2)]
    finally:
        display.close()
    assert [e.button if e else None for e in got] == ["north", "north"]
    assert second - first >= (60 + simavr.DEBOUNCE_MS) * simavr.F_CPU // 1000


def test_bounce_shorter_than_debounce_is_ignored(board):
    display = connect(board)
    try:
        assert display.wait_idle(5.0)
        board.press("south", hold_ms=8)  # < 20 ms debounce
        # Long enough in simulated time for a press to be debounced, sent and taken.
        assert board.wait_ms(100)
        assert display.get_event(timeout=0.1) is None
    finally:
        display.close()


def test_open_display_simavr_runs_the_real_firmware():
    with open_display("simavr") as display:
        display.show_board({"g7": "crowns"})
        assert display.wait_idle(10.0)
        board = display.simavr_board
        assert board.wait_frame(lambda f: any(f.cell("g7")), 5.0) is not None
        display.simulate_press("east")
        event = display.get_event(timeout=3.0)
    assert event is not None and event.button == "east"


def test_the_harness_reports_a_cycle_when_the_clock_reaches_it(board):
    # `at` replaces asking the clock every few ms: one event, at or just past the cycle.
    now = board.cycle()
    ms = simavr.F_CPU // 1000
    assert board.wait_cycle(now + 20 * ms, timeout=10.0)
    reached = next(m for m in reversed(board.log) if m.get("ev") == "reached")
    assert reached["at"] == now + 20 * ms
    assert now + 20 * ms <= reached["cycle"] < now + 21 * ms
    assert board.wait_cycle(now, timeout=1.0)  # a cycle already passed answers at once
