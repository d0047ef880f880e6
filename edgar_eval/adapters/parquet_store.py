"""Parquet storage for asset data, one file per asset or per asset partition, under a local folder or any fsspec URL
(universal-pathlib: `memory://`, `s3://bucket/prefix`, ...).

A local write goes to a temporary file that replaces the old one only once complete, so a failed or interrupted
materialisation never leaves a half-written table or destroys the previous one. An object store's write is one whole
object, which a reader sees complete or not at all. Every write is checked to lie under the store's root (`under`).
"""

from __future__ import annotations

import json
import os
import posixpath
import tempfile
from pathlib import Path
from typing import TypeGuard, TypeVar

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from upath import UPath

# Tables, reports and tapes are read by other users: a worker or webserver under another account, a group's
# reviewers. mkstemp's 0600 would make each one private to whoever wrote it.
SHARED_FILE_MODE = 0o644


class StoreError(RuntimeError):
    pass


class OutsideRoot(ValueError):
    """A path that would lie outside the folder it has to stay in."""


Location = Path | UPath  # a local folder, or a folder of an fsspec filesystem
_Where = TypeVar("_Where", bound=Location)
_STAMP = b"edgar_eval.stamp"  # the key of a table's stamp in its Parquet footer (the schema's key-value metadata)
# in a table's stamp: the data version its materialisation recorded, so a table another file replaced is told apart
DATA_VERSION_STAMP = "data_version"


def location(root: str | os.PathLike | UPath) -> Location:
    """A local path for a folder or a file:// URL (temporary files and atomic renames work there), else a UPath."""
    found = UPath(root)
    if found.protocol in ("", "file", "local"):
        return Path(found.path)
    return found


def is_local(path: Location) -> TypeGuard[Path]:
    """A local path: temporary files and atomic renames work there; on an object store a write is one whole put."""
    return isinstance(path, Path)


def _compared(root: Location, target: Location, follow_links: bool) -> tuple[str, str]:
    """The two paths as compared: resolved on this machine (links followed, or by name only), normalised in a
    store."""
    if is_local(root) and is_local(target):
        if follow_links:
            return str(root.resolve()), str(target.resolve())
        return os.path.normpath(root.absolute()), os.path.normpath(target.absolute())
    if getattr(root, "protocol", "") != getattr(target, "protocol", ""):
        raise OutsideRoot(f"{target} is not in the store of {root}")
    base, found = (
        posixpath.normpath("/" + (path.path if isinstance(path, UPath) else path.as_posix()).lstrip("/"))
        for path in (root, target)
    )
    return base, found


def check_inside(root: Location, target: _Where, follow_links: bool = True) -> _Where:
    """`target` itself, or OutsideRoot unless it lies strictly under `root` once "." and ".." are resolved (and, on
    this machine, symbolic links: a link inside the root that points elsewhere would write elsewhere). `follow_links`
    False: by its name only, for a folder a person may link to another on purpose (a committed tape replayed)."""
    base, found = _compared(root, target, follow_links)
    if not found.startswith(base.rstrip("/") + "/"):
        raise OutsideRoot(f"{target} lies outside {root} (it resolves to {found})")
    return target


def under(root: _Where, *parts: str, follow_links: bool = True) -> _Where:
    """`root / parts`, refused (OutsideRoot) unless it lies under `root`: nothing is written outside its folder."""
    return check_inside(root, root.joinpath(*parts), follow_links)


def table_problem(source: Location) -> str | None:
    """Why the Parquet table at `source` cannot be read, or None when it can: decided from its footer and schema, not
    from its rows, so checking every stored table costs a read of each file's last bytes. The footer must parse, its
    schema must convert to Arrow, and every column chunk it lists must lie within the file (a file cut short or
    overwritten fails one of the three)."""
    return table_footer(source)[0]


def table_footer(source: Location) -> tuple[str | None, dict[str, str]]:
    """`table_problem`, and the stamp the table was written with (empty when none, or when it cannot be read), from
    one read of its footer."""
    try:
        size = source.stat().st_size
        with source.open("rb") as handle:
            parquet = pq.ParquetFile(handle)
            metadata = parquet.metadata
            schema = parquet.schema_arrow  # converted from the footer's schema when first asked for
    except FileNotFoundError:
        return "missing", {}
    except (pa.ArrowException, OSError, ValueError) as exc:
        return f"not a readable Parquet file ({exc})", {}
    problem = _placed_past_the_end(metadata, size)
    footer = schema.metadata or {}
    try:
        stamp = json.loads(footer[_STAMP]) if _STAMP in footer else {}
    except ValueError:
        stamp = {}
    return problem, stamp if isinstance(stamp, dict) else {}


def _placed_past_the_end(metadata: pq.FileMetaData, size: int) -> str | None:
    """Why a column chunk the footer lists does not lie within the file's data, or None."""
    body_end = size - metadata.serialized_size - 8  # the footer, its length and the closing magic bytes
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        if row_group.num_rows == 0:
            continue  # an empty table's row group places its chunks nowhere: nothing to lie past the data
        for column in range(row_group.num_columns):
            chunk = row_group.column(column)
            start = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
            if start is None or start < 4 or start + chunk.total_compressed_size > body_end:
                return (
                    f"its footer places column {chunk.path_in_schema!r} of row group {group} at bytes "
                    f"{start}-{(start or 0) + chunk.total_compressed_size}, past the end of its data (byte {body_end})"
                )
    return None


