"""Table-chunk expansion, measured the way the rerank stage is: on the passages kept at each rerank cut, in the
retriever's order and in the reranker's, each read as it is and expanded (answering.table_expansion).

Three figures per question, both ways: page hit (a kept passage spans a gold page of the scope), whether the gold row
is read (the golden question's row, as its source filing prints it, lies whole inside a kept passage: the figure
with its label, which a page hit does not promise), and the characters read (the price of the expansion)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from typing import cast

import pandas as pd

from edgar_eval.answering.table_expansion import FilingTables
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.pages import page_label, stored_pages
from edgar_eval.evaluation.retrieval_hits import page_hit
from edgar_eval.evaluation.search_scopes import ScopedCase

ORDERS = ("retriever", "reranked")  # whose kept passages are read: the retriever's first ones, or the reranker's
EXPANSION_COLUMNS = [
    "question_id",
    "search_scope",
    "candidates",
    "kept",
    "order",
    "page_hit_plain",
    "page_hit_expanded",
    "row_read_plain",
    "row_read_expanded",
    "chars_plain",
    "chars_expanded",
    "passages_expanded",
    "expand_seconds",
]


class PassageReader:
    """Reads kept chunks as they are or expanded, with the pages each passage spans, from the index's chunks and the
    filings' texts."""

    def __init__(self, index_rows: pd.DataFrame, texts: pd.DataFrame, rows_each_way: int) -> None:
        self.chunks = index_rows.set_index("chunk_id")[["filing_id", "start", "end", "text", "pages"]]
        self.rows_each_way = rows_each_way
        # found once per filing, as an index would store them: the expansion's cost per question excludes it
        wanted = set(self.chunks.filing_id)
        self._tables = {
            str(row.filing_id): (
                FilingTables(str(row.text)),
                stored_pages(row.page_starts, row.page_ends, row.printed_pages),
            )
            for row in iter_rows(texts)
            if row.filing_id in wanted
        }

    def read(self, chunk_ids: Sequence[str], expand: bool) -> list[tuple[str, str, list[str], bool]]:
        """(filing id, text read, page labels spanned, whether it was expanded) per chunk, in order."""
        passages = []
        for chunk_id in chunk_ids:
            chunk = self.chunks.loc[chunk_id]
            filing_id = str(chunk.filing_id)
            if not expand:
                passages.append((filing_id, str(chunk.text), list(chunk.pages), False))
                continue
            tables, pages = self._tables[filing_id]
            expansion = tables.expand(int(chunk.start), int(chunk.end), str(chunk.text), self.rows_each_way)
            spanned = [page_label(p) for p in pages if p.start < expansion.end and p.end > expansion.start]
            passages.append((filing_id, expansion.text, spanned or list(chunk.pages), expansion.expanded))
        return passages


def _read_figures(passages, case: ScopedCase, gold_quote: str | None) -> dict:
    return {
        "page_hit": page_hit([p[0] for p in passages], [p[2] for p in passages], case.gold_pages),
        "row_read": bool(gold_quote) and any(gold_quote in text for _, text, _, _ in passages),
        "chars": sum(len(text) for _, text, _, _ in passages),
    }


def expansion_frame(rows: Iterable[dict]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=EXPANSION_COLUMNS)


def expansion_runs(
    rows_each_way: int,
    cuts: Sequence[tuple[int, int]],
    ranked: pd.DataFrame,
    reranked: pd.DataFrame,
    index_rows: pd.DataFrame,
    texts: pd.DataFrame,
    gold_quotes: pd.Series,
    cases: Iterable[ScopedCase],
) -> Iterator[dict]:
    """Per answerable case (`cases`) and cut: the kept passages in each order (`ranked`: the answerer's retriever's
    runs; `reranked`: reranked_retrievals), read as they are and expanded `rows_each_way` rows. Nothing when
    `rows_each_way` is 0 (the expansion is off)."""
    if rows_each_way <= 0:
        return
    reader = PassageReader(index_rows, texts, rows_each_way)
    by_case = {(case.question_id, case.search_scope): case for case in cases}
    found = cast(pd.DataFrame, ranked[ranked.error.isna()]).set_index(["question_id", "search_scope", "k"]).chunk_ids
    kept_after = reranked.set_index(["question_id", "search_scope", "candidates", "kept"]).kept_chunk_ids
    for candidates, kept in cuts:
        for question_id, search_scope in by_case:
            if (question_id, search_scope, candidates) not in found.index:
                continue
            case = by_case[(question_id, search_scope)]
            orders = {"retriever": list(found.loc[(question_id, search_scope, candidates)])[:kept]}
            if (question_id, search_scope, candidates, kept) in kept_after.index:
                orders["reranked"] = list(kept_after.loc[(question_id, search_scope, candidates, kept)])
            quote = gold_quotes.get(question_id)
            quote = str(quote) if isinstance(quote, str) else None
            for order, chunk_ids in orders.items():
                plain = _read_figures(reader.read(chunk_ids, expand=False), case, quote)
                started = time.perf_counter()
                passages = reader.read(chunk_ids, expand=True)
                seconds = time.perf_counter() - started
                expanded = _read_figures(passages, case, quote)
                yield {
                    "question_id": question_id,
                    "search_scope": search_scope,
                    "candidates": candidates,
                    "kept": kept,
                    "order": order,
                    **{f"{name}_plain": value for name, value in plain.items()},
                    **{f"{name}_expanded": value for name, value in expanded.items()},
                    "passages_expanded": sum(was_expanded for *_, was_expanded in passages),
                    "expand_seconds": seconds,
                }
