"""Persistence of the page_match stage: crawled pages waiting for their counterparts, and the
page pairs found among them.

A page is keyed by its URL (a hash of it: URLs run to 4,096 characters). Storing it again with
the same text, links and images (its ``digest``) changes nothing; with another digest it
replaces the stored page, its pair is superseded and it is matched again. Matching reads the
site's open pages (in no current pair) and a bounded sample of its paired ones with their
partners (:func:`paired_site_pages`, :func:`partner_pages`), never the whole site. A page
pair is marked superseded (never deleted) when one of its pages changes or is paired anew, so
what was sent on stays explained.

Matching a site reads and writes under a lock on the site (PostgreSQL advisory lock; SQLite
writes one at a time anyway), so two page_match workers never match one site at once.
Tables live in this module's own ``MetaData``; every function takes an ``Engine``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import sqlalchemy as sa

from services.page_match.features import PageFeatures
from services.page_match.matching import PageMatch
from shared.store import JobStatus, create_tables_once

metadata = sa.MetaData()

crawled_pages = sa.Table(
    "crawled_pages",
    metadata,
    sa.Column("url_key", sa.String(64), primary_key=True),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("site", sa.String(255), nullable=False, index=True),
    sa.Column("lang", sa.String(16), nullable=False),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("features", sa.Text, nullable=False),
    sa.Column("html", sa.Text, nullable=False),
    sa.Column("job_id", sa.String(64), nullable=False),
    sa.Column("received_at", sa.Float, nullable=False),
)

page_matches = sa.Table(
    "page_matches",
    metadata,
    sa.Column("src_key", sa.String(64), primary_key=True),
    sa.Column("tgt_key", sa.String(64), primary_key=True),
    sa.Column("src_digest", sa.String(64), primary_key=True),
    sa.Column("tgt_digest", sa.String(64), primary_key=True),
    sa.Column("site", sa.String(255), nullable=False, index=True),
    sa.Column("src_url", sa.Text, nullable=False),
    sa.Column("tgt_url", sa.Text, nullable=False),
    sa.Column("src_lang", sa.String(16), nullable=False),
    sa.Column("tgt_lang", sa.String(16), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("score", sa.Float, nullable=False),
    sa.Column("found_by", sa.String(16), nullable=False),
    sa.Column("job_id", sa.String(64), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("superseded_at", sa.Float, nullable=True),
)


def ensure_schema(engine: sa.Engine) -> None:
    """Create this stage's tables when missing (safe for concurrent callers), once per engine."""
    create_tables_once(engine, metadata)


def url_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class StoredPage:
    """A crawled page as stored for matching: its features and the job that delivered it
    (the HTML stays in the store until a pair needs it)."""

    features: PageFeatures
    job_id: str
    received_at: float


def lock_site(conn: sa.Connection, site: str) -> None:
    """Hold the site's lock until the transaction ends (PostgreSQL; SQLite serialises writes)."""
    if conn.dialect.name == "postgresql":
        key = int.from_bytes(hashlib.sha256(site.encode("utf-8")).digest()[:8], "big", signed=True)
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(key)))


def save_page(
    conn: sa.Connection, features: PageFeatures, html: str, job_id: str, now: float
) -> bool:
    """Store a page; False when it is stored already with the same digest (nothing changed)."""
    key = url_key(features.url)
    found = conn.execute(
        sa.select(crawled_pages.c.digest).where(crawled_pages.c.url_key == key)
    ).first()
    if found is not None and found.digest == features.digest:
        return False
    row: dict[str, Any] = {
        "url": features.url,
        "site": features.host[:255],
        "lang": features.lang[:16],
        "digest": features.digest,
        "features": json.dumps(features.to_json(), ensure_ascii=False),
        "html": html,
        "job_id": job_id,
        "received_at": now,
    }
    if found is None:
        conn.execute(crawled_pages.insert().values(url_key=key, **row))
    else:
        conn.execute(crawled_pages.update().where(crawled_pages.c.url_key == key).values(**row))
    return True


def site_pages(conn: sa.Connection, site: str) -> list[StoredPage]:
    """Every stored page of the site."""
    return _stored_pages(
        conn,
        sa.select(
            crawled_pages.c.features, crawled_pages.c.job_id, crawled_pages.c.received_at
        ).where(crawled_pages.c.site == site),
    )


def pages_by_key(conn: sa.Connection, keys: set[str]) -> dict[str, str]:
    """The stored HTML of the pages with these URL keys."""
    if not keys:
        return {}
    rows = conn.execute(
        sa.select(crawled_pages.c.url_key, crawled_pages.c.html).where(
            crawled_pages.c.url_key.in_(sorted(keys))
        )
    )
    return {r.url_key: r.html for r in rows}


def _match_key(match: PageMatch, digests: dict[str, str]) -> tuple[str, str, str, str]:
    return (
        url_key(match.src_url),
        url_key(match.tgt_url),
        digests[match.src_url],
        digests[match.tgt_url],
    )


