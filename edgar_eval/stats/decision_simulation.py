"""How a one-sided decision read from a company-cluster bootstrap interval behaves at a split's own clusters.

A confirmatory decision reads one end of an interval: "the false-answer rate falls" is the upper end below zero;
"the recall cost stays inside the margin" is the lower end of the accuracy difference above minus the margin. What
matters is therefore not two-sided coverage at some alternative but, for each tail, how often the truth lies beyond
it, and above all how often the decision is taken when the truth sits exactly on its null boundary (the type-I
error). Both are measured here on data of known truth drawn at the split's company sizes:

* company k keeps the number of questions it holds in the split (sizes are design, not outcome);
* each question's paired difference (arm minus baseline) is +1, -1 or 0. Company k's discordance psi_k (the share of
  its questions on which the arms differ) is drawn from a Beta of mean `discordance` and concentration
  `concentration`, and the share of its discordant pairs that go the arm's way, s_k, from a Beta of mean
  (1 + truth / discordance) / 2 and the same concentration, independently; so E[psi_k s_k - psi_k (1 - s_k)] =
  truth exactly, whatever the sizes, while companies differ as much as the concentration says (4: widely);
* each replicate draws fresh company rates and outcomes and builds every method's interval from the same resamples.

A gated arm against the arm it gates (D or E against A) can only withhold answers the baseline gave, so its paired
differences are never +1 on the false-answer rate and never +1 on accuracy: such a comparison is simulated with every
discordant pair going one way (`discordance` equal to |truth|), and at the false-answer null boundary (truth 0) with no
discordant pair at all, where no method can take the decision. Drawing differences of both signs there would measure a
null the data cannot meet.

The power of the decision at a true difference, and from it the smallest difference detected with the wanted power
(the minimum detectable effect), come from the same draws; the design effect is the simulated estimator's variance
against that of as many independent questions, (psi - truth^2) / n. Miss rates carry their Wilson interval, since
they are estimates themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from edgar_eval.stats.bootstrap import Interval
from edgar_eval.stats.intervals import INTERVAL_METHODS, paired_interval
from edgar_eval.stats.proportions import wilson


@dataclass(frozen=True)
class TailMisses:
    """One method's interval at a known truth: how often the truth lay below its lower end, above its upper end,
    and how often no interval could be built (counted as neither miss: such a replicate takes no decision)."""

    method: str
    truth: float
    replicates: int
    below_low: int  # truth < low: the interval sits above the truth
    above_high: int  # truth > high: the interval sits below the truth
    undefined: int
    mean_width: float

    def share(self, tail: str) -> float:
        return (self.below_low if tail == "low" else self.above_high) / self.replicates

    def share_interval(self, tail: str) -> tuple[float, float]:
        estimate = wilson(self.below_low if tail == "low" else self.above_high, self.replicates)
        return estimate.low, estimate.high


@dataclass(frozen=True)
class Power:
    """The decision's power at one true difference and the simulated estimator's design effect there."""

    truth: float
    replicates: int
    decided: int
    design_effect: float

    @property
    def share(self) -> float:
        return self.decided / self.replicates


def _check(sizes: np.ndarray, truth: float, discordance: float, concentration: float, replicates: int) -> None:
    if sizes.ndim != 1 or sizes.size < 2 or np.any(sizes < 1):
        raise ValueError(f"need two or more companies of one or more questions, got sizes {sizes.tolist()}")
    if not 0 < discordance <= 1 and not (discordance == 0 and truth == 0):
        raise ValueError(f"discordance must lie in (0, 1] (0 only at truth 0), got {discordance}")
    if abs(truth) > discordance + 1e-12:
        raise ValueError(f"a paired difference of {truth} cannot exceed the discordance {discordance}")
    if concentration <= 0:
        raise ValueError(f"concentration must be positive, got {concentration}")
    if replicates < 1:
        raise ValueError(f"need at least one replicate, got {replicates}")


def _beta(rng: np.random.Generator, mean: float, concentration: float, size: int) -> np.ndarray:
    """Beta draws of this mean; a mean of exactly 0 or 1 is that value for every company."""
    if mean <= 0 or mean >= 1:
        return np.full(size, min(max(mean, 0.0), 1.0))
    return rng.beta(mean * concentration, (1 - mean) * concentration, size=size)


def _draw(
    rng: np.random.Generator, sizes: np.ndarray, clusters: np.ndarray, truth: float, discordance: float, concentration
) -> np.ndarray:
    """One replicate's per-question paired differences (+1, -1 or 0)."""
    if discordance == 0:
        return np.zeros(clusters.size)
    psi = _beta(rng, discordance, concentration, sizes.size)[clusters]
    toward_arm = _beta(rng, min(max((1 + truth / discordance) / 2, 0.0), 1.0), concentration, sizes.size)[clusters]
    discordant = rng.random(clusters.size) < psi
    arm_way = rng.random(clusters.size) < toward_arm
    return np.where(discordant, np.where(arm_way, 1.0, -1.0), 0.0)


