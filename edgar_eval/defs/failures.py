"""Why a run failed, in one line: the cause a failed blocking check or a failed step gives, not Dagster's wrapper
("Error occurred while executing op ..."). Read by the CLI for the run it just launched and by the report for a filing
whose last corpus run failed (the report then says why the filing is left out)."""

from __future__ import annotations

from collections.abc import Iterable

import dagster as dg
from dagster._core.storage.tags import PARTITION_NAME_TAG

from edgar_eval.defs.jobs import CORPUS_JOB


def failure_cause(events: Iterable[dg.DagsterEvent]) -> str:
    """The cause of a run's failure from its events: a failed blocking check's description, else the first failed
    step's error with Dagster's wrappers removed; "run failed" when neither is there."""
    events = list(events)
    for event in events:  # a failed blocking check says why in its evaluation, not in the step failure
        evaluation = event.event_specific_data
        if (
            isinstance(evaluation, dg.AssetCheckEvaluation)
            and not evaluation.passed
            and evaluation.severity == dg.AssetCheckSeverity.ERROR
        ):
            return f"{evaluation.check_name} failed: {evaluation.description}"
    for event in events:
        if event.is_step_failure and event.step_failure_data and event.step_failure_data.error:
            user = event.step_failure_data.user_failure_data
            if user and user.description:
                return user.description
            error = event.step_failure_data.error
            # Dagster wraps what the asset raised ("Error occurred while executing op ...:"): say the cause
            while error.cause is not None and (error.cls_name or "").startswith("Dagster"):
                error = error.cause
            name = error.cls_name or "error"
            head, said, rest = error.message.strip().partition(": ")
            if said and head.rsplit(".", 1)[-1] == name:  # the class by its name, not its module path
                rest = f"{name}: {rest}"
            cause = (rest if said else error.message.strip()) or name
            return f"{event.step_key or 'a step'}: {cause.splitlines()[-1]}"
    return "run failed"


def last_corpus_failure(instance: dg.DagsterInstance, partition: str) -> str | None:
    """Why the latest corpus run of a filing failed, if its latest run failed; None otherwise (never run, succeeded,
    canceled, or still running)."""
    runs = instance.get_runs(filters=dg.RunsFilter(job_name=CORPUS_JOB, tags={PARTITION_NAME_TAG: partition}), limit=1)
    if not runs or runs[0].status != dg.DagsterRunStatus.FAILURE:
        return None
    records = instance.all_logs(runs[0].run_id)
    return failure_cause(r.dagster_event for r in records if r.dagster_event is not None)
