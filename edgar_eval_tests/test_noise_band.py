"""The noise band on tables built here: which filings a replica leaves out, how its figures are paired with the
measurement's, and when a difference is beyond the band."""

from typing import cast

import pandas as pd
import pytest

from edgar_eval.evaluation.noise_band import (
    answer_band,
    answer_deltas,
    beyond_band,
    left_out_companies,
    noise_band,
    noise_sample,
    perturbed_index,
    replica_deltas,
    rerank_band,
    rerank_deltas,
)


def _index() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "chunk_id": [f"c{i}" for i in range(12)],
            "cik": ["A", "A", "B", "B", "C", "C", "D", "D", "E", "E", "F", "F"],
            "filing_id": [f"f{i // 2}" for i in range(12)],
        }
    )


def _replica(index: pd.DataFrame, seed: int, companies_left_out: int) -> tuple[pd.DataFrame, list[str]]:
    """A replica as IndexReplicas builds one: its companies left out drawn from the index's companies, then its rows."""
    left_out = left_out_companies(index.cik.astype(str), seed, companies_left_out)
    return perturbed_index(index, seed, left_out), left_out


def test_a_replica_leaves_seeded_companies_out_and_stores_the_rest_in_a_seeded_order():
    rows, left_out = _replica(_index(), seed=3, companies_left_out=2)
    assert len(left_out) == 1 and not set(rows.cik) & set(left_out), "at most a quarter of six companies"
    assert sorted(rows.chunk_id) == sorted(_index()[~_index().cik.isin(left_out)].chunk_id)
    twelve = pd.concat([_index(), _index().assign(cik=lambda t: t.cik + "2")])
    assert len(_replica(twelve, 3, 2)[1]) == 2
    again, same = _replica(_index(), seed=3, companies_left_out=2)
    assert same == left_out and again.chunk_id.tolist() == rows.chunk_id.tolist(), "seeded: the same replica again"
    orders = {tuple(_replica(_index(), seed, 1)[0].chunk_id) for seed in range(5)}
    assert len(orders) > 1, "another seed, another index"
    rows, left_out = _replica(_index().head(2), seed=3, companies_left_out=2)
    assert left_out == [] and len(rows) == 2, "the only company stays"


def test_a_replica_keeps_each_company_s_rows_in_one_order_whatever_the_other_companies_hold():
    """The order a replica stores a company's rows in reads only those rows, so a filing changed elsewhere leaves
    every other company's rankings in the replica as they were (what lets its questions be kept, shard by shard)."""
    index = pd.concat([_index(), _index().assign(cik=lambda t: t.cik + "2", chunk_id=lambda t: t.chunk_id + "x")])
    rows, left_out = _replica(index, seed=5, companies_left_out=1)
    grown = pd.concat([index, pd.DataFrame({"chunk_id": ["new1", "new2"], "cik": ["B", "C2"], "filing_id": "g"})])
    again, left_again = _replica(grown, seed=5, companies_left_out=1)
    assert left_again == left_out, "the same companies: the choice reads the companies alone"
    for company in sorted(set(rows.cik)):
        before = rows[rows.cik == company].chunk_id.tolist()
        after = [chunk for chunk in again[again.cik == company].chunk_id if chunk in set(before)]
        assert after == before, company
    assert rows.chunk_id.tolist() != sorted(rows.chunk_id), "not the index's own order"


def _runs(hits: dict[str, bool], **fields) -> list[dict]:
    base = {"search_scope": "corpus", "retriever": "bm25", "k": 30}
    return [{**base, **fields, "question_id": q, "page_hit": hit} for q, hit in hits.items()]


def test_a_replica_is_compared_with_the_measurement_on_the_questions_it_searched():
    measured = pd.DataFrame(_runs({"q1": True, "q2": True, "q3": False, "q4": True}))
    replicas = pd.DataFrame(
        _runs({"q1": True, "q2": False, "q3": False}, replica=0)  # q4's company was left out of replica 0
        + _runs({"q1": True, "q2": True, "q3": True, "q4": True}, replica=1)
    )
    deltas = replica_deltas(replicas, measured).set_index("replica")
    assert deltas.loc[0, "questions"] == 3 and deltas.loc[0, "measured_page_hits"] == 2
    assert deltas.loc[0, "delta_points"] == pytest.approx(-100 / 3)
    assert deltas.loc[1, "delta_points"] == pytest.approx(25.0)
    band = noise_band(deltas.reset_index()).iloc[0]
    assert (band.replicas, band.questions) == (2, 3)
    assert band.band_low == pytest.approx(-100 / 3) and band.band_high == pytest.approx(25.0)


def test_a_band_no_replica_moved_is_zero_wide_and_empty_deltas_make_no_band():
    measured = pd.DataFrame(_runs({"q1": True, "q2": False}))
    deltas = replica_deltas(pd.DataFrame(_runs({"q1": True, "q2": False}, replica=0)), measured)
    band = noise_band(deltas).iloc[0]
    assert (band.band_low, band.band_high) == (0.0, 0.0)
    assert noise_band(pd.DataFrame()).empty


