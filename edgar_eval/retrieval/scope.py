"""Which filings a request may search. The answerer searches one company's filings of the fiscal year asked
(`company_year`); the retrieval measurement also searches every filing of the company (`company`, as an assistant
filtered by owner searches) and the whole corpus (`corpus`, no filter)."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Generic, Hashable, Sequence, TypeVar

import numpy as np

Kept = TypeVar("Kept")


@dataclass(frozen=True)
class ScopedFiling:
    filing_id: str
    cik: str
    form: str
    fiscal_year: int


COMPANY_YEAR = "company_year"
COMPANY = "company"
CORPUS = "corpus"
SEARCH_SCOPES = (COMPANY_YEAR, COMPANY, CORPUS)  # narrowest first: the order reports list them in
SCOPE_WORDS = {
    COMPANY_YEAR: "the company's filings of the fiscal year asked",
    COMPANY: "every filing of the company",
    CORPUS: "every filing of the corpus",
}


def filings_of_scope(scope: str, filings: list[ScopedFiling], cik: str, fiscal_year: int | None) -> list[str]:
    """The filings a question about `cik` and `fiscal_year` searches in `scope` (one of SEARCH_SCOPES), sorted."""
    if scope == COMPANY_YEAR:
        return filings_in_scope(filings, cik, fiscal_year)
    if scope == COMPANY:
        return sorted(f.filing_id for f in filings if f.cik == cik)
    if scope == CORPUS:
        return sorted(f.filing_id for f in filings)
    raise ValueError(f"unknown search scope {scope!r}: one of {', '.join(SEARCH_SCOPES)}")


def filings_in_scope(filings: list[ScopedFiling], cik: str, fiscal_year: int | None) -> list[str]:
    """The company's filings of that fiscal year; with no year, or none filed for it, its latest annual report."""
    own = [f for f in filings if f.cik == cik]
    if fiscal_year is not None:
        same_year = sorted(f.filing_id for f in own if f.fiscal_year == fiscal_year)
        if same_year:
            return same_year
    annual = sorted((f for f in own if f.form == "10-K"), key=lambda f: (f.fiscal_year, f.filing_id))
    if annual:
        return [annual[-1].filing_id]
    latest = sorted(own, key=lambda f: (f.fiscal_year, f.filing_id))
    return [latest[-1].filing_id] if latest else []


class RowsByFiling:
    """The index rows of each filing, so a scoped search touches the rows of its scope only: its cost follows the
    scope (one company's filings of a year), not the corpus, which a corpus of thousands of filings needs (a mask over
    every row per question is quadratic in the corpus over a golden set that grows with it)."""

    def __init__(self, filing_ids: Sequence[str]) -> None:
        self._rows: dict[str, np.ndarray] = {}
        if len(filing_ids):
            names, inverse = np.unique(np.asarray(filing_ids, dtype=object), return_inverse=True)
            order = np.argsort(inverse, kind="stable")
            bounds = np.searchsorted(inverse[order], np.arange(len(names) + 1))
            self._rows = {str(name): order[bounds[i] : bounds[i + 1]] for i, name in enumerate(names)}

        self._recent: RecentScopes[np.ndarray] = RecentScopes()

    def rows(self, scope: Sequence[str]) -> np.ndarray:
        """The rows of the filings in `scope`, ascending (a filing the index does not hold adds none); read-only."""
        return self._recent.get(tuple(scope), lambda: self._rows_of(scope))

    def _rows_of(self, scope: Sequence[str]) -> np.ndarray:
        parts = [self._rows[f] for f in dict.fromkeys(scope) if f in self._rows]
        rows = np.sort(np.concatenate(parts)) if parts else np.empty(0, dtype=np.int64)
        rows.flags.writeable = False  # kept for the next search of the scope: no caller may change it
        return rows


class RecentScopes(Generic[Kept]):
    """What searches derive from a scope (its rows; their vectors or BM25 postings), kept for the last `size` scopes:
    the measurement searches one question's scope with each retriever at each depth in turn, so a scope comes back
    several times running, and deriving it again was a large part of a scoped search."""

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._kept: OrderedDict[Hashable, Kept] = OrderedDict()

    def get(self, scope: Hashable, derive: Callable[[], Kept]) -> Kept:
        if scope in self._kept:
            self._kept.move_to_end(scope)
            return self._kept[scope]
        kept = self._kept[scope] = derive()
        if len(self._kept) > self._size:
            self._kept.popitem(last=False)
        return kept
