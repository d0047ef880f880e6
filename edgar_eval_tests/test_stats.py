import math

import pytest
from statsmodels.stats.proportion import proportion_confint

from edgar_eval.stats.proportions import wilson


def _wilson_closed_form(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(
    "k, n, low, high",
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3.
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_matches_textbook_values(k, n, low, high):
    p = wilson(k, n)
    assert (round(p.low, 4), round(p.high, 4)) == (low, high)


@pytest.mark.parametrize("k, n", [(0, 1), (3, 7), (50, 100), (99, 100), (9, 51), (72, 72)])
def test_wilson_agrees_with_statsmodels_and_the_closed_form(k, n):
    p = wilson(k, n)
    assert (p.low, p.high) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-12)
    assert (p.low, p.high) == pytest.approx(_wilson_closed_form(k, n), abs=1e-9)
    assert p.low <= p.rate <= p.high


def test_wilson_rejects_impossible_counts_and_has_no_interval_for_no_trials():
    with pytest.raises(ValueError):
        wilson(5, 4)
    empty = wilson(0, 0)
    assert math.isnan(empty.low) and math.isnan(empty.rate)
