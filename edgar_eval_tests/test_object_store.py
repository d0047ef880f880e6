"""The data folder as an fsspec URL: the demo graph runs with every table in an in-memory filesystem (the S3-compatible
server of the deployment tests is the object store: test_deployment.py) and writes the report the local folder gives."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
from upath import UPath

from edgar_eval.adapters.parquet_store import ParquetStore, is_local, location
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import EvalSettings

pytestmark = pytest.mark.slow(minutes=2.5)  # whole-graph runs: scheduled with the longest first

REPO = Path(__file__).resolve().parents[1]


def test_a_folder_or_file_url_is_local_and_any_other_url_is_not(tmp_path):
    assert is_local(location(tmp_path)) and is_local(location(f"file://{tmp_path}"))
    assert location(f"file://{tmp_path}") == tmp_path
    assert not is_local(location("memory://edgar/data"))


def test_a_table_round_trips_through_an_fsspec_url():
    import pandas as pd

    store = ParquetStore("memory://round-trip")
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    store.write("t", frame, "p1")
    assert store.exists("t", "p1") and not store.exists("t", "p2")
    assert store.read("t", "p1").equals(frame)
    assert store.read("t", "p1", columns=["b"]).b.tolist() == ["x", "y"]


def test_the_demo_graph_runs_on_an_fsspec_url_and_reports_the_same(tmp_path):
    data = "memory://edgar-eval-demo/data"
    settings = EvalSettings(
        corpus_dir=str(tmp_path / "demo_corpus"),
        corpus_name="demo",
        data_dir=data,
        reports_dir=str(tmp_path / "reports"),
    )
    defs, instance = build_definitions(settings), dg.DagsterInstance.ephemeral()
    graph = materialise_graph(defs, instance, skip_current=True)
    assert graph.failed_partitions == {} and graph.evaluation_succeeded, graph.evaluation_error
    assert UPath(f"{data}/demo/search_index.parquet").is_file()
    assert UPath(f"{data}/demo/chunks").is_dir()
    assert not (tmp_path / "data").exists()  # nothing fell back to a local folder
    report = (tmp_path / "reports" / "demo" / "report.md").read_bytes()
    assert report == (REPO / "reports" / "demo" / "report.md").read_bytes()

    # the stored tables a re-run checks are read through the same URL: all there, nothing is launched; one gone, the
    # evaluation is
    assert materialise_graph(defs, instance, skip_current=True).evaluation_current
    UPath(f"{data}/demo/golden_set.parquet").unlink()
    again = materialise_graph(defs, instance, skip_current=True)
    assert not again.evaluation_current and (again.evaluation_stale_because or "").startswith("1 stored files are gone")
    assert len(again.current_partitions) == len(again.partitions)
