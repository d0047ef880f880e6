"""Table-chunk expansion on filing texts built here: what a passage reaches, what it opens with, where it stops, and
the measurement's figures (page hit, gold row read, characters read) before and after."""

import pandas as pd

from edgar_eval.answering.table_expansion import FilingTables
from edgar_eval.corpus.chunking import chunk_filing
from edgar_eval.corpus.table_headers import header_context
from edgar_eval.evaluation.search_scopes import ScopedCase
from edgar_eval.evaluation.summaries import expansion_statistics
from edgar_eval.evaluation.table_expansion import EXPANSION_COLUMNS, expansion_frame, expansion_runs

PROSE = "The Company designs and sells hardware. Revenue grew in every segment over the year.\n" * 4
SCALE = "(In millions)\n"
HEADER = "| Years ended | 2024 | 2023 |\n"
ROWS = [f"| Line item {n:02d} | {1000 + n:,} | {900 + n:,} |\n" for n in range(12)]
AFTER = "Liquidity remained strong and the Company met its obligations.\n" * 3
TEXT = PROSE + SCALE + HEADER + "".join(ROWS) + AFTER
TABLE_START = len(PROSE) + len(SCALE)


def _row_start(n: int) -> int:
    return TABLE_START + len(HEADER) + sum(len(r) for r in ROWS[:n])


def test_a_prose_chunk_is_read_as_it_is():
    tables = FilingTables(TEXT)
    chunk_text = TEXT[10:200]
    expansion = tables.expand(10, 200, chunk_text, rows=3)
    assert (expansion.start, expansion.end, expansion.text, expansion.expanded) == (10, 200, chunk_text, False)


def test_an_end_inside_a_table_reaches_that_many_rows_further():
    tables = FilingTables(TEXT)
    end = _row_start(4) + 5  # cuts row 4 after five characters
    expansion = tables.expand(0, end, TEXT[:end], rows=3)
    assert expansion.expanded
    assert expansion.end == _row_start(8) - 1, "row 4, cut, is completed, then rows 5, 6 and 7"
    assert ROWS[7].strip() in expansion.text and ROWS[8].strip() not in expansion.text
    assert expansion.start == 0 and expansion.text.startswith(PROSE), "its start lies in prose: unchanged"


def test_a_start_inside_a_table_body_reaches_up_and_opens_with_the_header():
    tables = FilingTables(TEXT)
    start = _row_start(7) + 4
    end = len(TEXT) - 5  # ends in the prose after the table
    stored = header_context(TEXT, start) + TEXT[start:end]
    expansion = tables.expand(start, end, stored, rows=3)
    assert expansion.start == _row_start(4), "rows 4, 5 and 6 above the cut row 7"
    assert expansion.text.startswith(SCALE + HEADER + ROWS[4]), "the scale line and the header rows open it"
    assert expansion.end == end


def test_the_expansion_never_leaves_its_table():
    tables = FilingTables(TEXT)
    start, end = _row_start(1) + 2, _row_start(10) + 3
    expansion = tables.expand(start, end, TEXT[start:end], rows=5)
    assert expansion.start == TABLE_START, "stopped at the header row, the table's first line"
    assert expansion.text.startswith(SCALE + HEADER), "the header is in the text; the scale line is put above it"
    assert expansion.text.count(HEADER) == 1
    assert expansion.end == _row_start(12) - 1, "stopped at the last row"
    assert "Liquidity" not in expansion.text


def test_zero_rows_is_off():
    tables = FilingTables(TEXT)
    start, end = _row_start(3), _row_start(5) + 3
    assert not tables.expand(start, end, TEXT[start:end], rows=0).expanded


def _index(text: str, size: int, overlap: int, pages: list[tuple[int, int]]) -> tuple[pd.DataFrame, pd.DataFrame]:
    from edgar_eval.domain.filings import Page, Section

    page_list = [Page(i, s, e, str(i + 1)) for i, (s, e) in enumerate(pages)]
    chunks = chunk_filing("f1", text, [Section("II", "8", "Statements", 0, len(text))], page_list, size, overlap)
    index_rows = pd.DataFrame(
        [
            {"chunk_id": c.chunk_id, "filing_id": c.filing_id, "start": c.start, "end": c.end, "text": c.text}
            | {"pages": list(c.pages)}
            for c in chunks
        ]
    )
    texts = pd.DataFrame(
        [
            {
                "filing_id": "f1",
                "text": text,
                "page_starts": [s for s, _ in pages],
                "page_ends": [e for _, e in pages],
                "printed_pages": [str(i + 1) for i in range(len(pages))],
            }
        ]
    )
    return index_rows, texts


def test_the_measurement_pairs_what_is_read_both_ways():
    # the table runs onto page 2; the question's row (row 9) lies past the first chunk's end, on page 2
    page_break = _row_start(8)
    index_rows, texts = _index(
        TEXT, size=_row_start(6) + 10, overlap=0, pages=[(0, page_break), (page_break, len(TEXT))]
    )
    first = index_rows.chunk_id.iloc[0]
    assert ROWS[9].strip() not in index_rows.text.iloc[0]
    case = ScopedCase("q1", "What was line item 09 in 2024?", "company_year", "answer", ["f1"], [], ["f1"], ["f1#2"])
    ranked = pd.DataFrame(
        [{"question_id": "q1", "search_scope": "company_year", "k": 2, "chunk_ids": [first], "error": None}]
    )
    reranked = pd.DataFrame(columns=["question_id", "search_scope", "candidates", "kept", "kept_chunk_ids"])
    quotes = pd.Series({"q1": ROWS[9].strip()})

    def measured(rows: int) -> pd.DataFrame:
        runs = expansion_runs(rows, [(2, 1)], ranked, reranked, index_rows, texts, quotes, [case])
        return expansion_frame(runs)

    frame = measured(4)
    assert list(frame.columns) == EXPANSION_COLUMNS and len(frame) == 1, "the retriever's order only: no rerank rows"
    row = frame.iloc[0]
    assert (row.page_hit_plain, row.page_hit_expanded) == (False, True), "the expansion reached page 2"
    assert (row.row_read_plain, row.row_read_expanded) == (False, True)
    assert row.chars_expanded > row.chars_plain and row.passages_expanded == 1
    short = measured(1).iloc[0]
    assert not short.row_read_expanded, "one row further does not reach row 9"
    assert measured(0).empty, "0 rows: the expansion is off"

    stats = expansion_statistics(frame)
    assert stats.iloc[0][["page_hits_plain", "page_hits_expanded", "gained", "lost"]].tolist() == [0, 1, 1, 0]
    assert stats.iloc[0][["rows_read_plain", "rows_read_expanded"]].tolist() == [0, 1]
