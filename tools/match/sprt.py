"""The sequential probability ratio test (SPRT) of engine testing, on colour-swapped game pairs.

Stockfish's fishtest, OpenBench and fastchess keep a change only when an SPRT accepts it. The games are
played in pairs (one opening, colours swapped) and each pair is scored from engine 1's side as one of five
outcomes, the *pentanomial*: 0 (two losses), 1/2 (a loss and a draw), 1 (two draws, or a win and a loss),
3/2 (a win and a draw), 2 (two wins). Pairs remove most of the openings' bias from the variance, so a test
needs fewer games than one that scores single games (the trinomial model).

After every pair the generalized log-likelihood ratio (LLR) of H1 (engine 1 is ``elo1`` stronger) against
H0 (it is ``elo0`` stronger) is computed: for each hypothesis, the maximum-likelihood distribution of pair
scores that satisfies it given the observed frequencies (M. Van den Bergh, "Comments on Normalized Elo",
sections 1 and 4; the method of fishtest's ``LLRcalc.py`` and fastchess's ``sprt.cpp``), then the
log-likelihood of the observations under the first minus that under the second. The test stops when the
LLR leaves ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``, about (-2.94, 2.94) at alpha = beta =
0.05: above, H1 is accepted (the change passes); below, H0 is accepted (it fails).

Two Elo models for the bounds:

- ``normalized`` (the default, as in fishtest and fastchess): Elo in units of the match's own standard
  deviation, ``nElo = (score - 1/2) / sigma_per_game * 800 / ln 10``. A bound such as [0, 10] then costs about
  the same number of games whatever the draw rate or the time control, which is why fishtest moved to it:
  with many draws, logistic Elo bounds make a test far cheaper than intended, with few far dearer.
- ``logistic``: the plain Elo of the expected score, ``score = 1 / (1 + 10^(-Elo / 400))``, the unit of the
  match table; useful to compare with older logistic-bound tests.

Zero counts are replaced by 1e-3 before the fit, as both reference tools do, so that every outcome keeps
some probability and the logarithms stay finite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from tools.match.stats import Z_95, EloEstimate, elo_from_score

MODELS = ("normalized", "logistic")
# The five pair outcomes as fractions of the pair's two points: LL, LD, DD or WL, WD, WW.
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
PAIR_LABELS = ("LL", "LD", "DD+WL", "WD", "WW")
# Normalized Elo per unit of t, the (mean - 1/2) / sigma of a game: 800 / ln(10) = 347.4...
NELO_PER_T = 800.0 / math.log(10.0)
MAX_NORMALIZED_ELO = 200.0
_ZERO_COUNT = 1e-3  # what an outcome never seen counts as in the fit


@dataclass(frozen=True)
class Pentanomial:
    """How many pairs ended in each of the five outcomes, from engine 1's side (``PAIR_LABELS`` order)."""

    counts: Tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.counts) != 5 or any(count < 0 for count in self.counts):
            raise ValueError(f"a pentanomial is five counts that are not negative, not {self.counts!r}")

    @property
    def pairs(self) -> int:
        """The number of complete pairs counted."""
        return sum(self.counts)

    def add(self, first_points: float, second_points: float) -> Pentanomial:
        """The counts with one more pair: engine 1's points in its two games (each 0, 0.5 or 1)."""
        index = round(2 * (first_points + second_points))
        if not 0 <= index <= 4 or abs(first_points + second_points - index / 2) > 1e-9:
            raise ValueError(f"a game scores 0, 0.5 or 1, not {first_points} and {second_points}")
        counts = list(self.counts)
        counts[index] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))

    def text(self) -> str:
        """``LL 3, LD 10, DD+WL 40, WD 12, WW 2`` (fishtest prints the same as ``Ptnml(0-2): 3, 10, 40, 12, 2``)."""
        return ", ".join(f"{label} {count}" for label, count in zip(PAIR_LABELS, self.counts, strict=True))

    def mean_and_variance(self) -> Tuple[float, float]:
        """Mean pair score (as a fraction of two points) and its variance per pair, from the raw counts."""
        pairs = self.pairs
        if pairs == 0:
            return math.nan, math.nan
        mean = sum(score * count for score, count in zip(PAIR_SCORES, self.counts, strict=True)) / pairs
        variance = sum(count * (score - mean) ** 2 for score, count in zip(PAIR_SCORES, self.counts, strict=True))
        return mean, variance / pairs


