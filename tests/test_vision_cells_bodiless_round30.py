"""Round 30 of cell decisions (the piece's kind): a cell read as a pawn that is light, soft (little
fine detail) and whose middle is mostly plain tile, lit or shaded, shows no pawn's body there (a
fingertip with its soft shadow over an empty cell, a woodburned coin whose face is the tile's own
wood): no pawn is named there, by its look or by a later rule."""

from __future__ import annotations

import numpy as np
from piecebridge.vision import cells
from piecebridge.vision.cells import CellDecision, PieceLooks
from vision_support import read_tune_shot, wrong_cells

REFS = cells.BoardRefs(np.array([128.0, 128.0]), 1.0, 1.0, 200.0)


class _Seen:
    """A stand-in for a cell's kept pixels whose disc is ``tile`` plain tile."""

    def __init__(self, tile: float) -> None:
        self.tile = tile

    def disc_tile_share(self) -> float:
        return self.tile

    def hand_edge_view(self) -> tuple[int, float]:
        return 99, 0.0  # much in view besides what enters from the edge: not plain tile

    def piece_share(self) -> float:
        return -1.0


LOOKS = PieceLooks({}, {}, learned=True)


def _pawn(light: float, tile: float | None, detail: float = 1.5) -> CellDecision:
    """A cell whose look names the moons pawn surely, ``light`` over the typical cell, its
    fine detail ``detail`` x ``detail_empty``."""
    d = CellDecision("b6", "unknown", similarity=0.88, margin=0.4, best=("pawn", "moons"),
                     energy_ratio=9.0, detail_ratio=detail * LOOKS.detail_empty,
                     light_ratio=light)  # fmt: skip
    d.seen_later = None if tile is None else _Seen(tile)
    return d


def _board(d: CellDecision) -> list[CellDecision]:
    """``d`` among 63 plain empty cells (quiet, no detail)."""
    names = [c for c in cells.CELL_ORDER if c != d.cell]
    return [d] + [CellDecision(c, "unknown", energy_ratio=0.5, detail_ratio=0.5) for c in names]


def test_a_shadow_counts_as_tile_and_a_piece_does_not():
    window = np.zeros((cells.HAND_EDGE_WINDOW, cells.HAND_EDGE_WINDOW, 3), np.float32)
    window[..., 0] = 200.0
    assert cells.disc_tile_share(window, REFS) == 1.0
    window[..., 0] = 110.0  # a hand's shadow, 0.55 of the tile's light
    assert cells.disc_tile_share(window, REFS) == 1.0
    window[..., 0] = 60.0  # darker than any shadow: a dark piece
    assert cells.disc_tile_share(window, REFS) == 0.0


def test_light_soft_and_mostly_tile_shows_no_pawn_body():
    # printplay 26/0 b6 (a fingertip's shadow): 0.90 light, 0.69 tile, 1.07 x detail
    assert cells._no_pawn_body(_pawn(0.90, 0.69, 1.07), LOOKS)
    # woodburned 406/0 d6 (a crowns coin): 0.81 light, 0.59 tile, 1.33 x detail
    assert cells._no_pawn_body(_pawn(0.81, 0.59, 1.33), LOOKS)
    # woodburned 298/2 d2 (a moons coin): 1.0 light, 0.69 tile, 1.88 x detail
    assert cells._no_pawn_body(_pawn(0.997, 0.69, 1.88), LOOKS)


def test_a_disc_all_tile_shows_no_pawn_body_whatever_its_light():
    # printplay 628/3 d7 (a hand's deep shadow): 0.56 light, 1.0 tile, 1.9 x detail
    assert cells._no_pawn_body(_pawn(0.56, 1.0, 1.9), LOOKS)
    assert cells._no_pawn_body(_pawn(0.56, 0.86, 1.9), LOOKS)
    assert not cells._no_pawn_body(_pawn(0.56, 0.86, 6.0), LOOKS)  # a sharp outline
    # woodburned 35/2 g3 (the arms skittle leaning out of its cell): 0.73 light, 0.68 tile
    assert not cells._no_pawn_body(_pawn(0.73, 0.68, 1.24), LOOKS)


def test_a_pawn_dark_or_covering_its_middle_keeps_its_body():
    # woodburned 354/3 a8 (the crowns skittle): 0.79 light, 0.66 tile, 1.33 x detail
    assert not cells._no_pawn_body(_pawn(0.788, 0.66, 1.33), LOOKS)
    # acrylic 14/2 c1 (a light arms pawn): 0.85 light, 0.51 tile
    assert not cells._no_pawn_body(_pawn(0.85, 0.51), LOOKS)
    # mixed 8/0 f4 (the yellow crowns pawn, lighter than the tile): 1.43 light, 0.0 tile
    assert not cells._no_pawn_body(_pawn(1.43, 0.0), LOOKS)
    # pixels not kept (no learned looks): not measured, nothing ruled out
    assert not cells._no_pawn_body(_pawn(0.90, None), LOOKS)


