"""A failed step is told by its cause, not by Dagster's wrapper ("Error occurred while executing op ...:")."""

from __future__ import annotations

import dagster as dg

from edgar_eval.defs.runner import failure_message


class ServiceError(RuntimeError):
    pass


@dg.asset
def generations() -> None:
    try:
        raise ConnectionError("connection refused")
    except ConnectionError as exc:  # an adapter's own message, raised from the transport's
        raise ServiceError("the RAG service at http://127.0.0.1:9/answer returned HTTP 500: upstream down") from exc


@dg.asset
def refused() -> None:
    raise dg.Failure("reviews/demo/audit-v1.jsonl line 3: not JSON")


def test_a_failed_step_says_its_cause_and_names_the_step_not_dagsters_wrapper():
    result = dg.materialize([generations], raise_on_error=False)
    assert not result.success
    assert failure_message(result) == (
        "generations: ServiceError: the RAG service at http://127.0.0.1:9/answer returned HTTP 500: upstream down"
    )
    assert "Error occurred while executing" not in failure_message(result)


def test_a_failure_an_asset_raises_on_purpose_is_said_as_written():
    result = dg.materialize([refused], raise_on_error=False)
    assert failure_message(result) == "reviews/demo/audit-v1.jsonl line 3: not JSON"
