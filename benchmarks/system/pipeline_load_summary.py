"""The load benchmark's reading of one run: the tree_align worker's log and a summary row.

``task_spans`` and ``task_waits`` read the worker's Celery INFO log; ``summarise`` turns a
``RunResult`` into the figures the report prints (throughput, latencies, queue depths, CPU).
"""

from __future__ import annotations

import math
import re
import statistics
from datetime import datetime
from typing import Any

import numpy as np

from benchmarks.system.pipeline_load_client import RunResult, Submitted

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


def log_time(stamp: str) -> float:
    return datetime.strptime(
        stamp, "%Y-%m-%d %H:%M:%S,%f"
    ).timestamp()  # local time, like time.time()


def task_spans(log: str) -> list[tuple[float, float]]:
    """(start, end) of tree_align tasks in the order the worker received them (Celery INFO log).

    A task ends at its "succeeded in D s" log time and starts D earlier; a task without that
    line (it failed) starts and ends when it was received.
    """
    finished = {
        task: (log_time(stamp) - float(seconds), log_time(stamp))
        for stamp, task, seconds in SUCCEEDED.findall(log)
    }
    spans = []
    for stamp, task in RECEIVED.findall(log):
        received = log_time(stamp)
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
