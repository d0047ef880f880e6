"""Every asset's table goes through one IO manager: Parquet under the store of the settings (a local folder, or any
fsspec URL through universal-pathlib), one file per asset or per filing partition. Assets receive what they read as
typed inputs, so the UI's lineage is exactly what each asset reads."""

from __future__ import annotations

from collections.abc import Mapping

import dagster as dg
import pandas as pd

from edgar_eval.adapters.parquet_store import DATA_VERSION_STAMP, StoreError
from edgar_eval.corpus.partitioned import PartitionedTable
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import SHARDS, read_sharded

# Input metadata: read only these columns (a step that only checks which filings are current reads their sha256).
COLUMNS = "columns"


def columns_of(*names: str) -> dict:
    """The input metadata that reads only these columns of a table."""
    return {COLUMNS: list(names)}


class ParquetIOManager(dg.IOManager):
    """Writes an unpartitioned asset's DataFrame as one Parquet table, and loads tables as inputs: an unpartitioned
    table as a DataFrame; a per-filing table as a `PartitionedTable` of the partitions asked for (all of them for an
    unpartitioned reader, the run's own for a per-filing one), those never materialised listed, not failed on, so the
    reader can say which filings it left out and why. A partition is read only when the run history records its
    materialisation; one stored without that record is listed apart (`unrecorded`) and not read. A sharded table
    (defs/shards.py) is read as the one table an unsharded step writes: every shard asked for, in corpus-wide order;
    a shard not materialised, or not recorded, fails the step (the statistics of part of the questions would pass
    for the whole).

    A table is stamped with the data version its output records (`DATA_VERSION_STAMP`), so that a stored file
    another replaced is told from the one the run history recorded (`freshness._staleness`).

    Per-filing and sharded assets write their own partitions (one run builds many, each kept or reused on its own,
    and a failing filing or shard must not discard the others), at the paths this manager reads."""

    def __init__(self, settings: EvalSettings) -> None:
        self.settings = settings

    def handle_output(self, context: dg.OutputContext, obj: pd.DataFrame) -> None:
        if context.has_asset_partitions:
            raise dg.Failure(f"{context.asset_key.to_user_string()} is per filing: it writes its own partitions")
        version = (context.output_metadata or {}).get("data_version")  # common.table_output's
        stamp = {DATA_VERSION_STAMP: str(getattr(version, "value", version))} if version is not None else None
        written = self.settings.store().write(context.asset_key.to_user_string(), obj, stamp=stamp)
        context.add_output_metadata({"table": dg.MetadataValue.path(str(written))})

    def load_input(self, context: dg.InputContext) -> pd.DataFrame | PartitionedTable:
        store = self.settings.store()
        asset = context.asset_key.to_user_string()
        columns = (context.definition_metadata or {}).get(COLUMNS)
        try:
            if not context.has_asset_partitions:
                return store.read(asset, columns=columns)
            asked = sorted(context.asset_partition_keys)
            # Only what the run history records is read: a table written by a run that could not record its event
            # (the database down mid-run) is not part of any lineage the instance holds.
            recorded = context.instance.event_log_storage.get_latest_storage_id_by_partition(
                context.asset_key, dg.DagsterEventType.ASSET_MATERIALIZATION, set(asked)
            )  # the partitions asked for only: a filing's run asks for one, not the whole asset's history
            if context.asset_partitions_def == SHARDS:
                return self._shards(asset, asked, recorded, columns)
            stored = [key for key in asked if store.exists(asset, key)]
            found = [key for key in stored if key in recorded]
            if not found:  # the run history's partitions are another corpus's, or none was ever built: say so here
                raise dg.Failure(
                    f"none of the {len(asked)} filing partitions of the run history has {asset!r} in {store.root}"
                    + (f" ({len(stored)} stored, none recorded as materialised)" if stored else "")
                    + ": bring the partitions in step with the corpus folder (`edgar-eval partitions`) and materialise "
                    "the corpus job first"
                )
            return PartitionedTable(
                asset,
                {key: store.read(asset, key, columns=columns) for key in found},
                tuple(key for key in asked if key not in found),
                tuple(key for key in stored if key not in recorded),
            )
        except StoreError as exc:
            raise dg.Failure(str(exc)) from exc

    def _shards(
        self, asset: str, asked: list[str], recorded: Mapping[str, int], columns: list[str] | None
    ) -> pd.DataFrame:
        absent = [key for key in asked if key not in recorded]
        if absent:
            raise dg.Failure(
                f"{len(absent)} of the {len(asked)} shards of {asset!r} are not materialised ({', '.join(absent[:5])}"
                f"{' ...' if len(absent) > 5 else ''}): materialise {asset!r} for every shard first"
            )
        return read_sharded(self.settings.store(), asset, asked, columns)


@dg.io_manager(
    required_resource_keys={"settings"},
    description="Parquet tables under the data folder or fsspec URL of the run's `settings` resource.",
)
def parquet_io_manager(init_context: dg.InitResourceContext) -> ParquetIOManager:
    """The IO manager reads the run's `settings` resource itself, not a copy made when the code location loaded: a run
    launched with settings in its run config (the CLI's `--corpus` on a Celery worker whose environment names another
    corpus) reads and writes that run's store."""
    return ParquetIOManager(init_context.resources.settings)
