"""The local MiniLM in processes that run side by side: each takes its share of the cores, only where it embeds in
that process, never more threads than it started with, and a run with nothing beside it all of them. What it embeds
moves in the last bits with its thread count (torch sums in another order), never by more."""

from __future__ import annotations

import numpy as np
import pytest

from edgar_eval.adapters.embedders import MiniLMEmbedder, cores_per_process, share_cores


def test_each_process_gets_its_share_of_the_cores_and_at_least_one(monkeypatch):
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(8)))
    assert [cores_per_process(n) for n in (1, 2, 3, 4, 8, 9, 100)] == [8, 4, 2, 2, 1, 1, 1]
    assert cores_per_process(0) == 8  # no process beside it


@pytest.fixture
def torch_threads():
    import torch

    before = torch.get_num_threads()
    yield torch
    torch.set_num_threads(before)


def test_the_vectors_move_only_in_their_last_bits_with_the_threads(demo_parsed, torch_threads, monkeypatch):
    texts = [
        parsed.text[start : start + 1000]
        for parsed in demo_parsed.values()
        for start in (0, 5000, 20000)
        if len(parsed.text) > start
    ]
    embedder = MiniLMEmbedder()
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(4)))
    by_threads = {}
    for processes in (1, 2, 4):
        assert share_cores(processes, most=4) == 4 // processes == torch_threads.get_num_threads()
        by_threads[4 // processes] = embedder.embed(texts)
    assert len(texts) >= 30 and by_threads[4].shape == (len(texts), 384)
    for threads, vectors in by_threads.items():
        assert np.abs(vectors - by_threads[4]).max() < 1e-6, f"{threads} threads embed otherwise than 4"


def test_without_an_affinity_the_machine_cores_are_shared(monkeypatch):
    monkeypatch.delattr("os.sched_getaffinity", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    assert [cores_per_process(n) for n in (1, 2, 4)] == [6, 3, 1]
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert cores_per_process(2) == 1


def test_a_share_never_raises_the_threads_a_process_started_with(torch_threads, monkeypatch):
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(8)))
    assert share_cores(1, most=3) == 3 == torch_threads.get_num_threads()  # a user's OMP_NUM_THREADS=3 stands
    assert share_cores(2, most=3) == 3  # a share of 4: still at most 3
    assert share_cores(4, most=3) == 2
    assert share_cores(1, most=8) == 8  # alone again: back to every core it started with


class _Recorded:
    """A PartitionRuns that runs nothing: what each run was told of the runs beside it."""

    def __init__(self, runs: int) -> None:
        self.runs, self.beside = runs, []

    def submit(self, job_name, partition_key, tags, beside):
        from concurrent.futures import Future

        from edgar_eval.defs.runner import Outcome

        self.beside.append(beside)
        future: Future = Future()
        future.set_result(Outcome(success=True, failure=None, interrupted=False))
        return future

    def stop(self) -> None:
        raise AssertionError("stopped, with nothing interrupted")

    def kill(self) -> None:
        raise AssertionError("killed, with nothing interrupted")

    def close(self) -> None:
        raise AssertionError("closing is the caller's (_run_corpus), not _run_side_by_side's")


@pytest.mark.parametrize(
    ("runs", "filings", "beside"),
    # runs that end at once (as these do): the last of five on two processes goes alone
    [(2, 1, [1]), (2, 2, [2, 2]), (2, 5, [2, 2, 2, 2, 1]), (4, 2, [2, 2]), (3, 4, [3, 3, 3, 1])],
)
def test_each_run_is_told_how_many_go_beside_it(runs, filings, beside):
    from edgar_eval.defs.runner import _run_side_by_side

    recorded, finished = _Recorded(runs), []
    _run_side_by_side(recorded, [(f"f{i}", {}) for i in range(filings)], lambda key, outcome: finished.append(key))
    assert recorded.beside == beside and sorted(finished) == [f"f{i}" for i in range(filings)]


@pytest.mark.parametrize(
    ("kind", "executor", "embeds"),
    [("minilm", "multiprocess", True), ("minilm", "in_process", True), ("minilm", "celery", False)]
    + [("minilm", "k8s", False), ("openai-compatible", "multiprocess", False)],
)
def test_a_run_shares_the_cores_only_where_it_embeds_in_its_own_process(kind, executor, embeds, monkeypatch):
    import dagster as dg

    from edgar_eval.defs.parallel_runs import embeds_here
    from edgar_eval.defs.settings import EmbedderResource

    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR", executor)
    embedder = EmbedderResource(kind=kind, model="m", base_url="http://127.0.0.1:9")
    assert embeds_here(dg.Definitions(resources={"embedder": embedder})) is embeds