def test_a_pawns_sharp_outline_keeps_its_body():
    # acrylic 55/2 b2 (a clear arms pawn, the tile through it): 0.83 light, 0.58 tile, 6.0 x
    assert not cells._no_pawn_body(_pawn(0.83, 0.58, 6.0), LOOKS)
    # printplay 119/1 f7 (a crowns tent lying flat): 0.86 light, 0.64 tile, 2.55 x
    assert not cells._no_pawn_body(_pawn(0.86, 0.64, 2.55), LOOKS)


def test_no_pawn_is_named_where_no_body_shows():
    (d, *_) = cells.decide_all(_board(_pawn(0.90, 0.69)), LOOKS)
    assert d.kind == "unknown"
    (d, *_) = cells.decide_all(_board(_pawn(0.60, 0.69)), LOOKS)
    assert (d.kind, d.suit) == ("pawn", "moons")


def test_a_bodiless_cell_is_no_pawn_the_later_rules_take_up():
    looks = PieceLooks({}, {}, learned=True)
    d, other = _pawn(0.90, 0.69), _pawn(0.60, 0.69)
    cells._claim_pawns([(0.9, 0.3, d, "moons"), (0.8, 0.2, other, "moons")], set(), looks)
    assert (d.kind, d.no_body) == ("unknown", True)
    assert (other.kind, other.suit) == ("pawn", "moons")  # the suit was left free for it


def test_only_the_kept_claim_without_a_body_stays_unknown():
    # Two bodiless claims on one suit: the one that would have been kept is marked (no tile
    # rule may call it empty), the weaker one is left to them as before.
    first, second, real = _pawn(0.90, 0.69), _pawn(0.85, 0.70), _pawn(0.60, 0.50)
    for d in (first, second, real):
        d.kind, d.suit = "pawn", "moons"
    assert cells._bodied([first, second, real], LOOKS) == [real]
    assert (first.kind, first.no_body, second.kind, second.no_body) == (
        "unknown", True, "unknown", False,
    )  # fmt: skip
    # A bodiless claim behind a pawn's own: left to the tile rules, not marked.
    behind = _pawn(0.90, 0.69)
    behind.kind, behind.suit = "pawn", "moons"
    assert cells._bodied([real, behind], LOOKS) == [real]
    assert (behind.kind, behind.no_body) == ("unknown", False)


def test_a_cell_without_a_body_is_not_called_tile():
    d = _pawn(0.90, 0.69)
    d.no_body = True
    d.tile_share, d.piece_share = 0.9, 0.1  # what _tile_partly_seen would call plain tile
    cells._tile_partly_seen(d)
    assert d.kind == "unknown"
    d.no_body = False
    cells._tile_partly_seen(d)
    assert d.kind == "empty"
    # ... nor by _tile_beside_a_hand (fresh woodburned 626/3 d1, a skittle lying out of its
    # cell, its body taken for a hand entering it)
    d = _pawn(0.83, 0.74, 1.13)
    d.seen_later = type("Seen", (), {"hand_edge_view": lambda self: (0, 0.38)})()
    d.no_body = True
    cells._tile_beside_a_hand(d)
    assert d.kind == "unknown"
    d.no_body = False
    cells._tile_beside_a_hand(d)
    assert d.kind == "empty"


def test_a_fingertips_shadow_is_not_read_as_the_black_tent():
    """About 5 s: tune printplay 26/0 b6 (an empty cell, a fingertip and its shadow) is no
    longer read as the moons pawn, and no cell of the shot is read wrong."""
    want, got, unknown = read_tune_shot(26, 26 * 4 + 0, "printplay")
    assert "b6" not in want and got.get("b6") != ("pawn", "moons")
    assert wrong_cells(want, got, unknown) == []


def test_a_woodburned_coin_is_not_named_a_pawn_by_elimination():
    """About 5 s: tune woodburned 406/0 d6 (a crowns coin, named the suns pawn by
    ``_pawns_by_their_colour``) is no longer a pawn, and no cell of the shot is read wrong."""
    want, got, unknown = read_tune_shot(406, 406 * 4 + 0, "woodburned")
    assert want["d6"][:2] == ("coin", "crowns") and got.get("d6", ("",))[0] != "pawn"
    assert wrong_cells(want, got, unknown) == []
