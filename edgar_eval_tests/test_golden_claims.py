"""The text-only gates of golden-question candidates, on synthetic sentences (no filing text)."""

import pytest

from edgar_eval.golden.claims import (
    answer_figures_in_quotes,
    answer_support,
    claimed_figures,
    direction,
    normalise_row,
    period_named,
    plain_english,
    sentences,
    source_naming,
    support_details,
)

# ---------------------------------------------------------------------------------------------- answer_support


def test_rounded_billions_are_backed_by_a_table_number_in_millions():
    verdict = answer_support("Cost of sales was $1.9 billion.", ["Cost of sales | 1,948"], "number")
    assert verdict.passed, verdict.reason


def test_a_miss_beyond_two_percent_and_the_half_unit_fails():
    # 1,000 vs 1,025.6: 2.5% off, and the half unit of "$1,000 million" is only $0.5 million
    verdict = answer_support("Widget revenue was $1,000 million.", ["Widget revenue | 1,025.6"], "number")
    assert not verdict.passed
    assert "$1,000 million" in verdict.reason


def test_an_answer_is_held_to_the_precision_it_writes_not_to_two_percent():
    # The one figure policy: four written digits claim a million's precision, so 1.5% off is not support;
    # "$1.0 billion" claims a tenth of a billion and is.
    assert not answer_support("Widget revenue was $1,010 million.", ["Widget revenue | 1,025.6"], "number").passed
    assert answer_support("Widget revenue was $1.0 billion.", ["Widget revenue | 1,025.6"], "number").passed


def test_one_step_difference_passes_and_says_which():
    quotes = ["Total revenue | $ | 391,035 | $ | 380,000", "Revenue, nine months | 296,105 | 290,000"]
    verdict = answer_support("That leaves $94,930 million for the last quarter.", quotes, "number")
    assert verdict.passed
    assert "391,035 - 296,105" in verdict.reason


def test_ratio_as_a_percentage_passes():
    quotes = ["Segment revenue | 2,500 | 2,000", "Total revenue | 10,000 | 9,000"]
    assert answer_support("The segment made up 25.0% of revenue.", quotes, "number").passed


def test_two_steps_fail_and_name_the_figure():
    quotes = [
        "The company bought back $95.0 billion of its shares during the year.",
        "In the third quarter the company bought back $26.0 billion of its shares.",
    ]
    verdict = answer_support("So 72.6% of the buybacks came outside the third quarter.", quotes, "number")
    assert not verdict.passed
    assert verdict.reason == "72.6% is neither quoted nor one step from two quoted figures"


def test_percentage_point_difference_is_one_step():
    quotes = ["Gross margin | 75.1 | % | 72.4 | %"]
    assert answer_support("Gross margin fell 2.7 percentage points.", quotes, "number").passed


def test_percentages_and_plain_numbers_do_not_back_each_other():
    assert not answer_support("The rate was 17%.", ["Customers | 17 | 16"], "number").passed
    quotes = ["Share of revenue was 53% of the total."]
    assert not answer_support("They sold 53 million units.", quotes, "number").passed


def test_a_quoted_scale_word_is_taken_as_written():
    quotes = ["The company recorded a charge of $10.2 billion."]
    assert answer_support("The charge was $10.2 billion.", quotes, "number").passed
    assert not answer_support("The charge was $10.2 million.", quotes, "number").passed


def test_a_negative_table_number_backs_its_magnitude():
    assert answer_support("It reported a loss of $43 million.", ["Other loss | (43) | 12"], "number").passed


def test_table_unit_cells_join_their_numbers():
    assert normalise_row("Margin | 72.4 | % | $ | 12 | 11.9 | pts | (2.7 | )") == "Margin | 72.4% | $12 | 11.9% | (2.7)"
    assert answer_support("Margin was 72.4%.", ["Margin | 72.4 | % | 60.5 | %"], "number").passed


def test_years_and_references_are_not_figures():
    quotes = ["Revenue | 5,000"]
    assert answer_support("Revenue was $5,000 million in fiscal 2024, as Note 9 explains.", quotes, "number").passed
    assert [f.text for f in claimed_figures("Two customers made up 17% on June 30, 2024.")] == ["17%"]


def test_refusals():
    assert answer_support("The filings do not disclose unit sales.", [], "refusal").reason == "refusal states no figure"
    quotes = ["Sales outside the home market were 53% of the total."]
    assert answer_support("Not disclosed; sales abroad were 53% of the total.", quotes, "refusal").passed
    assert not answer_support("Not disclosed; sales abroad were 61% of the total.", quotes, "refusal").passed


def test_direct_quotes_per_answer_figure():
    quotes = ["Revenue | 391,035 | 380,000", "Revenue, nine months | 296,105", "Revenue | 391,035"]
    answer = "$296,105 million, then $391,035 million, leaving $94,930 million."
    assert answer_figures_in_quotes(answer, quotes) == {0: {1}, 1: {0, 2}, 2: set()}
    assert [d.step for d in support_details(answer, quotes)] == [None, None, "391,035 - 296,105"]


# ---------------------------------------------------------------------------------------------- plain_english


def _words(n: int) -> str:
    return " ".join(["word"] * (n - 1) + ["end?"])


def test_question_length_limit():
    assert plain_english(_words(35), "Yes.").passed
    verdict = plain_english(_words(36), "Yes.")
    assert not verdict.passed and "36 words" in verdict.reason


