"""Paired differences over few companies (5 to 30): intervals and tests whose size does not rest on many clusters.

The company bootstrap (`stats.bootstrap`) resamples companies; with fewer than about 20 its intervals run short of
their level, and no choice among percentile, BCa and bootstrap-t holds alpha 0.005 at 9 companies. Two methods made
for few clusters, both on the company totals of a paired difference (per company k: n_k the summed per-question
differences a - b, d_k its questions; the estimate is sum n_k / sum d_k, as the bootstrap's):

* ``cluster_t``: the estimate over its linearised company-robust standard error,
  sqrt(K / (K - 1) * sum_k (n_k - r d_k)^2) / sum_k d_k, referred to Student's t with K - 1 degrees of freedom
  (the CR1 correction with G - 1 degrees of freedom, as econometrics uses for few clusters). Closed form, no
  resamples; it assumes the company-level residuals are roughly normal, which 0/1 outcomes with a few discordant
  questions per company are not: its size is measured (tests), not assumed.
* ``sign_flip``: the exact randomisation test of company-level sign flips. Under "no difference" with the two arms
  exchangeable within each company, each company's residual n_k - theta d_k is as likely to be negated; the test
  compares the observed sum with all 2^K sign patterns (K <= 16; a seeded Monte Carlo of 2^16 patterns above). Its
  size is at most alpha whatever the distribution within companies, but it is discrete: with K companies the
  smallest two-sided p-value is 2 / 2^K, so 5 companies (1/16) can never reject at 0.05, and 8 are the fewest that
  can reject at 0.01. The interval is the set of theta the test does not reject, found by bisection; where no
  pattern is rare enough to reject anything it is unbounded (-inf to inf), which is what so few companies allow.

Undefined input follows `stats.bootstrap`: no question, or one company, gives NaN bounds and p-value 1.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

# scipy.stats is imported inside the functions that use it: it takes a second to import, and every process that
# loads the graph (a warm `edgar-eval run`, the UI, each worker) imports this module


FEW_CLUSTER_METHODS = ("cluster_t", "sign_flip")
EXACT_UP_TO = 16  # companies: 2^16 sign patterns enumerated; above, as many are drawn
DRAWN_PATTERNS = 1 << 16
_PRECISION = 1e-6  # the bisection stops when a bound is known to within this much


@dataclass(frozen=True)
class FewClusterResult:
    """A paired difference with its interval and the two-sided p-value of "no difference", by `method`."""

    estimate: float
    low: float
    high: float
    p_value: float
    confidence: float
    clusters: int
    method: str


def company_totals(a: ArrayLike, b: ArrayLike, clusters: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Per company (in label order): the summed differences a - b and the number of questions."""
    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    labels = np.asarray(clusters)
    if first.ndim != 1 or second.shape != first.shape or labels.shape != first.shape:
        raise ValueError(f"need three 1-D arrays of one length, got {first.shape}, {second.shape}, {labels.shape}")
    if not (np.all(np.isfinite(first)) and np.all(np.isfinite(second))):
        raise ValueError("values must be finite")
    if first.size == 0:
        return np.zeros(0), np.zeros(0)
    _, index = np.unique(labels, return_inverse=True)
    k = int(index.max()) + 1
    return np.bincount(index, weights=first - second, minlength=k), np.bincount(index, minlength=k).astype(float)


