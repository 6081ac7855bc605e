"""Reading and appending JSON files with one-line errors.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
>>> append_jsonl(path, {"action": "end"})
>>> path.read_text()
'{"action": "end"}\\n'
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from piecebridge.errors import UserError


def read_text(path: str | os.PathLike[str]) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a text file (not UTF-8)") from None
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror})") from None


def load_json(path: str | os.PathLike[str]) -> Any:
    """Parse a JSON file; a missing file or malformed JSON is a :class:`UserError`."""
    text = read_text(path)
    if not text.strip():
        raise UserError(f"{path}: empty file (a JSON object was expected)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UserError(
            f"{path}: malformed JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None


def parses(line: str) -> bool:
    """Whether ``line`` is one JSON value.

    >>> parses('{"action": "end"}'), parses('{"action": "en')
    (True, False)
    """
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True


def complete_lines(text: str) -> tuple[list[str], bool]:
    """The lines of a JSON-lines ``text`` without a last line a crash cut off mid-write,
    and whether there was one.

    Only a last line lacking its newline that does not parse counts as cut off: lines are
    written whole with their newline (:func:`append_jsonl`), so any other bad line is
    damage for the reader to name.

    >>> complete_lines('{"a": 1}\\n{"b"')
    (['{"a": 1}'], True)
    >>> complete_lines('{"a": 1}\\n{"b"\\n')
    (['{"a": 1}', '{"b"'], False)
    """
    lines = text.splitlines()
    if lines and not text.endswith("\n") and not parses(lines[-1]):
        return lines[:-1], True
    return lines, False


def append_jsonl(path: str | os.PathLike[str], item: Any) -> None:
    """Append one JSON line and fsync it, so a crash never loses a committed line."""
    line = json.dumps(item, separators=(", ", ": ")) + "\n"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())
