"""A re-run over unchanged files parses and embeds nothing; a changed file or parameter rebuilds."""

from typing import Any, cast

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import partition_key
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_corpus
from edgar_eval.defs.settings import EvalSettings

FILINGS = ("hvrn/8k_2024-05-14.htm", "mrbl/8k_2023-11-13.htm")
CORPUS_ASSETS = ("filings", "filing_text", "xbrl_facts", "fact_rejections", "sections", "chunks", "chunk_embeddings")


def _reused(instance, key):
    out = {}
    for asset in CORPUS_ASSETS:
        record = instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[key]), limit=1
        ).records[0]
        out[asset] = record.asset_materialization.metadata["reused"].value
    return out


def _settings(tmp_path, **overrides):
    return EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="incremental",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
        **overrides,
    )


@pytest.mark.slow(minutes=0.15)  # materialises graph runs: seconds, not milliseconds
def test_unchanged_files_are_reused_and_changes_rebuild(tmp_path, demo_files):
    for path in FILINGS:
        (tmp_path / "corpus" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "corpus" / path).write_bytes(demo_files[path])
    settings = _settings(tmp_path)
    instance = dg.DagsterInstance.ephemeral()
    first, second = (partition_key(p) for p in FILINGS)
    assert materialise_corpus(build_definitions(settings), instance) == {}
    assert set(_reused(instance, first).values()) == {False}
    stored = settings.store().path("chunk_embeddings", first).read_bytes()

    assert materialise_corpus(build_definitions(settings), instance) == {}
    assert set(_reused(instance, first).values()) == {True}
    assert settings.store().path("chunk_embeddings", first).read_bytes() == stored
    versions = {
        cast(Any, e.asset_materialization).tags["dagster/data_version"]  # a materialization, tagged
        for e in instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("chunks"), asset_partitions=[first]), limit=2
        ).records
        for e in [e.event_log_entry]
    }
    assert len(versions) == 1, "a reused table keeps its data version"

    changed = demo_files[FILINGS[1]].replace(b"simplify the organization", b"streamline the organization")
    (tmp_path / "corpus" / FILINGS[1]).write_bytes(changed)
    assert materialise_corpus(build_definitions(settings), instance) == {}
    assert set(_reused(instance, second).values()) == {False}
    assert set(_reused(instance, first).values()) == {True}

    rechunked = _settings(tmp_path, chunk_size=600, chunk_overlap=100)
    assert materialise_corpus(build_definitions(rechunked), instance, [first]) == {}
    assert _reused(instance, first) == {
        "filings": True,
        "filing_text": True,
        "xbrl_facts": True,
        "fact_rejections": True,  # no row (every fact read): its file's stamp says it is current
        "sections": True,
        "chunks": False,
        "chunk_embeddings": False,
    }
