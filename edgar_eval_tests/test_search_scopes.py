"""Search scopes: which filings each scope searches, the gold of a question in a wider scope and the fairness rules
run again there, on small filings built here (not the corpora they were written against)."""

import pandas as pd
import pytest

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.domain.routes import NO_POLICY, AccessPolicy
from edgar_eval.evaluation.noise_band import noise_sample
from edgar_eval.evaluation.search_scopes import corpus_scope_sample, scoped_cases
from edgar_eval.evaluation.summaries import retrieval_statistics, scope_changes
from edgar_eval.golden import fairness
from edgar_eval.golden.fairness import FairnessLimits
from edgar_eval.golden.template_scope import _Scope
from edgar_eval.golden.value_conflicts import CONFLICTING
from edgar_eval.golden.wider_scope_gold import _wider_scope_gold
from edgar_eval.retrieval.scope import COMPANY, COMPANY_YEAR, CORPUS, SEARCH_SCOPES, ScopedFiling, filings_of_scope

FY23 = "FY|2023-01-01|2023-12-31"
FY24 = "FY|2024-01-01|2024-12-31"


def _listed() -> list[ScopedFiling]:
    return [
        ScopedFiling("a-10k-2023", "A", "10-K", 2023),
        ScopedFiling("a-10q-2024", "A", "10-Q", 2024),
        ScopedFiling("a-10k-2024", "A", "10-K", 2024),
        ScopedFiling("b-10k-2024", "B", "10-K", 2024),
    ]


def test_each_scope_searches_what_its_name_says():
    listed = _listed()
    assert filings_of_scope(COMPANY_YEAR, listed, "A", 2024) == ["a-10k-2024", "a-10q-2024"]
    assert filings_of_scope(COMPANY, listed, "A", 2024) == ["a-10k-2023", "a-10k-2024", "a-10q-2024"]
    assert filings_of_scope(CORPUS, listed, "A", 2024) == ["a-10k-2023", "a-10k-2024", "a-10q-2024", "b-10k-2024"]
    with pytest.raises(ValueError, match="unknown search scope 'world'"):
        filings_of_scope("world", listed, "A", 2024)


def _corpus(later_revenue: float = 391_035.0, other_company_prints: int = 0) -> _Scope:
    """Company A's FY2023 10-K prints its revenue 391,035 on page 1; its FY2024 10-K prints the FY2023 comparative
    (tagged for FY2023 with `later_revenue`) beside FY2024's 402,000. Company B prints 391,035 as something else on
    `other_company_prints` pages of its own."""
    a23 = "Revenue | 391,035\n"
    a24 = f"Revenue | 402,000 | {later_revenue:,.0f}\n"
    b24 = "".join(f"Page {i}: backlog of 391,035 units\n" for i in range(other_company_prints)) or "Backlog | 12,345\n"
    texts = {"a-10k-2023": a23, "a-10k-2024": a24, "b-10k-2024": b24}
    filings = pd.DataFrame(
        {
            "filing_id": list(texts),
            "cik": ["A", "A", "B"],
            "company": ["Alpha Corp", "Alpha Corp", "Beta Inc"],
            "form": "10-K",
            "fiscal_year": [2023, 2024, 2024],
            "filed": ["2024-02-01", "2025-02-01", "2025-02-01"],
            "period_end": ["2023-12-31", "2024-12-31", "2024-12-31"],
            "sha256": "0" * 64,
        }
    )
    text_rows = []
    for filing_id, text in texts.items():
        lines = text.splitlines(keepends=True)
        starts = [sum(len(line) for line in lines[:i]) for i in range(len(lines))]
        text_rows.append(  # as filing_text holds them: a page per line, each ending where the next starts
            {
                "filing_id": filing_id,
                "text": text,
                "page_starts": starts,
                "page_ends": [*starts[1:], len(text)],
                "printed_pages": [""] * len(starts),
            }
        )
    chunks = pd.DataFrame(
        [
            {"filing_id": f, "chunk_id": f"{f}#0", "start": 0, "end": len(text)}
            for f, text in texts.items()  # one chunk per filing
        ]
    )
    facts = pd.DataFrame(
        [
            {"filing_id": "a-10k-2023", "concept": "Revenues", "period_key": FY23, "value": 391_035.0},
            {"filing_id": "a-10k-2024", "concept": "Revenues", "period_key": FY24, "value": 402_000.0},
            {"filing_id": "a-10k-2024", "concept": "Revenues", "period_key": FY23, "value": later_revenue},
        ]
    ).assign(dimensions="")
    facts["offset"] = [
        a23.index("391,035"),
        a24.index("402,000"),
        a24.index(f"{later_revenue:,.0f}"),
    ]
    sections = pd.DataFrame({"filing_id": list(texts), "notes_start": [None] * 3})
    return _Scope(filings, pd.DataFrame(text_rows), sections, chunks, facts)


def _question() -> dict:
    return {
        "kind": "answerable",
        "cik": "A",
        "question": "What was Alpha Corp's total revenue for fiscal 2023?",
        "label": "total revenue",
        "printed": "391,035",
        "fact_key": ("Revenues", FY23, 391_035.0, ""),
        "source_filing_id": "a-10k-2023",
    }


