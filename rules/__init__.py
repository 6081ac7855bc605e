"""piecebridge.rules: pure game engines.

No I/O and no imports from the rest of piecebridge (or OpenCV): game states and
actions are plain, immutable data.
"""
