"""Materialise the whole graph: one corpus run per filing partition, then one evaluation run.

The CLI launches each run through the instance as a run of the code location the UI loads (`CodeLocationLauncher`),
so the UI lists it under its job and code location; tests that build Definitions of their own run them in process.
"""

from __future__ import annotations

import datetime
import logging
import os
import signal
import socket
import sys
import threading
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import IO, Callable, Mapping, Protocol, Sequence

import dagster as dg
from dagster._core.execution.api import execute_run  # private: runs a created run record in this process
from dagster._core.remote_origin import (  # private: the origin a run record needs for the UI to re-execute it
    InProcessCodeLocationOrigin,
    RemoteJobOrigin,
    RemoteRepositoryOrigin,
)
from dagster._core.types.loadable_target_origin import (  # private: where a run process loads the code from
    LoadableTargetOrigin,
)

from edgar_eval.adapters.service_progress import MARKER as PROGRESS_MARKER
from edgar_eval.defs.corpus.partitions import sync_filings
from edgar_eval.defs.executors import INTERRUPTS as _INTERRUPTS
from edgar_eval.defs.failures import failure_cause
from edgar_eval.defs.freshness import INPUTS_BEFORE_GENERATION_TAG, INPUTS_TAG, CurrentWork
from edgar_eval.defs.jobs import (
    CODE_LOCATION,
    CORPUS_JOB,
    DEFINITIONS_ATTRIBUTE,
    DEFINITIONS_MODULE,
    EVALUATION_JOB,
    JOB_RECONSTRUCTOR,
)
from edgar_eval.defs.orphaned_runs import NOT_STARTED, UNFINISHED, runs_of_gone_processes
from edgar_eval.defs.run_tags import (
    CORPUS_TAG,
    HOST_TAG,
    PARTITION_TAG,
    PID_TAG,
    RUN_TAG,
    STOPPED_TAG,
    gone,
    launch_tags,
)
from edgar_eval.defs.settings import EvalSettings
from edgar_eval.defs.shards import EVALUATION_RUN_TAGS
from edgar_eval.defs.source_files import observe_source_files

# The CLI prints each failure in one line itself; the full record, tracebacks included, stays in the run history.
QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}

# The name Dagster gives the repository of any Definitions, the code location's included: the UI finds a run's job by
# it (read from an empty Definitions, so no private constant is imported).
REPOSITORY_NAME = dg.Definitions().get_repository_def().name

# The resources whose settings travel with each run the CLI launches (`run_config_of`).
RUN_RESOURCES = ("settings", "embedder", "generator")


@dataclass
class GraphRun:
    partitions: list[str]
    failed_partitions: dict[str, str] = field(default_factory=dict)
    current_partitions: list[str] = field(default_factory=list)  # not launched: their work was current
    evaluation_error: str | None = None
    evaluation_current: bool = False  # not launched: a successful run made it from the same inputs
    evaluation_stale_because: str | None = None  # why it was launched, when current work was asked to be skipped
    evaluation_remade: list[str] = field(
        default_factory=list
    )  # launched for these assets only: tables it could not read

    @property
    def evaluation_succeeded(self) -> bool:
        return self.evaluation_error is None


class RunResult(Protocol):
    @property
    def success(self) -> bool: ...

    @property
    def all_events(self) -> Sequence[dg.DagsterEvent]: ...


class Launch(Protocol):
    """Runs a job (for a partition, with tags; of `assets` only, when given) and returns the finished run."""

    def __call__(
        self,
        job_name: str,
        partition_key: str | None = None,
        tags: Mapping[str, str] | None = None,
        assets: Sequence[dg.AssetKey] | None = None,
    ) -> RunResult: ...


# (partition key, the failure or None, whether a run was launched: False when its work was already current, and why it
# was launched when current work was asked to be skipped: a table that cannot be read, changed inputs, ...)
OnPartition = Callable[[str, "str | None", bool, "str | None"], None]


def run_config_of(defs: dg.Definitions) -> dict:
    """The run config of a run launched with these Definitions' settings, embedder and generator: each run carries
    them, so a step reads the settings the run was launched with wherever it executes. A Celery worker or a Kubernetes
    step pod loads the code location from its own environment, which may name another corpus than the CLI's --corpus;
    the run config overrides it, and the UI shows every run's settings on its page."""
    resources = defs.resources or {}
    return {
        **QUIET_RUN_CONFIG,
        "resources": {key: {"config": resources[key].model_dump()} for key in RUN_RESOURCES},  # type: ignore[union-attr]
    }


