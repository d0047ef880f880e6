"""Per-question retrieval hits against the golden locations."""

from __future__ import annotations


def hit_record(retrieved_chunk_ids: list[str], retrieved_filing_ids: list[str], retrieved_pages: list[list[str]],
               gold_chunk_ids: list[str], gold_filing_ids: list[str], gold_pages: list[str]) -> dict:
    gold_chunks = set(gold_chunk_ids)
    first = next((rank for rank, c in enumerate(retrieved_chunk_ids, start=1) if c in gold_chunks), 0)
    retrieved_page_keys = {f"{f}#{p}" for f, pages in zip(retrieved_filing_ids, retrieved_pages) for p in pages}
    return {
        "document_hit": bool(set(retrieved_filing_ids) & set(gold_filing_ids)),
        "page_hit": bool(retrieved_page_keys & set(gold_pages)),
        "chunk_hit": first > 0,
        "first_gold_rank": first,
    }
