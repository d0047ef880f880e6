from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgar_eval.corpus.number_words import find_number_phrases, number_to_words, words_to_number


@settings(max_examples=400, deadline=None)
@given(st.integers(min_value=0, max_value=10**12))
def test_every_whole_number_written_in_words_reads_back(n):
    assert words_to_number(number_to_words(n)) == n


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=10**12).filter(lambda n: n != 1))
def test_a_number_in_words_is_found_inside_a_sentence(n):
    words = number_to_words(n)
    sentence = f"The filing reports {words} units, as stated."
    (figure,) = find_number_phrases(sentence)
    assert figure.value == n and figure.in_words and figure.is_figure and not figure.is_percent
    assert figure.text == words and sentence[figure.start : figure.end] == words


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=10**12))
def test_a_number_in_digits_with_thousands_separators_is_found(n):
    sentence = f"Revenue was ${n:,} for the year."
    (figure,) = find_number_phrases(sentence)
    assert figure.value == n and figure.is_figure and figure.digits == f"{n:,}" and not figure.in_words


@pytest.mark.parametrize(
    "text, value",
    [
        ("twenty-three", 23),
        ("one hundred and five", 105),
        ("one point five billion", 1.5e9),
        ("One Point Two Five million", 1.25e6),
        ("3.2 million", 3.2e6),
        ("$1,234.5 million", 1_234.5e6),
        ("a billion", 1e9),
        ("a hundred and fifty", 150),
        ("two thousand twenty-four", 2024),
        ("one thousand and one", 1001),
        ("fifteen hundred", 1500),
        ("minus five", -5),
        ("negative twenty-one", -21),
        ("-3.5", -3.5),
        ("zero", 0),
        ("one", 1),
        ("twenty-four percent", 24),
    ],
)
def test_words_to_number_reads_the_phrases_of_the_brief(text, value):
    assert words_to_number(text) == pytest.approx(value, rel=1e-12, abs=0)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hundred",
        "thousand",
        "twenty twenty-four",
        "one two",
        "five point",
        "a",
        "two million three million",
        "revenue",
        "Note 9",
        "1.5x",
        "one point five billions",
    ],
)
def test_words_to_number_refuses_what_is_not_one_number(text):
    assert words_to_number(text) is None


def test_number_to_words_prints_american_style_and_refuses_out_of_range():
    assert number_to_words(105) == "one hundred five"
    assert number_to_words(2024) == "two thousand twenty-four"
    assert number_to_words(1_500_000_000) == "one billion five hundred million"
    assert number_to_words(10**15) == "one quadrillion"
    for bad in (-1, 10**15 + 1, 1.5, True):
        with pytest.raises(ValueError):
            number_to_words(cast(Any, bad))  # not an int in range, on purpose


def _shown(sentence):
    return [(f.text, f.value, f.kind, f.is_percent, f.scale_word) for f in find_number_phrases(sentence)]


def test_figures_in_digits_carry_value_percent_scale_and_digits():
    found = find_number_phrases("Revenue was $1,234.5 million, a loss of (1,234), margin 24.1% and EPS of 2.97.")
    assert [(f.text, f.value, f.is_percent, f.scale_word, f.digits, f.decimals) for f in found] == [
        ("$1,234.5 million", 1_234.5e6, False, "million", "1,234.5", 1),
        ("(1,234)", -1234.0, False, None, "1,234", 0),
        ("24.1%", 24.1, True, None, "24.1", 1),
        ("2.97", 2.97, False, None, "2.97", 2),
    ]
    assert [f.significant_digits for f in found] == [5, 4, 3, 3]
    assert found[0].half_unit == pytest.approx(50_000)


def test_figures_in_words_carry_their_scale_and_precision():
    (figure,) = find_number_phrases("Revenue reached one point five billion dollars.")
    assert (figure.value, figure.scale_word, figure.digits, figure.decimals) == (1.5e9, "billion", "1.5", 1)
    assert figure.half_unit == pytest.approx(5e7)
    assert _shown("Margin rose twenty-three percent.") == [("twenty-three percent", 23.0, "figure", True, None)]


def test_abbreviated_scales_signs_and_multiples():
    assert _shown("Cash of $1.9B, debt of $450M, a $3.2bn deal, -5, minus 7 million and 1.5x.") == [
        ("$1.9B", 1.9e9, "figure", False, "billion"),
        ("$450M", 450e6, "figure", False, "million"),
        ("$3.2bn", 3.2e9, "figure", False, "billion"),
        ("-5", -5.0, "figure", False, None),
        ("minus 7 million", -7e6, "figure", False, "million"),
        ("1.5x", 1.5, "figure", False, None),
    ]


def test_years_and_reference_numbers_are_labelled_not_figures():
    found = find_number_phrases(
        "In fiscal 2024 (see Note 9, page 45, Item 7, Item 7A, Exhibit 31.1 and Part II, Section 404), as of December "
        "31, "
        "2024, filed on Form 10-K, revenue was $5 million."
    )
    labelled = [(f.text, f.kind, f.reference_label) for f in found]
    assert labelled == [
        ("2024", "year", None),
        ("9", "reference", "note"),
        ("45", "reference", "page"),
        ("7", "reference", "item"),
        ("31.1", "reference", "exhibit"),
        ("404", "reference", "section"),
        ("31", "reference", "date"),
        ("2024", "year", None),
        ("10", "reference", "identifier"),
        ("$5 million", "figure", None),
    ]


def test_reference_lists_stop_at_a_quantity():
    found = find_number_phrases("See Notes 9 and 10 and pages 45-47; Note 3 and 12 million shares.")
    assert [(f.text, f.kind) for f in found] == [
        ("9", "reference"),
        ("10", "reference"),
        ("45", "reference"),
        ("47", "reference"),
        ("3", "reference"),
        ("12 million", "figure"),
    ]


def test_a_year_needs_to_stand_alone():
    assert [f.kind for f in find_number_phrases("In 2023 it paid $2024 and 2,024 units and 2024%.")] == [
        "year",
        "figure",
        "figure",
        "figure",
    ]


def test_a_lone_one_and_numbers_glued_to_letters_are_not_figures():
    assert find_number_phrases("One of our segments took a one-time charge in Q3 of FY2024 per P3 (the 1st).") == []
    assert _shown("One percent of one hundred stores.") == [
        ("One percent", 1.0, "figure", True, None),
        ("one hundred", 100.0, "figure", False, None),
    ]


def test_and_joins_only_a_last_group_under_a_hundred():
    assert [f.value for f in find_number_phrases("It hired twenty million and nine hundred people.")] == [20e6, 900]
    assert [f.value for f in find_number_phrases("One thousand and one nights, a million and fifty.")] == [
        1001,
        1_000_050,
    ]
    assert words_to_number("two thousand and three hundred") is None
