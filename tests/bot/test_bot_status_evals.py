"""Issue 51: the evaluations of ``/api/status`` on one scale. A mate was stored as 6.0 pawns (the graph's
edge) while ordinary scores ran uncapped: ``[[25, 27.05], [27, 6.0]]`` said the mate was worth less than the
score before it. A mate is now +-100 pawns (docs/status.md), every other score held within +-99."""

from __future__ import annotations

import json
from pathlib import Path

from bot.app.status.history import MATE_PAWNS, History, score_pawns

PGN = """[Event "Casual seirawan game"]
[Site "http://127.0.0.1:1/MateSoon"]
[White "SeirawanBot"]
[Black "Alice"]
[Result "1-0"]
[UTCDate "2026.12.04"]
[UTCTime "23:00:00"]
[Variant "Seirawan"]
[Termination "Normal"]

1. e4 {[%eval 27.05,7]} e5 2. Nf3/H {[%eval 250.00,7]} Nc6 3. Bc4 {[%eval #3,9]} Nf6 1-0
"""


def test_api_status_evals_put_a_mate_beyond_every_score_on_one_scale(tmp_path: Path) -> None:
    (tmp_path / "MateSoon.pgn").write_text(PGN)
    finished = History(str(tmp_path), "SeirawanBot").games()
    summary = json.loads(json.dumps(finished[0].summary()))  # as /api/status sends it
    assert summary["evals"] == [[1, 27.05], [3, 99.0], [5, 100.0]]
    as_black = History(str(tmp_path), "Alice").games()[0].summary()
    assert as_black["evals"] == [], "only our own moves' evaluations"


def test_the_one_scale_of_scores_and_mates() -> None:
    assert score_pawns(42, None) == 0.42 and score_pawns(None, None) == 0.0
    assert score_pawns(12_000, None) == 99.0 and score_pawns(-12_000, None) == -99.0
    assert score_pawns(None, 1) == MATE_PAWNS == 100.0 and score_pawns(None, -7) == -100.0
