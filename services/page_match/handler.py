"""page_match stage handler: single crawled pages in, page pairs out to tree_align.

Each page is stored (``repository``) until its counterpart arrives, in this job or any later
one; in every site that gained or changed a page, the pages in no pair (and a changed page,
whose old pair is superseded) are matched again (``matching.match_site``) under the site's
lock, with the pairs of at most CONTEXT_PAGES paired pages: they give the site's statistics,
and their pairs found by content compete again (a page paired before its twin arrived gets
it; a third language arriving later pairs with them), while pairs found by URL stand. The
page pairs found for the first time are recorded in this message's job and sent to
tree_align (a new pair supersedes its pages' pairs in the same language pair: a page pairs
with one page of each other language, ``repository.supersede_same_language_pair``). A
redelivered message finds its pages stored already and matches nothing anew, but sends the
pairs this job found again (tree_align keys its work by the pair's content, so a second
delivery changes nothing): a worker killed between commit and send loses no pair. A page
that cannot be read becomes a dead letter with its reason; the rest go on.
"""

from __future__ import annotations

import time
from collections import defaultdict

import sqlalchemy as sa

from services.page_match import repository
from services.page_match.features import PageFeatures, page_features
from services.page_match.matching import match_site
from shared.delivery.pipeline import Outgoing
from shared.errors import InvalidInput
from shared.ids import content_id
from shared.metrics import stage_metrics
from shared.schemas import CrawledPages, Page, PagePair
from shared.store import Store

WAITING_TOO_LONG = 7 * 86_400.0  # seconds: a page still unpaired after a week is reported
# Paired pages read with a site's open pages: enough for the IDF weights, the boilerplate and
# the length ratio of a site, few enough that a message's work stays bounded on a large one.
CONTEXT_PAGES = 400


def handle(message: CrawledPages, store: Store) -> list[Outgoing]:
    """Store the pages, match their sites again, send the new page pairs on."""
    store.ensure_schema()
    repository.ensure_schema(store.engine)
    by_site: dict[str, list[tuple[PageFeatures, str]]] = defaultdict(list)
    for page in message.pages:
        declared = None if page.lang == "und" else page.lang
        try:
            features = page_features(page.url, page.html, declared)
        except InvalidInput as error:
            store.record_dead_letter(
                stage="page_match",
                # the page's digest too: pages without a URL of their own are each kept
                payload={
                    "job_id": message.job_id,
                    "url": page.url[:2_000],
                    "page": content_id(page.url, page.html, prefix="pg"),
                },
                error_type=error.__class__.__name__,
                reason=f"{page.url[:200]}: {error}",
                attempts=1,
                job_id=message.job_id,
            )
            continue
        by_site[features.host].append((features, page.html))
    pairs: list[PagePair] = []
    now = time.time()
    metrics = stage_metrics()
    matched_again = False
    for site, items in sorted(by_site.items()):
        with store.begin() as conn:
            repository.lock_site(conn, site)
            changed = [
                repository.save_page(conn, features, html, message.job_id, now)
                for features, html in items
            ]
            if any(changed):
                matched_again = True
                renewed = [
                    features.url for (features, _), c in zip(items, changed, strict=True) if c
                ]
                changed_pairs = repository.supersede_pairs_of(conn, site, renewed, now)
                metrics.page_pairs_superseded.labels("changed").inc(changed_pairs)
                # the site's open pages are matched; a bounded sample of its paired pages
                # gives the statistics, so a message's work does not grow with the site
                open_pages = repository.open_site_pages(conn, site)
                context = repository.paired_site_pages(conn, site, CONTEXT_PAGES)
                context += repository.partner_pages(conn, site, context)
                stored = open_pages + context
                digests = {page.features.url: page.features.digest for page in stored}
                # pairs found by URL stand; pairs found by content compete again with the
                # newcomers (a page paired early, when its twin had not arrived, gets it)
                partners = repository.partner_languages(
                    conn, site, [page.features.url for page in context], found_by="url"
                )
                found = match_site([page.features for page in stored], partners=partners)
                new, replaced = repository.add_matches(
                    conn, site, found, digests, message.job_id, now
                )
                metrics.page_pairs_superseded.labels("better").inc(replaced)
                for match in new:
                    metrics.pages_matched.labels(match.by).inc()
            pairs += _job_pairs(conn, site, message.job_id)
    if matched_again:  # the counts change only with a new or changed page
        metrics.pages_waiting.labels("any").set(repository.waiting_pages(store.engine))
        metrics.pages_waiting.labels("over_7_days").set(
            repository.waiting_pages(store.engine, received_before=now - WAITING_TOO_LONG)
        )
    if pairs:
        store.record_job(
            message.job_id,
            [(pair.pair_id, pair.src.url, pair.tgt.url) for pair in pairs],
            "page_match",
        )
    if message.batch_id is not None:  # after the job's pairs: it is never "done" in between
        store.settle_page_batch(message.batch_id)
    return [("tree_align", pair) for pair in pairs]


def _job_pairs(conn: sa.Connection, site: str, job_id: str) -> list[PagePair]:
    """The site's current page pairs found by this job, as tree_align messages."""
    table = repository.page_matches
    rows = conn.execute(
        sa.select(table).where(
            table.c.site == site, table.c.job_id == job_id, table.c.superseded_at.is_(None)
        )
    ).all()
    if not rows:
        return []
    pages = repository.pages_by_key(conn, {key for r in rows for key in (r.src_key, r.tgt_key)})
    result = []
    for row in rows:
        src, tgt = pages.get(row.src_key), pages.get(row.tgt_key)
        if src is None or tgt is None:
            continue
        result.append(
            PagePair(
                job_id=job_id,
                kind=row.kind,
                src=Page(url=row.src_url, lang=row.src_lang, html=src),
                tgt=Page(url=row.tgt_url, lang=row.tgt_lang, html=tgt),
            )
        )
    return result