def test_question_must_be_one_sentence():
    verdict = plain_english("What was revenue in fiscal 2024? Why did it rise?", "It rose.")
    assert not verdict.passed and "2 sentences" in verdict.reason
    assert plain_english("What were U.S. sales of Acme Inc. in fiscal 2024, about $1.9 billion?", "Yes.").passed


def test_answer_sentence_length_limit():
    short = " ".join(["Word"] + ["word"] * 28) + " end."
    assert plain_english("What happened?", short + " " + short).passed
    verdict = plain_english("What happened?", " ".join(["word"] * 30) + " end.")
    assert not verdict.passed and "31 words" in verdict.reason


def test_sentences_do_not_split_on_decimals_or_abbreviations():
    assert sentences("Sales were $1.9 billion in the U.S. and abroad. Costs fell.") == [
        "Sales were $1.9 billion in the U.S. and abroad.",
        "Costs fell.",
    ]


# ---------------------------------------------------------------------------------------------- period_named


@pytest.mark.parametrize(
    "question",
    [
        "What was revenue in fiscal 2024?",
        "What was revenue in fiscal year 2023?",
        "What was FY24 revenue?",
        "What was revenue in FY2024?",
        "What was revenue in Q3 2024?",
        "What was revenue in the second quarter of fiscal 2026?",
        "What was revenue for the nine months ended June 29, 2024?",
        "What cash was held on September 28, 2024?",
        "How much was repurchased in June 2024?",
        "How much was repurchased in 2024?",
    ],
)
def test_questions_naming_a_period_pass(question):
    assert period_named(question, "D1").passed


@pytest.mark.parametrize(
    "question",
    [
        "What powered growth in the networking business?",
        "Which debt did the company repay, including its 0.584% Notes Due 2024?",
        "What was revenue in the second quarter?",
    ],
)
def test_questions_without_a_period_fail(question):
    verdict = period_named(question, "D1")
    assert not verdict.passed and "no fiscal year" in verdict.reason


def test_absence_questions_are_excepted():
    assert period_named("How many units were sold?", "D8").reason == "D8 excepted"


# ---------------------------------------------------------------------------------------------- source_naming


@pytest.mark.parametrize(
    "question, phrase",
    [
        ("What does the 10-K say revenue was in fiscal 2024?", "10-K"),
        ("According to the annual report, what was revenue in fiscal 2024?", "According to the annual report"),
        ("How large were receivables on the balance sheet at the end of fiscal 2024?", "balance sheet"),
        ("What does Note 9 say about leases in fiscal 2024?", "Note 9"),
        ("What does the statement of cash flows show for fiscal 2024?", "statement of cash flows"),
        ("What did MD&A say about margins in fiscal 2024?", "MD&A"),
        ("Which Risk Factors mention supply in fiscal 2024?", "Risk Factors"),
        ("What did the original filing report for fiscal 2023?", "the original filing"),
        ("What does the footnote on inventory say for fiscal 2024?", "footnote"),
    ],
)
def test_questions_naming_their_source_fail(question, phrase):
    verdict = source_naming(question)
    assert not verdict.passed and repr(phrase) in verdict.reason


@pytest.mark.parametrize(
    "question",
    [
        "Which debt did the company repay in fiscal 2025, including its 0.584% Notes Due 2024?",
        "Which forward-looking statement about demand did the company make in fiscal 2024?",
        "What were net sales in fiscal 2024, and which risk factors weighed on them?",
        "What part of revenue came from services in fiscal 2024?",
    ],
)
def test_questions_not_naming_a_source_pass(question):
    assert source_naming(question).passed


# ---------------------------------------------------------------------------------------------- direction


@pytest.mark.parametrize(
    "answer, word",
    [
        ("Gross margin decreased from 69.3% to 71.1%.", "decreased"),
        ("Net income increased to $93,736 million from $96,995 million, as a $10.2 billion charge hit.", "increased"),
        ("Costs were $4.1 billion, up from $4.4 billion.", "up"),
        ("The rate was 12.5%, higher than 13.0%.", "higher"),
        ("Revenue of $8 million was lower compared with $7 million.", "lower"),
    ],
)
def test_direction_words_that_contradict_their_figures_fail(answer, word):
    verdict = direction("What changed in fiscal 2024?", answer)
    assert not verdict.passed and repr(word) in verdict.reason


@pytest.mark.parametrize(
    "answer",
    [
        "Revenue rose from $1.2 billion to $1.5 billion.",
        "Net income decreased to $93,736 million from $96,995 million.",
        "Costs were $4.4 billion, up from $4.1 billion; margins fell.",
        "The rate was 13.0%, higher than 12.5%.",
    ],
)
def test_direction_words_that_agree_pass(answer):
    verdict = direction("What changed in fiscal 2024?", answer)
    assert verdict.passed and "agree" in verdict.reason


@pytest.mark.parametrize(
    "answer",
    [
        "Revenue grew 51% driven by networking.",
        "Revenue increased $3 million from $10 million in fiscal 2023.",  # $3 million is the change, not the level
        "Revenue was more than $5 million compared with $6 million.",  # "more than" bounds the figure
        "Revenue was $5 million; costs fell.",
    ],
)
def test_no_direction_claim_between_two_figures(answer):
    assert direction("What changed in fiscal 2024?", answer).reason == "no direction claim between two figures"


def test_direction_reads_the_question_too():
    verdict = direction("Why did margin rise from 75.1% to 72.4% in fiscal 2024?", "Pricing.")
    assert not verdict.passed and verdict.reason.startswith("question")
