"""Malformed filings fail their own partition with a clear reason; nothing already materialised is lost."""

import re
from pathlib import Path
from typing import Any, cast

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import partition_key
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_corpus, materialise_evaluation
from edgar_eval.defs.settings import EvalSettings

GOOD = ("hvrn/10k_2025-02-20.htm", "hvrn/8k_2024-05-14.htm")


@pytest.fixture
def broken_corpus(tmp_path, demo_files):
    corpus = tmp_path / "corpus"
    for path in GOOD:
        (corpus / path).parent.mkdir(parents=True, exist_ok=True)
        (corpus / path).write_bytes(demo_files[path])
    eight_k = demo_files["hvrn/8k_2024-05-14.htm"]
    bad = {
        "bad/truncated.htm": demo_files["hvrn/10k_2025-02-20.htm"][:30_000],
        "bad/no_ixbrl.htm": b"<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><body><p>Plain HTML "
        b"annual report</p></body></html>",
        "bad/unknown_form.htm": re.sub(rb'(name="dei:DocumentType"[^>]*>)8-K<', rb"\1S-1<", eight_k),
        "bad/empty.htm": b"",
        "bad/garbage.htm": bytes(range(256)) * 40,
        "bad/mismatched.htm": eight_k.replace(b"</p>", b"</div>", 1),
    }
    assert bad["bad/unknown_form.htm"] != eight_k, "the fixture must really change the form"
    for path, data in bad.items():
        (corpus / path).parent.mkdir(parents=True, exist_ok=True)
        (corpus / path).write_bytes(data)
    settings = EvalSettings(
        corpus_dir=str(corpus),
        corpus_name="broken",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )
    return settings, corpus


@pytest.mark.slow(minutes=0.25)  # materialises graph runs: seconds, not milliseconds
def test_each_bad_filing_fails_its_own_partition_with_its_reason(broken_corpus):
    settings, corpus = broken_corpus
    defs = build_definitions(settings)
    instance = dg.DagsterInstance.ephemeral()
    failed = materialise_corpus(defs, instance)
    expected = {
        "bad-truncated": "truncated document",
        "bad-no_ixbrl": "no inline XBRL",
        "bad-unknown_form": "unsupported form 'S-1'",
        "bad-empty": "empty file (0 bytes)",
        "bad-garbage": "binary content",
    }
    assert set(failed) == set(expected)
    for key, reason in expected.items():
        assert key in failed[key] and reason in failed[key], failed[key]
    good_keys = {partition_key(p) for p in GOOD} | {"bad-mismatched"}
    for asset in ("filings", "chunk_embeddings"):
        assert instance.get_materialized_partitions(dg.AssetKey(asset)) == good_keys
    assert not any(settings.store().exists("filings", key) for key in expected)
    # A tag mismatch is repaired by the parser's recovery, and the repair is on record.
    warnings = list(settings.store().read("filings", "bad-mismatched").parse_warnings[0])
    assert warnings and warnings[0].startswith("recovered from malformed XHTML")

    # The evaluation runs on the good filings and says which ones it left out.
    assert materialise_evaluation(defs, instance) is None
    report = (Path(settings.reports_dir) / "broken" / "report.md").read_text()
    assert "3 filings of 1 companies" in report
    assert "bad-truncated (its last corpus run failed: " in report  # why, not only that it is missing
    assert expected["bad-truncated"] in report.split("bad-truncated (its last corpus run failed: ", 1)[1].split("\n")[0]


@pytest.mark.slow(minutes=0.25)  # materialises graph runs: seconds, not milliseconds
def test_a_table_the_run_history_never_recorded_is_not_read(broken_corpus):
    """A filing's tables written by a run whose events never reached this run history (the database down mid-run,
    another instance) are not part of its lineage: the evaluation leaves the filing out, and the report says why."""
    settings, _ = broken_corpus
    defs = build_definitions(settings)
    elsewhere, instance = dg.DagsterInstance.ephemeral(), dg.DagsterInstance.ephemeral()
    unrecorded = partition_key(GOOD[1])
    assert materialise_corpus(defs, elsewhere, [unrecorded]) == {}
    assert materialise_corpus(defs, instance, [partition_key(GOOD[0]), "bad-mismatched"]) == {}
    assert settings.store().exists("filings", unrecorded) and settings.store().exists("chunks", unrecorded)
    assert unrecorded not in instance.get_materialized_partitions(dg.AssetKey("filings"))

    assert materialise_evaluation(defs, instance) is None
    report = (Path(settings.reports_dir) / "broken" / "report.md").read_text()
    assert "2 filings of 1 companies" in report
    assert f"{unrecorded} (filings is stored but the run history records no materialisation of it)" in report


