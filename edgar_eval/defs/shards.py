"""The evaluation's per-question steps as partitions of a shard set (evaluation/shards.py: a fixed set of company
groups, and the corpus scope's shard), each shard written on its own and kept while its inputs are unchanged.

A sharded asset runs every shard of its run in one step (one run for all of them, from `edgar-eval run` or `dagster
asset materialize --partition-range 00...corpus`), writes each shard's table itself (a shard
that fails leaves the others written, and its earlier table untouched), and reuses a shard whose stored table was built
from the same inputs by the same code: the shard's slice of each input (its questions' rows, the index rows of the
companies it searches), the files beside the graph it declares, the settings. Within a shard whose inputs changed,
only the questions whose own part of them changed are measured again (a two-document question that searches the
changed company, in another company's shard, among them); the shard's other rows are kept. Unpartitioned readers
receive every shard read back as the one table an unsharded step would have written (defs/io_manager.py)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Set
from typing import Callable, cast

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.adapters.chat_generator import GenerationError
from edgar_eval.adapters.parquet_store import ParquetStore, StoreError
from edgar_eval.adapters.rerank_http import RerankError
from edgar_eval.defs.code_versions import installed_packages
from edgar_eval.defs.settings import WHERE_FIELDS, EvalSettings
from edgar_eval.defs.source_files import SOURCE_FILES
from edgar_eval.domain.filings import FilingError
from edgar_eval.domain.versioning import content_version
from edgar_eval.evaluation.shards import ORDER_COLUMN, SHARD_KEYS, in_corpus_order, shard_questions, shard_scopes
from edgar_eval.retrieval.scope import COMPANY_YEAR

SHARDS = dg.StaticPartitionsDefinition(list(SHARD_KEYS))
# A run of the evaluation job covers every shard: Dagster's partition range tags, over the whole static set.
EVALUATION_RUN_TAGS = {
    "dagster/asset_partition_range_start": SHARD_KEYS[0],
    "dagster/asset_partition_range_end": SHARD_KEYS[-1],
}
# A shard's rows, each with its ORDER_COLUMN: of every question of the shard, or (given) of these question ids alone.
ShardWork = Callable[[str, Set[str] | None], pd.DataFrame]
QUESTION = "question_id"  # the column by which a slice's rows, and a shard's, are each question's
QUESTION_STAMPS = "questions"  # in a shard's stamp: each question's part of its inputs
# A shard's failure is its own (the others are still written): a bad input, a store error, and what a model or
# reranker endpoint or a tape raises (GenerationError, RerankError, TapeMiss: RuntimeErrors).
_EXPECTED_ERRORS = (FilingError, StoreError, ValueError, KeyError, OSError, RuntimeError)
# An endpoint that failed after its retries fails the shards after it unasked: each would wait out the same retries.
_ENDPOINT_ERRORS = (GenerationError, RerankError)
# The table beside a sharded asset's shards that lists the stamp of each shard its runs made and completed: a shard
# is read only as that list has it, so a run that fails half way leaves no mix of two evaluations to be read as one.
MANIFEST = "manifest"
SHARED_STAMP = "shared"  # the part of a shard's stamp every shard of one evaluation has in common


def read_sharded(
    store: ParquetStore, asset: str, shards: list[str] | None = None, columns: list[str] | None = None
) -> pd.DataFrame:
    """A sharded asset's table as an unsharded step would have written it: these shards (default: all) read
    together, in corpus-wide order. Each shard is read only when the asset's manifest lists its stamp, and all the
    listed stamps share one evaluation's inputs: a shard made by a run that then failed, or kept from another
    evaluation, is refused rather than read beside the others. (Read the folder this way, not as one Parquet dataset:
    a shard that holds no question may hold no columns, and a dataset's schema is its first file's.)"""
    wanted = list(SHARD_KEYS) if shards is None else shards
    listed = _manifest(store, asset)
    if listed is None:
        raise StoreError(
            f"{asset!r} has no manifest of its shards ({store.path(asset, MANIFEST)}): materialise it again"
        )
    unlisted = [shard for shard in wanted if shard not in listed or store.stamp(asset, shard) != listed[shard]]
    if unlisted:
        raise StoreError(
            f"shards {', '.join(unlisted)} of {asset!r} are not those its last runs completed (a run failed, or the "
            "files were changed since): materialise it for every shard again"
        )
    if len({listed[shard][SHARED_STAMP] for shard in wanted}) > 1:
        raise StoreError(
            f"the shards of {asset!r} were built from different inputs: materialise it for every shard again"
        )
    return in_corpus_order(store.read_together(asset, wanted, None if columns is None else [*columns, ORDER_COLUMN]))


def _manifest(store: ParquetStore, asset: str) -> dict[str, dict[str, str]] | None:
    """Each shard's stamp as the asset's manifest lists it (None: there is no manifest)."""
    if not store.exists(asset, MANIFEST):
        return None
    table = store.read(asset, MANIFEST)
    return {str(row["shard"]): json.loads(str(row["stamp"])) for row in table.to_dict("records")}


def _write_manifest(store: ParquetStore, asset: str, listed: dict[str, dict[str, str]]) -> None:
    rows = [{"shard": shard, "stamp": json.dumps(stamp, sort_keys=True)} for shard, stamp in sorted(listed.items())]
    store.write(asset, pd.DataFrame(rows, columns=["shard", "stamp"]), MANIFEST)


def shard_asset(
    description: str, deps: tuple = (), pool: str | None = None, ins: dict | None = None, group_name: str = "runs"
):
    """A per-question asset of the evaluation, one partition per shard; it writes its shards (materialize_shards)."""
    return dg.asset(
        deps=list(deps),
        ins=ins,
        description=description + " One partition per shard of companies (evaluation/shards.py).",
        group_name=group_name,
        partitions_def=SHARDS,
        # every shard in one run, as `edgar-eval run` runs them: `dagster asset materialize --partition-range` runs
        # a range only of assets with this policy (a policy of several runs needs the daemon's backfill)
        backfill_policy=dg.BackfillPolicy.single_run(),
        pool=pool,
    )


def _cell(value: object) -> str:
    """A cell as JSON for a row's hash: a list or array by its items (numpy's text of a long array elides them),
    strings quoted, so no two different cells read alike."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return json.dumps(value, default=str)


