import math

import ir_measures
import numpy as np
import pytest
from ir_measures import RR, P, R, nDCG

from edgar_eval.evaluation.ir_metrics import (
    ndcg_at_k,
    pooled_mean,
    precision_at_k,
    question_metrics,
    recall_at_k,
    reciprocal_rank,
)

KS = (1, 3, 5, 10, 20)


def _random_questions(seed, n):
    rng = np.random.default_rng(seed)
    universe = np.array([f"c{i:03d}" for i in range(80)])
    questions = {}
    for q in range(n):
        gold = set(rng.choice(universe, size=int(rng.integers(1, 9)), replace=False))
        ranked = list(rng.choice(universe, size=int(rng.integers(1, 31)), replace=False))
        if rng.random() < 0.3:  # make early gold hits common enough to exercise every rank
            ranked.insert(int(rng.integers(0, len(ranked))), sorted(gold - set(ranked) or gold)[0])
            ranked = list(dict.fromkeys(ranked))
        questions[f"q{q}"] = (ranked, gold)
    return questions


def test_metrics_equal_ir_measures_on_random_questions():
    questions = _random_questions(seed=2024, n=400)
    # strictly decreasing scores, so trec_eval's ordering is the ranked order (its ties go by doc id)
    run = {q: {chunk: float(len(ranked) - i) for i, chunk in enumerate(ranked)} for q, (ranked, _) in questions.items()}
    qrels = {q: {chunk: 1 for chunk in gold} for q, (_, gold) in questions.items()}
    measures = [R @ k for k in KS] + [P @ k for k in KS] + [RR, RR @ 10, nDCG @ 10]
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    assert len(theirs) == len(questions) * len(measures)
    ours = {}
    for q, (ranked, gold) in questions.items():
        for k in KS:
            ours[q, f"R@{k}"] = recall_at_k(ranked, gold, k)
            ours[q, f"P@{k}"] = precision_at_k(ranked, gold, k)
        ours[q, "RR"] = reciprocal_rank(ranked, gold)
        ours[q, "RR@10"] = reciprocal_rank(ranked, gold, 10)
        ours[q, "nDCG@10"] = ndcg_at_k(ranked, gold, 10)
    assert ours.keys() == theirs.keys()
    worst = max(abs(ours[key] - theirs[key]) for key in ours)
    assert worst < 1e-9
    assert {value for (_, name), value in ours.items() if name == "RR"} >= {1.0, 0.5, 0.0}

    per_question = [question_metrics(ranked, gold, KS) for ranked, gold in questions.values()]
    means = pooled_mean(per_question)
    aggregate = ir_measures.calc_aggregate(measures, qrels, run)
    for k in KS:
        assert means[f"recall@{k}"] == pytest.approx(aggregate[R @ k], abs=1e-9)
        assert means[f"precision@{k}"] == pytest.approx(aggregate[P @ k], abs=1e-9)
    assert means["rr"] == pytest.approx(aggregate[RR], abs=1e-9)
    assert means["ndcg@10"] == pytest.approx(aggregate[nDCG @ 10], abs=1e-9)


def test_metrics_on_a_hand_made_question():
    ranked, gold = ["a", "x", "b", "y"], {"a", "b", "z"}
    assert recall_at_k(ranked, gold, 1) == pytest.approx(1 / 3)
    assert recall_at_k(ranked, gold, 10) == pytest.approx(2 / 3)
    assert precision_at_k(ranked, gold, 3) == pytest.approx(2 / 3)
    assert precision_at_k(ranked, gold, 10) == pytest.approx(0.2)  # divided by k, not by the 4 retrieved
    assert reciprocal_rank(["x", "y", "b"], gold) == pytest.approx(1 / 3)
    assert reciprocal_rank(["x", "y", "b"], gold, k=2) == 0.0
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(ranked, gold) == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert ndcg_at_k(["a", "b"], {"a", "b"}) == 1.0
    assert question_metrics([], gold, ks=(5,)) == {"recall@5": 0.0, "precision@5": 0.0, "rr": 0.0, "ndcg@10": 0.0}


def test_pooled_mean_weighs_each_question_the_same():
    rows = [question_metrics(["a"], {"a"}, ks=(1,)), question_metrics(["x", "a"], {"a", "b"}, ks=(1,))]
    means = pooled_mean(rows)
    assert means["rr"] == pytest.approx(0.75) and means["recall@1"] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no question"):
        pooled_mean([])
    with pytest.raises(ValueError, match="different metrics"):
        pooled_mean([question_metrics(["a"], {"a"}, ks=(1,)), question_metrics(["a"], {"a"}, ks=(5,))])


def test_undefined_questions_are_refused():
    with pytest.raises(ValueError, match="no gold chunk"):
        recall_at_k(["a"], set(), 5)
    with pytest.raises(ValueError, match="twice"):
        ndcg_at_k(["a", "b", "a"], {"a"})
    with pytest.raises(ValueError, match="at least 1"):
        precision_at_k(["a"], {"a"}, 0)
