"""The corpus sensor keeps the filing partitions in step with the folder, and a changed document rebuilds its own
partition by the corpus assets' eager condition, evaluated as the automation daemon would."""

from __future__ import annotations

import shutil

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import list_filings, write_demo_corpus
from edgar_eval.defs.corpus.partitions import FILING_DOCUMENTS, FILINGS_NAME, corpus_sensor
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_corpus
from edgar_eval.defs.settings import EvalSettings


@pytest.fixture
def corpus(tmp_path):
    """A corpus folder of two demo filings, with its settings."""
    demo = tmp_path / "demo"
    write_demo_corpus(demo)
    listed = sorted(list_filings(demo).items())[:2]
    folder = tmp_path / "mini"
    for _, relative in listed:
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(demo / relative, folder / relative)
    settings = EvalSettings(
        corpus_dir=str(folder), corpus_name="mini", data_dir=str(tmp_path / "data"), reports_dir=str(tmp_path / "r")
    )
    return settings, {key: folder / relative for key, relative in listed}


def _tick(instance: dg.DagsterInstance, settings: EvalSettings) -> dg.SensorResult:
    """One sensor evaluation, its requests applied to the instance as the daemon applies them."""
    result = corpus_sensor(dg.build_sensor_context(instance=instance, resources={"settings": settings}))
    assert isinstance(result, dg.SensorResult)
    for request in result.dynamic_partitions_requests or []:
        if isinstance(request, dg.AddDynamicPartitionsRequest):
            instance.add_dynamic_partitions(str(request.partitions_def_name), list(request.partition_keys))
        else:
            for key in request.partition_keys:
                instance.delete_dynamic_partition(str(request.partitions_def_name), key)
    for event in result.asset_events or []:
        instance.report_runless_asset_event(event)
    return result


def _observed(result: dg.SensorResult) -> list[str]:
    return sorted(str(event.partition) for event in result.asset_events or [] if event.asset_key == FILING_DOCUMENTS)


def test_the_sensor_adds_observes_and_removes_partitions(corpus):
    settings, files = corpus
    instance = dg.DagsterInstance.ephemeral()
    first = _tick(instance, settings)
    assert sorted(instance.get_dynamic_partitions(FILINGS_NAME)) == sorted(files)
    assert _observed(first) == sorted(files)

    assert _observed(_tick(instance, settings)) == []  # nothing changed: nothing observed, nothing added

    changed, removed = sorted(files)
    files[changed].write_bytes(files[changed].read_bytes() + b"\n<!-- amended -->\n")
    files[removed].unlink()
    third = _tick(instance, settings)
    assert _observed(third) == [changed]  # only the document whose bytes changed gets a new data version
    assert instance.get_dynamic_partitions(FILINGS_NAME) == [changed]


@pytest.mark.slow(minutes=0.3)  # materialises graph runs: seconds, not milliseconds
def test_a_changed_document_rebuilds_its_own_partition_and_no_other(corpus):
    settings, files = corpus
    instance = dg.DagsterInstance.ephemeral()
    defs = build_definitions(settings)
    corpus_assets = dg.AssetSelection.groups("corpus")

    # The daemon's first evaluation sets its cursor (eager builds what goes missing after that, not what was)
    start = dg.evaluate_automation_conditions(defs=defs, instance=instance, asset_selection=corpus_assets)
    _tick(instance, settings)
    new = dg.evaluate_automation_conditions(
        defs=defs, instance=instance, asset_selection=corpus_assets, cursor=start.cursor
    )
    assert new.get_requested_partitions(dg.AssetKey("filings")) == set(files)  # new partitions are built

    assert materialise_corpus(defs, instance) == {}
    settled = dg.evaluate_automation_conditions(
        defs=defs, instance=instance, asset_selection=corpus_assets, cursor=new.cursor
    )
    assert settled.total_requested == 0  # built and unchanged: nothing to do

    changed = sorted(files)[0]
    files[changed].write_bytes(files[changed].read_bytes() + b"\n<!-- amended -->\n")
    assert _observed(_tick(instance, settings)) == [changed]
    after = dg.evaluate_automation_conditions(
        defs=defs, instance=instance, asset_selection=corpus_assets, cursor=settled.cursor
    )
    assert after.get_requested_partitions(dg.AssetKey("filings")) == {changed}


def test_the_sensor_observes_the_files_beside_the_graph_when_they_change(corpus, tmp_path, monkeypatch):
    from edgar_eval.defs.source_files import REVIEW_FILES, SOURCE_FILES

    settings, _ = corpus
    home = tmp_path / "home"
    (home / "protocol").mkdir(parents=True)
    (home / "protocol" / "answering-v4.toml").write_text("version = 'v4'\n")
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(home))
    instance = dg.DagsterInstance.ephemeral()

    def sources(result: dg.SensorResult) -> list[str]:
        return sorted(
            e.asset_key.to_user_string() for e in result.asset_events or [] if e.asset_key != FILING_DOCUMENTS
        )

    assert sources(_tick(instance, settings)) == sorted(s.key.to_user_string() for s in SOURCE_FILES)  # first look
    assert sources(_tick(instance, settings)) == []  # nothing changed
    (home / "reviews" / "mini").mkdir(parents=True)
    (home / "reviews" / "mini" / "audit.jsonl").write_text("{}\n")
    assert sources(_tick(instance, settings)) == [REVIEW_FILES.key.to_user_string()]
