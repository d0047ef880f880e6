"""Reading many partitions' records from the run history in pieces a storage accepts."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

# The most ids one query names: Dagster refuses to fetch more than 10,000 event records at once, and SQLite an IN list
# of more than 32,766 values; a warm run over more filings asks in pieces.
QUERY_CHUNK = 5000

T = TypeVar("T")


def chunks(values: Sequence[T]) -> Iterator[Sequence[T]]:
    """`values` in consecutive pieces of at most QUERY_CHUNK (read when called, so a test can lower it)."""
    step = QUERY_CHUNK
    return (values[start : start + step] for start in range(0, len(values), step))
