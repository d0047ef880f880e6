"""Build the Definitions for one corpus folder."""

from __future__ import annotations

import dagster as dg

from edgar_eval.adapters.local_corpus import list_filings, write_demo_corpus
from edgar_eval.defs import (
    gate_checks,
    golden_assets,
    index_assets,
    invariant_checks,
    pattern_assets,
    report_assets,
    runs_assets,
    statistics_assets,
)
from edgar_eval.defs.code_versions import with_code_versions
from edgar_eval.defs.corpus_assets import build_corpus_assets
from edgar_eval.defs.jobs import build_jobs
from edgar_eval.defs.settings import EvalSettings


def filing_partitions(settings: EvalSettings) -> dg.StaticPartitionsDefinition:
    if settings.is_demo:
        write_demo_corpus(settings.corpus_dir)  # generated, deterministic: same seed, same bytes
    keys = sorted(list_filings(settings.corpus_dir))
    if not keys:
        raise ValueError(f"corpus folder {settings.corpus_dir} holds no .htm filing")
    return dg.StaticPartitionsDefinition(keys)


def build_definitions(settings: EvalSettings) -> dg.Definitions:
    partitions = filing_partitions(settings)
    evaluation = [
        asset
        for module in (index_assets, golden_assets, pattern_assets, runs_assets, statistics_assets, report_assets)
        for asset in module.ASSETS
    ]
    jobs, schedules = build_jobs(partitions)
    return dg.Definitions(
        assets=with_code_versions([*build_corpus_assets(partitions), *evaluation], resources=(EvalSettings,)),
        asset_checks=[*gate_checks.CHECKS, *invariant_checks.CHECKS],
        jobs=jobs,
        schedules=schedules,
        resources={"settings": settings},
        executor=dg.in_process_executor,
    )
