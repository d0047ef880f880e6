"""Shared plumbing of the asset modules: per-partition loops, table outputs, metadata, reading the corpus."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Callable, Mapping

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.adapters.local_corpus import list_filings
from edgar_eval.adapters.parquet_store import DATA_VERSION_STAMP, ParquetStore, StoreError, location
from edgar_eval.corpus.parse import ParsedFiling, parse_filing
from edgar_eval.corpus.partitioned import MissingPartition, PartitionedTable
from edgar_eval.defs.run_tags import SYSTEM_TAGS
from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval.domain.filings import FilingError
from edgar_eval.domain.ports import Embedder
from edgar_eval.domain.versioning import content_version
from edgar_eval.retrieval.dense import DenseIndex
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint

PartitionWork = Callable[[str], tuple[pd.DataFrame, dict]]
_EXPECTED_ERRORS = (FilingError, StoreError, MissingPartition, ValueError, OSError)


def table_head(frame: pd.DataFrame, columns: list[str] | None = None, rows: int = 5) -> dg.MetadataValue:
    shown = frame[columns] if columns else frame
    return dg.MetadataValue.md(shown.head(rows).to_markdown(index=False) if len(shown) else "(empty)")


def system_metadata(tags: Mapping[str, str]) -> dict[str, dg.MetadataValue]:
    """The system a run measures, from its tags (run_tags.SYSTEM_TAGS: corpus, generator, settings digest), as text
    entries; a tag the run lacks has no entry."""
    return {name: dg.MetadataValue.text(tags[tag]) for name, tag in SYSTEM_TAGS.items() if tag in tags}


def figure_metadata(figures: dict[str, float | int]) -> dict[str, dg.MetadataValue]:
    """Numeric figures (evaluation.headline_figures) as metadata the UI plots across runs: floats as float entries,
    counts as int entries. A non-finite float is refused: an undefined figure has no entry. Inside a run, the entries
    `corpus`, `generator` and `settings` name the system the run measures (`system_metadata`), so each point of a
    figure's chart says which system it is."""
    metadata: dict[str, dg.MetadataValue] = {}
    try:  # the asset being materialised: its run's tags
        metadata |= system_metadata(dg.AssetExecutionContext.get().run.tags)
    except dg.DagsterInvariantViolationError:  # no run (a figure read back outside the graph)
        pass
    for name, value in figures.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"figure {name!r}: {value!r} is not a number")
        if isinstance(value, int):
            metadata[name] = dg.MetadataValue.int(value)
        elif np.isfinite(value):
            metadata[name] = dg.MetadataValue.float(float(value))
        else:
            raise ValueError(f"figure {name!r} is {value}: an undefined figure is left out, never written")
    return metadata


def _reusable(store: ParquetStore, asset: str, key: str, sha256: str, build_key: str) -> pd.DataFrame | None:
    if not store.exists(asset, key):
        return None
    try:
        stamp = store.read(asset, key, columns=["sha256", "build_key"])
        if len(stamp):
            current = (stamp.sha256 == sha256).all() and (stamp.build_key == build_key).all()
        else:  # a table with no row (a filing with nothing of its kind): its file's stamp says what it was built from
            stamp = store.stamp(asset, key)
            current = stamp.get("sha256") == sha256 and stamp.get("build_key") == build_key
        return store.read(asset, key) if current else None
    except StoreError:
        return None  # written before tables were stamped, or unreadable in any column: rebuild it


def _made_elsewhere(
    context: dg.AssetExecutionContext, store: ParquetStore, asset: str, key: str, sha256: str, build_key: str
) -> tuple[pd.DataFrame, str] | None:
    """This partition's table as another corpus's run made it from the same bytes, code and parameters (its latest
    materialisations name their tables: `table`), and where it lies; None when none is. A filing held by two corpora
    (the demo's filings inside a larger corpus, a second name for the same folder) is parsed and embedded once."""
    records = context.instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=context.asset_key, asset_partitions=[key]), limit=_LOOKED_BACK
    ).records
    own = str(store.path(asset, key))
    for record in records:
        entry = record.asset_materialization.metadata.get("table") if record.asset_materialization else None
        if not isinstance(entry, dg.PathMetadataValue) or str(entry.value) == own:
            continue
        table = location(str(entry.value))
        frame = _reusable(ParquetStore(table.parent.parent), asset, key, sha256, build_key)
        if frame is not None:
            return frame, str(table)
    return None


