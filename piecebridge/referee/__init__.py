"""The live referee (see piecebridge.referee.app)."""
