"""Both offline readers on the answerable template questions of a materialised corpus, at several depths K of the
answerer's retriever, judged as under arm A (citation check, then the one figure policy): right, wrong, not
answered, and the gold-chunk hit at K (the readers' ceiling). The run's own K is what `reader_accuracy` holds; this
shows what a shallower or deeper read would give. Usage: .venv/bin/python bench/readers.py [data/edgar] [K ...]"""

import sys
import time
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.answering.answerer import ExtractiveGenerator, TableReaderGenerator
from edgar_eval.corpus.frames import iter_rows
from edgar_eval.evaluation.readers import reader_outcomes, summarise_readers
from edgar_eval.retrieval.bm25 import BM25Index
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.hybrid import HybridRetriever


def main(root: Path, depths: list[int]) -> None:
    golden = pd.read_parquet(root / "golden_questions.parquet").set_index("question_id")
    answerable = cast(pd.DataFrame, golden[golden.expected_route == "answer"])
    index = pd.read_parquet(root / "search_index.parquet", columns=["chunk_id", "filing_id", "text", "embedding"])
    texts = index.set_index("chunk_id").text
    dense = DenseIndex(np.stack(index.embedding.to_numpy()), index.filing_id.tolist())
    hybrid = HybridRetriever(dense, BM25Index.build(index.text.tolist(), index.filing_id.tolist()))
    vectors = MiniLMEmbedder().embed(answerable.question.tolist())  # the index's own embedder (default settings)
    for k in depths:
        chunk_ids, hits = [], []
        for (question_id, case), vector in zip(answerable.iterrows(), vectors):
            found = index.chunk_id.iloc[
                [h.row for h in hybrid.search(vector, case.question, list(case.scope_filing_ids), k)]
            ].tolist()
            chunk_ids.append(found)
            hits.append(bool(set(found) & set(case.gold_chunk_ids)))
        retrieved = pd.DataFrame({"chunk_ids": chunk_ids, "chunk_hit": hits}, index=answerable.index)
        started = time.perf_counter()
        table = summarise_readers(
            reader_outcomes(answerable, retrieved, texts, (ExtractiveGenerator(), TableReaderGenerator()))
        )
        seconds = time.perf_counter() - started
        print(
            f"hybrid top {k}: gold chunk retrieved for {np.mean(hits):.1%} of {len(answerable)} answerable questions "
            f"({seconds / len(answerable) / 2 * 1000:.1f} ms per question per reader)"
        )
        for row in iter_rows(table):
            print(
                f"  {row.reader:24s} right {row.right}/{row.questions} ({row.right_share:.1%}, Wilson "
                f"{row.right_low:.1%} to "
                f"{row.right_high:.1%}), where the gold chunk was retrieved {row.right_when_gold_retrieved:.1%}, "
                f"wrong {row.wrong}, not answered {row.declined}"
            )


if __name__ == "__main__":
    arguments = sys.argv[1:]
    folder = Path(arguments.pop(0)) if arguments and not arguments[0].isdigit() else Path("data/edgar")
    main(folder, [int(a) for a in arguments] or [10, 30, 50])
