"""Why a run failed, in one line (defs/failures.py), on constructed events: the step's own error without Dagster's
wrapper, the service that did not answer where a client's error says so, and the run's own failure where no step
failed (a database gone while the run recorded its events)."""

from __future__ import annotations

import dagster as dg
from dagster._core.events import DagsterEventType, EngineEventData, JobFailureData
from dagster._core.execution.plan.objects import StepFailureData
from dagster_shared.error import SerializableErrorInfo

from edgar_eval.defs.failures import failure_cause, service_down


def _error(cls_name: str, message: str, cause: SerializableErrorInfo | None = None) -> SerializableErrorInfo:
    return SerializableErrorInfo(message, [], cls_name, cause)


def _step_failure(error: SerializableErrorInfo) -> dg.DagsterEvent:
    return dg.DagsterEvent(
        DagsterEventType.STEP_FAILURE.value,
        "evaluation_job",
        event_specific_data=StepFailureData(error, None),
        step_key="generations",
    )


def _run_failure(error: SerializableErrorInfo | None) -> dg.DagsterEvent:
    return dg.DagsterEvent(
        DagsterEventType.RUN_FAILURE.value, "evaluation_job", event_specific_data=JobFailureData(error)
    )


POSTGRES_GONE = _error(
    "OperationalError",
    'psycopg2.OperationalError: connection to server at "127.0.0.1", port 5432 failed: Connection refused\n'
    "\tIs the server running on that host and accepting TCP/IP connections?\n",
)


def test_a_steps_error_is_said_without_dagsters_wrapper_and_never_as_a_bare_colon():
    wrapped = _error(
        "DagsterExecutionStepExecutionError",
        'Error occurred while executing op "generations":',
        _error("ServiceError", "edgar_eval.adapters.chat.ServiceError: HTTP 500 from the model server\n\n"),
    )
    assert failure_cause([_step_failure(wrapped)]) == "generations: ServiceError: HTTP 500 from the model server"
    # a message whose last line only leads to the next (the old reading said "generations: the server said:")
    leading = _error("ServiceError", "ServiceError: HTTP 503 from the model server\nthe server said:\n")
    assert failure_cause([_step_failure(leading)]) == "generations: ServiceError: HTTP 503 from the model server"


def test_a_service_that_did_not_answer_is_named():
    wrapped = _error(
        "DagsterExecutionStepExecutionError", 'Error occurred while executing op "generations":', POSTGRES_GONE
    )
    said = failure_cause([_step_failure(wrapped)])
    assert said == (
        'generations: PostgreSQL (the run history): could not connect (connection to server at "127.0.0.1", port 5432 '
        "failed: Connection refused)"
    )
    redis = _error("ConnectionError", "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379.")
    assert (
        service_down(redis) == "Redis (the Celery broker): could not connect (Error 111 connecting to localhost:6379.)"
    )
    store = _error("EndpointConnectionError", 'Could not connect to the endpoint URL: "http://127.0.0.1:9000/x"')
    assert (
        service_down(store)
        == 'the object store: could not connect (Could not connect to the endpoint URL: "http://127.0.0.1:9000/x")'
    )
    assert service_down(_error("ValueError", "invalid literal for int() with base 10: 'x'")) is None


def test_a_run_that_failed_outside_its_steps_says_its_own_error():
    assert failure_cause([_run_failure(POSTGRES_GONE)]).startswith(
        "PostgreSQL (the run history): could not connect (connection"
    )
    assert failure_cause([_run_failure(_error("RuntimeError", "the executor lost its workers"))]) == (
        "run failed: the executor lost its workers"
    )
    assert failure_cause([_run_failure(None)]) == "run failed"
    # the run's own failure, not an earlier engine event's harmless error
    harmless = dg.DagsterEvent(
        DagsterEventType.ENGINE_EVENT.value,
        "evaluation_job",
        event_specific_data=EngineEventData(error=_error("Warning", "a worker restarted")),
    )
    assert failure_cause([harmless, _run_failure(POSTGRES_GONE)]).startswith("PostgreSQL (the run history): could")
