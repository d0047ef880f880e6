"""Per-question retrieval hits and IR metrics against the golden locations."""

from __future__ import annotations

from collections.abc import Iterable

from edgar_eval.evaluation.ir_metrics import ndcg_at_k, precision_at_k, recall_at_k, reciprocal_rank


def page_hit(filing_ids: Iterable[str], pages: Iterable[Iterable[str]], gold_pages: Iterable[str]) -> bool:
    """Whether the passages read (each one's filing and the pages it spans) span a gold page ("filing#page")."""
    read = {f"{filing_id}#{page}" for filing_id, spanned in zip(filing_ids, pages) for page in spanned}
    return bool(read & set(gold_pages))


def chance_of_hit(pool: int, hits: int, depth: int) -> float:
    """The probability that a random ranking of `pool` chunks, `hits` of which count as a hit, puts at least one hit
    in its top `depth`: 1 - C(pool - hits, depth) / C(pool, depth), the floor a retriever's hit rate stands on (in a
    one-filing scope where the figure is printed on many pages, it is high)."""
    if hits <= 0 or pool <= 0:
        return 0.0
    depth = min(depth, pool)
    miss = 1.0
    for i in range(depth):
        miss *= max(pool - hits - i, 0) / (pool - i)
        if miss == 0.0:
            break
    return 1.0 - miss


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
    spans = zip(retrieved_filing_ids, retrieved_pages)
    read = {f"{filing_id}#{page}" for filing_id, spanned in spans for page in spanned}
    return {
        "document_hit": bool(set(retrieved_filing_ids) & set(gold_filing_ids)),
        "page_hit": page_hit(retrieved_filing_ids, retrieved_pages, gold_pages),
        "chunk_hit": first > 0,
        "first_gold_rank": first,
        # per evidence filing: how many of the gold's filings a passage read spans a gold page of (a two-document
        # question needs both)
        "evidence_found": len({page.split("#", 1)[0] for page in read & set(gold_pages)}),
        "evidence_filings": len(set(gold_filing_ids)),
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
