"""A fault-injection cluster: own Redis (AOF) on a free port, PostgreSQL behind a TCP proxy the
tests can cut, and one real Celery worker process per alignment stage with short redelivery.

Test configuration (production values in shared/config.py: visibility timeout (lease) 60 s
renewed every 15 s, hard limit 150 s, soft 120 s, restore sweep every 15 s, 3 retries of an
unexpected failure): lease 30 s renewed every 5 s, hard time limit 25 s, soft 20 s, restore
sweep every 2 s, 2 retries, reconciler sweep every 2 s for pairs sent more than 10 s ago
(production: 30 s, 300 s). A message held by a killed worker is therefore back on its queue
30-37 s after the worker's last renewal, whether or not a worker restarts (any live
consumer's sweep restores it).

Readiness is waited for, never slept for: the numba kernels are compiled once in the test
process before any worker starts (in a fresh clone that takes a minute or two on a busy 2-core
machine; the workers then load the cache instead of compiling side by side), and a worker
counts as started when its ``paramine_worker_ready`` gauge is 1 (warmed up, consuming).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from redis import Redis

from tests.integration.conftest import POSTGRES_ADMIN_URL, unavailable
from tests.integration.processes import free_port, start_paramine, stop, wait_for_worker_ready
from tests.integration.servers import RedisServer, TcpProxy

ALIGNMENT_STAGES = ("tree_align", "sentence_align")
VISIBILITY_TIMEOUT = 30.0
LEASE_RENEWAL_INTERVAL = (
    5.0  # a live worker's messages are never restored (shared/delivery/lease.py)
)
RESTORE_INTERVAL = 2
FAILURE_RETRIES = 2
RECONCILE_INTERVAL = 2.0
RECONCILE_AGE = 10.0
WORDS = (
    "river", "mountain", "city", "market", "school", "teacher", "train", "station", "garden",
    "window", "letter", "evening", "morning", "winter", "summer", "doctor", "bridge", "harbour",
)  # fmt: skip
FRENCH = {
    "river": "rivière", "mountain": "montagne", "city": "ville", "market": "marché",
    "school": "école", "teacher": "professeur", "train": "train", "station": "gare",
    "garden": "jardin", "window": "fenêtre", "letter": "lettre", "evening": "soir",
    "morning": "matin", "winter": "hiver", "summer": "été", "doctor": "médecin",
    "bridge": "pont", "harbour": "port",
}  # fmt: skip


def page_pairs(count: int, seed: int) -> list[dict[str, Any]]:
    """Small distinct en/fr page pairs of the site ``chaos-<seed>.example``: a few paragraphs
    of seeded sentences each."""
    rng = random.Random(seed)
    pairs = []
    for number in range(count):
        src_paragraphs, tgt_paragraphs = [], []
        for _ in range(rng.randint(2, 4)):
            src_sentences, tgt_sentences = [], []
            for _ in range(rng.randint(1, 3)):
                words = [rng.choice(WORDS) for _ in range(rng.randint(3, 9))]
                src_sentences.append("The " + " ".join(words) + f" number {number}.")
                tgt_sentences.append(
                    "Le " + " ".join(FRENCH[w] for w in words) + f" numéro {number}."
                )
            src_paragraphs.append("<p>" + " ".join(src_sentences) + "</p>")
            tgt_paragraphs.append("<p>" + " ".join(tgt_sentences) + "</p>")
        # one site per seed: a job learns from its own site only, as the embedded run does
        url = f"https://chaos-{seed}.example/{seed}/{number}"
        pairs.append(
            {
                "kind": "translation",
                "src": {
                    "url": url + "/en",
                    "lang": "en",
                    "html": "<html><body>" + "".join(src_paragraphs) + "</body></html>",
                },
                "tgt": {
                    "url": url + "/fr",
                    "lang": "fr",
                    "html": "<html><body>" + "".join(tgt_paragraphs) + "</body></html>",
                },
            }
        )
    return pairs


@dataclass
class ChaosCluster:
    redis: RedisServer
    proxy: TcpProxy
    database_url: str  # direct, for the test's own reads
    env: dict[str, str]
    logs: Path
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    metrics: dict[str, str] = field(default_factory=dict)
    starts: int = 0

    def start_worker(self, stage: str) -> None:
        self.starts += 1
        port = free_port()
        metrics_dir = self.logs / f"metrics-{stage}-{self.starts}"
        metrics_dir.mkdir()
        self.processes[stage] = start_paramine(
            ["worker", "--stage", stage, "--concurrency", "1", "--metrics-port", str(port)],
            {**self.env, "PARAMINE_METRICS_DIR": str(metrics_dir)},
            self.logs / f"{stage}-{self.starts}.log",
        )
        self.metrics[stage] = f"http://127.0.0.1:{port}/metrics"
        wait_for_worker_ready(self.metrics[stage], stage, self.processes[stage])

    def kill_worker(self, stage: str) -> None:
        """kill -9 the worker's whole process group: the parent and its prefork child."""
        process = self.processes[stage]
        os.killpg(process.pid, 9)
        process.wait(10)

    def terminate_worker(self, stage: str, timeout: float = 60.0) -> int:
        """SIGTERM the worker (Celery's warm shutdown: it finishes the task it runs and takes
        no new one), wait for it to exit; its exit code."""
        process = self.processes[stage]
        process.terminate()
        return process.wait(timeout)

    def redis_client(self) -> Redis:
        return redis.Redis.from_url(self.redis.url)


