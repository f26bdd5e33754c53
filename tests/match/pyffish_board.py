"""The independent referee of the tests, built on pyffish (Fairy-Stockfish's own rules, which pychess.org
judges moves with): the match runner's arbiter in its tests, and the loopback server's board in the
end-to-end tests, so that a rules bug shared by the bot and ``engine.Board`` cannot hide. Moves are UCI strings.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import List, Optional

import pyffish as sf


class Termination(enum.Enum):
    """Same names as engine.Termination."""

    CHECKMATE = 1
    STALEMATE = 2
    INSUFFICIENT_MATERIAL = 3
    FIFTY_MOVES = 4
    THREEFOLD_REPETITION = 5


@dataclass
class Outcome:
    """Same shape as engine.Outcome."""

    termination: Termination
    winner: Optional[bool]

    def result(self) -> str:
        """1-0, 0-1 or 1/2-1/2."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner else "0-1"


class PyffishBoard:
    """Board(fen, variant, chess960) with moves as UCI strings."""

    def __init__(self, fen: str, variant: str = "seirawan", chess960: bool = False):
        if sf.validate_fen(fen, variant, chess960) != sf.FEN_OK:
            raise ValueError(f"invalid FEN for {variant}: {fen}")
        self.variant = variant
        self.chess960 = chess960
        self.start_fen = fen
        self.move_stack: List[str] = []
        self._fen = sf.get_fen(variant, fen, [], chess960)

    @property
    def turn(self) -> bool:
        return self.fen().split()[1] == "w"

    @property
    def fullmove_number(self) -> int:
        return int(self.fen().split()[5])

    @property
    def legal_moves(self) -> List[str]:
        return sf.legal_moves(self.variant, self._fen, [], self.chess960)

    def parse_uci(self, uci: str) -> str:
        if uci not in self.legal_moves:
            raise ValueError(f"illegal uci: {uci!r} in {self.fen()}")
        return uci

    def san(self, move: str) -> str:
        return sf.get_san(self.variant, self.fen(), move, self.chess960)

    def parse_san(self, san: str) -> str:
        # pyffish's get_san costs a millisecond or so: only ask about moves to the square the SAN names
        candidates = [move for move in self.legal_moves if san.startswith("O-O") or move[2:4] in san]
        matches = [move for move in candidates if self.san(move) == san]
        if len(matches) != 1:
            raise ValueError(f"illegal or ambiguous san: {san!r} in {self.fen()}")
        return matches[0]

    def push(self, move: str) -> None:
        self.move_stack.append(move)
        self._fen = sf.get_fen(self.variant, self.start_fen, self.move_stack, self.chess960)

    def push_uci(self, uci: str) -> str:
        move = self.parse_uci(uci)
        self.push(move)
        return move

    def pop(self) -> str:
        move = self.move_stack.pop()
        self._fen = sf.get_fen(self.variant, self.start_fen, self.move_stack, self.chess960)
        return move

    def copy(self) -> PyffishBoard:
        board = PyffishBoard.__new__(PyffishBoard)
        board.variant, board.chess960, board.start_fen = self.variant, self.chess960, self.start_fen
        board.move_stack = list(self.move_stack)
        board._fen = self._fen
        return board

    def is_check(self) -> bool:
        return bool(sf.gives_check(self.variant, self.start_fen, self.move_stack, self.chess960))

    def fen(self) -> str:
        return self._fen

    def outcome(self, *, claim_draw: bool = False) -> Optional[Outcome]:
        moves = self.move_stack
        if not self.legal_moves:
            if sf.gives_check(self.variant, self.start_fen, moves, self.chess960):
                return Outcome(Termination.CHECKMATE, not self.turn)
            return Outcome(Termination.STALEMATE, None)
        white_short, black_short = sf.has_insufficient_material(self.variant, self.start_fen, moves, self.chess960)
        if white_short and black_short:
            return Outcome(Termination.INSUFFICIENT_MATERIAL, None)
        if claim_draw:
            ended, _ = sf.is_optional_game_end(self.variant, self.start_fen, moves, self.chess960)
            if ended:
                halfmoves = int(self.fen().split()[4])
                kind = Termination.FIFTY_MOVES if halfmoves >= 100 else Termination.THREEFOLD_REPETITION
                return Outcome(kind, None)
        return None


def pyffish_board(fen: str, variant: str, chess960: bool) -> PyffishBoard:
    """Board factory for tools.match (fen, variant, chess960)."""
    return PyffishBoard(fen, variant, chess960)