def rows_version(frame: pd.DataFrame, columns: list[str] | None = None) -> str:
    """A corpus-wide input's version, hashed from its rows (these columns, default all), row by row: faster than
    content_version's text of the whole table."""
    digest = hashlib.sha256()
    chosen = sorted(frame.columns) if columns is None else columns
    digest.update("\x1f".join(chosen).encode())
    for row in zip(*(frame[column].to_numpy() for column in chosen)):
        digest.update("\x1f".join(map(_cell, row)).encode())
        digest.update(b"\x1e")
    return digest.hexdigest()[:16]


def index_version(search_index: pd.DataFrame) -> str:
    """What the search index the step read holds: every column of every row, the vectors by their bytes (not
    rounded: a vector another processor made a little differently is another index)."""
    digest = hashlib.sha256(rows_version(search_index.drop(columns=["embedding"], errors="ignore")).encode())
    if "embedding" in search_index.columns:
        for vector in search_index.embedding:
            digest.update(np.asarray(vector, dtype=np.float32).tobytes())
    return digest.hexdigest()[:16]


def company_versions(frame: pd.DataFrame, version: Callable[[pd.DataFrame], str] = index_version) -> dict[str, str]:
    """Each company's rows of a corpus-wide table (its `cik`) by their version: found once per step, so that each
    question's slice names the versions of the companies it searches without hashing their rows again."""
    return {str(cik): version(rows) for cik, rows in frame.groupby(frame.cik.astype(str), sort=True)}


def _row_digests(frame: pd.DataFrame) -> list[str]:
    """Each row's digest, of its cells in column-name order (as rows_version reads them)."""
    columns = sorted(frame.columns)
    cells = zip(*(frame[column].to_numpy() for column in columns))
    return [hashlib.sha256("\x1f".join(map(_cell, row)).encode()).hexdigest()[:16] for row in cells]


def question_stamps(slices: dict[str, pd.DataFrame]) -> tuple[dict[str, str], dict[str, str]]:
    """A shard's inputs, question by question: each question's digest of its rows in every slice with a QUESTION
    column (in the slice's order), and the versions of the slices without one, which every question of the shard
    reads and each question's digest holds too. Exact, not rounded as content_version is: a question vector a little
    different is another search."""
    common = {name: rows_version(frame) for name, frame in sorted(slices.items()) if QUESTION not in frame.columns}
    rows: dict[str, list[str]] = {}
    for name, frame in sorted(slices.items()):
        if QUESTION not in frame.columns:
            continue
        frame = _without_wall_clock(frame)
        prefix = f"{name}|{'|'.join(sorted(frame.columns))}|"
        for question, digest in zip(frame[QUESTION].astype(str), _row_digests(frame)):
            rows.setdefault(question, []).append(prefix + digest)
    return {question: _digest([common, own]) for question, own in sorted(rows.items())}, common


