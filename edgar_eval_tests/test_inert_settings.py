"""What decides staleness is what a step reads: a setting enters a run's inputs digest only when a component the run
uses reads it. A setting no chosen component reads changes neither digest (so `edgar-eval run` relaunches nothing) and
is named in one note; a setting the chosen component reads changes the digest of each run that reads it, and only of
those. The corpus job is checked to read no setting beyond `CORPUS_FIELDS`."""

from __future__ import annotations

import sys
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.defs import settings as settings_module
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.freshness import corpus_inputs, evaluation_inputs
from edgar_eval.defs.settings import (
    CORPUS_FIELDS,
    EmbedderResource,
    EvalSettings,
    GeneratorResource,
    unread_settings,
)

PACKAGE = Path(settings_module.__file__).resolve().parents[1]
PARTITIONS = ["hvrn-10k_2025-02-20"]


@pytest.fixture(scope="module")
def asset_graph(tmp_path_factory):
    """The asset graph (its corpus assets' code versions enter the corpus digest); the same for every setting."""
    root = tmp_path_factory.mktemp("graph")
    settings = EvalSettings(corpus_dir=str(root / "corpus"), corpus_name="x", data_dir=str(root), reports_dir=str(root))
    return build_definitions(settings).resolve_asset_graph()


@pytest.fixture
def environment(monkeypatch, tmp_path):
    """A user's environment naming a corpus folder, its data and reports, and nothing else of edgar-eval's."""
    import os

    for variable in list(os.environ):
        if variable.startswith("EDGAR_EVAL_") and variable != "EDGAR_EVAL_REAL_CORPUS":
            monkeypatch.delenv(variable)
    (tmp_path / "corpus").mkdir()
    monkeypatch.setenv("EDGAR_EVAL_CORPUS_DIR", str(tmp_path / "corpus"))
    monkeypatch.setenv("EDGAR_EVAL_DATA", str(tmp_path / "data"))
    monkeypatch.setenv("EDGAR_EVAL_REPORTS", str(tmp_path / "reports"))
    return monkeypatch


def _from_environment():
    return EvalSettings.from_env(), EmbedderResource.from_env(), GeneratorResource.from_env()


def _digests(asset_graph, settings, embedder, generator) -> tuple[str, str]:
    """The digests `edgar-eval run` records on a filing partition's run and on the evaluation run."""
    corpus = corpus_inputs(settings, embedder, asset_graph, "0" * 64).digest
    evaluation = evaluation_inputs(
        settings, embedder, generator, dg.DagsterInstance.ephemeral(), asset_graph, PARTITIONS
    ).digest
    return corpus, evaluation


def _settings_file(tmp_path: Path, text: str, monkeypatch) -> None:
    (tmp_path / "experiment.toml").write_text(text)
    monkeypatch.setenv("EDGAR_EVAL_SETTINGS", str(tmp_path / "experiment.toml"))


