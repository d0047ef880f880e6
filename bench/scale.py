"""Measured scale: the whole graph, cold, on synthetic corpora of about 30, 100 and 300 filings (`edgar-eval
demo-corpus --filings N`), on one worker and on two; each stage's seconds at each size, fitted as a power of the
number of filings (seconds = a * filings ** b), and a 10,000-filing night on paper from those fits
(edgar_eval.report.scale). On one worker each cold run is followed by the same command again, nothing changed, and by
one more after one filing's text changed: the warm re-run and the one-filing night (what it ran, step by step
and shard by shard, is recorded).

Each (size, workers) run has a project home of its own under --work (a corpus folder, DAGSTER_HOME, data and reports),
so nothing is shared and every run is cold. "Workers" is both the filing runs at once (`--parallel`) and the steps at
once inside a run (EDGAR_EVAL_MAX_CONCURRENT). A stage is a corpus step summed over the filing runs, or an evaluation
step; their seconds are the run history's step times, the wall time is the CLI's.

    .venv/bin/python bench/scale.py [--sizes 30 100 300] [--workers 1 2] [--work /tmp/scale] \
        [--out reports/scale.json [--resume]]     # then `edgar-eval readme` prints it in docs/deployment.md
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

import dagster as dg  # noqa: E402

from edgar_eval.adapters.local_corpus import amend_filing, write_demo_corpus  # noqa: E402
from edgar_eval.report import scale  # noqa: E402
from edgar_eval.report.nightly_cost import Measured  # noqa: E402
from edgar_eval.synthetic.demo import FILINGS_PER_COMPANY, companies_for  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _seconds(stats) -> float:
    return (stats.end_time or 0.0) - (stats.start_time or 0.0)


def measure(size: int, workers: int, work: Path) -> dict:
    """One cold run of a synthetic corpus of about `size` filings with `workers` workers: wall seconds and each
    stage's step seconds; on one worker, then the same command again (nothing changed) and once more after one
    filing's bytes changed, their wall seconds."""
    companies = companies_for(size)
    home = work / f"{size}-w{workers}"
    shutil.rmtree(home, ignore_errors=True)  # cold: no table, run or corpus file of an earlier measurement
    corpus = home / "corpus"
    write_demo_corpus(corpus, companies)
    environment = {
        **os.environ,
        "DAGSTER_HOME": str(home / "dagster"),
        "EDGAR_EVAL_DATA": str(home / "data"),
        "EDGAR_EVAL_REPORTS": str(home / "reports"),
        "EDGAR_EVAL_MAX_CONCURRENT": str(workers),
    }
    name = f"synthetic-{size}"
    command = [sys.executable, "-m", "edgar_eval", "run", "--corpus", str(corpus), "--name", name]

    def timed() -> float:
        started = time.monotonic()
        result = subprocess.run(
            [*command, "--parallel", str(workers)], env=environment, cwd=REPO, capture_output=True, text=True
        )
        if result.returncode != 0:
            raise SystemExit(f"{name} with {workers} workers failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
        return time.monotonic() - started

    wall = timed()
    stages: dict[str, float] = {}
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:  # the cold run's steps, before any re-run
        for run in instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.SUCCESS])):
            job = "corpus" if run.job_name == "corpus_job" else "evaluation"
            for step in instance.get_run_step_stats(run.run_id):
                stage = f"{job}: {step.step_key}"
                stages[stage] = stages.get(stage, 0.0) + _seconds(step)
    warm = changed = None
    changed_stages: dict[str, float] | None = None
    changed_shards: dict[str, list[int]] | None = None
    if workers == 1:  # the re-runs a night is made of, on the one worker its targets name
        warm = timed()
        with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
            before = {run.run_id for run in instance.get_runs()}
        amend_filing(corpus)
        changed = timed()
        changed_stages, changed_shards = _what_ran(home / "dagster", before)
    return {
        "size": size,
        "filings": companies * FILINGS_PER_COMPANY + 1,
        "workers": workers,
        "wall_seconds": round(wall, 1),
        "stage_seconds": {stage: round(seconds, 2) for stage, seconds in sorted(stages.items())},
        "warm_seconds": None if warm is None else round(warm, 1),
        "one_changed_seconds": None if changed is None else round(changed, 1),
        "one_changed_stage_seconds": changed_stages,
        "one_changed_shards": changed_shards,
    }


def _what_ran(dagster_home: Path, before: set[str]) -> tuple[dict[str, float], dict[str, list[int]]]:
    """What the runs made after `before` (the one-filing night) ran: each stage's step seconds, and for each sharded
    step the shards it wrote and those it kept, and the questions it measured again in those it wrote (its
    materialisation's shards_written, shards_reused and questions_made_again)."""
    stages: dict[str, float] = {}
    shards: dict[str, list[int]] = {}
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        for run in instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.SUCCESS])):
            if run.run_id in before:
                continue
            job = "corpus" if run.job_name == "corpus_job" else "evaluation"
            for step in instance.get_run_step_stats(run.run_id):
                stage = f"{job}: {step.step_key}"
                stages[stage] = round(stages.get(stage, 0.0) + _seconds(step), 2)
            for record in instance.get_records_for_run(
                run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION
            ).records:
                materialization = record.event_log_entry.asset_materialization
                if materialization is None or "shards_written" not in materialization.metadata:
                    continue
                figures = materialization.metadata
                shards[materialization.asset_key.to_user_string()] = [
                    int(str(figures["shards_written"].value)),
                    int(str(figures["shards_reused"].value)),
                    int(str(figures["questions_made_again"].value)),
                ]
    return dict(sorted(stages.items())), dict(sorted(shards.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 300], help="filings of each corpus (about)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="workers of each run")
    parser.add_argument("--work", default="/tmp/edgar-eval-scale", help="where each run's project home goes")
    parser.add_argument("--out", help="also write the measurements as JSON (reports/scale.json is the committed one)")
    parser.add_argument("--resume", action="store_true", help="keep the measurements --out already holds")
    parser.add_argument(
        "--nightly-cost", default=str(REPO / "reports" / "nightly_cost.json"), help="the real corpus's measurement"
    )
    parser.add_argument(
        "--corpus-scope-cost",
        default=str(REPO / "reports" / "corpus_scope_cost.json"),
        help="the corpus scope's cost as the index grows (bench/corpus_scope.py; left out where absent)",
    )
    args = parser.parse_args()
    out = Path(args.out) if args.out else None
    measurements = json.loads(out.read_text()) if args.resume and out and out.is_file() else []
    for size in args.sizes:
        for workers in args.workers:
            if any(m["size"] == size and m["workers"] == workers for m in measurements):
                continue
            measurements.append(measure(size, workers, Path(args.work)))
            print(f"{measurements[-1]['filings']} filings, {workers} worker(s): {measurements[-1]['wall_seconds']} s")
            if out:  # after every run: two hours of measurement are not lost to the last one failing
                out.write_text(json.dumps(measurements, indent=2) + "\n")
    real = Measured.from_json(json.loads(Path(args.nightly_cost).read_text()))
    scoped = Path(args.corpus_scope_cost)
    cost = scale.CorpusScopeCost.from_json(json.loads(scoped.read_text())) if scoped.is_file() else None
    print("\n".join(scale.scale_lines([scale.ScaleRun.from_json(m) for m in measurements], real, cost)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
