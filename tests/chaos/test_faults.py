"""Faults on real services: killed workers, a Redis restart, PostgreSQL away for 30 s, poison
messages. Each run must end with every page pair in the store exactly once, matching the
embedded run of the same input."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from shared.config import Settings
from shared.delivery.celery_app import make_celery, task_name
from shared.delivery.pipeline import CelerySender
from shared.schemas import PagePair
from tests.chaos.conftest import (
    ALIGNMENT_STAGES,
    FAILURE_RETRIES,
    ChaosCluster,
    page_pairs,
)
from tests.chaos.faulty_worker import POISON_QUEUE
from tests.chaos.jobs import (
    assert_embedded_corpus,
    assert_same_export,
    assert_same_rows,
    completed,
    direct_store,
    embedded_rows,
    in_flight_pair_ids,
    metric_total,
    progress_rows,
    rows_of,
    submit,
    wait_for_job,
    wait_until,
)
from tests.integration.processes import PARAMINE, REPO, stop

pytestmark = pytest.mark.chaos
Row = tuple[str, str, str, str]


def test_killed_workers_lose_nothing_in_a_thousand_pair_run(
    chaos_cluster: ChaosCluster, tmp_path: Path
) -> None:
    cluster = chaos_cluster
    job_id = "chaos-kill"
    messages = submit(cluster, job_id, page_pairs(1_000, seed=1))
    client = cluster.redis_client()

    wait_until(lambda: completed(cluster, job_id) >= 150, 180, "150 pairs done")
    killed: set[str] = set()
    for _attempt in range(5):
        wait_until(lambda: client.hlen("unacked") > 0, 30, "a message in flight")
        for stage in ALIGNMENT_STAGES:
            cluster.kill_worker(stage)
        # With both workers dead, the unacked hash holds exactly what they held.
        killed = in_flight_pair_ids(cluster)
        # Restarted at once (as an orchestrator would): their restore sweeps put the dead
        # workers' unacked messages back on the queues once the visibility timeout has passed.
        for stage in ALIGNMENT_STAGES:
            cluster.start_worker(stage)
        if killed:
            break  # else both had just acked their message when they died: kill them again
    assert killed, "no message was in flight when the workers died (5 tries)"

    wait_for_job(cluster, job_id, len(messages), timeout=360)
    progress = direct_store(cluster)
    done = {row["pair_id"] for row in progress_rows(progress, "sentence_align")}
    assert killed <= done, "a message held by a killed worker was not redelivered"
    assert_same_rows(rows_of(progress, job_id), embedded_rows(job_id, messages, tmp_path))
    assert_same_export(cluster, job_id, tmp_path)
    assert progress.list_dead_letters(limit=10) == []


def test_a_sigterm_worker_mid_run_gives_the_embedded_corpus(
    chaos_cluster: ChaosCluster, tmp_path: Path
) -> None:
    """Scale-down as an orchestrator does it, with default settings (site learning on): a
    SIGTERM'd worker finishes its task, hands back what it had prefetched, and the restarted
    one does the rest; the exported corpus is byte for byte the embedded run's."""
    cluster = chaos_cluster
    job_id = "chaos-sigterm"
    messages = submit(cluster, job_id, page_pairs(300, seed=8))
    client = cluster.redis_client()
    wait_until(lambda: completed(cluster, job_id) >= 40, 180, "40 pairs done")
    wait_until(lambda: client.hlen("unacked") > 0, 30, "a message in flight")
    for stage in ALIGNMENT_STAGES:
        assert cluster.terminate_worker(stage) == 0, f"{stage} did not shut down cleanly"
    for stage in ALIGNMENT_STAGES:
        cluster.start_worker(stage)
    wait_for_job(cluster, job_id, len(messages), timeout=360)
    assert_embedded_corpus(cluster, job_id, messages, tmp_path)


