"""What an index per company would move. BM25 ranks a company's chunks with the document frequencies and mean chunk
length of the whole corpus (edgar_eval/retrieval/bm25.py), so a company's rankings depend on every other company's
filings: a night that re-evaluated only the companies whose filings changed would give a report a cold run does not
(docs/deployment.md, "What sharding the evaluation by company has to settle"). The alternative that page names is an
index per company. This measures what it would change, before anything is built on it: for every answerable golden
question, in the two scopes a company shard would own (company_year, the answerer's; company), the top K of BM25 and of
the hybrid (dense and BM25 fused by RRF, the answerer's retriever) over the corpus-wide index beside the top K over an
index of that company's chunks alone; how many of the K they share, whether they are the same in the same order, and
whether the gold chunk is among them (hit@K) in each. Then the corpus-wide BM25 again with the company's name taken out
of each question, which tells whether the name is what the two indexes weigh differently.

    .venv/bin/python bench/shard_bm25.py [--store data/edgar] [--k 5 30]

The dense ranking needs no such measurement: a cosine reads only the query and the chunk. The corpus scope has no
company shard: it reads the whole index whatever the shards are.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.retrieval.bm25 import BM25Index
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.hybrid import RRF_K, HybridRetriever
from edgar_eval.retrieval.scope import COMPANY, COMPANY_YEAR, ScopedFiling, filings_of_scope

SHARD_SCOPES = (COMPANY_YEAR, COMPANY)
RETRIEVERS = ("bm25", "hybrid")


class Index:
    """BM25 and the hybrid over some chunk rows (the corpus's, or one company's), answering with chunk ids."""

    def __init__(self, rows: pd.DataFrame) -> None:
        self.chunk_ids = rows.chunk_id.tolist()
        self.bm25 = BM25Index.build(rows.text.tolist(), rows.filing_id.tolist())
        dense = DenseIndex(np.stack(rows.embedding.to_numpy()).astype(np.float32), rows.filing_id.tolist())
        self.hybrid = HybridRetriever(dense, self.bm25, rrf_k=RRF_K)

    def top(self, retriever: str, question: str, vector: np.ndarray, scope: list[str], k: int) -> list[str]:
        if retriever == "bm25":
            hits = self.bm25.search(question, scope, k)
        else:
            hits = self.hybrid.search(vector, question, scope, k)
        return [self.chunk_ids[hit.row] for hit in hits]


def _print_row(retriever: str, scope: str, k: int, found: list[tuple[set[str], list[str], list[str]]]) -> None:
    """One row of the table, from each question's gold chunks and its top k over the corpus-wide and over its
    company's own index."""
    n = len(found)
    shared = sum(len(set(a) & set(b)) / max(len(a), len(b), 1) for _, a, b in found)
    same = sum(a == b for _, a, b in found)
    hit_wide = sum(bool(gold & set(a)) for gold, a, _ in found)
    hit_own = sum(bool(gold & set(b)) for gold, _, b in found)
    gained = sum(not gold & set(a) and bool(gold & set(b)) for gold, a, b in found)
    lost = sum(bool(gold & set(a)) and not gold & set(b) for gold, a, b in found)
    print(
        f"| {retriever} | {scope} | {k} | {n} | {shared / max(n, 1):.3f} | {same}/{n} | "
        f"{hit_wide}/{n} ({hit_wide / max(n, 1):.1%}) | {hit_own}/{n} ({hit_own / max(n, 1):.1%}) | "
        f"{gained} / {lost} |",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--store", default="data/edgar", help="a materialised store (default: data/edgar)")
    parser.add_argument("--k", type=int, nargs="+", default=[5, 30], help="search depths, each its own search (5 30)")
    args = parser.parse_args()
    store = Path(args.store)
    rows = pd.read_parquet(
        store / "search_index.parquet",
        columns=["chunk_id", "filing_id", "cik", "form", "fiscal_year", "text", "embedding"],
    )
    golden = pd.read_parquet(
        store / "golden_questions.parquet",
        columns=["question_id", "question", "kind", "company", "scope_cik", "fiscal_year", "gold_chunk_ids"],
    )
    golden = golden.loc[golden.kind == "answerable"].reset_index(drop=True)
    # the evaluation's own question vectors and rankings: the corpus-wide side is checked to be the search it made
    vectors = pd.read_parquet(store / "question_embeddings.parquet", columns=["question_id", "embedding"])
    vector_of = {str(q): np.asarray(v, dtype=np.float32) for q, v in zip(vectors.question_id, vectors.embedding)}
    made = pd.read_parquet(
        store / "retriever_rankings.parquet", columns=["question_id", "search_scope", "retriever", "k", "chunk_ids"]
    )
    made_by = {
        (str(r.retriever), str(r.search_scope), int(r.k), str(r.question_id)): list(r.chunk_ids)
        for r in iter_rows(made)
    }
    filings = [
        ScopedFiling(str(f.filing_id), str(f.cik), str(f.form), int(f.fiscal_year))
        for f in iter_rows(rows.drop_duplicates("filing_id"))
    ]
    corpus_wide = Index(rows)
    own = {str(cik): Index(group) for cik, group in rows.groupby("cik", sort=True)}
    print(
        f"{store}: {len(rows)} chunks, {len(filings)} filings of {len(own)} companies; "
        f"{len(golden)} answerable golden questions, each scope's those the evaluation measured there"
    )
    print(
        "| retriever | scope | K | questions | top K shared (mean) | same top K, same order | gold hit@K corpus-wide "
        "| gold hit@K own index | gold gained / lost |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    checked = agreed = 0
    for retriever in RETRIEVERS:
        for scope_name in SHARD_SCOPES:
            measured = {key[3] for key in made_by if key[:2] == (retriever, scope_name)}
            for k in args.k:  # each depth its own search, as the evaluation's retrieval_depths are
                found: list[tuple[set[str], list[str], list[str]]] = []
                for question in iter_rows(golden):
                    cik, question_id = str(question.scope_cik), str(question.question_id)
                    if question_id not in measured or cik not in own:
                        continue
                    year = None if pd.isna(question.fiscal_year) else int(question.fiscal_year)
                    scope = filings_of_scope(scope_name, filings, cik, year)
                    text, vector = str(question.question), vector_of[question_id]
                    wide = corpus_wide.top(retriever, text, vector, scope, k)
                    found.append((set(question.gold_chunk_ids), wide, own[cik].top(retriever, text, vector, scope, k)))
                    if (retriever, scope_name, k, question_id) in made_by:
                        checked += 1
                        agreed += wide == made_by[(retriever, scope_name, k, question_id)]
                _print_row(retriever, scope_name, k, found)
    print(f"corpus-wide rankings equal to the evaluation's (retriever_rankings, at its depths): {agreed}/{checked}")
    # Why the two differ: a question names its company, a name rare in the corpus and common in the company's chunks.
    for k in args.k:
        hits = asked = 0
        for question in iter_rows(golden):
            year = None if pd.isna(question.fiscal_year) else int(question.fiscal_year)
            scope = filings_of_scope(COMPANY_YEAR, filings, str(question.scope_cik), year)
            nameless = str(question.question).replace(f"{question.company}'s", "").replace(str(question.company), "")
            top = corpus_wide.top("bm25", nameless, vector_of[str(question.question_id)], scope, k)
            asked += 1
            hits += bool(set(question.gold_chunk_ids) & set(top))
        print(
            f"bm25 company_year top {k}, corpus-wide, the company's name taken out of each question: gold hit "
            f"{hits}/{asked} ({hits / max(asked, 1):.1%})"
        )
    return 0 if agreed == checked else 1


if __name__ == "__main__":
    raise SystemExit(main())
