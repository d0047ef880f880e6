"""A warm re-run launches no run whose work is current, and relaunches one as soon as anything it reads has changed
or what it wrote is gone. Every file a run opens beside the graph is among the inputs its digest covers."""

import os
import sys
import threading
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.defs import freshness
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.freshness import CurrentWork, evaluation_files
from edgar_eval.defs.partitions import sync_filings
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import GeneratorResource

pytestmark = pytest.mark.slow(minutes=1.5)  # whole-graph runs: scheduled with the longest first

_OPENED: list[str] = []
_RECORDING = threading.Event()


def _record_open(event: str, args: tuple) -> None:
    if event == "open" and _RECORDING.is_set() and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_record_open)  # audit hooks cannot be removed: it records only while the flag is set


def _outside(path: str, roots: list[Path]) -> bool:
    resolved = Path(path).resolve()
    return not any(resolved == root or root in resolved.parents for root in roots)


@pytest.fixture
def demo_run(tmp_path):
    from edgar_eval.defs.settings import EvalSettings

    settings = EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="demo",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
        tapes_dir=str(tmp_path / "tapes"),
    )
    defs = build_definitions(settings)
    instance = dg.DagsterInstance.ephemeral()
    _OPENED.clear()
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
    covered = {Path(p).resolve() for p in evaluation_files(settings)} | {Path(settings.corpus_dir) / "manifest.csv"}
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

    # Nothing changed: no run is launched, and the report stays as it was.
    runs = len(instance.get_run_records())
    report = (Path(settings.reports_dir) / "demo" / "report.md").read_bytes()
    again = materialise_graph(defs, instance, skip_current=True)
    assert again.evaluation_current and sorted(again.current_partitions) == sorted(first.partitions)
    assert len(instance.get_run_records()) == runs, "a warm re-run with nothing changed launched a run"
    assert (Path(settings.reports_dir) / "demo" / "report.md").read_bytes() == report

    # A file the evaluation reads beside the graph changes (a tape appears in its tapes folder): relaunched.
    tape = tmp_path / "tapes" / "demo" / "proposals" / "note.json"
    tape.parent.mkdir(parents=True)
    tape.write_text("{}")
    assert work.evaluation(first.partitions)[1] == "inputs changed"
    tape.unlink()
    assert work.evaluation(first.partitions)[1] is None

    # What the run wrote is gone: a stored table, or a file a materialisation names.
    for gone in (
        Path(settings.data_dir) / "demo" / "golden_set.parquet",
        Path(settings.data_dir) / "demo" / "absence_review.md",
    ):
        kept = gone.read_bytes()
        gone.unlink()
        assert (work.evaluation(first.partitions)[1] or "").startswith("1 stored files are gone"), gone
        gone.write_bytes(kept)
    key = first.partitions[0]
    table = Path(settings.data_dir) / "demo" / "chunks" / f"{key}.parquet"
    kept = table.read_bytes()
    table.unlink()
    documents = sync_filings(instance, settings).documents
    assert (work.corpus(key, documents[key])[1] or "").startswith("1 stored files are gone")
    table.write_bytes(kept)
    assert work.corpus(key, documents[key])[1] is None

    # The filing's bytes change: its partition is relaunched; so is a partition after a setting it reads changes.
    assert work.corpus(key, "0" * 64)[1] == "inputs changed"
    rechunked = CurrentWork(build_definitions(settings.model_copy(update={"chunk_size": 900})), instance)
    assert rechunked.corpus(key, documents[key])[1] == "inputs changed"

    # Another run made a later materialisation of one asset (the UI's 'Materialise selected'): relaunched.
    instance.report_runless_asset_event(dg.AssetMaterialization("golden_set"))
    assert work.evaluation(first.partitions)[1] == "the latest materialisations come from 2 runs"

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
