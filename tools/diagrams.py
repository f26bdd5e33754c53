"""The example diagrams in ``docs/images/`` (shown in ``docs/engine-api.md``), written by ``engine.svg``.

``python -m tools.diagrams [DIR]`` writes them again (default ``docs/images``); a test checks that the files
there are what the code draws today.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional

from engine import BLACK, WHITE, Board, svg

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "docs" / "images"

# The real pychess.org game of docs/schess-rules.md, up to 8. Qxd8/E# (mate by the gated Elephant).
GATED_MATE = "e2e4 d7d5 e4d5 d8d5e b1c3 d5f5 d2d4 g8f6 g1f3 b8c6 d4d5 f6e4 d5c6 e4c5 d1d8e"
CHESS960_START = "qbbrnkrn/pppppppp/8/8/8/8/PPPPPPPP/QBBRNKRN[HEhe] w ABCDEFGHabcdefgh - 0 1"


def played(moves: str, fen: Optional[str] = None, *, variant: str = "seirawan", chess960: bool = False) -> Board:
    """A board after the given UCI moves (from ``fen`` or the start)."""
    board = Board(fen, variant=variant, chess960=chess960)
    for uci in moves.split():
        board.push_uci(uci)
    return board


def _drawn(board: Board, orientation: bool = WHITE) -> str:
    """The diagram with the last move and any check marked, as a status page would draw a live game."""
    lastmove = board.peek() if board.move_stack else None
    return svg.board(board, orientation=orientation, lastmove=lastmove, check=svg.check_square(board))


EXAMPLES: Dict[str, Callable[[], str]] = {
    # The S-chess start: both hands full, all sixteen back-rank squares are gates.
    "schess-start.svg": lambda: _drawn(Board()),
    # Gated mate seen from Black's side: one piece left in each hand, the gates that are still open, the last
    # move (d1d8 with an Elephant gated on d1) and the king in check.
    "schess-gates.svg": lambda: _drawn(played(GATED_MATE), orientation=BLACK),
    # S-chess960: a Hawk gated on e1 and an Elephant on e8 behind the knights that left.
    "schess960.svg": lambda: _drawn(played("g2g3 g7g6 e1d3h d7d5 f2f4 e8g7e", CHESS960_START, chess960=True)),
    # Standard chess: no hand, no gates (Scholar's mate).
    "chess.svg": lambda: _drawn(played("e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7", variant="chess")),
}


def write_examples(directory: Path = DEFAULT_DIR) -> List[Path]:
    """Write every example into ``directory``; the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, draw in EXAMPLES.items():
        path = directory / name
        path.write_text(draw(), encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for path in write_examples(Path(args[0]) if args else DEFAULT_DIR):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
