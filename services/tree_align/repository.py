"""Persistence of the tree_align stage: which text blocks each page of a site holds.

The content model (``services.html.content``) counts a block that recurs on many pages of a
site as template (a menu, a footer, a newsletter box inside the article column that no
extractor tells from the article). This table remembers, per site, the blocks
(``content.block_key`` digests) of every page the stage has aligned, so the count grows with
the crawl. A page is keyed by its URL; aligning it again replaces its blocks, so a page
crawled again is counted once and a changed page with its new blocks. Each page keeps the
ingest ``seq`` (``shared.store.order``) of the first page pair that stored it, so a page pair
counts the pages of the pairs accepted before it only, whatever order the work ran in.

Tables live in this module's own ``MetaData``; every function takes an ``Engine``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import sqlalchemy as sa

from shared.store import create_tables_once
from shared.store.inserts import insert_ignoring_conflicts

metadata = sa.MetaData()

# (site_blocks, the table of stores before the ingest order, is no longer read)
site_blocks = sa.Table(
    "site_page_blocks",
    metadata,
    sa.Column("site", sa.String(256), primary_key=True),
    sa.Column("block_key", sa.String(16), primary_key=True),
    sa.Column("page_key", sa.String(64), primary_key=True),
    sa.Column("seq", sa.Integer, nullable=True),  # None: stored by a pair no job recorded
    sa.Index("ix_site_page_blocks_page", "site", "page_key"),
)

# Blocks of one page read or written at once (a page of 10,000 list items stays bounded).
MAX_PAGE_BLOCKS = 2_000


def ensure_schema(engine: sa.Engine) -> None:
    """Create this stage's tables when missing (safe for concurrent callers), once per engine."""
    create_tables_once(engine, metadata)


def page_key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()


def block_counts(
    engine: sa.Engine,
    site: str,
    keys: Iterable[str],
    excluded: Sequence[str],
    before: int | None = None,
    *,
    at_most: int,
) -> dict[str, int]:
    """For each of ``keys`` held by another page, the number of stored pages of ``site``
    holding it, up to ``at_most`` (``content.REPEATS_COUNTED``), the pages of the URLs
    ``excluded`` (the page pair's own) not counted; with ``before`` (the page pair's ingest
    seq) only the pages stored by pairs accepted before it. Each key's count reads that many
    rows at most, so a page's read does not grow with its site."""
    wanted = sorted(set(keys))[:MAX_PAGE_BLOCKS]
    if not wanted:
        return {}
    keyed = sa.values(sa.column("block_key", sa.String), name="wanted").data(
        [(key,) for key in wanted]
    )
    asked = keyed.cte("wanted")
    conditions = [
        site_blocks.c.site == site,
        site_blocks.c.block_key == asked.c.block_key,
        site_blocks.c.page_key.not_in([page_key(url) for url in excluded]),
    ]
    if before is not None:
        conditions.append(site_blocks.c.seq < before)
    holding = sa.select(sa.literal(1)).where(*conditions).limit(at_most).correlate(asked).subquery()
    count = sa.select(sa.func.count()).select_from(holding).scalar_subquery()
    with engine.connect() as conn:
        rows = conn.execute(sa.select(asked.c.block_key, count))
        return {str(key): int(pages) for key, pages in rows if pages}


def record_blocks(
    engine: sa.Engine, site: str, url: str, keys: Iterable[str], seq: int | None = None
) -> None:
    """Store the page's blocks (replacing what was stored for its URL), under the lowest
    ingest ``seq`` of the page pairs that stored it."""
    page = page_key(url)
    mine = (site_blocks.c.site == site, site_blocks.c.page_key == page)
    with engine.begin() as conn:
        earlier = conn.execute(sa.select(sa.func.min(site_blocks.c.seq)).where(*mine)).scalar()
        if earlier is not None:
            seq = int(earlier) if seq is None else min(int(earlier), seq)
        rows = [
            {"site": site, "block_key": key, "page_key": page, "seq": seq}
            for key in sorted(set(keys))[:MAX_PAGE_BLOCKS]
        ]
        conn.execute(site_blocks.delete().where(*mine))
        insert_ignoring_conflicts(conn, site_blocks, rows)  # two workers storing one page
