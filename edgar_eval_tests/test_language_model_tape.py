"""The demo corpus answered by a real language model (SmolLM2-135M-Instruct on llama.cpp), recorded once to
tapes/demo/<model>/ and replayed here with no model server: the committed reports/smollm2-135m/demo report, HTML and
outcomes are what the replay makes, byte for byte. A change that moves a figure of that report, or a prompt that no
longer matches a recorded call (a tape miss fails the run), fails here."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MODEL = "SmolLM2-135M-Instruct.Q4_1"
COMMITTED = REPO / "reports" / "smollm2-135m" / "demo"

pytestmark = pytest.mark.slow(minutes=3)  # one cold demo run, every answer replayed


def test_the_committed_language_model_report_is_what_its_tape_replays(tmp_path):
    environment = {
        **os.environ,
        "DAGSTER_HOME": str(tmp_path / "dagster"),
        "EDGAR_EVAL_DATA": str(tmp_path / "data"),
        "EDGAR_EVAL_REPORTS": str(tmp_path / "reports"),
        "EDGAR_EVAL_DEMO_CORPUS": str(tmp_path / "demo_corpus"),
        "EDGAR_EVAL_GENERATOR": "openai-compatible-chat",
        "EDGAR_EVAL_GENERATOR_MODEL": MODEL,
        "EDGAR_EVAL_GENERATOR_URL": "http://127.0.0.1:9/v1",  # nothing listens there: every answer is replayed
        "EDGAR_EVAL_TAPE": "replay",
    }
    result = subprocess.run(
        [sys.executable, "-m", "edgar_eval", "run", "--settings", str(REPO / "experiments" / "smollm2-demo.toml")],
        env=environment,
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for name in ("report.md", "report.html", "outcomes.json"):
        made = (tmp_path / "reports" / "demo" / name).read_bytes()
        assert made == (COMMITTED / name).read_bytes(), f"{name} differs from the committed {COMMITTED / name}"
