"""Is a run's work already done? A run launched by `edgar-eval run` carries the digest of everything its outputs are a
function of (its inputs); a later run with the same inputs is not launched when what that run materialised is still
the latest materialisation of every asset it would build, and still stored.

What a run reads, besides the tables the run history versions:
- a corpus partition: the filing's bytes, the corpus manifest, the code of the corpus assets (their code versions),
  the settings, the embedder, and the installed packages' versions;
- the evaluation: every current filing partition's corpus tables (their data versions), the package's source, the
  settings, the embedder and the generator, the installed packages' versions, and the files it reads beside the graph
  (protocols, reviews, policies, baselines, the release fixture, model tapes, the proposal files).

A test records every file the evaluation opens and fails when one lies outside these inputs, the store and the report
folder. A generator or proposer that calls a live model is never taken as unchanged: the model answers anew.

This decides only whether to launch a run; inside a run each corpus partition still reuses a table built from the same
bytes by the same code (`common.materialize_partitions`), so a skipped check would cost time, never a wrong table.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from importlib.metadata import distributions
from pathlib import Path
from typing import Iterable, Mapping

import dagster as dg
from dagster._core.definitions.data_version import DATA_VERSION_TAG

from edgar_eval.adapters.parquet_store import location
from edgar_eval.defs.report_assets import code_version
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource, project_home

INPUTS_TAG = "edgar-eval/inputs"  # the digest of a run's inputs, on every run `edgar-eval run` launches
_MATERIALISATION = dg.DagsterEventType.ASSET_MATERIALIZATION
_LIVE_GENERATORS = ("openai-compatible-chat", "external-rag")


@dataclass(frozen=True)
class RunInputs:
    """The digest of what a run reads, and the files beside the graph among them (for the audit test)."""

    digest: str
    files: tuple[Path, ...]
    live: str | None = None  # why the inputs cannot be taken as unchanged (a live model), or None

    @staticmethod
    def of(parts: Mapping[str, object], files: Iterable[Path] = (), live: str | None = None) -> "RunInputs":
        listed = tuple(sorted(set(files)))
        contents = {str(path): _file_sha256(path) for path in listed}
        canonical = json.dumps({"parts": parts, "files": contents}, sort_keys=True, default=str)
        return RunInputs(hashlib.sha256(canonical.encode()).hexdigest()[:32], listed, live)


def _file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "absent"


def _files_under(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.is_dir() else []


@functools.cache
def installed_packages() -> dict[str, str]:
    """Every installed distribution's version: an upgraded library (pandas, torch, bm25s) can move a figure."""
    return {dist.metadata["Name"]: dist.version for dist in distributions() if dist.metadata["Name"]}


def _resources(settings: EvalSettings, embedder: EmbedderResource) -> dict[str, object]:
    return {"settings": settings.model_dump(), "embedder": embedder.model_dump(), "packages": installed_packages()}


def corpus_inputs(settings: EvalSettings, embedder: EmbedderResource, asset_graph, document_sha256: str) -> RunInputs:
    """A filing partition's inputs: its document's sha256, the corpus assets' code versions, settings, embedder and
    the corpus manifest (read by `filings` for the filing date)."""
    code = {key.to_user_string(): asset_graph.get(key).code_version for key in corpus_asset_keys(asset_graph)}
    return RunInputs.of(
        {"document": document_sha256, "code": code, **_resources(settings, embedder)},
        [Path(settings.corpus_dir) / "manifest.csv"],
    )


def evaluation_files(settings: EvalSettings) -> list[Path]:
    """The files the evaluation reads beside the graph: whole folders, so a file a later version starts reading there
    is covered without a change here (the audit test names any it reads elsewhere)."""
    home, corpus = project_home(), settings.corpus_name
    folders = [
        home / "protocol",
        home / "reviews" / corpus,
        home / "policies" / corpus,
        home / "baselines" / corpus,
        home / "fixtures" / corpus,
        settings.tapes(),
    ]
    return [path for folder in folders for path in _files_under(folder)] + [Path(p) for p in settings.proposals]


def evaluation_inputs(
    settings: EvalSettings,
    embedder: EmbedderResource,
    generator: GeneratorResource,
    instance: dg.DagsterInstance,
    asset_graph,
    partitions: Iterable[str],
) -> RunInputs:
    """The evaluation's inputs: every current filing partition's corpus tables by data version, the package source,
    the three resources, and the files it reads beside the graph."""
    keys = sorted(partitions)
    corpus = {
        key.to_user_string(): instance.event_log_storage.get_latest_tags_by_partition(
            key, _MATERIALISATION, [DATA_VERSION_TAG], asset_partitions=keys
        )
        for key in corpus_asset_keys(asset_graph)
    }
    live = None
    if generator.kind in _LIVE_GENERATORS and settings.tape_mode != "replay":
        live = f"the generator {generator.kind} calls a live model (tape {settings.tape_mode})"
    elif settings.proposer_model and settings.proposer_url and settings.tape_mode != "replay":
        live = f"the proposer {settings.proposer_model} is a live model (tape {settings.tape_mode})"
    return RunInputs.of(
        {
            "partitions": keys,
            "corpus": corpus,
            "code": code_version(),
            "generator": generator.model_dump(),
            **_resources(settings, embedder),
        },
        evaluation_files(settings),
        live,
    )


