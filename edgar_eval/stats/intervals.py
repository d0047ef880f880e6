"""One door to every interval method a paired comparison may use: the company bootstrap's (percentile, BCa,
bootstrap-t: `stats.bootstrap`), the few-cluster methods (company-robust t with K - 1 degrees of freedom, the exact
company sign-flip: `stats.few_clusters`), and, for a comparison whose differences all go one way, Korn and Graubard's
interval, so that the decision simulation weighs them on the same draws and a comparison builds its interval with
whichever the simulation chose.

Korn-Graubard (Korn and Graubard 1998, "Confidence intervals for proportions with small expected number of positive
counts estimated from survey data"): a gated arm against the arm it gates differs from it only by withholding, so each
paired difference is 0 or -1 and the difference is minus a clustered proportion, the share of questions withheld. Near
the recall-cost margin that share is a few percent, a handful of questions per split, and every symmetric interval
(bootstrap or t) puts its far end too close to the estimate: at the null boundary it decides too often. The method
takes the Clopper-Pearson interval at the effective sample size n* = p(1 - p) / var(p) (the company-robust variance
of the ratio estimator; n* at most the questions, and the questions where nothing is withheld), shrunk by the ratio of
t quantiles with N - 1 and K - 1 degrees of freedom for few companies. Where the differences go both ways it is
undefined (NaN bounds): the simulation offers it only to comparisons whose mask structure rules that out.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from edgar_eval.stats.bootstrap import METHODS as BOOTSTRAP_METHODS
from edgar_eval.stats.bootstrap import Interval, cluster_bootstrap_paired_difference
from edgar_eval.stats.few_clusters import FEW_CLUSTER_METHODS, paired_difference_few_clusters

# scipy.stats is imported inside the functions that use it: it takes a second to import, and every process that
# loads the graph (a warm `edgar-eval run`, the UI, each worker) imports this module

INTERVAL_METHODS = BOOTSTRAP_METHODS + FEW_CLUSTER_METHODS
ONE_WAY_METHODS = ("korn_graubard",)  # only for differences that all go one way (a mask against the arm it gates)


def paired_interval(
    a: ArrayLike,
    b: ArrayLike,
    clusters: ArrayLike,
    confidence: float,
    method: str,
    resamples: int = 10_000,
    seed: int = 0,
) -> Interval:
    """mean(a) - mean(b) over paired questions clustered by company, with its two-sided interval at `confidence` by
    `method` (a few-cluster method draws no resamples: its `resamples` reads 0)."""
    if method == "korn_graubard":
        return korn_graubard(a, b, clusters, confidence)
    if method in FEW_CLUSTER_METHODS:
        result = paired_difference_few_clusters(a, b, clusters, confidence=confidence, method=method, seed=seed)
        return Interval(result.estimate, result.low, result.high, confidence, 0, result.clusters, 0, method)
    if method not in BOOTSTRAP_METHODS:
        known = ", ".join(INTERVAL_METHODS + ONE_WAY_METHODS)
        raise ValueError(f"unknown interval method {method!r}; choose one of {known}")
    return cluster_bootstrap_paired_difference(
        a, b, clusters, confidence=confidence, resamples=resamples, seed=seed, method=method
    )


def korn_graubard(a: ArrayLike, b: ArrayLike, clusters: ArrayLike, confidence: float) -> Interval:
    """mean(a) - mean(b) where every paired difference has one sign, as minus (or plus) a company-clustered
    proportion with Korn and Graubard's interval (no difference at all reads as arm minus the arm it gates: [-bound,
    0]); NaN bounds where the differences go both ways or there are fewer than two companies."""
    from scipy.stats import beta as beta_distribution
    from scipy.stats import t as student_t

    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    difference = first - second
    _, index = np.unique(np.asarray(clusters), return_inverse=True)
    k = int(index.max()) + 1 if index.size else 0
    nan = float("nan")
    if difference.size == 0 or k < 2 or (np.any(difference > 0) and np.any(difference < 0)):
        estimate = float(difference.mean()) if difference.size else nan
        return Interval(estimate, nan, nan, confidence, 0, k, 0, "korn_graubard")
    sign = 1.0 if np.any(difference > 0) else -1.0  # none at all: read as a withholding's, [-bound, 0]
    hits = np.bincount(index, weights=np.abs(difference), minlength=k)
    sizes = np.bincount(index, minlength=k).astype(float)
    n = float(sizes.sum())
    share = float(hits.sum() / n)
    variance = k / (k - 1) * float(np.sum((hits - share * sizes) ** 2)) / n**2
    effective = n if variance == 0 else min(n, share * (1 - share) / variance)
    tail = (1 - confidence) / 2
    if n > 1:
        effective *= (float(student_t.ppf(tail, n - 1)) / float(student_t.ppf(tail, k - 1))) ** 2
    count = share * effective
    low = 0.0 if count <= 0 else float(beta_distribution.ppf(tail, count, effective - count + 1))
    high = 1.0 if count >= effective else float(beta_distribution.ppf(1 - tail, count + 1, effective - count))
    bounds = (sign * low, sign * high) if sign > 0 else (-high, -low)
    return Interval(sign * share, bounds[0], bounds[1], confidence, 0, k, 0, "korn_graubard")
