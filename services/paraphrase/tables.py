"""Paraphrase tables aggregated from stored observations: ending paraphrases and phrase pairs.

Observations are distinct sentence pairs (keyed by id in the store), so recomputing from them
gives the same tables however often a pair was delivered.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from services.paraphrase.endings import EndingCandidate, Unit, mine_endings
from services.paraphrase.phrases import PhraseTableEntry, phrase_table
from services.paraphrase.word_align import WordAligner
from shared.text import analyse_japanese, tokenize_words


@dataclass(frozen=True)
class Observation:
    """One stored monolingual sentence pair."""

    lang: str
    kind: str
    src: str
    tgt: str


def stored_observations(rows: Iterable[Mapping[str, Any]]) -> list[Observation]:
    """Observations from ``Store.paraphrase_observations()`` rows."""
    return [Observation(r["lang"], r["kind"], r["src_text"], r["tgt_text"]) for r in rows]


def tokens(text: str, lang: str) -> list[str]:
    """Words of a sentence: UniDic morphemes for Japanese, word tokens otherwise."""
    if lang.split("-")[0].lower() == "ja":
        return [m.surface for m in analyse_japanese(text) if not m.surface.isspace()]
    return tokenize_words(text)


def ending_paraphrases(
    observations: Iterable[Observation], *, unit: Unit = "char", top: int = 10
) -> dict[str, list[EndingCandidate]]:
    """Ranked ending paraphrases per action noun over the Japanese PC/mobile pairs (§3a)."""
    pairs = [
        (obs.src, obs.tgt)
        for obs in observations
        if obs.kind == "pc-mobile" and obs.lang.split("-")[0].lower() == "ja"
    ]
    return mine_endings(pairs, unit=unit, top=top)


def phrase_paraphrases(observations: Sequence[Observation]) -> list[PhraseTableEntry]:
    """PPDB-style table: word-align every distinct pair (model trained on them all) (§3b)."""
    return _phrase_table(tuple(sorted({(obs.lang, obs.src, obs.tgt) for obs in observations})))


@functools.lru_cache(maxsize=4)
def _phrase_table(distinct: tuple[tuple[str, str, str], ...]) -> list[PhraseTableEntry]:
    # Training the word aligner is the expensive part: the same set of pairs (every query
    # between two ingests) reuses the table instead of retraining.
    tokenised = [(tokens(src, lang), tokens(tgt, lang)) for lang, src, tgt in distinct]
    tokenised = [(s, t) for s, t in tokenised if s and t]
    if not tokenised:
        return []
    aligner = WordAligner().fit(tokenised)
    return phrase_table((s, t, aligner.align(s, t)) for s, t in tokenised)
