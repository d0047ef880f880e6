"""Content versions: a table's data version is the hash of its content, never of when it was made."""

from __future__ import annotations

import hashlib
from typing import cast

import pandas as pd

# Columns that say how a table was built (by which code and parameters), not what it holds.
BUILD_STAMP_COLUMNS = ("build_key",)


# Decimal places a float keeps in the hash. Twelve followed the machine: the same statistics computed on another CPU's
# BLAS kernel differ in the 13th significant digit, and the committed demo report's data version of
# abstention_quality flipped between two values from one fresh venv to the next. Nine keeps every figure the report
# prints (four decimals at most) and leaves a float that moves in its last bits with the same version.
FLOAT_DECIMALS = 9


def content_version(frame: pd.DataFrame) -> str:
    content = frame.drop(columns=[c for c in BUILD_STAMP_COLUMNS if c in frame.columns]).reset_index(drop=True)
    canonical = content.to_json(orient="split", double_precision=FLOAT_DECIMALS, date_format="iso", default_handler=str)
    return hashlib.sha256(cast(str, canonical).encode()).hexdigest()[:16]  # to_json without a path returns text
