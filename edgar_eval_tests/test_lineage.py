"""The UI's lineage is what each asset reads: every store read an asset makes during a run of the demo graph is of
an asset it declares as a dependency (or of itself)."""

import sys
from collections import defaultdict

import dagster as dg

from edgar_eval.adapters.parquet_store import ParquetStore
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import EvalSettings


def test_every_asset_reads_only_what_it_declares(tmp_path, monkeypatch):
    settings = EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="demo",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )
    defs = build_definitions(settings)
    code_of = {}
    declared = {}
    for assets in defs.assets or []:
        if not isinstance(assets, dg.AssetsDefinition):  # filing_documents: observed, it reads no table
            continue
        names = {key.to_user_string() for key in assets.keys}
        code_of[assets.op.compute_fn.decorated_fn.__code__] = assets.op.name
        declared[assets.op.name] = {key.to_user_string() for key in assets.dependency_keys} | names
    reads: dict[str, set[str]] = defaultdict(set)
    original = ParquetStore.read

    def recording(self, asset, partition=None, columns=None):
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code in code_of:
                reads[code_of[frame.f_code]].add(asset)
                break
            frame = frame.f_back
        return original(self, asset, partition, columns)

    monkeypatch.setattr(ParquetStore, "read", recording)
    graph = materialise_graph(defs, dg.DagsterInstance.ephemeral())
    assert graph.evaluation_succeeded, graph.evaluation_error
    assert len(reads) > 20, "the recording saw the assets' reads"
    undeclared = {op: sorted(read - declared[op]) for op, read in reads.items() if read - declared[op]}
    assert undeclared == {}, f"assets read what they do not declare: {undeclared}"
