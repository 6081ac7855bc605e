"""The referee without a camera: the judge, the tracker, the log and resume, the button flow.

Scripted games (piecebridge.referee.record_demo) are fed through the real tracker, judge,
display presenter and log with a stand-in reader that returns each moment's true board (a
hand is a patch of unknown cells and motion), so these run in about a second; the same
scripts rendered to photos go through the vision in test_referee_e2e.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from piecebridge.rules import reflec as R
from piecebridge.vision.cells import CellDecision
from piecebridge.vision.locate import BoardNotFound
from piecebridge.vision.reader import board_from_decisions

from piecebridge.display import open_display
from piecebridge.referee.app import Referee
from piecebridge.referee.gamelog import GameLog, action_segments, read_log
from piecebridge.referee.judge import Judge
from piecebridge.referee.record_demo import (
    FRAME_DT,
    SCRIPTS,
    Script,
    demo_script,
    illegal_script,
)
from piecebridge.referee.sources import Frame
from piecebridge.referee.tracker import StableTracker, observation_board
from piecebridge.referee.view import TerminalView
from tests.reflec_support import board, play_state

HAND_CELLS = ["c4", "d4", "e4", "c5", "d5", "e5", "d6", "e6"]


SUITS = ["suns", "moons", "crowns", "arms"]
FACINGS = ["north", "east", "south", "west"]


def _level(piece: dict | None) -> int:
    """A grey level per possible content of a cell, 11 levels apart (the tracker's cheap
    look must see every change of a cell, as it sees a real picture change)."""
    if piece is None:
        return 0
    k = 1 + SUITS.index(piece["suit"])
    if "facing" in piece:
        k = 5 + 4 * SUITS.index(piece["suit"]) + FACINGS.index(piece["facing"])
    return 12 + 11 * k


class TruthPose:
    """Board coordinates (cells) -> pixels of the test pictures: 8 px a cell."""

    def to_image(self, pts):
        return np.asarray(pts, float).reshape(-1, 2) * 8.0

    def cell_size_px(self) -> float:
        return 8.0


def picture(script: Script, i: int) -> np.ndarray:
    """Moment ``i`` as a 64x64 picture (8 px a cell, one grey level per content; a hand is
    its own level over HAND_CELLS), with the moment's index below it."""
    m = script.moments[i]
    image = np.zeros((72, 64, 3), np.uint8)
    items = {x["cell"]: x for x in m.board["coins"] + m.board["pawns"]}
    for f in range(8):
        for r in range(8):
            cell = f"{'abcdefgh'[f]}{r + 1}"
            level = _level(items.get(cell))
            if m.hand is not None and cell in HAND_CELLS:
                level = 245 - 30 * (m.hand % 2)
            y = 7 - r
            image[y * 8 : y * 8 + 8, f * 8 : f * 8 + 8] = level
    image[64:, 0, :2] = divmod(i, 256)
    return image


@dataclass
class TruthReader:
    """Reads the script's true boards; a hand hides HAND_CELLS."""

    script: Script
    reads: list = field(default_factory=list)
    pose: TruthPose = field(default_factory=TruthPose)

    def read(self, frame: np.ndarray, cells=None) -> SimpleNamespace:
        index = int(frame[64, 0, 0]) * 256 + int(frame[64, 0, 1])
        self.reads.append(index)
        m = self.script.moments[index]
        hidden = HAND_CELLS if m.hand is not None else []
        coins = [dict(c, confidence=0.95) for c in m.board["coins"] if c["cell"] not in hidden]
        pawns = [dict(p, confidence=0.95) for p in m.board["pawns"] if p["cell"] not in hidden]
        board_ = {"format": "reflec-board/1", "coins": coins, "pawns": pawns, "unknown": hidden}
        return SimpleNamespace(board=board_, unknown=list(hidden), moved=False, decisions=[])


def frames(script: Script, start: int = 0, stop: int | None = None):
    presses: dict[int, list[str]] = {}
    for i, button in script.presses:
        presses.setdefault(i, []).append(button)
    for i in range(start, len(script.moments) if stop is None else stop):
        yield Frame(i * FRAME_DT, picture(script, i), i, presses=presses.get(i, []))


def referee_for(script: Script, judge: Judge, display) -> Referee:
    device = getattr(display, "sim_device", None)
    return Referee(
        judge,
        TruthReader(script),
        display,
        TerminalView(quiet=True),
        StableTracker(),
        presser=device.press if device is not None else None,
    )


def run(script: Script, tmp_path, display_spec: str = "none", stop=None, resume=None):
    log_path = tmp_path / "game.jsonl"
    if resume:
        resumed = read_log(log_path)
        judge = Judge.resume(resumed, GameLog.reopen(log_path))
        start = resumed.frame + 1
    else:
        judge = Judge(R.game_from_header(script.header()), GameLog.create(log_path, _new(script)))
        start = 0
    display = open_display("sim") if display_spec == "sim" else open_display_none()
    try:
        referee = referee_for(script, judge, display)
        for frame in frames(script, start, stop):
            referee.step(frame)
        display.wait_idle(2.0)
        leds = display.sim_device.led_rgb() if display_spec == "sim" else None
    finally:
        display.close()
    return judge, referee.stats.events, log_path, leds


def open_display_none():
    from piecebridge.display import Display

    return Display(open_transport=None)


def _new(script: Script) -> R.GameState:
    return R.game_from_header(script.header())


# --------------------------------------------------------------------------- whole scripts


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_scripted_game_gives_the_expected_log_and_replays(name, tmp_path):
    script = SCRIPTS[name]()
    judge, events, log_path, _ = run(script, tmp_path)
    assert action_segments(judge.actions) == action_segments(script.expected_actions())
    states = R.replay(log_path.read_text().splitlines())
    assert states[-1].board == script.state.board
    flags = [e for e in events if e.kind == "flagged"]
    assert [sorted(e.cells) for e in flags] == [f["cells"] for f in script.flags]


def test_the_board_is_read_only_when_still_and_changed(tmp_path):
    script = demo_script()
    display = open_display_none()
    judge = Judge(R.game_from_header(script.header()))
    referee = referee_for(script, judge, display)
    for frame in frames(script):
        referee.step(frame)
    reads = referee.reader.reads
    moments = script.moments
    # never a moving hand; each still board read once (its first still frame)
    assert not [i for i in reads if moments[i].hand is not None]
    distinct = {json.dumps(moments[i].board, sort_keys=True) for i in reads}
    assert len(reads) == len(distinct) < len(moments) / 4
    assert action_segments(judge.actions) == action_segments(script.expected_actions())


def test_an_mjpeg_video_is_handed_over_undecoded(tmp_path):
    from piecebridge.referee.sources import open_source

    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (64, 48))
    for i in range(3):
        writer.write(np.full((48, 64, 3), 40 * i, np.uint8))
    writer.release()
    source = open_source(str(path))
    got = list(source)
    source.close()
    assert source.raw and len(got) == 3
    assert all(f.encoded is not None and f._image is None for f in got)
    assert got[2].grey(2).shape == (24, 32) and abs(int(got[2].grey(2).mean()) - 80) <= 2
    assert got[1].image.shape == (48, 64, 3)


