"""``mark_seen`` on the alt style's photos (``card_styles``): the same measure as the
classic style's, the noise read on the ground under each mark, which on a pen-shaded
card may be a pen fill as dark as the mark."""

import numpy as np
import pytest

from piecebridge.synth import card as synth
from piecebridge.synth import card_styles
from piecebridge.synth.photo import PhotoStyle

PLUS_ON = {  # grid 0: a plus in every cell, shaded on the left half, bare paper on the right
    f"{c}{r}": {"mark": "plus", "shaded": c in "ABCDE"} for c in "ABCDEFGHIJ" for r in range(1, 11)
}
PEN_SHADER_SEED = 6  # random_design's draws, then a gel and a ballpoint; the ballpoint shades


def _pen_card_seen() -> tuple[dict, dict]:
    """The pluses' ``mark_seen`` on a pen-shaded card: ``(on fills, on bare paper)``."""
    rng = np.random.default_rng(PEN_SHADER_SEED)
    card = card_styles.render_styled_card(
        rng, px_per_mm=8, contents=[PLUS_ON, {}], glare=False, unshaded=True, unmarked=True
    )
    assert card.truth["style"]["tools"][1:] == ["ballpoint", "ballpoint"]  # the shader: a pen
    style = PhotoStyle(noise_sigma=0.004, shot_noise=0.01)
    _, truth = synth.photograph_card(
        rng,
        image_size=(1000, 750),
        card=card,
        difficulty=0,
        style=style,
        marks_seen=True,
        marks_on_ground=True,
    )
    seen = truth["grids"][0]["mark_seen"]
    assert set(seen) == set(PLUS_ON)
    on_fill = {c: v for c, v in seen.items() if PLUS_ON[c]["shaded"]}
    on_paper = {c: v for c, v in seen.items() if not PLUS_ON[c]["shaded"]}
    return on_fill, on_paper


def test_a_mark_on_a_pen_fill_is_not_seen_one_on_bare_paper_is():
    """Pluses on a ballpoint's full-ink fills stand no further out of the fill's own
    strokes than the fill's texture: most measure under MARK_VISIBLE; the same hand's
    pluses on bare paper all above it."""
    on_fill, on_paper = _pen_card_seen()
    assert min(on_paper.values()) > synth.MARK_VISIBLE
    assert np.median(list(on_fill.values())) < synth.MARK_VISIBLE
    assert np.mean([v < synth.MARK_VISIBLE for v in on_fill.values()]) > 0.7


def test_the_ground_is_the_paper_on_bare_paper_and_the_fill_on_a_fill():
    """The measure itself: one stroke across bare paper and across a fill of full-ink
    stripes (the strokes of a pen fill, with paper between them). Over the paper's noise
    both stand far out; over the ground's, the one on paper as before, the one on the fill
    not at all: its darkening is no larger than the stripes' own."""
    paper = np.full((60, 60, 3), 200, np.uint8)
    paper[::2] += 8  # paper grain: a spread of 5.9 levels
    fill = paper.copy()
    fill[:, ::6] = 20  # stripes of ink, one px in six
    fill[:, 1::6] = 20
    fill[:, 2::6] = 20
    ink = np.zeros((60, 60), bool)
    ink[26:34, 8:52] = True  # the mark: 8 px wide, across the stripes

    def with_mark(under):
        over = under.copy()
        over[ink] = np.minimum(over[ink], 20)
        return over

    quads = np.array([[[5, 5], [54, 5], [54, 54], [5, 54]]], float)
    on_paper = synth.mark_seen(with_mark(paper), paper, paper, quads)[0]
    on_fill_paper_noise = synth.mark_seen(with_mark(fill), fill, paper, quads)[0]
    on_fill_ground = synth.mark_seen(with_mark(fill), fill, fill, quads)[0]
    assert on_paper > synth.MARK_VISIBLE and on_fill_paper_noise > synth.MARK_VISIBLE
    assert on_fill_ground < synth.MARK_VISIBLE


@pytest.mark.parametrize("index", [3])
def test_alt_mark_seen_is_told_beside_the_same_photo(index):
    """``marks_seen=True`` on an alt photo draws the very same photo (byte for byte) and
    truth, and gives every cell with a mark (and only those) its ``mark_seen``."""
    plain, truth = synth.split_photo("tune", index, (800, 600), "alt")
    img, seen = synth.split_photo("tune", index, (800, 600), "alt", seen=True, marks_seen=True)
    assert np.array_equal(plain, img)
    assert [g["cells"] for g in seen["grids"]] == [g["cells"] for g in truth["grids"]]
    for grid in seen["grids"]:
        marked = {c for c, item in grid["cells"].items() if item["mark"]}
        assert set(grid["mark_seen"]) == marked and "shading_seen" in grid
        assert all(v >= 0 for v in grid["mark_seen"].values())


def test_only_a_pen_shaded_card_reads_its_marks_on_the_ground(monkeypatch):
    """Alt tune photo 19 is shaded with a gel pen, photo 3 with a soft pencil: the first's
    marks are measured against the ground under them, the second's against the paper's
    noise, as the classic style's marks on (pencil) shading are."""
    asked = []

    def photograph(rng, **kw):
        asked.append(kw["marks_on_ground"])
        return synth.photograph_card(rng, **kw)

    monkeypatch.setattr(card_styles, "photograph_card", photograph)
    for index in (19, 3):
        _, truth = card_styles.split_photo("tune", index, (320, 240))
        assert card_styles.pen_shaded(truth) == (truth["style"]["tools"][2] != "soft")
    assert asked == [True, False]
