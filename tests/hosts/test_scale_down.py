"""Scale-down: SIGTERM (what Kubernetes and ``docker compose --scale`` send) to one of two
tree_align workers mid-run, not restarted. Celery's warm shutdown with late acks and prefetch
1: the worker finishes the task it runs, takes no new one, hands back what it had prefetched,
and exits within its time limit; the run still stores the embedded run's sentence pairs."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.chaos.conftest import page_pairs
from tests.chaos.jobs import completed, metric_total, wait_until
from tests.hosts.client import assert_complete, post_pairs
from tests.hosts.conftest import HostsCluster

pytestmark = pytest.mark.hosts

HARD_TIME_LIMIT = 25.0  # the cluster's PARAMINE_QUEUE__HARD_TIME_LIMIT
TASK = re.compile(r"Task paramine\.tree_align\.process\[([0-9a-f-]+)\] (received|succeeded)")


def longer(pair: dict[str, Any], times: int = 100) -> dict[str, Any]:
    """The page pair with its body repeated ``times`` times (a few tenths of a second of
    alignment instead of milliseconds, so that the SIGTERM finds a task running)."""
    longer = dict(pair)
    for side in ("src", "tgt"):
        body = pair[side]["html"].split("<body>")[1].split("</body>")[0]
        copies = "".join(f"<div id='part{number}'>{body}</div>" for number in range(times))
        longer[side] = {**pair[side], "html": f"<html><body>{copies}</body></html>"}
    return longer


def test_a_sigterm_mid_run_finishes_the_task_takes_no_new_one_and_loses_nothing(
    cluster: HostsCluster, tmp_path: Path
) -> None:
    job_id, pairs = "hosts-sigterm", [longer(pair) for pair in page_pairs(40, seed=14)]
    key = "w1/tree_align"
    worker, log = cluster.processes[key], cluster.log_files[key]
    post_pairs(cluster, job_id, pairs)
    wait_until(lambda: completed(cluster, job_id) >= 5, 180, "5 pairs done")
    wait_until(
        lambda: metric_total(cluster.metrics[key], "paramine_in_flight", "tree_align") >= 1,
        60,
        "the worker running a task",
    )
    worker.terminate()
    worker.wait(HARD_TIME_LIMIT)  # gone within its time limit, or TimeoutExpired
    assert worker.returncode == 0

    text = log.read_text(errors="replace")
    before, _, after = text.partition("Warm shutdown")
    assert after, "the worker did not log a warm shutdown"
    assert not [m for m in TASK.finditer(after) if m.group(2) == "received"], "took a new task"
    held = {m.group(1) for m in TASK.finditer(before) if m.group(2) == "received"}
    held -= {m.group(1) for m in TASK.finditer(before) if m.group(2) == "succeeded"}
    finished = {m.group(1) for m in TASK.finditer(after) if m.group(2) == "succeeded"}
    # one process: of the tasks held at the signal one was running, and it finishes; one it
    # had prefetched (Celery reserves one ahead) is handed back, not run here
    assert len(held & finished) == 1, "the task running at SIGTERM was not finished"
    assert len(held - finished) <= 1 and finished <= held

    assert_complete(cluster, job_id, pairs, tmp_path)  # the other worker did the rest
    assert cluster.processes[key].poll() is not None  # not restarted meanwhile
