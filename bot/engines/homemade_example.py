"""An example of an engine written in Python (see :mod:`bot.engines.homemade`): it looks one move ahead and
takes the most material, mates when it can, and otherwise plays a random move among the best.

Try it: ``engine: {protocol: homemade, command: "bot.engines.homemade_example:MaterialGreedy"}`` in
config.yml, then ``schess-bot --sandbox --config config.yml``. Copy this file into your own package to start
your own engine (the class only has to be importable: ``your_package.your_module:YourClass``).
"""

from __future__ import annotations

import random

from bot.engines.homemade import Clocks, Evaluated, HomemadeEngine
from engine import WHITE, Board

#: material in centipawns by FEN letter; the Hawk (H, bishop + knight) and the Elephant (E, rook + knight)
PIECE_VALUES = {"P": 100, "N": 300, "B": 320, "R": 500, "Q": 900, "H": 750, "E": 850, "K": 0}
MATE_SCORE = 100_000


def material(board: Board, white: bool) -> int:
    """White's material minus Black's (pieces in hand count too), from ``white``'s point of view."""
    total = 0
    for square in range(64):
        piece = board.piece_at(square)
        if piece is not None:
            value = PIECE_VALUES[piece.upper()]
            total += value if piece.isupper() else -value
    for side, hand in board.pockets().items():
        for letter, count in hand.items():
            total += (1 if side == WHITE else -1) * PIECE_VALUES[letter] * count
    return total if white else -total


class MaterialGreedy(HomemadeEngine):
    """One ply: mate if possible, else the move that leaves the most material (random among equals)."""

    name = "MaterialGreedy 1.0 (homemade example)"

    def __init__(self) -> None:
        self.random = random.Random()

    def choose_move(self, board: Board, clocks: Clocks) -> Evaluated:
        mover = bool(board.turn)
        best_score, best_moves = -MATE_SCORE - 1, []
        for move in list(board.legal_moves):
            board.push(move)
            if board.is_checkmate():
                score = MATE_SCORE
            elif board.is_game_over(claim_draw=True):
                score = 0  # stalemate or a draw by rule
            else:
                score = material(board, mover)
            board.pop()
            if score > best_score:
                best_score, best_moves = score, [move]
            elif score == best_score:
                best_moves.append(move)
        move = self.random.choice(best_moves)
        if best_score == MATE_SCORE:
            return Evaluated(move, mate=1, depth=1)
        return Evaluated(move, score_cp=best_score, depth=1)
