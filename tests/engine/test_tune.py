"""The Texel tuning tool (tools/tune): PGN reading, quiet-position filter, and one fitting pass."""

from __future__ import annotations

from pathlib import Path

from engine import evaluate as ev
from tools.tune.data import Sample, quiet_positions, read_games, read_samples, write_samples
from tools.tune.fit import Fitter, expand, get, set_value

PGN = """[Event "Engine match"]
[White "a"]
[Black "b"]
[Result "1-0"]
[Variant "Seirawan"]

1. e4 {+0.20/5 0.1s} e5 {-0.20/5 0.1s} 2. Nf3/H {+0.30/5 0.1s} Nc6 3. Bc4 Nf6 4. Ng5 d5 5. exd5 Nxd5
6. Nxf7 Kxf7 7. Qf3+ Ke6 8. Nc3 Nb4 9. Qe4 c6 10. a3 Na6 11. d4 Nc7 12. Bf4 Kf7 13. Bxe5 1-0

[Event "Engine match"]
[White "b"]
[Black "a"]
[Result "1/2-1/2"]
[FEN "rnbqkbnr/pppp1ppp/4p3/8/8/1P6/PBPPPPPP/RNEQKBNR[Heh] b KQBDFGkqbcdfg - 0 1"]
[Variant "Seirawan"]

1... Ne7 2. Nf3 Nbc6 3. Nc3 d5 4. d4 f5 5. e3 Kf7 6. Bd3 Kg8 7. O-O a5 8. a3 b6 1/2-1/2
"""


def test_extract_and_round_trip(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    pgn.write_text(PGN, encoding="utf-8")
    games = list(read_games(pgn))
    assert [g.tags["Result"] for g in games] == ["1-0", "1/2-1/2"]
    assert games[0].moves[:3] == ["e4", "e5", "Nf3/H"]
    samples = [s for g in games for s in quiet_positions(g, skip_plies=4)]
    assert samples and {s.result for s in samples} == {1.0, 0.5}
    out = tmp_path / "positions.txt"
    write_samples(samples, out)
    assert [(s.fen, s.result) for s in read_samples(out)] == [(s.fen, s.result) for s in samples]


def test_fit_moves_a_parameter_only_when_the_loss_falls() -> None:
    # White is a queen up and won: a bigger queen value explains the result better.
    fen = "4k3/8/8/8/8/8/8/3QK3[] w - - 0 1"
    samples = [Sample(fen, "seirawan", 1.0), Sample(fen.replace(" w ", " b "), "seirawan", 1.0)]
    fitter = Fitter(samples)
    params = expand(["VALUE_EG"])
    queen = ("VALUE_EG", 5)
    before = get(queen)
    try:
        loss_before = fitter.loss()
        loss_after = fitter.descend([p for p in params if p == queen], steps=(50,), log=lambda _: None)
        assert loss_after < loss_before
        assert get(queen) > before
    finally:
        set_value(queen, before)
    assert ev.VALUE_EG[5] == before
