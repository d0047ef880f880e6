from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.evaluation.abstention import ARMS, admitting_threshold, company_folds, cross_fit, mask_arms
from edgar_eval.evaluation.summaries import summarise_arms


def _frame(seed=0, per_company=40):
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(4):
        for i in range(per_company):
            answerable = i % 2 == 0
            score = rng.normal(0.6 if answerable else 0.4, 0.08)
            rows.append(
                {
                    "question_id": f"q{c}-{i}",
                    "cik": f"000000000{c}",
                    "answerable": answerable,
                    "top_score": score,
                    "margin": rng.random() * 0.1,
                    "mean_top3": score - 0.05,
                    "token_coverage": rng.random(),
                    "year_present": 1.0,
                    "name_present": 1.0 if answerable else rng.integers(0, 2),
                }
            )
    return pd.DataFrame(rows)


def test_threshold_admits_ninety_percent_of_answerable_scores():
    scores = np.arange(100, dtype=float)
    threshold = admitting_threshold(scores)
    assert (scores >= threshold).mean() >= 0.9
    assert (scores >= threshold + 1).mean() < 0.9
    assert admitting_threshold(np.array([])) == float("-inf")


def test_folds_split_by_company_and_thresholds_come_from_the_other_fold():
    frame = _frame()
    folds = company_folds(frame.cik)
    assert cast(pd.Series, frame.groupby("cik").apply(lambda g: cast(pd.Series, folds[g.index]).nunique())).eq(1).all()
    scored = cross_fit(frame)
    for fold in (0, 1):
        other = cast(pd.DataFrame, scored[scored.fold != fold])
        expected = admitting_threshold(other[other.answerable].top_score.to_numpy())
        assert (scored[scored.fold == fold].cosine_threshold == expected).all()
    assert scored.relevance_score.between(0, 1).all()
    answerable = scored[scored.answerable]
    assert answerable.cosine_pass.mean() > 0.75
    assert scored[scored.answerable].relevance_score.mean() > scored[~scored.answerable].relevance_score.mean()


def test_arms_are_masks_over_one_generation():
    gates = pd.DataFrame(
        {
            "question_id": ["a", "b", "c", "d"],
            "cik": ["1", "1", "2", "2"],
            "period_pass": [True, False, True, True],
            "cosine_pass": [True, True, False, True],
            "relevance_pass": [False, True, True, True],
        }
    )
    generations = pd.DataFrame(
        {
            "question_id": ["a", "b", "c", "d"],
            "answered": [True, True, True, False],
            "outcome": ["answered", "answered", "answered", "model_declined"],
            "generate_seconds": [0.5, 0.25, 0.25, 1.0],
            "figure_correct": [True, False, False, False],
            "expected_route": ["answer", "no_answer", "no_answer", "answer"],
            "kind": ["answerable", "other_year", "other_company", "answerable"],
        }
    )
    outcomes = mask_arms(gates, generations)
    assert set(outcomes.arm) == set(ARMS) and len(outcomes) == 4 * len(ARMS)
    answered = outcomes.pivot(index="question_id", columns="arm", values="answered")
    assert answered.loc["a"].to_dict() == {"A": True, "B": True, "C": False, "D": True, "E": False, "F": True}
    for arm in ARMS:  # a gate can only withhold the shared answer, never create one
        assert not cast(pd.Series, answered[arm] & ~answered["A"]).any()
    reasons = outcomes.set_index(["question_id", "arm"]).outcome
    assert (
        reasons[("b", "D")] == "out_of_period"
        and reasons[("c", "B")] == "gate_rejected"
        and reasons[("d", "A")] == "model_declined"
    )
    costs = outcomes.groupby("arm").generate_seconds.sum()
    assert costs["A"] == 2.0 and costs["D"] == 1.75, "a question gated out before generation costs no generator time"
    stats = summarise_arms(outcomes, resamples=200).set_index("arm")
    assert not any(c.startswith("false_answer_rate") for c in stats.columns), "no rate pooled over the kinds"
    assert stats.loc["C", "recall_cost_k"] == 1 and stats.loc["A", "recall_cost_k"] == 0


def test_the_dev_split_fits_and_nothing_is_fitted_on_eval():
    frame = _frame(per_company=30)
    frame["split"] = frame.cik.map(
        {"0000000000": "dev", "0000000001": "dev", "0000000002": "eval", "0000000003": "eval"}
    )
    scored = cross_fit(frame)
    dev, evaluation = (
        cast(pd.DataFrame, scored[scored.split == "dev"]),
        cast(pd.DataFrame, scored[scored.split == "eval"]),
    )
    assert set(dev.fold) == {0, 1} and set(evaluation.fold) == {-1}
    expected = admitting_threshold(dev[dev.answerable].top_score.to_numpy())
    assert (evaluation.cosine_threshold == expected).all()  # every dev question fits the eval threshold
    for fold in (0, 1):  # dev questions are scored from the other dev company only
        other = cast(pd.DataFrame, dev[dev.fold != fold])
        assert (
            dev[dev.fold == fold].cosine_threshold == admitting_threshold(other[other.answerable].top_score.to_numpy())
        ).all()
    shaken = frame.copy()
    eval_rows = shaken.split == "eval"
    shaken.loc[eval_rows, "top_score"] = 1 - shaken.loc[eval_rows, "top_score"]  # eval data changes ...
    shaken.loc[eval_rows, "answerable"] = ~shaken.loc[eval_rows, "answerable"]
    again = cross_fit(shaken)
    assert cast(pd.DataFrame, again[again.split == "dev"])[
        ["relevance_score", "cosine_threshold", "relevance_threshold"]
    ].equals(dev[["relevance_score", "cosine_threshold", "relevance_threshold"]])  # ... and no fitted value moves
    assert (again[again.split == "eval"].cosine_threshold == expected).all()
