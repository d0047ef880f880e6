"""The whole graph, in process, on the demo corpus: every asset materialised, the report reproducible."""

import json
import math
from pathlib import Path
from typing import cast

import dagster as dg
import pytest

from edgar_eval.defs.corpus.partitions import FILING_DOCUMENTS
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_evaluation, materialise_graph
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import SHARDS
from edgar_eval.evaluation.release_fixture import prints_figure
from edgar_eval.evaluation.shards import SHARD_KEYS
from edgar_eval_tests.test_report_summary import check_report_leads_with_its_summary

pytestmark = pytest.mark.slow(minutes=2.5)  # whole-graph runs: scheduled with the longest first

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo")
    settings = EvalSettings(
        corpus_dir=str(root / "demo_corpus"),
        corpus_name="demo",
        data_dir=str(root / "data"),
        reports_dir=str(root / "reports"),
    )
    defs = build_definitions(settings)
    instance = dg.DagsterInstance.ephemeral()
    graph = materialise_graph(defs, instance)
    return settings, defs, instance, graph


def test_every_asset_and_partition_is_materialised(demo_run):
    settings, defs, instance, graph = demo_run
    assert graph.failed_partitions == {} and graph.evaluation_succeeded, (
        graph.failed_partitions,
        graph.evaluation_error,
    )
    assert len(graph.partitions) == 16
    from edgar_eval.defs.source_files import SOURCE_FILES

    sources = {source.key for source in SOURCE_FILES}
    for spec in defs.resolve_all_asset_specs():
        if spec.key == FILING_DOCUMENTS:  # the input: observed, each partition with its sha256, never materialised
            continue
        if spec.key in sources:  # the files beside the graph: observed before the evaluation, never materialised
            assert instance.get_latest_data_version_record(spec.key, is_source=True) is not None, spec.key
            continue
        if spec.partitions_def == SHARDS:  # every shard, those holding no question of the demo's three companies too
            assert instance.get_materialized_partitions(spec.key) == set(SHARD_KEYS), spec.key
        elif spec.partitions_def is not None:
            assert instance.get_materialized_partitions(spec.key) == set(graph.partitions), spec.key
        else:
            assert instance.get_latest_materialization_event(spec.key) is not None, spec.key


def test_report_is_byte_identical_on_a_second_run_and_to_the_committed_one(demo_run):
    settings, defs, instance, _ = demo_run
    report = Path(settings.reports_dir) / "demo" / "report.md"
    first = report.read_bytes()
    assert materialise_evaluation(defs, instance) is None
    assert report.read_bytes() == first
    committed = (REPO / "reports" / "demo" / "report.md").read_bytes()
    assert first == committed, (
        "reports/demo/report.md drifted from what the code produces: rerun `edgar-eval run` and commit it"
    )


def test_report_leads_with_its_summary_and_links_every_section(demo_run):
    """The demo's report: Summary first, contents linking every section in both renderings, the plots beside the
    tables they draw, and each summary figure the one its detail section prints."""
    settings, _, _, _ = demo_run
    folder = Path(settings.reports_dir) / "demo"
    check_report_leads_with_its_summary((folder / "report.md").read_text(), (folder / "report.html").read_text())


def test_report_tables_name_their_asset_and_data_version(demo_run):
    settings, defs, instance, _ = demo_run
    text = (Path(settings.reports_dir) / "demo" / "report.md").read_text()
    for asset in ("filings", "golden_questions", "retrieval_metrics", "arm_statistics"):
        event = instance.get_latest_materialization_event(dg.AssetKey(asset))
        assert f"Source: asset `{asset}`, data version `" in text
        if asset != "filings":  # partitioned: the report hashes the concatenation of its partitions
            assert f"`{event.asset_materialization.tags['dagster/data_version']}`" in text, asset


def test_asset_metadata_carries_figures_for_the_ui(demo_run):
    _, _, instance, graph = demo_run
    facts = (
        instance.fetch_materializations(
            dg.AssetRecordsFilter(asset_key=dg.AssetKey("xbrl_facts"), asset_partitions=[graph.partitions[0]]), limit=1
        )
        .records[0]
        .asset_materialization.metadata
    )
    assert facts["numeric_displayed_at_offset"].value == 1.0 and facts["facts"].value > 0
    gates = instance.get_latest_materialization_event(dg.AssetKey("abstention_scores")).asset_materialization.metadata
    assert 0 <= gates["relevance_brier"].value <= 0.25
    golden = instance.get_latest_materialization_event(dg.AssetKey("golden_questions")).asset_materialization.metadata
    assert set(golden["by_kind"].value) == {
        "answerable",
        "other_year",
        "other_company",
        "absent_concept",
        "conflicting_values",
        "segment",
        "granularity",
        "restatement",
        "cross_company",
    }  # change_over_time: every demo pair's later 10-K prints both years (one_document_suffices), so none is asked


