"""The referee's game log: an append-only, fsync'd JSONL record that also resumes a game.

Line 1 is the rules engine's record header; ``{"action": ...}`` lines are the actions the
referee accepted, so ``piecebridge reflec check LOG`` replays the game. The other lines are
for people and for ``--resume``: ``{"observed": board, "t": ...}`` (a committed view),
``{"referee": {...}}`` (flags, pieces awaiting removal, notes). Replay skips them.
A misread the players confirmed is ``{"referee": {"confirmed": [cells], "aliases": {cell:
[shown, meant]}}}``; when it stops applying (see ``Judge.aliases``) the log says
``{"referee": {"alias_dropped": {cell: why}}}``, and ``--resume`` forgets it too.

>>> import tempfile, pathlib
>>> from piecebridge.rules import reflec
>>> path = pathlib.Path(tempfile.mkdtemp()) / "game.jsonl"
>>> log = GameLog.create(path, reflec.new_game(["suns", "moons"]))
>>> log.action("place c4 suns north", t=1.5)
>>> [s.phase for s in reflec.replay(path.read_text().splitlines())]
['drop', 'drop']
"""

from __future__ import annotations

import errno
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from piecebridge.errors import UserError
from piecebridge.jsonio import append_jsonl, complete_lines, parses, read_text
from piecebridge.rules import reflec as R


@dataclass
class Resumed:
    """What a log says about the game so far."""

    state: R.GameState
    actions: list[str]
    observed: dict[str, Any] | None = None
    removal: list[str] = field(default_factory=list)
    removal_pieces: dict[str, Any] = field(default_factory=dict)
    frame: int | None = None
    #: cell -> [what the camera shows, what it means] (misreads the players confirmed and
    #: not dropped since); each a piece as JSON ({"coin": suit, "facing": dir},
    #: {"pawn": suit}) or None
    aliases: dict[str, list[Any]] = field(default_factory=dict)


class GameLog:
    """Appends lines to ``path``; every write is flushed and fsync'd before returning."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @classmethod
    def create(cls, path: str | os.PathLike[str], state: R.GameState) -> GameLog:
        p = Path(path)
        if p.is_dir():
            raise UserError(f"{p}: is a folder; --log names the game log file to write")
        if p.exists() and p.stat().st_size:
            raise UserError(f"{p}: the log exists already (use --resume {p} to continue it)")
        p.parent.mkdir(parents=True, exist_ok=True)
        log = cls(p)
        append_jsonl(p, R.record_header(state))
        return log

    @classmethod
    def reopen(cls, path: str | os.PathLike[str]) -> GameLog:
        """Continue a log after a crash: a torn last line (the crash came mid-write) is cut
        off, so the lines appended next start on a line of their own and the log replays."""
        p = Path(path)
        data = p.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            with open(p, "r+b") as f:
                if parses(data[end:].decode("utf-8", "replace")):
                    f.seek(0, os.SEEK_END)
                    f.write(b"\n")  # whole but unterminated: keep it
                else:
                    f.truncate(end)
                f.flush()
                os.fsync(f.fileno())
        return cls(p)

    def write(self, item: dict[str, Any]) -> None:
        append_jsonl(self.path, item)

    def write_many(self, items: list[dict[str, Any]]) -> None:
        """Append several lines with one flush and fsync (a torn tail is cut on resume)."""
        text = "".join(json.dumps(item, separators=(", ", ": ")) + "\n" for item in items)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())

    def action(self, notation: str, t: float | None = None, **extra: Any) -> None:
        self.actions([notation], t, **extra)

    def actions(self, notations: list[str], t: float | None = None, **extra: Any) -> None:
        items = []
        for notation in notations:
            item: dict[str, Any] = {"action": notation}
            if t is not None:
                item["t"] = round(t, 3)
            item.update(extra)
            items.append(item)
        self.write_many(items)

    def observed(self, board: dict[str, Any], t: float, frame: int | None = None) -> None:
        item: dict[str, Any] = {"observed": _plain(board), "t": round(t, 3)}
        if frame is not None:
            item["frame"] = frame
        self.write(item)

    def note(self, **info: Any) -> None:
        self.write({"referee": info})


def hold(path: str | os.PathLike[str]) -> IO[bytes] | None:
    """Take the log for this session: an exclusive lock (released when the handle closes or
    the process ends, a crash included), so a second referee resuming a game still being
    refereed is refused instead of interleaving its lines with the first's.

    Returns the handle to keep open (None where the system has no ``flock``, or where the
    file system refuses locks: NFS without a lock daemon, some network mounts; the game then
    goes on unlocked, as it did before logs were held).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    handle = open(path, "rb")  # noqa: SIM115 - held for the whole session
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        handle.close()
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):  # another process holds it
            raise UserError(
                f"{path}: another referee is still writing this game (stop it first)"
            ) from None
        return None
    return handle


def _plain(board: dict[str, Any]) -> dict[str, Any]:
    """The board without confidences (smaller log lines; the view is what matters)."""
    plain = {
        "format": "reflec-board/1",
        "coins": [{k: c[k] for k in ("cell", "suit", "facing")} for c in board.get("coins", [])],
        "pawns": [{k: p[k] for k in ("cell", "suit")} for p in board.get("pawns", [])],
        "unknown": list(board.get("unknown", [])),
    }
    if board.get("unsure_empty"):
        plain["unsure_empty"] = list(board["unsure_empty"])
    return plain