def built_assets(asset_graph, groups: Iterable[str]) -> list[dg.AssetKey]:
    """The assets of these groups that a run builds (filing_documents is observed, not materialised), in key order."""
    wanted = set(groups)
    return sorted(
        (key for key in asset_graph.materializable_asset_keys if asset_graph.get(key).group_name in wanted), key=str
    )


def corpus_asset_keys(asset_graph) -> list[dg.AssetKey]:
    """The per-filing assets the corpus job builds."""
    return built_assets(asset_graph, ("corpus",))


def _latest(
    instance: dg.DagsterInstance, keys: Iterable[dg.AssetKey], partition: str | None
) -> dict[dg.AssetKey, dg.EventLogRecord | None]:
    latest: dict[dg.AssetKey, dg.EventLogRecord | None] = {}
    for key in keys:
        filter_ = dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition] if partition else None)
        records = instance.fetch_materializations(filter_, limit=1).records
        latest[key] = records[0] if records else None
    return latest


def why_not_current(
    instance: dg.DagsterInstance,
    inputs: RunInputs,
    keys: Iterable[dg.AssetKey],
    stored: Iterable[Path | str],
    partition: str | None = None,
) -> str | None:
    """None when one successful run with these inputs made the latest materialisation of every asset of `keys` (for
    `partition`) and every file it wrote (`stored`, and each path its materialisations name) is still there; else why
    the run has to be launched."""
    if inputs.live:
        return inputs.live
    latest = _latest(instance, keys, partition)
    missing = sorted(key.to_user_string() for key, record in latest.items() if record is None)
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return f"never materialised: {', '.join(missing[:3])}{more}"
    run_ids = {record.run_id for record in latest.values() if record is not None}
    if len(run_ids) != 1:
        return f"the latest materialisations come from {len(run_ids)} runs"
    run = instance.get_run_by_id(run_ids.pop())
    if run is None or run.status != dg.DagsterRunStatus.SUCCESS:
        return "the run that made them did not succeed"
    if run.tags.get(INPUTS_TAG) != inputs.digest:
        return "inputs changed" if INPUTS_TAG in run.tags else "made by a run that recorded no inputs"
    named = [
        entry.value
        for record in latest.values()
        if record is not None and record.asset_materialization is not None
        for entry in record.asset_materialization.metadata.values()
        if isinstance(entry, dg.PathMetadataValue)
    ]
    gone = [str(path) for path in [*stored, *named] if not location(str(path)).is_file()]
    if gone:
        return f"{len(gone)} stored files are gone ({gone[0]})"
    return None


class CurrentWork:
    """Answers, for the runs of one `edgar-eval run`, whether each is already done: the inputs it would record, and
    why it has to be launched (None: it is current)."""

    def __init__(self, defs: dg.Definitions, instance: dg.DagsterInstance) -> None:
        from edgar_eval.defs.jobs import EVALUATION_GROUPS

        resources = defs.resources or {}
        self.settings = resources["settings"]
        self.embedder = resources["embedder"]
        self.generator = resources["generator"]
        assert isinstance(self.settings, EvalSettings) and isinstance(self.embedder, EmbedderResource)
        assert isinstance(self.generator, GeneratorResource)
        self.instance = instance
        self.graph = defs.resolve_asset_graph()
        self.corpus_keys = corpus_asset_keys(self.graph)
        self.evaluation_keys = built_assets(self.graph, EVALUATION_GROUPS)

    def corpus(self, partition: str, document_sha256: str) -> tuple[RunInputs, str | None]:
        inputs = corpus_inputs(self.settings, self.embedder, self.graph, document_sha256)
        store = self.settings.store()
        stored = [store.path(key.to_user_string(), partition) for key in self.corpus_keys]
        return inputs, why_not_current(self.instance, inputs, self.corpus_keys, stored, partition)

    def evaluation(self, partitions: Iterable[str]) -> tuple[RunInputs, str | None]:
        inputs = evaluation_inputs(self.settings, self.embedder, self.generator, self.instance, self.graph, partitions)
        return inputs, why_not_current(self.instance, inputs, self.evaluation_keys, [])
