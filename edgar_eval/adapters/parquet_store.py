"""Parquet storage for asset data, one file per asset or per asset partition.

Writes go to a temporary file that replaces the old one only once complete, so a failed or
interrupted materialisation never leaves a half-written table or destroys the previous one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


class StoreError(RuntimeError):
    pass


class ParquetStore:
    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)

    def path(self, asset: str, partition: str | None = None) -> Path:
        return self.root / asset / f"{partition}.parquet" if partition else self.root / f"{asset}.parquet"

    def exists(self, asset: str, partition: str | None = None) -> bool:
        return self.path(asset, partition).is_file()

    def write(self, asset: str, frame: pd.DataFrame, partition: str | None = None) -> Path:
        target = self.path(asset, partition)
        target.parent.mkdir(parents=True, exist_ok=True)
        table = pa.Table.from_pandas(frame.reset_index(drop=True), preserve_index=False)
        handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        os.close(handle)
        try:
            pq.write_table(table, tmp, compression="zstd")
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return target

    def read(self, asset: str, partition: str | None = None, columns: list[str] | None = None) -> pd.DataFrame:
        source = self.path(asset, partition)
        if not source.is_file():
            where = f"partition {partition!r} of " if partition else ""
            raise StoreError(f"{where}asset {asset!r} has not been materialised ({source} is missing)")
        try:
            return pq.read_table(source, columns=columns).to_pandas()
        except (pa.ArrowInvalid, OSError) as exc:
            raise StoreError(f"{source} is not a readable Parquet file ({exc}); rematerialise {asset!r}") from exc

    def read_partitions(self, asset: str, partitions: list[str]) -> tuple[pd.DataFrame, list[str]]:
        """The concatenation of the partitions present, in the given order, and the keys missing."""
        frames, missing = [], []
        for key in partitions:
            if self.exists(asset, key):
                frames.append(self.read(asset, key))
            else:
                missing.append(key)
        frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        return frame, missing
