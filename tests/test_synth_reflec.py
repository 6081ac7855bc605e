"""The Reflec scene: ground truth matches what was drawn, splits and seeds are reproducible."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from piecebridge.synth import art as artmod
from piecebridge.synth.reflec import (
    ALL_CELLS,
    COIN_DIAMETER_MM,
    Difficulty,
    calibration_board,
    calibration_sample,
    hand_reaching,
    negative_sample,
    random_board,
    render_shot,
    rig_for,
    sample,
    validate_board,
)

SMALL = (640, 360)


def _mean_color(img: np.ndarray, at, r: int = 2) -> np.ndarray:
    x, y = np.round(at).astype(int)
    return img[y - r : y + r + 1, x - r : x + r + 1].reshape(-1, 3).mean(0)


def test_calibration_layout_follows_the_spec():
    board = calibration_board()
    coins = {c["cell"]: c for c in board["coins"]}
    assert len(coins) == 24 and all(c["facing"] == "north" for c in coins.values())
    assert coins["a1"]["suit"] == coins["f1"]["suit"] == "suns"
    assert coins["c2"]["suit"] == "moons" and coins["e3"]["suit"] == "crowns"
    assert coins["f4"]["suit"] == "arms" and "g1" not in coins and "a5" not in coins
    pawns = {p["cell"]: p["suit"] for p in board["pawns"]}
    assert pawns == {"g1": "suns", "g2": "moons", "g3": "crowns", "g4": "arms"}


def test_random_positions_are_legal_looking():
    rng = np.random.default_rng(3)
    for _ in range(50):
        b = validate_board(random_board(rng))
        assert len(b["coins"]) <= 24 and len(b["pawns"]) <= 4
        suits = [p["suit"] for p in b["pawns"]]
        assert len(set(suits)) == len(suits)
        for s in artmod.SUITS:
            assert sum(c["suit"] == s for c in b["coins"]) <= 6


def test_bad_board_is_rejected_naming_the_item():
    with pytest.raises(ValueError, match="z9"):
        validate_board({"coins": [{"cell": "z9", "suit": "suns", "facing": "north"}]})
    with pytest.raises(ValueError, match="c4"):
        validate_board(
            {
                "coins": [{"cell": "c4", "suit": "suns", "facing": "north"}],
                "pawns": [{"cell": "c4", "suit": "moons"}],
            }
        )


def test_same_seed_same_image_and_splits_differ():
    a = sample("tune", 5, Difficulty.realistic(), image_size=SMALL)
    b = sample("tune", 5, Difficulty.realistic(), image_size=SMALL)
    c = sample("test", 5, Difficulty.realistic(), image_size=SMALL)
    assert np.array_equal(a.image, b.image) and a.truth == b.truth
    assert not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("art", ["classic", "french", "ebony"])
def test_truth_matches_what_was_drawn(art):
    shot = calibration_sample("tune", 2, Difficulty.easy(), art=art, image_size=(960, 540))
    syn, lay, img = shot.truth["synth"], shot.rig.layout, shot.image.astype(float)
    a = artmod.ART[art]
    top = lay.thickness_mm
    coin_cells = {c["cell"] for c in shot.truth["coins"]}
    pawn_cells = {p["cell"] for p in shot.truth["pawns"]}
    r = COIN_DIAMETER_MM / 2
    for cell in ALL_CELLS:
        c = lay.cell_center(cell)
        np.testing.assert_allclose(
            shot.photo.project([(*c, top)])[0], syn["cell_centers_px"][cell], atol=1e-3
        )
        if cell in pawn_cells:
            continue
        # coin background between symbol and rim, or bare tile beside the cell centre
        if cell in coin_cells:
            # 0.75 r out from the coin's own centre, away from the symbol and the top mark
            ctr = np.array(syn["pieces_px"][cell]["top"])
            edge = shot.photo.project([(*c, top), (*(c + np.array([0.75 * r, 0])), top)])
            at, ref = ctr + np.array([1.0, 0.0]) * np.linalg.norm(edge[1] - edge[0]), a.coin_bgr
        else:
            at, ref = shot.photo.project([(*(c + np.array([5.0, 5.0])), top)])[0], a.tile_bgr
        col = _mean_color(img, at, 1)
        assert np.abs(col - ref).max() < 60, (cell, col, ref)
    # the suit colour that dominates the middle of each coin is the coin's suit
    suit_cols = np.array([a.suit_bgr[s] for s in artmod.SUITS], float)
    for coin in shot.truth["coins"]:
        x, y = syn["pieces_px"][coin["cell"]]["top"]
        patch = img[round(y) - 6 : round(y) + 7, round(x) - 6 : round(x) + 7].reshape(-1, 3)
        d = np.linalg.norm(patch[:, None, :] - suit_cols[None], axis=2)
        near = d.min(1) < 60
        votes = np.bincount(d.argmin(1)[near], minlength=4)
        assert votes.argmax() == artmod.SUITS.index(coin["suit"]), (coin, votes)
    corners = np.array(syn["board_corners_px"])
    assert (
        corners[0, 1] < corners[3, 1] and corners[0, 0] < corners[1, 0]
    )  # NW above SW, left of NE


def test_negative_photos_for_rejection_tests():
    none = negative_sample("tune", 3, "no-board", image_size=SMALL)
    assert none.truth["synth"]["board_in_view"] is False and none.truth["coins"] == []
    assert none.truth["synth"]["negative"] == "no-board"
    cut = negative_sample("tune", 3, "cut-off", image_size=SMALL)
    corners = np.array(cut.truth["synth"]["board_corners_px"])
    w, h = SMALL
    outside = (
        (corners[:, 0] < 0) | (corners[:, 0] >= w) | (corners[:, 1] < 0) | (corners[:, 1] >= h)
    )
    assert outside.any()
    assert 0 < len(cut.truth["synth"]["cells_in_view"]) < 64
    with pytest.raises(ValueError):
        negative_sample("tune", 0, "upside-down")


def test_recording_helpers_keep_untouched_pieces_still_and_move_the_hand():
    rig = rig_for("tune", 1, Difficulty.baseline(), image_size=SMALL)
    levels = Difficulty.baseline().levels(np.random.default_rng(0))
    before = {
        "coins": [
            {"cell": "c3", "suit": "moons", "facing": "west"},
            {"cell": "f6", "suit": "arms", "facing": "north"},
        ],
        "pawns": [{"cell": "a1", "suit": "moons"}],
    }
    after = {
        "coins": [
            {"cell": "c3", "suit": "moons", "facing": "west"},
            {"cell": "f5", "suit": "arms", "facing": "east"},
        ],
        "pawns": [{"cell": "a1", "suit": "moons"}],
    }
    away = render_shot(
        before, rig, levels, np.random.default_rng(1), hand=hand_reaching(rig, "f6", 0.0)
    )
    near = render_shot(
        after, rig, levels, np.random.default_rng(2), hand=hand_reaching(rig, "f5", 1.0)
    )
    pa, pn = away.truth["synth"]["pieces_px"], near.truth["synth"]["pieces_px"]
    assert pa["c3"] == pn["c3"] and pa["a1"] == pn["a1"]  # untouched pieces did not move
    assert not away.photo.occlusion.any()
    assert "f5" in near.truth["synth"]["occluded_cells"]
    # a piece held by the hand: rendering hints move it but stay out of the ground truth
    held = {"coins": [{"cell": "d4", "suit": "suns", "facing": "east", "lift_mm": 25.0}]}
    shot = render_shot(held, rig, levels, np.random.default_rng(3))
    assert shot.truth["coins"] == [{"cell": "d4", "suit": "suns", "facing": "east"}]
    top = np.array(shot.truth["synth"]["pieces_px"]["d4"]["top"])
    flat = shot.photo.project([(*rig.layout.cell_center("d4"), rig.layout.thickness_mm + 3.2)])[0]
    assert np.linalg.norm(top - flat) > 1.0  # raised 25 mm: seen elsewhere than on the board


def test_committed_fixtures_load_and_carry_valid_truth():
    import json
    from pathlib import Path

    import cv2

    root = Path(__file__).resolve().parent.parent / "fixtures" / "images" / "reflec"
    jsons = sorted(root.glob("*/*.json"))
    assert len(jsons) >= 10
    total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert total < 5_000_000
    for path in jsons:
        truth = json.loads(path.read_text())
        validate_board(truth)
        img = cv2.imread(str(path.with_suffix(".jpg")))
        assert img is not None and list(img.shape[1::-1]) == truth["synth"]["image_size"]
    cal = json.loads(next(root.glob("tune/*calibration.json")).read_text())
    assert {(c["cell"], c["suit"]) for c in cal["coins"]} == {
        (c["cell"], c["suit"]) for c in calibration_board()["coins"]
    }


def test_turned_rig_shows_north_at_the_bottom():
    up = calibration_sample("tune", 4, Difficulty.easy(), image_size=SMALL)
    down = calibration_sample("tune", 4, Difficulty.easy(), image_size=SMALL, turn_deg=180)
    a8, a1 = (np.array(down.truth["synth"]["cell_centers_px"][c]) for c in ("a8", "a1"))
    assert a8[1] > a1[1]  # north (row 8) is now low in the image
    corners = np.array(down.truth["synth"]["board_corners_px"])
    assert (
        (corners >= 0).all()
        and (corners[:, 0] < SMALL[0]).all()
        and (corners[:, 1] < SMALL[1]).all()
    )
    assert down.truth["coins"] == up.truth["coins"]


@pytest.mark.parametrize("art", ["classic", "french"])
def test_coin_mark_points_the_way_the_truth_says(art):
    board = {
        "coins": [
            {"cell": c, "suit": s, "facing": f}
            for c, s, f in [
                ("b2", "suns", "north"), ("c5", "moons", "east"), ("e3", "crowns", "south"),
                ("f6", "arms", "west"), ("g2", "suns", "west"), ("d7", "moons", "south"),
            ]
        ]
    }  # fmt: skip
    shot = sample("tune", 8, Difficulty.easy(), board=board, art=art)
    lay, a = shot.rig.layout, artmod.ART[art]
    unit = {"north": (0, -1), "east": (1, 0), "south": (0, 1), "west": (-1, 0)}
    img = shot.image.astype(float)
    top = lay.thickness_mm + 3.2
    for coin in shot.truth["coins"]:
        c = lay.cell_center(coin["cell"])
        ctr = np.array(shot.truth["synth"]["pieces_px"][coin["cell"]]["top"])
        ahead = shot.photo.project([(*c, top), (*(c + 7.1 * np.array(unit[coin["facing"]])), top)])
        step = ahead[1] - ahead[0]
        mark, opposite = ctr + step, ctr - step
        near_mark = np.abs(_mean_color(img, mark, 1) - a.suit_bgr[coin["suit"]]).max()
        near_back = np.abs(_mean_color(img, opposite, 1) - a.coin_bgr).max()
        assert near_mark < 70 and near_back < 70, (coin, near_mark, near_back)


def test_hand_colour_changes_only_the_hand():
    """A probe of light occluders: the same shot, only the pixels a hand covers differ."""
    plain = sample("tune", 0, image_size=(320, 180))
    white = sample("tune", 0, image_size=(320, 180), hand_colour=(0.93, 0.94, 0.95))
    assert plain.truth == white.truth and plain.truth["synth"]["occluded_cells"]
    differs = np.abs(plain.image.astype(int) - white.image).max(axis=2) > 12
    hand = plain.photo.occlusion > 0.5
    assert differs[hand].mean() > 0.5  # the hand is painted
    # ... and nothing beyond its soft edge moves (defocus and motion blur spread it ~7 px)
    touched = (plain.photo.occlusion > 0).astype(np.uint8)
    near = cv2.dilate(touched, np.ones((15, 15), np.uint8)).astype(bool)
    assert not differs[~near].any()
