"""Start a Celery worker for one stage, with its own /metrics endpoint."""

from __future__ import annotations

import logging
import os
import signal
import socket
from typing import Any

from celery.signals import (
    task_postrun,
    task_prerun,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
)

from services.wiring.registry import stage_schemas
from shared.config import get_settings
from shared.delivery.celery_app import get_celery, queue_name
from shared.delivery.lease import start_thread as start_lease_renewal
from shared.delivery.reconcile import start_process as start_reconciler
from shared.schemas import PagePair
from shared.store import Store
from shared.store.schema import prepare_store_at_start

log = logging.getLogger(__name__)
# Error types a worker dead-letters for reasons other than a bug (shared/delivery/worker.py).
DEAD_LETTER_CAUSES = (
    "InvalidInput", "InputTooLarge", "TransientError", "TimeLimitExceeded",
    "SoftTimeLimitExceeded",
)  # fmt: skip


@worker_process_shutdown.connect  # type: ignore[untyped-decorator]
def _mark_dead(pid: int | None = None, **_: object) -> None:
    # Prefork children leave per-process metric files; mark them so gauges stay correct.
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # lazy: prometheus_client takes its mode from PROMETHEUS_MULTIPROC_DIR when imported
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid or os.getpid())  # type: ignore[no-untyped-call]


_WARM_UP_PAGE = (
    "<html><body><nav><a href='/'>Home</a></nav><h1>Title</h1><p>One sentence here. "
    "And a second one.</p><p>Another paragraph.</p></body></html>"
)


def warm_up(stage: str) -> None:
    """Compile the stage's numba kernels in the parent, so forked children never compile.

    A child killed in the middle of a JIT compile (or two children compiling at once) can
    leave a half-built library behind; compiling once before the fork avoids both.
    """
    if stage not in {"tree_align", "sentence_align"}:
        return
    # lazy: a worker of another stage imports neither stage (nor their numba kernels)
    from services.sentence_align.mining.records import sentence_pairs
    from services.tree_align.handler import chunk_pairs

    # Two languages, so the kernels of a translation's features compile too (the copy
    # feature's trigrams are not read for a monolingual pair).
    src = {"url": "", "lang": "en", "html": _WARM_UP_PAGE}
    tgt = {**src, "lang": "fr"}
    message = PagePair.model_validate({"job_id": "warm-up", "src": src, "tgt": tgt})
    sentence_pairs(chunk_pairs(message))


def watch_consumer(stage: str) -> None:
    """Export readiness (a signal of the consumer, parent process).

    ``paramine_worker_ready{stage}`` turns 1 when the consumer is attached to its queue, after
    the warm-up: what tests and probes wait for. The consumer then starts renewing the leases
    of the messages it holds (:mod:`shared.delivery.lease`, its one thread: this process forks the
    pool's children); a tree_align consumer also starts the reconciler, in a process of its
    own (:mod:`shared.delivery.reconcile`). A message the consumer cannot run (a content type other
    than JSON, a body it cannot decode, a task it does not have) is dead-lettered undecoded
    and counted in ``paramine_messages_rejected_total{stage}`` (:mod:`shared.delivery.consumer`).
    """
    # lazy: prometheus_client takes its mode from PROMETHEUS_MULTIPROC_DIR when imported
    from shared.metrics import stage_metrics

    def ready(**_: Any) -> None:
        stage_metrics().worker_ready.labels(stage).set(1)
        # The failure counters of the usual causes start at 0: a series that first appears at
        # 1 has no increase() and the dead-letter alert missed each cause's first letter.
        for error in DEAD_LETTER_CAUSES:
            stage_metrics().messages_failed.labels(stage, error)
        log.info("%s worker consumes %s", stage, queue_name(stage))
        # Every consumer renews the leases of the messages it holds (shared/delivery/lease.py).
        start_lease_renewal()
        if stage == "tree_align":
            # The first stage's consumers also resend page pairs whose message was lost
            # (several replicas claim pairs atomically), from a process of their own: this
            # one forks the pool's children (shared/delivery/reconcile.py, start_process).
            start_reconciler()

    worker_ready.connect(ready, weak=False)


# The signal the consumer sends a pool child whose task ran past its soft time limit
# (billiard.pool.SIG_SOFT_TIMEOUT).
SOFT_LIMIT_SIGNAL = signal.SIGUSR1


def confine_soft_limit() -> None:
    """Let the soft time limit's signal interrupt a pool child only while a task runs.

    Why (issue 39, the hosts tests' failures under load): the consumer times soft limits in
    its own event loop, which stands still while it reconnects to the broker; it then sends
    the signal late, when the task may be over and the child writing its result to, or
    reading its next job from, the pipe it shares with the consumer. The exception raised
    there cut a message in two: the consumer's next read of the pipe unpickled the text of two
    messages (``Unrecoverable error: UnicodeDecodeError``, and the consumer stopped while its
    process lived on), or the child exited with half a job read. Outside a task's body (from
    ``task_postrun`` to the next ``task_prerun``) the signal is blocked in the child; one that
    arrives meanwhile belongs to a task already over and is discarded when the next starts.
    """

    def blocked(**_: Any) -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {SOFT_LIMIT_SIGNAL})

    def unblocked(**_: Any) -> None:
        while signal.sigtimedwait({SOFT_LIMIT_SIGNAL}, 0) is not None:
            pass  # pending: sent for an earlier task
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {SOFT_LIMIT_SIGNAL})

    worker_process_init.connect(blocked, weak=False)
    task_postrun.connect(blocked, weak=False)
    task_prerun.connect(unblocked, weak=False)


def _prepare_store() -> None:
    """Every schema, once, before the pool forks (the children's stores then only check it
    once each); the parent's engine is closed, so no child inherits its connections."""
    store = Store(get_settings().database_url)
    prepare_store_at_start(store, stage_schemas())
    store.engine.dispose()


def run_worker(
    stage: str, *, concurrency: int, metrics_host: str, metrics_port: int, loglevel: str
) -> None:
    """Consume ``paramine.<stage>`` until stopped (SIGTERM: warm shutdown)."""
    if metrics_port:
        # lazy: prometheus_client takes its mode from PROMETHEUS_MULTIPROC_DIR when imported
        from prometheus_client import start_http_server

        from shared.metrics import collecting_registry, stage_metrics

        stage_metrics()  # define the metrics in the parent too, so they exist before the first task
        start_http_server(metrics_port, addr=metrics_host, registry=collecting_registry())
    _prepare_store()
    warm_up(stage)
    watch_consumer(stage)
    confine_soft_limit()
    app = get_celery()
    app.loader.import_default_modules()
    __import__(f"services.{stage}.tasks")
    app.worker_main(
        [
            "worker",
            f"--queues={queue_name(stage)}",
            f"--concurrency={concurrency}",
            "--pool=prefork",
            f"--hostname={stage}-{os.getpid()}@{socket.gethostname()}",
            f"--loglevel={loglevel}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )
