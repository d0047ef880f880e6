"""Company-cluster percentile bootstrap for ratios of sums and paired differences.

Questions about the same company share its filings, its XBRL quirks and its
retrieval difficulty, so their outcomes are correlated; resampling questions as
if independent would understate the uncertainty.  The unit of resampling is
therefore the company: a resample draws as many companies as were observed,
with replacement, and keeps every question of each drawn company.

Every statistic here is a ratio of sums (a rate is sum(successes)/sum(ones), a
paired difference is sum(a - b)/sum(ones)), so the per-question arrays are first
collapsed to one numerator and one denominator total per company.  A resample is
then a row of K company indices, and its statistic is a gather-and-sum over K
numbers, never a Python loop over questions: the cost is O(resamples x
companies), independent of the number of questions beyond one bincount.

Measured on the development machine (2 CPU cores, numpy 2.4.6): 10,000
resamples of 3,000 questions in 20 companies take about 7 ms (median of 20
runs, aggregation included); 3,000 companies of one question each take about 0.4 s.

Degenerate input follows one rule throughout ``edgar_eval.stats``: malformed
input (mismatched lengths, non-finite values, negative denominators, a confidence
outside (0, 1), no resamples) raises ``ValueError``; well-formed input on which
the statistic or its interval is undefined returns NaN, so that a small demo
corpus yields an honest "unknown" instead of crashing a report:

* no questions, or a zero total denominator: estimate, low and high are NaN;
* one company: the estimate is defined but every resample is that company, so
  there is no between-company variation to resample; low and high are NaN
  rather than a misleading zero-width interval;
* a resample whose denominator sum is zero (e.g. no unanswerable question among
  the drawn companies when estimating a false-answer rate) has no ratio; it is
  left out of the percentiles and counted in ``Interval.undefined``, i.e. the
  interval is conditional on the ratio being defined.  If every resample is
  undefined, low and high are NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

# Upper bound on resamples x companies gathered at once: keeps peak memory near
# 32 MiB whatever the number of companies, without changing the random stream
# for a given (seed, number of companies).
_CHUNK_CELLS = 1 << 22


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile-bootstrap interval.

    ``undefined`` counts resamples left out because their denominator was zero;
    a caller should flag an interval when it is a sizeable share of
    ``resamples``, since the interval is then conditional on a rare event.
    """

    estimate: float
    low: float
    high: float
    confidence: float
    resamples: int
    clusters: int
    undefined: int = 0


def cluster_bootstrap_ratio(
    numerators: ArrayLike,
    denominators: ArrayLike,
    clusters: ArrayLike,
    confidence: float = 0.95,
    resamples: int = 10_000,
    seed: int = 0,
) -> Interval:
    """Bootstrap sum(numerators) / sum(denominators), resampling whole clusters.

    Per-question arrays are passed (e.g. ``false_answer`` and ``unanswerable``
    as 0/1 for the false-answer rate) rather than per-company totals so that the
    caller cannot aggregate at the wrong level; ``clusters`` holds any hashable
    company labels.  The same ``seed`` and number of clusters always draws the
    same companies, so two statistics bootstrapped with one seed share their
    resamples.
    """
    num, den, labels = _as_arrays(numerators, denominators, clusters)
    if np.any(den < 0):
        raise ValueError("denominators must be non-negative")
    return _bootstrap(num, den, labels, confidence, resamples, seed)


def cluster_bootstrap_paired_difference(
    a: ArrayLike,
    b: ArrayLike,
    clusters: ArrayLike,
    confidence: float = 0.99,
    resamples: int = 10_000,
    seed: int = 0,
) -> Interval:
    """Bootstrap mean(a) - mean(b) for paired outcomes on the same questions.

    Pairing is preserved by differencing per question before resampling: both
    arms are evaluated on exactly the drawn questions, so the shared
    question-difficulty cancels and the interval is narrower than one built from
    two independent intervals.  ``a`` and ``b`` are typically 0/1 outcomes of
    two arms; any finite values work.  The default 99% level leaves room for the
    several arm-versus-arm comparisons reported together.
    """
    first, second, labels = _as_arrays(a, b, clusters)
    return _bootstrap(first - second, np.ones_like(first), labels, confidence, resamples, seed)


def _as_arrays(x: ArrayLike, y: ArrayLike, clusters: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    first = np.asarray(x, dtype=float)
    second = np.asarray(y, dtype=float)
    labels = np.asarray(clusters)
    if first.ndim != 1 or second.shape != first.shape or labels.shape != first.shape:
        raise ValueError(
            f"need three 1-D arrays of one length, got shapes {first.shape}, {second.shape}, {labels.shape}"
        )
    if not (np.all(np.isfinite(first)) and np.all(np.isfinite(second))):
        raise ValueError("values must be finite")
    return first, second, labels


def _bootstrap(
    num: np.ndarray, den: np.ndarray, labels: np.ndarray, confidence: float, resamples: int, seed: int
) -> Interval:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if resamples < 1:
        raise ValueError(f"need at least one resample, got {resamples}")
    if num.size == 0:
        return Interval(float("nan"), float("nan"), float("nan"), confidence, resamples, 0)

    _, cluster_index = np.unique(labels, return_inverse=True)
    k = int(cluster_index.max()) + 1
    num_k = np.bincount(cluster_index, weights=num, minlength=k)
    den_k = np.bincount(cluster_index, weights=den, minlength=k)
    total = den_k.sum()
    estimate = float(num_k.sum() / total) if total > 0 else float("nan")
    if np.isnan(estimate) or k == 1:
        return Interval(estimate, float("nan"), float("nan"), confidence, resamples, k)

    rng = np.random.default_rng(seed)
    ratios = np.empty(resamples)
    rows = max(1, _CHUNK_CELLS // k)
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        drawn = rng.integers(0, k, size=(stop - start, k))
        top, bottom = num_k[drawn].sum(axis=1), den_k[drawn].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios[start:stop] = np.where(bottom > 0, top / bottom, np.nan)

    defined = ratios[~np.isnan(ratios)]
    undefined = resamples - defined.size
    if defined.size == 0:
        return Interval(estimate, float("nan"), float("nan"), confidence, resamples, k, undefined)
    tail = (1 - confidence) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return Interval(estimate, float(low), float(high), confidence, resamples, k, undefined)