def _current_pair_keys(site: str) -> sa.Subquery:
    current = sa.and_(page_matches.c.site == site, page_matches.c.superseded_at.is_(None))
    return sa.union(
        sa.select(page_matches.c.src_key.label("key")).where(current),
        sa.select(page_matches.c.tgt_key.label("key")).where(current),
    ).subquery()


def _stored_pages(conn: sa.Connection, statement: sa.Select[Any]) -> list[StoredPage]:
    return [
        StoredPage(PageFeatures.from_json(json.loads(r.features)), r.job_id, r.received_at)
        for r in conn.execute(statement)
    ]


def open_site_pages(conn: sa.Connection, site: str) -> list[StoredPage]:
    """The site's pages in no current page pair: those still waiting for a counterpart."""
    in_pair = crawled_pages.c.url_key.in_(sa.select(_current_pair_keys(site).c.key))
    return _stored_pages(
        conn, _site_select(site, sa.not_(in_pair)).order_by(crawled_pages.c.url_key)
    )


def paired_site_pages(conn: sa.Connection, site: str, limit: int) -> list[StoredPage]:
    """At most ``limit`` of the site's pages in a current pair, the latest received first."""
    in_pair = crawled_pages.c.url_key.in_(sa.select(_current_pair_keys(site).c.key))
    latest = (crawled_pages.c.received_at.desc(), crawled_pages.c.url_key)
    return _stored_pages(conn, _site_select(site, in_pair).order_by(*latest).limit(limit))


def partner_languages(
    conn: sa.Connection, site: str, urls: Sequence[str], found_by: str | None = None
) -> dict[str, frozenset[str]]:
    """For each of these URLs in a current pair of the site (found by ``found_by``, if
    given: "url" or "content"), its partners' languages."""
    return {
        url: frozenset(lang for lang, _ in found)
        for url, found in _current_partners(conn, site, urls, found_by).items()
    }


def partner_pages(conn: sa.Connection, site: str, pages: Sequence[StoredPage]) -> list[StoredPage]:
    """The current partners of these pages that are not among them (a pair's two pages are
    read together, so a matching can weigh the pair against a newcomer)."""
    urls = {page.features.url for page in pages}
    partners = _current_partners(conn, site, sorted(urls))
    missing = sorted(
        {url_key(other) for found in partners.values() for _, other in found}
        - {url_key(url) for url in urls}
    )
    if not missing:
        return []
    return _stored_pages(
        conn,
        _site_select(site, crawled_pages.c.url_key.in_(missing)).order_by(crawled_pages.c.url_key),
    )


def _current_partners(
    conn: sa.Connection, site: str, urls: Sequence[str], found_by: str | None = None
) -> dict[str, set[tuple[str, str]]]:
    # URL -> (partner's language, partner's URL) of its current pairs
    keys = {url_key(url): url for url in urls}
    if not keys:
        return {}
    table = page_matches
    condition = sa.and_(
        table.c.site == site,
        table.c.superseded_at.is_(None),
        sa.or_(table.c.src_key.in_(sorted(keys)), table.c.tgt_key.in_(sorted(keys))),
    )
    if found_by is not None:
        condition = sa.and_(condition, table.c.found_by == found_by)
    rows = conn.execute(
        sa.select(
            table.c.src_key, table.c.tgt_key, table.c.src_lang, table.c.tgt_lang,
            table.c.src_url, table.c.tgt_url,
        ).where(condition)
    )  # fmt: skip
    found: dict[str, set[tuple[str, str]]] = {}
    for row in rows:
        for key, lang, url in (
            (row.src_key, row.tgt_lang, row.tgt_url),
            (row.tgt_key, row.src_lang, row.src_url),
        ):
            if key in keys:
                found.setdefault(keys[key], set()).add((lang, url))
    return found


def _site_select(site: str, condition: sa.ColumnElement[bool]) -> sa.Select[Any]:
    columns = (crawled_pages.c.features, crawled_pages.c.job_id, crawled_pages.c.received_at)
    return sa.select(*columns).where(crawled_pages.c.site == site, condition)


def supersede_pairs_of(conn: sa.Connection, site: str, urls: Sequence[str], now: float) -> int:
    """Mark the site's current pairs holding any of these pages superseded (a changed page's
    pair no longer holds; a URL twin found later outranks a content pair); how many."""
    keys = sorted({url_key(url) for url in urls})
    if not keys:
        return 0
    holding = sa.or_(page_matches.c.src_key.in_(keys), page_matches.c.tgt_key.in_(keys))
    return _supersede(conn, site, holding, now)


