"""The index fingerprint: what an index was built with, so a mismatched index is refused."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass


class IndexMismatch(ValueError):
    """An index built by another embedder or chunker than the one asked for."""


@dataclass(frozen=True)
class IndexFingerprint:
    embedder_id: str
    normalisation: str
    chunk_size: int
    chunk_overlap: int
    table_headers: bool = False  # chunks starting inside a table carry its header rows

    def as_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.as_json().encode()).hexdigest()[:16]

    @classmethod
    def from_json(cls, text: str) -> "IndexFingerprint":
        return cls(**json.loads(text))


def check_fingerprint(expected: IndexFingerprint, found: IndexFingerprint, where: str) -> None:
    if expected == found:
        return
    differences = [
        f"{name}: index has {getattr(found, name)!r}, configuration asks for {getattr(expected, name)!r}"
        for name in expected.__dataclass_fields__
        if getattr(expected, name) != getattr(found, name)
    ]
    raise IndexMismatch(f"{where} was built differently; rebuild it. " + "; ".join(differences))
