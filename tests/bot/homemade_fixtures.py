"""Homemade engines for the tests (``engine.command: tests.bot.homemade_fixtures:ClassName``)."""

from __future__ import annotations

import threading

from bot.engines.homemade import Clocks, HomemadeEngine
from engine import Board, Move

#: set to let :class:`Sleeper` answer
RELEASE = threading.Event()


class FirstMove(HomemadeEngine):
    """The legal move with the smallest UCI string, as text."""

    name = "FirstMove"

    def choose_move(self, board: Board, clocks: Clocks) -> str:
        return min(move.uci() for move in board.legal_moves)


class Illegal(HomemadeEngine):
    """Always a move that is not legal."""

    def choose_move(self, board: Board, clocks: Clocks) -> str:
        return "a1a1"


class Breaks(HomemadeEngine):
    """Plays two moves, then raises on every call (an engine gone for good)."""

    calls = 0

    def choose_move(self, board: Board, clocks: Clocks) -> Move:
        Breaks.calls += 1
        if Breaks.calls > 2:
            raise RuntimeError("my engine has a bug")
        return sorted(board.legal_moves, key=lambda move: move.uci())[0]


class Sleeper(HomemadeEngine):
    """Answers only once :data:`RELEASE` is set."""

    def choose_move(self, board: Board, clocks: Clocks) -> str:
        RELEASE.wait(30)  # the fake engine stalls until the test releases it; 30 s only ends a stall it forgot
        return min(move.uci() for move in board.legal_moves)


class NotAnEngine:
    pass
