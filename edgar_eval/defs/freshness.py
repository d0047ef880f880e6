"""Is a run's work already done? A run launched by `edgar-eval run` carries the digest of everything its outputs are a
function of (its inputs); a later run with the same inputs is not launched when what runs with those inputs
materialised is still the latest materialisation of every asset it would build, and still stored and readable.

What a run reads, besides the tables the run history versions:
- a corpus partition: the filing's bytes, the corpus manifest, the code of the corpus assets (their code versions),
  the settings the corpus job reads (`settings.CORPUS_FIELDS`), the embedder's, and the installed packages' versions;
- the evaluation: every current filing partition's corpus tables (their data versions), the package's source, the
  settings, the embedder's and the generator's, the installed packages' versions, and the files it reads beside the
  graph (protocols, reviews, policies, baselines, the release fixture, the proposal files, and the model tapes when a
  component calls a model).

A setting enters a digest only when a component the run uses reads it (`EvalSettings.read_by_evaluation`, the
resources' `read_settings`): the OpenAI-compatible embedder's URL under the local embedder, or the proposer's model
without its URL, relaunches nothing. A test records every file the evaluation opens and fails when one lies outside
these inputs, the store and the report folder; another records the settings the corpus job reads. A generator or
proposer that calls a live model is never taken as unchanged: the model answers anew.

What a run wrote counts as there only when it can be read: a stored table whose Parquet footer or schema cannot be
read (overwritten, cut short) relaunches the run that makes it, which rebuilds that table and reuses the rest; a file
a materialisation names that is gone (a deleted report.md, a removed table) relaunches, for the evaluation, only the
asset that wrote it (the report is written again from the stored tables, no evaluation step re-run).

This decides only whether to launch a run; inside a run each corpus partition still reuses a table built from the same
bytes by the same code (`common.materialize_partitions`), so a skipped check would cost time, never a wrong table.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, NamedTuple

import dagster as dg

from edgar_eval.adapters.local_corpus import partition_key, read_manifest
from edgar_eval.adapters.parquet_store import location, table_problem
from edgar_eval.defs.code_versions import installed_packages
from edgar_eval.defs.history_queries import chunks
from edgar_eval.defs.report.assets import code_version
from edgar_eval.defs.run_tags import DATA_VERSION_TAG
from edgar_eval.defs.settings import MODEL_GENERATORS, EmbedderResource, EvalSettings, GeneratorResource
from edgar_eval.defs.shards import MANIFEST, SHARDS
from edgar_eval.defs.source_files import SOURCE_FILES, TAPE_FILES
from edgar_eval.evaluation.shards import SHARD_KEYS

INPUTS_TAG = "edgar-eval/inputs"  # the digest of a run's inputs, on every run `edgar-eval run` launches
NEVER_MATERIALISED = "never materialised"  # how a run that has never been made is told from one made again
_MATERIALISATION = dg.DagsterEventType.ASSET_MATERIALIZATION


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


def corpus_inputs(
    settings: EvalSettings, embedder: EmbedderResource, asset_graph, document_sha256: str, filed: str | None = None
) -> RunInputs:
    """A filing partition's inputs: its document's sha256, the corpus assets' code versions, the settings the corpus
    job reads, the embedder's, and its own manifest row's filing date (`filed`, all `filings` reads of the manifest).
    Not the whole manifest: a row added or changed for another filing makes no other partition stale."""
    code = {key.to_user_string(): asset_graph.get(key).code_version for key in corpus_asset_keys(asset_graph)}
    return RunInputs.of(
        {
            "document": document_sha256,
            "filed": filed,
            "code": code,
            "settings": settings.read_by_corpus(),
            "embedder": embedder.read_settings(),
            "packages": installed_packages(),
        }
    )


def evaluation_files(settings: EvalSettings, generator: GeneratorResource) -> list[Path]:
    """The files the evaluation reads beside the graph (source_files.SOURCE_FILES): whole folders, so a file a later
    version starts reading there is covered without a change here (the audit test names any it reads elsewhere). The
    corpus's tapes count only where something calls a model through them (a model generator, the proposer)."""
    return [
        path
        for source in SOURCE_FILES
        if source is not TAPE_FILES or settings.uses_tapes(generator)
        for _, path in source.files(settings)
    ]


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
    if generator.kind in MODEL_GENERATORS and settings.tape_mode != "replay":
        live = f"the generator {generator.kind} calls a live model (tape {settings.tape_mode})"
    elif settings.proposer_on and settings.tape_mode != "replay":
        live = f"the proposer {settings.proposer_model} is a live model (tape {settings.tape_mode})"
    return RunInputs.of(
        {
            "partitions": keys,
            "corpus": corpus,
            "code": code_version(),
            "settings": settings.read_by_evaluation(generator),
            "embedder": embedder.read_settings(),
            "generator": generator.read_settings(),
            "packages": installed_packages(),
        },
        evaluation_files(settings, generator),
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


Latest = Mapping[dg.AssetKey, dg.EventLogRecord | None]  # each asset's latest materialisation (of one partition)


def _latest(instance: dg.DagsterInstance, keys: Iterable[dg.AssetKey]) -> Latest:
    """The unpartitioned assets' latest materialisations (the evaluation's; the filing partitions' are read for all
    partitions at once, `_latest_by_partition`)."""
    # one query per asset, by the highest event id: the asset table's `last_materialization` column (one query for
    # all of them) is whichever write landed last, which two runs writing at once can leave at the older event
    latest: dict[dg.AssetKey, dg.EventLogRecord | None] = {}
    for key in keys:
        records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=key), limit=1).records
        latest[key] = records[0] if records else None
    return latest


