"""The game's position, rebuilt with :class:`engine.Board` from the initial FEN and the server's move list.

The server's move list is the truth: when it only grew, the new moves are pushed; when it shrank or changed
(a takeback, a reconnect after lines were lost), the board is rebuilt from the start. The bot never applies
its own move locally: it waits to see it in the server's list.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engines.notation import parse_move
from bot.wire.events import Variant
from engine import Board, Move


class ServerMoveError(ValueError):
    """The server's move list contains a move the board rejects."""


def new_board(initial_fen: str | None, variant: Variant) -> Board:
    """The start position (``initial_fen`` None) or the given FEN, for a supported variant.

    Raises ValueError for an unsupported variant, a chess960 game without a FEN, or a FEN the board rejects.
    """
    if not variant.supported:
        raise ValueError(f"unsupported variant {variant.name!r}")
    if initial_fen is None:
        if variant.chess960:
            raise ValueError(f"{variant.config_name} game without an initial FEN")
        return Board(variant=variant.name, chess960=False)
    return Board(initial_fen, variant=variant.name, chess960=variant.chess960)


def fallback_move(board: Board) -> Move | None:
    """A legal move to play when the engine gives none: deterministic (smallest UCI string)."""
    moves = list(board.legal_moves)
    return min(moves, key=lambda move: move.uci()) if moves else None


class GameBoard:
    """Initial position + server move list -> current board."""

    def __init__(self, initial_fen: str | None, variant: Variant) -> None:
        self.variant = variant
        self.initial_fen = initial_fen
        self.start = new_board(initial_fen, variant)
        self.start_fen: str = self.start.fen()
        self.board = self.start.copy()
        self.server_moves: list[str] = []
        self.rebuilds = 0

    def update(self, moves: Sequence[str]) -> None:
        """Bring the board to the server's move list. Raises :class:`ServerMoveError` (board unchanged)."""
        moves = list(moves)
        known = len(self.server_moves)
        if moves[:known] == self.server_moves:
            board, applied, new = self.board.copy(), list(self.server_moves), moves[known:]
        else:
            board, applied, new = self.start.copy(), [], moves
            self.rebuilds += 1
        for uci in new:
            move = parse_move(board, uci)
            if move is None:
                raise ServerMoveError(f"illegal move {uci!r} after {len(applied)} plies in {board.fen()}")
            board.push(move)
            applied.append(uci)
        self.board, self.server_moves = board, applied

    @property
    def ply(self) -> int:
        return len(self.server_moves)

    def engine_moves(self) -> list[str]:
        """The moves in the board's own (Fairy-Stockfish) spelling, for ``position fen ... moves``."""
        return [move.uci() for move in self.board.move_stack]

    def san_moves(self) -> list[str]:
        """SAN of every move played, replayed from the start."""
        replay = self.start.copy()
        sans = []
        for move in self.board.move_stack:
            sans.append(replay.san(move))
            replay.push(move)
        return sans
