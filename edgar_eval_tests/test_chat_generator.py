"""The HTTP generators against a real server on loopback: a fake OpenAI-compatible /v1/chat/completions and a
fake RAG service at /rag. Each test scripts the server's next replies; backoff sleeps are recorded rather than
slept, and a fake clock makes every attempt take 0.25 s, so latencies and tapes are exact."""

from __future__ import annotations

import json
import re
import time
from typing import Callable, cast

import pytest

from edgar_eval.adapters.chat_generator import (
    CHAT_API_KEY_ENV,
    RAG_API_KEY_ENV,
    ExternalRagGenerator,
    GenerationHttpError,
    GenerationResponseError,
    GenerationRetriesExhausted,
    OpenAICompatibleChatGenerator,
    normalise_chat_base_url,
)
from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.tape import Tape, TapeMiss
from edgar_eval.answering.prompt import PROMPT_VERSION, random_nonces, seeded_nonces
from edgar_eval.domain.generation import Generation, GenerationRequest, Generator
from edgar_eval_tests.loopback import LoopbackServer, Reply, json_reply, raw, status

MODEL = "qwen2.5-7b-instruct"
FAST = RetryPolicy(attempts=3, backoff_s=0.5, max_backoff_s=4.0, max_retry_after_s=5.0)
CHAT = "/v1/chat/completions"
RAG = "/rag"


def chat_body(content: str | None, finish_reason: str = "stop", choices: int = 1) -> dict:
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}
    return {
        "id": f"chatcmpl-{time.time_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [choice] * choices,
        "usage": {"prompt_tokens": 100, "completion_tokens": 9, "total_tokens": 109},
    }


def chat_ok(request: dict) -> Reply:
    """Refuses (with the nonce read from the system message) when asked about 'unanswerable'; else answers."""
    system, user = request["messages"][0]["content"], request["messages"][1]["content"]
    question = user.rsplit("Question: ", 1)[1]
    if "unanswerable" in question:
        return json_reply(chat_body(cast(re.Match[str], re.search(r"REFUSE-[0-9a-f]+", system)).group(0)))
    return json_reply(chat_body(f"For '{question}': $5,120 million [P1]."))


def rag_ok(request: dict) -> Reply:
    return json_reply(
        {
            "text": f"RAG answer to {request['question']}",
            "citations": ["doc-7#3", "doc-7#3", "doc-2#1"],
            "abstained": False,
            "reason": None,
            "debug": {"ignored": True},
        }
    )


def body(payload: object) -> Callable[[dict], Reply]:
    return lambda request: json_reply(payload)


def slow(seconds: float) -> Callable[[dict], Reply]:
    def reply(request: dict) -> Reply:
        time.sleep(seconds)
        return chat_ok(request)

    return reply


class FakeServer(LoopbackServer):
    """Both endpoints on loopback: scripted replies in turn, then the path's default; records every request."""

    def __init__(self) -> None:
        self.script: list[Callable[[dict], Reply]] = []
        super().__init__(self._reply)
        self.requests = self.received  # (path, headers, body)

    def bodies(self, path: str = CHAT) -> list[dict]:
        return [b for p, _, b in self.requests if p == path]

    def _reply(self, path: str, request: dict) -> Reply:
        with self._lock:
            scripted = self.script.pop(0) if self.script else None
        if scripted is not None:
            return scripted(request)
        if path == CHAT:
            return chat_ok(request)
        if path == RAG:
            return rag_ok(request)
        return json_reply({"error": "no such route"}, 404)


class Clock:
    """Each reading `step` after the last, so each attempt (two readings) takes exactly 0.25 s by default."""

    def __init__(self, step: float = 0.25) -> None:
        self.now, self.step = 1000.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def server():
    fake = FakeServer()
    yield fake
    fake.stop()


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def make_chat(server, sleeps, monkeypatch):
    monkeypatch.delenv(CHAT_API_KEY_ENV, raising=False)
    made = []

    def build(**kwargs) -> OpenAICompatibleChatGenerator:
        kwargs.setdefault("retry", FAST)
        kwargs.setdefault("timeout", 5.0)
        kwargs.setdefault("clock", Clock())
        generator = OpenAICompatibleChatGenerator(
            kwargs.pop("base_url", server.base_url), kwargs.pop("model", MODEL), sleep=sleeps.append, **kwargs
        )
        made.append(generator)
        return generator

    yield build
    for generator in made:
        generator.close()


