"""End to end on real services: gateway over HTTP, a Celery worker per stage, Redis, PostgreSQL."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import sqlalchemy as sa

from services.sentence_align.classifier.pair_threshold import default_threshold
from shared.intake.inputs import pairs_from_html_dir
from shared.store import SentencePairQuery, Store
from tests.integration.conftest import STAGES, Cluster
from tests.integration.processes import PARAMINE, REPO
from tests.unit.gateway.test_routes import MOBILE_BODY, WEB_BODY

pytestmark = pytest.mark.integration
SAMPLES = REPO / "samples" / "crawl"
KEY = {"X-API-Key": "test-ingest-key"}


def sample_pairs() -> list[dict[str, Any]]:
    return [
        {"kind": source.kind, "src": source.src.model_dump(), "tgt": source.tgt.model_dump()}
        for source in pairs_from_html_dir(SAMPLES)
    ]


def wait_for_job(cluster: Cluster, job_id: str, timeout: float = 240.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    status: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status = httpx.get(f"{cluster.gateway}/v1/jobs/{job_id}", timeout=10).json()
        if status.get("state") in {"done", "done-with-errors"}:
            return status
        time.sleep(0.5)
    raise TimeoutError(f"job {job_id} not done after {timeout} s: {status}")


def wait_for_idle_queues(cluster: Cluster, timeout: float = 120.0) -> None:
    """Wait until every stage queue is empty and no worker holds a message."""
    client = redis.Redis.from_url(cluster.env["PARAMINE_REDIS_URL"])
    deadline = time.monotonic() + timeout
    quiet_since: float | None = None
    while time.monotonic() < deadline:
        waiting = sum(client.llen(f"paramine.{stage}") for stage in STAGES)
        unacked = client.hlen("unacked")
        if waiting == 0 and unacked == 0:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 2.0:
                return
        else:
            quiet_since = None
        time.sleep(0.2)
    raise TimeoutError("queues did not drain")


def send_to_tree_align(cluster: Cluster, message: Any) -> None:
    """Put ``message`` on the tree_align queue as it is, then wait until it has been handled."""
    from celery import Celery

    app = Celery(broker=cluster.env["PARAMINE_REDIS_URL"], set_as_current=False)
    app.send_task("paramine.tree_align.process", args=[message], queue="paramine.tree_align")
    wait_for_idle_queues(cluster)


def stored_pairs(database_url: str, job_id: str) -> set[tuple[str, str, str, str]]:
    every = SentencePairQuery(job_id=job_id, limit=100_000, flagged=True, duplicates=True)
    rows = Store(database_url).list_sentence_pairs(every)  # every stored row
    return {(row.id, row.src_text, row.tgt_text, row.bead) for row in rows}


def table_counts(database_url: str) -> dict[str, int]:
    """Row counts of every table in the store, the stages' own tables included."""
    engine = Store(database_url).engine
    with engine.connect() as conn:
        names = sa.inspect(conn).get_table_names()
        return {
            name: int(conn.scalar(sa.select(sa.func.count()).select_from(sa.table(name))) or 0)
            for name in names
        }


