"""The exact one-sided tests at a margin (stats.fixed_strata): their p-values against the binomial, the bounds that
invert them, and their size at the boundary for fixed strata however unequal the companies are."""

import numpy as np
import pytest
from scipy.stats import binom

from edgar_eval.stats.fixed_strata import (
    above_margin_p,
    below_margin_p,
    centred_rates,
    cluster_ratio_bound,
    fewest_to_cross,
    lower_bound,
    simulate_margin_test,
    upper_bound,
)


def test_the_p_values_are_the_binomial_tails_beyond_one_count_from_the_mean():
    assert above_margin_p(20, 71, 0.10) == pytest.approx(binom.sf(19, 71, 0.10))
    assert below_margin_p(17, 637, 0.05) == pytest.approx(binom.cdf(17, 637, 0.05))
    # within one count of the margin's mean no claim is made (Hoeffding's bound needs the distance)
    assert above_margin_p(7, 71, 0.10) == 1.0  # 7 < 7.1 + 1
    assert below_margin_p(31, 637, 0.05) == 1.0  # 31 > 31.85 - 1
    assert above_margin_p(0, 0, 0.1) == 1.0 and below_margin_p(0, 0, 0.1) == 1.0
    with pytest.raises(ValueError):
        above_margin_p(5, 3, 0.1)
    with pytest.raises(ValueError):
        below_margin_p(1, 3, 1.0)


@pytest.mark.parametrize("trials", [12, 71, 200, 637])
@pytest.mark.parametrize("margin", [0.05, 0.10, 0.30])
def test_the_bounds_cross_the_margin_exactly_where_the_tests_reject(trials, margin):
    alpha = 0.025
    for x in range(trials + 1):
        above = above_margin_p(x, trials, margin) <= alpha
        below = below_margin_p(x, trials, margin) <= alpha
        assert above == (lower_bound(x, trials, alpha) > margin), (x, trials)
        assert below == (upper_bound(x, trials, alpha) < margin), (x, trials)


def test_fewest_to_cross_counts_the_events_that_turn_a_decision():
    def rejects(x: int, n: int) -> bool:
        return above_margin_p(x, n, 0.1) <= 0.025

    first = next(x for x in range(72) if rejects(x, 71))
    assert fewest_to_cross(first + 3, 71, rejects, -1) == 4
    assert fewest_to_cross(first - 2, 71, rejects, +1) == 2
    assert fewest_to_cross(0, 1, rejects, +1) is None  # one trial can never show a share above 10% at 2.5%


def test_centred_rates_keep_the_order_and_hit_the_weighted_mean():
    rng = np.random.default_rng(1)
    rates = rng.beta(0.2, 1.8, size=40)
    weights = rng.integers(1, 30, size=40).astype(float)
    centred = centred_rates(rates, weights, 0.1)
    assert np.sum(weights * centred) / weights.sum() == pytest.approx(0.1, abs=1e-9)
    assert np.all(np.argsort(centred, kind="stable") == np.argsort(rates, kind="stable"))


@pytest.mark.parametrize("concentration", [1.0, 4.0, 24.0])
def test_the_exact_tests_hold_alpha_for_fixed_strata_however_unequal_the_companies(concentration):
    sizes = [0, 1, 1, 2, 3, 0, 5, 1, 2, 8, 1, 1, 4, 2, 0, 3, 1, 6, 2, 1] * 3  # 60 companies, few events each
    answerable = [8, 12, 30, 5, 9, 14, 22, 7, 11, 3] * 6
    effect = simulate_margin_test(sizes, 0.1, 0.1, "above", 0.025, concentration, "fixed", 3000, 3)
    recall = simulate_margin_test(answerable, 0.05, 0.05, "below", 0.025, concentration, "fixed", 3000, 4)
    for result in (effect, recall):
        assert result.share <= 0.025 + 3 * result.monte_carlo_error, result


def test_the_tests_have_power_when_the_truth_is_well_past_the_margin():
    sizes = [1, 2, 1, 3, 0, 2, 1, 1, 4, 2] * 6
    effect = simulate_margin_test(sizes, 0.35, 0.1, "above", 0.025, 24.0, "fixed", 1000, 5)
    recall = simulate_margin_test([10] * 60, 0.02, 0.05, "below", 0.025, 24.0, "fixed", 1000, 6)
    assert effect.share > 0.8 and recall.share > 0.8


def test_cluster_ratio_bound_brackets_the_ratio_and_needs_two_companies():
    num, den = np.array([1.0, 0.0, 3.0, 2.0]), np.array([4.0, 5.0, 6.0, 5.0])
    ratio = num.sum() / den.sum()
    assert cluster_ratio_bound(num, den, 0.025, "low") < ratio < cluster_ratio_bound(num, den, 0.025, "high")
    assert np.isnan(cluster_ratio_bound(num[:1], den[:1], 0.025, "low"))
