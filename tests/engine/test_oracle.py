"""engine.Board against Fairy-Stockfish (pyffish), the program pychess.org judges moves with.

Random games from the S-chess start, from the opening book positions, in S-chess960, S-House, standard chess
and Chess960: at every ply the legal moves, the FEN, check, the game-end claims and the insufficient-material
verdict must agree; the SAN of every legal move is compared every 40th ply and the SAN of every move played
at every ply. More than 3,000 plies in all, so the tests are marked ``slow`` (``-m "not slow"`` leaves them
out of a quick run; CI runs them). The seed is fixed, so every run of the suite checks the same games and a
failure is the code's, not the dice's; ``ORACLE_SEED=daily`` takes a new seed each day (the separate
exploring run: ``.ci/run`` ends with it), ``ORACLE_SEED=N`` replays seed N (printed on failure). Each
pyffish call costs about 2 ms, which is what limits the sample size here; for long soak runs use
``python -m tests.engine.oracle --plies 100000``. The verdicts that change only with the material or with a
repeated position are asked of pyffish only when they can have changed (oracle.py); the engine's own are
compared at every ply.

Fairy-Stockfish writes a wrong ``+`` for a discovered check that the gated piece blocks; those differences
are counted separately and are not mismatches (see ``Board.san``).
"""

from __future__ import annotations

import datetime
import os
import random
from collections import Counter
from pathlib import Path

import pytest

from engine import Board

from .oracle import Report, claim_possible, material_key, random_960_fen, random_game, repetition_key

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
        random_game(board, rng, 160, report, san_every=40)
    return report


def test_the_seed_is_fixed_unless_asked_for_the_daily_one_or_a_replay() -> None:
    day = datetime.date(2026, 12, 1)
    assert oracle_seed(None, day) == oracle_seed("", day) == FIXED_SEED
    assert oracle_seed("daily", day) == 20261201 != oracle_seed("daily", day + datetime.timedelta(days=1))
    assert oracle_seed("7", day) == 7


def test_the_material_key_tells_apart_what_the_insufficient_material_verdict_reads() -> None:
    # The oracle asks pyffish once per key: the key must keep apart pieces, hands and bishops' square colours.
    light, dark = "4k3/8/8/8/8/8/8/4KB2[] w - - 0 1", "4k3/8/8/8/8/8/8/4K1B1[] w - - 0 1"
    assert material_key(light) != material_key(dark)
    assert material_key(light) == material_key("4k3/8/8/8/8/8/4B3/4K3[] w - - 0 1")  # e2 is light like f1
    assert material_key("4k3/8/8/8/8/8/8/4KN2[] w - - 0 1") == material_key("4k3/8/8/8/8/8/8/N3K3[] w - - 0 1")
    assert material_key("4k3/8/8/8/8/8/8/4KN2[H] w - - 0 1") != material_key("4k3/8/8/8/8/8/8/4KN2[h] w - - 0 1")
    assert material_key("4k3/8/8/8/8/8/8/4KN2 w - - 0 1") != material_key("4k3/8/8/8/8/8/8/4Kn2 w - - 0 1")


def test_a_claim_is_asked_only_after_a_repeated_placement_or_near_the_fifty_moves() -> None:
    fen = "4k3/8/8/8/8/8/8/4KN2[] w - - 10 40"
    seen: Counter[str] = Counter()
    assert not claim_possible(fen, seen)
    seen[repetition_key(fen.replace(" w ", " b "))] += 1  # the other side to move is another position
    assert not claim_possible(fen, seen)
    seen[repetition_key(fen)] += 1
    assert claim_possible(fen, seen)
    assert claim_possible("4k3/8/8/8/8/8/8/4KN2[] w - - 96 80", Counter())


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
