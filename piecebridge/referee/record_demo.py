"""Scripted Reflec recordings, rendered by the fixture renderer (``piecebridge.synth``).

A *script* is what happens at the table: players change the board (a hand reaches in, the
hand leaves, the board stands still), press display buttons, bump the camera. Running a
script through the rules engine gives the board of every moment and the action log a
perfect referee would write; rendering it gives a folder of JPEG frames and a manifest::

    recording.json   {"format": "piecebridge-recording/1", "game": <record header>,
                      "calibration": calibration, "frames": [{"file", "t", "note"}],
                      "presses": [{"t", "button"}], "expected": {"actions": [...], ...}}
    calibration.jpg  the rig's reflec-calibration/1 layout photo (the setup is learned from it)
    f000.jpg ...     the frames (small, JPEG)

Regenerate the bundled recording (and the scripted test recordings) with::

    python -m piecebridge.referee.record_demo            # fixtures/recordings/demo
    python -m piecebridge.referee.record_demo --all      # + illegal, linger, bump, ...

>>> script = demo_script()
>>> script.expected_actions()[-1]
'end'
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from piecebridge.rules import reflec as R

RECORDING_FORMAT = "piecebridge-recording/1"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "recordings"
#: Seconds between frames of a recording (the frames stand for a 4 fps camera).
FRAME_DT = 0.25


# --------------------------------------------------------------------------- scripts


@dataclass
class Moment:
    """One frame to render: the physical board, and whether a hand is over it."""

    board: dict[str, Any]
    hand: int | None = None  # a seed for the hand's pose; None: no hand
    bumped: bool = False
    note: str = ""


@dataclass
class Script:
    """A game at the table: physical boards, hands, presses, and the engine's verdicts.

    ``do(...)`` plays legal actions (the board changes under a hand), ``fire(dir)`` presses
    the display buttons (aim, confirm), ``clear()`` takes the pieces the engine removed off
    the board, ``cheat(edit)`` changes the board without the engine (an illegal move),
    ``still(n)`` adds quiet frames.
    """

    players: list[str]
    options: dict[str, Any] = field(default_factory=dict)
    moments: list[Moment] = field(default_factory=list)
    presses: list[tuple[int, str]] = field(default_factory=list)  # (frame index, button)
    actions: list[str] = field(default_factory=list)
    flags: list[dict[str, Any]] = field(default_factory=list)
    hand_frames: int = 2
    still_frames: int = 5

    def __post_init__(self) -> None:
        self.state = R.new_game(self.players, R.record.options_from_json(self.options))
        self.physical = self.state.board.to_json()
        self._hand_seed = 100
        self._bumped = False

    # ---- building ----

    def still(self, n: int | None = None, note: str = "") -> Script:
        for _ in range(self.still_frames if n is None else n):
            self.moments.append(Moment(_copy(self.physical), None, self._bumped, note))
        return self

    def hands(self, n: int | None = None, note: str = "", same: bool = False) -> Script:
        """Frames with a hand over the board (``same``: one hand pose that lingers)."""
        for _ in range(self.hand_frames if n is None else n):
            if not same or not self.moments or self.moments[-1].hand is None:
                self._hand_seed += 1
            self.moments.append(Moment(_copy(self.physical), self._hand_seed, self._bumped, note))
        return self

    def do(self, *notations: str, note: str = "") -> Script:
        """Legal actions, made by a hand: hand frames, then the new board stands still."""
        self.hands(note=note or "; ".join(notations))
        for text in notations:
            self.state, _ = R.apply(self.state, R.parse_action(text))
            self.actions.append(str(R.parse_action(text)))
        self.physical = self.state.board.to_json()
        return self.still(note=note or "; ".join(notations))

    def press(self, button: str) -> Script:
        self.presses.append((len(self.moments), button))
        return self

    def end(self) -> Script:
        self.press("end_turn")
        self.state, _ = R.apply(self.state, R.EndTurn())
        self.actions.append("end")
        return self.still(3, note="end of turn")

    def fire(self, direction: str) -> Script:
        """Aim with a direction button, confirm with end_turn; the engine fires."""
        self.press(direction).still(2, note=f"aiming {direction}")
        self.press("end_turn")
        self.state, _ = R.apply(self.state, R.parse_action(f"fire {direction}"))
        self.actions.append(f"fire {direction}")
        return self.still(4, note=f"fired {direction}")

    def clear(self) -> Script:
        """Players take the removed pieces off the board (a hand, then the new board)."""
        self.hands(note="removing pieces")
        self.physical = self.state.board.to_json()
        return self.still(note="pieces removed")

    def cheat(self, edit: Callable[[dict[str, Any]], None], note: str) -> Script:
        """Change the physical board behind the engine's back (an impossible change)."""
        self.hands(note=note)
        board = _copy(self.physical)
        edit(board)
        self.physical = board
        return self.still(note=note)

    def put_back(self) -> Script:
        """Restore the board the engine believes in."""
        self.hands(note="putting it back")
        self.physical = self.state.board.to_json()
        return self.still(note="put back")

    def bump(self) -> Script:
        self._bumped = True
        return self

    def expect_flag(self, cells: list[str]) -> Script:
        self.flags.append({"frame": len(self.moments), "cells": sorted(cells)})
        return self

    # ---- results ----

    def expected_actions(self) -> list[str]:
        return list(self.actions)

    def header(self) -> dict[str, Any]:
        return R.record_header(R.new_game(self.players, R.record.options_from_json(self.options)))


