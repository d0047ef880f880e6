"""A per-filing table as a step receives it: the partitions found, and those asked for but never materialised; and
which filings are current across several such tables (built from the bytes `filings` now records)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd


class MissingPartition(LookupError):
    """A partition a step needs was never materialised (or its filing failed to parse)."""


@dataclass(frozen=True)
class PartitionedTable:
    asset: str
    partitions: Mapping[str, pd.DataFrame]
    missing: tuple[str, ...] = field(default=())
    # of `missing`, those whose table is stored but whose materialisation the run history does not record
    unrecorded: tuple[str, ...] = field(default=())

    @property
    def keys(self) -> list[str]:
        """Every partition asked for, found or not, in key order."""
        return sorted({*self.partitions, *self.missing})

    def table(self, key: str) -> pd.DataFrame:
        if key not in self.partitions:
            raise MissingPartition(f"partition {key!r} of {self.asset!r} has not been materialised")
        return self.partitions[key]

    def sha256(self, key: str) -> str:
        """The sha256 of the filing bytes this partition was built from."""
        return str(self.table(key).sha256.iloc[0])

    def frame(self, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """The partitions' rows concatenated in the order of `keys` (default: every one found, in key order)."""
        chosen = sorted(self.partitions) if keys is None else list(keys)
        frames = [self.table(key) for key in chosen]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def current_partitions(
    filings: PartitionedTable, tables: Iterable[PartitionedTable] = ()
) -> tuple[list[str], dict[str, str]]:
    """The filings whose `filings` row and every table in `tables` are materialised and built from the same bytes.

    Returns the usable keys, in key order, and for each other key why it was left out: not materialised, stored but
    not recorded by the run history, or stale (its table was built from another version of the file than `filings`
    records).
    """
    usable, left_out = filings.keys, {}
    for table in list(tables) or [filings]:
        current = []
        for key in usable:
            reason = _not_read(filings, key) or _not_read(table, key)
            if reason is None and len(table.partitions[key].sha256) and table.sha256(key) != filings.sha256(key):
                reason = f"{table.asset} is stale (built from another version of the file)"
            if reason is None:
                current.append(key)
            else:
                left_out[key] = reason
        usable = current
    return usable, left_out


def _not_read(table: PartitionedTable, key: str) -> str | None:
    """Why a partition of `table` is not read (stored but unrecorded by the run history, or never materialised), or
    None when it is there to read."""
    if key in table.unrecorded:
        return f"{table.asset} is stored but the run history records no materialisation of it"
    if key not in table.partitions:
        return f"{table.asset} not materialised"
    return None
