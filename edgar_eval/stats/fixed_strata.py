"""Exact one-sided tests at a margin for a population of fixed strata, their bounds, and their size and power in
simulation.

Protocol v5 makes its confirmatory claims about the registered corpus's companies as fixed strata, with the questions
independent within them: the population is "questions one could ask of these companies' filings", not "companies in
general". Then a count of events over n questions (the right answers a gate withholds, the baseline's false answers it
withholds) is a sum of independent Bernoulli trials whose probabilities differ from company to company: a
Poisson-binomial of mean n p, p the questions' mean probability. Hoeffding (1956, Theorem 4) bounds its tails by the
binomial's of the same mean: P(S >= c) <= P(Bin(n, p) >= c) for c >= n p + 1, and P(S <= c) <= P(Bin(n, p) <= c) for
c <= n p - 1. So the exact binomial test at the margin is conservative however unequal the companies are, provided the
observed count lies at least one beyond the margin's mean (else the test does not reject; the p-value is then 1, which
loses nothing at the levels a protocol uses: a binomial tail starting within one of its mean is far above them).

* ``above_margin_p(x, n, m)``: the p-value of "the rate is at most m" against "above m" (a gate withholds more than a
  share m of the baseline's false answers); ``below_margin_p``: of "at least m" against "below m" (the recall cost is
  under the margin).
* ``lower_bound`` / ``upper_bound``: the one-sided Clopper-Pearson bounds, which invert the same tests (the printed
  bound is above m exactly when the test rejects at alpha, outside the one-count guard).
* ``cluster_ratio_bound``: the sensitivity line. With companies as clusters (a claim about companies in general) the
  same share is a ratio of company totals, bounded by its company-robust standard error referred to Student's t with
  K - 1 degrees of freedom; its size is not guaranteed at few companies, which is why it only stands beside the
  decision.

The simulations draw company rates from a Beta of the boundary's mean and a concentration (lower: more unequal
companies), and either hold the question-weighted mean exactly at the boundary (``population="fixed"``: the registered
claim, whose null is about these strata) or not (``"general"``: companies drawn anew, the claim the sensitivity line
is about).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

POPULATIONS = ("fixed", "general")


def _check(successes: int, trials: int, margin: float) -> None:
    if trials < 0 or not 0 <= successes <= max(trials, 0):
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if not 0 < margin < 1:
        raise ValueError(f"the margin must lie in (0, 1), got {margin}")


def above_margin_p(successes: int, trials: int, margin: float) -> float:
    """One-sided exact p-value of "the rate is at most `margin`" against "it is above": P(Bin(n, m) >= x), valid for
    fixed strata when x >= n m + 1 (Hoeffding); 1.0 below that, and with no trial."""
    _check(successes, trials, margin)
    return float(_margin_p_values(np.asarray([successes]), trials, margin, "above")[0]) if trials else 1.0


def below_margin_p(successes: int, trials: int, margin: float) -> float:
    """One-sided exact p-value of "the rate is at least `margin`" against "it is below": P(Bin(n, m) <= x), valid for
    fixed strata when x <= n m - 1 (Hoeffding); 1.0 above that, and with no trial."""
    _check(successes, trials, margin)
    return float(_margin_p_values(np.asarray([successes]), trials, margin, "below")[0]) if trials else 1.0


def _margin_p_values(events: np.ndarray, trials: int, margin: float, direction: str) -> np.ndarray:
    """The p-values of `above_margin_p` or `below_margin_p` for many counts of one number of trials."""
    from scipy.stats import binom

    if direction == "above":
        return np.where(events >= trials * margin + 1, binom.sf(events - 1, trials, margin), 1.0)
    return np.where(events <= trials * margin - 1, binom.cdf(events, trials, margin), 1.0)


def lower_bound(successes: int, trials: int, alpha: float) -> float:
    """One-sided Clopper-Pearson lower bound of a rate at level 1 - alpha (0 with no success; NaN with no trial)."""
    from scipy.stats import beta

    if trials == 0:
        return float("nan")
    return 0.0 if successes == 0 else float(beta.ppf(alpha, successes, trials - successes + 1))


def upper_bound(successes: int, trials: int, alpha: float) -> float:
    """One-sided Clopper-Pearson upper bound of a rate at level 1 - alpha (1 with every trial a success)."""
    from scipy.stats import beta

    if trials == 0:
        return float("nan")
    return 1.0 if successes == trials else float(beta.ppf(1 - alpha, successes + 1, trials - successes))


def fewest_to_cross(successes: int, trials: int, rejects: Callable[[int, int], bool], step: int) -> int | None:
    """The fewest events moved (`step` +1: added, -1: taken away, the trials unchanged) that change whether
    `rejects(successes, trials)` holds; None when no count between 0 and `trials` changes it."""
    now = rejects(successes, trials)
    moved = 1
    while 0 <= successes + step * moved <= trials:
        if rejects(successes + step * moved, trials) != now:
            return moved
        moved += 1
    return None


def cluster_ratio_bound(numerators: np.ndarray, denominators: np.ndarray, alpha: float, tail: str) -> float:
    """The one-sided bound ("low" or "high") at level 1 - alpha of sum n_k / sum d_k with companies as clusters: the
    ratio's company-robust (CR1) standard error, Student's t with K - 1 degrees of freedom. NaN with fewer than two
    companies or no denominator."""
    from scipy.stats import t as student_t

    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    k = len(num)
    if k < 2 or den.sum() <= 0:
        return float("nan")
    ratio = num.sum() / den.sum()
    error = float(np.sqrt(k / (k - 1) * np.sum((num - ratio * den) ** 2)) / den.sum())
    quantile = float(student_t.ppf(1 - alpha, k - 1))
    return float(ratio - quantile * error) if tail == "low" else float(ratio + quantile * error)


def centred_rates(rates: np.ndarray, weights: np.ndarray, mean: float) -> np.ndarray:
    """The rates shifted on the logit scale so that their `weights`-weighted mean is exactly `mean`: company rates as
    unequal as drawn, the strata's population sitting on the boundary. `rates` is one draw (K companies) or several
    (R x K), each row shifted on its own."""
    clipped = np.clip(np.atleast_2d(rates), 1e-9, 1 - 1e-9)
    logits = np.log(clipped / (1 - clipped))
    share = np.asarray(weights, dtype=float) / np.sum(weights)
    low, high = np.full((len(logits), 1), -50.0), np.full((len(logits), 1), 50.0)
    for _ in range(100):  # bisection on each row's shift: 100 halvings of 100 leave it exact in double precision
        middle = (low + high) / 2
        below = (1 / (1 + np.exp(-(logits + middle))) @ share)[:, None] < mean
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    centred = 1 / (1 + np.exp(-(logits + (low + high) / 2)))
    return centred if np.ndim(rates) == 2 else centred[0]


def company_rates(
    rng: np.random.Generator, sizes: np.ndarray, mean: float, concentration: float, population: str, draws: int = 1
) -> np.ndarray:
    """`draws` draws (rows) of per-company rates of this mean: Beta(mean c, (1 - mean) c); for fixed strata, each
    draw centred so that its question-weighted mean is `mean` exactly."""
    if population not in POPULATIONS:
        raise ValueError(f"population is one of {', '.join(POPULATIONS)}, got {population!r}")
    if mean <= 0 or mean >= 1:
        return np.full((draws, sizes.size), min(max(mean, 0.0), 1.0))
    rates = rng.beta(mean * concentration, (1 - mean) * concentration, size=(draws, sizes.size))
    if population == "general":
        return rates
    weights = np.asarray(sizes, dtype=float)
    return centred_rates(rates, weights, mean) if weights.sum() > 0 else rates


@dataclass(frozen=True)
class Rejections:
    """How often a one-sided test rejected over simulated data of known truth."""

    test: str
    truth: float
    population: str
    concentration: float
    replicates: int
    rejected: int

    @property
    def share(self) -> float:
        return self.rejected / self.replicates

    @property
    def monte_carlo_error(self) -> float:
        """The share's binomial standard error."""
        return float(np.sqrt(max(self.share * (1 - self.share), 1e-12) / self.replicates))


