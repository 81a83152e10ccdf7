"""Listing stored sentence pairs as a corpus: filters, each distinct pair once (the first
occurrence in store order, with the occurrence count and the best score of its key) and
flagged pairs left out, unless the query asks for every occurrence or every flag.

The statements are built over the table objects the caller passes (the store's), so this
module imports no store.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict, Unpack

import sqlalchemy as sa


@dataclass(frozen=True)
class SentencePairQuery:
    """Filters for listing stored sentence pairs.

    By default a listing is the corpus a user expects: each distinct pair (same
    ``dedup_key``) once, at its first occurrence, its ``score`` the best and ``count`` the
    number of occurrences among the rows the filters select; flagged pairs (untranslated,
    wrong language) left out. ``flagged`` keeps them; ``duplicates`` gives every stored row
    (``count`` 1)."""

    job_id: str | None = None
    site: str | None = None
    src_lang: str | None = None
    tgt_lang: str | None = None
    min_score: float | None = None
    limit: int = 100
    offset: int = 0
    stored_since: float | None = None  # created_at >= this (unix seconds)
    stored_before: float | None = None  # created_at < this
    flagged: bool = False  # keep flagged pairs too
    duplicates: bool = False  # every occurrence, not each distinct pair once
    # Unless ``min_score`` is given: pairs the pair classifier scored (those with a DP
    # posterior: not article pairs) scoring below this are left out (an export's default).
    default_min_score: float | None = None


def parse_since(value: str | None, name: str = "since") -> float | None:
    """Unix seconds from ``since`` (or ``until``, ``name``): seconds, an ISO date or an ISO
    date-time (UTC if no zone)."""
    if value is None or value == "":
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"{name} must be unix seconds or an ISO 8601 date, not {value!r}"
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.timestamp()
    if not math.isfinite(seconds):
        raise ValueError(f"{name} must be a finite number of seconds")
    return seconds


class PairFilters(TypedDict, total=False):
    """The filters of a listing or an export as ``paramine export`` and the gateway take them
    (none given: no filter): ``since``/``until`` as unix seconds or ISO dates (``until_default``
    when ``until`` is not given); ``every`` keeps flagged pairs and the pairs under the default
    threshold; ``limit`` and ``offset`` page a listing (default 100 from 0)."""

    job: str | None
    site: str | None
    src_lang: str | None
    tgt_lang: str | None
    min_score: float | None
    since: str | None
    until: str | None
    until_default: float | None
    every: bool
    duplicates: bool
    limit: int
    offset: int


def sentence_pair_query(
    *, default_min_score: float | None = None, **filters: Unpack[PairFilters]
) -> SentencePairQuery:
    """The query of a listing or an export from its :class:`PairFilters`;
    ``default_min_score``, the pair classifier's threshold, applies where ``min_score`` is not
    given (and not with ``every``). Raises ``ValueError`` (from ``parse_since``) for a time
    neither reads as."""
    after = parse_since(filters.get("since"))
    until = filters.get("until")
    before = parse_since(until, "until") if until is not None else filters.get("until_default")
    every = filters.get("every", False)
    return SentencePairQuery(
        filters.get("job"),
        filters.get("site"),
        filters.get("src_lang"),
        filters.get("tgt_lang"),
        filters.get("min_score"),
        filters.get("limit", 100),
        filters.get("offset", 0),
        stored_since=after,
        stored_before=before,
        flagged=every,
        duplicates=filters.get("duplicates", False),
        default_min_score=None if every else default_min_score,
    )


def conditions(
    table: Any, job_pairs: sa.Table, query: SentencePairQuery, *, flags: bool = True
) -> list[sa.ColumnElement[bool]]:
    """The query's filters on ``table`` (the sentence_pairs table or an alias of it);
    ``flags``: with the flag filter (unless the query keeps flagged pairs)."""
    found: list[sa.ColumnElement[bool]] = []
    if query.job_id:
        found.append(
            table.c.pair_id.in_(
                sa.select(job_pairs.c.pair_id).where(job_pairs.c.job_id == query.job_id)
            )
        )
    if query.site:
        found.append(table.c.site == query.site.lower())
    if query.src_lang:  # stored in lower case (schemas.Page)
        found.append(table.c.src_lang == query.src_lang.lower())
    if query.tgt_lang:
        found.append(table.c.tgt_lang == query.tgt_lang.lower())
    if query.min_score is not None:
        found.append(table.c.score >= query.min_score)
    elif query.default_min_score is not None:
        found.append(sa.or_(table.c.posterior.is_(None), table.c.score >= query.default_min_score))
    if query.stored_since is not None:
        found.append(table.c.created_at >= query.stored_since)
    if query.stored_before is not None:
        found.append(table.c.created_at < query.stored_before)
    if flags and not query.flagged:
        found.append(table.c.flag == "")
    return found


def select_pairs(
    table: sa.Table,
    job_pairs: sa.Table,
    query: SentencePairQuery,
    after: tuple[str, int, str] | None = None,
) -> sa.Select[Any]:
    """A page of the listing in (pair_id, position, id) order (``after``: keyset paging
    from that row on, else ``query.offset``). Distinct pairs: a row is listed when no row
    of its key the filters select comes before it; its count and best score are those of
    its key among the selected rows (correlated subqueries on the dedup_key index, so each
    page costs its own rows, not a pass over the corpus)."""
    selected = conditions(table, job_pairs, query)
    if query.duplicates:
        statement = sa.select(table, sa.literal(1).label("count"))
    else:
        twin = table.alias("twin")
        same = [twin.c.dedup_key == table.c.dedup_key, *conditions(twin, job_pairs, query)]
        count = sa.select(sa.func.count()).where(*same).scalar_subquery()
        best = sa.select(sa.func.max(twin.c.score)).where(*same).scalar_subquery()
        earlier = (
            sa.exists()
            .where(*same)
            .where(
                sa.tuple_(twin.c.pair_id, twin.c.position, twin.c.id)
                < sa.tuple_(table.c.pair_id, table.c.position, table.c.id)
            )
        )
        columns = [column for column in table.c if column.name != "score"]
        statement = sa.select(*columns, best.label("score"), count.label("count"))
        selected.append(~earlier)
    if after is not None:
        selected.append(
            sa.tuple_(table.c.pair_id, table.c.position, table.c.id) > sa.tuple_(*after)
        )
    statement = (
        statement.where(*selected)
        .order_by(table.c.pair_id, table.c.position, table.c.id)
        .limit(query.limit)
    )
    return statement if after is not None else statement.offset(query.offset)


def select_below_threshold(
    table: sa.Table, job_pairs: sa.Table, query: SentencePairQuery
) -> sa.Select[Any]:
    """The number of unflagged stored rows the query's default threshold leaves out (the
    other filters applied)."""
    threshold = query.default_min_score
    without = dataclasses.replace(query, default_min_score=None)
    return sa.select(sa.func.count()).where(
        *conditions(table, job_pairs, without, flags=False),
        table.c.flag == "",
        table.c.posterior.is_not(None),
        table.c.score < (threshold if threshold is not None else -1.0),
    )


def select_flag_counts(
    table: sa.Table, job_pairs: sa.Table, query: SentencePairQuery
) -> sa.Select[Any]:
    """(flag, stored rows) of the flagged rows the other filters select."""
    return (
        sa.select(table.c.flag, sa.func.count())
        .where(*conditions(table, job_pairs, query, flags=False), table.c.flag != "")
        .group_by(table.c.flag)
        .order_by(table.c.flag)
    )
