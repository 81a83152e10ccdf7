"""Load benchmark of the distributed pipeline: gateway, Celery workers, Redis and PostgreSQL.

For each configuration (1, 2, 4 worker processes per alignment stage; paraphrase and thesaurus
one each) a fresh PostgreSQL database and Redis database are used, the real ``paramine serve``
and ``paramine worker`` processes are started, and a bounded async httpx client drives the
gateway with generated news-size page pairs (one pair per request, its own job id):

1. warm-up: a few pairs per pool process (database connections, first-use caches; the numba
   kernels were compiled by each worker before it forked its pool), not counted;
2. saturation, half the duration: closed loop that keeps ``2 × processes`` messages waiting in
   ``paramine.tree_align``; throughput = page pairs whose sentence pairs were stored
   (``pair_progress`` row of sentence_align) per second of the phase;
3. 80% load, the other half: open loop, Poisson arrivals at 0.8 × the measured throughput;
   end-to-end latency = submit → sentence_align's progress row written (the same clock: all
   processes run on this machine), enqueue→start latency (see ``task_starts``);
4. a backlog: ``BACKLOG_SECONDS`` of work at the measured throughput sent at once, and the
   time until its last pair is stored (the drain time).

The latency goal (issue 39) is the queue hop's own overhead: p99 enqueue→start of the tasks
that found a free pool process, at 80% load, < 50 ms. Enqueue→start of every task is reported
too; at 80% load it includes waiting behind a busy process, which is queueing (for M/M/2 at
ρ = 0.8 the p99 wait is about 10.7 service times), not delivery.

Queue depth (LLEN of every stage queue) is sampled every 0.5 s; CPU time of the worker process
trees, the gateway and redis-server is read from /proc before and after the saturation phase
and compared with the handlers' own time (``paramine_stage_latency_seconds_sum``).

Run: ``.venv/bin/python -m benchmarks.pipeline_load [--duration 300] [--workers 1,2,4]``
(needs Redis and PostgreSQL; writes benchmarks/results/pipeline_load.md).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import os
import random
import re
import statistics
import subprocess
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import redis
from prometheus_client.parser import text_string_to_metric_families

from benchmarks._report import publish
from benchmarks.common import RESULTS as RESULTS_FOLDER
from benchmarks.generators import generate_pair
from tests.integration.processes import (
    PARAMINE,
    REPO,
    free_port,
    wait_for_http,
    wait_for_worker_ready,
)

RESULTS = RESULTS_FOLDER / "pipeline_load.md"
STAGES = ("tree_align", "sentence_align", "paraphrase", "thesaurus")
ALIGNMENT_STAGES = ("tree_align", "sentence_align")
# The client's idle connections expire before the gateway's keep-alive timeout closes them
# (uvicorn's 5 s, also httpx's default expiry): with equal timeouts a request can go out on a
# connection the server is closing and fail unanswered (one request of a 2-process run at
# 3624342 got no response and no line in the gateway's log).
KEEPALIVE_EXPIRY = 2.0
# seconds of work (at the saturation throughput) sent at once to measure a backlog's drain
BACKLOG_SECONDS = 30.0
HOP_GOAL = 0.050  # p99 hop overhead at 80% load (issue 39)
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


# -- the load run -----------------------------------------------------------------------------


@dataclass
class Submitted:
    job_id: str
    phase: str
    sent: float  # wall clock when the request was sent
    submitted: float  # wall clock when the gateway answered 202 (message enqueued before)


@dataclass
class RunResult:
    processes: int
    submitted: list[Submitted] = field(default_factory=list)
    depth: list[tuple[float, dict[str, int]]] = field(default_factory=list)
    phases: dict[str, tuple[float, float]] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    handler_seconds: dict[str, float] = field(default_factory=dict)
    mean_handler: dict[str, float] = field(default_factory=dict)
    done: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    failed_jobs: int = 0
    # requests not answered 202 (not enqueued, so not submitted), by reason
    http_errors: Counter[str] = field(default_factory=Counter)
    target_rate: float = 0.0
    # tree_align tasks (start, end), in delivery order
    task_spans: list[tuple[float, float]] = field(default_factory=list)
    # their queue wait from the message's publish-time header (seconds; nan: not logged)
    task_waits: list[float] = field(default_factory=list)


class Driver:
    """Submits generated pairs to the gateway and samples the queues."""

    def __init__(self, result: RunResult, gateway: str, broker: redis.Redis, seed: int) -> None:
        self.result = result
        self.gateway = gateway
        self.broker = broker
        self.rng = random.Random(seed)
        self.serial = 0
        self.run_tag = uuid.uuid4().hex[:8]

    def depths(self) -> dict[str, int]:
        return {stage: int(self.broker.llen(f"paramine.{stage}")) for stage in STAGES}

    async def sample(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.result.depth.append((time.time(), self.depths()))
            await asyncio.sleep(0.5)

    async def submit(self, client: httpx.AsyncClient, phase: str) -> None:
        self.serial += 1
        job_id = f"load-{self.run_tag}-{self.result.processes}-{self.serial}"
        pair = generate_pair(self.rng, self.serial)
        sent = time.time()
        try:
            response = await client.post(
                f"{self.gateway}/v1/page-pairs", json={"job_id": job_id, "pairs": [pair]}
            )
        except httpx.HTTPError as error:
            self.result.http_errors[type(error).__name__] += 1
            return
        if response.status_code != 202:
            self.result.http_errors[f"HTTP {response.status_code}"] += 1
            return
        self.result.submitted.append(Submitted(job_id, phase, sent, time.time()))

    async def closed_loop(self, client: httpx.AsyncClient, seconds: float, backlog: int) -> None:
        """Keep ``backlog`` messages waiting in the first queue for ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            waiting = self.depths()["tree_align"]
            if waiting < backlog:
                await asyncio.gather(
                    *(self.submit(client, "saturation") for _ in range(backlog - waiting))
                )
            else:
                await asyncio.sleep(0.05)

    async def burst(self, client: httpx.AsyncClient, count: int) -> None:
        """``count`` pairs at once (at most 64 requests in flight): a backlog to drain."""
        bound = asyncio.Semaphore(64)

        async def one() -> None:
            async with bound:
                await self.submit(client, "backlog")

        await asyncio.gather(*(one() for _ in range(count)))

    async def open_loop(
        self,
        client: httpx.AsyncClient,
        seconds: float,
        rate: float,
        *,
        phase: str = "load80",
        paced: bool = False,
    ) -> None:
        """Arrivals at ``rate`` pairs/s for ``seconds`` (at most 64 requests in flight):
        Poisson, or ``paced`` at a constant interval (k6's constant-arrival-rate, wrk2)."""
        end = time.monotonic() + seconds
        bound = asyncio.Semaphore(64)
        pending: set[asyncio.Task[None]] = set()

        async def one() -> None:
            async with bound:
                await self.submit(client, phase)

        next_at = time.monotonic()
        while next_at < end:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            task = asyncio.create_task(one())
            pending.add(task)
            task.add_done_callback(pending.discard)
            next_at += 1.0 / rate if paced else self.rng.expovariate(rate)
        await asyncio.gather(*pending)


