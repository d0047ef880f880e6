"""The README's lists of assets per job and of CLI commands are the definitions' and the parser's, not typed copies."""

import argparse
import re
from pathlib import Path

import pytest

from edgar_eval.cli import build_parser
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.jobs import CORPUS_JOB, EVALUATION_JOB
from edgar_eval.defs.settings import EvalSettings

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def _bullet(job: str) -> str:
    """The README bullet that names the job, joined across its wrapped lines."""
    match = re.search(rf"^- `{job}`(.*?)(?=^- |^\n)", README, re.M | re.S)
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
def test_the_readme_lists_each_jobs_assets(defs, job):
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
