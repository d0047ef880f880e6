from datetime import date
from typing import cast

import pytest

from edgar_eval.corpus.chunking import chunk_filing, chunk_spans
from edgar_eval.corpus.fiscal import fiscal_year_of, parse_fiscal_year_end, period_kind
from edgar_eval.domain.filings import Context, Page, Section


@pytest.mark.parametrize(
    "day, fye, expected",
    [
        (date(2024, 12, 31), "--12-31", 2024),
        (date(2025, 1, 26), "--01-26", 2025),  # NVIDIA-style: the year is named for its January end
        (date(2024, 1, 28), "--01-26", 2024),  # a 52/53-week year ending two days past the nominal date
        (date(2024, 5, 10), "--01-31", 2025),
        (date(2024, 9, 28), "--09-28", 2024),
        (date(2024, 10, 15), "--09-28", 2025),
        (date(2025, 5, 31), "--05-31", 2025),
        (date(2024, 3, 31), "--06-30", 2024),
        (date(2025, 2, 2), "--01-31", 2025),
    ],
)
def test_fiscal_year_is_named_for_the_year_it_ends(day, fye, expected):
    assert fiscal_year_of(day, cast(tuple[int, int], parse_fiscal_year_end(fye))) == expected


def test_period_kinds():
    assert period_kind(Context("a", date(2024, 1, 1), date(2024, 12, 31), False)) == "FY"
    assert period_kind(Context("b", date(2024, 7, 1), date(2024, 9, 30), False)) == "Q"
    assert period_kind(Context("c", date(2024, 1, 1), date(2024, 9, 30), False)) == "9M"
    assert period_kind(Context("d", None, date(2024, 9, 30), True)) == "instant"


def test_chunk_spans_cover_the_text_with_the_overlap():
    spans = chunk_spans(2500, 1000, 200)
    assert spans == [(0, 1000), (800, 1800), (1600, 2500)]
    with pytest.raises(ValueError):
        chunk_spans(100, 100, 100)


def test_any_figure_shorter_than_the_overlap_lies_whole_in_some_chunk():
    spans = chunk_spans(10_000, 1000, 200)
    for start in range(0, 10_000 - 150, 37):
        assert any(a <= start and start + 150 <= b for a, b in spans)


def test_chunks_carry_section_and_pages():
    text = "x" * 3000
    sections = [Section("Part I", "1", "Business", 0, 1200), Section("Part II", "7", "MD&A", 1200, 3000)]
    pages = [Page(0, 0, 900, None), Page(1, 900, 2000, "1"), Page(2, 2000, 3000, "2")]
    chunks = chunk_filing("f", text, sections, pages, 1000, 200)
    assert [c.section for c in chunks] == ["Part I Item 1", "Part II Item 7", "Part II Item 7", "Part II Item 7"]
    assert chunks[0].pages == ("p1", "1") and chunks[0].page_starts == (0, 900)
    assert chunks[1].chunk_id == "f:00001" and chunks[1].text == text[800:1800]


def test_a_chunk_that_starts_inside_a_table_carries_its_scale_line_and_header_rows():
    from edgar_eval.corpus.chunking import chunk_filing

    head = (
        "Statements of operations\n(In millions)\n| Three Months Ended | Six Months Ended |\n| Jul 27, 2025 | Jul "
        "28, 2024 | Jul 27, 2025 | Jul 28, 2024 |\n"
    )
    rows = "".join(f"| Line item {k} | {k},001 | {k},002 | {k},003 | {k},004 |\n" for k in range(1, 60))
    text = head + rows + "After the table.\n"
    chunks = chunk_filing("f", text, [], [], 400, 50)
    inside = [c for c in chunks[1:] if text[c.start - 1] == "\n" or text.rfind("\n", 0, c.start) >= len(head)]
    assert inside, "some chunk starts inside the table body"
    assert any(text[c.start - 1] != "\n" for c in inside), "some chunk starts in the middle of a row"
    for chunk in inside:
        if "After the table." in text[chunk.start : chunk.end] and not text[
            chunk.start : chunk.end
        ].lstrip().startswith("|"):
            continue
        assert chunk.text.startswith("(In millions)\n| Three Months Ended | Six Months Ended |\n| Jul 27, 2025"), (
            chunk.text[:80]
        )
        assert chunk.text.endswith(text[chunk.start : chunk.end])  # its own text, offsets unchanged
        first_row, own_first = chunk.text.splitlines()[3], text[chunk.start : chunk.end].split("\n")[0]
        assert first_row.startswith("| Line item ") and first_row.endswith(
            own_first
        )  # a row the chunk cuts reads whole
    assert chunks[0].text == text[chunks[0].start : chunks[0].end]  # the header is already in the first chunk
    plain = chunk_filing("f", text, [], [], 400, 50, table_headers=False)
    assert all(c.text == text[c.start : c.end] for c in plain)


def test_a_chunk_inside_a_table_without_figures_carries_no_header():
    from edgar_eval.corpus.table_headers import header_context

    contents = "".join(f"| Item {k}. | Heading number {k} |\n" for k in range(1, 30))
    offset = contents.index("| Item 20.") + 5
    assert header_context(contents, offset) == "| Ite"  # a contents list has no header: only the cut row's start
    statement = "(In millions)\n| Year Ended |\n| 2024 | 2023 |\n| Revenue | 10 | 9 |\n"
    cut = statement.index("Revenue") + 3
    assert header_context(statement, cut) == "(In millions)\n| Year Ended |\n| 2024 | 2023 |\n| Rev"
