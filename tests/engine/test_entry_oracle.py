"""The alternative S-chess rules (placement, forced entry) against a referee built on pyffish's S-chess moves
(tests/engine/entry_oracle.py: S-chess's moves filtered by the rule, placement's gating made automatic).

Random games from each variant's start, captures favoured a third of the time, compared at every ply: the
allowed moves, the FEN, check, the game-end claims, insufficient material, and SAN (every allowed move every
few plies, the move played at every ply). At least 2,000 plies per variant; marked ``slow`` like the S-chess
oracle, whose seed rules (``ORACLE_SEED``) apply here too.
"""

from __future__ import annotations

import random

import pytest

from .entry_oracle import FORCED_ENTRY, PLACEMENT, Report, random_game
from .test_oracle import _seed

# Positions where forced entry falls back to any move without entry (a check that only the king answers) or
# where nothing can enter any more (no bishop, knight or queen on a gate): random games rarely reach them.
FORCED_ENTRY_STARTS = [
    "4k3/pppppppp/8/8/8/5n2/PPPP3P/RN2K2R[EH] w KQB - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R3K2R[EHeh] w KQkqbcdfg - 0 1",
]


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("variant,offset,plies", [(PLACEMENT, 6, 2000), (FORCED_ENTRY, 7, 2000)])
def test_random_games_agree_with_the_pyffish_referee(variant: str, offset: int, plies: int) -> None:
    seed = _seed(offset)
    rng = random.Random(seed)
    report = Report()
    while report.plies < plies:
        random_game(variant, rng, 160, report, san_every=32)
    if variant == FORCED_ENTRY:
        for fen in FORCED_ENTRY_STARTS:
            random_game(variant, rng, 40, report, san_every=1, start_fen=fen)
    assert report.plies >= plies
    assert report.mismatches == [], f"seed {seed} (ORACLE_SEED={seed // 10}): {report.mismatches[:5]}"
    if variant == PLACEMENT:
        assert report.forfeits > 0  # the games did reach captures of a piece with a placed piece behind it
    else:
        assert report.fallbacks > 0
