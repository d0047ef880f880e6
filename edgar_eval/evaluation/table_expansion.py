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
        # each chunk's fields by its id, as an index stores them: a row of a frame looked up per passage cost more
        # than expanding it
        columns = [index_rows[name].tolist() for name in ("filing_id", "start", "end", "text", "pages")]
        self._chunks = dict(zip(index_rows.chunk_id.tolist(), zip(*columns)))
        self.rows_each_way = rows_each_way
        # found once per filing, as an index would store them: the expansion's cost per question excludes it
        wanted = set(index_rows.filing_id)
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
            filing, start, end, text, chunk_pages = self._chunks[chunk_id]
            filing_id = str(filing)
            if not expand:
                passages.append((filing_id, str(text), list(chunk_pages), False))
                continue
            tables, pages = self._tables[filing_id]
            expansion = tables.expand(int(start), int(end), str(text), self.rows_each_way)
            spanned = [page_label(p) for p in pages if p.start < expansion.end and p.end > expansion.start]
            passages.append((filing_id, expansion.text, spanned or list(chunk_pages), expansion.expanded))
        return passages


def _read_figures(passages, case: ScopedCase, gold_quote: str | None) -> dict:
    return {
        "page_hit": page_hit([p[0] for p in passages], [p[2] for p in passages], case.gold_pages),
        "row_read": bool(gold_quote) and any(gold_quote in text for _, text, _, _ in passages),
        "chars": sum(len(text) for _, text, _, _ in passages),
    }


def expansion_frame(rows: Iterable[dict]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=EXPANSION_COLUMNS)


def _by_key(frame: pd.DataFrame, keys: list[str], column: str) -> dict[tuple, Sequence[str]]:
    """`column` of each row by its `keys`, which name one row each."""
    found = dict(zip(zip(*(frame[key].tolist() for key in keys)), frame[column].tolist()))
    if len(found) != len(frame):
        raise ValueError(f"{', '.join(keys)} name more than one row of {column}")
    return found


def expansion_runs(
    rows_each_way: int,
    cuts: Sequence[tuple[int, int]],
    ranked: pd.DataFrame,
    reranked: pd.DataFrame,
    index_rows: pd.DataFrame,
    texts: pd.DataFrame,
    gold_quotes: pd.Series,
    cases: Iterable[ScopedCase],
    reader: PassageReader | None = None,
) -> Iterator[dict]:
    """Per answerable case (`cases`) and cut: the kept passages in each order (`ranked`: the answerer's retriever's
    runs; `reranked`: reranked_retrievals), read as they are and expanded `rows_each_way` rows. Nothing when
    `rows_each_way` is 0 (the expansion is off). `reader`: the PassageReader of `index_rows` and `texts` at
    `rows_each_way`, when the caller reads several sets of cases over them (a step's shards: finding every filing's
    tables is the reader's cost, once)."""
    if rows_each_way <= 0:
        return
    reader = reader or PassageReader(index_rows, texts, rows_each_way)
    by_case = {(case.question_id, case.search_scope): case for case in cases}
    searched = cast(pd.DataFrame, ranked[ranked.error.isna()])
    found = _by_key(searched, ["question_id", "search_scope", "k"], "chunk_ids")
    kept_after = _by_key(reranked, ["question_id", "search_scope", "candidates", "kept"], "kept_chunk_ids")
    for candidates, kept in cuts:
        for question_id, search_scope in by_case:
            if (question_id, search_scope, candidates) not in found:
                continue
            case = by_case[(question_id, search_scope)]
            orders = {"retriever": list(found[(question_id, search_scope, candidates)])[:kept]}
            if (question_id, search_scope, candidates, kept) in kept_after:
                orders["reranked"] = list(kept_after[(question_id, search_scope, candidates, kept)])
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
