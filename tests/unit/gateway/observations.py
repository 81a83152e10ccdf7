"""Stored paraphrase observations the gateway's export and viewer tests share."""

from __future__ import annotations

from typing import Any

# Two PC/mobile pairs that differ by one word: big → large, the phrase table's one paraphrase.
BIG_LARGE: list[dict[str, Any]] = [
    {
        "id": "o1",
        "kind": "pc-mobile",
        "lang": "en",
        "src_text": "the big dog",
        "tgt_text": "the large dog",
    },
    {
        "id": "o2",
        "kind": "pc-mobile",
        "lang": "en",
        "src_text": "a big house",
        "tgt_text": "a large house",
    },
]
