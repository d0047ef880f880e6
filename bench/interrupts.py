"""Interrupts: `edgar-eval run` on the demo corpus, Ctrl-C'd as a terminal does it, many times, at seeded moments.

Each trial starts the CLI in a session and process group of its own (a terminal's foreground job) and sends SIGINT to
that whole group (a terminal's Ctrl-C; `--alone`: to the CLI's process only) at a seeded delay into one phase:

- corpus: the corpus tables of `--cold` filings (seeded) are deleted first, so their partitions' runs go cold; the
  delay counts from the CLI's `corpus ...` line;
- evaluation: every evaluation table is deleted first, so the evaluation run (multiprocess executor) goes whole
  (`--evaluation-tables K`: K of them, seeded, so a run of those assets only goes, which makes the trial and its rerun
  shorter); the delay counts from the last filing's line.

A CLI not gone 30 s after the signal is sent a second SIGINT, then SIGTERM, then SIGKILL (10 s apart). Each trial
records the exit code, the seconds from the signal to the exit, whether 'Traceback' appears in its stdout or stderr
(and where from: Dagster's compute-log watcher, SQLAlchemy closing a connection, the fork server's preload, a step
process, the CLI), the processes it left alive after it exits (its session's, and its worker's), and the final status
of every run it created (from the run history at DAGSTER_HOME: canceled or success, never failure, started or not
started). Then the CLI is run again, uninterrupted, and its report must be byte-identical to an uninterrupted run's
(the first run's, or `--reference`). Prints a table and a summary line.

    .venv/bin/python bench/interrupts.py [--trials 20] [--seed 0] [--work /tmp/edgar-interrupts] [--alone] \
        [--phases corpus evaluation] [--evaluation-tables K] [--reference report.md]

The work folder holds DAGSTER_HOME, the data and the reports (EDGAR_EVAL_DATA, EDGAR_EVAL_REPORTS); reused, it starts
warm. The CLI is the `edgar-eval` beside this Python (the project importable as PYTHONPATH or the install says).
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = "demo"
ESCALATE_AFTER = 30.0  # seconds after the Ctrl-C before a second SIGINT
ESCALATE_STEP = 10.0  # then SIGTERM, then SIGKILL, this far apart
WINDOWS = {"corpus": 12.0, "evaluation": 60.0}  # the delays are drawn from [0, window) seconds into the phase
SOME_TABLES_WINDOW = 15.0  # the evaluation's window when only some of its tables are deleted
CORPUS_LINE = re.compile(r"^corpus '")
FILING_LINE = re.compile(r"^\s+(ok|current|FAILED)\s+\S+.*\[(\d+)/(\d+),")
# where a traceback came from: the first of these its text names
SOURCES = (
    ("compute-log watcher", ("watch_orphans",)),
    ("sqlalchemy close", ("Exception closing connection", "Exception terminating connection")),
    ("fork server preload", ("warm_code_location", "forkserver.py")),
    ("step process", ("ForkServerProcess", "multiprocessing/process.py", "child_process_executor")),
)
GOOD = {"CANCELED", "SUCCESS"}


@dataclass
class Trial:
    number: int
    phase: str
    delay: float
    target: str
    exit_code: int | None = None
    seconds: float | None = None  # from the first signal to the exit
    escalated: list[str] = field(default_factory=list)
    tracebacks: list[str] = field(default_factory=list)
    left: int = 0  # processes of its session alive after it exited
    statuses: dict[str, int] = field(default_factory=dict)
    rerun_exit: int | None = None
    identical: bool | None = None
    note: str = ""

    @property
    def clean(self) -> bool:
        return (
            self.exit_code == 130
            and not self.escalated
            and not self.tracebacks
            and set(self.statuses) <= GOOD
            and self.rerun_exit == 0
            and bool(self.identical)
        )


def cli() -> list[str]:
    found = Path(sys.executable).with_name("edgar-eval")
    return [str(found), "run"] if found.exists() else [sys.executable, "-m", "edgar_eval", "run"]


def environment(work: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DAGSTER_HOME": str(work / "dagster_home"),
        "EDGAR_EVAL_DATA": str(work / "data"),
        "EDGAR_EVAL_REPORTS": str(work / "reports"),
    }


def run_whole(work: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cli(), env=environment(work), cwd=REPO, capture_output=True, text=True)


def tables(work: Path) -> tuple[list[str], list[Path], list[Path]]:
    """The filings' keys, the corpus tables (folders of one file per filing) and every other table of the corpus."""
    root = work / "data" / CORPUS
    keys = sorted(path.name.split(".")[0] for path in (root / "filings").iterdir())
    corpus, evaluation = [], []
    for path in sorted(root.iterdir()):
        stems = {child.name.split(".")[0] for child in path.iterdir()} if path.is_dir() else set()
        (corpus if stems and stems <= set(keys) else evaluation).append(path)
    return keys, corpus, evaluation


