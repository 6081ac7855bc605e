"""Run the real display firmware in simavr (``firmware/sim/pbsim``) from Python.

Used by the firmware tests, the benchmarks and ``piecebridge display demo --display
simavr``. :func:`build_firmware` makes the sketch and the harness under
``firmware/build*/``; :class:`SimavrBoard` starts the harness, exposes its pty (open it
with :class:`~piecebridge.display.serial_port.SerialTransport` like a real port) and
collects what it reports: decoded LED frames with their latch cycle, resets, pty
open/close.

>>> toolchain_missing() is None or isinstance(toolchain_missing(), str)
True
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"
ELF = FIRMWARE_DIR / "build-uno" / "piecebridge_display.elf"
PBSIM = FIRMWARE_DIR / "build-sim" / "pbsim"
FUZZER = FIRMWARE_DIR / "build-host" / "fuzz_parser"
F_CPU = 16_000_000
BYTE_CYCLES = 1389  # one byte (10 bits) at 115200 baud, as the harness feeds the UART
DEBOUNCE_MS = 20  # the firmware's button debounce, in simulated ms
_build_lock = threading.Lock()


def toolchain_missing() -> str | None:
    """None when the firmware can be built and simulated here, else what is missing."""
    needs = {
        "avr-gcc (gcc-avr)": shutil.which("avr-gcc"),
        "make": shutil.which("make"),
        "gcc": shutil.which("gcc"),
        "arduino-mk": Path("/usr/share/arduino/Arduino.mk").exists(),
        "arduino-core-avr": Path("/usr/share/arduino/hardware/arduino/avr/cores/arduino").exists(),
        "libsimavr-dev": Path("/usr/include/simavr/sim_avr.h").exists(),
        "libelf-dev": Path("/usr/include/libelf.h").exists()
        or Path("/usr/include/gelf.h").exists(),
    }
    missing = [name for name, ok in needs.items() if not ok]
    if not FIRMWARE_DIR.is_dir():
        missing.append(f"firmware sources at {FIRMWARE_DIR}")
    return ", ".join(missing) or None


def build_firmware(*targets: str) -> None:
    """``make -C firmware TARGETS`` (default: sketch, harness and fuzz target)."""
    with _build_lock:
        result = subprocess.run(
            ["make", "-C", str(FIRMWARE_DIR), *(targets or ("all",))],
            capture_output=True,
            text=True,
        )
    if result.returncode != 0:
        raise RuntimeError(
            f"firmware build failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        )


@dataclass(frozen=True)
class LedFrame:
    """One latched WS2812 frame: ``cycle`` is the latch moment (line low for 50 us)."""

    start: int
    cycle: int
    rgb: tuple[tuple[int, int, int], ...]
    bad_timing: int
    extra_bits: int

    @property
    def complete(self) -> bool:
        """Whether every LED of the chain was sent (a reset mid-send cuts a frame short)."""
        from piecebridge.display.protocol import LED_COUNT

        return len(self.rgb) == LED_COUNT and self.extra_bits == 0

    def cell(self, name: str) -> tuple[int, int, int]:
        from piecebridge.display.protocol import cell_index

        return self.rgb[cell_index(name)]


class SimavrBoard:
    """The compiled sketch running in simavr, on a pty, with buttons and decoded LEDs.

    >>> # with SimavrBoard() as board: SerialTransport(board.pty) ...; board.press("north")
    """

    def __init__(
        self,
        boot_ms: int = 300,
        speed: float = 1.0,
        reset_on_open: bool = True,
        trace_rx: bool = False,
        link: str | os.PathLike | None = None,
    ) -> None:
        args = [str(PBSIM), str(ELF), "--boot-ms", str(boot_ms), "--speed", str(speed)]
        if link is not None:
            args += ["--link", str(link)]  # a stable name that follows unplug/replug
        if not reset_on_open:
            args.append("--no-reset-on-open")
        if trace_rx:
            args.append("--trace-rx")
        self._proc = subprocess.Popen(
            args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self._cond = threading.Condition()
        self._free_at: dict[int, int] = {}  # button -> cycle its last press is over
        self.frames: list[LedFrame] = []
        self.log: list[dict] = []
        ready = self._read_json(timeout=10.0)
        if ready is None or ready.get("ev") != "ready":
            self.close()
            raise RuntimeError(f"pbsim did not start: {ready}")
        self.pty: str = ready["pty"]
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _read_json(self, timeout: float) -> dict | None:
        assert self._proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self._proc.stdout.readline()
            if not line:
                return None
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                continue
        return None

    def _pump(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            with self._cond:
                if msg.get("ev") == "leds":
                    hexs = msg["rgb"]
                    rgb = tuple(
                        (
                            int(hexs[i : i + 2], 16),
                            int(hexs[i + 2 : i + 4], 16),
                            int(hexs[i + 4 : i + 6], 16),
                        )
                        for i in range(0, len(hexs), 6)
                    )
                    self.frames.append(
                        LedFrame(
                            msg["start"], msg["cycle"], rgb, msg["bad_timing"], msg["extra_bits"]
                        )
                    )
                else:
                    if msg.get("ev") == "replug":
                        self.pty = msg["pty"]
                    self.log.append(msg)
                self._cond.notify_all()

    # ---- control ----

    def command(self, line: str, timeout: float = 5.0) -> dict:
        """Send a harness command; returns its ``ok`` reply (with the cycle it ran at)."""
        with self._cond:
            mark = len(self.log)
        assert self._proc.stdin is not None
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        name = line.split()[0]
        reply = self.wait_log(lambda m: m.get("ev") == "ok" and m.get("cmd") == name, timeout, mark)
        if reply is None:
            raise TimeoutError(f"pbsim did not answer {line!r}")
        return reply

    def press(self, button: int | str, hold_ms: int = 60) -> dict:
        """Hold a button down for ``hold_ms`` simulated ms (the firmware debounces 20 ms)."""
        from piecebridge.display.protocol import BUTTONS

        index = BUTTONS.index(button) if isinstance(button, str) else button
        # A finger cannot press a button it still holds: on a busy host the simulation
        # runs slower than the clock, and a caller's wall-clock pause between two presses
        # of one button may not cover the hold and the release's debounce.
        if index in self._free_at:
            self.wait_cycle(self._free_at[index])
        reply = self.command(f"press {index} {hold_ms}")
        ms = F_CPU // 1000
        self._free_at[index] = int(reply["cycle"]) + (hold_ms + DEBOUNCE_MS + 5) * ms
        return reply

    def reset(self, hold_ms: int = 0) -> dict:
        self._free_at.clear()  # a reset releases every button the harness was holding
        return self.command(f"reset {hold_ms}")

    def unplug(self, ms: int) -> dict:
        """Pull the USB cable for ``ms`` wall ms: the pty vanishes, then a new one appears."""
        return self.command(f"unplug {ms}")

    def fault(
        self, drop_ppm: int = 0, corrupt_ppm: int = 0, dup_ppm: int = 0, seed: int = 1
    ) -> None:
        self.command(f"fault {drop_ppm} {corrupt_ppm} {dup_ppm} {seed}")

    def cycle(self) -> int:
        return int(self.command("cycle")["cycle"])

    def stats(self) -> dict:
        with self._cond:
            mark = len(self.log)
        self.command("stats")
        with self._cond:
            return next(m for m in self.log[mark:] if m.get("ev") == "stats")

    # ---- waiting ----

    def wait_cycle(self, cycle: int, timeout: float = 60.0) -> bool:
        """Wait until the simulated clock reaches ``cycle``: a deadline in simulated time.

        The simulation runs at most at real time and slower on a busy host, so "the
        firmware had 0.3 s" is a wait on its clock, not a wall-clock sleep. ``timeout``
        (wall seconds) only guards against a harness that stopped.
        """
        with self._cond:
            mark = len(self.log)
        self.command(f"at {cycle}")  # the harness reports the moment: no polling
        reached = self.wait_log(
            lambda m: m.get("ev") == "reached" and m.get("at") == cycle, timeout, mark
        )
        return reached is not None

    def wait_ms(self, ms: float, timeout: float = 60.0) -> bool:
        """Let ``ms`` simulated milliseconds pass from now (see :meth:`wait_cycle`)."""
        return self.wait_cycle(self.cycle() + int(ms * F_CPU / 1000), timeout)

    def wait_log(self, pred, timeout: float = 5.0, start: int = 0) -> dict | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for msg in self.log[start:]:
                    if pred(msg):
                        return msg
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def wait_index(self, pred, timeout: float = 5.0, start: int = 0) -> int | None:
        """Index of the first decoded LED frame (from ``start``) that satisfies ``pred``.

        Wait for the picture rather than trusting the ACK: the harness reports a latch
        a little after the firmware's ACK may already have reached the host. Frames cut
        short (an MCU reset in the middle of a send) are kept in ``frames`` but never
        offered to ``pred``: it always sees a whole chain.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i in range(start, len(self.frames)):
                    if self.frames[i].complete and pred(self.frames[i]):
                        return i
                start = max(start, len(self.frames))
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def wait_frame(self, pred, timeout: float = 5.0, start: int = 0) -> LedFrame | None:
        """The first decoded LED frame (from index ``start``) that satisfies ``pred``."""
        i = self.wait_index(pred, timeout, start)
        return None if i is None else self.frames[i]

    def frame_count(self) -> int:
        with self._cond:
            return len(self.frames)

    def last_frame(self) -> LedFrame | None:
        with self._cond:
            return self.frames[-1] if self.frames else None

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.write("quit\n")
                self._proc.stdin.flush()
                self._proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> SimavrBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def require_or_skip() -> None:
    """In tests: skip when the toolchain is missing, unless PIECEBRIDGE_REQUIRE_FIRMWARE is set."""
    import pytest

    missing = toolchain_missing()
    if missing:
        if os.environ.get("PIECEBRIDGE_REQUIRE_FIRMWARE"):
            pytest.fail(f"firmware toolchain missing: {missing}")
        pytest.skip(f"firmware toolchain missing: {missing}")