def test_gateway_pairs_land_in_postgres_and_match_embedded_mode(
    cluster: Cluster, tmp_path: Path
) -> None:
    response = httpx.post(
        f"{cluster.gateway}/v1/page-pairs", json={"pairs": sample_pairs()}, headers=KEY, timeout=60
    )
    assert response.status_code == 202, response.text
    accepted = response.json()
    assert accepted["accepted"] == 4 and accepted["refused"] == []
    status = wait_for_job(cluster, accepted["job_id"])
    assert status["state"] == "done", status
    assert status["completed"] == 4 and status["sentence_pairs"] > 0
    distributed = stored_pairs(cluster.env["PARAMINE_DATABASE_URL"], accepted["job_id"])
    letters = Store(cluster.env["PARAMINE_DATABASE_URL"]).list_dead_letters(limit=1_000)
    assert [letter["reason"] for letter in letters if letter["job_id"] == accepted["job_id"]] == []
    assert len(distributed) == status["sentence_pairs"]

    sqlite_url = f"sqlite:///{tmp_path / 'embedded.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARAMINE_")}
    env["PARAMINE_DATABASE_URL"] = sqlite_url
    result = subprocess.run(
        [PARAMINE, "process", str(SAMPLES), "--out", str(tmp_path / "out"), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        cwd=REPO,
    )
    report = json.loads(result.stdout)
    assert report["job_id"] == accepted["job_id"]
    assert stored_pairs(sqlite_url, accepted["job_id"]) == distributed
    exported = (tmp_path / "out" / "sentence_pairs.jsonl").read_text(encoding="utf-8").splitlines()
    # out/ holds the corpus view (distinct, unflagged pairs), the same on PostgreSQL
    corpus = Store(cluster.env["PARAMINE_DATABASE_URL"]).list_sentence_pairs(
        SentencePairQuery(
            job_id=accepted["job_id"], limit=100_000, default_min_score=default_threshold()
        )
    )
    assert {json.loads(line)["id"] for line in exported} == {row.id for row in corpus}
    assert {row.id for row in corpus} <= {row[0] for row in distributed}


def test_resubmission_and_redelivery_create_no_duplicates(cluster: Cluster) -> None:
    from celery import Celery

    from services.tree_align.handler import chunk_pairs
    from shared.schemas import PagePair

    database_url = cluster.env["PARAMINE_DATABASE_URL"]
    body = {"pairs": sample_pairs()}
    first = httpx.post(
        f"{cluster.gateway}/v1/page-pairs", json=body, headers=KEY, timeout=60
    ).json()
    wait_for_job(cluster, first["job_id"])
    wait_for_idle_queues(cluster)
    before = table_counts(database_url)
    again = httpx.post(
        f"{cluster.gateway}/v1/page-pairs", json=body, headers=KEY, timeout=60
    ).json()
    assert again["job_id"] == first["job_id"]
    wait_for_idle_queues(cluster)
    assert table_counts(database_url) == before

    # Redeliver the same sentence_align message twice, straight onto its queue.
    message = PagePair.model_validate({"job_id": first["job_id"], **body["pairs"][3]})
    chunks = chunk_pairs(message).model_dump(mode="json")
    app = Celery(broker=cluster.env["PARAMINE_REDIS_URL"], set_as_current=False)
    for _ in range(2):
        app.send_task(
            "paramine.sentence_align.process", args=[chunks], queue="paramine.sentence_align"
        )
    wait_for_idle_queues(cluster)
    assert table_counts(database_url) == before


def test_bad_inputs_end_as_clear_errors_while_the_batch_completes(cluster: Cluster) -> None:
    database_url = cluster.env["PARAMINE_DATABASE_URL"]
    good = sample_pairs()[0]
    good = {**good, "src": {**good["src"], "url": "https://example.org/en/fresh"}}
    malformed_page = {
        **good,
        "src": {
            **good["src"],
            "url": "https://example.org/en/garbage",
            "html": "\x00\x01\x02" * 50,
        },
    }
    bad_schema = {
        "kind": "translation",
        "src": {"url": "x", "html": "<p>no language</p>"},
        "tgt": good["tgt"],
    }
    response = httpx.post(
        f"{cluster.gateway}/v1/page-pairs",
        json={"pairs": [good, malformed_page, bad_schema]},
        headers=KEY,
        timeout=60,
    )
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["accepted"] == 2
    assert len(body["refused"]) == 1 and "lang" in body["refused"][0]
    status = wait_for_job(cluster, body["job_id"])
    assert status["completed"] == 1 and status["failed"] == 1 and status["sentence_pairs"] > 0

    # A message with a bad schema put straight on a queue is dead-lettered with its reason.
    send_to_tree_align(cluster, {"job_id": "j1", "src": 3})
    letters = Store(database_url).list_dead_letters(limit=1_000)
    reasons = {letter["stage"]: letter["reason"] for letter in letters}
    assert any(
        "does not match schema" in letter["reason"] and letter["stage"] == "tree_align"
        for letter in letters
    )
    assert "ingest" in reasons and "lang" in reasons["ingest"]
    garbage = [letter for letter in letters if "garbage" in letter["payload"]]
    assert len(garbage) == 1 and garbage[0]["error_type"] in {"InvalidInput", "InputTooLarge"}

    too_big = httpx.post(
        f"{cluster.gateway}/v1/page-pairs",
        content=b"x" * 2_100_000,
        headers={**KEY, "content-type": "application/json"},
    )
    assert too_big.status_code == 413 and "limit" in too_big.json()["detail"]
    malformed = httpx.post(
        f"{cluster.gateway}/v1/page-pairs",
        content=b"{not json",
        headers={**KEY, "content-type": "application/json"},
    )
    assert malformed.status_code == 422
    unauthorised = httpx.post(f"{cluster.gateway}/v1/page-pairs", json={"pairs": [good]})
    assert unauthorised.status_code == 401


def test_nul_characters_are_refused_stored_or_dead_lettered_never_lost(cluster: Cluster) -> None:
    """PostgreSQL text holds no NUL. An article batch whose text held one was accepted and
    then lost all its sentence pairs; a message a worker could not read whose job id held
    one was acked with no dead letter; a NUL in a filter was a 500."""
    database_url = cluster.env["PARAMINE_DATABASE_URL"]
    web = WEB_BODY.replace("大雪となった", "大雪\x00となった")
    batch = {
        "job_id": "articles-with-nul",
        "web": [{"id": "w1", "date": "2026-01-12", "title": "東北で大雪、交通に影響",
                 "body": web, "keywords": ["大雪", "東北", "新幹線", "通行止め"],
                 "url": "https://news.example.jp?session=" + "s" * 300}],
        "mobile": [{"id": "m1", "date": "2026-01-12", "body": MOBILE_BODY}],
    }  # fmt: skip
    response = httpx.post(f"{cluster.gateway}/v1/articles", json=batch, headers=KEY, timeout=60)
    assert response.status_code == 202, response.text
    status = wait_for_job(cluster, "articles-with-nul")
    assert status["state"] == "done" and status["sentence_pairs"] > 0, status
    rows = Store(database_url).list_sentence_pairs(SentencePairQuery(job_id="articles-with-nul"))
    assert {row.site for row in rows} == {"news.example.jp"}  # not the query string

    send_to_tree_align(cluster, {"job_id": "nul\x00job", "src": 3})
    letters = Store(database_url).list_dead_letters(stage="tree_align", limit=1_000)
    assert any(letter["job_id"] == "nul\ufffdjob" for letter in letters)

    for path in (
        "/v1/jobs/a%00b",
        "/v1/sentence-pairs?job=a%00b",
        "/v1/exports/sentence-pairs?job=a%00b",
    ):
        answer = httpx.get(f"{cluster.gateway}{path}", timeout=10)
        assert answer.status_code == 422, (path, answer.text)


def test_metrics_show_per_stage_counters(cluster: Cluster) -> None:
    # a single page through the gateway, so that page_match has counted a message whatever
    # ran before this test (the tests above send page pairs, which skip it)
    page = {"url": f"https://metrics-{uuid.uuid4().hex[:8]}.example/en/a.html", "html": "<p>Hi</p>"}
    response = httpx.post(
        f"{cluster.gateway}/v1/pages", json={"pages": [page]}, headers=KEY, timeout=60
    )
    assert response.status_code == 202, response.text
    deadline = time.monotonic() + 120
    done = 'paramine_stage_latency_seconds_count{stage="page_match"}'
    while done not in httpx.get(cluster.worker_metrics["page_match"], timeout=10).text:
        assert time.monotonic() < deadline, "page_match handled no message within 120 s"
        time.sleep(0.5)
    gateway = httpx.get(f"{cluster.gateway}/metrics", timeout=10).text
    assert _sample(gateway, "paramine_messages_in_total", "gateway") > 0
    assert 'paramine_queue_depth{queue="paramine.tree_align"} 0.0' in gateway
    for stage in STAGES:
        text = httpx.get(cluster.worker_metrics[stage], timeout=10).text
        assert _sample(text, "paramine_messages_in_total", stage) > 0, stage
        assert f'paramine_stage_latency_seconds_count{{stage="{stage}"}}' in text
        # every message carries its publish time: the stage's queue wait is measured
        assert _sample(text, "paramine_queue_wait_seconds_count", stage) > 0, stage
    failed = httpx.get(cluster.worker_metrics["tree_align"], timeout=10).text
    assert _sample(failed, "paramine_messages_failed_total", "tree_align") >= 2


def _sample(text: str, name: str, stage: str) -> float:
    total = 0.0
    for match in re.finditer(rf"^{name}\{{([^}}]*)\}} (\S+)$", text, re.MULTILINE):
        if f'stage="{stage}"' in match.group(1):
            total += float(match.group(2))
    return total
