"""Engine and server move spellings -> the board's legal moves (both castling spellings)."""

from __future__ import annotations

from engine import Board, Move


def parse_move(board: Board, uci: str) -> Move | None:
    """The legal move ``uci`` names in ``board``, or None. Castling may be spelled either way (king takes rook
    ``e1h1``, as Lichess may send it, or king to its square ``e1g1``): :meth:`engine.Board.parse_uci` takes both."""
    try:
        return board.parse_uci(uci)
    except ValueError:
        return None