def _latest_by_partition(
    instance: dg.DagsterInstance, keys: Iterable[dg.AssetKey], partitions: Iterable[str]
) -> Mapping[str, Latest]:
    """`_latest` of every partition at once: per asset, one query for each partition's latest materialisation and one
    for those records, instead of a query per asset and partition (a warm run over 10,000 filings asks 70,000)."""
    wanted = sorted(set(partitions))
    found: dict[str, dict[dg.AssetKey, dg.EventLogRecord | None]] = {p: {} for p in wanted}
    for key in keys:
        storage_ids: dict[str, int] = {}
        for part in chunks(wanted):
            storage_ids.update(instance.get_latest_storage_id_by_partition(key, _MATERIALISATION, set(part)))
        by_id = {
            record.storage_id: record
            for ids in chunks(sorted(storage_ids.values()))
            for record in instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=key, storage_ids=list(ids)), limit=len(ids)
            ).records
        }
        for partition in wanted:
            storage_id = storage_ids.get(partition)
            found[partition][key] = by_id.get(storage_id) if storage_id is not None else None
    return found


class Verdict(NamedTuple):
    """Whether a run's work is current: the inputs it would record, why it has to be launched (None: it is current),
    and, when the one reason is stored files that are gone or tables that cannot be read, the assets to make again
    (with every asset their steps make): the rest of the run's work is current and stays as it is."""

    inputs: RunInputs
    reason: str | None
    remake: tuple[dg.AssetKey, ...] = ()


def _here(path: str, recorded: Mapping[str, object], where: Mapping[str, str]) -> str:
    """A file a run recorded (a report, a review sheet), where it is to be found now: under the data or reports folder
    the run was given, the same place under today's. Where things are kept enters no digest (settings.WHERE_FIELDS),
    so a store moved or copied keeps its work, and what it wrote is looked for where it now is: a report missing from
    a new reports folder is written again (from the stored tables), not taken as there because the old one is."""
    for field, now in where.items():
        then = recorded.get(field)
        if isinstance(then, str) and then and now and then != now:
            root = then.rstrip("/")
            if path == root or path.startswith(root + "/"):
                return now.rstrip("/") + path[len(root) :]
    return path


