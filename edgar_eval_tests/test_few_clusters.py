"""Intervals and tests for paired differences over few companies (stats.few_clusters): their size at the null on
constructed 5-, 10- and 20-company data, their decisions when there is a difference, and what so few companies allow.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from edgar_eval.stats.few_clusters import company_totals, paired_difference_few_clusters, sign_flip_p_value

REPLICATES = 200


def _paired(rng: np.random.Generator, companies: int, shift: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paired 0/1 outcomes of two systems, companies of 10 to 60 questions each with a discordance of its own (most
    questions agree); a discordant question goes to the first system with probability 0.5 + shift."""
    sizes = rng.integers(10, 60, companies)
    clusters = np.repeat(np.arange(companies), sizes)
    discordant = rng.random(len(clusters)) < rng.beta(1, 6, companies)[clusters]
    first_wins = rng.random(len(clusters)) < 0.5 + shift
    return (discordant & first_wins).astype(float), (discordant & ~first_wins).astype(float), clusters


@pytest.mark.parametrize("companies", [5, 10, 20])
@pytest.mark.parametrize("method", ["sign_flip", "cluster_t"])
def test_at_the_null_each_method_rejects_no_more_often_than_its_level(companies, method):
    rng = np.random.default_rng(companies)
    rejected = 0
    for _ in range(REPLICATES):
        first, second, clusters = _paired(rng, companies)
        if method == "sign_flip":
            p_value = sign_flip_p_value(*company_totals(first, second, clusters))
        else:
            p_value = paired_difference_few_clusters(first, second, clusters, 0.95, method).p_value
        rejected += p_value < 0.05
    tolerance = 3 * math.sqrt(0.05 * 0.95 / REPLICATES)  # Monte Carlo error of the measured size
    assert rejected / REPLICATES <= 0.05 + tolerance, f"{method} at {companies} companies: size {rejected / REPLICATES}"


def test_five_companies_cannot_reject_at_five_percent_and_say_so_with_an_unbounded_interval():
    first, second, clusters = _paired(np.random.default_rng(0), 5, shift=0.5)  # every discordant question one way
    result = paired_difference_few_clusters(first, second, clusters, 0.95, "sign_flip")
    assert result.estimate > 0 and result.p_value == pytest.approx(2 / 32)  # the smallest p-value 5 companies allow
    assert (result.low, result.high) == (-math.inf, math.inf)


@pytest.mark.parametrize("method", ["sign_flip", "cluster_t"])
def test_a_difference_at_twenty_companies_is_decided_and_its_absence_is_not(method):
    rng = np.random.default_rng(7)
    first, second, clusters = _paired(rng, 20, shift=0.45)
    found = paired_difference_few_clusters(first, second, clusters, 0.99, method)
    assert found.p_value < 0.01 and found.low > 0, found
    first, second, clusters = _paired(rng, 20)
    none = paired_difference_few_clusters(first, second, clusters, 0.99, method)
    assert none.low <= 0 <= none.high


def test_the_sign_flip_interval_holds_what_its_test_does_not_reject():
    rng = np.random.default_rng(3)
    first, second, clusters = _paired(rng, 10, shift=0.3)
    result = paired_difference_few_clusters(first, second, clusters, 0.95, "sign_flip")
    totals = company_totals(first, second, clusters)
    assert result.low <= result.estimate <= result.high
    for theta in (result.low + 1e-3, result.estimate, result.high - 1e-3):
        assert sign_flip_p_value(*totals, theta=theta) > 0.05
    for theta in (result.low - 1e-2, result.high + 1e-2):
        assert sign_flip_p_value(*totals, theta=theta) <= 0.05
    assert (result.p_value <= 0.05) == (not result.low <= 0 <= result.high)


def test_no_question_or_one_company_has_no_interval():
    empty = paired_difference_few_clusters([], [], [], 0.95)
    assert math.isnan(empty.estimate) and math.isnan(empty.low) and empty.p_value == 1.0
    one = paired_difference_few_clusters([1, 0, 1], [0, 0, 0], ["x", "x", "x"], 0.95, "cluster_t")
    assert one.estimate == pytest.approx(2 / 3) and math.isnan(one.low) and math.isnan(one.high)
    with pytest.raises(ValueError, match="unknown method"):
        paired_difference_few_clusters([1], [0], ["x"], 0.95, "wild")