# (step key, seconds it took or None): a finished step of a launched run, as its launcher learns of it
OnStep = Callable[[str, "float | None"], None]
# (step key, line): what a step said of a service's progress while it waits on it (adapters/service_progress.py)
OnProgress = Callable[[str, str], None]


class StepFollower:
    """Follows a run's event log from the launching process and reports each step as it succeeds. The steps run in
    this process, in child processes or on Celery workers; wherever they run, their events reach the instance, so the
    CLI shows the evaluation's progress under every executor (a hook prints in the process that ran the step: on a
    Celery worker, out of the user's sight). Each step is reported once; a read that fails (the database busy or gone)
    is said once and the run goes on: progress lines are never worth a run."""

    POLL_SECONDS = 0.5
    JOIN_SECONDS = 30.0
    PROGRESS_PAGE = 500

    def __init__(
        self, instance: dg.DagsterInstance, run_id: str, on_step: OnStep | None, on_progress: OnProgress | None = None
    ) -> None:
        self._instance, self._run_id, self._on_step, self._on_progress = instance, run_id, on_step, on_progress
        self._cursor: str | None = None
        self._progress_cursor: str | None = None  # its own: the last read starts the steps' again, not this
        self._reported: set[str] = set()
        self._failed = False
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._follow, name=f"steps-of-{run_id[:8]}", daemon=True)

    def __enter__(self) -> "StepFollower":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopped.set()
        self._thread.join(self.JOIN_SECONDS)
        # once more from the start: on PostgreSQL a row of a lower id can become visible after one of a higher id that
        # the cursor has passed (several writers at once); the steps already reported are not reported again
        self._cursor = None
        self._read()

    def _follow(self) -> None:
        while not self._stopped.wait(self.POLL_SECONDS):
            self._read()

    def _read(self) -> None:
        with self._lock:
            try:
                self._read_pages()
            except Exception as exc:  # noqa: BLE001 - the run's result must not depend on its progress lines
                if not self._failed:
                    self._failed = True
                    print(f"  (progress lines paused: the run history could not be read: {exc})", flush=True)

    def _read_pages(self) -> None:
        if self._on_progress is not None:
            self._read_progress(self._on_progress)
        if self._on_step is None:
            return
        while True:
            page = self._instance.get_records_for_run(
                self._run_id, cursor=self._cursor, of_type=dg.DagsterEventType.STEP_SUCCESS, limit=100
            )
            self._cursor = page.cursor
            for record in page.records:
                event = record.event_log_entry.dagster_event
                if event is None or event.step_key is None or event.step_key in self._reported:
                    continue
                self._reported.add(event.step_key)
                took = getattr(event.event_specific_data, "duration_ms", None)
                self._on_step(event.step_key, took / 1000 if took is not None else None)
            if not page.has_more:
                return

    def _read_progress(self, on_progress: OnProgress) -> None:
        """The progress lines a step logged since the last read (log messages carry no event type to ask by: every
        record is read, once)."""
        while True:
            page = self._instance.get_records_for_run(
                self._run_id, cursor=self._progress_cursor, limit=self.PROGRESS_PAGE
            )
            self._progress_cursor = page.cursor
            for record in page.records:
                entry = record.event_log_entry
                message = getattr(entry, "user_message", "") or ""
                if entry.dagster_event is None and message.startswith(PROGRESS_MARKER):
                    on_progress(entry.step_key or "", message.removeprefix(PROGRESS_MARKER))
            if not page.has_more:
                return


