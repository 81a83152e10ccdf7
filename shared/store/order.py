"""The ingest order of page pairs, which makes learning from a site independent of the schedule.

A stage that learns from a site's earlier page pairs (tree_align: blocks recurring on the
site's pages; sentence_align: the site's stored sentence pairs) must see the same earlier
pairs however the work was scheduled: embedded, on a cluster, after a worker was killed and
its message redelivered. "Earlier" is therefore the order in which page pairs were accepted
(``pair_order.seq``, given when a job first records a pair; a pair recorded again keeps its
place), never the order in which their results happened to be stored. A page pair reads only
what its site's pairs of lower ``seq`` stored, and waits (``shared.delivery.ordering``) while one of
them has not been through the stage yet.

Both checks a page pair makes would read every earlier pair of its site, which makes a site's
cost grow with the square of its size. What they found is kept instead: the seq below which
every pair of the site is settled for a stage (``settled_marks``: being through a stage or
failed never ends), and the seqs of the site's checkpoint pairs (``site_checkpoints``), so each
check reads only the pairs since. Those rows are written on a connection of their own, outside
a message's transaction: they are true whatever becomes of the message, and another worker
never waits for one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from shared.ids import site_of
from shared.store.base import StoreBase
from shared.store.inserts import dialect_insert, insert_ignoring_conflicts
from shared.store.tables import pair_order, pair_progress, settled_marks, site_checkpoints


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
        recorded before ``since`` are taken as abandoned: nothing waits for them).

        Only the pairs above the sites' settled mark for ``stage`` are read (a mark made
        with a later ``since`` than this one's is not used); the mark is then raised to
        just below the first pair still waited for."""
        key = sites_key(position.sites)
        done = sa.exists().where(
            pair_progress.c.pair_id == pair_order.c.pair_id, pair_progress.c.stage == stage
        )
        mark = sa.select(settled_marks.c.seq, settled_marks.c.since).where(
            settled_marks.c.sites == key, settled_marks.c.stage == stage
        )
        with self.guard(), self.begin() as conn:
            known = conn.execute(mark).first()
            low = int(known.seq) if known is not None and since >= known.since else 0
            if low >= position.seq - 1:
                return 0
            statement = sa.select(sa.func.count(), sa.func.min(pair_order.c.seq)).where(
                of_sites(position.sites),
                pair_order.c.seq > low,
                pair_order.c.seq < position.seq,
                pair_order.c.registered_at >= since,
                pair_order.c.failed == 0,
                ~done,
            )
            waiting, first = conn.execute(statement).one()
        settled = position.seq - 1 if not waiting else int(first) - 1
        if settled > low:
            self._raise_mark(key, stage, settled, since)
        return int(waiting)

    def _raise_mark(self, key: str, stage: str, seq: int, since: float) -> None:
        row = {"sites": key, "stage": stage, "seq": seq, "since": since}
        with self.guard(), self.engine.begin() as conn:
            insert = dialect_insert(conn, settled_marks).values(row)
            conn.execute(
                insert.on_conflict_do_update(
                    index_elements=[settled_marks.c.sites, settled_marks.c.stage],
                    set_={"seq": insert.excluded.seq, "since": insert.excluded.since},
                    where=settled_marks.c.seq < insert.excluded.seq,
                )
            )

    def checkpoint_seq(
        self, position: PairPosition, checkpoint: Callable[[int], int]
    ) -> int | None:
        """The ``seq`` of the page pair numbered ``checkpoint(earlier)`` (from 1) of the
        position's sites in the ingest order, ``earlier`` being how many came before it
        (:meth:`earlier_pairs`); None when that number is 0. ``checkpoint`` must give a
        number at most ``earlier`` that does not fall as ``earlier`` grows and that it gives
        back for itself (``checkpoint(checkpoint(n)) == checkpoint(n)``): pairs are then
        counted and numbered from the latest checkpoint found before, which is kept."""
        key = sites_key(position.sites)
        latest = (
            sa.select(site_checkpoints.c.number, site_checkpoints.c.seq)
            .where(site_checkpoints.c.sites == key, site_checkpoints.c.seq < position.seq)
            .order_by(site_checkpoints.c.seq.desc())
            .limit(1)
        )
        with self.guard(), self.begin() as conn:
            known = conn.execute(latest).first()
            base, base_seq = (int(known.number), int(known.seq)) if known else (0, 0)
            since = (of_sites(position.sites), pair_order.c.seq > base_seq,
                     pair_order.c.seq < position.seq)  # fmt: skip
            earlier = base + int(
                conn.execute(sa.select(sa.func.count()).where(*since)).scalar_one()
            )
            number = checkpoint(earlier)
            if number == base:
                return base_seq if base else None
            statement = (
                sa.select(pair_order.c.seq)
                .where(*since)
                .order_by(pair_order.c.seq)
                .offset(number - base - 1)
                .limit(1)
            )
            seq = int(conn.execute(statement).scalar_one())
        with self.guard(), self.engine.begin() as conn:
            insert_ignoring_conflicts(
                conn, site_checkpoints, [{"sites": key, "number": number, "seq": seq}]
            )
        return seq

    def earlier_pairs(self, position: PairPosition) -> int:
        """How many page pairs of the position's sites came before it in the ingest order."""
        statement = sa.select(sa.func.count()).where(
            of_sites(position.sites), pair_order.c.seq < position.seq
        )
        with self.guard(), self.begin() as conn:
            return int(conn.execute(statement).scalar_one())

    def nth_pair_seq(self, position: PairPosition, number: int) -> int | None:
        """The ``seq`` of the ``number``-th (from 1) page pair of the position's sites in the
        ingest order; None when there are fewer before the position."""
        statement = (
            sa.select(pair_order.c.seq)
            .where(of_sites(position.sites), pair_order.c.seq < position.seq)
            .order_by(pair_order.c.seq)
            .offset(number - 1)
            .limit(1)
        )
        with self.guard(), self.begin() as conn:
            seq = conn.execute(statement).scalar()
        return None if seq is None else int(seq)


def of_sites(sites: Iterable[str]) -> sa.ColumnElement[bool]:
    """The page pairs of ``pair_order`` with a page on one of ``sites``."""
    hosts = sorted(set(sites))
    return sa.or_(pair_order.c.site.in_(hosts), pair_order.c.tgt_site.in_(hosts))


def sites_key(sites: Iterable[str]) -> str:
    """The key of a page pair's sites in ``settled_marks`` and ``site_checkpoints``."""
    return " ".join(sorted(set(sites)))