def _copy(board: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(board))


# The Drop round of the demo: suns, moons, crowns in turn, six coins each. The moons coins
# make the mirrors and the loop (c1 turns the suns beam north into c3-c5-e5-e3).
DROP = {
    "suns": ["d1 north", "f2 north", "b5 north", "g6 north", "d7 north", "h4 north"],
    "moons": ["c1 north", "c3 north", "c5 east", "e5 south", "e3 west", "b2 north"],
    "crowns": ["d2 north", "b7 north", "f4 north", "g5 north", "d6 north", "h3 north"],
}


def _drop_actions(rounds: range) -> list[str]:
    return [
        f"place {DROP[s][i].split()[0]} {s} {DROP[s][i].split()[1]}"
        for i in rounds
        for s in ("suns", "moons", "crowns")
    ]


def demo_script() -> Script:
    """The bundled game: a Drop round, moves, a loop shot away, a player shot out."""
    s = Script(["suns", "moons", "crowns"])
    s.still(note="the lasers in their corners")
    for i in range(6):
        s.hand_frames = 1
        s.do(*_drop_actions(range(i, i + 1)), note=f"Drop round, coins {3 * i + 1}-{3 * i + 3}")
    s.hand_frames = 2
    # Suns move a coin, then fire east: c1 turns the beam into a loop of four moons coins.
    s.do("move f2 f1 north", note="suns move f2 to f1")
    s.fire("east").clear().end()
    # Moons: three single-point actions (every tile point must be used).
    s.do("move b2 b3 north", note="moons move b2 to b3")
    s.do("spin c1 east", "laser a8 b8", note="moons spin c1, move their laser")
    s.end()
    # Crowns shoot along row 8 into the moons laser: moons are out, their coins neutral.
    s.fire("west").clear().end()
    # Suns again (moons are skipped), moving a now-neutral moons coin.
    s.do("move b3 b4 north", note="suns move a neutral coin")
    s.do("laser a1 a2", "move f1 g1 north", note="suns move the laser and a coin")
    s.end()
    return s


def _move(board: dict[str, Any], source: str, target: str) -> None:
    for item in board["coins"] + board["pawns"]:
        if item["cell"] == source:
            item["cell"] = target


def illegal_script() -> Script:
    """Suns move a coin two cells with one point left; they put it back, then play legally."""
    s = Script(["suns", "moons", "crowns"], hand_frames=1)
    s.still()
    s.do(*_drop_actions(range(6)), note="Drop round")
    s.do("move f2 f1 north", "laser a1 a2", note="suns: move a coin and the laser")
    s.do("laser a2 a3", "move d1 e1 north", "move h4 h5 north", note="suns: three moves")
    s.expect_flag(["b5", "d5"])
    s.cheat(lambda b: _move(b, "b5", "d5"), note="b5 slid two cells to d5 with one point left")
    s.still(2, note="flagged: waiting")
    s.put_back()
    s.do("move b5 b6 north", note="suns: a legal move instead")
    s.end()
    return s


def linger_script() -> Script:
    """A hand rests over the board for a long time while a coin is half-moved."""
    s = Script(["suns", "moons", "crowns"], hand_frames=1)
    s.still()
    s.do(*_drop_actions(range(6)), note="Drop round")
    s.hands(8, note="a hand lingers over the board", same=True)
    s.do("move f2 f1 north", note="suns move f2 to f1")
    s.hands(6, note="the hand lingers again", same=True)
    s.still(2)
    s.do("laser a1 a2", "move d1 e1 north", note="suns move the laser and a coin")
    s.end()
    return s


def bump_script() -> Script:
    """The camera is knocked mid-game; the referee re-locks and the game goes on."""
    s = Script(["suns", "moons", "crowns"], hand_frames=1)
    s.still()
    s.do(*_drop_actions(range(6)), note="Drop round")
    s.do("move f2 f1 north", note="suns move f2 to f1")
    s.hands(1, note="someone knocks the camera")
    s.bump().still(4, note="camera bumped")
    s.do("laser a1 a2", "move d1 e1 north", note="suns move the laser and a coin")
    s.end()
    return s


SCRIPTS: dict[str, Callable[[], Script]] = {
    "demo": demo_script,
    "illegal": illegal_script,
    "linger": linger_script,
    "bump": bump_script,
}


# --------------------------------------------------------------------------- rendering


def _rig(size: tuple[int, int]):
    from piecebridge.synth.reflec import Difficulty, rig_for

    diff = Difficulty.baseline()
    rig = rig_for("test", 3, diff, art="classic", image_size=size)
    levels = dict(diff.fixed or ())
    levels.update(rig.levels)
    levels.update(clutter=0.3, glare=0.05)
    return rig, levels


