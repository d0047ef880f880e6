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

from edgar_eval.adapters.local_corpus import list_filings, partition_key, read_manifest
from edgar_eval.adapters.parquet_store import DATA_VERSION_STAMP, location, table_footer
from edgar_eval.defs.code_versions import installed_packages
from edgar_eval.defs.common import COPIED_FROM
from edgar_eval.defs.history_queries import chunks
from edgar_eval.defs.report.assets import code_version
from edgar_eval.defs.run_tags import CORPUS_TAG, DATA_VERSION_TAG
from edgar_eval.defs.settings import MODEL_GENERATORS, EmbedderResource, EvalSettings, GeneratorResource
from edgar_eval.defs.shards import MANIFEST, SHARDS
from edgar_eval.defs.source_files import SOURCE_FILES, TAPE_FILES
from edgar_eval.evaluation.shards import SHARD_KEYS

INPUTS_TAG = "edgar-eval/inputs"  # the digest of a run's inputs, on every run `edgar-eval run` launches
# the digest of the evaluation's inputs before generation, on every evaluation run `edgar-eval run` launches
INPUTS_BEFORE_GENERATION_TAG = "edgar-eval/inputs-before-generation"
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
    settings: EvalSettings,
    embedder: EmbedderResource,
    asset_graph,
    document_sha256: str,
    filed: str | None = None,
    place: str | None = None,
) -> RunInputs:
    """A filing partition's inputs: its document's sha256, the corpus assets' code versions, the settings the corpus
    job reads, the embedder's, its own manifest row's filing date (`filed`, all `filings` reads of the manifest) and
    the document's place in the corpus folder (`place`, which its `filings` row holds). Not the whole manifest: a row
    added or changed for another filing makes no other partition stale."""
    code = {key.to_user_string(): asset_graph.get(key).code_version for key in corpus_asset_keys(asset_graph)}
    return RunInputs.of(
        {
            "document": document_sha256,
            "filed": filed,
            "place": place,
            "code": code,
            "settings": settings.read_by_corpus(),
            "embedder": embedder.read_settings(),
            "packages": installed_packages(),
        }
    )


def evaluation_files(
    settings: EvalSettings, generator: GeneratorResource | None, read: Iterable[dg.AssetKey] | None = None
) -> list[Path]:
    """The files the evaluation reads beside the graph (source_files.SOURCE_FILES): whole folders, so a file a later
    version starts reading there is covered without a change here (the audit test names any it reads elsewhere). The
    corpus's tapes count only where something calls a model through them (a model generator, the proposer; before
    generation, `generator` None, the proposer alone). `read`: only the groups of files these source assets name
    (those the steps before generation declare they read)."""
    wanted = None if read is None else set(read)
    return [
        path
        for source in SOURCE_FILES
        if (source is not TAPE_FILES or settings.uses_tapes(generator)) and (wanted is None or source.key in wanted)
        for _, path in source.files(settings)
    ]


def evaluation_inputs(
    settings: EvalSettings,
    embedder: EmbedderResource,
    generator: GeneratorResource | None,
    instance: dg.DagsterInstance,
    asset_graph,
    partitions: Iterable[str],
    versions: Mapping[str, Mapping[str, str | None]] | None = None,
    files_read: Iterable[dg.AssetKey] | None = None,
) -> RunInputs:
    """The evaluation's inputs: every current filing partition's corpus tables by data version (`versions`, when
    read already: `corpus_versions`), the package source, the three resources, and the files it reads beside the
    graph (`files_read`: only these groups). `generator` None: the inputs of the steps before generation, which read
    no generator and its tapes only through the proposer."""
    keys = sorted(partitions)
    corpus = corpus_versions(settings, instance, asset_graph, keys) if versions is None else versions
    live = None
    if generator is not None and generator.kind in MODEL_GENERATORS and settings.tape_mode != "replay":
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
            "generator": generator.read_settings() if generator is not None else None,
            "packages": installed_packages(),
        },
        evaluation_files(settings, generator, files_read),
        live,
    )