def prepare(work: Path, phase: str, rng: random.Random, cold: int, some: int) -> str:
    keys, corpus, evaluation = tables(work)
    if phase == "corpus":
        chosen = sorted(rng.sample(keys, min(cold, len(keys))))
        for folder in corpus:
            for path in folder.iterdir():
                if path.name.split(".")[0] in chosen:
                    path.unlink()
        return "cold: " + ", ".join(chosen)
    chosen = sorted(rng.sample(evaluation, some)) if 0 < some < len(evaluation) else evaluation
    for path in chosen:
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    if len(chosen) < len(evaluation):
        return "deleted: " + ", ".join(path.name.split(".")[0] for path in chosen)
    return f"{len(chosen)} evaluation tables deleted"


def _reader(stream, lines: list[tuple[float, str]], anchor: threading.Event, phase: str) -> None:
    for line in stream:
        lines.append((time.monotonic(), line))
        if phase == "corpus" and CORPUS_LINE.match(line):
            anchor.set()
        matched = FILING_LINE.match(line)
        if phase == "evaluation" and matched and matched.group(2) == matched.group(3):
            anchor.set()


def session_processes(sid: int, exclude: int) -> int:
    """Processes the CLI left behind: those of its session, and those its worker started (in a session of their own:
    `edgar-eval run` does its work in a worker that a terminal's Ctrl-C does not reach), which carry the CLI's pid in
    EDGAR_EVAL_RUN_WORKER."""
    result = subprocess.run(["ps", "-e", "-o", "pid=,sid="], capture_output=True, text=True)
    alive = [line.split() for line in result.stdout.splitlines() if line.strip()]
    left = 0
    for pid, session in alive:
        if pid == str(exclude):
            continue
        if session == str(sid) or _worker_of(pid) == str(sid):
            left += 1
    return left


