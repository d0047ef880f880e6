"""Index group: the search index over every current filing partition's chunk embeddings."""

import dagster as dg
import pandas as pd

from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.corpus.revisions import current_only, superseded_by
from edgar_eval.defs.common import table_output
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


ASSETS = [search_index]
