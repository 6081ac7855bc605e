"""The error the command line turns into one clear line and exit code 1.

Anything a user can get wrong (a corrupt image, malformed JSON, a board that is
not in view) raises :class:`UserError` (or a subclass) with a message that says
what and why. The CLI prints ``piecebridge: error: <message>`` and exits 1;
no traceback reaches the user.
"""


class UserError(Exception):
    """Invalid or unreadable input: reported in one line, exit code 1."""
