"""Ports: what the pure layers need from the outside world, as Protocols."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors, one row per text."""

    @property
    def embedder_id(self) -> str: ...

    @property
    def max_characters(self) -> int:
        """About how many characters of input the model reads before it truncates."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Reranked:
    """One document of a rerank request: its position in the request's documents and the reranker's score."""

    index: int
    relevance_score: float


class Reranker(Protocol):
    """Orders a retriever's passages for a query a second time and keeps the best `top_n`, best first."""

    @property
    def reranker_id(self) -> str: ...

    def rerank(self, query: str, documents: Sequence[str], top_n: int) -> list[Reranked]: ...

    def close(self) -> None:
        """Release what the reranker holds (an endpoint client's connections); it is not used after."""
        ...
