"""A real Celery worker whose tree_align handler always fails (fault injection).

It registers ``paramine.tree_align.process`` through the same :func:`define_stage_task` as the
real worker (retry policy, backoff, dead letters, metrics, time limits) but with a handler
that raises an unexpected ``RuntimeError`` (a stand-in for a bug) or, for a page whose URL
says ``stuck``, blocks its soft time limit's signal until the hard limit kills it (a stand-in
for a loop in native code). It consumes a queue of its own, so the real workers never see its
messages. A dead letter it writes names the
tree_align stage: ``paramine dead-letters retry`` sends it to the real tree_align queue, as
after a fixed release.

Run: ``python -m tests.chaos.faulty_worker`` with the cluster's ``PARAMINE_*`` environment.
"""

from __future__ import annotations

import os
import signal
import time

from shared.config import get_settings
from shared.delivery.celery_app import make_celery
from shared.delivery.pipeline import Outgoing
from shared.delivery.worker import define_stage_task
from shared.schemas import PagePair
from shared.store import Store

POISON_QUEUE = "paramine.poison"


def always_fails(message: PagePair, store: Store) -> list[Outgoing]:
    if "stuck" in message.src.url:
        # Native code runs no Python signal handler: block the soft time limit's signal
        # (billiard's SIG_SOFT_TIMEOUT, SIGUSR1), so only the hard limit ends this. (Catching
        # SoftTimeLimitExceeded around a sleep instead let the exception escape once in a
        # while, and the message was retried before it was killed.) Block SIGTERM too: at the
        # hard limit billiard sends it before SIGKILL, and its handler would unwind this
        # Python frame (closing the in-flight gauge) where a native loop unwinds nothing.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGTERM})
        time.sleep(600)
    raise RuntimeError(f"injected fault: page pair {message.pair_id} always fails")


def main() -> None:
    app = make_celery(get_settings())
    app.conf.include = []  # the real stage tasks are not registered here
    define_stage_task(app, "tree_align", always_fails)
    app.worker_main(
        [
            "worker",
            f"--queues={POISON_QUEUE}",
            "--concurrency=1",
            "--pool=prefork",
            f"--hostname=poison-{os.getpid()}@localhost",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
    )


if __name__ == "__main__":
    main()
