"""No run writes over a report made from another corpus: each way a run can come to a committed report's folder
(--name, a corpus folder named like a committed corpus, the environment, another reports root, the demo's folder) is
refused in one line before any work, naming --name, and leaves every file of that report as it was. A report this run
history wrote itself may be replaced (a corpus of your own that changed); a committed one never."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.definitions.data_version import DATA_VERSION_TAG

from edgar_eval import cli
from edgar_eval.adapters.local_corpus import write_demo_corpus
from edgar_eval.defs.corpus.report_guard import REPORT, report_in_the_way
from edgar_eval.defs.settings import EvalSettings

PROJECT = Path(__file__).resolve().parents[1]
REPORT_FILES = ("report.md", "report.html", "receipt.json", "outcomes.json")
TWO_FILINGS = ("hvrn/10k_2025-02-20.htm", "hvrn/8k_2024-05-14.htm")
ENVIRONMENT = (
    "EDGAR_EVAL_HOME",
    "DAGSTER_HOME",
    "EDGAR_EVAL_CORPUS_DIR",
    "EDGAR_EVAL_CORPUS_NAME",
    "EDGAR_EVAL_DATA",
    "EDGAR_EVAL_REPORTS",
    "EDGAR_EVAL_DEMO_CORPUS",
    "EDGAR_EVAL_SETTINGS",
    "EDGAR_EVAL_PROPOSALS",
    "EDGAR_EVAL_PARALLEL_RUNS",
    "EDGAR_EVAL_ROLE",
)


@pytest.fixture
def home(tmp_path, monkeypatch, demo_files):
    """A project home holding copies of the committed edgar reports (under reports/ and under another reports root,
    as reports/chunking-600-100/edgar is), and a corpus of two demo filings in a folder named `edgar`."""
    shutil.copytree(PROJECT / "protocol", tmp_path / "protocol")
    for relative in ("edgar", "chunking-600-100/edgar"):
        shutil.copytree(PROJECT / "reports" / relative, tmp_path / "reports" / relative)
    for folder in (tmp_path / "mine" / "edgar", tmp_path / "mine" / "small"):
        for path in TWO_FILINGS:
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(demo_files[path])
    for variable in ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)  # restored after the test: the CLI sets some of them itself
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(tmp_path))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / ".dagster_home"))
    return tmp_path


def _files(home: Path) -> dict[str, bytes]:
    return {
        path.relative_to(home).as_posix(): path.read_bytes()
        for path in sorted((home / "reports").rglob("*"))
        if path.is_file()
    }


def _refused(home: Path, capsys, *args: str) -> str:
    """`edgar-eval run ARGS` in this process: refused with exit 2 in one line, every report file as it was, no table
    written."""
    before = _files(home)
    capsys.readouterr()
    assert cli.main(["run", *args]) == cli.EXIT_REFUSED
    said = capsys.readouterr()
    lines = [line for line in said.err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in said.err + said.out, said.err
    assert _files(home) == before
    assert not (home / "data").exists() or not any((home / "data").rglob("*.parquet"))
    return lines[0]


def test_name_of_a_committed_corpus_is_refused(home, capsys):
    line = _refused(home, capsys, "--corpus", str(home / "mine" / "small"), "--name", "edgar")
    assert line.startswith(f"edgar-eval: {home / 'reports' / 'edgar'} holds a report made from another corpus (31 ")
    assert "named 'edgar' by --name or EDGAR_EVAL_CORPUS_NAME, holds 2" in line
    assert "with another --name (EDGAR_EVAL_CORPUS_NAME)" in line, line


def test_a_corpus_folder_named_like_a_committed_corpus_is_refused(home, capsys):
    line = _refused(home, capsys, "--corpus", str(home / "mine" / "edgar"))
    assert "named 'edgar' by its folder, --corpus" in line
    assert "give this run's report a folder of its own with --name (EDGAR_EVAL_CORPUS_NAME)" in line, line


@pytest.mark.parametrize(
    "variables",
    [
        {"EDGAR_EVAL_CORPUS_NAME": "edgar"},
        {"EDGAR_EVAL_CORPUS_DIR": "mine/edgar"},
    ],
    ids=["EDGAR_EVAL_CORPUS_NAME", "EDGAR_EVAL_CORPUS_DIR"],
)
def test_the_environment_naming_a_committed_corpus_is_refused(home, capsys, monkeypatch, variables):
    for variable, value in variables.items():
        monkeypatch.setenv(variable, str(home / value) if variable.endswith("_DIR") else value)
    args = () if "EDGAR_EVAL_CORPUS_DIR" in variables else ("--corpus", str(home / "mine" / "small"))
    line = _refused(home, capsys, *args)
    assert "holds a report made from another corpus" in line and "--name" in line, line


def test_another_reports_root_holding_a_committed_report_is_refused(home, capsys, monkeypatch):
    monkeypatch.setenv("EDGAR_EVAL_REPORTS", str(home / "reports" / "chunking-600-100"))
    line = _refused(home, capsys, "--corpus", str(home / "mine" / "edgar"))
    assert f"{home / 'reports' / 'chunking-600-100' / 'edgar'} holds a report made from another corpus" in line


def test_a_demo_folder_holding_another_filing_is_refused_before_the_demo_report(home, capsys, monkeypatch, demo_files):
    shutil.copytree(PROJECT / "reports" / "demo", home / "reports" / "demo")
    folder = home / "demo_corpus"
    write_demo_corpus(folder)
    (folder / "extra").mkdir()
    (folder / "extra" / "copy.htm").write_bytes(demo_files[TWO_FILINGS[0]].replace(b"</body>", b"<p>x</p></body>"))
    monkeypatch.setenv("EDGAR_EVAL_DEMO_CORPUS", str(folder))
    line = _refused(home, capsys)
    assert line.startswith(f"edgar-eval: demo corpus folder {folder} (EDGAR_EVAL_DEMO_CORPUS) holds extra/copy.htm")


def test_the_corpus_a_receipt_names_may_write_its_report_again(home):
    """The shared corpus's own filings pass: its committed report can be made again (by sha256, whatever the keys)."""
    receipt = json.loads((home / "reports" / "edgar" / "receipt.json").read_text())
    settings = _settings(home, "edgar")
    same = {f"renamed-{index}": sha256 for index, sha256 in enumerate(receipt["corpus"].values())}
    assert report_in_the_way(settings, same, dg.DagsterInstance.ephemeral()) is None
    fewer = dict(list(same.items())[1:])
    assert "holds a report made from another corpus (31 filings" in str(report_in_the_way(settings, fewer, None))


