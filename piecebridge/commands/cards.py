"""``piecebridge cards``: the Business Card Games (Rotator, Reflector, Deflector, Defector).

- ``cards new GAME [--players N] [--layout L] [--seed S] [--option K=V ...]`` prints
  (or writes with ``--out``) a starting state as JSON;
- ``cards check RECORD.jsonl`` replays a game record: the line and reason of the
  first illegal action, exit 1;
- ``cards show STATE.json [--as PLAYER]`` draws the grids (or one player's view);
- ``cards play GAME [--bot random|greedy] ...`` plays a game out with bots and
  writes its record.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from piecebridge.errors import UserError
from piecebridge.outputs import write_text
from piecebridge.rules.bcg.common import BcgError
from piecebridge.rules.bcg.games import (
    GAMES,
    game_module,
    make_options,
    record_lines,
    replay,
    state_game,
)


def register(cli: Any) -> None:
    cli.group("cards", help="The Business Card Games: new games, record checks, views.")
    p = cli.command("new", group="cards", help="Write a starting state for GAME.")
    p.add_argument("game", metavar="GAME", help=f"one of {', '.join(GAMES)}")
    p.add_argument("--players", type=int, help="number of players")
    p.add_argument(
        "--layout", help="table layout (Deflector 3, 4-full, ...; Defector full, island)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed for hidden placements (default 0)")
    p.add_argument("--option", action="append", default=[], metavar="K=V", help="a rules option")
    p.add_argument("--out", type=Path, help="write the JSON here instead of printing it")
    p.set_defaults(handler=_new)

    p = cli.command("check", group="cards", help="Replay a JSONL game record.")
    p.add_argument("record", type=Path, metavar="RECORD.jsonl")
    p.add_argument("--json", action="store_true", help="print the final state as JSON")
    p.set_defaults(handler=_check)

    p = cli.command("show", group="cards", help="Draw a state's grids in the terminal.")
    p.add_argument("state", type=Path, metavar="STATE.json")
    p.add_argument("--as", dest="player", type=int, help="only what this player may see")
    p.set_defaults(handler=_show)

    p = cli.command("play", group="cards", help="Play GAME out with bots; write the record.")
    p.add_argument("game", metavar="GAME")
    p.add_argument("--players", type=int)
    p.add_argument("--layout")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", default=[], metavar="K=V")
    p.add_argument("--bot", choices=("random", "greedy"), default="greedy")
    p.add_argument("--out", type=Path, help="record file (default: print)")
    p.set_defaults(handler=_play)


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UserError(f"--option takes KEY=VALUE, not {pair!r}")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value  # a bare word such as board
    return out


def _start(args: argparse.Namespace) -> tuple[Any, Any]:
    try:
        module = game_module(args.game)
        kwargs: dict[str, Any] = {
            "seed": args.seed,
            "options": make_options(module, _parse_options(args.option)),
        }
        if args.players is not None:
            kwargs["players"] = args.players
        if args.layout is not None:
            kwargs["layout"] = args.layout
        return module, module.new_game(**kwargs)
    except BcgError as error:
        raise UserError(str(error)) from None


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text + "\n")
        return
    write_text(out, text + "\n")  # whole or not at all; UserError when it cannot


def _new(args: argparse.Namespace) -> int:
    module, state = _start(args)
    _emit(json.dumps(module.to_json(state), indent=1), args.out)
    return 0


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UserError(f"cannot read {path}: not a text file (not UTF-8)") from None
    except OSError as error:
        raise UserError(f"cannot read {path}: {error.strerror or error}") from None


def _parse_json(text: str, path: Path) -> Any:
    """JSON from ``path``'s text; empty or malformed: a UserError naming the file and where."""
    if not text.strip():
        raise UserError(f"{path}: empty file (a JSON object was expected)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(
            f"{path}: malformed JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None


def _check(args: argparse.Namespace) -> int:
    text = _read(args.record)
    try:
        state, count = replay(text.splitlines())
    except BcgError as error:
        raise UserError(f"{args.record}: {error}") from None
    module = state_game({"game": _game_name(state)})
    if args.json:
        print(json.dumps(module.to_json(state)))
        return 0
    result = module.winners(state)
    if result is None:
        outcome = "game not finished"
    elif result:
        outcome = "won by player " + ", ".join(str(w) for w in result)
    else:
        outcome = "no winner"
    print(f"ok: {count} actions replayed; {outcome}")
    return 0


def _game_name(state: Any) -> str:
    game = getattr(state, "game", None)
    if isinstance(game, str):
        return game
    return type(state).__name__.removesuffix("State").lower()


def _show(args: argparse.Namespace) -> int:
    try:
        data = _parse_json(_read(args.state), args.state)
        module = state_game(data)
        state = module.from_json(data)
        if module.GAME == "rotator":
            if args.player not in (None, 0):
                raise BcgError("Rotator has one player, player 0")
            text = module.render(state)
        else:
            text = module.render(state, args.player)
    except BcgError as error:
        raise UserError(f"{args.state}: {error}") from None
    print(text)
    return 0


def _play(args: argparse.Namespace) -> int:
    module, state = _start(args)
    rng = random.Random(args.seed)
    start, actions = state, []
    try:
        if module.GAME == "rotator":
            # A Rotator bot can survive forever: play under a turn limit (default 500).
            state = start = module.bot_game(state)
            bot = module.BOTS[args.bot]
            while module.winners(state) is None:
                action = bot(state, rng)
                actions.append(action)
                state, _ = module.apply(state, action)
        else:
            from piecebridge.rules.bcg.bots import choose

            while module.winners(state) is None:
                action = choose(state, rng, args.bot)
                actions.append(module.action_text(state, action))
                state, _ = module.apply(state, action)
        lines = record_lines(start, actions, seed=args.seed)
    except BcgError as error:
        raise UserError(str(error)) from None
    _emit("\n".join(lines), args.out)
    return 0
