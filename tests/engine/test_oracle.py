"""engine.Board against Fairy-Stockfish (pyffish), the program pychess.org judges moves with.

Random games from the S-chess start, from the opening book positions, in S-chess960, S-House, standard chess
and Chess960: at every ply the legal moves, the FEN, check, the game-end claims and the insufficient-material
verdict must agree; the SAN of every legal move is compared every few plies and the SAN of every move played
at every ply. More than 3,000 plies in all, so the tests are marked ``slow`` (``-m "not slow"`` leaves them
out of a quick run; CI runs them). The seed is fixed, so every run of the suite checks the same games and a
failure is the code's, not the dice's; ``ORACLE_SEED=daily`` takes a new seed each day (the separate
exploring run: ``.ci/run`` ends with it), ``ORACLE_SEED=N`` replays seed N (printed on failure). Each
pyffish call costs about 1.5 ms, which is what limits the sample size here; for long soak runs use
``python -m tests.engine.oracle --plies 100000``.

Fairy-Stockfish writes a wrong ``+`` for a discovered check that the gated piece blocks; those differences
are counted separately and are not mismatches (see ``Board.san``).
"""

from __future__ import annotations

import datetime
import os
import random
from pathlib import Path

import pytest

from engine import Board

from .oracle import Report, random_960_fen, random_game

EPD = Path(__file__).resolve().parents[2] / "engine" / "data" / "seirawan.epd"


#: the suite's seed when ORACLE_SEED is not set
FIXED_SEED = 1


def oracle_seed(value: str | None, today: datetime.date) -> int:
    """ORACLE_SEED: unset -> the fixed seed; ``daily`` -> one seed per day (yyyymmdd); a number -> itself."""
    if not value:
        return FIXED_SEED
    if value.strip().lower() == "daily":
        return int(today.strftime("%Y%m%d"))
    return int(value)


def _seed(offset: int) -> int:
    return oracle_seed(os.environ.get("ORACLE_SEED"), datetime.date.today()) * 10 + offset


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
        elif kind == "shouse":
            board = Board(variant="shouse")
        elif kind == "chess":
            board = Board(variant="chess")
        else:
            board = Board(random_960_fen(rng, hand=False), variant="chess", chess960=True)
        random_game(board, rng, 160, report, san_every=5)
    return report


def test_the_seed_is_fixed_unless_asked_for_the_daily_one_or_a_replay() -> None:
    day = datetime.date(2026, 12, 1)
    assert oracle_seed(None, day) == oracle_seed("", day) == FIXED_SEED
    assert oracle_seed("daily", day) == 20261201 != oracle_seed("daily", day + datetime.timedelta(days=1))
    assert oracle_seed("7", day) == 7


@pytest.mark.slow
@pytest.mark.timeout(1800)  # about 30 s each on an idle machine; ten times that beside busy neighbours
@pytest.mark.parametrize(
    "kind,offset,plies",
    [("start", 1, 800), ("book", 2, 800), ("schess960", 3, 700), ("chess", 4, 400), ("chess960", 5, 400),
     ("shouse", 6, 600)],
)
def test_random_games_agree_with_fairy_stockfish(kind: str, offset: int, plies: int) -> None:
    seed = _seed(offset)
    report = _run(kind, seed, plies)
    assert report.plies >= plies
    assert report.mismatches == [], f"seed {seed} (ORACLE_SEED={seed // 10}): {report.mismatches[:5]}"
