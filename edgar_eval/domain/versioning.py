"""Content versions: a table's data version is the hash of its content, never of when it was made."""

from __future__ import annotations

import hashlib
from typing import cast

import pandas as pd

# Columns that say how a table was built (by which code and parameters), not what it holds.
BUILD_STAMP_COLUMNS = ("build_key",)


def content_version(frame: pd.DataFrame) -> str:
    content = frame.drop(columns=[c for c in BUILD_STAMP_COLUMNS if c in frame.columns]).reset_index(drop=True)
    canonical = content.to_json(orient="split", double_precision=12, date_format="iso", default_handler=str)
    return hashlib.sha256(cast(str, canonical).encode()).hexdigest()[:16]  # to_json without a path returns text
