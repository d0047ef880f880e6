"""AUROC of abstention gate scores with DeLong intervals, alone and paired.

A gate score should rank answerable questions above unanswerable ones at every
threshold, not only at the one the gate ships with; AUROC measures that
threshold-free.  It is the Mann-Whitney probability that a random answerable
question outscores a random unanswerable one, ties counting one half, which is
exactly sklearn's ``roc_auc_score`` (trapezoidal area) on the same data.

Uncertainty comes from DeLong, DeLong & Clarke-Pearson (1988), "Comparing the
areas under two or more correlated receiver operating characteristic curves: a
nonparametric approach", Biometrics 44(3):837-845: the AUROC is a two-sample
U-statistic, and its variance is estimated from the structural components
V10 (per positive: share of negatives it beats) and V01 (per negative: share of
positives that beat it).  Computing those naively costs O(m n); Sun & Xu (2014),
"Fast implementation of DeLong's algorithm for comparing the areas under
correlated receiver operating characteristic curves", IEEE Signal Processing
Letters 21(11):1389-1393, get them from three midrank computations in
O((m + n) log(m + n)), for all scores at once, which is what ``delong`` does.
Because both scores of a paired comparison are scored on the same questions,
the covariance between their AUROCs is estimated too, and the difference test
uses it: that is what makes the comparison of two gates sharper than comparing
two separate intervals.

Intervals are Wald intervals on the AUROC scale, clipped to [0, 1] as pROC does.
Malformed input raises ``ValueError``; with no positive or no negative the
AUROC is NaN, and with fewer than two of either the variance (hence the interval
and p-value) is NaN, as everywhere in ``edgar_eval.stats``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

# scipy.stats is imported inside the functions that use it: it takes a second to import, and every process that
# loads the graph (a warm `edgar-eval run`, the UI, each worker) imports this module


@dataclass(frozen=True)
class Auroc:
    """An AUROC with its DeLong variance and Wald interval."""

    estimate: float
    low: float
    high: float
    variance: float
    positives: int
    negatives: int
    confidence: float


@dataclass(frozen=True)
class AurocDifference:
    """AUROC(first) - AUROC(second) on the same questions, with DeLong's paired test."""

    first: float
    second: float
    difference: float
    low: float
    high: float
    variance: float
    z: float
    p_value: float
    confidence: float


def delong(scores: ArrayLike, positives: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """AUROCs of k scores and their k x k DeLong covariance matrix (Sun & Xu 2014).

    ``scores`` is (k, N) or (N,); ``positives`` (N,) marks the questions the
    scores should rank high.  With midranks T_z over all N questions, T_x within
    the m positives and T_y within the n negatives,

        V10 = (T_z[positives] - T_x) / n,     V01 = 1 - (T_z[negatives] - T_y) / m,

    the AUROC is mean(V10) = mean(V01), and the covariance is
    S10 / m + S01 / n with S10, S01 the sample covariances (denominator m - 1,
    n - 1) of the V10 and V01 rows.
    """
    from scipy.stats import rankdata

    matrix, labels = _validate(scores, positives)
    x, y = matrix[:, labels], matrix[:, ~labels]
    m, n = x.shape[1], y.shape[1]
    k = matrix.shape[0]
    if m == 0 or n == 0:
        return np.full(k, np.nan), np.full((k, k), np.nan)
    t_x = rankdata(x, axis=1)
    t_y = rankdata(y, axis=1)
    t_z = rankdata(np.concatenate([x, y], axis=1), axis=1)
    v10 = (t_z[:, :m] - t_x) / n
    v01 = 1.0 - (t_z[:, m:] - t_y) / m
    aucs = v10.mean(axis=1)
    if m < 2 or n < 2:
        return aucs, np.full((k, k), np.nan)
    covariance = np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / n
    return aucs, covariance


def auroc(scores: ArrayLike, positives: ArrayLike, confidence: float = 0.95) -> Auroc:
    """AUROC of one score with its DeLong interval."""
    from scipy.stats import norm

    _check_confidence(confidence)
    labels = np.asarray(positives)
    aucs, covariance = delong(scores, labels)
    if aucs.size != 1:
        raise ValueError("auroc takes one score per question; use delong for several")
    estimate, variance = float(aucs[0]), float(covariance[0, 0])
    if math.isnan(variance):
        low = high = float("nan")
    else:
        half = norm.ppf(0.5 + confidence / 2) * math.sqrt(variance)
        low, high = float(max(0.0, estimate - half)), float(min(1.0, estimate + half))
    m = int(np.count_nonzero(labels))
    return Auroc(estimate, low, high, variance, m, labels.size - m, confidence)


def auroc_difference(
    first: ArrayLike, second: ArrayLike, positives: ArrayLike, confidence: float = 0.95
) -> AurocDifference:
    """Paired DeLong test of AUROC(first) - AUROC(second) on the same questions.

    z = difference / sqrt(var1 + var2 - 2 cov12), two-sided normal p-value.  When
    the variance of the difference is zero (e.g. two scores that order the
    questions identically) there is no sampling variation left: the p-value is
    1 if the difference is 0, else 0, and the interval is the point.
    """
    from scipy.stats import norm

    _check_confidence(confidence)
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"need two 1-D score arrays of one length, got shapes {a.shape} and {b.shape}")
    aucs, s = delong(np.vstack([a, b]), positives)
    difference = float(aucs[0] - aucs[1])
    variance = float(s[0, 0] + s[1, 1] - 2 * s[0, 1])
    if math.isnan(variance):
        z = p_value = low = high = float("nan")
    elif variance <= 1e-12 * (s[0, 0] + s[1, 1]):
        # Cancellation leaves a rounding residue of either sign where the exact value is 0.
        variance = 0.0
        z = 0.0 if difference == 0 else math.copysign(math.inf, difference)
        p_value = 1.0 if difference == 0 else 0.0
        low = high = difference
    else:
        se = math.sqrt(variance)
        z = difference / se
        p_value = float(2 * norm.sf(abs(z)))
        half = norm.ppf(0.5 + confidence / 2) * se
        low, high = float(difference - half), float(difference + half)
    return AurocDifference(float(aucs[0]), float(aucs[1]), difference, low, high, variance, z, p_value, confidence)


def _validate(scores: ArrayLike, positives: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    matrix = np.atleast_2d(np.asarray(scores, dtype=float))
    labels = np.asarray(positives)
    if matrix.ndim != 2 or labels.ndim != 1 or matrix.shape[1] != labels.size:
        raise ValueError(f"need scores of shape (N,) or (k, N) and N labels, got {np.shape(scores)} and {labels.shape}")
    if np.isnan(matrix).any():
        raise ValueError("scores must not be NaN")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError("labels must be 0/1 or boolean")
    return matrix, labels.astype(bool)


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