@pytest.fixture
def make_rag(server, sleeps, monkeypatch):
    monkeypatch.delenv(RAG_API_KEY_ENV, raising=False)
    made = []

    def build(**kwargs) -> ExternalRagGenerator:
        kwargs.setdefault("retry", FAST)
        kwargs.setdefault("timeout", 5.0)
        kwargs.setdefault("clock", Clock())
        generator = ExternalRagGenerator(kwargs.pop("url", server.base_url + RAG), sleep=sleeps.append, **kwargs)
        made.append(generator)
        return generator

    yield build
    for generator in made:
        generator.close()


def ask(question: str = "What was Acme's total revenue for fiscal 2024?", passages: int = 2) -> GenerationRequest:
    return GenerationRequest(
        question,
        tuple((f"acme-10k-2024:{i:04d}", f"| Total revenue | $ {5120 + i} |") for i in range(passages)),
        cik="0000000042",
        fiscal_year=2024,
    )


def snapshot(directory) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_chat_request_shape_and_generation(server, make_chat):
    generator: Generator = make_chat(api_key="sk-test", max_tokens=300, seed=7)
    generation = generator.generate(ask())
    [(path, headers, sent)] = server.requests
    assert path == CHAT and headers["authorization"] == "Bearer sk-test"
    assert sent["model"] == MODEL and sent["temperature"] == 0 and sent["max_tokens"] == 300 and sent["seed"] == 7
    assert sent["stream"] is False and [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert sent["messages"][1]["content"].endswith("Question: What was Acme's total revenue for fiscal 2024?")
    assert generation == Generation(
        text="For 'What was Acme's total revenue for fiscal 2024?': $5,120 million [P1].",
        citations=["acme-10k-2024:0000"],
        abstained=False,
        reason=None,
        model_id=MODEL,
        parameters={"temperature": 0, "max_tokens": 300, "seed": 7},
        prompt_version=PROMPT_VERSION,
        latency_seconds=0.25,
        replayed=False,
        tape_key=None,
    )
    assert generator.generator_id == f"openai-compatible-chat:{MODEL}/{PROMPT_VERSION}"
    assert "seed" not in make_chat().parameters and "sk-" not in repr(generator)


def test_the_same_request_sends_the_same_messages(server, make_chat):
    make_chat().generate(ask())
    make_chat().generate(ask())
    make_chat(nonces=seeded_nonces("another run seed")).generate(ask())
    first, second, third = (b["messages"] for b in server.bodies())
    assert first == second and first != third


def test_a_refusal_reply_is_an_abstention(server, make_chat):
    generation = make_chat().generate(ask("What was the unanswerable figure for fiscal 2024?"))
    assert generation.abstained and generation.citations == [] and "do not establish" in generation.reason
    assert generation.text.startswith("REFUSE-")


def test_429_is_retried_after_retry_after_capped(server, make_chat, sleeps):
    server.script = [
        status(429, {"error": {"message": "Rate limit reached"}}, {"Retry-After": "2"}),
        status(429, "slow down", {"Retry-After": "600"}),
    ]
    generation = make_chat().generate(ask())
    assert generation.citations == ["acme-10k-2024:0000"] and len(server.requests) == 3
    assert sleeps == [2.0, 5.0]  # the second Retry-After is capped at max_retry_after_s
    assert generation.latency_seconds == 0.25  # the successful attempt's, not the waits


def test_persistent_503_gives_up_with_a_clear_error(server, make_chat, sleeps):
    server.script = [status(503, {"error": "model is loading"})] * 3
    with pytest.raises(
        GenerationRetriesExhausted, match=r"/v1/chat/completions after 3 attempts: HTTP 503 .*model is loading"
    ):
        make_chat().generate(ask())
    assert len(server.requests) == 3 and sleeps == [0.5, 1.0]


def test_timeouts_are_retried(server, make_chat, sleeps):
    server.script = [
        slow(1.5)
    ]  # the retry must answer within the timeout, so the timeout leaves room for a busy machine
    generation = make_chat(timeout=0.5, clock=time.perf_counter).generate(ask())
    assert generation.citations == ["acme-10k-2024:0000"] and len(server.requests) == 2 and sleeps == [0.5]
    server.script = [slow(1.0)] * 2
    with pytest.raises(GenerationRetriesExhausted, match="after 2 attempts: ReadTimeout"):
        make_chat(timeout=0.2, retry=RetryPolicy(attempts=2, backoff_s=0.5)).generate(ask())


def test_client_errors_are_not_retried(server, make_chat, sleeps):
    server.script = [status(404, {"error": {"message": "model 'qwen-typo' not found"}})]
    with pytest.raises(GenerationHttpError, match=r"HTTP 404 .*is model 'qwen-typo' served there.*not found") as caught:
        make_chat(model="qwen-typo").generate(ask())
    assert caught.value.status_code == 404 and caught.value.kind == "http"
    server.script = [status(400, {"error": {"message": "prompt exceeds the context window"}})]
    with pytest.raises(GenerationHttpError, match="context window"):
        make_chat().generate(ask())
    assert len(server.requests) == 2 and sleeps == []


@pytest.mark.parametrize(
    "reply, message",
    [
        (raw(b'{"choices": [{"message": {"content": "cut'), "did not return JSON"),
        (body(["not", "an", "object"]), "JSON list, not an object"),
        (
            body({"error": {"message": "upstream failed"}}),
            "without a non-empty 'choices' list: error .*upstream failed",
        ),
        (body({"object": "chat.completion", "choices": []}), r"without a non-empty 'choices' list \(keys"),
        (body(chat_body("one", choices=2)), "returned 2 choices where one was asked for"),
        (body({"choices": [{"text": "legacy completion"}]}), "without a 'message' object"),
        (
            body({"choices": [{"message": {"content": None, "refusal": "I can't help"}}]}),
            "'content' is NoneType.*I can't help",
        ),
        (body({"choices": [{"message": {"content": "x"}, "finish_reason": 3}]}), "non-text 'finish_reason'"),
    ],
)
def test_malformed_replies_are_refused(server, make_chat, sleeps, reply, message):
    server.script = [reply]
    with pytest.raises(GenerationResponseError, match=message):
        make_chat().generate(ask())
    assert len(server.requests) == 1 and sleeps == []


def test_a_reply_cut_at_max_tokens_is_noted(server, make_chat):
    server.script = [body(chat_body("Revenue was $5,1", finish_reason="length"))]
    generation = make_chat().generate(ask())
    assert not generation.abstained and generation.reason == "reply cut at max_tokens"


def test_record_then_replay_with_the_server_down(server, make_chat, tmp_path):
    questions = [
        ask(),
        ask("What was the unanswerable figure for fiscal 2024?"),
        ask("What was net income in 2024?", 3),
    ]
    recorder = make_chat(tape=Tape(tmp_path, "record"), seed=7)
    recorded = [recorder.generate(q) for q in questions]
    assert all(g.tape_key and not g.replayed for g in recorded) and len(snapshot(tmp_path)) == 3
    server.stop()
    player = make_chat(tape=Tape(tmp_path, "replay"), seed=7, clock=Clock(step=9.0))
    replayed = [player.generate(q) for q in questions]
    assert [g.text for g in replayed] == [g.text for g in recorded]
    assert [g.latency_seconds for g in replayed] == [0.25, 0.25, 0.25]  # the original calls', not re-measured
    for before, after in zip(recorded, replayed):
        assert after.replayed and after == Generation(**{**before.__dict__, "replayed": True})
    assert replayed[1].abstained and len(server.requests) == 3


def test_a_tape_miss_raises_and_calls_nothing(server, make_chat, tmp_path):
    make_chat(tape=Tape(tmp_path, "record")).generate(ask())
    player = make_chat(tape=Tape(tmp_path, "replay"))
    with pytest.raises(TapeMiss, match=r"key [0-9a-f]{64} .*'What was revenue in 2023\?'"):
        player.generate(ask("What was revenue in 2023?"))
    with pytest.raises(TapeMiss):  # another parameter is another call
        make_chat(tape=Tape(tmp_path, "replay"), max_tokens=100).generate(ask())
    assert len(server.requests) == 1


def test_the_tape_is_byte_identical_whatever_the_order(server, make_chat, tmp_path):
    questions = [ask(f"What was revenue in {year}?") for year in (2021, 2022, 2023, 2024)]
    for name, order in (("forward", questions), ("backward", questions[::-1])):
        generator = make_chat(tape=Tape(tmp_path / name, "record"))
        for question in order:
            generator.generate(question)
    assert snapshot(tmp_path / "forward") == snapshot(tmp_path / "backward")
    entry = json.loads(next(iter(snapshot(tmp_path / "forward").values())))
    assert set(entry["response"]) == {"content", "finish_reason", "served_model", "usage"}  # no ids or timestamps


def test_random_nonces_cannot_be_taped(make_chat, tmp_path):
    with pytest.raises(ValueError, match="random nonces"):
        make_chat(tape=Tape(tmp_path, "record"), nonces=random_nonces)
    make_chat(nonces=random_nonces)  # without a tape they are fine


def test_chat_base_url_forms():
    assert normalise_chat_base_url("http://localhost:8080/v1/chat/completions") == "http://localhost:8080"
    assert normalise_chat_base_url("https://api.openai.com/v1/") == "https://api.openai.com"
    with pytest.raises(ValueError, match="chat base_url"):
        normalise_chat_base_url("localhost:8080")


def test_rag_request_shape_and_generation(server, make_rag, monkeypatch):
    monkeypatch.setenv(RAG_API_KEY_ENV, "rag-key")
    generator: Generator = make_rag(name="acme-rag")
    generation = generator.generate(ask())
    [(path, headers, sent)] = server.requests
    assert path == RAG and sent == {
        "question": "What was Acme's total revenue for fiscal 2024?",
        "cik": "0000000042",
        "fiscal_year": 2024,
    }
    assert headers["authorization"] == "Bearer rag-key"
    assert generation == Generation(
        text="RAG answer to What was Acme's total revenue for fiscal 2024?",
        citations=["doc-7#3", "doc-2#1"],
        abstained=False,
        reason=None,
        model_id="acme-rag",
        parameters={},
        prompt_version=None,
        latency_seconds=0.25,
        replayed=False,
        tape_key=None,
    )
    assert generator.generator_id == "external-rag:acme-rag"
    assert make_rag().generator_id == f"external-rag:{server.base_url}{RAG}"


def test_rag_abstention_and_strict_validation(server, make_rag):
    server.script = [body({"text": "", "citations": [], "abstained": True, "reason": "no filing for that year"})]
    generation = make_rag().generate(ask())
    assert generation.abstained and generation.reason == "no filing for that year"
    for payload, message in (
        ({"citations": [], "abstained": False}, "without 'text'"),
        ({"text": "x", "citations": [], "abstained": "no"}, "'abstained' of type str"),
        ({"text": "x", "citations": [3], "abstained": False}, "not a list of non-empty strings"),
        ({"text": "x", "citations": "doc-1", "abstained": False}, "not a list of non-empty strings"),
        ({"text": 5, "citations": [], "abstained": False}, "'text' of type int"),
        ({"text": "x", "citations": [], "abstained": False, "reason": 1}, "'reason' of type int"),
    ):
        server.script = [body(payload)]
        with pytest.raises(GenerationResponseError, match=message):
            make_rag().generate(ask())


def test_rag_route_field_is_read_checked_and_optional(server, make_rag):
    """A service that names its exit is taken at its word (when the word agrees with its abstained flag); one that
    sends no route field leaves the route None, and the answerer then reads the exit from the flag."""
    server.script = [body({"text": "Which fiscal year?", "citations": [], "abstained": True, "route": "clarify"})]
    asked = GenerationRequest("What was Acme's revenue?", cik="42", fiscal_year=2024, role="retail-analyst")
    generation = make_rag().generate(asked)
    assert generation.route == "clarify" and generation.abstained
    assert server.requests[-1][2]["role"] == "retail-analyst"  # the service can apply its own policy
    assert make_rag().generate(ask()).route is None  # the default reply has no route field
    assert "role" not in server.requests[-1][2]  # no role asked, none sent: recorded tapes keep their keys
    for payload, message in (
        ({"text": "x", "citations": [], "abstained": False, "route": "escalate"}, "route 'escalate'; routes are"),
        ({"text": "x", "citations": [], "abstained": True, "route": "answer"}, "route 'answer' with abstained true"),
        ({"text": "x", "citations": [], "abstained": False, "route": "deny"}, "route 'deny' with abstained false"),
    ):
        server.script = [body(payload)]
        with pytest.raises(GenerationResponseError, match=message):
            make_rag().generate(ask())


def test_rag_retries_and_gives_up(server, make_rag, sleeps):
    server.script = [status(502, "bad gateway"), status(429, "", {"Retry-After": "1"})]
    assert make_rag().generate(ask()).text.startswith("RAG answer") and sleeps == [0.5, 1.0]
    server.script = [status(500, {"message": "index offline"})] * 3
    with pytest.raises(GenerationRetriesExhausted, match="after 3 attempts: HTTP 500 .*index offline"):
        make_rag().generate(ask())


def test_rag_record_then_replay_with_the_server_down(server, make_rag, tmp_path):
    recorded = make_rag(name="acme-rag", tape=Tape(tmp_path, "record")).generate(ask())
    server.stop()
    replayed = make_rag(url="http://127.0.0.1:9/moved", name="acme-rag", tape=Tape(tmp_path, "replay")).generate(ask())
    assert replayed == Generation(**{**recorded.__dict__, "replayed": True}) and replayed.tape_key == recorded.tape_key
    with pytest.raises(TapeMiss, match="'What was revenue in 2023\\?'"):
        make_rag(name="acme-rag", tape=Tape(tmp_path, "replay")).generate(ask("What was revenue in 2023?"))


def test_rag_url_must_be_http():
    with pytest.raises(ValueError, match="http\\(s\\) URL"):
        ExternalRagGenerator("rag.internal:8000/answer")
