"""The sketch builds with Debian's arduino-mk, fits the Uno, and its parser survives fuzzing."""

from __future__ import annotations

import json
import re
import subprocess
import time

import pytest

from piecebridge.display import Display, SerialTransport, simavr

pytestmark = pytest.mark.firmware
UNO_FLASH = 32256  # 32 KiB minus the 512-byte optiboot bootloader
UNO_RAM = 2048


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    simavr.require_or_skip()
    simavr.build_firmware()


def avr_size() -> tuple[int, int]:
    out = subprocess.run(
        ["avr-size", "-A", str(simavr.ELF)], capture_output=True, text=True, check=True
    ).stdout
    sections = {m[1]: int(m[2]) for m in re.finditer(r"^(\.\w+)\s+(\d+)", out, re.M)}
    flash = sections[".text"] + sections.get(".data", 0)
    ram = sections.get(".data", 0) + sections.get(".bss", 0) + sections.get(".noinit", 0)
    return flash, ram


def test_sketch_fits_the_uno_with_a_quarter_of_ram_free_statically():
    flash, ram = avr_size()
    assert flash < UNO_FLASH
    assert ram <= 0.75 * UNO_RAM - 256, f"{ram} bytes of static RAM leaves no room for the stack"


def test_ram_never_touched_at_run_time_stays_above_a_quarter():
    # The firmware paints free RAM at boot and reports what was never overwritten
    # (stack high-water mark) in its heartbeat, after real work: board, laser, blink.
    with simavr.SimavrBoard(boot_ms=100) as board:
        display = Display(lambda: SerialTransport(board.pty)).start()
        try:
            display.show_board({"a1": "suns", "h8": "arms"})
            display.show_laser([f"{c}4" for c in "abcdefgh"], step_ms=8)
            display.blink(["a1", "h8"], period_ms=40, cycles=2)
            display.status("moons", 4, 5)
            assert display.wait_idle(5.0)
            board.press("north", hold_ms=40)
            assert display.get_event(timeout=3.0) is not None
            display.heartbeat = None
            # One heartbeat a simulated second: wait up to 2.5 of those, not wall seconds.
            until = board.cycle() + 5 * simavr.F_CPU // 2
            deadline = time.monotonic() + 60.0
            while display.heartbeat is None and time.monotonic() < deadline:
                if board.cycle() > until:
                    break
                time.sleep(0.05)
            beat = display.heartbeat
        finally:
            display.close()
    assert beat is not None and beat.never_used_ram is not None
    assert beat.never_used_ram >= UNO_RAM // 4, f"only {beat.never_used_ram} bytes never used"


def test_parser_fuzz_short_run():
    result = subprocess.run(
        [str(simavr.FUZZER), "50000", "5"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["ok"] and summary["frames"] == 50000
    # A 16-bit CRC passes ~1 in 65536 multi-byte corruptions; more would mean a framing hole
    # (like the zero-append one the fuzzer found before the CRC got its final xor).
    assert summary["mutated_frames"] > 10_000
    assert summary["accepted_mutated"] <= 1 + 4 * summary["mutated_frames"] / 65536
    assert summary["acked"] > 1000 and summary["nacked"] > 1000  # both paths were exercised
