"""The graph with the OpenAI-compatible embedder on a loopback server, and the index refused after a switch."""

import threading

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import partition_key
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_corpus, materialise_evaluation
from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval_tests.test_openai_embeddings import FakeEmbeddingServer

FILINGS = ("hvrn/10k_2025-02-20.htm", "hvrn/8k_2024-05-14.htm")


@pytest.fixture
def embeddings_server():
    fake = FakeEmbeddingServer()
    thread = threading.Thread(target=fake.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()
    thread.join(timeout=2)


def _settings(tmp_path):
    return EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="embedders",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )


@pytest.mark.slow(minutes=0.2)  # materialises graph runs: seconds, not milliseconds
def test_graph_runs_on_an_openai_compatible_endpoint_and_refuses_its_index_for_minilm(
    tmp_path, demo_files, embeddings_server
):
    for path in FILINGS:
        (tmp_path / "corpus" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "corpus" / path).write_bytes(demo_files[path])
    remote = _settings(tmp_path)
    endpoint = EmbedderResource(kind="openai-compatible", model="nomic-embed-text", base_url=embeddings_server.base_url)
    instance = dg.DagsterInstance.ephemeral()
    assert materialise_corpus(build_definitions(remote, embedder=endpoint), instance) == {}
    assert embeddings_server.requests, "the chunks were embedded by the endpoint"
    stored = remote.store().read("chunk_embeddings", partition_key(FILINGS[0]))
    assert "openai-compatible:nomic-embed-text@" in stored.fingerprint.iloc[0]
    assert materialise_evaluation(build_definitions(remote, embedder=endpoint), instance) is None

    error = materialise_evaluation(build_definitions(_settings(tmp_path)), instance)
    assert error is not None and "chunk_embeddings was built differently" in error
    assert "embedder_id: index has 'openai-compatible:nomic-embed-text@" in error
