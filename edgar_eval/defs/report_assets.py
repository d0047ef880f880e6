"""Report group: reports/<corpus>/report.md and report.html, receipt.json, and timings.md, built only from the assets
above."""

import functools
import hashlib
import json
from importlib.metadata import version
from pathlib import Path
from typing import cast

import dagster as dg
import pandas as pd

import edgar_eval
from edgar_eval.adapters.files import replace_file
from edgar_eval.defs.common import CORPUS_TABLES, filing_keys, read_partitions, usable_partitions
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.statistics_assets import read_protocol
from edgar_eval.evaluation.experiment import risk_coverage_curves
from edgar_eval.report.builder import ReportInputs, build_report

REPORT_INPUTS = [
    "arm_statistics",
    "arm_comparisons",
    "abstention_quality",
    "abstention_quality_by_kind",
    "abstention_comparisons",
    "determinism",
    "stage_latency",
    "arm_costs",
    "citation_mutations",
    "retrieval_metrics",
    "retrieval_slices",
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
    "reader_accuracy",
    "interval_coverage",
    *CORPUS_TABLES,
]


@functools.cache
def code_version() -> str:
    """The package version and a hash of its source: what a receipt needs to name the code, with or without git."""
    digest = hashlib.sha256()
    root = Path(edgar_eval.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return f"edgar-eval {version('edgar-eval')} source sha256 {digest.hexdigest()[:16]}"


@dg.asset(
    deps=REPORT_INPUTS,
    group_name="report",
    description="`reports/<corpus>/report.md` and `report.html` (with the arm bar chart and the risk-coverage plot), "
    "receipt.json and timings.md, built only from the assets above; each table names the asset and data "
    "version it came from.",
)
def report(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
    store = settings.store()
    keys, left_out = usable_partitions(store, filing_keys(settings), CORPUS_TABLES)
    protocol, _ = read_protocol(settings)
    outcomes, scores = (
        protocol.questions(store.read("arm_outcomes")),
        protocol.questions(store.read("abstention_scores")),
    )
    rendered = build_report(
        ReportInputs(
            corpus_name=settings.corpus_name,
            filings=read_partitions(store, "filings", keys),
            left_out=left_out,
            golden=store.read("golden_questions"),
            golden_set=store.read("golden_set"),
            rejections=store.read("golden_rejections", columns=["kind", "rule"]),
            retrieval=store.read("retrieval_metrics"),
            slices=store.read("retrieval_slices"),
            arms=store.read("arm_statistics"),
            comparisons=store.read("arm_comparisons"),
            gates=store.read("abstention_quality"),
            gate_differences=store.read("abstention_comparisons"),
            determinism=store.read("determinism"),
            latency=store.read("stage_latency"),
            costs=store.read("arm_costs"),
            mutations=store.read("citation_mutations"),
            generations=store.read("generations"),
            risk_curves=risk_coverage_curves(scores, cast(pd.DataFrame, outcomes[outcomes.arm == "A"])),
            index_fingerprint=store.read("search_index").fingerprint.iloc[0],
            pattern_funnel=store.read("pattern_funnel"),
            admission_agreement=store.read("admission_agreement"),
            golden_patterns=store.read("golden_patterns"),
            pattern_baseline=store.read("pattern_baseline"),
            gates_by_kind=store.read("abstention_quality_by_kind"),
            golden_audit=store.read("golden_audit"),
            readers=store.read("reader_accuracy"),
            coverage=store.read("interval_coverage"),
            settings={
                "chunk_size": settings.chunk_size,
                "chunk_overlap": settings.chunk_overlap,
                "top_k": settings.top_k,
                "answer_retriever": settings.answer_retriever,
                "retrieval_depths": settings.retrieval_depths,
                "rrf_k": settings.rrf_k,
                "golden_seed": settings.golden_seed,
                "code_version": code_version(),
            },
        )
    )
    folder = settings.report_dir()
    changed = {
        name: replace_file(folder / name, data.encode())
        for name, data in (
            ("report.md", rendered.markdown),
            ("report.html", rendered.html),
            ("timings.md", rendered.timings),
            ("receipt.json", json.dumps(rendered.receipt, indent=2, sort_keys=True) + "\n"),
        )
    }
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(folder / "report.md")),
            "html": dg.MetadataValue.path(str(folder / "report.html")),
            "changed": dg.MetadataValue.json(changed),
            "report": dg.MetadataValue.md(rendered.markdown),
            "timings": dg.MetadataValue.md(rendered.timings),
        },
        data_version=dg.DataVersion(hashlib.sha256(rendered.markdown.encode()).hexdigest()[:16]),
    )


ASSETS = [report]
