"""End to end: rendered recordings through the real pipeline.

photos -> BoardReader (vision, setup learned from the recording's calibration photo) ->
stable-state tracker -> judge (rules engine) -> display link -> display, with the scripted
button presses going in through the display itself.

* the whole bundled demo on the emulated display (``--display sim``);
* a shorter clip of it on the real firmware in simavr (the crowns' shot, the moons
  eliminated, the last turn), resumed from a log written up to that point: the crash-and-
  resume path with the firmware's own LED frames checked.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import ClassVar

import pytest
import test_referee_judge as truth
from piecebridge.rules import reflec as R

from piecebridge.display import simavr
from piecebridge.display.protocol import cell_index
from piecebridge.referee.gamelog import action_segments
from piecebridge.referee.record_demo import demo_script
from piecebridge.referee.session import SessionOptions, run_session
from piecebridge.referee.sources import RECORDINGS

DEMO = RECORDINGS / "demo"


def expected_actions() -> list[str]:
    return json.loads((DEMO / "recording.json").read_text())["expected"]["actions"]


def is_laser(rgb) -> bool:
    return rgb[0] > 0 and rgb[1] == 0 and 0 < rgb[2] < rgb[0]


def is_white(rgb) -> bool:
    return rgb[0] > 30 and rgb[0] == rgb[1] == rgb[2]


def is_grey(rgb) -> bool:
    return 0 < rgb[0] < 30 and rgb[0] == rgb[1] == rgb[2]


def shots_until(device, done, seconds: float = 5.0) -> list:
    """LED pictures of the emulated display, taken until ``done(pictures)`` (or the time
    is up): the test waits on what the display shows, not on a guess of how long the link
    and the animations take on a loaded machine."""
    shots = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        shots.append(device.led_rgb())
        if done(shots):
            break
        time.sleep(0.02)
    return shots


def test_bundled_recording_through_vision_to_the_sim_display(tmp_path):
    snaps: dict[str, list] = {}

    def observer(referee, events):
        device = referee.display.sim_device
        for e in events:
            if e.kind == "fired" and "fired" not in snaps:
                # the beam is drawn cell by cell, and its last cells blink white (the loop
                # to remove): a picture with the whole beam shows in the blink's off phase
                path = [cell_index(c) for c in e.path]
                shots = shots_until(device, lambda s, p=path: all(is_laser(s[-1][c]) for c in p))
                snaps["fired"] = shots[-1:]
                snaps["path"] = e.path
            if e.kind == "remove" and "remove" not in snaps:
                cells = [cell_index(c) for c in e.cells]
                snaps["remove"] = shots_until(  # blinking: until each cell was seen white
                    device, lambda s, c=cells: all(any(is_white(x[k]) for x in s) for k in c)
                )
                snaps["remove_cells"] = e.cells

    opts = SessionOptions(
        source=str(DEMO),
        display="sim",
        speed=0.0,
        quiet=True,
        log=str(tmp_path / "game.jsonl"),
        png=str(tmp_path / "display.png"),
        observer=observer,
    )
    result = run_session(opts)
    assert action_segments(result.judge.actions) == action_segments(expected_actions())
    assert not [e for e in result.stats.events if e.kind == "flagged"]
    assert result.stats.moved == 0  # the camera never moved
    # the log is a valid record of the game
    states = R.replay((tmp_path / "game.jsonl").read_text().splitlines())
    assert states[-1].board == demo_script().state.board
    # key moments on the LEDs
    assert snaps["path"][-1] == "c3" and len(snaps["path"]) == 12
    fired = snaps["fired"][0]
    assert all(is_laser(fired[cell_index(c)]) for c in snaps["path"])
    assert snaps["remove_cells"] == ["c3", "c5", "e3", "e5"]
    for cell in snaps["remove_cells"]:
        assert any(is_white(s[cell_index(cell)]) for s in snaps["remove"])
    final = result.leds
    assert is_grey(final[cell_index("b4")])  # the eliminated moons' coin is neutral
    assert final[cell_index("b8")] == (0, 0, 0)  # their destroyed laser is off the board
    assert result.png_path is not None and result.png_path.stat().st_size > 1000


class RecordedBoard(simavr.SimavrBoard):
    """The session's simavr board, kept where the test's observer can watch its LEDs."""

    made: ClassVar[list[simavr.SimavrBoard]] = []

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        RecordedBoard.made.append(self)


def firmware_observer(referee, events) -> None:
    """Hold the replay until the firmware has shown the beam whole and blinked the
    pieces to remove: the replay is paced by the clock, the firmware's animation by
    simulated time, which a busy host runs slower (the beam was cleared half drawn)."""
    board = RecordedBoard.made[-1]
    for e in events:
        if e.kind == "fired":
            board.wait_frame(lambda f, p=e.path: all(is_laser(f.cell(c)) for c in p), 10.0)
        if e.kind == "remove":
            for cell in e.cells:
                board.wait_frame(lambda f, c=cell: is_white(f.cell(c)), 10.0)


@pytest.mark.firmware
def test_short_clip_resumed_on_the_firmware_in_simavr(tmp_path, monkeypatch):
    simavr.require_or_skip()
    monkeypatch.setattr(simavr, "SimavrBoard", RecordedBoard)
    script = demo_script()
    # The game up to the moons' end of turn, judged and logged (a crash right after).
    moons_end = [i for i, b in script.presses if b == "end_turn"][2]
    judge, _, log_path, _ = truth.run(script, tmp_path, stop=moons_end + 1)
    assert judge.actions[-1] == "end" and judge.state.current == 2  # crowns to play
    opts = SessionOptions(
        source=str(DEMO),
        display="simavr",
        resume=str(log_path),
        # paced (twice real time), not as fast as possible: the firmware animates the
        # beam cell by cell, and an unpaced replay clears it before the last cell is lit
        speed=2.0,
        quiet=True,
        png=None,
        observer=firmware_observer,
    )
    result = run_session(opts)
    assert action_segments(result.judge.actions) == action_segments(expected_actions())
    # whole frames only (the harness can catch a partial one as the MCU boots)
    frames = [f for f in result.led_frames or [] if len(f.rgb) >= 80]
    assert frames, "the firmware latched no LED frame"
    row8 = ["g8", "f8", "e8", "d8", "c8", "b8"]
    assert any(all(is_laser(f.cell(c)) for c in row8) for f in frames), "no crowns beam"
    assert any(is_white(f.cell("b8")) for f in frames), "the hit laser never blinked"
    last = frames[-1]
    assert is_grey(last.cell("b4"))  # moons are out: their coin is neutral
    assert last.cell("b8") == (0, 0, 0)
    assert last.cell("a2")[0] > 0 and last.cell("a2")[1] == 0  # the suns laser moved to a2


@pytest.mark.parametrize("name", ["illegal", "linger", "bump"])
def test_scripted_recordings_through_vision(name, tmp_path):
    """Illegal move: flagged with its cells, then cleared when put back. Lingering hand:
    never a state, nothing flagged. Bumped camera: re-locked, the game goes on."""
    folder = RECORDINGS / name
    manifest = json.loads((folder / "recording.json").read_text())
    opts = SessionOptions(
        source=str(folder), display="none", speed=0.0, quiet=True, png=None,
        log=str(tmp_path / "game.jsonl"),
    )  # fmt: skip
    result = run_session(opts)
    want = manifest["expected"]
    assert action_segments(result.judge.actions) == action_segments(want["actions"])
    kinds = [e.kind for e in result.stats.events]
    flags = [sorted(e.cells) for e in result.stats.events if e.kind == "flagged"]
    assert flags == [f["cells"] for f in want["flags"]]
    if name == "illegal":
        assert kinds.index("cleared") > kinds.index("flagged")
    if name != "bump":
        assert result.stats.moved == 0  # a camera that stayed put is never "re-locked"
    if name == "bump":
        assert result.stats.moved >= 1
        assert any(e.text == "re-locked: the board reads as before" for e in result.stats.events)


def test_frames_that_do_not_decode_are_skipped_and_the_game_goes_on(tmp_path):
    """A torn camera buffer or a corrupt file in a folder is a dropped frame, said once,
    not a crash and not "no board in view"."""
    folder = RECORDINGS / "illegal"
    manifest = json.loads((folder / "recording.json").read_text())
    frames = manifest["frames"]
    for entry in frames:
        entry["file"] = str((folder / entry["file"]).resolve())
    manifest["calibration"] = str((folder / manifest["calibration"]).resolve())
    # two frames in a still stretch (same picture before and after) turn bad
    i = next(
        k
        for k in range(1, len(frames) - 2)
        if len({frames[j]["file"] for j in range(k - 1, k + 3)}) == 1
    )
    torn = tmp_path / "torn.jpg"
    torn.write_bytes(Path(frames[i]["file"]).read_bytes()[:300])
    (tmp_path / "empty.jpg").write_bytes(b"")
    frames[i]["file"], frames[i + 1]["file"] = str(torn), str(tmp_path / "empty.jpg")
    (tmp_path / "recording.json").write_text(json.dumps(manifest))
    opts = SessionOptions(
        source=str(tmp_path), display="none", speed=0.0, quiet=True, png=None,
        log=str(tmp_path / "game.jsonl"),
    )  # fmt: skip
    result = run_session(opts)
    assert result.stats.dropped == 2
    warnings = [e.text for e in result.stats.events if "not a picture" in e.text]
    assert len(warnings) == 1
    want = manifest["expected"]
    assert action_segments(result.judge.actions) == action_segments(want["actions"])
    assert [sorted(e.cells) for e in result.stats.events if e.kind == "flagged"] == [
        f["cells"] for f in want["flags"]
    ]