def test_a_file_corrupted_after_materialisation_keeps_the_earlier_data(broken_corpus):
    settings, corpus = broken_corpus
    defs = build_definitions(settings)
    instance = dg.DagsterInstance.ephemeral()
    key = partition_key(GOOD[1])
    assert materialise_corpus(defs, instance, [key]) == {}
    stored = settings.store().path("filings", key).read_bytes()
    chunks = settings.store().path("chunks", key).read_bytes()
    before = cast(dg.EventLogEntry, instance.get_latest_materialization_event(dg.AssetKey("filings"))).run_id

    original = (corpus / GOOD[1]).read_bytes()
    (corpus / GOOD[1]).write_bytes(original[: len(original) // 2])
    failed = materialise_corpus(defs, instance, [key])
    assert "truncated document" in failed[key]
    assert settings.store().path("filings", key).read_bytes() == stored
    assert settings.store().path("chunks", key).read_bytes() == chunks
    assert cast(dg.EventLogEntry, instance.get_latest_materialization_event(dg.AssetKey("filings"))).run_id == before

    # A changed but valid file is caught downstream: its text is not silently rebuilt from other bytes.
    (corpus / GOOD[1]).write_bytes(
        original.replace(b"restructuring plan to simplify", b"restructuring plan to streamline")
    )
    from edgar_eval.adapters.parquet_store import StoreError
    from edgar_eval.corpus.partitioned import PartitionedTable
    from edgar_eval.defs.common import parsed_filing

    recorded = PartitionedTable("filings", {key: settings.store().read("filings", key)})
    with pytest.raises(StoreError, match="changed since `filings` was materialised"):
        parsed_filing(settings, recorded, key)


@pytest.mark.slow(minutes=0.15)  # materialises graph runs: seconds, not milliseconds
def test_an_index_built_by_another_chunker_is_refused(broken_corpus):
    settings, _ = broken_corpus
    instance = dg.DagsterInstance.ephemeral()
    keys = [partition_key(p) for p in GOOD]
    assert materialise_corpus(build_definitions(settings), instance, keys) == {}
    rechunked = EvalSettings(
        corpus_dir=settings.corpus_dir,
        corpus_name=settings.corpus_name,
        data_dir=settings.data_dir,
        reports_dir=settings.reports_dir,
        chunk_size=800,
    )
    error = materialise_evaluation(build_definitions(rechunked), instance)
    assert error is not None and "chunk_embeddings was built differently" in error
    assert "chunk_size: index has 1000, configuration asks for 800" in error


def test_an_unknown_answer_retriever_or_depth_is_refused_in_one_line_naming_the_choices(tmp_path):
    base: dict[str, Any] = dict(
        corpus_dir=str(tmp_path), corpus_name="x", data_dir=str(tmp_path), reports_dir=str(tmp_path)
    )
    with pytest.raises(ValueError, match="unknown answer_retriever 'semantic'; choose one of dense, bm25, hybrid"):
        EvalSettings(**base, answer_retriever="semantic").answer_search()
    with pytest.raises(ValueError, match="top_k must be at least 1"):
        EvalSettings(**base, top_k=0).answer_search()
    assert EvalSettings(**base).answer_search() == "hybrid"


def test_a_bad_search_scope_reranker_rerank_cut_or_noise_sample_is_refused_in_one_line(tmp_path):
    base: dict[str, Any] = dict(
        corpus_dir=str(tmp_path), corpus_name="x", data_dir=str(tmp_path), reports_dir=str(tmp_path)
    )
    settings = EvalSettings(**base)
    assert settings.cuts() == [(30, 15), (50, 30)] and settings.reranker_adapter().reranker_id == "lexical-figure/1"
    with pytest.raises(ValueError, match=r"search_scopes \['world'\]: choose one or more of company_year"):
        EvalSettings(**base, search_scopes=["world"]).check()
    with pytest.raises(ValueError, match="unknown reranker 'cross'; choose one of lexical, endpoint"):
        EvalSettings(**base, reranker="cross").reranker_adapter()
    with pytest.raises(ValueError, match="reranker 'endpoint' needs rerank_url"):
        EvalSettings(**base, reranker="endpoint").reranker_adapter()
    with pytest.raises(ValueError, match="rerank url must be an http"):
        EvalSettings(**base, reranker="endpoint", rerank_url="localhost:8080").check_reranker()
    with pytest.raises(ValueError, match="rerank_cuts: '30-15' is not \"candidates:kept\""):
        EvalSettings(**base, rerank_cuts=["30-15"]).cuts()
    with pytest.raises(ValueError, match="needs candidates among retrieval_depths"):
        EvalSettings(**base, rerank_cuts=["40:15"]).cuts()
    with pytest.raises(ValueError, match="0 < kept <= candidates"):
        EvalSettings(**base, rerank_cuts=["30:31"]).cuts()
    with pytest.raises(ValueError, match="rerank_cuts: 30:15 is given twice"):
        EvalSettings(**base, rerank_cuts=["30:15", " 30 : 15"]).cuts()
    with pytest.raises(ValueError, match="noise_questions must be at least 1"):
        EvalSettings(**base, noise_questions=0).check()
    with pytest.raises(ValueError, match="corpus_scope_questions must be at least 1"):
        EvalSettings(**base, corpus_scope_questions=0).check()


def test_an_evaluation_over_partitions_never_built_here_says_so_in_one_line(tmp_path):
    """The run history's filing partitions can be another corpus's (one DAGSTER_HOME, two folders): the evaluation's
    first read names the cause instead of failing deep inside on empty tables."""
    from edgar_eval.defs.runner import materialise_evaluation

    settings = EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="elsewhere",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("filings", ["other-10k_2024-01-01", "other-10q_2024-05-01"])
    error = materialise_evaluation(build_definitions(settings), instance, synced=True)
    assert error is not None and error.startswith("none of the 2 filing partitions of the run history has "), error
    assert "`edgar-eval partitions`" in error and "\n" not in error
    assert not (tmp_path / "reports").exists()  # no report from nothing


def test_a_fact_that_cannot_be_read_costs_only_itself(tmp_path, demo_files):
    """A 10-Q whose one fact shows a number word the reader does not know, and whose one context has an unreadable
    date, is materialised: those two facts are rows of fact_rejections with their reasons, the rest are in
    xbrl_facts, and a re-run reuses every table."""
    path = "hvrn/10q_2024-11-05.htm"
    data = demo_files[path]
    words = data.replace(
        b'id="f-10" decimals="-6" scale="6" format="ixt:num-dot-decimal">547<',
        b'id="f-10" decimals="-6" scale="6" format="ixt-sec:numwordsen">several<',
    )
    broken = words.replace(b"<xbrli:instant>2024-10-26<", b"<xbrli:instant>2024-10-32<")
    assert data != words != broken, "the fixture must really change the fact and the context"
    corpus = tmp_path / "corpus"
    (corpus / "hvrn").mkdir(parents=True)
    (corpus / path).write_bytes(broken)
    settings = EvalSettings(
        corpus_dir=str(corpus),
        corpus_name="one_fact",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )
    instance = dg.DagsterInstance.ephemeral()
    key = partition_key(path)
    assert materialise_corpus(build_definitions(settings), instance) == {}

    store = settings.store()
    dropped = store.read("fact_rejections", key)
    assert dropped[["fact_id", "concept", "context_id", "displayed", "format", "reason"]].values.tolist() == [
        [
            "f-9",
            "dei:EntityCommonStockSharesOutstanding",
            "c-i2024-10-26",
            "487,000,000",
            "ixt:num-dot-decimal",
            "context 'c-i2024-10-26' has an unreadable date '2024-10-32'",
        ],
        [
            "f-10",
            "us-gaap:Revenues",
            "c-d2024-07-01_2024-09-30",
            "several",
            "ixt-sec:numwordsen",
            "not a number word: 'several' in 'several'",
        ],
    ]
    assert set(dropped.filing_id) == {key} and set(dropped.sha256) == {store.read("filings", key).sha256[0]}
    facts = store.read("xbrl_facts", key)
    assert len(facts) == 53 and "several" not in set(facts.displayed) and 1_588_000_000.0 in set(facts.value)
    assert "dropped 2 fact(s)" in store.read("filings", key).parse_warnings[0][0]

    assert materialise_corpus(build_definitions(settings), instance) == {}
    record = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey("fact_rejections"), asset_partitions=[key]), limit=1
    ).records[0]
    assert cast(dg.AssetMaterialization, record.asset_materialization).metadata["reused"].value is True


