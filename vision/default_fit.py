"""Without a setup: do the drawn stand-in looks fit this set of pieces at all?

A reader without a setup (``piecebridge see IMAGE`` with no ``--setup``) decides cells by
generic looks in the standard suit colours (:meth:`piecebridge.vision.cells.PieceLooks.default`:
pale coins with a coloured symbol, pawns as discs of the four colours). For a set no one has
seen they may not fit: a one-ink set (woodburned) has no suit colours at all, and its pawns'
dyes are not the standard ones either (a dark green or blue pawn in shade reads as the black
suit's). Where the stand-ins explain hardly any of the coins this shot shows, they are no model
of this set, and a suit they name is a guess: a wrong piece is worse than an unknown one for a
referee, so every piece named is left unknown instead, and so is a cell read empty only
just (the stand-ins' emptiness thresholds are no model of the set either).

>>> from types import SimpleNamespace as C
>>> cells = [C(kind="unknown", covered=False, suit=None, confidence=0.0) for _ in range(8)]
>>> cells.append(C(kind="pawn", covered=False, suit="moons", confidence=1.0))
>>> defaults_fit(cells)
False
>>> left_unknown_where_unfit(cells)
1
>>> cells[-1].kind, cells[-1].suit
('unknown', None)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from piecebridge.vision.cells import CellDecision

#: The stand-ins fit a set when they name at least this share of the cells that hold a coin
#: by their look: coins named over coins named and cells left undecided in view (not under a
#: hand), pawns left out (their look is a plain disc in any set). Tune split without a setup,
#: rigs 0-9 per art, per shot: woodburned 0.00-0.10 (one-ink coins, none read right), acrylic
#: and printplay 0.00 (no coin read), piecepackr 0.14-0.92; the mixed set's ebony shots read
#: no coin either (0.00-0.10), its classic and french ones 0.14 and up.
DEFAULT_FIT_SHARE = 0.12
#: ... judged only where at least this many cells hold an undecided thing or a named coin:
#: fewer (an opening with only pawns, a hand over most of the board) tell nothing of the set.
DEFAULT_FIT_CELLS = 5
#: ... and there a cell in view is empty only when read so with at least this confidence:
#: the stand-ins' emptiness thresholds are no model of this set either, and a cell read
#: empty near them (confidence 0.5-0.6: detail or structure within a tenth of the threshold)
#: may hold a coin of the tile's own colour. Tune woodburned 0-9 without a setup: 9 coins
#: in view read empty so, no empty cell; acrylic and printplay 4 and 15 empty cells.
UNFIT_EMPTY_SURE = 0.6
#: What the user is told, once, where the stand-ins fit none of a set's coins (``see``,
#: ``referee``): the way out is a setup learned from the calibration layout.
UNFIT_NOTE = (
    "the standard Piecepack looks fit none of this set's coins, so its pieces are left"
    " unknown; teach it the set with `piecebridge calibrate board`"
)


def coin_share(cells: Sequence[CellDecision]) -> tuple[float, int]:
    """The share of coin-holding cells in view that the looks named coins, and how many
    cells it is over (named coins and undecided cells not under a hand).

    >>> from types import SimpleNamespace as C
    >>> coin_share([C(kind="coin", covered=False), C(kind="unknown", covered=False),
    ...             C(kind="unknown", covered=True), C(kind="pawn", covered=False)])
    (0.5, 2)
    """
    coins = sum(d.kind == "coin" for d in cells)
    undecided = sum(d.kind == "unknown" and not d.covered for d in cells)
    seen = coins + undecided
    return (coins / seen if seen else 1.0), seen


def defaults_fit(cells: Sequence[CellDecision]) -> bool:
    """Do the stand-in looks fit the pieces this shot shows (see ``DEFAULT_FIT_SHARE``)?
    Too few cells to judge count as a fit (the decisions stand as before)."""
    share, seen = coin_share(cells)
    return seen < DEFAULT_FIT_CELLS or share >= DEFAULT_FIT_SHARE


def _doubtful(d: CellDecision) -> bool:
    """A named piece, or a cell in view read empty only just (see ``UNFIT_EMPTY_SURE``)."""
    if d.kind in ("coin", "pawn"):
        return True
    return d.kind == "empty" and not d.covered and d.confidence < UNFIT_EMPTY_SURE


def left_unknown_where_unfit(cells: Sequence[CellDecision]) -> int:
    """Leave every named piece, and every cell read empty only just, unknown where the
    stand-in looks do not fit this set (see :func:`defaults_fit`); how many were. Only for
    looks not learned (no setup)."""
    if defaults_fit(cells):
        return 0
    doubtful = [d for d in cells if _doubtful(d)]
    for d in doubtful:
        d.kind, d.suit, d.facing, d.confidence = "unknown", None, None, 0.0
    return len(doubtful)


def stand_ins_unfit(looks: object, decisions: Sequence[CellDecision]) -> bool:
    """Were ``decisions`` made by the stand-in looks (``looks`` not learned: no setup) on a
    set they fit none of the coins of, so that its pieces were left unknown? (After
    :func:`left_unknown_where_unfit` the named coins are unknown, so the fit stays failed.)

    >>> from types import SimpleNamespace as C
    >>> undecided = [C(kind="unknown", covered=False) for _ in range(8)]
    >>> stand_ins_unfit(C(learned=False), undecided), stand_ins_unfit(C(learned=True), undecided)
    (True, False)
    """
    return not getattr(looks, "learned", True) and not defaults_fit(decisions)
