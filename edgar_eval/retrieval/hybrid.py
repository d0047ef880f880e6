"""Reciprocal rank fusion (RRF) of the dense and the BM25 rankings.

Each retriever is searched to the same depth K as the fusion returns, so its top K is the candidate pool; a
chunk's fused score is the sum over the rankings that hold it of 1 / (rrf_k + rank), rank counted from 1. The
fusion is ordered on the exact rational scores (whole numbers over one common denominator), ties broken by chunk
row, so float rounding cannot reorder or tie two chunks; the Hit carries the fused score as a float. Because the
pool grows with K, the top 30 of a K=50 fusion need not be the K=30 result: a chunk ranked 40th by both retrievers
can outscore one that only a single retriever ranks first.
"""

from __future__ import annotations

import math
from typing import Protocol, Sequence

import numpy as np

from edgar_eval.retrieval.bm25 import BM25Index
from edgar_eval.retrieval.dense import DenseIndex, Hit

RRF_K = 60


def rrf_fuse(rankings: Sequence[Sequence[Hit]], k: int, rrf_k: int = RRF_K) -> list[Hit]:
    """Top k rows of the reciprocal rank fusion of `rankings` (each a list of Hits with ranks from 1)."""
    if rrf_k < 0:
        raise ValueError(f"rrf_k must not be negative, got {rrf_k}")
    for ranking in rankings:
        rows = [hit.row for hit in ranking]
        if len(set(rows)) != len(rows):
            raise ValueError("a ranking holds the same chunk row twice")
        below = next((hit.rank for hit in ranking if hit.rank < 1), None)
        if below is not None:
            raise ValueError(f"ranks count from 1, got {below}")
    # The exact rational scores as whole numbers over one common denominator (the least common multiple of every
    # rrf_k + rank present): they order and tie exactly as the fractions do, at the cost of integer comparisons
    # (Fraction's were most of a fusion's time), and n / whole is the same correctly rounded float as the fraction's.
    whole = math.lcm(*{rrf_k + hit.rank for ranking in rankings for hit in ranking})
    fused: dict[int, int] = {}
    for ranking in rankings:
        for hit in ranking:
            fused[hit.row] = fused.get(hit.row, 0) + whole // (rrf_k + hit.rank)
    order = sorted(fused, key=lambda row: (-fused[row], row))[: max(k, 0)]
    return [Hit(row, fused[row] / whole, rank) for rank, row in enumerate(order, start=1)]


class _DenseSearch(Protocol):
    filing_ids: np.ndarray

    def search(self, query: np.ndarray, scope: list[str], k: int) -> list[Hit]: ...


class _LexicalSearch(Protocol):
    filing_ids: np.ndarray

    def search(self, query: str, scope: list[str], k: int) -> list[Hit]: ...


class HybridRetriever:
    """Dense + BM25 over the same chunk rows, fused by RRF."""

    def __init__(self, dense: DenseIndex | _DenseSearch, bm25: BM25Index | _LexicalSearch, rrf_k: int = RRF_K) -> None:
        if not np.array_equal(np.asarray(dense.filing_ids, dtype=object), np.asarray(bm25.filing_ids, dtype=object)):
            raise ValueError("the dense and BM25 indexes do not hold the same chunk rows")
        self.dense = dense
        self.bm25 = bm25
        self.rrf_k = rrf_k

    def search(self, query_vector: np.ndarray, query_text: str, scope: list[str], k: int) -> list[Hit]:
        """Top k fused chunks of the filings in `scope`; both pools are searched k deep."""
        if k <= 0:
            return []
        return rrf_fuse(
            [self.dense.search(query_vector, scope, k), self.bm25.search(query_text, scope, k)], k, self.rrf_k
        )
