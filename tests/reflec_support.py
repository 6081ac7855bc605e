"""Helpers for the Reflec tests: positions written as compact text."""

from __future__ import annotations

from piecebridge.rules.reflec import Board, Coin, Direction, GameState, Options, Pawn, Suit
from piecebridge.rules.reflec import parse_cell as cell

SUIT = {"S": Suit.SUNS, "M": Suit.MOONS, "C": Suit.CROWNS, "A": Suit.ARMS}
FACE = {"n": Direction.NORTH, "e": Direction.EAST, "s": Direction.SOUTH, "w": Direction.WEST}


def board(*items: str) -> Board:
    """``board("Sn c4", "M a1")``: a suns coin facing north on c4, the moons laser on a1."""
    pieces = {}
    for item in items:
        what, where = item.split()
        pieces[cell(where)] = (
            Coin(SUIT[what[0]], FACE[what[1]]) if len(what) == 2 else Pawn(SUIT[what])
        )
    return Board.from_pieces(pieces)


def play_state(
    the_board: Board,
    players: str = "S M",
    current: int = 0,
    tile_points: int = 3,
    dice: tuple[int, ...] | None = None,
    options: Options | None = None,
    **fields: object,
) -> GameState:
    """A play-phase state; ``players="SC MA"`` gives two suits each."""
    suits = tuple(tuple(SUIT[ch] for ch in p) for p in players.split())
    n = len(suits)
    return GameState(
        players=suits,
        board=the_board,
        options=options or Options(),
        phase="play",
        current=current,
        alive=fields.pop("alive", (True,) * n),  # type: ignore[arg-type]
        dice=dice or (2,) * n,
        tile_points=tile_points,
        turn=fields.pop("turn", 5),  # type: ignore[arg-type]
        last_turn_of=fields.pop("last_turn_of", (-1,) * n),  # type: ignore[arg-type]
        **fields,  # type: ignore[arg-type]
    )


def names(cells) -> list[str]:
    from piecebridge.rules.reflec import cell_name

    return [cell_name(c) for c in cells]
