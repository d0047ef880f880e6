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

from edgar_eval.defs.executors import executor_from_env
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource

ENV_PREFIXES = ("EDGAR_EVAL_", "DAGSTER_HOME")

# What a step process imports when it opens the instance (SQLAlchemy and Alembic come with the storage: more than half
# of a step's start-up when left to each process); the Postgres storage where the deploy extra is installed.
STORAGE_MODULES = (
    "dagster._core.storage.runs.sqlite",
    "dagster._core.storage.event_log.sqlite",
    "dagster._core.storage.schedules.sqlite",
    "dagster_postgres",
)


@functools.cache
def _built(environment: tuple[tuple[str, str], ...]) -> dg.Definitions:
    return build_definitions(
        EvalSettings.from_env(), EmbedderResource.from_env(), GeneratorResource.from_env(), executor_from_env()
    )


@dg.definitions
def defs() -> dg.Definitions:
    return _built(tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(ENV_PREFIXES))))


def warm() -> None:
    """Build and resolve the Definitions in the fork server (the repository, its asset graph and every job: about a
    second each time a step process would otherwise do it), so every step process forked from it starts with them."""
    for module in STORAGE_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    repository = defs().get_repository_def()
    for job in repository.get_all_jobs():
        job.get_job_snapshot()
