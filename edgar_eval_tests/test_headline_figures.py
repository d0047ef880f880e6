"""The figures the Dagster UI plots across runs (evaluation.headline_figures), picked from statistics tables built on
constructed outcomes: the table's own numbers under stable names, bounds around their estimate, nothing undefined."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import cast

import pandas as pd
import pytest

from edgar_eval.evaluation.abstention import ARMS
from edgar_eval.evaluation.headline_figures import (
    arm_figures,
    false_answer_kind_figures,
    page_hit_figures,
    primary_hypothesis,
    rate_entries,
    reader_figures,
)
from edgar_eval.evaluation.protocol import Protocol
from edgar_eval.evaluation.readers import summarise_readers
from edgar_eval.evaluation.summaries import false_answers_by_kind, summarise_arms
from edgar_eval.report.readme import PRIMARY

PROTOCOLS = Path(__file__).resolve().parents[1] / "protocol"


def _protocol(name: str) -> Protocol:
    return Protocol.from_mapping(tomllib.loads((PROTOCOLS / f"{name}.toml").read_text()))


def _outcomes() -> pd.DataFrame:
    """Three companies; per company 4 answerable questions (3 right under arm A), 2 absent-concept and 3 other-year
    questions (arm A answers one absent-concept question of each company); arms B and C decline every unanswerable
    question and one right answer per company; the other arms are arm A."""
    rows = []
    for c in range(3):
        cik = f"000000000{c}"
        cases = [("answer", "answerable", i < 3) for i in range(4)]
        cases += [("no_answer", "absent_concept", i == 0) for i in range(2)]
        cases += [("no_answer", "other_year", False) for _ in range(3)]
        for i, (route, kind, hit) in enumerate(cases):
            for arm in ARMS:
                gated = arm in ("B", "C") and (route == "no_answer" or i == 0)
                rows.append(
                    {
                        "arm": arm,
                        "question_id": f"q{c}-{i}",
                        "cik": cik,
                        "expected_route": route,
                        "kind": kind,
                        "answered": hit and not gated,
                        "correct": route == "answer" and hit and not gated,
                        "false_answer": route == "no_answer" and hit and not gated,
                    }
                )
    return pd.DataFrame(rows)


def _bounded(figures: dict[str, float | int]) -> list[str]:
    """The rates that carry Wilson bounds; each bound and the rate are finite floats in order."""
    names = [n for n in figures if f"{n}_low" in figures and f"{n}_high" in figures]
    for name in names:
        low, value, high = figures[f"{name}_low"], figures[name], figures[f"{name}_high"]
        assert all(type(x) is float and math.isfinite(x) for x in (low, value, high)), name
        assert 0.0 <= low <= value <= high <= 1.0, (name, low, value, high)
    return names


def test_arm_figures_are_the_arm_table_s_numbers_under_stable_names():
    stats = summarise_arms(_outcomes(), resamples=200)
    figures = arm_figures(stats)
    table = stats.set_index("arm")
    assert figures["answerable_questions"] == 12
    # no false-answer rate pooled over the unanswerable kinds: each kind's is a figure of its own (below)
    assert not any(name.startswith(("false_answer_rate_arm", "unanswerable_questions")) for name in figures)
    for arm in ARMS:
        for figure in ("recall_cost", "answer_accuracy"):
            assert figures[f"{figure}_arm_{arm}"] == table.loc[arm, figure]
            assert figures[f"{figure}_arm_{arm}_low"] == pytest.approx(table.loc[arm, f"{figure}_low"], abs=1e-12)
            assert figures[f"{figure}_arm_{arm}_high"] == pytest.approx(table.loc[arm, f"{figure}_high"], abs=1e-12)
        for figure in ("recall_cost",):
            assert figures[f"{figure}_arm_{arm}_cluster_low"] == table.loc[arm, f"{figure}_cluster_low"]
            assert figures[f"{figure}_arm_{arm}_cluster_high"] == table.loc[arm, f"{figure}_cluster_high"]
    assert figures["recall_cost_arm_C"] == 3 / 12 and figures["answer_accuracy_arm_A"] == 9 / 12
    # 9 of 9: statsmodels' Wilson bounds miss their estimate by float noise; the figure's do not
    assert figures["recall_cost_arm_A_low"] == 0.0
    assert len(_bounded(figures)) == 2 * len(ARMS)


def test_the_primary_endpoint_is_the_primary_hypothesis_s_kind_per_arm():
    v3 = _protocol("answering-v3")
    primary = primary_hypothesis(v3)
    assert primary is not None and (primary.id, primary.kind) == (PRIMARY, "absent_concept")
    table = false_answers_by_kind(_outcomes())
    figures = false_answer_kind_figures(table, v3)
    absent = table[table.kind == "absent_concept"].set_index("arm")
    assert figures["primary_endpoint_questions"] == 6 and figures["primary_endpoint_companies"] == 3
    for arm in ARMS:
        assert figures[f"primary_endpoint_arm_{arm}"] == absent.loc[arm, "false_answer_rate"]
        assert figures[f"primary_endpoint_arm_{arm}"] == figures[f"false_answer_rate_absent_concept_arm_{arm}"]
        assert figures[f"primary_endpoint_arm_{arm}_high"] == pytest.approx(absent.loc[arm, "false_answer_rate_high"])
    assert figures["primary_endpoint_arm_A"] == 0.5 and figures["primary_endpoint_arm_E"] == 0.5
    assert figures["primary_endpoint_arm_C"] == 0.0 and figures["false_answer_rate_other_year_arm_A"] == 0.0
    assert figures["absent_concept_questions"] == 6 and figures["other_year_questions"] == 9
    assert len(_bounded(figures)) == 3 * len(ARMS)


def test_an_undefined_primary_endpoint_has_a_count_of_zero_and_no_rate():
    v3 = _protocol("answering-v3")
    outcomes = _outcomes()
    table = false_answers_by_kind(cast(pd.DataFrame, outcomes[outcomes.kind != "absent_concept"]))
    figures = false_answer_kind_figures(table, v3)
    assert figures["primary_endpoint_questions"] == 0 and figures["primary_endpoint_companies"] == 0
    assert not [n for n in figures if n.startswith("primary_endpoint_arm")]
    assert not [n for n in figures if "absent_concept" in n]
    assert false_answer_kind_figures(false_answers_by_kind(outcomes.iloc[:0]), v3) == {
        "primary_endpoint_questions": 0,
        "primary_endpoint_companies": 0,
    }


def _metrics_row(scope: str, retriever: str, k: int, questions: int, hits: int) -> dict:
    from edgar_eval.stats.proportions import wilson

    page = wilson(hits, questions)
    return {
        "search_scope": scope,
        "retriever": retriever,
        "k": k,
        "questions": questions,
        "page_hits": hits,
        "page_hit_rate": page.rate,
        "page_low": page.low,
        "page_high": page.high,
    }


def test_page_hit_figures_read_the_answerer_s_scope_per_retriever_and_depth():
    metrics = pd.DataFrame(
        [
            _metrics_row("company_year", "dense", 30, 20, 14),
            _metrics_row("company_year", "hybrid", 30, 20, 20),
            _metrics_row("company_year", "hybrid", 50, 20, 20),
            _metrics_row("company_year", "bm25", 30, 0, 0),  # every search errored: no rate
            _metrics_row("corpus", "hybrid", 30, 12, 3),
        ]
    )
    figures = page_hit_figures(metrics)
    assert figures["page_hit_at_30_dense"] == 0.7 and figures["page_hit_at_30_hybrid"] == 1.0
    assert figures["page_hit_at_50_hybrid"] == 1.0 and figures["page_hit_at_30_hybrid_high"] == 1.0
    assert figures["page_hit_at_30_dense_low"] == metrics.page_low[0]
    assert not [n for n in figures if "bm25" in n] and figures["page_hit_questions"] == 20
    assert len(_bounded(figures)) == 3
    assert page_hit_figures(metrics.iloc[:0]) == {"page_hit_questions": 0}


def test_reader_figures_per_reader_and_filings_needed_without_the_version():
    outcomes = pd.DataFrame(
        [
            {
                "reader": reader,
                "question_id": f"q{i}",
                "outcome": "answered",
                "answered": True,
                "right": i < right,
                "gold_chunk_retrieved": True,
                "document_count": 1 if i < 6 else 2,
            }
            for reader, right in (("extractive-baseline/1", 3), ("table-reader/2", 7))
            for i in range(8)
        ]
    )
    table = summarise_readers(outcomes)
    figures = reader_figures(table)
    assert figures["reader_questions"] == 8
    assert figures["reader_accuracy_table_reader"] == 7 / 8 and figures["reader_accuracy_extractive_baseline"] == 3 / 8
    assert figures["reader_accuracy_table_reader_one_document"] == 1.0
    assert figures["reader_accuracy_table_reader_two_documents"] == 0.5
    assert figures["reader_accuracy_extractive_baseline_two_documents"] == 0.0
    assert len(_bounded(figures)) == 6


def test_a_rate_without_questions_writes_nothing():
    assert rate_entries("x", float("nan"), float("nan"), float("nan")) == {}
    assert rate_entries("x", 0.5, float("nan"), 0.7) == {"x": 0.5}
    assert rate_entries("x", 1.0, 0.9, 1 - 1e-16) == {"x": 1.0, "x_low": 0.9, "x_high": 1.0}
