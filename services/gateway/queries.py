"""The reads the JSON routes and the viewer's pages share, one function each, so a page of
``/ui/`` shows what the API answers: the ending paraphrases per action noun, the phrase
table searched, and a word similarity with its best class pair."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Literal

from shared.store import Store

if TYPE_CHECKING:
    from services.paraphrase.phrases import PhraseTableEntry
    from services.thesaurus.repository import SimilarityAnswer


def ending_table(
    store: Store, *, unit: Literal["char", "word"], top: int, noun: str | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Sentence-ending paraphrases per action noun (``noun``: that one's only), the ``top``
    best of each, from the stored observations."""
    # lazy: the paraphrase stage brings numba and LightGBM; the gateway starts without them
    from services.paraphrase.tables import ending_paraphrases, stored_observations

    observations = stored_observations(store.paraphrase_observations())
    table = ending_paraphrases(observations, unit=unit, top=top)
    if noun is not None:
        table = {noun: table.get(noun, [])}
    return {key: [asdict(candidate) for candidate in value] for key, value in table.items()}


def matching_phrases(
    store: Store, q: str | None, *, lang: str | None = None
) -> list[PhraseTableEntry]:
    """The newest phrase table snapshot's entries (one language's with ``lang``) whose phrase
    or paraphrase contains ``q``, case ignored; every entry without ``q``."""
    # lazy: the paraphrase stage brings numba and LightGBM; the gateway starts without them
    from services.paraphrase.phrases import search_entries
    from services.paraphrase.repository import latest_phrase_table

    entries = latest_phrase_table(store.engine, lang=lang)
    return search_entries(entries, q) if q else entries


def word_similarity(
    store: Store, a: str, b: str, thesaurus: str | None = None
) -> SimilarityAnswer | None:
    """The similarity of two words from the newest snapshot (of ``thesaurus``, or of any);
    None before the first snapshot."""
    # lazy: the thesaurus stage's repository brings numpy and its similarity model
    from services.thesaurus import repository

    store.ensure_schema()
    repository.ensure_schema(store.engine)
    return repository.similarity(store.engine, a, b, thesaurus_name=thesaurus)


def best_match(answer: SimilarityAnswer | None) -> dict[str, Any] | None:
    """The answer's best class pair as JSON fields; None: no answer, or no class pair of the
    two words has a defined similarity."""
    return None if answer is None or answer.match is None else asdict(answer.match)