def paired_difference_few_clusters(
    a: ArrayLike, b: ArrayLike, clusters: ArrayLike, confidence: float = 0.99, method: str = "sign_flip", seed: int = 0
) -> FewClusterResult:
    """mean(a) - mean(b) over paired questions, its interval at `confidence` and the p-value of no difference."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if method not in FEW_CLUSTER_METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(FEW_CLUSTER_METHODS)}")
    num_k, den_k = company_totals(a, b, clusters)
    k = len(num_k)
    nan = float("nan")
    if k == 0:
        return FewClusterResult(nan, nan, nan, 1.0, confidence, 0, method)
    estimate = float(num_k.sum() / den_k.sum())
    if k == 1:
        return FewClusterResult(estimate, nan, nan, 1.0, confidence, 1, method)
    if method == "cluster_t":
        return _cluster_t(num_k, den_k, estimate, confidence)
    return _sign_flip(num_k, den_k, estimate, confidence, seed)


def _cluster_t(num_k: np.ndarray, den_k: np.ndarray, estimate: float, confidence: float) -> FewClusterResult:
    from scipy.stats import t as student_t

    k = len(num_k)
    error = float(np.sqrt(k / (k - 1) * np.sum((num_k - estimate * den_k) ** 2)) / den_k.sum())
    if error == 0:  # every company has the same ratio: nothing varies between companies
        p_value = 1.0 if estimate == 0 else 0.0
        return FewClusterResult(estimate, estimate, estimate, p_value, confidence, k, "cluster_t")
    quantile = float(student_t.ppf(1 - (1 - confidence) / 2, k - 1))
    p_value = float(2 * student_t.sf(abs(estimate) / error, k - 1))
    return FewClusterResult(
        estimate, estimate - quantile * error, estimate + quantile * error, p_value, confidence, k, "cluster_t"
    )


def _patterns(k: int, seed: int) -> np.ndarray:
    """The sign patterns: every one of 2^k (k <= EXACT_UP_TO), else DRAWN_PATTERNS drawn with `seed`; each row +-1."""
    return _every_pattern(k) if k <= EXACT_UP_TO else _drawn_patterns(k, seed)


@functools.cache
def _every_pattern(k: int) -> np.ndarray:
    """All 2^k sign patterns, kept per k: they do not depend on the seed, and a simulation asks for them once per
    replicate with the replicate's seed (at most 17 arrays, the largest 4 MiB)."""
    codes = np.arange(1 << k, dtype=np.int64)[:, None]
    patterns = np.where((codes >> np.arange(k)) & 1, -1.0, 1.0).astype(np.float32)
    patterns.flags.writeable = False  # shared by every caller
    return patterns


@functools.lru_cache(maxsize=4)
def _drawn_patterns(k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.choice(np.array([-1.0, 1.0], dtype=np.float32), size=(DRAWN_PATTERNS, k))


def sign_flip_p_value(num_k: ArrayLike, den_k: ArrayLike, theta: float = 0.0, seed: int = 0) -> float:
    """The exact (K <= 16) two-sided sign-flip p-value of "the difference is theta", from company totals."""
    residuals = np.asarray(num_k, dtype=float) - theta * np.asarray(den_k, dtype=float)
    return 1.0 if len(residuals) < 2 else _flip_p_value(_patterns(len(residuals), seed), residuals)


def _flip_p_value(patterns: np.ndarray, residuals: np.ndarray) -> float:
    """Share of sign patterns whose |sum of signed residuals| reaches the observed one (the observed included)."""
    observed = abs(float(residuals.sum()))
    flipped = np.abs(patterns @ residuals.astype(np.float32))
    return float(np.mean(flipped >= observed - 1e-6 * max(1.0, observed)))


def _sign_flip(num_k: np.ndarray, den_k: np.ndarray, estimate: float, confidence: float, seed: int) -> FewClusterResult:
    k, alpha = len(num_k), 1 - confidence
    patterns = _patterns(k, seed)

    def p_at(theta: float) -> float:
        return _flip_p_value(patterns, num_k - theta * den_k)

    if 2 / 2**k > alpha:  # no sign pattern is rarer than 2 in 2^K: nothing can be rejected, nothing excluded
        return FewClusterResult(estimate, float("-inf"), float("inf"), p_at(0.0), confidence, k, "sign_flip")
    ratios = num_k / den_k
    # Beyond the companies' own ratios every residual has one sign and only the two all-same patterns reach the
    # sum: p = 2 / 2^K <= alpha there, so each bound lies between the estimate and the nearest extreme ratio.
    outer_low, outer_high = float(ratios.min()), float(ratios.max())

    def bound(inside: float, outside: float) -> float:
        if p_at(outside) > alpha:  # ties at the extreme ratio: not rejected there
            return outside
        while abs(outside - inside) > _PRECISION:
            middle = (inside + outside) / 2
            inside, outside = (middle, outside) if p_at(middle) > alpha else (inside, middle)
        return inside

    low, high = bound(estimate, outer_low), bound(estimate, outer_high)
    return FewClusterResult(estimate, low, high, p_at(0.0), confidence, k, "sign_flip")
