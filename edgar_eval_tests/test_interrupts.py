"""A terminal's Ctrl-C reaches `edgar-eval run`'s own process alone (issue 59, item 4): the work runs in a worker in
a session of its own (cli.supervised_run), so the worker's children never hear it; the first Ctrl-C goes to the worker,
a second one or SIGTERM ends the worker's whole session at once. Here on constructed workers (a Python script standing
in for the CLI's work and its step processes), the supervisor itself started as a terminal starts a command: in a
process group of its own, which the test signals as a terminal's Ctrl-C does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

# The worker: starts a child (as Dagster starts step processes and log mirrors), which notes a SIGINT it hears;
# stops on its first SIGINT with 130 unless told to ignore it; notes what it heard in `heard`.
WORKER = textwrap.dedent(
    """
    import os, signal, subprocess, sys, time
    heard, ignore = sys.argv[1], sys.argv[2] == "ignore"
    CHILD = (
        "import signal, sys, time\\n"
        "signal.signal(signal.SIGINT, lambda *a: open(sys.argv[1], 'a').write('child SIGINT\\\\n'))\\n"
        "while True: time.sleep(0.1)"
    )
    child = subprocess.Popen([sys.executable, "-c", CHILD, heard])
    with open(heard, "a") as out:
        out.write(f"child {child.pid}\\n")

    def on_int(signum, frame):
        with open(heard, "a") as out:
            out.write("worker SIGINT\\n")
        if not ignore:
            child.terminate()
            sys.exit(130)

    signal.signal(signal.SIGINT, on_int)
    from edgar_eval.cli import die_with_the_supervisor  # as the CLI's worker does

    die_with_the_supervisor(int(os.environ["EDGAR_EVAL_RUN_WORKER"]), every=0.05)
    with open(heard, "a") as out:
        out.write(f"worker {os.getpid()}\\n")
        out.write("ready\\n")
    while True:
        time.sleep(0.1)
    """
)

# The supervisor as the console script runs it, with the constructed worker as its command.
SUPERVISOR = textwrap.dedent(
    """
    import sys
    from edgar_eval import cli
    cli._cancel_runs_left_by_a_killed_worker = lambda since: 0  # no run history here
    sys.exit(cli.supervised_run([], [sys.executable, sys.argv[1], sys.argv[2], sys.argv[3]]))
    """
)


STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def _nothing_left_behind():
    """A test that fails leaves no supervisor, worker or child running: each one's session is killed at teardown."""
    yield
    heard_pids = []
    for process in STARTED:
        heard = Path(os.fsdecode(process.args[3])) if isinstance(process.args, list) and len(process.args) > 3 else None
        if heard is not None and heard.exists():
            heard_pids += [
                int(words[1])
                for words in (line.split() for line in heard.read_text().splitlines())
                if len(words) == 2 and words[0] in ("child", "worker") and words[1].isdigit()
            ]
        for pid in [process.pid, *heard_pids]:
            try:
                group = os.getpgid(pid)
                if group != os.getpgid(0):  # never the test's own group (a pid gone and used again)
                    os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        process.wait(timeout=10)
    STARTED.clear()


def _start(tmp_path: Path, ignore: bool) -> tuple[subprocess.Popen, Path]:
    worker, supervisor, heard = tmp_path / "worker.py", tmp_path / "supervisor.py", tmp_path / "heard.txt"
    worker.write_text(WORKER)
    supervisor.write_text(SUPERVISOR)
    process = subprocess.Popen(
        [sys.executable, str(supervisor), str(worker), str(heard), "ignore" if ignore else "stop"],
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
        stderr=subprocess.PIPE,
        text=True,
    )
    STARTED.append(process)
    deadline = time.monotonic() + 30
    while "ready" not in (heard.read_text() if heard.exists() else ""):
        assert time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.05)
    return process, heard