def postgres_database() -> Iterator[tuple[str, int]]:
    import psycopg

    name = f"paramine_chaos_{uuid.uuid4().hex[:10]}"
    try:
        admin = psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.Error as exc:
        unavailable("PostgreSQL", exc)
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        port = int(admin.info.port)
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}", port
    finally:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def cluster_env(redis_url: str, database_url: str, **overrides: str) -> dict[str, str]:
    """The workers' environment: this one without ``PARAMINE_*``, the fault tests' short
    delivery settings (module docstring), then ``overrides`` (``QUEUE__X`` names
    ``PARAMINE_QUEUE__X``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMINE_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    settings = {
        "REDIS_URL": redis_url,
        "DATABASE_URL": database_url,
        "QUEUE__VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
        "QUEUE__LEASE_RENEWAL_INTERVAL": str(LEASE_RENEWAL_INTERVAL),
        "QUEUE__HARD_TIME_LIMIT": "25",
        "QUEUE__SOFT_TIME_LIMIT": "20",
        "QUEUE__RETRY_BACKOFF_MAX": "8",
        "QUEUE__RESTORE_INTERVAL": str(RESTORE_INTERVAL),
        "QUEUE__FAILURE_RETRIES": str(FAILURE_RETRIES),
        "QUEUE__RECONCILE_INTERVAL": str(RECONCILE_INTERVAL),
        "QUEUE__RECONCILE_AGE": str(RECONCILE_AGE),
        # Site learning on, as users run it: a page pair learns from its site's pairs
        # accepted before it (shared/delivery/ordering.py), so the cluster's corpus, under faults
        # too, must equal the embedded run's exactly.
        **overrides,
    }
    return env | {f"PARAMINE_{name}": value for name, value in settings.items()}


@contextmanager
def running_cluster(logs: Path) -> Iterator[ChaosCluster]:
    """A private Redis (AOF), a fresh PostgreSQL database behind a TcpProxy and one worker per
    alignment stage with the fault tests' settings, started in ``logs``; all stopped after."""
    from shared.store import Store

    server = RedisServer(logs)
    database = postgres_database()
    database_url, pg_port = next(database)
    schema_store = Store(database_url)
    schema_store.ensure_schema()
    schema_store.engine.dispose()
    proxy = TcpProxy(pg_port)
    proxied_url = database_url.replace(f":{pg_port}/", f":{proxy.port}/")
    assert proxied_url != database_url, "the PostgreSQL URL must name its port"
    env = cluster_env(server.url, proxied_url)
    cluster = ChaosCluster(server, proxy, database_url, env, logs)
    try:
        for stage in ALIGNMENT_STAGES:
            cluster.start_worker(stage)
        yield cluster
    finally:
        for process in cluster.processes.values():
            stop(process)
        proxy.close()
        server.stop()
        next(database, None)


@pytest.fixture(scope="package")
def chaos_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChaosCluster]:
    from services.cli.worker_process import warm_up

    logs = tmp_path_factory.mktemp("chaos")
    warm_up("tree_align")  # compiles (or loads) every kernel both alignment stages run
    try:
        with running_cluster(logs) as cluster:
            yield cluster
    finally:
        from tests.chaos.jobs import close_stores

        close_stores()
        if os.environ.get("PARAMINE_KEEP_LOGS"):
            shutil.copytree(
                logs, Path(__file__).resolve().parents[2] / "var" / "chaos-logs", dirs_exist_ok=True
            )
