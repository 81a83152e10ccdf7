"""What the fault tests do with a running cluster: submit page pairs as the gateway does, wait
for a job with the queues drained and nothing unacked, and compare the stored sentence pairs
with the embedded run of the same input (shared by tests/chaos and tests/hosts)."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.config import Settings, get_settings
from shared.delivery.celery_app import make_celery
from shared.delivery.pipeline import CelerySender, LocalRunner
from shared.intake.ingest import Job, send_job
from shared.metrics import stage_metrics
from shared.schemas import PagePair
from shared.store import SentencePairQuery, Store
from tests.chaos.conftest import ALIGNMENT_STAGES, VISIBILITY_TIMEOUT, ChaosCluster
from tests.integration.processes import PARAMINE

Row = tuple[str, str, str, str]


def direct_store(cluster: ChaosCluster) -> Store:
    """One store (one small connection pool) per test database, not one per poll."""
    store = STORES.get(cluster.database_url)
    if store is None:
        store = STORES[cluster.database_url] = Store(cluster.database_url)
    return store


STORES: dict[str, Store] = {}


def close_stores() -> None:
    """Dispose of the test stores' connection pools (at the end of a cluster fixture)."""
    for store in STORES.values():
        store.engine.dispose()
    STORES.clear()


def submit(cluster: ChaosCluster, job_id: str, pairs: list[dict[str, Any]]) -> list[PagePair]:
    """What the gateway does: record the pairs (tracked), then queue them."""
    messages = [PagePair.model_validate({"job_id": job_id, **pair}) for pair in pairs]
    sender = CelerySender(make_celery(Settings(redis_url=cluster.redis.url)))
    send_job(direct_store(cluster), Job(job_id, messages), "chaos", sender)
    return messages


def embedded_rows(job_id: str, messages: list[PagePair], tmp_path: Path) -> set[Row]:
    """The same input through the in-process runner into SQLite: what the store must hold
    (with the cluster's settings, ``cluster_env``: the defaults, site learning on)."""
    from services.wiring.registry import all_handlers

    store = Store(f"sqlite:///{tmp_path / f'{job_id}.db'}")
    store.record_job(job_id, [(m.pair_id, m.src.url, m.tgt.url) for m in messages], "embedded")
    with pytest.MonkeyPatch.context() as patch:
        for name in ("PARAMINE_SITE_PAIRS", "PARAMINE_SITE_BLOCKS", "PARAMINE_SITE_WAIT"):
            patch.delenv(name, raising=False)  # the defaults, as the cluster runs
        get_settings.cache_clear()
        LocalRunner(all_handlers(), store, stage_metrics()).run(
            "tree_align", (m.model_dump(mode="json") for m in messages)
        )
    get_settings.cache_clear()
    rows = rows_of(store, job_id)
    store.engine.dispose()
    return rows