def _settings(home: Path, name: str) -> EvalSettings:
    return EvalSettings(
        corpus_dir=str(home / "mine" / "small"),
        corpus_name=name,
        data_dir=str(home / "data"),
        reports_dir=str(home / "reports"),
    )


def _record_report(instance: dg.DagsterInstance, folder: Path) -> None:
    """A `report` materialisation as the report asset records one: its path and the data version of its text."""
    written = hashlib.sha256((folder / "report.md").read_bytes()).hexdigest()[:16]
    instance.report_runless_asset_event(
        dg.AssetMaterialization(
            REPORT,
            metadata={"path": dg.MetadataValue.path(str(folder / "report.md"))},
            tags={DATA_VERSION_TAG: written},
        )
    )


def test_a_report_this_run_history_wrote_may_be_replaced_unless_committed(home):
    settings, instance = _settings(home, "edgar"), dg.DagsterInstance.ephemeral()
    folder = home / "reports" / "edgar"
    other = {"new-filing": "0" * 64}
    assert report_in_the_way(settings, other, instance) is not None  # not written here
    _record_report(instance, folder)
    assert report_in_the_way(settings, other, instance) is None  # written here: a corpus of your own that changed

    (folder / "report.md").write_text("# another report, written since\n")
    assert report_in_the_way(settings, other, instance) is not None, "the report there is not the one written here"
    _record_report(instance, folder)
    _record_report(instance, home / "reports" / "chunking-600-100" / "edgar")  # the last report is of another folder
    assert report_in_the_way(settings, other, instance) is None

    if shutil.which("git") is None:
        pytest.skip("git is not installed: no report can be told committed")
    environment = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(home)}
    subprocess.run(["git", "init", "-q", str(home)], check=True, env=environment)
    subprocess.run(["git", "-C", str(home), "add", "reports/edgar/receipt.json"], check=True, env=environment)
    refused = report_in_the_way(settings, other, instance)
    assert refused and "holds a committed report made from another corpus" in refused, refused


def test_a_receipt_that_cannot_be_read_is_refused(home):
    (home / "reports" / "edgar" / "receipt.json").write_text("{not json")
    refused = report_in_the_way(_settings(home, "edgar"), {"a": "0" * 64}, None)
    assert refused and "names no corpus that can be read" in refused and "--name" in refused, refused


@pytest.mark.integration
def test_the_command_line_refuses_a_committed_report_in_one_line(home):
    """As a user meets it: the console's process, exit 2, one line, no traceback."""
    result = subprocess.run(
        [sys.executable, "-m", "edgar_eval", "run", "--corpus", str(home / "mine" / "small"), "--name", "edgar"],
        capture_output=True,
        text=True,
        env={**os.environ, "EDGAR_EVAL_HOME": str(home), "DAGSTER_HOME": str(home / ".dagster_home")},
        timeout=300,
        cwd=home,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr + result.stdout, result.stderr
    assert [line for line in result.stderr.splitlines() if line.strip()] == [
        next(line for line in result.stderr.splitlines() if "holds a report made from another corpus" in line)
    ]
    for name in REPORT_FILES:
        assert (home / "reports" / "edgar" / name).read_bytes() == (PROJECT / "reports" / "edgar" / name).read_bytes()
