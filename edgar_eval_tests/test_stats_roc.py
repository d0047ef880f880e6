import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from edgar_eval.stats.roc import auroc, auroc_difference, delong


def _slow_delong(scores, positives):
    """DeLong et al. (1988) as written: the O(m n) kernel psi(x, y) = 1, 1/2, 0 for x >, =, < y."""
    scores = np.atleast_2d(scores)
    aucs, v10s, v01s = [], [], []
    for row in scores:
        x, y = row[positives], row[~positives]
        psi = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
        aucs.append(psi.mean())
        v10s.append(psi.mean(axis=1))
        v01s.append(psi.mean(axis=0))
    v10, v01 = np.array(v10s), np.array(v01s)
    m, n = v10.shape[1], v01.shape[1]
    s10 = (v10 - v10.mean(axis=1, keepdims=True)) @ (v10 - v10.mean(axis=1, keepdims=True)).T / (m - 1)
    s01 = (v01 - v01.mean(axis=1, keepdims=True)) @ (v01 - v01.mean(axis=1, keepdims=True)).T / (n - 1)
    return np.array(aucs), s10 / m + s01 / n


def _random_case(rng, size, levels):
    """Labels with a score that is informative but coarsely rounded, so ties are frequent."""
    positives = rng.random(size) < rng.uniform(0.2, 0.8)
    positives[:2], positives[2:4] = True, False
    scores = np.round(rng.normal(positives * rng.uniform(0, 2), 1.0) * levels) / levels
    return scores, positives


@pytest.mark.parametrize("seed", range(20))
def test_auroc_equals_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    scores, positives = _random_case(rng, size=int(rng.integers(5, 400)), levels=int(rng.integers(1, 6)))
    assert auroc(scores, positives).estimate == pytest.approx(roc_auc_score(positives, scores), abs=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_fast_delong_covariance_equals_the_structural_components_definition(seed):
    rng = np.random.default_rng(100 + seed)
    first, positives = _random_case(rng, size=int(rng.integers(6, 300)), levels=2)
    second = np.round(first + rng.normal(0, 1.0, first.size))
    third = rng.integers(0, 3, first.size).astype(float)  # nearly all ties
    scores = np.vstack([first, second, third])
    fast_aucs, fast_cov = delong(scores, positives)
    slow_aucs, slow_cov = _slow_delong(scores, positives)
    np.testing.assert_allclose(fast_aucs, slow_aucs, atol=1e-12, rtol=0)
    np.testing.assert_allclose(fast_cov, slow_cov, atol=1e-10, rtol=0)
    one = auroc(first, positives)
    assert one.variance == pytest.approx(slow_cov[0, 0], abs=1e-12)
    pair = auroc_difference(first, second, positives)
    assert pair.variance == pytest.approx(slow_cov[0, 0] + slow_cov[1, 1] - 2 * slow_cov[0, 1], abs=1e-10)


def test_hanley_mcneil_ct_ratings():
    # Hanley & McNeil (1982), Radiology 143:29-36, Table 1: five-point ratings of 109 CT images,
    # 58 normal and 51 abnormal; the area under the rating ROC curve is 0.893.
    ratings = np.arange(1, 6)
    normal = np.repeat(ratings, [33, 6, 6, 11, 2])
    abnormal = np.repeat(ratings, [3, 2, 2, 11, 33])
    result = auroc(np.r_[abnormal, normal], np.r_[np.ones(51, bool), np.zeros(58, bool)])
    assert round(result.estimate, 3) == 0.893
    assert (result.positives, result.negatives) == (51, 58)
    half = 1.959963984540054 * math.sqrt(result.variance)
    assert (result.low, result.high) == pytest.approx((result.estimate - half, result.estimate + half))


def test_interval_is_clipped_to_the_unit_interval_and_perfect_separation_has_no_variance():
    positives = np.array([1, 1, 1, 0, 0, 0], dtype=bool)
    perfect = auroc([0.9, 0.8, 0.7, 0.3, 0.2, 0.1], positives)
    assert (perfect.estimate, perfect.low, perfect.high, perfect.variance) == (1.0, 1.0, 1.0, 0.0)
    near = auroc([0.9, 0.8, 0.25, 0.3, 0.2, 0.1], positives)
    assert near.high == 1.0 and near.low < near.estimate < 1.0


def test_paired_difference_detects_a_better_score_and_not_a_relabelled_one():
    rng = np.random.default_rng(4)
    positives = rng.random(600) < 0.5
    sharp = rng.normal(positives * 1.5, 1.0)
    blunt = sharp + rng.normal(0, 1.5, 600)
    better = auroc_difference(sharp, blunt, positives)
    assert better.first == pytest.approx(roc_auc_score(positives, sharp))
    assert better.second == pytest.approx(roc_auc_score(positives, blunt))
    assert better.difference > 0 and better.p_value < 1e-4 and better.low > 0
    assert better.z == pytest.approx(better.difference / math.sqrt(better.variance))

    # A monotone transform orders the questions identically: same AUROC, nothing to test.
    same = auroc_difference(sharp, np.exp(sharp), positives)
    assert (same.difference, same.variance, same.p_value, same.low, same.high) == (0.0, 0.0, 1.0, 0.0, 0.0)


def test_paired_test_uses_the_correlation_between_scores():
    # Two noisy copies of one score: their separate intervals overlap heavily, yet the paired test,
    # which subtracts the shared variation, still resolves their difference.
    rng = np.random.default_rng(8)
    positives = rng.random(2000) < 0.5
    base = rng.normal(positives * 1.0, 1.0)
    first, second = base + rng.normal(0, 0.2, 2000), base + rng.normal(0, 0.5, 2000)
    pair = auroc_difference(first, second, positives)
    a, b = auroc(first, positives), auroc(second, positives)
    assert pair.variance < (a.variance + b.variance) / 4
    assert a.low < b.high  # the unpaired intervals overlap
    assert pair.p_value < 0.05 and pair.low > 0


def test_undefined_auroc_is_nan():
    none_negative = auroc([0.1, 0.5, 0.9], [1, 1, 1])
    assert math.isnan(none_negative.estimate) and math.isnan(none_negative.low)
    one_negative = auroc([0.1, 0.5, 0.9], [1, 1, 0])
    assert one_negative.estimate == 0.0 and math.isnan(one_negative.variance) and math.isnan(one_negative.high)
    assert math.isnan(auroc_difference([0.1, 0.5, 0.9], [0.3, 0.2, 0.1], [1, 1, 0]).p_value)


@pytest.mark.parametrize(
    "scores, labels",
    [([0.1, 0.2], [1]), ([0.1, float("nan")], [1, 0]), ([0.1, 0.2], [2, 0]), ([[0.1, 0.2], [0.3, 0.4]], [1, 0])],
)
def test_malformed_input_is_rejected(scores, labels):
    with pytest.raises(ValueError):
        auroc(scores, labels)
