"""Report group: reports/<corpus>/report.md and report.html, receipt.json, outcomes.json (per question, for
`edgar-eval compare`) and timings.md, built only from the assets above."""

import functools
import hashlib
import json
from importlib.metadata import version
from typing import cast

import dagster as dg
import pandas as pd

from edgar_eval.adapters.files import replace_file
from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.defs.code_versions import package_source_digest
from edgar_eval.defs.failures import last_corpus_failure
from edgar_eval.defs.io_manager import columns_of
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.source_files import PROTOCOL_FILES
from edgar_eval.defs.statistics.arms import (
    read_protocol,
)
from edgar_eval.evaluation.gate_quality import risk_coverage_curves
from edgar_eval.evaluation.noise_band import retrieval_deltas
from edgar_eval.evaluation.paired_comparisons import EXPLORATORY_METHOD
from edgar_eval.evaluation.run_comparison import OUTCOMES_FILE, outcomes_json, run_outcomes
from edgar_eval.report.builder import build_report
from edgar_eval.report.inputs import ReportInputs

# The corpus tables the report reads only to name the filings it covers and those it left out (and why).
_CURRENCY_ONLY = dg.AssetIn(metadata=columns_of("sha256"))


@functools.cache
def code_version() -> str:
    """The package version and a hash of its source: what a receipt needs to name the code, with or without git."""
    return f"edgar-eval {version('edgar-eval')} source sha256 {package_source_digest()[:16]}"


