"""The night after one filing changed, on the demo's filings under another corpus name (a run named demo writes its
own files back): the sharded steps make again only the changed company's shard (and the corpus scope's, which reads
every filing), keep every other company's, and the report is, byte for byte, what a cold run of the changed corpus
writes: a kept shard is what a cold run would have made."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import write_demo_corpus
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import EvalSettings

pytestmark = pytest.mark.slow(minutes=4)  # the demo graph cold twice and once after the change

SHARDED = ("answerer_retrievals", "retriever_rankings", "reranked_retrievals", "expanded_retrievals", "generations")
CHANGED_CIK = "0009000002"


def _amend(corpus: Path, cik: str) -> str:
    """A paragraph added to the company's last periodic report (its text, so its chunks, change) and its manifest row
    brought in line, as an amended document would be; the filing's path."""
    manifest = corpus / "manifest.csv"
    with manifest.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    row = [r for r in rows if r["cik"] == cik and r["form"].startswith("10-")][-1]
    document = corpus / row["path"]
    data = document.read_bytes()
    at = data.rfind(b"</body>")
    added = b"<p>The company amended this report to correct a typographical error in its exhibit index.</p>"
    data = data[:at] + added + data[at:]
    document.write_bytes(data)
    row["bytes"], row["sha256"] = str(len(data)), hashlib.sha256(data).hexdigest()
    with manifest.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return row["path"]


def _settings(home: Path, corpus: Path) -> EvalSettings:
    return EvalSettings(
        corpus_dir=str(corpus),
        corpus_name="amended",
        data_dir=str(home / "data"),
        reports_dir=str(home / "reports"),
        tapes_dir=str(home / "tapes"),
    )


def _shards_made(instance: dg.DagsterInstance) -> dict[str, tuple[int, int]]:
    made = {}
    for asset in SHARDED:
        event = instance.get_latest_materialization_event(dg.AssetKey(asset))
        assert event is not None and event.asset_materialization is not None
        metadata = event.asset_materialization.metadata
        made[asset] = (int(str(metadata["shards_written"].value)), int(str(metadata["shards_reused"].value)))
    return made


def test_one_filing_changed_makes_again_its_company_s_shard_and_the_corpus_scope_s_only(tmp_path):
    corpus = tmp_path / "corpus"
    write_demo_corpus(corpus)
    settings = _settings(tmp_path / "night", corpus)
    instance = dg.DagsterInstance.ephemeral()
    defs = build_definitions(settings)
    assert materialise_graph(defs, instance, skip_current=True).evaluation_succeeded
    _amend(corpus, CHANGED_CIK)

    night = materialise_graph(build_definitions(settings), instance, skip_current=True)
    assert night.evaluation_succeeded, night.evaluation_error
    assert len(night.partitions) - len(night.current_partitions) == 1, "only the changed filing's corpus work"
    made = _shards_made(instance)
    for asset, (written, kept) in made.items():
        assert written + kept == 17, asset
        # the changed company's shard made again; the corpus shard where the step measures the corpus scope
        expected = 1 + (asset in ("retriever_rankings", "reranked_retrievals", "expanded_retrievals"))
        assert written == expected, (asset, written)

    cold_settings = _settings(tmp_path / "cold", corpus)
    cold = materialise_graph(build_definitions(cold_settings), dg.DagsterInstance.ephemeral(), skip_current=True)
    assert cold.evaluation_succeeded, cold.evaluation_error
    for name in ("report.md", "outcomes.json"):
        night_file = Path(settings.reports_dir) / "amended" / name
        cold_file = Path(cold_settings.reports_dir) / "amended" / name
        assert night_file.read_bytes() == cold_file.read_bytes(), f"{name}: the night's is the cold run's"
