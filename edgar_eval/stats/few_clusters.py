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
  compares the observed sum with all 2^K sign patterns (K <= 16: the p-value is the share whose |sum| reaches the
  observed one, the observed pattern among them) or, above, with DRAWN_PATTERNS = 2^16 patterns drawn with the seed:
  (1 + the drawn that reach it) / (1 + 2^16), never 0. Its size is at most alpha whatever the distribution within
  companies, but it is discrete: with K companies the smallest two-sided p-value is 2 / 2^K, so 5 companies (1/16)
  can never reject at 0.05, and 8 are the fewest that can reject at 0.01. The interval is the set of theta the test
  does not reject, constructed exactly rather than searched for: a pattern that flips the companies F and keeps U
  reaches the observed |sum| exactly for theta between the ratios n_F / d_F and n_U / d_U (a closed set that holds
  the estimate), so the bounds are order statistics of those ratios, closed, and 0 lies inside exactly when the
  p-value at 0 exceeds 1 - confidence (ties included: a company without a discordant question has the ratio 0, and
  the p-value jumps there). Where no pattern is rare enough to reject anything it is unbounded (-inf to inf), which
  is what so few companies allow.
* `sign_flip_one_sided_p_value`: the one-sided p-value of the same test, exact or Monte Carlo (+ 1) as above: against
  "the difference is lower than theta" the share of patterns whose signed sum is at most the observed one, against
  "higher" at least (ties count, the observed pattern for both). A one-sided decision is read from it directly, not
  from an inverted interval. Over all 2^K patterns it is at least 1/2 unless the estimate lies beyond theta in its
  direction, and the two-sided p-value is min(1, 2 * the smaller one-sided one); drawn, both hold to Monte Carlo
  error, and the two one-sided p-values add up to more than 1.

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


