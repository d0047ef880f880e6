"""The three retrievers over one set of chunk rows, by name: dense (exact cosine), BM25 (bm25s), hybrid (their RRF).

BM25's statistics (the number of chunks, each term's document count, the mean length) are those of the companies
whose filings a search reads: a search of one company's filings (the company_year and company scopes) ranks them by
that company's chunks alone, one of two companies' by the two's, and the corpus scope by every chunk. So a company's
rankings do not move when another company's filings change, and the evaluation of a company reads only its own
filings (docs/deployment.md, the evaluation sharded by company). The dense ranking reads only the query and the chunk.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import pandas as pd

from edgar_eval.retrieval.bm25 import BM25Index, ChunkTokens
from edgar_eval.retrieval.dense import DenseIndex, Hit
from edgar_eval.retrieval.hybrid import HybridRetriever
from edgar_eval.retrieval.scope import RecentScopes

RETRIEVERS = ("dense", "bm25", "hybrid")
Search = Callable[[np.ndarray, str, list[str], int], list[Hit]]  # (query vector, query text, scope, k) -> hits


class CompanyBM25:
    """BM25 over chunk rows, each search ranked by the statistics of the companies whose filings it reads: an index of
    those companies' rows is built on the first search that needs it (from `build`, given the rows), and its hits are
    given back as rows of all of them. A company's rows keep their order, so ties break as over the whole index."""

    def __init__(
        self, filing_ids: Sequence[str], ciks: Sequence[str], build: Callable[[np.ndarray], BM25Index]
    ) -> None:
        if len(filing_ids) != len(ciks):
            raise ValueError(f"{len(filing_ids)} chunk rows do not match {len(ciks)} companies")
        self.filing_ids = np.asarray(filing_ids, dtype=object)
        self._build = build
        self._company_of: dict[str, str] = dict(zip(map(str, filing_ids), map(str, ciks)))
        companies = np.asarray([str(cik) for cik in ciks], dtype=object)
        self._all = tuple(sorted(set(companies)))
        self._rows_of = {cik: np.flatnonzero(companies == cik) for cik in self._all}
        # one company's index, and the whole corpus's, are kept for the step; several companies' (a two-document
        # question's pair) for the last few pairs only
        self._kept: dict[tuple[str, ...], tuple[np.ndarray, BM25Index]] = {}
        self._recent: RecentScopes[tuple[np.ndarray, BM25Index]] = RecentScopes()

    def _index(self, companies: tuple[str, ...]) -> tuple[np.ndarray, BM25Index]:
        if len(companies) == 1 or companies == self._all:
            if companies not in self._kept:
                self._kept[companies] = self._of(companies)
            return self._kept[companies]
        return self._recent.get(companies, lambda: self._of(companies))

    def _of(self, companies: tuple[str, ...]) -> tuple[np.ndarray, BM25Index]:
        rows = np.sort(np.concatenate([self._rows_of[cik] for cik in companies]))
        return rows, self._build(rows)

    def search(self, query: str, scope: list[str], k: int) -> list[Hit]:
        """Top k chunks of the filings in `scope`, ranked by BM25 over the chunks of the companies that filed them."""
        companies = tuple(sorted({self._company_of[f] for f in scope if f in self._company_of}))
        if not companies or k <= 0:
            return []
        rows, index = self._index(companies)
        return [Hit(int(rows[hit.row]), hit.score, hit.rank) for hit in index.search(query, scope, k)]


def searches(
    index_rows: pd.DataFrame,
    dense: DenseIndex,
    rrf_k: int,
    wanted: tuple[str, ...] = RETRIEVERS,
    tokens: ChunkTokens | None = None,
) -> dict[str, Search]:
    """The wanted retrievers over the same chunk rows (filing_id, cik, chunk_id, text): dense (exact cosine), BM25
    (bm25s, by the searched companies' statistics: CompanyBM25) and hybrid (their RRF). A BM25 index is built only
    when a search needs it; from `tokens` (a tokenisation of these rows' chunks among others) when given, the same
    index without tokenising the texts again."""
    found: dict[str, Search] = {}
    if "dense" in wanted:
        found["dense"] = lambda vector, text, scope, k: dense.search(vector, scope, k)
    if {"bm25", "hybrid"} & set(wanted):
        filing_ids = index_rows.filing_id.to_numpy()
        chunk_ids, texts = index_rows.chunk_id.to_numpy(), index_rows.text.to_numpy()

        def build(rows: np.ndarray) -> BM25Index:
            if tokens is None:
                return BM25Index.build(texts[rows].tolist(), filing_ids[rows].tolist())
            return tokens.index(chunk_ids[rows].tolist(), filing_ids[rows].tolist())

        lexical = CompanyBM25(filing_ids.tolist(), index_rows.cik.astype(str).tolist(), build)
        if "bm25" in wanted:
            found["bm25"] = lambda vector, text, scope, k: lexical.search(text, scope, k)
        if "hybrid" in wanted:
            found["hybrid"] = HybridRetriever(dense, lexical, rrf_k=rrf_k).search
    return found
