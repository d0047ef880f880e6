import re
from typing import cast

import pandas as pd
import pytest

from edgar_eval.corpus.company_names import display_name as plain_company_name
from edgar_eval.golden import fairness
from edgar_eval.golden.fairness import (
    FairnessLimits,
    FigureIndex,
    classify_occurrences,
    statement_headings,
    statement_type_at,
)
from edgar_eval.golden.figure_selection import PERIODIC_FORMS
from edgar_eval.golden.labels import is_boilerplate
from edgar_eval.golden.might_answer import PRINTED, ScopeText, absence_verdict, label_name
from edgar_eval.golden.question_wording import printed_answer
from edgar_eval.golden.templates import ANSWERABLE_KINDS, build_golden_questions
from edgar_eval.golden.two_documents import TWO_DOCUMENT_KINDS


@pytest.fixture(scope="module")
def demo_build(golden_inputs):
    return build_golden_questions(*golden_inputs, seed=7)


def test_golden_set_is_deterministic_and_has_every_kind(golden_inputs, demo_build):
    golden = demo_build.questions
    again = build_golden_questions(*golden_inputs, seed=7)
    assert golden.equals(again.questions) and demo_build.rejections.equals(again.rejections)
    single = {"answerable", "other_year", "other_company", "absent_concept", "conflicting_values"}
    assert set(golden.kind) >= single | {"granularity", "restatement", "cross_company"}, "the demo has no two 10-Ks"
    assert golden.question_id.is_unique
    assert (golden[golden.kind.isin(ANSWERABLE_KINDS)].expected_route == "answer").all()
    assert (golden[golden.kind == "conflicting_values"].expected_route == "review").all()
    assert (golden[golden.kind.isin(TWO_DOCUMENT_KINDS)].document_count == 2).all()
    unanswerable = golden[~golden.kind.isin([*ANSWERABLE_KINDS, "conflicting_values"])]
    assert (unanswerable.expected_route == "no_answer").all()
    assert set(golden[golden.kind == "answerable"].source_form) == {"10-K", "10-Q"}, "quarterly periods are asked too"


def test_answerable_gold_is_every_chunk_of_the_scope_that_prints_the_figure(golden_inputs, demo_build):
    filings, facts, chunks, texts, _ = golden_inputs
    chunk_text = dict(zip(chunks.chunk_id, chunks.text))
    chunk_filing = dict(zip(chunks.chunk_id, chunks.filing_id))
    for case in demo_build.questions[demo_build.questions.kind == "answerable"].itertuples():
        assert case.source_filing_id in case.gold_filing_ids and set(case.gold_filing_ids) <= set(case.scope_filing_ids)
        number = case.gold_answer.split()[0].lstrip("-$").rstrip("%")
        assert number in case.gold_quote
        for chunk_id in case.gold_chunk_ids:
            assert chunk_filing[chunk_id] in case.scope_filing_ids
            assert number in chunk_text[chunk_id], (case.question, chunk_id)
        # every tagged place of the same concept, period and value in the scope is gold, in whichever filing it is
        same = facts[
            facts.filing_id.isin(case.scope_filing_ids)
            & (facts.concept == case.concept)
            & (facts.value == case.gold_value)
            & facts.offset.notna()
        ]
        for located in same.itertuples():
            holding = chunks[
                (chunks.filing_id == located.filing_id) & (chunks.start <= located.offset) & (chunks.end >= located.end)
            ]
            if (
                located.period_end
                == facts[
                    (facts.filing_id == case.source_filing_id)
                    & (facts.concept == case.concept)
                    & (facts.value == case.gold_value)
                ].period_end.iloc[0]
            ):
                assert set(holding.chunk_id) <= set(case.gold_chunk_ids), (case.question, located.filing_id)
        assert case.company in case.question and (
            str(case.fiscal_year) in case.question or case.period in case.question
        )


def test_every_answerable_question_passes_the_fairness_rules_and_quotas(golden_inputs, demo_build):
    limits = FairnessLimits()
    answerable = demo_build.questions[demo_build.questions.kind == "answerable"]
    for case in answerable.itertuples():
        printed = case.gold_answer.split()[0].lstrip("-$").rstrip("%")
        assert not is_boilerplate(case.concept)
        assert fairness.significant_digits(printed) >= limits.min_significant_digits
        assert not fairness.answer_in_question(printed, case.question)
    assert answerable.groupby("source_filing_id").size().max() <= limits.per_filing
    assert answerable.groupby(["source_filing_id", "concept"]).size().max() <= limits.per_concept_per_filing
    assert answerable.groupby("cik").size().max() <= limits.per_company
    per_statement = answerable.groupby(["source_filing_id", "statement_type"]).size()
    assert per_statement.max() <= max(1, int(limits.statement_share * limits.per_filing))