def _worker_of(pid: str) -> str | None:
    """The EDGAR_EVAL_RUN_WORKER a process was started with (None: unset, or its environment cannot be read)."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return None
    for entry in environ:
        if entry.startswith(b"EDGAR_EVAL_RUN_WORKER="):
            return entry.split(b"=", 1)[1].decode()
    return None


def traceback_sources(text: str) -> list[str]:
    """Where each traceback in `text` came from: the line before it (SQLAlchemy logs its own first) and the text up to
    the next one name the source."""
    found = []
    lines = text.splitlines()
    starts = [number for number, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
    for at, number in enumerate(starts):
        block = "\n".join(lines[max(0, number - 1) : starts[at + 1] if at + 1 < len(starts) else len(lines)])
        if at + 1 < len(starts) and starts[at + 1] == number + 1:
            continue  # two processes' tracebacks printed at once: the next block is this one's
        found.append(next((name for name, marks in SOURCES if any(mark in block for mark in marks)), "the CLI"))
    return found


def interrupt(work: Path, trial: Trial) -> None:
    import dagster as dg

    started_at = time.time()
    process = subprocess.Popen(
        cli(),
        env=environment(work),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a session and process group of its own: a terminal's foreground job
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's job: not ignored
    )
    out: list[tuple[float, str]] = []
    err: list[tuple[float, str]] = []
    anchor = threading.Event()
    readers = [
        threading.Thread(target=_reader, args=(process.stdout, out, anchor, trial.phase), daemon=True),
        threading.Thread(target=_reader, args=(process.stderr, err, threading.Event(), ""), daemon=True),
    ]
    for reader in readers:
        reader.start()

    def send(number: int, group: bool) -> None:
        try:
            os.killpg(process.pid, number) if group else os.kill(process.pid, number)
        except ProcessLookupError:
            pass

    while not anchor.wait(0.2):
        if process.poll() is not None:
            break
    if process.poll() is not None:
        trial.note = "ended before its phase began"
    else:
        time.sleep(trial.delay)
    signalled = time.monotonic()
    if process.poll() is None:
        send(signal.SIGINT, trial.target == "group")
        for number, name, wait in (
            (None, "", ESCALATE_AFTER),
            (signal.SIGINT, "SIGINT", ESCALATE_STEP),
            (signal.SIGTERM, "SIGTERM", ESCALATE_STEP),
            (signal.SIGKILL, "SIGKILL", ESCALATE_STEP),
        ):
            if number is not None:
                trial.escalated.append(name)
                send(number, False)
            try:
                process.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
    process.wait()
    trial.exit_code = process.returncode
    trial.seconds = time.monotonic() - signalled
    for reader in readers:
        reader.join(10)
    time.sleep(2)  # what it left behind has had time to notice
    trial.left = session_processes(process.pid, process.pid)
    text = "".join(line for _, line in out) + "".join(line for _, line in err)
    trial.tracebacks = traceback_sources(text)
    if trial.tracebacks:
        (work / f"trial-{trial.number}.log").write_text(text)
    since = datetime.datetime.fromtimestamp(started_at - 1, tz=datetime.timezone.utc)
    with dg.DagsterInstance.from_config(str(work / "dagster_home")) as instance:  # the runs it created
        for run in instance.get_runs(dg.RunsFilter(created_after=since)):
            trial.statuses[run.status.value] = trial.statuses.get(run.status.value, 0) + 1


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20, help="trials, the phases taken in turn")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--work", type=Path, default=Path("/tmp/edgar-interrupts"))
    parser.add_argument("--alone", action="store_true", help="signal the CLI's process only, not its group")
    parser.add_argument("--phases", nargs="+", default=["corpus", "evaluation"], choices=["corpus", "evaluation"])
    parser.add_argument("--cold", type=int, default=3, help="filings whose corpus tables a corpus trial deletes")
    parser.add_argument(
        "--evaluation-tables", type=int, default=0, help="evaluation tables an evaluation trial deletes (0: all)"
    )
    parser.add_argument("--reference", type=Path, help="an uninterrupted run's report.md (default: the first run's)")
    args = parser.parse_args()
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    os.environ["DAGSTER_HOME"] = str(work / "dagster_home")  # the run history the statuses are read from
    rng = random.Random(args.seed)

    started = time.monotonic()
    first = run_whole(work)  # the store every trial starts from (cold the first time)
    if first.returncode != 0:
        print(f"an uninterrupted run failed ({first.returncode}):\n{first.stdout[-2000:]}{first.stderr[-2000:]}")
        return 1
    report = work / "reports" / CORPUS / "report.md"
    reference = (args.reference or report).read_bytes()
    print(f"uninterrupted run: {time.monotonic() - started:.0f} s; reference report {args.reference or report}")

    trials = []
    header = f"{'#':>3} {'phase':10} {'target':6} {'delay':>6} {'exit':>5} {'secs':>6} {'escalated':14} "
    print(header + f"{'tracebacks':24} {'left':>4} {'runs':34} {'rerun':>5} {'same':>4}  prepared")
    for number in range(1, args.trials + 1):
        phase = args.phases[(number - 1) % len(args.phases)]
        window = SOME_TABLES_WINDOW if phase == "evaluation" and args.evaluation_tables else WINDOWS[phase]
        trial = Trial(number, phase, round(rng.uniform(0, window), 2), "cli" if args.alone else "group")
        prepared = prepare(work, phase, rng, args.cold, args.evaluation_tables)
        interrupt(work, trial)
        again = run_whole(work)
        trial.rerun_exit = again.returncode
        trial.identical = report.exists() and report.read_bytes() == reference
        trials.append(trial)
        runs = ", ".join(f"{count} {status.lower()}" for status, count in sorted(trial.statuses.items())) or "none"
        print(
            f"{number:>3} {phase:10} {trial.target:6} {trial.delay:>6.2f} {trial.exit_code!s:>5} "
            f"{trial.seconds or 0:>6.1f} {','.join(trial.escalated) or '-':14} "
            f"{','.join(trial.tracebacks) or '-':24} {trial.left:>4} {runs:34} {trial.rerun_exit!s:>5} "
            f"{'yes' if trial.identical else 'NO':>4}  {trial.note or prepared}",
            flush=True,
        )

    by_source: dict[str, int] = {}
    for trial in trials:
        for source in set(trial.tracebacks):
            by_source[source] = by_source.get(source, 0) + 1
    statuses: dict[str, int] = {}
    for trial in trials:
        for status, count in trial.statuses.items():
            statuses[status] = statuses.get(status, 0) + count
    codes: dict[str, int] = {}
    for trial in trials:
        codes[str(trial.exit_code)] = codes.get(str(trial.exit_code), 0) + 1
    print(
        f"summary: {len(trials)} trials ({', '.join(args.phases)}; SIGINT to {'the CLI' if args.alone else 'the group'}"
        f", seed {args.seed}): {sum(t.clean for t in trials)} clean; exit codes "
        + ", ".join(f"{code}: {count}" for code, count in sorted(codes.items()))
        + f"; with a traceback {sum(bool(t.tracebacks) for t in trials)}"
        + (
            " (" + ", ".join(f"{source} {count}" for source, count in sorted(by_source.items())) + ")"
            if by_source
            else ""
        )
        + f"; escalated {sum(bool(t.escalated) for t in trials)}"
        + f"; max {max((t.seconds or 0 for t in trials), default=0):.1f} s to exit"
        + "; runs "
        + ", ".join(f"{status.lower()} {count}" for status, count in sorted(statuses.items()))
        + f"; processes left {sum(t.left for t in trials)}"
        + f"; reruns byte-identical {sum(bool(t.identical) for t in trials)}/{len(trials)}"
    )
    return 0 if all(t.clean for t in trials) else 1


if __name__ == "__main__":
    sys.exit(main())
