"""``piecebridge display demo|test`` on the emulation."""

from __future__ import annotations

import json
import time

import cv2

from piecebridge.cli import main


def test_display_test_reports_and_draws_a_png(tmp_path, capsys):
    out = tmp_path / "pattern.png"
    code = main(["display", "test", "--display", "sim", "--json", "--quiet", "--png", str(out)])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["acknowledged"] is True and report["leds"] == 80
    assert report["bytes_sent"] < 200
    img = cv2.imread(str(out))
    assert img is not None
    # Row 1 is suns (red) in the bottom matrix row, row 8 cyan at the top.
    bottom = img[24 + 7 * 48 + 24, 24 + 24]
    top = img[24 + 24, 24 + 24]
    assert bottom[2] > 200 and bottom[0] < 60  # BGR: red
    assert top[0] > 200 and top[1] > 200 and top[2] < 60  # cyan


def test_display_demo_runs_on_the_emulation(tmp_path, capsys):
    out = tmp_path / "demo.png"
    assert main(["display", "demo", "--display", "sim", "--delay", "0", "--png", str(out)]) == 0
    err = capsys.readouterr().err
    assert "suns fire north from a1" in err and out.exists()


def test_no_board_on_the_port_is_a_clear_error(tmp_path, capsys):
    missing = tmp_path / "ttyACM9"
    code = main(["display", "test", "--port", str(missing), "--timeout", "0.5"])
    assert code == 1
    assert "no display answered" in capsys.readouterr().err


def test_a_display_on_another_protocol_is_named_not_missing(monkeypatch, capsys):
    from piecebridge.commands import display as command
    from piecebridge.display import Display, EmulatedDisplay, SimTransport
    from piecebridge.display import protocol as P

    class OldFirmware(EmulatedDisplay):
        def _send_hello(self, reply: bool, echo: int) -> None:
            payload = bytes([1, 1, 0, P.LED_COUNT & 0xFF, P.LED_COUNT >> 8])
            self._send(P.HELLO, 0, payload + bytes([1 if reply else 0, echo, 0]))

    def old_display(spec):
        return Display(lambda: SimTransport(OldFirmware()), hello_wait=0.2).start()

    monkeypatch.setattr(command, "open_display", old_display)
    started = time.monotonic()
    code = main(["display", "test", "--port", "/dev/ttyFAKE", "--timeout", "5"])
    err = capsys.readouterr().err
    assert code == 1
    assert "display firmware 1.0 speaks protocol 1, this host 2" in err
    assert "no display answered" not in err
    assert time.monotonic() - started < 4.0, "a refusing display is said at once, not at timeout"