class CodeLocationLauncher:
    """Runs jobs of the code location the UI loads (workspace.yaml: `DEFINITIONS_MODULE`, location `CODE_LOCATION`)
    in this process, each created through the instance with its job's origin in that location, as the UI's own launch
    would: the run carries the location's repository tag, so Overview and the job's page list it, and Ctrl-C reaches
    it here. Each run carries `run_config`: the CLI's settings (`run_config_of`). `on_step`: told of each step of an
    evaluation run as it succeeds, wherever it ran (`StepFollower`); `on_progress`: of each progress line a step of any
    run logs while a service works."""

    @classmethod
    def of(
        cls,
        instance: dg.DagsterInstance,
        working_directory: str,
        defs: dg.Definitions,
        on_step: OnStep | None = None,
        on_progress: OnProgress | None = None,
    ) -> "CodeLocationLauncher":
        """The launcher of runs with the settings of `defs` (the CLI's)."""
        return cls(
            instance, working_directory, run_config_of(defs), settings_of(defs).corpus_name, on_step, on_progress
        )

    def __init__(
        self,
        instance: dg.DagsterInstance,
        working_directory: str,
        run_config: dict,
        corpus_name: str,
        on_step: OnStep | None = None,
        on_progress: OnProgress | None = None,
    ) -> None:
        self.instance = instance
        self.corpus_name = corpus_name
        self.run_config = run_config
        self.on_step = on_step
        self.on_progress = on_progress
        # a filing's run calls a service only to embed through one: a local embedder's runs are not followed
        embedder = run_config.get("resources", {}).get("embedder", {}).get("config", {})
        self._followed = {EVALUATION_JOB} | ({CORPUS_JOB} if embedder.get("kind", "minilm") != "minilm" else set())
        self._working_directory = working_directory
        self._location = InProcessCodeLocationOrigin(
            LoadableTargetOrigin(
                executable_path=sys.executable,
                module_name=DEFINITIONS_MODULE,
                attribute=DEFINITIONS_ATTRIBUTE,
                working_directory=working_directory,
            ),
            location_name=CODE_LOCATION,
        )

    def launch(
        self,
        job_name: str,
        partition_key: str | None = None,
        tags: Mapping[str, str] | None = None,
        assets: Sequence[dg.AssetKey] | None = None,
    ) -> RunResult:
        # What a run process (a step's, a Celery worker's) reloads: the code location's job, by module and function
        job = dg.build_reconstructable_job(
            DEFINITIONS_MODULE,
            JOB_RECONSTRUCTOR,
            reconstructable_args=(job_name,),
            reconstructor_working_directory=self._working_directory,
        )
        definition = job.get_definition()
        if assets:
            job = job.get_subset(asset_selection=set(assets))
        run_id = str(uuid.uuid4())
        run = self.instance.create_run_for_job(
            job_def=definition,
            run_id=run_id,
            asset_selection=set(assets) if assets else None,
            run_config=self.run_config,
            tags={
                **definition.run_tags,  # the system the run measures (jobs.build_jobs), as the UI's launch has them
                **launch_tags(run_id),
                CORPUS_TAG: self.corpus_name,
                **(tags or {}),
                **({PARTITION_TAG: partition_key} if partition_key else {}),
            },
            job_code_origin=job.get_python_origin(),
            remote_job_origin=RemoteJobOrigin(RemoteRepositoryOrigin(self._location, REPOSITORY_NAME), job_name),
        )
        on_step = self.on_step if job_name == EVALUATION_JOB else None  # a filing's run: its line says it whole
        on_progress = self.on_progress if job_name in self._followed else None
        with CancelOnInterrupt(self.instance, run.run_id):
            if on_step is None and on_progress is None:
                return execute_run(job, run, self.instance, raise_on_error=False)
            with StepFollower(self.instance, run.run_id, on_step, on_progress):
                return execute_run(job, run, self.instance, raise_on_error=False)


