"""Measured scale: the whole graph, cold, on synthetic corpora of about 30, 100 and 300 filings (`edgar-eval
demo-corpus --filings N`), on one worker and on two; each stage's seconds at each size, fitted as a power of the
number of filings (seconds = a * filings ** b), and a 10,000-filing night on paper from those fits.

Each (size, workers) run has a project home of its own under --work (a corpus folder, DAGSTER_HOME, data and reports),
so nothing is shared and every run is cold. "Workers" is both the filing runs at once (`--parallel`) and the steps at
once inside a run (EDGAR_EVAL_MAX_CONCURRENT). A stage is a corpus step summed over the filing runs, or an evaluation
step; their seconds are the run history's step times, the wall time is the CLI's.

    .venv/bin/python bench/scale.py [--sizes 30 100 300] [--workers 1 2] [--work /tmp/scale] [--out scale.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

warnings.filterwarnings("ignore")

import dagster as dg  # noqa: E402

from edgar_eval.adapters.local_corpus import write_demo_corpus  # noqa: E402
from edgar_eval.synthetic.demo import FILINGS_PER_COMPANY, companies_for  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NIGHT_FILINGS = 10_000


def _seconds(stats) -> float:
    return (stats.end_time or 0.0) - (stats.start_time or 0.0)


def measure(size: int, workers: int, work: Path) -> dict:
    """One cold run of a synthetic corpus of about `size` filings with `workers` workers: wall seconds and each
    stage's step seconds."""
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
    started = time.monotonic()
    result = subprocess.run(
        [*command, "--parallel", str(workers)], env=environment, cwd=REPO, capture_output=True, text=True
    )
    wall = time.monotonic() - started
    if result.returncode != 0:
        raise SystemExit(f"{name} with {workers} workers failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    stages: dict[str, float] = {}
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        for run in instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.SUCCESS])):
            job = "corpus" if run.job_name == "corpus_job" else "evaluation"
            for step in instance.get_run_step_stats(run.run_id):
                stage = f"{job}: {step.step_key}"
                stages[stage] = stages.get(stage, 0.0) + _seconds(step)
    return {
        "size": size,
        "filings": companies * FILINGS_PER_COMPANY + 1,
        "workers": workers,
        "wall_seconds": round(wall, 1),
        "stage_seconds": {stage: round(seconds, 2) for stage, seconds in sorted(stages.items())},
    }


def power_fit(points: list[tuple[float, float]]) -> tuple[float, float] | None:
    """Least squares on logs: seconds = a * filings ** b, from (filings, seconds) points with positive seconds; None
    with fewer than two sizes."""
    usable = [(math.log(n), math.log(s)) for n, s in points if n > 0 and s > 0]
    if len({x for x, _ in usable}) < 2:
        return None
    mean_x = sum(x for x, _ in usable) / len(usable)
    mean_y = sum(y for _, y in usable) / len(usable)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in usable) / sum((x - mean_x) ** 2 for x, _ in usable)
    return math.exp(mean_y - slope * mean_x), slope


def fits(measurements: list[dict], workers: int) -> dict[str, tuple[float, float]]:
    """Each stage's power fit over the sizes measured with `workers`."""
    runs = [m for m in measurements if m["workers"] == workers]
    stages = sorted({stage for m in runs for stage in m["stage_seconds"]})
    found = {}
    for stage in stages:
        fit = power_fit([(m["filings"], m["stage_seconds"].get(stage, 0.0)) for m in runs])
        if fit is not None:
            found[stage] = fit
    wall = power_fit([(m["filings"], m["wall_seconds"]) for m in runs])
    if wall is not None:
        found["wall"] = wall
    return found


def report_lines(measurements: list[dict]) -> list[str]:
    lines = ["| filings | workers | wall | corpus steps | evaluation steps |", "|---|---|---|---|---|"]
    for m in sorted(measurements, key=lambda m: (m["filings"], m["workers"])):
        corpus = sum(s for stage, s in m["stage_seconds"].items() if stage.startswith("corpus"))
        evaluation = sum(s for stage, s in m["stage_seconds"].items() if stage.startswith("evaluation"))
        lines.append(
            f"| {m['filings']} | {m['workers']} | {m['wall_seconds']:.0f} s | {corpus:.0f} s | {evaluation:.0f} s |"
        )
    for workers in sorted({m["workers"] for m in measurements}):
        fitted = fits(measurements, workers)
        if not fitted:
            continue
        lines += ["", f"Fits, {workers} worker(s): seconds = a * filings ** b; the ten stages that grow fastest", ""]
        lines += ["| stage | a | b | at 10,000 filings |", "|---|---|---|---|"]
        ranked = sorted((s for s in fitted if s != "wall"), key=lambda s: -fitted[s][0] * NIGHT_FILINGS ** fitted[s][1])
        for stage in [*ranked[:10], "wall"] if "wall" in fitted else ranked[:10]:
            a, b = fitted[stage]
            lines.append(f"| {stage} | {a:.3g} | {b:.2f} | {a * NIGHT_FILINGS**b / 3600:.1f} h |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 300], help="filings of each corpus (about)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="workers of each run")
    parser.add_argument("--work", default="/tmp/edgar-eval-scale", help="where each run's project home goes")
    parser.add_argument("--out", help="also write the measurements as JSON")
    args = parser.parse_args()
    measurements = []
    for size in args.sizes:
        for workers in args.workers:
            measurements.append(measure(size, workers, Path(args.work)))
            print(f"{measurements[-1]['filings']} filings, {workers} worker(s): {measurements[-1]['wall_seconds']} s")
    print("\n".join(report_lines(measurements)))
    if args.out:
        Path(args.out).write_text(json.dumps(measurements, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
