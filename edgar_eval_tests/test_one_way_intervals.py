"""A gated arm against the arm it gates: the mask structure (it only withholds) and the interval made for it
(Korn-Graubard), sized at the null on constructed data of 5, 10 and 20 companies."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from edgar_eval.evaluation.abstention import ARMS, mask_arms
from edgar_eval.evaluation.confirmatory import removes_only
from edgar_eval.evaluation.protocol import Hypothesis
from edgar_eval.stats.decision_simulation import simulate_tail_misses
from edgar_eval.stats.intervals import korn_graubard, paired_interval

REPLICATES = 400


def _random_arms(seed: int, questions: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in range(questions)]
    answerable = rng.random(questions) < 0.5
    gates = pd.DataFrame(
        {
            "question_id": ids,
            "cik": rng.integers(0, 12, questions).astype(str),
            **{f"{gate}_pass": rng.random(questions) < 0.7 for gate in ("period", "cosine", "relevance")},
        }
    )
    generations = pd.DataFrame(
        {
            "question_id": ids,
            "answered": rng.random(questions) < 0.8,
            "outcome": "answered",
            "generate_seconds": 0.0,
            "figure_correct": rng.random(questions) < 0.6,
            "expected_route": np.where(answerable, "answer", "no_answer"),
            "kind": np.where(answerable, "answerable", "absent_concept"),
        }
    )
    generations.loc[~generations.answered, "outcome"] = "model_declined"
    return mask_arms(gates, generations)


def _hypothesis(arm: str, baseline: str) -> Hypothesis:
    return Hypothesis("H", "", "false_answer_rate", arm, baseline, "lower", 0.05, "absent_concept")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_gated_arm_never_answers_where_the_arm_it_gates_declined_and_removes_only_says_which_pairs_those_are(seed):
    outcomes = _random_arms(seed)
    by_arm = {arm: frame.set_index("question_id").sort_index() for arm, frame in outcomes.groupby("arm")}
    for arm, baseline in itertools.permutations(ARMS, 2):
        first, second = by_arm[arm], by_arm[baseline]
        answers_more = bool((first.answered & ~second.answered).any())
        # one sign only: never a false answer the baseline did not give, never a right answer it did not give
        one_way = (
            not (first.false_answer & ~second.false_answer).any()
            and not (first.correct & ~second.correct)[first.expected_route == "answer"].any()
        )
        nested = removes_only(_hypothesis(arm, baseline))
        assert nested == (not answers_more), (arm, baseline)
        if nested:
            assert one_way, (arm, baseline)


def test_korn_graubard_reads_one_way_differences_and_refuses_two_way_ones():
    clusters = np.repeat(np.arange(6), 20)
    withheld = np.zeros(120)
    withheld[[3, 30, 31, 77]] = 1.0
    interval = korn_graubard(np.zeros(120), withheld, clusters, 0.99)  # arm minus baseline: four -1s
    assert interval.estimate == pytest.approx(-4 / 120) and interval.low < interval.estimate < interval.high <= 0
    nothing = korn_graubard(np.zeros(120), np.zeros(120), clusters, 0.99)
    assert nothing.estimate == 0 and nothing.high == 0 and -0.1 < nothing.low < 0  # Clopper-Pearson at zero events
    both_ways = withheld.copy()
    both_ways[5] = -1.0
    assert math.isnan(korn_graubard(np.zeros(120), both_ways, clusters, 0.99).low)
    assert paired_interval(np.zeros(120), withheld, clusters, 0.99, "korn_graubard").method == "korn_graubard"
    with pytest.raises(ValueError, match="unknown interval method"):
        paired_interval(np.zeros(120), withheld, clusters, 0.99, "bogus")


@pytest.mark.parametrize("companies", [5, 10, 20])
def test_at_the_recall_cost_boundary_korn_graubard_holds_its_tail_where_the_company_t_does_not(companies):
    # A gate withholding 10% of right answers on average, companies unequal (concentration 10), 30 questions each:
    # the decision "the recall cost stays inside 10 points" reads the lower end; it must miss at most 5% (90%
    # interval), within the simulation's Monte Carlo error.
    misses = {
        m.method: m
        for m in simulate_tail_misses(
            [30] * companies,
            -0.1,
            0.1,
            0.90,
            concentration=10.0,
            replicates=REPLICATES,
            resamples=200,
            seed=5,
            methods=("cluster_t", "korn_graubard"),
        )
    }
    tolerance = 3 * math.sqrt(0.05 * 0.95 / REPLICATES)
    assert misses["korn_graubard"].share("low") <= 0.05 + tolerance, misses["korn_graubard"]
    assert misses["korn_graubard"].share("low") < misses["cluster_t"].share("low")
    assert misses["korn_graubard"].undefined == 0