def test_a_difference_counts_only_beyond_the_widest_swing_of_the_figures_it_compares():
    assert beyond_band(3.0, [(-1.0, 2.0), (-0.5, 0.5)])
    assert not beyond_band(-2.0, [(-1.0, 2.0), (-0.5, 0.5)]), "inside: a replica moved a figure by 2 points"
    assert beyond_band(0.1, []), "no band measured: any difference stands"


def test_the_answering_band_pairs_each_replica_with_the_measurement_on_its_own_questions():
    measured = pd.DataFrame(
        {
            "question_id": ["a1", "a2", "a3", "a4", "u1", "u2"],
            "correct": [True, True, False, True, True, False],
            "false_answer": [False, False, False, False, False, True],
        }
    )
    replica_runs = pd.DataFrame(
        [
            # replica 0 lost a4's answer and kept every unanswerable outcome; a4 is asked, a3 is not (left out)
            {"replica": 0, "question_id": q, "expected_route": route, "correct": c, "false_answer": f}
            for q, route, c, f in [
                ("a1", "answer", True, False),
                ("a2", "answer", True, False),
                ("a4", "answer", False, False),
                ("u1", "no_answer", True, False),
                ("u2", "no_answer", False, True),
            ]
        ]
        + [
            # replica 1 answered u2 no more: one false answer fewer
            {"replica": 1, "question_id": q, "expected_route": route, "correct": c, "false_answer": f}
            for q, route, c, f in [("a1", "answer", True, False), ("u2", "no_answer", True, False)]
        ]
    )
    deltas = answer_deltas(replica_runs, measured).set_index(["replica", "figure"])
    accuracy = deltas.loc[(0, "answer_accuracy")]
    assert (accuracy.questions, accuracy.replica_hits, accuracy.measured_hits) == (3, 2, 3), "a3 was not asked"
    assert accuracy.delta_points == pytest.approx(-100 / 3)
    assert deltas.loc[(0, "false_answer_rate")].delta_points == 0.0
    assert deltas.loc[(1, "false_answer_rate")].delta_points == pytest.approx(-100.0)
    band = answer_band(deltas.reset_index()).set_index("figure")
    assert band.loc["answer_accuracy", ["band_low", "band_high"]].tolist() == [pytest.approx(-100 / 3), 0.0]
    assert band.loc["false_answer_rate", ["band_low", "band_high"]].tolist() == [-100.0, 0.0]
    assert answer_band(answer_deltas(replica_runs.head(0), measured)).empty


def test_the_rerank_band_holds_each_figure_of_the_cut_apart():
    def rows(replica, hits):
        return [
            {"question_id": q, "search_scope": "company", "candidates": 30, "kept": 15}
            | {"page_hit_before": before, "page_hit_after": after}
            | ({} if replica is None else {"replica": replica})
            for q, (before, after) in hits.items()
        ]

    measured = pd.DataFrame(
        rows(None, {"q1": (True, True), "q2": (False, True), "q3": (False, False), "q4": (True, True)})
    )
    replicas = pd.DataFrame(
        rows(0, {"q1": (True, True), "q2": (False, False), "q3": (False, False)})  # q4 left out; q2 lost after
        + rows(1, {"q1": (True, True), "q2": (True, True), "q3": (False, True), "q4": (True, True)})
    )
    deltas = rerank_deltas(replicas, measured).set_index("replica")
    assert deltas.loc[0, "questions"] == 3
    assert (deltas.loc[0, "delta_before_points"], deltas.loc[0, "delta_after_points"]) == (0.0, pytest.approx(-100 / 3))
    assert (deltas.loc[1, "delta_before_points"], deltas.loc[1, "delta_after_points"]) == (25.0, 25.0)
    band = rerank_band(deltas.reset_index()).iloc[0]
    assert [band.before_low, band.before_high, band.after_low, band.after_high] == [
        0.0,
        25.0,
        pytest.approx(-100 / 3),
        25.0,
    ]
    bands = [(band.before_low, band.before_high), (band.after_low, band.after_high)]
    assert beyond_band(34.0, bands) and not beyond_band(33.0, bands), "the widest swing of either figure: 33.3 points"