class CancelOnInterrupt:
    """While a run goes in this process, Ctrl-C marks it canceling before Dagster ends it, so that Dagster ends it as
    canceled (its own RUN_CANCELED, as for a run terminated from the UI) and writes no RUN_FAILURE. Dagster's SIGINT
    handler raises in the step before any code of ours runs, then records what the interrupt did (the stopped step's
    failure, or the multiprocess executor's forwarding it to its steps' processes) and only then reads the run's status
    to end it: a listener the instance calls for each of the run's events in this process (`add_event_listener`) sees
    the signal on the wakeup fd (written when it arrives, whatever handler Python runs) and marks the run in between.
    Dagster still records a step it stopped as failed (a STEP_FAILURE of an interrupt), as it does for its own
    terminations: the run is tagged `edgar-eval/stopped` with those steps. A signal seen is passed on to the wakeup fd
    set before (`InterruptWatch`). Outside the main thread (where no signal can be handled) only a stopped step's
    failure is seen."""

    def __init__(self, instance: dg.DagsterInstance, run_id: str) -> None:
        self.instance, self.run_id = instance, run_id
        self.interrupted = False
        self.stopped: list[str] = []
        self._read: int | None = None

    def __enter__(self) -> "CancelOnInterrupt":
        if threading.current_thread() is threading.main_thread():
            self._read, self._write = os.pipe()
            os.set_blocking(self._read, False)
            os.set_blocking(self._write, False)
            self._previous = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        self.instance.add_event_listener(self.run_id, self._heard)
        return self

    def _signalled(self) -> bool:
        if self._read is not None and not self.interrupted:
            try:
                self.interrupted = signal.SIGINT in os.read(self._read, 512)
            except BlockingIOError:
                pass
        return self.interrupted

    def _heard(self, entry: object) -> None:
        event = getattr(entry, "dagster_event", None)
        if _was_interrupted(event):  # a step stopped in this process
            self.interrupted = True
        if not self._signalled():
            return
        run = self.instance.get_run_by_id(self.run_id)
        if run is not None and run.status in (dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED):
            self.instance.report_run_canceling(run, "interrupted (Ctrl-C): stopping, not failing")

    def __exit__(self, *exc: object) -> None:
        if self._read is not None:
            self._signalled()  # one that came after the run's last event
            signal.set_wakeup_fd(self._previous)
            os.close(self._read)
            os.close(self._write)
            self._read = None
            if self.interrupted and self._previous != -1:  # the loop over runs sees it too
                try:
                    os.write(self._previous, bytes([signal.SIGINT]))
                except OSError:
                    pass
        if self.interrupted:  # the steps it stopped, wherever they ran (a step's process records its own failure)
            failures = self.instance.all_logs(self.run_id, of_type=dg.DagsterEventType.STEP_FAILURE)
            events = [record.dagster_event for record in failures]
            self.stopped = sorted({str(e.step_key) for e in events if e is not None and _was_interrupted(e)})
            steps = ", ".join(self.stopped) or "no step was going"
            self.instance.add_run_tags(self.run_id, {STOPPED_TAG: f"Ctrl-C: {steps}"})


def cancel_runs_of_gone_processes(instance: dg.DagsterInstance, since: datetime.datetime) -> list[str]:
    """After the CLI's worker was killed on a second Ctrl-C (cli.supervised_run): record canceled each run created on
    this host since `since` that its processes left unfinished (their processes are gone), and free the pool slots its
    steps held; then what `cancel_interrupted_runs` ends. Their ids."""
    canceled = []
    for run, _ in runs_of_gone_processes(instance, [*UNFINISHED, NOT_STARTED], since):
        instance.report_run_canceled(run, "interrupted twice (Ctrl-C): stopped at once")
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        canceled.append(run.run_id)
    return canceled + cancel_interrupted_runs(instance, since)


def cancel_interrupted_runs(instance: dg.DagsterInstance, since: datetime.datetime) -> list[str]:
    """Record as canceled, not failed, each run created since `since` that Ctrl-C stopped: one marked canceling
    (CancelOnInterrupt) that Dagster had ended before the mark came, or one Dagster ended as a failure of the step it
    interrupted (a run that CancelOnInterrupt did not watch): the UI then tells a stopped run from a broken one. Their
    ids."""
    canceled = []
    # created by this process and never started: Ctrl-C came while the run was being made, before it was watched
    for run in instance.get_runs(dg.RunsFilter(statuses=[NOT_STARTED], created_after=since)):
        if _this_process_s(run) or gone(run.run_id, run.tags) is not None:
            instance.report_run_canceled(run, "interrupted (Ctrl-C) before the run started")
            canceled.append(run.run_id)
    # marked canceling at Ctrl-C (CancelOnInterrupt) after Dagster had already ended it: ended as canceled here
    for run in instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.CANCELING], created_after=since)):
        if _this_process_s(run) or gone(run.run_id, run.tags) is not None:
            instance.report_run_canceled(run, "interrupted (Ctrl-C): stopped, not failed")
            canceled.append(run.run_id)
    ended = {dg.DagsterEventType.STEP_FAILURE, dg.DagsterEventType.RUN_FAILURE}
    for run in instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.FAILURE], created_after=since)):
        failures = [record.dagster_event for record in instance.all_logs(run.run_id, of_type=ended)]
        # a step's failure, or the run's own when the interrupt came before or between its steps
        if any(
            event is not None and _interrupt_in(getattr(event.event_specific_data, "error", None)) for event in failures
        ):
            instance.report_run_canceled(run, "interrupted (Ctrl-C): stopped, not failed")
            canceled.append(run.run_id)
    return canceled