def read_log(path: str | os.PathLike[str]) -> Resumed:
    """Replay a referee log: the state after its last action, the last view, pending removal.

    A torn last line (the crash happened mid-write) is ignored; any other damage is a
    :class:`UserError` naming the line.
    """
    p = Path(path)
    # Missing, a folder, not UTF-8: one line each. A last line the crash tore is set aside
    # (GameLog.reopen cuts it off the file alike); any other bad line is named below.
    lines, _ = complete_lines(read_text(p))
    if not any(line.strip() for line in lines):
        raise UserError(f"no game recorded in {p}: it holds no complete line")
    try:
        states = R.replay(lines)
    except R.RecordError as error:
        raise UserError(f"{p}: {error}") from None
    actions: list[str] = []
    observed = None
    removal: list[str] = []
    pieces: dict[str, Any] = {}
    frame = None
    aliases: dict[str, list[Any]] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        item = json.loads(line)
        why = _damage(item)
        if why:  # a hand-edited or damaged log: name the line rather than crash on it
            raise UserError(f"{p}: line {number}: {why}")
        if "action" in item:
            actions.append(item["action"])
            observed = None  # a view before the last action is history
        if "observed" in item:
            observed = item["observed"]
        if "frame" in item:
            frame = item["frame"]
        info = item.get("referee")
        if isinstance(info, dict) and "frame" in info:
            frame = info["frame"]
        if isinstance(info, dict) and "removal" in info:
            removal = list(info["removal"])
            pieces = info.get("pieces", {})
        if isinstance(info, dict) and isinstance(info.get("aliases"), dict):
            aliases.update(info["aliases"])
        if isinstance(info, dict) and isinstance(info.get("alias_dropped"), dict):
            for cell in info["alias_dropped"]:
                aliases.pop(cell, None)
    return Resumed(states[-1], actions, observed, removal, pieces, frame, aliases)


def _damage(item: dict[str, Any]) -> str | None:
    """What is wrong with a log line's referee members (None when nothing is).

    >>> _damage({"referee": {"removal": "c4"}})
    "'removal' must be a list of cells"
    >>> _damage({"observed": {"format": "reflec-board/1", "coins": [], "pawns": []}, "frame": 3})
    """
    if "frame" in item and (type(item["frame"]) is not int or item["frame"] < 0):
        return "'frame' must be a frame number"
    if "observed" in item and not _is_view(item["observed"]):
        return "'observed' is not a view of the board (reflec-board/1)"
    info = item.get("referee")
    if not isinstance(info, dict):
        return None  # a note for people
    if "frame" in info and (type(info["frame"]) is not int or info["frame"] < 0):
        return "'frame' must be a frame number"
    if "removal" in info:
        removal = info["removal"]
        if not isinstance(removal, list) or not all(_is_cell(c) for c in removal):
            return "'removal' must be a list of cells"
        try:
            R.Board.from_json(info.get("pieces", {}))
        except R.ReflecError as error:
            return f"'pieces' is not a board: {error}"
    aliases = info.get("aliases")
    if aliases is not None and not (
        isinstance(aliases, dict)
        and all(
            _is_cell(c) and isinstance(v, list) and len(v) == 2 and all(map(_is_piece, v))
            for c, v in aliases.items()
        )
    ):
        return "'aliases' must map cells to [shown, meant]"
    if "alias_dropped" in info and not isinstance(info["alias_dropped"], dict):
        return "'alias_dropped' must map cells to reasons"
    return None


def _is_view(view: Any) -> bool:
    """A camera's view as logged: coins and pawns on cells (a misread view may break the
    rules, seven coins of a suit say, so it is not checked as a board)."""
    if not isinstance(view, dict):
        return False
    coins, pawns = view.get("coins", []), view.get("pawns", [])
    if not isinstance(coins, list) or not isinstance(pawns, list):
        return False
    return (
        all(isinstance(c, dict) and _is_cell(c.get("cell")) for c in coins + pawns)
        and all(_is_piece({"coin": c.get("suit"), "facing": c.get("facing")}) for c in coins)
        and all(_is_piece({"pawn": p.get("suit")}) for p in pawns)
        and isinstance(view.get("unknown", []), list)
        and all(_is_cell(c) for c in view.get("unknown", []))
    )


def _is_piece(data: Any) -> bool:
    """A piece as the log writes it: None, {"coin": suit, "facing": dir}, {"pawn": suit}."""
    if data is None:
        return True
    if not isinstance(data, dict):
        return False
    try:
        if "coin" in data:
            R.Suit.parse(data["coin"])
            R.Direction.parse(data["facing"])
        else:
            R.Suit.parse(data["pawn"])
    except (R.ReflecError, KeyError, TypeError, AttributeError, ValueError):
        return False
    return True


def _is_cell(name: Any) -> bool:
    try:
        R.parse_cell(name)
    except (R.ReflecError, TypeError, AttributeError, ValueError):
        return False
    return True


def action_segments(actions: list[str]) -> list[Counter[str]]:
    """Logged actions grouped by shots, turn ends and Drop-round views, for comparing logs:
    the order inside a segment is free (commuting actions; coins placed in one view).

    >>> action_segments(["move a1 a2 north", "spin c4 east", "end", "fire north"])
    [Counter({'move a1 a2 north': 1, 'spin c4 east': 1, 'end': 1}), Counter({'fire north': 1})]
    """
    out: list[Counter[str]] = []
    current: Counter[str] = Counter()
    for i, a in enumerate(actions):
        current[a] += 1
        last_place = a.startswith("place") and (
            i + 1 == len(actions) or not actions[i + 1].startswith("place")
        )
        if a == "end" or a.startswith("fire") or last_place:
            out.append(current)
            current = Counter()
    return [*out, current] if current else out
