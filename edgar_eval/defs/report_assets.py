"""Report group: reports/<corpus>/report.md, built only from the assets above it."""

import hashlib

import dagster as dg

from edgar_eval.adapters.files import replace_file
from edgar_eval.defs.common import CORPUS_TABLES, filing_keys, read_partitions, usable_partitions
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.report.builder import build_report


@dg.asset(deps=["arm_statistics", "retrieval_metrics", "retrieval_slices", "golden_questions", "golden_rejections", "golden_set", "search_index"], group_name="report", code_version="1",
          description="reports/<corpus>/report.md, built only from the assets above; each table names the asset and data version it came from.")
def report(context: dg.AssetExecutionContext, settings: EvalSettings) -> dg.MaterializeResult:
    store = settings.store()
    keys, left_out = usable_partitions(store, filing_keys(settings), CORPUS_TABLES)
    text = build_report(
        corpus_name=settings.corpus_name,
        filings=read_partitions(store, "filings", keys),
        left_out=left_out,
        golden=store.read("golden_questions"),
        golden_set=store.read("golden_set"),
        rejections=store.read("golden_rejections", columns=["kind", "rule"]),
        retrieval=store.read("retrieval_metrics"),
        slices=store.read("retrieval_slices"),
        arms=store.read("arm_statistics"),
        index_fingerprint=store.read("search_index").fingerprint.iloc[0],
        settings={"chunk_size": settings.chunk_size, "chunk_overlap": settings.chunk_overlap, "top_k": settings.top_k,
                  "retrieval_depths": settings.retrieval_depths, "rrf_k": settings.rrf_k,
                  "golden_seed": settings.golden_seed},
    )
    target = settings.report_dir() / "report.md"
    changed = replace_file(target, text.encode())
    return dg.MaterializeResult(
        metadata={"path": dg.MetadataValue.path(str(target)), "changed": changed,
                  "report": dg.MetadataValue.md(text)},
        data_version=dg.DataVersion(hashlib.sha256(text.encode()).hexdigest()[:16]))


ASSETS = [report]
