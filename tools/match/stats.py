"""Match statistics: score, logistic Elo difference with a 95% error margin, likelihood of superiority.

The error margin follows cutechess-cli: the per-game variance of the score is computed from the trinomial
distribution of wins, draws and losses, the 95% confidence interval of the mean score is mapped through the
logistic Elo curve, and the margin is half the width of the resulting Elo interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959963984540054  # two-sided 95% quantile of the standard normal distribution


def elo_from_score(score: float) -> float:
    """Logistic Elo difference for an expected score in (0, 1): ``-400 * log10(1 / score - 1)``.

    Returns ``+inf`` for a score of 1 and ``-inf`` for 0.
    """
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class EloEstimate:
    """Elo difference (first player minus second) and the half-width of its 95% confidence interval.

    ``margin`` is ``inf`` when the interval is unbounded (a clean sweep, or too few games), ``nan`` when
    there are no games.
    """

    elo: float
    margin: float

    def text(self) -> str:
        """``+127.3 +/- 89.2``, with ``inf``/``nan`` spelled out when the numbers are not finite."""
        return f"{_signed(self.elo)} +/- {self.margin:.1f}"


def _signed(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def score_fraction(wins: int, draws: int, losses: int) -> float:
    """The mean score per game, a draw counting one half; ``nan`` when no game was played."""
    games = wins + draws + losses
    if games == 0:
        return math.nan
    return (wins + 0.5 * draws) / games


def elo_estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo difference with a 95% margin from a W/D/L record (trinomial per-game variance)."""
    games = wins + draws + losses
    if games == 0:
        return EloEstimate(math.nan, math.nan)
    score = score_fraction(wins, draws, losses)
    variance = (wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    standard_error = math.sqrt(variance / games)
    low = score - Z_95 * standard_error
    high = score + Z_95 * standard_error
    if score in (0.0, 1.0):  # a sweep: the interval has no finite end
        return EloEstimate(elo_from_score(score), math.inf)
    margin = (elo_from_score(high) - elo_from_score(low)) / 2.0
    return EloEstimate(elo_from_score(score) + 0.0, margin)  # + 0.0 turns -0.0 into 0.0


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """Probability that the first player is the stronger one, from wins and losses (draws carry no signal).

    ``0.5 * (1 + erf((W - L) / sqrt(2 * (W + L))))``; ``nan`` when there are neither wins nor losses.
    """
    if wins + losses == 0:
        return math.nan
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))