def test_a_message_the_broker_lost_is_sent_again_by_the_reconciler(
    chaos_cluster: ChaosCluster, tmp_path: Path
) -> None:
    """The loss kombu cannot see (celery/kombu#305): a pair recorded at ingest whose message
    never reaches a worker. The tree_align worker's reconciler finds it (tracked, not done,
    nowhere in Redis) and sends it again; every pair then ends in the store exactly once."""
    cluster = chaos_cluster
    job_id = "chaos-lost"
    messages = [PagePair.model_validate({"job_id": job_id, **p}) for p in page_pairs(30, seed=7)]
    store = direct_store(cluster)
    lost = messages[:3]
    # Record all 30 as the gateway does, but put only 27 on the queue: 3 messages "lost".
    store.record_job(
        job_id,
        [(m.pair_id, m.src.url, m.tgt.url) for m in messages],
        "chaos",
        stage="tree_align",
        payloads={m.pair_id: m.model_dump_json() for m in messages},
    )
    sender = CelerySender(make_celery(Settings(redis_url=cluster.redis.url)))
    for message in messages[3:]:
        sender.send("tree_align", message)
    wait_for_job(cluster, job_id, len(messages), timeout=120)
    states = store.tracked_states(job_id)
    assert all(states[m.pair_id][1] == 2 for m in lost), "a lost pair was not sent once more"
    assert all(states[m.pair_id][1] == 1 for m in messages[3:]), "a delivered pair was resent"
    resent = metric_total(
        cluster.metrics["tree_align"], "paramine_pairs_resent_total", "tree_align"
    )
    assert resent >= len(lost)
    assert_same_rows(rows_of(store, job_id), embedded_rows(job_id, messages, tmp_path))
    assert_same_export(cluster, job_id, tmp_path)


def test_a_redis_restart_mid_run_loses_nothing(chaos_cluster: ChaosCluster, tmp_path: Path) -> None:
    cluster = chaos_cluster
    job_id = "chaos-redis"
    messages = submit(cluster, job_id, page_pairs(200, seed=2))
    wait_until(lambda: completed(cluster, job_id) >= 40, 120, "40 pairs done")
    cluster.redis.shutdown()
    time.sleep(2)
    cluster.redis.start()
    # Whatever a worker held when Redis went away is restored after the visibility timeout.
    for stage in ALIGNMENT_STAGES:
        if cluster.processes[stage].poll() is not None:
            cluster.start_worker(stage)
    wait_for_job(cluster, job_id, len(messages), timeout=240)
    assert_embedded_corpus(cluster, job_id, messages, tmp_path)


def test_postgres_away_for_thirty_seconds_is_retried_with_backoff(
    chaos_cluster: ChaosCluster, tmp_path: Path
) -> None:
    cluster = chaos_cluster
    job_id = "chaos-postgres"
    retried_before = {
        stage: metric_total(cluster.metrics[stage], "paramine_messages_retried_total", stage)
        for stage in ALIGNMENT_STAGES
    }
    messages = submit(cluster, job_id, page_pairs(200, seed=3))
    wait_until(lambda: completed(cluster, job_id) >= 30, 120, "30 pairs done")
    cluster.proxy.cut()
    time.sleep(30)
    cluster.proxy.restore()
    assert cluster.proxy.accepted_while_cut > 0, "no worker tried the database during the outage"
    wait_for_job(cluster, job_id, len(messages), timeout=240)

    retried = sum(
        metric_total(cluster.metrics[stage], "paramine_messages_retried_total", stage)
        - retried_before[stage]
        for stage in ALIGNMENT_STAGES
    )
    assert retried > 0
    store = direct_store(cluster)
    assert_same_rows(rows_of(store, job_id), embedded_rows(job_id, messages, tmp_path))
    assert [letter for letter in store.list_dead_letters() if letter["job_id"] == job_id] == []


def paramine(cluster: ChaosCluster, *args: str) -> str:
    env = {**cluster.env, "PARAMINE_DATABASE_URL": cluster.database_url}
    result = subprocess.run(
        [PARAMINE, "dead-letters", *args],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return result.stdout


def in_flight(metrics_dir: Path) -> float:
    """``paramine_in_flight`` summed over a worker's live processes (its multiprocess files)."""
    from prometheus_client import CollectorRegistry
    from prometheus_client.multiprocess import MultiProcessCollector

    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(metrics_dir))  # type: ignore[no-untyped-call]
    return sum(
        sample.value
        for metric in registry.collect()
        if metric.name == "paramine_in_flight"
        for sample in metric.samples
    )


