"""Ports: what the pure layers need from the outside world, as Protocols."""

from __future__ import annotations

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
