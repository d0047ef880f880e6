"""A snapshot of the definitions: the asset graph users see in the UI."""

import re
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.defs.answering import checks as regression_checks
from edgar_eval.defs.corpus.partitions import FILINGS, sync_filings
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import SHARDS

REPO = Path(__file__).resolve().parents[1]
SHARDED = {
    "answerer_retrievals",
    "retriever_rankings",
    "reranked_retrievals",
    "expanded_retrievals",
    "generations",
    "retrieval_noise",
    "rerank_noise",
    "answering_noise",
    "reader_answers",
    "gate_features",
    "wrong_answers",
    "citation_mutations",
}
GRAPH = {
    "filing_documents": ("corpus", set()),
    "filings": ("corpus", {"filing_documents"}),
    "filing_text": ("corpus", {"filings"}),
    "xbrl_facts": ("corpus", {"filings"}),  # parsed from the filing's bytes, as filing_text is: no read of it
    "fact_rejections": ("corpus", {"filings"}),  # the facts xbrl_facts could not read, from the same parse
    "sections": ("corpus", {"filings"}),
    "chunks": ("corpus", {"filings"}),
    "chunk_embeddings": ("corpus", {"filings", "chunks"}),
    "search_index": ("index", {"chunk_embeddings", "chunks", "filings"}),
    "golden_questions": ("golden", {"xbrl_facts", "chunks", "filing_text", "sections", "filings"}),
    "golden_rejections": ("golden", {"xbrl_facts", "chunks", "filing_text", "sections", "filings"}),
    "gold_by_search_scope": ("golden", {"xbrl_facts", "chunks", "filing_text", "sections", "filings"}),
    "absence_review_queue": ("golden", {"xbrl_facts", "chunks", "filing_text", "sections", "filings"}),
    "golden_set": ("golden", {"golden_questions", "filings"}),
    "golden_proposals": ("golden", {"filings", "filing_text", "sections"}),
    "admission_verdicts": ("golden", {"golden_proposals", "filings", "filing_text", "sections"}),
    "pattern_funnel": ("golden", {"golden_proposals", "filings", "filing_text", "sections"}),
    "admission_agreement": ("golden", {"golden_proposals", "filings", "filing_text", "sections"}),
    "golden_patterns": ("golden", {"golden_proposals", "chunks", "filings", "filing_text", "sections"}),
    "pattern_baseline": ("runs", {"golden_patterns", "search_index", "filings"}),
    "question_embeddings": ("index", {"search_index", "golden_questions"}),
    "answerer_retrievals": ("runs", {"search_index", "golden_questions", "question_embeddings"}),
    "retriever_rankings": (
        "runs",
        {"search_index", "golden_questions", "question_embeddings", "gold_by_search_scope"},
    ),
    "reranked_retrievals": (
        "runs",
        {"retriever_rankings", "search_index", "golden_questions", "gold_by_search_scope"},
    ),
    "expanded_retrievals": (
        "runs",
        {
            "retriever_rankings",
            "reranked_retrievals",
            "search_index",
            "golden_questions",
            "gold_by_search_scope",
            "filings",
            "filing_text",
        },
    ),
    "expansion_metrics": ("statistics", {"expanded_retrievals"}),
    "generations": ("runs", {"answerer_retrievals", "golden_questions", "search_index"}),
    "gate_features": ("runs", {"answerer_retrievals", "golden_questions", "search_index"}),
    "abstention_scores": ("runs", {"gate_features", "golden_set"}),
    "reader_answers": ("runs", {"answerer_retrievals", "golden_questions", "search_index"}),
    "reader_accuracy": ("runs", {"reader_answers"}),
    "arm_outcomes": ("runs", {"abstention_scores", "generations", "golden_questions"}),
    "arm_statistics": ("statistics", {"arm_outcomes"}),
    "arm_costs": ("statistics", {"arm_outcomes"}),
    "decision_simulation": ("statistics", {"arm_outcomes"}),
    "design_power": ("statistics", {"arm_outcomes", "decision_simulation"}),
    "arm_false_answers_by_kind": ("statistics", {"arm_outcomes"}),
    "arm_answers_by_kind": ("statistics", {"arm_outcomes"}),
    "wrong_answers": (
        "runs",
        {"answerer_retrievals", "golden_questions", "search_index", "generations", "arm_outcomes", "reader_answers"},
    ),
    "evidence_filing_hits": ("statistics", {"retriever_rankings", "golden_questions"}),
    "arm_comparisons": ("statistics", {"arm_outcomes", "decision_simulation", "design_power"}),
    "abstention_quality": ("statistics", {"abstention_scores", "arm_outcomes"}),
    "abstention_quality_by_kind": ("statistics", {"abstention_scores", "golden_questions"}),
    "abstention_comparisons": ("statistics", {"abstention_scores"}),
    "stage_latency": (
        "statistics",
        {"answerer_retrievals", "abstention_scores", "generations", "reranked_retrievals", "expanded_retrievals"},
    ),
    "rerank_metrics": ("statistics", {"reranked_retrievals"}),
    "retrieval_noise": (
        "runs",
        {"search_index", "golden_questions", "question_embeddings", "gold_by_search_scope"},
    ),
    "retrieval_noise_band": ("statistics", {"retrieval_noise", "retriever_rankings"}),
    "answering_noise": ("runs", {"search_index", "golden_questions", "question_embeddings"}),
    "answering_noise_band": ("statistics", {"answering_noise", "arm_outcomes"}),
    "rerank_noise": (
        "runs",
        {"search_index", "golden_questions", "question_embeddings", "gold_by_search_scope"},
    ),
    "rerank_noise_band": ("statistics", {"rerank_noise", "reranked_retrievals"}),
    "determinism": ("statistics", {"generations"}),
    "citation_mutations": (
        "statistics",
        {"generations", "arm_outcomes", "answerer_retrievals", "search_index", "golden_questions"},
    ),
    "retrieval_metrics": ("statistics", {"retriever_rankings"}),
    "retrieval_slices": ("statistics", {"retriever_rankings", "golden_questions"}),
    "retrieval_scope_changes": ("statistics", {"retriever_rankings"}),
    "report": (
        "report",
        {
            "arm_statistics",
            "arm_comparisons",
            "decision_simulation",
            "design_power",
            "arm_false_answers_by_kind",
            "arm_answers_by_kind",
            "wrong_answers",
            "evidence_filing_hits",
            "abstention_quality",
            "abstention_quality_by_kind",
            "abstention_comparisons",
            "determinism",
            "stage_latency",
            "arm_costs",
            "citation_mutations",
            "retrieval_metrics",
            "retrieval_slices",
            "retrieval_scope_changes",
            "rerank_metrics",
            "expansion_metrics",
            "retriever_rankings",
            "answering_noise_band",
            "rerank_noise_band",
            "retrieval_noise_band",
            "retrieval_noise",
            "gold_by_search_scope",
            "golden_questions",
            "golden_rejections",
            "golden_set",
            "search_index",
            "abstention_scores",
            "arm_outcomes",
            "generations",
            "pattern_funnel",
            "admission_agreement",
            "golden_patterns",
            "pattern_baseline",
            "golden_audit",
            "absence_review_queue",
            "reader_accuracy",
            "route_matrix",
            "release_checks",
            "case_receipts",
            "release_fixture_results",
            "filings",
            "filing_text",
            "xbrl_facts",
            "fact_rejections",
            "sections",
            "chunks",
            "chunk_embeddings",
        },
    ),
    "route_cases": ("golden", {"golden_questions", "filings"}),
    "route_outcomes": ("runs", {"route_cases", "golden_questions", "generations", "filings"}),
    "route_matrix": ("statistics", {"route_outcomes"}),
    "release_checks": ("statistics", {"route_outcomes", "generations", "release_fixture_results"}),
    "release_fixture_cases": ("golden", {"filings", "xbrl_facts"}),
    "release_fixture_results": ("runs", {"release_fixture_cases", "search_index", "filings"}),
    "case_receipts": (
        "statistics",
        {
            "route_outcomes",
            "route_cases",
            "golden_questions",
            "answerer_retrievals",
            "wrong_answers",
            "generations",
            "arm_outcomes",
            "search_index",
            "filings",
        },
    ),
    "golden_audit": (
        "golden",
        {"golden_questions", "golden_set", "golden_patterns", "golden_proposals", "filing_text", "filings"},
    ),
}