def test_poison_messages_are_dead_lettered_after_their_retries_while_the_rest_complete(
    chaos_cluster: ChaosCluster, tmp_path: Path
) -> None:
    """An unexpected failure is retried FAILURE_RETRIES times with backoff, then dead-lettered
    with its reason and attempt count; an invalid page is dead-lettered at once; a task killed
    at the hard time limit is dead-lettered by the consumer; good pairs flow meanwhile;
    ``paramine dead-letters list|retry|purge`` manage the letters."""
    cluster = chaos_cluster
    store = direct_store(cluster)
    job_id = "chaos-poison"
    good = page_pairs(50, seed=4)
    # (1) a valid page pair on the queue of a worker whose handler always raises (a bug);
    bug = PagePair.model_validate({"job_id": "chaos-poison-bug", **page_pairs(1, seed=5)[0]})
    store.record_job(bug.job_id, [(bug.pair_id, bug.src.url, bug.tgt.url)], "chaos")
    # (2) a valid envelope whose page is binary garbage: the real handler refuses it.
    garbage = {**good[0], "src": {**good[0]["src"], "url": "https://chaos.example/poison"}}
    garbage["src"]["html"] = "\x00\x01\x02" * 100
    garbage_message = PagePair.model_validate({"job_id": "chaos-poison-garbage", **garbage})
    # (3) a page pair on which the faulty handler ignores its soft limit: killed at the hard one.
    stuck_pair = page_pairs(1, seed=6)[0]
    stuck_pair["src"] = {**stuck_pair["src"], "url": "https://chaos.example/stuck"}
    stuck = PagePair.model_validate({"job_id": "chaos-poison-stuck", **stuck_pair})

    faulty_log = cluster.logs / "faulty-worker.log"
    faulty_metrics = tmp_path / "faulty-metrics"
    faulty_metrics.mkdir()
    faulty_env = {
        **cluster.env,
        "PARAMINE_QUEUE__SOFT_TIME_LIMIT": "2",
        "PARAMINE_QUEUE__HARD_TIME_LIMIT": "4",
        "PROMETHEUS_MULTIPROC_DIR": str(faulty_metrics),
    }
    faulty = subprocess.Popen(
        [sys.executable, "-m", "tests.chaos.faulty_worker"], env=faulty_env, cwd=REPO,
        stdout=faulty_log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        app = make_celery(Settings(redis_url=cluster.redis.url))
        for poison in (bug, stuck):
            app.send_task(
                task_name("tree_align"), args=[poison.model_dump(mode="json")], queue=POISON_QUEUE
            )
        CelerySender(app).send("tree_align", garbage_message)
        messages = submit(cluster, job_id, good)
        wait_for_job(cluster, job_id, len(messages), timeout=180)
        assert_same_rows(rows_of(store, job_id), embedded_rows(job_id, messages, tmp_path))

        def letters() -> dict[str, dict[str, Any]]:
            return {
                row["job_id"]: row
                for row in store.list_dead_letters(limit=1_000)
                if row["job_id"] in {bug.job_id, garbage_message.job_id, stuck.job_id}
            }

        wait_until(lambda: len(letters()) == 3, 120, "the poison messages dead-lettered")
        # the pool process killed at the hard limit ran no shutdown hook: its in-flight gauge
        # must not stay counted while the worker lives on (it did until a restart)
        assert in_flight(faulty_metrics) == 0
    finally:
        stop(faulty)
    by_job = letters()
    bug_letter, garbage_letter = by_job[bug.job_id], by_job[garbage_message.job_id]
    assert bug_letter["stage"] == "tree_align" and bug_letter["error_type"] == "RuntimeError"
    assert "injected fault" in bug_letter["reason"]
    assert bug_letter["attempts"] == FAILURE_RETRIES + 1
    log = faulty_log.read_text(errors="replace")
    assert log.count("tree_align failed (attempt") == FAILURE_RETRIES
    assert "tree_align gives up on a message after 3 attempts" in log
    assert garbage_letter["error_type"] == "InvalidInput" and "binary" in garbage_letter["reason"]
    assert garbage_letter["attempts"] == 1  # never retried
    assert completed(cluster, bug.job_id) == 0
    stuck_letter = by_job[stuck.job_id]
    assert stuck_letter["error_type"] == "TimeLimitExceeded"
    assert "hard time limit" in stuck_letter["reason"] and stuck_letter["attempts"] == 1

    listed = paramine(cluster, "list", "--stage", "tree_align")
    for letter in (bug_letter, garbage_letter):
        assert letter["id"] in listed and letter["error_type"] in listed

    # The bug "fixed" (the real tree_align worker takes the retried message): it completes.
    assert json.loads(paramine(cluster, "retry", bug_letter["id"]))["retried"] == 1
    wait_for_job(cluster, bug.job_id, 1, timeout=120)
    assert bug.job_id not in letters()
    # The invalid page fails again and comes back as the same dead letter (content-keyed).
    assert json.loads(paramine(cluster, "retry", garbage_letter["id"]))["retried"] == 1
    wait_until(
        lambda: garbage_message.job_id in letters(), 60, "the retried garbage dead-lettered again"
    )
    assert letters()[garbage_message.job_id]["id"] == garbage_letter["id"]

    assert "purged 2" in paramine(cluster, "purge", garbage_letter["id"], stuck_letter["id"])
    assert letters() == {}
    assert garbage_letter["id"] not in paramine(cluster, "list")