def _staleness(
    instance: dg.DagsterInstance,
    inputs: RunInputs,
    keys: Iterable[dg.AssetKey],
    stored: Mapping[dg.AssetKey, Path | str],
    latest: Latest | None = None,
    runs: Mapping[str, dg.DagsterRun] | None = None,
    where: Mapping[str, str] | None = None,
) -> tuple[str | None, list[dg.AssetKey]]:
    """Why the run has to be launched (None: it need not), and the assets whose stored files are gone, or whose
    tables cannot be read, when that is the one reason. `latest`: each asset's latest materialisation (a filing
    partition's, read with every other partition's), else the unpartitioned assets' asked here; `runs`: the runs that
    made them, read at once, else asked one by one; `where`: today's folders (`data_dir`, `reports_dir`), where a file
    a run recorded under the folder it was given is looked for now (`_here`)."""
    if inputs.live:
        return inputs.live, []
    latest = _latest(instance, keys) if latest is None else latest
    # named by asset: a shard's key (`retriever_rankings/03`) by its asset's
    missing = sorted({key.path[0] for key, record in latest.items() if record is None})
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return f"{NEVER_MATERIALISED}: {', '.join(missing[:3])}{more}", []
    # Each asset's latest materialisation is from a successful run with these inputs: one run, or one run and the
    # runs that made again a table it could not read (each with the same inputs, so the same tables).
    made_by: dict[str, list[str]] = {}
    for key, record in latest.items():
        if record is not None:
            made_by.setdefault(record.run_id, []).append(key.to_user_string())
    recorded: dict[str, Mapping[str, object]] = {}  # each run's settings, as it was launched with them
    for run_id, made in sorted(made_by.items()):
        run = (runs.get(run_id) if runs is not None else instance.get_run_by_id(run_id)) if run_id else None
        if run is not None:
            resources = run.run_config.get("resources")
            settings = resources.get("settings") if isinstance(resources, dict) else None
            recorded[run_id] = settings.get("config", {}) if isinstance(settings, dict) else {}
        if run is None:
            return f"{made[0]} was last materialised outside any run (reported by hand)", []
        if run.status != dg.DagsterRunStatus.SUCCESS:
            return "the run that made them did not succeed", []
        if run.tags.get(INPUTS_TAG) != inputs.digest:
            return ("inputs changed" if INPUTS_TAG in run.tags else "made by a run that recorded no inputs"), []
    written = [(key, location(str(path))) for key, path in stored.items()] + [
        (key, location(_here(str(entry.value), recorded.get(record.run_id, {}), where or {})))
        for key, record in latest.items()
        if record is not None and record.asset_materialization is not None
        for entry in record.asset_materialization.metadata.values()
        if isinstance(entry, dg.PathMetadataValue)
    ]
    # a file gone (a report deleted, a table removed) is made again by the asset that wrote it, and only by it: the
    # rest of the run's work is current, as it is for a table that cannot be read
    gone = {(str(path), key) for key, path in written if not path.is_file()}
    if gone:
        files = sorted({path for path, _ in gone})
        return f"{len(files)} stored files are gone ({files[0]})", sorted({key for _, key in gone}, key=str)
    # read from each table's footer and schema, not its rows: a table overwritten or cut short is made again
    unreadable = [
        (key, path, problem)
        for key, path in written
        if path.suffix == ".parquet" and (problem := table_problem(path)) is not None
    ]
    if unreadable:
        _, path, problem = unreadable[0]
        tables = "1 stored table" if len(unreadable) == 1 else f"{len(unreadable)} stored tables"
        return f"{tables} cannot be read ({path}: {problem})", sorted({key for key, _, _ in unreadable}, key=str)
    return None, []


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

    @functools.cached_property
    def _filed_by_partition(self) -> dict[str, str | None]:
        """Each partition's manifest filing date: the manifest read once per run, not once per partition."""
        manifest = read_manifest(self.settings.corpus_dir)
        return {partition_key(path): row.get("filed") or None for path, row in manifest.items()}

    def corpus(self, partition: str, document_sha256: str) -> Verdict:
        """A filing partition's run: launched whole whatever the reason (inside it, each table it can read and that
        was built from the same bytes and code is reused, so an unreadable one is the only one made again)."""
        return self.corpus_verdicts({partition: document_sha256})[partition]

    def _where(self) -> dict[str, str]:
        """Today's data and reports folders, where the files a run recorded are looked for (`_here`)."""
        return {"data_dir": self.settings.data_dir, "reports_dir": self.settings.reports_dir}

    def corpus_verdicts(self, documents: Mapping[str, str]) -> dict[str, Verdict]:
        """`corpus` of every partition of `documents` (partition -> its document's sha256), the run history read once
        for all of them: per corpus asset, the partitions' latest materialisations, then the runs that made them."""
        latest = _latest_by_partition(self.instance, self.corpus_keys, documents)
        made_by = sorted(
            {r.run_id for by_key in latest.values() for r in by_key.values() if r is not None and r.run_id}
        )
        runs = {
            run.run_id: run
            for ids in chunks(made_by)
            for run in self.instance.get_runs(dg.RunsFilter(run_ids=list(ids)))
        }
        store = self.settings.store()
        verdicts = {}
        for partition, document_sha256 in documents.items():
            filed = self._filed_by_partition.get(partition)
            inputs = corpus_inputs(self.settings, self.embedder, self.graph, document_sha256, filed)
            stored = {key: store.path(key.to_user_string(), partition) for key in self.corpus_keys}
            reason, _ = _staleness(
                self.instance, inputs, self.corpus_keys, stored, latest[partition], runs, self._where()
            )
            verdicts[partition] = Verdict(inputs, reason)
        return verdicts

    def evaluation(self, partitions: Iterable[str]) -> Verdict:
        """The evaluation run: when its one reason is files gone or tables that cannot be read, only the assets that
        make them. A sharded asset counts shard by shard (`asset/shard`): each shard's latest materialisation and
        stored table."""
        inputs = evaluation_inputs(self.settings, self.embedder, self.generator, self.instance, self.graph, partitions)
        sharded = [key for key in self.evaluation_keys if self.graph.get(key).partitions_def == SHARDS]
        latest = dict(_latest(self.instance, [key for key in self.evaluation_keys if key not in sharded]))
        stored: dict[dg.AssetKey, Path | str] = {}
        store = self.settings.store()
        for shard, by_key in _latest_by_partition(self.instance, sharded, SHARD_KEYS).items():
            for key, record in by_key.items():
                latest[_shard_key(key, shard)] = record
                stored[_shard_key(key, shard)] = str(store.path(key.to_user_string(), shard))
        for key in sharded:  # the list of the shards its runs completed, which whatever reads them reads first
            stored[_shard_key(key, MANIFEST)] = str(store.path(key.to_user_string(), MANIFEST))
        reason, unreadable = _staleness(
            self.instance, inputs, sorted(latest, key=str), stored, latest, where=self._where()
        )
        made_by = {_shard_key(key, shard): key for key in sharded for shard in (*SHARD_KEYS, MANIFEST)}
        remake = {
            sibling for key in unreadable for sibling in self.graph.get(made_by.get(key, key)).execution_set_asset_keys
        }
        return Verdict(inputs, reason, tuple(sorted(remake, key=str)))


def _shard_key(key: dg.AssetKey, shard: str) -> dg.AssetKey:
    """How one shard of a sharded asset is named in a verdict (`retriever_rankings/03`)."""
    return dg.AssetKey([*key.path, shard])
