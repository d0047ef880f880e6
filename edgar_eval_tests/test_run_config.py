"""A run carries the settings it was launched with. A Celery worker or a Kubernetes step pod loads the code location
from its own environment, which may name another corpus and another data folder than the CLI's --corpus; each run the
CLI launches carries the CLI's settings in its run config, and every step (the IO manager included) reads those."""

import shutil
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import write_demo_corpus
from edgar_eval.defs.corpus.partitions import sync_filings
from edgar_eval.defs.jobs import CORPUS_JOB
from edgar_eval.defs.runner import CodeLocationLauncher, settings_of

PROJECT = Path(__file__).resolve().parents[1]


def _environment(monkeypatch, home: Path, corpus: Path) -> None:
    """The environment the code location is loaded from: the CLI's, or a worker's."""
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(home))
    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR", "in_process")
    monkeypatch.setenv("EDGAR_EVAL_CORPUS_DIR", str(corpus))
    monkeypatch.setenv("EDGAR_EVAL_DATA", str(home / "data"))
    monkeypatch.setenv("EDGAR_EVAL_REPORTS", str(home / "reports"))


@pytest.fixture
def homes(tmp_path):
    """Two project homes with a corpus each: the CLI's (`mine`) and a worker's (`theirs`), different filings."""
    made = []
    for name in ("mine", "theirs"):
        home = tmp_path / f"{name}_home"
        shutil.copytree(PROJECT / "protocol", home / "protocol")
        write_demo_corpus(tmp_path / "demo")
        corpus = home / name
        corpus.mkdir()
        first = sorted((tmp_path / "demo").rglob("*.htm"))[0 if name == "mine" else -1]
        shutil.copy(first, corpus / first.name)
        made.append((home, corpus))
    return made


@pytest.mark.slow(minutes=0.2)  # materialises graph runs: seconds, not milliseconds
def test_a_step_reads_the_settings_the_run_was_launched_with_not_its_workers_environment(homes, monkeypatch, tmp_path):
    from edgar_eval import definitions

    (mine, my_corpus), (theirs, their_corpus) = homes
    _environment(monkeypatch, mine, my_corpus)
    cli_defs = definitions.defs()
    settings = settings_of(cli_defs)
    assert settings.corpus_name == "mine"
    with dg.instance_for_test() as instance:
        (key,) = sync_filings(instance, settings).documents
        _environment(monkeypatch, theirs, their_corpus)  # the code location a worker loads names another corpus
        assert settings_of(definitions.defs()).corpus_name == "theirs"

        launched = CodeLocationLauncher.of(instance, str(PROJECT), cli_defs)
        result = launched.launch(CORPUS_JOB, key, None)

        assert result.success
        assert (mine / "data" / "mine" / "chunks").is_dir()  # the IO manager and the assets wrote the CLI's store
        assert not (theirs / "data").exists()
        (run,) = instance.get_runs()
        settings_config: dict = run.run_config["resources"]["settings"]["config"]  # type: ignore[index]
        assert settings_config["corpus_dir"] == str(my_corpus)  # the UI shows the run's settings

        # Launched with the worker's own settings instead, the same partition is not a filing of its corpus
        without = CodeLocationLauncher.of(instance, str(PROJECT), definitions.defs())
        assert not without.launch(CORPUS_JOB, key, None).success