def completion(
    database_url: str, job_ids: list[str]
) -> tuple[dict[str, tuple[float | None, float | None]], int]:
    """job → (tree_align progress time, sentence_align progress time); and jobs dead-lettered."""
    import psycopg

    with psycopg.connect(database_url.replace("postgresql+psycopg://", "postgresql://")) as conn:
        rows = conn.execute(
            "SELECT jp.job_id, t.updated_at, s.updated_at FROM job_pairs jp"
            " LEFT JOIN pair_progress t ON t.pair_id = jp.pair_id AND t.stage = 'tree_align'"
            " LEFT JOIN pair_progress s ON s.pair_id = jp.pair_id AND s.stage = 'sentence_align'"
            " WHERE jp.job_id = ANY(%s)",
            (job_ids,),
        ).fetchall()
        failed = conn.execute(
            "SELECT count(DISTINCT job_id) FROM dead_letters WHERE job_id = ANY(%s)", (job_ids,)
        ).fetchone()
    return {row[0]: (row[1], row[2]) for row in rows}, int(failed[0] if failed else 0)


def wait_until_done(database_url: str, jobs: list[str], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, failed = completion(database_url, jobs)
        if sum(1 for _, s in done.values() if s is not None) + failed >= len(jobs):
            return
        time.sleep(1.0)


def _handler_totals(work: Cluster) -> dict[str, tuple[float, float]]:
    totals: dict[str, tuple[float, float]] = {}
    for url in work.worker_metrics.values():
        totals.update(latency_sums(url))
    return totals


def _cpu_snapshot(work: Cluster, redis_pid: int | None) -> dict[str, float]:
    snapshot = {}
    for stage, process in work.workers.items():
        snapshot[f"consumer {stage}"] = cpu_seconds(process.pid)
        snapshot[f"pool {stage}"] = sum(cpu_seconds(child) for child in children(process.pid))
    snapshot["gateway"] = tree_cpu(work.gateway_process.pid)
    if redis_pid:
        snapshot["redis-server"] = cpu_seconds(redis_pid)
    return snapshot


async def drive(
    processes: int,
    duration: float,
    redis_url: str,
    admin_url: str,
    seed: int,
    logs: Path,
    code_dir: Path | None = None,
) -> RunResult:
    result = RunResult(processes)
    broker = redis.Redis.from_url(redis_url)
    broker.flushdb()
    redis_pid = int(broker.info("server").get("process_id", 0)) or None
    with (
        postgres_database(admin_url) as database_url,
        cluster(processes, redis_url, database_url, logs, code_dir) as work,
    ):
        driver = Driver(result, work.gateway, broker, seed)
        stop = asyncio.Event()
        limits = httpx.Limits(max_connections=64, keepalive_expiry=KEEPALIVE_EXPIRY)
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:
            sampler = asyncio.create_task(driver.sample(stop))
            # warm-up: every pool process opens its connections and fills its caches
            await asyncio.gather(*(driver.submit(client, "warmup") for _ in range(3 * processes)))
            warm = [s.job_id for s in result.submitted]
            await asyncio.to_thread(wait_until_done, database_url, warm, 300)

            half = duration / 2
            before_cpu, before_handlers = _cpu_snapshot(work, redis_pid), _handler_totals(work)
            start = time.time()
            await driver.closed_loop(client, half, backlog=2 * processes)
            result.phases["saturation"] = (start, time.time())
            after_cpu, after_handlers = _cpu_snapshot(work, redis_pid), _handler_totals(work)
            result.cpu = {name: after_cpu[name] - before_cpu.get(name, 0.0) for name in after_cpu}
            result.handler_seconds = {
                stage: after_handlers[stage][0] - before_handlers.get(stage, (0.0, 0.0))[0]
                for stage in after_handlers
            }

            saturation_jobs = [s.job_id for s in result.submitted if s.phase == "saturation"]
            done, _ = await asyncio.to_thread(completion, database_url, saturation_jobs)
            t0, t1 = result.phases["saturation"]
            throughput = sum(1 for _, s in done.values() if s is not None and t0 <= s <= t1) / (
                t1 - t0
            )
            # let the saturation backlog drain before measuring latency at 80% load
            await asyncio.to_thread(wait_until_done, database_url, saturation_jobs, 120)
            result.target_rate = max(0.8 * throughput, 0.05)
            before_handlers = _handler_totals(work)
            start = time.time()
            await driver.open_loop(client, half / 2, result.target_rate)
            result.phases["load80"] = (start, time.time())
            start = time.time()
            await driver.open_loop(
                client, half / 2, result.target_rate, phase="paced80", paced=True
            )
            result.phases["paced80"] = (start, time.time())
            all_jobs = [s.job_id for s in result.submitted]
            await asyncio.to_thread(wait_until_done, database_url, all_jobs, 120)
            after_handlers = _handler_totals(work)
            result.mean_handler = {
                stage: (after_handlers[stage][0] - before_handlers.get(stage, (0.0, 0.0))[0])
                / max(1.0, after_handlers[stage][1] - before_handlers.get(stage, (0.0, 0.0))[1])
                for stage in after_handlers
            }
            # a backlog of BACKLOG_SECONDS of work at the measured throughput, sent at once
            start = time.time()
            await driver.burst(client, max(10, round(throughput * BACKLOG_SECONDS)))
            result.phases["backlog"] = (start, time.time())
            all_jobs = [s.job_id for s in result.submitted]
            await asyncio.to_thread(wait_until_done, database_url, all_jobs, 600)
            stop.set()
            await sampler
        result.done, result.failed_jobs = completion(database_url, all_jobs)
    tree_log = (logs / "tree_align.log").read_text(errors="replace")
    result.task_spans = task_spans(tree_log)
    result.task_waits = task_waits(tree_log)
    broker.flushdb()
    return result


# -- one page pair, step by step --------------------------------------------------------------


class Laps:
    """Wall and CPU time (this process) per step, accumulated over page pairs."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.restart()

    def restart(self) -> None:
        self._wall, self._cpu = time.perf_counter(), time.process_time()

    def lap(self, key: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        self.move(key, wall - self._wall, cpu - self._cpu)
        self._wall, self._cpu = wall, cpu

    def move(self, key: str, wall: float, cpu: float, source: str | None = None) -> None:
        """Add (wall, cpu) to ``key``, taking it from ``source`` when given."""
        self.wall[key] = self.wall.get(key, 0.0) + wall
        self.cpu[key] = self.cpu.get(key, 0.0) + cpu
        if source is not None:
            self.wall[source] -= wall
            self.cpu[source] -= cpu


class TimedStore:
    """Wraps the store: every store call adds its wall and CPU time to ``wall``/``cpu``."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.wall = self.cpu = 0.0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.store, name)
        if not callable(attribute):
            return attribute

        def timed(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return attribute(*args, **kwargs)
            finally:
                self.wall += time.perf_counter() - wall
                self.cpu += time.process_time() - cpu
                self.calls += 1

        return timed


PROFILE_STEPS = (
    ("tree_align: JSON decode of the message", "decode_in"),
    ("tree_align: schema validation (pydantic)", "validate_in"),
    ("tree_align: algorithm (parse, tree alignment)", "tree_algorithm"),
    ("tree_align: store writes and commit", "tree_store"),
    ("tree_align → sentence_align: serialise (model_dump + JSON)", "encode_mid"),
    ("tree_align → sentence_align: publish to Redis", "publish"),
    ("sentence_align: JSON decode of the message", "decode_mid"),
    ("sentence_align: schema validation (pydantic)", "validate_mid"),
    ("sentence_align: algorithm (sentence alignment)", "sentence_algorithm"),
    ("sentence_align: store writes and commit", "sentence_store"),
    ("both stages: metrics (counters, histogram, gauge)", "metrics"),
)


def profile_pairs(count: int, redis_url: str, admin_url: str, seed: int) -> dict[str, Any]:
    """Mean wall and CPU seconds per page pair of each step a worker takes, in one process.

    The same code the workers run (``parse_message``, the stage handlers in one store
    transaction, ``CelerySender``, ``StageMetrics``) on generated news-size pairs against
    PostgreSQL and Redis, warm; the handlers' store calls and the commit are timed apart from
    their algorithm by wrapping the store. CPU is this process's only (not Redis' or
    PostgreSQL's).
    """
    import json

    from prometheus_client import CollectorRegistry

    from services.sentence_align.handler import handle as sentence_handle
    from services.tree_align.handler import handle as tree_handle
    from services.worker_process import warm_up
    from shared.celery_app import make_celery
    from shared.config import Settings
    from shared.metrics import StageMetrics
    from shared.pipeline import CelerySender
    from shared.schemas import parse_message
    from shared.store import Store

    warm_up("tree_align")
    rng = random.Random(seed)
    sizes = {"in": 0, "mid": 0}
    calls = 0
    broker = redis.Redis.from_url(redis_url)
    broker.flushdb()
    sender = CelerySender(make_celery(Settings(redis_url=redis_url)))
    metrics = StageMetrics.create(CollectorRegistry())
    laps = Laps()
    with postgres_database(admin_url) as database_url:
        store = Store(database_url)
        store.ensure_schema()
        for serial in range(-2, count):  # two unmeasured pairs first (connections, caches)
            if serial == 0:
                laps = Laps()
            raw = json.dumps({"job_id": f"profile-{serial}", **generate_pair(rng, serial)})
            laps.restart()
            payload = json.loads(raw)
            laps.lap("decode_in")
            message = parse_message("tree_align", payload)
            laps.lap("validate_in")
            timed = TimedStore(store)
            with store.one_transaction():  # as the worker does on PostgreSQL
                outgoing = tree_handle(message, timed)  # type: ignore[arg-type]
                laps.lap("tree_algorithm")
            laps.lap("tree_store")  # the commit
            laps.move("tree_store", timed.wall, timed.cpu, source="tree_algorithm")
            calls += timed.calls
            (next_stage, next_message), *_ = outgoing
            mid = json.dumps(next_message.model_dump(mode="json"))
            laps.lap("encode_mid")
            sender.send(next_stage, next_message)
            laps.lap("publish")
            mid_payload = json.loads(mid)
            laps.lap("decode_mid")
            chunks = parse_message("sentence_align", mid_payload)
            laps.lap("validate_mid")
            timed = TimedStore(store)
            with store.one_transaction():
                sentence_handle(chunks, timed)  # type: ignore[arg-type]
                laps.lap("sentence_algorithm")
            laps.lap("sentence_store")
            laps.move("sentence_store", timed.wall, timed.cpu, source="sentence_algorithm")
            calls += timed.calls
            for stage in ("tree_align", "sentence_align"):
                with metrics.observe(stage):
                    pass
                metrics.messages_out.labels(stage).inc(1)
            laps.lap("metrics")
            if serial >= 0:
                sizes["in"] += len(raw)
                sizes["mid"] += len(mid)
            else:
                calls = 0
        store.engine.dispose()
    broker.flushdb()
    return {
        "pairs": count,
        "loop": host_loop_seconds(),
        "wall": {key: value / count for key, value in laps.wall.items()},
        "cpu": {key: value / count for key, value in laps.cpu.items()},
        "bytes_in": sizes["in"] / count,
        "bytes_mid": sizes["mid"] / count,
        "store_calls": calls / count,
    }


def profile_table(profile: dict[str, Any]) -> list[str]:
    wall, cpu = profile["wall"], profile["cpu"]
    total_wall, total_cpu = sum(wall.values()), sum(cpu.values())
    algorithm = ("tree_algorithm", "sentence_algorithm")
    stores = ("tree_store", "sentence_store")
    plumbing = [key for _, key in PROFILE_STEPS if key not in algorithm + stores]
    return [
        "| step | wall ms per pair | share | CPU ms per pair | share |",
        "|---|---|---|---|---|",
        *(
            f"| {label} | {1000 * wall[key]:.2f} | {wall[key] / total_wall:.1%} |"
            f" {1000 * cpu[key]:.2f} | {cpu[key] / total_cpu:.1%} |"
            for label, key in PROFILE_STEPS
        ),
        f"| **total** | {1000 * total_wall:.1f} | 100% | {1000 * total_cpu:.1f} | 100% |",
        "",
        f"{profile['pairs']} generated news-size pairs, one process, warm, PostgreSQL and Redis"
        " on this machine. CPU share: algorithms"
        f" {sum(cpu[k] for k in algorithm) / total_cpu:.1%}, store (SQL building, parameter"
        f" adaptation, RETURNING rows) {sum(cpu[k] for k in stores) / total_cpu:.1%},"
        " the rest (decode, validation, serialise, publish, metrics)"
        f" {sum(cpu[k] for k in plumbing) / total_cpu:.1%}. Wall time above CPU is waiting:"
        " for PostgreSQL's commit (WAL flush) and Redis, and for a core on a shared machine."
        f" Message sizes: tree_align input {profile['bytes_in'] / 1000:.1f} KB of JSON,"
        f" sentence_align input {profile['bytes_mid'] / 1000:.1f} KB;"
        f" {profile['store_calls']:.1f} store calls per pair, one commit per stage. Not in this"
        " table: the broker's delivery to a worker and Celery's own bookkeeping (the consumers'"
        " CPU in the load runs above).",
    ]


# -- report -----------------------------------------------------------------------------------


LOG_TIME = r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): INFO/[\w-]+\] "
RECEIVED = re.compile(
    LOG_TIME + r"Task paramine\.tree_align\.process\[([0-9a-f-]+)\] received$", re.M
)
SUCCEEDED = re.compile(
    LOG_TIME + r"Task paramine\.tree_align\.process\[([0-9a-f-]+)\] succeeded in ([0-9.e-]+)s", re.M
)