# The files beside the graph each asset reads (source_files.py): observable source assets it declares as deps, so the
# UI's lineage shows which file drives which figure (test_current_work checks them against the files each step opens).
SOURCE_READS: dict[str, set[str]] = {
    "golden_questions": {"policy_files", "review_files"},
    "golden_rejections": {"policy_files", "review_files"},
    "gold_by_search_scope": {"policy_files", "review_files"},
    "absence_review_queue": {"policy_files", "review_files"},
    "golden_proposals": {"proposal_files", "tape_files"},
    "admission_verdicts": {"review_files"},
    "pattern_funnel": {"review_files"},
    "admission_agreement": {"review_files"},
    "golden_patterns": {"review_files"},
    "pattern_baseline": {"policy_files"},
    "retriever_rankings": {"policy_files"},
    "reranked_retrievals": {"policy_files"},
    "expanded_retrievals": {"policy_files"},
    "generations": {"tape_files"},
    "abstention_scores": {"gates_files"},
    "arm_statistics": {"protocol_files"},
    "decision_simulation": {"protocol_files"},
    "design_power": {"protocol_files"},
    "arm_false_answers_by_kind": {"protocol_files"},
    "arm_answers_by_kind": {"protocol_files"},
    # v5 pins the frozen gates file and the corpus's review and policy files by their content
    "arm_comparisons": {"protocol_files", "gates_files", "review_files", "policy_files"},
    "abstention_quality": {"protocol_files"},
    "abstention_quality_by_kind": {"protocol_files"},
    "abstention_comparisons": {"protocol_files"},
    "retrieval_noise": {"policy_files"},
    "answering_noise": {"tape_files"},
    "rerank_noise": {"policy_files"},
    "report": {"protocol_files"},
    "route_cases": {"policy_files"},
    "route_outcomes": {"policy_files"},
    "release_checks": {"protocol_files"},
    "release_fixture_cases": {"fixture_files", "policy_files"},
    "release_fixture_results": {"policy_files", "tape_files"},
    "case_receipts": {"review_files"},
    "golden_audit": {"review_files"},
}


