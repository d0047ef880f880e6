"""The OpenAI-compatible embedder against a real HTTP server on loopback that speaks /v1/embeddings.

The server's vectors are hash-derived, deterministic and deliberately not unit length, so the tests know
exactly what each text must come back as. Each test scripts the server's next replies (errors, shuffled
order, NaN, a dimension change); backoff sleeps are recorded rather than slept.
"""

from __future__ import annotations

import hashlib
import json
import socket
from typing import Callable, cast

import numpy as np
import pytest

from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.openai_embeddings import (
    API_KEY_ENV,
    BASE_URL_ENV,
    MODEL_ENV,
    EmbeddingHttpError,
    EmbeddingResponseError,
    EmbeddingRetriesExhausted,
    OpenAICompatibleEmbedder,
    normalise_base_url,
)
from edgar_eval.domain.ports import Embedder
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint
from edgar_eval_tests.loopback import LoopbackServer, Reply, json_reply, raw, status

MODEL = "nomic-embed-text"
DIM = 8
FAST = RetryPolicy(attempts=3, backoff_s=0.5, max_backoff_s=4.0, max_retry_after_s=5.0)


def raw_vector(text: str, dim: int = DIM) -> list[float]:
    """Deterministic, not normalised: entries in [-3, 3) from sha256 of the text."""
    digest = hashlib.sha256(text.encode()).digest()
    while len(digest) < dim:
        digest += hashlib.sha256(digest).digest()
    return [round((byte / 256.0) * 6.0 - 3.0, 6) for byte in digest[:dim]]


