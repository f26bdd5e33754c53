"""engine.Board against Fairy-Stockfish (pyffish), the program pychess.org judges moves with.

Random games from the S-chess start, from the opening book positions, in S-chess960 and in standard chess
and Chess960: at every ply the legal moves, the FEN, check, the game-end claims and the insufficient-material
verdict must agree; the SAN of every legal move is compared every few plies and the SAN of every move played
at every ply. More than 3,000 plies in all. The seed changes every run (and is printed on failure), so the
suite keeps exploring; set ORACLE_SEED to replay a failure. Each pyffish call costs about 1.5 ms, which is
what limits the sample size here; for long soak runs use ``python -m tests.engine.oracle --plies 100000``.

Fairy-Stockfish writes a wrong ``+`` for a discovered check that the gated piece blocks; those differences
are counted separately and are not mismatches (see ``Board.san``).
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from engine import Board

from .oracle import Report, random_960_fen, random_game

EPD = Path(__file__).resolve().parents[2] / "engine" / "data" / "seirawan.epd"


def _seed(offset: int) -> int:
    base = int(os.environ.get("ORACLE_SEED", int(time.time()) // 60))
    return base * 10 + offset


def _book_positions() -> list[str]:
    return [" ".join(line.split()[:4]) for line in EPD.read_text().splitlines() if line.strip()]


def _run(kind: str, seed: int, plies: int) -> Report:
    rng = random.Random(seed)
    report = Report()
    book = _book_positions()
    while report.plies < plies:
        if kind == "start":
            board = Board()
        elif kind == "book":
            board = Board(rng.choice(book) + " 0 1")
        elif kind == "schess960":
            board = Board(random_960_fen(rng, hand=True), chess960=True)
        elif kind == "chess":
            board = Board(variant="chess")
        else:
            board = Board(random_960_fen(rng, hand=False), variant="chess", chess960=True)
        random_game(board, rng, 160, report, san_every=5)
    return report


@pytest.mark.parametrize(
    "kind,offset,plies",
    [("start", 1, 800), ("book", 2, 800), ("schess960", 3, 700), ("chess", 4, 400), ("chess960", 5, 400)],
)
def test_random_games_agree_with_fairy_stockfish(kind: str, offset: int, plies: int) -> None:
    seed = _seed(offset)
    report = _run(kind, seed, plies)
    assert report.plies >= plies
    assert report.mismatches == [], f"seed {seed} (ORACLE_SEED={seed // 10}): {report.mismatches[:5]}"
