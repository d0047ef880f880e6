import math
from typing import Any, cast

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import binom, norm
from statsmodels.stats.contingency_tables import mcnemar

from edgar_eval.stats.paired import (
    mcnemar_exact,
    mcnemar_exact_counts,
    mcnemar_power,
    minimum_detectable_effect,
)


def test_exact_p_values_equal_statsmodels_on_random_tables():
    rng = np.random.default_rng(0)
    tables = [rng.integers(0, high, size=(2, 2)) for high in (3, 8, 30, 200, 2000) for _ in range(100)]
    tables += [np.array([[5, 0], [0, 5]]), np.array([[0, 7], [7, 0]]), np.array([[1, 0], [9, 1]])]
    for table in tables:
        ours = mcnemar_exact_counts(table[0, 1], table[1, 0], n=int(table.sum()))
        assert ours.p_value == pytest.approx(cast(Any, mcnemar(table, exact=True)).pvalue, rel=1e-9, abs=1e-300), table


def test_textbook_example_airway_hyperresponsiveness():
    # Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91, Table 1: 21 children before and
    # after stem cell transplantation, 1 and 7 discordant pairs; exact conditional p = 0.070.  By hand:
    # 2 * P(Binomial(8, 1/2) <= 1) = 2 * (1 + 8) / 256.
    result = mcnemar_exact_counts(1, 7, n=21)
    assert result.p_value == pytest.approx(18 / 256, rel=1e-12)
    assert round(result.p_value, 3) == 0.070
    assert result.difference == pytest.approx(-6 / 21) and result.discordance == pytest.approx(8 / 21)


def test_arrays_are_reduced_to_their_discordant_counts():
    first = np.array([1, 1, 1, 0, 0, 1, 0, 1], dtype=bool)
    second = np.array([1, 0, 0, 1, 0, 1, 0, 0], dtype=bool)
    result = mcnemar_exact(first, second)
    assert (result.b, result.c, result.n) == (3, 1, 8)
    assert result.difference == pytest.approx(first.mean() - second.mean())
    assert result.p_value == pytest.approx(cast(Any, mcnemar([[2, 3], [1, 2]], exact=True)).pvalue)
    assert mcnemar_exact([1, 0, 1], [1, 0, 1]).p_value == 1.0  # no discordant pair, no evidence


@pytest.mark.parametrize("first, second", [([1, 0], [1]), ([1, 2], [1, 0]), ([[1, 0]], [[1, 0]]), ([0.5, 1], [1, 0])])
def test_malformed_outcomes_are_rejected(first, second):
    with pytest.raises(ValueError):
        mcnemar_exact(first, second)


def test_impossible_counts_are_rejected():
    with pytest.raises(ValueError):
        mcnemar_exact_counts(-1, 3)
    with pytest.raises(ValueError):
        mcnemar_exact_counts(4, 3, n=5)


@pytest.mark.parametrize("n", [30, 100, 400, 2500])
@pytest.mark.parametrize("discordance", [0.05, 0.2, 0.6])
@pytest.mark.parametrize("alpha", [0.01, 0.05])
def test_at_the_mde_the_power_formula_gives_eighty_percent(n, discordance, alpha):
    mde = minimum_detectable_effect(n, discordance, alpha)
    if math.isnan(mde):
        # Only when even the largest possible difference (all discordant pairs one way) falls short.
        assert mcnemar_power(discordance, n, discordance, alpha) < 0.80
        return
    assert 0 < mde <= discordance
    assert mcnemar_power(mde, n, discordance, alpha) == pytest.approx(0.80, abs=1e-6)
    # The closed form is the root brentq finds on Connor's power curve.
    root = brentq(lambda d: mcnemar_power(d, n, discordance, alpha) - 0.80, 1e-12, discordance, xtol=1e-14)
    assert mde == pytest.approx(root, abs=1e-10)
    # ...and plugging it into Connor's sample-size formula gives back n.
    z_a, z_b = norm.ppf(1 - alpha / 2), norm.ppf(0.80)
    connor_n = (z_a * math.sqrt(discordance) + z_b * math.sqrt(discordance - mde**2)) ** 2 / mde**2
    assert connor_n == pytest.approx(n, rel=1e-9)


def test_mde_shrinks_like_one_over_root_n():
    discordance = 0.25
    limit = (norm.ppf(0.975) + norm.ppf(0.80)) * math.sqrt(discordance)
    for n in (10_000, 100_000, 1_000_000):
        assert minimum_detectable_effect(n, discordance) * math.sqrt(n) == pytest.approx(limit, rel=3 / math.sqrt(n))
    assert minimum_detectable_effect(400_000, discordance) / minimum_detectable_effect(100_000, discordance) == (
        pytest.approx(0.5, rel=1e-3)
    )
    assert minimum_detectable_effect(200, discordance) > minimum_detectable_effect(800, discordance)


def test_the_exact_test_reaches_about_the_promised_power_at_the_mde():
    # Simulate paired data with the MDE as true difference; the exact McNemar test should reject
    # about 80% of the time (the normal approximation is slightly optimistic for the exact test).
    n, discordance = 600, 0.2
    mde = minimum_detectable_effect(n, discordance)
    p10, p01 = (discordance + mde) / 2, (discordance - mde) / 2
    counts = np.random.default_rng(1).multinomial(n, [p10, p01, 1 - discordance], size=4000)
    b, c = counts[:, 0], counts[:, 1]
    p_values = np.minimum(1.0, 2 * binom.cdf(np.minimum(b, c), b + c, 0.5))
    assert 0.74 <= np.mean(p_values < 0.05) <= 0.84


def test_mde_is_nan_where_no_difference_is_detectable():
    assert math.isnan(minimum_detectable_effect(500, 0.0))  # no discordance, no information
    assert math.isnan(minimum_detectable_effect(5, 0.1))  # five pairs cannot show any difference
    assert math.isnan(mcnemar_exact_counts(0, 0, n=0).minimum_detectable_effect())
    assert mcnemar_exact_counts(12, 30, n=300).minimum_detectable_effect() == minimum_detectable_effect(300, 0.14)


@pytest.mark.parametrize(
    "args",
    [(0, 0.2, 0.05, 0.8), (100, 1.5, 0.05, 0.8), (100, 0.2, 0.0, 0.8), (100, 0.2, 0.05, 0.4), (100, 0.2, 0.05, 1.0)],
)
def test_impossible_designs_are_rejected(args):
    with pytest.raises(ValueError):
        minimum_detectable_effect(*args)


def test_power_rejects_a_difference_larger_than_the_discordance():
    with pytest.raises(ValueError):
        mcnemar_power(0.3, 100, 0.2)
