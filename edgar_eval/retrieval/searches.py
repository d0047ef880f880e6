"""The three retrievers over one set of chunk rows, by name: dense (exact cosine), BM25 (bm25s), hybrid (their RRF)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from edgar_eval.retrieval.bm25 import BM25Index, ChunkTokens
from edgar_eval.retrieval.dense import DenseIndex, Hit
from edgar_eval.retrieval.hybrid import HybridRetriever

RETRIEVERS = ("dense", "bm25", "hybrid")
Search = Callable[[np.ndarray, str, list[str], int], list[Hit]]  # (query vector, query text, scope, k) -> hits


def searches(
    index_rows: pd.DataFrame,
    dense: DenseIndex,
    rrf_k: int,
    wanted: tuple[str, ...] = RETRIEVERS,
    tokens: ChunkTokens | None = None,
) -> dict[str, Search]:
    """The wanted retrievers over the same chunk rows: dense (exact cosine), BM25 (bm25s) and hybrid (their RRF).
    The BM25 index is built only when one of them needs it; from `tokens` (a tokenisation of these rows' chunks among
    others) when given, the same index without tokenising the texts again."""
    found: dict[str, Search] = {}
    if "dense" in wanted:
        found["dense"] = lambda vector, text, scope, k: dense.search(vector, scope, k)
    if {"bm25", "hybrid"} & set(wanted):
        filing_ids = index_rows.filing_id.tolist()
        lexical = (
            BM25Index.build(index_rows.text.tolist(), filing_ids)
            if tokens is None
            else tokens.index(index_rows.chunk_id.tolist(), filing_ids)
        )
        if "bm25" in wanted:
            found["bm25"] = lambda vector, text, scope, k: lexical.search(text, scope, k)
        if "hybrid" in wanted:
            found["hybrid"] = HybridRetriever(dense, lexical, rrf_k=rrf_k).search
    return found
