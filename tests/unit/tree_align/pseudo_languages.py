"""Two made-up languages for tree_align tests: unrelated spellings (no shared prefix, so no
cognate cue), sentences and their word-by-word translations, and a dictionary of the two."""

from __future__ import annotations

import random

from services.lexical.dictionary import BilingualDictionary

# languages without a stemmer: the dictionary pairs the words as they are
SRC_LANG, TGT_LANG = "xx", "yy"


def language_pair(seed: int, size: int = 60) -> tuple[list[str], list[str]]:
    """Two vocabularies of unrelated spellings (no shared prefix, so no cognate cue), each
    word made unique by a suffix of its index."""
    rng = random.Random(seed)

    def word(consonants: str, vowels: str, k: int) -> str:
        stem = "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(3))
        return f"{stem}{'bcdfghjklm'[k % 10]}{'bcdfghjklm'[k // 10]}"

    return [word("bdgkp", "aeiou", k) for k in range(size)], [
        word("fhlmnrsvz", "y", k) for k in range(size)
    ]


def texts(seed: int, count: int) -> tuple[list[str], list[str]]:
    """``count`` sentences of 8-14 words and their word-by-word translations."""
    src_words, tgt_words = language_pair(seed)
    rng = random.Random(seed + 1)
    src, tgt = [], []
    for _ in range(count):
        words = rng.sample(range(len(src_words)), rng.randint(8, 14))
        src.append(" ".join(src_words[w] for w in words))
        tgt.append(" ".join(tgt_words[w] for w in words))
    return src, tgt


def dictionary(seed: int) -> BilingualDictionary:
    src_words, tgt_words = language_pair(seed)
    return BilingualDictionary(
        SRC_LANG, TGT_LANG, frozenset(zip(src_words, tgt_words, strict=True))
    )
