"""A UI that tells systems apart (issue 59, item 7), each on constructed inputs: every run names the system it
measures (corpus, generator, settings digest) and so does each headline figure; the trends page draws each figure with
its interval beside it, a colour per system; a Ctrl-C'd run ends canceled with no RUN_FAILURE event; a generator with
no baseline leaves the regression gate not applied (Skipped), not Failed."""

from __future__ import annotations

import datetime
import io
import logging
import os
import signal
import subprocess
import sys
import time
import uuid

import dagster as dg
import pandas as pd
import pytest
from dagster._core.storage.asset_check_execution_record import (  # private: the status a check's record is in
    AssetCheckExecutionRecordStatus,
)

from edgar_eval.defs.answering.checks import regression_gate
from edgar_eval.defs.common import figure_metadata
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.jobs import CORPUS_JOB, EVALUATION_JOB
from edgar_eval.defs.orphaned_runs import end_orphaned_runs
from edgar_eval.defs.run_tags import (
    CORPUS_TAG,
    GENERATOR_TAG,
    PID_TAG,
    RUN_TAG,
    SETTINGS_TAG,
    STOPPED_TAG,
    launch_tags,
)
from edgar_eval.defs.runner import (
    CancelOnInterrupt,
    InterruptWatch,
    cancel_interrupted_runs,
    quiet_ungated_step_notices,
)
from edgar_eval.defs.settings import EvalSettings, GeneratorResource
from edgar_eval.defs.statistics.pins import settings_digest, system_tags
from edgar_eval.evaluation.regression_gate import baseline_json, dev_cases
from edgar_eval.report.trends import UNNAMED, Materialization, trend_points, trends_html


def _settings(tmp_path, **changes) -> EvalSettings:
    return EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="demo",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
        **changes,
    )


def test_every_run_of_either_job_names_its_corpus_generator_and_settings(tmp_path):
    settings = _settings(tmp_path)
    tags = {}
    for kind in ("table-reader", "eager-reader"):
        defs = build_definitions(settings, generator=GeneratorResource(kind=kind))
        for job in (CORPUS_JOB, EVALUATION_JOB):
            assert defs.resolve_job_def(job).run_tags == system_tags(settings, GeneratorResource(kind=kind))
        tags[kind] = defs.resolve_job_def(EVALUATION_JOB).run_tags
    assert tags["table-reader"][GENERATOR_TAG] == "table-reader/1"
    assert tags["eager-reader"][GENERATOR_TAG] == "eager-reader/1"
    assert tags["table-reader"][CORPUS_TAG] == "demo"
    assert tags["table-reader"][SETTINGS_TAG] == settings_digest(settings)[:12]
    # a parameter that moves a figure is another system; where the data is kept is not
    assert (
        system_tags(_settings(tmp_path, chunk_size=600), GeneratorResource())[SETTINGS_TAG]
        != (tags["table-reader"][SETTINGS_TAG])
    )
    elsewhere = EvalSettings(**{**settings.model_dump(), "data_dir": str(tmp_path / "other")})
    assert system_tags(elsewhere, GeneratorResource()) == tags["table-reader"]


def test_a_headline_figure_names_the_system_its_run_measured(tmp_path):
    @dg.asset
    def figures() -> dg.MaterializeResult:
        return dg.MaterializeResult(metadata=figure_metadata({"reader_accuracy": 0.5, "questions": 10}))

    tags = system_tags(_settings(tmp_path), GeneratorResource(kind="eager-reader"))
    instance = dg.DagsterInstance.ephemeral()
    assert dg.materialize([figures], instance=instance, tags=tags).success
    event = instance.get_latest_materialization_event(dg.AssetKey("figures"))
    assert event is not None and event.asset_materialization is not None
    metadata = {name: entry.value for name, entry in event.asset_materialization.metadata.items()}
    assert metadata == {
        "corpus": "demo",
        "generator": "eager-reader/1",
        "settings": tags[SETTINGS_TAG],
        "reader_accuracy": 0.5,
        "questions": 10,
    }
    assert figure_metadata({"reader_accuracy": 0.5}) == {"reader_accuracy": dg.MetadataValue.float(0.5)}, (
        "outside a run: the figures alone"
    )


def _made(run: str, when: float, system: tuple[str, str, str] | None, value: float) -> Materialization:
    named = dict(zip(("corpus", "generator", "settings"), system)) if system else {}
    return Materialization(
        run,
        when,
        {
            **named,
            "reader_accuracy": value,
            "reader_accuracy_low": value - 0.1,
            "reader_accuracy_high": value + 0.1,
            "answerable_questions": 60,  # a count: no chart
            "recall_cost_arm_B": 0.2,  # no bounds beside it: no chart
        },
    )


