"""The SPRT of the match runner: the LLR of known pentanomial counts against fishtest's own calculator, the
bounds, stopping at either bound in a real match, and a match resumed from its state file."""

from __future__ import annotations

import io
import json
import math
import sys
from pathlib import Path
from typing import Any, List

import pytest

from tools.match.cli import build_parser, settings_from_args
from tools.match.game import engine_board
from tools.match.runner import MatchResult, run_match
from tools.match.settings import EngineSpec, MatchSettings, SearchBudget
from tools.match.sprt import (
    ACCEPTED,
    REJECTED,
    Pentanomial,
    Sprt,
    log_likelihood_ratio,
    normalized_elo,
    parse_bounds,
    pentanomial_elo,
)

FAKE = (sys.executable, str(Path(__file__).parent / "fake_engine.py"))

# LLRs printed by fishtest's server/fishtest/stats/LLRcalc.py (official-stockfish/fishtest at b8eecff,
# 2026-08-22): LLR_normalized(elo0, elo1, counts) and LLR_logistic(elo0, elo1, counts), counts in the order
# LL, LD, DD+WL, WD, WW. The first row is the size of a real fishtest STC test.
FISHTEST_LLRS = [
    ((187, 8497, 18795, 8759, 198), 0, 2, 2.011677952677828, 1.6573276927957141),
    ((187, 8497, 18795, 8759, 198), -10, 0, 46.269612225580694, 148.3392463419237),
    ((187, 8497, 18795, 8759, 198), 0, 5, 0.5020316166676324, -13.408580270469395),
    ((10, 40, 100, 45, 5), 0, 10, -0.404887312731359, -0.861439576012679),
    ((10, 40, 100, 45, 5), -10, 0, -0.07365798001756646, 0.05884514877018011),
    ((0, 3, 10, 7, 2), 0, 10, 0.3672619406490118, 0.6103793527922793),
    ((50, 300, 900, 320, 40), 0, 10, -1.332586719087804, -4.379545400600375),
    ((50, 300, 900, 320, 40), -10, 0, 1.3354228337421286, 4.346184268864749),
]


@pytest.mark.parametrize("counts, elo0, elo1, normalized, logistic", FISHTEST_LLRS)
def test_llr_of_known_counts_matches_fishtest(
    counts: Any, elo0: float, elo1: float, normalized: float, logistic: float
) -> None:
    pentanomial = Pentanomial(counts)
    assert log_likelihood_ratio(pentanomial, elo0, elo1, "normalized") == pytest.approx(normalized, abs=1e-8)
    assert log_likelihood_ratio(pentanomial, elo0, elo1, "logistic") == pytest.approx(logistic, abs=1e-8)


def test_bounds_at_five_percent_are_plus_minus_2_94() -> None:
    test = Sprt(0, 10)
    assert test.lower_bound == pytest.approx(-2.944439, abs=1e-6)
    assert test.upper_bound == pytest.approx(2.944439, abs=1e-6)
    assert test.verdict(2.95) == ACCEPTED and test.verdict(-2.95) == REJECTED and test.verdict(2.9) is None
    uneven = Sprt(0, 10, alpha=0.01, beta=0.1)
    assert uneven.upper_bound == pytest.approx(math.log(0.9 / 0.01))
    assert uneven.lower_bound == pytest.approx(math.log(0.1 / 0.99))


def test_no_pairs_carry_no_evidence() -> None:
    assert Sprt(0, 10).llr(Pentanomial()) == 0.0


def test_evidence_for_a_gain_grows_with_pairs_won() -> None:
    test = Sprt(0, 10)
    few = Pentanomial((10, 40, 100, 60, 10))
    more = Pentanomial((20, 80, 200, 120, 20))
    assert 0 < test.llr(few) < test.llr(more)
    assert test.llr(Pentanomial((10, 60, 100, 40, 10))) < 0


def test_pairs_are_counted_by_their_two_points() -> None:
    pentanomial = Pentanomial().add(1, 1).add(1, 0).add(0.5, 0.5).add(0, 0.5).add(1, 0.5)
    assert pentanomial.counts == (0, 1, 2, 1, 1)
    assert pentanomial.text() == "LL 0, LD 1, DD+WL 2, WD 1, WW 1"
    with pytest.raises(ValueError, match="0, 0.5 or 1"):
        pentanomial.add(0.25, 1)