def supersede_same_language_pair(
    conn: sa.Connection, site: str, match: PageMatch, now: float
) -> int:
    """Mark superseded the site's current pairs of ``match``'s pages with a page of the other
    one's language (a page is in one pair per language of its partner: on a site in three
    languages a page pairs with one page of each other language); how many."""
    src_key, tgt_key = url_key(match.src_url), url_key(match.tgt_url)
    table = page_matches
    same_pair = sa.or_(
        sa.and_(table.c.src_key == src_key, table.c.tgt_lang == match.tgt_lang),
        sa.and_(table.c.tgt_key == src_key, table.c.src_lang == match.tgt_lang),
        sa.and_(table.c.src_key == tgt_key, table.c.tgt_lang == match.src_lang),
        sa.and_(table.c.tgt_key == tgt_key, table.c.src_lang == match.src_lang),
    )
    return _supersede(conn, site, same_pair, now)


def _supersede(
    conn: sa.Connection, site: str, condition: sa.ColumnElement[bool], now: float
) -> int:
    """Mark the site's current pairs meeting ``condition`` superseded; how many."""
    result = conn.execute(
        page_matches.update()
        .where(page_matches.c.site == site, page_matches.c.superseded_at.is_(None), condition)
        .values(superseded_at=now)
    )
    return int(result.rowcount or 0)


def add_matches(
    conn: sa.Connection,
    site: str,
    matches: Sequence[PageMatch],
    digests: dict[str, str],
    job_id: str,
    now: float,
) -> tuple[list[PageMatch], int]:
    """Record the page pairs a matching found: a pair already current is left as it is; a
    new one supersedes the current pairs of its two pages in the same language pair
    (``supersede_same_language_pair``) and is inserted. The new pairs, in URL order, and how
    many current pairs they superseded."""
    current = {
        (r.src_key, r.tgt_key, r.src_digest, r.tgt_digest)
        for r in conn.execute(
            sa.select(
                page_matches.c.src_key,
                page_matches.c.tgt_key,
                page_matches.c.src_digest,
                page_matches.c.tgt_digest,
            ).where(page_matches.c.site == site, page_matches.c.superseded_at.is_(None))
        )
    }
    wanted = {_match_key(m, digests): m for m in matches}
    new = sorted(
        (m for key, m in wanted.items() if key not in current),
        key=lambda m: (m.src_url, m.tgt_url),
    )
    superseded = 0
    for match in new:
        key = _match_key(match, digests)
        superseded += supersede_same_language_pair(conn, site, match, now)
        # a pair found, superseded and found again: the same row becomes current again
        conn.execute(
            sa.delete(page_matches).where(
                page_matches.c.src_key == key[0],
                page_matches.c.tgt_key == key[1],
                page_matches.c.src_digest == key[2],
                page_matches.c.tgt_digest == key[3],
            )
        )
        conn.execute(
            page_matches.insert().values(
                src_key=key[0],
                tgt_key=key[1],
                src_digest=key[2],
                tgt_digest=key[3],
                site=site[:255],
                src_url=match.src_url,
                tgt_url=match.tgt_url,
                src_lang=match.src_lang,
                tgt_lang=match.tgt_lang,
                kind=match.kind,
                score=match.score,
                found_by=match.by,
                job_id=job_id,
                created_at=now,
                superseded_at=None,
            )
        )
    return new, superseded


def current_matches(engine: sa.Engine, site: str | None = None) -> list[dict[str, Any]]:
    """The page pairs in force (not superseded), oldest first."""
    ensure_schema(engine)
    statement = (
        sa.select(page_matches)
        .where(page_matches.c.superseded_at.is_(None))
        .order_by(page_matches.c.created_at, page_matches.c.src_key)
    )
    if site is not None:
        statement = statement.where(page_matches.c.site == site)
    with engine.connect() as conn:
        return [dict(row._mapping) for row in conn.execute(statement)]


def waiting_pages(
    engine: sa.Engine, received_before: float | None = None, job_id: str | None = None
) -> int:
    """Stored pages that are in no current page pair (received before a time, and last
    stored by a job, if given)."""
    ensure_schema(engine)
    paired = sa.union(
        sa.select(page_matches.c.src_key.label("key")).where(
            page_matches.c.superseded_at.is_(None)
        ),
        sa.select(page_matches.c.tgt_key.label("key")).where(
            page_matches.c.superseded_at.is_(None)
        ),
    ).subquery()
    statement = sa.select(sa.func.count()).where(
        crawled_pages.c.url_key.not_in(sa.select(paired.c.key))
    )
    if received_before is not None:
        statement = statement.where(crawled_pages.c.received_at < received_before)
    if job_id is not None:
        statement = statement.where(crawled_pages.c.job_id == job_id)
    with engine.connect() as conn:
        return int(conn.execute(statement).scalar_one())


def with_waiting_pages(engine: sa.Engine, status: JobStatus) -> JobStatus:
    """A job's status with its pages still waiting for a counterpart counted in (its state
    is "waiting", not "done", while there are some)."""
    return replace(status, waiting_pages=waiting_pages(engine, job_id=status.job_id))
