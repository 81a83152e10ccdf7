"""One sentence-pair record from sentence_align through the store to the exports.

sentence_align makes a :class:`SentencePairRecord` for each pair it finds; the store keeps
it as a ``sentence_pairs`` row, field for column (``shared/store/tables.py``; ``created_at``
is the store's), and a listing reads the rows back as :class:`StoredSentencePair` records
(the record, its occurrence count and ``created_at``), which every export and the gateway
read. The paraphrase message carries the part of it that is the pair's own
(:meth:`SentencePairRecord.message_pair`: text, scores, bead), its page pair being the
message's context.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.corpus_clean import dedup_key
from shared.schemas import SentencePair


@dataclass(frozen=True, kw_only=True)
class SentencePairRecord:
    """One aligned sentence pair: its page pair (``pair_id``, kind, URLs, the source page's
    ``site``, languages), its text, ``score`` (the pair classifier's probability) and
    ``posterior`` (the DP's own score of the bead; None: no bead aligner), the bead, the
    chunk it came from (-1: not from a tree) and its ``position`` among the page pair's
    pairs, its ``flag`` ('' or why it is no translation) and provenance (``method``,
    ``version``, ``model_version``). An empty ``dedup_key`` is derived from the languages
    and texts (``shared.corpus_clean.dedup_key``: pairs with one key are one pair of the
    corpus)."""

    id: str
    pair_id: str
    kind: str
    src_url: str
    tgt_url: str
    site: str
    src_lang: str
    tgt_lang: str
    src_text: str
    tgt_text: str
    score: float
    bead: str
    chunk: int = -1
    position: int
    flag: str = ""
    method: str = ""
    version: str = ""
    model_version: str = ""
    dedup_key: str = ""
    posterior: float | None = None

    def __post_init__(self) -> None:
        if not self.dedup_key:
            key = dedup_key(self.src_lang, self.tgt_lang, self.src_text, self.tgt_text)
            object.__setattr__(self, "dedup_key", key)

    def message_pair(self) -> SentencePair:
        """The pair as the paraphrase message carries it (its context is the message's)."""
        return SentencePair(
            id=self.id,
            src=self.src_text,
            tgt=self.tgt_text,
            score=self.score,
            bead=self.bead,
            chunk=self.chunk,
            posterior=self.posterior,
        )


@dataclass(frozen=True, kw_only=True)
class StoredSentencePair(SentencePairRecord):
    """A sentence pair as a listing of the store reads it back (``Store.list_sentence_pairs``,
    what every export writes): the record, and what the listing adds. ``count``: the
    occurrences of the distinct pair (its ``dedup_key``) among the rows the listing selects,
    ``score`` then being the best of theirs (1 and the row's own score when every occurrence
    is listed); ``created_at``: when the store kept the row (unix seconds; the store's
    column, None for a record the store never held). Read back, the record holds the store's
    values: its ``dedup_key`` as stored, none derived (an unkeyed row stays unkeyed)."""

    count: int = 1
    created_at: float | None = None

    def __post_init__(self) -> None:
        """Nothing derived: the store's values as they are."""
