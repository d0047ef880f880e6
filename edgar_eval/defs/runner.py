"""Materialise the whole graph: one corpus run per filing partition, then one evaluation run."""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass, field
from typing import Callable

import dagster as dg

from edgar_eval.defs.jobs import CORPUS_JOB, EVALUATION_JOB

# The CLI prints each failure in one line itself; the full record, tracebacks included, stays in the run history.
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass
class GraphRun:
    partitions: list[str]
    failed_partitions: dict[str, str] = field(default_factory=dict)
    evaluation_error: str | None = None

    @property
    def evaluation_succeeded(self) -> bool:
        return self.evaluation_error is None


def failure_message(result: dg.ExecuteInProcessResult) -> str:
    for event in result.all_events:  # a failed blocking check says why in its evaluation, not in the step failure
        evaluation = (
            event.event_specific_data if event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION else None
        )
        if evaluation is not None and not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR:
            return f"{evaluation.check_name} failed: {evaluation.description}"
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data and event.step_failure_data.error:
            user = event.step_failure_data.user_failure_data
            if user and user.description:
                return user.description
            return event.step_failure_data.error.message.strip().splitlines()[-1]
    return "run failed"


def _interrupted(result: dg.ExecuteInProcessResult) -> bool:
    """Was the run stopped by Ctrl-C (Dagster turns the KeyboardInterrupt into a step failure and returns)?"""
    return any(
        event.is_step_failure
        and event.step_failure_data
        and event.step_failure_data.error
        and event.step_failure_data.error.cls_name == "DagsterExecutionInterruptedError"
        for event in result.all_events
    )


class InterruptWatch:
    """Did a Ctrl-C arrive while Dagster held the SIGINT handler? Dagster records an interrupt that comes between
    steps and raises it at the next step, but forgets one that comes after a run's last step, so a loop of runs
    would carry on. The signal wakeup fd sees every signal whatever handler is installed; outside the main thread
    (where no signal can be handled) it watches nothing."""

    def __init__(self) -> None:
        self._read = self._previous = None
        if threading.current_thread() is threading.main_thread():
            self._read, write = os.pipe()
            os.set_blocking(self._read, False)
            os.set_blocking(write, False)
            self._write = write
            self._previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)

    def arrived(self) -> bool:
        if self._read is None:
            return False
        try:
            received = os.read(self._read, 512)
        except BlockingIOError:
            return False
        return signal.SIGINT in received

    def close(self) -> None:
        if self._read is not None:
            signal.set_wakeup_fd(self._previous if self._previous is not None else -1)
            os.close(self._read)
            os.close(self._write)
            self._read = None


def materialise_corpus(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    keys: list[str] | None = None,
    on_partition: Callable[[str, str | None], None] | None = None,
) -> dict[str, str]:
    """Run the corpus job once per partition, so a bad filing fails its own partition and no other."""
    job = defs.resolve_job_def(CORPUS_JOB)
    failed: dict[str, str] = {}
    watch = InterruptWatch()
    try:
        for key in keys if keys is not None else job.partitions_def.get_partition_keys():
            result = job.execute_in_process(
                partition_key=key, instance=instance, raise_on_error=False, run_config=QUIET_RUN_CONFIG
            )
            if _interrupted(result) or watch.arrived():
                raise KeyboardInterrupt  # no further partition, and no evaluation over a part of the corpus
            if not result.success:
                failed[key] = failure_message(result)
            if on_partition:
                on_partition(key, failed.get(key))
    finally:
        watch.close()
    return failed


def materialise_evaluation(defs: dg.Definitions, instance: dg.DagsterInstance) -> str | None:
    """Run the evaluation job; the failure message, or None on success."""
    result = defs.resolve_job_def(EVALUATION_JOB).execute_in_process(
        instance=instance, raise_on_error=False, run_config=QUIET_RUN_CONFIG
    )
    if _interrupted(result):  # an interrupt after the last step is forgotten, but then the report is whole
        raise KeyboardInterrupt
    return None if result.success else failure_message(result)


def materialise_graph(
    defs: dg.Definitions, instance: dg.DagsterInstance, on_partition: Callable[[str, str | None], None] | None = None
) -> GraphRun:
    keys = list(defs.resolve_job_def(CORPUS_JOB).partitions_def.get_partition_keys())
    run = GraphRun(partitions=keys)
    run.failed_partitions = materialise_corpus(defs, instance, keys, on_partition)
    if keys and len(run.failed_partitions) == len(keys):  # nothing to evaluate: say so instead of failing deep inside
        run.evaluation_error = f"none of the {len(keys)} filings could be materialised; the evaluation did not run"
        return run
    run.evaluation_error = materialise_evaluation(defs, instance)
    return run
