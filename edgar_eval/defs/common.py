"""Shared plumbing of the asset modules: per-partition loops, metadata, reading the corpus."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Callable

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.adapters.local_corpus import list_filings
from edgar_eval.adapters.parquet_store import ParquetStore, StoreError
from edgar_eval.corpus.parse import ParsedFiling, parse_filing
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.domain.filings import FilingError
from edgar_eval.domain.ports import Embedder
from edgar_eval.domain.versioning import content_version
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint

PartitionWork = Callable[[str], tuple[pd.DataFrame, dict]]
_EXPECTED_ERRORS = (FilingError, StoreError, ValueError, OSError)


def table_head(frame: pd.DataFrame, columns: list[str] | None = None, rows: int = 5) -> dg.MetadataValue:
    shown = frame[columns] if columns else frame
    return dg.MetadataValue.md(shown.head(rows).to_markdown(index=False) if len(shown) else "(empty)")


def recorded_sha256(store: ParquetStore, key: str) -> str:
    return store.read("filings", key, columns=["sha256"]).sha256.iloc[0]


def _reusable(store: ParquetStore, asset: str, key: str, sha256: str, build_key: str) -> pd.DataFrame | None:
    if not store.exists(asset, key):
        return None
    try:
        stamp = store.read(asset, key, columns=["sha256", "build_key"])
    except StoreError:
        return None  # written before tables were stamped, or unreadable: rebuild it
    if len(stamp) and (stamp.sha256 == sha256).all() and (stamp.build_key == build_key).all():
        return store.read(asset, key)
    return None


def materialize_partitions(
    context: dg.AssetExecutionContext,
    store: ParquetStore,
    asset: str,
    work: PartitionWork,
    current_sha256: Callable[[str], str],
    parameters: Callable[[str], str] = lambda key: "",
) -> dg.MaterializeResult:
    """Run `work` for every partition of this run, writing each partition's table on its own.

    A partition whose table was built from the same filing bytes by the same code (the asset's code_version, a hash of
    the code it reaches) and the same `parameters` (of its partition key: the settings and upstream builds the table
    depends on) is reused, not rebuilt: a re-run over unchanged files parses and embeds nothing. A partition that fails
    leaves its earlier materialisation untouched; the step fails naming it, after the other partitions of the run have
    been written.
    """
    code_version = context.assets_def.code_versions_by_key[context.asset_key]
    errors: dict[str, str] = {}
    metadata: dict = {}
    versions: list[str] = []
    reused = 0
    for key in context.partition_keys:
        try:
            sha256 = current_sha256(key)
            build_key = f"{code_version}:{parameters(key)}"
            frame = _reusable(store, asset, key, sha256, build_key)
            if frame is not None:
                reused += 1
                meta = {"reused": True, "rows": len(frame)}
            else:
                frame, meta = work(key)
                frame = frame.assign(build_key=build_key)
                store.write(asset, frame, key)
                meta = {"reused": False, **meta}
        except _EXPECTED_ERRORS as exc:
            errors[key] = f"{type(exc).__name__}: {exc}"
            context.log.error(f"partition {key}: {errors[key]}")
            continue
        versions.append(content_version(frame))
        metadata = (
            meta
            if len(context.partition_keys) == 1
            else {"partitions_written": len(versions) - reused, "partitions_reused": reused}
        )
    if errors:
        raise dg.Failure(
            description="; ".join(f"{key}: {message}" for key, message in sorted(errors.items())),
            metadata={"failed_partitions": dg.MetadataValue.json(errors)},
        )
    data_version = dg.DataVersion(versions[0]) if len(versions) == 1 else None
    return dg.MaterializeResult(metadata=metadata, data_version=data_version)


def unpartitioned_result(
    store: ParquetStore, asset: str, frame: pd.DataFrame, metadata: dict, asset_key: str | None = None
) -> dg.MaterializeResult:
    """asset_key: name the asset when one step materialises several (a multi-asset)."""
    store.write(asset, frame)
    version = content_version(frame)
    return dg.MaterializeResult(
        asset_key=asset_key,
        metadata={"rows": len(frame), "data_version": version, **metadata},
        data_version=dg.DataVersion(version),
    )


@functools.lru_cache(maxsize=4)
def _parse_cached(sha256: str, path: str) -> ParsedFiling:
    return parse_filing(Path(path).read_bytes())


def filing_path(settings: EvalSettings, key: str) -> Path:
    relative = list_filings(settings.corpus_dir).get(key)
    if relative is None:
        raise FilingError(f"no document for partition {key!r} in {settings.corpus_dir}")
    return Path(settings.corpus_dir) / relative


def parsed_filing(settings: EvalSettings, key: str) -> tuple[ParsedFiling, str]:
    """The parsed document of a partition whose `filings` row is current; its sha256 with it."""
    recorded = settings.store().read("filings", key).iloc[0]
    path = filing_path(settings, key)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    if sha != recorded.sha256:
        raise StoreError(
            f"{path.name} changed since `filings` was materialised (sha256 {sha[:12]} vs {recorded.sha256[:12]}); "
            "rematerialise `filings` first"
        )
    return _parse_cached(sha, str(path)), sha


def current_partitions(store: ParquetStore, keys: list[str], asset: str) -> tuple[list[str], dict[str, str]]:
    """Partitions whose `asset` table was built from the filing bytes `filings` now records.

    Returns the usable keys and, for the others, why they were left out (not materialised, or stale).
    """
    usable, left_out = [], {}
    for key in keys:
        if not store.exists("filings", key):
            left_out[key] = "filings not materialised"
            continue
        if not store.exists(asset, key):
            left_out[key] = f"{asset} not materialised"
            continue
        filing_sha = store.read("filings", key, columns=["sha256"]).sha256.iloc[0]
        asset_sha = store.read(asset, key, columns=["sha256"]).sha256
        if len(asset_sha) and asset_sha.iloc[0] != filing_sha:
            left_out[key] = f"{asset} is stale (built from another version of the file)"
            continue
        usable.append(key)
    return usable, left_out


CORPUS_TABLES = ("filings", "filing_text", "xbrl_facts", "sections", "chunks", "chunk_embeddings")


def usable_partitions(
    store: ParquetStore, keys: list[str], assets: tuple[str, ...]
) -> tuple[list[str], dict[str, str]]:
    usable, left_out = list(keys), {}
    for asset in assets:
        current, skipped = current_partitions(store, usable, asset)
        usable = current
        left_out.update(skipped)
    return usable, left_out


def read_partitions(store: ParquetStore, asset: str, keys: list[str]) -> pd.DataFrame:
    frame, missing = store.read_partitions(asset, keys)
    if missing:
        raise dg.Failure(f"{asset} partitions vanished while reading: {missing}")
    return frame


def checked_index(settings: EvalSettings) -> tuple[pd.DataFrame, DenseIndex, Embedder]:
    """The search index's rows, its dense index, and the embedder, refusing an index built differently."""
    index_rows = settings.store().read("search_index")
    embedder = settings.embedder_adapter()
    try:
        check_fingerprint(
            settings.fingerprint(embedder.embedder_id),
            IndexFingerprint.from_json(index_rows.fingerprint.iloc[0]),
            "search_index",
        )
    except IndexMismatch as exc:
        raise dg.Failure(str(exc)) from exc
    return index_rows, DenseIndex(np.stack(index_rows.embedding.to_numpy()), index_rows.filing_id.tolist()), embedder


def filing_keys(settings: EvalSettings) -> list[str]:
    """Every filing partition of the configured corpus, in the partitions definition's order."""
    return sorted(list_filings(settings.corpus_dir))