def _nulls_untyped(table: pa.Table) -> pa.Table:
    """A table whose columns holding nothing but nulls say nothing of their type (a missing text read as a missing
    number in one partition, say), so that the other partitions' values decide it when they are put together."""
    for index, column in enumerate(table.columns):
        if len(column) and column.null_count == len(column) and not pa.types.is_null(column.type):
            table = table.set_column(index, table.field(index).with_type(pa.null()), pa.nulls(len(column)))
    return table


class ParquetStore:
    def __init__(self, root: str | os.PathLike | UPath) -> None:
        self.root: Location = location(root)

    def path(self, asset: str, partition: str | None = None) -> Location:
        return self.root / asset / f"{partition}.parquet" if partition else self.root / f"{asset}.parquet"

    def exists(self, asset: str, partition: str | None = None) -> bool:
        return self.path(asset, partition).is_file()

    def unreadable(self, asset: str, partition: str | None = None) -> str | None:
        """Why the stored table cannot be read (from its footer and schema: `table_problem`), or None."""
        return table_problem(self.path(asset, partition))

    def file(self, *parts: str) -> Location:
        """A file kept beside the tables (a review sheet, a frozen export), checked to lie under the store's root."""
        return under(self.root, *parts)

    def write(
        self, asset: str, frame: pd.DataFrame, partition: str | None = None, stamp: dict[str, str] | None = None
    ) -> Location:
        """`stamp`: what the table was built from, kept in the file's footer (`stamp()` reads it back), so that a
        table with no row still says it."""
        target = check_inside(self.root, self.path(asset, partition))
        table = pa.Table.from_pandas(frame.reset_index(drop=True), preserve_index=False)
        if stamp:
            footer = {**(table.schema.metadata or {}), _STAMP: json.dumps(stamp, sort_keys=True).encode()}
            table = table.replace_schema_metadata(footer)
        if not is_local(target):  # an object store: the table is put as one whole object
            buffer = pa.BufferOutputStream()
            pq.write_table(table, buffer, compression="zstd")
            target.write_bytes(buffer.getvalue().to_pybytes())
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        os.close(handle)
        try:
            pq.write_table(table, tmp, compression="zstd")
            os.chmod(tmp, SHARED_FILE_MODE)
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
            readable = source if is_local(source) else pa.BufferReader(source.read_bytes())
            return pq.read_table(readable, columns=columns).to_pandas()
        except (pa.ArrowInvalid, OSError) as exc:
            raise StoreError(f"{source} is not a readable Parquet file ({exc}); rematerialise {asset!r}") from exc

    def read_together(self, asset: str, partitions: list[str], columns: list[str] | None = None) -> pd.DataFrame:
        """These partitions' rows as one table, in the given order: concatenated as Arrow tables, each column taking
        the type that holds every partition's values (a column all null in one partition, or whole numbers in one and
        fractions in another), so the table reads back as it would have had one run written it whole."""
        tables = []
        for key in partitions:
            source = self.path(asset, key)
            if not source.is_file():
                raise StoreError(
                    f"partition {key!r} of asset {asset!r} has not been materialised ({source} is missing)"
                )
            try:
                data = None if is_local(source) else source.read_bytes()  # an object is fetched once
                readable = source if data is None else pa.BufferReader(data)
                present = None if columns is None else [c for c in columns if c in pq.read_schema(readable).names]
                tables.append(pq.read_table(source if data is None else pa.BufferReader(data), columns=present))
            except (pa.ArrowInvalid, OSError) as exc:
                raise StoreError(f"{source} is not a readable Parquet file ({exc}); rematerialise {asset!r}") from exc
        if not tables:
            return pd.DataFrame()
        absent = [c for c in columns or [] if not any(c in table.schema.names for table in tables)]
        if absent:
            raise StoreError(f"asset {asset!r} has no column {absent[0]!r} in any of its partitions")
        try:
            together = pa.concat_tables([_nulls_untyped(table) for table in tables], promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise StoreError(f"the partitions of {asset!r} do not read as one table ({exc}); rematerialise it") from exc
        for index, field in enumerate(together.schema):
            if pa.types.is_null(field.type):  # null in every partition: the type they were written with
                written = [t.schema.field(field.name).type for t in tables if field.name in t.schema.names]
                typed = next((kind for kind in written if not pa.types.is_null(kind)), None)
                if typed is not None:
                    together = together.set_column(index, field.with_type(typed), pa.nulls(len(together), typed))
        return together.to_pandas()

    def stamp(self, asset: str, partition: str | None = None) -> dict[str, str]:
        """The stamp the table was written with (empty when none), read from its footer without its rows."""
        source = self.path(asset, partition)
        try:
            readable = source if is_local(source) else pa.BufferReader(source.read_bytes())
            footer = pq.read_schema(readable).metadata or {}
        except (pa.ArrowInvalid, OSError) as exc:
            raise StoreError(f"{source} is not a readable Parquet file ({exc}); rematerialise {asset!r}") from exc
        return json.loads(footer[_STAMP]) if _STAMP in footer else {}

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
