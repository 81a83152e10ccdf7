"""The load benchmark's client: it submits page pairs, samples the queues, records the run.

``RunResult`` is what one run records; ``Driver`` submits generated pairs to the gateway
(closed loop, open loop, a burst) and samples the queues' depth; ``completion`` and
``wait_until_done`` read the pairs' progress from PostgreSQL. Used by
``benchmarks.system.pipeline_load``, which drives the phases of a run.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import httpx
import redis

from benchmarks.common import generate_pair
from benchmarks.system.pipeline_load_stack import STAGES

# seconds of work (at the saturation throughput) sent at once to measure a backlog's drain
BACKLOG_SECONDS = 30.0

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
