"""What an index per company would move. BM25 ranks a company's chunks with the document frequencies and mean chunk
length of the whole corpus (edgar_eval/retrieval/bm25.py), so a company's rankings depend on every other company's
filings: a night that re-evaluated only the companies whose filings changed would give a report a cold run does not
(docs/deployment.md, "What sharding the evaluation by company has to settle"). The alternative that page names is an
index per company. This measures what it would change, before anything is built on it, on a store the evaluation made:
for every question it measured with an answer expected, in the two scopes a company shard would own (company_year, the
answerer's; company), at each of its depths, BM25's and the hybrid's ranking (dense and BM25 fused by RRF, both pools
that deep) over the corpus-wide index beside the same search over an index of that company's chunks alone; how many
chunks they share, and whether the scope's gold chunk (as the evaluation scores it) is in the first five and anywhere in
each. The evaluation now ranks by the company's own statistics (retrieval/searches.py, CompanyBM25), so the own-index
side is checked against its stored rankings and chunk hits (exit 1 where one differs); the corpus-wide side is what the
evaluation did before. Questions whose scope holds two companies' filings have no one company's index: counted, left
out. Last, BM25 in company_year with the company's name taken out of each question, on both indexes.

    .venv/bin/python bench/shard_bm25.py [--store data/edgar]

The dense ranking needs no such measurement: a cosine reads only the query and the chunk. The corpus scope has no
company shard: it reads the whole index whatever the shards are. Chunk hits only: the report's page and document hits,
reciprocal ranks and nDCG are not recomputed here. Every question is searched in its whole scope (the shared corpus's
questions are all asked as a role that may read every filing).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from edgar_eval.adapters.parquet_store import ParquetStore
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.defs.shards import read_sharded
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


FIRST = 5  # the head of each ranking reported beside its whole depth


def _shard_scope(scope_name: str, question, filings: list[ScopedFiling], cik_of: dict[str, str]) -> list[str] | None:
    """The filings a golden question searches in `scope_name`, or None where they are two companies' (no one company's
    index holds them)."""
    cik = str(question.scope_cik)
    if scope_name == COMPANY_YEAR:
        scope = [str(f) for f in question.scope_filing_ids]
    else:
        scope = filings_of_scope(COMPANY, filings, cik, None)
    return scope if {cik_of.get(f) for f in scope} == {cik} else None


def _hit(gold: set[str], ranking: list[str]) -> bool:
    return bool(gold & set(ranking))


def _print_row(retriever: str, scope: str, k: int, found: list[tuple[set[str], list[str], list[str]]]) -> None:
    """One row of the table, from each question's gold chunks and its top k over the corpus-wide and over its
    company's own index."""
    n = len(found)

    def share(count: int) -> str:
        return f"{count}/{n} ({count / max(n, 1):.1%})"

    shared = sum(len(set(a) & set(b)) / max(len(a), len(b)) if a or b else 1.0 for _, a, b in found)
    head_wide = sum(_hit(gold, a[:FIRST]) for gold, a, _ in found)
    head_own = sum(_hit(gold, b[:FIRST]) for gold, _, b in found)
    hit_wide = sum(_hit(gold, a) for gold, a, _ in found)
    hit_own = sum(_hit(gold, b) for gold, _, b in found)
    gained = sum(not _hit(gold, a) and _hit(gold, b) for gold, a, b in found)
    lost = sum(_hit(gold, a) and not _hit(gold, b) for gold, a, b in found)
    print(
        f"| {retriever} | {scope} | {k} | {n} | {shared / max(n, 1):.3f} | {share(head_wide)} | {share(head_own)} | "
        f"{share(hit_wide)} | {share(hit_own)} | {gained} / {lost} |",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--store", default="data/edgar", help="a materialised store (default: data/edgar)")
    args = parser.parse_args()
    store = Path(args.store)
    rows = pd.read_parquet(
        store / "search_index.parquet",
        columns=["chunk_id", "filing_id", "cik", "form", "fiscal_year", "text", "embedding"],
    )
    golden = pd.read_parquet(
        store / "golden_questions.parquet",
        columns=["question_id", "question", "company", "scope_cik", "scope_filing_ids", "gold_chunk_ids"],
    ).set_index("question_id")
    # each scope's gold as the evaluation scores it: the company scope's may hold more chunks than the question's own
    by_scope = pd.read_parquet(store / "gold_by_search_scope.parquet")
    scope_gold = {
        (str(g.search_scope), str(g.question_id)): set(g.gold_chunk_ids)
        for g in iter_rows(by_scope.loc[by_scope["rule"].isna()])
    }
    # the evaluation's own question vectors and rankings: the own-index side is checked to be the search it made
    vectors = pd.read_parquet(store / "question_embeddings.parquet", columns=["question_id", "embedding"])
    vector_of = {str(q): np.asarray(v, dtype=np.float32) for q, v in zip(vectors.question_id, vectors.embedding)}
    made = read_sharded(ParquetStore(store), "retriever_rankings")
    made = made.loc[made.expected_route == "answer"]
    depths = sorted({int(k) for k in made.k})
    filings = [
        ScopedFiling(str(f.filing_id), str(f.cik), str(f.form), int(f.fiscal_year))
        for f in iter_rows(rows.drop_duplicates("filing_id"))
    ]
    cik_of = {f.filing_id: f.cik for f in filings}
    corpus_wide = Index(rows)
    own = {str(cik): Index(group) for cik, group in rows.groupby("cik", sort=True)}
    print(
        f"{store}: {len(rows)} chunks, {len(filings)} filings of {len(own)} companies; the questions the evaluation "
        f"measured with an answer expected, at its depths {', '.join(map(str, depths))}"
    )
    print(
        f"| retriever | scope | K | questions | top K shared (mean) | gold in first {FIRST}, corpus-wide | "
        f"gold in first {FIRST}, own index | gold hit@K corpus-wide | gold hit@K own index | gold gained / lost |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    checked = agreed = 0
    spanning: dict[str, set[str]] = {}  # scope -> the questions searching two companies' filings there
    for retriever in RETRIEVERS:
        for scope_name in SHARD_SCOPES:
            for k in depths:
                found: list[tuple[set[str], list[str], list[str]]] = []
                asked = made.loc[(made.retriever == retriever) & (made.search_scope == scope_name) & (made.k == k)]
                for made_row in iter_rows(asked):
                    question = golden.loc[made_row.question_id]
                    scope = _shard_scope(scope_name, question, filings, cik_of)
                    if scope is None:
                        spanning.setdefault(scope_name, set()).add(str(made_row.question_id))
                        continue
                    cik = str(question.scope_cik)
                    gold = scope_gold.get((scope_name, str(made_row.question_id)), set(question.gold_chunk_ids))
                    text, vector = str(question.question), vector_of[str(made_row.question_id)]
                    wide = corpus_wide.top(retriever, text, vector, scope, k)
                    local = own[cik].top(retriever, text, vector, scope, k)
                    found.append((gold, wide, local))
                    checked += 1
                    agreed += local == list(made_row.chunk_ids) and _hit(gold, local) == bool(made_row.chunk_hit)
                _print_row(retriever, scope_name, k, found)
    for scope_name, questions in sorted(spanning.items()):
        print(
            f"{scope_name}: {len(questions)} questions search two companies' filings (no one company's index): left out"
        )
    print(f"own-index rankings and chunk hits equal to the evaluation's (retriever_rankings): {agreed}/{checked}")
    # Why the two differ: a question names its company, rare in the corpus; taken out, both indexes again
    first = depths[0]
    answerable = golden.loc[golden.index.isin(made.loc[made.search_scope == COMPANY_YEAR].question_id)]
    named = {"wide": 0, "own": 0}
    heads = {"wide": 0, "own": 0}
    asked = 0
    for question_id, question in answerable.iterrows():
        scope = _shard_scope(COMPANY_YEAR, question, filings, cik_of)
        if scope is None:
            continue
        cik = str(question.scope_cik)
        nameless = str(question.question).replace(f"{question.company}'s", "").replace(str(question.company), "")
        gold, vector = set(question.gold_chunk_ids), vector_of[str(question_id)]
        asked += 1
        for side, index in (("wide", corpus_wide), ("own", own[cik])):
            top = index.top("bm25", nameless, vector, scope, first)
            named[side] += _hit(gold, top)
            heads[side] += _hit(gold, top[:FIRST])
    print(
        f"bm25 company_year, the company's name taken out of each of {asked} questions: gold in first {FIRST} "
        f"{heads['wide']} corpus-wide, {heads['own']} own index; gold hit@{first} {named['wide']} corpus-wide, "
        f"{named['own']} own index"
    )
    return 0 if checked and agreed == checked else 1


if __name__ == "__main__":
    raise SystemExit(main())
