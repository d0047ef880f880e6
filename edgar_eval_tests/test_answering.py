import pytest

from edgar_eval.answering.extractive import Passage, read
from edgar_eval.answering.period_guard import period_guard
from edgar_eval.answering.relevance import relevance_features
from edgar_eval.evaluation.judge import is_correct

STATEMENT = """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions, except per share data)
| Year Ended December 31, 2024 | Year Ended December 31, 2023 | Year Ended December 31, 2022 |
| Revenue | $ | 1,980 | $ | 1,808 | $ | 1,667 |
| Other income (expense), net | $ | (8) | $ | 16 | $ | 16 |
| Net income | $ | 216 | $ | 255 | $ | 236 |
| Net income per share \u2014 diluted | $ | 0.53 | $ | 0.62 | $ | 0.58 |
"""


def test_period_guard_declines_years_the_filings_do_not_report():
    assert period_guard("What was Acme's revenue for fiscal 2024?", {2022, 2023, 2024}).passes
    verdict = period_guard("What was Acme's revenue for fiscal 2019?", {2022, 2023, 2024})
    assert not verdict.passes and verdict.reason.startswith("out_of_period") and "2019" in verdict.reason
    assert period_guard("What is Acme's strategy?", {2024}).passes


def test_reader_picks_the_column_of_the_asked_year_and_cites_it():
    answer = read(
        "What was Acme's net income for fiscal 2023?", [Passage("c1", "unrelated text"), Passage("c2", STATEMENT)]
    )
    assert answer.answered and answer.figure == 255_000_000 and answer.cited_chunk_ids == ("c2",)
    assert "$255 million" in answer.text and "[c2]" in answer.text


def test_reader_reads_negatives_and_per_share_figures_unscaled():
    negative = read("What was Acme's other income (expense), net for fiscal 2024?", [Passage("c", STATEMENT)])
    assert negative.figure == -8_000_000
    per_share = read("What was Acme's diluted net income per share for fiscal 2022?", [Passage("c", STATEMENT)])
    assert per_share.figure == 0.58


def test_reader_declines_without_the_line_or_the_year_column():
    assert not read("What was Acme's inventories at the end of fiscal 2024?", [Passage("c", STATEMENT)]).answered
    assert not read("What was Acme's net income for fiscal 2019?", [Passage("c", STATEMENT)]).answered
    headless = "\n".join(STATEMENT.splitlines()[3:])
    assert not read("What was Acme's net income for fiscal 2023?", [Passage("c", headless)]).answered


def test_judging_routes_and_the_reader_s_own_answers():
    assert is_correct("no_answer", False, "", None, None) and not is_correct("no_answer", True, "$1", None, None)
    assert not is_correct("answer", False, "", 1.0, "$1")
    reader = read("What was Acme's other income (expense), net for fiscal 2024?", [Passage("c", STATEMENT)])
    assert is_correct("answer", True, reader.text, -8_000_000, "-$8 million", "other income (expense), net", 2024)
    assert not is_correct("answer", True, reader.text, 8_000_000, "$8 million", "other income (expense), net", 2024)
    per_share = read("What was Acme's diluted net income per share for fiscal 2022?", [Passage("c", STATEMENT)])
    assert is_correct("answer", True, per_share.text, 0.58, "$0.58", "diluted earnings per share", 2022)


def test_relevance_features_see_names_years_and_words():
    features = relevance_features(
        "What was Acme's net income for fiscal 2023?", ["Acme net income 2023 | 255 |"], [0.7, 0.5]
    )
    assert (
        features["year_present"] == 1.0 and features["name_present"] == 1.0 and features["margin"] == pytest.approx(0.2)
    )
    other = relevance_features("What was Globex's net income for fiscal 2023?", ["Acme net income 2023"], [0.7])
    assert other["name_present"] == 0.0
