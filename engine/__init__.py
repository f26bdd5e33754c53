"""An S-chess (Seirawan chess) engine in Python (optionally compiled with Cython, see ``engine.buildinfo``):
exact rules, search, and a UCI front end.

The rules live in :class:`Board` (python-chess style names); see ``docs/engine-api.md``. Diagrams of a
position as SVG: :mod:`engine.svg` (``from engine import svg``, like python-chess's ``chess.svg``).
"""

from __future__ import annotations

__version__ = "0.1.0"  # the project's one version (pyproject.toml reads it from here)

from .board import BLACK, WHITE, Board, IllegalMoveError, LegalMoveGenerator, Move, Outcome, Termination
from .perft import perft, perft_divide
from .tables import BISHOP, ELEPHANT, HAWK, KING, KNIGHT, PAWN, QUEEN, ROOK

__all__ = [
    "__version__",
    "BISHOP", "BLACK", "Board", "ELEPHANT", "HAWK", "IllegalMoveError", "KING", "KNIGHT", "LegalMoveGenerator",
    "Move", "Outcome", "PAWN", "QUEEN", "ROOK", "Termination", "WHITE", "perft", "perft_divide",
]
