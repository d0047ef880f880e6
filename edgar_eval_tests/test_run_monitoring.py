"""A run whose process was killed is marked failed by the sensor `orphaned_runs` in the daemon (`dagster dev` runs that
daemon beside the UI), not only by the next `edgar-eval run`."""

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import dagster as dg
import pytest

from edgar_eval.defs.run_tags import HOST_TAG, PID_TAG, RUN_TAG, gone


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _started_run(host: str, pid: int, tags_of: dg.DagsterRun | None = None) -> dg.DagsterRun:
    """A started run whose tags say the CLI on `host` launched it from process `pid`; or, with `tags_of`, a
    re-execution of that run (the UI and the retry daemon copy the parent's tags to the new run)."""
    run_id = str(uuid.uuid4())
    tags = dict(tags_of.tags) if tags_of else {HOST_TAG: host, PID_TAG: str(pid), RUN_TAG: run_id}
    return dg.DagsterRun(job_name="corpus", run_id=run_id, status=dg.DagsterRunStatus.STARTED, tags=tags)


def test_a_run_is_gone_only_when_this_host_launched_it_as_itself_and_its_process_is_dead():
    host, dead = socket.gethostname(), _dead_pid()
    killed = _started_run(host, dead)
    assert gone(killed.run_id, killed.tags) == f"the process that ran it (pid {dead} on {host}) is gone"
    assert gone(killed.run_id, {**killed.tags, PID_TAG: str(os.getpid())}) is None  # alive
    assert gone(killed.run_id, {**killed.tags, HOST_TAG: "elsewhere"}) is None  # a process this host cannot see
    reexecuted = _started_run(host, dead, tags_of=killed)
    assert gone(reexecuted.run_id, reexecuted.tags) is None  # the parent's tags, another run
    assert gone(killed.run_id, {HOST_TAG: host, PID_TAG: str(dead)}) is None  # no run tag: not the CLI's run


@pytest.mark.slow(minutes=1)  # starts the Dagster daemon: tens of seconds
def test_the_daemons_sensor_marks_failed_a_run_whose_process_was_killed(tmp_path, monkeypatch):
    from edgar_eval.cli import _ensure_dagster_home

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    _ensure_dagster_home()
    host, dead = socket.gethostname(), _dead_pid()
    killed, alive = _started_run(host, dead), _started_run(host, os.getpid())
    elsewhere, reexecuted = _started_run("elsewhere", dead), _started_run(host, dead, tags_of=killed)
    with dg.DagsterInstance.get() as instance:
        for run in (killed, alive, elsewhere, reexecuted):
            instance.add_run(run)
    log = (tmp_path / "daemon.log").open("w")
    daemon = subprocess.Popen(
        [str(Path(sys.executable).parent / "dagster-daemon"), "run", "-m", "edgar_eval.definitions"],
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
            statuses = {
                run.run_id: instance.get_run_by_id(run.run_id) for run in (killed, alive, elsewhere, reexecuted)
            }
            said = [record.message for record in instance.all_logs(killed.run_id)]
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        log.close()
    daemon_log = (tmp_path / "daemon.log").read_text()[-3000:]
    assert statuses[killed.run_id].status == dg.DagsterRunStatus.FAILURE, daemon_log  # type: ignore[union-attr]
    assert any(f"pid {dead} on {host}) is gone" in message for message in said), said
    # a run whose process is alive, on a host this one cannot see, or re-executed from the killed one (its tags
    # copied) is left as it is
    for run in (alive, elsewhere, reexecuted):
        assert statuses[run.run_id].status == dg.DagsterRunStatus.STARTED  # type: ignore[union-attr]


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


def test_a_home_naming_the_earlier_run_launcher_is_brought_up_to_date_or_still_loads_when_edited(tmp_path, monkeypatch):
    """The launcher earlier versions named is gone from the default; a home that names it still opens: unedited, it is
    rewritten to the current default; edited, it is left and the name loads Dagster's default launcher."""
    from edgar_eval.cli import EARLIER_INSTANCE_CONFIGS, INSTANCE_CONFIG, _ensure_dagster_home

    with_launcher = next(config for config in EARLIER_INSTANCE_CONFIGS if "LocalRunLauncher" in config)
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    (tmp_path / "dagster.yaml").write_text(with_launcher)
    _ensure_dagster_home()
    assert (tmp_path / "dagster.yaml").read_text() == INSTANCE_CONFIG
    (tmp_path / "dagster.yaml").write_text(with_launcher + "run_queue:\n  max_concurrent_runs: 2\n")
    _ensure_dagster_home()
    assert "LocalRunLauncher" in (tmp_path / "dagster.yaml").read_text()
    with dg.DagsterInstance.get() as instance:
        assert type(instance.run_launcher) is dg.DefaultRunLauncher


def test_a_pid_of_another_process_namespace_is_not_judged_gone():
    """Two containers under one host name number their processes apart: a run whose tags name another pid namespace
    is left alone, whatever its pid is here; one of this namespace, or from before the tag, is judged as before."""
    from edgar_eval.defs.run_tags import PID_NAMESPACE_TAG, pid_namespace

    host, dead = socket.gethostname(), _dead_pid()
    killed = _started_run(host, dead)
    assert gone(killed.run_id, {**killed.tags, PID_NAMESPACE_TAG: "another"}) is None
    assert gone(killed.run_id, killed.tags) is not None  # no namespace recorded: an earlier version's run
    if pid_namespace():
        assert gone(killed.run_id, {**killed.tags, PID_NAMESPACE_TAG: pid_namespace()}) is not None


def test_a_run_being_stopped_when_its_process_went_is_canceled_not_failed(tmp_path):
    """A canceling run whose process is gone was being stopped: canceled, not failed (as Dagster's own monitor ends
    one)."""
    from edgar_eval.defs.orphaned_runs import end_orphaned_runs

    host, dead = socket.gethostname(), _dead_pid()
    stopping = _started_run(host, dead)
    stopping = dg.DagsterRun(
        job_name="corpus", run_id=stopping.run_id, status=dg.DagsterRunStatus.CANCELING, tags=stopping.tags
    )
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        instance.add_run(stopping)
        assert [how for _, how in end_orphaned_runs(instance)] == [
            "was being stopped when its process went: marked canceled"
        ]
        assert instance.get_run_by_id(stopping.run_id).status == dg.DagsterRunStatus.CANCELED  # type: ignore[union-attr]