def _digest(parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _without_wall_clock(frame: pd.DataFrame) -> pd.DataFrame:
    """A slice less the seconds a step took (they change on every run, and no figure of a shard reads them)."""
    return frame.drop(columns=[column for column in frame.columns if column.endswith("_seconds")])


def _stored_stamp(store: ParquetStore, asset: str, shard: str) -> dict:
    """A shard's stored stamp (empty: there is no readable table)."""
    if not store.exists(asset, shard) or store.unreadable(asset, shard) is not None:
        return {}
    return store.stamp(asset, shard)


def _read_stored(store: ParquetStore, asset: str, shard: str) -> pd.DataFrame | None:
    try:
        return store.read(asset, shard)
    except StoreError:
        return None  # unreadable in a column: built again


def _in_order(frame: pd.DataFrame) -> pd.DataFrame:
    """A shard's rows in corpus order (a stable sort: a question's rows of one scope keep the order they were made
    in), so a shard made whole and one made again in part hold the same rows in the same order."""
    if not len(frame) or ORDER_COLUMN not in frame.columns:
        return frame.reset_index(drop=True)
    return frame.sort_values(ORDER_COLUMN, kind="stable").reset_index(drop=True)


def _made_again_in_part(
    store: ParquetStore, asset: str, shard: str, stored: dict, stamp: dict, work: ShardWork
) -> tuple[pd.DataFrame, int] | None:
    """The shard made again for the questions whose inputs changed, its other questions' rows kept from its stored
    table, when that table was made by the same code from the same shared inputs (else None: made whole). The rows
    a question's work writes depend on its own inputs alone (its slice rows: its question, its rows of the tables it
    reads, the versions of the companies it searches), so the result is the table a whole run writes."""
    if not stored or stored.get(SHARED_STAMP) != stamp[SHARED_STAMP] or stored.get("build_key") != stamp["build_key"]:
        return None
    before, now = stored.get(QUESTION_STAMPS) or {}, stamp[QUESTION_STAMPS]
    if not before or not now:
        return None
    kept = sorted(question for question, digest in now.items() if before.get(question) == digest)
    table = _read_stored(store, asset, shard) if kept else pd.DataFrame()
    if table is None or (len(table) and QUESTION not in table.columns):
        return None
    stale = frozenset(now) - set(kept)
    parts = [table.loc[table[QUESTION].astype(str).isin(kept).to_numpy()] if len(table) else table]
    parts.append(work(shard, stale) if stale else pd.DataFrame())
    made = [frame for frame in parts if len(frame)]
    if made:
        return pd.concat(made, ignore_index=True), len(stale)
    # no row: the columns the work gave (or the stored table's), as a whole run stores a shard with no row
    return next((frame for frame in reversed(parts) if len(frame.columns)), pd.DataFrame()), len(stale)


def materialize_shards(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    asset: str,
    work: ShardWork,
    slices: Callable[[str], dict[str, pd.DataFrame]],
    shared_inputs: dict[str, str],
    metadata: Callable[[pd.DataFrame], dict] = lambda rows: {},
) -> dg.MaterializeResult:
    """Run `work` for every shard of this run (each frame carrying ORDER_COLUMN), writing each shard's table on its
    own, stamped with what it was built from: what every shard shares (`shared_inputs`: the versions of what is not
    a table, such as the generator or the reranker; the files beside the graph the asset declares it reads, by
    content; the settings, less where things are kept; the installed packages; the code version) and the content of
    the shard's `slices` of its inputs, question by question (question_stamps: each question's rows, the versions of
    the companies it searches: nothing of another company's shard, so a filing changed stales only the shards whose
    questions search its company). A shard whose stored stamp is the same is reused; one whose stamp differs only in
    some questions' parts is made again for those questions alone (`work` given their ids), its other rows kept.
    A shard that fails leaves its earlier table untouched, and unlisted in the asset's manifest (so
    nothing reads it beside this run's); the step fails naming it, after the other shards have been written (after an
    endpoint's failure the rest are not attempted). `metadata`: the figures the UI shows, of every shard's rows of
    this run together; questions_made_again counts the questions whose work ran."""
    store = settings.store()
    code_version = str(context.assets_def.code_versions_by_key[context.asset_key])
    declared = context.assets_def.asset_deps[context.asset_key]
    shared = _digest(
        {
            "shared_inputs": shared_inputs,
            "files": {
                source.key.to_user_string(): source.version(settings)
                for source in SOURCE_FILES
                if source.key in declared
            },
            "settings": settings.model_dump(mode="json", exclude=set(WHERE_FIELDS)),
            "packages": installed_packages(),
            "code_version": code_version,
        }
    )
    # this run's shards leave the manifest until each is made: a run stopped half way leaves none of them listed
    try:
        listed = _manifest(store, asset) or {}
    except StoreError:
        listed = {}  # unreadable: made again from the shards this run completes
    listed = {shard: stamp for shard, stamp in listed.items() if shard not in context.partition_keys}
    _write_manifest(store, asset, listed)
    errors: dict[str, str] = {}
    written, reused, rows, questions_made = 0, 0, 0, 0
    versions: list[str] = []
    frames: list[pd.DataFrame] = []
    endpoint_failed: str | None = None
    for shard in context.partition_keys:
        if endpoint_failed is not None:
            errors[shard] = f"not attempted: {endpoint_failed}"
            continue
        try:
            own, common = question_stamps(slices(shard))
            stamp = {
                SHARED_STAMP: shared,
                "inputs": _digest([common, own]),
                "build_key": code_version,
                QUESTION_STAMPS: own,
            }
            stored = _stored_stamp(store, asset, shard)
            frame = _read_stored(store, asset, shard) if stored == stamp else None
            if frame is not None:
                reused += 1
            else:
                in_part = _made_again_in_part(store, asset, shard, stored, stamp, work)
                if in_part is None:
                    frame, made = work(shard, None), len(own)
                else:
                    frame, made = in_part
                if len(frame) and ORDER_COLUMN not in frame.columns:
                    raise ValueError(f"{asset}'s shard {shard} has no {ORDER_COLUMN} column to be read back in order")
                frame = _in_order(frame)
                store.write(asset, frame, shard, stamp=stamp)
                written += 1
                questions_made += made
        except _EXPECTED_ERRORS as exc:
            errors[shard] = f"{type(exc).__name__}: {exc}"
            context.log.error(f"shard {shard}: {errors[shard]}")
            if isinstance(exc, _ENDPOINT_ERRORS):
                endpoint_failed = f"shard {shard}'s endpoint failed ({type(exc).__name__})"
            continue
        listed[shard] = stamp
        rows += len(frame)
        versions.append(content_version(frame))
        frames.append(frame)
    _write_manifest(store, asset, listed)
    if errors:
        raise dg.Failure(
            description="; ".join(f"shard {shard}: {message}" for shard, message in sorted(errors.items())),
            metadata={"failed_shards": dg.MetadataValue.json(errors)},
        )
    together = in_corpus_order(pd.concat([f for f in frames if len(f)], ignore_index=True)) if rows else pd.DataFrame()
    figures = {
        "shards_written": written,
        "shards_reused": reused,
        "questions_made_again": questions_made,
        "rows": rows,
        **metadata(together),
    }
    data_version = dg.DataVersion(versions[0]) if len(versions) == 1 else None
    return dg.MaterializeResult(metadata=figures, data_version=data_version)


def passage_slices(golden: pd.DataFrame, retrieved: pd.DataFrame, texts: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """What a shard of a step that reads the answerer's passages is built from, question by question: the golden
    questions (`golden`: indexed by question_id) and answerer retrievals (`retrieved`) of its questions, and the text
    of each chunk each question read, in its order (`texts`: by chunk id, a dict or a Series)."""
    return {
        "answerer_retrievals": retrieved,
        "golden_questions": golden.loc[retrieved.question_id].reset_index(),
        "passages": pd.DataFrame(
            {
                "question_id": retrieved.question_id.to_numpy(),
                "texts": [
                    hashlib.sha256("\x1f".join(texts[chunk] for chunk in ids).encode()).hexdigest()
                    for ids in retrieved.chunk_ids
                ],
            }
        ),
    }


def answerer_shard_rows(
    golden_questions: pd.DataFrame, retrieved: pd.DataFrame, shard: str, only: Set[str] | None = None
) -> pd.DataFrame:
    """The answerer's retrievals of a shard's questions (of `only`, when given): none in the corpus shard, since the
    answerer searches a company's filings of a year."""
    if not shard_scopes(shard, (COMPANY_YEAR,)):
        return retrieved.iloc[:0]
    own = shard_questions(golden_questions, shard, only).question_id
    return cast(pd.DataFrame, retrieved[retrieved.question_id.isin(own)])
