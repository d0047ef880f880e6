"""Quote verification (gate 1 of the golden pipeline) on small synthetic filings."""

import pytest

from edgar_eval.golden.quotes import QuoteIndex, is_table_row_quote, normalise_quote, row_cells

ACME_10K = (
    "ACME WIDGETS INC.\n"
    "Net revenue rose 12% in fiscal 2024, driven by  higher unit volumes\n"
    "of industrial widgets and the company’s “premium” line.\n"
    "| Fiscal Year |\n"
    "| 2024 | 2023 |\n"
    "| Net revenue | $ | 1,234 | $ | 1,102 |\n"
    "| Cost of revenue | (643) | (590) |\n"
    "| Gross margin | 47.9 | % | 46.5 | % |\n"
    "| Change in margin | (8) | % | 1.4 | pts |\n"
    "| Operating income | $ 210 | $ 187 | — |\n"
    "Operating expenses were flat.\n"
)
ACME_10Q = (
    "ACME WIDGETS INC. QUARTERLY REPORT\n"
    "Risk factors are described in our annual report.\n"
    "| Net revenue | 310 | 298 |\n"
    "| Gross margin | 48.1% | 47.0% |\n"
    "Operating expenses were flat.\n"
)
BOLT_10K = "BOLT CORP.\nRisk factors are described in our annual report.\n| Revenue | $ | 99 | $ | 88 |\n"
TEXTS = {"acme-10k": ACME_10K, "acme-10q": ACME_10Q, "bolt-10k": BOLT_10K}
ORDER = ["acme-10k", "acme-10q", "bolt-10k"]


@pytest.fixture(scope="module")
def index():
    return QuoteIndex(TEXTS, ORDER)


def shown(match):
    return TEXTS[match.location.filing_id][match.location.start : match.location.end]


def test_normalise_quote_collapses_whitespace_and_straightens_quotation_marks():
    assert normalise_quote("  the company’s\n “premium”\tline ") == 'the company\'s "premium" line'
    assert normalise_quote("a — b (43)") == "a — b (43)", "dashes and parentheses are left alone"
    assert is_table_row_quote("Net revenue | 1,234") and not is_table_row_quote("Net revenue rose")


def test_row_cells_canonical_form():
    assert row_cells("| Net revenue | $ | 1,234 | $ | 1,102 |") == ("Net revenue", "1,234", "1,102")
    assert row_cells("Change | (8) | % | 1.4 | pts") == ("Change", "(8)%", "1.4pts")
    assert row_cells("Change | (8)% | 1.4 pts") == ("Change", "(8)%", "1.4pts")
    assert row_cells("Loss | $ (43 | ) | US$ 7 | € 5 | £ | 6 | 2.5 | x") == ("Loss", "(43)", "7", "5", "6", "2.5x")
    assert row_cells("| $ | |") == ()


def test_prose_quote_found_exactly_with_original_offsets(index):
    match = index.find("Operating expenses were flat.", prefer="acme-10k")
    assert match.found and match.reason == ""
    assert match.location.filing_id == "acme-10k" and not match.location.is_table_row
    assert shown(match) == "Operating expenses were flat."
    assert match.documents == ("acme-10k", "acme-10q")


def test_prose_quote_normalised_for_whitespace_and_curly_quotes(index):
    quote = 'driven by higher unit volumes of industrial widgets and the company\'s "premium" line.'
    match = index.find(quote)
    assert match.found and match.documents == ("acme-10k",)
    # The span in the original runs over the double space, the line break and the curly marks.
    assert shown(match) == "driven by  higher unit volumes\nof industrial widgets and the company’s “premium” line."


def test_one_word_changed_is_not_found_with_a_reason(index):
    match = index.find("Net revenue rose 13% in fiscal 2024")
    assert not match.found and match.location is None and match.documents == ()
    assert "quote not found in the corpus" in match.reason and "'13%'" in match.reason


def test_paraphrase_is_not_found(index):
    match = index.find("Revenue grew 12% in 2024 because more industrial widgets were sold.")
    assert not match.found and "quote not found in the corpus" in match.reason


def test_row_quote_without_currency_cells_matches_a_row_that_prints_them(index):
    match = index.find("Net revenue | 1,234 | 1,102")
    assert match.found and match.location.is_table_row
    assert shown(match) == "| Net revenue | $ | 1,234 | $ | 1,102 |"


