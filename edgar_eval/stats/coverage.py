"""How often each company-cluster bootstrap interval covers a known truth, at a given set of company sizes.

With few companies the percentile bootstrap is known to run short of its nominal coverage; how short, and whether
BCa or the studentised interval does better, depends on the number of companies and how unequal they are. This
module measures it on data whose true value is known, drawn like an arm comparison on unanswerable questions:

* company k holds the number of questions it holds in the run (its size is kept, not drawn);
* each question is answered by the baseline with the company's probability p_k ~ Beta(3, 2) (mean 0.6), and an
  answer is kept by the arm's gate with the company's probability g_k ~ Beta(1, 1) (mean 0.5): companies differ a
  lot, as the real ones do;
* the paired difference per question is -1 where the baseline answered and the arm did not, else 0 (an arm only
  removes answers), so its true value is -E[p] * (1 - E[g]) = -0.3 whatever the company sizes.

Each replicate draws fresh probabilities and outcomes, builds each method's interval from the same resamples, and
counts whether it holds -0.3. Coverage comes with its Wilson interval, since it is itself an estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edgar_eval.stats.bootstrap import METHODS, cluster_bootstrap_paired_difference
from edgar_eval.stats.proportions import wilson

TRUE_DIFFERENCE = -0.6 * 0.5


@dataclass(frozen=True)
class Coverage:
    method: str
    covered: int
    replicates: int
    low: float
    high: float
    mean_width: float

    @property
    def share(self) -> float:
        return self.covered / self.replicates if self.replicates else float("nan")


def simulate_coverage(
    company_sizes: list[int],
    confidence: float,
    replicates: int = 400,
    resamples: int = 1_000,
    seed: int = 0,
    methods: tuple[str, ...] = METHODS,
) -> list[Coverage]:
    """Each method's coverage of the true paired difference over `replicates` simulated runs with these company
    sizes."""
    sizes = np.asarray(company_sizes, dtype=int)
    if sizes.ndim != 1 or sizes.size < 2 or np.any(sizes < 1):
        raise ValueError(f"need two or more companies of one or more questions, got sizes {company_sizes}")
    if replicates < 1:
        raise ValueError(f"need at least one replicate, got {replicates}")
    rng = np.random.default_rng(seed)
    clusters = np.repeat(np.arange(sizes.size), sizes)
    covered = {m: 0 for m in methods}
    widths: dict[str, list[float]] = {m: [] for m in methods}
    for replicate in range(replicates):
        answered_p = rng.beta(3, 2, size=sizes.size)[clusters]
        kept_p = rng.beta(1, 1, size=sizes.size)[clusters]
        answered = rng.random(clusters.size) < answered_p
        kept = rng.random(clusters.size) < kept_p
        baseline, arm = answered.astype(float), (answered & kept).astype(float)
        for method in methods:
            interval = cluster_bootstrap_paired_difference(
                arm, baseline, clusters, confidence=confidence, resamples=resamples, seed=replicate, method=method
            )
            if np.isnan(interval.low):
                continue  # counted as not covering: an interval that cannot be built covers nothing
            covered[method] += interval.low <= TRUE_DIFFERENCE <= interval.high
            widths[method].append(interval.high - interval.low)
    results = []
    for method in methods:
        share = wilson(covered[method], replicates)
        results.append(
            Coverage(
                method,
                covered[method],
                replicates,
                share.low,
                share.high,
                float(np.mean(widths[method])) if widths[method] else float("nan"),
            )
        )
    return results


def best_method(results: list[Coverage], confidence: float) -> str:
    """The method whose coverage comes closest to the nominal level; a tie goes to the one listed first."""
    return min(results, key=lambda r: abs(r.share - confidence)).method
