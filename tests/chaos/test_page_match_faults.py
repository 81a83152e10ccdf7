"""kill -9 of the page_match worker mid-run loses no page: every page is stored and every
page pair found, with the pages sent one message each (real Redis, PostgreSQL, workers)."""

from __future__ import annotations

import random

import pytest

from services.page_match import repository
from shared.config import Settings
from shared.delivery.celery_app import make_celery
from shared.delivery.pipeline import CelerySender
from shared.schemas import CrawledPages, Page
from tests.chaos.conftest import ChaosCluster, page_pairs
from tests.chaos.jobs import direct_store, wait_until

pytestmark = pytest.mark.chaos
SEED = 77


def test_a_killed_page_match_worker_loses_no_page(chaos_cluster: ChaosCluster) -> None:
    cluster = chaos_cluster
    cluster.start_worker("page_match")
    pairs = page_pairs(150, seed=SEED)
    pages = [(number, pair[side]) for number, pair in enumerate(pairs) for side in ("src", "tgt")]
    random.Random(SEED).shuffle(pages)
    sender = CelerySender(make_celery(Settings(redis_url=cluster.redis.url)))
    for number, page in pages:
        message = CrawledPages(job_id=f"chaos-pages-{number}", pages=[Page.model_validate(page)])
        sender.send_payload("page_match", message.model_dump(mode="json"))
    store = direct_store(cluster)
    client = cluster.redis_client()
    killed = False
    for _attempt in range(5):
        wait_until(lambda: client.hlen("unacked") > 0, 60, "a message in flight")
        held = [value for value in client.hvals("unacked") if b"chaos-pages-" in value]
        cluster.kill_worker("page_match")
        cluster.start_worker("page_match")
        if held:
            killed = True
            break
    assert killed, "no page_match message was in flight when the worker died (5 tries)"

    expected = {(pair["src"]["url"], pair["tgt"]["url"]) for pair in pairs}

    def found() -> set[tuple[str, str]]:
        rows = repository.current_matches(store.engine, f"chaos-{SEED}.example")
        return {(r["src_url"], r["tgt_url"]) for r in rows if r["src_url"].count(f"/{SEED}/")}

    wait_until(lambda: found() == expected, 300, "every page pair found")
    assert repository.waiting_pages(store.engine) == 0 or all(
        f"/{SEED}/" not in url for url in _waiting_urls(store)
    )
    assert [row for row in store.list_dead_letters(limit=100) if row["stage"] == "page_match"] == []


def _waiting_urls(store: object) -> list[str]:
    import sqlalchemy as sa

    engine = store.engine  # type: ignore[attr-defined]
    paired = {
        url
        for row in repository.current_matches(engine)
        for url in (row["src_url"], row["tgt_url"])
    }
    with engine.connect() as conn:
        urls = [r.url for r in conn.execute(sa.select(repository.crawled_pages.c.url))]
    return [url for url in urls if url not in paired]
