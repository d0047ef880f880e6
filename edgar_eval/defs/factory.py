"""Build the Definitions for one corpus folder."""

from __future__ import annotations

import importlib
import pkgutil

import dagster as dg

from edgar_eval.defs.code_versions import with_code_versions
from edgar_eval.defs.corpus.assets import build_corpus_assets
from edgar_eval.defs.corpus.partitions import corpus_sensor, filing_documents
from edgar_eval.defs.io_manager import parquet_io_manager
from edgar_eval.defs.jobs import AUTOMATION, EVALUATION_AUTOMATION, build_jobs
from edgar_eval.defs.orphaned_runs import orphaned_runs
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource
from edgar_eval.defs.source_files import OBSERVABLE_SOURCE_FILES
from edgar_eval.defs.statistics.pins import PinnedCode, system_tags

# The evaluation's domains, each a package under defs/ whose modules list their assets (ASSETS) and checks (CHECKS);
# the corpus's per-filing assets are built by defs/corpus (their partitions and reuse of unchanged tables).
EVALUATION_DOMAINS = ("retrieval", "golden", "answering", "routes", "statistics", "report")


def domain_definitions(kind: str, domains: tuple[str, ...]) -> list:
    """Every module of each domain's folder, in name order, contributes its list `kind` (ASSETS or CHECKS): a new
    module is loaded by being there."""
    found = []
    for domain in domains:
        package = importlib.import_module(f"edgar_eval.defs.{domain}")
        for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            found += getattr(importlib.import_module(f"{package.__name__}.{module.name}"), kind, [])
    return found


def build_definitions(
    settings: EvalSettings,
    embedder: EmbedderResource | None = None,
    generator: GeneratorResource | None = None,
    executor: dg.ExecutorDefinition | None = None,
    corpus_executor: dg.ExecutorDefinition | None = None,
) -> dg.Definitions:
    """The graph over one corpus folder; loading it reads no corpus or data folder (the filing partitions live in
    the instance, and the code versions are kept in its folder). The embedder and the generator default to the local
    all-MiniLM-L6-v2 and the table reader; the executor to in process (the code location the UI and the CLI load
    takes it from the environment: defs/executors.py), and the corpus job's to the same unless `corpus_executor` is
    given."""
    # Every evaluation step runs once in a run over the shards' partition range (defs/shards.py): `dagster asset
    # materialize --partition-range` runs a range only when every asset it selects says so.
    evaluation = [
        asset.map_asset_specs(
            lambda spec: spec.replace_attributes(automation_condition=EVALUATION_AUTOMATION)
        ).with_attributes(backfill_policy=dg.BackfillPolicy.single_run())
        for asset in domain_definitions("ASSETS", EVALUATION_DOMAINS)
    ]
    generator = generator or GeneratorResource()
    versioned = with_code_versions(
        [*build_corpus_assets(), *evaluation], resources=(EvalSettings, EmbedderResource, GeneratorResource)
    )
    return dg.Definitions(
        assets=[filing_documents, *OBSERVABLE_SOURCE_FILES, *versioned],
        asset_checks=domain_definitions("CHECKS", (*EVALUATION_DOMAINS, "corpus")),
        jobs=build_jobs(corpus_executor, system_tags(settings, generator)),
        sensors=[corpus_sensor, AUTOMATION, orphaned_runs],
        resources={
            "settings": settings,
            "embedder": embedder or EmbedderResource(),
            "generator": generator,
            "io_manager": parquet_io_manager,
            "pinned_code": PinnedCode.of(versioned),
        },
        executor=executor or dg.in_process_executor,
    )
