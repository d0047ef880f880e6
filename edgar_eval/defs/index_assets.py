"""Index group: the search index over every current filing partition's chunk embeddings."""

import dagster as dg

from edgar_eval.defs.common import filing_keys, read_partitions, unpartitioned_result, usable_partitions
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint


@dg.asset(
    deps=["chunk_embeddings", "chunks", "filings"],
    group_name="index",
    description="Exact-cosine search index over every current chunk embedding; refuses embeddings whose fingerprint "
    "differs from the configured embedder and chunker.",
)
def search_index(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
    store = settings.store()
    keys, left_out = usable_partitions(store, filing_keys(settings), ("chunks", "chunk_embeddings"))
    if not keys:
        raise dg.Failure(f"no filing partition has current chunk embeddings: {left_out}")
    expected = settings.fingerprint(settings.embedder_adapter().embedder_id)
    embeddings = read_partitions(store, "chunk_embeddings", keys)
    for found in sorted(embeddings.fingerprint.unique()):
        try:
            check_fingerprint(expected, IndexFingerprint.from_json(found), "chunk_embeddings")
        except IndexMismatch as exc:
            raise dg.Failure(str(exc)) from exc
    chunk_rows = read_partitions(store, "chunks", keys)
    filing_rows = read_partitions(store, "filings", keys)[["filing_id", "cik", "form", "fiscal_year", "sha256"]]
    index = (
        chunk_rows.drop(columns=["sha256"])
        .merge(embeddings[["chunk_id", "embedding"]], on="chunk_id", validate="one_to_one")
        .merge(filing_rows, on="filing_id")
    )
    index["fingerprint"] = expected.as_json()
    return unpartitioned_result(
        store,
        "search_index",
        index,
        {
            "filings": len(keys),
            "left_out": dg.MetadataValue.json(left_out),
            "fingerprint": expected.as_json(),
            "fingerprint_digest": expected.digest,
        },
    )


ASSETS = [search_index]
