"""thesaurus stage handler: Japanese sentences in, (noun, を, verb) observations stored.

The class similarity matrix is recomputed from the stored observations by the periodic
task, never incremented here, so replaying a message changes nothing.
"""

from __future__ import annotations

from shared.delivery.pipeline import Outgoing
from shared.ids import content_id
from shared.schemas import JapaneseSentences
from shared.store import Store


def handle(message: JapaneseSentences, store: Store) -> list[Outgoing]:
    """Extract cooccurrences of every distinct sentence and store them keyed by the sentence."""
    # lazy: numpy and fugashi load with the first message, not at the worker's start
    from services.thesaurus import repository
    from services.thesaurus.cooccur import extract_cooccurrences

    store.ensure_schema()
    repository.ensure_schema(store.engine)
    for sentence in dict.fromkeys(message.sentences):
        repository.record_cooccurrences(
            store.engine, content_id(sentence, prefix="js"), extract_cooccurrences(sentence)
        )
    return []


def recompute_snapshots(store: Store) -> dict[str, int]:
    """A new versioned similarity snapshot per imported thesaurus whose observations changed
    (the periodic task's work), built with the parameters of its newest snapshot; the id of
    the newest snapshot keyed by thesaurus name (a thesaurus imported meanwhile is not in it:
    listing the names again and pairing them by position paired one with another's id)."""
    from services.thesaurus import repository  # lazy: as in handle

    store.ensure_schema()
    repository.ensure_schema(store.engine)
    return {
        name: repository.rebuild_snapshot(
            store.engine,
            name,
            unless_unchanged=True,
            **repository.snapshot_parameters(store.engine, name),
        )
        for name in repository.thesaurus_names(store.engine)
    }
