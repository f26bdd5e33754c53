"""Engine and server move spellings -> the board's legal moves (both castling spellings)."""

from __future__ import annotations

from engine import Board, Move

# Lichess may spell standard castling king-takes-rook (e1h1) as well as e1g1; 960 boards the other way.
_CASTLING_SPELLINGS = {
    "e1h1": "e1g1", "e1a1": "e1c1", "e8h8": "e8g8", "e8a8": "e8c8",
    "e1g1": "e1h1", "e1c1": "e1a1", "e8g8": "e8h8", "e8c8": "e8a8",
}


def parse_move(board: Board, uci: str) -> Move | None:
    """The legal move ``uci`` names in ``board`` (also the other castling spelling), or None."""
    for spelling in (uci, _CASTLING_SPELLINGS.get(uci[:4], "") + uci[4:] if len(uci) >= 4 else ""):
        if not spelling or len(spelling) < 4:
            continue
        try:
            move = board.parse_uci(spelling)
        except ValueError:
            continue
        if move in board.legal_moves:
            return move
    return None