def test_pentanomial_elo_and_normalized_elo_of_a_known_count() -> None:
    # mean pair score (0.25*40 + 0.5*100 + 0.75*45 + 5) / 200 = 0.49375; variance per pair
    # (10*0.49375^2 + 40*0.24375^2 + 100*0.00625^2 + 45*0.25625^2 + 5*0.50625^2) / 200 = 0.0452734375
    pentanomial = Pentanomial((10, 40, 100, 45, 5))
    mean, variance = pentanomial.mean_and_variance()
    assert mean == pytest.approx(0.49375) and variance == pytest.approx(0.0452734375)
    assert pentanomial_elo(pentanomial).elo == pytest.approx(-4.3429, abs=1e-3)
    expected = (0.49375 - 0.5) / math.sqrt(2 * 0.0452734375) * 800 / math.log(10)
    assert normalized_elo(pentanomial) == pytest.approx(expected)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((10, 0), "elo0 must be below elo1"),
        ((0, 10, 0.0), "alpha must lie between 0 and 0.5"),
        ((0, 500), "within"),
    ],
)
def test_bad_settings_are_refused_with_the_reason(arguments: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Sprt(*arguments)


def test_bounds_text_is_parsed_or_refused() -> None:
    assert parse_bounds("0,10") == (0.0, 10.0)
    assert parse_bounds("-10, 0") == (-10.0, 0.0)
    for text in ("10", "0,x", "5,0"):
        with pytest.raises(ValueError, match="SPRT bounds"):
            parse_bounds(text)


def fake(*arguments: str) -> EngineSpec:
    return EngineSpec(FAKE + tuple(arguments))


def sprt_match(engine1: EngineSpec, engine2: EngineSpec, test: Sprt, games: int = 60, **changes: Any) -> MatchResult:
    settings = MatchSettings(engine1, engine2, SearchBudget(depth=1), games=games, quiet=True, sprt=test, **changes)
    out = io.StringIO()
    result = run_match(settings, engine_board, out)
    assert result.error is None, out.getvalue()
    return result


def test_a_match_stops_when_the_change_is_accepted() -> None:
    # engine 2 plays an illegal first move: engine 1 wins every pair; [0, 200] accepts after 7 pairs
    result = sprt_match(fake(), fake("--fault", "illegal"), Sprt(0, 200))
    assert result.sprt_verdict == ACCEPTED
    assert result.pentanomial.counts == (0, 0, 0, 0, 7)
    assert len(result.records) == 14


def test_a_match_stops_when_the_change_is_rejected() -> None:
    result = sprt_match(fake("--fault", "illegal"), fake(), Sprt(0, 200), concurrency=2)
    assert result.sprt_verdict == REJECTED
    assert result.pentanomial.counts == (3, 0, 0, 0, 0)


def test_without_a_verdict_the_cap_ends_the_test() -> None:
    result = sprt_match(fake(), fake("--fault", "illegal"), Sprt(0, 200), games=6)
    assert result.sprt_verdict is None and result.pentanomial.pairs == 3


def test_the_table_reports_the_llr_and_the_verdict() -> None:
    settings = MatchSettings(
        fake(), fake("--fault", "illegal"), SearchBudget(depth=1), games=60, quiet=True, sprt=Sprt(0, 200)
    )
    out = io.StringIO()
    run_match(settings, engine_board, out)
    table = out.getvalue()
    assert "Pairs: 7 (LL 0, LD 0, DD+WL 0, WD 0, WW 7)" in table
    assert "SPRT [0, 200] normalized: LLR 3." in table
    assert "SPRT [0, 200] normalized Elo, alpha 0.05, beta 0.05: H1 accepted" in table


def _game_lines(path: Path) -> List[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def test_a_stopped_match_resumes_from_its_state_file(tmp_path: Path) -> None:
    state = tmp_path / "match.jsonl"
    first = sprt_match(fake(), fake("--fault", "illegal"), Sprt(0, 200), games=4, state_file=str(state))
    assert first.pentanomial.pairs == 2 and [game["number"] for game in _game_lines(state)] == [1, 2, 3, 4]
    # a kill while a line was written leaves half a line: ignored, that game is played again
    with open(state, "a", encoding="utf-8") as handle:
        handle.write('{"number": 5, "ope')
    resumed = sprt_match(fake(), fake("--fault", "illegal"), Sprt(0, 200), games=60, state_file=str(state))
    assert resumed.resumed == 4
    assert resumed.sprt_verdict == ACCEPTED and resumed.pentanomial.counts == (0, 0, 0, 0, 7)
    assert sorted(game["number"] for game in _game_lines(state)) == list(range(1, 15))


def test_a_state_file_of_another_match_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "match.jsonl"
    sprt_match(fake(), fake("--fault", "illegal"), Sprt(0, 200), games=2, state_file=str(state))
    with pytest.raises(ValueError, match="belongs to another match: its sprt is"):
        sprt_match(fake(), fake("--fault", "illegal"), Sprt(0, 100), games=2, state_file=str(state))


def test_the_command_line_builds_the_test() -> None:
    engines = ["--engine1", "a", "--engine2", "b", "--nodes", "1000"]
    # a negative bound follows an equals sign, or argparse takes it for an option
    arguments = engines + ["--games", "2000", "--sprt=-10,0", "--sprt-model", "logistic"]
    settings = settings_from_args(build_parser().parse_args(arguments))
    assert settings.sprt == Sprt(-10, 0, model="logistic") and settings.games == 2000
    with pytest.raises(ValueError, match="even number"):
        settings_from_args(build_parser().parse_args(engines + ["--games", "2001", "--sprt", "0,10"]))