def test_row_quote_with_currency_cells_matches_a_row_without_them(index):
    match = index.find("| Net revenue | $ | 310 | $ | 298 |")
    assert match.found and match.location.filing_id == "acme-10q"
    assert shown(match) == "| Net revenue | 310 | 298 |"
    # A sign glued to the number in the text compares equal to a separate "$" cell in the quote.
    assert index.find("Operating income | $ | 210 | $ | 187 | —").found


def test_percent_in_its_own_cell_equals_percent_glued_to_the_number(index):
    assert index.find("Change in margin | (8)% | 1.4pts").found
    assert index.find("Gross margin | 48.1 | % | 47.0 | %").location.filing_id == "acme-10q"
    assert index.find("Gross margin | 47.9% | 46.5%").location.filing_id == "acme-10k"


def test_cells_from_two_rows_are_not_found(index):
    match = index.find("Net revenue | 1,234 | (643)")
    assert not match.found
    assert "row cells not found in order within one table row" in match.reason


def test_cells_out_of_order_are_not_found(index):
    assert not index.find("Net revenue | 1,102 | 1,234").found


def test_non_contiguous_cells_of_a_row_are_not_found(index):
    assert not index.find("Net revenue | 1,102").found, "1,234 is skipped"
    assert index.find("1,234 | 1,102").found, "a contiguous run need not start at the label"


def test_row_cells_must_be_whole_cells(index):
    assert not index.find("Net revenue | 1,23").found
    assert not index.find("revenue | 1,234").found


def test_document_resolved_by_search_when_the_label_is_wrong(index):
    match = index.find("Revenue | 99 | 88", prefer="acme-10k")
    assert match.found and match.location.filing_id == "bolt-10k" and match.documents == ("bolt-10k",)


def test_prefer_honoured_when_the_quote_is_in_two_filings(index):
    quote = "Risk factors are described in our annual report."
    assert index.find(quote).location.filing_id == "acme-10q", "first filing in index order"
    preferred = index.find(quote, prefer="bolt-10k")
    assert preferred.location.filing_id == "bolt-10k" and shown(preferred) == quote
    assert preferred.documents == ("acme-10q", "bolt-10k")
    assert index.find(quote, prefer="no-such-filing").location.filing_id == "acme-10q"


def test_within_restricts_the_search(index):
    quote = "Risk factors are described in our annual report."
    match = index.find(quote, within={"bolt-10k"})
    assert match.documents == ("bolt-10k",) and match.location.filing_id == "bolt-10k"
    assert not index.find("Revenue | 99 | 88", within=["acme-10k", "acme-10q"]).found


def test_location_is_the_first_occurrence_and_occurrences_lists_all():
    text = "Sales were flat.\n| Sales | 5 | 6 |\nSales were flat.\n| Units | 1 |\n| Sales | $ | 5 | $ | 6 |\n"
    index = QuoteIndex({"f": text})
    prose = index.occurrences("Sales were flat.", "f")
    assert [text[o.start : o.end] for o in prose] == ["Sales were flat.", "Sales were flat."]
    assert index.find("Sales were flat.").location == prose[0]
    rows = index.occurrences("Sales | 5 | 6", "f")
    assert [text[o.start : o.end] for o in rows] == ["| Sales | 5 | 6 |", "| Sales | $ | 5 | $ | 6 |"]
    assert index.find("Sales | 5 | 6").location == rows[0]
    assert index.occurrences("Sales | 5 | 6", "unknown") == []


def test_prose_quote_cannot_match_across_a_table_row():
    text = "Revenue is discussed below.\n| Revenue | 10 |\nThe table shows revenue.\n"
    index = QuoteIndex({"f": text})
    assert not index.find("Revenue is discussed below. The table shows revenue.").found
    assert not index.find("Revenue 10 The table").found
    # A line break between two prose lines collapses to a space, so such a quote does match.
    index = QuoteIndex({"f": "Revenue is discussed\nbelow in detail.\n"})
    assert index.find("Revenue is discussed below").found


def test_prose_quote_within_one_cell_is_found(index):
    match = index.find("Cost of revenue")
    assert match.found and not match.location.is_table_row and shown(match) == "Cost of revenue"


@pytest.mark.parametrize("quote", ["", "   \n ", "| |", "| $ | $ |"])
def test_empty_quote(index, quote):
    match = index.find(quote)
    assert not match.found and match.reason == "empty quote" and match.documents == ()


def test_index_order_defaults_to_sorted_ids_and_rejects_unknown_ids():
    assert QuoteIndex({"b": "x\n", "a": "x\n"}).find("x").documents == ("a", "b")
    with pytest.raises(ValueError):
        QuoteIndex({"a": "x\n"}, order=["a", "z"])
