"""piecebridge.vision: images in, observations (plain data) out.

Vision uses :mod:`piecebridge.calibration` (the lens, the board pose, the learned looks,
the setup file) and never the rules engines or the app.
"""