def simulate_margin_test(
    sizes: list[int],
    truth: float,
    margin: float,
    direction: str,
    alpha: float,
    concentration: float,
    population: str,
    replicates: int,
    seed: int,
) -> Rejections:
    """How often the exact binomial test at `margin` rejects (direction "above": the rate shown above the margin;
    "below": shown below it) when the companies' rates have question-weighted mean `truth`: at the boundary
    (truth = margin) that is the test's size, elsewhere its power."""
    counts = np.asarray(sizes, dtype=int)
    if counts.ndim != 1 or counts.size < 1 or np.any(counts < 0) or counts.sum() < 1:
        raise ValueError(f"need company sizes of one question or more in all, got {sizes}")
    if direction not in ("above", "below"):
        raise ValueError(f"direction is above or below, got {direction!r}")
    rng = np.random.default_rng(seed)
    trials = int(counts.sum())
    rates = company_rates(rng, counts, truth, concentration, population, replicates)
    events = rng.binomial(np.broadcast_to(counts, rates.shape), rates).sum(axis=1)
    rejected = int(np.sum(_margin_p_values(events, trials, margin, direction) <= alpha))
    return Rejections(f"binomial {direction} {margin:g}", truth, population, concentration, replicates, rejected)


def simulate_sign_flip(
    sizes: list[int],
    truth: float,
    discordance: float,
    alpha: float,
    concentration: float,
    population: str,
    replicates: int,
    seed: int,
    one_sided_p: Callable[[np.ndarray, np.ndarray], float],
) -> Rejections:
    """How often the one-sided company sign-flip test (`one_sided_p(num_k, den_k)`, alternative "lower") rejects "no
    difference" when the paired differences' question-weighted mean is `truth` (<= 0). Company k's discordance is drawn
    from Beta(discordance, c) and the share of its discordant pairs going the arm's way from Beta(1/2 + truth / (2
    discordance), c); for fixed strata both are held so that the expected sum is exactly `truth` per question."""
    counts = np.asarray(sizes, dtype=int)
    if counts.ndim != 1 or counts.size < 2 or np.any(counts < 1):
        raise ValueError(f"need two or more companies of one question or more, got {sizes}")
    if not 0 < discordance <= 1 or abs(truth) > discordance:
        raise ValueError(f"need 0 < discordance <= 1 and |truth| <= discordance, got {truth}, {discordance}")
    rng = np.random.default_rng(seed)
    den = counts.astype(float)
    toward_mean = 0.5 + truth / (2 * discordance)
    rejected = 0
    for _ in range(replicates):
        psi = company_rates(rng, counts, discordance, concentration, population)[0]
        toward = company_rates(rng, counts * psi, toward_mean, concentration, population)[0]
        discordant = rng.binomial(counts, psi)
        toward_arm = rng.binomial(discordant, toward)
        num = (toward_arm - (discordant - toward_arm)).astype(float)
        rejected += one_sided_p(num, den) <= alpha
    return Rejections("company sign-flip", truth, population, concentration, replicates, rejected)