def _numeric(instance: dg.DagsterInstance, asset: str) -> dict[str, float | int]:
    """The latest materialisation's numeric metadata of `asset`, as the UI's Plots tab reads it from the event log;
    every float finite, every `name_low`/`name_high` pair around `name`."""
    event = cast(dg.EventLogEntry, instance.get_latest_materialization_event(dg.AssetKey(asset)))
    metadata = cast(dg.AssetMaterialization, event.asset_materialization).metadata
    floats = {k: cast(float, v.value) for k, v in metadata.items() if isinstance(v, dg.FloatMetadataValue)}
    ints = {k: cast(int, v.value) for k, v in metadata.items() if isinstance(v, dg.IntMetadataValue)}
    for name, value in floats.items():
        assert type(value) is float and math.isfinite(value), (asset, name, value)
        if f"{name}_low" in floats:
            assert floats[f"{name}_low"] <= value <= floats[f"{name}_high"], (asset, name)
    return {**ints, **floats}


def test_the_statistics_assets_carry_their_headline_figures_as_numbers_the_ui_plots(demo_run):
    """Issue 35: the primary endpoint, the false-answer rate, page hit@K and reader accuracy are float metadata of the
    assets that compute them, equal to the numbers their tables (the report's) hold."""
    settings, _, instance, _ = demo_run
    store = settings.store()

    by_kind = store.read("arm_false_answers_by_kind")
    figures = _numeric(instance, "arm_false_answers_by_kind")
    absent = by_kind[by_kind.kind == "absent_concept"].set_index("arm")  # protocol v3's primary endpoint (H2)
    assert figures["primary_endpoint_questions"] == int(absent.false_answer_rate_n.max()) > 0
    for arm in "ABCDEF":
        assert figures[f"primary_endpoint_arm_{arm}"] == absent.loc[arm, "false_answer_rate"]
        for end in ("low", "high"):
            bound = figures[f"primary_endpoint_arm_{arm}_{end}"]
            assert bound == pytest.approx(absent.loc[arm, f"false_answer_rate_{end}"], abs=1e-12)
    other_company = by_kind[by_kind.kind == "other_company"].set_index("arm")
    assert figures["false_answer_rate_other_company_arm_A"] == other_company.loc["A", "false_answer_rate"]

    arms = store.read("arm_statistics").set_index("arm")
    figures = _numeric(instance, "arm_statistics")
    assert figures["answerable_questions"] == int(arms.answer_accuracy_n.max()) > 0
    # no false-answer rate pooled over the unanswerable kinds, in the table or the UI's series
    assert not [c for c in arms.columns if c.startswith("false_answer_rate")]
    assert not [name for name in figures if name.startswith(("false_answer_rate", "unanswerable_questions"))]
    for arm in "ABCDEF":
        for figure in ("recall_cost", "answer_accuracy"):
            assert figures[f"{figure}_arm_{arm}"] == arms.loc[arm, figure]
            assert f"{figure}_arm_{arm}_low" in figures and f"{figure}_arm_{arm}_high" in figures
        assert figures[f"recall_cost_arm_{arm}_cluster_high"] == arms.loc[arm, "recall_cost_cluster_high"]

    metrics = store.read("retrieval_metrics")
    answerer = metrics[metrics.search_scope == "company_year"].set_index(["retriever", "k"])
    figures = _numeric(instance, "retrieval_metrics")
    for retriever in ("dense", "bm25", "hybrid"):
        for k in settings.retrieval_depths:
            assert figures[f"page_hit_at_{k}_{retriever}"] == answerer.loc[(retriever, k), "page_hit_rate"]
            assert figures[f"page_hit_at_{k}_{retriever}_low"] == pytest.approx(
                answerer.loc[(retriever, k), "page_low"], abs=1e-12
            )
    assert not [name for name in figures if name.startswith("page_hit_at_") and "corpus" in name]

    readers = store.read("reader_accuracy")
    everything = readers[readers.documents == "all"].set_index("reader")
    figures = _numeric(instance, "reader_accuracy")
    assert figures["reader_questions"] == int(everything.questions.max()) > 0
    assert figures["reader_accuracy_table_reader"] == everything.loc["table-reader/1", "right_share"]
    assert figures["reader_accuracy_extractive_baseline"] == everything.loc["extractive-baseline/1", "right_share"]
    assert "reader_accuracy_table_reader_two_documents" in figures