def test_the_corpus_table_counts_the_facts_dropped_and_names_them_when_few():
    import pandas as pd

    from edgar_eval.report.corpus_tables import FACTS_DROPPED_NAMED, _facts_dropped

    filings = pd.DataFrame({"filing_id": ["a-10k", "b-10q", "c-10k"]})
    few = [("b-10q", "us-gaap:Revenues", "f-10", "not a number word: 'several' in 'several'")]
    few.append(("b-10q", "us-gaap:Cash", "", "context 'c-1' has an unreadable date '2024-10-32'"))
    many = [("c-10k", "us-gaap:Cash", f"f-{i}", "no digits") for i in range(FACTS_DROPPED_NAMED + 1)]
    dropped = pd.DataFrame(few + many, columns=["filing_id", "concept", "fact_id", "reason"])
    cells, note = _facts_dropped(filings, dropped)
    assert cells == [
        "0",
        "2: us-gaap:Revenues (id f-10): not a number word: 'several' in 'several'; "
        "us-gaap:Cash: context 'c-1' has an unreadable date '2024-10-32'",
        "6 (each with its reason in fact_rejections)",
    ]
    assert note.startswith("Facts dropped: 8 in total, from 2 of the 3 filings.")
    cells, note = _facts_dropped(filings, pd.DataFrame())  # a report of tables built before fact_rejections
    assert cells == ["0", "0", "0"] and note.startswith("Facts dropped: 0 in total, from 0 of the 3 filings.")
