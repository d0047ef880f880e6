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


# Decimal places a float keeps in the hash: the precision the figures carry from one processor to another, not the
# precision of one machine's float64. Everything scored by the embedder inherits its float32 rounding, and that
# rounding follows the CPU's kernels: between torch's AVX2 and AVX-512 kernels (one machine, the demo corpus) the
# question embeddings differ by 1.8e-7, cosines by 1.0e-6, relevance scores by 2.6e-7 and the Brier score by 1.0e-9.
# At nine decimals that moved the data version of abstention_quality, and so the committed reports, with the machine
# (an AMD EPYC's and an Intel Xeon's differed); at six the same noise leaves every version alone while any figure
# the report prints (four decimals at most) still moves it. Money and counts are hashed whole: it is decimals, not
# significant digits.
FLOAT_DECIMALS = 6


def content_version(frame: pd.DataFrame) -> str:
    left_out = [c for c in (*BUILD_STAMP_COLUMNS, *WALL_CLOCK_COLUMNS) if c in frame.columns]
    content = frame.drop(columns=left_out).reset_index(drop=True)
    canonical = content.to_json(orient="split", double_precision=FLOAT_DECIMALS, date_format="iso", default_handler=str)
    return hashlib.sha256(cast(str, canonical).encode()).hexdigest()[:16]  # to_json without a path returns text
