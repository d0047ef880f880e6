"""Per-question retrieval hits and IR metrics against the golden locations."""

from __future__ import annotations

from edgar_eval.evaluation.ir_metrics import ndcg_at_k, precision_at_k, recall_at_k, reciprocal_rank


def hit_record(
    retrieved_chunk_ids: list[str],
    retrieved_filing_ids: list[str],
    retrieved_pages: list[list[str]],
    gold_chunk_ids: list[str],
    gold_filing_ids: list[str],
    gold_pages: list[str],
) -> dict:
    gold_chunks = set(gold_chunk_ids)
    first = next((rank for rank, c in enumerate(retrieved_chunk_ids, start=1) if c in gold_chunks), 0)
    retrieved_page_keys = {f"{f}#{p}" for f, pages in zip(retrieved_filing_ids, retrieved_pages) for p in pages}
    return {
        "document_hit": bool(set(retrieved_filing_ids) & set(gold_filing_ids)),
        "page_hit": bool(retrieved_page_keys & set(gold_pages)),
        "chunk_hit": first > 0,
        "first_gold_rank": first,
    }


def run_record(
    retrieved_chunk_ids: list[str],
    retrieved_filing_ids: list[str],
    retrieved_pages: list[list[str]],
    gold_chunk_ids: list[str],
    gold_filing_ids: list[str],
    gold_pages: list[str],
    k: int,
) -> dict:
    """Hits at depth k and, for a question with gold chunks, recall@k, precision@k, reciprocal rank and nDCG@10."""
    record = hit_record(
        retrieved_chunk_ids, retrieved_filing_ids, retrieved_pages, gold_chunk_ids, gold_filing_ids, gold_pages
    )
    if gold_chunk_ids:
        ranked = list(dict.fromkeys(retrieved_chunk_ids))
        record.update(
            recall=recall_at_k(ranked, gold_chunk_ids, k),
            precision=precision_at_k(ranked, gold_chunk_ids, k),
            rr=reciprocal_rank(ranked, gold_chunk_ids, k),
            ndcg10=ndcg_at_k(ranked, gold_chunk_ids, 10),
        )
    else:
        record.update(recall=float("nan"), precision=float("nan"), rr=float("nan"), ndcg10=float("nan"))
    return record
