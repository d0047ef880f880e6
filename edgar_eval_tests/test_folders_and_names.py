"""Nothing is written outside its folders: a corpus name is one plain folder name wherever it comes from (--name, the
environment, the corpus folder's own name, a run's config in the UI or a deployment), so are the names of the files a
setting picks in the project's folders, and every path a run writes is resolved (symbolic links followed) and checked
to lie under its data or reports root; a tape folder a model names stays, by name, in the tapes folder."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg
import pandas as pd
import pydantic
import pytest

from edgar_eval.adapters.parquet_store import OutsideRoot, ParquetStore, location, under
from edgar_eval.defs.settings import EvalSettings, GeneratorResource
from edgar_eval.domain.names import plain_name_problem


@pytest.mark.parametrize("name", ["edgar", "edgar-wide", "chunk_600", "v1.2", "_x", "-x", "A9"])
def test_a_plain_folder_name_is_taken(name):
    assert plain_name_problem(name) is None


@pytest.mark.parametrize(
    "name", ["", ".", "..", "../../escape", "a/b", "a\\b", ".hidden", "two words", "caf\u00e9", "x" * 129, "a\0b"]
)
def test_anything_but_a_plain_folder_name_is_refused(name):
    assert plain_name_problem(name) is not None


def _fields(tmp_path: Path, **more) -> dict:
    return {
        "corpus_dir": str(tmp_path / "corpus"),
        "corpus_name": "mine",
        "data_dir": str(tmp_path / "data"),
        "reports_dir": str(tmp_path / "reports"),
        **more,
    }


@pytest.mark.parametrize("field", ["corpus_name", "protocol", "absence_review", "access_policy", "release_fixture"])
def test_settings_made_in_any_way_refuse_a_name_that_leaves_its_folder(tmp_path, field):
    with pytest.raises(pydantic.ValidationError, match=f"{field} '../../escape' is not a plain folder name"):
        EvalSettings(**_fields(tmp_path, **{field: "../../escape"}))


@pytest.fixture
def environment(monkeypatch, tmp_path):
    for variable in list(os.environ):
        if variable.startswith("EDGAR_EVAL_") and variable != "EDGAR_EVAL_REAL_CORPUS":
            monkeypatch.delenv(variable)
    (tmp_path / "corpus").mkdir()
    monkeypatch.setenv("EDGAR_EVAL_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("EDGAR_EVAL_REPORTS", str(tmp_path / "reports"))
    return monkeypatch


def test_a_name_from_the_environment_is_refused_naming_its_variable(environment, tmp_path):
    environment.setenv("EDGAR_EVAL_CORPUS_DIR", str(tmp_path / "corpus"))
    environment.setenv("EDGAR_EVAL_CORPUS_NAME", "../../escape")
    with pytest.raises(ValueError, match=r"^--name \(EDGAR_EVAL_CORPUS_NAME\) '../../escape' is not a plain folder"):
        EvalSettings.from_env()
    environment.delenv("EDGAR_EVAL_CORPUS_DIR")  # the demo corpus ignores the name, and still refuses a bad one
    with pytest.raises(ValueError, match="is not a plain folder"):
        EvalSettings.from_env()


def test_a_corpus_folder_whose_name_is_not_plain_needs_a_name(environment, tmp_path):
    folder = tmp_path / "two words"
    folder.mkdir()
    environment.setenv("EDGAR_EVAL_CORPUS_DIR", str(folder))
    with pytest.raises(ValueError, match=r"the corpus folder's name 'two words' \(--corpus, EDGAR_EVAL_CORPUS_DIR\)"):
        EvalSettings.from_env()
    environment.setenv("EDGAR_EVAL_CORPUS_NAME", "two-words")
    assert EvalSettings.from_env().corpus_name == "two-words"


def test_a_settings_file_naming_a_file_outside_its_folder_is_refused(environment, tmp_path):
    (tmp_path / "experiment.toml").write_text("protocol = '../../../etc/passwd'\n")
    environment.setenv("EDGAR_EVAL_CORPUS_DIR", str(tmp_path / "corpus"))
    environment.setenv("EDGAR_EVAL_SETTINGS", str(tmp_path / "experiment.toml"))
    with pytest.raises(ValueError, match=r"^settings protocol '../../../etc/passwd' is not a plain folder name"):
        EvalSettings.from_env()


def test_a_run_config_naming_an_escaping_corpus_fails_the_run_and_writes_nothing(tmp_path, demo_files):
    """The UI's launchpad or a deployment's run config replaces the settings the code location loaded with: the run
    fails at its start, naming the setting, before any step."""
    from edgar_eval.defs.corpus.partitions import sync_filings
    from edgar_eval.defs.factory import build_definitions
    from edgar_eval.defs.jobs import CORPUS_JOB

    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "8k.htm").write_bytes(demo_files["hvrn/8k_2024-05-14.htm"])
    settings = EvalSettings(**_fields(tmp_path / "home")).model_copy(update={"corpus_dir": str(tmp_path / "corpus")})
    instance = dg.DagsterInstance.ephemeral()
    (key,) = sync_filings(instance, settings).documents
    escaping = {**settings.model_dump(), "corpus_name": "../../escape"}
    result = (
        build_definitions(settings)
        .resolve_job_def(CORPUS_JOB)
        .execute_in_process(
            partition_key=key,
            instance=instance,
            raise_on_error=False,
            run_config={"resources": {"settings": {"config": escaping}}},
        )
    )
    assert not result.success
    errors = [
        error.message for event in result.all_events if (error := getattr(event.event_specific_data, "error", None))
    ]
    assert any("corpus_name '../../escape' is not a plain folder name" in error for error in errors), errors
    assert not (tmp_path / "escape").exists() and not (tmp_path / "home").exists()


@pytest.mark.parametrize("root", ["local", "memory://roots/data"])
def test_a_path_that_leaves_its_root_is_refused(tmp_path, root):
    base = location(tmp_path / "data" if root == "local" else root)
    assert str(under(base, "mine", "t.parquet")).endswith("data/mine/t.parquet")
    for parts in (("..", "escape"), ("mine", "..", "..", "escape"), (".",)):
        with pytest.raises(OutsideRoot):
            under(base, *parts)
    store = ParquetStore(base / "mine")
    with pytest.raises(OutsideRoot):
        store.write("chunks", pd.DataFrame({"x": [1]}), "../../../escape")  # a partition key is a file name
    with pytest.raises(OutsideRoot):
        store.file("..", "absence_review.md")


def test_a_symbolic_link_out_of_the_data_or_reports_root_is_refused_naming_the_variable(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for root in ("data", "reports"):
        (tmp_path / root).mkdir()
        (tmp_path / root / "mine").symlink_to(elsewhere, target_is_directory=True)
    settings = EvalSettings(**_fields(tmp_path))
    with pytest.raises(ValueError, match=r"^EDGAR_EVAL_DATA: the corpus's folder would lie outside its root"):
        settings.store()
    with pytest.raises(ValueError, match=r"^EDGAR_EVAL_REPORTS: the corpus's folder would lie outside its root"):
        settings.report_dir()
    with pytest.raises(OutsideRoot):  # a link inside the store that points out of it
        (tmp_path / "data" / "mine").unlink()
        (tmp_path / "data" / "mine").mkdir()
        (tmp_path / "data" / "mine" / "chunks").symlink_to(elsewhere, target_is_directory=True)
        settings.store().write("chunks", pd.DataFrame({"x": [1]}), "f1")
    assert list(elsewhere.iterdir()) == []


def test_a_model_name_that_would_leave_the_tapes_folder_is_refused(tmp_path):
    settings = EvalSettings(**_fields(tmp_path, tapes_dir=str(tmp_path / "tapes")))
    proposing = settings.model_copy(update={"proposer_model": "..", "proposer_url": "http://127.0.0.1:9"})
    with pytest.raises(ValueError, match="settings proposer_model '..' cannot name a tape folder"):
        proposing.check()
    with pytest.raises(ValueError, match="EDGAR_EVAL_GENERATOR_MODEL '..' cannot name a tape folder"):
        GeneratorResource(kind="openai-compatible-chat", model="..", url="http://127.0.0.1:9").check()
    tapes = GeneratorResource(kind="openai-compatible-chat", model="org/model", url="http://127.0.0.1:9")
    tapes.check()  # a model named with its organisation is one folder, org_model
    # A tapes folder linked to a recording elsewhere, on purpose (a committed tape replayed), is taken by its name.
    (tmp_path / "recording").mkdir()
    (tmp_path / "tapes" / "mine").mkdir(parents=True)
    (tmp_path / "tapes" / "mine" / "proposals").symlink_to(tmp_path / "recording", target_is_directory=True)
    replaying = proposing.model_copy(update={"proposer_model": "m", "tape_mode": "replay"})
    replaying.check()
    assert replaying.proposer_tape().directory == tmp_path / "tapes" / "mine" / "proposals" / "m"


def _with_policy(tmp_path: Path, monkeypatch) -> None:
    """A project home whose corpus `mine` has an access policy naming one role."""
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(tmp_path))
    policy = tmp_path / "policies" / "mine" / "access-v1.toml"
    policy.parent.mkdir(parents=True)
    policy.write_text('version = "access-v1"\n\n[roles.retail-analyst]\nbarred_ciks = ["0009000003"]\n')


def test_a_role_the_access_policy_does_not_name_is_refused_naming_the_roles(tmp_path, monkeypatch):
    _with_policy(tmp_path, monkeypatch)
    EvalSettings(**_fields(tmp_path)).check_role()  # the default role needs no policy entry
    EvalSettings(**_fields(tmp_path, asking_role="retail-analyst")).check_role()
    with pytest.raises(ValueError) as refused:
        EvalSettings(**_fields(tmp_path, asking_role="retail-analsyt")).check_role()
    assert str(refused.value).startswith("settings asking_role 'retail-analsyt' is not a role the access policy ")
    assert str(refused.value).endswith("choose one of 'analyst', 'retail-analyst'")


def test_a_role_is_refused_where_the_corpus_has_no_access_policy(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(tmp_path))
    with pytest.raises(ValueError, match="corpus 'mine' has no access policy .* no role but the default 'analyst'"):
        EvalSettings(**_fields(tmp_path, asking_role="retail-analyst")).check_role()


def test_another_roles_report_goes_to_a_folder_of_its_own_inside_the_corpus_folder(tmp_path, monkeypatch):
    _with_policy(tmp_path, monkeypatch)
    default = EvalSettings(**_fields(tmp_path)).report_dir()
    other = EvalSettings(**_fields(tmp_path, asking_role="retail-analyst")).report_dir()
    assert str(default) == str(tmp_path / "reports" / "mine")
    assert str(other) == str(tmp_path / "reports" / "mine" / "as-retail-analyst")
    with pytest.raises(ValueError, match="is not a plain folder name"):
        EvalSettings(**_fields(tmp_path, asking_role="../../escape")).report_dir()


def test_the_generators_timeout_and_attempts_bound_the_wait_on_a_service_that_hangs(tmp_path, monkeypatch):
    """A service that accepts the connection and never answers costs timeout x attempts, not 120 s x 5."""
    import socket
    import time

    from edgar_eval.adapters.chat_generator import GenerationRetriesExhausted
    from edgar_eval.domain.generation import GenerationRequest

    monkeypatch.setenv("EDGAR_EVAL_GENERATOR_TIMEOUT", "0.3")
    monkeypatch.setenv("EDGAR_EVAL_GENERATOR_ATTEMPTS", "2")
    with socket.socket() as hanging:  # listens, so the connection is made, and never reads a byte
        hanging.bind(("127.0.0.1", 0))
        hanging.listen(4)
        monkeypatch.setenv("EDGAR_EVAL_GENERATOR", "external-rag")
        monkeypatch.setenv("EDGAR_EVAL_GENERATOR_URL", f"http://127.0.0.1:{hanging.getsockname()[1]}/answer")
        generator = GeneratorResource.from_env()
        assert (generator.timeout_s, generator.attempts) == (0.3, 2)
        adapter = generator.adapter(EvalSettings(**_fields(tmp_path, tapes_dir=str(tmp_path / "tapes"))))
        started = time.perf_counter()
        with pytest.raises(GenerationRetriesExhausted, match="after 2 attempts"):
            adapter.generate(GenerationRequest(question="What was revenue in fiscal 2024?"))
    assert time.perf_counter() - started < 10  # two reads of 0.3 s and one backoff of 1 s