def _this_process_s(run: dg.DagsterRun) -> bool:
    """Whether this process created the run: its host and pid, and its own id in the run tag (a run re-executed from
    the UI inherits its parent's tags, so host and pid alone would claim it; a process whose pid repeats on every
    start, as pid 1 in a container, would claim another start's runs)."""
    tags = run.tags
    return (
        tags.get(HOST_TAG) == socket.gethostname()
        and tags.get(PID_TAG) == str(os.getpid())
        and tags.get(RUN_TAG) == run.run_id
    )


class _NoUngatedStepNotices(logging.Filter):
    """Drops 'Blocking asset check ... emitted no result ...; downstream step ... will proceed without gating on it':
    Dagster's step scheduler (in the run's orchestrating process, here the CLI's worker) warns so once for every step
    downstream of a blocking check that recorded no result. The regression gate records none where the generator has
    no baseline (not applied, by design: Skipped in the UI), which the CLI says once in its own words (cli.run)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (message.startswith("Blocking asset check") and "emitted no result" in message)


def quiet_ungated_step_notices(stream: IO[str] | None = None) -> logging.Handler:
    """Print Dagster's Python warnings as they were printed (the message alone, on stderr: Python's last-resort
    handler, which they reached for want of any other), less the step scheduler's notices of a gate that recorded no
    result. A handler on Dagster's logger, not a filter on one of its private modules' loggers: no module path of
    Dagster's is named. Returns the handler (set once)."""
    dagster_logger = logging.getLogger("dagster")
    for existing in dagster_logger.handlers:
        if any(isinstance(f, _NoUngatedStepNotices) for f in existing.filters):
            return existing
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(_NoUngatedStepNotices())
    dagster_logger.addHandler(handler)
    return handler


def _interrupt_in(error: object) -> bool:
    """Does this serialised error, or any error it was raised from or during, come from Ctrl-C?"""
    seen = 0
    while error is not None and seen < 20:
        if getattr(error, "cls_name", None) in _INTERRUPTS:
            return True
        error, seen = getattr(error, "cause", None) or getattr(error, "context", None), seen + 1
    return False


def in_process(defs: dg.Definitions, instance: dg.DagsterInstance) -> Launch:
    """Run the jobs of Definitions built here (tests: settings of their own) in process, with the given instance."""

    def launch(
        job_name: str,
        partition_key: str | None = None,
        tags: Mapping[str, str] | None = None,
        assets: Sequence[dg.AssetKey] | None = None,
    ) -> RunResult:
        return defs.resolve_job_def(job_name).execute_in_process(
            partition_key=partition_key,
            instance=instance,
            raise_on_error=False,
            run_config=QUIET_RUN_CONFIG,
            tags=dict(tags or {}),
            asset_selection=list(assets) if assets else None,
        )

    return launch


def failure_message(result: RunResult) -> str:
    return failure_cause(result.all_events)


def _was_interrupted(event: dg.DagsterEvent | None) -> bool:
    """Is this a step failure that Ctrl-C made (Dagster turns the KeyboardInterrupt into one and returns)?"""
    return bool(
        event is not None
        and event.is_step_failure
        and event.step_failure_data
        and event.step_failure_data.error
        and event.step_failure_data.error.cls_name == "DagsterExecutionInterruptedError"
    )


def _interrupted(result: RunResult) -> bool:
    """Was the run stopped by Ctrl-C (a step it stopped, or the run ended as canceled: CancelOnInterrupt)?"""
    return any(
        _was_interrupted(event) or event.event_type == dg.DagsterEventType.RUN_CANCELED for event in result.all_events
    )


class InterruptWatch:
    """Did a Ctrl-C arrive while Dagster held the SIGINT handler? Dagster records an interrupt that comes between
    steps and raises it at the next step, but forgets one that comes after a run's last step, so a loop of runs
    would carry on. The signal wakeup fd sees every signal whatever handler is installed; outside the main thread
    (where no signal can be handled) it watches nothing."""

    def __init__(self) -> None:
        self._read = self._previous = None
        if threading.current_thread() is threading.main_thread():
            self._read, write = os.pipe()
            os.set_blocking(self._read, False)
            os.set_blocking(write, False)
            self._write = write
            self._previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)

    def arrived(self) -> bool:
        if self._read is None:
            return False
        try:
            received = os.read(self._read, 512)
        except BlockingIOError:
            return False
        return signal.SIGINT in received

    def close(self) -> None:
        if self._read is not None:
            signal.set_wakeup_fd(self._previous if self._previous is not None else -1)
            os.close(self._read)
            os.close(self._write)
            self._read = None


