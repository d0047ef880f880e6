from datetime import date
from typing import cast

import pytest

from edgar_eval.corpus.ixbrl import TransformError, fact_value, transform_number
from edgar_eval.corpus.parse import parse_filing
from edgar_eval_tests.conftest import DEI_HIDDEN, dei_cover, xhtml


@pytest.mark.parametrize(
    "shown, fmt, expected",
    [
        ("1,234", "ixt:num-dot-decimal", 1234.0),
        ("1,234.56", "ixt:num-dot-decimal", 1234.56),
        ("1.234,56", "ixt:num-comma-decimal", 1234.56),
        ("1 234,5", "ixt:num-comma-decimal", 1234.5),
        ("\u2014", "ixt:fixed-zero", 0.0),
        ("-", "ixt-sec:zerodash", 0.0),
        ("three", "ixt-sec:numwordsen", 3.0),
        ("twenty-one", "ixt-sec:numwordsen", 21.0),
        ("no", "ixt-sec:numwordsen", 0.0),
        ("42", None, 42.0),
    ],
)
def test_transforms_read_what_the_reader_sees(shown, fmt, expected):
    assert transform_number(shown, fmt) == expected


def test_unknown_format_and_digitless_text_are_errors_not_zero():
    with pytest.raises(TransformError):
        transform_number("12", "ixt:some-future-format")
    with pytest.raises(TransformError):
        transform_number("\u2014", "ixt:num-dot-decimal")


@pytest.mark.parametrize(
    "shown, scale, negative, expected",
    [
        ("1,234", 6, False, 1_234_000_000.0),
        ("1,234", 3, True, -1_234_000.0),
        ("0.53", 0, False, 0.53),
        ("12.5", -2, False, 0.125),  # percentages are tagged with scale -2
        ("2.1", 9, True, -2_100_000_000.0),
    ],
)
def test_scale_and_sign_apply_to_the_displayed_number(shown, scale, negative, expected):
    assert fact_value(shown, "ixt:num-dot-decimal", scale, negative) == pytest.approx(expected)


def test_facts_carry_value_period_dimensions_and_offset():
    body = dei_cover() + (
        "<table><tr><td>Revenue</td><td>$</td><td>"
        '<ix:nonFraction name="us-gaap:Revenues" contextRef="FY24" unitRef="usd" decimals="-6" scale="6" '
        'format="ixt:num-dot-decimal">1,980</ix:nonFraction>'
        "</td></tr><tr><td>Other income (expense)</td><td>$</td><td>("
        '<ix:nonFraction name="us-gaap:OtherNonoperatingIncomeExpense" contextRef="FY24" unitRef="usd" decimals="-6" '
        'scale="6" sign="-" format="ixt:num-dot-decimal">8</ix:nonFraction>'
        ")</td></tr><tr><td>Restructuring</td><td>"
        '<ix:nonFraction name="us-gaap:RestructuringCharges" contextRef="FY24" unitRef="usd" decimals="-6" scale="6" '
        'format="ixt:fixed-zero">\u2014</ix:nonFraction>'
        "</td></tr></table><p>Widgets revenue was $"
        '<ix:nonFraction name="us-gaap:Revenues" contextRef="FY24seg" unitRef="usd" decimals="-6" scale="6" '
        'format="ixt:num-dot-decimal">1,100</ix:nonFraction>'
        " million.</p>"
    )
    parsed = parse_filing(xhtml(body, hidden=DEI_HIDDEN))
    facts = {(f.concept, f.context.context_id): f for f in parsed.facts}
    revenue = facts[("us-gaap:Revenues", "FY24")]
    assert revenue.value == 1_980_000_000.0 and revenue.unit == "USD" and revenue.decimals == "-6"
    assert cast(date, revenue.context.period_start).isoformat() == "2024-01-01" and not revenue.context.is_instant
    assert facts[("us-gaap:OtherNonoperatingIncomeExpense", "FY24")].value == -8_000_000.0
    assert facts[("us-gaap:RestructuringCharges", "FY24")].value == 0.0
    segment = facts[("us-gaap:Revenues", "FY24seg")]
    assert segment.context.dimensions == (("us-gaap:StatementBusinessSegmentsAxis", "acme:WidgetsMember"),)
    for fact in parsed.facts:
        if fact.offset is not None:
            assert parsed.text[fact.offset : fact.end] == fact.displayed
    hidden = facts[("dei:EntityCentralIndexKey", "FY24")]
    assert hidden.offset is None, "hidden header facts are not in the clean text"
    assert parsed.meta.cik == "0000000042" and parsed.meta.form == "10-K" and parsed.meta.fiscal_year == 2024


def test_demo_corpus_facts_are_all_found_at_their_offsets(demo_parsed):
    for path, parsed in demo_parsed.items():
        located = [f for f in parsed.facts if f.offset is not None]
        assert located, path
        assert all(parsed.text[f.offset : f.end] == f.displayed for f in located), path


@pytest.mark.parametrize(
    "shown, fmt, expected",
    [
        ("September 28, 2024", "ixt:date-monthname-day-year-en", "2024-09-28"),
        ("December 31", "ixt:date-monthname-day-en", "--12-31"),
        ("January 2025", "ixt:date-monthname-year-en", "2025-01"),
        ("12/31", "ixt:date-month-day", "--12-31"),
        ("\u2612", "ixt-sec:boolballotbox", "true"),
        ("\u2610", "ixt-sec:boolballotbox", "false"),
        ("No", "ixt:fixed-false", "false"),
        ("3", "ixt-sec:duryear", "P3Y"),
        ("eighteen months", "ixt-sec:durwordsen", "P18M"),
        ("two", "ixt-sec:numwordsen", "2"),
        ("Nasdaq Global Select Market", "ixt-sec:exchnameen", "Nasdaq Global Select Market"),
        ("Apple Inc.", None, "Apple Inc."),
    ],
)
def test_text_facts_read_through_their_format(shown, fmt, expected):
    from edgar_eval.corpus.ixbrl import transform_text

    assert transform_text(shown, fmt) == expected
