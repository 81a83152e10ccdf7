"""The ingest order of page pairs, which makes learning from a site independent of the schedule.

A stage that learns from a site's earlier page pairs (tree_align: blocks recurring on the
site's pages; sentence_align: the site's stored sentence pairs) must see the same earlier
pairs however the work was scheduled: embedded, on a cluster, after a worker was killed and
its message redelivered. "Earlier" is therefore the order in which page pairs were accepted
(``pair_order.seq``, given when a job first records a pair; a pair recorded again keeps its
place), never the order in which their results happened to be stored. A page pair reads only
what its site's pairs of lower ``seq`` stored, and waits (``shared.delivery.ordering``) while one of
them has not been through the stage yet.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from shared.ids import site_of
from shared.store.base import StoreBase
from shared.store.inserts import insert_ignoring_conflicts
from shared.store.tables import pair_order, pair_progress


@dataclass(frozen=True)
class PairPosition:
    """Where a page pair stands in the ingest order: its ``seq``, its pages' hosts, and when
    it was first recorded."""

    seq: int
    sites: tuple[str, ...]
    registered_at: float


def order_rows(pairs: Iterable[tuple[str, str, str]], now: float) -> list[dict[str, Any]]:
    """Rows of ``pair_order`` for (pair_id, src_url, tgt_url), in the order given: the order
    the pairs were accepted in."""
    return [
        {
            "pair_id": pair_id,
            "site": site_of(src_url),
            "tgt_site": site_of(tgt_url),
            "registered_at": now,
        }
        for pair_id, src_url, tgt_url in pairs
    ]


def record_order(connection: sa.Connection, pairs: Iterable[tuple[str, str, str]]) -> None:
    """Give each new pair the next ``seq`` (inside the caller's transaction); a pair recorded
    before keeps its place."""
    # one statement: SQLite numbers its rows in the order given, and PostgreSQL takes the
    # sequence's next value row by row as json_populate_recordset yields them, in order
    insert_ignoring_conflicts(connection, pair_order, order_rows(pairs, time.time()))


class OrderRepository(StoreBase):
    """Reading the ingest order, and which earlier pairs of a site a stage still waits for."""

    def pair_position(self, pair_id: str) -> PairPosition | None:
        """The pair's place in the ingest order; None for a pair no job recorded (a message
        sent by hand, a document aligned by a command)."""
        statement = sa.select(
            pair_order.c.seq, pair_order.c.site, pair_order.c.tgt_site, pair_order.c.registered_at
        ).where(pair_order.c.pair_id == pair_id)
        with self.guard(), self.begin() as conn:
            row = conn.execute(statement).first()
        if row is None:
            return None
        sites = tuple(sorted({str(row.site), str(row.tgt_site)}))
        return PairPosition(int(row.seq), sites, float(row.registered_at))

    def earlier_unsettled(self, position: PairPosition, stage: str, since: float) -> int:
        """How many page pairs of the position's sites, before it in the ingest order and
        recorded at ``since`` or later, have neither been through ``stage`` nor failed (those
        recorded before ``since`` are taken as abandoned: nothing waits for them)."""
        done = sa.exists().where(
            pair_progress.c.pair_id == pair_order.c.pair_id, pair_progress.c.stage == stage
        )
        statement = sa.select(sa.func.count()).where(
            sa.or_(
                pair_order.c.site.in_(position.sites), pair_order.c.tgt_site.in_(position.sites)
            ),
            pair_order.c.seq < position.seq,
            pair_order.c.registered_at >= since,
            pair_order.c.failed == 0,
            ~done,
        )
        with self.guard(), self.begin() as conn:
            return int(conn.execute(statement).scalar_one())

    def earlier_pairs(self, position: PairPosition) -> int:
        """How many page pairs of the position's sites came before it in the ingest order."""
        statement = sa.select(sa.func.count()).where(
            _of_sites(position.sites), pair_order.c.seq < position.seq
        )
        with self.guard(), self.begin() as conn:
            return int(conn.execute(statement).scalar_one())

    def nth_pair_seq(self, position: PairPosition, number: int) -> int | None:
        """The ``seq`` of the ``number``-th (from 1) page pair of the position's sites in the
        ingest order; None when there are fewer before the position."""
        statement = (
            sa.select(pair_order.c.seq)
            .where(_of_sites(position.sites), pair_order.c.seq < position.seq)
            .order_by(pair_order.c.seq)
            .offset(number - 1)
            .limit(1)
        )
        with self.guard(), self.begin() as conn:
            seq = conn.execute(statement).scalar()
        return None if seq is None else int(seq)


def _of_sites(sites: tuple[str, ...]) -> sa.ColumnElement[bool]:
    return sa.or_(pair_order.c.site.in_(sites), pair_order.c.tgt_site.in_(sites))