def _by_scope(frame: pd.DataFrame) -> dict:
    return {row.search_scope: row for row in iter_rows(frame)}


def test_a_comparative_year_printed_by_a_later_report_is_gold_in_the_company_scope():
    wider = _by_scope(_wider_scope_gold([_question()], _corpus(), FairnessLimits()))
    assert pd.isna(wider[COMPANY].rule)
    assert list(wider[COMPANY].gold_filing_ids) == ["a-10k-2023", "a-10k-2024"]
    assert list(wider[COMPANY].gold_chunk_ids) == ["a-10k-2023#0", "a-10k-2024#0"]
    assert list(wider[CORPUS].gold_chunk_ids) == list(wider[COMPANY].gold_chunk_ids), "another company holds no gold"


def test_a_value_restated_by_another_filing_of_the_company_is_two_answers_there():
    wider = _by_scope(_wider_scope_gold([_question()], _corpus(later_revenue=395_120.0), FairnessLimits()))
    assert wider[COMPANY].rule == CONFLICTING and wider[CORPUS].rule == CONFLICTING
    assert wider[COMPANY].detail == "a-10k-2024 tags 395,120 for the period, a-10k-2023 391,035"
    rounded = _by_scope(_wider_scope_gold([_question()], _corpus(later_revenue=391_035.4), FairnessLimits()))
    assert pd.isna(rounded[COMPANY].rule), "one figure rounded two ways is not a restatement"


@pytest.mark.parametrize("prints", [0, 1, 3])
def test_another_company_printing_the_figure_is_a_distractor_counted_not_a_reason_to_leave_it_out(prints):
    limits = FairnessLimits(max_other_meaning_pages=1)
    wider = _by_scope(_wider_scope_gold([_question()], _corpus(other_company_prints=prints), limits))
    assert pd.isna(wider[COMPANY].rule) and pd.isna(wider[CORPUS].rule)
    assert list(wider[CORPUS].gold_chunk_ids) == list(wider[COMPANY].gold_chunk_ids), "another company holds no gold"
    assert (wider[COMPANY].other_company_pages, wider[CORPUS].other_company_pages) == (0, prints)


def test_another_meaning_on_a_page_of_another_year_counts_against_the_figure_in_the_company_scope():
    question = {**_question(), "printed": "402,000", "fact_key": ("Revenues", FY24, 402_000.0, "")}
    question["source_filing_id"], question["question"] = "a-10k-2024", "What was Alpha Corp's revenue for fiscal 2024?"
    corpus = _corpus()
    corpus.index["a-10k-2023"] = fairness.FigureIndex(
        "a-10k-2023", "Revenue | 391,035\nBacklog | 402,000\nOrders | 402,000\n", [0, 18, 35], ["1", "2", "3"]
    )
    wider = _by_scope(_wider_scope_gold([question], corpus, FairnessLimits(max_other_meaning_pages=1)))
    assert wider[COMPANY].rule == fairness.OTHER_MEANINGS and "a-10k-2023#2, a-10k-2023#3" in wider[COMPANY].detail


def _golden() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question_id": ["q-answer", "q-none"],
            "question": ["What was Alpha Corp's revenue for fiscal 2024?", "What was Beta's revenue for fiscal 2024?"],
            "expected_route": ["answer", "no_answer"],
            "cik": ["A", "A"],
            "fiscal_year": [2024, 2024],
            "role": ["analyst", "analyst"],
            "permitted_filing_ids": [["a-10k-2024", "a-10q-2024"], ["a-10k-2024", "a-10q-2024"]],
            "gold_chunk_ids": [["a-10k-2024#0"], []],
            "gold_filing_ids": [["a-10k-2024"], []],
            "gold_pages": [["a-10k-2024#1"], []],
        }
    )


def _searchable() -> pd.DataFrame:
    listed = _listed()
    return pd.DataFrame(
        {
            "filing_id": [f.filing_id for f in listed],
            "cik": [f.cik for f in listed],
            "form": [f.form for f in listed],
            "fiscal_year": [f.fiscal_year for f in listed],
        }
    )


def _wider_gold(rule: str | None = None) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question_id": ["q-answer", "q-answer"],
            "search_scope": [COMPANY, CORPUS],
            "rule": [None, rule],
            "detail": ["", ""],
            "gold_filing_ids": [["a-10k-2023", "a-10k-2024"]] * 2,
            "gold_chunk_ids": [["a-10k-2023#0", "a-10k-2024#0"]] * 2,
            "gold_pages": [["a-10k-2023#1", "a-10k-2024#1"]] * 2,
        }
    )


