"""Off one machine, from the same Definitions: the demo graph through `edgar-eval run` gives the committed report
byte for byte on each deployment: in-process + SQLite (test_pipeline), multiprocess + SQLite (test_ui, as the README's
first command runs it), multiprocess + PostgreSQL + an S3-compatible store (here, as the run after one killed with
SIGKILL mid-partition, which also leaves every recorded materialisation readable), and Celery (two workers, a Redis
broker) + PostgreSQL + the store (here; bench/deployments.py's Celery case starts the same deployment, so its smoke
test runs only the in-process case, and the bench's own start of the services is run by no test). The PostgreSQL and
Celery deployments' whole-graph runs are made once in the suite, here: a graph run is minutes on two cores. The
deployment files (deploy/) load under Dagster's own config schemas, Kubernetes included, which is checked here but
not run.

PostgreSQL and Redis are the OS packages' servers (skipped, naming the package, where missing); the object store is
moto's S3-compatible server on loopback, the stand-in for S3 here."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Iterator, cast

import pytest

from edgar_eval_tests.services import (
    DEPLOY,
    ObjectStore,
    Postgres,
    Redis,
    deployment,
    postgres_server,
    redis_server,
    s3_server,
    service_or_skip,
)

pytestmark = [
    pytest.mark.slow(minutes=8),  # whole-graph runs: scheduled with the longest first
    pytest.mark.integration,
    pytest.mark.services,
]

REPO = Path(__file__).resolve().parents[1]
REPORTS = ("report.md", "report.html")


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    with service_or_skip(postgres_server()) as server:
        yield server


@pytest.fixture(scope="module")
def redis() -> Iterator[Redis]:
    with service_or_skip(redis_server()) as server:
        yield server


@pytest.fixture(scope="module")
def object_store() -> Iterator[ObjectStore]:
    with s3_server() as server:
        yield server


def _run(env: dict[str, str], timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "edgar_eval", "run"],
        capture_output=True,
        text=True,
        env=env,
        cwd=env["EDGAR_EVAL_HOME"],
        timeout=timeout,
    )


def _reports(home: Path) -> dict[str, bytes]:
    return {name: (home / "reports" / "demo" / name).read_bytes() for name in REPORTS}


def test_the_demo_graph_on_celery_reports_byte_for_byte_what_it_reports_in_process(
    tmp_path, postgres, redis, object_store
):
    committed = _reports(REPO)  # the in-process report
    name = "celery + Postgres + S3"
    folder = tmp_path / "celery"
    demo_corpus = str(folder / "demo_corpus")  # the workers' environment too: set before they start
    with deployment(name, folder, postgres, redis, object_store, EDGAR_EVAL_DEMO_CORPUS=demo_corpus) as (
        env,
        workers,
    ):
        result = _run(env)
        assert all(worker.poll() is None for worker in workers), "a Celery worker died during the run"
    assert result.returncode == 0, result.stderr[-3000:]
    assert not (folder / "data" / "demo").exists(), "a table fell back to a local folder"
    # the steps ran on the workers; the CLI follows the run's events and shows each one as it finishes, with its time
    progress = re.findall(r"^  done   (\w+) \((\d+\.\d) s\)$", result.stdout, re.M)
    assert {"golden_questions_and_rejections", "report"} <= {step for step, _ in progress}, result.stdout[-3000:]
    assert len(progress) == len({step for step, _ in progress}), "a step shown twice"
    written = _reports(folder)
    for report in REPORTS:
        assert written[report] == committed[report], f"{name}: {report} differs from the committed report"


def _materialised(instance_env: dict[str, str]) -> dict[str, list[str | None]]:
    """Every (asset, partition) the run history records a materialisation of, read through the deployment's own
    instance (Postgres), in a process of its own so the environment is the deployment's."""
    script = (
        "import json, dagster as dg\n"
        "instance = dg.DagsterInstance.get()\n"
        "found = {}\n"
        "for key in instance.get_asset_keys():\n"
        "    name = key.to_user_string()\n"
        "    partitions = instance.get_materialized_partitions(key)\n"
        "    found[name] = sorted(partitions) if partitions else [None]\n"
        "print(json.dumps(found))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], env=instance_env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_run_killed_mid_partition_leaves_every_materialisation_readable_and_the_next_run_completes(
    tmp_path, postgres, object_store, monkeypatch
):
    home = tmp_path / "killed"
    with deployment(
        "multiprocess + Postgres",
        home,
        postgres,
        EDGAR_EVAL_DEMO_CORPUS=str(home / "demo_corpus"),
        EDGAR_EVAL_DATA=object_store.url("killed/data"),
        **object_store.environment(),
    ) as (env, _):
        _kill_mid_partition_then_rerun(env, home, object_store, monkeypatch)