@dg.asset(
    deps=[PROTOCOL_FILES.key],
    ins={
        "rejections": dg.AssetIn(
            "golden_rejections", metadata=columns_of("kind", "rule", "filing_id", "concept", "detail")
        ),
        "case_receipts": dg.AssetIn(metadata=columns_of("expected_route", "result", "override_status", "final_result")),
        **{table: _CURRENCY_ONLY for table in ("filing_text", "xbrl_facts", "sections", "chunks", "chunk_embeddings")},
        "retriever_rankings": dg.AssetIn(
            metadata=columns_of("question_id", "search_scope", "retriever", "k", "page_hit", "error")
        ),
    },
    group_name="report",
    description="`reports/<corpus>/report.md` and `report.html` (with the arm bar chart and the risk-coverage plot), "
    "receipt.json, outcomes.json (each question's outcomes, what `edgar-eval compare` pairs) and timings.md, built "
    "only from the assets above; each table names the asset and data version it "
    "came from.",
)
def report(
    context: dg.AssetExecutionContext,
    settings: EvalSettings,
    filings: PartitionedTable,
    filing_text: PartitionedTable,
    xbrl_facts: PartitionedTable,
    fact_rejections: PartitionedTable,
    sections: PartitionedTable,
    chunks: PartitionedTable,
    chunk_embeddings: PartitionedTable,
    golden_questions: pd.DataFrame,
    golden_set: pd.DataFrame,
    rejections: pd.DataFrame,
    retrieval_metrics: pd.DataFrame,
    retrieval_slices: pd.DataFrame,
    evidence_filing_hits: pd.DataFrame,
    arm_answers_by_kind: pd.DataFrame,
    wrong_answers: pd.DataFrame,
    retrieval_scope_changes: pd.DataFrame,
    rerank_metrics: pd.DataFrame,
    expansion_metrics: pd.DataFrame,
    retrieval_noise_band: pd.DataFrame,
    retrieval_noise: pd.DataFrame,
    gold_by_search_scope: pd.DataFrame,
    arm_statistics: pd.DataFrame,
    arm_comparisons: pd.DataFrame,
    abstention_quality: pd.DataFrame,
    abstention_comparisons: pd.DataFrame,
    determinism: pd.DataFrame,
    stage_latency: pd.DataFrame,
    arm_costs: pd.DataFrame,
    citation_mutations: pd.DataFrame,
    generations: pd.DataFrame,
    search_index: pd.DataFrame,
    abstention_scores: pd.DataFrame,
    arm_outcomes: pd.DataFrame,
    pattern_funnel: pd.DataFrame,
    admission_agreement: pd.DataFrame,
    golden_patterns: pd.DataFrame,
    pattern_baseline: pd.DataFrame,
    abstention_quality_by_kind: pd.DataFrame,
    golden_audit: pd.DataFrame,
    absence_review_queue: pd.DataFrame,
    reader_accuracy: pd.DataFrame,
    route_matrix: pd.DataFrame,
    release_checks: pd.DataFrame,
    case_receipts: pd.DataFrame,
    release_fixture_results: pd.DataFrame,
    retriever_rankings: pd.DataFrame,
    answering_noise_band: pd.DataFrame,
    rerank_noise_band: pd.DataFrame,
    decision_simulation: pd.DataFrame,
    design_power: pd.DataFrame,
    arm_false_answers_by_kind: pd.DataFrame,
) -> dg.MaterializeResult:
    keys, left_out = current_partitions(
        filings, (filing_text, xbrl_facts, fact_rejections, sections, chunks, chunk_embeddings)
    )
    for key, reason in left_out.items():  # a filing whose last corpus run failed: say the failure, not its absence
        failed = last_corpus_failure(context.instance, key) if reason.endswith("not materialised") else None
        left_out[key] = f"its last corpus run failed: {failed}" if failed else reason
    protocol, _ = read_protocol(settings)
    outcomes, scores = protocol.questions(arm_outcomes), protocol.questions(abstention_scores)
    rendered = build_report(
        ReportInputs(
            corpus_name=settings.corpus_name,
            filings=filings.frame(keys),
            left_out=left_out,
            fact_rejections=fact_rejections.frame(keys),
            golden=golden_questions,
            golden_set=golden_set,
            rejections=rejections,
            retrieval=retrieval_metrics,
            slices=retrieval_slices,
            evidence_filings=evidence_filing_hits,
            answers_by_kind=arm_answers_by_kind,
            wrong_answers=wrong_answers,
            scope_changes=retrieval_scope_changes,
            rerank=rerank_metrics,
            expansion=expansion_metrics,
            expansion_rows=settings.table_expansion_rows,
            noise_band=retrieval_noise_band,
            noise=retrieval_deltas(retrieval_noise, retriever_rankings),
            answer_noise_band=answering_noise_band,
            rerank_noise_band=rerank_noise_band,
            scope_gold=gold_by_search_scope,
            arms=arm_statistics,
            comparisons=arm_comparisons,
            gates=abstention_quality,
            gate_differences=abstention_comparisons,
            determinism=determinism,
            latency=stage_latency,
            costs=arm_costs,
            mutations=citation_mutations,
            generations=generations,
            risk_curves=risk_coverage_curves(scores, cast(pd.DataFrame, outcomes[outcomes.arm == "A"])),
            index_fingerprint=search_index.fingerprint.iloc[0],
            pattern_funnel=pattern_funnel,
            admission_agreement=admission_agreement,
            golden_patterns=golden_patterns,
            pattern_baseline=pattern_baseline,
            gates_by_kind=abstention_quality_by_kind,
            golden_audit=golden_audit,
            absence_review=absence_review_queue,
            readers=reader_accuracy,
            decision_simulation=decision_simulation,
            design_power=design_power,
            false_answers_by_kind=arm_false_answers_by_kind,
            amendments=protocol.amendments,
            routes=route_matrix,
            release=release_checks,
            receipts=case_receipts,
            fixture=release_fixture_results,
            settings={
                "chunk_size": settings.chunk_size,
                "chunk_overlap": settings.chunk_overlap,
                "top_k": settings.top_k,
                "answer_retriever": settings.answer_retriever,
                "retrieval_depths": settings.retrieval_depths,
                "search_scopes": settings.search_scopes,
                "reranker": settings.reranker,
                "rerank_cuts": settings.rerank_cuts,
                "table_expansion_rows": settings.table_expansion_rows,
                "noise_replicas": settings.noise_replicas,
                "noise_companies_left_out": settings.noise_companies_left_out,
                "noise_questions": settings.noise_questions,
                "corpus_scope_questions": settings.corpus_scope_questions,
                "rrf_k": settings.rrf_k,
                "golden_seed": settings.golden_seed,
                "code_version": code_version(),
            },
        )
    )
    # what `edgar-eval compare` pairs with another run: per question, no filing text, so it is committed too
    per_question = run_outcomes(
        golden_questions,
        gold_by_search_scope,
        retriever_rankings,
        arm_outcomes,
        retrieval_noise_band,
        answering_noise_band,
        {
            "confidence": protocol.confidence,
            "power": protocol.power,
            "interval_method": EXPLORATORY_METHOD,
        },
    )
    folder = settings.report_dir()
    changed = {
        name: replace_file(folder / name, data.encode())
        for name, data in (
            ("report.md", rendered.markdown),
            ("report.html", rendered.html),
            ("timings.md", rendered.timings),
            ("receipt.json", json.dumps(rendered.receipt, indent=2, sort_keys=True) + "\n"),
            (OUTCOMES_FILE, outcomes_json(per_question)),
        )
    }
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(folder / "report.md")),
            "html": dg.MetadataValue.path(str(folder / "report.html")),
            "receipt": dg.MetadataValue.path(str(folder / "receipt.json")),
            "changed": dg.MetadataValue.json(changed),
            "report": dg.MetadataValue.md(rendered.markdown),
            "timings": dg.MetadataValue.md(rendered.timings),
        },
        data_version=dg.DataVersion(hashlib.sha256(rendered.markdown.encode()).hexdigest()[:16]),
    )


ASSETS = [report]
