"""Cold runs of `edgar-eval run` side by side on in-process + SQLite, multiprocess + PostgreSQL, and Celery (two
workers, Redis) + PostgreSQL + the S3-compatible store: wall time, peak memory of the whole process tree (the run,
its step processes and the workers, summed), and whether the reports are byte-identical. Then the warm re-run of
the first, with nothing changed. Services are started on loopback as the deployment tests start them.

    .venv/bin/python bench/deployments.py                                 # the demo corpus
    .venv/bin/python bench/deployments.py --corpus ../shared/corpus/edgar # the real corpus (all three: about an hour)
    .venv/bin/python bench/deployments.py --only "in_process + SQLite"    # one deployment
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgar_eval_tests.services import (  # noqa: E402
    DEPLOYMENTS,
    deployment,
    postgres_server,
    redis_server,
    s3_server,
)


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class TreeMemory:
    """Samples the summed resident memory of some process trees every 0.2 s; `peak_mib` is the largest sum seen."""

    def __init__(self, roots: list[int]) -> None:
        self.roots = roots
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            seen, todo, total = set(), list(self.roots), 0
            while todo:
                pid = todo.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                total += _rss_kib(pid)
                todo.extend(_children(pid))
            self.peak_kib = max(self.peak_kib, total)
            self._stop.wait(0.2)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak_mib(self) -> float:
        return self.peak_kib / 1024


def timed_run(env: dict[str, str], workers: list[subprocess.Popen], corpus: str | None) -> tuple[float, float, int]:
    """(wall seconds, peak MiB of the run's and the workers' process trees, exit code) of one `edgar-eval run`."""
    command = [sys.executable, "-m", "edgar_eval", "run"] + (["--corpus", corpus] if corpus else [])
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, cwd=env["EDGAR_EVAL_HOME"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    with TreeMemory([process.pid] + [worker.pid for worker in workers]) as memory:
        _, err = process.communicate()
    if process.returncode:
        print(err.decode(errors="replace")[-2000:], file=sys.stderr)
    return time.perf_counter() - started, memory.peak_mib, process.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", help="a corpus folder (default: the demo corpus)")
    parser.add_argument("--only", action="append", choices=DEPLOYMENTS, help="measure only these deployments")
    args = parser.parse_args()
    chosen = args.only or list(DEPLOYMENTS)
    corpus = str(Path(args.corpus).resolve()) if args.corpus else None
    name = Path(corpus).name if corpus else "demo"
    rows, reports = [], {}
    with contextlib.ExitStack() as services, tempfile.TemporaryDirectory(prefix="edgar-eval-bench-") as scratch:
        needs_postgres = any("Postgres" in deployment_name for deployment_name in chosen)
        postgres = services.enter_context(postgres_server()) if needs_postgres else None
        redis = services.enter_context(redis_server()) if "celery + Postgres + S3" in chosen else None
        store = services.enter_context(s3_server()) if "celery + Postgres + S3" in chosen else None
        for number, deployment_name in enumerate(chosen):
            folder = Path(scratch) / f"deployment{number}"
            demo_corpus = str(folder / "demo_corpus")  # the workers' environment too: set before they start
            with deployment(deployment_name, folder, postgres, redis, store, EDGAR_EVAL_DEMO_CORPUS=demo_corpus) as (
                env,
                workers,
            ):
                wall, peak, code = timed_run(env, workers, corpus)
                rows.append((deployment_name, "cold", wall, peak, code))
                if number == 0:
                    wall, peak, code = timed_run(env, workers, corpus)
                    rows.append((deployment_name, "warm (nothing changed)", wall, peak, code))
            report = folder / "reports" / name / "report.md"
            reports[deployment_name] = report.read_bytes() if report.is_file() else None
    print(f"corpus: {name}; {len(chosen)} deployments, cold runs on 2 cores")
    print("| deployment | run | wall s | peak MiB (run, steps, workers) | exit |")
    print("|---|---|---|---|---|")
    for deployment_name, kind, wall, peak, code in rows:
        print(f"| {deployment_name} | {kind} | {wall:.1f} | {peak:.0f} | {code} |")
    written = [report for report in reports.values() if report is not None]
    identical = len(written) == len(reports) and len(set(written)) == 1
    print(f"reports byte-identical across the {len(reports)} deployments: {'yes' if identical else 'NO'}")
    return 0 if identical and all(row[4] == 0 for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
