"""paraphrase stage handler: monolingual sentence pairs in, stored as paraphrase observations.

Tables are aggregated from the stored observations, so a redelivered message never
double-counts: ending paraphrases on demand, the phrase table by the periodic task
(:func:`recompute_phrase_table`), whose snapshot the gateway reads.
"""

from __future__ import annotations

from shared.delivery.pipeline import Outgoing
from shared.schemas import SentencePairs
from shared.store import ParaphraseObservationRow, Store


def handle(message: SentencePairs, store: Store) -> list[Outgoing]:
    """Record each pair once, keyed by its sentence-pair id."""
    context = message.context
    store.add_paraphrase_observations(
        [
            ParaphraseObservationRow(
                id=pair.id,
                kind=context.kind,
                lang=context.src_lang,
                src_text=pair.src,
                tgt_text=pair.tgt,
            )
            for pair in message.pairs
        ]
    )
    return []


def recompute_phrase_table(store: Store) -> int:
    """A new phrase table snapshot when the stored observations (or the word model) changed
    since the newest one (the periodic task's work); the newest snapshot's id."""
    # lazy: the word model (LightGBM, numba) stays off the worker's start: only this
    # periodic task needs it
    from services.paraphrase import repository, tables

    store.ensure_schema()
    observations = tables.stored_observations(store.paraphrase_observations())
    return repository.rebuild_phrase_table(store.engine, observations, unless_unchanged=True)
