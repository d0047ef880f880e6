"""A warm re-run launches no run whose work is current, and relaunches one as soon as anything it reads has changed
or what it wrote is gone. Every file a run opens beside the graph is among the inputs its digest covers."""

import csv
import hashlib
import io
import os
import shutil
import sys
import threading
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import partition_key
from edgar_eval.defs import freshness, history_queries
from edgar_eval.defs.corpus.partitions import sync_filings
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.freshness import CurrentWork, evaluation_files
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource

PROJECT = Path(__file__).resolve().parents[1]

# what a run writes beside the tables, compared byte for byte where two ways of making it must agree
WRITTEN = ("report.md", "report.html", "receipt.json", "outcomes.json")

pytestmark = pytest.mark.slow(minutes=1.5)  # whole-graph runs: scheduled with the longest first

_OPENED: list[str] = []
_RECORDING = threading.Event()
# the compute function of each asset and check -> what it declares it reads: the step that opened a file is the
# innermost of these on the stack (the run executes in process)
_STEP_DEPS: dict[object, tuple[str, frozenset[dg.AssetKey]]] = {}
_OPENED_BY: list[tuple[str, frozenset[dg.AssetKey], str]] = []


def _opening_step() -> tuple[str, frozenset[dg.AssetKey]] | None:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code in _STEP_DEPS:
            return _STEP_DEPS[frame.f_code]
        frame = frame.f_back
    return None


def _record_open(event: str, args: tuple) -> None:
    if event == "open" and _RECORDING.is_set() and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))
        step = _opening_step()
        if step is not None:
            _OPENED_BY.append((*step, os.fsdecode(args[0])))


def _declared_reads(defs: dg.Definitions) -> dict[object, tuple[str, frozenset[dg.AssetKey]]]:
    """Each asset's and check's compute function, with its name and every asset it declares it reads."""
    graph = defs.resolve_asset_graph()
    steps = {}
    for assets_def in graph.assets_defs:
        if not assets_def.is_executable or assets_def.is_observable:  # the sources observe what they are
            continue
        compute = assets_def.op.compute_fn
        code = getattr(getattr(compute, "decorated_fn", compute), "__code__", None)
        reads = frozenset(key for asset in assets_def.keys for key in graph.get(asset).parent_keys)
        reads |= frozenset(dep.asset_key for spec in assets_def.check_specs for dep in spec.additional_deps or ())
        name = ", ".join(sorted(key.to_user_string() for key in assets_def.keys)) or assets_def.node_def.name
        steps[code] = (name, reads)
    return steps


sys.addaudithook(_record_open)  # audit hooks cannot be removed: it records only while the flag is set


def _outside(path: str, roots: list[Path]) -> bool:
    resolved = Path(path).resolve()
    return not any(resolved == root or root in resolved.parents for root in roots)


@pytest.fixture
def demo_run(tmp_path, monkeypatch):
    """A demo run in a project home of its own (a copy of the folders the evaluation reads beside the graph), so the
    test can change a file there."""
    from edgar_eval.defs.settings import EvalSettings

    home = tmp_path / "home"
    for folder in ("protocol", "reviews/demo", "policies/demo", "baselines/demo", "fixtures/demo"):
        shutil.copytree(PROJECT / folder, home / folder)
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(home))
    settings = EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="demo",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
        tapes_dir=str(tmp_path / "tapes"),
    )
    defs = build_definitions(settings)
    instance = dg.DagsterInstance.ephemeral()
    _STEP_DEPS.clear()
    _STEP_DEPS.update(_declared_reads(defs))
    _OPENED.clear()
    _OPENED_BY.clear()
    _RECORDING.set()
    try:
        graph = materialise_graph(defs, instance, skip_current=True)
    finally:
        _RECORDING.clear()
    assert graph.evaluation_succeeded, graph.evaluation_error
    return settings, defs, instance, graph


