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
        ("None", "ixt-sec:numwordsen", 0.0),
        ("nil", "ixt-sec:numwordsen", 0.0),
        ("Nil", "ixt-sec:numwordsen", 0.0),
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


_BAD_DATE_CONTEXT = (
    '<xbrli:context id="Q3bad"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000042'
    "</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:instant>2024-13-45</xbrli:instant></xbrli:period>"
    "</xbrli:context>"
)


def _fact(
    name: str, fact_id: str, shown: str, context: str = "FY24", fmt: str = "ixt:num-dot-decimal", scale="6"
) -> str:
    return (
        f'<ix:nonFraction name="{name}" id="{fact_id}" contextRef="{context}" unitRef="usd" decimals="-6" '
        f'scale="{scale}" format="{fmt}">{shown}</ix:nonFraction>'
    )


def test_a_fact_that_cannot_be_read_is_dropped_with_its_reason_and_the_filing_kept():
    """An unseen 10-Q's one fact in words the reader does not know, or on a context whose date cannot be read, used
    to fail the whole filing; now each is dropped with its reason and every other fact is read."""
    from edgar_eval.corpus.tables import FACT_REJECTION_COLUMNS, fact_rejections_frame, facts_frame

    body = dei_cover("10-Q") + (
        "<p>Revenue was $" + _fact("us-gaap:Revenues", "f-rev", "1,980") + " million.</p>"
        "<p>We operate in "
        + _fact("us-gaap:NumberOfOperatingSegments", "f-seg", "several", fmt="ixt-sec:numwordsen")
        + " segments.</p><p>Cash was $"
        + _fact("us-gaap:Cash", "f-cash", "512", context="Q3bad")
        + " million.</p>"
    )
    parsed = parse_filing(xhtml(body, resources=_BAD_DATE_CONTEXT, hidden=DEI_HIDDEN))

    assert parsed.meta.form == "10-Q" and parsed.meta.cik == "0000000042"
    facts = {(f.concept, f.context.context_id): f for f in parsed.facts}
    assert facts[("us-gaap:Revenues", "FY24")].value == 1_980_000_000.0
    assert {"dei:DocumentType", "dei:EntityRegistrantName", "dei:EntityCentralIndexKey"} <= {c for c, _ in facts}
    assert not {"us-gaap:NumberOfOperatingSegments", "us-gaap:Cash"} & {c for c, _ in facts}
    dropped = {r.fact_id: r for r in parsed.rejected_facts}
    assert set(dropped) == {"f-seg", "f-cash"}
    words, date_ = dropped["f-seg"], dropped["f-cash"]
    assert (words.concept, words.context_id, words.displayed, words.format) == (
        "us-gaap:NumberOfOperatingSegments",
        "FY24",
        "several",
        "ixt-sec:numwordsen",
    )
    assert words.reason == "not a number word: 'several' in 'several'"
    assert (date_.concept, date_.context_id, date_.displayed) == ("us-gaap:Cash", "Q3bad", "512")
    assert date_.reason == "context 'Q3bad' has an unreadable date '2024-13-45'"
    assert parsed.warnings == (
        "dropped 2 fact(s) that could not be read (listed in fact_rejections); "
        "first: us-gaap:NumberOfOperatingSegments: not a number word: 'several' in 'several'",
    )

    table = fact_rejections_frame("acme-10q", "abc", parsed)
    assert list(table.columns) == FACT_REJECTION_COLUMNS
    assert table.fact_id.tolist() == ["f-seg", "f-cash"] and set(table.filing_id) == {"acme-10q"}
    assert not set(table.concept) & set(facts_frame("acme-10q", "abc", parsed).concept)


