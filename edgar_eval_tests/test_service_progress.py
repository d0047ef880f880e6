"""Progress while a service works (adapters/service_progress.py): a line every few questions or every 30 s with the
questions done, the failures and, where the total is known, about how long is left; a call that waits longer gets
lines of its own, the first naming the setting that bounds the wait. On constructed clocks, and on the loopback
servers the chat, RAG and embeddings tests use; the lines reach `edgar-eval run` through the run's events."""

from __future__ import annotations

import json
import threading
import time
from types import SimpleNamespace
from typing import Any, cast

import dagster as dg
import httpx
import pytest

from edgar_eval.adapters.chat_generator import ExternalRagGenerator, GenerationError, OpenAICompatibleChatGenerator
from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.openai_embeddings import OpenAICompatibleEmbedder
from edgar_eval.adapters.service_progress import (
    MARKER,
    Limits,
    ServiceProgress,
    counts_in,
    duration,
    follow_embedder,
    generator_limits,
)
from edgar_eval.defs.runner import StepFollower
from edgar_eval.defs.settings import GENERATOR_ATTEMPTS_ENV, GENERATOR_TIMEOUT_ENV, EmbedderResource
from edgar_eval.domain.generation import GenerationRequest
from edgar_eval_tests.loopback import LoopbackServer, json_reply

LIMITS = generator_limits(httpx.Timeout(120.0, connect=10.0), RetryPolicy(attempts=5))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _progress(clock: Clock, lines: list[str], step=lambda: None, **options: Any) -> ServiceProgress:
    return ServiceProgress(
        "RAG service 'mine'", "questions", LIMITS, log=lines.append, clock=clock, step=step, **options
    )


def _calls(progress: ServiceProgress, clock: Clock, seconds: list[float], fail: frozenset[int] = frozenset()) -> None:
    for number, took in enumerate(seconds):
        try:
            with progress.call():
                clock.now += took
                if number in fail:
                    raise GenerationError("HTTP 500")
        except GenerationError:
            pass


def test_the_settings_named_are_those_the_generator_reads():
    assert (LIMITS.timeout_setting, LIMITS.attempts_setting) == (GENERATOR_TIMEOUT_ENV, GENERATOR_ATTEMPTS_ENV)
    # five attempts of 120 s, and the backoffs between them (1 + 2 + 4 + 8 s): what a hung service cost (661 s)
    assert LIMITS.given_up_after() == 615.0
    assert (duration(45), duration(615), duration(3 * 3600 + 65)) == ("45 s", "10 min", "3 h 01 min")


def test_a_line_every_n_questions_or_every_30_s_with_done_failed_and_each():
    clock, lines = Clock(), []
    progress = _progress(clock, lines)
    _calls(progress, clock, [1.0] * 10, fail=frozenset({3}))
    assert lines == [
        MARKER + "RAG service 'mine': 9 questions done, 1 failed, 1.0 s each (a call may wait 120 s "
        "(EDGAR_EVAL_GENERATOR_TIMEOUT) and is tried up to 5 times (EDGAR_EVAL_GENERATOR_ATTEMPTS): a service that "
        "does not answer is given up after about 10 min)"
    ]
    _calls(progress, clock, [12.0, 12.0, 12.0])  # slower than ten in 30 s: the time decides, the limits said once
    assert lines[1:] == [MARKER + "RAG service 'mine': 12 questions done, 1 failed, 3.5 s each"]
    assert counts_in(lines[1]) == (12, 1, 3.5)  # 46 s over 13 questions


def test_a_replay_that_answers_at_once_prints_nothing():
    clock, lines = Clock(), []
    _calls(_progress(clock, lines), clock, [0.001] * 400)
    assert lines == []


def test_a_known_total_gives_what_is_left_and_each_step_counts_anew():
    clock, lines, step = Clock(), [], ["run-1/generations"]
    progress = _progress(clock, lines, step=lambda: step[0], every=5)
    progress.expect(40)
    _calls(progress, clock, [2.0] * 5)
    assert lines[-1].startswith(MARKER + "RAG service 'mine': 5 questions done of 40, 0 failed, 2.0 s each, about 70 s")
    step[0] = "run-1/release_fixture_results"
    _calls(progress, clock, [2.0] * 5)
    assert lines[-1].startswith(MARKER + "RAG service 'mine': 5 questions done, 0 failed, 2.0 s each (a call may wait")