@functools.lru_cache(maxsize=8)
def _drawn_patterns(k: int, seed: int) -> np.ndarray:
    """DRAWN_PATTERNS sign patterns of k companies, drawn independently and uniformly (with replacement) with `seed`,
    packed: bit j % 8 of byte j // 8 is set when the pattern flips company j (64 KiB per 8 companies)."""
    codes = np.random.default_rng(seed).integers(0, 256, size=(DRAWN_PATTERNS, -(-k // 8)), dtype=np.uint8)
    if k % 8:
        codes[:, -1] &= (1 << (k % 8)) - 1
    codes.flags.writeable = False  # shared by every caller
    return codes


def _subset_sums(values: np.ndarray) -> np.ndarray:
    """Row i: the column sums of the rows of `values` (companies) whose bits are set in i, all 2^k, by doubling."""
    sums = np.zeros((1 << len(values), values.shape[1]))
    for company, row in enumerate(values):
        sums[1 << company : 2 << company] = sums[: 1 << company] + row
    return sums


def _subset_ratios(num_k: np.ndarray, den_k: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per reference pattern, n_F / d_F over the companies it flips (F) and over those it keeps (U); NaN where the
    set is empty. The reference is every pattern (K <= EXACT_UP_TO; row i flips the companies of the bits of i, so
    row 2^K - 1 - i is its complement) or the observed pattern followed by the DRAWN_PATTERNS drawn ones: the
    observed pattern counts once, as the + 1 of the Monte Carlo p-value, and a drawn row that happens to equal it
    counts as a drawn pattern, as the (1 + b) / (1 + m) p-value of independent draws requires."""
    k = len(num_k)
    values = np.column_stack([num_k, den_k, np.ones(k)])  # the last column counts the companies of the set
    if k <= EXACT_UP_TO:
        flipped = _subset_sums(values)
        kept = flipped[::-1]
    else:  # each drawn pattern's sums: per 8 companies, the subset sum its byte picks from that block's 256
        codes = _drawn_patterns(k, seed)
        flipped = np.zeros((1 + DRAWN_PATTERNS, 3))
        for block in range(codes.shape[1]):
            flipped[1:] += _subset_sums(values[8 * block : 8 * block + 8])[codes[:, block]]
        kept = values.sum(axis=0) - flipped
    return _ratio(flipped), _ratio(kept)


def _ratio(sums: np.ndarray) -> np.ndarray:
    ratio = np.full(len(sums), np.nan)
    filled = sums[:, 2] > 0
    np.divide(sums[:, 0], sums[:, 1], out=ratio, where=filled)
    return ratio


def _reaching(num_k: np.ndarray, den_k: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per reference pattern the closed set of theta where |its signed sum| reaches the observed one, [lo, hi].

    With F the companies a pattern flips and U those it keeps, the observed sum is S_U + S_F and the pattern's
    S_U - S_F (S_X(theta) = n_X - theta d_X): it reaches the observed one exactly when S_U and S_F do not share a
    sign, that is for theta between n_F / d_F and n_U / d_U, and everywhere when F or U is empty. Each set holds the
    estimate (sum n / sum d lies between the two ratios; ends are widened to it where rounding says otherwise), so the
    number of sets holding theta rises up to the estimate and falls after it."""
    flipped, kept = _subset_ratios(num_k, den_k, seed)
    estimate = float(num_k.sum() / den_k.sum())
    empty = np.isnan(flipped) | np.isnan(kept)
    low = np.where(empty, -np.inf, np.minimum(np.minimum(flipped, kept), estimate))
    high = np.where(empty, np.inf, np.maximum(np.maximum(flipped, kept), estimate))
    return low, high


def _totals(num_k: ArrayLike, den_k: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    num, den = np.asarray(num_k, dtype=float), np.asarray(den_k, dtype=float)
    if num.ndim != 1 or den.shape != num.shape:
        raise ValueError(f"need two 1-D arrays of one length, got {num.shape}, {den.shape}")
    if not (np.all(np.isfinite(num)) and np.all(np.isfinite(den))):
        raise ValueError("company totals must be finite")
    if np.any(den <= 0):
        raise ValueError("every company needs a positive number of questions")
    return num, den


def sign_flip_p_value(num_k: ArrayLike, den_k: ArrayLike, theta: float = 0.0, seed: int = 0) -> float:
    """The two-sided sign-flip p-value of "the difference is theta", from company totals: the share of the 2^K
    patterns whose |signed sum| reaches the observed one (K <= EXACT_UP_TO, exact), else (1 + the drawn patterns
    that reach it) / (1 + DRAWN_PATTERNS), drawn with `seed`."""
    num, den = _totals(num_k, den_k)
    if len(num) < 2:
        return 1.0
    low, high = _reaching(num, den, seed)
    return float(np.count_nonzero((low <= theta) & (theta <= high)) / len(low))


def sign_flip_one_sided_p_value(
    num_k: ArrayLike, den_k: ArrayLike, theta: float = 0.0, direction: str = "lower", seed: int = 0
) -> float:
    """The one-sided sign-flip p-value of "the difference is theta" against "it is lower" (direction "lower": the
    share of patterns whose signed sum is at most the observed one) or "it is higher" (at least the observed one);
    exact over the 2^K patterns for K <= EXACT_UP_TO, else (1 + the drawn patterns that count) / (1 + DRAWN_PATTERNS).

    A pattern's signed sum is at most the observed one exactly when the companies it flips have S_F(theta) >= 0,
    that is theta <= n_F / d_F (the observed pattern, which flips none, counts for both directions)."""
    if direction not in ("lower", "higher"):
        raise ValueError(f"direction must be 'lower' or 'higher', got {direction!r}")
    num, den = _totals(num_k, den_k)
    if len(num) == 0:
        return 1.0
    flipped, _ = _subset_ratios(num, den, seed)
    with np.errstate(invalid="ignore"):  # NaN (no company flipped) compares False and is counted apart
        beyond = theta <= flipped if direction == "lower" else theta >= flipped
    return float(np.count_nonzero(beyond | np.isnan(flipped)) / len(flipped))


def _sign_flip(num_k: np.ndarray, den_k: np.ndarray, estimate: float, confidence: float, seed: int) -> FewClusterResult:
    """The interval is {theta : p(theta) > alpha}, read off the sets where each pattern reaches the observed sum:
    p(theta) = #{patterns whose [lo, hi] holds theta} / T, and every [lo, hi] holds the estimate, so below the
    estimate p(theta) > alpha exactly when at least c of the lo are <= theta (c the fewest patterns with c / T >
    alpha), and above it when at least c of the hi are >= theta: the bounds are the c-th smallest lo and the c-th
    largest hi, closed, and the p-value at 0 is read off the same sets, so 0 lies inside exactly when p(0) > alpha.
    Where c patterns reach the observed sum for every theta (the two all-same patterns when 2 / 2^K > alpha) a bound
    is infinite."""
    low_ends, high_ends = _reaching(num_k, den_k, seed)
    patterns, alpha = len(low_ends), 1 - confidence
    fewest = int(np.floor(alpha * patterns)) + 1
    while fewest > 1 and (fewest - 1) / patterns > alpha:
        fewest -= 1
    while fewest / patterns <= alpha:
        fewest += 1
    low = float(np.partition(low_ends, fewest - 1)[fewest - 1])
    high = float(-np.partition(-high_ends, fewest - 1)[fewest - 1])
    p_value = float(np.count_nonzero((low_ends <= 0) & (0 <= high_ends)) / patterns)
    return FewClusterResult(estimate, low, high, p_value, confidence, len(num_k), "sign_flip")
