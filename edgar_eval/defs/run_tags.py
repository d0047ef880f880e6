"""Which process on which machine runs a run the CLI launched, and whether that process is gone.

A run whose process is gone (SIGKILL, a lost machine) never reports its own end: the next CLI run on that machine ends
it, and so does the daemon's sensor `orphaned_runs` (both `orphaned_runs.end_orphaned_runs`). A run re-executed from
the UI, or retried by the daemon, inherits its parent's tags, so a run is taken for the CLI's own only where the tag
naming its run id names this run.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

HOST_TAG = "edgar-eval/host"
PID_TAG = "edgar-eval/pid"
RUN_TAG = "edgar-eval/run"  # the id of the run the CLI created with these tags (a re-execution's differs)
# The system a run measures, on every run of the graph's jobs (the UI filters runs by them, and each headline figure's
# metadata repeats them, so a point of a chart across runs says which system it is): the corpus, the generator under
# test and the first 12 hex digits of the settings digest (statistics/pins.settings_digest).
CORPUS_TAG = "edgar-eval/corpus"
GENERATOR_TAG = "edgar-eval/generator"
SETTINGS_TAG = "edgar-eval/settings"
SYSTEM_TAGS = {"corpus": CORPUS_TAG, "generator": GENERATOR_TAG, "settings": SETTINGS_TAG}
# Set on a run that Ctrl-C stopped (runner.CancelOnInterrupt): the step it stopped, if one was going.
STOPPED_TAG = "edgar-eval/stopped"
# Dagster's own tags, named by the strings its storage holds: the tag naming a run's partition, and the one carrying an
# observation's or a materialisation's data version. The strings are part of every instance's stored history (the
# UI's run filters and Dagster's staleness read them), so they are as stable as the storage's schema; the modules that
# define them in Dagster are private and move between releases. test_dagsters_tag_names_are_the_ones_its_storage_holds
# (test_architecture.py) pins them to Dagster's values.
PARTITION_TAG = "dagster/partition"
DATA_VERSION_TAG = "dagster/data_version"


PID_NAMESPACE_TAG = "edgar-eval/pid-namespace"  # which processes the pid is one of (containers on one host name)


def pid_namespace() -> str:
    """This process's pid namespace ("" where the system does not say: not Linux): two containers given one host name
    (`--network host`, one pod) number their processes apart, so a pid means something only within its namespace."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return ""


def launch_tags(run_id: str) -> dict[str, str]:
    """The tags of a run this process creates as `run_id`."""
    tags = {HOST_TAG: socket.gethostname(), PID_TAG: str(os.getpid()), RUN_TAG: run_id}
    return {**tags, PID_NAMESPACE_TAG: pid_namespace()} if pid_namespace() else tags


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def gone(run_id: str, tags: Mapping[str, str]) -> str | None:
    """Why the run is over though no end was recorded (its process on this machine is gone), or None: the run is not
    one a CLI process on this machine launched, or its process lives."""
    host, pid = tags.get(HOST_TAG), tags.get(PID_TAG, "")
    if host != socket.gethostname() or tags.get(RUN_TAG) != run_id or not pid.isdigit():
        return None
    if tags.get(PID_NAMESPACE_TAG, pid_namespace()) != pid_namespace():  # another container's pid: not ours to judge
        return None
    if process_alive(int(pid)):
        return None
    return f"the process that ran it (pid {pid} on {host}) is gone"
