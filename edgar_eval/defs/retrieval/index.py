"""Index group: the search index over every current filing partition's chunk embeddings."""

import time

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.corpus.revisions import current_only, superseded_by
from edgar_eval.defs.common import checked_embedder, table_output
from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
from edgar_eval.defs.io_manager import columns_of
from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint


@dg.asset(
    group_name="index",
    description="Exact-cosine search index over every current chunk embedding; refuses embeddings whose fingerprint "
    "differs from the configured embedder and chunker. A filing an amendment (10-K/A, 10-Q/A) supersedes is left "
    "out of search (listed under `superseded`) and stays in the corpus tables for audit.",
)
def search_index(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    chunk_embeddings: PartitionedTable,
    chunks: PartitionedTable,
    filings: PartitionedTable,
) -> dg.Output[pd.DataFrame]:
    keys, left_out = current_partitions(filings, (chunks, chunk_embeddings))
    if not keys:
        raise dg.Failure(f"no filing partition has current chunk embeddings: {left_out}")
    expected = settings.fingerprint(embedder.adapter().embedder_id)
    embeddings = chunk_embeddings.frame(keys)
    for found in sorted(embeddings.fingerprint.unique()):
        try:
            check_fingerprint(expected, IndexFingerprint.from_json(found), "chunk_embeddings")
        except IndexMismatch as exc:
            raise dg.Failure(str(exc)) from exc
    recorded = filings.frame(keys)
    superseded = superseded_by(recorded)  # an amended filing leaves search; its tables stay for audit
    filing_rows = recorded[["filing_id", "cik", "form", "fiscal_year", "sha256"]]
    index = (
        current_only(chunks.frame(keys), superseded)
        .drop(columns=["sha256"])
        .merge(embeddings[["chunk_id", "embedding"]], on="chunk_id", validate="one_to_one")
        .merge(filing_rows, on="filing_id")
    )
    index["fingerprint"] = expected.as_json()
    return table_output(
        index,
        {
            "filings": len(keys),
            "left_out": dg.MetadataValue.json(left_out),
            "superseded": dg.MetadataValue.json(superseded),
            "fingerprint": expected.as_json(),
            "fingerprint_digest": expected.digest,
        },
    )


@dg.asset(
    group_name="index",
    pool=MODEL_ENDPOINT_POOL,
    ins={"search_index": dg.AssetIn(metadata=columns_of("fingerprint"))},
    description="Each golden question embedded once, by the embedder the search index was built with (refused "
    "otherwise), for every retriever that searches with it: the answerer's retrieval and the retrieval measurement. "
    "embed_seconds: the call's wall time per question.",
)
def question_embeddings(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
    golden_questions: pd.DataFrame,
) -> dg.Output[pd.DataFrame]:
    model = checked_embedder(settings, embedder, search_index.fingerprint.iloc[0])
    started = time.perf_counter()
    vectors = model.embed(golden_questions.question.tolist())  # one call: the batches of every earlier run
    seconds = (time.perf_counter() - started) / max(len(golden_questions), 1)
    frame = pd.DataFrame(
        {
            "question_id": golden_questions.question_id.to_numpy(),
            "embedding": [np.asarray(vector, dtype=np.float32) for vector in vectors],
            "embed_seconds": seconds,
        }
    )
    return table_output(frame, {"embedder": model.embedder_id, "embed_seconds_per_question": seconds})


ASSETS = [search_index, question_embeddings]
