"""On paper: what a nightly cold run over many filings costs, from this machine's measured costs.

Reads the run that built each filing partition and the latest evaluation run from the run history (DAGSTER_HOME)
after a cold `edgar-eval run` over a corpus, takes each corpus step's seconds per megabyte of filing, and scales them to
`--filings` filings of `--mb-per-filing` megabytes. Filing partitions are independent runs, so corpus work divides
by the number of workers; the evaluation job is one unpartitioned run, so its steps scale with the number of filings
(each question searches its own company and year, so the work per question does not grow) but run on one worker at a
time apart from the steps that do not depend on each other.

    DAGSTER_HOME=$PWD/.dagster_home .venv/bin/python bench/nightly_cost.py --corpus ../shared/corpus/edgar \\
        [--write reports/nightly_cost.json]     # the measurement docs/deployment.md's estimate is computed from
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import warnings
from pathlib import Path
from typing import Sequence

warnings.filterwarnings("ignore")

import dagster as dg  # noqa: E402

from edgar_eval.report.nightly_cost import Measured, estimate, estimate_lines  # noqa: E402


def _seconds(stats) -> float:
    return (stats.end_time or 0.0) - (stats.start_time or 0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", required=True, help="the corpus folder the measured run read (for filing sizes)")
    parser.add_argument("--name", help="the corpus name of the measured runs (default: the folder's name)")
    parser.add_argument("--filings", type=int, default=10_000, help="filings of the nightly run (default 10,000)")
    parser.add_argument(
        "--mb-per-filing", type=float, default=None, help="megabytes a filing (default: the measured corpus's mean)"
    )
    parser.add_argument(
        "--write", help="also save the measurement as JSON (reports/nightly_cost.json, for docs/deployment.md)"
    )
    args = parser.parse_args()

    from edgar_eval.adapters.local_corpus import list_filings

    sizes = {key: (Path(args.corpus) / path).stat().st_size / 1e6 for key, path in list_filings(args.corpus).items()}
    instance = dg.DagsterInstance.get()
    # per filing the run that built it (the slowest of its successful runs: a warm run reuses every table), and the
    # latest evaluation (it reruns whole, warm or cold)
    built: dict[str, tuple[float, Sequence, float]] = {}
    evaluation = None
    from edgar_eval.defs.runner import CORPUS_TAG

    corpus_runs = dg.RunsFilter(
        statuses=[dg.DagsterRunStatus.SUCCESS], tags={CORPUS_TAG: args.name or Path(args.corpus).resolve().name}
    )
    for run in instance.get_runs(filters=corpus_runs):
        key = run.tags.get("dagster/partition")
        if run.job_name == "corpus_job" and key in sizes:
            steps = instance.get_run_step_stats(run.run_id)
            work = sum(_seconds(step) for step in steps)
            if key not in built or work > sum(_seconds(step) for step in built[key][1]):
                built[key] = (work, steps, _seconds(instance.get_run_stats(run.run_id)))
        elif run.job_name == "evaluation_job" and evaluation is None:
            evaluation = run
    if not built or evaluation is None:
        print(
            f"no finished corpus and evaluation runs tagged {corpus_runs.tags} in the run history: run `edgar-eval run`"
        )
        return 2

    per_step: dict[str, float] = {}
    run_overhead = 0.0
    for work, steps, wall in built.values():
        for step in steps:
            per_step[step.step_key] = per_step.get(step.step_key, 0.0) + _seconds(step)
        run_overhead += wall - work
    measured = Measured(
        corpus=args.name or Path(args.corpus).resolve().name,
        machine=machine(),
        filings=len(built),
        megabytes=round(sum(sizes[key] for key in built), 3),
        corpus_step_seconds={step: round(seconds, 3) for step, seconds in sorted(per_step.items())},
        run_overhead_seconds=round(run_overhead, 3),
        evaluation_seconds=round(_seconds(instance.get_run_stats(evaluation.run_id)), 3),
    )
    print("\n".join(estimate_lines(measured, estimate(measured, args.filings, args.mb_per_filing))))
    if args.write:
        Path(args.write).write_text(json.dumps(dataclasses.asdict(measured), indent=2) + "\n")
        print(f"wrote {args.write}: `edgar-eval readme` prints its estimate in docs/deployment.md")
    return 0


def machine() -> str:
    """The processor and the cores the measurement ran on: the estimate holds for workers like it."""
    lines = Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []
    model = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), None)
    return f"{model or platform.processor() or platform.machine()}, {os.cpu_count()} cores"


if __name__ == "__main__":
    raise SystemExit(main())
