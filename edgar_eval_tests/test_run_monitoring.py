"""A run whose process was killed is marked failed by the daemon's run monitoring in the instance `edgar-eval`
creates (`dagster dev` runs that daemon beside the UI), not only by the next `edgar-eval run`."""

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.defs.runner import HOST_TAG, PID_TAG


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _started_run(host: str, pid: int) -> dg.DagsterRun:
    tags = {HOST_TAG: host, PID_TAG: str(pid)}
    return dg.DagsterRun(job_name="corpus", run_id=str(uuid.uuid4()), status=dg.DagsterRunStatus.STARTED, tags=tags)


@pytest.mark.slow(minutes=1)  # starts the Dagster daemon: tens of seconds
def test_the_daemon_marks_failed_a_run_whose_process_was_killed(tmp_path, monkeypatch):
    from edgar_eval.cli import _ensure_dagster_home

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    _ensure_dagster_home()
    host, dead = socket.gethostname(), _dead_pid()
    killed, alive = _started_run(host, dead), _started_run(host, os.getpid())
    elsewhere = _started_run("elsewhere", dead)
    with dg.DagsterInstance.get() as instance:
        for run in (killed, alive, elsewhere):
            instance.add_run(run)
    log = (tmp_path / "daemon.log").open("w")
    daemon = subprocess.Popen(
        [str(Path(sys.executable).parent / "dagster-daemon"), "run", "--empty-workspace"],
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        with dg.DagsterInstance.get() as instance:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and daemon.poll() is None:
                status = instance.get_run_by_id(killed.run_id)
                if status is not None and status.status == dg.DagsterRunStatus.FAILURE:
                    break
                time.sleep(1)
            statuses = {run.run_id: instance.get_run_by_id(run.run_id) for run in (killed, alive, elsewhere)}
            said = [record.message for record in instance.all_logs(killed.run_id)]
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        log.close()
    daemon_log = (tmp_path / "daemon.log").read_text()[-3000:]
    assert statuses[killed.run_id].status == dg.DagsterRunStatus.FAILURE, daemon_log  # type: ignore[union-attr]
    assert any(f"pid {dead} on {host}) is gone" in message for message in said), said
    # a run whose process is alive, or on a host this one cannot see, is left as it is
    assert statuses[alive.run_id].status == dg.DagsterRunStatus.STARTED  # type: ignore[union-attr]
    assert statuses[elsewhere.run_id].status == dg.DagsterRunStatus.STARTED  # type: ignore[union-attr]


def test_an_earlier_default_instance_config_is_brought_up_to_date_and_an_edited_one_left(tmp_path, monkeypatch):
    from edgar_eval.cli import EARLIER_INSTANCE_CONFIGS, INSTANCE_CONFIG, _ensure_dagster_home

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    (tmp_path / "dagster.yaml").write_text(EARLIER_INSTANCE_CONFIGS[0])
    _ensure_dagster_home()
    assert (tmp_path / "dagster.yaml").read_text() == INSTANCE_CONFIG
    edited = EARLIER_INSTANCE_CONFIGS[0] + "run_queue:\n  max_concurrent_runs: 2\n"
    (tmp_path / "dagster.yaml").write_text(edited)
    _ensure_dagster_home()
    assert (tmp_path / "dagster.yaml").read_text() == edited