WAITED = re.compile(
    LOG_TIME + r"Task paramine\.tree_align\.process\[([0-9a-f-]+)\] waited ([0-9.]+) ms", re.M
)


def _log_time(stamp: str) -> float:
    return datetime.strptime(
        stamp, "%Y-%m-%d %H:%M:%S,%f"
    ).timestamp()  # local time, like time.time()


def task_spans(log: str) -> list[tuple[float, float]]:
    """(start, end) of tree_align tasks in the order the worker received them (Celery INFO log).

    A task ends at its "succeeded in D s" log time and starts D earlier; a task without that
    line (it failed) starts and ends when it was received.
    """
    finished = {
        task: (_log_time(stamp) - float(seconds), _log_time(stamp))
        for stamp, task, seconds in SUCCEEDED.findall(log)
    }
    spans = []
    for stamp, task in RECEIVED.findall(log):
        received = _log_time(stamp)
        spans.append(finished.get(task, (received, received)))
    return spans


def task_waits(log: str) -> list[float]:
    """Queue wait (seconds) of tree_align tasks in the order the worker received them: the
    worker's "waited N ms" line, start minus the publish time the gateway put in the message's
    header (nan for a task without it)."""
    waited = {task: float(ms) / 1000 for _, task, ms in WAITED.findall(log)}
    return [waited.get(task, float("nan")) for _, task in RECEIVED.findall(log)]


