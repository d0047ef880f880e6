"""The committed shared-corpus report is what this code produces: `edgar-eval run` on the filings beside the clone
(../shared/corpus/edgar and its hand-written proposals), cold, in a project home and Dagster home of its own, writes
`reports/edgar` report, HTML and outcomes byte for byte as committed. Every section is covered (corpus, golden set,
retrieval, answering, arms, the confirmatory statistics), and test_readme_figures ties the README's figures to the
committed files, so a drift in any shared-corpus figure the README or the report prints fails the suite.

The whole graph on 31 filings is the suite's longest test (about 16 minutes beside the rest on two cores): it is
marked to start first, so it runs beside the rest rather than after it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from edgar_eval_tests.conftest import REAL_CANDIDATES, REAL_CORPUS, REPO, drifted_report_files
from edgar_eval_tests.services import instance_home, project_copy, run_environment

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not (REAL_CORPUS / "manifest.csv").is_file(), reason=f"no real corpus at {REAL_CORPUS}"),
    pytest.mark.slow(minutes=17),
]


def test_a_cold_run_on_the_shared_corpus_writes_the_committed_report_byte_for_byte(tmp_path):
    home = project_copy(tmp_path / "project")
    env = run_environment(home, instance_home(home, None), EDGAR_EVAL_EXECUTOR="in_process")
    command = [sys.executable, "-m", "edgar_eval", "run", "--corpus", str(REAL_CORPUS)]
    command += ["--proposals", str(REAL_CANDIDATES)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=home, timeout=3600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    drifted = drifted_report_files(home / "reports" / "edgar", REPO / "reports" / "edgar")
    assert not drifted, (
        f"reports/edgar {', '.join(drifted)} differ from what the code produces (run the shared corpus as the README "
        "says and commit the result with the change that moved it)"
    )
