import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_import_contract_holds():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert lint, "import-linter is a test dependency"
    result = subprocess.run([lint, "--config", str(REPO / "pyproject.toml")], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 5 kept, 0 broken" in result.stdout


def test_no_report_module_imports_the_report_builder():
    """build_report's callers are outside edgar_eval.report: a section family that imports the builder back closes an
    import circle (the builder imports every family), even under TYPE_CHECKING."""
    import grimp

    graph = grimp.build_graph("edgar_eval")
    builder = "edgar_eval.report.builder"
    importers = {m for m in graph.find_modules_that_directly_import(builder) if m.startswith("edgar_eval.report")}
    assert not importers, sorted(importers)
    assert graph.find_modules_that_directly_import(builder), "something outside the report builds it"


def test_every_use_of_dagsters_private_modules_says_why_on_its_line():
    """Dagster's `_`-modules change without notice: each use is one we could not avoid, and says why where it is."""
    unexplained = [
        f"{path.relative_to(REPO)}:{number}"
        for folder in ("edgar_eval", "bench")
        for path in sorted((REPO / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\bdagster\._", line) and "# private:" not in line
    ]
    assert unexplained == [], f"dagster._ used without a `# private: <why>` on its line: {unexplained}"