def test_the_trends_page_draws_each_figure_with_its_interval_and_a_colour_per_system():
    history = [
        _made("run-a-1", 1.0, ("demo", "table-reader/1", "b4cbde86f332"), 0.47),
        _made("run-b-1", 2.0, ("demo", "eager-reader/1", "b4cbde86f332"), 0.40),
        _made("run-a-2", 3.0, ("demo", "table-reader/1", "b4cbde86f332"), 0.47),
        _made("run-0", 0.5, None, 0.45),
    ]
    points = trend_points(history)
    assert {point.figure for point in points} == {"reader_accuracy"}, "bounds sit with their figure, never apart"
    assert [(p.run_id, p.value, p.low, p.high) for p in points][1] == ("run-a-1", 0.47, 0.47 - 0.1, 0.47 + 0.1)
    systems = [point.system for point in points]
    assert systems == [
        UNNAMED,
        "demo · table-reader/1 · settings b4cbde86f332",
        "demo · eager-reader/1 · settings b4cbde86f332",
        "demo · table-reader/1 · settings b4cbde86f332",
    ]
    page = trends_html(points, "trends")
    assert page.count("<svg") == 1 and page.count("<rect") == 4, "one chart, a band per point"
    assert page.count('<circle cx="') == 4
    colours = {system: page.split(system)[0].rsplit('style="color:', 1)[1][:7] for system in set(systems)}
    assert len(set(colours.values())) == 3, "each system its own colour"
    assert f'fill="{colours["demo · eager-reader/1 · settings b4cbde86f332"]}"' in page


def _interrupted_job():
    @dg.asset
    def interrupted() -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the step goes
        time.sleep(5)

    return dg.Definitions(assets=[interrupted]).resolve_implicit_global_asset_job_def()


@pytest.mark.parametrize("watched", [True, False], ids=["watched", "unwatched (as before)"])
def test_a_ctrl_c_run_ends_canceled_with_no_failure_event(watched):
    instance = dg.DagsterInstance.ephemeral()
    run_id = str(uuid.uuid4())
    outer = InterruptWatch()  # the loop over runs (runner._run_corpus) around the launch
    try:
        if watched:
            with CancelOnInterrupt(instance, run_id) as watch:
                _interrupted_job().execute_in_process(instance=instance, run_id=run_id, raise_on_error=False)
            assert watch.stopped == ["interrupted"]
        else:
            _interrupted_job().execute_in_process(instance=instance, run_id=run_id, raise_on_error=False)
        assert outer.arrived(), "the loop over runs still sees the Ctrl-C"
    finally:
        outer.close()
    run = instance.get_run_by_id(run_id)
    assert run is not None
    events = [record.dagster_event.event_type for record in instance.all_logs(run_id) if record.dagster_event]
    if not watched:  # what Dagster records of a Ctrl-C it was not told of: a failure
        assert run.status == dg.DagsterRunStatus.FAILURE and dg.DagsterEventType.RUN_FAILURE in events
        return
    assert run.status == dg.DagsterRunStatus.CANCELED
    assert dg.DagsterEventType.RUN_CANCELED in events and dg.DagsterEventType.RUN_FAILURE not in events
    # Dagster ends the step it stopped with a failure of an interrupt, as for its own terminations: the tag names it
    assert run.tags[STOPPED_TAG] == "Ctrl-C: interrupted"
    assert watch.interrupted


def _created_not_started(instance: dg.DagsterInstance, tags: dict[str, str]) -> str:
    """A run made as the CLI makes one (its launch tags), that nothing started: Ctrl-C came while it was made."""
    run_id = str(uuid.uuid4())
    instance.create_run_for_job(job_def=_interrupted_job(), run_id=run_id, tags={**launch_tags(run_id), **tags})
    return run_id


def test_a_run_ctrl_c_stopped_while_it_was_made_ends_canceled_not_unstarted_for_ever():
    instance = dg.DagsterInstance.ephemeral()
    since = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=1)
    ours = _created_not_started(instance, {})
    a_live_process_s = _created_not_started(instance, {PID_TAG: "1"})  # pid 1 lives: not ours, not gone
    # a re-execution from the UI inherits its parent's tags, this process's pid among them, but not its run id
    re_executed = _created_not_started(instance, {})
    instance.add_run_tags(re_executed, {RUN_TAG: "the-parent-run"})
    assert cancel_interrupted_runs(instance, since) == [ours]
    run = instance.get_run_by_id(ours)
    assert run is not None and run.status == dg.DagsterRunStatus.CANCELED
    other = instance.get_run_by_id(a_live_process_s)
    assert other is not None and other.status == dg.DagsterRunStatus.NOT_STARTED


