"""Runs a CLI process launched and that process left unfinished: killed (SIGKILL, a lost machine), a run never reports
its own end. The next `edgar-eval run` on that machine ends them (`end_orphaned_runs`), and so does the sensor
`orphaned_runs` in the daemon of `dagster dev` or `dagster-daemon run` at its next tick (every 30 seconds or more),
with no CLI run needed. A process is judged gone only where the daemon shares its host and its process namespace
(`run_tags.gone`): a daemon in another container under the same host name leaves the run alone.

Dagster's run monitoring does this only for the launchers whose health check it can ask, and the default launcher has
none; a launcher of our own would answer it with types Dagster does not export. A sensor reads and ends runs through
the public instance API instead, and is visible in the UI (Automation) with what each tick ended."""

from __future__ import annotations

import datetime
import socket

import dagster as dg

from edgar_eval.defs.run_tags import HOST_TAG, gone

UNFINISHED = (dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING)
NOT_STARTED = dg.DagsterRunStatus.NOT_STARTED  # a run created that no executor took up yet


def end_orphaned_runs(instance: dg.DagsterInstance) -> list[tuple[str, str]]:
    """Mark failed every started run that a CLI process on this machine launched and that process is gone (killed
    mid-run), and free the concurrency-pool slots its steps held, which the next run's steps would otherwise wait for
    for ever; mark canceled every run such a process was stopping (canceling) or created and never started. Each run's
    status is read again just before it is ended, so a run that ended by itself meanwhile keeps its own end. Each run
    ended: its id and what it was left as."""
    ended = []
    for run, why in runs_of_gone_processes(instance, list(UNFINISHED)):
        now = instance.get_run_by_id(run.run_id)
        if now is None or now.status not in UNFINISHED:  # it ended by itself since it was listed
            continue
        if now.status == dg.DagsterRunStatus.CANCELING:  # someone was stopping it: stopped, not broken
            instance.report_run_canceled(now, f"{why}: it was being stopped")
            ended.append((run.run_id, "was being stopped when its process went: marked canceled"))
        else:
            instance.report_run_failed(now, f"{why}: killed mid-run")
            ended.append((run.run_id, "was killed mid-run (its process is gone): marked failed, its pool slots freed"))
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
    # created, never started: the process was stopped while it made the run (Ctrl-C or a kill before the first step)
    for run, why in runs_of_gone_processes(instance, [NOT_STARTED]):
        now = instance.get_run_by_id(run.run_id)
        if now is None or now.status != NOT_STARTED:
            continue
        instance.report_run_canceled(now, f"{why}: stopped before the run started")
        ended.append((run.run_id, "was stopped before it started (its process is gone): marked canceled"))
    return ended


def runs_of_gone_processes(
    instance: dg.DagsterInstance, statuses: list[dg.DagsterRunStatus], since: datetime.datetime | None = None
) -> list[tuple[dg.DagsterRun, str]]:
    """The runs in `statuses` (created since `since`, when given) that a CLI process on this host launched and whose
    process is gone, each with why it is over (run_tags.gone)."""
    host = {HOST_TAG: socket.gethostname()}
    runs = instance.get_runs(dg.RunsFilter(statuses=statuses, tags=host, created_after=since))
    return [(run, why) for run in runs if (why := gone(run.run_id, run.tags)) is not None]


@dg.sensor(
    name="orphaned_runs",
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Ends the runs a CLI process on this machine launched and left unfinished when it was killed: marks "
    "failed a run killed mid-run (and frees the pool slots its steps held), canceled one killed before it started. "
    "Runs launched from the UI or on another machine are left to whoever launched them.",
)
def orphaned_runs(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    ended = end_orphaned_runs(context.instance)
    for run_id, ended_as in ended:
        context.log.info(f"run {run_id} {ended_as}")
    return dg.SkipReason(f"{len(ended)} runs ended" if ended else "no run of a process that is gone")