def sorted_tsv_export(database_url: str, job_id: str) -> bytes:
    """The job's corpus as a user exports it (``paramine export --format tsv``, default
    settings), its lines sorted: the bytes the cluster and the embedded run must share."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMINE_")}
    env["PARAMINE_DATABASE_URL"] = database_url
    command = [PARAMINE, "export", "--format", "tsv", "--job", job_id]
    done = subprocess.run(command, env=env, capture_output=True, check=True, timeout=120)
    return b"".join(sorted(done.stdout.splitlines(keepends=True)))


def assert_same_export(cluster: ChaosCluster, job_id: str, tmp_path: Path) -> None:
    """The cluster's sorted TSV export equals the embedded run's (``embedded_rows`` wrote
    its store), byte for byte, and is not empty."""
    clustered = sorted_tsv_export(cluster.database_url, job_id)
    embedded = sorted_tsv_export(f"sqlite:///{tmp_path / f'{job_id}.db'}", job_id)
    assert clustered, "the cluster exported no sentence pair"
    ours, theirs = set(clustered.splitlines()), set(embedded.splitlines())
    assert clustered == embedded, (
        f"{len(clustered.splitlines())} lines exported by the cluster, "
        f"{len(embedded.splitlines())} by the embedded run; only the cluster's "
        f"{sorted(ours - theirs)[:3]}, only the embedded run's {sorted(theirs - ours)[:3]}"
    )


def assert_embedded_corpus(
    cluster: ChaosCluster, job_id: str, messages: list[PagePair], tmp_path: Path
) -> None:
    """The job's stored rows and its exported corpus are the embedded run's, and none of its
    messages is a dead letter."""
    store = direct_store(cluster)
    assert_same_rows(rows_of(store, job_id), embedded_rows(job_id, messages, tmp_path))
    assert_same_export(cluster, job_id, tmp_path)
    assert [letter for letter in store.list_dead_letters() if letter["job_id"] == job_id] == []


def assert_same_rows(stored: set[Row], expected: set[Row]) -> None:
    extra, missing = sorted(stored - expected), sorted(expected - stored)
    assert not extra and not missing, (
        f"{len(stored)} stored, {len(expected)} expected; extra {extra[:3]}; missing {missing[:3]}"
    )


def rows_of(store: Store, job_id: str) -> set[Row]:
    every = SentencePairQuery(job_id=job_id, limit=10_000_000, flagged=True, duplicates=True)
    rows = store.list_sentence_pairs(every)  # every stored row, not the corpus view
    as_tuples = [(r.id, r.src_text, r.tgt_text, r.bead) for r in rows]
    assert len(as_tuples) == len(set(as_tuples))
    return set(as_tuples)


def completed(cluster: ChaosCluster, job_id: str) -> int:
    status = direct_store(cluster).job_status(job_id)
    return 0 if status is None else status.completed


def wait_until(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise TimeoutError(f"{what} within {timeout} s")


def wait_for_job(
    cluster: ChaosCluster,
    job_id: str,
    pairs: int,
    timeout: float,
    quiet: float = VISIBILITY_TIMEOUT,
) -> None:
    client = cluster.redis_client()

    quiet_since: list[float] = []

    def idle() -> bool:
        waiting = sum(int(client.llen(f"paramine.{stage}")) for stage in ALIGNMENT_STAGES)
        drained = waiting == 0 and client.hlen("unacked") == 0
        if completed(cluster, job_id) >= pairs and drained:
            return True
        if not drained:
            quiet_since.clear()
        elif not quiet_since:
            quiet_since.append(time.monotonic())
        # Nothing queued or held for longer than a redelivery takes: what is missing is lost.
        if quiet_since and time.monotonic() - quiet_since[0] > quiet + 10:
            raise TimeoutError("the queues are drained but the job is incomplete")
        return False

    try:
        wait_until(idle, timeout, "the job to finish")
    except TimeoutError as exc:
        letters = [
            (row["stage"], row["reason"][:200])
            for row in direct_store(cluster).list_dead_letters(limit=10_000)
            if row["job_id"] == job_id
        ]
        waiting = {stage: client.llen(f"paramine.{stage}") for stage in ALIGNMENT_STAGES}
        raise TimeoutError(
            f"{exc}: job {job_id}: {completed(cluster, job_id)}/{pairs} pairs done; "
            f"queues {waiting}, unacked {client.hlen('unacked')}; "
            f"{len(letters)} dead letters {letters[:3]}"
        ) from None


def in_flight_pair_ids(cluster: ChaosCluster) -> set[str]:
    """Page pairs of the messages a worker holds unacknowledged (kombu's ``unacked`` hash)."""
    pair_ids = set()
    for raw in cluster.redis_client().hvals("unacked"):
        message, _exchange, _routing_key = json.loads(raw)
        args = json.loads(base64.b64decode(message["body"]))[0]
        payload = args[0]
        if "context" in payload:
            pair_ids.add(payload["context"]["pair_id"])
        else:
            pair_ids.add(PagePair.model_validate(payload).pair_id)
    return pair_ids


def metric_total(url: str, name: str, stage: str) -> float:
    text = httpx.get(url, timeout=10).text
    pattern = rf'^{name}\{{[^}}]*stage="{stage}"[^}}]*\}} (\S+)$'
    return sum(float(value) for value in re.findall(pattern, text, re.MULTILINE))


def progress_rows(store: Store, stage: str) -> list[dict[str, Any]]:
    import sqlalchemy as sa

    from shared.store import pair_progress

    with store.begin() as conn:
        statement = sa.select(pair_progress).where(pair_progress.c.stage == stage)
        return [dict(row._mapping) for row in conn.execute(statement)]
