"""The UI's lineage is what each asset reads. Every table a step reads comes through the IO manager as one of its
declared inputs, and every input it declares is read: during a run of the demo graph, each step's loaded inputs are
exactly its asset dependencies. The only table a step reads itself is its own (a per-filing asset reusing a partition
it built before)."""

import sys
from collections import defaultdict

import dagster as dg
import pytest

from edgar_eval.adapters.parquet_store import ParquetStore
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.io_manager import ParquetIOManager
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import EvalSettings

pytestmark = pytest.mark.slow(minutes=1.3)  # whole-graph runs: scheduled with the longest first


def _declared(defs: dg.Definitions) -> tuple[dict[str, set[str]], dict[str, set[str]], dict]:
    """Per op: the tables it depends on (not the files beside the graph it declares: test_current_work checks those
    against the files each step opens), and the assets it materialises; compute functions by their code."""
    from edgar_eval.defs.source_files import SOURCE_FILES

    files = {"filing_documents", *(source.key.to_user_string() for source in SOURCE_FILES)}
    depends, owns, code_of = {}, {}, {}
    for assets in defs.assets or []:
        if not isinstance(assets, dg.AssetsDefinition) or not assets.is_executable or assets.is_observable:
            continue  # filing_documents and the files beside the graph: observed, they read no table
        owns[assets.op.name] = {key.to_user_string() for key in assets.keys}
        depends[assets.op.name] = {key.to_user_string() for key in assets.dependency_keys} - files
        code_of[assets.op.compute_fn.decorated_fn.__code__] = assets.op.name
    for check in defs.asset_checks or []:
        depends[check.op.name] = {key.to_user_string() for key in check.keys_by_input_name.values()} - files
        owns[check.op.name] = set()
    return depends, owns, code_of


def test_every_step_reads_exactly_what_it_declares(tmp_path, monkeypatch):
    settings = EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="demo",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )
    defs = build_definitions(settings)
    depends, owns, code_of = _declared(defs)
    loaded: dict[str, set[str]] = defaultdict(set)
    read_directly: dict[str, set[str]] = defaultdict(set)
    load_input, read = ParquetIOManager.load_input, ParquetStore.read

    def recording_load(self, context: dg.InputContext):
        loaded[context.op_def.name].add(context.asset_key.to_user_string())
        return load_input(self, context)

    def recording_read(self, asset, partition=None, columns=None):
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code is load_input.__code__:
                break  # an input: recorded above
            if frame.f_code in code_of:
                read_directly[code_of[frame.f_code]].add(asset)
                break
            frame = frame.f_back
        return read(self, asset, partition, columns)

    monkeypatch.setattr(ParquetIOManager, "load_input", recording_load)
    monkeypatch.setattr(ParquetStore, "read", recording_read)
    graph = materialise_graph(defs, dg.DagsterInstance.ephemeral())
    assert graph.evaluation_succeeded, graph.evaluation_error

    ran = set(loaded) | set(read_directly)
    assert len(ran) > 30, f"the recording saw the steps' reads: {sorted(ran)}"
    differing = {
        op: {"undeclared": sorted(loaded[op] - depends[op]), "declared, never read": sorted(depends[op] - loaded[op])}
        for op in depends
        if op in ran and loaded[op] != depends[op]
    }
    assert differing == {}, f"steps whose reads differ from their declared dependencies: {differing}"
    foreign = {op: sorted(tables - owns[op]) for op, tables in read_directly.items() if tables - owns[op]}
    assert foreign == {}, f"steps reading another asset's table around the IO manager: {foreign}"
