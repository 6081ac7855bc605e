"""The renderer's ``hidden_cells``: which cells nobody could read in the pixels (issue #4,
benchmarks/results/vision_reflec.md, "Unknown cells the pixels still show").

Hand-built cases: a straight-edged "hand" (one long capsule at the coin's height, so no
parallax) hides the part of the coin east of a line; the share hidden is then the area of a
circular segment, worked out here from the geometry, not from the renderer's sampling.
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from piecebridge.synth import reflec
from piecebridge.synth.photo import Capsule

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

SIZE = (640, 360)


@pytest.fixture(scope="module")
def rig() -> reflec.Rig:
    return reflec.rig_for("tune", 0, reflec.Difficulty.easy(), image_size=SIZE)


def _board(coin: str | None = "d4", pawn: str | None = None) -> dict:
    return {
        "format": "reflec-board/1",
        "coins": [{"cell": coin, "suit": "suns", "facing": "north"}] if coin else [],
        "pawns": [{"cell": pawn, "suit": "moons"}] if pawn else [],
    }


def _shot(rig: reflec.Rig, board: dict, caps: list[Capsule]) -> reflec.Shot:
    levels = reflec.Difficulty.easy().levels(np.random.default_rng(0))
    return reflec.render_shot(board, rig, levels, np.random.default_rng(1), hand=caps)


def _wall(x_mm: float, y_mm: float, z_mm: float, radius: float = 40.0) -> list[Capsule]:
    """A long capsule hiding everything east of ``x_mm`` near ``y_mm`` (seen from above)."""
    x = x_mm + radius
    return [Capsule((x, y_mm - 80, z_mm), (x, y_mm + 80, z_mm), radius, (0.6, 0.7, 0.9))]


def _segment(u: float) -> float:
    """Share of a disc beyond a chord at ``u`` radii from its centre."""
    u = float(np.clip(u, -1, 1))
    return (math.acos(u) - u * math.sqrt(1 - u * u)) / math.pi


def _coin(rig: reflec.Rig, board: dict, cell: str) -> tuple[float, float, float]:
    _, where = reflec._pieces(board, rig)
    x, y, _, top = where[cell]
    return x, y, top


@pytest.mark.parametrize("u", [-1.3, -0.3, 0.3, 1.3])
def test_a_coin_is_hidden_by_the_share_of_its_face_under_the_hand(rig, u):
    board = _board("d4")
    x, y, top = _coin(rig, board, "d4")
    r = reflec.COIN_DIAMETER_MM / 2
    truth = _shot(rig, board, _wall(x + u * r, y, top)).truth["synth"]
    want = _segment(u)  # 1 / 0.69 / 0.31 / 0
    got = truth["cover_facts"].get("d4", {"hand": 0.0, "hidden": 0.0})
    assert got["hand"] == pytest.approx(want, abs=0.06)
    assert got["hidden"] == got["hand"]
    assert ("d4" in truth["hidden_cells"]) == (want > 0.5)


def _lens(d: float, r0: float, r1: float) -> float:
    """Area shared by two discs of radii ``r0``, ``r1`` whose centres are ``d`` apart."""
    a0 = r0 * r0 * math.acos((d * d + r0 * r0 - r1 * r1) / (2 * d * r0))
    a1 = r1 * r1 * math.acos((d * d + r1 * r1 - r0 * r0) / (2 * d * r1))
    k = 0.5 * math.sqrt((-d + r0 + r1) * (d + r0 - r1) * (d - r0 + r1) * (d + r0 + r1))
    return a0 + a1 - k


def test_a_finger_over_the_cells_corner_leaves_its_coin_readable(rig):
    """What the old ``occluded_cells`` (a quarter of the cell's area) excused, though the
    coin's face is nearly all in view."""
    board = _board("d4")
    x, y, top = _coin(rig, board, "d4")
    corner = rig.layout.cell_points("d4", n=2, inset=0.0)  # the cell's four corners
    cx, cy = corner[np.argmax(np.hypot(corner[:, 0] - x, corner[:, 1] - y))]  # the farthest
    # a fingertip of radius 16 mm centred on the corner, pointing out of the cell
    d, radius, r = math.hypot(cx - x, cy - y), 16.0, reflec.COIN_DIAMETER_MM / 2
    out = np.array([cx - x, cy - y]) / d * 30
    tip = [Capsule((cx, cy, top), (cx + out[0], cy + out[1], top), radius, (0.6, 0.7, 0.9))]
    truth = _shot(rig, board, tip).truth["synth"]
    assert "d4" in truth["occluded_cells"]  # the old, generous rule
    want = _lens(d, radius, r) / (math.pi * r * r)
    assert 0.02 < want < 0.3
    assert truth["cover_facts"]["d4"]["hand"] == pytest.approx(want, abs=0.05)
    assert "d4" not in truth["hidden_cells"]


@pytest.mark.parametrize("share", [0.3, 0.7])
def test_an_empty_cell_is_hidden_by_the_share_of_its_area_under_the_hand(rig, share):
    board = _board(None)
    t = rig.layout.thickness_mm
    x, y = rig.layout.cell_center("d4")
    edge = x + reflec.CELL_MM * (0.5 - share)  # east of it: ``share`` of the cell
    truth = _shot(rig, board, _wall(edge, y, t)).truth["synth"]
    got = truth["cover_facts"]["d4"]["hidden"]
    assert got == pytest.approx(share, abs=0.12)
    assert ("d4" in truth["hidden_cells"]) == (share > 0.5)


def test_a_pawn_is_hidden_by_its_body_seen_from_above_not_its_cell(rig):
    """A pawn's top half under the hand: hidden; the hand over the cell beside the pawn's
    body only: not hidden."""
    board = _board(None, pawn="d4")
    (pawn,), where = reflec._pieces(board, rig)
    x, y, _, top = where["d4"]
    reach = pawn.reach_mm  # the pawn's widest radius
    half = _shot(rig, board, _wall(x, y, top)).truth["synth"]
    beside = _shot(rig, board, _wall(x + reach + 1.0, y, top)).truth["synth"]
    assert half["cover_facts"]["d4"]["hand"] == pytest.approx(0.5, abs=0.1)
    assert "d4" in half["hidden_cells"]
    assert beside["cover_facts"].get("d4", {}).get("hand", 0.0) == 0.0
    assert "d4" not in beside["hidden_cells"]


def test_glare_hides_where_it_burns_only(rig):
    """Glare that alone makes a point white hides it; glare of 0.8 (on crops, coins under it
    still show suit, symbol and facing mark) leaves it readable."""
    board = _board("d4")
    shot = _shot(rig, board, [])
    x, y, top = _coin(rig, board, "d4")
    px = shot.photo.project([(x, y, top)])[0]
    h, w = shot.image.shape[:2]
    east = (np.arange(w) >= px[0])[None, :].repeat(h, 0)
    pts = {"d4": reflec.face_points(reflec._pieces(board, rig)[0][0])}
    for level, want in ((1.05, 0.5), (0.8, 0.0)):
        photo = dataclasses.replace(shot.photo, extras={"specular": np.where(east, level, 0.0)})
        got = reflec.cover_facts(photo, pts)["d4"]
        assert got["glare"] == pytest.approx(want, abs=0.06)
        assert got["hand"] == 0.0


def test_points_out_of_the_frame_are_hidden(rig):
    board = _board("d4")
    shot = _shot(rig, board, [])
    far = {"d4": np.array([[1e5, 1e5, 0.0], [0.0, 0.0, 0.0]])}
    assert reflec.cover_facts(shot.photo, far)["d4"]["hidden"] >= 0.5


def test_an_older_cached_truth_gets_hidden_cells_checked_and_atomically(rig, tmp_path):
    import cv2
    from vision_reflec import _load_or_render

    shot = _shot(rig, _board("d4"), [])
    old = json.loads(json.dumps(reflec._jsonable(shot.truth)))
    stale = json.loads(json.dumps(old))
    stale["synth"].update(hidden_cells=["a1"], hidden_rule="face0.1")  # other constants
    for k in ("hidden_cells", "cover_facts", "hidden_rule"):
        del old["synth"][k]
    stem = tmp_path / "s0"
    cv2.imwrite(f"{stem}.png", shot.image)
    for before in (old, stale):
        Path(f"{stem}.json").write_text(json.dumps(before))
        _, truth = _load_or_render(stem, lambda: shot, hidden=True)
        assert truth["synth"]["hidden_cells"] == shot.truth["synth"]["hidden_cells"] == []
        on_disk = json.loads(Path(f"{stem}.json").read_text())["synth"]
        assert on_disk["hidden_rule"] == reflec.HIDDEN_RULE
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s0.json", "s0.png"]
    # a renderer that no longer draws the cached photo: refused, the file left as it was
    Path(f"{stem}.json").write_text(json.dumps(old))
    other = dataclasses.replace(shot, image=255 - shot.image)
    with pytest.raises(RuntimeError, match="no longer draws"):
        _load_or_render(stem, lambda: other, hidden=True)
    assert json.loads(Path(f"{stem}.json").read_text()) == old
