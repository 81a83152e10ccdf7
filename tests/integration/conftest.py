"""Real services for integration tests: Redis, a fresh PostgreSQL database, worker processes."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from shared.schemas import STAGES
from tests.integration.processes import (
    REPO,
    free_port,
    start_paramine,
    stop,
    wait_for_http,
    wait_for_worker_ready,
)

REDIS_URL = os.environ.get("PARAMINE_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
POSTGRES_ADMIN_URL = os.environ.get(
    "PARAMINE_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)


def unavailable(what: str, exc: Exception) -> None:
    message = f"{what} is not reachable ({exc}); .ci/run installs and starts it"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.ping()
    except redis.RedisError as exc:
        unavailable("Redis", exc)
    client.flushdb()
    yield REDIS_URL
    client.flushdb()


@contextlib.contextmanager
def fresh_database() -> Iterator[str]:
    """A throwaway database on the test server, dropped at the end."""
    import psycopg

    name = f"paramine_it_{uuid.uuid4().hex[:10]}"
    try:
        admin = psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.Error as exc:
        unavailable("PostgreSQL", exc)
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throwaway database shared by the session's tests."""
    with fresh_database() as url:
        yield url


@dataclass
class Cluster:
    """A running gateway and one worker process per stage."""

    gateway: str
    env: dict[str, str]
    worker_metrics: dict[str, str] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logs: Path = REPO


@pytest.fixture(scope="session")
def cluster(
    redis_url: str, postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Cluster]:
    logs = tmp_path_factory.mktemp("cluster-logs")
    env = {
        **os.environ,
        "PARAMINE_REDIS_URL": redis_url,
        "PARAMINE_DATABASE_URL": postgres_url,
        "PARAMINE_MAX_BODY_BYTES": "2000000",
        "PARAMINE_API_KEY": "test-ingest-key",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    port = free_port()
    result = Cluster(gateway=f"http://127.0.0.1:{port}", env=env, logs=logs)
    try:
        for stage in STAGES:
            metrics_port = free_port()
            metrics_dir = logs / f"metrics-{stage}"
            metrics_dir.mkdir()
            stage_env = {**env, "PARAMINE_METRICS_DIR": str(metrics_dir)}
            result.processes[stage] = start_paramine(
                [
                    "worker",
                    "--stage",
                    stage,
                    "--concurrency",
                    "1",
                    "--metrics-port",
                    str(metrics_port),
                ],
                stage_env,
                logs / f"{stage}.log",
            )
            result.worker_metrics[stage] = f"http://127.0.0.1:{metrics_port}/metrics"
        gateway_dir = logs / "metrics-gateway"
        gateway_dir.mkdir()
        result.processes["gateway"] = start_paramine(
            ["serve", "--host", "127.0.0.1", "--port", str(port)],
            {**env, "PARAMINE_METRICS_DIR": str(gateway_dir)},
            logs / "gateway.log",
        )
        wait_for_http(f"{result.gateway}/healthz", process=result.processes["gateway"])
        for stage in STAGES:
            wait_for_worker_ready(result.worker_metrics[stage], stage, result.processes[stage])
        yield result
    finally:
        for process in result.processes.values():
            stop(process)
        if os.environ.get("PARAMINE_KEEP_LOGS"):
            shutil.copytree(logs, REPO / "var" / "cluster-logs", dirs_exist_ok=True)