def corpus_versions(
    settings: EvalSettings,
    instance: dg.DagsterInstance,
    asset_graph,
    partitions: Iterable[str],
    known: dict[int, dg.EventLogRecord] | None = None,
    runs: dict[str, dg.DagsterRun] | None = None,
) -> dict[str, dict[str, str | None]]:
    """Each corpus asset's data version in each of these partitions, as this corpus's latest runs made them
    (`_this_corpus`): another corpus holding the same filing under other bytes changes none of them. `known`, `runs`:
    the records and runs read before (`_latest_by_partition`), added to."""
    versions: dict[str, dict[str, str | None]] = {}
    latest = _latest_by_partition(instance, corpus_asset_keys(asset_graph), sorted(partitions), known)
    for partition, by_key in _this_corpus_by_partition(
        instance, latest, settings.corpus_name, {} if runs is None else runs
    ).items():
        for key, record in by_key.items():
            versions.setdefault(key.to_user_string(), {})[partition] = _recorded_version(record)
    return versions


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
    instance: dg.DagsterInstance,
    keys: Iterable[dg.AssetKey],
    partitions: Iterable[str],
    known: dict[int, dg.EventLogRecord] | None = None,
) -> Mapping[str, Latest]:
    """`_latest` of every partition at once: per asset, one query for each partition's latest materialisation and one
    for those records, instead of a query per asset and partition (a warm run over 10,000 filings asks 70,000).
    `known`: records read before, by storage id (a record never changes), fetched not again and added to."""
    wanted = sorted(set(partitions))
    known = {} if known is None else known
    found: dict[str, dict[dg.AssetKey, dg.EventLogRecord | None]] = {p: {} for p in wanted}
    for key in keys:
        storage_ids: dict[str, int] = {}
        for part in chunks(wanted):
            storage_ids.update(instance.get_latest_storage_id_by_partition(key, _MATERIALISATION, set(part)))
        unread = sorted(set(storage_ids.values()) - set(known))
        for ids in chunks(unread):
            for record in instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=key, storage_ids=list(ids)), limit=len(ids)
            ).records:
                known[record.storage_id] = record
        for partition in wanted:
            storage_id = storage_ids.get(partition)
            found[partition][key] = known.get(storage_id) if storage_id is not None else None
    return found


class Verdict(NamedTuple):
    """Whether a run's work is current: the inputs it would record, why it has to be launched (None: it is current),
    and, when the rest of the run's work is current and stays as it is, the assets to make again (with every asset
    their steps make): those whose stored files are gone or tables cannot be read, or, when only what the generator
    reads changed, every step from generation on. `before`: the evaluation's inputs before generation."""

    inputs: RunInputs
    reason: str | None
    remake: tuple[dg.AssetKey, ...] = ()
    before: RunInputs | None = None


def _this_corpus_by_partition(
    instance: dg.DagsterInstance, latest: Mapping[str, Latest], corpus: str, runs: dict[str, dg.DagsterRun]
) -> Mapping[str, Latest]:
    """`_this_corpus` of every partition, the runs that made their latest materialisations read at once, and the walk
    back past another corpus's done per asset for every partition at once: pages of that asset's older
    materialisations of those partitions, newest first, until each partition has one this corpus made (or none is
    left), not a query per partition and asset. `runs` (the runs read so far) gains the runs read here."""
    runs.update(_runs_of(instance, [r.run_id for by_key in latest.values() for r in by_key.values() if r is not None]))
    found = {partition: dict(by_key) for partition, by_key in latest.items()}
    keys = sorted({key for by_key in latest.values() for key in by_key}, key=str)
    for key in keys:
        # each partition whose latest materialisation another corpus's run made: where its walk starts
        walking = {
            partition: record.storage_id
            for partition, by_key in latest.items()
            if (record := by_key.get(key)) is not None and _of_another_corpus(runs.get(record.run_id), corpus)
        }
        for partition in walking:
            found[partition][key] = None
        for part in chunks(sorted(walking)):
            left = {partition: walking[partition] for partition in part}
            cursor = None
            while left:
                page = instance.fetch_materializations(
                    dg.AssetRecordsFilter(
                        asset_key=key, asset_partitions=list(left), before_storage_id=max(left.values())
                    ),
                    limit=_WALK_PAGE,
                    cursor=cursor,
                )
                runs.update(_runs_of(instance, [r.run_id for r in page.records if r.run_id not in runs]))
                for record in page.records:  # newest first
                    partition = record.partition_key
                    if partition in left and record.storage_id < left[partition]:
                        if not _of_another_corpus(runs.get(record.run_id), corpus):
                            found[partition][key] = record
                            del left[partition]
                if not page.has_more:
                    break
                cursor = page.cursor
    return found