def test_every_candidate_figure_is_a_question_or_a_rejection_with_its_rule(golden_inputs, demo_build):
    filings, facts, *_ = golden_inputs
    periodic = set(filings[filings.form.isin(list(PERIODIC_FORMS))].filing_id)
    numeric = facts[facts.is_numeric & facts.filing_id.isin(periodic)].copy()
    numeric["period_key"] = (
        numeric.period_kind + "|" + numeric.period_start.fillna("") + "|" + numeric.period_end.fillna("")
    )
    candidates = numeric.drop_duplicates(["filing_id", "concept", "period_key", "dimensions", "value"])
    rejected = demo_build.rejections[demo_build.rejections.kind == "answerable"]
    asked = (demo_build.questions.kind == "answerable").sum()
    assert len(rejected) + asked == len(candidates)
    assert set(demo_build.rejections.rule) <= set(fairness.RULES)
    assert {fairness.BOILERPLATE, fairness.OTHER_PERIOD, fairness.SMALL_OR_ROUND} <= set(rejected.rule)


def test_quotas_turn_away_what_exceeds_them_and_say_so(golden_inputs, demo_build):
    loose = demo_build.questions[demo_build.questions.kind == "answerable"]
    for limits, column, cap, rule in (
        (FairnessLimits(per_filing=5, statement_share=1.0), "source_filing_id", 5, fairness.QUOTA_FILING),
        (FairnessLimits(per_company=7), "cik", 7, fairness.QUOTA_COMPANY),
    ):
        tight = build_golden_questions(*golden_inputs, seed=7, limits=limits)
        answerable = tight.questions[tight.questions.kind == "answerable"]
        assert cast(pd.Series, answerable.groupby(column).size()).max() == cap
        assert (tight.rejections.rule == rule).sum() > 0
        quota_rules = tight.rejections.rule.str.startswith("quota_").sum()
        assert len(answerable) + quota_rules == len(loose) + demo_build.rejections.rule.str.startswith("quota_").sum()


def test_unanswerable_kinds_are_what_they_claim(golden_inputs, demo_build):
    filings, facts, chunks, texts, _ = golden_inputs
    golden = demo_build.questions
    text_of = dict(zip(texts.filing_id, texts.text))
    for case in golden[golden.kind == "other_year"].itertuples():
        assert case.fiscal_year not in set(facts[facts.cik == case.cik].fiscal_year)
        assert f"fiscal {case.fiscal_year}" in case.question
    names = {plain_company_name(r.company): r.cik for r in filings.itertuples()}
    quarter_ends = filings[filings.form == "10-Q"].groupby("cik").period_end.agg(set)
    for case in golden[golden.kind == "other_company"].itertuples():
        assert case.company not in case.question
        (named,) = [cik for name, cik in names.items() if case.question.startswith(f"What was {name}'s ")]
        assert case.concept in set(facts[facts.cik == named].concept), "the named company reports the line itself"
        date = re.search(r"ended (\w+ \d+, \d{4})|as of (\w+ \d+, \d{4})", case.question)
        if date:  # a quarter of the named company's own calendar, never a date of the source company's
            asked = pd.Timestamp(date.group(1) or date.group(2)).strftime("%Y-%m-%d")
            assert asked in quarter_ends.get(named, set()), case.question
        else:  # a fiscal year the named company reported
            (year,) = re.findall(r"fiscal (\d{4})", case.question)
            assert int(year) in set(filings[filings.cik == named].fiscal_year), case.question
    for case in golden[golden.kind == "absent_concept"].itertuples():
        scope_facts = facts[facts.filing_id.isin(case.scope_filing_ids)]
        assert case.concept not in set(scope_facts.concept)
        scope = [ScopeText(f, text_of[f]) for f in case.scope_filing_ids]
        name = label_name(case.concept)
        assert name is not None
        years = {int(case.fiscal_year)}
        assert absence_verdict(scope, case.concept, years, [name]).outcome != PRINTED, case.question
        assert facts[facts.concept == case.concept].cik.nunique() >= 1


def test_significant_digits_and_answers_inside_questions():
    assert [fairness.significant_digits(p) for p in ("1,200", "1.40", "", "391,035", "0.05", "100")] == [
        2,
        3,
        0,
        6,
        1,
        1,
    ]
    assert fairness.printed_figure("(48,772)") == "48,772" and fairness.printed_figure("$ 2.97") == "2.97"
    assert fairness.answer_in_question("2,024", "What was X's revenue for fiscal 2024?")
    assert not fairness.answer_in_question("2,025", "What was X's revenue for fiscal 2024?")
    assert not fairness.answer_in_question("391,035", "What was X's revenue as of June 28, 2025?")


def test_a_figure_printed_with_other_meanings_is_told_apart_from_its_restatements():
    text = (
        "Revenue | 391,035 | 383,285\n"  # page 1: the statement, tagged
        "Total net sales were $391,035 million in 2024.\n"  # page 2: untagged MD&A restatement of the same figure
        "Deferred revenue | 244\n"  # page 3: tagged as another concept
        "Net sales | 244 | 100\n"
    )  # page 4: untagged, short: could be anything
    starts = [0, text.index("Total net"), text.index("Deferred"), text.index("Net sales |")]
    index = FigureIndex("f", text, starts, ["1", "2", "3", "4"])
    seen = classify_occurrences(
        "391,035",
        "total revenue",
        {("f", text.index("391,035"))},
        {("f", text.index("391,035"))},
        [index],
        self_identifying_digits=4,
    )
    assert [index.page(o) for _, o in seen.gold] == ["1", "2"] and seen.other_pages == []
    revenue_244 = text.index("244 | 100")
    seen = classify_occurrences(
        "244",
        "total revenue",
        {("f", revenue_244)},
        {("f", revenue_244), ("f", text.index("244\n"))},
        [index],
        self_identifying_digits=4,
    )
    assert seen.other_pages == ["f#3"]