def test_demo_drives_the_display_buttons_laser_and_neutral_coins(tmp_path):
    _, events, _, leds = run(demo_script(), tmp_path, "sim")
    kinds = [e.kind for e in events]
    assert kinds.count("fired") == 2 and "eliminated" in kinds
    fired = [e for e in events if e.kind == "fired"]
    assert fired[0].path == ["b1", "c1", "c2", "c3", "c4", "c5", "d5", "e5", "e4", "e3", "d3", "c3"]
    from piecebridge.display.protocol import cell_index

    grey = (60 * 65 >> 8,) * 3  # palette grey at the default brightness
    assert leds[cell_index("b4")] == grey  # moons are out: their coin is neutral
    assert leds[cell_index("b8")] == (0, 0, 0)  # the destroyed moons laser is gone
    assert leds[cell_index("a2")][0] > 0 and leds[cell_index("a2")][1] == 0  # suns laser


def test_illegal_move_is_flagged_in_one_sentence_and_cleared_when_put_back(tmp_path):
    judge, events, _, _ = run(illegal_script(), tmp_path)
    flag = next(e for e in events if e.kind == "flagged")
    assert flag.text == (
        "The suns coin on b5 moved two cells to d5 but only one action point was left."
    )
    assert flag.cells == ["b5", "d5"]
    after = events[events.index(flag) + 1 :]
    assert any(e.kind == "cleared" for e in after)
    assert judge.flag is None


def test_crash_and_resume_continue_with_the_same_state(tmp_path):
    script = demo_script()
    whole, *_ = run(script, tmp_path / "a")
    # Crash in the middle of the suns' removal (after the shot, before the coins are off).
    fire_frame = next(i for i, b in script.presses if b == "end_turn")
    (tmp_path / "b").mkdir()
    _, _, log_path, _ = run(script, tmp_path / "b", stop=fire_frame + 3)
    resumed = read_log(log_path)
    assert resumed.removal == ["c3", "c5", "e3", "e5"]
    judge, *_ = run(script, tmp_path / "b", resume=True)
    assert judge.actions == whole.actions
    assert R.replay(log_path.read_text().splitlines())[-1] == whole.state


def test_resume_mid_turn_restores_points_spent(tmp_path):
    script = demo_script()
    first_move = next(
        i for i, m in enumerate(script.moments) if "suns move f2" in m.note and m.hand is None
    )
    (tmp_path / "c").mkdir()
    judge, _, log_path, _ = run(script, tmp_path / "c", stop=first_move + 5)
    assert [str(a) for a in judge.pending] == ["move f2 f1 north"]
    again = Judge.resume(read_log(log_path))
    assert [str(a) for a in again.pending] == ["move f2 f1 north"]
    assert again.state.points_left == judge.state.points_left == 5


def test_torn_last_line_is_ignored(tmp_path):
    script = demo_script()
    (tmp_path / "d").mkdir()
    _, _, log_path, _ = run(script, tmp_path / "d", stop=60)
    with open(log_path, "a") as f:
        f.write('{"action": "mo')
    assert read_log(log_path).state.phase == "play"
    # resuming cuts the torn line off: the game goes on and the whole log replays
    judge, *_ = run(script, tmp_path / "d", resume=True)
    assert action_segments(judge.actions) == action_segments(script.expected_actions())
    assert R.replay(log_path.read_text().splitlines())[-1] == script.state


# --------------------------------------------------------------------------- the judge alone


def as_json(b: R.Board) -> dict:
    return b.to_json()


def test_segment_charges_the_cheapest_reading_not_each_nudge():
    state = play_state(board("S a1", "M h8", "Sn c4", "Mn f6"), tile_points=3, dice=(2, 2))
    judge = Judge(state)
    judge.observe(as_json(board("S a1", "M h8", "Sn c5", "Mn f6")), [])
    assert [str(a) for a in judge.pending] == ["move c4 c5 north"]
    # nudged on to d5 then back to c5: still one move
    judge.observe(as_json(board("S a1", "M h8", "Sn d5", "Mn f6")), [])
    assert judge.points_spent == 2
    judge.observe(as_json(board("S a1", "M h8", "Sn c4", "Mn f6")), [])
    assert judge.points_spent == 0 and judge.pending == ()


def test_unreadable_cells_make_the_judge_wait_not_flag():
    state = play_state(board("S a1", "M h8", "Sn c4"), tile_points=1, dice=(0, 0))
    judge = Judge(state)
    seen = as_json(board("S a1", "M h8"))  # the coin is gone from c4 ...
    events = judge.observe(seen, ["e4", "f4", "e3"])  # ... under a hand, out of its reach
    assert [e.kind for e in events] == ["unsure"] and judge.flag is None
    # the hand is over c5, where the coin went: read as the coin that left c4
    events = judge.observe(seen, ["c5"])
    assert [e.kind for e in events] == ["accepted"]
    assert [str(a) for a in judge.pending] == ["move c4 c5 north"]


def test_an_unsure_facing_is_taken_as_unchanged():
    state = play_state(board("S a1", "M h8", "Sn c4"), tile_points=3, dice=(2, 2))
    judge = Judge(state)
    seen = as_json(board("S a1", "M h8", "Se c4"))
    seen["coins"][0]["confidence"] = 0.4
    kept = judge.observe(seen, [])
    assert [(e.kind, e.text) for e in kept] == [
        ("info", "c4 facing read east unsure (0.40): kept north")
    ]
    assert judge.observe(seen, []) == []  # said once, not at every view
    seen["coins"][0]["confidence"] = 0.95
    assert [str(a) for a in judge.pending] == [] and judge.observe(seen, [])
    assert [str(a) for a in judge.pending] == ["spin c4 east"]


def test_an_unread_facing_is_said_and_logged(tmp_path):
    state = play_state(board("S a1", "M h8", "Se c4"), tile_points=3, dice=(2, 2))
    log = GameLog.create(tmp_path / "g.jsonl", state)
    judge = Judge(state, log)
    seen = as_json(board("S a1", "M h8", "Sn c5"))
    seen["coins"][0]["facing"] = "?"  # the suit is clear, the facing is not
    events = judge.observe(seen, [])
    assert [str(a) for a in judge.pending] == ["move c4 c5 east"]
    assert events[-1].text.endswith("; facing c5 east (not read: as the coin that left c4)")
    notes = [json.loads(x).get("referee") for x in log.path.read_text().splitlines()[1:]]
    assert {"facing_assumed": {"c5": "east (not read: as the coin that left c4)"}} in notes


def test_an_unread_cell_in_the_drop_round_is_said_to_be_assumed():
    judge = Judge(R.new_game(["suns", "moons", "crowns"]))
    pawns = judge.state.board.to_json()["pawns"]
    seen = {"coins": [{"cell": "c4", "suit": "suns", "facing": "east"}], "pawns": pawns}
    events = judge.observe(seen, ["d5"])  # a coin there, its look unreadable
    assert judge.actions == ["place c4 suns east", "place d5 moons north"]
    assert events[0].text.endswith("; facing d5 north (not read: taken as the moons coin due)")


