import numpy as np
import pytest

from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint
from edgar_eval.retrieval.scope import ScopedFiling, filings_in_scope


def _unit(rows):
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_search_never_returns_a_chunk_of_a_filing_outside_the_scope():
    rng = np.random.default_rng(3)
    vectors = _unit(rng.normal(size=(200, 16)))
    filing_ids = [f"f{i % 5}" for i in range(200)]
    index = DenseIndex(vectors, filing_ids)
    for target in range(0, 200, 7):
        hits = index.search(vectors[target], ["f1", "f3"], 30)
        assert hits and all(filing_ids[h.row] in ("f1", "f3") for h in hits)
        assert len(hits) == 30
    assert index.search(vectors[0], ["nope"], 5) == []


def test_ties_are_broken_by_chunk_order_and_ranks_are_exact_cosine():
    vectors = _unit([[1, 0], [1, 0], [0, 1], [1, 1]])
    hits = DenseIndex(vectors, ["a"] * 4).search(np.array([1, 0], dtype=np.float32), ["a"], 4)
    assert [h.row for h in hits] == [0, 1, 3, 2] and [h.rank for h in hits] == [1, 2, 3, 4]
    assert hits[2].score == pytest.approx(0.707107, abs=1e-6)


def test_fingerprint_mismatch_is_refused_with_the_difference():
    built = IndexFingerprint("minilm", "l2", 1000, 200)
    check_fingerprint(built, IndexFingerprint.from_json(built.as_json()), "index")
    with pytest.raises(IndexMismatch, match="chunk_size: index has 800"):
        check_fingerprint(built, IndexFingerprint("minilm", "l2", 800, 200), "index")
    with pytest.raises(IndexMismatch, match="embedder_id"):
        check_fingerprint(built, IndexFingerprint("other", "l2", 1000, 200), "index")


def test_scope_is_the_company_year_or_its_latest_annual_report():
    filings = [
        ScopedFiling("k23", "1", "10-K", 2023),
        ScopedFiling("k24", "1", "10-K", 2024),
        ScopedFiling("q24", "1", "10-Q", 2024),
        ScopedFiling("other", "2", "10-K", 2024),
    ]
    assert filings_in_scope(filings, "1", 2024) == ["k24", "q24"]
    assert filings_in_scope(filings, "1", 2019) == ["k24"]
    assert filings_in_scope(filings, "1", None) == ["k24"]
    assert filings_in_scope(filings, "3", 2024) == []


def test_retrieval_statistics_per_retriever_and_depth_count_errors_apart():
    import pandas as pd

    from edgar_eval.evaluation.retrieval_hits import run_record
    from edgar_eval.evaluation.summaries import retrieval_statistics

    gold = (["g1"], ["f"], ["f#3"])
    rows = []
    for retriever, ranked in (("dense", ["x", "g1"]), ("bm25", ["g1", "x"])):
        for question in ("q1", "q2", "q3"):
            error = "RuntimeError: boom" if (retriever, question) == ("dense", "q3") else None
            ids = [] if error else ranked
            record = run_record(ids, ["f"] * len(ids), [["3"] if c == "g1" else ["9"] for c in ids], *gold, k=30)
            rows.append(
                {
                    "question_id": question,
                    "search_scope": "company_year",
                    "retriever": retriever,
                    "k": 30,
                    "expected_route": "answer",
                    "error": error,
                    **record,
                }
            )
        rows.append(
            {
                "question_id": "u",
                "search_scope": "company_year",
                "retriever": retriever,
                "k": 30,
                "expected_route": "no_answer",
                "error": None,
                **run_record(ranked, ["f", "f"], [["1"], ["2"]], [], [], [], k=30),
            }
        )
    stats = retrieval_statistics(pd.DataFrame(rows)).set_index("retriever")
    assert stats.loc["dense", "questions"] == 2 and stats.loc["dense", "errors"] == 1
    assert stats.loc["dense", "page_hits"] == 2 and stats.loc["dense", "rr"] == pytest.approx(0.5)
    assert stats.loc["bm25", "questions"] == 3 and stats.loc["bm25", "rr"] == 1.0 and stats.loc["bm25", "ndcg10"] == 1.0
    assert stats.loc["bm25", "precision"] == pytest.approx(1 / 30)


def test_retrieval_slices_group_by_form_statement_position_and_company_in_the_answerer_scope():
    import pandas as pd

    from edgar_eval.evaluation.summaries import summarise_slices

    runs = pd.DataFrame(
        {
            "question_id": ["a", "b", "c", "a", "b", "c"],
            "search_scope": ["company_year"] * 6,
            "retriever": ["dense"] * 6,
            "k": [30, 30, 30, 50, 50, 50],
            "expected_route": ["answer"] * 6,
            "error": [None] * 6,
            "page_hit": [True, False, True, True, True, True],
            "first_gold_rank": [3, 0, 1, 3, 40, 1],
            "source_form": ["10-K", "10-K", "10-Q"] * 2,
            "statement_type": ["balance sheet"] * 6,
            "page_position": ["first page", "deeper", "deeper"] * 2,
            "company": ["A", "B", "B"] * 2,
        }
    )
    wider = runs.assign(search_scope="corpus", page_hit=False)  # another scope's runs: not sliced
    slices = summarise_slices(pd.concat([runs, wider])).set_index(["slice", "value", "k"])
    assert slices.loc[("page position", "deeper", 30), "page_hits"] == 1
    assert slices.loc[("page position", "first page", 30), "page_hit_rate"] == 1.0
    assert slices.loc[("form", "10-K", 30), "page_hits"] == 1 and slices.loc[("form", "10-K", 50), "page_hits"] == 2
    assert slices.loc[("form", "10-K", 50), "median_gold_rank"] == 21.5
    assert slices.loc[("company", "B", 30), "questions"] == 2
    assert slices.loc[("statement", "balance sheet", 30), "page_hit_rate"] == pytest.approx(2 / 3)


def test_the_golden_mix_counts_answerable_questions_per_form_statement_and_page_position():
    import pandas as pd

    from edgar_eval.evaluation.summaries import golden_mix

    golden = pd.DataFrame(
        {
            "expected_route": ["answer", "answer", "answer", "answer", "no_answer"],
            "source_form": ["10-K", "10-K", "10-K", "10-Q", "10-K"],
            "statement_type": ["cover", "income statement", "income statement", "notes", "none"],
            "on_first_page": [True, False, False, False, None],
        }
    )
    mix = golden_mix(golden).set_index(["facet", "value"])
    assert mix.loc[("form", "10-K"), "questions"] == 3 and mix.loc[("form", "10-K"), "share"] == 0.75
    assert mix.loc[("page position", "first page"), "questions"] == 1
    assert mix.loc[("page position", "deeper"), "share"] == 0.75
    assert mix.groupby("facet").share.sum().round(9).eq(1.0).all(), "the unanswerable question is in no share"
