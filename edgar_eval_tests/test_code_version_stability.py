"""An asset's code version is a function of the package's source alone, not of what a process imported before
computing it: protocol v5 pins the code versions of golden_questions, generations, abstention_scores and
arm_comparisons, and the registered run must find the same values whatever entry point built its Definitions (a
module a function imports where it uses it was once skipped when not yet loaded, and `generations` hashed two ways)."""

import json
import subprocess
import sys

from edgar_eval.defs.statistics.pins import PINNED_ASSETS

SCRIPT = """
import json, sys
for module in sys.argv[1:]:
    __import__(module)
from edgar_eval.defs.factory import build_definitions
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.statistics.pins import PINNED_ASSETS, PinnedCode
settings = EvalSettings(corpus_dir="/nonexistent", corpus_name="x", data_dir="/tmp/x", reports_dir="/tmp/x")
code = PinnedCode.of(list(build_definitions(settings).get_repository_def().assets_defs_by_key.values()))
print(json.dumps({pin: getattr(code, pin) for pin in PINNED_ASSETS}))
"""


def _versions(*preloaded: str) -> dict[str, str]:
    environment = {"PYTHONWARNINGS": "ignore"}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, *preloaded], capture_output=True, text=True, timeout=300, env=environment
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_pinned_code_versions_do_not_depend_on_what_was_imported_first():
    plain = _versions()
    assert set(plain) == set(PINNED_ASSETS) and all(plain.values())
    # modules an asset's code imports inside a function, and the CLI's launcher that loads some of them up front
    preloaded = _versions("edgar_eval.adapters.service_progress", "edgar_eval.defs.runner", "edgar_eval.cli")
    assert preloaded == plain