def pentanomial_elo(pentanomial: Pentanomial) -> EloEstimate:
    """Logistic Elo of the mean score with a 95% margin from the pentanomial variance (tighter than the
    trinomial one of the match table when pairs are correlated, as they are with shared openings)."""
    mean, variance = pentanomial.mean_and_variance()
    if math.isnan(mean):
        return EloEstimate(math.nan, math.nan)
    if mean in (0.0, 1.0) or variance == 0.0:
        return EloEstimate(elo_from_score(mean) + 0.0, math.inf)
    error = Z_95 * math.sqrt(variance / pentanomial.pairs)
    margin = (elo_from_score(min(mean + error, 1.0)) - elo_from_score(max(mean - error, 0.0))) / 2.0
    return EloEstimate(elo_from_score(mean) + 0.0, margin)


def normalized_elo(pentanomial: Pentanomial) -> float:
    """Normalized Elo of the counts: ``(mean - 1/2) / sigma_per_game * 800 / ln 10`` with the per-game
    deviation of a pair, ``sqrt(2 * pair variance)``; nan without pairs or without variance."""
    mean, variance = pentanomial.mean_and_variance()
    if math.isnan(mean) or variance == 0.0:
        return math.nan
    return (mean - 0.5) / math.sqrt(2.0 * variance) * NELO_PER_T