def _stamp(sha256: str, build_key: str, version: str) -> dict[str, str]:
    """What a partition's table was built from, and the data version its materialisation records."""
    return {"sha256": sha256, "build_key": build_key, DATA_VERSION_STAMP: version}


COPIED_FROM = "copied_from"  # metadata naming the table a partition's was copied from: not a file it wrote
_LOOKED_BACK = 10  # the latest materialisations of a partition searched for another corpus's table of the same build


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
    depends on) is reused, not rebuilt: a re-run over unchanged files parses and embeds nothing; such a table in
    another corpus's folder is copied (`_made_elsewhere`). A partition that fails leaves its earlier materialisation
    untouched; the step fails naming it, after the other partitions of the run have been written. A run of one
    partition names its table (`table`).
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
            elsewhere = None if frame is not None else _made_elsewhere(context, store, asset, key, sha256, build_key)
            if frame is not None:
                version = content_version(frame)
                reused += 1
                meta = {"reused": True, "rows": len(frame)}
            elif elsewhere is not None:
                frame, source = elsewhere
                version = content_version(frame)
                store.write(asset, frame, key, stamp=_stamp(sha256, build_key, version))
                reused += 1
                meta = {"reused": True, "rows": len(frame), COPIED_FROM: dg.MetadataValue.path(source)}
            else:
                frame, meta = work(key)
                frame = frame.assign(build_key=build_key)
                version = content_version(frame)
                store.write(asset, frame, key, stamp=_stamp(sha256, build_key, version))
                meta = {"reused": False, **meta}
        except _EXPECTED_ERRORS as exc:
            errors[key] = f"{type(exc).__name__}: {exc}"
            context.log.error(f"partition {key}: {errors[key]}")
            continue
        versions.append(version)
        metadata = (
            {**meta, "table": dg.MetadataValue.path(str(store.path(asset, key)))}
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


def table_output(frame: pd.DataFrame, metadata: dict, output_name: str = "result") -> dg.Output[pd.DataFrame]:
    """An unpartitioned asset's table, written by the IO manager, with its row count and content version.
    output_name: name the asset when one step materialises several (a multi-asset)."""
    version = content_version(frame)
    return dg.Output(
        frame,
        output_name=output_name,
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


def parsed_filing(settings: EvalSettings, filings: PartitionedTable, key: str) -> tuple[ParsedFiling, str]:
    """The parsed document of a partition whose `filings` row is current; its sha256 with it."""
    recorded = filings.sha256(key)
    path = filing_path(settings, key)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    if sha != recorded:
        raise StoreError(
            f"{path.name} changed since `filings` was materialised (sha256 {sha[:12]} vs {recorded[:12]}); "
            "rematerialise `filings` first"
        )
    return _parse_cached(sha, str(path)), sha


def checked_embedder(settings: EvalSettings, embedder: EmbedderResource, fingerprint: str) -> Embedder:
    """The embedder, refusing a search index (its `fingerprint`) that another embedder or chunker built."""
    adapter = embedder.adapter()
    try:
        check_fingerprint(
            settings.fingerprint(adapter.embedder_id), IndexFingerprint.from_json(fingerprint), "search_index"
        )
    except IndexMismatch as exc:
        raise dg.Failure(str(exc)) from exc
    return adapter


def checked_index(
    settings: EvalSettings, embedder: EmbedderResource, index_rows: pd.DataFrame
) -> tuple[DenseIndex, Embedder]:
    """The search index's dense index and the embedder, refusing an index built differently."""
    adapter = checked_embedder(settings, embedder, index_rows.fingerprint.iloc[0])
    return DenseIndex(np.stack(index_rows.embedding.to_numpy()), index_rows.filing_id.tolist()), adapter


def question_vectors(question_embeddings: pd.DataFrame, question_ids: pd.Series) -> np.ndarray:
    """The embeddings of these questions, in their order, from `question_embeddings`."""
    by_question = question_embeddings.set_index("question_id").embedding
    return np.stack(by_question.loc[question_ids.to_numpy()].to_numpy())