def found_free_process(
    sent: list[float], spans: list[tuple[float, float]], processes: int
) -> list[bool]:
    """For the k-th task enqueued (sent at ``sent[k]``, FIFO, delivered k-th): whether, when
    it was sent, no earlier task still waited and fewer than ``processes`` ran, so its
    enqueue→start is the queue's own delay (delivery, prefetch, pool hand-off), not waiting."""
    free = []
    for k, moment in enumerate(sent):
        running = waiting = 0
        for start, end in spans[max(0, k - 500) : k]:
            if start > moment:
                waiting += 1
            elif end > moment:
                running += 1
        free.append(waiting == 0 and running < processes)
    return free


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def summarise(result: RunResult) -> dict[str, Any]:
    t0, t1 = result.phases["saturation"]
    by_phase: dict[str, list[Submitted]] = {}
    for item in result.submitted:
        by_phase.setdefault(item.phase, []).append(item)
    completed = [result.done.get(s.job_id, (None, None))[1] for s in by_phase.get("saturation", [])]
    throughput = sum(1 for c in completed if c is not None and t0 <= c <= t1) / (t1 - t0)
    load = by_phase.get("load80", []) + by_phase.get("paced80", [])
    end_to_end = [
        done - s.submitted for s in load if (done := result.done.get(s.job_id, (None, None))[1])
    ]
    tree_mean = result.mean_handler.get("tree_align", 0.0)
    # enqueue→start: the queue is FIFO and tree_align has one consumer, so the k-th task it
    # received is the k-th page pair the gateway enqueued; the enqueue lies between the request
    # being sent and its 202 arriving, hence an upper and a lower bound.
    in_order = sorted(result.submitted, key=lambda s: s.submitted)
    matched = len(result.task_spans) == len(in_order)
    starts = [start for start, _ in result.task_spans] if matched else []
    free = found_free_process([s.sent for s in in_order], result.task_spans, result.processes)
    waits: dict[str, list[float]] = {}
    hops = result.task_waits if matched else []
    for s, start, idle, hop in zip(in_order, starts, free, hops, strict=False):
        waits.setdefault(s.phase, []).append(start - s.sent)
        waits.setdefault(s.phase + " lower", []).append(start - s.submitted)
        if idle and s.phase in ("load80", "paced80"):
            waits.setdefault("free", []).append(start - s.sent)
            if not math.isnan(hop):
                waits.setdefault("free hop", []).append(hop)
    waits_upper, waits_lower = waits.get("load80", []), waits.get("load80 lower", [])
    b0 = result.phases["backlog"][0] if "backlog" in result.phases else float("nan")
    backlog = by_phase.get("backlog", [])
    drained = [done for s in backlog if (done := result.done.get(s.job_id, (None, None))[1])]
    drain = max(drained) - b0 if backlog and len(drained) == len(backlog) else float("nan")
    in_phase = throughput * (t1 - t0)
    sat_depths = [d["tree_align"] + d["sentence_align"] for t, d in result.depth if t0 <= t <= t1]
    l0, l1 = result.phases["load80"][0], result.phases.get("paced80", result.phases["load80"])[1]
    load_depths = [d["tree_align"] + d["sentence_align"] for t, d in result.depth if l0 <= t <= l1]
    consumer_cpu = sum(v for k, v in result.cpu.items() if k.startswith("consumer"))
    pool_cpu = sum(v for k, v in result.cpu.items() if k.startswith("pool"))
    handler = sum(result.handler_seconds.values())
    return {
        "processes": result.processes,
        "submitted": len(result.submitted),
        "completed": sum(1 for _, s in result.done.values() if s is not None),
        "failed": result.failed_jobs,
        "http_errors": dict(result.http_errors),
        "throughput": throughput,
        "rate80": result.target_rate,
        "load_submitted": len(load),
        "e2e_p50": percentile(end_to_end, 50),
        "e2e_p99": percentile(end_to_end, 99),
        "wait_p50": percentile(waits_upper, 50),
        "wait_p99": percentile(waits_upper, 99),
        "wait_p99_lower": percentile(waits_lower, 99),
        "paced_p50": percentile(waits.get("paced80", []), 50),
        "paced_p99": percentile(waits.get("paced80", []), 99),
        "paced_p99_lower": percentile(waits.get("paced80 lower", []), 99),
        "free_share": len(waits.get("free", []))
        / max(1, len(waits.get("load80", [])) + len(waits.get("paced80", []))),
        "free_p50": percentile(waits.get("free", []), 50),
        "free_p99": percentile(waits.get("free", []), 99),
        "hop_p50": percentile(waits.get("free hop", []), 50),
        "hop_p99": percentile(waits.get("free hop", []), 99),
        "backlog_pairs": len(backlog),
        "backlog_sent": result.phases["backlog"][1] - b0 if backlog else float("nan"),
        "backlog_drain": drain,
        "matched": matched,
        "tasks_logged": len(result.task_spans),
        "tree_mean": tree_mean,
        "sentence_mean": result.mean_handler.get("sentence_align", 0.0),
        "depth_sat_mean": statistics.fmean(sat_depths) if sat_depths else 0.0,
        "depth_sat_max": max(sat_depths, default=0),
        "depth_load_mean": statistics.fmean(load_depths) if load_depths else 0.0,
        "depth_load_max": max(load_depths, default=0),
        "consumer_cpu": consumer_cpu,
        "pool_cpu": pool_cpu,
        "pairs_per_pool_cpu_second": in_phase / pool_cpu if pool_cpu else float("nan"),
        "pairs_per_worker_cpu_second": in_phase / (pool_cpu + consumer_cpu)
        if pool_cpu
        else float("nan"),
        "handler": handler,
        "gateway_cpu": result.cpu.get("gateway", 0.0),
        "redis_cpu": result.cpu.get("redis-server", 0.0),
        "sat_seconds": t1 - t0,
        "cpu": result.cpu,
    }


