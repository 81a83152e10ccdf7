"""sentence_align stage handler: aligned chunks in, stored sentence pairs out.

The pairs are made by ``mining.records`` (split, aligned, scored, flagged) from the site's
earlier pairs as ``mining.routing`` selects them; monolingual pairs (PC/mobile news, two
versions of one text) continue to the paraphrase stage, Japanese sentences to the thesaurus
stage.
"""

from __future__ import annotations

from services.sentence_align.mining.routing import next_messages, site_pairs_wanted
from shared.config import get_settings
from shared.delivery.ordering import learning_position
from shared.delivery.pipeline import Outgoing
from shared.metrics import stage_metrics
from shared.schemas import ArticleBatch, ChunkPairs
from shared.store import Store

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
    pairs = records.sentence_pairs(message, extra=site_pairs(message, store))
    store.add_sentence_pairs(pairs, pair_id=context.pair_id, stage=STAGE, supersede=context.pair_id)
    return next_messages(context, pairs)


def site_pairs(message: ChunkPairs, store: Store) -> list[tuple[str, str]]:
    """The site's stored sentence pairs the page pair learns from (``site_pairs_wanted``), of
    the page pairs accepted before it (``shared.delivery.ordering``) once they are all
    aligned; none for monolingual pairs, methods without Model 1, or ``Settings.site_pairs``
    0."""
    wanted = site_pairs_wanted(message, get_settings().site_pairs)
    if wanted is None:
        return []
    position = learning_position(store, message.context.pair_id, STAGE)
    pairs = store.site_pairs(
        wanted.sites,
        wanted.langs,
        limit=wanted.limit,
        min_score=wanted.min_score,
        exclude_pair_id=wanted.exclude_pair_id,
        max_length=wanted.max_length,
        before=position.seq if position is not None else None,
    )
    stage_metrics().site_pairs_used.inc(len(pairs))
    return pairs
