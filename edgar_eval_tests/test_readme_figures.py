"""Every number in the README comes from a committed report; this fails when they drift apart."""

from edgar_eval.report.readme import COMMITTED_CORPORA, END, START, readme_figures, replace_block, report_table
from edgar_eval_tests.conftest import REPO


def test_readme_figures_are_the_committed_reports_figures():
    reports = {name: (REPO / "reports" / name / "report.md").read_text() for name in COMMITTED_CORPORA}
    readme = (REPO / "README.md").read_text()
    block = readme[readme.index(START) : readme.index(END) + len(END)]
    assert block == readme_figures(reports), "README figures drifted from the reports: run `edgar-eval readme`"
    assert replace_block(readme, block) == readme


def test_report_tables_are_read_cell_by_cell_with_escaped_pipes():
    markdown = "## Arms\n\n| arm | note |\n|---|---|\n| A | a \\| b |\n\nSource: x\n## Next\n"
    assert report_table(markdown, "Arms") == [{"arm": "A", "note": "a \\| b"}]
