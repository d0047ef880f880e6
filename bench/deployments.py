"""Cold runs of `edgar-eval run` side by side on in-process + SQLite, multiprocess + PostgreSQL, and Celery (two
workers, Redis) + PostgreSQL + the S3-compatible store: wall time, peak memory of the whole process tree (the run,
its step processes and the workers, summed), what each run launched, and whether the reports are byte-identical.
Then, on the first deployment, the warm re-run with nothing changed and, for a --corpus (copied to a scratch folder),
the re-run after one filing's bytes change and after they are restored. Services are started on loopback as the
deployment tests start them.

    .venv/bin/python bench/deployments.py                                 # the demo corpus
    .venv/bin/python bench/deployments.py --corpus ../shared/corpus/edgar \\
        --proposals ../shared/golden/real_candidates.jsonl                # the real corpus (all three: about an hour)
    .venv/bin/python bench/deployments.py --only "in_process + SQLite"    # one deployment
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
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


@dataclass
class Timed:
    wall: float  # seconds
    peak: float  # MiB of the run's and the workers' process trees
    code: int  # exit code
    launched: str  # what the run launched: corpus partitions run / all, and whether the evaluation ran


def timed_run(env: dict[str, str], workers: list[subprocess.Popen], corpus: str | None, proposals: list[str]) -> Timed:
    """One `edgar-eval run`, timed, with the peak memory of its process tree and the workers'."""
    command = [sys.executable, "-m", "edgar_eval", "run"] + (["--corpus", corpus] if corpus else [])
    command += [argument for path in proposals for argument in ("--proposals", path)]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, cwd=env["EDGAR_EVAL_HOME"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    with TreeMemory([process.pid] + [worker.pid for worker in workers]) as memory:
        out, err = process.communicate()
    if process.returncode:  # what it said last, on both streams (a failed partition is reported on stdout)
        print(out.decode(errors="replace")[-2000:] + err.decode(errors="replace")[-2000:], file=sys.stderr)
    lines = out.decode(errors="replace").splitlines()
    statuses = [line.split()[0] for line in lines if line.startswith("  ") and len(line.split()) >= 2]
    partitions = [status for status in statuses if status in ("ok", "FAILED", "current")]  # not the steps' "done"
    ran = sum(status != "current" for status in partitions)
    evaluation = "evaluation current" if any(line.startswith("evaluation current") for line in lines) else "evaluation"
    launched = f"{ran}/{len(partitions)} partitions, {evaluation}"
    return Timed(time.perf_counter() - started, memory.peak_mib, process.returncode, launched)


def change_one_filing(corpus: Path) -> str:
    """Append an HTML comment to the first filing of a corpus copy: new bytes (a new sha256), the same text."""
    first = sorted(corpus.rglob("*.htm"))[0]
    first.write_bytes(first.read_bytes() + b"\n<!-- edited by bench/deployments.py -->\n")
    return first.relative_to(corpus).as_posix()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", help="a corpus folder (default: the demo corpus)")
    parser.add_argument("--proposals", action="append", default=[], help="proposal files, as edgar-eval run takes them")
    parser.add_argument("--only", action="append", choices=DEPLOYMENTS, help="measure only these deployments")
    parser.add_argument("--cold-only", action="store_true", help="no re-runs: only each deployment's cold run")
    args = parser.parse_args()
    chosen = args.only or list(DEPLOYMENTS)
    proposals = [str(Path(path).resolve()) for path in args.proposals]
    name = Path(args.corpus).resolve().name if args.corpus else "demo"
    rows: list[tuple[str, str, Timed]] = []
    reports: dict[str, bytes | None] = {}
    with contextlib.ExitStack() as services, tempfile.TemporaryDirectory(prefix="edgar-eval-bench-") as scratch:
        corpus = None
        if args.corpus:  # a copy, so that the first deployment can change one filing after its warm run
            corpus = str(Path(scratch) / "corpus" / name)
            shutil.copytree(args.corpus, corpus)
        needs_postgres = any("Postgres" in deployment_name for deployment_name in chosen)
        postgres = services.enter_context(postgres_server()) if needs_postgres else None
        redis = services.enter_context(redis_server()) if "celery + Postgres + S3" in chosen else None
        store = services.enter_context(s3_server()) if "celery + Postgres + S3" in chosen else None
        for number, deployment_name in enumerate(chosen):
            folder = Path(scratch) / f"deployment{number}"
            demo_corpus = str(folder / "demo_corpus")  # the workers' environment too: set before they start
            # The corpus and the proposals as a deployment sets them: in the environment of the run and of every
            # worker, which a run launched from the UI or the daemon reads (one the CLI launches carries its own).
            environment = {"EDGAR_EVAL_DEMO_CORPUS": demo_corpus}
            if corpus:
                environment["EDGAR_EVAL_CORPUS_DIR"] = corpus
            if proposals:
                environment["EDGAR_EVAL_PROPOSALS"] = os.pathsep.join(proposals)
            with deployment(deployment_name, folder, postgres, redis, store, **environment) as (
                env,
                workers,
            ):
                rows.append((deployment_name, "cold", timed_run(env, workers, corpus, proposals)))
                if number == 0 and not args.cold_only:
                    rows.append((deployment_name, "warm, nothing changed", timed_run(env, workers, corpus, proposals)))
                    if corpus:
                        report = (folder / "reports" / name / "report.md").read_bytes()
                        original = Path(corpus, change_one_filing(Path(corpus)))
                        timed = timed_run(env, workers, corpus, proposals)
                        rows.append((deployment_name, f"warm, {original.name} changed", timed))
                        original.write_bytes(Path(args.corpus, original.relative_to(corpus)).read_bytes())
                        timed = timed_run(env, workers, corpus, proposals)  # back as it was, for the report check
                        rows.append((deployment_name, "warm, that filing restored", timed))
                        if (folder / "reports" / name / "report.md").read_bytes() != report:
                            print("the restored corpus gave another report than the cold run", file=sys.stderr)
            report_file = folder / "reports" / name / "report.md"
            reports[deployment_name] = report_file.read_bytes() if report_file.is_file() else None
    print(f"corpus: {name}; {len(chosen)} deployments on 2 cores")
    print("| deployment | run | wall s | peak MiB (run, steps, workers) | launched | exit |")
    print("|---|---|---|---|---|---|")
    for deployment_name, kind, timed in rows:
        print(f"| {deployment_name} | {kind} | {timed.wall:.1f} | {timed.peak:.0f} | {timed.launched} | {timed.code} |")
    written = [report for report in reports.values() if report is not None]
    identical = len(written) == len(reports) and len(set(written)) == 1
    print(f"reports byte-identical across the {len(reports)} deployments: {'yes' if identical else 'NO'}")
    return 0 if identical and all(timed.code == 0 for _, _, timed in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