def test_firing_needs_a_legal_board_and_removal_waits_for_the_pieces():
    # the demo's first shot: suns fire east from a1 into the moons loop c3-c5-e5-e3
    script = demo_script()
    judge = Judge(R.game_from_header(script.header()))
    for m in script.moments:
        if m.note.startswith("suns move f2"):
            break
        if m.hand is None:
            judge.observe(m.board, [])
    judge.observe(next(m for m in script.moments if m.note.startswith("suns move f2")).board, [])
    d2, d3 = R.parse_cell("d2"), R.parse_cell("d3")
    cheat = judge.state.board.with_pieces({d2: None, d3: judge.state.board.squares[d2]})
    events = judge.observe(as_json(cheat), [])
    assert [e.kind for e in events] == ["flagged"]
    assert judge.fire("east")[0].text.startswith("cannot fire: first put the board right")
    judge.observe(as_json(judge.state.board), [])
    events = judge.fire("east")
    assert [e.kind for e in events] == ["fired", "remove"]
    assert judge.removal == ["c3", "c5", "e3", "e5"]
    assert judge.end_turn()[0].text.startswith("cannot end the turn: first take")
    # the view still shows the coins: keep blinking; then they are gone
    assert [e.kind for e in judge.observe(as_json(judge.expected_board()), [])] == ["remove"]
    assert [e.kind for e in judge.observe(as_json(judge.state.board), [])] == ["removed"]
    assert [e.kind for e in judge.end_turn()] == ["turn"]


def test_drop_round_out_of_turn_is_flagged():
    judge = Judge(R.new_game(["suns", "moons"]))
    pawns = judge.state.board.to_json()["pawns"]
    seen = {"coins": [{"cell": "c4", "suit": "moons", "facing": "north"}], "pawns": pawns}
    events = judge.observe(seen, [])
    assert events[0].kind == "flagged" and "suns+crowns's turn" in events[0].text
    assert events[0].cells == ["c4"]


# --------------------------------------------------------------------------- the tracker


def obs(*cells, conf=0.95, facing="north"):
    coins = [{"cell": c, "suit": "suns", "facing": facing, "confidence": conf} for c in cells]
    return {"coins": coins, "pawns": [], "unknown": []}


class Pic:
    """A test frame: a 64x64 grey picture, 8 px a cell (see TruthPose)."""

    def __init__(self, levels: dict[str, int] | None = None, noise: int = 0, seed: int = 0):
        self.a = np.full((64, 64), 100, np.uint8)
        for cell, level in (levels or {}).items():
            f, r = "abcdefgh".index(cell[0]), int(cell[1]) - 1
            self.a[(7 - r) * 8 : (8 - r) * 8, f * 8 : f * 8 + 8] = level
        if noise:
            rng = np.random.default_rng(seed)
            self.a = np.clip(self.a + rng.integers(-noise, noise + 1, self.a.shape), 0, 255)
            self.a = self.a.astype(np.uint8)

    def grey(self, reduction: int) -> np.ndarray:
        assert reduction == 1
        return self.a


def tracker_with_cells(**kw) -> StableTracker:
    from piecebridge.vision.reader import cell_polygons

    tr = StableTracker(hold_s=0.5, hold_frames=3, **kw)
    tr.watch.set_cells(cell_polygons(TruthPose()), 8.0)
    return tr


class Reads:
    """A stand-in vision: returns the boards given, counts the calls."""

    def __init__(self, *boards):
        self.boards = list(boards)
        self.calls = 0
        self.asked: list = []  # the cells asked for, per read (None: all)

    def __call__(self, cells=None):
        self.calls += 1
        self.asked.append(cells)
        board = self.boards[min(self.calls, len(self.boards)) - 1]
        return board, list(board["unknown"]), False


def test_tracker_reads_a_still_board_once_and_commits_after_the_hold():
    tr = tracker_with_cells()
    read = Reads(obs("c4"))
    states = [tr.feed(t, Pic({"c4": 200}, 2, i), read) for i, t in enumerate((0, 0.25, 0.5))]
    assert [s.state for s in states] == ["settling", "settling", "committed"]
    # read once still for read_after; the commit itself needed no read (it was ready)
    assert [s.read for s in states] == [False, True, False] and read.calls == 1
    more = [tr.feed(0.75 + i / 30, Pic({"c4": 200}, 2, 9 + i), read) for i in range(30)]
    assert {s.state for s in more} == {"still"} and read.calls == 1  # noise is not a change


def test_tracker_moving_and_covered_never_commit():
    tr = tracker_with_cells()
    hand = {f"{c}{r}": 230 for c in "abcd" for r in "1234"}
    read = Reads(obs(), {"coins": [], "pawns": [], "unknown": sorted(hand)})
    assert [tr.feed(t, Pic(), read).state for t in (0.0, 0.25)] == ["settling"] * 2
    assert tr.feed(0.3, Pic(hand), read).state == "moving"  # the hand came in
    states = [tr.feed(0.4 + i * 0.25, Pic(hand), read).state for i in range(6)]
    assert set(states) == {"settling", "covered"} and states[-4:] == ["covered"] * 4
    assert read.calls == 2  # the resting hand was read once, not at every frame


def test_tracker_slow_change_rereads_and_restarts_the_hold():
    tr = tracker_with_cells()
    read = Reads(obs("c4"), obs("c4", "c5"))
    tr.feed(0.0, Pic({"c4": 200}), read)
    assert tr.feed(0.2, Pic({"c4": 200}), read).read
    # c5 brightens 8 levels a frame: never "moving", but soon not the picture read
    states = [
        tr.feed(0.2 + 0.1 * i, Pic({"c4": 200, "c5": 100 + 8 * i}), read) for i in range(1, 4)
    ]
    assert all(s.state != "moving" for s in states)
    assert not states[1].read  # 16 levels from the read picture: stale, the run restarts
    # one cell changed: read as soon as the restarted run is known still (2 frames)
    assert states[2].read and read.asked[-1] == ["c5"] and read.calls == 2
    after = [tr.feed(0.5 + 0.1 * i, Pic({"c4": 200, "c5": 124}), read) for i in range(1, 8)]
    assert read.calls == 2
    commit = next(s.commit for s in after if s.commit)
    assert [c["cell"] for c in commit.board["coins"]] == ["c4", "c5"]
    assert commit.since >= 0.4  # the hold counted from the change, not from t=0


