"""Every number in the README and in docs/deployment.md's nightly cost comes from a committed report or measurement;
this fails when they drift apart."""

import json

import pytest

from edgar_eval.report import nightly_cost
from edgar_eval.report.readme import (
    COMMITTED_CORPORA,
    END,
    KINDS_END,
    KINDS_FROM,
    KINDS_START,
    START,
    readme_figures,
    readme_kinds,
    replace_block,
    report_table,
)
from edgar_eval_tests.conftest import REPO


def test_readme_figures_are_the_committed_reports_figures():
    reports = {name: (REPO / "reports" / name / "report.md").read_text() for name in COMMITTED_CORPORA}
    readme = (REPO / "README.md").read_text()
    block = readme[readme.index(START) : readme.index(END) + len(END)]
    assert block == readme_figures(reports), "README figures drifted from the reports: run `edgar-eval readme`"
    assert replace_block(readme, block) == readme


def test_readme_kind_examples_are_the_shared_corpus_reports():
    report = (REPO / "reports" / KINDS_FROM / "report.md").read_text()
    readme = (REPO / "README.md").read_text()
    block = readme[readme.index(KINDS_START) : readme.index(KINDS_END) + len(KINDS_END)]
    assert block == readme_kinds(report), "README kind examples drifted from the report: run `edgar-eval readme`"
    kinds = {row["kind"] for row in report_table(report, "Golden questions")}
    assert {row["kind"] for row in report_table(report, "One question of each kind")} == kinds


def test_report_tables_are_read_cell_by_cell_with_escaped_pipes():
    markdown = "## Arms\n\n| arm | note |\n|---|---|\n| A | a \\| b |\n\nSource: x\n## Next\n"
    assert report_table(markdown, "Arms") == [{"arm": "A", "note": "a \\| b"}]


def test_readme_nightly_cost_is_computed_from_the_committed_measurement():
    measured = nightly_cost.Measured.from_json(json.loads((REPO / "reports" / "nightly_cost.json").read_text()))
    page = (REPO / nightly_cost.PAGE).read_text()
    block = page[page.index(nightly_cost.START) : page.index(nightly_cost.END) + len(nightly_cost.END)]
    assert block == nightly_cost.readme_block(measured), (
        f"{nightly_cost.PAGE} nightly cost drifted: run `edgar-eval readme`"
    )
    assert nightly_cost.START not in (REPO / "README.md").read_text(), "the nightly cost is printed once, in the page"


def test_nightly_cost_scales_corpus_work_by_megabytes_and_the_evaluation_by_filings():
    measured = nightly_cost.Measured(
        corpus="c",
        machine="m",
        filings=10,
        megabytes=20.0,
        corpus_step_seconds={"chunk_embeddings": 90.0, "chunks": 10.0},
        run_overhead_seconds=5.0,
        evaluation_seconds=3.6,
    )
    night = nightly_cost.estimate(measured, filings=1_000)  # 100x the filings, at the measured 2 MB each
    assert night.corpus_worker_hours == (100.0 * 100 + 5.0 * 100) / 3600
    assert night.evaluation_hours == pytest.approx(0.1)
    assert night.workers == 4  # 2.92 worker-hours into the 0.9 h the evaluation leaves
    assert night.workers_once_partitioned == 4  # 3.02 worker-hours in one hour
    assert nightly_cost.estimate(measured, filings=1_000, megabytes_per_filing=4.0).corpus_worker_hours > 5.5
    slow = nightly_cost.estimate(measured, filings=20_000)  # the evaluation alone: 2 h
    assert slow.workers is None and any(
        "No number of workers" in line for line in nightly_cost.estimate_lines(measured, slow)
    )


def test_readme_quick_check_count_is_the_tests_it_collects():
    """The README's quick check names how many tests it runs: the number pytest collects for that very command (its
    time, measured alone on two cores, is said as measured, not checked: a timed test would fail on a busy machine)."""
    import re
    import subprocess
    import sys

    readme = (REPO / "README.md").read_text()
    said = re.search(r'-m "not slow"` runs ([\d,]+) tests', readme)
    assert said, "the README's quick check no longer says how many tests it runs"
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not slow", "-p", "no:xdist"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    count = re.search(r"(\d+)(?:/\d+)? tests? collected", collected)
    assert count, collected[-2000:]
    assert int(said.group(1).replace(",", "")) == int(count.group(1)), (
        f"README says {said.group(1)} quick-check tests; pytest collects {count.group(1)}: update README.md"
    )
