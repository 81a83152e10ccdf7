"""The mined corpus: sentence pairs (stored, superseded, listed as a corpus) and the aligned
text chunks (node pairs) they came from."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import sqlalchemy as sa

from shared.pair_query import (
    SentencePairQuery,
    select_below_threshold,
    select_flag_counts,
    select_pairs,
)
from shared.sentence_pair import SentencePairRecord, StoredSentencePair
from shared.store.base import StoreBase
from shared.store.inserts import insert_ignoring_conflicts
from shared.store.order import of_sites
from shared.store.rows import NodePairRow, row_dict
from shared.store.tables import (
    PROVENANCE,
    job_pairs,
    node_pairs,
    pair_order,
    pair_progress,
    sentence_pairs,
)

# Rows of a host read for a site's latest distinct pairs, in multiples of how many are wanted
# (``CorpusRepository.site_pairs``: repeated menu and footer lines count once).
SITE_SCAN = 4
# The first window of ingest seqs read when a site's pairs are read in ingest order
# (``CorpusRepository._in_ingest_order``); each next one is twice as wide
SITE_WALK_FIRST = 64
_SITE_PAIR_COLUMNS = (
    sentence_pairs.c.id,
    sentence_pairs.c.dedup_key,
    sentence_pairs.c.src_lang,
    sentence_pairs.c.src_text,
    sentence_pairs.c.tgt_text,
)


def _superseded(pair_id: str, rows: Sequence[dict[str, Any]]) -> sa.Delete:
    """The stored rows of ``pair_id`` that ``rows`` (all of its new rows) replace."""
    table = sentence_pairs
    statement = sa.delete(table).where(table.c.pair_id == pair_id)
    if not rows:
        return statement
    provenance = {tuple(row.get(name, "") for name in PROVENANCE) for row in rows}
    other: list[sa.ColumnElement[bool]] = [table.c.id.not_in([row["id"] for row in rows])]
    if len(provenance) == 1:
        other.append(
            sa.tuple_(*(table.c[name] for name in PROVENANCE)) != sa.tuple_(*provenance.pop())
        )
    return statement.where(sa.or_(*other))


def _record(row: SentencePairRecord | Mapping[str, Any]) -> SentencePairRecord:
    return row if isinstance(row, SentencePairRecord) else SentencePairRecord(**row)


class CorpusRepository(StoreBase):
    """Sentence pairs and node pairs."""

    def add_sentence_pairs(
        self,
        rows: Sequence[SentencePairRecord | Mapping[str, Any]],
        *,
        pair_id: str,
        stage: str,
        supersede: str | None = None,
    ) -> int:
        """Store sentence pairs and mark the page pair done for ``stage`` in one transaction.

        Each row is a :class:`SentencePairRecord` or the mapping of one's fields (made one
        here, so its defaults are the record's: no flag or provenance, '', a ``dedup_key``
        of its languages and text; every row then has the same columns). ``supersede``:
        the rows are all of that page pair's (its ``pair_id`` column): its stored rows not
        among them, or produced with other provenance (method, version, model version), are
        deleted first, so replaying a page pair with other settings replaces its pairs
        (the same settings change nothing)."""
        now = time.time()
        values = [{**row_dict(_record(row)), "created_at": now} for row in rows]
        with self.guard(), self.begin() as conn:
            if supersede is not None:
                conn.execute(_superseded(supersede, values))
            inserted = insert_ignoring_conflicts(conn, sentence_pairs, values)
            insert_ignoring_conflicts(
                conn,
                pair_progress,
                [{"pair_id": pair_id, "stage": stage, "outputs": len(values), "updated_at": now}],
            )
        return inserted

    def add_node_pairs(self, pair_id: str, rows: Sequence[NodePairRow | Mapping[str, Any]]) -> int:
        """Store a page pair's aligned text chunks (keys of :data:`node_pairs` but pair_id)."""
        values = [{**row_dict(row), "pair_id": pair_id} for row in rows]
        with self.guard(), self.begin() as conn:
            return insert_ignoring_conflicts(conn, node_pairs, values)

    def list_sentence_pairs(
        self, query: SentencePairQuery, *, after: tuple[str, int, str] | None = None
    ) -> list[StoredSentencePair]:
        """A page of the pairs matching the filters, in (pair_id, position, id) order; the id
        breaks ties, so pages neither repeat nor skip rows. ``after``: the (pair_id,
        position, id) of the previous page's last row, instead of ``query.offset`` (rows
        stored meanwhile then shift nothing). Each row is one :class:`StoredSentencePair`,
        field for column (a column it has no field for is a ``TypeError``, not dropped)."""
        statement = select_pairs(sentence_pairs, job_pairs, query, after)
        return [StoredSentencePair(**row) for row in self.mappings(statement)]

    def below_threshold(self, query: SentencePairQuery) -> int:
        """Unflagged stored rows the query's default threshold leaves out (none when the
        query names its own ``min_score``)."""
        if query.default_min_score is None or query.min_score is not None:
            return 0
        statement = select_below_threshold(sentence_pairs, job_pairs, query)
        with self.guard(), self.begin() as conn:
            return int(conn.execute(statement).scalar_one())

    def flag_counts(self, query: SentencePairQuery) -> dict[str, int]:
        """flag → stored rows of the flagged pairs the query's other filters select."""
        statement = select_flag_counts(sentence_pairs, job_pairs, query)
        with self.guard(), self.begin() as conn:
            return {str(flag): int(count) for flag, count in conn.execute(statement)}

    def iter_sentence_pairs(
        self, query: SentencePairQuery, *, batch: int = 1_000
    ) -> Iterator[StoredSentencePair]:
        """All pairs matching the filters, in pages (for exports of any size): from
        ``query.offset`` on, then each page after the last row of the one before, so pairs
        stored while an export runs neither repeat nor push rows out of it."""
        page_query = replace(query, limit=batch)
        after: tuple[str, int, str] | None = None
        while True:
            page = self.list_sentence_pairs(page_query, after=after)
            yield from page
            if len(page) < batch:
                return
            last = page[-1]
            after = (last.pair_id, last.position, last.id)

    def site_pairs(
        self,
        sites: Sequence[str],
        langs: tuple[str, str],
        *,
        limit: int,
        min_score: float,
        exclude_pair_id: str = "",
        max_length: int | None = None,
        before: int | None = None,
        after: int | None = None,
    ) -> list[tuple[str, str]]:
        """The ``limit`` latest distinct one-sentence-a-side pairs of the ``sites`` (host
        names: a site with a host per language, ``en.`` and ``de.``, files each pair under its
        source page's) in the two languages (stored either way round, returned as ``langs``
        orders them) whose bead's DP posterior is at least ``min_score`` and carry no flag,
        leaving out the page pair ``exclude_pair_id``'s own: the text sentence_align learns a
        site's words from. Distinct: a pair stored again (a menu or footer line of every page,
        a page seen twice) counts once, at its latest; the newest ``SITE_SCAN`` times
        ``limit`` rows of each host are read for them (with ``before``: of the hosts
        together, from their latest ``SITE_SCAN`` times ``limit`` page pairs).
        ``max_length``: pairs with a longer side (in characters) are left out. ``before``: an
        ingest seq (``shared.store.order``): only the pairs of page pairs accepted before
        it, latest by that order (by the time they were stored otherwise), so what a page
        pair learns does not depend on the schedule; ``after`` (with ``before``): and after
        that seq."""
        table = sentence_pairs
        first, second = langs
        conditions = [
            sa.or_(
                sa.and_(table.c.src_lang == first, table.c.tgt_lang == second),
                sa.and_(table.c.src_lang == second, table.c.tgt_lang == first),
            ),
            # the DP's confidence in the bead, as before the pair classifier
            sa.func.coalesce(table.c.posterior, table.c.score) >= min_score,
            table.c.flag == "",
            table.c.pair_id != exclude_pair_id,
            # "[i]:[j]": one sentence a side (format_bead; article pairs are "article:...")
            table.c.bead.like("[%]:[%]"),
            table.c.bead.not_like("%,%"),
        ]
        if max_length is not None:
            conditions += [
                sa.func.length(table.c.src_text) <= max_length,
                sa.func.length(table.c.tgt_text) <= max_length,
            ]
        quota = SITE_SCAN * limit
        if before is not None:
            found = self._in_ingest_order(sites, conditions, quota, before, after)
        else:
            found = self._latest_stored(sites, conditions, quota)
        found.sort(key=lambda row: (-row[0], row[1]))
        seen: set[str] = set()
        pairs: list[tuple[str, str]] = []
        for _, _, key, src_lang, src, tgt in found:
            if key in seen:
                continue
            seen.add(key)
            pairs.append((src, tgt) if src_lang == first else (tgt, src))
            if len(pairs) == limit:
                break
        return pairs

    def _latest_stored(
        self, sites: Sequence[str], conditions: list[sa.ColumnElement[bool]], quota: int
    ) -> list[tuple[float, str, str, str, str, str]]:
        """(created_at, id, dedup_key, src_lang, src_text, tgt_text) of the ``quota`` latest
        stored rows of each host meeting ``conditions``: one ordered scan of the (site,
        created_at) index per host."""
        table = sentence_pairs
        found: list[tuple[float, str, str, str, str, str]] = []
        with self.guard(), self.begin() as conn:
            for site in sorted(set(sites)):
                statement = (
                    sa.select(table.c.created_at, *_SITE_PAIR_COLUMNS)
                    .where(table.c.site == site, *conditions)
                    .order_by(table.c.created_at.desc(), table.c.id)
                    .limit(quota)
                )
                found += [tuple(row) for row in conn.execute(statement)]
        return found

    def _in_ingest_order(
        self,
        sites: Sequence[str],
        conditions: list[sa.ColumnElement[bool]],
        quota: int,
        before: int,
        after: int | None,
    ) -> list[tuple[float, str, str, str, str, str]]:
        """(seq, id, dedup_key, src_lang, src_text, tgt_text) of the ``quota`` latest rows of
        the hosts meeting ``conditions``, latest by the ingest seq of their page pairs, of
        the sites' latest ``quota`` page pairs between ``after`` and ``before``. The ingest
        order is walked back from ``before`` in windows of seq, each twice as wide as the
        last one, and each window's rows read by their page pair. A window bounds what any plan
        reads, whatever the planner's statistics say (on statistics from when the site was smaller,
        PostgreSQL read every row of the site, then sorted them)."""
        table = sentence_pairs
        hosts = sorted(set(sites))
        found: list[tuple[float, str, str, str, str, str]] = []
        floor = 0 if after is None else after + 1
        upper, width, walked = before, SITE_WALK_FIRST, 0
        with self.guard(), self.begin() as conn:
            while len(found) < quota and walked < quota and upper > floor:
                lower, wanted = max(upper - width, floor), quota - walked
                window = (
                    sa.select(pair_order.c.pair_id, pair_order.c.seq)
                    .where(of_sites(hosts), pair_order.c.seq >= lower, pair_order.c.seq < upper)
                    .order_by(pair_order.c.seq.desc())
                    .limit(wanted)
                )
                seqs = {str(pair_id): int(seq) for pair_id, seq in conn.execute(window)}
                # a window that fills the quota ends the walk; any other was read whole
                upper, width = lower, 2 * width
                if not seqs:
                    continue
                walked += len(seqs)
                # by page pair alone: the planner would otherwise also read the host's
                # index, every row of the site, on statistics from when it was smaller
                statement = sa.select(table.c.pair_id, table.c.site, *_SITE_PAIR_COLUMNS).where(
                    table.c.pair_id.in_(list(seqs)), *conditions
                )
                rows = sorted(conn.execute(statement), key=lambda r: (-seqs[r[0]], r[2]))
                found += [(float(seqs[pair_id]), *row)
                          for pair_id, site, *row in rows if site in hosts]  # fmt: skip
        return found[:quota]

    def node_pairs(self, pair_id: str) -> list[dict[str, Any]]:
        """A page pair's aligned text chunks in chunk order (empty if none were stored)."""
        return self._of_page_pair(node_pairs, node_pairs.c.chunk, pair_id)

    def page_pair_sentences(self, pair_id: str) -> list[StoredSentencePair]:
        """Every stored sentence pair of one page pair, in page order (each occurrence, its
        flag and score as stored, ``count`` 1: the viewer's pair page)."""
        rows = self._of_page_pair(sentence_pairs, sentence_pairs.c.position, pair_id)
        return [StoredSentencePair(**row) for row in rows]

    def _of_page_pair(
        self, table: sa.Table, order: sa.ColumnElement[Any], pair_id: str
    ) -> list[dict[str, Any]]:
        statement = sa.select(table).where(table.c.pair_id == pair_id).order_by(order)
        return self.mappings(statement)
