"""Several filing partitions' runs at once, each in a process of its own.

One run at a time keeps one worker busy however many a deployment has: under Celery or Kubernetes the CLI's run waits
on its steps while the other workers idle, and on a machine with more cores than one embedding uses, so do the cores.
`edgar-eval run --parallel N` keeps N runs going. Each runs in a process forked from a server that has the code
location loaded (the embedder's weights included), so a run starts at once; each process opens the instance itself.

Ctrl-C: each process is a process group of its own, so the signal (the terminal's, or a `kill -INT` of the CLI) reaches
only the CLI, which launches nothing more and passes one SIGINT on to each process (`stop`): a run going there stops
as it would alone (Dagster marks it interrupted), and a process between runs ignores it."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing.queues import SimpleQueue
from multiprocessing.synchronize import Event
from typing import Mapping

import dagster as dg

from edgar_eval.adapters.embedders import share_cores, torch_threads
from edgar_eval.defs.executors import PRELOADED, corpus_steps_in_run_process
from edgar_eval.defs.runner import CodeLocationLauncher, Outcome, run_config_of, settings_of
from edgar_eval.defs.settings import PARALLEL_ENV, EmbedderResource, whole_number

_launcher: CodeLocationLauncher | None = None
_stopping: Event | None = None
_most_threads = 0  # the torch threads this process started with, when its runs embed here; 0: they do not


def _start(
    working_directory: str,
    run_config: dict,
    corpus_name: str,
    embeds_here: bool,
    stopping: Event,
    started: SimpleQueue,
) -> None:
    os.setpgrp()  # Ctrl-C comes through the CLI, once (`ParallelRuns.stop`), not from the terminal as well
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # between runs; a run installs Dagster's own handler while it goes
    started.put(os.getpid())
    global _launcher, _stopping, _most_threads
    _launcher = CodeLocationLauncher(dg.DagsterInstance.get(), working_directory, run_config, corpus_name)
    _stopping = stopping
    _most_threads = torch_threads() if embeds_here else 0


def _launch(job_name: str, partition_key: str, tags: Mapping[str, str], beside: int) -> Outcome:
    assert _launcher is not None and _stopping is not None
    if _stopping.is_set():  # Ctrl-C came while this was on its way to the process
        return Outcome(success=False, failure="interrupted", interrupted=True)
    if _most_threads:  # this run's share of the cores, with `beside` runs going at once (itself included)
        share_cores(beside, _most_threads)
    return Outcome.of(_launcher.launch(job_name, partition_key, tags))


def parallel_runs_from_env(default: int = 1) -> int:
    """How many filing partitions' runs go at once: `EDGAR_EVAL_PARALLEL_RUNS`, refused in one line when not a whole
    number of at least 1."""
    runs = whole_number(PARALLEL_ENV, os.environ.get(PARALLEL_ENV) or str(default), "runs")
    if runs < 1:
        raise ValueError(f"--parallel ({PARALLEL_ENV}) must be at least 1 run at once, got {runs}")
    return runs


def embeds_here(defs: dg.Definitions) -> bool:
    """Whether a filing's run embeds in the process it is launched in, and so shares the cores with the other runs':
    the local model (not a model server), with the corpus job's steps in that process (the multiprocess and in-process
    executors; a Celery worker or a Kubernetes pod embeds in a process of its own, and this one only waits)."""
    embedder = (defs.resources or {}).get("embedder")
    local = isinstance(embedder, EmbedderResource) and embedder.kind == "minilm"
    return local and corpus_steps_in_run_process()


class ParallelRuns:
    """Up to `runs` corpus runs at once, in as many processes, with the settings of `defs` (`run_config_of`). A
    context manager: the processes end on leaving it."""

    def __init__(self, runs: int, working_directory: str, defs: dg.Definitions) -> None:
        self.runs = runs
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOADED)  # the multiprocess executor's steps fork from the same server
        self._stopping = context.Event()
        self._started: SimpleQueue = context.SimpleQueue()  # each process's pid, as it starts
        self._processes: list[int] = []
        self._pool = ProcessPoolExecutor(
            max_workers=runs,
            mp_context=context,
            initializer=_start,
            initargs=(
                working_directory,
                run_config_of(defs),
                settings_of(defs).corpus_name,
                embeds_here(defs),
                self._stopping,
                self._started,
            ),
        )

    def submit(self, job_name: str, partition_key: str, tags: Mapping[str, str], beside: int) -> Future[Outcome]:
        return self._pool.submit(_launch, job_name, partition_key, dict(tags), beside)

    def stop(self) -> None:
        """Launch nothing more, and interrupt the runs going."""
        self._stopping.set()
        self._signal(signal.SIGINT)

    def kill(self) -> None:
        """End the processes now (a second Ctrl-C): their runs are left unfinished, and the next `edgar-eval run`
        marks them failed (`end_orphaned_runs`)."""
        self._signal(signal.SIGKILL)

    def _signal(self, number: int) -> None:
        while not self._started.empty():
            self._processes.append(self._started.get())
        for pid in self._processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, number)

    def __enter__(self) -> "ParallelRuns":
        return self

    def close(self) -> None:
        """End the processes (once every run has ended); closing twice is closing once."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __exit__(self, *exc_info: object) -> None:
        self.close()