def _runs_of(instance: dg.DagsterInstance, run_ids: Iterable[str]) -> dict[str, dg.DagsterRun]:
    """These runs, read in a few queries."""
    wanted = sorted({run_id for run_id in run_ids if run_id})
    return {run.run_id: run for ids in chunks(wanted) for run in instance.get_runs(dg.RunsFilter(run_ids=list(ids)))}


def _of_another_corpus(run: dg.DagsterRun | None, corpus: str) -> bool:
    return run is not None and run.tags.get(CORPUS_TAG, corpus) != corpus


_WALK_PAGE = 1000  # materialisations read at a time, looking back past other corpora's


def _this_corpus(instance: dg.DagsterInstance, latest: Latest, corpus: str, runs: dict[str, dg.DagsterRun]) -> Latest:
    """Each unpartitioned asset's latest materialisation that no run of another corpus made. A run of the graph's jobs
    names its corpus (`CORPUS_TAG`) and writes only into that corpus's folder, so what another corpus's run made,
    later, says nothing of this corpus's tables: a demo run after a larger corpus holding two demo filings finds its
    work as it left it. A materialisation whose run names no corpus (made from the UI by hand) counts for every
    corpus. `runs` (the runs read so far) gains the runs read here."""
    found: dict[dg.AssetKey, dg.EventLogRecord | None] = {}
    runs.update(_runs_of(instance, [r.run_id for r in latest.values() if r is not None and r.run_id not in runs]))
    for key, record in latest.items():
        while record is not None and _of_another_corpus(runs.get(record.run_id), corpus):
            page = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=key, before_storage_id=record.storage_id), limit=_WALK_PAGE
            )
            runs.update(_runs_of(instance, [r.run_id for r in page.records if r.run_id not in runs]))
            ours = [r for r in page.records if not _of_another_corpus(runs.get(r.run_id), corpus)]
            record = ours[0] if ours else (page.records[-1] if page.has_more else None)
        found[key] = record
    return found


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
    tag: str = INPUTS_TAG,
) -> tuple[str | None, list[dg.AssetKey]]:
    """Why the run has to be launched (None: it need not), and the assets whose stored files are gone, or whose
    tables cannot be read, when that is the one reason. `latest`: each asset's latest materialisation (a filing
    partition's, read with every other partition's), else the unpartitioned assets' asked here; `runs`: the runs that
    made them, read at once, else asked one by one; `where`: today's folders (`data_dir`, `reports_dir`), where a file
    a run recorded under the folder it was given is looked for now (`_here`); `tag`: the run tag holding the digest
    of `inputs` (a step before generation is current when made from the same inputs before generation)."""
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
        if run.tags.get(tag) != inputs.digest:
            return ("inputs changed" if tag in run.tags else "made by a run that recorded no inputs"), []
    # each file once: a filing partition's table is where the store keeps it and also the path its run names
    written = list(
        dict.fromkeys(
            [(key, location(str(path))) for key, path in stored.items()]
            + [
                (key, location(_here(str(entry.value), recorded.get(record.run_id, {}), where or {})))
                for key, record in latest.items()
                if record is not None and record.asset_materialization is not None
                for name, entry in record.asset_materialization.metadata.items()
                if isinstance(entry, dg.PathMetadataValue) and name != COPIED_FROM
            ]
        )
    )
    # a file gone (a report deleted, a table removed) is made again by the asset that wrote it, and only by it: the
    # rest of the run's work is current, as it is for a table that cannot be read
    gone = {(str(path), key) for key, path in written if not path.is_file()}
    if gone:
        files = sorted({path for path, _ in gone})
        return f"{len(files)} stored files are gone ({files[0]})", sorted({key for _, key in gone}, key=str)
    # read from each table's footer and schema, not its rows: a table overwritten or cut short is made again, and so
    # is one whose stamp names another data version than the run history recorded (another table's file in its place)
    footers = {(key, path): table_footer(path) for key, path in written if path.suffix == ".parquet"}
    unreadable = [(key, path, problem) for (key, path), (problem, _) in footers.items() if problem is not None]
    if unreadable:
        _, path, problem = unreadable[0]
        tables = "1 stored table" if len(unreadable) == 1 else f"{len(unreadable)} stored tables"
        return f"{tables} cannot be read ({path}: {problem})", sorted({key for key, _, _ in unreadable}, key=str)
    replaced = [
        (key, path)
        for (key, path), (_, stamp) in footers.items()
        if DATA_VERSION_STAMP in stamp and stamp[DATA_VERSION_STAMP] != _recorded_version(latest.get(key))
    ]
    if replaced:
        tables = "1 stored table is" if len(replaced) == 1 else f"{len(replaced)} stored tables are"
        return (
            f"{tables} not the one the run history recorded ({replaced[0][1]}: another data version)",
            sorted({key for key, _ in replaced}, key=str),
        )
    return None, []


