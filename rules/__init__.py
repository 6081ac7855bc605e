"""piecebridge.rules: pure game engines.

No I/O and no imports from the rest of piecebridge (or OpenCV): game states and
actions are plain, immutable data.
"""

from __future__ import annotations

import json


def not_json(error: json.JSONDecodeError) -> str:
    """How a record line that is not JSON is described (the records name the line).

    >>> try:
    ...     json.loads('{"action": "end')
    ... except json.JSONDecodeError as e:
    ...     print(not_json(e))
    not JSON (Unterminated string starting at column 12)
    """
    return f"not JSON ({error.msg.removesuffix(' at')} at column {error.colno})"
