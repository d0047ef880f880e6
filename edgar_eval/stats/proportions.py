"""Binomial proportions with Wilson score intervals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast


@dataclass(frozen=True)
class Proportion:
    successes: int
    trials: int
    low: float
    high: float

    @property
    def rate(self) -> float:
        return self.successes / self.trials if self.trials else float("nan")


def wilson(successes: int, trials: int, confidence: float = 0.95) -> Proportion:
    if trials < 0 or not 0 <= successes <= max(trials, 0):
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return Proportion(0, 0, float("nan"), float("nan"))
    # imported here: statsmodels (and the scipy.stats it imports) takes a second to import, and every process that
    # loads the graph imports this module
    from statsmodels.stats.proportion import proportion_confint

    low, high = cast(tuple[float, float], proportion_confint(successes, trials, alpha=1 - confidence, method="wilson"))
    return Proportion(int(successes), int(trials), float(low), float(high))
