import pytest

from edgar_eval.answering.extractive import Passage, read
from edgar_eval.answering.period_guard import period_guard, printed_years
from edgar_eval.answering.relevance import question_names, relevance_features
from edgar_eval.evaluation.judge import is_correct

STATEMENT = """CONSOLIDATED STATEMENTS OF OPERATIONS
(In millions, except per share data)
| Year Ended December 31, 2024 | Year Ended December 31, 2023 | Year Ended December 31, 2022 |
| Revenue | $ | 1,980 | $ | 1,808 | $ | 1,667 |
| Other income (expense), net | $ | (8) | $ | 16 | $ | 16 |
| Net income | $ | 216 | $ | 255 | $ | 236 |
| Net income per share \u2014 diluted | $ | 0.53 | $ | 0.62 | $ | 0.58 |
"""


def test_period_guard_declines_years_the_passages_do_not_print():
    printed = printed_years([STATEMENT])
    assert printed == {2022, 2023, 2024}
    assert period_guard("What was Acme's revenue for fiscal 2024?", printed).passes
    verdict = period_guard("What was Acme's revenue for fiscal 2019?", printed)
    assert not verdict.passes and verdict.reason.startswith("out_of_period") and "2019" in verdict.reason
    assert period_guard("What is Acme's strategy?", {2024}).passes


TWO_YEARS = """(In millions)
| | 2025 | 2024 |
| Net sales | $ | 1,980 | $ | 1,808 |
| Net income | 216 | 255 |
"""


def test_the_guard_reads_the_years_the_passages_print_and_nothing_else():
    printed = printed_years(["Item 7. Our results.", TWO_YEARS])
    assert printed == {2024, 2025}
    assert period_guard("What was Acme's net sales for fiscal 2025?", printed).passes
    verdict = period_guard("What was Acme's net sales for fiscal 2026?", printed)
    assert not verdict.passes
    assert verdict.reason == "out_of_period: asks 2026; the passages print 2024, 2025"
    assert period_guard("What was Acme's net sales for fiscal 2026?", printed_years([])).reason.endswith(
        "print no year"
    )


@pytest.mark.parametrize(
    "passage,years",
    [
        ("Net sales for fiscal 2025 were $1.9 billion.", {2025}),
        ("Results for fiscal years 2025, 2024 and 2023 are discussed below.", {2023, 2024, 2025}),
        ("For the years ended December 31, 2025, 2024 and 2023, revenue grew.", {2023, 2024, 2025}),
        ("Revenue for the three months ended June 29, 2025 rose 5%.", {2025}),
        ("As of September 28, 2024 and September 30, 2023, cash was $30 billion.", {2023, 2024}),
        ("| Balance as of December 31, 2025 | 1,204 | 1,100 |", {2025}),
        # a year that is not a period the passages report
        ("The 2026 Notes bear interest at 3.5% and the 2030 Notes at 4.0%.", set()),
        ("We expect fiscal 2026 revenue to grow in the low single digits.", set()),
        ("Our guidance for the year ending December 31, 2026 assumes no acquisitions.", set()),
        ("(In millions)\n| | 2026 | 2027 | Thereafter |\n| Operating leases | 120 | 110 | 300 |", set()),
        (
            "Estimated amortization is as follows:\n| 2025 | 2026 | 2027 |\n| Amortization | $207 | $202 | $182 |",
            set(),
        ),
        (
            "| Fiscal years ending June 30 | 2026 | 2027 |\n| Estimated amortization expense | $ | 308 | $ | 298 |",
            set(),
        ),
        ("| Fiscal 2027 | 575 |\n| Fiscal 2028 | 610 |", set()),  # a schedule's row labels
    ],
)
def test_what_counts_as_a_printed_period(passage, years):
    assert printed_years([passage]) == years


def test_a_fiscal_year_that_ends_in_the_next_calendar_year_is_read_as_printed():
    """Home Depot's fiscal 2024 ended February 2, 2025: the guard does no fiscal-calendar arithmetic (the passages do
    not say which convention a company follows), so a date is its printed year and a fiscal label its named one."""
    labelled = "(In millions)\n| | Fiscal 2024 | Fiscal 2023 |\n| Net sales | 159,514 | 152,669 |"
    dated = "(In millions)\n| | February 2, 2025 |\n| Total assets | 96,119 |"
    question = "What was Home Depot's net sales for fiscal 2024?"
    assert period_guard(question, printed_years([labelled])).passes
    assert not period_guard(question, printed_years([dated])).passes  # a recall cost arm D measures
    # and a twin asking the next fiscal year passes where the end date is printed: a false answer arm D measures
    assert period_guard("What was Home Depot's total assets at the end of fiscal 2025?", printed_years([dated])).passes


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


def test_the_name_feature_reads_the_question_s_capitalised_words_against_the_passages():
    """No resolver and no list of the corpus's companies: the question's own name words, as words of the passages."""
    assert question_names("What was Home Depot's net sales for the quarter ended May 4, 2025?") == ["home", "depot"]
    assert question_names("What were P&G's net sales for fiscal 2025?") == []  # nothing to look for: no signal
    question = "What was Meta's total revenue for fiscal 2024?"
    assert relevance_features(question, ["Meta Platforms, Inc. | Revenue | 164,501 |"], [0.7])["name_present"] == 1.0
    assert relevance_features(question, ["metadata and metals | 164,501 |"], [0.7])["name_present"] == 0.0
    half = relevance_features("What was Home Depot's net sales for fiscal 2024?", ["Depot sales"], [0.7])
    assert half["name_present"] == 0.5
