"""piecebridge.vision: images in, observations (plain data) out.

Vision may use :mod:`piecebridge.calibration`; it never imports the rules engines.
"""
