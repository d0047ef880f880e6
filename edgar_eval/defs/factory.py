"""Build the Definitions for one corpus folder."""

from __future__ import annotations

import dagster as dg

from edgar_eval.defs import (
    fixture_assets,
    golden_assets,
    index_assets,
    invariant_checks,
    pattern_assets,
    regression_checks,
    report_assets,
    route_assets,
    runs_assets,
    statistics_assets,
)
from edgar_eval.defs.code_versions import with_code_versions
from edgar_eval.defs.corpus_assets import build_corpus_assets
from edgar_eval.defs.io_manager import parquet_io_manager
from edgar_eval.defs.jobs import AUTOMATION, EVALUATION_AUTOMATION, build_jobs
from edgar_eval.defs.partitions import corpus_sensor, filing_documents
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource
from edgar_eval.defs.source_files import OBSERVABLE_SOURCE_FILES


def build_definitions(
    settings: EvalSettings,
    embedder: EmbedderResource | None = None,
    generator: GeneratorResource | None = None,
    executor: dg.ExecutorDefinition | None = None,
    corpus_executor: dg.ExecutorDefinition | None = None,
) -> dg.Definitions:
    """The graph over one corpus folder; loading it reads no folder (the filing partitions live in the instance).
    The embedder and the generator default to the local all-MiniLM-L6-v2 and the table reader; the executor to in
    process (the code location the UI and the CLI load takes it from the environment: defs/executors.py), and the corpus
    job's to the same unless `corpus_executor` is given."""
    evaluation = [
        asset.map_asset_specs(lambda spec: spec.replace_attributes(automation_condition=EVALUATION_AUTOMATION))
        for module in (
            index_assets,
            golden_assets,
            pattern_assets,
            runs_assets,
            route_assets,
            fixture_assets,
            statistics_assets,
            report_assets,
        )
        for asset in module.ASSETS
    ]
    return dg.Definitions(
        assets=[
            filing_documents,
            *OBSERVABLE_SOURCE_FILES,
            *with_code_versions(
                [*build_corpus_assets(), *evaluation], resources=(EvalSettings, EmbedderResource, GeneratorResource)
            ),
        ],
        asset_checks=[*regression_checks.CHECKS, *invariant_checks.CHECKS],
        jobs=build_jobs(corpus_executor),
        sensors=[corpus_sensor, AUTOMATION],
        resources={
            "settings": settings,
            "embedder": embedder or EmbedderResource(),
            "generator": generator or GeneratorResource(),
            "io_manager": parquet_io_manager,
        },
        executor=executor or dg.in_process_executor,
    )
