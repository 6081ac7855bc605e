"""piecebridge: see a real game table, judge it by the rules, show the verdict.

Subpackages:

- :mod:`piecebridge.rules`        pure game engines (no I/O, no OpenCV)
- :mod:`piecebridge.vision`       images -> observations
- :mod:`piecebridge.calibration`  lens, board pose, piece looks
- :mod:`piecebridge.commands`     the ``piecebridge`` command line, one module per command
"""

__version__ = "0.1.0"