def _child_pid(heard: Path) -> int:
    return int(next(line for line in heard.read_text().splitlines() if line.startswith("child ")).split()[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is reaped by init soon after: read its state
    status = Path(f"/proc/{pid}/stat")
    return not status.exists() or status.read_text().split(") ", 1)[1][0] != "Z"


def test_a_terminal_s_ctrl_c_reaches_the_worker_alone_and_it_stops_with_130(tmp_path):
    process, heard = _start(tmp_path, ignore=False)
    os.killpg(process.pid, signal.SIGINT)  # the terminal's Ctrl-C: to the whole foreground group
    assert process.wait(timeout=30) == 130
    assert heard.read_text().count("worker SIGINT") == 1, "passed on to the worker once"
    assert "child SIGINT" not in heard.read_text(), "the worker's children never hear it"
    assert "Traceback" not in (process.stderr.read() if process.stderr else "")


def test_a_second_ctrl_c_ends_the_worker_and_its_children_at_once(tmp_path):
    process, heard = _start(tmp_path, ignore=True)  # a worker that does not stop (a hang)
    child = _child_pid(heard)
    os.killpg(process.pid, signal.SIGINT)
    deadline = time.monotonic() + 10
    while "worker SIGINT" not in heard.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert process.poll() is None, "the first Ctrl-C is the worker's to act on"
    started = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    assert process.wait(timeout=10) == 130
    assert time.monotonic() - started < 5
    deadline = time.monotonic() + 10
    while _alive(child):
        assert time.monotonic() < deadline, "the worker's child outlived it"
        time.sleep(0.05)
    stderr = process.stderr.read() if process.stderr else ""
    assert "interrupted again: stopped at once" in stderr and "Traceback" not in stderr


def test_the_worker_and_its_children_go_when_the_cli_is_killed(tmp_path):
    """SIGKILL of the CLI alone (a CI job's timeout, `kill -9`): the worker, in a session of its own, does not outlive
    it; it ends its session, as the kill of the CLI's process group ended every process before."""
    process, heard = _start(tmp_path, ignore=True)
    child = _child_pid(heard)
    worker = int(next(line for line in heard.read_text().splitlines() if line.startswith("worker ")).split()[1])
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _alive(worker) or _alive(child):
        assert time.monotonic() < deadline, "the worker or its child outlived the CLI"
        time.sleep(0.05)


def test_sigterm_ends_the_worker_s_session_at_once(tmp_path):
    process, heard = _start(tmp_path, ignore=True)
    child = _child_pid(heard)
    os.kill(process.pid, signal.SIGTERM)
    assert process.wait(timeout=10) == 130
    assert "worker SIGINT" not in heard.read_text()
    deadline = time.monotonic() + 10
    while _alive(child):
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_an_interrupt_while_a_connection_closes_prints_no_traceback_and_other_errors_still_do(caplog):
    """SQLAlchemy logs 'Exception closing connection' with its traceback when Ctrl-C lands while the run history
    closes a connection, then raises the interrupt again (which the worker handles): that record is dropped; a real
    error closing a connection is still logged."""
    import logging

    from sqlalchemy.pool import QueuePool

    from edgar_eval.defs.executors import quiet_interrupted_pool_closes

    quiet_interrupted_pool_closes()
    logger = logging.getLogger(f"{QueuePool.__module__}.{QueuePool.__name__}")
    for error in (KeyboardInterrupt(), ValueError("the disk is gone")):
        try:
            raise error
        except BaseException:  # noqa: BLE001 - as SQLAlchemy's pool catches it
            with caplog.at_level(logging.ERROR, logger=logger.name):
                logger.error("Exception closing connection", exc_info=True)
    logged = [record.exc_info[1] for record in caplog.records if record.exc_info]
    assert [type(error) for error in logged] == [ValueError]


def test_an_interrupt_raised_in_a_finaliser_prints_no_traceback_and_other_errors_still_do():
    """Seen in CI: a Ctrl-C that lands while a garbage collection runs SQLAlchemy's weakref callbacks made Dagster's
    handler raise there, and Python printed "Exception ignored in ..." with a traceback. The CLI's worker leaves
    interrupts out of that print (executors.quiet_interrupted_finalisers); any other error is printed as before."""
    program = textwrap.dedent(
        """
        from edgar_eval.defs.executors import quiet_interrupted_finalisers
        from dagster._core.errors import DagsterExecutionInterruptedError  # private: the error Dagster's handler raises

        class Raises:
            def __init__(self, error):
                self.error = error

            def __del__(self):
                raise self.error

        quiet_interrupted_finalisers()
        quiet_interrupted_finalisers()  # set once
        Raises(DagsterExecutionInterruptedError())
        Raises(KeyboardInterrupt())
        Raises(ValueError("a real error in a finaliser"))
        print("went on")
        """
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "went on" in done.stdout, done.stderr
    assert done.stderr.count("Traceback") == 1 and "a real error in a finaliser" in done.stderr, done.stderr
    assert "Interrupt" not in done.stderr, done.stderr