def _kill_mid_partition_then_rerun(env: dict[str, str], home: Path, object_store: ObjectStore, monkeypatch) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "edgar_eval", "run"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=home,
        start_new_session=True,  # its own process group: the kill takes the run and every step process with it
    )
    finished = 0
    for line in cast(IO[str], process.stdout):
        if line.strip().startswith("ok"):
            finished += 1
            if finished == 3:  # three filings done: kill the fourth partition's run once it has stored a table
                _kill_once_a_run_is_mid_partition(env, process, monkeypatch)
                break
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL

    from dagster import DagsterRunStatus

    statuses = _run_statuses(env)
    assert statuses.count(DagsterRunStatus.STARTED.value) == 1, f"not one run killed mid-run: {statuses}"
    assert statuses.count(DagsterRunStatus.SUCCESS.value) == len(statuses) - 1 >= 3, statuses  # the rest finished

    # every materialisation the run history records reads back as a whole table
    from edgar_eval.adapters.parquet_store import ParquetStore

    for variable, value in object_store.environment().items():
        monkeypatch.setenv(variable, value)
    store = ParquetStore(f"{env['EDGAR_EVAL_DATA']}/demo")
    recorded = _materialised(env)
    assert recorded.get("chunks"), recorded
    for asset, partitions in recorded.items():
        if asset == "filing_documents":  # observed, not stored
            continue
        for partition in partitions:
            assert len(store.read(asset, partition).columns) > 0

    result = _run(env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "killed mid-run (its process is gone): marked failed, its pool slots freed" in result.stdout
    # the multiprocess + Postgres + object store deployment's whole-graph run: the committed (in-process) report
    assert _reports(home) == _reports(REPO)
    assert not (home / "data" / "demo").exists(), "a table fell back to a local folder"
    assert DagsterRunStatus.STARTED.value not in _run_statuses(env)


def _kill_once_a_run_is_mid_partition(env: dict[str, str], process: subprocess.Popen, monkeypatch) -> None:
    """SIGKILL the run's process group while a corpus run is started and has materialised a table but not all six:
    watched in the run history (a fixed sleep let a fast machine finish the partition first)."""
    import dagster as dg

    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    with dg.DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for run in instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])):
                stored = instance.get_records_for_run(run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
                if 0 < len(stored.records) < 6:
                    os.killpg(process.pid, signal.SIGKILL)
                    return
            time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    raise AssertionError("no corpus run was seen mid-partition within 120 s")


def _run_statuses(env: dict[str, str]) -> list[str]:
    script = "import dagster as dg\nfor run in dg.DagsterInstance.get().get_runs(): print(run.status.value)\n"
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


# The deployment files, checked by Dagster's own config schemas: what a cluster would refuse is refused here.


def _instance_settings(path: Path, tmp_path: Path) -> dict:
    from dagster._core.instance.config import dagster_instance_config

    folder = tmp_path / path.parent.name
    folder.mkdir(exist_ok=True)
    shutil.copy(path, folder / "dagster.yaml")
    settings, _ = dagster_instance_config(str(folder))  # raises DagsterInvalidConfigError on a wrong key or shape
    return dict(settings)


def _class_config_errors(entry: dict) -> list[str]:
    """The errors of a configurable class's `config` against that class's own schema (dagster.yaml's run launcher)."""
    from dagster._config import validate_config
    from dagster._serdes import ConfigurableClass
    from dagster._serdes.config_class import class_from_code_pointer

    klass = cast(type[ConfigurableClass], class_from_code_pointer(entry["module"], entry["class"]))
    checked = validate_config(klass.config_type(), entry.get("config", {}))
    return [error.message for error in checked.errors or ()]


def test_the_deployment_instance_keeps_runs_in_postgres_behind_a_queue(tmp_path):
    settings = _instance_settings(DEPLOY / "dagster.yaml", tmp_path)
    assert set(settings["storage"]) == {"postgres"}
    assert settings["run_coordinator"]["class"] == "QueuedRunCoordinator"
    assert _class_config_errors(settings["run_coordinator"]) == []  # the class loads, its config fits
    assert settings["run_monitoring"]["enabled"] is True
    assert settings["concurrency"]["pools"]["default_limit"] >= 1


def test_the_kubernetes_instance_and_executor_fit_dagster_k8s_schemas(tmp_path, monkeypatch):
    settings = _instance_settings(DEPLOY / "k8s" / "dagster.yaml", tmp_path)
    assert settings["run_launcher"]["class"] == "K8sRunLauncher"
    assert _class_config_errors(settings["run_launcher"]) == []
    assert _class_config_errors(settings["run_coordinator"]) == []
    broken = {**settings["run_launcher"], "config": {**settings["run_launcher"]["config"], "job_imag": "typo"}}
    assert any("job_imag" in error for error in _class_config_errors(broken))  # the check can fail

    from edgar_eval.defs.executors import executor_from_env

    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR", "k8s")
    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR_CONFIG", str(DEPLOY / "k8s" / "executor.yaml"))
    assert executor_from_env().name == "k8s"


def test_an_executor_settings_file_that_does_not_fit_the_schema_is_refused_in_one_line(tmp_path, monkeypatch):
    from edgar_eval.defs.executors import executor_from_env

    wrong = tmp_path / "celery.yaml"
    wrong.write_text("execution:\n  config:\n    brokr: redis://127.0.0.1:6379/0\n")
    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR", "celery")
    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR_CONFIG", str(wrong))
    with pytest.raises(ValueError, match='unexpected config entry "brokr"'):
        executor_from_env()
    wrong.write_text("broker: redis://127.0.0.1:6379/0\n")
    with pytest.raises(ValueError, match="no `execution: config:` mapping"):
        executor_from_env()
    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR_CONFIG", str(tmp_path / "missing.yaml"))
    with pytest.raises(ValueError, match="does not exist"):
        executor_from_env()
    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR", "celry")
    with pytest.raises(ValueError, match="unknown EDGAR_EVAL_EXECUTOR 'celry'"):
        executor_from_env()


def test_the_celery_workers_and_the_run_read_one_settings_file(monkeypatch):
    from dagster_celery.cli import get_validated_config

    from edgar_eval.defs.executors import executor_from_env

    monkeypatch.setenv("EDGAR_EVAL_CELERY_BROKER", "redis://127.0.0.1:6379/0")
    monkeypatch.setenv("EDGAR_EVAL_CELERY_BACKEND", "redis://127.0.0.1:6379/1")
    worker = get_validated_config(str(DEPLOY / "celery.yaml"))  # what `dagster-celery worker start -y` reads
    assert worker["broker"] == "redis://127.0.0.1:6379/0" and worker["backend"] == "redis://127.0.0.1:6379/1"
    monkeypatch.setenv("EDGAR_EVAL_EXECUTOR", "celery")
    monkeypatch.delenv("EDGAR_EVAL_EXECUTOR_CONFIG", raising=False)
    assert executor_from_env().name == "celery"  # the run's default settings file is the same one


def test_every_pool_has_its_limit_before_runs_claim_it_at_once_on_postgres(tmp_path, postgres, monkeypatch):
    """Dagster inserts a pool's default limit on its first claim; on PostgreSQL a second insert (two runs claiming a
    new pool at once) aborts the transaction and fails the run. The CLI initialises every pool once, before any run."""
    import dagster as dg
    import sqlalchemy.exc

    from edgar_eval.definitions import defs
    from edgar_eval.defs.executors import MODEL_ENDPOINT_POOL
    from edgar_eval.defs.runner import initialise_pools

    home = tmp_path / "pools"
    with deployment("multiprocess + Postgres", home, postgres) as (env, _):
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        with dg.DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
            storage = instance.event_log_storage
            storage.initialize_concurrency_limit_to_default("first_claim")
            with pytest.raises(sqlalchemy.exc.InternalError, match="current transaction is aborted"):
                storage.initialize_concurrency_limit_to_default("first_claim")  # the losing run's claim, as it fails

            assert initialise_pools(defs(), instance) == [MODEL_ENDPOINT_POOL]
            assert storage.get_concurrency_info(MODEL_ENDPOINT_POOL).slot_count == 2  # deploy/dagster.yaml's default
            storage.set_concurrency_slots(MODEL_ENDPOINT_POOL, 5)  # set by hand: kept
            assert initialise_pools(defs(), instance) == []
            assert storage.get_concurrency_info(MODEL_ENDPOINT_POOL).slot_count == 5
