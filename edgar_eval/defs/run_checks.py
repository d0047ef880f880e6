"""What `edgar-eval run` checks and says before any work, beside the settings' own checks (defs/settings.py): the
demo corpus's folder, the proposals files line by line, the environment variables set that nothing the run uses
reads, and the command its last line prints.

Kept out of the modules the assets reach: nothing here moves an asset's code version."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Mapping

from edgar_eval.adapters.chat_generator import CHAT_API_KEY_ENV, RAG_API_KEY_ENV
from edgar_eval.adapters.edgar_client import CONTACT_EMAIL_ENV
from edgar_eval.adapters.openai_embeddings import API_KEY_ENV as EMBEDDINGS_API_KEY_ENV
from edgar_eval.adapters.rerank_http import API_KEY_ENV as RERANK_API_KEY_ENV
from edgar_eval.defs.executors import EXECUTOR_CONFIG_ENV, EXECUTOR_ENV, MAX_CONCURRENT_ENV, executor_name
from edgar_eval.defs.settings import (
    DEMO_CORPUS_ENV,
    EMBEDDER_ENV,
    GENERATOR_ENV,
    PROPOSALS_ENV,
    RUN_WORKER_ENV,
    EmbedderResource,
    EvalSettings,
    GeneratorResource,
)

# Read by the deployment's files (deploy/celery.yaml, deploy/k8s/*.yaml), by the executor that uses them.
CELERY_VARIABLES = ("EDGAR_EVAL_CELERY_BROKER", "EDGAR_EVAL_CELERY_BACKEND")
IMAGE_ENV = "EDGAR_EVAL_IMAGE"
# Read by the test suite (.ci/run), never by a run.
TEST_VARIABLES = ("EDGAR_EVAL_REAL_CORPUS",)
# Every variable of edgar-eval's (docs/settings.md lists them; a test holds the two lists and the source together):
# one outside it is a misspelling, or a setting of another version.
KNOWN_VARIABLES = frozenset(
    {
        "EDGAR_EVAL_HOME",
        "EDGAR_EVAL_CORPUS_DIR",
        "EDGAR_EVAL_CORPUS_NAME",
        "EDGAR_EVAL_DATA",
        "EDGAR_EVAL_REPORTS",
        DEMO_CORPUS_ENV,
        "EDGAR_EVAL_SETTINGS",
        "EDGAR_EVAL_PARALLEL_RUNS",
        PROPOSALS_ENV,
        "EDGAR_EVAL_ROLE",
        RUN_WORKER_ENV,  # not a setting: `edgar-eval run` sets it in its worker process (cli.supervised_run)
        EMBEDDER_ENV,
        "EDGAR_EVAL_EMBEDDINGS_BASE_URL",
        "EDGAR_EVAL_EMBEDDINGS_MODEL",
        EMBEDDINGS_API_KEY_ENV,
        GENERATOR_ENV,
        "EDGAR_EVAL_GENERATOR_URL",
        "EDGAR_EVAL_GENERATOR_MODEL",
        "EDGAR_EVAL_GENERATOR_TIMEOUT",
        "EDGAR_EVAL_GENERATOR_ATTEMPTS",
        CHAT_API_KEY_ENV,
        RAG_API_KEY_ENV,
        "EDGAR_EVAL_TAPE",
        "EDGAR_EVAL_PROPOSER_MODEL",
        "EDGAR_EVAL_PROPOSER_URL",
        RERANK_API_KEY_ENV,
        CONTACT_EMAIL_ENV,
        EXECUTOR_ENV,
        EXECUTOR_CONFIG_ENV,
        MAX_CONCURRENT_ENV,
        *CELERY_VARIABLES,
        IMAGE_ENV,
        *TEST_VARIABLES,
    }
)


def folder_problem(folder: Path) -> str | None:
    """Why a folder the run writes into cannot be there or be made (it is a file, or lies under one, or under a
    folder nothing can be written in), or None. An existing folder is not asked to be writable: the demo corpus
    writes only the files whose bytes differ."""
    if folder.exists():
        return None if folder.is_dir() else "is not a folder"
    above = folder.parent
    while not above.exists() and above != above.parent:
        above = above.parent
    if not above.is_dir():
        return f"cannot be made: {above} is not a folder"
    if not os.access(above, os.W_OK | os.X_OK):
        return f"cannot be made: nothing can be written in {above}"
    return None


def check_demo_folder(settings: EvalSettings) -> None:
    """Refuse, in one line naming EDGAR_EVAL_DEMO_CORPUS, a demo corpus folder that cannot be written (ValueError)."""
    if not settings.is_demo:
        return
    problem = folder_problem(Path(settings.corpus_dir))
    if problem:
        raise ValueError(f"demo corpus folder {settings.corpus_dir} ({DEMO_CORPUS_ENV}) {problem}")


def _line_of(text: str) -> int:
    """The line (from 1, as `str.splitlines` counts them) that the end of `text` is on."""
    return len((text + "x").splitlines())


def check_proposals(paths: list[str]) -> list[str]:
    """Every line of each proposals file read as `golden_proposals` reads it, before any work: a file that cannot be
    read, or a line that is not UTF-8, is refused in one line naming the file and the line (ValueError; the step would
    fail after the corpus and half the evaluation). A line that is not JSON is kept by the step as an unreadable
    proposal and counted in the funnel (docs/golden-questions.md): named in one note per file, returned."""
    notes = []
    for path in paths:
        named = f"proposals file {path} (--proposals, {PROPOSALS_ENV})"
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise ValueError(f"{named}: {exc.strerror or exc}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = _line_of(data[: exc.start].decode("utf-8"))
            raise ValueError(
                f"{named}: line {line} is not UTF-8 (byte 0x{data[exc.start]:02x} at byte {exc.start} of the file)"
            ) from None
        bad = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                json.loads(line)
            except json.JSONDecodeError as exc:
                bad.append((number, exc.msg))
        if bad:
            (number, why), more = bad[0], len(bad) - 1
            others = f" and {more} more line{'s' if more > 1 else ''}" if more else ""
            notes.append(
                f"{named}: line {number} is not JSON ({why}){others}; each is kept as an unreadable proposal and "
                "counted in the funnel"
            )
    return notes


def unread_environment(
    settings: EvalSettings,
    embedder: EmbedderResource,
    generator: GeneratorResource,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """One note for each environment variable set that nothing this run uses reads (the settings' own notes are
    `settings.unread_settings`): the keys of services the run does not call, the settings of an executor it does not
    use, the demo corpus's folder beside --corpus, fetch's contact email, and a name edgar-eval does not know."""
    env = os.environ if environ is None else environ
    given = {name for name, value in env.items() if name.startswith("EDGAR_EVAL_") and value.strip()}
    executor = executor_name()
    chat_user = (
        "the chat generator"
        if generator.kind == "openai-compatible-chat"
        else "the proposer"
        if settings.proposer_on
        else None
    )
    unread = {
        EMBEDDINGS_API_KEY_ENV: None
        if embedder.kind == "openai-compatible"
        else f"the embedder is {embedder.kind} ({EMBEDDER_ENV}), which does not read it",
        CHAT_API_KEY_ENV: None
        if chat_user
        else f"neither the generator ({generator.kind}, {GENERATOR_ENV}) nor the proposer (off) is a chat model",
        RAG_API_KEY_ENV: None
        if generator.kind == "external-rag"
        else f"the generator is {generator.kind} ({GENERATOR_ENV}), which does not read it",
        RERANK_API_KEY_ENV: None
        if settings.reranker == "endpoint"
        else f"the reranker is {settings.reranker} (settings reranker), which does not read it",
        **{
            name: None
            if executor == "celery"
            else f"the executor is {executor} ({EXECUTOR_ENV}); only the celery executor's settings file reads it"
            for name in CELERY_VARIABLES
        },
        IMAGE_ENV: None
        if executor == "k8s"
        else f"the executor is {executor} ({EXECUTOR_ENV}); only the k8s executor's settings read it",
        EXECUTOR_CONFIG_ENV: None
        if executor in ("celery", "k8s")
        else f"the executor is {executor} ({EXECUTOR_ENV}), which has no settings file",
        MAX_CONCURRENT_ENV: None
        if executor == "multiprocess"
        else f"the executor is {executor} ({EXECUTOR_ENV}); only multiprocess reads it",
        DEMO_CORPUS_ENV: None if settings.is_demo else "the corpus is --corpus's folder, not the demo corpus",
        CONTACT_EMAIL_ENV: "only `edgar-eval fetch` reads it",
    }
    notes = [f"{name} is set, but {why}" for name, why in unread.items() if why and name in given]
    notes += [
        f"{name} is set, but edgar-eval has no setting of that name (docs/settings.md lists them)"
        for name in sorted(given - KNOWN_VARIABLES)
    ]
    return notes


def dagster_command(executable: str | None = None, here: Path | None = None) -> str:
    """The `dagster` of the interpreter this runs under, as a command that works as printed: beside the interpreter
    (a virtual environment's bin/, not on PATH unless it is activated), relative to the working directory when it lies
    below it (`.venv/bin/dagster`), else absolute; plain `dagster` when there is none beside it."""
    folder = Path(executable or sys.executable).parent  # not resolved: a venv's python links to the system's
    here = Path.cwd() if here is None else here
    for name in ("dagster", "dagster.exe"):
        found = folder / name
        if found.is_file():
            try:
                shown = found.relative_to(here).as_posix()
            except ValueError:
                return shlex.quote(str(found))
            return shlex.quote(shown if "/" in shown else f"./{shown}")
    return "dagster"
