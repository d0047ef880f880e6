from typing import cast

import lxml.etree as etree

from edgar_eval.corpus.pages import build_page_map, page_at, page_label
from edgar_eval.corpus.text import extract_text


def _text(body: str):
    root = etree.fromstring(f'<html xmlns="http://www.w3.org/1999/xhtml"><body>{body}</body></html>'.encode())
    return extract_text(root)


def test_table_rows_are_single_pipe_rows_without_spacer_cells():
    clean = _text(
        "<p>Before</p><table>"
        "<tr><td></td><td>2024</td><td></td><td>2023</td></tr>"
        "<tr><td>Total net<br/>sales</td><td>$</td><td>391,035</td><td "
        "style='width:1pt'>&#160;</td><td>$</td><td>383,285</td></tr>"
        "<tr><td> </td><td></td></tr>"
        "</table><p>After</p>"
    )
    assert clean.text == "Before\n| 2024 | 2023 |\n| Total net sales | $ | 391,035 | $ | 383,285 |\nAfter\n"


def test_hidden_content_is_dropped_and_whitespace_normalised():
    clean = _text(
        '<div style="display:none">secret header</div>'
        "<p>Net&#160;income   rose\n\n  sharply</p><p><span>Item</span> <span>7.</span> MD&amp;A</p>"
    )
    assert clean.text == "Net income rose sharply\nItem 7. MD&A\n"


def test_page_breaks_and_printed_page_numbers():
    clean = _text(
        "<p>Cover page</p><div style='page-break-after:always'></div>"
        "<p>Body one</p><p style='text-align:center'>1</p><hr style='page-break-after:always'/>"
        "<p>Body two</p><p>- 2 -</p><div style='break-before:page'></div><p>Appendix</p><p>F-3</p>"
    )
    pages = build_page_map(clean.text, clean.page_breaks)
    assert [p.printed for p in pages] == [None, "1", "2", "F-3"]
    assert [page_label(p) for p in pages] == ["p1", "1", "2", "F-3"]
    offset = clean.text.index("Body two")
    assert page_at(pages, offset).printed == "2"
    assert pages[0].start == 0 and pages[-1].end == len(clean.text)
    assert all(a.end == b.start for a, b in zip(pages, pages[1:]))


def test_plain_hr_marks_pages_only_when_the_document_has_no_styled_breaks():
    plain = _text("<p>One</p><p>1</p><hr/><p>Two</p><p>2</p>")
    assert len(build_page_map(plain.text, plain.page_breaks)) == 2
    styled = _text("<p>One</p><hr/><p>Still one</p><div style='page-break-before:always'></div><p>Two</p>")
    assert len(build_page_map(styled.text, styled.page_breaks)) == 2


def test_an_inline_text_block_closed_inside_a_div_it_opened_outside_keeps_the_rest_of_the_document():
    # libxml2's recovery closes the body at such a mismatch and drops everything after it; the parser mends the tag.
    import re

    from edgar_eval.corpus.parse import parse_filing
    from edgar_eval.synthetic.demo import generate_demo_corpus

    filings, _ = generate_demo_corpus()
    data = next(f.data for f in filings if f.form == "10-K")
    intact = parse_filing(data)
    context = cast(re.Match[bytes], re.search(rb'contextRef="([^"]+)"', data)).group(1)
    opening = b'<ix:nonNumeric name="us-gaap:IncomeTaxDisclosureTextBlock" contextRef="' + context + b'" escape="true">'
    first_div = data.index(b"<div", data.index(b"<body"))
    close_at = data.index(b"</div>", first_div)
    broken = data[:first_div] + opening + data[first_div:close_at] + b"</ix:nonNumeric>" + data[close_at:]
    parsed = parse_filing(broken)
    assert parsed.warnings and parsed.warnings[0].startswith(
        "repaired 2 mis-nested inline XBRL tag"
    )  # the stray close, then the open one
    assert parsed.text == intact.text
    assert len(parsed.facts) == len(intact.facts) + 1


def test_stored_pages_are_labelled_as_when_they_were_found():
    from edgar_eval.corpus.pages import page_label, stored_pages

    pages = stored_pages([0, 10, 25], [10, 25, 40], ["17", None, ""])
    assert [(p.index, p.start, p.end) for p in pages] == [(0, 0, 10), (1, 10, 25), (2, 25, 40)]
    assert [page_label(p) for p in pages] == ["17", "p2", "p3"], "no printed number: the page's position"
