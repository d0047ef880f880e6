"""Why a run failed, in one line: the cause a failed blocking check or a failed step gives, not Dagster's wrapper
("Error occurred while executing op ..."). Read by the CLI for the run it just launched and by the report for a filing
whose last corpus run failed (the report then says why the filing is left out)."""

from __future__ import annotations

import re
from collections.abc import Iterable

import dagster as dg
from dagster_shared.error import SerializableErrorInfo

from edgar_eval.defs.jobs import CORPUS_JOB
from edgar_eval.defs.run_tags import PARTITION_TAG

# What the clients of the services a run depends on raise when they cannot connect to them, and how to name each.
_SERVICES_DOWN = (
    (
        ("psycopg2.OperationalError", "connection to server at", "could not connect to server"),
        "PostgreSQL (the run history)",
    ),
    (
        (
            "redis.exceptions.ConnectionError",
            "redis.exceptions.TimeoutError",
            "kombu.exceptions.OperationalError",
        ),
        "Redis (the Celery broker)",
    ),
    (("EndpointConnectionError", "Could not connect to the endpoint URL"), "the object store"),
)


_ERROR_CLASS = re.compile(r"^(?:[\w.]*(?:Error|Exception)?:\s*)+")  # "OperationalError: psycopg2.OperationalError: "


def service_down(error: SerializableErrorInfo | None) -> str | None:
    """ "PostgreSQL (the run history): could not connect (<the client's line that says so>)" where the error, its cause
    or its context is a client's failure to connect to a service the run depends on (refused, unreachable, or turned
    away: the line in brackets says which); None otherwise."""
    seen = 0
    while error is not None and seen < 20:
        said = f"{error.cls_name or ''}: {error.message}"
        for signs, service in _SERVICES_DOWN:
            lines = [line.strip() for line in said.splitlines() if any(sign in line for sign in signs)]
            if lines:
                return f"{service}: could not connect ({_ERROR_CLASS.sub('', lines[0])})"
        error, seen = error.cause or error.context, seen + 1
    return None


def _last_line(message: str) -> str:
    """The last line of a message that says something: not an empty one, nor one that only leads to the next (":")."""
    lines = [line.strip() for line in message.splitlines() if line.strip() and not line.strip().endswith(":")]
    return lines[-1] if lines else message.strip()


def failure_cause(events: Iterable[dg.DagsterEvent]) -> str:
    """The cause of a run's failure from its events: a failed blocking check's description, else the first failed
    step's error with Dagster's wrappers removed, with the service that did not answer where a client's error says so;
    else the run's own failure (a service down while the run recorded its events); "run failed" when none is there."""
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
            down = service_down(error)
            # Dagster wraps what the asset raised ("Error occurred while executing op ...:"): say the cause
            while error.cause is not None and (error.cls_name or "").startswith("Dagster"):
                error = error.cause
            name = error.cls_name or "error"
            head, said, rest = error.message.strip().partition(": ")
            if said and head.rsplit(".", 1)[-1] == name:  # the class by its name, not its module path
                rest = f"{name}: {rest}"
            cause = _last_line((rest if said else error.message.strip()) or name)
            return f"{event.step_key or 'a step'}: {down or cause}"
    # no step failed: the run itself did (recording its events in a database gone away): its own failure first, then
    # the latest engine event that carries an error (an earlier one may have been harmless)
    failures = [e for e in events if e.is_run_failure] + [e for e in reversed(events) if e.is_engine_event]
    for event in failures:
        error = getattr(event.event_specific_data, "error", None)
        if isinstance(error, SerializableErrorInfo):
            down = service_down(error)
            cause = _last_line(error.message) or error.cls_name or "error"
            return down or f"run failed: {cause}"
    return "run failed"


def last_corpus_failure(instance: dg.DagsterInstance, partition: str) -> str | None:
    """Why the latest corpus run of a filing failed, if its latest run failed; None otherwise (never run, succeeded,
    canceled, or still running)."""
    runs = instance.get_runs(filters=dg.RunsFilter(job_name=CORPUS_JOB, tags={PARTITION_TAG: partition}), limit=1)
    if not runs or runs[0].status != dg.DagsterRunStatus.FAILURE:
        return None
    records = instance.all_logs(runs[0].run_id)
    return failure_cause(r.dagster_event for r in records if r.dagster_event is not None)
