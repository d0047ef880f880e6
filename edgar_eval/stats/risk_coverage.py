"""Risk-coverage curve and AURC of a confidence score used to abstain.

A gate that declines low-confidence questions trades coverage (share answered)
for risk (share of answered that are wrong).  The risk-coverage curve of
El-Yaniv & Wiener (2010), "On the foundations of noise-free selective
classification", JMLR 11:1605-1641, shows that trade at every threshold; its
area, AURC, summarises it in one number, lower is better, as defined by
Geifman, Uziel & El-Yaniv (2019), "Bias-reduced uncertainty estimation for deep
neural classifiers", ICLR: order the n questions by confidence, most confident
first; the risk at coverage k/n is the error count among the first k divided by
k; AURC is the mean of the n risks.  AURC mixes the ranking quality with the
base error rate, so the result also carries the AURC of an oracle that puts
every error last, and ``excess`` (their E-AURC) is what the ranking alone costs.

Ties.  When several questions share a confidence no threshold separates them,
and taking them in input order would make AURC depend on how the rows happened
to be sorted.  Within a group of s tied questions holding e errors, the error
count among the first j of the group is replaced by its expectation over a
uniformly random order, j e / s.  Risk at a fixed coverage is linear in that
count, so the AURC returned is exactly the expected AURC over random
tie-breaking: it does not depend on input order, and it equals the textbook value
when there are no ties.  At the end of each tie group (the only coverages a
threshold can reach) the curve is the plain empirical risk.

Malformed input raises ``ValueError``; no questions gives empty curves and a
NaN AURC, as everywhere in ``edgar_eval.stats``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True, eq=False)
class RiskCoverage:
    """Risk-coverage curve points (one per question, read-only) and its area.

    Point i is the coverage (i + 1) / n reached by answering the i + 1 most
    confident questions, the risk there, and the confidence of the (i + 1)-th
    question, i.e. the threshold (answer when confidence >= threshold) that
    reaches it when it ends a tie group.
    """

    coverage: np.ndarray
    risk: np.ndarray
    threshold: np.ndarray
    aurc: float
    optimal: float

    @property
    def excess(self) -> float:
        """E-AURC: the AURC lost to imperfect ranking, 0 for an oracle."""
        return self.aurc - self.optimal


def risk_coverage(confidence: ArrayLike, errors: ArrayLike) -> RiskCoverage:
    """Risk-coverage curve and AURC of ``confidence`` (higher = answer) against ``errors``.

    ``errors`` is 1/True where answering the question would be wrong; any finite
    per-question loss works, the risk then being the mean loss of the covered.
    """
    conf = np.asarray(confidence, dtype=float)
    loss = np.asarray(errors, dtype=float)
    if conf.ndim != 1 or conf.shape != loss.shape:
        raise ValueError(f"need two 1-D arrays of one length, got shapes {conf.shape} and {loss.shape}")
    if np.isnan(conf).any() or not np.isfinite(loss).all():
        raise ValueError("confidences must not be NaN and errors must be finite")
    n = conf.size
    if n == 0:
        empty = _frozen(np.empty(0))
        return RiskCoverage(empty, empty, empty, float("nan"), float("nan"))

    order = np.argsort(-conf, kind="stable")
    sorted_conf, sorted_loss = conf[order], loss[order]
    starts = np.flatnonzero(np.r_[True, sorted_conf[1:] != sorted_conf[:-1]])
    group = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, n]))
    sizes = np.bincount(group)
    group_loss = np.bincount(group, weights=sorted_loss)
    before = np.cumsum(group_loss) - group_loss

    covered = np.arange(1, n + 1)
    expected_errors = before[group] + (covered - starts[group]) * (group_loss / sizes)[group]
    risk = expected_errors / covered
    oracle = np.cumsum(np.sort(loss)) / covered
    return RiskCoverage(
        coverage=_frozen(covered / n),
        risk=_frozen(risk),
        threshold=_frozen(sorted_conf),
        aurc=float(risk.mean()),
        optimal=float(oracle.mean()),
    )


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array
