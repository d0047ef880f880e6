"""The run launcher of the instance `edgar-eval` creates: Dagster's default launcher, plus a worker health check, so
the daemon's run monitoring (`dagster dev`, `dagster-daemon run`) marks failed a run whose process was killed.

Runs the CLI starts carry the host and pid of the process that runs them (run_tags.py). The default
launcher cannot tell whether a run's worker is alive, so run monitoring skips its runs and a killed run would stay
"Started" in the UI until the next `edgar-eval run` ended it (runner.end_orphaned_runs). This launcher answers for the
runs whose process it can see: on this host, by pid."""

from __future__ import annotations

import dagster as dg
from dagster._core.launcher.base import (  # private: what run monitoring reads from a launcher's health check
    CheckRunHealthResult,
    WorkerStatus,
)

from edgar_eval.defs.run_tags import gone


class LocalRunLauncher(dg.DefaultRunLauncher):
    """Launches as Dagster's default launcher does; reports a run's worker failed when its process on this host is
    gone. A run whose process this host cannot see (launched from the UI, or from another machine) reads as running:
    its fate is left to whoever launched it."""

    @property
    def supports_check_run_worker_health(self) -> bool:
        return True

    def check_run_worker_health(self, run: dg.DagsterRun) -> CheckRunHealthResult:
        why = gone(run.run_id, run.tags)
        return CheckRunHealthResult(WorkerStatus.RUNNING if why is None else WorkerStatus.FAILED, why)