@pytest.fixture(scope="module")
def defs(demo_definitions):
    return demo_definitions


def test_asset_graph_matches_the_snapshot(defs):
    from edgar_eval.defs.source_files import SOURCE_FILES

    sources = {source.key.to_user_string() for source in SOURCE_FILES}
    specs = {spec.key.to_user_string(): spec for spec in defs.resolve_all_asset_specs()}
    assert set(specs) == set(GRAPH) | sources
    for name in sources:
        assert specs[name].group_name == "files" and not specs[name].deps, name
    for name, (group, upstream) in GRAPH.items():
        spec = specs[name]
        assert spec.group_name == group, name
        assert {dep.asset_key.to_user_string() for dep in spec.deps} == upstream | SOURCE_READS.get(name, set()), name
        assert spec.description and len(spec.description) > 40, name
        assert spec.code_version or name == "filing_documents", name  # the one input: observed, not built by code
        # a filing per partition in the corpus; a shard of companies per partition in the per-question steps
        expected = FILINGS if group == "corpus" else SHARDS if name in SHARDED else None
        assert spec.partitions_def == expected, name


def test_the_documented_ci_gate_selects_every_asset_and_can_run_its_ranges(defs):
    """docs/dagster.md's `dagster asset materialize` commands: each selection parses as the Dagster CLI parses it,
    together they select every asset the graph builds, and a command with --partition-range selects only assets with
    a single-run backfill policy (the CLI refuses a range otherwise: it did once, unseen, for every evaluation step)."""
    text = (REPO / "docs" / "dagster.md").read_text()
    block = text.split("## `dagster asset materialize` as a CI gate", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.replace("\\\n", " ").splitlines() if "asset materialize" in line]
    graph = defs.resolve_asset_graph()
    selected: set[dg.AssetKey] = set()
    for command in commands:
        select = re.search(r"--select '([^']+)'", command)
        assert select, command
        keys = dg.AssetSelection.from_coercible(select[1].split(",")).resolve(graph) & graph.materializable_asset_keys
        if "--partition-range" in command:
            for key in keys:
                policy = graph.get(key).backfill_policy
                assert policy is not None and policy == dg.BackfillPolicy.single_run(), key
        selected |= keys
    assert len(commands) == 2 and selected == set(graph.materializable_asset_keys)


