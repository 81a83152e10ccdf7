"""Which stored sentence pairs an export gives, and what it left out: the corpus conventions
of ``paramine export``, ``paramine process``'s output folder and the gateway (each distinct
pair once, flagged pairs and pairs below the pair classifier's default threshold left out
unless asked for), the pairs stored the other way round turned to read src → tgt."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Unpack

from services.sentence_align.classifier.pair_threshold import default_threshold
from shared.pair_query import PairFilters, SentencePairQuery, sentence_pair_query
from shared.store import Store, StoredSentencePair


def corpus_query(**filters: Unpack[PairFilters]) -> SentencePairQuery:
    """The query of an export or a listing: the filters, with the shipped pair model's
    default threshold where no ``min_score`` is given (``every``: none)."""
    return sentence_pair_query(default_min_score=default_threshold(), **filters)


def job_query(job_id: str) -> SentencePairQuery:
    """A run's pairs as ``paramine export --job`` gives them."""
    return corpus_query(job=job_id)


def other_way(query: SentencePairQuery) -> SentencePairQuery:
    """The same query of the pairs stored in the opposite direction."""
    return dataclasses.replace(query, src_lang=query.tgt_lang, tgt_lang=query.src_lang)


def turned(row: StoredSentencePair) -> StoredSentencePair:
    """A sentence pair read the other way round: every src_ field swapped with its tgt_ one
    (the bead too: ``[0, 1]:[2]`` becomes ``[2]:[0, 1]``; an article pair's
    ``article:x:y`` stays as it is)."""
    bead = row.bead
    if bead.count(":") == 1:
        left, right = bead.split(":")
        bead = f"{right}:{left}"
    return dataclasses.replace(
        row,
        src_url=row.tgt_url,
        tgt_url=row.src_url,
        src_lang=row.tgt_lang,
        tgt_lang=row.src_lang,
        src_text=row.tgt_text,
        tgt_text=row.src_text,
        bead=bead,
    )


class Occurrences:
    """Rows passed through, counting the distinct pairs and the stored rows they stand for."""

    def __init__(self, rows: Iterable[StoredSentencePair]) -> None:
        self.rows = rows
        self.distinct = 0
        self.occurrences = 0

    def __iter__(self) -> Iterator[StoredSentencePair]:
        for row in self.rows:
            self.distinct += 1
            self.occurrences += row.count
            yield row

    @property
    def merged(self) -> int:
        """Stored rows merged into an earlier occurrence of their pair."""
        return self.occurrences - self.distinct


def exported_rows(
    store: Store, query: SentencePairQuery, *, either_direction: bool = False
) -> Occurrences:
    """The pairs ``query`` selects, counted as they are read; ``either_direction``: then
    those stored the other way round, turned."""
    rows: Iterable[StoredSentencePair] = store.iter_sentence_pairs(query)
    if either_direction:
        rows = itertools.chain(rows, map(turned, store.iter_sentence_pairs(other_way(query))))
    return Occurrences(rows)


def stored_other_way(store: Store, query: SentencePairQuery) -> bool:
    """Whether the store holds a pair ``query`` would select stored in the other direction."""
    first = dataclasses.replace(other_way(query), limit=1)
    return next(store.iter_sentence_pairs(first), None) is not None


def flagged_left_out(store: Store, query: SentencePairQuery) -> dict[str, int]:
    """flag → stored rows the query left out as flagged (none when it keeps them)."""
    return {} if query.flagged else store.flag_counts(query)


@dataclass(frozen=True)
class LeftOut:
    """What an export's conventions left out of the store's rows."""

    merged: int  # duplicate occurrences merged into their first
    stored: int  # stored rows the exported pairs stand for
    distinct: int
    flagged: dict[str, int]  # flag → stored rows
    below_threshold: int  # unflagged rows scoring under the default threshold


def left_out(store: Store, query: SentencePairQuery, rows: Occurrences) -> LeftOut:
    """What the export of ``rows`` (read to the end) by ``query`` left out."""
    return LeftOut(
        rows.merged,
        rows.occurrences,
        rows.distinct,
        flagged_left_out(store, query),
        store.below_threshold(query),
    )
