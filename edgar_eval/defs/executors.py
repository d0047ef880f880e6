"""Where a run's steps execute, chosen by the deployment (`EDGAR_EVAL_EXECUTOR`), from the same Definitions:

- multiprocess (the default): each step in its own process on this machine, forked from a server that has already
  imported and resolved the code location, so a step starts in a fraction of a second instead of re-importing
  Dagster and torch;
- in_process: every step in the run's own process (tests that build Definitions of their own run this way);
- celery: each step a Celery task on workers that share the run storage (Postgres) and the data (an object store);
- k8s: each step a Kubernetes Job (dagster-k8s), launched from a run pod.

Celery and Kubernetes read their executor settings from a YAML file (`EDGAR_EVAL_EXECUTOR_CONFIG`, by default
deploy/celery.yaml or deploy/k8s/executor.yaml) in the shape `execution: config: {...}`: the file a Celery worker is
started with (`dagster-celery worker start -y`), so the run and its workers read one broker setting.

Concurrency pools bound what many runs may do at once, whatever the executor: `model_endpoint` (the embedder, chat and
proposer models), limited in the instance's dagster.yaml (deploy/dagster.yaml).
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from pathlib import Path

import dagster as dg
import yaml
from dagster._config import validate_config  # private: checks an executor's config before any run

from edgar_eval.defs.settings import project_home, whole_number

EXECUTOR_ENV = "EDGAR_EVAL_EXECUTOR"
EXECUTOR_CONFIG_ENV = "EDGAR_EVAL_EXECUTOR_CONFIG"  # the YAML file of the celery or k8s executor's settings
MAX_CONCURRENT_ENV = "EDGAR_EVAL_MAX_CONCURRENT"  # steps at once per run on this machine; 0: one per core
EXECUTORS = ("multiprocess", "in_process", "celery", "k8s")
DEFAULT_EXECUTOR = "multiprocess"
DEFAULT_CONFIG = {"celery": Path("deploy") / "celery.yaml", "k8s": Path("deploy") / "k8s" / "executor.yaml"}

# The pool of every asset that calls a model (the embedder, a chat model, a proposer): its limit in dagster.yaml is how
# many such steps the deployment's runs hold at once.
MODEL_ENDPOINT_POOL = "model_endpoint"

# Imported once by the fork server; each step process is forked from it with the code location already built.
PRELOADED = ["edgar_eval.warm_code_location"]


def silence_dagster_notices() -> None:
    """Dagster's notices are not for users. A beta notice is attributed to the module that calls the beta API (ours),
    so the module filter misses it: beta and preview notices are filtered by category too. The CLI calls this, and so
    does the fork server its step processes start from (a fresh interpreter, with no filter of the CLI's)."""
    warnings.filterwarnings("ignore", category=Warning, module="dagster")
    for notice in (dg.BetaWarning, dg.PreviewWarning):
        warnings.filterwarnings("ignore", category=notice)


def executor_name() -> str:
    name = os.environ.get(EXECUTOR_ENV) or DEFAULT_EXECUTOR
    if name not in EXECUTORS:
        raise ValueError(f"unknown {EXECUTOR_ENV} {name!r}; choose one of {', '.join(EXECUTORS)}")
    return name


def max_concurrent() -> int:
    value = whole_number(MAX_CONCURRENT_ENV, os.environ.get(MAX_CONCURRENT_ENV, "0"), "steps")
    if value < 0:
        raise ValueError(f"{MAX_CONCURRENT_ENV} must be 0 (one step per core) or more, got {value}")
    return value


def corpus_executor_from_env() -> dg.ExecutorDefinition | None:
    """The corpus job's executor, where it is not the Definitions' own (None). Under multiprocess a filing's corpus
    run is a chain of six steps over one document: in one process the document is parsed once for the three steps that
    read it and the embedder loaded once for every filing, where a process per step parses it three times (the real
    corpus: about 3x its parse time). Filings, not steps, are what runs side by side there; Celery and Kubernetes
    workers keep their processes from task to task, so the corpus job runs on them like every other."""
    return dg.in_process_executor if executor_name() == "multiprocess" else None


def corpus_steps_in_run_process() -> bool:
    """Whether a filing's run executes its corpus steps in its own process: in process under multiprocess
    (`corpus_executor_from_env`) and in_process; on a Celery worker or a Kubernetes pod, not."""
    return corpus_executor_from_env() is not None or executor_name() == "in_process"


def executor_config(name: str) -> dict:
    """The `execution: config:` block of the executor's settings file, refused in one line when it is missing or not
    that shape."""
    path = Path(os.environ.get(EXECUTOR_CONFIG_ENV) or project_home() / DEFAULT_CONFIG[name])
    if not path.is_file():
        raise ValueError(f"the {name} executor's settings file {path} does not exist (set {EXECUTOR_CONFIG_ENV})")
    try:
        document = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{path} ({EXECUTOR_CONFIG_ENV}) is not YAML: {exc}") from None
    config = document.get("execution", {}).get("config") if isinstance(document, dict) else None
    if not isinstance(config, dict):
        raise ValueError(
            f"{path} ({EXECUTOR_CONFIG_ENV}) has no `execution: config:` mapping of the {name} executor's settings"
        )
    return config


def executor_from_env() -> dg.ExecutorDefinition:
    """The executor the environment names, configured; refused in one line when the name, a setting or the settings
    file is wrong (Dagster checks the file against the executor's own config schema)."""
    name = executor_name()
    if name == "in_process":
        return dg.in_process_executor
    if name == "multiprocess":
        return dg.multiprocess_executor.configured(
            {
                "max_concurrent": max_concurrent(),
                "start_method": {"forkserver": {"preload_modules": PRELOADED}},
            },
            name="multiprocess",
        )
    config = executor_config(name)
    where = os.environ.get(EXECUTOR_CONFIG_ENV) or DEFAULT_CONFIG[name]
    try:
        if name == "celery":
            from dagster_celery import celery_executor as executor
        else:
            from dagster_k8s import k8s_job_executor as executor
    except ImportError:
        raise ValueError(f"{EXECUTOR_ENV}={name} needs the deploy extra: pip install -e '.[deploy]'") from None
    checked = validate_config(executor.config_schema.config_type, config)  # `configured` checks nothing until a run
    if not checked.success:
        problems = "; ".join(error.message for error in checked.errors or ())
        raise ValueError(
            f"the {name} executor's settings ({where}, {EXECUTOR_CONFIG_ENV}) do not fit its config schema: {problems}"
        )
    return executor.configured(config, name=name)


INTERRUPTS = ("DagsterExecutionInterruptedError", "KeyboardInterrupt")  # an interrupt, by its class name


class _NoInterruptedClose(logging.Filter):
    """Drops SQLAlchemy's 'Exception closing connection' record when the exception is the interrupt itself: SQLAlchemy
    logs it with its traceback and raises it again, and the CLI handles the interrupt (exit 130). Any other error
    closing a connection is logged as before."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return type(error).__name__ not in INTERRUPTS


def quiet_interrupted_pool_closes() -> None:
    """Filter each of SQLAlchemy's pool loggers (one per pool class: a filter on a parent logger does not see their
    records), so a Ctrl-C that lands while the run history closes a connection (while a run is being created) prints
    no traceback. Set in the CLI's process and, through `definitions.warm`, in the fork server and so in every step
    process it forks: a step the run's termination interrupts while it closes a connection prints none either (seen
    in CI). Written by a helper session for issue 59 and taken from its branch."""
    from sqlalchemy import pool

    for name in dir(pool):
        cls = getattr(pool, name)
        if isinstance(cls, type) and issubclass(cls, pool.Pool):
            logger = logging.getLogger(f"{cls.__module__}.{cls.__name__}")
            if not any(isinstance(existing, _NoInterruptedClose) for existing in logger.filters):
                logger.addFilter(_NoInterruptedClose())


def quiet_interrupted_finalisers() -> None:
    """Python prints "Exception ignored in ..." with a traceback when an exception is raised in a finaliser or a weakref
    callback, where it cannot propagate. Dagster's SIGINT handler raises its interrupt wherever the main thread is, so
    a Ctrl-C that lands while a garbage collection runs SQLAlchemy's callbacks printed such a traceback (seen in CI),
    though the CLI handles the interrupt as ever (exit 130, runs recorded canceled). An interrupt is not printed
    there; anything else is, by the hook that was set before."""
    before = sys.unraisablehook
    if getattr(before, "quiet_interrupts", False):
        return

    def hook(unraisable: "sys.UnraisableHookArgs") -> None:
        if type(unraisable.exc_value).__name__ not in INTERRUPTS:
            before(unraisable)

    hook.quiet_interrupts = True  # type: ignore[attr-defined]
    sys.unraisablehook = hook
