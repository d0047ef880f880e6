"""Gates fitted on one synthetic corpus and frozen, then a whole run on another corpus of other companies that applies
them unchanged (every company eval); a corpus sharing a company with the fitting one is refused in one line."""

import csv
import shutil
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.adapters.local_corpus import write_demo_corpus
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.runner import materialise_graph
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.statistics.pins import file_sha256
from edgar_eval.evaluation.frozen_gates import fit_frozen_gates, write_gates

pytestmark = pytest.mark.slow(minutes=5)

REPO = Path(__file__).resolve().parents[1]
DEMO_COMPANIES = ("crvd", "hvrn", "mrbl")


def _settings(root: Path, corpus: Path, name: str, gates_file: str = "") -> EvalSettings:
    return EvalSettings(
        corpus_dir=str(corpus),
        corpus_name=name,
        data_dir=str(root / "data"),
        reports_dir=str(root / "reports"),
        gates_file=gates_file,
    )


def _other_companies(folder: Path) -> Path:
    """A synthetic corpus of the demo's copies only: six companies written, the demo's three taken out."""
    write_demo_corpus(folder, 6)
    for ticker in DEMO_COMPANIES:
        shutil.rmtree(folder / ticker)
    manifest = folder / "manifest.csv"
    with manifest.open(newline="") as handle:
        rows = list(csv.reader(handle))
    with manifest.open("w", newline="") as handle:
        csv.writer(handle).writerows([rows[0], *(r for r in rows[1:] if r[0] not in DEMO_COMPANIES)])
    return folder


def test_gates_fitted_on_one_corpus_decide_a_run_on_another(tmp_path, monkeypatch):
    home = tmp_path / "home"
    shutil.copytree(REPO / "protocol", home / "protocol")
    (home / "pyproject.toml").write_text("")
    monkeypatch.setenv("EDGAR_EVAL_HOME", str(home))

    fitting = _settings(tmp_path / "fitting", tmp_path / "demo_corpus", "demo")
    materialise_graph(build_definitions(fitting), dg.DagsterInstance.ephemeral())
    gates = fit_frozen_gates(
        fitting.store().read("abstention_scores"), file_sha256(Path(fitting.corpus_dir) / "manifest.csv"), "demo"
    )
    write_gates(gates, home / "gates" / "demo-v1.json")

    confirming = _settings(tmp_path / "confirming", _other_companies(tmp_path / "others"), "others", "demo-v1")
    confirming.check()  # no company shared: accepted
    graph = materialise_graph(build_definitions(confirming), dg.DagsterInstance.ephemeral())
    assert graph.evaluation_succeeded, graph.evaluation_error
    scores = confirming.store().read("abstention_scores")
    assert set(scores.split) == {"eval"}  # nothing of this corpus was fitted on
    assert set(scores.relevance_threshold) == {gates["relevance_threshold"]}
    assert set(scores.cosine_threshold) == {gates["cosine_threshold"]}
    comparisons = confirming.store().read("arm_comparisons")
    decided = comparisons[comparisons.hypothesis != ""]
    assert set(decided.hypothesis) == {"H2", "H3"} and (decided.decision != "").all()
    assert decided.pins.str.contains("gates_file_sha256").all()  # demo-v1 is not the file v5 registers
    report = (Path(confirming.reports_dir) / "others" / "report.md").read_text()
    assert "## Confirmatory decisions (answering-v5" in report

    shared = _settings(tmp_path / "shared", tmp_path / "demo_corpus", "demo-again", "demo-v1")
    with pytest.raises(ValueError, match=r"^gates_file 'demo-v1' was fitted on demo, which shares 3 companies"):
        shared.check()
