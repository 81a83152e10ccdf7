"""A running stage worker refuses a pickled message undecoded; JSON messages flow on."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.celery_app import make_celery, queue_name, task_name
from shared.config import Settings
from tests.integration.conftest import Cluster
from tests.integration.test_pipeline import KEY, sample_pairs, wait_for_idle_queues, wait_for_job

pytestmark = pytest.mark.integration


class TouchOnUnpickle:
    """Unpickling this runs ``Path(marker).touch()``: proof that nothing unpickled it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def rejected_total(metrics_url: str) -> float:
    text = httpx.get(metrics_url, timeout=10).text
    found = re.findall(
        r'^paramine_messages_rejected_total\{stage="tree_align"\} (\S+)$', text, re.MULTILINE
    )
    return sum(float(value) for value in found)


def test_a_pickled_message_is_refused_and_json_flows_on(cluster: Cluster, tmp_path: Path) -> None:
    metrics_url = cluster.worker_metrics["tree_align"]
    before = rejected_total(metrics_url)
    marker = tmp_path / "unpickled"
    app = make_celery(Settings(redis_url=cluster.env["PARAMINE_REDIS_URL"]))
    # The producer side may serialise anything; the worker accepts JSON only.
    app.send_task(
        task_name("tree_align"),
        args=[TouchOnUnpickle(marker)],
        queue=queue_name("tree_align"),
        serializer="pickle",
    )
    # A JSON job queued behind it (FIFO) completes: the worker went on consuming.
    response = httpx.post(
        f"{cluster.gateway}/v1/page-pairs",
        json={"job_id": "after-pickle", "pairs": sample_pairs()[:1]},
        headers=KEY,
        timeout=60,
    )
    assert response.status_code == 202, response.text
    assert wait_for_job(cluster, "after-pickle")["state"] == "done"
    wait_for_idle_queues(cluster)

    assert not marker.exists(), "the worker unpickled the message"
    assert rejected_total(metrics_url) == before + 1
    log = (cluster.logs / "tree_align.log").read_text(errors="replace")
    assert "tree_align refused a message (content type application/x-python-serialize)" in log