def test_a_call_that_waits_gets_lines_of_its_own_the_first_naming_the_timeout_setting():
    lines: list[str] = []
    progress = ServiceProgress("chat model 'm'", "questions", LIMITS, log=lines.append, interval_s=0.2)
    with progress.call():
        time.sleep(1.0)
    waits = [line for line in lines if "still waiting" in line]
    assert len(waits) >= 2, lines
    assert waits[0].startswith(MARKER + "chat model 'm': still waiting after 0 s on question 1, with 0 done and 0")
    assert "(EDGAR_EVAL_GENERATOR_TIMEOUT)" in waits[0] and "EDGAR_EVAL_GENERATOR_TIMEOUT" not in waits[1]
    progress.close()


REQUEST = GenerationRequest("What was Harvon's revenue in fiscal 2024?", (("c1", "Revenue was $1 million."),), cik="1")


def _slow_server(seconds: float, status: int = 200) -> LoopbackServer:
    def respond(path: str, body: dict):
        time.sleep(seconds)
        if status != 200:
            return json_reply({"error": "not today"}, status=status)
        if path.endswith("/chat/completions"):
            return json_reply({"choices": [{"message": {"content": "Revenue was $1 million [c1]."}}], "model": "m"})
        if path.endswith("/embeddings"):
            return json_reply({"data": [{"index": i, "embedding": [1.0, 0.5]} for i in range(len(body["input"]))]})
        return json_reply({"text": "Revenue was $1 million.", "citations": ["c1"], "abstained": False})

    return LoopbackServer(respond)


def _quick(progress: ServiceProgress, lines: list[str]) -> None:
    progress.log, progress.every, progress.interval_s, progress.least_gap_s = lines.append, 2, 0.2, 0.0


def test_the_chat_generator_says_its_progress_and_its_wait():
    server = _slow_server(0.5)
    try:
        chat = OpenAICompatibleChatGenerator(server.base_url, "m", timeout=5.0, retry=RetryPolicy(attempts=2))
        lines: list[str] = []
        _quick(chat.progress, lines)
        for _ in range(2):
            chat.generate(REQUEST)
    finally:
        server.stop()
    service = f"chat model 'm' at {server.base_url}"
    assert any(line.startswith(f"{MARKER}{service}: still waiting after") for line in lines), lines
    assert "a call may wait 5 s (EDGAR_EVAL_GENERATOR_TIMEOUT) and is tried up to 2 times" in lines[0]
    assert lines[-1].startswith(f"{MARKER}{service}: 2 questions done, 0 failed, ")


def test_the_rag_generator_counts_a_question_it_gave_up_on_as_failed():
    server = _slow_server(0.0, status=400)
    try:
        rag = ExternalRagGenerator(f"{server.base_url}/answer", name="mine", retry=RetryPolicy(attempts=1))
        lines: list[str] = []
        _quick(rag.progress, lines)
        for _ in range(2):
            with pytest.raises(GenerationError):
                rag.generate(REQUEST)
    finally:
        server.stop()
    assert lines[-1].startswith(f"{MARKER}RAG service 'mine' at {server.base_url}/answer: 0 questions done, 2 failed")


def test_the_embedder_is_followed_texts_against_the_texts_it_was_given():
    server = _slow_server(0.1)
    try:
        embedder = OpenAICompatibleEmbedder("e", server.base_url, batch_size=2)
        progress = follow_embedder(embedder)
        assert progress is not None and follow_embedder(embedder) is progress, "followed once"
        lines: list[str] = []
        _quick(progress, lines)
        progress.every = 4
        vectors = embedder.embed(["a", "b", "c", "d", "e"])
    finally:
        server.stop()
    assert vectors.shape == (5, 2), "what it embeds is what it embedded before"
    assert lines[0].startswith(f"{MARKER}embeddings 'e' at {server.base_url}/v1/embeddings: 4 texts done of 5, 0 ")
    assert " left (a call may wait 120 s and is tried up to 5 times, neither a setting:" in lines[0]


