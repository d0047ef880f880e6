"""The index's invariant as an asset check, blocking: an index built other than the settings say stops what reads it."""

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint


@dg.asset_check(
    asset="search_index",
    blocking=True,
    description="The index was built as the settings say (embedder, normalisation, chunk size and overlap, table "
    "headers), and every chunk has a finite unit-length vector of the index's dimension.",
)
def search_index_fingerprint(
    context: dg.AssetCheckExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
) -> dg.AssetCheckResult:
    rows = search_index
    problems = []
    try:
        check_fingerprint(
            settings.fingerprint(embedder.adapter().embedder_id),
            IndexFingerprint.from_json(rows.fingerprint.iloc[0]),
            "search_index",
        )
    except IndexMismatch as exc:
        problems.append(str(exc))
    vectors = np.stack(rows.embedding.to_numpy()) if len(rows) else np.zeros((0, 0))
    norms = np.linalg.norm(vectors, axis=1) if len(rows) else np.array([])
    if not np.isfinite(vectors).all() or not np.allclose(norms, 1.0, atol=1e-3):
        problems.append("some vectors are not finite and of unit length")
    return dg.AssetCheckResult(
        passed=not problems,
        description="; ".join(problems) or f"{len(rows)} chunks, {vectors.shape[1]} dimensions",
        metadata={"chunks": len(rows)},
    )


CHECKS = [search_index_fingerprint]
