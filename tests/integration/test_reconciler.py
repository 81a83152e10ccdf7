"""The reconciler (shared/delivery/reconcile.py) on real PostgreSQL and Redis: which tracked page
pairs it sends again (lost ones only), and that it claims each once and backs off in a backlog."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from shared.config import Settings
from shared.delivery.celery_app import make_celery, queue_name
from shared.delivery.pipeline import CelerySender
from shared.delivery.reconcile import UNACKED, message_pair_id, queued_pair_ids, sweep
from shared.intake.ingest import Job, send_job
from shared.schemas import PagePair
from shared.store import DEAD, DONE, PENDING, Store
from tests.integration.conftest import fresh_database
from tests.integration.processes import REPO

pytestmark = pytest.mark.integration

TREE_QUEUE = queue_name("tree_align")


@pytest.fixture
def broker(redis_url: str) -> Iterator[tuple[redis.Redis, CelerySender]]:
    """A Redis database of its own (no worker consumes it)."""
    url = redis_url.rsplit("/", 1)[0] + "/12"
    client = redis.Redis.from_url(url)
    client.flushdb()
    yield client, CelerySender(make_celery(Settings(redis_url=url)))
    client.flushdb()
    client.close()


@pytest.fixture
def store() -> Iterator[Store]:
    """A database of its own: a sweep counts every tracked pair, not just this test's."""
    with fresh_database() as url:
        store = Store(url)
        yield store
        store.engine.dispose()


def pairs(job_id: str, count: int) -> list[PagePair]:
    return [
        PagePair.model_validate(
            {
                "job_id": job_id,
                "src": {
                    "url": f"https://r.example/{n}/en",
                    "lang": "en",
                    "html": f"<p>A {n} {job_id}.</p>",
                },
                "tgt": {
                    "url": f"https://r.example/{n}/de",
                    "lang": "de",
                    "html": f"<p>B {n} {job_id}.</p>",
                },
            }
        )
        for n in range(count)
    ]


def take(client: redis.Redis, pair_id: str) -> bytes:
    """Remove a pair's message from the tree_align queue (as a worker's BRPOP would)."""
    for raw in client.lrange(TREE_QUEUE, 0, -1):
        if message_pair_id(json.loads(raw)) == pair_id:
            client.lrem(TREE_QUEUE, 1, raw)
            return bytes(raw)
    raise AssertionError(f"{pair_id} is not queued")


def test_only_lost_pairs_are_sent_again_and_each_once(
    store: Store, broker: tuple[redis.Redis, CelerySender]
) -> None:
    client, sender = broker
    job_id = "reconcile-it"
    done, lost, waiting, in_flight, dead = pairs(job_id, 5)
    send_job(store, Job(job_id, [done, lost, waiting, in_flight, dead]), "it", sender)
    assert client.llen(TREE_QUEUE) == 5
    states = store.tracked_states(job_id)
    assert set(states.values()) == {(PENDING, 1)}

    # done: processed (its sentence_align progress row) and acked.
    take(client, done.pair_id)
    store.record_progress(done.pair_id, "sentence_align", 1)
    # lost: popped and never recorded as unacked (celery/kombu#305).
    take(client, lost.pair_id)
    # in flight: held by a worker, in kombu's unacked hash.
    raw = json.loads(take(client, in_flight.pair_id))
    client.hset(UNACKED, "tag-1", json.dumps([raw, "", TREE_QUEUE]))
    # dead: dead-lettered by a worker.
    take(client, dead.pair_id)
    store.record_dead_letter(
        stage="tree_align",
        payload=dead.model_dump(mode="json"),
        error_type="RuntimeError",
        reason="RuntimeError: boom",
        attempts=3,
    )

    # Nothing is older than an hour: nothing is touched.
    assert sweep(store, client, sender, age=3_600, batch=100).stale == 0
    assert client.llen(TREE_QUEUE) == 1

    result = sweep(store, client, sender, age=0, batch=100)
    assert (result.completed, result.stale, result.in_redis, result.resent) == (1, 3, 2, 1)
    states = store.tracked_states(job_id)
    assert states == {
        done.pair_id: (DONE, 1),
        lost.pair_id: (PENDING, 2),
        waiting.pair_id: (PENDING, 1),
        in_flight.pair_id: (PENDING, 1),
        dead.pair_id: (DEAD, 1),
    }
    assert queued_pair_ids(client, [TREE_QUEUE], 100) == {
        lost.pair_id,
        waiting.pair_id,
        in_flight.pair_id,
    }
    # The resent message is the pair's own message, whole.
    resent = json.loads(take(client, lost.pair_id))
    assert resent["content-type"] == "application/json"

    # Back on the queue now, so a second sweep sends nothing more.
    client.lpush(TREE_QUEUE, json.dumps(resent))
    assert sweep(store, client, sender, age=0, batch=100).resent == 0
    # The payload of a completed pair is dropped.
    assert store.claim_tracked([(job_id, done.pair_id)], before=1e12) == []

    # Two reconcilers claiming the same stale pair: only the first gets it.
    before = time.time()  # both listed the pair as sent before this instant
    first = store.claim_tracked([(job_id, waiting.pair_id)], before)
    second = store.claim_tracked([(job_id, waiting.pair_id)], before)
    assert [p.pair_id for p in first] == [waiting.pair_id] and second == []
    assert json.loads(first[0].payload or "{}") == waiting.model_dump(mode="json")

    # A dead pair retried from the dead letters is tracked again.
    store.track_again(dead.pair_id)
    assert store.tracked_states(job_id)[dead.pair_id][0] == PENDING