# What a user sets, and the note that names it: a setting of a component the run does not use.
INERT = [
    (
        {"EDGAR_EVAL_EMBEDDINGS_BASE_URL": "http://127.0.0.1:11434"},
        "EDGAR_EVAL_EMBEDDINGS_BASE_URL is set, but the embedder is minilm (EDGAR_EVAL_EMBEDDER), which does not "
        "read it",
    ),
    (
        {"EDGAR_EVAL_EMBEDDINGS_MODEL": "nomic-embed-text"},
        "EDGAR_EVAL_EMBEDDINGS_MODEL is set, but the embedder is minilm (EDGAR_EVAL_EMBEDDER), which does not read it",
    ),
    (
        {"EDGAR_EVAL_GENERATOR_MODEL": "qwen2.5:7b"},
        "EDGAR_EVAL_GENERATOR_MODEL is set, but the generator is table-reader (EDGAR_EVAL_GENERATOR), which does not "
        "read it",
    ),
    (
        {"EDGAR_EVAL_GENERATOR_URL": "http://127.0.0.1:8080"},
        "EDGAR_EVAL_GENERATOR_URL is set, but the generator is table-reader (EDGAR_EVAL_GENERATOR), which does not "
        "read it",
    ),
    (
        {"EDGAR_EVAL_GENERATOR": "extractive", "EDGAR_EVAL_GENERATOR_MODEL": "qwen2.5:7b"},
        "EDGAR_EVAL_GENERATOR_MODEL is set, but the generator is extractive (EDGAR_EVAL_GENERATOR), which does not "
        "read it",
    ),
    (
        {"EDGAR_EVAL_PROPOSER_MODEL": "qwen2.5:7b"},
        "EDGAR_EVAL_PROPOSER_MODEL is set, but the proposer is off until EDGAR_EVAL_PROPOSER_URL is set too",
    ),
    (
        {"EDGAR_EVAL_PROPOSER_URL": "http://127.0.0.1:8080"},
        "EDGAR_EVAL_PROPOSER_URL is set, but the proposer is off until EDGAR_EVAL_PROPOSER_MODEL is set too",
    ),
    (
        {"EDGAR_EVAL_TAPE": "replay"},
        "EDGAR_EVAL_TAPE is 'replay', but nothing this run uses calls a model through a tape (the generator "
        "table-reader answers offline and the proposer is off)",
    ),
]
# The same, set in a settings file (keys named as the settings are).
INERT_IN_FILE = [
    ("rerank_url = 'http://127.0.0.1:7997'\n", "settings rerank_url is set, but the reranker is lexical"),
    ("rerank_model = 'bge-reranker-base'\n", "settings rerank_model is set, but the reranker is lexical"),
    ("proposal_bundles = 9\n", "settings proposal_bundles is set, but the proposer is off"),
]


@pytest.mark.parametrize("variables,note", INERT, ids=[" ".join(v) for v, _ in INERT])
def test_a_setting_no_chosen_component_reads_changes_no_digest_and_is_named(asset_graph, environment, variables, note):
    before = _digests(asset_graph, *_from_environment())
    assert unread_settings(*_from_environment()) == []
    for variable, value in variables.items():
        environment.setenv(variable, value)
    settings, embedder, generator = _from_environment()
    if "EDGAR_EVAL_GENERATOR" in variables:  # another offline generator is another component: compare with its own
        before = _digests(asset_graph, settings, embedder, GeneratorResource(kind=generator.kind))
    assert _digests(asset_graph, settings, embedder, generator) == before, "an unread setting relaunches a run"
    assert unread_settings(settings, embedder, generator) == [note]


@pytest.mark.parametrize("text,note", INERT_IN_FILE, ids=[t.split(" ")[0] for t, _ in INERT_IN_FILE])
def test_a_settings_file_key_no_chosen_component_reads_changes_no_digest_and_is_named(
    asset_graph, environment, tmp_path, text, note
):
    before = _digests(asset_graph, *_from_environment())
    _settings_file(tmp_path, text, environment)
    resources = _from_environment()
    assert _digests(asset_graph, *resources) == before, "an unread setting relaunches a run"
    (found,) = unread_settings(*resources)
    assert found.startswith(note)


# (what the run uses, the setting it reads changed to another value, whether the corpus job reads it too)
READ = [
    (
        {"EDGAR_EVAL_EMBEDDER": "openai-compatible", "EDGAR_EVAL_EMBEDDINGS_BASE_URL": "http://127.0.0.1:11434"},
        ("EDGAR_EVAL_EMBEDDINGS_MODEL", "nomic-embed-text", "mxbai-embed-large"),
        True,
    ),
    (
        {"EDGAR_EVAL_EMBEDDER": "openai-compatible", "EDGAR_EVAL_EMBEDDINGS_MODEL": "nomic-embed-text"},
        ("EDGAR_EVAL_EMBEDDINGS_BASE_URL", "http://127.0.0.1:11434", "http://127.0.0.1:11435"),
        True,
    ),
    (
        {"EDGAR_EVAL_GENERATOR": "openai-compatible-chat", "EDGAR_EVAL_GENERATOR_URL": "http://127.0.0.1:8080"},
        ("EDGAR_EVAL_GENERATOR_MODEL", "qwen2.5:7b", "llama3.1:8b"),
        False,
    ),
    (
        {"EDGAR_EVAL_GENERATOR": "openai-compatible-chat", "EDGAR_EVAL_GENERATOR_MODEL": "qwen2.5:7b"},
        ("EDGAR_EVAL_TAPE", "replay", "record"),
        False,
    ),
    (
        {"EDGAR_EVAL_PROPOSER_URL": "http://127.0.0.1:8080", "EDGAR_EVAL_TAPE": "replay"},
        ("EDGAR_EVAL_PROPOSER_MODEL", "qwen2.5:7b", "llama3.1:8b"),
        False,
    ),
    ({}, ("EDGAR_EVAL_ROLE", "analyst", "auditor"), False),
]


