"""What `edgar-eval run` checks and says before any work (defs/run_checks.py), on constructed inputs: a demo corpus
folder that cannot be made, a proposals file with a line that is not UTF-8 (refused in one line naming the file and
line) or not JSON (named in a note: the step keeps it as an unreadable proposal), each environment variable set that
nothing the run uses reads, and the `dagster` command its last line prints, as it works when printed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.defs.run_checks import (
    KNOWN_VARIABLES,
    check_demo_folder,
    check_proposals,
    dagster_command,
    folder_problem,
    unread_environment,
)
from edgar_eval.defs.settings import EmbedderResource, EvalSettings, GeneratorResource

PROJECT = Path(__file__).resolve().parents[1]


def _settings(tmp_path: Path, **fields) -> EvalSettings:
    values = {
        "corpus_dir": str(tmp_path / "corpus"),
        "corpus_name": "demo",
        "data_dir": str(tmp_path / "data"),
        "reports_dir": str(tmp_path / "reports"),
        **fields,
    }
    return EvalSettings(**values)


def test_a_demo_folder_that_cannot_be_made_is_refused_in_one_line(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert folder_problem(Path("/dev/null/x")) == "cannot be made: /dev/null is not a folder"
    assert folder_problem(a_file) == "is not a folder"
    assert folder_problem(a_file / "deeper" / "still") == f"cannot be made: {a_file} is not a folder"
    assert folder_problem(tmp_path / "new" / "folder") is None and folder_problem(tmp_path) is None
    with pytest.raises(ValueError) as refused:
        check_demo_folder(_settings(tmp_path, corpus_dir="/dev/null/x"))
    assert str(refused.value) == (
        "demo corpus folder /dev/null/x (EDGAR_EVAL_DEMO_CORPUS) cannot be made: /dev/null is not a folder"
    )
    check_demo_folder(_settings(tmp_path, corpus_dir="/dev/null/x", corpus_name="mine"))  # not the demo's: --corpus's


def test_a_proposals_line_that_is_not_utf8_is_refused_naming_the_file_and_line(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "a"}\n\n{"id": "b"}\n')
    assert check_proposals([str(good)]) == []
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"id": "a"}\n{"id": "b"}\n{"id": "caf\xe9"}\n')
    with pytest.raises(ValueError) as refused:
        check_proposals([str(good), str(bad)])
    assert str(refused.value) == (
        f"proposals file {bad} (--proposals, EDGAR_EVAL_PROPOSALS): line 3 is not UTF-8 (byte 0xe9 at byte 35 of the "
        "file)"
    )
    with pytest.raises(ValueError, match=r"proposals file .*: Is a directory"):
        check_proposals([str(tmp_path)])


def test_a_proposals_line_that_is_not_json_is_named_in_one_note(tmp_path):
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text('{"id": "a"}\nthis line is not JSON\n["an array"]\n{"id": \n')
    assert check_proposals([str(mixed)]) == [
        f"proposals file {mixed} (--proposals, EDGAR_EVAL_PROPOSALS): line 2 is not JSON (Expecting value) and 1 more "
        "line; each is kept as an unreadable proposal and counted in the funnel"
    ]


@pytest.fixture
def quiet(monkeypatch):
    for name in list(os.environ):
        if name.startswith("EDGAR_EVAL_"):
            monkeypatch.delenv(name)
    return monkeypatch


# (what the environment sets beside the variable, the variable, the note's reason)
UNREAD = [
    ({}, "EDGAR_EVAL_EMBEDDINGS_API_KEY", "the embedder is minilm (EDGAR_EVAL_EMBEDDER), which does not read it"),
    (
        {},
        "EDGAR_EVAL_CHAT_API_KEY",
        "neither the generator (table-reader, EDGAR_EVAL_GENERATOR) nor the proposer (off) is a chat model",
    ),
    ({}, "EDGAR_EVAL_RAG_API_KEY", "the generator is table-reader (EDGAR_EVAL_GENERATOR), which does not read it"),
    ({}, "EDGAR_EVAL_RERANK_API_KEY", "the reranker is lexical (settings reranker), which does not read it"),
    (
        {},
        "EDGAR_EVAL_CELERY_BROKER",
        "the executor is multiprocess (EDGAR_EVAL_EXECUTOR); only the celery executor's settings file reads it",
    ),
    (
        {},
        "EDGAR_EVAL_CELERY_BACKEND",
        "the executor is multiprocess (EDGAR_EVAL_EXECUTOR); only the celery executor's settings file reads it",
    ),
    (
        {},
        "EDGAR_EVAL_EXECUTOR_CONFIG",
        "the executor is multiprocess (EDGAR_EVAL_EXECUTOR), which has no settings file",
    ),
    (
        {"EDGAR_EVAL_EXECUTOR": "in_process"},
        "EDGAR_EVAL_MAX_CONCURRENT",
        "the executor is in_process (EDGAR_EVAL_EXECUTOR); only multiprocess reads it",
    ),
    ({}, "EDGAR_EVAL_IMAGE", "the executor is multiprocess (EDGAR_EVAL_EXECUTOR); only the k8s executor's settings"),
    ({}, "EDGAR_EVAL_CONTACT_EMAIL", "only `edgar-eval fetch` reads it"),
    ({}, "EDGAR_EVAL_GENERATR", "edgar-eval has no setting of that name (docs/settings.md lists them)"),
]


@pytest.mark.parametrize("beside,variable,why", UNREAD, ids=[variable for _, variable, _ in UNREAD])
def test_a_variable_nothing_the_run_uses_reads_gets_a_note(quiet, tmp_path, beside, variable, why):
    for name, value in beside.items():
        quiet.setenv(name, value)
    resources = (_settings(tmp_path), EmbedderResource(), GeneratorResource())
    assert unread_environment(*resources) == []
    quiet.setenv(variable, "x")
    (note,) = unread_environment(*resources)
    assert note.startswith(f"{variable} is set, but {why}")


# (what the environment and the resources use, the variable they read)
READ = [
    ({"EDGAR_EVAL_EXECUTOR": "celery"}, {}, "EDGAR_EVAL_CELERY_BROKER"),
    ({}, {"generator": GeneratorResource(kind="external-rag", url="http://127.0.0.1:9")}, "EDGAR_EVAL_RAG_API_KEY"),
    ({}, {"generator": GeneratorResource(kind="openai-compatible-chat", model="m")}, "EDGAR_EVAL_CHAT_API_KEY"),
    ({}, {"settings": {"proposer_model": "m", "proposer_url": "http://127.0.0.1:9"}}, "EDGAR_EVAL_CHAT_API_KEY"),
    ({}, {"embedder": EmbedderResource(kind="openai-compatible")}, "EDGAR_EVAL_EMBEDDINGS_API_KEY"),
    ({}, {"settings": {"reranker": "endpoint"}}, "EDGAR_EVAL_RERANK_API_KEY"),
    ({}, {}, "EDGAR_EVAL_MAX_CONCURRENT"),
    ({}, {}, "EDGAR_EVAL_DEMO_CORPUS"),
    ({}, {}, "EDGAR_EVAL_REAL_CORPUS"),  # the test suite's
]


@pytest.mark.parametrize("environment,uses,variable", READ, ids=[variable for _, _, variable in READ])
def test_a_variable_the_run_reads_gets_no_note(quiet, tmp_path, environment, uses, variable):
    for name, value in {**environment, variable: "x"}.items():
        quiet.setenv(name, value)
    settings = _settings(tmp_path, **uses.get("settings", {}))
    embedder, generator = uses.get("embedder", EmbedderResource()), uses.get("generator", GeneratorResource())
    assert unread_environment(settings, embedder, generator) == []


def test_the_demo_corpus_folder_beside_a_corpus_of_ones_own_gets_a_note(quiet, tmp_path):
    quiet.setenv("EDGAR_EVAL_DEMO_CORPUS", str(tmp_path / "demo"))
    assert unread_environment(_settings(tmp_path, corpus_name="mine"), EmbedderResource(), GeneratorResource()) == [
        "EDGAR_EVAL_DEMO_CORPUS is set, but the corpus is --corpus's folder, not the demo corpus"
    ]


def test_every_variable_the_docs_and_the_code_name_is_known():
    named = set(re.findall(r"EDGAR_EVAL_[A-Z_]*[A-Z]", (PROJECT / "docs" / "settings.md").read_text()))
    for folder in ("edgar_eval", "deploy"):
        for path in (PROJECT / folder).rglob("*"):
            if path.suffix in (".py", ".yaml"):
                named |= set(re.findall(r"EDGAR_EVAL_[A-Z_]*[A-Z]", path.read_text()))
    named -= {"EDGAR_EVAL_EMBEDDINGS"}  # docs/settings.md's `EDGAR_EVAL_EMBEDDINGS_BASE_URL`, `_MODEL`, `_API_KEY`
    assert named - KNOWN_VARIABLES == set()


def test_the_dagster_command_works_as_printed(tmp_path):
    venv = tmp_path / "my project" / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "dagster").write_text("#!/bin/sh\n")
    python = str(venv / "python")
    assert dagster_command(python, tmp_path / "my project") == ".venv/bin/dagster"
    assert dagster_command(python, tmp_path) == "'my project/.venv/bin/dagster'"
    assert dagster_command(python, tmp_path / "elsewhere") == f"'{venv / 'dagster'}'"
    assert dagster_command(str(tmp_path / "python"), tmp_path) == "dagster", "none beside it: on PATH, or nowhere"
    assert dagster_command(str(venv / "python"), venv) == "./dagster"
    # this interpreter's, from the project: what `edgar-eval run`'s last line prints here
    here = dagster_command(here=PROJECT)
    assert subprocess.run([*here.split(), "--version"], cwd=PROJECT, capture_output=True).returncode == 0


def _cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("EDGAR_EVAL_")},
        "EDGAR_EVAL_HOME": str(home),
        "DAGSTER_HOME": str(home / ".dagster_home"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-m", "edgar_eval", *args], capture_output=True, text=True, env=environment, cwd=home
    )


@pytest.fixture
def home(tmp_path):
    import shutil

    shutil.copytree(PROJECT / "protocol", tmp_path / "protocol")
    return tmp_path


def _one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    (line,) = [line for line in result.stderr.splitlines() if line.strip()]
    return line


@pytest.mark.integration
def test_the_cli_refuses_a_demo_folder_and_a_proposals_file_before_any_work(home):
    assert _one_line(_cli(home, "run", EDGAR_EVAL_DEMO_CORPUS="/dev/null/x")) == (
        "edgar-eval: demo corpus folder /dev/null/x (EDGAR_EVAL_DEMO_CORPUS) cannot be made: /dev/null is not a folder"
    )
    assert _one_line(_cli(home, "demo-corpus", "/dev/null/x")) == (
        "edgar-eval demo-corpus: /dev/null/x cannot be made: /dev/null is not a folder"
    )
    proposals = home / "proposals.jsonl"
    proposals.write_bytes(b'{"id": "a"}\n\xff\n')
    assert _one_line(_cli(home, "run", "--proposals", str(proposals))) == (
        f"edgar-eval: proposals file {proposals} (--proposals, EDGAR_EVAL_PROPOSALS): line 2 is not UTF-8 (byte 0xff "
        "at byte 12 of the file)"
    )
    assert not (home / "data").exists(), "refused before any work: not even the demo corpus is written"


def test_a_file_gone_is_made_again_by_the_asset_that_wrote_it_and_no_other(tmp_path):
    """A deleted report.md, every table stored and current: the evaluation's verdict names the report asset alone to
    make again (`materialise_graph` then runs only its step, as for a table that cannot be read)."""
    from edgar_eval.defs.freshness import INPUTS_TAG, RunInputs, _staleness

    written = tmp_path / "reports" / "report.md"

    @dg.asset
    def table() -> None:
        import pandas as pd

        pd.DataFrame({"question_id": ["q1"]}).to_parquet(tmp_path / "table.parquet")

    @dg.asset(deps=[table])
    def report() -> dg.MaterializeResult:
        written.parent.mkdir(exist_ok=True)
        written.write_text("# the report\n")
        return dg.MaterializeResult(metadata={"path": dg.MetadataValue.path(str(written))})

    instance = dg.DagsterInstance.ephemeral()
    inputs = RunInputs.of({"what": "the run reads"})
    assert dg.materialize([table, report], instance=instance, tags={INPUTS_TAG: inputs.digest}).success
    keys = [table.key, report.key]
    assert _staleness(instance, inputs, keys, {table.key: tmp_path / "table.parquet"}) == (None, [])
    written.unlink()
    assert _staleness(instance, inputs, keys, {table.key: tmp_path / "table.parquet"}) == (
        f"1 stored files are gone ({written})",
        [report.key],
    )
    (tmp_path / "table.parquet").unlink()  # and a table too: each asset that wrote one
    reason, remake = _staleness(instance, inputs, keys, {table.key: tmp_path / "table.parquet"})
    assert (reason or "").startswith("2 stored files are gone (") and remake == [report.key, table.key]
