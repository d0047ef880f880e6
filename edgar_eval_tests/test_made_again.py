"""The demo graph run with a proposals file holding bad lines of every kind, then run again after three tables were
overwritten. The report counts every proposal the run stored, unreadable ones included; the plain re-run makes again
the three tables it cannot read (checked from their Parquet footers; of a sharded step, only the shard it cannot read),
says so, leaves every other table byte for byte as it was, and the report stays the first run's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import EvalSettings

pytestmark = pytest.mark.slow(minutes=3)  # a whole-graph run, then one filing partition and one evaluation step

# One line of each kind a proposals file can hold that is not a candidate, and one readable candidate.
READABLE = {
    "id": "import-1",
    "pattern": "D1",
    "question": "What was Harvon's revenue for fiscal 2024?",
    "answer_type": "number",
    "gold_answer": "1",
    "evidence": [{"document": "10-K", "quote": "a sentence no filing prints"}],
    "requires_documents": 1,
}
PROPOSALS = [
    "this line is not JSON",  # no pattern can be read: counted on the funnel's own row
    json.dumps(["an array", "not a proposal"]),  # not an object: the same
    json.dumps({"id": "half", "pattern": "D2", "question": "", "answer_type": "number"}),  # D2, fields missing
    json.dumps(READABLE),
    json.dumps(READABLE),  # the same id again in the same file: D1, unreadable
    json.dumps({**READABLE, "id": "DEMO-hvrn-D3", "pattern": "D3"}),  # an id a planted proposal holds: D3, unreadable
]


def _funnel(report: str) -> dict[str, list[int]]:
    """The funnel table of the report: pattern -> its counts (proposed, unreadable, ..., selected)."""
    section = report.split("## Hard golden questions: the funnel per dispersion pattern", 1)[1].split("Source:", 1)[0]
    rows = [line.strip("|").split("|") for line in section.splitlines() if re.match(r"\| (D\d|\?|all) \|", line)]
    return {cells[0].strip(): [int(cell) for cell in cells[2:]] for cells in rows}


def test_counts_are_the_stored_rows_and_a_table_that_cannot_be_read_is_made_again(tmp_path):
    proposals = tmp_path / "proposals.jsonl"
    proposals.write_text("\n".join(PROPOSALS) + "\n")
    settings = EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="demo",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
        tapes_dir=str(tmp_path / "tapes"),
        proposals=[str(proposals)],
    )
    defs = build_definitions(settings)
    instance = dg.DagsterInstance.ephemeral()
    first = materialise_graph(defs, instance, skip_current=True)
    assert first.evaluation_succeeded, first.evaluation_error
    report_path = Path(settings.reports_dir) / "demo" / "report.md"
    report = report_path.read_bytes()

    # Every count of the funnel is the stored rows': 36 planted proposals and the file's 6 lines, 5 of them unreadable.
    stored = settings.store().read("golden_proposals")
    unreadable = stored[stored.unreadable_reason != ""]
    funnel = _funnel(report.decode())
    assert funnel["all"][:2] == [len(stored), len(unreadable)] == [42, 5]
    assert funnel["?"][:2] == [2, 2], "a line with no readable pattern is counted on a row of its own"
    for pattern in ("D1", "D2", "D3"):
        assert funnel[pattern][1] == int((unreadable.pattern == pattern).sum()) == 1, pattern
    assert funnel["D1"][0] == int((stored.pattern == "D1").sum())
    assert sum(counts[0] for row, counts in funnel.items() if row != "all") == len(stored)
    reasons = dict(zip(unreadable.candidate_id, unreadable.unreadable_reason))
    assert reasons["DEMO-hvrn-D3"] == "duplicate candidate id: demo-planted proposed DEMO-hvrn-D3 first"
    assert reasons["import-1"] == "duplicate candidate id in the same source"

    # Three tables overwritten: one of the evaluation's, one shard of a sharded step's (one holding rows), and one of
    # a filing partition's.
    data = Path(settings.data_dir) / "demo"
    tables = {path: path.read_bytes() for path in sorted(data.rglob("*.parquet"))}
    key = first.partitions[0]
    shard = max((data / "retriever_rankings").glob("*.parquet"), key=lambda path: path.stat().st_size)
    broken = [data / "golden_set.parquet", data / "chunks" / f"{key}.parquet", shard]
    for path in broken:
        path.write_bytes(b"PAR1" + bytes(range(256)) * 4)

    said: dict[str, str | None] = {}
    again = materialise_graph(
        defs,
        instance,
        on_partition=lambda partition, error, launched, because: said.update({partition: because}),
        skip_current=True,
    )
    assert again.evaluation_succeeded, again.evaluation_error
    assert [partition for partition in again.partitions if partition not in again.current_partitions] == [key]
    assert (said[key] or "").startswith(f"1 stored table cannot be read ({broken[1]}: not a readable Parquet file")
    assert again.evaluation_remade == ["golden_set", "retriever_rankings"], "only the steps that make those tables"
    assert (again.evaluation_stale_because or "").startswith("2 stored tables cannot be read (")
    remade = instance.get_latest_materialization_event(dg.AssetKey("retriever_rankings"))
    assert remade is not None and remade.asset_materialization is not None
    made = {name: entry.value for name, entry in remade.asset_materialization.metadata.items()}
    assert (made["shards_written"], made["shards_reused"]) == (1, 16), "only the shard it cannot read is made again"
    assert report_path.read_bytes() == report, "the report is the first run's"
    after = {path: path.read_bytes() for path in sorted(data.rglob("*.parquet"))}
    assert after == tables, "every table, the two made again included, holds the first run's bytes"

    # Both the made-again tables and the rest are current now.
    third = materialise_graph(defs, instance, skip_current=True)
    assert third.evaluation_current and len(third.current_partitions) == len(third.partitions)

    # The report deleted, every table stored and current: the report is written again from the stored tables, the
    # same bytes, and no evaluation step runs again.
    report_path.unlink()
    before = {key: event.storage_id for key, event in _latest_materialisations(instance).items()}
    fourth = materialise_graph(defs, instance, skip_current=True)
    assert fourth.evaluation_succeeded and fourth.evaluation_remade == ["report"]
    assert (fourth.evaluation_stale_because or "").startswith(f"1 stored files are gone ({report_path})")
    assert report_path.read_bytes() == report
    after_report = {key: event.storage_id for key, event in _latest_materialisations(instance).items()}
    assert {key for key in before if after_report[key] != before[key]} == {dg.AssetKey("report")}
    assert materialise_graph(defs, instance, skip_current=True).evaluation_current


def _latest_materialisations(instance: dg.DagsterInstance) -> dict[dg.AssetKey, dg.EventLogRecord]:
    """Each unpartitioned asset's latest materialisation (the evaluation's)."""
    latest = {}
    for key in instance.get_asset_keys():
        records = instance.fetch_materializations(dg.AssetRecordsFilter(asset_key=key), limit=1).records
        if records and records[0].partition_key is None:
            latest[key] = records[0]
    return latest