def _recorded_version(record: dg.EventLogRecord | None) -> str | None:
    """The data version a materialisation recorded (None: none, or no materialisation)."""
    made = record.asset_materialization if record is not None else None
    return (made.tags or {}).get(DATA_VERSION_TAG) if made is not None else None


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
        # what this `edgar-eval run` read of the run history, read once: materialisations by storage id (a record
        # never changes; the filing partitions' are read before the corpus runs and again, for those that ran, before
        # the evaluation) and runs by id
        self._records: dict[int, dg.EventLogRecord] = {}
        self._runs: dict[str, dg.DagsterRun] = {}

    @functools.cached_property
    def _filed_by_partition(self) -> dict[str, str | None]:
        """Each partition's manifest filing date: the manifest read once per run, not once per partition."""
        manifest = read_manifest(self.settings.corpus_dir)
        return {partition_key(path): row.get("filed") or None for path, row in manifest.items()}

    @functools.cached_property
    def _place_by_partition(self) -> dict[str, str]:
        """Each partition's document, by its path in the corpus folder: the folder listed once per run."""
        return list_filings(self.settings.corpus_dir)

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
        latest = _this_corpus_by_partition(
            self.instance,
            _latest_by_partition(self.instance, self.corpus_keys, documents, self._records),
            self.settings.corpus_name,
            self._runs,
        )
        store = self.settings.store()
        verdicts = {}
        for partition, document_sha256 in documents.items():
            filed = self._filed_by_partition.get(partition)
            place = self._place_by_partition.get(partition)
            inputs = corpus_inputs(self.settings, self.embedder, self.graph, document_sha256, filed, place)
            stored = {key: store.path(key.to_user_string(), partition) for key in self.corpus_keys}
            reason, _ = _staleness(
                self.instance, inputs, self.corpus_keys, stored, latest[partition], self._runs, self._where()
            )
            verdicts[partition] = Verdict(inputs, reason)
        return verdicts

    def from_generation(self) -> set[dg.AssetKey]:
        """The evaluation's assets from generation on: those whose steps read the generator, everything downstream of
        them, and every asset their steps make. The rest (questions, retrievals, rankings) is the same whatever system
        answers."""
        readers = [
            key for key in self.evaluation_keys if "generator" in self.graph.get(key).assets_def.required_resource_keys
        ]
        downstream = dg.AssetSelection.assets(*readers).downstream().resolve(self.graph) & set(self.evaluation_keys)
        return {sibling for key in downstream for sibling in self.graph.get(key).execution_set_asset_keys}

    def evaluation(self, partitions: Iterable[str]) -> Verdict:
        """The evaluation run: when its one reason is files gone or tables that cannot be read, only the assets that
        make them; when what changed is read from generation on only (another system under test on the same corpus,
        a live model), only the steps from generation on (`from_generation`). A sharded asset counts shard by shard
        (`asset/shard`): each shard's latest materialisation and stored table."""
        partitions = sorted(partitions)
        versions = corpus_versions(self.settings, self.instance, self.graph, partitions, self._records, self._runs)
        inputs = evaluation_inputs(
            self.settings, self.embedder, self.generator, self.instance, self.graph, partitions, versions
        )
        corpus = self.settings.corpus_name
        sharded = [key for key in self.evaluation_keys if self.graph.get(key).partitions_def == SHARDS]
        unsharded = [key for key in self.evaluation_keys if key not in sharded]
        latest = dict(_this_corpus(self.instance, _latest(self.instance, unsharded), corpus, self._runs))
        stored: dict[dg.AssetKey, Path | str] = {}
        store = self.settings.store()
        for shard, by_key in _this_corpus_by_partition(
            self.instance, _latest_by_partition(self.instance, sharded, SHARD_KEYS, self._records), corpus, self._runs
        ).items():
            for key, record in by_key.items():
                latest[_shard_key(key, shard)] = record
                stored[_shard_key(key, shard)] = str(store.path(key.to_user_string(), shard))
        for key in sharded:  # the list of the shards its runs completed, which whatever reads them reads first
            stored[_shard_key(key, MANIFEST)] = str(store.path(key.to_user_string(), MANIFEST))
        made_by = {_shard_key(key, shard): key for key in sharded for shard in (*SHARD_KEYS, MANIFEST)}

        def stale(inputs: RunInputs, keys: Iterable[dg.AssetKey], tag: str) -> tuple[str | None, set[dg.AssetKey]]:
            """Why these keys' work is not current, and the assets to make again when only files are at fault."""
            chosen = set(keys)
            assets = {made_by.get(key, key) for key in chosen}
            reason, unreadable = _staleness(
                self.instance,
                inputs,
                sorted(chosen, key=str),
                {key: path for key, path in stored.items() if made_by.get(key, key) in assets},
                {key: record for key, record in latest.items() if key in chosen},
                self._runs,
                self._where(),
                tag,
            )
            execution_sets = (self.graph.get(made_by.get(key, key)).execution_set_asset_keys for key in unreadable)
            return reason, {sibling for siblings in execution_sets for sibling in siblings}

        # the inputs before generation: those files beside the graph only that the steps before it declare they read
        # (a baseline written for another generator, read by the regression gate alone, is not one of them)
        generation = self.from_generation()
        sources = {source.key for source in SOURCE_FILES}
        files_read = {
            parent
            for key in self.evaluation_keys
            if key not in generation
            for parent in self.graph.get(key).parent_keys
            if parent in sources
        }
        before = evaluation_inputs(
            self.settings, self.embedder, None, self.instance, self.graph, partitions, versions, files_read
        )
        reason, remake = stale(inputs, latest, INPUTS_TAG)
        if reason is None or remake:  # current, or made from the same inputs with files gone
            return Verdict(inputs, reason, tuple(sorted(remake, key=str)), before)
        # The steps before generation are current when made from the same inputs before generation (whatever system
        # answered in that run); then only those from generation on run.
        earlier, later = [], []
        for key in latest:
            (later if made_by.get(key, key) in generation else earlier).append(key)
        reason_earlier, remake = stale(before, earlier, INPUTS_BEFORE_GENERATION_TAG)
        if reason_earlier is not None and not remake:  # the questions or retrievals change: the whole evaluation
            return Verdict(inputs, reason, (), before)
        reasons = [reason_earlier] if reason_earlier else []
        reason_later, remake_later = stale(inputs, later, INPUTS_TAG)
        if reason_later is not None:
            reasons.append(reason_later if remake_later else f"from generation on, {reason_later}")
            remake |= remake_later or generation
        return Verdict(inputs, "; ".join(reasons) or None, tuple(sorted(remake, key=str)), before)


def _shard_key(key: dg.AssetKey, shard: str) -> dg.AssetKey:
    """How one shard of a sharded asset is named in a verdict (`retriever_rankings/03`)."""
    return dg.AssetKey([*key.path, shard])