def refused_line(rows: list[dict[str, Any]]) -> str:
    """The requests the gateway did not accept, by configuration and reason (never counted as
    submitted, so not in the submitted = completed check)."""
    refused = [
        f"{row['processes']} process(es): "
        + ", ".join(f"{count} {reason}" for reason, count in sorted(row["http_errors"].items()))
        for row in rows
        if row["http_errors"]
    ]
    if not refused:
        return "Every request was answered 202 (accepted and enqueued)."
    listed = "; ".join(refused)
    return f"Requests not answered 202 (not enqueued, not in 'submitted'): {listed}."


def depth_timeline(result: RunResult, step: float = 5.0) -> str:
    if not result.depth:
        return ""
    start = result.depth[0][0]
    rows, next_at = [], start
    for moment, depths in result.depth:
        if moment >= next_at:
            phase = next(
                (name for name, (a, b) in result.phases.items() if a <= moment <= b),
                "warm-up/drain",
            )
            rows.append(
                f"| {moment - start:6.1f} | {phase} | "
                + " | ".join(str(depths[s]) for s in STAGES)
                + " |"
            )
            next_at = moment + step
    header = "| t (s) | phase | " + " | ".join(STAGES) + " |\n|---|---|" + "---|" * len(STAGES)
    return header + "\n" + "\n".join(rows)


