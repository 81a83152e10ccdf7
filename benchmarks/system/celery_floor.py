"""Celery's own cost per task in paramine's delivery configuration, without the pipeline.

The load benchmark (``pipeline_load``) reads a per-task floor from the tree_align worker's log
at saturation: about 5 ms between one task's end and the next one's start. That gap holds the
late ack, the consumer's next BRPOP (prefetch 1: nothing is fetched before the ack) and the
hand-off to the pool process, but on a machine whose two cores also run the other stages,
PostgreSQL, the gateway and the load client, it also holds waiting for a core. This benchmark
separates the two: a real ``celery worker`` process (prefork pool, 1 pool process) with
paramine's Celery settings (``shared.delivery.celery_app.make_celery``: JSON, late acks, prefetch 1,
reject on worker lost) on a real Redis, a queue filled in advance with N trivial tasks, and
each task's start and end written by the pool process. Cases:

1. a task that does nothing, on an otherwise idle machine: the queue's own cycle;
2. a task that computes for 20 ms: whether the gap depends on the task;
3. the empty task with a message of a news page pair's size (26 KB);
4. the same while 2 or 4 CPU-bound processes per core compete for the cores: the gap when the
   consumer and pool processes have to wait for a core, as in the load run at saturation
   (both alignment stages' pools and consumers, the gateway, the client, PostgreSQL).

Run: ``.venv/bin/python -m benchmarks.system.celery_floor [--tasks 1000]`` (needs Redis:
``PARAMINE_REDIS_URL``, default database 14 of the local server; writes
benchmarks/results/celery_floor.md). The worker imports this module (``-A``), so the app and
its task are defined at import time from ``PARAMINE_REDIS_URL``.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import redis
from kombu.entity import Queue

from benchmarks.common import REPO, notes, publish
from benchmarks.common import RESULTS as RESULTS_FOLDER
from shared.config import Settings
from shared.delivery.celery_app import make_celery

RESULTS = RESULTS_FOLDER / "celery_floor.md"
QUEUE = "paramine.floor"
# The module's app publishes the tasks and the worker imports the same module, so both read
# the broker from the environment (one source: a --redis-url option could not reach the worker).
REDIS_URL = os.environ.get("PARAMINE_REDIS_URL", "redis://127.0.0.1:6379/14")
SPANS_ENV = "PARAMINE_FLOOR_SPANS"
# tree_align's input message for a generated news page pair (pipeline_load.md: 25.8 KB of JSON)
MESSAGE_BYTES = 26_000

app = make_celery(Settings(redis_url=REDIS_URL))
app.conf.task_queues = [*app.conf.task_queues, Queue(QUEUE)]  # type: ignore[no-untyped-call]
app.conf.include = []  # the stage tasks are not needed here


def _busy(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


@app.task(name="paramine.floor.task", acks_late=True, queue=QUEUE)  # type: ignore[untyped-decorator]
def floor_task(work_seconds: float, payload: str = "") -> None:
    """Note this task's start and end (wall clock) in the spans file, doing ``work_seconds``
    of CPU work in between (``payload`` only travels: the message's size)."""
    start = time.time()
    if work_seconds:
        _busy(work_seconds)
    # The append itself (tens of microseconds) falls in the gap before the next task.
    with open(os.environ[SPANS_ENV], "a", encoding="ascii") as spans:
        spans.write(f"{start!r} {time.time()!r}\n")


@dataclass(frozen=True)
class Cycle:
    """What N back-to-back tasks of one worker show."""

    tasks: int
    tasks_per_second: float  # first start to last end
    gap_mean_ms: float  # one task's end to the next one's start
    gap_median_ms: float
    gap_p90_ms: float
    task_mean_ms: float  # start to end inside the pool process


def cycle(spans: Sequence[tuple[float, float]]) -> Cycle:
    """Summarise (start, end) spans of tasks run one after another by one pool process."""
    ordered = sorted(spans)
    if len(ordered) < 2:
        raise ValueError("need at least two task spans")
    gaps = [1000 * (nxt[0] - prev[1]) for prev, nxt in itertools.pairwise(ordered)]
    return Cycle(
        tasks=len(ordered),
        tasks_per_second=len(ordered) / (ordered[-1][1] - ordered[0][0]),
        gap_mean_ms=statistics.fmean(gaps),
        gap_median_ms=statistics.median(gaps),
        gap_p90_ms=float(np.percentile(gaps, 90)),
        task_mean_ms=statistics.fmean(1000 * (end - start) for start, end in ordered),
    )


@contextmanager
def hogs(count: int, seconds: float) -> Iterator[None]:
    """``count`` processes computing for at most ``seconds`` (stopped on leaving)."""
    processes = [multiprocessing.Process(target=_busy, args=(seconds,)) for _ in range(count)]
    for process in processes:
        process.start()
    try:
        yield
    finally:
        for process in processes:
            process.terminate()
            process.join()


def run_case(tasks: int, work_seconds: float, spans_file: Path, payload_bytes: int = 0) -> Cycle:
    """Fill the queue with ``tasks`` tasks (each carrying ``payload_bytes`` of text), start a
    worker, wait until all have run."""
    broker = redis.Redis.from_url(REDIS_URL)
    broker.flushdb()
    spans_file.unlink(missing_ok=True)
    for _ in range(tasks):
        floor_task.apply_async((work_seconds, "x" * payload_bytes), queue=QUEUE)
    env = {**os.environ, "PARAMINE_REDIS_URL": REDIS_URL, SPANS_ENV: str(spans_file)}
    command = [
        sys.executable, "-m", "celery", "-A", "benchmarks.system.celery_floor", "worker",
        "-Q", QUEUE, "-P", "prefork", "-c", "1", "--loglevel", "WARNING", "--without-mingle",
        "--without-gossip",
    ]  # fmt: skip
    worker = subprocess.Popen(command, cwd=REPO, env=env)
    deadline = time.monotonic() + 120 + tasks * (work_seconds + 0.05)
    try:
        while time.monotonic() < deadline:
            done = spans_file.read_text().count("\n") if spans_file.exists() else 0
            if done >= tasks:
                break
            time.sleep(0.2)
        else:
            raise TimeoutError(f"the worker ran {done} of {tasks} tasks in time")
    finally:
        worker.terminate()
        worker.wait(30)
        broker.flushdb()
    lines = spans_file.read_text().splitlines()
    spans = [(float(a), float(b)) for a, b in (line.split() for line in lines)]
    return cycle(spans)


def report(rows: Sequence[tuple[str, Cycle]], note: str) -> list[str]:
    return [
        "# Celery's own cost per task (paramine's delivery settings)",
        "",
        "Rerun: `.venv/bin/python -m benchmarks.system.celery_floor`",
        "",
        *([note, ""] if note else []),
        notes("a-real-celery"),
        "",
        "| case | tasks | tasks/s | gap mean (ms) | gap median (ms) | gap p90 (ms) | task (ms) |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {name} | {c.tasks} | {c.tasks_per_second:,.0f} | {c.gap_mean_ms:.2f} | "
            f"{c.gap_median_ms:.2f} | {c.gap_p90_ms:.2f} | {c.task_mean_ms:.2f} |"
            for name, c in rows
        ),
        "",
        f"Machine: {os.cpu_count()} cores, "
        f"load average at the end {' '.join(Path('/proc/loadavg').read_text().split()[:3])}.",
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--note", default="")
    args = parser.parse_args(argv)
    message = f"{MESSAGE_BYTES // 1000} KB message"
    cores = os.cpu_count() or 2
    with tempfile.TemporaryDirectory(prefix="paramine-floor-") as tmp:
        spans_file = Path(tmp) / "spans"
        rows = [
            ("empty task, idle machine", run_case(args.tasks, 0.0, spans_file)),
            (
                f"empty task, {message} (a news page pair's)",
                run_case(args.tasks, 0.0, spans_file, MESSAGE_BYTES),
            ),
            ("20 ms of CPU per task", run_case(args.tasks // 4, 0.02, spans_file)),
        ]
        for per_core in (2, 4):
            with hogs(per_core * cores, 600):
                rows.append(
                    (
                        f"empty task, {message}, {per_core * cores} CPU-bound processes"
                        f" on the {cores} cores",
                        run_case(args.tasks, 0.0, spans_file, MESSAGE_BYTES),
                    )
                )
    publish(args.out, report(rows, args.note))


if __name__ == "__main__":
    main()
