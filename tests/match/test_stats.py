"""Elo difference, error margin and LOS of the match runner against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from tools.match.stats import elo_estimate, elo_from_score, likelihood_of_superiority, score_fraction


def test_elo_of_known_scores() -> None:
    assert elo_from_score(0.5) == 0.0
    # 10^(-x/400) = 1/p - 1: p = 0.75 -> 1/3 -> 400*log10(3) = 190.848...
    assert elo_from_score(0.75) == pytest.approx(190.848, abs=1e-3)
    assert elo_from_score(0.25) == pytest.approx(-190.848, abs=1e-3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_trinomial_margin_for_60_20_20() -> None:
    # p = 0.7; per-game variance = (60*0.3^2 + 20*0.2^2 + 20*0.7^2)/100 = 0.16; se = sqrt(0.16/100) = 0.04;
    # 95% bounds 0.7 +- 1.96*0.04 = 0.62160 .. 0.77840 -> Elo 86.24 .. 218.27 -> margin 66.01
    estimate = elo_estimate(60, 20, 20)
    assert estimate.elo == pytest.approx(147.19, abs=0.01)
    assert estimate.margin == pytest.approx(66.01, abs=0.01)
    assert estimate.text() == "+147.2 +/- 66.0"


def test_draws_narrow_the_margin_at_the_same_score() -> None:
    # Same 50% score: 20 wins + 20 losses vary more per game than 40 draws' neighbours 10/20/10.
    decisive = elo_estimate(20, 0, 20)
    drawish = elo_estimate(10, 20, 10)
    assert decisive.elo == drawish.elo == 0.0
    assert drawish.margin < decisive.margin
    # 10/20/10: variance = (10*0.25 + 0 + 10*0.25)/40 = 0.125; se = sqrt(0.125/40) = 0.0559;
    # bounds 0.3904 .. 0.6096 -> +-77.39 Elo
    assert drawish.margin == pytest.approx(77.39, abs=0.01)


def test_elo_is_antisymmetric() -> None:
    first = elo_estimate(55, 10, 35)
    second = elo_estimate(35, 10, 55)
    assert first.elo == pytest.approx(-second.elo)
    assert first.margin == pytest.approx(second.margin)


def test_sweeps_and_empty_matches_have_no_finite_margin() -> None:
    assert elo_estimate(4, 0, 0).margin == math.inf
    assert elo_estimate(0, 0, 4).text() == "-inf +/- inf"
    assert math.isnan(elo_estimate(0, 0, 0).elo)
    assert math.isnan(score_fraction(0, 0, 0))


def test_likelihood_of_superiority() -> None:
    assert likelihood_of_superiority(10, 10) == 0.5
    # (W-L)/sqrt(2(W+L)) = 1/sqrt(2) -> 0.5*(1+erf(0.7071)) = Phi(1) = 0.8413
    assert likelihood_of_superiority(1, 0) == pytest.approx(0.841345, abs=1e-6)
    assert math.isnan(likelihood_of_superiority(0, 0))
