import itertools
import math

import numpy as np
import pytest

from edgar_eval.stats.risk_coverage import risk_coverage


def _aurc_by_definition(errors_in_order):
    """Geifman et al. (2019) read literally: errors are already sorted by confidence, most confident first."""
    errors = list(errors_in_order)
    return sum(sum(errors[:k]) / k for k in range(1, len(errors) + 1)) / len(errors)


def _optimal_aurc(n, e):
    """Closed form for an oracle that answers the n - e correct questions first."""
    return sum((k - (n - e)) / k for k in range(n - e + 1, n + 1)) / n


def test_without_ties_it_is_the_textbook_definition():
    rng = np.random.default_rng(0)
    confidence = rng.permutation(50) / 50.0
    errors = rng.random(50) < 0.3
    result = risk_coverage(confidence, errors)
    in_order = errors[np.argsort(-confidence)]
    assert result.aurc == pytest.approx(_aurc_by_definition(in_order), abs=1e-12)
    np.testing.assert_allclose(result.risk, np.cumsum(in_order) / np.arange(1, 51))
    np.testing.assert_allclose(result.coverage, np.arange(1, 51) / 50)
    assert list(result.threshold) == sorted(confidence, reverse=True)
    assert result.risk[-1] == pytest.approx(errors.mean())


@pytest.mark.parametrize("n, e", [(8, 0), (8, 1), (8, 3), (8, 8), (11, 5)])
def test_perfect_ranking_is_the_minimum_and_reversed_ranking_the_maximum(n, e):
    # Brute force over every placement of the e errors among n confidence ranks.
    values = [
        _aurc_by_definition([1 if rank in spots else 0 for rank in range(n)])
        for spots in map(set, itertools.combinations(range(n), e))
    ]
    errors = np.r_[np.zeros(n - e), np.ones(e)]
    confidence = np.linspace(1, 0, n)  # correct questions most confident
    perfect = risk_coverage(confidence, errors)
    worst = risk_coverage(-confidence, errors)
    assert perfect.aurc == pytest.approx(min(values), abs=1e-12)
    assert perfect.aurc == pytest.approx(_optimal_aurc(n, e), abs=1e-12)
    assert perfect.optimal == pytest.approx(_optimal_aurc(n, e), abs=1e-12)
    assert perfect.excess == pytest.approx(0, abs=1e-12)
    assert worst.aurc == pytest.approx(max(values), abs=1e-12)
    assert worst.optimal == perfect.optimal


def test_order_invariant_under_shuffles_with_ties():
    rng = np.random.default_rng(1)
    confidence = rng.choice([0.0, 0.25, 0.5, 1.0], size=200)
    errors = rng.random(200) < 0.35 + 0.3 * (confidence < 0.5)
    reference = risk_coverage(confidence, errors)
    for _ in range(50):
        order = rng.permutation(200)
        shuffled = risk_coverage(confidence[order], errors[order])
        assert shuffled.aurc == pytest.approx(reference.aurc, abs=1e-12)
        np.testing.assert_allclose(shuffled.risk, reference.risk, atol=1e-12)
        np.testing.assert_array_equal(shuffled.threshold, reference.threshold)


def test_ties_score_the_average_over_every_tie_breaking_order():
    confidence = np.array([0.9, 0.5, 0.5, 0.5, 0.2, 0.2, 0.9])
    errors = np.array([0, 1, 0, 1, 1, 0, 1])
    groups = [np.flatnonzero(confidence == level) for level in sorted(set(confidence), reverse=True)]
    orders = [np.concatenate(pick) for pick in itertools.product(*(list(itertools.permutations(g)) for g in groups))]
    expected = np.mean([_aurc_by_definition(errors[order]) for order in orders])
    assert len(orders) == 2 * 6 * 2
    assert risk_coverage(confidence, errors).aurc == pytest.approx(expected, abs=1e-12)


def test_a_constant_confidence_carries_no_ranking_information():
    errors = np.array([1, 0, 0, 1, 0, 0, 0, 0])
    result = risk_coverage(np.full(8, 0.7), errors)
    np.testing.assert_allclose(result.risk, 0.25)
    assert result.aurc == pytest.approx(0.25) and result.excess > 0
    # At the end of a tie group, the only coverage a threshold reaches, the risk is the plain one.
    grouped = risk_coverage([0.9, 0.9, 0.9, 0.1, 0.1], [1, 0, 0, 1, 1])
    assert grouped.risk[2] == pytest.approx(1 / 3) and grouped.risk[4] == pytest.approx(3 / 5)


def test_curve_is_read_only_and_empty_input_has_no_area():
    result = risk_coverage([0.3, 0.2], [0, 1])
    with pytest.raises(ValueError):
        result.risk[0] = 1.0
    empty = risk_coverage([], [])
    assert math.isnan(empty.aurc) and empty.coverage.size == 0


@pytest.mark.parametrize(
    "confidence, errors", [([0.1, 0.2], [1]), ([float("nan"), 0.2], [1, 0]), ([0.1, 0.2], [1, float("inf")])]
)
def test_malformed_input_is_rejected(confidence, errors):
    with pytest.raises(ValueError):
        risk_coverage(confidence, errors)