def logistic_score(elo: float) -> float:
    """The expected score of a logistic Elo difference: ``1 / (1 + 10^(-elo / 400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _root(function: Callable[[float], float], low: float, high: float) -> float:
    """The root of a function that falls from +inf at ``low`` to -inf at ``high`` (both excluded): bisection,
    which cannot leave the interval where every ``1 + x * a_i`` stays positive."""
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if function(middle) > 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _secular_solution(values: Sequence[float], probabilities: Sequence[float]) -> float:
    """The ``x`` with ``sum p_i * v_i / (1 + x * v_i) = 0`` and every ``1 + x * v_i > 0`` (the v_i straddle 0)."""
    smallest, largest = min(values), max(values)
    if not smallest < 0.0 < largest:
        raise ValueError("the hypothesis lies outside the range of the pair scores")

    def secular(x: float) -> float:
        return sum(p * v / (1.0 + x * v) for v, p in zip(values, probabilities, strict=True))

    return _root(secular, -1.0 / largest, -1.0 / smallest)


def _mle_with_mean(probabilities: Sequence[float], mean: float) -> List[float]:
    """The distribution on ``PAIR_SCORES`` nearest the observed one (maximum likelihood) whose mean is
    ``mean`` (Van den Bergh, proposition 1.1)."""
    shifted = [score - mean for score in PAIR_SCORES]
    x = _secular_solution(shifted, probabilities)
    return [p / (1.0 + x * v) for v, p in zip(shifted, probabilities, strict=True)]


def _mle_with_t_value(probabilities: Sequence[float], reference: float, t_value: float) -> List[float]:
    """The maximum-likelihood distribution whose ``(mean - reference) / sigma`` is ``t_value`` (Van den
    Bergh, section 4.1): a fixed-point iteration from the uniform distribution."""
    fitted = [1.0 / len(PAIR_SCORES)] * len(PAIR_SCORES)
    for _ in range(100):
        mean = sum(score * p for score, p in zip(PAIR_SCORES, fitted, strict=True))
        sigma = math.sqrt(sum(p * (score - mean) ** 2 for score, p in zip(PAIR_SCORES, fitted, strict=True)))
        phi = [
            score - reference - 0.5 * t_value * sigma * (1.0 + ((score - mean) / sigma) ** 2) for score in PAIR_SCORES
        ]
        x = _secular_solution(phi, probabilities)
        updated = [p / (1.0 + x * v) for v, p in zip(phi, probabilities, strict=True)]
        change = max(abs(new - old) for new, old in zip(updated, fitted, strict=True))
        fitted = updated
        if change < 1e-12:
            break
    return fitted


def log_likelihood_ratio(pentanomial: Pentanomial, elo0: float, elo1: float, model: str = "normalized") -> float:
    """The LLR of ``elo1`` against ``elo0`` for these pair counts (0 before the first pair)."""
    if model not in MODELS:
        raise ValueError(f"unknown SPRT model {model!r}: expected one of {', '.join(MODELS)}")
    if pentanomial.pairs == 0:
        return 0.0
    regularized = [float(count) if count else _ZERO_COUNT for count in pentanomial.counts]
    total = sum(regularized)
    observed = [count / total for count in regularized]
    if model == "logistic":
        fitted0 = _mle_with_mean(observed, logistic_score(elo0))
        fitted1 = _mle_with_mean(observed, logistic_score(elo1))
    else:
        # a pair's score is the mean of two games: its sigma is the game's over sqrt(2)
        t0, t1 = (math.sqrt(2.0) * elo / NELO_PER_T for elo in (elo0, elo1))
        fitted0 = _mle_with_t_value(observed, 0.5, t0)
        fitted1 = _mle_with_t_value(observed, 0.5, t1)
    return total * sum(
        p * (math.log(p1) - math.log(p0)) for p, p0, p1 in zip(observed, fitted0, fitted1, strict=True)
    )


ACCEPTED = "H1 accepted"
REJECTED = "H0 accepted"


@dataclass(frozen=True)
class Sprt:
    """One test: H0 ``elo0``, H1 ``elo1`` (in the ``model``'s Elo), false-positive rate ``alpha`` and
    false-negative rate ``beta``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT bounds: elo0 must be below elo1, not [{self.elo0:g}, {self.elo1:g}]")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 0.5:
                raise ValueError(f"SPRT {name} must lie between 0 and 0.5, not {value:g}")
        if self.model not in MODELS:
            raise ValueError(f"unknown SPRT model {self.model!r}: expected one of {', '.join(MODELS)}")
        if self.model == "normalized" and max(abs(self.elo0), abs(self.elo1)) > MAX_NORMALIZED_ELO:
            # beyond it the fit of the t-value has no solution on five pair scores; no real test needs it
            raise ValueError(
                f"SPRT bounds [{self.elo0:g}, {self.elo1:g}]: normalized Elo bounds lie within "
                f"+-{MAX_NORMALIZED_ELO:g} (tests use bounds such as [0, 10])"
            )

    @property
    def lower_bound(self) -> float:
        """Below it H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """Above it H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, pentanomial: Pentanomial) -> float:
        """The log-likelihood ratio of the counts so far."""
        return log_likelihood_ratio(pentanomial, self.elo0, self.elo1, self.model)

    def verdict(self, llr: float) -> Optional[str]:
        """``H1 accepted`` (the change passes), ``H0 accepted`` (it fails), or None while the test goes on."""
        if llr >= self.upper_bound:
            return ACCEPTED
        if llr <= self.lower_bound:
            return REJECTED
        return None

    def bounds_text(self) -> str:
        """``[0, 10] normalized Elo, alpha 0.05, beta 0.05``."""
        return f"[{self.elo0:g}, {self.elo1:g}] {self.model} Elo, alpha {self.alpha:g}, beta {self.beta:g}"

    def status_line(self, pentanomial: Pentanomial) -> str:
        """``SPRT [0, 10] normalized Elo: LLR 1.23 (-2.94, 2.94), 120 pairs, LL 3, LD ...; nElo +12.0, Elo ...``."""
        llr = self.llr(pentanomial)
        estimate = pentanomial_elo(pentanomial)
        nelo = normalized_elo(pentanomial)
        nelo_text = "nan" if math.isnan(nelo) else f"{nelo:+.1f}"
        return (
            f"SPRT [{self.elo0:g}, {self.elo1:g}] {self.model}: LLR {llr:.2f} "
            f"({self.lower_bound:.2f}, {self.upper_bound:.2f}), {pentanomial.pairs} pairs "
            f"({pentanomial.text()}); nElo {nelo_text}, Elo {estimate.text()}"
        )


def parse_bounds(text: str) -> Tuple[float, float]:
    """``0,10`` or ``-10,0`` as two floats; ValueError naming the text otherwise."""
    parts = text.replace(" ", "").split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        elo0, elo1 = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"bad SPRT bounds {text!r}: expected elo0,elo1 such as 0,10 or -10,0") from None
    if not elo0 < elo1:
        raise ValueError(f"bad SPRT bounds {text!r}: elo0 must be below elo1")
    return elo0, elo1
