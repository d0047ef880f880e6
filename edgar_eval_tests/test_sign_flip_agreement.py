"""The company sign-flip test (stats.few_clusters) agrees with its own interval and its one-sided p-values: over
hundreds of null datasets with ties (companies without a discordant question), 0 lies inside the interval exactly
when the two-sided p-value at 0 exceeds alpha; the p-values count sign patterns exactly (or with the Monte Carlo + 1
above EXACT_UP_TO companies); the one-sided p-values point the way of the data and hold their level at the null.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from edgar_eval.stats.few_clusters import (
    DRAWN_PATTERNS,
    EXACT_UP_TO,
    _drawn_patterns,
    company_totals,
    paired_difference_few_clusters,
    sign_flip_one_sided_p_value,
    sign_flip_p_value,
)

CONFIDENCES = (0.95, 0.9, 0.99)


def _null(rng: np.random.Generator, companies: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Paired 0/1 outcomes of two exchangeable systems: companies of 5 to 40 questions, half of them without any
    discordant question (their difference is exactly 0), the others with a discordance of their own."""
    sizes = rng.integers(5, 40, companies)
    rate = np.where(rng.random(companies) < 0.5, 0.0, rng.beta(1, 8, companies))
    clusters = np.repeat(np.arange(companies), sizes)
    discordant = rng.random(len(clusters)) < rate[clusters]
    first_wins = rng.random(len(clusters)) < 0.5
    return (discordant & first_wins).astype(float), (discordant & ~first_wins).astype(float), clusters


@pytest.mark.parametrize(("companies", "seeds"), [(20, 200), (10, 100), (30, 60)])
def test_zero_lies_inside_the_interval_exactly_when_the_test_at_zero_does_not_reject(companies, seeds):
    disagreements, ends_at_zero = [], 0
    for seed in range(seeds):
        first, second, clusters = _null(np.random.default_rng([companies, seed]), companies)
        confidence = CONFIDENCES[seed % len(CONFIDENCES)]
        result = paired_difference_few_clusters(first, second, clusters, confidence, "sign_flip", seed=seed)
        assert result.p_value == sign_flip_p_value(*company_totals(first, second, clusters), seed=seed)
        if (result.low <= 0 <= result.high) != (result.p_value > 1 - confidence):
            disagreements.append((seed, result))
        ends_at_zero += 0 in (result.low, result.high)
    assert not disagreements, disagreements[:3]
    assert ends_at_zero > 0  # the ties at 0 that a bisection stopped short of are exercised


@pytest.mark.parametrize("companies", [8, 12, 20])
def test_the_bounds_are_the_last_points_the_test_does_not_reject(companies):
    for seed in range(12):
        first, second, clusters = _null(np.random.default_rng([companies, seed, 1]), companies)
        totals = company_totals(first, second, clusters)
        result = paired_difference_few_clusters(first, second, clusters, 0.95, "sign_flip", seed=seed)
        for end, outward in ((result.low, -math.inf), (result.high, math.inf)):
            if math.isfinite(end):  # closed: the end is not rejected, the next float beyond it is
                assert sign_flip_p_value(*totals, theta=end, seed=seed) > 0.05, (seed, result)
                beyond = float(np.nextafter(end, outward))
                assert sign_flip_p_value(*totals, theta=beyond, seed=seed) <= 0.05, (seed, result)


def test_exact_p_values_count_every_sign_pattern():
    rng = np.random.default_rng(5)
    for _ in range(150):
        companies = int(rng.integers(2, 11))
        num = rng.integers(-3, 4, companies)
        den = rng.integers(1, 9, companies)
        signs = np.array(list(itertools.product((-1, 1), repeat=companies)))
        for eighths in (0, int(rng.integers(-4, 5))):  # theta = eighths / 8: residuals 8 n - eighths d, exact
            residuals = 8 * num - eighths * den
            sums, observed = signs @ residuals, residuals.sum()
            theta = eighths / 8
            assert sign_flip_p_value(num, den, theta) == np.mean(np.abs(sums) >= abs(observed))
            assert sign_flip_one_sided_p_value(num, den, theta, "lower") == np.mean(sums <= observed)
            assert sign_flip_one_sided_p_value(num, den, theta, "higher") == np.mean(sums >= observed)