def test_tracker_keeps_the_committed_reading_of_unchanged_cells():
    tr = tracker_with_cells()
    first = obs("c4", "f6")
    # the second reading: c4 moved to c5, and f6 (untouched) now misread with another facing
    second = obs("c5")
    second["coins"].append({"cell": "f6", "suit": "suns", "facing": "east", "confidence": 0.6})
    read = Reads(first, second)
    for i in range(3):
        tr.feed(i * 0.25, Pic({"c4": 200, "f6": 200}), read)
    assert tr.feed(0.8, Pic({"c5": 200, "f6": 200, "d4": 250}), read).state == "moving"
    states = [tr.feed(1.0 + i * 0.25, Pic({"c5": 200, "f6": 200}), read) for i in range(3)]
    commit = states[-1].commit
    assert commit is not None and read.calls == 2
    facings = {c["cell"]: c["facing"] for c in commit.board["coins"]}
    assert facings == {"c5": "north", "f6": "north"}  # f6 kept; c5 read fresh
    assert "f6" in commit.reused and "c5" not in commit.reused and "c4" not in commit.reused


def test_tracker_reads_afresh_what_it_was_unsure_of():
    tr = tracker_with_cells()
    first = obs("c4", "f6")
    first["coins"][1]["facing"] = "?"  # f6: a coin whose facing was not read
    second = obs("c5", "f6")
    read = Reads(first, second)
    for i in range(3):
        tr.feed(i * 0.25, Pic({"c4": 200, "f6": 200}), read)
    tr.feed(0.8, Pic({"c5": 200, "f6": 200, "d4": 250}), read)
    commit = [tr.feed(1.0 + i * 0.25, Pic({"c5": 200, "f6": 200}), read) for i in range(3)][-1]
    assert commit.commit is not None and "f6" not in commit.commit.reused
    facings = {c["cell"]: c["facing"] for c in commit.commit.board["coins"]}
    assert facings == {"c5": "north", "f6": "north"}  # now read


def test_tracker_asks_the_vision_for_the_cells_changed_since_they_were_read():
    tr = tracker_with_cells()
    read = Reads(obs("c4", "f6"), obs("c5", "f6"), obs("c5", "f7"), obs("c5", "f7"))

    def settle(t0, levels, seed=0):
        return [tr.feed(t0 + i * 0.25, Pic(levels, 2, seed + i), read) for i in range(3)]

    assert settle(0.0, {"c4": 200, "f6": 200})[-1].commit is not None
    assert read.asked == [None]  # nothing read before: the whole board
    tr.feed(0.8, Pic({"c4": 90, "d4": 250, "e4": 250}), read)  # a hand moves c4 to c5
    assert settle(1.0, {"c5": 200, "f6": 200}, 10)[-1].commit is not None
    assert read.asked[1] == ["c4", "c5"]  # the hand's cells look as before: not read
    # f6 -> f7 next: c5 was read in the last read, so only the new change is asked for
    tr.feed(1.8, Pic({"f6": 50, "g6": 250}), read)
    assert settle(2.0, {"c5": 200, "f7": 200}, 20)[-1].commit is not None
    assert read.asked[2] == ["f6", "f7"]
    # a cell creeping 4 levels between reads is re-read once it is 5 off its last read
    tr.feed(2.8, Pic({"b2": 250}), read)  # a coin comes to a1; h8 gets a bit darker
    settle(3.0, {"c5": 200, "f7": 200, "a1": 200, "h8": 96}, 30)
    tr.feed(3.8, Pic({"b2": 250}), read)  # a coin comes to a2; h8 darker still
    settle(4.0, {"c5": 200, "f7": 200, "a1": 200, "a2": 200, "h8": 92}, 40)
    assert read.asked[3:] == [["a1"], ["a2", "h8"]]


def test_tracker_reads_the_whole_board_after_a_reset_or_a_moved_camera():
    tr = tracker_with_cells()
    read = Reads(obs("c4"), obs("c4"), obs("c5"))
    for i in range(3):
        tr.feed(i * 0.25, Pic({"c4": 200}), read)
    tr.reset()  # the camera came back, or the board was out of view
    for i in range(3):
        tr.feed(1 + i * 0.25, Pic({"c4": 200}), read)
    assert read.asked == [None, None]
    tr2 = tracker_with_cells(partial=False)
    tr2.feed(0.0, Pic({"c4": 200}), read)
    tr2.feed(0.25, Pic({"c4": 200}), read)
    tr2.feed(0.5, Pic({"c4": 250}), read)
    tr2.feed(0.75, Pic({"c4": 250}), read)
    assert read.asked[2:] == [None, None]  # partial=False: always the whole board


def test_tracker_without_outlines_reads_and_compares_readings():
    tr = StableTracker(hold_s=0.5, hold_frames=3)  # no cell outlines: no cheap look
    read = Reads(obs("c4"), obs("c4"), obs("c5"), obs("c5"), obs("c5"))
    states = [tr.feed(i * 0.25, Pic(), read).state for i in range(5)]
    assert states == ["settling", "settling", "settling", "settling", "committed"]
    assert read.calls == 5


def short_hold() -> StableTracker:
    """A 30 fps camera's hold: 0.1 s and 3 frames, the read on the first frame known still."""
    from piecebridge.vision.reader import cell_polygons

    tr = StableTracker(hold_s=0.1, hold_frames=3, read_after=0.0)
    tr.watch.set_cells(cell_polygons(TruthPose()), 8.0)
    return tr


def test_short_hold_commits_100_ms_after_the_first_still_frame_never_on_the_read_frame():
    tr = short_hold()
    read = Reads(obs("c4"))
    hand = [Pic({"c4": 200, "d5": 60 + 40 * i}) for i in range(4)]  # a hand moving away
    states = [tr.feed(i / 30, p, read) for i, p in enumerate(hand)]
    assert {s.state for s in states[1:]} == {"moving"}
    still = [tr.feed((4 + i) / 30, Pic({"c4": 200}, 2, i), read) for i in range(5)]
    # the first still frame (4/30) is known still with the next one, which is read at once;
    # the commit needs frames after the read that still show the picture read
    assert [s.read for s in still[:2]] == [False, True] and read.calls == 1
    commit = next(s.commit for s in still if s.commit)
    assert commit.since == 4 / 30 and commit.t - commit.since <= 0.1 + 1e-9
    assert commit.frames >= 3 and commit.t > 5 / 30