def test_the_release_fixture_passes_route_by_route_and_its_changed_source_is_stale(demo_run):
    """The demo's must-pass fixture: every case exits by its declared route; the case written against Maribel's
    original fiscal 2023 10-K is listed stale, re-verified in the 10-K/A (672 -> 655), and answered from the
    amendment without the old figure in any passage read; the original, still on disk, does print it."""
    settings, _, _, _ = demo_run
    store = settings.store()
    cases, results = store.read("release_fixture_cases"), store.read("release_fixture_results")
    assert len(results) >= 12 and results.passed.all(), results[~results.passed][["case_id", "failures"]]
    assert (results.taken_route == results.expected_route).all()
    declared = results.expected_route.value_counts().to_dict()
    assert declared["answer"] >= 7 and all(declared.get(r, 0) >= 1 for r in ("no_answer", "deny", "clarify", "review"))
    stale = cases[cases.stale].set_index("case_id")
    assert set(stale.index) == {"changed-mrbl-net-income-2023", "changed-mrbl-goodwill-2024"}
    changed = stale.loc["changed-mrbl-net-income-2023"]
    assert changed.stale_status == "changed" and (changed.old_value, changed.new_value) == (672e6, 655e6)
    assert list(changed.scope_filing_ids) == ["mrbl-10ka_2023-10-16"]
    assert stale.loc["changed-mrbl-goodwill-2024"].stale_status == "unchanged"
    result = results.set_index("case_id").loc["changed-mrbl-net-income-2023"]
    checks = json.loads(result.checks)
    assert checks["old_figure_retrieved"] is False and checks["old_figure_repeated"] is False
    assert checks["current_locator_cited"] and list(result.cited_filing_ids) == ["mrbl-10ka_2023-10-16"]
    assert "655" in result.answer_text
    # the check can fire: the superseded original prints 672 in a chunk, which search never serves
    index = store.read("search_index")
    assert "mrbl-10k_2023-08-21" not in set(index.filing_id)
    original = store.read("chunks", "mrbl-10k_2023-08-21")
    assert any(prints_figure(text, "672") for text in original.text)


def test_a_processor_s_float_noise_in_the_embeddings_moves_no_report_data_version(demo_run):
    """Another CPU's kernels move every cosine by up to 1e-6 (measured between torch's AVX2 and AVX-512 kernels): the
    gate statistics the report prints, and their data versions, must come out the same from such scores."""
    import numpy as np
    import pandas as pd

    from edgar_eval.defs.statistics.arms import read_protocol
    from edgar_eval.domain.versioning import content_version
    from edgar_eval.evaluation.abstention import cross_fit
    from edgar_eval.evaluation.gate_quality import abstention_quality

    settings, _, instance, _ = demo_run
    store = Path(settings.data_dir) / "demo"
    scores = pd.read_parquet(store / "abstention_scores.parquet")
    arms = pd.read_parquet(store / "arm_outcomes.parquet")
    protocol, _ = read_protocol(settings)

    def quality(frame: pd.DataFrame) -> pd.DataFrame:
        outcomes = protocol.questions(arms)
        arm_a = cast(pd.DataFrame, outcomes[outcomes.arm == "A"])
        table = abstention_quality(protocol.questions(frame), arm_a)
        return table.assign(split=protocol.split)

    stored = instance.get_latest_materialization_event(dg.AssetKey("abstention_quality"))
    assert content_version(quality(scores)) == stored.asset_materialization.tags["dagster/data_version"]
    inputs = scores.drop(columns=["fold", "relevance_score", "cosine_threshold", "relevance_threshold"])
    inputs = inputs.drop(columns=["cosine_pass", "relevance_pass"])
    noise = np.random.default_rng(7).choice([-1e-6, 0.0, 1e-6], size=(len(inputs), 3))
    moved = inputs.assign(
        top_score=inputs.top_score + noise[:, 0],
        margin=inputs.margin + noise[:, 1],
        mean_top3=inputs.mean_top3 + noise[:, 2],
    )
    again = quality(cross_fit(moved))
    assert not np.array_equal(again.brier.to_numpy(), quality(scores).brier.to_numpy(), equal_nan=True)  # it moved
    assert content_version(again) == content_version(quality(scores))
