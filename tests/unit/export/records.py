"""Sentence pairs as the exports read them: a :class:`StoredSentencePair` of the fields a test
names, the others plain placeholders."""

from __future__ import annotations

from typing import Any

from shared.sentence_pair import StoredSentencePair

PLACEHOLDERS: dict[str, Any] = {
    "id": "sp",
    "pair_id": "pp",
    "kind": "translation",
    "src_url": "https://example.org/en/a",
    "tgt_url": "https://example.org/de/a",
    "site": "example.org",
    "src_lang": "en",
    "tgt_lang": "de",
    "src_text": "source",
    "tgt_text": "target",
    "score": 0.9,
    "bead": "[0]:[0]",
    "position": 0,
}


def stored_pair(**fields: Any) -> StoredSentencePair:
    """A listed pair with ``fields``, the placeholders for the required fields not given."""
    return StoredSentencePair(**{**PLACEHOLDERS, **fields})
