"""paraphrase stage handler: monolingual sentence pairs in, stored as paraphrase observations.

Tables (ending paraphrases, phrase pairs) are aggregated from the stored observations on
demand or by the periodic task, so a redelivered message never double-counts.
"""

from __future__ import annotations

from shared.pipeline import Outgoing
from shared.schemas import SentencePairs
from shared.store import Store


def handle(message: SentencePairs, store: Store) -> list[Outgoing]:
    """Record each pair once, keyed by its sentence-pair id."""
    context = message.context
    store.add_paraphrase_observations(
        [
            {
                "id": pair.id,
                "kind": context.kind,
                "lang": context.src_lang,
                "src_text": pair.src,
                "tgt_text": pair.tgt,
            }
            for pair in message.pairs
        ]
    )
    return []