def test_short_hold_a_pausing_or_resting_hand_never_commits():
    tr = short_hold()
    hand = {f"{c}{r}": 230 for c in "abcd" for r in "1234"}
    read = Reads({"coins": [], "pawns": [], "unknown": sorted(hand)})
    # a hand over the board, still for 2 frames (67 ms) between moves: too short to commit
    poses = [Pic({**hand, "e5": 60 + 40 * (i // 3 % 4)}) for i in range(30)]
    states = [tr.feed(i / 30, p, read).state for i, p in enumerate(poses)]
    assert "committed" not in states and "moving" in states
    # resting over the board: read (covered), never a state however long
    states = [tr.feed(1 + i / 30, Pic(hand), read).state for i in range(60)]
    assert "committed" not in states and states[-1] == "covered"


def test_short_hold_a_change_after_the_read_is_not_committed():
    tr = short_hold()
    read = Reads(obs("c4"), obs("c4", "c5"))
    tr.feed(0.0, Pic({"c4": 200}), read)
    assert tr.feed(1 / 30, Pic({"c4": 200}), read).read
    # c5 creeps 6 levels a frame (below the motion threshold): the reading goes stale
    states = [tr.feed((2 + i) / 30, Pic({"c4": 200, "c5": 106 + 6 * i}), read) for i in range(3)]
    assert all(s.commit is None for s in states)
    after = [tr.feed((5 + i) / 30, Pic({"c4": 200, "c5": 118}), read) for i in range(6)]
    commit = next(s.commit for s in after if s.commit)
    assert [c["cell"] for c in commit.board["coins"]] == ["c4", "c5"]


def test_a_moved_piece_is_read_at_once_a_pausing_hand_only_after_read_after():
    from piecebridge.vision.reader import cell_polygons

    tr = StableTracker(hold_s=0.05, hold_frames=3)  # 3 frames at 30 fps: 67 ms
    tr.watch.set_cells(cell_polygons(TruthPose()), 8.0)
    hand = {f"{c}{r}": 230 for c in "abcd" for r in "1234"}
    read = Reads(obs("c4"), obs("c5"))
    first = [tr.feed(i / 30, Pic({"c4": 200}, 2, i), read) for i in range(8)]
    assert any(s.commit for s in first) and read.asked == [None]
    # a hand over 16 cells, each pose held 3 frames (two frame periods still): not read
    poses = [Pic({**hand, "e5": 60 + 40 * (i // 3 % 4)}, 2, i) for i in range(24)]
    states = [tr.feed((8 + i) / 30, p, read) for i, p in enumerate(poses)]
    assert read.calls == 1 and not any(s.commit or s.read for s in states)
    # the hand leaves a coin moved c4 -> c5: read on the first frame known still (2 cells),
    # committed on the next one: 67 ms after the first still frame
    still = [tr.feed((32 + i) / 30, Pic({"c5": 200}, 2, 50 + i), read) for i in range(3)]
    assert [s.read for s in still] == [False, True, False] and read.asked[1] == ["c4", "c5"]
    commit = still[2].commit
    assert commit is not None and commit.since == 32 / 30 and commit.t == 34 / 30


def test_buttons_aim_then_fire_and_end_the_turn():
    script = demo_script()
    judge = Judge(R.game_from_header(script.header()))
    for m in script.moments:
        if m.hand is None:
            judge.observe(m.board, [])
        if judge.state.phase == "play":
            break
    ref = Referee(judge, None, open_display_none(), TerminalView(quiet=True))
    aim = ref.button("east", 0.0)
    assert aim[0].kind == "aim" and aim[0].path[:3] == ["b1", "c1", "c2"]
    fired = ref.button("end_turn", 0.1)
    assert fired[0].kind == "fired"
    assert ref.command("end", 0.2)[0].text.startswith("cannot end the turn: first take")


# --------------------------------------------------------------------------- bad situations


def test_players_confirm_a_misread_and_the_game_goes_on():
    state = play_state(board("S a1", "M h8", "Sn c4", "Mn f6"), tile_points=3, dice=(2, 2))
    ref = Referee(Judge(state), None, open_display_none(), TerminalView(quiet=True))
    misread = as_json(board("S a1", "M h8", "Sn c4", "Cn f6"))  # moons coin read as crowns
    assert [e.kind for e in ref.judge.observe(misread, [])] == ["flagged"]
    assert ref.button("end_turn", 1.0)[0].text.startswith("press end turn again")
    assert [e.kind for e in ref.button("end_turn", 2.0)] == ["cleared"]
    # the same misread is now the referee's moons coin; a real move is still judged
    assert ref.judge.observe(misread, []) == []
    moved = as_json(board("S a1", "M h8", "Sn c5", "Cn f6"))
    assert [e.kind for e in ref.judge.observe(moved, [])] == ["accepted"]
    assert [str(a) for a in ref.judge.pending] == ["move c4 c5 north"]


def test_a_double_press_confirms_only_the_flag_it_was_pressed_over():
    state = play_state(board("S a1", "M h8", "Sn c4", "Mn f6"), tile_points=3, dice=(2, 2))
    ref = Referee(Judge(state), None, open_display_none(), TerminalView(quiet=True))
    first = as_json(board("S a1", "M h8", "Sn c4", "Cn f6"))  # moons coin read as crowns
    assert [e.kind for e in ref.judge.observe(first, [], 1.0)] == ["flagged"]
    assert ref.button("end_turn", 1.5)[0].text.startswith("press end turn again")
    # before the second press the view changes: another impossible change, a newer flag
    newer = as_json(board("S a1", "M h8", "Mn f6"))  # the suns coin on c4 gone
    assert [e.kind for e in ref.judge.observe(newer, [], 2.0)] == ["flagged"]
    pressed = ref.button("end_turn", 2.5)
    assert pressed[0].text.startswith("press end turn again"), "a press over the old flag"
    assert ref.judge.flag is not None and not ref.judge.aliases
    # two presses over the newer flag confirm it (and only its cells)
    assert [e.kind for e in ref.button("end_turn", 3.0)] == ["cleared"]
    assert [R.cell_name(c) for c in ref.judge.aliases] == ["c4"]


def test_a_double_press_more_than_5_s_apart_does_not_confirm():
    state = play_state(board("S a1", "M h8", "Sn c4", "Mn f6"), tile_points=3, dice=(2, 2))
    ref = Referee(Judge(state), None, open_display_none(), TerminalView(quiet=True))
    ref.judge.observe(as_json(board("S a1", "M h8", "Sn c4", "Cn f6")), [], 1.0)
    assert ref.button("end_turn", 1.0)[0].text.startswith("press end turn again")
    assert ref.button("end_turn", 6.5)[0].text.startswith("press end turn again")
    assert [e.kind for e in ref.button("end_turn", 7.0)] == ["cleared"]


def test_a_confirmed_misread_survives_a_crash_and_resume(tmp_path):
    script = demo_script()
    first_move = next(
        i for i, m in enumerate(script.moments) if "suns move f2" in m.note and m.hand is None
    )
    (tmp_path / "e").mkdir()
    _, _, log_path, _ = run(script, tmp_path / "e", stop=first_move + 4)  # the move is in
    judge = Judge.resume(read_log(log_path), GameLog(log_path))
    assert [str(a) for a in judge.pending] == ["move f2 f1 north"]
    misread = judge.state.board.to_json()
    d7 = next(c for c in misread["coins"] if c["cell"] == "d7")
    d7["suit"] = "crowns"  # the suns coin on d7 read as a crowns coin
    judge.log.observed(misread, 20.0, first_move + 5)  # as the referee logs a commit
    assert [e.kind for e in judge.observe(misread, [], 20.0)] == ["flagged"]
    assert [e.kind for e in judge.confirm(21.0)] == ["cleared"]
    # crash; a new process resumes from the log alone
    again = Judge.resume(read_log(log_path), GameLog(log_path))
    assert again.aliases == judge.aliases and len(again.aliases) == 1
    assert again.flag is None and [str(a) for a in again.pending] == ["move f2 f1 north"]
    assert again.observe(misread, [], 22.0) == []  # d7 still means the suns coin
    # and a real change beside it is judged as usual
    moved = json.loads(json.dumps(misread))
    g6 = next(c for c in moved["coins"] if c["cell"] == "g6")
    g6["cell"] = "g7"
    assert [e.kind for e in again.observe(moved, [], 23.0)] == ["accepted"]
    assert [str(a) for a in again.pending] == ["move f2 f1 north", "move g6 g7 north"]


def _confirmed_empty_c4(tmp_path) -> tuple[Judge, R.GameState]:
    """A judge whose players confirmed "c4 looks empty but holds the suns coin"."""
    state = play_state(board("S a1", "M h8", "Sn c4", "Mn f6"), tile_points=3, dice=(2, 2))
    log_path = tmp_path / "g.jsonl"
    judge = Judge(state, GameLog.create(log_path, state))
    assert [e.kind for e in judge.observe(as_json(board("S a1", "M h8", "Mn f6")), [])] == [
        "flagged"
    ]
    assert [e.kind for e in judge.confirm(1.0)] == ["cleared"]
    assert judge.observe(as_json(board("S a1", "M h8", "Mn f6")), []) == []  # c4 means the coin
    return judge, state


def _notes(log_path, key: str) -> list:
    lines = [json.loads(line) for line in log_path.read_text().splitlines()[1:]]
    return [x["referee"][key] for x in lines if key in x.get("referee", {})]


def test_an_empty_looking_alias_does_not_hide_the_coin_moving_away(tmp_path):
    judge, _ = _confirmed_empty_c4(tmp_path)
    # the suns coin is really moved c4 -> c5: c4 still looks empty, as confirmed
    events = judge.observe(as_json(board("S a1", "M h8", "Sn c5", "Mn f6")), [], 2.0)
    assert [e.kind for e in events] == ["info", "accepted"]
    assert events[0].cells == ["c4"] and "no longer applies" in events[0].text
    assert [str(a) for a in judge.pending] == ["move c4 c5 north"]
    assert judge.aliases == {}
    assert _notes(tmp_path / "g.jsonl", "alias_dropped") == [
        {"c4": "the view is legal only as the camera reads it"}
    ]


def test_an_alias_ends_when_the_cell_reads_otherwise_and_resume_knows(tmp_path):
    judge, _ = _confirmed_empty_c4(tmp_path)
    # the camera reads the coin on c4 again: the misread is over
    events = judge.observe(as_json(board("S a1", "M h8", "Sn c4", "Mn f6")), [], 2.0)
    assert [e.kind for e in events] == ["info"] and events[0].cells == ["c4"]
    assert "now read as a suns coin facing north" in events[0].text
    assert judge.aliases == {}
    # a hand over c4 (unread) would not have ended it; resume restores "no alias"
    again = Judge.resume(read_log(tmp_path / "g.jsonl"))
    assert again.aliases == {}
    # so c4 looking empty again is a change the players must confirm (or put right) again
    assert [e.kind for e in judge.observe(as_json(board("S a1", "M h8", "Mn f6")), [])] == [
        "flagged"
    ]


def test_an_alias_survives_an_unread_cell_and_the_piece_moving_ends_it(tmp_path):
    judge, _ = _confirmed_empty_c4(tmp_path)
    assert judge.observe(as_json(board("S a1", "M h8", "Mn f6")), ["c4", "c3"]) == []
    assert list(judge.aliases) == [R.parse_cell("c4")]
    resumed = Judge.resume(read_log(tmp_path / "g.jsonl"))
    assert list(resumed.aliases) == [R.parse_cell("c4")]
    # a coin arrives on d4 from c4 under a hand: the expected piece on c4 changes
    judge.observe(as_json(board("S a1", "M h8", "Sn d4", "Mn f6")), ["c4"], 3.0)
    assert [str(a) for a in judge.pending] == ["move c4 d4 north"]
    judge.observe(as_json(board("S a1", "M h8", "Sn d4", "Mn f6")), [], 4.0)
    assert judge.aliases == {}
    assert "c4" in _notes(tmp_path / "g.jsonl", "alias_dropped")[-1]


def test_an_alias_on_a_piece_shot_off_the_board_ends_with_the_shot(tmp_path):
    script = demo_script()
    judge, *_ = run(script, tmp_path, stop=48)  # the suns are about to fire
    c3 = R.parse_cell("c3")
    coin = judge.state.board.squares[c3]
    judge.aliases[c3] = (None, coin)  # as if the players had confirmed "c3 looks empty"
    ref = Referee(judge, None, open_display_none(), TerminalView(quiet=True))
    ref.button("east", 12.0)
    events = ref.button("end_turn", 12.5)
    assert "c3" in judge.removal and judge.aliases == {}
    said = [e for e in events if e.kind == "info" and "no longer applies" in e.text]
    assert said and "c3 its piece must come off the board" in said[0].text
    # the loop is taken off: c3 (empty, as it always looked) counts as removed
    gone = judge.expected_board().to_json()
    gone["coins"] = [c for c in gone["coins"] if c["cell"] not in judge.removal]
    assert "removed" in [e.kind for e in judge.observe(gone, [], 13.0)]
    assert judge.removal == []


def test_resume_of_a_log_holding_only_a_torn_line_says_so(tmp_path):
    from piecebridge.errors import UserError

    path = tmp_path / "g.jsonl"
    path.write_text('{"format": "reflec-rec')
    with pytest.raises(UserError, match=r"^no game recorded in .*g\.jsonl"):
        read_log(path)


@pytest.mark.parametrize(
    ("content", "reason"), [(b"\xff\xfe\x00 binary", "not UTF-8"), (None, "is a directory")]
)
def test_resume_of_something_that_is_no_log_is_one_line(tmp_path, content, reason):
    from piecebridge.errors import UserError

    path = tmp_path / "g.jsonl"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    with pytest.raises(UserError, match=reason):
        read_log(path)


class FlakyCapture:
    """A camera that delivers ``n`` frames, then is unplugged."""

    def __init__(self, n: int) -> None:
        self.n = n

    def isOpened(self) -> bool:
        return True

    def grab(self) -> bool:
        self.n -= 1
        return self.n >= 0

    def retrieve(self):
        return True, np.zeros((4, 4, 3), np.uint8)

    def release(self) -> None:
        pass


class FakeCamera:
    """A V4L2-like camera: raw MJPEG buffers once CONVERT_RGB is off (if ``mjpeg``), else
    undecodable raw bytes (YUYV); decoded BGR pictures by default."""

    def __init__(self, mjpeg: bool) -> None:
        self.mjpeg = mjpeg
        self.props: dict[int, float] = {}
        self.n = 0
        _, self.jpeg = cv2.imencode(".jpg", np.full((16, 16, 3), 90, np.uint8))

    def isOpened(self) -> bool:
        return True

    def set(self, prop: int, value: float) -> bool:
        if prop == cv2.CAP_PROP_FORMAT:
            return False  # as V4L2: no raw mode by format
        self.props[prop] = value
        return True

    def grab(self) -> bool:
        self.n += 1
        return self.n <= 3

    def retrieve(self):
        if self.props.get(cv2.CAP_PROP_CONVERT_RGB, 1) == 0:
            return True, self.jpeg.reshape(1, -1) if self.mjpeg else np.zeros((1, 512), np.uint8)
        return True, np.full((16, 16, 3), 90, np.uint8)

    def release(self) -> None:
        pass


@pytest.mark.parametrize("mjpeg", [True, False])
def test_a_camera_is_asked_for_raw_mjpeg_and_falls_back_to_decoded(mjpeg):
    from piecebridge.referee.sources import LiveSource

    cams: list[FakeCamera] = []

    def opener(spec):
        cams.append(FakeCamera(mjpeg))
        return cams[-1]

    source = LiveSource(0, retry_s=0.05, opener=opener)
    frame = next(iter(source))
    source.close()
    assert cams[0].props[cv2.CAP_PROP_FOURCC] == cv2.VideoWriter_fourcc(*"MJPG")
    assert source.raw is mjpeg and (frame.encoded is not None) is mjpeg
    assert frame.image.shape == (16, 16, 3) and abs(int(frame.grey(1).mean()) - 90) <= 2
    if not mjpeg:  # the YUYV bytes were not taken for a picture: reopened, decoded
        assert len(cams) >= 2 and cv2.CAP_PROP_CONVERT_RGB not in cams[1].props


def referee_whose_reads_fail(
    script: Script, judge: Judge, error: Exception, times: int = 3, from_frame: int = 8
) -> Referee:
    """A referee of ``script`` whose vision raises ``error`` on ``times`` reads in a row,
    from the frame ``from_frame`` on."""
    referee = referee_for(script, judge, open_display_none())
    failed = {"n": 0}
    real_read = referee.reader.read

    def read(image, cells=None):
        index = int(image[64, 0, 0]) * 256 + int(image[64, 0, 1])
        if index >= from_frame and failed["n"] < times:
            failed["n"] += 1
            raise error
        return real_read(image, cells)

    referee.reader.read = read
    for frame in list(frames(script))[:20]:
        referee.step(frame)
    return referee


def test_a_board_lost_from_view_before_the_hold_ends_commits_nothing():
    script = demo_script()
    judge = Judge(_new(script))
    referee = referee_whose_reads_fail(script, judge, BoardNotFound("no board in view"))
    texts = [e.text for e in referee.stats.events]
    lost = texts.index("no board in view: is the board in view?")
    assert texts[lost + 1] == "board found again"  # nothing was judged while it was gone
    assert judge.actions[:3] == script.expected_actions()[:3]


def test_a_vision_bug_is_said_as_one_not_as_no_board_and_the_game_goes_on(tmp_path):
    script = demo_script()
    judge = Judge(_new(script), GameLog.create(tmp_path / "game.jsonl", _new(script)))
    referee = referee_whose_reads_fail(script, judge, IndexError("index 9 is out of bounds"))
    warnings = [e.text for e in referee.stats.events if e.kind == "warn"]
    said = [t for t in warnings if t.startswith("vision failed (IndexError: index 9")]
    assert len(said) == 1 and not any("board in view" in t for t in warnings)
    assert referee.stats.vision_errors == 3 and referee.stats.not_found == 0
    errors = (tmp_path / "game.jsonl.errors.txt").read_text()
    assert errors.count("Traceback") == 3 and "IndexError" in errors and str(tmp_path) in said[0]
    assert judge.actions[:3] == script.expected_actions()[:3]


def test_a_vision_bug_whose_traceback_cannot_be_kept_still_keeps_the_game(tmp_path):
    script = demo_script()
    judge = Judge(_new(script), GameLog.create(tmp_path / "game.jsonl", _new(script)))
    (tmp_path / "game.jsonl.errors.txt").mkdir()  # cannot be written
    referee = referee_whose_reads_fail(script, judge, IndexError("index 9 is out of bounds"))
    said = [e.text for e in referee.stats.events if e.text.startswith("vision failed")]
    assert said == ["vision failed (IndexError: index 9 is out of bounds); reading again"]
    assert judge.actions[:3] == script.expected_actions()[:3]


def test_camera_unplugged_is_retried_and_the_game_kept():
    from piecebridge.referee.sources import LiveSource

    opened = []

    def opener(spec):
        opened.append(spec)
        return FlakyCapture(3) if len(opened) in (1, 3) else None  # away once, then back

    source = LiveSource(0, retry_s=0.05, opener=opener)
    seen = []
    for frame in source:
        seen.append("lost" if frame.lost else "frame")
        if len(opened) >= 3 and seen[-1] == "frame" and "lost" in seen:
            break
    source.close()
    assert "lost" in seen and seen[-1] == "frame"

    state = play_state(board("S a1", "M h8"), tile_points=3, dice=(2, 2))
    ref = Referee(Judge(state), None, open_display_none(), TerminalView(quiet=True))
    ref.step(Frame(1.0, None, lost=True))
    ref.step(Frame(1.5, None, lost=True))
    texts = [e.text for e in ref.stats.events]
    assert texts == ["camera lost: retrying; the game is kept"]
    assert ref.judge.state == state


def test_display_unplugged_and_back_is_reported():
    state = play_state(board("S a1", "M h8"), tile_points=3, dice=(2, 2))
    display = open_display_none()
    ref = Referee(Judge(state), None, display, TerminalView(quiet=True))
    display._synced = True
    ref.poll(0.0)
    display._synced = False
    ref.poll(1.0)
    display._synced = True
    ref.poll(2.0)
    texts = [e.text for e in ref.stats.events]
    assert texts == [
        "display unplugged: refereeing goes on in the terminal",
        "display back: picture resent",
    ]


def test_a_display_on_another_protocol_is_named_and_the_referee_goes_on(monkeypatch):
    import io

    from rich.console import Console

    import piecebridge.display as D
    from piecebridge.display import protocol as P
    from piecebridge.referee.session import open_referee_display

    class OldFirmware(D.EmulatedDisplay):
        def _send_hello(self, reply: bool, echo: int) -> None:
            payload = bytes([1, 1, 0, P.LED_COUNT & 0xFF, P.LED_COUNT >> 8])
            self._send(P.HELLO, 0, payload + bytes([1 if reply else 0, echo, 0]))

    def old_display(spec=None):
        return D.Display(lambda: D.SimTransport(OldFirmware()), hello_wait=0.2).start()

    monkeypatch.setattr(D, "open_display", old_display)
    out = io.StringIO()
    with open_referee_display("/dev/ttyFAKE", Console(file=out, width=200)) as opened:
        display = opened[0]
        assert not display.connected
    text = out.getvalue()
    assert "speaks protocol 1, this host 2" in text and "refereeing in the terminal" in text
    assert "no display answered" not in text


def test_cell_outlines_follow_the_lens_back_to_the_raw_frame():
    from piecebridge.calibration.camera import CameraCalibration

    from piecebridge.referee.app import _cell_outlines

    K = np.array([[500.0, 0, 319.5], [0, 500, 239.5], [0, 0, 1]])
    lens = CameraCalibration(K, np.array([-0.3, 0.1, 0, 0, 0]), (640, 480), 0.3)
    undistort = lens.undistorter(alpha=1.0)

    class Pose(TruthPose):  # a board of 40 px cells from (160, 80) in the undistorted picture
        def to_image(self, pts):
            return np.asarray(pts, float).reshape(-1, 2) * 40.0 + (160, 80)

        def cell_size_px(self):
            return 40.0

    plain, _ = _cell_outlines(Pose(), SimpleNamespace(undistort=None), (640, 480))
    raw, px = _cell_outlines(Pose(), SimpleNamespace(undistort=undistort), (640, 480))
    assert px == 40.0 and set(raw) == set(plain)
    assert np.abs(raw["a8"] - plain["a8"]).max() > 2  # the corner cells move most
    back = undistort.undistort_points(raw["a8"], (640, 480))
    assert np.allclose(back, plain["a8"], atol=0.05)


def test_a_half_sure_piece_where_another_is_expected_is_taken_as_unread():
    """The reader's half-sure rules (a pawn by elimination, a piece beside a hand) may guess;
    a guess that contradicts the expected board makes the judge wait, never flag."""
    state = play_state(board("S a1", "M h8", "Sn c4"), tile_points=1, dice=(0, 0))
    seen = as_json(board("S a1", "M h8", "Sn c4", "Mn e5"))  # a coin out of nowhere
    appeared = next(c for c in seen["coins"] if c["cell"] == "e5")
    appeared["confidence"] = 0.5
    judge = Judge(state)
    assert [(e.kind, e.cells) for e in judge.observe(seen, [])] == [("unsure", ["e5"])]
    assert judge.flag is None
    seen["pawns"][0]["confidence"] = 0.5  # the expected pawn, half sure: still read
    assert [e.kind for e in judge.observe(seen, [])] == ["unsure"] and judge.flag is None
    appeared["confidence"] = 0.9
    judge.observe(seen, [])
    assert judge.flag is not None


def test_a_cell_read_empty_only_under_doubt_where_a_coin_stands_is_taken_as_unread():
    """The reader's glare rule reads washed-out cells empty at most half sure; where the
    judge expects a piece that guess must not make the piece vanish (nor flag a move)."""
    state = play_state(board("S a1", "M h8", "Sn c4"), tile_points=1, dice=(0, 0))
    gone = as_json(board("S a1", "M h8"))
    assert Judge(state).observe(dict(gone), []) != []  # the coin read as gone: a change
    judge = Judge(state)
    events = judge.observe({**gone, "unsure_empty": ["c4", "d5"]}, [])
    # said, not flagged: a player who did take it off learns the referee has not seen it
    assert [(e.kind, e.cells) for e in events] == [("unsure", ["c4"])]
    assert judge.flag is None and judge.actions == []
    assert judge.state.board.squares[R.parse_cell("c4")] is not None  # kept


def test_pieces_taken_off_after_a_shot_may_read_empty_only_under_doubt():
    """Empty is what is expected on a removed piece's cell: a glare-washed one counts."""
    script = demo_script()
    judge = Judge(R.game_from_header(script.header()))
    for m in script.moments:
        if m.note.startswith("suns move f2"):
            judge.observe(m.board, [])
            break
        if m.hand is None:
            judge.observe(m.board, [])
    assert [e.kind for e in judge.fire("east")] == ["fired", "remove"]
    cleared = {**as_json(judge.state.board), "unsure_empty": ["c3"]}
    assert [e.kind for e in judge.observe(cleared, [])] == ["removed"]
    assert judge.removal == [] and [e.kind for e in judge.end_turn()] == ["turn"]


def test_the_reader_lists_cells_read_empty_only_half_sure():
    half = CellDecision("c4", "empty", confidence=0.5)
    sure = CellDecision("d5", "empty", confidence=0.9)
    board = board_from_decisions([half, sure])
    assert board["unsure_empty"] == ["c4"] and board["unknown"] == []
    assert "unsure_empty" not in board_from_decisions([sure])
    seen = SimpleNamespace(board=board, unknown=[], decisions=[half, sure])
    assert observation_board(seen)[0]["unsure_empty"] == ["c4"]


def test_the_tracker_passes_unsure_empties_on_and_commits_when_they_become_sure():
    tr = tracker_with_cells()
    read = Reads({**obs("f6"), "unsure_empty": ["c4"]}, obs("f6"))
    commits = [s.commit for s in (tr.feed(i * 0.25, Pic({"f6": 200}), read) for i in range(3))]
    assert commits[-1] is not None and commits[-1].board["unsure_empty"] == ["c4"]
    # the glare on c4 fades, so it is read again, now surely empty: a new commit says so
    tr.feed(0.8, Pic({"f6": 200, "c4": 60}), read)
    later = [tr.feed(1.0 + i * 0.25, Pic({"f6": 200, "c4": 60}), read) for i in range(3)]
    last = [s.commit for s in later if s.commit is not None]
    assert last and "unsure_empty" not in last[-1].board and read.calls == 2


def test_the_log_keeps_unsure_empties_for_a_resumed_judge(tmp_path):
    log = GameLog(tmp_path / "game.jsonl")
    log.observed({**obs("f6"), "unsure_empty": ["c4"]}, t=1.0)
    lines = [json.loads(x) for x in (tmp_path / "game.jsonl").read_text().splitlines()]
    assert lines[-1]["observed"]["unsure_empty"] == ["c4"]


@dataclass
class StandInReader(TruthReader):
    """A reader without a setup (stand-in looks) on a set they fit no coin of: every read
    leaves ``undecided`` cells unknown in view."""

    looks: SimpleNamespace = field(default_factory=lambda: SimpleNamespace(learned=False))
    undecided: int = 8

    def read(self, frame: np.ndarray, cells=None) -> SimpleNamespace:
        obs = super().read(frame, cells)
        obs.decisions = [CellDecision(f"a{r}", "unknown") for r in range(1, self.undecided + 1)]
        return obs


@pytest.mark.parametrize(
    ("learned", "undecided", "said"), [(False, 8, 1), (True, 8, 0), (False, 2, 0)]
)
def test_the_referee_says_once_when_the_standard_looks_fit_no_coin(learned, undecided, said):
    script = demo_script()
    reader = StandInReader(script, looks=SimpleNamespace(learned=learned), undecided=undecided)
    display = open_display_none()
    referee = Referee(Judge(R.game_from_header(script.header())), reader, display,
                      TerminalView(quiet=True), StableTracker())  # fmt: skip
    for frame in frames(script):
        referee.step(frame)
    notes = [e for e in referee.stats.events if "calibrate board" in e.text]
    assert len(reader.reads) > 1
    assert len(notes) == said and all(e.kind == "warn" for e in notes)
