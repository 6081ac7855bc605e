"""``piecebridge reflec fire|check|show``: the Reflec engine on the command line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from piecebridge.errors import UserError
from piecebridge.jsonio import complete_lines, load_json, read_text
from piecebridge.rules import reflec


def register(cli: Any) -> None:
    cli.group("reflec", help="Reflec rules: fire a laser, check a game record, show a position")

    fire = cli.command("fire", group="reflec", help="Trace a laser shot on a board.")
    fire.add_argument(
        "board", metavar="BOARD.json", help="a reflec-board/1 (or reflec-state/1) file"
    )
    fire.add_argument("--pawn", required=True, metavar="SUIT", help="the firing laser's suit")
    fire.add_argument("--dir", required=True, metavar="DIR", help="north, east, south or west")
    fire.add_argument("--json", action="store_true", help="print the spec's JSON object")
    fire.set_defaults(handler=run_fire)

    check = cli.command("check", group="reflec", help="Replay a JSONL game record.")
    check.add_argument("record", metavar="GAME.jsonl")
    check.add_argument("--json", action="store_true", help="print the final state as JSON")
    check.set_defaults(handler=run_check)

    show = cli.command("show", group="reflec", help="Show a position (terminal or PNG).")
    show.add_argument(
        "board", metavar="BOARD.json", help="a reflec-board/1 (or reflec-state/1) file"
    )
    show.add_argument("--png", metavar="OUT.png", help="write a diagram instead of text")
    show.add_argument("--fire", metavar="SUIT:DIR", help="draw the beam of this shot")
    show.set_defaults(handler=run_show)


def load_board(path: str) -> reflec.Board:
    """A board from a reflec-board/1 file, or the board of a reflec-state/1 file."""
    data = load_json(path)
    try:
        if isinstance(data, dict) and data.get("format") == "reflec-state/1":
            return reflec.state_from_json(data).board
        return reflec.Board.from_json(data)
    except reflec.ReflecError as error:
        raise UserError(f"{path}: {error}") from None


def shoot(
    board: reflec.Board, suit_name: str, direction_name: str
) -> tuple[int, reflec.Direction, reflec.Beam]:
    try:
        suit = reflec.Suit.parse(suit_name)
        direction = reflec.Direction.parse(direction_name)
    except reflec.ReflecError as error:
        raise UserError(str(error)) from None
    source = board.pawn_cell(suit)
    if source is None:
        raise UserError(f"there is no {suit.value} laser on the board")
    return source, direction, reflec.trace(board, source, direction)


def run_fire(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    _, _, beam = shoot(board, args.pawn, args.dir)
    result = beam.to_json(board)
    if args.json:
        print(json.dumps(result))
        return 0
    print(reflec.render_text(board, beam.path))
    print(f"path: {' '.join(result['path']) or '(none)'}")
    print(f"end: {_describe_end(result['end'])}")
    return 0


def _describe_end(end: dict[str, Any]) -> str:
    if end["kind"] == "edge":
        return "the beam leaves the board"
    if end["kind"] == "pawn":
        return f"hits the {end['suit']} laser on {end['cell']}"
    return f"loop: removes the coins on {', '.join(end['removed'])}"


def run_check(args: argparse.Namespace) -> int:
    lines, cut_off = complete_lines(read_text(args.record))
    if cut_off:  # mid-write (a crash, a full disk): the lines before it are the record
        print(
            f"piecebridge: note: {args.record}: its last line is cut off (a crash "
            "mid-write?) and was not checked; `piecebridge referee --resume` repairs a "
            "referee log",
            file=sys.stderr,
        )
    try:
        states = reflec.replay(lines)
    except reflec.RecordError as error:
        raise UserError(f"{args.record}: {error}") from None
    final = states[-1]
    if args.json:
        print(json.dumps(reflec.state_to_json(final)))
        return 0
    actions = len(states) - 1
    if final.phase == "over":
        assert final.winner is not None
        outcome = f"game over, {'+'.join(s.value for s in final.players[final.winner])} won"
    elif final.phase == "drop":
        outcome = "still in the Drop round"
    else:
        who = "+".join(s.value for s in final.current_suits)
        outcome = f"{who} to play, {final.points_left} action points left"
    print(f"{args.record}: {actions} legal actions; {outcome}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    board = load_board(args.board)
    shot = None
    if args.fire:
        suit, _, direction = args.fire.partition(":")
        if not direction:
            raise UserError(f"--fire wants SUIT:DIR such as suns:north, not {args.fire!r}")
        shot = shoot(board, suit, direction)
    if args.png:
        return _write_png(board, shot, Path(args.png))
    print(reflec.render_text(board, shot[2].path if shot else ()))
    if shot:
        print(f"end: {_describe_end(shot[2].to_json(board)['end'])}")
    return 0


def _write_png(board: reflec.Board, shot: Any, out: Path) -> int:
    from piecebridge.diagram import draw_board  # the diagram needs OpenCV; text does not
    from piecebridge.outputs import write_image

    if shot is None:
        image = draw_board(board)
    else:
        source, direction, beam = shot
        image = draw_board(board, beam, source, direction)
    write_image(out, image)
    print(f"wrote {out}")
    return 0
