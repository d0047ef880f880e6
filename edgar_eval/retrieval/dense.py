"""Exact cosine search over L2-normalised chunk vectors."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edgar_eval.retrieval.scope import RecentScopes, RowsByFiling

# Scores are compared at this precision so that float noise in the last bits cannot reorder ties.
SCORE_DECIMALS = 6


@dataclass(frozen=True)
class Hit:
    row: int
    score: float
    rank: int


class DenseIndex:
    def __init__(self, vectors: np.ndarray, filing_ids: list[str]) -> None:
        if vectors.ndim != 2 or vectors.shape[0] != len(filing_ids):
            raise ValueError(f"vectors {vectors.shape} do not match {len(filing_ids)} chunk rows")
        self.vectors = vectors.astype(np.float32, copy=False)
        self.filing_ids = np.asarray(filing_ids, dtype=object)
        self._scope = RowsByFiling(filing_ids)
        self._scope_vectors: RecentScopes[np.ndarray] = RecentScopes()

    def cosines(self, query: np.ndarray, rows=None) -> np.ndarray:
        """The query's cosine with each of these chunk rows (None: every row, without copying the corpus's vectors),
        at the precision searches compare them."""
        vectors = self.vectors if rows is None else self.vectors[rows]
        return self._rounded(vectors, query)

    @staticmethod
    def _rounded(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
        return np.round(vectors @ query.astype(np.float32), SCORE_DECIMALS)

    def search(self, query: np.ndarray, scope: list[str], k: int) -> list[Hit]:
        """Top k chunks of the filings in `scope`; no other filing's chunk can come back."""
        allowed = self._scope.rows(scope)
        if allowed.size == 0:
            return []
        everything = allowed.size == len(self.vectors)  # the scope's rows are distinct and sorted: every row, in order
        if everything:
            scores = self._rounded(self.vectors, query)
        else:  # the scope's vectors cut out once for the searches of it that follow
            scores = self._rounded(self._scope_vectors.get(tuple(scope), lambda: self.vectors[allowed]), query)
        order = np.lexsort((allowed, -scores))[:k]
        return [Hit(int(allowed[i]), float(scores[i]), rank + 1) for rank, i in enumerate(order)]