@pytest.mark.parametrize(
    "fact, reason",
    [
        (_fact("us-gaap:Revenues", "f-x", "12", fmt="ixt:num-some-future-format"), "unsupported number format"),
        (_fact("us-gaap:Revenues", "f-x", "\u2014"), "no digits in '\u2014'"),
        (_fact("us-gaap:Revenues", "f-x", "12", scale="x"), "unreadable scale 'x'"),
        (_fact("us-gaap:Revenues", "f-x", "12", scale="400"), "scale 400 is out of range"),
        (_fact("us-gaap:Revenues", "f-x", "12", context="nowhere"), "no context 'nowhere' in the document"),
        (
            '<ix:nonNumeric name="us-gaap:SegmentReportingPolicy" id="f-x" contextRef="Q3bad">Segments</ix:nonNumeric>',
            "context 'Q3bad' has an unreadable date",
        ),
    ],
)
def test_each_kind_of_unreadable_fact_is_dropped_alone(fact, reason):
    body = dei_cover() + "<p>Revenue was $" + _fact("us-gaap:Revenues", "f-rev", "1,980") + f" million; {fact}.</p>"
    parsed = parse_filing(xhtml(body, resources=_BAD_DATE_CONTEXT, hidden=DEI_HIDDEN))
    assert [r.fact_id for r in parsed.rejected_facts] == ["f-x"]
    assert reason in parsed.rejected_facts[0].reason
    assert [f.value for f in parsed.facts if f.concept == "us-gaap:Revenues"] == [1_980_000_000.0]


def test_a_filing_whose_form_cannot_be_read_still_fails_naming_the_fact_dropped():
    from edgar_eval.domain.filings import FilingError

    cover = dei_cover().replace(
        'name="dei:DocumentType" contextRef="FY24"', 'name="dei:DocumentType" contextRef="Q3bad"'
    )
    with pytest.raises(FilingError) as failed:
        parse_filing(xhtml(cover, resources=_BAD_DATE_CONTEXT, hidden=DEI_HIDDEN))
    assert str(failed.value) == (
        "no dei:DocumentType fact: cannot tell which form this is (dei facts that could not be read: "
        "dei:DocumentType: context 'Q3bad' has an unreadable date '2024-13-45')"
    )


def test_a_long_dropped_fact_keeps_only_the_start_of_what_it_shows():
    from edgar_eval.corpus.ixbrl import REJECTED_DISPLAYED_CHARACTERS

    shown = "several " * 100
    body = dei_cover() + "<p>" + _fact("acme:Widgets", "f-long", shown, fmt="ixt-sec:numwordsen") + "</p>"
    (dropped,) = parse_filing(xhtml(body, hidden=DEI_HIDDEN)).rejected_facts
    assert dropped.displayed == shown.strip()[:REJECTED_DISPLAYED_CHARACTERS]


def test_the_demo_corpus_drops_no_fact(demo_parsed):
    assert {path: parsed.rejected_facts for path, parsed in demo_parsed.items() if parsed.rejected_facts} == {}


def test_a_fact_displayed_as_nil_is_read_as_zero_only_where_its_transformation_reads_words():
    """Issue 60: facts shown as the word "nil" under ixt-sec:numwordsen were dropped as unreadable; the SEC's
    transformation reads "no", "none" and "nil" as zero. The same word under a digits format is still refused."""
    body = dei_cover("10-K") + (
        "<p>Shares repurchased: "
        + _fact("us-gaap:StockRepurchasedDuringPeriodShares", "f-nil", "nil", fmt="ixt-sec:numwordsen")
        + ".</p><p>Dividends declared: "
        + _fact("us-gaap:CommonStockDividendsPerShareDeclared", "f-none", "None", fmt="ixt-sec:numwordsen")
        + ".</p><p>Segments: "
        + _fact("us-gaap:NumberOfOperatingSegments", "f-digits", "nil", fmt="ixt:num-dot-decimal")
        + ".</p>"
    )
    parsed = parse_filing(xhtml(body, hidden=DEI_HIDDEN))
    values = {f.concept: f.value for f in parsed.facts}
    assert values["us-gaap:StockRepurchasedDuringPeriodShares"] == 0.0
    assert values["us-gaap:CommonStockDividendsPerShareDeclared"] == 0.0
    assert [r.fact_id for r in parsed.rejected_facts] == ["f-digits"]