def _bumped(rig):
    cam = rig.camera
    target = (cam.target_mm[0] + 6.0, cam.target_mm[1] + 5.0)  # the board stays in view
    return rig.replace(camera=cam.replace(yaw_deg=cam.yaw_deg + 2.0, target_mm=target))


def render_script(
    script: Script,
    out: str | Path,
    size: tuple[int, int] = (960, 540),
    quality: int = 72,
    seed: int = 11,
    log: Callable[[str], None] = print,
    shared: dict[str, str] | None = None,
) -> Path:
    """Render every moment of ``script`` into folder ``out`` with its manifest and setup.

    ``shared`` maps scenes already rendered (by an earlier call, same rig) to their files
    (relative to ``out``'s parent): those frames are referenced, not rendered again, and the
    map is extended with this recording's scenes.
    """
    from piecebridge.synth.reflec import calibration_board, render_shot
    from piecebridge.vision.learn import learn_setup

    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rig, levels = _rig(size)
    cal = render_shot(
        calibration_board(), rig, {**levels, "occlusion": 0.0}, np.random.default_rng(seed)
    )
    calibration = "calibration.jpg"
    if shared is not None and "calibration" in shared:
        calibration = f"../{shared['calibration']}"  # one rig: one calibration photo
    else:
        learn_setup(cal.image)  # fails here, not at replay, if the layout is not learnable
        cv2.imwrite(str(out / calibration), cal.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if shared is not None:
            shared["calibration"] = f"{out.name}/{calibration}"
    frames = []
    files: dict[str, str] = {}  # a still scene is one file, shown for several frames
    if shared is not None:
        files.update({k: f"../{v}" for k, v in shared.items() if k != "calibration"})
    for i, m in enumerate(script.moments):
        key = json.dumps([m.board, m.hand, m.bumped], sort_keys=True)
        if key not in files:
            files[key] = f"f{sum(not v.startswith('../') for v in files.values()):03d}.jpg"
            shot = _render(m, rig, levels, seed, len(files))
            if shared is not None:
                shared[key] = f"{out.name}/{files[key]}"
            cv2.imwrite(str(out / files[key]), shot.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
            log(f"  {files[key]}  {m.note}")
        frames.append(
            {
                "file": files[key],
                "t": round(i * FRAME_DT, 3),
                "note": m.note,
                "hand": m.hand is not None,
            }
        )
    manifest = {
        "format": RECORDING_FORMAT,
        "game": script.header(),
        "calibration": calibration,
        "frame_dt": FRAME_DT,
        "frames": frames,
        "presses": [
            {"t": round(i * FRAME_DT - FRAME_DT / 2, 3), "button": b} for i, b in script.presses
        ],
        "expected": {"actions": script.expected_actions(), "flags": script.flags},
        "truth": [m.board for m in script.moments],
    }
    (out / "recording.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return out


def _render(m: Moment, rig, levels: dict, seed: int, index: int):
    from piecebridge.synth.reflec import render_shot

    lv = dict(levels)
    if m.hand is not None:
        lv["occlusion"] = 0.75
    # Still scenes share the light and piece jitter (one seed); a hand's seed picks its pose.
    rng = np.random.default_rng(seed if m.hand is None else seed * 1000 + m.hand)
    return render_shot(
        m.board,
        _bumped(rig) if m.bumped else rig,
        lv,
        rng,
        noise_rng=np.random.default_rng([seed, index]),
        hand=m.hand is not None,
    )


def _existing_scenes(folder: Path, script: Script) -> dict[str, str]:
    """Scene -> file of a recording rendered earlier from ``script`` (frames match moments)."""
    path = folder / "recording.json"
    if not path.is_file():
        return {}
    manifest = json.loads(path.read_text())
    out = {}
    for m, frame in zip(script.moments, manifest["frames"], strict=False):
        if not frame["file"].startswith("../"):
            key = json.dumps([m.board, m.hand, m.bumped], sort_keys=True)
            out[key] = f"{folder.name}/{frame['file']}"
    if not manifest["calibration"].startswith("../"):
        out["calibration"] = f"{folder.name}/{manifest['calibration']}"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"scripts to render ({', '.join(SCRIPTS)})")
    parser.add_argument("--all", action="store_true", help="render every script")
    parser.add_argument("--out", default=str(FIXTURES), help="parent folder")
    args = parser.parse_args(argv)
    names = list(SCRIPTS) if args.all else (args.names or ["demo"])
    shared: dict[str, str] = {}  # later recordings reuse the demo's frames of equal scenes
    for name in SCRIPTS:
        if name not in names:  # already rendered: share its frames
            shared.update(_existing_scenes(Path(args.out) / name, SCRIPTS[name]()))
    for name in names:
        print(f"{name}:")
        render_script(SCRIPTS[name](), Path(args.out) / name, shared=shared)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
