"""Reading business cards: finding grids, lines, orientation, cells, rejections."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from card_support import oriented_corner_errors
from piecebridge.vision import card as vc
from piecebridge.vision.card_layout import CardLayout

from piecebridge.errors import UserError
from piecebridge.synth.card import photograph_card, render_card
from piecebridge.synth.photo import PhotoStyle

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "images" / "cards"


def cell_errors(reading: dict, truth: dict) -> tuple[int, int]:
    """(wrong cells, unknown cells) of a card/1 reading against the truth."""
    wrong = unknown = 0
    for got, want in zip(reading["grids"], truth["grids"], strict=True):
        unk = set(got.get("unknown", []))
        unknown += len(unk)
        for r in range(1, 11):
            for c in "ABCDEFGHIJ":
                name = f"{c}{r}"
                if name in unk:
                    continue
                g = got["cells"].get(name, {"mark": None, "shaded": False})
                w = want["cells"].get(name, {"mark": None, "shaded": False})
                wrong += (g["mark"], g["shaded"]) != (w["mark"], w["shaded"])
    return wrong, unknown


@pytest.fixture(scope="module")
def easy_photo():
    """A fairly kind photo: mild tilt, no curl, no shadow; 1600x1200."""
    rng = np.random.default_rng(42)
    card = render_card(rng, px_per_mm=12)
    photo, truth = photograph_card(rng, image_size=(1600, 1200), card=card, difficulty=0.3)
    return cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY), truth


def test_grids_found_and_lines_followed(easy_photo):
    grey, truth = easy_photo
    # Upright and in card order, every corner within 0.15 cell of the truth.
    assert max(oriented_corner_errors(grey, truth)) < 0.15


@pytest.mark.parametrize(
    "turn", [cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE]
)
def test_orientation_from_labels_whatever_the_turn(easy_photo, turn):
    grey, _ = easy_photo
    want = vc.read_card(grey).to_card1(with_confidence=False)
    got = vc.read_card(cv2.rotate(grey, turn)).to_card1(with_confidence=False)
    assert len(got["grids"]) == 2
    # Same answers cell for cell (a borderline cell may be unknown in one of them).
    disagree = 0
    for g, w in zip(got["grids"], want["grids"], strict=True):
        unsure = set(g.get("unknown", [])) | set(w.get("unknown", []))
        for name in (set(g["cells"]) | set(w["cells"])) - unsure:
            disagree += g["cells"].get(name) != w["cells"].get(name)
    assert disagree == 0


def test_cells_read(easy_photo):
    grey, truth = easy_photo
    reading = vc.read_card(grey).to_card1()
    wrong, unknown = cell_errors(reading, truth)
    # A regression guard: v7 and v8 read this photo with nothing wrong and one cell unknown
    # (F1, a small squashed o), v9 exactly (the test below); the rates are in
    # benchmarks/card_accuracy.py. A misplaced lattice or a wrong turn would cost dozens of cells.
    assert wrong == 0
    assert unknown <= 1
    assert reading["format"] == "card/1"
    for g in reading["grids"]:
        for item in g["cells"].values():
            assert 0 <= item["confidence"] <= 1
            assert item["mark"] or item["shaded"]


def test_cells_read_exactly(easy_photo):
    grey, truth = easy_photo
    assert cell_errors(vc.read_card(grey).to_card1(), truth) == (0, 0)


def test_single_grid_photo(easy_photo):
    grey, truth = easy_photo
    # Paint over the second grid: what remains is one grid, read as grid 1.
    c = np.array(truth["corners_px"][1])
    centre = c.mean(0)
    big = (c - centre) * 1.2 + centre
    img = grey.copy()
    cv2.fillConvexPoly(img, np.round(big).astype(np.int32), 235)
    reading = vc.read_card(img).to_card1(with_confidence=False)
    assert len(reading["grids"]) == 1
    wrong, _ = cell_errors(reading, {"grids": truth["grids"][:1]})
    assert wrong == 0


def test_no_card_is_rejected():
    rng = np.random.default_rng(0)
    noise = cv2.GaussianBlur(rng.integers(0, 255, (600, 800), dtype=np.uint8), (0, 0), 3)
    with pytest.raises(UserError, match="no card found"):
        vc.read_card(noise)


@pytest.mark.parametrize("side", [1, 8])
def test_a_photo_a_few_pixels_wide_is_rejected(tmp_path, side):
    path = tmp_path / "tiny.png"
    cv2.imwrite(str(path), np.full((side, side), 200, np.uint8))
    with pytest.raises(UserError, match="too small to hold a card"):
        vc.load_photo(path)


def test_cut_off_grid_is_rejected(easy_photo):
    grey, truth = easy_photo
    c = np.array(truth["corners_px"][0])
    x = int(c[:, 0].mean())  # cut through the middle of grid 1
    with pytest.raises(UserError, match="cut off"):
        vc.read_card(np.ascontiguousarray(grey[:, x:]))


def test_too_blurred_is_rejected(easy_photo):
    grey, _ = easy_photo
    with pytest.raises(UserError, match=r"blurred|no card"):
        vc.read_card(cv2.GaussianBlur(grey, (0, 0), 9))


@pytest.fixture(scope="module")
def printed_board_errors():
    """(wrong, unknown) on the board of ``print card``, photographed straight and clean."""
    rng = np.random.default_rng(7)
    card = render_card(rng, px_per_mm=12, layout=CardLayout(caption="piecebridge card board"))
    photo, truth = photograph_card(
        rng, image_size=(1600, 1200), card=card, difficulty=0.0, style=PhotoStyle.clean()
    )
    reading = vc.read_card(cv2.cvtColor(photo.image, cv2.COLOR_BGR2GRAY)).to_card1()
    return cell_errors(reading, truth)


def test_printed_board_clean_photo_reads_exactly(printed_board_errors):
    # model v7 left two cells unknown here (A10, a plus; B1, an o); the v8 ensemble reads all
    assert printed_board_errors == (0, 0)


def test_committed_fixtures_read(tmp_path):
    photos = sorted(FIXTURES.glob("*/*.jpg"))
    assert photos, "fixtures/images/cards/ is empty"
    total_wrong = total_cells = 0
    for photo in photos:
        truth = json.loads(photo.with_suffix(".json").read_text())
        grey, _ = vc.load_photo(photo)
        reading = vc.read_card(grey).to_card1()
        wrong, _ = cell_errors(reading, truth)
        total_wrong += wrong
        total_cells += 100 * len(truth["grids"])
    # The benchmark holds the real target (0.2 %); this guards against regressions.
    assert total_wrong / total_cells <= 0.005
