"""The chance level beside every hit rate: the hit of a random ranking, computed exactly and checked by simulation."""

import math
import random

import numpy as np
import pandas as pd
import pytest

from edgar_eval.evaluation.retrieval_hits import chance_of_hit
from edgar_eval.evaluation.search_scopes import ScopedCase, search_runs
from edgar_eval.retrieval.dense import Hit


@pytest.mark.parametrize(
    "pool,hits,depth", [(10, 1, 1), (10, 1, 3), (50, 4, 5), (200, 20, 30), (30, 2, 30), (7, 3, 2), (5, 5, 1)]
)
def test_chance_is_one_minus_the_hypergeometric_miss(pool, hits, depth):
    expected = 1 - math.comb(pool - hits, min(depth, pool)) / math.comb(pool, min(depth, pool))
    assert chance_of_hit(pool, hits, depth) == pytest.approx(expected, abs=1e-12)


def test_chance_matches_a_simulated_random_ranking():
    rng = random.Random(11)
    pool, hits, depth, draws = 120, 6, 10, 20000
    found = sum(any(c < hits for c in rng.sample(range(pool), depth)) for _ in range(draws))
    assert abs(found / draws - chance_of_hit(pool, hits, depth)) < 0.015


def test_edges_no_hit_is_never_found_and_a_depth_past_the_pool_always_finds_one():
    assert chance_of_hit(100, 0, 30) == 0.0
    assert chance_of_hit(0, 0, 30) == 0.0
    assert chance_of_hit(12, 1, 30) == 1.0
    assert chance_of_hit(1, 1, 1) == 1.0


def test_each_search_run_carries_the_chance_of_its_own_scope():
    # filing a: 6 chunks, page 2 spanned by chunks 1 and 2; filing b: 4 chunks, outside the scope searched
    index_rows = pd.DataFrame(
        {
            "chunk_id": [f"c{i}" for i in range(10)],
            "filing_id": ["a"] * 6 + ["b"] * 4,
            "pages": [["1"], ["1", "2"], ["2"], ["3"], ["4"], ["5"], ["1"], ["2"], ["3"], ["4"]],
        }
    )
    case = ScopedCase("q", "question?", "company_year", "answer", ["a"], ["c2"], ["a"], ["a#2", "b#2"])

    def first_rows(vector, text, scope, k):
        return [Hit(row=r, score=1.0, rank=i + 1) for i, r in enumerate([0, 3, 4][:k])]

    (run,) = search_runs(index_rows, {"first": first_rows}, [case], {"q": np.zeros(2)}, [2])
    assert run["page_hit_chance"] == pytest.approx(chance_of_hit(6, 2, 2))  # b's page 2 is not searched
    assert run["document_hit_chance"] == 1.0  # one filing searched, and it is the gold one
    assert run["page_hit"] is False