def test_a_run_whose_process_died_before_it_started_is_ended_by_the_next_cli_run():
    instance = dg.DagsterInstance.ephemeral()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    orphan = _created_not_started(instance, {PID_TAG: str(dead.pid)})
    alive = _created_not_started(instance, {})  # this process's: it lives, so it is left as it is
    assert [run_id for run_id, _ in end_orphaned_runs(instance)] == [orphan]
    assert instance.get_run_by_id(orphan).status == dg.DagsterRunStatus.CANCELED  # type: ignore[union-attr]
    assert instance.get_run_by_id(alive).status == dg.DagsterRunStatus.NOT_STARTED  # type: ignore[union-attr]


def _gate_run(tmp_path, monkeypatch, baseline: pd.DataFrame | None, correct: list[bool], downstream: bool = False):
    """The regression gate over constructed outcomes of four dev questions, with the eager reader as the generator,
    against `baseline` (none: no baseline file). The check's latest execution record and the run's event log."""
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(tmp_path))
    questions = [f"q{i}" for i in range(len(correct))]
    outcomes = pd.DataFrame({"question_id": questions, "arm": "A", "kind": "answerable", "correct": correct})

    @dg.asset
    def arm_outcomes() -> pd.DataFrame:
        return outcomes

    split = pd.DataFrame({"question_id": questions, "split": "dev"})

    @dg.asset
    def golden_set() -> pd.DataFrame:
        return split

    @dg.asset
    def statistics_of_the_arms(arm_outcomes: pd.DataFrame) -> int:  # a step the blocking gate gates
        return len(arm_outcomes)

    settings, generator = _settings(tmp_path), GeneratorResource(kind="eager-reader")
    if baseline is not None:
        path = generator.baseline_path(settings)
        path.parent.mkdir(parents=True)
        path.write_text(baseline_json(dev_cases(baseline, split)))
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize_to_memory(
        [arm_outcomes, golden_set, regression_gate, *([statistics_of_the_arms] if downstream else [])],
        instance=instance,
        resources={"settings": settings, "generator": generator},
        raise_on_error=False,
    )
    key = dg.AssetCheckKey(dg.AssetKey("arm_outcomes"), "regression_gate")
    record = instance.event_log_storage.get_latest_asset_check_execution_by_key([key])[key]
    logs = [record.user_message for record in instance.all_logs(result.run_id)]
    return result, record, logs, outcomes


def test_a_generator_without_a_baseline_is_not_gated_and_the_check_is_not_failed(tmp_path, monkeypatch):
    result, record, logs, _ = _gate_run(tmp_path, monkeypatch, None, [True, True, False, True])
    assert result.success
    # no result recorded, the run over and not failed: what the UI shows as Skipped, not Failed
    assert record.status == AssetCheckExecutionRecordStatus.PLANNED
    assert dg.DagsterEventType.ASSET_CHECK_EVALUATION not in {event.event_type for event in result.all_events}
    said = [line for line in logs if line.startswith("regression_gate not applied: no baseline at ")]
    assert said and "baselines/demo/eager-reader_1.json for 4 dev cases" in said[0], logs


def test_a_gate_not_applied_is_said_once_by_the_cli_not_once_per_gated_step(tmp_path, monkeypatch, caplog):
    """Dagster's step scheduler warns, for each step the blocking gate gates, that the gate recorded no result: a
    dozen lines in the CLI's output on every run of a generator with no baseline. The CLI prints Dagster's warnings
    through a handler of its own that leaves exactly those out (`quiet_ungated_step_notices`), and says once that the
    gate was not applied (cli.run)."""
    with caplog.at_level(logging.WARNING, logger="dagster"):
        _gate_run(tmp_path / "loud", monkeypatch, None, [True, True], downstream=True)
    noticed = [r.getMessage() for r in caplog.records]
    assert any("'arm_outcomes:regression_gate' emitted no result" in m for m in noticed), noticed
    # a test before this one in the same worker may have run the CLI in process, which set the handler on its stderr
    monkeypatch.setattr(logging.getLogger("dagster"), "handlers", [])
    printed = io.StringIO()
    handler = quiet_ungated_step_notices(printed)
    assert quiet_ungated_step_notices() is handler, "set once"
    result, *_ = _gate_run(tmp_path / "quiet", monkeypatch, None, [True, True], downstream=True)
    assert result.success
    logging.getLogger("dagster.anything").warning("another warning of Dagster's")
    assert printed.getvalue() == "another warning of Dagster's\n"


def test_a_generator_with_a_baseline_is_still_gated(tmp_path, monkeypatch):
    baseline = pd.DataFrame({"question_id": [f"q{i}" for i in range(4)], "arm": "A", "kind": "answerable"})
    result, record, _, _ = _gate_run(tmp_path, monkeypatch, baseline.assign(correct=True), [False, False, False, True])
    assert not result.success, "a blocking gate fails the run on a regression"
    assert record.status == AssetCheckExecutionRecordStatus.FAILED
    assert record.evaluation is not None and record.evaluation.severity == dg.AssetCheckSeverity.ERROR
