"""The load benchmark's per-step breakdown of one page pair, and the host's speed.

``profile_pairs`` runs the workers' code for generated pairs in one process and times each
step; ``profile_table`` renders it; ``host_speed_line`` compares the host's speed (a fixed
Python loop) and the code's cost per pair with the reference run's. Used by
``benchmarks.system.pipeline_load`` and its report.
"""

from __future__ import annotations

import random
import time
from typing import Any

import redis

from benchmarks.common import generate_pair
from benchmarks.system.pipeline_load_stack import postgres_database

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


class TimedCalls:
    """Replaces ``owner.name`` by a wrapper adding each call's wall and CPU time (the caller
    finds the function by its module-level name at call time)."""

    def __init__(self, owner: Any, name: str) -> None:
        self.wall = self.cpu = 0.0
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.wall += time.perf_counter() - wall
                self.cpu += time.process_time() - cpu

        setattr(owner, name, timed)

    def take(self) -> tuple[float, float]:
        """The time added since the last call."""
        taken = (self.wall, self.cpu)
        self.wall = self.cpu = 0.0
        return taken


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
    ("tree_align: content model (extractor, block evidence, site counts)", "content"),
    ("tree_align: store writes and commit", "tree_store"),
    ("tree_align → sentence_align: serialise (model_dump + JSON)", "encode_mid"),
    ("tree_align → sentence_align: publish to Redis", "publish"),
    ("sentence_align: JSON decode of the message", "decode_mid"),
    ("sentence_align: schema validation (pydantic)", "validate_mid"),
    ("sentence_align: algorithm (sentence alignment)", "sentence_algorithm"),
    ("sentence_align: pair classifier (features, trees)", "pair_score"),
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

    from services.cli.worker_process import warm_up
    from services.sentence_align.handler import handle as sentence_handle
    from services.sentence_align.mining import records as sentence_records
    from services.tree_align import handler as tree_handler
    from services.tree_align import repository as tree_repository
    from services.tree_align.handler import handle as tree_handle
    from shared.config import Settings
    from shared.delivery.celery_app import make_celery
    from shared.delivery.pipeline import CelerySender
    from shared.metrics import StageMetrics
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
    content = TimedCalls(tree_handler, "page_content")
    # the site's block counts and the page's blocks: store work, counted with the store's
    site_reads = TimedCalls(tree_repository, "block_counts")
    site_writes = TimedCalls(tree_repository, "record_blocks")
    scoring = TimedCalls(sentence_records, "pair_scores")
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
            laps.move("content", *content.take(), source="tree_algorithm")
            laps.move("tree_store", *site_reads.take(), source="content")
            laps.move("tree_store", *site_writes.take(), source="tree_algorithm")
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
            laps.move("pair_score", *scoring.take(), source="sentence_algorithm")
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
    algorithm = ("tree_algorithm", "content", "sentence_algorithm", "pair_score")
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