def test_a_backlog_is_left_alone(store: Store, broker: tuple[redis.Redis, CelerySender]) -> None:
    client, sender = broker
    job_id = "reconcile-backlog"
    messages = pairs(job_id, 6)
    send_job(store, Job(job_id, messages), "it", sender)
    take(client, messages[0].pair_id)  # lost, but behind a queue longer than a batch
    result = sweep(store, client, sender, age=0, batch=3)
    assert result.backlog and result.resent == 0
    assert store.tracked_states(job_id)[messages[0].pair_id] == (PENDING, 1)
    # The backlog gone, the lost pair is sent again.
    client.delete(TREE_QUEUE)
    result = sweep(store, client, sender, age=0, batch=3)
    assert not result.backlog and result.resent == 3  # a batch at a time, oldest first
    assert sweep(store, client, sender, age=0, batch=3).resent == 3
    assert sweep(store, client, sender, age=0, batch=3).resent == 0  # all 6 queued again now
    assert client.llen(TREE_QUEUE) == 6


# A stand-in for a tree_align worker's consumer: starts the reconciler as the worker does,
# says its pid, and lives until it is killed.
RECONCILER_PARENT = """
import time
from shared.delivery.reconcile import start_process
print(start_process().pid, flush=True)
time.sleep(600)
"""


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (an exited one not yet reaped counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in {"Z", "X"}


def test_the_reconciler_runs_in_a_process_of_its_own_and_ends_with_its_parent(
    store: Store, broker: tuple[redis.Redis, CelerySender], redis_url: str
) -> None:
    """Not a thread of the consumer, which forks the pool's children (shared/delivery/reconcile.py,
    start_process); a consumer killed with -9 does not leave it behind."""
    client, sender = broker
    lost = pairs("reconcile-process", 1)[0]
    send_job(store, Job("reconcile-process", [lost]), "it", sender)
    take(client, lost.pair_id)  # popped and never recorded as unacked: lost
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMINE_")}
    env |= {
        "PARAMINE_REDIS_URL": redis_url.rsplit("/", 1)[0] + "/12",
        "PARAMINE_DATABASE_URL": store.url,
        "PARAMINE_QUEUE__RECONCILE_INTERVAL": "0.2",
        "PARAMINE_QUEUE__RECONCILE_AGE": "0",
    }
    parent = subprocess.Popen(
        [sys.executable, "-c", RECONCILER_PARENT], env=env, stdout=subprocess.PIPE, cwd=REPO
    )
    try:
        assert parent.stdout is not None
        reconciler = int(parent.stdout.readline())
        assert reconciler not in {parent.pid, os.getpid()}
        deadline = time.monotonic() + 120  # a fresh interpreter imports the store and Celery
        while client.llen(TREE_QUEUE) == 0 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert queued_pair_ids(client, [TREE_QUEUE], 100) == {lost.pair_id}, "not resent"
    finally:
        parent.kill()
        parent.wait(10)
    deadline = time.monotonic() + 10
    while running(reconciler) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not running(reconciler), "the reconciler outlived its parent"
