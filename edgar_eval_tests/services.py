"""Real servers on loopback for the deployment tests and bench/deployments.py: PostgreSQL and Redis from the OS
packages (Debian's postgresql and redis-server), and moto's S3-compatible server from the package registry (the
stand-in for S3 here). Each starts on a free port in a folder of its own, answers before it is handed out, and stops
with everything it wrote. A missing OS package is a skip with its reason, not a failure."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"


class ServiceMissing(RuntimeError):
    """The OS package a service needs is not installed: the caller skips, naming it."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, what: str, log: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}: {log.read_text(errors='replace')[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not answer on 127.0.0.1:{port} within {seconds:.0f} s")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def postgres_bin() -> Path:
    """The newest PostgreSQL server binaries the OS package installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if not found:
        raise ServiceMissing("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    return Path(found[-1]).parent


@dataclass
class Postgres:
    port: int
    user: str = "postgres"
    host: str = "127.0.0.1"

    def create_database(self, name: str) -> str:
        subprocess.run(
            [str(postgres_bin() / "createdb"), "-h", self.host, "-p", str(self.port), "-U", self.user, name],
            check=True,
            capture_output=True,
        )
        return name

    def environment(self, database: str) -> dict[str, str]:
        """The variables deploy/dagster.yaml reads the connection from."""
        return {
            "DAGSTER_PG_HOST": self.host,
            "DAGSTER_PG_PORT": str(self.port),
            "DAGSTER_PG_USERNAME": self.user,
            "DAGSTER_PG_PASSWORD": "",
            "DAGSTER_PG_DB": database,
        }


@contextlib.contextmanager
def postgres_server() -> Iterator[Postgres]:
    """A private PostgreSQL cluster (trust authentication on loopback). PostgreSQL refuses to run as root, so as root
    the cluster belongs to the OS package's `postgres` user."""
    binaries = postgres_bin()
    folder = Path(tempfile.mkdtemp(prefix="edgar-eval-pg-"))
    as_root = os.geteuid() == 0
    run_as: list[str] = []
    if as_root:
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    data, log = folder / "data", folder / "server.log"
    port = free_port()
    process = None
    try:
        subprocess.run(
            [*run_as, str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8"],
            check=True,
            capture_output=True,
        )
        with open(log, "wb") as out:
            process = subprocess.Popen(
                [*run_as, str(binaries / "postgres"), "-D", str(data), "-p", str(port), "-h", "127.0.0.1"]
                + ["-k", str(folder), "-c", "fsync=off", "-c", "max_connections=200"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        _wait_for_port(port, process, "postgres", log)
        deadline = time.monotonic() + 30
        while subprocess.run(
            [str(binaries / "pg_isready"), "-h", "127.0.0.1", "-p", str(port)], capture_output=True
        ).returncode:
            if time.monotonic() > deadline:
                raise RuntimeError("postgres accepted connections but never became ready")
            time.sleep(0.2)
        yield Postgres(port)
    finally:
        if process is not None:
            _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Redis:
    port: int

    def url(self, database: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{database}"


@contextlib.contextmanager
def redis_server() -> Iterator[Redis]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise ServiceMissing("Redis is not installed (Debian: apt-get install redis-server)")
    folder = Path(tempfile.mkdtemp(prefix="edgar-eval-redis-"))
    port, log = free_port(), folder / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            + ["--dir", str(folder)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_port(port, process, "redis-server", log)
        yield Redis(port)
    finally:
        _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class ObjectStore:
    endpoint: str
    bucket: str = "edgar-eval"

    def environment(self) -> dict[str, str]:
        """What s3fs (through botocore) reads to reach this server instead of AWS."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
        }

    def url(self, prefix: str) -> str:
        return f"s3://{self.bucket}/{prefix}"


@contextlib.contextmanager
def s3_server() -> Iterator[ObjectStore]:
    """moto's server mode: S3's HTTP API on loopback, in memory, in a process of its own."""
    folder = Path(tempfile.mkdtemp(prefix="edgar-eval-s3-"))
    port, log = free_port(), folder / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_port(port, process, "moto_server", log)
        store = ObjectStore(f"http://127.0.0.1:{port}")
        import boto3

        boto3.client("s3", endpoint_url=store.endpoint, **_credentials(store)).create_bucket(Bucket=store.bucket)
        yield store
    finally:
        _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


def _credentials(store: ObjectStore) -> dict[str, str]:
    env = store.environment()
    return {
        "aws_access_key_id": env["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": env["AWS_SECRET_ACCESS_KEY"],
        "region_name": env["AWS_DEFAULT_REGION"],
    }


@contextlib.contextmanager
def service_or_skip(started: contextlib.AbstractContextManager):
    """Enter a service, or skip the test naming the OS package that is missing."""
    try:
        value = started.__enter__()
    except ServiceMissing as missing:
        pytest.skip(str(missing))
    try:
        yield value
    finally:
        started.__exit__(None, None, None)


# The deployments `edgar-eval run` is measured and compared on (edgar_eval_tests/test_deployment.py and
# bench/deployments.py): each a project home of its own, an instance and an executor.

BIN = Path(sys.executable).parent
DEPLOYMENTS = ("in_process + SQLite", "multiprocess + Postgres", "celery + Postgres + S3")


def project_copy(folder: Path) -> Path:
    """A project home of its own: the protocols, baselines, reviews, policies, fixtures and tapes a run reads."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("protocol", "baselines", "reviews", "policies", "fixtures", "tapes"):
        if (REPO / name).exists():
            shutil.copytree(REPO / name, folder / name)
    return folder


def instance_home(folder: Path, instance_yaml: Path | None) -> Path:
    """DAGSTER_HOME with this dagster.yaml, or the CLI's own default (SQLite under DAGSTER_HOME)."""
    home = folder / ".dagster_home"
    home.mkdir(parents=True)
    if instance_yaml is not None:
        shutil.copy(instance_yaml, home / "dagster.yaml")
    else:
        (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    return home


def run_environment(home: Path, instance: Path, **settings: str) -> dict[str, str]:
    """The environment of `edgar-eval run` (and of every worker) for a project home: this machine's, less any
    EDGAR_EVAL_ or DAGSTER_ setting of the caller's, plus these."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("EDGAR_EVAL_", "DAGSTER_"))},
        "EDGAR_EVAL_HOME": str(home),
        "DAGSTER_HOME": str(instance),
        # as in an activated venv: dagster-celery starts `celery` from the PATH
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        **settings,
    }


def _wait_for_workers(env: dict[str, str], workers: list[subprocess.Popen], logs: Path, seconds: float = 180) -> None:
    from celery import Celery

    app = Celery(broker=env["EDGAR_EVAL_CELERY_BROKER"], backend=env["EDGAR_EVAL_CELERY_BACKEND"])
    deadline = time.monotonic() + seconds
    answered: list = []
    while time.monotonic() < deadline and all(worker.poll() is None for worker in workers):
        answered = app.control.ping(timeout=1.0) or []
        if len(answered) >= len(workers):
            return
        time.sleep(1)
    texts = "\n".join(path.read_text(errors="replace")[-1500:] for path in sorted(logs.iterdir()))
    raise RuntimeError(f"{len(answered)} of {len(workers)} Celery workers answered within {seconds:.0f} s:\n{texts}")


@contextlib.contextmanager
def celery_workers(env: dict[str, str], count: int = 2) -> Iterator[list[subprocess.Popen]]:
    """`count` Celery workers started as docs/deployment.md says (one task at a time each), answering a ping before use;
    stopped with a warm shutdown, then killed if they hang."""
    logs = Path(env["EDGAR_EVAL_HOME"]) / "workers"
    logs.mkdir(exist_ok=True)
    workers: list[subprocess.Popen] = []
    try:
        for number in range(1, count + 1):
            with open(logs / f"worker{number}.log", "wb") as log:
                workers.append(
                    subprocess.Popen(
                        [str(BIN / "dagster-celery"), "worker", "start", "-A", "dagster_celery.app"]
                        + ["-y", str(DEPLOY / "celery.yaml"), "-n", f"worker{number}", "--loglevel", "WARNING"]
                        + ["-i", "edgar_eval.warm_code_location"]
                        + ["--", "--concurrency=1"],
                        env=env,
                        cwd=env["EDGAR_EVAL_HOME"],
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        _wait_for_workers(env, workers, logs)
        yield workers
    finally:
        for worker in workers:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(worker.pid, signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()


@contextlib.contextmanager
def deployment(
    name: str,
    folder: Path,
    postgres: Postgres | None = None,
    redis: Redis | None = None,
    object_store: ObjectStore | None = None,
    **settings: str,
) -> Iterator[tuple[dict[str, str], list[subprocess.Popen]]]:
    """One of DEPLOYMENTS in a project home of its own under `folder`: the environment `edgar-eval run` runs in, and
    the worker processes serving it (Celery's two, started here; none for the others)."""
    home = project_copy(folder)
    if name == "in_process + SQLite":
        yield run_environment(home, instance_home(home, None), EDGAR_EVAL_EXECUTOR="in_process", **settings), []
        return
    assert postgres is not None, f"{name} needs PostgreSQL"
    database = postgres.create_database(folder.name.replace("-", "_").lower())
    if name == "multiprocess + Postgres":
        env = run_environment(
            home,
            instance_home(home, DEPLOY / "dagster.yaml"),
            EDGAR_EVAL_EXECUTOR="multiprocess",
            **postgres.environment(database),
            **settings,
        )
        yield env, []
        return
    assert name == "celery + Postgres + S3" and redis is not None and object_store is not None, name
    env = run_environment(
        home,
        instance_home(home, DEPLOY / "dagster.yaml"),
        EDGAR_EVAL_EXECUTOR="celery",
        EDGAR_EVAL_EXECUTOR_CONFIG=str(DEPLOY / "celery.yaml"),
        EDGAR_EVAL_CELERY_BROKER=redis.url(0),
        EDGAR_EVAL_CELERY_BACKEND=redis.url(1),
        EDGAR_EVAL_PARALLEL_RUNS="2",  # a filing's run for each worker, so both are busy (`edgar-eval run --parallel`)
        EDGAR_EVAL_DATA=object_store.url(f"{folder.name}/data"),
        **postgres.environment(database),
        **object_store.environment(),
        **settings,
    )
    with celery_workers(env) as workers:
        yield env, workers