def expected(texts: list[str], dim: int = DIM) -> np.ndarray:
    rows = np.asarray([raw_vector(t, dim) for t in texts], dtype=np.float64)
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def ok(
    dim: int = DIM,
    order: Callable[[list], list] = lambda items: items,
    mutate: Callable[[list], None] = lambda items: None,
) -> Callable[[dict], Reply]:
    """A 200 with hash vectors for the request's inputs, reordered by `order`, then tampered with by `mutate`."""

    def reply(request: dict) -> Reply:
        items = [
            {"object": "embedding", "index": i, "embedding": raw_vector(t, dim)} for i, t in enumerate(request["input"])
        ]
        items = order(items)
        mutate(items)
        body = {
            "object": "list",
            "data": items,
            "model": request["model"],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()  # NaN passes as the token NaN

    return reply


class FakeEmbeddingServer(LoopbackServer):
    """/v1/embeddings on loopback: scripted replies in turn, then `ok()` for ever; records every request."""

    def __init__(self) -> None:
        self.script: list[Callable[[dict], Reply]] = []
        super().__init__(self._reply)

    @property
    def requests(self) -> list[tuple[dict[str, str], dict]]:
        return [(headers, body) for _, headers, body in self.received]

    @property
    def batches(self) -> list[list[str]]:
        return [body["input"] for _, body in self.requests]

    def _reply(self, path: str, request: dict) -> Reply:
        if path != "/v1/embeddings":
            return json_reply({"error": "no such route"}, 404)
        with self._lock:
            scripted = self.script.pop(0) if self.script else ok()
        return scripted(request)


@pytest.fixture
def server():
    fake = FakeEmbeddingServer()
    yield fake
    fake.stop()


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def make(server, sleeps, monkeypatch):
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    made = []

    def build(**kwargs) -> OpenAICompatibleEmbedder:
        kwargs.setdefault("retry", FAST)
        kwargs.setdefault("timeout", 5.0)
        embedder = OpenAICompatibleEmbedder(
            kwargs.pop("model", MODEL), kwargs.pop("base_url", server.base_url), sleep=sleeps.append, **kwargs
        )
        made.append(embedder)
        return embedder

    yield build
    for embedder in made:
        embedder.close()


TEXTS = [f"Item 7. Management's discussion, paragraph {i}: revenue grew {i * 3} percent." for i in range(10)]


def test_batches_restore_order_and_normalise(server, make):
    server.script = [
        ok(order=lambda items: items[::-1]),
        ok(order=lambda items: items[1:] + items[:1]),
        ok(order=lambda items: items[::-1]),
    ]
    embedder: Embedder = make(batch_size=4)
    vectors = embedder.embed(TEXTS)
    assert server.batches == [TEXTS[0:4], TEXTS[4:8], TEXTS[8:10]]
    assert vectors.dtype == np.float32 and vectors.shape == (10, DIM)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(vectors, expected(TEXTS), atol=1e-6)
    headers, body = server.requests[0]
    assert body["model"] == MODEL and body["encoding_format"] == "float" and "dimensions" not in body
    assert headers["content-type"] == "application/json" and "authorization" not in headers
    concrete = cast(OpenAICompatibleEmbedder, embedder)  # what the Embedder protocol does not name
    assert concrete.dimension == DIM and concrete.served_model == MODEL
    assert concrete.normalisation == "l2"


def test_empty_input_sends_nothing(server, make):
    assert make().embed([]).shape == (0, 0)
    assert make(dimension=DIM).embed([]).shape == (0, DIM)
    assert server.requests == []


def test_long_texts_are_cut_to_max_characters(server, make):
    long_text = "x" * 50
    vectors = make(max_characters=20).embed([long_text, "short"])
    assert server.batches == [["x" * 20, "short"]]
    np.testing.assert_allclose(vectors, expected(["x" * 20, "short"]), atol=1e-6)
    make(max_characters=20, truncate=False).embed([long_text])
    assert server.batches[-1] == [long_text]
    assert make(max_characters=20).max_characters == 20


def test_api_key_from_argument_or_environment(server, make, monkeypatch):
    make(api_key="sk-argument").embed(["a"])
    assert server.requests[-1][0]["authorization"] == "Bearer sk-argument"
    monkeypatch.setenv(API_KEY_ENV, "sk-environment")
    make().embed(["a"])
    assert server.requests[-1][0]["authorization"] == "Bearer sk-environment"
    monkeypatch.setenv("SOME_OTHER_KEY", "sk-other")
    make(api_key_env="SOME_OTHER_KEY").embed(["a"])
    assert server.requests[-1][0]["authorization"] == "Bearer sk-other"
    make(api_key_env=None).embed(["a"])
    assert "authorization" not in server.requests[-1][0]
    assert "sk-" not in repr(make(api_key="sk-secret"))


def test_429_is_retried_after_retry_after(server, make, sleeps):
    server.script = [
        status(429, {"error": {"message": "Rate limit reached", "type": "requests"}}, {"Retry-After": "2"})
    ]
    vectors = make().embed(["one", "two"])
    np.testing.assert_allclose(vectors, expected(["one", "two"]), atol=1e-6)
    assert len(server.requests) == 2 and sleeps == [2.0]


def test_persistent_503_gives_up_after_the_attempts(server, make, sleeps):
    server.script = [status(503, {"error": "model is loading"})] * 3
    embedder = make()
    with pytest.raises(EmbeddingRetriesExhausted, match=r"after 3 attempts: HTTP 503 .*model is loading"):
        embedder.embed(["one"])
    assert len(server.requests) == 3 and sleeps == [0.5, 1.0]


def test_transport_errors_are_retried_then_reported(make, sleeps):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    embedder = make(base_url=f"http://127.0.0.1:{closed_port}", retry=RetryPolicy(attempts=2, backoff_s=0.25))
    with pytest.raises(EmbeddingRetriesExhausted, match=r"after 2 attempts: ConnectError"):
        embedder.embed(["one"])
    assert sleeps == [0.25]


def test_client_errors_carry_the_server_message_and_are_not_retried(server, make, sleeps):
    server.script = [status(404, {"error": {"message": "model 'nomic-embed-txt' not found, try pulling it first"}})]
    with pytest.raises(EmbeddingHttpError, match=r"HTTP 404 .*not found, try pulling it first") as caught:
        make(model="nomic-embed-txt").embed(["one"])
    assert caught.value.status_code == 404 and caught.value.kind == "http"
    server.script = [status(401, "Unauthorized: bad key")]
    with pytest.raises(EmbeddingHttpError, match=r"HTTP 401 .*check the API key.*bad key"):
        make().embed(["one"])
    assert len(server.requests) == 2 and sleeps == []


def test_malformed_json_is_refused(server, make):
    server.script = [raw(b'{"data": [{"index": 0, "embedding": [0.1, 0.2')]
    with pytest.raises(EmbeddingResponseError, match="did not return JSON"):
        make().embed(["one"])
    server.script = [raw(b'{"embeddings": [[0.1, 0.2]]}')]
    with pytest.raises(EmbeddingResponseError, match="without a 'data' list"):
        make().embed(["one"])
    server.script = [raw(b'{"data": [{"index": 0, "embedding": "AAAAAA=="}]}')]
    with pytest.raises(EmbeddingResponseError, match="encoding_format='float'"):
        make().embed(["one"])
    server.script = [raw(b'{"data": [{"index": 0, "embedding": [0.1, "0.2"]}]}')]
    with pytest.raises(EmbeddingResponseError, match="not flat lists of numbers"):
        make().embed(["one"])
    assert len(server.requests) == 4


def test_wrong_count_or_indices_are_refused(server, make):
    server.script = [ok(mutate=lambda items: items.pop())]
    with pytest.raises(EmbeddingResponseError, match="returned 2 embeddings for 3 texts"):
        make().embed(["a", "b", "c"])

    def duplicate(items):
        items[1]["index"] = 0

    server.script = [ok(mutate=duplicate)]
    with pytest.raises(EmbeddingResponseError, match="expected each of 0..2 once"):
        make().embed(["a", "b", "c"])


def test_non_finite_values_are_refused(server, make):
    def poison(items):
        items[1]["embedding"][3] = float("nan")

    server.script = [ok(mutate=poison)]
    with pytest.raises(EmbeddingResponseError, match=r"non-finite values .* \[1\]"):
        make().embed(["a", "b"])

    def zero(items):
        items[0]["embedding"] = [0.0] * DIM

    server.script = [ok(mutate=zero)]
    with pytest.raises(EmbeddingResponseError, match="all-zero"):
        make().embed(["a", "b"])


def test_inconsistent_dimensions_are_refused(server, make):
    def ragged(items):
        items[1]["embedding"] = items[1]["embedding"][:5]

    server.script = [ok(mutate=ragged)]
    with pytest.raises(EmbeddingResponseError, match=r"inconsistent dimensions \[5, 8\]"):
        make().embed(["a", "b"])

    server.script = [ok(dim=DIM), ok(dim=6)]
    embedder = make(batch_size=2)
    with pytest.raises(EmbeddingResponseError, match="returned 6-dimensional vectors where 8"):
        embedder.embed(["a", "b", "c"])

    with pytest.raises(EmbeddingResponseError, match="returned 8-dimensional vectors where 16"):
        make(dimension=16).embed(["a"])


def test_dimensions_can_be_requested(server, make):
    server.script = [ok(dim=16)]
    vectors = make(dimension=16, send_dimensions=True).embed(["a"])
    assert server.requests[0][1]["dimensions"] == 16 and vectors.shape == (1, 16)
    with pytest.raises(ValueError, match="dimension is required"):
        make(send_dimensions=True)


def test_a_changed_serving_model_is_refused(server, make):
    def rename(request):
        code, headers, data = ok()(request)
        body = json.loads(data)
        body["model"] = "all-minilm"
        return code, headers, json.dumps(body).encode()

    server.script = [ok(), rename]
    with pytest.raises(EmbeddingResponseError, match="served by model 'all-minilm'"):
        make(batch_size=1).embed(["a", "b"])


def test_embedder_id_names_model_endpoint_and_dimension(server, make):
    embedder = make(base_url=f"http://user:secret@127.0.0.1:{server.port}/v1/")
    assert embedder.endpoint == f"{server.base_url.replace('http://', 'http://user:secret@')}/v1/embeddings"
    embedder_id = embedder.embedder_id  # the dimension is unknown: one probe request
    assert embedder_id == f"openai-compatible:{MODEL}@{server.base_url}/dim={DIM}"
    assert "secret" not in embedder_id and len(server.requests) == 1
    assert server.requests[0][0]["authorization"].startswith("Basic ")  # httpx sends URL credentials as Basic
    assert embedder.embedder_id == embedder_id and len(server.requests) == 1
    given = make(dimension=DIM)
    assert given.embedder_id == embedder_id and len(server.requests) == 1
    assert make(model="mxbai-embed-large", dimension=DIM).embedder_id != embedder_id


def test_fingerprint_refuses_an_index_from_another_embedder(server, make):
    ours = IndexFingerprint(make().embedder_id, "l2", 1000, 200)
    minilm = IndexFingerprint(MiniLMEmbedder.embedder_id, "l2", 1000, 200)
    assert ours != minilm and ours.digest != minilm.digest
    with pytest.raises(IndexMismatch, match="embedder_id: index has 'sentence-transformers/all-MiniLM-L6-v2"):
        check_fingerprint(ours, minilm, "search_index")
    with pytest.raises(IndexMismatch, match="embedder_id: index has 'openai-compatible:"):
        check_fingerprint(minilm, ours, "search_index")
    other_model = IndexFingerprint(make(model="mxbai-embed-large").embedder_id, "l2", 1000, 200)
    with pytest.raises(IndexMismatch):
        check_fingerprint(ours, other_model, "search_index")
    check_fingerprint(ours, IndexFingerprint.from_json(ours.as_json()), "search_index")


def test_base_url_forms_and_from_env(server, monkeypatch):
    assert normalise_base_url("http://localhost:11434/") == "http://localhost:11434"
    assert normalise_base_url("http://localhost:11434/v1") == "http://localhost:11434"
    assert normalise_base_url("https://api.openai.com/v1/embeddings") == "https://api.openai.com"
    assert normalise_base_url("http://gateway:8000/llm/v1") == "http://gateway:8000/llm"
    for bad in ("localhost:11434", "ftp://host", "http://host/v1?key=1"):
        with pytest.raises(ValueError):
            normalise_base_url(bad)
    monkeypatch.delenv(BASE_URL_ENV, raising=False)
    monkeypatch.delenv(MODEL_ENV, raising=False)
    with pytest.raises(ValueError, match=f"{BASE_URL_ENV} and {MODEL_ENV}"):
        OpenAICompatibleEmbedder.from_env()
    monkeypatch.setenv(BASE_URL_ENV, server.base_url + "/v1")
    monkeypatch.setenv(MODEL_ENV, MODEL)
    with OpenAICompatibleEmbedder.from_env(batch_size=3, retry=FAST) as embedder:
        np.testing.assert_allclose(embedder.embed(["a"]), expected(["a"]), atol=1e-6)
        assert embedder.batch_size == 3 and embedder.base_url == server.base_url
