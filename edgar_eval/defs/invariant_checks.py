"""Invariants as asset checks, shown beside their assets in the UI. Blocking where a wrong number would follow: a
golden set with a contradiction, or an index built other than the settings say, stops what reads them."""

import re

import dagster as dg
import numpy as np
import pandas as pd

from edgar_eval.corpus.frames import iter_rows
from edgar_eval.corpus.partitioned import PartitionedTable, current_partitions
from edgar_eval.defs.settings import EmbedderResource, EvalSettings
from edgar_eval.golden.invariants import contradictions
from edgar_eval.golden.might_answer import cover_page_end
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint

_SOURCE = re.compile(r"^Source: asset `([a-z_]+)`", re.M)


@dg.asset_check(
    asset="golden_questions",
    additional_ins={"filing_text": dg.AssetIn("filing_text"), "filings": dg.AssetIn("filings")},
    blocking=True,
    description="The golden set is non-empty and free of contradictions: one wording in one scope has one expected "
    "route; an absent concept's label is printed beside no figure of its period in its scope, nor said to be none; an "
    "other-year question's year is printed beside none of its concept's words in the company's filings, nor in a "
    "schedule under them.",
)
def golden_set_consistent(
    context: dg.AssetCheckExecutionContext,
    golden_questions: pd.DataFrame,
    filing_text: PartitionedTable,
    filings: PartitionedTable,
) -> dg.AssetCheckResult:
    golden = golden_questions
    keys, _ = current_partitions(filings, (filing_text,))
    texts, recorded = filing_text.frame(keys), filings.frame(keys)
    found = contradictions(
        golden,
        dict(zip(texts.filing_id, texts.text)),
        recorded.groupby("cik").filing_id.agg(list).to_dict(),
        body_starts={r.filing_id: cover_page_end(len(r.text), r.page_ends) for r in iter_rows(texts)},
    )
    if golden.empty:
        found = ["the golden set is empty"]
    return dg.AssetCheckResult(
        passed=not found,
        description="; ".join(found) or f"{len(golden)} questions, no contradiction",
        metadata={"questions": len(golden), "contradictions": len(found)},
    )


@dg.asset_check(
    asset="search_index",
    blocking=True,
    description="The index was built as the settings say (embedder, normalisation, chunk size and overlap, table "
    "headers), and every chunk has a finite unit-length vector of the index's dimension.",
)
def search_index_fingerprint(
    context: dg.AssetCheckExecutionContext,
    settings: EvalSettings,
    embedder: EmbedderResource,
    search_index: pd.DataFrame,
) -> dg.AssetCheckResult:
    rows = search_index
    problems = []
    try:
        check_fingerprint(
            settings.fingerprint(embedder.adapter().embedder_id),
            IndexFingerprint.from_json(rows.fingerprint.iloc[0]),
            "search_index",
        )
    except IndexMismatch as exc:
        problems.append(str(exc))
    vectors = np.stack(rows.embedding.to_numpy()) if len(rows) else np.zeros((0, 0))
    norms = np.linalg.norm(vectors, axis=1) if len(rows) else np.array([])
    if not np.isfinite(vectors).all() or not np.allclose(norms, 1.0, atol=1e-3):
        problems.append("some vectors are not finite and of unit length")
    return dg.AssetCheckResult(
        passed=not problems,
        description="; ".join(problems) or f"{len(rows)} chunks, {vectors.shape[1]} dimensions",
        metadata={"chunks": len(rows)},
    )


@dg.asset_check(
    asset="report",
    blocking=False,
    description="Every table of `reports/<corpus>/report.md` names a source asset, and every source it names is "
    "materialised.",
)
def report_sources_present(context: dg.AssetCheckExecutionContext, settings: EvalSettings) -> dg.AssetCheckResult:
    markdown = (settings.report_dir() / "report.md").read_text()
    sources = sorted(set(_SOURCE.findall(markdown)))
    tables = len(re.findall(r"^## ", markdown, re.M))
    store = settings.store()
    missing = [
        name
        for name in sources
        if name != "report"  # the receipt table is the report's own
        and not (store.path(name).is_file() or (store.root / name).is_dir())
    ]
    unsourced = tables - len(_SOURCE.findall(markdown))
    problems = [f"missing: {', '.join(missing)}"] if missing else []
    problems += [f"{unsourced} tables name no source"] if unsourced > 0 else []
    return dg.AssetCheckResult(
        passed=not problems,
        description="; ".join(problems) or f"{len(sources)} source assets, all present",
        metadata={"sources": len(sources), "tables": tables},
    )


CHECKS = [golden_set_consistent, search_index_fingerprint, report_sources_present]
