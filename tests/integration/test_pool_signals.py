"""A soft-time-limit signal that reaches a pool child outside a task (the consumer sends it
late after a broker reconnect) neither ends the child nor interrupts its next task."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from services.cli.worker_process import SOFT_LIMIT_SIGNAL
from tests.integration.conftest import Cluster
from tests.integration.test_worker_content import job_behind_completes

pytestmark = pytest.mark.integration


def pool_children(pid: int) -> set[int]:
    """The worker's prefork children. They share its command line; the reconciler's process
    (tree_align) and multiprocessing's resource tracker were started fresh (``spawn``)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return {
        int(child)
        for child in children
        if b"multiprocessing" not in Path(f"/proc/{child}/cmdline").read_bytes()
    }


def test_a_late_soft_limit_signal_to_an_idle_pool_child_is_discarded(cluster: Cluster) -> None:
    worker = cluster.processes["tree_align"]
    job_behind_completes(cluster, "before-late-signal")  # the pool child is up, now idle
    pool = pool_children(worker.pid)
    assert len(pool) == 1, pool
    (child,) = pool
    log = cluster.logs / "tree_align.log"
    before = len(log.read_text(errors="replace"))
    os.kill(child, SOFT_LIMIT_SIGNAL)  # as the consumer does, for a task already over
    time.sleep(1)
    job_behind_completes(cluster, "after-late-signal")
    after = log.read_text(errors="replace")[before:]
    assert pool_children(worker.pid) == {child}, "the pool child ended on a late soft limit"
    assert "SoftTimeLimitExceeded" not in after, after[-2000:]