def _simulated_intervals(
    sizes: np.ndarray,
    truth: float,
    discordance: float,
    concentration: float,
    replicates: int,
    rng: np.random.Generator,
    confidence: float,
    resamples: int,
    methods: tuple[str, ...],
) -> Iterator[dict[str, Interval]]:
    """Per simulated split (one draw of company rates and outcomes), each method's interval of its paired difference,
    all methods built from the same resamples (the bootstrap seeded by the replicate's number)."""
    clusters = np.repeat(np.arange(sizes.size), sizes)
    zeros = np.zeros(clusters.size)
    for replicate in range(replicates):
        difference = _draw(rng, sizes, clusters, truth, discordance, concentration)
        yield {
            method: paired_interval(
                difference, zeros, clusters, confidence, method, resamples=resamples, seed=replicate
            )
            for method in methods
        }


def simulate_tail_misses(
    company_sizes: list[int],
    truth: float,
    discordance: float,
    confidence: float,
    concentration: float = 4.0,
    replicates: int = 1_000,
    resamples: int = 2_000,
    seed: int = 0,
    methods: tuple[str, ...] = INTERVAL_METHODS,
) -> list[TailMisses]:
    """Each method's two-sided interval at `confidence` over `replicates` simulated splits of these company sizes whose
    true paired difference is `truth`: the misses in each tail (each should be at most (1 - confidence) / 2)."""
    sizes = np.asarray(company_sizes, dtype=int)
    _check(sizes, truth, discordance, concentration, replicates)
    below = {m: 0 for m in methods}
    above = {m: 0 for m in methods}
    undefined = {m: 0 for m in methods}
    widths: dict[str, list[float]] = {m: [] for m in methods}
    draws = _simulated_intervals(
        sizes,
        truth,
        discordance,
        concentration,
        replicates,
        np.random.default_rng(seed),
        confidence,
        resamples,
        methods,
    )
    for intervals in draws:
        for method, interval in intervals.items():
            if np.isnan(interval.low):
                undefined[method] += 1
                continue
            below[method] += truth < interval.low
            above[method] += truth > interval.high
            widths[method].append(interval.high - interval.low)
    return [
        TailMisses(
            method,
            truth,
            replicates,
            below[method],
            above[method],
            undefined[method],
            float(np.mean(widths[method])) if widths[method] else float("nan"),
        )
        for method in methods
    ]


def simulate_power(
    company_sizes: list[int],
    truths: list[float],
    discordance: float,
    confidence: float,
    method: str,
    concentration: float = 4.0,
    replicates: int = 300,
    resamples: int = 2_000,
    seed: int = 0,
    removes_only: bool = False,
) -> list[Power]:
    """For each true difference (negative: the arm lowers the rate), how often the interval's upper end falls below
    zero, i.e. how often the decision "it falls" is taken; and the design effect of the simulated estimator.
    `removes_only`: a gated arm against the arm it gates, its discordant pairs all one way (discordance |truth|)."""
    sizes = np.asarray(company_sizes, dtype=int)
    results = []
    for step, truth in enumerate(truths):
        discordance = abs(truth) if removes_only else discordance
        _check(sizes, truth, discordance, concentration, replicates)
        rng = np.random.default_rng([seed, step])
        draws = _simulated_intervals(
            sizes, truth, discordance, concentration, replicates, rng, confidence, resamples, (method,)
        )
        intervals = [drawn[method] for drawn in draws]
        decided = sum(bool(interval.high < 0) for interval in intervals)
        independent = (discordance - truth * truth) / int(sizes.sum())
        variance = float(np.var([interval.estimate for interval in intervals]))
        results.append(Power(truth, replicates, decided, variance / independent if independent > 0 else np.nan))
    return results


def minimum_detectable(powers: list[Power], wanted: float) -> Power | None:
    """The smallest |difference| (of those simulated, in order) whose power reaches `wanted`; None if none does."""
    for power in sorted(powers, key=lambda p: abs(p.truth)):
        if power.share >= wanted:
            return power
    return None
