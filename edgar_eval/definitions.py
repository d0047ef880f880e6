"""The Definitions the CLI, the UI and CI load. Importing this module reads nothing: Dagster's loaders call `defs`,
which reads the corpus folder, the paths, the embedder, the generator and the executor (defs/executors.py) from the
environment when the code location loads.

A step process of the multiprocess executor, or a Celery worker, loads the code location again for every step it
runs; the Definitions are built once per process and environment (the code versions alone take a second to hash)."""

import contextlib
import functools
import importlib
import os

import dagster as dg

from edgar_eval.adapters.embedders import MiniLMEmbedder
from edgar_eval.defs.executors import (
    corpus_executor_from_env,
    executor_from_env,
    quiet_interrupted_finalisers,
    quiet_interrupted_pool_closes,
)
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource

ENV_PREFIXES = ("EDGAR_EVAL_", "DAGSTER_HOME")

# What the statistics and the gate scores import where they use it, not when the graph loads (together about two
# seconds, which a warm `edgar-eval run` or the UI need not pay): a step process forked from the warm server has them.
STEP_MODULES = ("scipy.stats", "statsmodels.stats.proportion", "sklearn.linear_model")


@functools.cache
def _built(environment: tuple[tuple[str, str], ...]) -> dg.Definitions:
    settings = EvalSettings.from_env()
    settings.check_role()  # a misspelt role fails the code location's load in the UI too, before it asks anything
    return build_definitions(
        settings,
        EmbedderResource.from_env(),
        GeneratorResource.from_env(),
        executor_from_env(),
        corpus_executor_from_env(),
    )


@dg.definitions
def defs() -> dg.Definitions:
    return _built(tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIXES))))


def job_named(name: str) -> dg.JobDefinition:
    """The code location's job of that name: what a run the CLI launched reloads in a step process or on a Celery
    worker (runner.CodeLocationLauncher, through Dagster's public `build_reconstructable_job`)."""
    return defs().get_job_def(name)


def warm() -> None:
    """Load in the fork server (or a Celery worker, before it forks its task processes) what every step process
    would otherwise load for itself: the instance's storage modules, the libraries the steps import where they use
    them, the local embedder's weights, and the Definitions built and resolved (the repository, its asset graph and
    every job)."""
    # a step the run's termination interrupts while it closes a connection or collects garbage prints no traceback
    quiet_interrupted_pool_closes()
    quiet_interrupted_finalisers()
    # Opening the instance imports the storage it is configured with (SQLAlchemy and Alembic come with it: more than
    # half of a step's start-up when left to each process), SQLite or Postgres alike; it is closed before any fork.
    # Best effort: an instance that cannot be opened here (no DAGSTER_HOME, a database down) is reported by the step
    # that opens it, in its own words.
    with contextlib.suppress(Exception), dg.DagsterInstance.get():
        pass
    for module in STEP_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    embedder = EmbedderResource.from_env()
    embedder.check()
    local = embedder.adapter()
    if isinstance(local, MiniLMEmbedder):  # its weights: 8 s a process otherwise; a model service needs no warming
        local.preload()
    repository = defs().get_repository_def()
    for job in repository.get_all_jobs():
        job.get_job_snapshot()
