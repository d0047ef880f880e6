"""On paper: what a nightly cold run over many filings costs, from this machine's measured costs.

Reads the run that built each filing partition and the latest evaluation run from the run history (DAGSTER_HOME)
after a cold `edgar-eval run` over a corpus, takes each corpus step's seconds per megabyte of filing, and scales them to
`--filings` filings of `--mb-per-filing` megabytes. Filing partitions are independent runs, so corpus work divides
by the number of workers; the evaluation job is one unpartitioned run, so its steps scale with the number of filings
(each question searches its own company and year, so the work per question does not grow) but run on one worker at a
time apart from the steps that do not depend on each other.

    DAGSTER_HOME=$PWD/.dagster_home .venv/bin/python bench/nightly_cost.py --corpus ../shared/corpus/edgar
"""

from __future__ import annotations

import argparse
import math
import warnings
from pathlib import Path
from typing import Sequence

warnings.filterwarnings("ignore")

import dagster as dg  # noqa: E402


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
    parser.add_argument("--hour", type=float, default=3600.0, help="the deadline in seconds (default an hour)")
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
    megabytes = sum(sizes[key] for key in built)
    run_overhead = 0.0
    for work, steps, wall in built.values():
        for step in steps:
            per_step[step.step_key] = per_step.get(step.step_key, 0.0) + _seconds(step)
        run_overhead += wall - work
    evaluation_steps = instance.get_run_step_stats(evaluation.run_id)
    evaluation_wall = _seconds(instance.get_run_stats(evaluation.run_id))

    filings = len(built)
    mb = args.mb_per_filing if args.mb_per_filing is not None else megabytes / filings
    scale_mb = args.filings * mb / megabytes
    corpus_seconds = sum(per_step.values()) * scale_mb + run_overhead * args.filings / filings
    evaluation_seconds = evaluation_wall * args.filings / filings
    print(f"measured: {filings} filings, {megabytes:.1f} MB, {len(evaluation_steps)} evaluation steps")
    print("| corpus step | measured s | s per MB |")
    print("|---|---|---|")
    for step, seconds in sorted(per_step.items(), key=lambda item: -item[1]):
        print(f"| {step} | {seconds:.1f} | {seconds / megabytes:.2f} |")
    print(f"| (run overhead, per filing) | {run_overhead:.1f} | {run_overhead / filings:.2f} s a filing |")
    print(f"evaluation run: {evaluation_wall:.1f} s wall for {filings} filings")
    print()
    print(f"nightly cold run over {args.filings:,} filings of {mb:.2f} MB:")
    print(f"  corpus: {corpus_seconds / 3600:.1f} worker-hours (parse, chunk, embed), divided among workers")
    print(f"  evaluation: {evaluation_seconds / 3600:.1f} hours on one worker (one unpartitioned run)")
    budget = args.hour - evaluation_seconds
    if budget <= 0:
        print(
            f"  no number of workers brings it under {args.hour / 3600:.1f} h: the evaluation alone takes "
            f"{evaluation_seconds / 3600:.1f} h; it must be partitioned (by company) to spread over workers"
        )
    else:
        workers = math.ceil(corpus_seconds / budget)
        print(f"  under {args.hour / 3600:.1f} h with {workers} workers like this machine (2 cores each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