def test_every_question_is_searched_in_the_answerer_scope_and_fair_answerable_ones_wider():
    cases = list(scoped_cases(_golden(), _wider_gold(), _searchable(), NO_POLICY))
    assert [(c.question_id, c.search_scope) for c in cases] == [
        ("q-answer", COMPANY_YEAR),
        ("q-none", COMPANY_YEAR),
        ("q-answer", COMPANY),
        ("q-answer", CORPUS),
    ]
    assert cases[2].searched == ["a-10k-2023", "a-10k-2024", "a-10q-2024"] and cases[2].gold_chunk_ids == [
        "a-10k-2023#0",
        "a-10k-2024#0",
    ]
    assert cases[3].searched == ["a-10k-2023", "a-10k-2024", "a-10q-2024", "b-10k-2024"]
    unfair = list(scoped_cases(_golden(), _wider_gold(rule=fairness.OTHER_MEANINGS), _searchable(), NO_POLICY))
    assert [c.search_scope for c in unfair] == [COMPANY_YEAR, COMPANY_YEAR, COMPANY], "not measured where unfair"
    only = list(scoped_cases(_golden(), _wider_gold(), _searchable(), NO_POLICY, scopes=[CORPUS]))
    assert [c.search_scope for c in only] == [CORPUS]


def _many(count: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`count` answerable questions of company A, each fair in the wider scopes, and as many unanswerable ones."""
    golden = pd.concat([_golden().iloc[[0]]] * count + [_golden().iloc[[1]]] * count, ignore_index=True)
    golden["question_id"] = [f"q{i:04d}" for i in range(2 * count)]
    wider = pd.concat([_wider_gold()] * (2 * count), ignore_index=True)
    wider["question_id"] = [f"q{i // 2:04d}" for i in range(4 * count)]
    return golden, wider


def test_the_corpus_scope_measures_every_fair_question_up_to_its_size_and_a_seeded_sample_beyond():
    golden, wider = _many(50)
    assert corpus_scope_sample(golden, wider, 50, seed=7) is None, "50 fair there, at most 50: every one"
    sample = corpus_scope_sample(golden, wider, 20, seed=7)
    assert sample is not None and len(sample) == 20
    assert sample <= {f"q{i:04d}" for i in range(50)}, "answerable questions only, never an unanswerable one"
    assert corpus_scope_sample(golden, wider, 20, seed=7) == sample, "seeded"
    assert corpus_scope_sample(golden, wider, 20, seed=8) != sample, "another seed, another sample"
    assert corpus_scope_sample(golden.iloc[::-1], wider, 20, seed=7) == sample, "by id, not by row"
    unfair = wider.assign(rule=[fairness.OTHER_MEANINGS if i % 4 == 3 else None for i in range(len(wider))])
    assert not (corpus_scope_sample(golden, unfair, 20, seed=7) or set()) & {f"q{i:04d}" for i in range(1, 50, 2)}, (
        "a question unfair in the corpus scope is never drawn"
    )
    noise = set(noise_sample(golden, 20, seed=7).question_id)  # of every question, no more than the corpus scope's
    fair_in_noise = noise & {f"q{i:04d}" for i in range(50)}
    assert fair_in_noise and fair_in_noise <= sample, "the noise band's questions fair in the corpus scope: all sampled"

    cases = list(scoped_cases(golden, wider, _searchable(), NO_POLICY, corpus_sample=sample))
    by_scope = {scope: {c.question_id for c in cases if c.search_scope == scope} for scope in SEARCH_SCOPES}
    assert by_scope[CORPUS] == sample, "the corpus scope searches the sample"
    assert len(by_scope[COMPANY]) == 50 and len(by_scope[COMPANY_YEAR]) == 100, "the other scopes every question"
    everyone = list(scoped_cases(golden, wider, _searchable(), NO_POLICY))
    assert [c for c in everyone if c.search_scope != CORPUS] == [c for c in cases if c.search_scope != CORPUS]


def test_a_wider_scope_still_searches_only_what_the_role_may_read():
    policy = AccessPolicy.from_toml('version = "t"\n[roles.analyst]\nbarred_ciks = ["B"]\n', "test policy")
    cases = list(scoped_cases(_golden(), _wider_gold(), _searchable(), policy, scopes=[CORPUS]))
    assert cases[0].searched == ["a-10k-2023", "a-10k-2024", "a-10q-2024"]


def _runs(scope: str, hits: list[bool]) -> list[dict]:
    return [
        {
            "question_id": f"q{i}",
            "search_scope": scope,
            "retriever": "dense",
            "k": 30,
            "expected_route": "answer",
            "error": None,
            "document_hit": True,
            "page_hit": hit,
            "recall": 1.0,
            "precision": 0.1,
            "rr": 1.0,
            "ndcg10": 1.0,
        }
        for i, hit in enumerate(hits)
    ]


def test_widening_is_compared_on_the_questions_measured_in_both_scopes():
    runs = pd.DataFrame(
        _runs(COMPANY_YEAR, [True, True, False, True])
        + _runs(CORPUS, [True, False, True])  # q3 is not fair in the corpus scope: left out of the pairing
    )
    changes = scope_changes(runs).iloc[0]
    assert (changes.search_scope, changes.questions, changes.narrow_page_hits, changes.wide_page_hits) == (
        CORPUS,
        3,
        2,
        2,
    )
    assert (changes.lost, changes.gained) == (1, 1)
    stats = retrieval_statistics(runs)
    assert list(stats.search_scope) == [COMPANY_YEAR, CORPUS], "narrowest first, not alphabetical"
    assert list(stats.questions) == [4, 3]