@pytest.mark.parametrize("uses,change,corpus_reads", READ, ids=[c[0] for _, c, _ in READ])
def test_a_setting_the_chosen_component_reads_changes_the_digest_of_each_run_that_reads_it(
    asset_graph, environment, uses, change, corpus_reads
):
    for variable, value in uses.items():
        environment.setenv(variable, value)
    variable, first, second = change
    environment.setenv(variable, first)
    corpus, evaluation = _digests(asset_graph, *_from_environment())
    assert unread_settings(*_from_environment()) == []
    environment.setenv(variable, second)
    corpus_after, evaluation_after = _digests(asset_graph, *_from_environment())
    assert evaluation_after != evaluation
    assert (corpus_after != corpus) is corpus_reads


def test_the_corpus_job_s_settings_enter_both_digests_and_the_evaluation_s_only_its_own(asset_graph, tmp_path):
    base = EvalSettings(corpus_dir=str(tmp_path), corpus_name="x", data_dir=str(tmp_path), reports_dir=str(tmp_path))
    resources = (EmbedderResource(), GeneratorResource())
    corpus, evaluation = _digests(asset_graph, base, *resources)
    rechunked = _digests(asset_graph, base.model_copy(update={"chunk_size": 600}), *resources)
    assert rechunked[0] != corpus and rechunked[1] != evaluation
    deeper = _digests(asset_graph, base.model_copy(update={"top_k": 50}), *resources)
    assert deeper[0] == corpus and deeper[1] != evaluation, "top_k is read by the evaluation only"
    endpoint = base.model_copy(update={"reranker": "endpoint", "rerank_url": "http://127.0.0.1:7997"})
    assert (
        _digests(asset_graph, endpoint, *resources)[1]
        != _digests(asset_graph, endpoint.model_copy(update={"rerank_url": "http://127.0.0.1:7998"}), *resources)[1]
    ), "the endpoint reranker reads its URL"


def test_a_corpus_folder_or_store_moved_elsewhere_changes_neither_digest(asset_graph, tmp_path):
    """Where the corpus folder, the tables and the reports are kept is no input (settings.WHERE_FIELDS): a filing is
    its bytes, a table not at the new place is found missing and made again. A corpus copied or moved under the same
    name keeps its work (it re-made every partition and re-ran the evaluation before). Its name is an input: it names
    the tables' folder and the reviews, policies and tapes a run reads."""
    base = EvalSettings(
        corpus_dir=str(tmp_path / "here" / "corpus"),
        corpus_name="x",
        data_dir=str(tmp_path / "here" / "data"),
        reports_dir=str(tmp_path / "here" / "reports"),
    )
    resources = (EmbedderResource(), GeneratorResource())
    moved = base.model_copy(
        update={
            "corpus_dir": str(tmp_path / "there" / "corpus"),
            "data_dir": str(tmp_path / "there" / "data"),
            "reports_dir": str(tmp_path / "there" / "reports"),
        }
    )
    assert _digests(asset_graph, moved, *resources) == _digests(asset_graph, base, *resources)
    renamed = _digests(asset_graph, base.model_copy(update={"corpus_name": "y"}), *resources)
    corpus, evaluation = _digests(asset_graph, base, *resources)
    assert renamed[0] != corpus and renamed[1] != evaluation


