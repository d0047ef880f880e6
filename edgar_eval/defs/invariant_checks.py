"""Invariants as asset checks, shown beside their assets in the UI. Blocking where a wrong number would follow: a
golden set with a contradiction, or an index built other than the settings say, stops what reads them."""

import re

import dagster as dg
import numpy as np

from edgar_eval.defs.common import filing_keys, read_partitions, usable_partitions
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.golden.invariants import contradictions
from edgar_eval.retrieval.fingerprint import IndexFingerprint, IndexMismatch, check_fingerprint

_SOURCE = re.compile(r"^Source: asset `([a-z_]+)`", re.M)


@dg.asset_check(
    asset="golden_questions",
    blocking=True,
    description="The golden set is non-empty and free of contradictions: one wording in one scope has one expected "
    "route; an absent concept's words are printed beside no figure of its scope; an other-year "
    "question's year is printed beside none of its concept's words in the company's filings.",
)
def golden_set_consistent(context: dg.AssetCheckExecutionContext, settings: EvalSettings) -> dg.AssetCheckResult:
    store = settings.store()
    golden = store.read("golden_questions")
    keys, _ = usable_partitions(store, filing_keys(settings), ("filing_text",))
    texts, filings = read_partitions(store, "filing_text", keys), read_partitions(store, "filings", keys)
    found = contradictions(
        golden, dict(zip(texts.filing_id, texts.text)), filings.groupby("cik").filing_id.agg(list).to_dict()
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
def search_index_fingerprint(context: dg.AssetCheckExecutionContext, settings: EvalSettings) -> dg.AssetCheckResult:
    rows = settings.store().read("search_index", columns=["fingerprint", "embedding"])
    problems = []
    try:
        check_fingerprint(
            settings.fingerprint(settings.embedder_adapter().embedder_id),
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
