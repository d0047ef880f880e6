"""The lists of assets per job (docs/dagster.md) and of CLI commands (the README's layout) are the definitions' and the
parser's, not typed copies; and the README, a front door, stays short and links only to files that exist."""

import argparse
import re
from pathlib import Path

import pytest

from edgar_eval.cli import build_parser
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.jobs import CORPUS_JOB, EVALUATION_JOB
from edgar_eval.defs.settings import EvalSettings

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
DAGSTER_PAGE = (REPO / "docs" / "dagster.md").read_text()  # the jobs and their assets
README_MOST_LINES = 200
LINK = re.compile(r"\]\(([^)\s]+)\)")  # a Markdown link's target


def _bullet(job: str) -> str:
    """The docs/dagster.md bullet that names the job, joined across its wrapped lines."""
    match = re.search(rf"^- `{job}`(.*?)(?=^- |^\n)", DAGSTER_PAGE, re.M | re.S)
    assert match, job
    return match.group(1)


@pytest.fixture(scope="module")
def defs(tmp_path_factory):
    root = tmp_path_factory.mktemp("lists")
    return build_definitions(
        EvalSettings(
            corpus_dir=str(root / "c"), corpus_name="demo", data_dir=str(root / "d"), reports_dir=str(root / "r")
        )
    )


@pytest.mark.parametrize("job", [CORPUS_JOB, EVALUATION_JOB])
def test_the_dagster_page_lists_each_jobs_assets(defs, job):
    listed = re.findall(r"`([a-z_]+)`", _bullet(job).split(":", 1)[1])
    assert len(listed) == len(set(listed))
    executed = {key.to_user_string() for key in defs.resolve_job_def(job).asset_layer.executable_asset_keys}
    assert set(listed) == executed


def test_the_readme_lists_every_cli_command():
    line = next(line for line in README.splitlines() if line.startswith("edgar_eval/cli.py"))
    listed = line.split("edgar-eval", 1)[1].split("|")
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert [name.strip() for name in listed] == list(commands)


def test_the_readme_is_a_front_door():
    assert len(README.splitlines()) < README_MOST_LINES, "move detail into a docs/ page and link it from the README"


@pytest.mark.parametrize("page", ["README.md", *sorted(f"docs/{path.name}" for path in (REPO / "docs").glob("*.md"))])
def test_every_relative_link_names_a_file_that_exists(page):
    text = (REPO / page).read_text()
    missing = []
    for target in LINK.findall(text):
        if ":" in target:  # a URL, not a file of the repository
            continue
        path, _, anchor = target.partition("#")
        file = (REPO / page).parent / path if path else REPO / page
        if not file.exists():
            missing.append(target)
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text()):
            missing.append(target)
    assert not missing, f"{page} links to files or headings that do not exist: {missing}"


def _anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", markdown, flags=re.S), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings}