def test_current_work_is_not_launched_and_any_change_relaunches_it(demo_run, tmp_path):
    settings, defs, instance, first = demo_run
    keys = sorted(key.to_user_string() for key in CurrentWork(defs, instance).evaluation_keys)
    assert first.current_partitions == []
    assert first.evaluation_stale_because == f"never materialised: {', '.join(keys[:3])} and {len(keys) - 3} more"

    # Every file the runs opened is an input the digests cover, or lies in the store, the reports, the corpus folder
    # (its documents are versioned as data), or the Python installation and the package's own source.
    work = CurrentWork(defs, instance)
    covered = {Path(p).resolve() for p in evaluation_files(settings, GeneratorResource())} | {
        Path(settings.corpus_dir) / "manifest.csv"
    }
    roots = [
        Path(p).resolve()
        for p in (settings.data_dir, settings.reports_dir, settings.corpus_dir, sys.prefix, sys.base_prefix, "/proc")
    ] + [Path(dg.__file__).resolve().parents[1], Path(__file__).resolve().parents[1] / "edgar_eval"]
    # the package's own metadata (its version is part of the code version) and this test (pytest reads its source)
    roots.append(Path(__file__).resolve())
    metadata = (".egg-info", ".dist-info")
    uncovered = sorted(
        {
            p
            for p in _OPENED
            if _outside(p, roots) and Path(p).resolve() not in covered and not Path(p).parent.name.endswith(metadata)
        }
    )
    assert len(_OPENED) > 50, "the audit hook saw the runs' files"
    assert uncovered == [], f"files the runs read that no input digest covers: {uncovered}"

    # Every step that opened a file beside the graph declares that file's group as an asset it reads (the lineage
    # the UI draws from the observable source assets).
    from edgar_eval.defs.source_files import SOURCE_FILES

    group_of = {path.resolve(): source.key for source in SOURCE_FILES for _, path in source.files(settings)}
    undeclared = sorted(
        {
            (step, group_of[Path(path).resolve()].to_user_string())
            for step, reads, path in _OPENED_BY
            if Path(path).resolve() in group_of and group_of[Path(path).resolve()] not in reads
        }
    )
    assert {step for step, _, path in _OPENED_BY if Path(path).resolve() in group_of}, "no step opened a source file"
    assert undeclared == [], f"steps that read files they do not declare: {undeclared}"
    # the run observed the files first, and the report records the protocol's version it was built from
    from edgar_eval.defs.source_files import DATA_VERSION_TAG, PROTOCOL_FILES

    observed = instance.get_latest_data_version_record(PROTOCOL_FILES.key, is_source=True)
    assert observed is not None and observed.asset_observation is not None
    version = observed.asset_observation.tags[DATA_VERSION_TAG]
    assert version == PROTOCOL_FILES.version(settings)
    made = instance.get_latest_materialization_event(dg.AssetKey("report"))
    assert made is not None and made.asset_materialization is not None
    assert made.asset_materialization.tags.get("dagster/input_data_version/protocol_files") == version

    # Nothing changed: no run is launched, and the report stays as it was.
    runs = len(instance.get_run_records())
    report = (Path(settings.reports_dir) / "demo" / "report.md").read_bytes()
    again = materialise_graph(defs, instance, skip_current=True)
    assert again.evaluation_current and sorted(again.current_partitions) == sorted(first.partitions)
    assert len(instance.get_run_records()) == runs, "a warm re-run with nothing changed launched a run"
    assert (Path(settings.reports_dir) / "demo" / "report.md").read_bytes() == report

    # A file the evaluation reads beside the graph changes (a review file appears in its reviews folder): relaunched.
    review = tmp_path / "home" / "reviews" / "demo" / "second-look.jsonl"
    review.write_text("")
    assert work.evaluation(first.partitions)[1] == "inputs changed"
    review.unlink()
    assert work.evaluation(first.partitions)[1] is None
    # A tape appears in the corpus's tapes folder, which nothing this run uses reads (the table reader answers
    # offline, the proposer is off): still current.
    tape = tmp_path / "tapes" / "demo" / "proposals" / "note.json"
    tape.parent.mkdir(parents=True)
    tape.write_text("{}")
    assert work.evaluation(first.partitions)[1] is None

    # Settings no component of this run reads: nothing is relaunched.
    key = first.partitions[0]
    documents = sync_filings(instance, settings).documents
    unread = {
        "the OpenAI-compatible embedder's model and URL": {
            "embedder": EmbedderResource(model="e", base_url="http://x")
        },
        "an offline generator's model and URL": {"generator": GeneratorResource(model="m", url="http://x")},
        "the proposer's model without its URL": {"settings": settings.model_copy(update={"proposer_model": "m"})},
        "the proposer's URL without its model": {"settings": settings.model_copy(update={"proposer_url": "http://x"})},
        "the endpoint reranker's URL under the lexical": {"settings": settings.model_copy(update={"rerank_url": "x"})},
        "a tape mode with nothing taped": {"settings": settings.model_copy(update={"tape_mode": "replay"})},
    }
    for why, resources in unread.items():
        other = CurrentWork(
            build_definitions(
                resources.get("settings", settings), resources.get("embedder"), resources.get("generator")
            ),
            instance,
        )
        assert other.evaluation(first.partitions).reason is None, why
        assert other.corpus(key, documents[key]).reason is None, why
    # A setting only the evaluation reads relaunches the evaluation, and no filing partition.
    deeper = CurrentWork(build_definitions(settings.model_copy(update={"top_k": 40})), instance)
    assert deeper.evaluation(first.partitions).reason == "inputs changed"
    assert deeper.corpus(key, documents[key]).reason is None

    # What the run wrote cannot be read (overwritten): relaunched, naming the table; for the evaluation, only the
    # step that makes it (test_made_again runs it).
    for table, check in (
        (Path(settings.data_dir) / "demo" / "golden_set.parquet", lambda: work.evaluation(first.partitions)),
        (Path(settings.data_dir) / "demo" / "chunks" / f"{key}.parquet", lambda: work.corpus(key, documents[key])),
    ):
        kept = table.read_bytes()
        table.write_bytes(b"PAR1" + bytes(len(kept)))
        verdict = check()
        assert (verdict.reason or "").startswith(f"1 stored table cannot be read ({table}: not a readable Parquet")
        table.write_bytes(kept)
        assert check().reason is None
    assert work.evaluation(first.partitions).remake == ()

    # Another table's file in a table's place, readable and well formed: its stamp names another data version than
    # the run history recorded, so that table is made again (for the evaluation, only the asset that makes it).
    data = Path(settings.data_dir) / "demo"
    second = next(k for k in first.partitions if k != key)
    for table, stand_in, check in (
        (data / "golden_set.parquet", data / "golden_rejections.parquet", lambda: work.evaluation(first.partitions)),
        (
            data / "chunks" / f"{key}.parquet",
            data / "chunks" / f"{second}.parquet",
            lambda: work.corpus(key, documents[key]),
        ),
    ):
        kept = table.read_bytes()
        table.write_bytes(stand_in.read_bytes())
        verdict = check()
        assert (verdict.reason or "").startswith(
            f"1 stored table is not the one the run history recorded ({table}: another data version)"
        ), verdict.reason
        if table.name == "golden_set.parquet":
            assert [asset.to_user_string() for asset in verdict.remake] == ["golden_set"], verdict.remake
        table.write_bytes(kept)
        assert check().reason is None

    # What the run wrote is gone: a stored table, or a file a materialisation names (the admission gates' review
    # sheet and the absent-concept one are two files: neither replaces the other).
    for gone in (
        Path(settings.data_dir) / "demo" / "golden_set.parquet",
        Path(settings.data_dir) / "demo" / "absence_review.md",
        Path(settings.data_dir) / "demo" / "absent_concept_review.md",
    ):
        kept = gone.read_bytes()
        gone.unlink()
        assert (work.evaluation(first.partitions)[1] or "").startswith("1 stored files are gone"), gone
        gone.write_bytes(kept)
    table = Path(settings.data_dir) / "demo" / "chunks" / f"{key}.parquet"
    kept = table.read_bytes()
    table.unlink()
    assert (work.corpus(key, documents[key])[1] or "").startswith("1 stored files are gone")
    table.write_bytes(kept)
    assert work.corpus(key, documents[key])[1] is None

    # The filing's bytes change: its partition is relaunched; so is a partition after a setting it reads changes.
    assert work.corpus(key, "0" * 64)[1] == "inputs changed"
    # One filing's manifest row changes (its filing date, all the corpus reads of the manifest): its partition is
    # relaunched, no other (the whole manifest's hash made every partition stale: 301 runs for one changed 10-K).
    manifest = Path(settings.corpus_dir) / "manifest.csv"
    kept_manifest = manifest.read_text()
    other = next(k for k in first.partitions if k != key)
    rows = list(csv.DictReader(io.StringIO(kept_manifest)))
    next(r for r in rows if partition_key(r["path"]) == key)["filed"] = "2030-01-01"
    with manifest.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    moved = CurrentWork(defs, instance)
    assert moved.corpus(key, documents[key])[1] == "inputs changed"
    assert moved.corpus(other, documents[other])[1] is None
    # Every partition at once (the run history read once per asset, as `edgar-eval run` asks) says what each one
    # alone says, its latest materialisations and their runs asked partition by partition: the changed row's
    # partition stale, the rest current, a partition never built never materialised.
    every = {**documents, "never-built": "1" * 64}
    at_once = {partition: verdict.reason for partition, verdict in moved.corpus_verdicts(every).items()}

    def latest_alone(partition: str) -> dict:
        latest = {}
        for asset in moved.corpus_keys:
            only = dg.AssetRecordsFilter(asset_key=asset, asset_partitions=[partition])
            records = instance.fetch_materializations(only, limit=1).records
            latest[asset] = records[0] if records else None
        return latest

    alone = {
        partition: freshness._staleness(
            instance,
            verdict.inputs,
            moved.corpus_keys,
            {k: settings.store().path(k.to_user_string(), partition) for k in moved.corpus_keys},
            latest_alone(partition),
        )[0]
        for partition, verdict in moved.corpus_verdicts(every).items()
    }
    assert at_once == alone and at_once[key] == "inputs changed" and at_once[other] is None
    with pytest.MonkeyPatch.context() as patch:  # in pieces, as at more filings than one query may name
        patch.setattr(history_queries, "QUERY_CHUNK", 2)
        assert {p: v.reason for p, v in moved.corpus_verdicts(every).items()} == at_once
    assert (at_once["never-built"] or "").startswith("never materialised")
    manifest.write_text(kept_manifest)
    rechunked = CurrentWork(build_definitions(settings.model_copy(update={"chunk_size": 900})), instance)
    assert rechunked.corpus(key, documents[key])[1] == "inputs changed"

    # Another run made a later materialisation of one asset (the UI's 'Materialise selected', a materialisation
    # reported by hand): relaunched.
    instance.report_runless_asset_event(dg.AssetMaterialization("golden_set"))
    assert work.evaluation(first.partitions)[1] == "golden_set was last materialised outside any run (reported by hand)"

    # A library is upgraded: relaunched (a new pandas or torch can move a figure).
    upgraded = {**freshness.installed_packages(), "pandas": "99.0"}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(freshness, "installed_packages", lambda: upgraded)
        assert work.corpus(key, documents[key])[1] == "inputs changed"

    # A live model answers anew: never taken as current.
    live = build_definitions(
        settings, generator=GeneratorResource(kind="openai-compatible-chat", model="m", url="http://127.0.0.1:9")
    )
    assert "live model" in (CurrentWork(live, instance).evaluation(first.partitions)[1] or "")


