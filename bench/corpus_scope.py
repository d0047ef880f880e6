"""What the corpus search scope costs as the corpus grows: each of its searches reads every chunk, so the seconds per
question grow with the index, and measured on every question (whose number grows with the corpus too) the scope would
grow with the square of the corpus; the setting corpus_scope_questions caps the questions it measures.

    .venv/bin/python bench/corpus_scope.py [--store data/edgar] [--copies 1 4 16 64] [--questions 100] \\
        [--write reports/corpus_scope_cost.json]    # the measurement docs/deployment.md's night on paper reads

Reads a materialised store (the search index, the golden questions, their embeddings and their gold per scope), makes
the index N times as large by adding copies of every filing under new names (their chunks, vectors and tokens), and
times a seeded sample of the questions fair in the corpus scope searched there as retriever_rankings searches them:
dense, BM25 and hybrid (the evaluation's own retrievers, `retrieval/searches.py`), at each depth of the settings. The
seconds per question at each size (every retriever at every depth, as the measurement and the retrieval noise band
search; and the answerer's retriever at the rerank cuts' candidate depths, as the rerank noise band does) are what
`edgar_eval/report/scale.py` fits and grows to the night, beside how many corpus-scope questions the store's own noise
bands searched (what its measured evaluation run spent on the scope).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from nightly_cost import machine  # bench/nightly_cost.py, beside this script

from edgar_eval.adapters.parquet_store import ParquetStore
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import read_sharded
from edgar_eval.evaluation.question_sample import seeded_sample
from edgar_eval.evaluation.search_scopes import corpus_scope_eligible
from edgar_eval.evaluation.shards import CORPUS_SHARD
from edgar_eval.retrieval.bm25 import ChunkTokens
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.scope import CORPUS
from edgar_eval.retrieval.searches import searches


def _noise_questions(store: Path) -> dict[str, int]:
    """The corpus-scope questions each noise band of the store's evaluation searched, its replicas' together (a
    replica leaves companies out, so fewer than the fair ones each)."""
    counts = {}
    for band in ("retrieval_noise", "rerank_noise"):
        table = read_sharded(ParquetStore(store), band, [CORPUS_SHARD], ["replica", "search_scope", "question_id"])
        corpus = table[table.search_scope == CORPUS]
        counts[band] = int(corpus.groupby("replica").question_id.nunique().sum()) if len(corpus) else 0
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--store", default="data/edgar", help="a materialised store (default: data/edgar)")
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4, 16, 64], help="index sizes, in corpus copies")
    parser.add_argument("--questions", type=int, default=100, help="corpus-scope questions timed per size")
    parser.add_argument("--write", help="also save the measurement as JSON (reports/corpus_scope_cost.json)")
    args = parser.parse_args()
    store = Path(args.store)
    defaults = EvalSettings(corpus_dir=".", corpus_name=store.name, data_dir=str(store.parent), reports_dir=".")
    index_rows = pd.read_parquet(
        store / "search_index.parquet", columns=["chunk_id", "filing_id", "cik", "text", "embedding"]
    )
    golden = pd.read_parquet(store / "golden_questions.parquet", columns=["question_id", "question", "expected_route"])
    gold = pd.read_parquet(store / "gold_by_search_scope.parquet", columns=["question_id", "search_scope", "rule"])
    embeddings = pd.read_parquet(store / "question_embeddings.parquet").set_index("question_id").embedding
    eligible = corpus_scope_eligible(golden, gold)
    timed = seeded_sample(eligible, args.questions, defaults.golden_seed)
    vectors = np.stack(index_rows.embedding.to_numpy()).astype(np.float32)
    tokens = ChunkTokens(index_rows.chunk_id.tolist(), index_rows.text.tolist())
    filings = index_rows.filing_id.nunique()
    depths = list(defaults.retrieval_depths)
    answer, candidates = defaults.answer_search(), sorted({depth for depth, _ in defaults.cuts()})
    noise = _noise_questions(store)
    print(
        f"{store}: {len(index_rows)} chunks of {filings} filings; {len(eligible)} of {len(golden)} golden questions "
        f"fair in the corpus scope, {len(timed)} timed; depths {depths}, retrievers dense, bm25, hybrid; the noise "
        f"bands searched {noise['retrieval_noise']} and {noise['rerank_noise']} there"
    )
    print(
        "| corpus copies | filings | chunks | seconds per corpus-scope question | of which the answerer's retriever at "
        "the rerank cuts' depths |"
    )
    print("|---|---|---|---|---|")
    sizes = []
    for copies in sorted(set(args.copies)):
        filing_ids = [f if copy == 0 else f"{f}~copy{copy}" for copy in range(copies) for f in index_rows.filing_id]
        rows = pd.DataFrame(
            {
                "chunk_id": index_rows.chunk_id.tolist() * copies,
                "filing_id": filing_ids,
                # a copy is its company's: the corpus scope reads every company's statistics anyway
                "cik": index_rows.cik.astype(str).tolist() * copies,
                "text": index_rows.text.tolist() * copies,
            }
        )
        dense = DenseIndex(np.tile(vectors, (copies, 1)), filing_ids)
        retrievers = searches(rows, dense, defaults.rrf_k, tokens=tokens)
        scope = sorted(set(filing_ids))
        spent = {(name, depth): 0.0 for name in retrievers for depth in depths}
        for rounds in ("warm-up", "timed"):  # the first pass tokenises each query (kept for the rest, as in a run)
            for question_id, question in zip(timed.question_id, timed.question):
                vector = np.asarray(embeddings.loc[question_id])
                for name, search in retrievers.items():
                    for depth in depths:
                        started = time.perf_counter()
                        search(vector, question, scope, depth)
                        if rounds == "timed":
                            spent[(name, depth)] += time.perf_counter() - started
        every = sum(spent.values()) / len(timed)
        answerer = sum(spent[(answer, depth)] for depth in candidates if (answer, depth) in spent) / len(timed)
        sizes.append(
            {
                "copies": copies,
                "filings": filings * copies,
                "chunks": len(rows),
                "seconds": every,
                "answer_seconds": answerer,
            }
        )
        print(f"| {copies} | {filings * copies} | {len(rows)} | {every:.4f} | {answerer:.4f} |", flush=True)
        del dense, retrievers
    if args.write:
        measured = {
            "corpus": store.name,
            "machine": machine(),
            "filings": filings,
            "chunks": len(index_rows),
            "dimensions": int(vectors.shape[1]),
            "golden_questions": len(golden),
            "fair_questions": len(eligible),
            "questions_timed": len(timed),
            "depths": depths,
            "retrievers": ["dense", "bm25", "hybrid"],
            "answer_retriever": answer,
            "rerank_depths": candidates,
            # the corpus-scope questions the store's evaluation searched in its noise bands, every replica's together
            "noise_searched": noise["retrieval_noise"],
            "rerank_noise_searched": noise["rerank_noise"],
            # the settings that say how many questions search the corpus scope, as this code's defaults have them
            "corpus_scope_questions": defaults.corpus_scope_questions,
            "noise_questions": defaults.noise_questions,
            "noise_replicas": defaults.noise_replicas,
            "sizes": sizes,
        }
        Path(args.write).write_text(json.dumps(measured, indent=2, sort_keys=True) + "\n")
        print(f"written: {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
