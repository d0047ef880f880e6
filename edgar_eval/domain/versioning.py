"""Content versions: a table's data version is the hash of its content, never of when it was made."""

from __future__ import annotations

import hashlib

import pandas as pd


def content_version(frame: pd.DataFrame) -> str:
    canonical = frame.reset_index(drop=True).to_json(orient="split", double_precision=12, date_format="iso", default_handler=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