def _run_ids(instance: dg.DagsterInstance) -> set[str]:
    return {record.dagster_run.run_id for record in instance.get_run_records()}


def _materialised_by(instance: dg.DagsterInstance, run_ids: set[str]) -> set[str]:
    """The assets these runs materialised, by name (a shard's as its asset's)."""
    return {
        record.asset_key.path[0]
        for run_id in run_ids
        for record in instance.get_records_for_run(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION).records
        if record.asset_key is not None
    }


def test_corpora_and_systems_under_test_share_the_work_they_have_in_common(demo_run, tmp_path):
    """A second corpus holding one of the demo's filings, and another under the same name with other bytes, in the
    same store and run history: it copies the first's corpus tables instead of parsing and embedding them again, and
    makes the second's; the demo's work is still current after it. A second system under test on the demo re-runs only
    the steps from generation on, and so does the first one after it."""
    settings, defs, instance, first = demo_run
    demo_dir, pair_dir = Path(settings.corpus_dir), tmp_path / "pair"
    manifest = list(csv.DictReader(io.StringIO((demo_dir / "manifest.csv").read_text())))
    held = manifest[:2]
    for row in held:
        (pair_dir / row["path"]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(demo_dir / row["path"], pair_dir / row["path"])
    # the second under the same name with other bytes (as an amended filing would be): a partition of its own tables
    amended = pair_dir / held[1]["path"]
    amended.write_bytes(amended.read_bytes() + b"\n<!-- amended -->\n")
    held[1] = {
        **held[1],
        "bytes": str(amended.stat().st_size),
        "sha256": hashlib.sha256(amended.read_bytes()).hexdigest(),
    }
    with (pair_dir / "manifest.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(held[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(held)
    # built anew, not model_copy: a run instantiates its resources from the config they were built with
    pair = EvalSettings(**{**settings.model_dump(), "corpus_dir": str(pair_dir), "corpus_name": "pair"})
    pair_graph = materialise_graph(build_definitions(pair), instance, skip_current=True)
    assert pair_graph.evaluation_succeeded, pair_graph.evaluation_error
    assert pair_graph.failed_partitions == {} and len(pair_graph.partitions) == 2
    data = Path(settings.data_dir)
    same, other = (partition_key(row["path"]) for row in held)
    for asset in ("filings", "chunks", "chunk_embeddings"):
        made = {}
        for key in (same, other):
            only = dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[key])
            made[key] = instance.fetch_materializations(only, limit=1).records[0].asset_materialization
            assert made[key] is not None and made[key].metadata["table"].value == str(
                data / "pair" / asset / f"{key}.parquet"
            )
        assert made[same].metadata["copied_from"].value == str(data / "demo" / asset / f"{same}.parquet"), asset
        assert (data / "pair" / asset / f"{same}.parquet").read_bytes() == (
            data / "demo" / asset / f"{same}.parquet"
        ).read_bytes()
        assert "copied_from" not in made[other].metadata and made[other].metadata["reused"].value is False, asset

    # The demo again: every partition and the evaluation current, no run launched, though the pair's runs made the
    # latest materialisations of two of its partitions and of every evaluation asset (in the pair's folder).
    before = _run_ids(instance)
    report = (Path(settings.reports_dir) / "demo" / "report.md").read_bytes()
    written = {name: (Path(settings.reports_dir) / "demo" / name).read_bytes() for name in WRITTEN}
    again = materialise_graph(defs, instance, skip_current=True)
    assert again.evaluation_current, again.evaluation_stale_because
    assert sorted(again.current_partitions) == sorted(first.partitions)
    assert _run_ids(instance) == before
    assert (Path(settings.reports_dir) / "demo" / "report.md").read_bytes() == report

    # Another system under test on the demo: only the steps from generation on are stale, and run.
    eager = build_definitions(settings, generator=GeneratorResource(kind="eager-reader"))
    work = CurrentWork(eager, instance)
    generation = {key.to_user_string() for key in work.from_generation()}
    assert {"generations", "arm_outcomes", "report"} <= generation, generation
    assert not {"golden_set", "retriever_rankings", "question_embeddings"} & generation, generation
    verdict = work.evaluation(first.partitions)
    assert verdict.reason == "from generation on, inputs changed"
    assert {key.to_user_string() for key in verdict.remake} == generation
    second = materialise_graph(eager, instance, skip_current=True)
    assert second.evaluation_succeeded, second.evaluation_error
    assert sorted(second.current_partitions) == sorted(first.partitions)
    assert set(second.evaluation_remade) == generation
    # the other system wrote its own report in the corpus's folder (the receipt names its generator)
    assert (Path(settings.reports_dir) / "demo" / "receipt.json").read_bytes() != written["receipt.json"]
    assert _materialised_by(instance, _run_ids(instance) - before) == generation
    assert CurrentWork(eager, instance).evaluation(first.partitions).reason is None
    # the first system again: its answers were replaced in the store, so from generation on, and no further, though a
    # baseline was written for the second meanwhile (read by the regression gate alone, from generation on)
    (tmp_path / "home" / "baselines" / "demo" / "eager-reader_1.json").write_text("{}")
    back = CurrentWork(defs, instance).evaluation(first.partitions)
    assert back.reason == "from generation on, inputs changed"
    assert {key.to_user_string() for key in back.remake} == generation
    # made from generation on only, over the other system's run, what it writes is what the whole run wrote
    returned = materialise_graph(defs, instance, skip_current=True)
    assert returned.evaluation_succeeded and set(returned.evaluation_remade) == generation
    for name, made in written.items():
        assert (Path(settings.reports_dir) / "demo" / name).read_bytes() == made, name
    # a setting the questions or retrievals read: the whole evaluation, as before
    deeper = CurrentWork(build_definitions(settings.model_copy(update={"top_k": 40})), instance)
    assert deeper.evaluation(first.partitions).remake == ()


def test_a_filing_date_changed_in_the_manifest_is_in_the_filings_table_made_again(demo_run):
    """The `filings` row holds the manifest's filing date: a changed date makes the row again (its table is not taken
    as current because it was built from the same bytes)."""
    from edgar_eval.defs.jobs import CORPUS_JOB
    from edgar_eval.defs.runner import in_process

    settings, defs, instance, first = demo_run
    manifest = Path(settings.corpus_dir) / "manifest.csv"
    rows = list(csv.DictReader(io.StringIO(manifest.read_text())))
    key = partition_key(rows[0]["path"])
    rows[0]["filed"] = "2030-01-01"
    with manifest.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    assert in_process(defs, instance)(CORPUS_JOB, key, None, None).success
    assert settings.store().read("filings", key).filed.tolist() == ["2030-01-01"]
