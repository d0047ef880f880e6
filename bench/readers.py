"""Both offline readers on the answerable template questions of a materialised corpus, judged by the one figure
policy: accuracy, declines, and the gold-chunk hit at the answerer's K (the reader's ceiling), first from the passages
the answerer read (its dense retrievals), then from a hybrid search (dense + BM25, RRF) at the same K over the same
index. Usage: .venv/bin/python bench/readers.py [data/edgar]"""

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.retrieval.bm25 import BM25Index
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.hybrid import HybridRetriever
from edgar_eval.answering.answerer import ANSWERED, ExtractiveGenerator, TableReaderGenerator, check_generation
from edgar_eval.domain.generation import GenerationRequest
from edgar_eval.evaluation.judge import judge_answer


def _hybrid_chunks(root: Path, answerable: pd.DataFrame, k: int) -> dict[str, list[str]]:
    index = pd.read_parquet(root / "search_index.parquet", columns=["chunk_id", "filing_id", "text", "embedding"])
    dense = DenseIndex(np.stack(index.embedding.to_numpy()), index.filing_id.tolist())
    hybrid = HybridRetriever(dense, BM25Index.build(index.text.tolist(), index.filing_id.tolist()))
    vectors = MiniLMEmbedder().embed(answerable.question.tolist())  # the index's own embedder (default settings)
    return {qid: index.chunk_id.iloc[[h.row for h in hybrid.search(v, case.question, list(case.scope_filing_ids), k)]].tolist()
            for (qid, case), v in zip(answerable.iterrows(), vectors)}


def main(root: Path) -> None:
    golden = pd.read_parquet(root / "golden_questions.parquet").set_index("question_id")
    retrievals = pd.read_parquet(root / "retrievals.parquet").set_index("question_id")
    texts = pd.read_parquet(root / "search_index.parquet", columns=["chunk_id", "text"]).set_index("chunk_id").text
    answerable = golden[golden.kind == "answerable"]
    k = int(retrievals.k.iloc[0])
    searches = {"dense": retrievals.chunk_ids.to_dict(), "hybrid": _hybrid_chunks(root, answerable, k)}
    for name, chunk_ids in searches.items():
        hit = np.mean([bool(set(chunk_ids[q]) & set(answerable.gold_chunk_ids[q])) for q in answerable.index])
        print(f"{len(answerable)} answerable questions; {name} top {k}: gold chunk retrieved for {hit:.1%}")
        _readers(answerable, chunk_ids, texts)


def _readers(answerable: pd.DataFrame, chunk_ids: dict, texts: pd.Series) -> None:
    for generator in (ExtractiveGenerator(), TableReaderGenerator()):
        right = declined = 0
        started = time.perf_counter()
        for question_id, case in answerable.iterrows():
            chunks = chunk_ids[question_id]
            request = GenerationRequest(case.question, tuple((c, texts[c]) for c in chunks), cik=case.cik, fiscal_year=int(case.fiscal_year))
            checked = check_generation(request, generator.generate(request))
            declined += checked.outcome != ANSWERED
            right += checked.outcome == ANSWERED and judge_answer(checked.generation.text, case.gold_value, case.gold_answer, case.label,
                                                                  int(case.fiscal_year)).correct
        seconds = time.perf_counter() - started
        print(f"{generator.generator_id:24s} right {right}/{len(answerable)} ({right / len(answerable):.1%}), "
              f"not answered {declined}, {seconds / len(answerable) * 1000:.2f} ms per question")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "data/edgar"))
