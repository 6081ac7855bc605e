"""Checkered coins in the open whose facing the look alone names (ring22): their suit's mark
(a ring broken at the top) is never learned, so no mark read comes, and the look's lead over
turns it is fairly alike under (``cells._sure_rivals``) sets the facing on a board of two
tile tones (``cells._look_alone_on_tones``). Tune checkered rigs 2 and 9 (calibration
photos and shots 11 and 37), rendered from their seeds (seconds each)."""

from __future__ import annotations

from piecebridge.vision import cells
from piecebridge.vision.learn import learn_setup
from piecebridge.vision.reader import BoardReader

from piecebridge.synth.reflec import Difficulty, calibration_sample, sample

REALISTIC = Difficulty.parse("realistic")


def _read(rig: int, index: int) -> tuple[dict[str, cells.CellDecision], cells.PieceLooks]:
    setup = learn_setup(calibration_sample("tune", rig, REALISTIC, art="checkered").image)[0]
    reader = BoardReader(setup=setup)
    decisions = reader.read(sample("tune", index, REALISTIC, art="checkered").image).decisions
    return {d.cell: d for d in decisions}, reader.looks


def test_a_suns_coin_facing_south_is_read_by_its_look():
    """11:a5, a suns coin facing south: its look leads every other turn by 0.28, but the
    suns' look is fairly alike turned east and west and no mark is learned."""
    found, looks = _read(2, 11)
    d = found["a5"]
    assert "suns" not in looks.marked and looks.pawns_on_tone
    assert d.mark == 0 and d.facing_margin >= looks.min_facing_margin
    assert (d.kind, d.suit, d.facing) == ("coin", "suns", "south")


def test_an_arms_coin_facing_south_is_read_by_its_look():
    """37:d7, an arms coin facing south: its look leads by 0.25, the arms' look fairly alike
    turned half way round."""
    found, _ = _read(9, 37)
    assert (found["d7"].kind, found["d7"].suit, found["d7"].facing) == ("coin", "arms", "south")
