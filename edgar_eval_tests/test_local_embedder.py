"""The local MiniLM in processes that run side by side: each takes its share of the cores. What it embeds moves in the
last bits with its thread count (torch sums in another order), never by more: the committed reports were made with a
thread per core of a two-core machine, and the tests that reproduce them run with one thread per test worker."""

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
        assert share_cores(processes) == 4 // processes == torch_threads.get_num_threads()
        by_threads[4 // processes] = embedder.embed(texts)
    assert len(texts) >= 30 and by_threads[4].shape == (len(texts), 384)
    for threads, vectors in by_threads.items():
        assert np.abs(vectors - by_threads[4]).max() < 1e-6, f"{threads} threads embed otherwise than 4"
