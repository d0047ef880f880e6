"""Fixed-size character chunks with overlap, each tied to its section and pages.

A chunk that starts inside a table's body carries that table's scale line and header rows above its own text, and the
start of the row it cuts (`table_headers`): without them no reader, model or person, can tell which column is which
year. Its offsets stay those of its own text, so gold chunks and pages are located as before."""

from __future__ import annotations

from edgar_eval.corpus.pages import page_label
from edgar_eval.corpus.table_headers import header_context
from edgar_eval.domain.filings import Chunk, Page, Section


def chunk_spans(length: int, size: int, overlap: int) -> list[tuple[int, int]]:
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError(f"chunk size {size} and overlap {overlap}: need size > overlap >= 0")
    step = size - overlap
    spans = []
    start = 0
    while start < length:
        end = min(start + size, length)
        spans.append((start, end))
        if end == length:
            break
        start += step
    return spans


def chunk_filing(
    filing_id: str,
    text: str,
    sections: list[Section],
    pages: list[Page],
    size: int,
    overlap: int,
    table_headers: bool = True,
) -> list[Chunk]:
    chunks = []
    for index, (start, end) in enumerate(chunk_spans(len(text), size, overlap)):
        # A chunk belongs to the section where most of it lies.
        best, best_overlap = None, 0
        for section in sections:
            shared = min(end, section.end) - max(start, section.start)
            if shared > best_overlap:
                best, best_overlap = section, shared
        spanned = [p for p in pages if p.start < end and p.end > start]
        chunks.append(
            Chunk(
                chunk_id=f"{filing_id}:{index:05d}",
                filing_id=filing_id,
                index=index,
                start=start,
                end=end,
                text=_with_header(text, start, end) if table_headers else text[start:end],
                section=best.key if best else "",
                pages=tuple(page_label(p) for p in spanned),
                page_starts=tuple(p.start for p in spanned),
            )
        )
    return chunks


def _with_header(text: str, start: int, end: int) -> str:
    return header_context(text, start) + text[start:end]
