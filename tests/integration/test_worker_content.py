"""A running stage worker dead-letters, undecoded and with its bytes kept, a pickled message,
one whose body cannot be decoded, one for a task it does not have and one that is no task
message; JSON messages flow on."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from shared.config import Settings
from shared.delivery.celery_app import make_celery, queue_name, task_name
from shared.delivery.consumer import kept_stage_message
from shared.store import Store
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


def job_behind_completes(cluster: Cluster, job_id: str) -> None:
    """A JSON job queued behind what was sent (FIFO) completes: the worker went on consuming."""
    response = httpx.post(
        f"{cluster.gateway}/v1/page-pairs",
        json={"job_id": job_id, "pairs": sample_pairs()[:1]},
        headers=KEY,
        timeout=60,
    )
    assert response.status_code == 202, response.text
    assert wait_for_job(cluster, job_id)["state"] == "done"
    wait_for_idle_queues(cluster)


def push_then_job_behind(cluster: Cluster, items: list[bytes | str], job_id: str) -> None:
    """Put ``items`` raw on tree_align's queue (as another program would), then check that a
    JSON job queued behind them completes."""
    queue = redis.Redis.from_url(cluster.env["PARAMINE_REDIS_URL"])
    for item in items:
        queue.lpush(queue_name("tree_align"), item)
    job_behind_completes(cluster, job_id)


def kept_bytes(letter: dict[str, Any]) -> bytes:
    """The message bytes a consumer-written dead letter keeps."""
    return base64.b64decode(json.loads(letter["payload"])["body_base64"])


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
    job_behind_completes(cluster, "after-pickle")

    assert not marker.exists(), "the worker unpickled the message"
    assert rejected_total(metrics_url) == before + 1
    # dead-lettered undecoded: its bytes kept, never a stage message for retry
    (letter,) = dead_letters_of(cluster, "InvalidTask")
    assert "ContentDisallowed" in letter["reason"]
    kept = json.loads(letter["payload"])
    assert kept["content_type"] == "application/x-python-serialize"
    assert b"touch" in kept_bytes(letter)
    assert kept_stage_message(kept) is None
    log = (cluster.logs / "tree_align.log").read_text(errors="replace")
    assert "tree_align dead-lettered a message it cannot run (invalid task message)" in log


def queued_envelope(redis_url: str, payload: dict[str, Any], stage: str) -> dict[str, Any]:
    """The Redis envelope Celery writes for a ``stage`` task carrying ``payload``, taken from
    a queue no worker reads and addressed to ``paramine.<stage>``."""
    template = "paramine.test-template"
    app = make_celery(Settings(redis_url=redis_url))
    app.send_task(task_name(stage), args=[payload], queue=template, routing_key=template)
    raw = redis.Redis.from_url(redis_url).rpop(template)
    assert isinstance(raw, bytes), "the template envelope was not queued"
    envelope: dict[str, Any] = json.loads(raw)
    envelope["properties"]["delivery_info"] = {
        "exchange": queue_name(stage),
        "routing_key": queue_name(stage),
    }
    return envelope


def test_a_message_whose_body_cannot_be_decoded_is_dead_lettered_and_json_flows_on(
    cluster: Cluster,
) -> None:
    metrics_url = cluster.worker_metrics["tree_align"]
    before = rejected_total(metrics_url)
    redis_url = cluster.env["PARAMINE_REDIS_URL"]
    envelope = queued_envelope(redis_url, {"job_id": "undecodable"}, "tree_align")
    # JSON whose bytes are not UTF-8: Celery's consumer logged such a message and acked it
    body = b'[[{"job_id": "undecodable \xff\xfe"}], {}, {"callbacks": null, "errbacks": null}]'
    envelope["body"] = base64.b64encode(body).decode("ascii")
    push_then_job_behind(cluster, [json.dumps(envelope)], "after-undecodable")

    letters = dead_letters_of(cluster, "DecodeError")
    assert len(letters) == 1, letters
    assert kept_bytes(letters[0]) == body  # every byte kept
    assert json.loads(letters[0]["payload"])["content_type"] == "application/json"
    assert "UnicodeDecodeError" in letters[0]["reason"]
    assert rejected_total(metrics_url) == before + 1
    log = (cluster.logs / "tree_align.log").read_text(errors="replace")
    assert "tree_align dead-lettered a message it cannot decode" in log


def dead_letters_of(cluster: Cluster, error_type: str) -> list[dict[str, Any]]:
    store = Store(cluster.env["PARAMINE_DATABASE_URL"])
    try:
        return [
            letter
            for letter in store.list_dead_letters(stage="tree_align", limit=1000)
            if letter["error_type"] == error_type
        ]
    finally:
        store.engine.dispose()


def test_a_message_for_a_task_this_worker_lacks_is_dead_lettered_and_json_flows_on(
    cluster: Cluster,
) -> None:
    # A producer of another version (a rolling upgrade) names a task the worker does not
    # have: Celery's consumer logged it and dropped it.
    metrics_url = cluster.worker_metrics["tree_align"]
    before = rejected_total(metrics_url)
    app = make_celery(Settings(redis_url=cluster.env["PARAMINE_REDIS_URL"]))
    app.send_task(
        "paramine.tree_align.process_v0", args=[{"job_id": "retired-task"}],
        queue=queue_name("tree_align"),
    )  # fmt: skip
    job_behind_completes(cluster, "after-unknown-task")

    (letter,) = dead_letters_of(cluster, "UnknownTask")
    assert "paramine.tree_align.process_v0" in letter["reason"]
    kept = json.loads(letter["payload"])
    assert kept["headers"]["task"] == "paramine.tree_align.process_v0"
    assert kept_stage_message(kept) == {"job_id": "retired-task"}  # what a retry sends
    assert rejected_total(metrics_url) == before + 1


def test_a_message_without_a_task_header_is_dead_lettered_and_json_flows_on(
    cluster: Cluster,
) -> None:
    metrics_url = cluster.worker_metrics["tree_align"]
    before = rejected_total(metrics_url)
    redis_url = cluster.env["PARAMINE_REDIS_URL"]
    envelope = queued_envelope(redis_url, {"job_id": "no-task-header"}, "tree_align")
    del envelope["headers"]["task"]  # another client's message on the queue
    push_then_job_behind(cluster, [json.dumps(envelope)], "after-no-task-header")

    (letter,) = dead_letters_of(cluster, "UnknownMessage")
    assert json.loads(kept_bytes(letter))[0] == [{"job_id": "no-task-header"}]
    assert rejected_total(metrics_url) == before + 1
    log = (cluster.logs / "tree_align.log").read_text(errors="replace")
    assert "tree_align dead-lettered a message it cannot run (no task message)" in log


def test_a_queue_item_that_is_no_message_envelope_is_dead_lettered_and_json_flows_on(
    cluster: Cluster,
) -> None:
    # Another program's LPUSH onto the queue: kombu's transport raised in the consumer's loop
    # ("Unrecoverable error: JSONDecodeError"), the worker stopped consuming, the item was lost.
    metrics_url = cluster.worker_metrics["tree_align"]
    before = rejected_total(metrics_url)
    items: list[bytes | str] = [b"not an envelope \xff", b'{"job_id": "plain json"}']
    push_then_job_behind(cluster, items, "after-raw-items")

    kept = [kept_bytes(letter) for letter in dead_letters_of(cluster, "NoEnvelope")]
    assert sorted(kept) == sorted(items)  # every byte kept
    assert rejected_total(metrics_url) == before + 2
    log = (cluster.logs / "tree_align.log").read_text(errors="replace")
    assert "Unrecoverable error" not in log
