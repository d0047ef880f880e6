"""Filings as dynamic partitions of the instance, kept in step with the corpus folder.

Loading the definitions reads no corpus or data folder: the filing partitions live in the instance. They are added
(and a vanished filing's partition removed) by `edgar-eval run` / `fetch` before a run, and by the `corpus_sensor` in
a deployment. Each filing document is the external asset `filing_documents`, observed with its sha256 as its data
version: a changed document makes its `filings` partition stale, and the corpus assets' eager automation condition
rebuilds it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from edgar_eval.adapters.corpus_pins import Document, check_pins, read_documents, stray_demo_documents
from edgar_eval.adapters.local_corpus import list_filings, write_demo_corpus
from edgar_eval.defs.history_queries import chunks
from edgar_eval.defs.run_tags import DATA_VERSION_TAG
from edgar_eval.defs.settings import CORPUS_DIR_ENV, DEMO_CORPUS_ENV, EvalSettings
from edgar_eval.defs.source_files import source_file_changes

FILINGS_NAME = "filings"


FILINGS = dg.DynamicPartitionsDefinition(name=FILINGS_NAME)


FILING_DOCUMENTS = dg.AssetKey("filing_documents")


@dg.observable_source_asset(
    key=FILING_DOCUMENTS,
    partitions_def=FILINGS,
    group_name="corpus",
    description="The filing documents of the corpus folder, one per partition, as filed: the graph's only input. "
    "Observed (not materialised) with the document's sha256 as its data version, by `edgar-eval run`, by the corpus "
    "sensor, or from the UI; a new version makes the partition's corpus assets stale.",
)
def filing_documents(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.DataVersionsByPartition:
    documents = corpus_documents(settings)
    return dg.DataVersionsByPartition({key: documents[key] for key in context.partition_keys if key in documents})


@dataclass(frozen=True)
class CorpusChanges:
    """What the corpus folder holds against the instance's filing partitions."""

    documents: dict[str, str]  # partition key -> sha256 of the document now in the folder
    added: list[str]  # partitions to add: documents the instance does not know
    removed: list[str]  # partitions to delete: their documents left the folder
    changed: list[str]  # documents whose sha256 differs from their last observation (new ones included)

    def observations(self) -> list[dg.AssetObservation]:
        return [
            dg.AssetObservation(
                FILING_DOCUMENTS,
                partition=key,
                tags={DATA_VERSION_TAG: self.documents[key]},
                metadata={"sha256": self.documents[key]},
            )
            for key in self.changed
        ]


def checked_corpus(settings: EvalSettings) -> dict[str, Document]:
    """Each filing document of the corpus folder by partition key, in key order, with its sha256 and size, the corpus
    checked before any work: each row of its manifest.csv pins a document of the folder at the bytes and sha256 the
    file has, and no two documents are byte-identical (`corpus_pins.check_pins`). The demo corpus is written first
    (generated from a fixed seed: the same bytes every time), and its folder holds nothing else: reports/demo is made
    from the generated filings only. A folder without a filing, or one that fails a check, is refused in one line."""
    root = Path(settings.corpus_dir)
    listed = {key: path.relative_to(root).as_posix() for key, path in corpus_files(settings).items()}
    named = f"corpus folder {settings.corpus_dir} (--corpus, {CORPUS_DIR_ENV})"
    if settings.is_demo:
        named = f"demo corpus folder {settings.corpus_dir} ({DEMO_CORPUS_ENV})"
    if settings.is_demo:
        strays = stray_demo_documents(listed)
        if strays:
            raise ValueError(
                f"{named} holds {strays[0]}{f' and {len(strays) - 1} more' if len(strays) > 1 else ''}, not a filing "
                "of the generated demo corpus: the demo's report is made from the generated filings only (move it "
                "out, or run it as a corpus of its own with --corpus)"
            )
    try:
        documents = read_documents(settings.corpus_dir, listed)
        check_pins(settings.corpus_dir, documents)
    except ValueError as exc:  # a manifest that disagrees with the folder, or one filing under two names
        raise ValueError(f"{named}: {exc}") from None
    except OSError as exc:  # a document that cannot be read
        raise ValueError(f"{named}: {exc.filename}: {exc.strerror or exc}") from None
    return documents


