"""Content versions: a table's data version is the hash of its content, never of when it was made."""

from __future__ import annotations

import hashlib
from typing import cast

import pandas as pd

# Columns that say how a table was built (by which code and parameters), not what it holds.
BUILD_STAMP_COLUMNS = ("build_key",)
# Columns of how long a step's own calls took on this machine, this time: measured, never replayed from a tape, so
# they are left out of the version as the build stamp is (a table of the same vectors or hits is the same table).
WALL_CLOCK_COLUMNS = ("embed_seconds", "search_seconds", "gate_seconds")


# Decimal places a float keeps in the hash. Twelve followed the machine: the same statistics computed on another CPU's
# BLAS kernel differ in the 13th significant digit, and the committed demo report's data version of
# abstention_quality flipped between two values from one fresh venv to the next. Nine keeps every figure the report
# prints (four decimals at most) and leaves a float that moves in its last bits with the same version.
FLOAT_DECIMALS = 9


def content_version(frame: pd.DataFrame) -> str:
    left_out = [c for c in (*BUILD_STAMP_COLUMNS, *WALL_CLOCK_COLUMNS) if c in frame.columns]
    content = frame.drop(columns=left_out).reset_index(drop=True)
    canonical = content.to_json(orient="split", double_precision=FLOAT_DECIMALS, date_format="iso", default_handler=str)
    return hashlib.sha256(cast(str, canonical).encode()).hexdigest()[:16]  # to_json without a path returns text
