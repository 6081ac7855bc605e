"""One module per command (or command group).

Every module here defines ``register(cli: piecebridge.cli.CommandTree) -> None``
and is discovered automatically by :func:`piecebridge.cli.build_parser`.
Handlers raise :class:`piecebridge.errors.UserError` for bad input.
"""