def corpus_files(settings: EvalSettings) -> dict[str, Path]:
    """Each filing document of the corpus folder by partition key, in key order; the demo corpus is written first
    (generated from a fixed seed: the same bytes every time). A folder without a filing is refused in one line. What
    a corpus asset reads its filing through: the folder's pins are checked before any work (`checked_corpus`, by the
    CLI, the sensor and the observation), so that a check added there moves no corpus asset's code version."""
    if settings.is_demo:
        write_demo_corpus(settings.corpus_dir)
    try:
        listed = list_filings(settings.corpus_dir)
    except ValueError as exc:  # two documents with one partition key
        raise ValueError(f"corpus folder {settings.corpus_dir} (--corpus, {CORPUS_DIR_ENV}): {exc}") from None
    if not listed:
        raise ValueError(f"corpus folder {settings.corpus_dir} (--corpus, {CORPUS_DIR_ENV}) holds no .htm filing")
    return {key: Path(settings.corpus_dir) / relative for key, relative in sorted(listed.items())}


def corpus_documents(settings: EvalSettings) -> dict[str, str]:
    """Each filing document's sha256, by partition key, the corpus checked (`checked_corpus`)."""
    return {key: document.sha256 for key, document in checked_corpus(settings).items()}


def corpus_changes(instance: dg.DagsterInstance, settings: EvalSettings) -> CorpusChanges:
    documents = corpus_documents(settings)
    known = set(instance.get_dynamic_partitions(FILINGS_NAME))
    # every document's last observed sha256 in one query (one per document took 3 ms each: 30 s at 10,000 filings)
    observed: dict[str, Mapping[str, str]] = {}
    for keys in chunks(list(documents)):
        observed.update(
            instance.event_log_storage.get_latest_tags_by_partition(
                FILING_DOCUMENTS, dg.DagsterEventType.ASSET_OBSERVATION, [DATA_VERSION_TAG], asset_partitions=list(keys)
            )
        )
    changed = [key for key, sha256 in documents.items() if observed.get(key, {}).get(DATA_VERSION_TAG) != sha256]
    return CorpusChanges(
        documents=documents,
        added=sorted(set(documents) - known),
        removed=sorted(known - set(documents)),
        changed=changed,
    )


def sync_filings(instance: dg.DagsterInstance, settings: EvalSettings) -> CorpusChanges:
    """Bring the instance's filing partitions and document observations in step with the folder, now (the CLI)."""
    changes = corpus_changes(instance, settings)
    if changes.added:
        instance.add_dynamic_partitions(FILINGS_NAME, changes.added)
    for key in changes.removed:
        instance.delete_dynamic_partition(FILINGS_NAME, key)
    for observation in changes.observations():
        instance.report_runless_asset_event(observation)
    return changes


@dg.sensor(
    name="corpus_sensor",
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Watches the corpus folder: adds a filing partition for each new document, removes the partition of "
    "one that left, and observes each new or changed document's sha256 on `filing_documents`, from which the corpus "
    "assets' eager condition rebuilds that partition. Observes the files beside the graph too (protocol, reviews, "
    "policies, baselines, fixtures, tapes, proposals), so an edited file marks what reads it stale.",
)
def corpus_sensor(context: dg.SensorEvaluationContext, settings: EvalSettings) -> dg.SensorResult:
    changes = corpus_changes(context.instance, settings)
    requests = []
    if changes.added:
        requests.append(FILINGS.build_add_request(changes.added))
    if changes.removed:
        requests.append(FILINGS.build_delete_request(changes.removed))
    observations = [*changes.observations(), *source_file_changes(context.instance, settings)]
    return dg.SensorResult(dynamic_partitions_requests=requests, asset_events=observations)
