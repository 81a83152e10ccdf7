"""The load benchmark's processes: a throwaway database, the gateway and workers, their CPU.

``cluster`` starts the real ``paramine serve`` and ``paramine worker`` processes of one
configuration and stops them; ``postgres_database`` creates and drops a throwaway PostgreSQL
database; CPU seconds are read from /proc and the handlers' own time from the workers'
/metrics endpoints. Used by ``benchmarks.system.pipeline_load``.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.processes import (
    PARAMINE,
    REPO,
    free_port,
    wait_for_http,
    wait_for_worker_ready,
)

STAGES = ("tree_align", "sentence_align", "paraphrase", "thesaurus")
ALIGNMENT_STAGES = ("tree_align", "sentence_align")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# -- processes, /proc and metrics -------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """utime + stime of one process from /proc/<pid>/stat (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                found.append(int(entry.name))
    return found


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its direct children (a Celery prefork pool)."""
    return cpu_seconds(pid) + sum(cpu_seconds(child) for child in children(pid))


def latency_sums(url: str) -> dict[str, tuple[float, float]]:
    """stage → (sum, count) of paramine_stage_latency_seconds from one /metrics endpoint."""
    text = httpx.get(url, timeout=10).text
    sums: dict[str, list[float]] = {}
    for family in text_string_to_metric_families(text):
        if family.name == "paramine_stage_latency_seconds":
            for sample in family.samples:
                entry = sums.setdefault(sample.labels["stage"], [0.0, 0.0])
                if sample.name.endswith("_sum"):
                    entry[0] += sample.value
                elif sample.name.endswith("_count"):
                    entry[1] += sample.value
    return {stage: (total, count) for stage, (total, count) in sums.items()}


@dataclass
class Cluster:
    gateway: str
    gateway_process: subprocess.Popen[bytes]
    workers: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    worker_metrics: dict[str, str] = field(default_factory=dict)


@contextmanager
def postgres_database(admin_url: str) -> Iterator[str]:
    import psycopg

    name = f"paramine_load_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{admin_url.rsplit('/', 1)[0]}/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def cluster(
    processes: int, redis_url: str, database_url: str, logs: Path, code_dir: Path | None = None
) -> Iterator[Cluster]:
    env = {**os.environ, "PARAMINE_REDIS_URL": redis_url, "PARAMINE_DATABASE_URL": database_url}
    if code_dir is not None:  # the gateway and workers import paramine from another tree
        env["PYTHONPATH"] = str(code_dir)
    for key in ("PROMETHEUS_MULTIPROC_DIR", "PARAMINE_API_KEY"):
        env.pop(key, None)
    started: list[subprocess.Popen[bytes]] = []

    def start(args: list[str], name: str) -> subprocess.Popen[bytes]:
        metrics_dir = logs / f"metrics-{name}"
        metrics_dir.mkdir()
        process = subprocess.Popen(
            [PARAMINE, *args],
            env={**env, "PARAMINE_METRICS_DIR": str(metrics_dir)},
            stdout=(logs / f"{name}.log").open("wb"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
            start_new_session=True,
        )
        started.append(process)
        return process

    port = free_port()
    try:
        result = Cluster(
            f"http://127.0.0.1:{port}", start(["serve", "--port", str(port)], "gateway")
        )
        for stage in STAGES:
            metrics_port = free_port()
            concurrency = processes if stage in ALIGNMENT_STAGES else 1
            result.workers[stage] = start(
                ["worker", "--stage", stage, "--concurrency", str(concurrency),
                 "--metrics-port", str(metrics_port),
                 "--loglevel", "INFO" if stage == "tree_align" else "WARNING"],
                stage,
            )  # fmt: skip
            result.worker_metrics[stage] = f"http://127.0.0.1:{metrics_port}/metrics"
        wait_for_http(f"{result.gateway}/healthz", 120, result.gateway_process)
        for stage in STAGES:
            wait_for_worker_ready(result.worker_metrics[stage], stage, result.workers[stage])
        yield result
    finally:
        for process in started:
            if process.poll() is None:
                process.terminate()
        for process in started:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
                process.wait(5)