@pytest.mark.parametrize("companies", [EXACT_UP_TO + 4, 30, 61])
def test_monte_carlo_p_values_add_the_observed_pattern_once(companies):
    rng = np.random.default_rng(companies)
    num = rng.integers(-4, 5, companies)
    num[: companies // 2] = np.abs(num[: companies // 2]) + 3  # strongly one way: few drawn patterns reach it
    den = rng.integers(5, 40, companies)
    for seed in range(2):
        flips = np.unpackbits(_drawn_patterns(companies, seed), axis=1, bitorder="little")[:, :companies]
        sums, observed = (1 - 2 * flips.astype(np.int64)) @ num, int(num.sum())
        p_value = sign_flip_p_value(num, den, seed=seed)
        assert p_value == (1 + np.count_nonzero(np.abs(sums) >= abs(observed))) / (1 + DRAWN_PATTERNS)
        assert sign_flip_one_sided_p_value(num, den, 0.0, "higher", seed) == (
            (1 + np.count_nonzero(sums >= observed)) / (1 + DRAWN_PATTERNS)
        )
    extreme = np.full(companies, 5.0)  # every company one way: no drawn pattern but the all-same ones reaches it
    assert sign_flip_p_value(extreme, den) >= 1 / (1 + DRAWN_PATTERNS)
    assert sign_flip_one_sided_p_value(extreme, den, 0.0, "higher") >= 1 / (1 + DRAWN_PATTERNS)
    assert sign_flip_one_sided_p_value(-extreme, den, 0.0, "lower") >= 1 / (1 + DRAWN_PATTERNS)


@pytest.mark.parametrize(("companies", "seeds"), [(10, 200), (20, 200), (30, 40)])
def test_one_sided_p_values_point_the_way_of_the_data_and_halve_the_two_sided_one(companies, seeds):
    for seed in range(seeds):
        first, second, clusters = _null(np.random.default_rng([companies, seed, 2]), companies)
        num, den = company_totals(first, second, clusters)
        estimate = num.sum() / den.sum()
        both = sign_flip_p_value(num, den, seed=seed)
        lower = sign_flip_one_sided_p_value(num, den, 0.0, "lower", seed)
        higher = sign_flip_one_sided_p_value(num, den, 0.0, "higher", seed)
        if lower <= 0.025:
            assert estimate < 0, (seed, lower)
        if higher <= 0.025:
            assert estimate > 0, (seed, higher)
        assert lower + higher > 1  # every pattern counts for one direction at least, the observed one for both
        if companies <= EXACT_UP_TO:
            assert both == min(1.0, 2 * min(lower, higher))
            assert (lower if estimate >= 0 else higher) >= 0.5
        else:
            error = 4 * math.sqrt(max(both, 1e-3) / DRAWN_PATTERNS)  # Monte Carlo error of the two sides
            assert both == pytest.approx(min(1.0, 2 * min(lower, higher)), abs=error)
            assert min(lower, higher, both) > 0
            assert (lower if estimate >= 0 else higher) >= 0.5 - error


@pytest.mark.parametrize(("companies", "replicates"), [(10, 2000), (20, 400)])
def test_the_one_sided_test_holds_its_level_at_the_null(companies, replicates):
    alpha = 0.025
    rng = np.random.default_rng(companies + 100)
    rejected = {"lower": 0, "higher": 0}
    for replicate in range(replicates):
        totals = company_totals(*_null(rng, companies))
        for direction in rejected:
            rejected[direction] += sign_flip_one_sided_p_value(*totals, 0.0, direction, replicate) <= alpha
    tolerance = 3 * math.sqrt(alpha * (1 - alpha) / replicates)  # Monte Carlo error of the measured size
    for direction, count in rejected.items():
        assert count / replicates <= alpha + tolerance, f"{direction} at {companies} companies: {count / replicates}"


def test_one_sided_rejects_an_unknown_direction():
    with pytest.raises(ValueError, match="direction"):
        sign_flip_one_sided_p_value([1.0, 2.0], [3.0, 4.0], direction="both")
