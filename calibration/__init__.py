"""piecebridge.calibration: camera lens, board pose and the look of the pieces."""