def test_jobs_sensor_and_automation_conditions(defs):
    """No schedules coupled by the clock: the corpus sensor adds partitions and observes documents, the corpus assets
    rebuild eagerly, the evaluation runs nightly once what it reads is up to date."""
    assert defs.resolve_job_def("corpus_job").partitions_def is not None
    assert defs.resolve_job_def("evaluation_job")
    assert not list(defs.schedules or [])
    sensors = {sensor.name: sensor for sensor in defs.sensors or []}
    assert set(sensors) == {"corpus_sensor", "automation", "orphaned_runs"}
    assert sensors["corpus_sensor"].default_status == dg.DefaultSensorStatus.RUNNING  # partitions and observations only
    assert sensors["orphaned_runs"].default_status == dg.DefaultSensorStatus.RUNNING  # ends runs, launches none
    assert sensors["automation"].default_status == dg.DefaultSensorStatus.STOPPED  # launches runs: the user turns it on
    for spec in defs.resolve_all_asset_specs():
        label = spec.automation_condition.get_label() if spec.automation_condition else None
        if spec.key.to_user_string() == "filing_documents" or spec.group_name == "files":
            assert label is None  # observed, not built
        elif spec.group_name == "corpus":
            assert label == "eager", spec.key  # with an observed (never materialised) document not "missing"
        else:
            assert label == "on_cron(0 4 * * *, UTC)", spec.key
    # an unchanged protocol or review file must not hold the night back: the files count as deps that update
    from edgar_eval.defs.jobs import EVALUATION_AUTOMATION

    (deps,) = [c for c in EVALUATION_AUTOMATION.children if str(c.get_label()).startswith("all_deps_updated_since")]
    assert str(getattr(deps, "ignore_selection")) == 'group:"files"'


def test_loading_the_definitions_reads_and_writes_no_corpus(tmp_path):
    settings = EvalSettings(
        corpus_dir=str(tmp_path / "demo_corpus"),
        corpus_name="demo",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )
    build_definitions(settings)
    assert not (tmp_path / "demo_corpus").exists()  # partitions live in the instance, added before a run
    instance = dg.DagsterInstance.ephemeral()
    changes = sync_filings(instance, settings)
    keys = instance.get_dynamic_partitions("filings")
    assert len(keys) == 16 and keys == sorted(keys) == changes.added == changes.changed


def test_importing_the_definitions_reads_no_environment(tmp_path):
    """Dagster's loaders call `defs`; importing the module builds nothing, so a bad environment fails the load, with
    its message, and never an import."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "EDGAR_EVAL_CORPUS_DIR": str(tmp_path), "EDGAR_EVAL_CORPUS_NAME": "demo"}
    script = (
        "import edgar_eval.definitions as d\n"
        "print('imported')\n"
        "try:\n    d.defs()\nexcept ValueError as exc:\n    print('refused:', exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[0] == "imported"
    assert "refused: --name (EDGAR_EVAL_CORPUS_NAME) 'demo' is reserved" in done.stdout


def test_descriptions_render_as_written(defs):
    """The UI renders descriptions as Markdown, where a bare <corpus> is an HTML tag and vanishes: placeholders in
    angle brackets stand inside backticks."""
    texts = [spec.description or "" for spec in defs.resolve_all_asset_specs()]
    texts += [spec.description or "" for check in regression_checks.CHECKS for spec in check.check_specs]
    assert any("<corpus>" in text for text in texts)  # the placeholders are there, in backticks
    for text in texts:
        outside_code = re.sub(r"`[^`]*`", "", text)
        assert not re.search(r"<[a-z_]+>", outside_code), text
