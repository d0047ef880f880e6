"""Does a scoped search cost more as the corpus grows? The evaluation searches every golden question within its scope
(one company's filings of a year), and the golden set grows with the corpus: if each search costs in proportion to
the corpus, the evaluation is quadratic in filings, and a nightly run over 10,000 filings is out of reach however many
workers it has.

    .venv/bin/python bench/scoped_search.py [--store data/edgar] [--copies 1 4 16]

Reads a materialised search index (the chunks, their embeddings and filings) and the golden questions of a store,
makes the index N times as large by adding copies of every filing under new names (their chunks, vectors and texts),
and times each golden question's scoped searches (dense and BM25, K=30) on every size: the search as it is (the scope's
rows only) beside a search that masks every row of the corpus and scores every chunk (what it did before, written out
here). The hits of the two are compared on every search.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.retrieval.bm25 import BM25Index
from edgar_eval.retrieval.dense import SCORE_DECIMALS, DenseIndex

DEPTH = 30


def _masked_dense(index: DenseIndex, query: np.ndarray, scope: list[str]) -> list[int]:
    allowed = np.flatnonzero(np.isin(index.filing_ids, np.asarray(scope, dtype=object)))
    scores = index.cosines(query, allowed)
    return [int(allowed[i]) for i in np.lexsort((allowed, -scores))[:DEPTH]]


def _masked_bm25(index: BM25Index, question: str, scope: list[str]) -> list[int]:
    retriever = index._retriever
    assert retriever is not None
    token_ids = [retriever.vocab_dict[t] for t in index.query_tokens(question) if t in retriever.vocab_dict]
    allowed = np.flatnonzero(np.isin(index.filing_ids, np.asarray(scope, dtype=object)))
    if not token_ids or allowed.size == 0:
        return []
    raw = retriever.get_scores_from_ids(token_ids)[allowed]
    matched = raw > 0
    allowed, scores = allowed[matched], np.round(raw[matched], SCORE_DECIMALS)
    return [int(allowed[i]) for i in np.lexsort((allowed, -scores))[:DEPTH]]


def _median_ms(samples: list[float]) -> float:
    return float(np.median(samples) * 1000)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--store", default="data/edgar", help="a materialised store (default: data/edgar)")
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4, 16], help="index sizes, in corpus copies")
    parser.add_argument("--questions", type=int, default=200, help="golden questions timed per size (default 200)")
    args = parser.parse_args()
    store = Path(args.store)
    index_rows = pd.read_parquet(store / "search_index.parquet", columns=["filing_id", "text", "embedding"])
    golden = pd.read_parquet(store / "golden_questions.parquet", columns=["question", "permitted_filing_ids"])
    golden = golden.sample(n=min(args.questions, len(golden)), random_state=7).reset_index(drop=True)
    queries = MiniLMEmbedder().embed(golden.question.tolist())
    vectors = np.stack(index_rows.embedding.to_numpy()).astype(np.float32)
    filings = index_rows.filing_id.nunique()
    print(f"{store}: {len(index_rows)} chunks of {filings} filings; {len(golden)} golden questions, K={DEPTH}")
    print("| corpus copies | filings | chunks | dense ms (scope rows / every row) | bm25 ms (scope rows / every row) |")
    print("|---|---|---|---|---|")
    for copies in args.copies:
        filing_ids = index_rows.filing_id.tolist()
        texts = index_rows.text.tolist()
        for copy in range(1, copies):  # another company's filings, as far as any scope is concerned
            filing_ids += [f"{f}~copy{copy}" for f in index_rows.filing_id]
            texts += index_rows.text.tolist()
        dense = DenseIndex(np.tile(vectors, (copies, 1)), filing_ids)
        lexical = BM25Index.build(texts, filing_ids)
        times: dict[str, list[float]] = {"dense": [], "dense_masked": [], "bm25": [], "bm25_masked": []}
        found: list[int] = []
        for question, scope, query in zip(golden.question, golden.permitted_filing_ids, queries):
            scope = list(scope)
            for name, search in (
                ("dense", lambda: [h.row for h in dense.search(query, scope, DEPTH)]),
                ("dense_masked", lambda: _masked_dense(dense, query, scope)),
                ("bm25", lambda: [h.row for h in lexical.search(question, scope, DEPTH)]),
                ("bm25_masked", lambda: _masked_bm25(lexical, question, scope)),
            ):
                started = time.perf_counter()
                rows = search()
                times[name].append(time.perf_counter() - started)
                if name.endswith("_masked"):
                    assert rows == found, f"{name} differs from the scoped search on {question!r}"
                found = rows
        print(
            f"| {copies} | {filings * copies} | {len(texts)} | {_median_ms(times['dense']):.2f} / "
            f"{_median_ms(times['dense_masked']):.2f} | {_median_ms(times['bm25']):.2f} / "
            f"{_median_ms(times['bm25_masked']):.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