def report(
    results: list[RunResult],
    duration: float,
    validation: bool,
    note: str = "",
    profile: dict[str, Any] | None = None,
) -> str:
    rows = [summarise(r) for r in results]
    base = rows[0]["throughput"] or float("nan")
    lines = [
        "# Pipeline load and scale benchmark",
        "",
        (
            f"**Short validation run (`--duration {duration:g}`), not the issue's 5-minute run.** "
            "The machine (2 cores) was shared with other engineers' work during this run, so the "
            "numbers below validate the script and give an order of magnitude only; the full run "
            "is "
            "`make load` on a quiet machine."
            if validation
            else f"Full run: {duration:g} s per configuration."
        ),
        *(["", note] if note else []),
        "",
        "## Method",
        "",
        "Real processes on this machine: `paramine serve` (gateway), one `paramine worker --stage S"
        " --concurrency N` per stage (N = 1, 2, 4 pool processes for tree_align and sentence_align;"
        " 1 for paraphrase and thesaurus), Redis (shared local server, own database) and PostgreSQL"
        " (a throwaway database per configuration). A bounded async httpx client posts one"
        " generated"
        " news-size page pair per request (English article of 5-20 KB HTML with header, navigation,"
        " 2-6 sentence paragraphs, subheadings, related links and footer; the target page is a"
        " deterministic pseudo-translation with correlated word lengths, 30% of them missing a"
        " paragraph; seeded). Each configuration: warm-up (3 pairs per pool process: connections"
        " and caches; numba kernels are compiled by each worker before it forks;"
        " not counted), then half the duration at saturation (closed loop keeping 2 × N messages"
        " waiting in `paramine.tree_align`), then half at 80% of the measured throughput (open"
        " loop: a quarter of the duration with Poisson arrivals, then a quarter at a constant"
        " rate, the arrival model of k6's constant-arrival-rate executor and wrk2).",
        "",
        "- **Throughput**: page pairs whose sentence pairs were stored (sentence_align's"
        " `pair_progress` row) during the saturation phase, per second.",
        "- **End-to-end latency** (80% phase): gateway's 202 received → sentence_align's progress"
        " row written (all timestamps from the same clock).",
        "- **Enqueue→start** (80% phase, first queue `paramine.tree_align`): the tree_align worker"
        " runs with `--loglevel INFO`; Celery logs each task's `received` and `succeeded in D s`"
        " lines with millisecond times, so a task starts at its success time − D. The queue is"
        " FIFO with one consumer, so the k-th task received is the k-th page pair enqueued"
        " (checked: the number of logged tasks equals the number submitted). The gateway enqueues"
        " between the request being sent and its 202 arriving: start − sent is an upper bound"
        " (it includes the gateway's request handling), start − 202 a lower bound. At 80% load"
        " with Poisson arrivals this includes waiting behind a busy pool process, not only broker"
        " delivery. *Found a free process*: tasks that, when sent, had no earlier task waiting and"
        " fewer running than the stage has pool processes (from the same log spans); their"
        " enqueue→start is the queue's own delay (gateway enqueue, Redis, the consumer's BRPOP,"
        " hand-off to the pool), without queueing behind other work. *Hop*: the same tasks'"
        " enqueue→start measured exactly: the gateway puts its publish time into each message's"
        " header and the worker logs start − publish (`waited N ms`, also the"
        " `paramine_queue_wait_seconds` histogram); the goal is read on it. Latencies are over"
        " both 80% quarters unless marked Poisson or paced; the first enqueue→start columns are"
        " Poisson.",
        "- **Queue depth**: LLEN of each stage's list every 0.5 s (prefetch 1 and late acks: the"
        " list holds only waiting messages).",
        "- **CPU share**: utime+stime from /proc over the saturation phase of each worker's Celery"
        " consumer (parent) process, its pool (children) processes, the gateway and redis-server;"
        " the handlers' own wall time is the sum of `paramine_stage_latency_seconds`. PostgreSQL's"
        " CPU is not counted (a server shared with other work).",
        "",
        "## Results",
        "",
        "| pool processes per alignment stage | throughput (pairs/s) | vs 1 |"
        " pairs/s per worker core | submitted | completed | dead-lettered | p50 e2e (s) |"
        " p99 e2e (s) | enqueue→start p50 (ms) | p99 upper (ms) | p99 lower (ms) |"
        " paced: p50 (ms) | paced: p99 upper (ms) | paced: p99 lower (ms) |"
        " found a free process: share | p50 (ms) | p99 upper (ms) | hop p50 (ms) |"
        " hop p99 (ms) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    cores = os.cpu_count() or 1
    for row in rows:
        worker_cores = min(cores, 2 * row["processes"])
        lines.append(
            f"| {row['processes']} | {row['throughput']:.2f} | {row['throughput'] / base:.2f}× |"
            f" {row['throughput'] / worker_cores:.2f} | {row['submitted']} | {row['completed']} |"
            f" {row['failed']} | {row['e2e_p50']:.2f} | {row['e2e_p99']:.2f} |"
            f" {1000 * row['wait_p50']:.0f} | {1000 * row['wait_p99']:.0f} |"
            f" {1000 * row['wait_p99_lower']:.0f} | {1000 * row['paced_p50']:.0f} |"
            f" {1000 * row['paced_p99']:.0f} | {1000 * row['paced_p99_lower']:.0f} |"
            f" {100 * row['free_share']:.0f}% | {1000 * row['free_p50']:.0f} |"
            f" {1000 * row['free_p99']:.0f} | {1000 * row['hop_p50']:.0f} |"
            f" {1000 * row['hop_p99']:.0f} |"
        )
        if not row["matched"]:
            lines.append(
                f"| ↑ enqueue→start not measured: {row['tasks_logged']} tasks logged for"
                f" {row['submitted']} submitted | | | | | | | | | | | | | | | | | | | |"
            )
    lines += [
        "",
        refused_line(rows),
        "",
        "Pairs/s per worker core divides by min(cores, pool processes of both alignment stages)."
        " Pairs per pool CPU-second (pairs completed in the saturation phase / CPU seconds of"
        " every pool process), what one dedicated core would sustain if only the pool's work"
        " counted: "
        + ", ".join(f"{row['processes']}: {row['pairs_per_pool_cpu_second']:.2f}" for row in rows)
        + ".",
        "",
        "| processes | 80% rate (pairs/s) | pairs at 80% | mean tree_align handler (s) |"
        " mean sentence_align handler (s) | queue depth at saturation mean / max |"
        " at 80% mean / max |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['processes']} | {row['rate80']:.2f} | {row['load_submitted']} |"
            f" {row['tree_mean']:.3f} |"
            f" {row['sentence_mean']:.3f} | {row['depth_sat_mean']:.1f} / {row['depth_sat_max']} |"
            f" {row['depth_load_mean']:.1f} / {row['depth_load_max']} |"
        )
    lines += [
        "",
        f"Backlog drain: {BACKLOG_SECONDS:g} s of work at each configuration's saturation"
        " throughput sent at once (at most 64 requests in flight), timed from the first request"
        " to the last pair's sentence pairs stored.",
        "",
        "| processes | backlog (pairs) | sent in (s) | drained in (s) | drain rate (pairs/s) |"
        " vs saturation throughput |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        rate = row["backlog_pairs"] / row["backlog_drain"]
        lines.append(
            f"| {row['processes']} | {row['backlog_pairs']} | {row['backlog_sent']:.1f} |"
            f" {row['backlog_drain']:.1f} | {rate:.2f} | {rate / row['throughput']:.2f}× |"
        )
    lines += [
        "",
        "### CPU share over the saturation phase",
        "",
        "| processes | phase (s) | Celery consumers (s) | pool processes (s) | redis-server (s) |"
        " gateway (s) | handler wall time (s) |"
        " queue share = (consumers + redis) / (consumers + pool + redis) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        queue = row["consumer_cpu"] + row["redis_cpu"]
        total = queue + row["pool_cpu"]
        lines.append(
            f"| {row['processes']} | {row['sat_seconds']:.1f} | {row['consumer_cpu']:.1f} |"
            f" {row['pool_cpu']:.1f} |"
            f" {row['redis_cpu']:.1f} | {row['gateway_cpu']:.1f} | {row['handler']:.1f} |"
            f" {queue / total if total else float('nan'):.0%} |"
        )
    lines += [
        "",
        "The Celery consumer (parent) process does the broker work: BRPOP, unacked bookkeeping,"
        " acks, handing messages to the pool. The pool processes run the handlers (algorithm,"
        " store writes) and also decode messages and publish to the next queue, so their CPU is"
        " an upper bound on algorithm work and the queue share is a lower bound on queue overhead."
        " Handler wall time exceeds CPU when the shared machine is overloaded (processes wait for"
        " a core) and includes PostgreSQL round trips.",
    ]
    lines += ["", "### Queue depth over time (LLEN, every 5 s)", ""]
    for result in results:
        lines += [
            f"**{result.processes} pool process(es) per alignment stage**",
            "",
            depth_timeline(result),
            "",
        ]
    if profile is not None:
        lines += ["## Where one page pair's time goes", "", *profile_table(profile), ""]
    lines += ["## Goals", "", *goals(rows), "", "## Machine", "", machine_note(), ""]
    if profile is not None:
        lines += [host_speed_line(profile), ""]
    return "\n".join(lines)


def goals(rows: list[dict[str, Any]]) -> list[str]:
    cores = os.cpu_count() or 1
    per_core = max(row["throughput"] / min(cores, 2 * row["processes"]) for row in rows)
    cpu_bound = max(row["pairs_per_pool_cpu_second"] for row in rows)
    wait = max(row["wait_p99"] for row in rows)  # the goal holds in every configuration
    paced = max(row["paced_p99"] for row in rows)
    free = max(row["free_p99"] for row in rows)
    hop = max(row["hop_p99"] for row in rows)
    worker_bound = max(row["pairs_per_worker_cpu_second"] for row in rows)
    growth = [row["throughput"] for row in rows]
    grows = all(b >= a * 0.95 for a, b in itertools.pairwise(growth))
    return [
        "- ≥ 20 news-size page pairs/s per worker core end to end: best"
        f" {worker_bound:.2f} pairs per worker CPU-second (Celery consumers and pool processes"
        " of every stage over the saturation phase: what one core given to the workers"
        " sustains) → "
        + ("met" if worker_bound >= 20 else "**not met**")
        + f" (pool processes only: {cpu_bound:.2f}; the measured throughput divided by the"
        f" machine's cores, which also run the gateway, PostgreSQL, Redis and the load client:"
        f" {per_core:.2f}).",
        f"- p99 hop overhead < {1000 * HOP_GOAL:.0f} ms at 80% load (enqueue→start of the"
        " tasks that found a free pool process, from the publish time in the message's header,"
        f" Poisson and constant-rate quarters): worst configuration {1000 * hop:.0f} ms → "
        + ("met" if hop < HOP_GOAL else "**not met**")
        + f" (upper bound from the request's send time, which adds the gateway's handling:"
        f" {1000 * free:.0f} ms). For information, p99 enqueue→start of every task, which adds"
        f" the wait behind a busy process (queueing): Poisson worst {1000 * wait:.0f} ms,"
        f" constant rate worst {1000 * paced:.0f} ms.",
        "- backlog drain ("
        + f"{BACKLOG_SECONDS:g} s of work sent at once): "
        + "; ".join(
            f"{row['processes']} process(es): {row['backlog_pairs']} pairs in"
            f" {row['backlog_drain']:.1f} s"
            for row in rows
        )
        + ".",
        "- throughput grows with workers until the cores are saturated: "
        + " → ".join(f"{g:.2f}" for g in growth)
        + (" pairs/s (grows or holds)." if grows else " pairs/s (**falls** with more processes)."),
    ]


COMPARISON_HEADER = (
    "| code | pool processes | saturation (s) | pairs/s | gateway | consumers | pools | redis"
    " | pipeline | pairs per pool CPU-s | pairs per pipeline CPU-s | load average |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
)


def comparison_row(label: str, summary: dict[str, Any]) -> str:
    """One short run, per page pair stored in its saturation phase: CPU ms of each part."""
    pairs = summary["throughput"] * summary["sat_seconds"]
    parts = [
        summary["gateway_cpu"],
        summary["consumer_cpu"],
        summary["pool_cpu"],
        summary["redis_cpu"],
    ]
    total = sum(parts)
    per_pair = " | ".join(f"{1000 * part / pairs:.1f}" for part in [*parts, total])
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    return (
        f"| {label} | {summary['processes']} | {summary['sat_seconds']:.0f}"
        f" | {summary['throughput']:.2f} | {per_pair} | {pairs / summary['pool_cpu']:.2f}"
        f" | {pairs / total:.2f} | {load} |"
    )


def add_comparison(path: Path, title: str, rows: list[str], reading: str = "") -> None:
    """Append rows to the results file's section ``title`` (created, last, when missing), so
    short runs on a loaded machine never replace the full run's tables; ``reading`` replaces
    the section's reading paragraph (under its introduction)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    heading = f"## {title}"
    lines = text.rstrip("\n").splitlines()
    if heading not in lines:
        lines += [
            "",
            heading,
            "",
            "Short runs for before/after comparisons of the per-pair overhead, not the full"
            " run above: `python -m benchmarks.pipeline_load --duration D --workers N"
            " --profile-pairs 0 --compare TITLE --label LABEL [--code-dir TREE]` (`--code-dir`:"
            " the gateway and workers import paramine from another tree, e.g. this one with"
            " some files of an earlier commit). CPU milliseconds per page pair stored in the"
            " saturation phase, from /proc (utime + stime); pipeline = gateway + Celery"
            " consumers + pool processes + redis-server (not PostgreSQL, not the load client)."
            " Rows run one after another on the shared machine; compare rows of the same load.",
            "",
            *COMPARISON_HEADER,
        ]
    if reading:
        at = lines.index(heading) + 4  # heading, blank, introduction, blank
        if lines[at].startswith("**Reading.**"):
            del lines[at : at + 2]
        lines[at:at] = [f"**Reading.** {reading}", ""]
    publish(path, [*lines, *rows])


# CPU ms per page pair in the step table of the reference run (d7486c6, an AMD EPYC,
# 2026-11-21, the default 40 pairs): the run whose latency goals the results file discusses.
REFERENCE_PAIR_CPU_MS = 29.1
REFERENCE_PROFILE_PAIRS = 40


# Seconds of the reference loop (``host_loop_seconds``) on the reference run's host.
REFERENCE_LOOP_SECONDS = 0.52


def host_loop_seconds(additions: int = 10_000_000, repeats: int = 3) -> float:
    """The host's speed apart from paramine's code: the best of ``repeats`` runs of a pure
    Python loop of ``additions`` additions at module level (names in a globals dict, as
    ``python -c`` runs it: 0.52 s on the reference run's host)."""
    loop = compile("total = 0\nfor number in range(N):\n    total += number\n", "<loop>", "exec")
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        exec(loop, {"N": additions})  # a fixed snippet of this module, no input
        best = min(best, time.process_time() - started)
    return best


def host_speed_line(profile: dict[str, Any]) -> str:
    """The host's speed (a fixed Python loop) and the code's cost per pair (the step table's
    CPU), each against the reference run's, so that a slower host and a costlier pipeline
    are told apart (the per-pair CPU compares only over the same generated pairs: the
    default ``--profile-pairs``)."""
    total = 1000 * sum(profile["cpu"].values())
    loop = profile.get("loop")
    host = (
        f"Host speed: the reference loop (10 million additions in Python) took {loop:.2f} s"
        f" here and {REFERENCE_LOOP_SECONDS} s on the reference run's host (d7486c6, an AMD"
        f" EPYC): this host is {_pace(loop / REFERENCE_LOOP_SECONDS)}."
        if loop
        else "Host speed: not measured."
    )
    if profile["pairs"] != REFERENCE_PROFILE_PAIRS:
        return (
            f"{host} Code cost: not compared ({profile['pairs']} pairs in the step table; the"
            f" reference run's {REFERENCE_PAIR_CPU_MS} ms a pair is over the default"
            f" {REFERENCE_PROFILE_PAIRS}, whose sizes differ)."
        )
    factor = total / REFERENCE_PAIR_CPU_MS
    code = (
        f" Cost per pair: {total:.1f} ms of CPU in the step table here against"
        f" {REFERENCE_PAIR_CPU_MS} ms in the reference run, {factor:.2f}x"
    )
    if loop:
        code += f", of which the host explains {loop / REFERENCE_LOOP_SECONDS:.2f}x"
    return (
        f"{host}{code}. The latency goals are in milliseconds, so they depend on both: on a"
        " host 1.4x slower every latency goal failed (see the reading of the committed run)."
    )


def _pace(factor: float) -> str:
    """'1.50x slower' for a factor above 1, '2.00x as fast' below."""
    return f"{factor:.2f}x slower" if factor >= 1 else f"{1 / factor:.2f}x as fast"


def machine_note() -> str:
    load = Path("/proc/loadavg").read_text().split()[:3]
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        "unknown CPU",
    )  # fmt: skip
    return (
        f"{os.cpu_count()} cores ({model}), shared with other engineers; load average at the end"
        f" {' '.join(load)}. Every process of the pipeline, Redis, PostgreSQL and the load client"
        " run on the same two cores, so the client and the gateway take CPU from the workers."
        " Timings are noisy."
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=300.0, help="seconds per configuration")
    parser.add_argument("--workers", default="1,2,4", help="pool processes per alignment stage")
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("PARAMINE_LOAD_REDIS_URL", "redis://127.0.0.1:6379/12"),
    )
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get(
            "PARAMINE_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
        ),
        help="admin URL; a throwaway database is created next to it",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--note", default="", help="a line for the report (e.g. the commit run)")
    parser.add_argument(
        "--profile-pairs", type=int, default=40, help="pairs for the per-step breakdown (0: skip)"
    )
    parser.add_argument(
        "--profile-only", action="store_true", help="print the per-step breakdown and stop"
    )
    parser.add_argument(
        "--compare", metavar="TITLE", help="append rows to this section instead of the report"
    )
    parser.add_argument("--label", default="this tree", help="the code a --compare row ran")
    parser.add_argument("--reading", default="", help="the --compare section's reading")
    parser.add_argument("--code-dir", type=Path, help="run gateway and workers from this tree")
    args = parser.parse_args(argv)
    profile = (
        profile_pairs(args.profile_pairs, args.redis_url, args.postgres_url, args.seed)
        if args.profile_pairs
        else None
    )
    if profile is not None:
        print("\n".join([*profile_table(profile), "", host_speed_line(profile)]), flush=True)
    if args.profile_only:
        return
    results = []
    with tempfile.TemporaryDirectory(prefix="paramine-load-") as tmp:
        for processes in (int(n) for n in args.workers.split(",")):
            logs = Path(tmp) / f"n{processes}"
            logs.mkdir()
            print(
                f"running {processes} process(es) per alignment stage for {args.duration:g} s",
                flush=True,
            )
            results.append(
                asyncio.run(
                    drive(
                        processes,
                        args.duration,
                        args.redis_url,
                        args.postgres_url,
                        args.seed,
                        logs,
                        args.code_dir,
                    )
                )
            )
            print(summarise(results[-1]), flush=True)
    if args.compare:
        rows = [comparison_row(args.label, summarise(result)) for result in results]
        add_comparison(args.out, args.compare, rows, args.reading)
        return
    text = report(
        results, args.duration, validation=args.duration < 300, note=args.note, profile=profile
    )
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
