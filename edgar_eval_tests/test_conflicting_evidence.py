"""Review when the passages read disagree on the asked figure (answering.conflicts), and the golden review cases for a
figure two filings print with two values (golden.templates' conflicting_values). The tables here are made by hand: a
stock split restates a per-share figure, one figure is printed in millions in one filing and in thousands in another,
and one filing prints the asked row twice."""

from typing import cast

import pandas as pd

from edgar_eval.answering.conflicts import passages_disagree
from edgar_eval.answering.extractive import Passage
from edgar_eval.corpus.figure_match import values_differ
from edgar_eval.corpus.frames import iter_rows

QUESTION = "What was Halvern Robotics's diluted earnings per share for fiscal 2023?"
FIRST_PUBLISHED = """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions, except per share amounts)
| Year Ended December 31, | 2023 | 2022 |
| Net income per share - diluted | $ | 3.48 | $ | 2.99 |
"""
AFTER_SPLIT = """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions, except per share amounts; per share amounts reflect the ten-for-one stock split)
| Year Ended December 31, | 2024 | 2023 |
| Net income per share - diluted | $ | 0.41 | $ | 0.35 |
"""


def test_two_filings_printing_two_values_for_one_period_send_the_question_to_review():
    reason = passages_disagree(
        QUESTION, [Passage("hvrn-10k_2024:00003", FIRST_PUBLISHED), Passage("hvrn-10k_2025:00007", AFTER_SPLIT)]
    )
    assert reason == (
        "the passages disagree on the asked figure: P1 (hvrn-10k_2024) prints $3.48, P2 (hvrn-10k_2025) prints $0.35"
    )


def test_one_figure_in_two_scales_or_one_filing_alone_is_no_disagreement():
    revenue = "What was Halvern Robotics's total revenue for fiscal 2023?"
    millions = (
        "(In millions)\n| Year Ended December 31, | 2023 | 2022 |\n| Total revenue | $ | 1,234.5 | $ | 1,100.0 |\n"
    )
    thousands = (
        "(In thousands)\n| Year Ended December 31, | 2023 | 2022 |\n| Total revenue | $ | 1,234,512 | $ | 1,100,004 |\n"
    )
    assert passages_disagree(revenue, [Passage("a:1", millions), Passage("b:2", thousands)]) is None
    # one filing whose two passages print different values is the reader's ambiguity, not evidence in conflict
    assert passages_disagree(QUESTION, [Passage("a:1", FIRST_PUBLISHED), Passage("a:2", AFTER_SPLIT)]) is None
    assert passages_disagree(QUESTION, [Passage("a:1", FIRST_PUBLISHED)]) is None
    assert passages_disagree("Why did margins fall?", [Passage("a:1", FIRST_PUBLISHED)]) is None


def test_values_differ_beyond_rounding_only():
    assert values_differ(3.48, 0.35) and values_differ(1_478e6, 1_400e6) and values_differ(6_500, 6_541)
    assert not values_differ(1_234.5e6, 1_234_512e3) and not values_differ(0.0, 0.0)
    assert values_differ(-80e6, 20e6)


def test_the_demo_golden_set_holds_the_split_restatement_as_review_cases(golden_inputs):
    from edgar_eval.golden.templates import build_golden_questions

    golden = build_golden_questions(*golden_inputs, seed=7).questions
    review = cast(pd.DataFrame, golden[golden.kind == "conflicting_values"])
    assert len(review) and set(review.expected_route) == {"review"}
    for case in iter_rows(review):
        assert len(case.scope_filing_ids) == 2 and case.scope_filing_ids[0] in case.review_note
        assert case.scope_filing_ids[1] in case.review_note and "prints" in case.review_note
    assert any("earnings per share" in q for q in review.question)