def test_a_step_s_progress_lines_reach_the_cli_through_the_run_s_events():
    """The embedder resource follows its service when a step sets it up (the class, part of every stored corpus's
    code version, is left as written); the step's lines are events of the run, which the CLI's follower reads."""
    server = _slow_server(0.1)
    resource = EmbedderResource(kind="openai-compatible", model="e", base_url=server.base_url)
    lines: list[str] = []

    @dg.asset
    def embedded(embedder: EmbedderResource) -> None:
        progress = embedder.adapter().__dict__["_progress"]
        progress.every, progress.least_gap_s = 1, 0.0
        embedder.adapter().embed([f"text {n}" for n in range(130)])  # three requests of 64 at most

    try:
        instance = dg.DagsterInstance.ephemeral()
        result = dg.materialize([embedded], resources={"embedder": resource}, instance=instance)
    finally:
        server.stop()
    assert result.success
    follower = StepFollower(instance, result.run_id, None, lambda step, line: lines.append(f"{step}: {line}"))
    follower._read()
    service = f"embedded: embeddings 'e' at {server.base_url}/v1/embeddings"
    assert [line.split(", 0 failed")[0] for line in lines] == [
        f"{service}: {done} texts done of 130" for done in (64, 128, 130)
    ]


def _log_record(step: str, message: str) -> Any:
    return SimpleNamespace(event_log_entry=SimpleNamespace(dagster_event=None, user_message=message, step_key=step))


class _History:
    def __init__(self, records: list) -> None:
        self.records = records

    def get_records_for_run(self, run_id, cursor=None, of_type=None, limit=100):
        start = int(cursor or 0)
        page = self.records[start : start + limit]
        return SimpleNamespace(
            records=page, cursor=str(start + len(page)), has_more=start + len(page) < len(self.records)
        )


def test_the_follower_prints_each_progress_line_once_and_not_again_on_its_last_read():
    history = _History([_log_record("generations", MARKER + "x: 1 questions done, 0 failed, 2.0 s each")])
    shown: list[tuple[str, str]] = []
    follower = StepFollower(cast(dg.DagsterInstance, history), "run", None, lambda *line: shown.append(line))
    follower._read()
    history.records.append(_log_record("generations", "an asset's own line"))
    history.records.append(_log_record("generations", MARKER + "x: still waiting after 30 s on question 2"))
    with follower:
        pass
    assert shown == [
        ("generations", "x: 1 questions done, 0 failed, 2.0 s each"),
        ("generations", "x: still waiting after 30 s on question 2"),
    ]


def test_the_cli_adds_what_is_left_of_the_generations_step_from_the_golden_set(capsys):
    import pandas as pd

    from edgar_eval.cli import _ProgressLines

    store = SimpleNamespace(read=lambda asset, columns=None: pd.DataFrame({"question_id": range(100)}))
    lines = _ProgressLines(SimpleNamespace(store=lambda: store), None)
    lines("generations", "RAG service 'mine': 60 questions done, 0 failed, 2.0 s each")
    lines("question_embeddings", "embeddings 'e': 64 texts done of 128, 0 failed, 0.1 s each, about 6 s left")
    out = capsys.readouterr().out.splitlines()
    # 100 questions, and the 40 of the determinism sample asked again: 80 left at 2 s
    assert out == [
        "  ...    generations: RAG service 'mine': 60 questions done, 0 failed, 2.0 s each, about 3 min left of about "
        "140",
        "  ...    question_embeddings: embeddings 'e': 64 texts done of 128, 0 failed, 0.1 s each, about 6 s left",
    ]


def test_a_thread_of_its_own_is_started_in_each_process_that_calls():
    progress = ServiceProgress("s", "questions", Limits(1.0, 1), log=lambda line: None)
    with progress.call():
        pass
    first = progress._watch
    with progress.call():
        pass
    assert progress._watch is first and isinstance(first, threading.Thread) and first.daemon
    progress._watch_pid = -1  # as in a process forked from this one
    with progress.call():
        pass
    assert progress._watch is not first
    progress.close()
    json.dumps(LIMITS.said())  # a plain string
