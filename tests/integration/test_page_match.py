"""Single pages through real workers: a page and its translation sent in different jobs become
one page pair and its sentence pairs (Redis, PostgreSQL, every stage's worker, the gateway)."""

from __future__ import annotations

import time
import uuid

import pytest

from services.page_match import repository
from shared.config import Settings
from shared.delivery.celery_app import make_celery
from shared.delivery.pipeline import CelerySender
from shared.schemas import CrawledPages, Page
from shared.store import Store
from tests.integration.conftest import Cluster
from tests.integration.test_pipeline import wait_for_job
from tests.unit.page_match.test_handler import ENGLISH, GERMAN, check_third_language_arriving_later

pytestmark = pytest.mark.integration


def _send(cluster: Cluster, job_id: str, url: str, html: str) -> None:
    sender = CelerySender(make_celery(Settings(redis_url=cluster.env["PARAMINE_REDIS_URL"])))
    message = CrawledPages(job_id=job_id, pages=[Page(url=url, lang="und", html=html)])
    sender.send_payload("page_match", message.model_dump(mode="json"))


def test_a_page_waits_in_the_store_for_its_translation_from_another_job(
    cluster: Cluster,
) -> None:
    site = f"bridge-{uuid.uuid4().hex[:8]}.example"
    store = Store(cluster.env["PARAMINE_DATABASE_URL"])
    english, german = f"https://{site}/en/rhine.html", f"https://{site}/de/rhine.html"
    _send(cluster, f"{site}-1", english, ENGLISH)
    deadline = time.monotonic() + 120
    while not any(p.features.url == english for p in _stored(store, site)):
        assert time.monotonic() < deadline, "the first page was not stored within 120 s"
        time.sleep(0.5)
    assert repository.current_matches(store.engine, site) == []  # it waits
    _send(cluster, f"{site}-2", german, GERMAN)
    deadline = time.monotonic() + 120
    while not repository.current_matches(store.engine, site):
        assert time.monotonic() < deadline, "no page pair within 120 s"
        time.sleep(0.5)
    status = wait_for_job(cluster, f"{site}-2")
    assert status["pairs"] == 1 and status["sentence_pairs"] >= 2
    (match,) = repository.current_matches(store.engine, site)
    assert {match["src_url"], match["tgt_url"]} == {english, german}


def _stored(store: Store, site: str) -> list[repository.StoredPage]:
    repository.ensure_schema(store.engine)
    with store.engine.connect() as conn:
        return repository.site_pages(conn, site)


def test_a_third_language_arriving_later_pairs_with_paired_pages_on_postgresql(
    postgres_url: str,
) -> None:
    """The handler's partner-language query and the site lock on PostgreSQL (the unit test
    runs the same flow on SQLite)."""
    check_third_language_arriving_later(
        Store(postgres_url), host=f"bridge-{uuid.uuid4().hex[:8]}.example"
    )
