"""The night after one filing changed, on the demo's filings under another corpus name (a run named demo writes its
own files back): the sharded steps make again only the changed company's shard (and the corpus scope's, which reads
every filing), keep every other company's, and the report is, byte for byte, what a cold run of the changed corpus
writes: a kept shard is what a cold run would have made."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from edgar_eval.adapters.local_corpus import amend_filing, write_demo_corpus
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import SHARDS

pytestmark = pytest.mark.slow(minutes=4)  # the demo graph cold twice and once after the change

IN_CORPUS_SCOPE = (
    "retriever_rankings",
    "reranked_retrievals",
    "expanded_retrievals",
    "retrieval_noise",
    "rerank_noise",
)
CHANGED_CIK = "0009000002"


def _settings(home: Path, corpus: Path) -> EvalSettings:
    return EvalSettings(
        corpus_dir=str(corpus),
        corpus_name="amended",
        data_dir=str(home / "data"),
        reports_dir=str(home / "reports"),
        tapes_dir=str(home / "tapes"),
    )


def _sharded(defs: dg.Definitions) -> list[str]:
    """The evaluation's per-question assets: those partitioned by shard."""
    graph = defs.resolve_asset_graph()
    return sorted(key.to_user_string() for key in graph.get_all_asset_keys() if graph.get(key).partitions_def == SHARDS)


def _shards_made(instance: dg.DagsterInstance, sharded: list[str]) -> dict[str, tuple[int, int, int]]:
    made = {}
    for asset in sharded:
        event = instance.get_latest_materialization_event(dg.AssetKey(asset))
        assert event is not None and event.asset_materialization is not None
        metadata = event.asset_materialization.metadata
        made[asset] = tuple(
            int(str(metadata[name].value)) for name in ("shards_written", "shards_reused", "questions_made_again")
        )
    return made


def _searching(settings: EvalSettings, cik: str) -> set[str]:
    """The golden questions that search the company's filings: its own, and those whose role may read them."""
    store = Path(settings.data_dir) / settings.corpus_name
    golden = pd.read_parquet(store / "golden_questions.parquet")
    filings = set(
        pd.read_parquet(store / "search_index.parquet", columns=["filing_id", "cik"]).query("cik == @cik").filing_id
    )
    return {
        str(question)
        for question, asked_of, permitted in zip(golden.question_id, golden.cik, golden.permitted_filing_ids)
        if asked_of == cik or filings & set(permitted)
    }


def test_one_filing_changed_makes_again_its_company_s_shard_and_the_corpus_scope_s_only(tmp_path):
    corpus = tmp_path / "corpus"
    write_demo_corpus(corpus)
    settings = _settings(tmp_path / "night", corpus)
    instance = dg.DagsterInstance.ephemeral()
    defs = build_definitions(settings)
    assert materialise_graph(defs, instance, skip_current=True).evaluation_succeeded
    amend_filing(corpus, CHANGED_CIK)

    night = materialise_graph(build_definitions(settings), instance, skip_current=True)
    assert night.evaluation_succeeded, night.evaluation_error
    assert len(night.partitions) - len(night.current_partitions) == 1, "only the changed filing's corpus work"
    made = _shards_made(instance, _sharded(defs))
    assert len(made) == 12, sorted(made)
    searching = _searching(settings, CHANGED_CIK)
    assert searching, "the changed company's questions"
    for asset, (written, kept, questions) in made.items():
        assert written + kept == 17, asset
        # the changed company's shard made again; the corpus shard where the step measures the corpus scope
        in_corpus_scope = asset in IN_CORPUS_SCOPE
        assert written == 1 + in_corpus_scope, (asset, written)
        # in the company's shard, its questions (and those that may read its filings) alone; the other companies'
        # questions of that shard are kept
        if not in_corpus_scope:
            assert 0 < questions <= len(searching), (asset, questions, len(searching))

    cold_settings = _settings(tmp_path / "cold", corpus)
    cold = materialise_graph(build_definitions(cold_settings), dg.DagsterInstance.ephemeral(), skip_current=True)
    assert cold.evaluation_succeeded, cold.evaluation_error
    for name in ("report.md", "outcomes.json"):
        night_file = Path(settings.reports_dir) / "amended" / name
        cold_file = Path(cold_settings.reports_dir) / "amended" / name
        assert night_file.read_bytes() == cold_file.read_bytes(), f"{name}: the night's is the cold run's"