def materialise_corpus(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    keys: list[str] | None = None,
    on_partition: OnPartition | None = None,
    launch: Launch | None = None,
) -> dict[str, str]:
    """Bring the filing partitions in step with the corpus folder, then run the corpus job once per partition (`keys`,
    default every filing), so a bad filing fails its own partition and no other. `launch`: how a run starts (default:
    in process, with `instance`)."""
    documents = sync_filings(instance, settings_of(defs)).documents
    return _run_corpus(
        launch or in_process(defs, instance), keys if keys is not None else list(documents), on_partition
    )


@dataclass(frozen=True)
class Outcome:
    """How a launched run ended, in what the loop over partitions needs (picklable: a run in another process)."""

    success: bool
    failure: str | None  # the failure's one line, when it failed
    interrupted: bool  # stopped by Ctrl-C

    @classmethod
    def of(cls, result: RunResult) -> "Outcome":
        return cls(result.success, None if result.success else failure_message(result), _interrupted(result))


class PartitionRuns(Protocol):
    """Launches up to `runs` corpus runs at once (defs/parallel_runs.py)."""

    runs: int

    def submit(self, job_name: str, partition_key: str, tags: Mapping[str, str], beside: int) -> "Future[Outcome]":
        """Launch a run; `beside`: the runs that will go at once with it, itself included (its share of the cores)."""
        ...

    def stop(self) -> None: ...

    def kill(self) -> None: ...

    def close(self) -> None: ...


def _run_corpus(
    launch: Launch,
    keys: list[str],
    on_partition: OnPartition | None,
    work: CurrentWork | None = None,
    documents: Mapping[str, str] | None = None,
    parallel: PartitionRuns | None = None,
) -> dict[str, str]:
    """`work` (with the partitions' `documents`): launch no run for a partition whose work is current. `parallel`:
    launch the runs through it, several at once, instead of one after another through `launch`."""
    todo: list[tuple[str, dict[str, str]]] = []
    launched_because: dict[str, str] = {}
    verdicts = work.corpus_verdicts({key: documents[key] for key in keys}) if work and documents is not None else {}
    for key in keys:
        tags: dict[str, str] = {}
        if key in verdicts:
            verdict = verdicts[key]
            if verdict.reason is None:
                if on_partition:
                    on_partition(key, None, False, None)
                continue
            tags = {INPUTS_TAG: verdict.inputs.digest}
            launched_because[key] = verdict.reason
        todo.append((key, tags))
    failed: dict[str, str] = {}

    def finished(key: str, outcome: Outcome) -> None:
        if outcome.interrupted:
            raise KeyboardInterrupt  # no further partition, and no evaluation over a part of the corpus
        if not outcome.success:
            failed[key] = outcome.failure or "run failed"
        if on_partition:
            on_partition(key, failed.get(key), True, launched_because.get(key))

    if parallel is not None and parallel.runs > 1:
        try:
            _run_side_by_side(parallel, todo, finished)
        finally:
            parallel.close()  # the processes and their embedder's memory are not held through the evaluation
    else:
        watch = InterruptWatch()
        try:
            for key, tags in todo:
                result = launch(CORPUS_JOB, key, tags)
                if watch.arrived():
                    raise KeyboardInterrupt
                finished(key, Outcome.of(result))
        finally:
            watch.close()
    return dict(sorted(failed.items()))


def _run_side_by_side(
    parallel: PartitionRuns, todo: list[tuple[str, dict[str, str]]], finished: Callable[[str, Outcome], None]
) -> None:
    """Keep `parallel.runs` runs going until every partition has run; each is handed to a process only when one is
    free, so at Ctrl-C nothing waits in a queue: the runs going are interrupted and no other starts. Each is told how
    many runs go beside it: as many as `parallel.runs` while enough wait, fewer for a night with one filing changed
    (which then embeds on every core, not on its share of them)."""
    waiting = list(reversed(todo))
    going: dict[Future[Outcome], str] = {}
    try:
        while waiting or going:
            while waiting and len(going) < parallel.runs:
                key, tags = waiting.pop()
                beside = min(parallel.runs, len(going) + 1 + len(waiting))
                going[parallel.submit(CORPUS_JOB, key, tags, beside)] = key
            done, _ = wait(going, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=going.__getitem__):
                finished(going.pop(future), future.result())
    except KeyboardInterrupt:
        parallel.stop()
        try:
            wait(going)  # the runs going end as interrupted, each in its own process
        except KeyboardInterrupt:  # a second Ctrl-C: do not wait for them
            parallel.kill()
        raise


