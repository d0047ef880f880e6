"""Reproduce a committed report from scratch: run the graph on a corpus in fresh folders (a new Dagster home, data and
reports folders under a temporary directory) and compare the report it writes with the committed one, printing the
wall time and the lines that differ. The confirmatory report (reports/edgar-wide, protocol v4's system: the eager
reader) takes about three times the shared corpus's cold run, so CI does not run this; CI reproduces the demo report.

    .venv/bin/python bench/reproduce_report.py ../shared/corpus/edgar-wide --generator eager-reader \\
        --proposals ../shared/golden/real_candidates.jsonl
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="folder of EDGAR .htm filings")
    parser.add_argument("--name", help="corpus name (default: the folder's name), the committed report's folder")
    parser.add_argument("--generator", default="table-reader", help="EDGAR_EVAL_GENERATOR of the committed run")
    parser.add_argument("--proposals", nargs="*", default=[], help="the proposals the committed run read")
    args = parser.parse_args()
    name = args.name or args.corpus.resolve().name
    committed = PROJECT / "reports" / name / "report.md"
    if not committed.is_file():
        print(f"no committed report at {committed}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="reproduce-") as scratch:
        root = Path(scratch)
        (root / "dagster").mkdir()
        env = {
            **os.environ,
            "DAGSTER_HOME": str(root / "dagster"),
            "EDGAR_EVAL_DATA": str(root / "data"),
            "EDGAR_EVAL_REPORTS": str(root / "reports"),
            "EDGAR_EVAL_GENERATOR": args.generator,
        }
        command = [sys.executable, "-m", "edgar_eval.cli", "run", "--corpus", str(args.corpus), "--name", name]
        if args.proposals:
            command += ["--proposals", *args.proposals]
        started = time.perf_counter()
        finished = subprocess.run(command, cwd=PROJECT, env=env)
        seconds = time.perf_counter() - started
        print(f"cold run of {name} ({args.generator}): {seconds:.0f} s, exit {finished.returncode}")
        if finished.returncode != 0:
            return finished.returncode
        made = (root / "reports" / name / "report.md").read_text().splitlines()
    differences = [
        line
        for line in difflib.unified_diff(committed.read_text().splitlines(), made, "committed", "reproduced", n=0)
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    print(f"report.md: {'identical' if not differences else f'{len(differences)} lines differ'}")
    for line in differences[:40]:
        print(line)
    return 0 if not differences else 1


if __name__ == "__main__":
    raise SystemExit(main())