def test_a_file_a_run_recorded_is_looked_for_under_today_s_folders():
    """What a run wrote (its report, a review sheet) is looked for where the data and reports folders are now: a run
    with a new reports folder finds the report missing and writes it again, not current because the old one is."""
    from edgar_eval.defs.freshness import _here

    recorded = {"data_dir": "/old/data", "reports_dir": "/old/reports", "corpus_dir": "/old/corpus"}
    today = {"data_dir": "/new/data", "reports_dir": "s3://bucket/reports/"}
    assert _here("/old/reports/demo/report.md", recorded, today) == "s3://bucket/reports/demo/report.md"
    assert _here("/old/data/demo/absence_review.md", recorded, today) == "/new/data/demo/absence_review.md"
    assert _here("/old/reports2/demo/report.md", recorded, today) == "/old/reports2/demo/report.md", "not its folder"
    assert _here("/elsewhere/report.md", recorded, today) == "/elsewhere/report.md"
    assert _here("/old/data/x", recorded, {"data_dir": "/old/data/"}) == "/old/data/x", "the same folder"
    assert _here("/old/data/x", {}, today) == "/old/data/x", "a run that recorded no settings"


def test_a_tape_is_an_input_only_of_a_run_that_calls_a_model_through_it(asset_graph, tmp_path):
    base = EvalSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="x",
        data_dir=str(tmp_path),
        reports_dir=str(tmp_path),
        tapes_dir=str(tmp_path / "tapes"),
    )
    proposing = base.model_copy(
        update={"proposer_model": "m", "proposer_url": "http://127.0.0.1:9", "tape_mode": "replay"}
    )
    resources = (EmbedderResource(), GeneratorResource())
    offline, with_proposer = _digests(asset_graph, base, *resources), _digests(asset_graph, proposing, *resources)
    tape = tmp_path / "tapes" / "x" / "proposals" / "m" / "0a1b.json"
    tape.parent.mkdir(parents=True)
    tape.write_text("{}")
    assert _digests(asset_graph, base, *resources) == offline, "nothing this run uses reads the tape"
    assert _digests(asset_graph, proposing, *resources)[1] != with_proposer[1], "the proposer replays from it"


_READ_BY_EDGAR_EVAL: set[str] = set()


class _RecordingSettings(EvalSettings):
    """Settings that record each field the project's code reads (Dagster's own copying of the resource is not a
    read: only reads from a frame of the edgar_eval package count)."""

    def __getattribute__(self, name: str):
        if name in EvalSettings.model_fields and sys._getframe(1).f_code.co_filename.startswith(str(PACKAGE)):
            _READ_BY_EDGAR_EVAL.add(name)
        return super().__getattribute__(name)


@pytest.mark.slow(minutes=0.15)  # materialises graph runs: seconds, not milliseconds
def test_the_corpus_job_reads_no_setting_beyond_those_of_its_digest(tmp_path, demo_files):
    """A corpus run of one filing, with settings that record what is read: every field read is a corpus field, so
    the corpus digest (settings.read_by_corpus) holds everything its steps can depend on."""
    from edgar_eval.defs.runner import materialise_corpus

    path = "hvrn/8k_2024-05-14.htm"
    (tmp_path / "corpus" / "hvrn").mkdir(parents=True)
    (tmp_path / "corpus" / path).write_bytes(demo_files[path])
    settings = _RecordingSettings(
        corpus_dir=str(tmp_path / "corpus"),
        corpus_name="recorded",
        data_dir=str(tmp_path / "data"),
        reports_dir=str(tmp_path / "reports"),
    )
    # Building the definitions names the system under test in every run's tags (its generator reads the tape
    # settings); what the digest must hold is what the corpus job's steps read, so the recording starts after.
    definitions = build_definitions(settings)
    _READ_BY_EDGAR_EVAL.clear()
    assert materialise_corpus(definitions, dg.DagsterInstance.ephemeral()) == {}
    assert {"corpus_dir", "chunk_size", "data_dir"} <= _READ_BY_EDGAR_EVAL, "the recording sees the steps' reads"
    assert _READ_BY_EDGAR_EVAL <= set(CORPUS_FIELDS), sorted(_READ_BY_EDGAR_EVAL - set(CORPUS_FIELDS))