def test_statement_type_comes_from_the_heading_above_the_figure_not_the_table_of_contents():
    text = (
        "Index\n| Consolidated Statements of Operations | 45 |\n| Consolidated Balance Sheets | 47 |\n"
        "Management's discussion 1,234\n"
        "CONSOLIDATED STATEMENTS OF OPERATIONS\nRevenue | 5,000\n"
        "CONSOLIDATED BALANCE SHEETS\nCash | 7,000\n"
        "Consolidated Statements of Cash Flows\nCapital expenditures | (900)\n"
        "Notes to Consolidated Financial Statements\nNote 1 ... 8,000\n"
    )
    headings = statement_headings(text)
    notes = text.index("Notes to")
    assert statement_type_at(headings, text.index("1,234"), notes) == "other"
    assert statement_type_at(headings, text.index("5,000"), notes) == "income statement"
    assert statement_type_at(headings, text.index("7,000"), notes) == "balance sheet"
    assert statement_type_at(headings, text.index("900"), notes) == "cash flow statement"
    assert statement_type_at(headings, text.index("8,000"), notes) == "notes"


def test_names_and_answers_read_as_a_person_writes_them():
    assert plain_company_name("NVIDIA CORP") == "Nvidia"
    assert plain_company_name("The Boeing Company") == "Boeing"
    assert plain_company_name("INTERNATIONAL BUSINESS MACHINES CORPORATION") == "International Business Machines"
    assert plain_company_name("Apple Inc.") == "Apple" and plain_company_name("AMAZON.COM, INC.") == "Amazon.com"
    assert printed_answer("60,922", 60_922e6, "USD", 6) == "$60,922 million"
    assert printed_answer("48,772", -48_772e3, "USD", 3) == "-$48,772 thousand"
    assert printed_answer("2.97", 2.97, "USD/shares", 0) == "$2.97"
    assert printed_answer("24.1", 0.241, "pure", -2) == "24.1%"
    assert printed_answer("15,408", 15_408e6, "shares", 6) == "15,408 million shares"


def test_a_persons_verdict_admits_or_rejects_a_queued_absence_only_for_the_case_it_was_given_on(
    golden_inputs, demo_build
):
    queue = demo_build.review_queue
    assert len(queue) and set(queue.status) == {"awaiting_review"}, "the demo corpus leaves some candidates open"
    assert not set(queue.question_id) & set(demo_build.questions.question_id), "never admitted unreviewed"
    first, second = queue.iloc[0], queue.iloc[-1]
    reviews = {
        first.question_id: {
            "question_id": first.question_id,
            "case_sha256": first.case_sha256,
            "verdict": "absent",
            "reason": "the passages give another line",
            "reviewer": "test",
        },
        second.question_id: {
            "question_id": second.question_id,
            "case_sha256": "0" * 64,  # given on another version of the case
            "verdict": "absent",
            "reason": "stale",
            "reviewer": "test",
        },
    }
    build = build_golden_questions(*golden_inputs, seed=7, absence_reviews=reviews)
    status = dict(zip(build.review_queue.question_id, build.review_queue.status))
    assert status[first.question_id] == "reviewed_absent"
    assert first.question_id in set(build.questions.question_id)
    if second.question_id != first.question_id:
        assert status[second.question_id] == "awaiting_review"
        assert second.question_id not in set(build.questions.question_id)
    answered = {first.question_id: {**reviews[first.question_id], "verdict": "answered"}}
    rejected = build_golden_questions(*golden_inputs, seed=7, absence_reviews=answered)
    assert first.question_id not in set(rejected.questions.question_id)
    assert "reviewed_answered" in set(rejected.rejections.rule)


def test_an_absent_concept_is_asked_once_per_search_scope(demo_build):
    """Issue 60: where a 10-K and a 10-Q of one fiscal year search the same filings, the same absent concept was asked
    once per filing (107 distinct of 133 on filings nobody tuned on). Now once per scope: a later filing of the scope
    draws another concept, and the repeat is recorded with its rule."""
    absent = demo_build.questions[demo_build.questions.kind == "absent_concept"]
    scopes = absent.scope_filing_ids.map(lambda ids: tuple(sorted(ids)))
    repeated = absent.assign(scope=scopes).groupby(["scope", "concept"]).size()
    assert (repeated == 1).all(), repeated[repeated > 1]
    assert (scopes.map(len) > 1).any(), "no scope of the demo holds two filings: the rule would go untested"
    rejections = demo_build.rejections
    asked_twice = rejections[rejections.rule == fairness.ASKED_IN_SCOPE]
    assert len(asked_twice) and asked_twice.detail.str.startswith("asked of ").all()