def test_leaving_other_companies_out_moves_bm25_within_a_company_but_never_a_dense_ranking():
    """Why no band is printed for dense in a company scope: the replica cannot move it. BM25's statistics are the
    whole index's, so the same company's ranking moves when another company leaves; a band printed there can move."""
    import numpy as np

    from edgar_eval.evaluation.noise_band import band_can_move
    from edgar_eval.retrieval.bm25 import BM25Index
    from edgar_eval.retrieval.dense import DenseIndex

    own = ["revenue grew in the cloud segment", "revenue and cost of revenue", "cloud margin fell", "cost rose"]
    other = ["cloud cloud cloud cloud storage", "cloud services", "cloud computing revenue", "cloud"]
    texts, filings = own + other, ["mine"] * 4 + ["theirs"] * 4
    vectors = np.random.default_rng(0).normal(size=(8, 6))
    query = np.random.default_rng(1).normal(size=6)

    def ranks(index, q):
        return [(hit.row, round(hit.score, 6)) for hit in index.search(q, ["mine"], 4)]

    assert ranks(DenseIndex(vectors, filings), query) == ranks(DenseIndex(vectors[:4], filings[:4]), query)
    with_other = BM25Index.build(texts, filings).search("cloud revenue", ["mine"], 4)
    alone = BM25Index.build(own, filings[:4]).search("cloud revenue", ["mine"], 4)
    assert [round(h.score, 6) for h in with_other] != [round(h.score, 6) for h in alone], "BM25's idf moved"
    assert not band_can_move("company", "dense") and not band_can_move("company_year", "dense")
    assert band_can_move("company", "bm25") and band_can_move("company_year", "hybrid")
    assert band_can_move("corpus", "dense")


def _questions(n: int) -> pd.DataFrame:
    return pd.DataFrame({"question_id": [f"q{i:05d}" for i in range(n)], "cik": [f"c{i % 40}" for i in range(n)]})


def test_the_noise_sample_is_every_question_up_to_its_size_and_a_seeded_sample_beyond():
    few = _questions(170)
    assert noise_sample(few, 170, seed=7) is few, "at most the size: every question, untouched"
    many = _questions(10_000)
    sample = noise_sample(many, 2_500, seed=7)
    assert len(sample) == 2_500 and sample.question_id.is_unique
    assert set(sample.question_id) <= set(many.question_id)
    assert sample.question_id.tolist() == sorted(sample.question_id), "in the questions' own order"
    assert noise_sample(many, 2_500, seed=7).question_id.tolist() == sample.question_id.tolist(), "seeded"
    assert set(noise_sample(many, 2_500, seed=8).question_id) != set(sample.question_id), "another seed, another one"
    assert sample.cik.nunique() == 40, "a sample, not the first questions: every company is in it"
    shuffled = many.sample(frac=1.0, random_state=3)
    assert set(noise_sample(shuffled, 2_500, seed=7).question_id) == set(sample.question_id), "by id, not by row"
    more = pd.concat([many, pd.DataFrame({"question_id": [f"new{i}" for i in range(100)], "cik": "c0"})])
    kept = set(noise_sample(more, 2_500, seed=7).question_id) & set(sample.question_id)
    assert len(kept) >= 2_400, "100 questions added: at most 100 of the sample give way"


def test_a_band_on_the_sample_estimates_the_band_on_every_question():
    """A replica that flips 3% of 10,000 questions' page hits one way and 1% the other moves the figure by +2 points
    on every question; the band on a sample of 2,500 must say about the same, not a figure the sample made up."""
    many = _questions(10_000)
    measured = pd.DataFrame(_runs(dict.fromkeys(many.question_id, False)))
    flipped_up = set(many.question_id.sample(frac=0.03, random_state=1))
    rest = many[~many.question_id.isin(flipped_up)].question_id
    flipped_down = set(rest.sample(n=100, random_state=2))
    measured.loc[measured.question_id.isin(flipped_down), "page_hit"] = True
    replica = {q: (q in flipped_up) for q in many.question_id}
    replicas = pd.DataFrame(_runs(replica, replica=0))
    whole = replica_deltas(replicas, measured).delta_points.iloc[0]
    assert whole == pytest.approx(2.0)
    sample = set(noise_sample(many, 2_500, seed=7).question_id)
    sampled = replica_deltas(
        cast(pd.DataFrame, replicas[replicas.question_id.isin(sample)]), measured
    ).delta_points.iloc[0]
    assert abs(sampled - whole) < 1.0, f"the sample's band {sampled:+.2f} against every question's {whole:+.2f}"


def test_a_noise_step_that_measured_nothing_gives_empty_deltas_and_bands():
    """A generator whose replicas are not measured, no replica, or no question: every shard stored with no row and
    no column. Each band is then empty, not an error."""
    from edgar_eval.evaluation.noise_band import (
        answer_band,
        answer_deltas,
        rerank_band,
        rerank_deltas,
        retrieval_deltas,
    )

    nothing = pd.DataFrame()
    measured = pd.DataFrame({"question_id": ["q1"], "correct": [True], "false_answer": [False]})
    assert answer_band(answer_deltas(nothing, measured)).empty
    rankings = pd.DataFrame(_runs({"q1": True})).assign(error=None)
    assert noise_band(retrieval_deltas(nothing, rankings)).empty
    reranked = pd.DataFrame(
        {"question_id": ["q1"], "search_scope": ["corpus"], "candidates": [30], "kept": [5]}
    ).assign(page_hit_before=True, page_hit_after=True)
    assert rerank_band(rerank_deltas(nothing, reranked)).empty