def materialise_evaluation(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    launch: Launch | None = None,
    synced: bool = False,
    tags: Mapping[str, str] | None = None,
    assets: Sequence[dg.AssetKey] | None = None,
) -> str | None:
    """Run the evaluation job (of `assets` only, when given) over the filing partitions of the corpus folder (brought
    in step with it first, unless the caller just did); the failure message, or None on success."""
    if not synced:
        sync_filings(instance, settings_of(defs))
    observe_source_files(instance, settings_of(defs))  # the files beside the graph: versions its steps record
    # every shard of the sharded steps in this one run (a backfill of them all in one run: defs/shards.py)
    result = (launch or in_process(defs, instance))(
        EVALUATION_JOB, None, {**EVALUATION_RUN_TAGS, **(tags or {})}, assets
    )
    if _interrupted(result):  # an interrupt after the last step is forgotten, but then the report is whole
        raise KeyboardInterrupt
    return None if result.success else failure_message(result)


def settings_of(defs: dg.Definitions) -> EvalSettings:
    settings = (defs.resources or {})["settings"]
    assert isinstance(settings, EvalSettings)
    return settings


def initialise_pools(defs: dg.Definitions, instance: dg.DagsterInstance) -> list[str]:
    """Give every concurrency pool the graph's steps claim its default limit now, before any run starts; returns the
    pools initialised. Dagster initialises a pool on its first claim by inserting the default limit; on PostgreSQL two
    runs claiming a new pool at once both insert, and the loser's transaction is aborted (the unique key, then 'current
    transaction is aborted'), failing its run: seen on Celery with two filing runs at once. A pool that already has a
    limit (the default, or one set with `dagster instance concurrency set`) is left as it is."""
    storage = instance.event_log_storage
    if not storage.supports_global_concurrency_limits or instance.global_op_concurrency_default_limit is None:
        return []
    pools = {
        node.pool
        for job in defs.get_repository_def().get_all_jobs()
        for node in job.graph.node_defs
        if isinstance(node, dg.OpDefinition) and node.pool
    }
    missing = sorted(pools - storage.get_concurrency_keys())
    for pool in missing:
        storage.initialize_concurrency_limit_to_default(pool)
    return missing


def materialise_graph(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    on_partition: OnPartition | None = None,
    launch: Launch | None = None,
    skip_current: bool = False,
    parallel: PartitionRuns | None = None,
) -> GraphRun:
    """Every filing partition, then the evaluation. `skip_current`: launch no run whose work is current (made by a
    successful run from the same inputs and still stored: `freshness.py`); every run launched records its inputs.
    `parallel`: launch the filing partitions' runs through it, several at once."""
    documents = sync_filings(instance, settings_of(defs)).documents
    keys = list(documents)
    run = GraphRun(partitions=keys)
    initialise_pools(defs, instance)
    launch = launch or in_process(defs, instance)
    work = CurrentWork(defs, instance) if skip_current else None

    def record(key: str, error: str | None, launched: bool, because: str | None) -> None:
        if not launched:
            run.current_partitions.append(key)
        if on_partition:
            on_partition(key, error, launched, because)

    run.failed_partitions = _run_corpus(launch, keys, record, work, documents, parallel)
    if keys and len(run.failed_partitions) == len(keys):  # nothing to evaluate: say so instead of failing deep inside
        run.evaluation_error = f"none of the {len(keys)} filings could be materialised; the evaluation did not run"
        return run
    tags, remake = None, ()
    if work is not None:
        verdict = work.evaluation(keys)
        run.evaluation_stale_because, remake = verdict.reason, verdict.remake
        if verdict.reason is None:
            run.evaluation_current = True
            return run
        tags = {INPUTS_TAG: verdict.inputs.digest}
        if verdict.before is not None:
            tags[INPUTS_BEFORE_GENERATION_TAG] = verdict.before.digest
        run.evaluation_remade = [key.to_user_string() for key in remake]
    run.evaluation_error = materialise_evaluation(defs, instance, launch, synced=True, tags=tags, assets=remake)
    return run
