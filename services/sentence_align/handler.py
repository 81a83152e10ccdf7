"""sentence_align stage handler: aligned chunks in, stored sentence pairs out.

The pairs are made by ``mining.records`` (split, aligned, scored, flagged), learning from
the site's earlier pairs as ``mining.routing`` selects them and ``mining.site_lexicon``
keeps them; monolingual pairs (PC/mobile news, two versions of one text) continue to the
paraphrase stage, Japanese sentences to the thesaurus stage.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

from services.sentence_align.mining.routing import next_messages, site_pairs_wanted
from shared.config import get_settings
from shared.delivery.ordering import learning_position
from shared.delivery.pipeline import Outgoing
from shared.metrics import stage_metrics
from shared.schemas import ArticleBatch, ChunkPairs
from shared.store import Store

if TYPE_CHECKING:
    from services.sentence_align.dp.two_pass import KeptText

STAGE = "sentence_align"


def handle(message: ChunkPairs | ArticleBatch, store: Store) -> list[Outgoing]:
    """Align sentences, store them (replacing the page pair's pairs of other settings), and
    route them onwards."""
    # lazy: every worker imports every stage's tasks; only this stage loads numba and LightGBM
    from services.sentence_align.mining import records

    if isinstance(message, ArticleBatch):
        found = records.article_sentence_pairs(message)
        store.add_sentence_pairs(
            [pair for _, pairs in found for pair in pairs],
            pair_id=message.batch_id,
            stage=STAGE,
            supersede=message.batch_id,
        )
        return [outgoing for context, pairs in found for outgoing in next_messages(context, pairs)]
    context = message.context
    site, since = site_learning(message, store)
    pairs = records.sentence_pairs(message, site=site, extra=since)
    store.add_sentence_pairs(pairs, pair_id=context.pair_id, stage=STAGE, supersede=context.pair_id)
    return next_messages(context, pairs)


def site_learning(
    message: ChunkPairs, store: Store
) -> tuple[KeptText | None, list[tuple[str, str]]]:
    """What the page pair learns from its site's stored sentence pairs (``site_pairs_wanted``):
    those of the site's first page pairs in the ingest order up to the checkpoint before it
    (``mining.site_lexicon``), trained on once and shared by the page pairs up to the next
    checkpoint, and those of the page pairs since, trained on with it. Both are read once
    every earlier page pair is aligned (``shared.delivery.ordering``), so neither depends on
    the schedule. A page pair no job recorded learns from the site's latest pairs. Nothing
    for monolingual pairs, methods without Model 1, or ``Settings.site_pairs`` 0."""
    # lazy: as handle's
    from services.lexical.registry import dictionary_for
    from services.sentence_align.mining.site_lexicon import checkpoint, learn_site_text

    wanted = site_pairs_wanted(message, get_settings().site_pairs)
    if wanted is None:
        return None, []

    def stored(before: int | None, after: int | None = None) -> list[tuple[str, str]]:
        return store.site_pairs(
            wanted.sites, wanted.langs, limit=wanted.limit, min_score=wanted.min_score,
            exclude_pair_id=wanted.exclude_pair_id, max_length=wanted.max_length,
            before=before, after=after,
        )  # fmt: skip

    def learned(pairs: list[tuple[str, str]]) -> KeptText | None:
        return learn_site_text(
            pairs, method=message.method, src_lang=wanted.langs[0], tgt_lang=wanted.langs[1],
            dictionary=dictionary_for(*wanted.langs),
        )  # fmt: skip

    since: list[tuple[str, str]] = []
    position = learning_position(store, message.context.pair_id, STAGE)
    if position is None:
        site = learned(stored(None))
    else:
        last = store.checkpoint_seq(position, checkpoint)
        if last is None:
            return None, []
        key = (str(store.engine.url), tuple(sorted(set(wanted.sites))), wanted.langs,
               message.method, wanted.limit, last)  # fmt: skip
        if key not in _SNAPSHOTS:
            _SNAPSHOTS[key] = learned(stored(last + 1))
            while len(_SNAPSHOTS) > SNAPSHOTS_KEPT:
                _SNAPSHOTS.popitem(last=False)
        _SNAPSHOTS.move_to_end(key)
        site = _SNAPSHOTS[key]
        since = stored(position.seq, after=last)
    stage_metrics().site_pairs_used.inc(len(since) + (len(site.texts) if site else 0))
    return site, since


# The sites' snapshots (``site_learning``), newest used last, by store, sites, languages,
# method, limit and the seq of the snapshot's last page pair: a few megabytes each.
_SNAPSHOTS: OrderedDict[tuple[object, ...], KeptText | None] = OrderedDict()
SNAPSHOTS_KEPT = 16
